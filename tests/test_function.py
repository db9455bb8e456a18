"""Custom autograd Functions: forward/backward in Python, ctx, saved tensors, several inputs and
outputs, node names, double backward, and the compiled scheduler handing them to Python."""
import numpy as np
import pytest

import numgrad as ng
from numgrad import autograd
from numgrad.autograd import Function, api, once_differentiable
from numgrad.node import node_name


def t64(values, requires_grad=True):
    return ng.tensor(values, dtype=ng.float64, requires_grad=requires_grad)


def close(tensor, expected):
    np.testing.assert_allclose(tensor.detach().numpy(), expected, rtol=1e-12, atol=1e-12)


class Cube(Function):
    calls = 0

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        Cube.calls += 1
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * g


class Exp(Function):
    """Saves its output, like torch's exp."""

    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out


@pytest.fixture(autouse=True)
def _reset_counts():
    Cube.calls = 0


def test_forward_and_backward_values_and_node_name():
    x = t64([1., -2.])
    y = Cube.apply(x)
    close(y, [1., -8.])
    assert y.requires_grad and not y.is_leaf
    assert y.grad_fn.name() == "CubeBackward"
    assert type(y.grad_fn).__name__ == "CubeBackward"
    ((acc, slot),) = y.grad_fn.next_functions
    assert acc.name() == "torch::autograd::AccumulateGrad" and acc.variable is x and slot == 0
    y.sum().backward()
    close(x.grad, [3., 12.])
    assert Cube.calls == 1


class ScaleAndMix(Function):
    """(x * k, x * y) with a Python number k between two tensors."""

    @staticmethod
    def forward(ctx, x, k, y):
        ctx.k = k
        ctx.needs = ctx.needs_input_grad
        ctx.save_for_backward(x, y)
        return x * k, x * y

    @staticmethod
    def backward(ctx, g_scaled, g_mixed):
        x, y = ctx.saved_tensors
        gx = g_scaled * ctx.k + g_mixed * y if ctx.needs_input_grad[0] else None
        gy = g_mixed * x if ctx.needs_input_grad[2] else None
        return gx, None, gy


def test_several_inputs_and_outputs_with_a_non_tensor_argument():
    xv, yv = np.array([1., 2.]), np.array([3., -1.])
    x, y = t64(xv), t64(yv)
    scaled, mixed = ScaleAndMix.apply(x, 2.5, y)
    close(scaled, xv * 2.5)
    close(mixed, xv * yv)
    # next_functions: one entry per tensor argument, none for the number
    assert [type(n).__name__ for n, _ in scaled.grad_fn.next_functions] == ["AccumulateGrad"] * 2
    assert scaled.grad_fn is mixed.grad_fn
    (scaled.sum() * 2 + (mixed * t64([1., 10.], False)).sum()).backward()
    close(x.grad, 2 * 2.5 + np.array([1., 10.]) * yv)
    close(y.grad, np.array([1., 10.]) * xv)


def test_needs_input_grad_has_a_flag_per_argument():
    x, y = t64([1.]), t64([2.], requires_grad=False)
    scaled, _ = ScaleAndMix.apply(x, 2., y)
    assert scaled.grad_fn is not None
    ctx = scaled.grad_fn._seg.python[scaled.grad_fn._id]
    assert ctx.needs == (True, False, False)
    assert [n for n, _ in scaled.grad_fn.next_functions][1] is None


def test_function_between_compiled_nodes_runs_once():
    # f(x) = sum(exp(cube(sin x)))^... : cube twice, so the Python node appears twice in one
    # graph and feeds two consumers
    xv = np.array([.3, -.7, 1.2])
    x = t64(xv)
    c = Cube.apply(x.sin())
    z = (c.exp() + c * 2).sum()
    order = []

    def observe(graph, read):
        for index in graph.order[:graph.n_order]:
            seg, node = graph.locate(int(index))
            order.append(node_name(seg, node))

    api.observers.append(observe)
    try:
        z.backward()
    finally:
        api.observers.remove(observe)
    # the scheduler handed the Function to Python once, after both consumers, and resumed
    assert order.count("CubeBackward") == 1
    assert order.index("CubeBackward") > max(order.index("ExpBackward0"),
                                             order.index("MulBackward0"))
    assert order.index("SinBackward0") > order.index("CubeBackward")
    s = np.sin(xv)
    close(x.grad, (np.exp(s ** 3) + 2) * 3 * s ** 2 * np.cos(xv))
    assert Cube.calls == 1
    x.grad = None
    w = Cube.apply(Cube.apply(x) * 2).sum()       # (2 x^3)^3 = 8 x^9
    w.backward()
    close(x.grad, 72 * xv ** 8)
    assert Cube.calls == 3


def test_saved_tensors_are_released_after_backward():
    x = t64(2.)
    y = Cube.apply(x)
    y.backward(retain_graph=True)
    y.backward()
    close(x.grad, 24.)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    close(x.grad, 24.)
    ctx = y.grad_fn._seg.python[y.grad_fn._id]
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        ctx.saved_tensors


def test_a_function_that_saved_nothing_runs_again_like_torch():
    x = t64([1., 2.])
    y = Identity.apply(x).sum()
    y.backward()
    y.backward()
    close(x.grad, [10., 10.])


def test_saved_input_modified_in_place_raises_torchs_message():
    x = t64([1., 2.])
    h = x * 1.0
    y = Cube.apply(h)
    with ng.no_grad():
        h.mul_(2)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert str(info.value).startswith(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [numgrad.DoubleTensor [2]], which is output 0 of Mul, is at version 1; "
        "expected version 0 instead.")
    assert x.grad is None and Cube.calls == 0      # raised before the backward ran


def test_saved_output_modified_in_place_names_the_function():
    x = t64([1., 2., 3.])
    y = Exp.apply(x)
    with ng.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match=r"\[numgrad.DoubleTensor \[3\]\], which is output 0 of "
                                           r"Exp, is at version 1; expected version 0 instead"):
        y.sum().backward()
    leaf = t64([1.])
    z = Cube.apply(leaf)
    with ng.no_grad():
        leaf.add_(1)
    with pytest.raises(RuntimeError, match=r"\[numgrad.DoubleTensor \[1\]\] is at version 1"):
        z.sum().backward()


class WithIndices(Function):
    """A float result, an integer result (never differentiable) and a marked one."""

    received = None

    @staticmethod
    def forward(ctx, x):
        doubled = x * 2
        marked = x * 3
        ctx.mark_non_differentiable(marked)
        return doubled, (x > 0).long(), marked, "label"

    @staticmethod
    def backward(ctx, g_doubled, g_indices, g_marked, g_label):
        WithIndices.received = (g_doubled, g_indices, g_marked, g_label)
        return g_doubled * 2


def test_non_differentiable_outputs_get_materialized_zeros():
    x = t64([1., -1.])
    doubled, indices, marked, label = WithIndices.apply(x)
    assert doubled.requires_grad
    assert not indices.requires_grad and not marked.requires_grad and marked.grad_fn is None
    assert label == "label"
    doubled.sum().backward()
    close(x.grad, [2., 2.])
    g_doubled, g_indices, g_marked, g_label = WithIndices.received
    close(g_doubled, [1., 1.])
    np.testing.assert_array_equal(g_indices.numpy(), [0, 0])
    assert g_indices.dtype == ng.int64
    close(g_marked, [0., 0.])
    assert g_label is None


class AfterOthers(Function):
    """Differentiable results after a non-tensor, an integer tensor and a marked one."""

    @staticmethod
    def forward(ctx, x):
        marked = x * 3
        ctx.mark_non_differentiable(marked)
        return "label", (x > 0).long(), marked, x * 2, x * 5

    @staticmethod
    def backward(ctx, g_label, g_indices, g_marked, g_doubled, g_five):
        return g_doubled * 2 + g_five * 5


def test_an_output_is_numbered_by_its_place_among_all_returned_values():
    # torch numbers a Function's outputs by their position in what forward returned, so the
    # edge of a consumer of the fourth value carries input_nr 3, whatever came before it
    x = t64([1., -1.])
    _, _, _, doubled, fived = AfterOthers.apply(x)
    assert doubled.grad_fn is fived.grad_fn
    assert (doubled * 1).grad_fn.next_functions[0][1] == 3
    assert (fived * 1).grad_fn.next_functions[0][1] == 4
    (doubled * 10 + fived).sum().backward()
    close(x.grad, [25., 25.])
    hooked = []
    fived.register_hook(lambda g: hooked.append(g.tolist()))
    (x * 1).sum().backward()
    assert hooked == []
    x.grad = None
    fived.grad_fn.register_hook(lambda grad_inputs, grad_outputs: hooked.append(
        [None if g is None else g.tolist() for g in grad_outputs]))
    ng.autograd.backward([fived.sum()])
    # the tensor hook first; the node's hook sees None where no gradient came
    assert hooked == [[1., 1.], [None, None, None, None, [1., 1.]]]
    close(x.grad, [5., 5.])


class TwoOutputs(Function):
    received = []

    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 3, x * 4

    @staticmethod
    def backward(ctx, g_first, g_second):
        TwoOutputs.received.append((g_first is None, g_second is None))
        grad = None
        if g_first is not None:
            grad = g_first * 3
        if g_second is not None:
            grad = g_second * 4 if grad is None else grad + g_second * 4
        return grad


def test_set_materialize_grads_false_passes_none():
    TwoOutputs.received = []
    x = t64([1.])
    first, second = TwoOutputs.apply(x)
    first.sum().backward()
    second.sum().backward()
    assert TwoOutputs.received == [(False, True), (True, False)]
    close(x.grad, [7.])


class ReturnsNone(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return None


def test_a_none_gradient_is_undefined_not_zero():
    x = t64([1.])
    ReturnsNone.apply(x).sum().backward()
    assert x.grad is None
    w = t64([1.])
    (ReturnsNone.apply(w) + w).sum().backward()
    close(w.grad, [1.])


class Broadcasting(Function):
    """Returns a gradient of the broadcast shape, in another dtype: torch sums it down and casts."""

    @staticmethod
    def forward(ctx, x, y):
        return x + y

    @staticmethod
    def backward(ctx, g):
        return g.double(), g.double()


def test_broadcast_gradients_are_summed_and_cast():
    x = ng.tensor([1., 2., 3.], requires_grad=True)            # float32
    y = ng.tensor([[1.], [2.]], requires_grad=True)
    out = Broadcasting.apply(x, y)
    assert out.shape == (2, 3)
    out.sum().backward()
    assert x.grad.dtype == ng.float32 and y.grad.dtype == ng.float32
    np.testing.assert_allclose(x.grad.numpy(), [2., 2., 2.])
    np.testing.assert_allclose(y.grad.numpy(), [[3.], [3.]])


class Identity(Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 5


def test_returning_an_input_gives_a_new_output_with_history():
    x = t64([1., 2.])
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and y.grad_fn.name() == "IdentityBackward"
    assert y._version == x._version
    y.sum().backward()
    close(x.grad, [5., 5.])


class FirstOne(Function):
    @staticmethod
    def forward(ctx, x):
        return x[0:1]

    @staticmethod
    def backward(ctx, g):
        return ng.cat([g, ng.zeros(1, dtype=g.dtype)])


@pytest.mark.parametrize("function", [Identity, FirstOne], ids=["as-is", "a view"])
def test_an_output_viewing_an_input_is_a_view_torch_refuses_to_change_in_place(function):
    """torch's CreationMeta IN_CUSTOM_FUNCTION: an in-place op on the output would be recorded
    through the view and bypass the custom backward."""
    h = t64([1., 2.]) * 1.0
    y = function.apply(h)
    assert y._is_view() and y._base is h
    with pytest.raises(RuntimeError, match=(
            f"Output 0 of {function.__name__} is a view and is being modified inplace. This view "
            r"was created inside a custom Function \(or because an input was returned as-is\)")):
        y.mul_(2)
    close(h, [1., 2.])
    y.clone().mul_(2)       # the fix torch's message suggests


def test_an_input_returned_as_is_without_recording_is_a_detached_alias():
    x = t64([1., 2.])
    with ng.no_grad():
        alias = Identity.apply(x)
    assert alias is not x and not alias.requires_grad and not alias._is_view()
    constant = ng.tensor([1., 2.])
    with ng.no_grad():
        view = Identity.apply(constant)
    assert view._is_view() and view._base is constant and not view.requires_grad


class DoubleInPlace(Function):
    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_mark_dirty_moves_the_history_of_the_modified_input():
    x = t64([1., 2.])
    h = x * 1.0
    out = DoubleInPlace.apply(h)
    assert out is h and h.grad_fn.name() == "DoubleInPlaceBackward"
    assert h._version == 2           # the in-place op, then mark_dirty (as torch)
    close(h, [2., 4.])
    h.sum().backward()
    close(x.grad, [2., 2.])
    leaf = t64([1.])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been used in "
                                           "an in-place operation"):
        DoubleInPlace.apply(leaf)
    assert leaf._version == 2       # torch's mark_dirty counts the change before it refuses
    with pytest.warns(DeprecationWarning, match="should not be instantiated. Methods on autograd "
                                                "functions are all static"):
        instance = DoubleInPlace()
    with pytest.raises(RuntimeError, match="Legacy autograd function with non-static forward"):
        instance(t64([1.]))


def test_function_under_no_grad_records_nothing():
    x = t64([2.])
    with ng.no_grad():
        y = Cube.apply(x)
    assert not y.requires_grad and y.grad_fn is None
    close(y, [8.])


def test_double_backward_through_a_backward_written_in_numgrad_ops():
    x = t64(1.5)
    (g,) = autograd.grad(Cube.apply(x), x, create_graph=True)
    close(g, 3 * 1.5 ** 2)
    (h,) = autograd.grad(g, x, create_graph=True)
    close(h, 6 * 1.5)
    (t,) = autograd.grad(h, x)
    close(t, 6.)
    # through a saved output: every derivative of exp is exp
    z = t64([.5, -1.])
    (gz,) = autograd.grad(Exp.apply(z).sum(), z, create_graph=True)
    (hz,) = autograd.grad(gz.sum(), z)
    close(hz, np.exp([.5, -1.]))


def test_hessian_vector_product_through_a_function():
    # f(x) = sum(cube(x) * w): H = diag(6 x w)
    xv, wv, vv = np.array([1., -2.]), np.array([.5, 3.]), np.array([1., 1.])
    x = t64(xv)
    (g,) = autograd.grad((Cube.apply(x) * t64(wv, False)).sum(), x, create_graph=True)
    (hv,) = autograd.grad(g, x, t64(vv, False))
    close(hv, 6 * xv * wv * vv)


class OnceExp(Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out


def test_once_differentiable_runs_once_and_refuses_a_second_time():
    x = t64([0., 1.])
    OnceExp.apply(x).sum().backward()
    close(x.grad, np.exp([0., 1.]))
    y = t64([0., 1.])
    yv = np.array([0., 1.])
    # the incoming gradient 2 exp(y^2) depends on y: the results lead to a node that raises
    (g,) = autograd.grad((OnceExp.apply(y * y) ** 2).sum(), y, create_graph=True)
    close(g, 4 * yv * np.exp(2 * yv ** 2))
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was "
                                           "marked with @once_differentiable"):
        g.sum().backward()
    assert y.grad is None
    # the incoming gradient is a constant: torch does not guard, its backward is a constant
    (g,) = autograd.grad(OnceExp.apply(y * y).sum(), y, create_graph=True)
    g.sum().backward()
    close(y.grad, 2 * np.exp(yv ** 2))


def _wrong(result):
    class Wrong(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return result(g)
    return Wrong


@pytest.mark.parametrize("result, message", [
    (lambda g: g, r"function WrongBackward returned an incorrect number of gradients "
                  r"\(expected 2, got 1\)"),
    (lambda g: (g, None, g), r"incorrect number of gradients \(expected 2, got 3\)"),
    (lambda g: (g[:1], None), r"Function WrongBackward returned an invalid gradient at index 0 - "
                              r"got \[1\] but expected shape compatible with \[3\]"),
    (lambda g: (g, g), r"returned a gradient different than None at position 2, but the "
                       r"corresponding forward input was not a Variable"),
    (lambda g: (1.0, None), r"expected Variable or None \(got float\)"),
])
def test_a_wrong_backward_raises_and_changes_nothing(result, message):
    x = t64([1., 2., 3.])
    x.grad = t64([1., 1., 1.], False)
    before = x.grad.numpy().copy()
    y = (_wrong(result).apply(x, 2.) * x).sum()
    with pytest.raises(RuntimeError, match=message):
        y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), before)
    assert x._version == 0
    # extra None gradients are accepted, as torch does; the next correct call works
    (_wrong(lambda g: (g * 2, None, None)).apply(x, 2.) * x).sum().backward()
    close(x.grad, before + 2 * x.detach().numpy() + 2 * x.detach().numpy())


class SetupContextStyle(Function):
    """torch 2's style: forward without ctx, setup_context, and vjp as the backward's name."""

    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, k = inputs
        ctx.k = k
        ctx.seen = (type(inputs), ctx.needs_input_grad, output.requires_grad)
        ctx.save_for_backward(x)

    @staticmethod
    def vjp(ctx, g):
        (x,) = ctx.saved_tensors
        return g * ctx.k * x, None


def test_setup_context_and_vjp():
    x = t64([1., 2.])
    y = SetupContextStyle.apply(x, 3.)
    assert y.grad_fn.name() == "SetupContextStyleBackward"
    ctx = y.grad_fn._seg.python[y.grad_fn._id]
    assert ctx.seen == (tuple, (True, False), False)
    y.sum().backward()
    close(x.grad, [3., 6.])

    class Both(Function):
        @staticmethod
        def forward(ctx, v):
            return v * 2

        @staticmethod
        def backward(ctx, g):
            return g

        @staticmethod
        def vjp(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="Implementing both 'backward' and 'vjp'"):
        Both.apply(x).sum().backward()


def test_separate_setup_context_sees_keyword_and_default_arguments_as_inputs():
    seen = []

    class Scaled(Function):
        @staticmethod
        def forward(x, y, scale=2.0):
            return x * y * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen.append(len(inputs))
            x, y, scale = inputs
            ctx.save_for_backward(x, y)
            ctx.scale = scale

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y * ctx.scale, g * x * ctx.scale, None

    a = ng.tensor([1., 2.], dtype=ng.float64, requires_grad=True)
    b = ng.tensor([3., 4.], dtype=ng.float64, requires_grad=True)
    Scaled.apply(a, y=b).sum().backward()
    assert seen == [3]
    np.testing.assert_array_equal(a.grad.numpy(), [6., 8.])
    np.testing.assert_array_equal(b.grad.numpy(), [2., 4.])
