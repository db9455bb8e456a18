"""The public autograd surface against torch 2.13: values, errors and warnings that a differential
sweep (numgrad vs torch on the same programs) found different, pinned to torch's.

Expected values and messages are torch 2.13's."""
import numpy as np
import pytest

import numgrad as ng
from numgrad.autograd import functional as F

A = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
B = [1.0, -2.0, 0.5]


def T(a=A, requires_grad=False):
    return ng.tensor(a, dtype=ng.float64, requires_grad=requires_grad)


def _message(fn, kind=RuntimeError):
    with pytest.raises(kind) as err:
        fn()
    return str(err.value)


# ---- autograd.backward / autograd.grad ---------------------------------------------------------

def test_backward_of_no_tensors_does_nothing():
    assert ng.autograd.backward([], []) is None


def test_a_non_tensor_output_is_torchs_assertion():
    assert _message(lambda: ng.autograd.backward([1.0]), AssertionError) == \
        "Expected output to be a numgrad.Tensor"
    x = T(requires_grad=True)
    # every output's type is checked before any output's requires_grad
    assert _message(lambda: ng.autograd.backward([T(), 1.0]), AssertionError) == \
        "Expected output to be a numgrad.Tensor"
    assert _message(lambda: ng.autograd.grad([x.sum(), 2], x), AssertionError) == \
        "Expected output to be a numgrad.Tensor"


def test_grad_of_no_outputs_reports_the_unused_input():
    x = T(requires_grad=True)
    assert _message(lambda: ng.autograd.grad([], x)) == (
        "The differentiated Tensor at index 0 appears to not have been used in the graph. Set "
        "allow_unused=True if this is the desired behavior.")
    assert ng.autograd.grad([], x, allow_unused=True) == (None,)


def test_materialized_gradients_require_grad_under_create_graph():
    x, z = T(requires_grad=True), T(requires_grad=True)
    gx, gz = ng.autograd.grad((x * x).sum(), [x, z], materialize_grads=True, create_graph=True)
    assert gx.requires_grad and gz.requires_grad           # torch: zeros_like(requires_grad=True)
    np.testing.assert_array_equal(gz.detach().numpy(), np.zeros((2, 3)))
    _, gz = ng.autograd.grad((x * x).sum(), [x, z], materialize_grads=True)
    assert not gz.requires_grad


def test_batched_materialized_gradient_of_an_unused_input_has_the_inputs_shape():
    x, z = T(requires_grad=True), T(requires_grad=True)
    seeds = ng.eye(6, dtype=ng.float64).reshape(6, 2, 3)
    gx, gz = ng.autograd.grad(x * x, [x, z], grad_outputs=seeds, is_grads_batched=True,
                              materialize_grads=True)
    assert tuple(gx.shape) == (6, 2, 3)
    assert tuple(gz.shape) == (2, 3)            # torch materializes after the batch
    np.testing.assert_array_equal(gz.numpy(), np.zeros((2, 3)))


@pytest.mark.parametrize("pack, expected", [(lambda t: t, np.cos(2.0)),
                                             (lambda t: t.clone(), np.cos(1.0))])
def test_a_packed_saved_value_is_not_version_checked(pack, expected):
    """torch checks no version of a value its pack hook took: the backward reads what unpack
    returns, the changed tensor itself when pack kept it."""
    x = ng.ones(2, 3, dtype=ng.float64, requires_grad=True)
    with ng.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = x * 1
        out = y.sin().sum()
    with ng.no_grad():
        y.mul_(2)
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), expected))


# ---- autograd.functional -----------------------------------------------------------------------

def f1(x):
    return (x.sin() * x).sum(dim=0)


def fs(x):
    return (x.sin() * x).sum()


def test_functional_takes_tuples_not_lists():
    assert _message(lambda: F.jacobian(lambda x: x * 2, [T()]), TypeError) == (
        "The inputs given to jacobian must be either a Tensor or a tuple of Tensors but the given "
        "inputs has type <class 'list'>.")
    assert _message(lambda: F.jacobian(f1, 3.0), TypeError) == (
        "The inputs given to jacobian must be either a Tensor or a tuple of Tensors but the given "
        "inputs has type <class 'float'>.")
    assert _message(lambda: F.jacobian(lambda x: (x, 3.0), T()), TypeError) == (
        "The outputs of the user-provided function given to jacobian must be either a Tensor or a "
        "tuple of Tensors but the value at index 1 has type <class 'float'>.")
    assert _message(lambda: F.vjp(f1, T(), [T(B)]), TypeError) == (
        "The v given to vjp must be either a Tensor or a tuple of Tensors but the given v has "
        "type <class 'list'>.")


def test_functional_v_messages():
    assert _message(lambda: F.vjp(f1, T())) == (
        "The vector v can only be None if the user-provided function returns a single Tensor "
        "with a single element.")
    assert _message(lambda: F.jvp(f1, T())) == (
        "The vector v can only be None if the input to the user-provided function is a single "
        "Tensor with a single element.")
    assert _message(lambda: F.vjp(f1, T(), (T(B), T(B)))) == \
        "The given v should contain a single Tensor."


def test_functional_strict_messages():
    linear = lambda x: (x * 2).sum()     # noqa: E731
    for fn in (lambda: F.hessian(linear, T(B), strict=True),
               lambda: F.hvp(linear, T(B), T(B), strict=True)):
        assert _message(fn) == (
            "While computing the hessian, found that the jacobian of the user-provided function "
            "with respect to input 0 is independent of the input. This is not allowed in strict "
            "mode. You should ensure that your function is twice differentiable and that the "
            "jacobian depends on the inputs (this would be violated by a linear function for "
            "example).")
    assert _message(lambda: F.jacobian(f1, T(), vectorize=True, strict=True)) == (
        "numgrad.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
        "supported together. Please either set `strict=False` or `vectorize=False`.")


def test_jacobian_strategies():
    assert _message(lambda: F.jacobian(f1, T(), strategy="x"), AssertionError).startswith(
        'Expected strategy to be either "forward-mode" or "reverse-mode". Hint:')
    assert _message(lambda: F.hessian(fs, T(B), outer_jacobian_strategy="x"),
                    AssertionError) == \
        'Expected strategy to be either "forward-mode" or "reverse-mode".'
    assert _message(lambda: F.jacobian(f1, T(), strategy="forward-mode"),
                    NotImplementedError) == (
        "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented "
        "for `vectorize=True`.")
    assert "`create_graph=True` and `strategy=\"forward-mode\"` are not supported together" in \
        _message(lambda: F.jacobian(f1, T(), strategy="forward-mode", vectorize=True,
                                    create_graph=True), NotImplementedError)
    assert "`strict=True` and `strategy=\"forward-mode\"` are not supported together" in \
        _message(lambda: F.jacobian(f1, T(), strategy="forward-mode", vectorize=True,
                                    strict=True))
    reverse = F.jacobian(f1, T())
    forward = F.jacobian(f1, T(), strategy="forward-mode", vectorize=True)
    np.testing.assert_allclose(forward.numpy(), reverse.numpy())
    assert not forward.requires_grad
    # torch does not detach forward-mode results
    assert F.jacobian(f1, T(requires_grad=True), strategy="forward-mode",
                      vectorize=True).requires_grad
    h = F.hessian(fs, T(B), vectorize=True, outer_jacobian_strategy="forward-mode")
    assert h.requires_grad
    np.testing.assert_allclose(h.detach().numpy(), np.diag([0.23913, -2.65089, 1.51545]),
                               atol=1e-5)


# ---- custom Functions --------------------------------------------------------------------------

class Cube(ng.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x ** 3 * k

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 3 * ctx.k * x ** 2 * g, None


def test_a_custom_functions_grad_fn_reads_its_ctx():
    x = T(requires_grad=True)
    out = Cube.apply(x, 2.0)
    assert out.grad_fn.needs_input_grad == (True, False)
    assert out.grad_fn.k == 2.0
    assert out.grad_fn.saved_tensors[0] is x
    with pytest.raises(AttributeError, match="'CubeBackward' object has no attribute 'nothing'"):
        out.grad_fn.nothing
    with pytest.raises(AttributeError, match="'MulBackward0' object has no attribute 'k'"):
        (x * 2).grad_fn.k
    out.sum().backward()
    assert _message(lambda: out.grad_fn.saved_tensors).startswith(
        "Trying to backward through the graph a second time (or directly access saved tensors "
        "after they have already been freed).")


def test_calling_a_function_instance_is_torchs_legacy_error():
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        instance = Cube()
    assert _message(lambda: instance(T(), 2.0)) == (
        "Legacy autograd function with non-static forward method is deprecated. Please use "
        "new-style autograd function with static forward method. (Example: "
        "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")


# ---- autograd.graph: multi-grad hooks, gradient edges ------------------------------------------

def _copies(grads):
    return [None if g is None else g.numpy().copy() for g in grads]


def test_multi_grad_hook_all_runs_once_per_backward_with_what_it_reaches():
    a, b = T(requires_grad=True), T(B, requires_grad=True)
    log = []
    handle = ng.autograd.graph.register_multi_grad_hook((a, b), lambda gs: log.append(_copies(gs)))
    (a.sin().sum() + (b * 2).sum()).backward()
    a.sin().sum().backward(inputs=[a])          # b is not reached: None
    handle.remove()
    (a.sum() + b.sum()).backward()
    assert len(log) == 2
    np.testing.assert_allclose(log[0][0], np.cos(A))
    np.testing.assert_allclose(log[0][1], [2.0, 2.0, 2.0])
    np.testing.assert_allclose(log[1][0], np.cos(A))
    assert log[1][1] is None


def test_multi_grad_hook_all_on_non_leaves_and_under_grad():
    a, b = T(requires_grad=True), T(B, requires_grad=True)
    m1, m2 = a * 2, b * 3
    log = []
    ng.autograd.graph.register_multi_grad_hook((m1, m2), lambda gs: log.append(_copies(gs)))
    (m1.sum() + m2.sum()).backward(retain_graph=True)
    ng.autograd.grad(m1.sum(), a)
    assert [[g is None for g in gs] for gs in log] == [[False, False], [False, True]]
    # torch cannot count leaves under autograd.grad
    x = T(requires_grad=True)
    ng.autograd.graph.register_multi_grad_hook((x,), lambda gs: None)
    assert _message(lambda: ng.autograd.grad(x.sum(), x)) == (
        "A leaf node was passed to _will_engine_execute_node but we are currently running "
        "autograd.grad(). This is currently not supported.")


def test_multi_grad_hook_any_runs_once_per_backward():
    a, b = T(requires_grad=True), T(B, requires_grad=True)
    log = []
    ng.autograd.graph.register_multi_grad_hook((a, b), lambda g: log.append(g.shape), mode="any")
    (a.sin().sum() + (b * 2).sum()).backward()
    (b * 2).sum().backward()
    assert len(log) == 2 and log[1] == (3,)
    assert _message(lambda: ng.autograd.graph.register_multi_grad_hook((a,), print, mode="x"),
                    ValueError) == "Expects mode to be one of ('all', 'any') but got x"


def test_gradient_edges_stand_for_tensors_in_grad_and_backward():
    graph = ng.autograd.graph
    x = T(requires_grad=True)
    y = x * 2
    edge = graph.get_gradient_edge(y)
    assert (edge.node.name(), edge.output_nr) == ("MulBackward0", 0)
    g, = ng.autograd.grad((y * y).sum(), edge)
    np.testing.assert_allclose(g.numpy(), 4 * np.array(A))
    leaf = graph.get_gradient_edge(x)
    assert leaf.node.name() == "torch::autograd::AccumulateGrad"
    g, = ng.autograd.grad((x * x).sum(), leaf)
    np.testing.assert_allclose(g.numpy(), 2 * np.array(A))
    first, second = x.unbind(0)
    edge = graph.get_gradient_edge(second)
    assert (edge.node.name(), edge.output_nr) == ("UnbindBackward0", 1)
    g, = ng.autograd.grad((first * second).sum(), edge)
    np.testing.assert_allclose(g.numpy(), A[0])
    g, = ng.autograd.grad((y * y).sum(), graph.GradientEdge(y.grad_fn, 0))
    np.testing.assert_allclose(g.numpy(), 4 * np.array(A))
    ng.autograd.backward(graph.get_gradient_edge(y), ng.ones(2, 3, dtype=ng.float64))
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 2.0))
    assert _message(lambda: graph.get_gradient_edge(T())) == (
        "It is not possible to get the gradient edge for a Tensor that does not require "
        "gradients")


def test_inputs_may_be_a_dict():
    x = T(requires_grad=True)
    y = x * 2
    grads = ng.autograd.grad((y * y).sum(), {"y": y, "x": x}, retain_graph=True)
    assert list(grads) == ["y", "x"]
    np.testing.assert_allclose(grads["x"].numpy(), 8 * np.array(A))
    (y * y).sum().backward(inputs={"x": x})
    np.testing.assert_allclose(x.grad.numpy(), 8 * np.array(A))
    import collections
    assert _message(lambda: ng.autograd.grad(y.sum(), collections.OrderedDict(x=x)),
                    TypeError) == ("`inputs` argument to `grad()` must be a dict, not OrderedDict. "
                                   "Other Mapping types are not supported.")


def test_post_accumulate_grad_hook_return_values():
    x = T(requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: 1)
    assert _message(lambda: (x * x).sum().backward(), TypeError) == \
        "expected Variable, but hook returned 'int'"
    x = T(requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: t * 2)
    assert _message(lambda: (x * x).sum().backward()) == \
        "Tensor post accumulate grad hooks should return None."


def test_torch_autograd_module_names():
    assert ng.autograd.grad_mode.no_grad is ng.no_grad
    assert ng.autograd.anomaly_mode.detect_anomaly is ng.autograd.detect_anomaly
    with ng.autograd.set_multithreading_enabled(False):
        x = T(requires_grad=True)
        (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.array(A))


def test_custom_function_outputs_and_keyword_inputs_as_torch():
    class Twice(ng.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            return y, y

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + 10 * g2

    x = T(requires_grad=True)
    a, b = Twice.apply(x)
    assert a is b
    (a.sum() + b.sum() * 2).backward()
    # the tensor is the node's second output: the first place gets zeros
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 30.0))

    class Same(ng.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_non_differentiable(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = T(requires_grad=True)
    y = Same.apply(x)
    assert y is not x and not y.requires_grad

    class Scale(ng.autograd.Function):
        @staticmethod
        def forward(ctx, x, k=2.0):
            ctx.needs = ctx.needs_input_grad
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 7, None

    y = Scale.apply(x=x)                    # a keyword argument is an input, as in torch
    assert y.grad_fn.needs == (True,)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 7.0))
    assert Scale.apply(x, k=3.0).grad_fn.needs == (True, False)
    assert repr(y.grad_fn).startswith("<numgrad.autograd.function.ScaleBackward object at 0x")
    assert repr((x * 2).grad_fn).startswith("<MulBackward0 object at 0x")


def test_deprecated_keywords_still_work_with_torchs_warnings():
    x = T(requires_grad=True)
    with pytest.warns(FutureWarning, match="only_inputs argument is deprecated and is ignored now"):
        g, = ng.autograd.grad((x * x).sum(), x, only_inputs=False)
    np.testing.assert_allclose(g.numpy(), 2 * np.array(A))
    with pytest.warns(FutureWarning, match="`grad_variables` is deprecated. Use `grad_tensors` "
                                           "instead."):
        ng.autograd.backward((x * x).sum(), grad_variables=ng.tensor(2., dtype=ng.float64))
    np.testing.assert_allclose(x.grad.numpy(), 4 * np.array(A))
    with pytest.warns(FutureWarning), pytest.raises(RuntimeError, match="`grad_tensors` and "
                                                    "`grad_variables` \\(deprecated\\) arguments "
                                                    "both passed to `backward\\(\\)`"):
        ng.autograd.backward((x * x).sum(), ng.tensor(1.), grad_variables=ng.tensor(1.))


def test_batched_grad_outputs_are_checked_as_torch():
    x = T(requires_grad=True)
    assert _message(lambda: ng.autograd.grad(x * 2, x, ng.ones(4, 3, dtype=ng.float64),
                                             is_grads_batched=True)) == (
        "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the "
        "batch dimension. The sizes of the remaining dimensions are expected to match the shape "
        "of corresponding output, but a mismatch was detected: grad_output[0] has a shape of "
        "numgrad.Size([]) and output[0] has a shape of numgrad.Size([2, 3]). If you only want "
        "some tensors in `grad_output` to be considered batched, consider using vmap.")
    assert _message(lambda: ng.autograd.grad(
        [x * 2, x * 3], x, [ng.ones(4, 2, 3, dtype=ng.float64), ng.ones(5, 2, 3, dtype=ng.float64)],
        is_grads_batched=True), ValueError) == (
        "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
        "[4, 5] for the mapped dimension")
    assert _message(lambda: ng.autograd.grad(x.sum(), x, is_grads_batched=True),
                    ValueError).startswith("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0")


def test_a_leaf_given_twice_as_backward_input_accumulates_once():
    x = T(requires_grad=True)
    (x * x).sum().backward(inputs=[x, x])
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.array(A))


def test_variable_is_torchs_legacy_alias():
    x = ng.ones(2)
    v = ng.autograd.Variable(x, requires_grad=True)
    assert v is not x and v.requires_grad and not x.requires_grad and v.is_leaf
    assert isinstance(x, ng.autograd.Variable)
    w = ng.autograd.Variable(ng.ones(2, requires_grad=True) * 2)
    assert w.grad_fn is None and not w.requires_grad
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        ng.autograd.Variable(x, volatile=True)
    assert _message(lambda: ng.autograd.Variable([1.0]), TypeError) == \
        "Variable data has to be a tensor, but got list"


@pytest.mark.parametrize("shape", [(), (1,)])
def test_hvp_and_vhp_return_the_output_as_the_function_gave_it(shape):
    """torch checks the output holds one element and hands it back unchanged: its shape, and
    under create_graph its own node."""
    x = ng.tensor([1.0, 2.0], dtype=ng.float64, requires_grad=True)
    v = ng.ones(2, dtype=ng.float64)

    def cube_sum(t):
        total = (t ** 3).sum()
        return total if shape == () else total.reshape(shape)

    for product in (F.hvp, F.vhp):
        output, result = product(cube_sum, x, v, create_graph=True)
        assert tuple(output.shape) == shape
        assert output.grad_fn.name() == ("SumBackward0" if shape == () else "ViewBackward0")
        assert result.tolist() == [6.0, 12.0]
