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


def test_packed_saved_value_changed_in_place_names_its_shape():
    x = T(requires_grad=True)
    with ng.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = x * 1
        out = y.sin().sum()
    with ng.no_grad():
        y.mul_(2)
    assert _message(out.backward).startswith(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [numgrad.DoubleTensor [2, 3]], which is output 0 of Mul, is at version 1; "
        "expected version 0 instead.")


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
    assert _message(lambda: Cube()(T(), 2.0)) == (
        "Legacy autograd function with non-static forward method is deprecated. Please use "
        "new-style autograd function with static forward method. (Example: "
        "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")
