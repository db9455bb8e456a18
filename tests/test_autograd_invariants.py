"""DESIGN.md section 5, one test per invariant. The 10^6-node chain of invariant 9 (no recursion,
teardown) is in test_engine_scale.py; here invariant 9 is a training loop with hooks, custom
Functions, retain_grad and create_graph in bounded memory."""
import gc
import weakref

import numpy as np
import pytest

import numgrad as ng
from numgrad import autograd
from numgrad.autograd import api


def t64(values, requires_grad=True):
    return ng.tensor(values, dtype=ng.float64, requires_grad=requires_grad)


def close(tensor, expected):
    np.testing.assert_allclose(tensor.detach().numpy(), expected, rtol=1e-12, atol=1e-12)


class Recorder(autograd.Function):
    """Identity that records the gradients its backward receives."""

    received = []

    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        Recorder.received.append(g.numpy().copy())
        return g


def test_1_contributions_to_a_slot_are_summed_before_the_node_runs_once():
    Recorder.received = []
    x = t64([1., 2.])
    u = Recorder.apply(x)
    loss = (u * 2).sum() + (u * 3).sum() + (u * u).sum()
    loss.backward()
    assert len(Recorder.received) == 1
    np.testing.assert_array_equal(Recorder.received[0], 5 + 2 * np.array([1., 2.]))
    close(x.grad, 5 + 2 * np.array([1., 2.]))


def test_2_pending_counts_count_edges_not_destinations():
    # the seed documents' example: x*x has two edges to one AccumulateGrad
    x = ng.tensor(2., requires_grad=True)
    u = x * x
    u.retain_grad()
    (2 * u + 3 * u).backward()
    assert (u.grad.item(), x.grad.item()) == (5.0, 20.0)
    edges = u.grad_fn.next_functions
    assert [(type(n).__name__, slot) for n, slot in edges] == [("AccumulateGrad", 0)] * 2
    assert edges[0][0] is edges[1][0]
    y = t64([3.])
    (y * y * y).sum().backward()                  # three edges over two nodes: 3 y^2
    close(y.grad, [27.])


def test_3_leaf_grad_accumulates_resets_and_grad_leaves_it():
    x = t64([1., 2.])
    for k in range(1, 4):
        (x * x).sum().backward()
        close(x.grad, k * np.array([2., 4.]))
    x.grad = None
    (x * 3).sum().backward()
    close(x.grad, [3., 3.])
    before = x.grad
    (g,) = autograd.grad((x * x).sum(), x)
    assert x.grad is before
    close(x.grad, [3., 3.])
    close(g, [2., 4.])
    layer = ng.nn.Linear(2, 1)
    opt = ng.optim.SGD(layer.parameters(), lr=0.1)
    layer(t64([[1., 2.]], False).float()).sum().backward()
    assert layer.weight.grad is not None
    opt.zero_grad()
    assert layer.weight.grad is None and layer.bias.grad is None
    layer(ng.ones(1, 2)).sum().backward()
    layer.zero_grad(set_to_none=False)
    np.testing.assert_array_equal(layer.weight.grad.numpy(), [[0., 0.]])


def test_4_non_leaf_grads_only_after_retain_grad():
    x = t64([1., 2.])
    h, k = x * 2, x * 3
    h.retain_grad()
    (h * k).sum().backward()
    close(h.grad, [3., 6.])                       # d(h k)/dh = k
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert k.grad is None
    h2 = x * 2
    h2.retain_grad()
    h2.sum().backward(retain_graph=True)
    h2.sum().backward()                           # retained grads accumulate like .grad
    close(h2.grad, [2., 2.])


def test_5_saved_values_are_released_unless_retain_graph():
    x = t64(np.linspace(0., 1., 1000))
    h = x * 2
    y = h.sin().sum()                             # sin saves h's array
    saved = weakref.ref(h._data)
    del h
    assert saved() is not None
    y.backward(retain_graph=True)
    assert saved() is not None
    y.backward()
    assert saved() is None                        # freed by the backward, not by a collector
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_6_in_place_ops_bump_versions_and_stale_saved_values_raise():
    x = t64([1., 2.])
    h = x * 1
    y = h.sin()
    with ng.no_grad():
        h.add_(0)                                 # even a no-op write under no_grad counts
    assert h._version == 1
    with pytest.raises(RuntimeError, match=r"\[numgrad.DoubleTensor \[2\]\], which is output 0 of "
                                           r"Mul\w*, is at version 1; expected version 0 instead"):
        y.sum().backward()


def test_7_create_graph_records_the_backward():
    x = t64(0.7)
    f = x.sin() * x ** 2
    (g1,) = autograd.grad(f, x, create_graph=True)
    (g2,) = autograd.grad(g1, x, create_graph=True)
    (g3,) = autograd.grad(g2, x)
    s, c = np.sin(0.7), np.cos(0.7)
    close(g1, c * 0.49 + 2 * 0.7 * s)
    close(g2, -s * 0.49 + 4 * 0.7 * c + 2 * s)
    close(g3, -c * 0.49 - 6 * 0.7 * s + 6 * c)


class DropsGradient(autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, g):
        return None


def test_8_undefined_gradients_are_not_zeros():
    x, w = t64([1.]), t64([1.])
    e = x.exp()
    loss = DropsGradient.apply(e).sum() + w.sum()
    seen = {}

    def observe(graph, read):
        index = int(graph.index_of([e._node])[0])
        seen["exp"] = read(index, 0)              # the gradient exp's node would run with

    api.observers.append(observe)
    try:
        loss.backward(retain_graph=True)
    finally:
        api.observers.remove(observe)
    assert seen["exp"] is None                    # undefined: its kernel had nothing to run on
    assert x.grad is None                         # not zeros
    close(w.grad, [1.])
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 0 appears to not "
                                           "have been used in the graph"):
        autograd.grad(loss, x)
    assert autograd.grad(loss, [x], allow_unused=True) == (None,)


class Scale(autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g * w, (g * x).sum(0)


def test_9_a_training_loop_with_python_nodes_runs_in_bounded_memory():
    """Hooks, retain_grad, custom Functions and gradient penalties: each step's graph is freed by
    reference counting (the cyclic collector is off), so nothing accumulates."""
    w = ng.randn(32, requires_grad=True)
    data = ng.randn(16, 32)
    graphs = []
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for step in range(200):
            h = Scale.apply(data, w)
            h.retain_grad()
            h.register_hook(lambda g: g * 0.5)
            loss = (h.tanh() ** 2).mean()
            (gw,) = autograd.grad(loss, w, create_graph=True)
            total = loss + (gw * gw).sum()
            total.backward()
            with ng.no_grad():
                w.sub_(0.01 * w.grad)
            w.grad = None
            graphs.append(weakref.ref(h._seg))
            del h, loss, gw, total
        alive = sum(ref() is not None for ref in graphs)
    finally:
        if was_enabled:
            gc.enable()
    assert alive <= 1, f"{alive} of 200 steps' graphs are still alive"


def test_10_a_raised_error_leaves_tensors_grad_and_graph_as_they_were():
    # each error of torch's is tested this way in test_errors.py; this is the invariant itself
    x = t64([1., 2.])
    x.grad = t64([1., 1.], False)
    y = (x.exp() * x).sum()
    unused = t64(0.)
    with pytest.raises(RuntimeError):
        autograd.grad(y, [x, unused])
    with pytest.raises(RuntimeError):
        y.backward(ng.ones(2, dtype=ng.float64))
    with pytest.raises(RuntimeError):
        x.add_(1)
    close(x.grad, [1., 1.])
    assert x._version == 0 and x.is_leaf
    y.backward()
    xv = np.array([1., 2.])
    close(x.grad, 1 + np.exp(xv) * (xv + 1))
