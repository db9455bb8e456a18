"""Hooks on graph nodes: grad_fn.register_prehook / register_hook, as torch runs them.

Expected values are torch 2.13's for the same programs."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F


def _mul_graph(dtype=ng.float32):
    x = ng.tensor([1., 2.], dtype=dtype, requires_grad=True)
    w = ng.tensor([3., 4.], dtype=dtype, requires_grad=True)
    return x, w, x * w


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_tensor_hooks_then_pre_hooks_then_the_node_then_its_hooks(dtype):
    x, w, y = _mul_graph(dtype)
    log = []
    y.register_hook(lambda g: log.append(("tensor", g.tolist())) or g + 1)
    y.grad_fn.register_prehook(lambda go: log.append(("pre", go[0].tolist())) or (go[0] * 10,))
    y.grad_fn.register_hook(lambda gi, go: log.append(("post", [g.tolist() for g in gi],
                                                       go[0].tolist())) or (gi[0], None))
    y.sum().backward()
    assert log == [("tensor", [1., 1.]), ("pre", [2., 2.]),
                   ("post", [[60., 80.], [20., 40.]], [20., 20.])]
    np.testing.assert_array_equal(x.grad.numpy(), [60., 80.])
    assert x.grad.dtype == dtype
    assert w.grad is None          # the hook's None replaced w's gradient


def test_removed_node_hooks_do_not_run():
    x, w, y = _mul_graph()
    handles = [y.grad_fn.register_prehook(lambda go: (go[0] * 10,)),
               y.grad_fn.register_hook(lambda gi, go: (gi[0] * 10, gi[1]))]
    for h in handles:
        h.remove()
        h.remove()
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3., 4.])
    np.testing.assert_array_equal(w.grad.numpy(), [1., 2.])


def test_accumulate_grad_hooks_run_around_the_accumulation_and_not_in_autograd_grad():
    x, w, y = _mul_graph()
    z = y.sum()
    acc = y.grad_fn.next_functions[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad"
    log = []
    acc.register_prehook(lambda go: log.append(("pre", go[0].tolist(), x.grad)) or (go[0] * 2,))
    acc.register_hook(lambda gi, go: log.append(("post", gi, go[0].tolist(), x.grad.tolist())))
    z.backward(retain_graph=True)
    assert log == [("pre", [3., 4.], None), ("post", (), [6., 8.], [6., 8.])]
    log.clear()
    (g,) = ng.autograd.grad(z, x, retain_graph=True)
    np.testing.assert_array_equal(g.numpy(), [3., 4.])
    assert log == []
    # the leaf keeps its AccumulateGrad's hooks for a later graph
    (x * 1.0).sum().backward()
    assert [entry[0] for entry in log] == ["pre", "post"]
    np.testing.assert_array_equal(x.grad.numpy(), [8., 10.])


def test_hooks_of_a_multi_output_node_see_undefined_gradients_as_none():
    a = ng.arange(4., requires_grad=True)
    p, q = a.split(2)
    log = []
    p.grad_fn.register_prehook(lambda go: log.append([None if g is None else g.tolist() for g in go]))
    p.grad_fn.register_hook(lambda gi, go: log.append([g.tolist() for g in gi]))
    (p * 2).sum().backward()
    assert log == [[[2., 2.], None], [[2., 2., 0., 0.]]]


@pytest.mark.parametrize("create_graph", [False, True])
def test_pre_hooks_run_only_on_nodes_that_run(create_graph):
    """autograd.grad(y, [h]) captures h's gradient without running h's node, and a root that
    reaches no wanted input does not run: torch calls neither node's pre-hooks."""
    x = ng.tensor([1.0, 2.0], dtype=ng.float64, requires_grad=True)
    w = ng.tensor([1.0, 2.0], dtype=ng.float64, requires_grad=True)
    h = x + 0.5
    y = (h * 3).sum()
    ran = []
    h.grad_fn.register_prehook(lambda go: ran.append("h") or (go[0] * 2,))
    y.grad_fn.register_prehook(lambda go: ran.append("y"))
    (g,) = ng.autograd.grad(y, [h], retain_graph=True, create_graph=create_graph)
    np.testing.assert_array_equal(g.detach().numpy(), [3.0, 3.0])
    assert ran == ["y"]
    (unused,) = ng.autograd.grad(y, [w], retain_graph=True, allow_unused=True,
                                 create_graph=create_graph)
    assert unused is None and ran == ["y"]
    (g,) = ng.autograd.grad(y, [x], create_graph=create_graph)     # h's node runs: its hook too
    np.testing.assert_array_equal(g.detach().numpy(), [6.0, 6.0])
    assert ran == ["y", "y", "h"]


def test_node_hooks_in_a_create_graph_backward_are_differentiable():
    x = ng.tensor([1., 2.], dtype=ng.float64, requires_grad=True)
    y = x ** 3
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 2,))
    y.grad_fn.register_prehook(lambda go: (go[0] + 1,))
    (g,) = ng.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [12., 48.])      # 3 x^2 (1 + 1) * 2
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [24., 48.])  # 12 x


def test_a_hook_on_a_custom_function_node():
    class Square(ng.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g

    x = ng.tensor([1., 2.], dtype=ng.float64, requires_grad=True)
    z = Square.apply(x)
    z.grad_fn.register_hook(lambda gi, go: (gi[0] + 100,))
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [102., 104.])


@pytest.mark.parametrize("register, hook, error, message", [
    ("register_hook", lambda gi, go: (gi[0],), RuntimeError,
     r"hook '<lambda>' has returned an incorrect number of values \(got 1, but expected 2\)"),
    ("register_prehook", lambda go: (go[0], go[0]), RuntimeError,
     r"hook '<lambda>' has returned an incorrect number of values \(got 2, but expected 1\)"),
    ("register_prehook", lambda go: 5, TypeError, "expected tuple, but hook returned 'int'"),
    ("register_hook", lambda gi, go: (gi[0][:1], None), RuntimeError,
     "hook '<lambda>' has changed the size of value"),
    ("register_hook", lambda gi, go: (gi[0].double(), None), RuntimeError,
     "hook '<lambda>' has changed the type of value"),
])
def test_a_wrong_hook_result_raises_torch_errors_and_changes_no_grad(register, hook, error, message):
    x, w, y = _mul_graph()
    getattr(y.grad_fn, register)(hook)
    with pytest.raises(error, match=message):
        y.sum().backward()
    assert x.grad is None and w.grad is None


def test_a_hook_cannot_give_a_gradient_where_none_arrived():
    a = ng.arange(4., requires_grad=True)
    p, q = a.split(2)
    p.grad_fn.register_prehook(lambda go: (go[0], ng.ones(2)))
    with pytest.raises(RuntimeError, match="can't replace a None gradient with a non-None value"):
        (p * 2).sum().backward()
    assert a.grad is None


def _names(fn):
    return [(None if f is None else f.name(), nr) for f, nr in fn.next_functions]


def test_next_functions_list_only_the_inputs_torch_differentiates():
    # a condition, a mask, index positions and class targets are operands, not inputs
    x = ng.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], requires_grad=True)
    y = ng.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    mask = x.detach() > 0
    index = ng.tensor([[0, 2], [1, 0]])
    acc = "torch::autograd::AccumulateGrad"
    assert _names(ng.where(mask, x, y).grad_fn) == [(acc, 0), (acc, 0)]
    assert _names(ng.where(mask, x, 0.0).grad_fn) == [(acc, 0), (None, 0)]
    assert _names(x.masked_fill(mask, 1.0).grad_fn) == [(acc, 0)]
    assert _names(x.masked_fill(mask, y.sum()).grad_fn) == [(acc, 0), ("SumBackward0", 0)]
    assert _names(x.gather(1, index).grad_fn) == [(acc, 0)]
    assert _names(x.index_select(1, ng.tensor([0, 2])).grad_fn) == [(acc, 0)]
    assert _names(x[ng.tensor([1, 0])].grad_fn) == [(acc, 0)]
    assert _names(x.scatter_add(1, index, y[:, :2]).grad_fn) == [(acc, 0), ("SliceBackward0", 0)]
    assert _names(F.cross_entropy(x, ng.tensor([0, 2])).grad_fn) == [("LogSoftmaxBackward0", 0)]
    assert _names(x.clone().fill_(2.0).grad_fn) == [("CloneBackward0", 0)]


def test_a_node_hook_sees_and_replaces_only_the_listed_gradients():
    x = ng.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = ng.tensor([4.0, 5.0, 6.0], requires_grad=True)
    out = ng.where(ng.tensor([True, False, True]), x, y)
    seen = []

    def hook(grad_inputs, grad_outputs):
        seen.append([g.tolist() for g in grad_inputs])
        return grad_inputs[0] * 10, grad_inputs[1]

    out.grad_fn.register_hook(hook)
    out.sum().backward()
    assert seen == [[[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]]
    assert x.grad.tolist() == [10.0, 0.0, 10.0] and y.grad.tolist() == [0.0, 1.0, 0.0]


def test_hooks_see_the_outputs_of_torchs_node_only():
    """max(dim), min(dim), sort and topk: torch's node has one output (the values); the indices
    are none of its outputs, so its hooks see one gradient."""
    x = ng.tensor([[1.0, 5.0], [3.0, 4.0]], dtype=ng.float64, requires_grad=True)
    seen = []
    for values in (x.max(dim=0)[0], x.min(dim=1)[0], x.sort(dim=0)[0], x.topk(1)[0]):
        values.grad_fn.register_prehook(lambda go: seen.append(len(go)))
        values.grad_fn.register_hook(lambda gi, go: seen.append((len(gi), len(go))))
        (values * 2).sum().backward()
    assert seen == [1, (1, 1)] * 4
    np.testing.assert_array_equal(x.grad.numpy(), [[4.0, 6.0], [6.0, 4.0]])


def test_a_tensor_hook_on_an_output_without_gradient_sees_none():
    """A node that runs calls the hooks of its outputs that got no gradient with None (torch),
    and refuses a gradient they return."""
    x = ng.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=ng.float64, requires_grad=True)
    a, b = (x * 1).unbind(0)
    seen = []
    b.register_hook(seen.append)
    a.sum().backward()
    assert seen == [None]
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 1.0], [0.0, 0.0]])
    a, b = (x * 1).unbind(0)
    b.register_hook(lambda g: ng.ones(2, dtype=ng.float64))
    with pytest.raises(RuntimeError, match="can't replace a None gradient with a non-None value"):
        a.sum().backward()


@pytest.mark.parametrize("create_graph", [False, True])
def test_a_post_hook_sees_each_gradient_in_its_inputs_float_type(create_graph):
    """float64 a times float32 b: torch's MulBackward0 hands b a float32 gradient (its
    validate_outputs casts before the hooks), and a hook's result of either type is cast so."""
    a = ng.tensor([1.0, 2.0], dtype=ng.float64, requires_grad=True)
    b = ng.tensor([3.0, 4.0], dtype=ng.float32, requires_grad=True)
    y = a * b
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append([g.dtype for g in gi]) or (gi[0], gi[1] * 2))
    ga, gb = ng.autograd.grad(y.sum(), [a, b], create_graph=create_graph)
    assert seen == [[ng.float64, ng.float32]]
    assert (ga.dtype, gb.dtype) == (ng.float64, ng.float32)
    np.testing.assert_array_equal(ga.detach().numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(gb.detach().numpy(), [2.0, 4.0])


@pytest.mark.parametrize("create_graph", [False, True])
def test_a_wanted_input_whose_node_runs_is_captured_before_its_hooks(create_graph):
    """torch's autograd.grad captures a non-leaf input's gradient before the hooks of its node
    when that node runs (here for x), after them when it does not."""
    x = ng.tensor([1.0, 2.0], dtype=ng.float64, requires_grad=True)
    h = x + 0.5
    y = (h * 3).sum()
    h.register_hook(lambda g: g * 2)
    h.grad_fn.register_prehook(lambda go: (go[0] * 5,))
    (alone,) = ng.autograd.grad(y, [h], retain_graph=True, create_graph=create_graph)
    np.testing.assert_array_equal(alone.detach().numpy(), [6.0, 6.0])
    gx, gh = ng.autograd.grad(y, [x, h], create_graph=create_graph)
    np.testing.assert_array_equal(gx.detach().numpy(), [30.0, 30.0])
    np.testing.assert_array_equal(gh.detach().numpy(), [3.0, 3.0])


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("join", [ng.cat, ng.stack])
def test_a_tensor_list_ops_post_hook_sees_a_constants_gradient_as_torch(join, create_graph):
    # torch's cat and stack take one tensor list: their node cuts the gradient for every tensor
    # in it once any is wanted, and the hooks see each piece; only the wanted ones are delivered
    a, constant = ng.ones(2, requires_grad=True), ng.ones(2)
    y = join([a, constant])
    seen = []
    y.grad_fn.register_hook(lambda grad_inputs, _: seen.append(grad_inputs))
    (y * ng.tensor([[1.0, 2.0], [3.0, 4.0]]).reshape(y.shape)).sum().backward(
        create_graph=create_graph)
    assert [g.tolist() for g in seen[0]] == [[1.0, 2.0], [3.0, 4.0]]
    assert a.grad.tolist() == [1.0, 2.0] and constant.grad is None


@pytest.mark.parametrize("create_graph", [False, True])
def test_the_hooks_of_an_in_place_op_of_mixed_types_see_the_tensors_type(create_graph):
    """float32 a.mul_(float64 b): torch's MulBackward0 gives a float32 output, so its hooks see
    float32 gradients for it and for a, float64 for b; a pre-hook's float32 gradient counts."""
    leaf, b = ng.ones(3, requires_grad=True), ng.ones(3, dtype=ng.float64, requires_grad=True)
    a = leaf * 2
    a.mul_(b)
    seen = []
    a.grad_fn.register_prehook(lambda go: seen.append(go[0].dtype) or (go[0] * 2,))
    a.grad_fn.register_hook(lambda gi, go: seen.append((gi[0].dtype, gi[1].dtype, go[0].dtype)))
    widened = a.double()        # a node reading the changed tensor: a float32 input for it
    read = []
    widened.grad_fn.register_hook(lambda gi, go: read.append((gi[0].dtype, go[0].dtype)))
    g_leaf, g_b = ng.autograd.grad((a * 3).sum() + widened.sum(), [leaf, b],
                                   create_graph=create_graph)
    assert seen == [ng.float32, (ng.float32, ng.float64, ng.float32)]
    assert read == [(ng.float32, ng.float64)]
    assert g_leaf.dtype == ng.float32 and g_leaf.tolist() == [16.0] * 3
    assert g_b.dtype == ng.float64 and g_b.tolist() == [16.0] * 3
