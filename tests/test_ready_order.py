"""The order the backward runs nodes in (Note [ready order] in kernels/ready_queue.py), as seen by
hooks and custom Functions: torch's engine runs the ready node the forward made last, and a leaf's
AccumulateGrad as soon as it is ready. Every expected order below follows from that rule by hand,
and matches what torch 2.x prints for the same program."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import numgrad as ng
from numgrad.autograd import Function
from numgrad.autograd.trace import Run
from numgrad.kernels import ready_queue


def record(order, name):
    return lambda *args: order.append(name)


def test_of_two_ready_branches_the_newer_runs_first():
    order = []
    x = ng.tensor([0.5, 1.0], requires_grad=True)
    y = x.exp()                  # made first
    z = x.sin()                  # made second: runs first
    y.register_hook(record(order, "y"))
    z.register_hook(record(order, "z"))
    (y + z).sum().backward()
    assert order == ["z", "y"]


def test_sequence_numbers_follow_the_recording_order():
    """grad_fn._sequence_nr(), the number torch's ready queue orders by: a node made later has a
    larger one, and AccumulateGrad has the largest, 2**64 - 1 (it runs as soon as it is ready)."""
    x = ng.tensor([0.5, 1.0], requires_grad=True)
    y = x.exp()
    z = x.sin()
    w = (y + z).sum()
    numbers = [t.grad_fn._sequence_nr() for t in (y, z, w)]
    assert numbers == sorted(numbers) and len(set(numbers)) == 3
    later = (x * 2).grad_fn._sequence_nr()
    w.backward()                                 # the next node starts a new tape segment
    assert (x * 3).grad_fn._sequence_nr() > later > numbers[-1]
    accumulate = y.grad_fn.next_functions[0][0]
    assert accumulate.name() == "torch::autograd::AccumulateGrad"
    assert accumulate._sequence_nr() == 2 ** 64 - 1


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_a_leaf_gets_its_grad_as_soon_as_it_is_complete(dtype):
    """p = a*2 (node 0), q = b*3 (1), loss = p.sum() (2) + q.sum() (3) (4): the add makes both
    sums ready, the newer (q's) runs, then q's product, whose leaf b is then ready and runs before
    anything else; only then does p's branch run."""
    order, seen = [], {}
    a = ng.tensor([1.0, 2.0], dtype=dtype, requires_grad=True)
    b = ng.tensor([3.0, 4.0], dtype=dtype, requires_grad=True)
    p, q = a * 2, b * 3
    p.register_hook(lambda g: seen.update(b_grad=b.grad, a_grad=a.grad))
    p.register_hook(record(order, "p"))
    q.register_hook(record(order, "q"))
    a.register_post_accumulate_grad_hook(record(order, "a stored"))
    b.register_post_accumulate_grad_hook(record(order, "b stored"))
    (p.sum() + q.sum()).backward()
    assert order == ["q", "b stored", "p", "a stored"]
    np.testing.assert_array_equal(seen["b_grad"].numpy(), [3.0, 3.0])     # already in .grad
    assert seen["a_grad"] is None
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 2.0])


@pytest.mark.parametrize("n, expected", [(2, [0, 1]), (3, [0, 1, 2]), (4, [0, 2, 1, 3]),
                                         (9, [0, 2, 6, 8, 5, 7, 4, 1, 3])])
def test_leaves_ready_together_run_in_the_order_of_torchs_heap(n, expected):
    """cat's backward makes all its leaves ready at once; they tie (every AccumulateGrad has the
    same rank), and std::priority_queue's heap, which torch uses, pops ties in this order."""
    order = []
    leaves = [ng.ones(2, requires_grad=True) for _ in range(n)]
    for k, leaf in enumerate(leaves):
        leaf.register_hook(record(order, k))
    ng.cat(leaves).sum().backward()
    assert order == expected


def test_the_hooks_of_one_nodes_outputs_run_in_the_order_they_were_first_registered():
    order = []
    x = ng.arange(4.0, requires_grad=True)
    parts = x.unbind(0)
    parts[3].register_hook(record(order, 3))
    parts[1].register_hook(record(order, 1))
    parts[3].register_hook(record(order, "3 again"))
    (parts[1] * parts[3]).backward()
    assert order == [3, "3 again", 1]


def test_custom_functions_run_in_the_same_order():
    order = []

    class Tag(Function):
        @staticmethod
        def forward(ctx, x, name):
            ctx.name = name
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            order.append(ctx.name)
            return g, None

    x = ng.tensor([1.0, 2.0], requires_grad=True)
    first, second, third = Tag.apply(x, "first"), Tag.apply(x, "second"), Tag.apply(x, "third")
    (first * second + third).sum().backward()
    # third is newest; then the product (made before the sum) makes first and second ready
    assert order == ["third", "second", "first"]
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy() + 1)


@pytest.mark.parametrize("how", ["grad", "create_graph", "inputs"])
def test_leaf_hooks_run_in_order_in_every_kind_of_backward(how):
    order = []
    a = ng.tensor(2.0, requires_grad=True)
    b = ng.tensor(3.0, requires_grad=True)
    a.register_hook(lambda g: (order.append("a"), g * 10)[1])
    b.register_hook(record(order, "b"))
    out = a.exp() * b.sin()       # the product makes both branches ready: sin (newer) first
    if how == "grad":
        ga, gb = ng.autograd.grad(out, (a, b))
        assert order == ["b", "a"]
        assert a.grad is None
        assert ga.item() == pytest.approx(10 * np.exp(2.0) * np.sin(3.0))
    elif how == "create_graph":
        with pytest.warns(UserWarning, match="reference cycle"):
            out.backward(create_graph=True)
        assert order == ["b", "a"]
        assert a.grad.item() == pytest.approx(10 * np.exp(2.0) * np.sin(3.0))
        assert a.grad.requires_grad
    else:
        out.backward(inputs=[a])
        assert order == ["a"]
        assert b.grad is None
        assert a.grad.item() == pytest.approx(10 * np.exp(2.0) * np.sin(3.0))


def test_a_leaf_in_two_segments_runs_its_hooks_once_on_the_sum():
    """A backward in between closes the tape segment; a graph spanning both has two
    AccumulateGrads for x, whose parts are summed before its hooks run."""
    calls = []
    x = ng.tensor(1.5, requires_grad=True)
    x.register_hook(lambda g: calls.append(g.item()))
    y = x * x
    y.backward(retain_graph=True)            # 3
    z = y * x                                # x**3, recorded in a new segment
    z.backward()                             # 3 * x**2
    assert calls == [pytest.approx(3.0), pytest.approx(6.75)]
    assert x.grad.item() == pytest.approx(9.75)


def test_trace_can_run_the_seeds_first_in_first_out_order():
    x = ng.tensor(2.0, requires_grad=True)
    u = x * x
    a, b = 2 * u, 3 * u
    loss = a + b
    names = {"a": a, "b": b}
    with ng.autograd.trace(names=names, order="fifo") as fifo:
        loss.backward(retain_graph=True)
    with ng.autograd.trace(names=names) as newest_first:
        loss.backward()
    assert [str(e) for e in fifo.events if isinstance(e, Run)][1:3] == ["run a: 1", "run b: 1"]
    assert [str(e) for e in newest_first.events if isinstance(e, Run)][1:3] == ["run b: 1",
                                                                                "run a: 1"]
    assert x.grad.item() == 40.0


def _heap_order(ranks, pushes):
    """Pop everything after pushing these nodes in turn, with these ranks."""
    heap = np.empty(len(pushes), np.int64)
    rank = np.asarray(ranks, np.int64)
    keep = np.empty(len(ranks), np.int64)
    size = 0
    for node in pushes:
        size = ready_queue.push(heap, keep, size, node, rank[node])
    popped = []
    while size:
        popped.append(int(ready_queue.pop(heap, keep, size)))
        size -= 1
    return popped


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=40))
def test_the_heap_pops_every_node_once_highest_rank_first(ranks):
    popped = _heap_order(ranks, list(range(len(ranks))))
    assert sorted(popped) == list(range(len(ranks)))
    assert [ranks[n] for n in popped] == sorted(ranks, reverse=True)


def test_fifo_ranks_pop_in_push_order():
    op = np.ones(6, np.int32)
    pushes = [4, 1, 5, 0, 3, 2]
    heap, ranks = np.empty(6, np.int64), np.empty(6, np.int64)
    size = 0
    for k, node in enumerate(pushes):
        size = ready_queue.push(heap, ranks, size, node,
                                ready_queue.rank_of(ready_queue.FIFO, op, node, k))
    popped = []
    while size:
        popped.append(int(ready_queue.pop(heap, ranks, size)))
        size -= 1
    assert popped == pushes


def test_a_networks_parameters_get_their_gradients_in_torchs_order():
    """Linear's node lists the bias first, as torch's addmm(b, x, w.t()), and reaches the weight
    through w.t()'s TBackward0: the bias's AccumulateGrad runs first; the last layer's before the
    first's (torch 2.13's order)."""
    ng.manual_seed(0)
    model = ng.nn.Sequential(ng.nn.Linear(3, 4), ng.nn.Tanh(), ng.nn.Linear(4, 2))
    order = []
    for name, p in model.named_parameters():
        p.register_post_accumulate_grad_hook(lambda t, name=name: order.append(name))
    out = model(ng.randn(5, 3))
    names = [(None if f is None else f.name(), nr) for f, nr in out.grad_fn.next_functions]
    assert names == [("torch::autograd::AccumulateGrad", 0), ("TanhBackward0", 0),
                     ("TBackward0", 0)]
    assert out.grad_fn.next_functions[0][0].variable is model[2].bias
    assert out.grad_fn.next_functions[2][0].next_functions[0][0].variable is model[2].weight
    out.sum().backward()
    assert order == ["2.bias", "2.weight", "0.bias", "0.weight"]
    np.testing.assert_allclose(model[2].bias.grad.numpy(), [5.0, 5.0])


def _parameter_order(model, x):
    order = []
    for name, p in model.named_parameters():
        p.register_post_accumulate_grad_hook(lambda t, name=name: order.append(name))
    model(x).sum().backward()
    return order


def test_a_norm_layers_weight_gets_its_gradient_before_its_bias():
    """torch's layer, batch and group norm nodes list (input, weight, bias); instance_norm is
    batch_norm over parameters repeated per sample, whose bias comes first."""
    nn = ng.nn
    ng.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.Linear(4, 2))
    assert _parameter_order(mlp, ng.randn(2, 3)) == ["2.bias", "2.weight", "1.weight", "1.bias",
                                                     "0.bias", "0.weight"]
    cnn = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4), nn.GroupNorm(2, 4),
                        nn.InstanceNorm2d(4, affine=True))
    assert _parameter_order(cnn, ng.randn(2, 2, 5, 5)) == [
        "3.bias", "3.weight", "2.weight", "2.bias", "1.weight", "1.bias", "0.weight", "0.bias"]
    np.testing.assert_allclose(cnn[3].bias.grad.numpy(), np.full(4, 18.0))     # N * H * W


@pytest.mark.parametrize("create_graph", [False, True])
def test_a_retained_grad_is_stored_when_its_node_runs(create_graph):
    """torch's retain_grad is a hook of the node: later hooks see .grad, hooked values included."""
    seen = []
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    z = y.sin()
    z.retain_grad()
    z.register_hook(lambda g: g * 2)          # runs before z's gradient is retained
    y.register_hook(lambda g: seen.append(("y", z.grad.tolist(), y.grad)))
    x.register_hook(lambda g: seen.append(("x", y.grad.tolist())))
    if create_graph:
        z.sum().backward(create_graph=True)
    else:
        z.sum().backward()
    expected_y = (2 * np.cos(3 * np.array([1.0, 2.0], np.float32))).tolist()
    assert seen[0] == ("y", [2.0, 2.0], None)
    np.testing.assert_allclose(seen[1][1], expected_y, rtol=1e-6)
    np.testing.assert_allclose(y.grad.detach().numpy(), expected_y, rtol=1e-6)
    assert y.grad.requires_grad == create_graph


def test_a_leaf_used_before_an_earlier_backward_runs_its_hooks_in_torchs_order():
    """y.exp() recorded before an unrelated backward, x used on both sides of it: the graph of
    the second backward spans both tapes, and x's hook still runs as soon as its gradient is
    complete (torch 2.13: x, then y)."""
    x = ng.tensor(0.5, dtype=ng.float64, requires_grad=True)
    y = ng.tensor(0.3, dtype=ng.float64, requires_grad=True)
    order = []
    x.register_hook(lambda g: order.append("x"))
    y.register_hook(lambda g: order.append("y"))
    e = y.exp()
    (x * 2).backward()
    assert order == ["x"]
    order.clear()
    (e * 1 + x * x).backward()
    assert order == ["x", "y"]
    np.testing.assert_allclose(x.grad.item(), 2.0 + 1.0)
    np.testing.assert_allclose(y.grad.item(), np.exp(0.3))
