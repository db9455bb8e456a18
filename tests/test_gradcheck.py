"""gradcheck / gradgradcheck: they pass right gradients and catch wrong ones in torch's words
(the output, the input, both Jacobians); fast mode, nondeterminism, custom Functions."""
import re

import numpy as np
import pytest

import numgrad as ng
from numgrad.autograd import Function, GradcheckError, gradcheck, gradgradcheck


def f64(*shape):
    return ng.randn(*shape, dtype=ng.float64, requires_grad=True)


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * g


class WrongCube(Cube):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x ** 2 * g                 # the deliberate bug: 2 instead of 3


class DetachedCube(Cube):
    """First derivative right, but computed from a constant: its own derivative is lost."""

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return ng.tensor(3 * x.detach().numpy() ** 2) * g


class NoisyCube(Cube):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2 * g + ng.tensor(np.random.uniform(0, 1e-8, x.shape))


def test_right_gradients_pass_in_both_modes():
    x, y = f64(3), f64(3)
    for fast in (False, True):
        assert gradcheck(ng.tanh, (x,), fast_mode=fast)
        assert gradcheck(lambda a, b: (a * b, a.sin() + b), (x, y), fast_mode=fast)
        assert gradcheck(lambda a, b: (a @ b.unsqueeze(1)).sum() * 2.5, (f64(2, 3), y),
                         fast_mode=fast)
        assert gradcheck(Cube.apply, (x,), fast_mode=fast)


def test_a_wrong_custom_backward_is_caught_with_torchs_message():
    x = ng.tensor([1., -2., 0.5], dtype=ng.float64, requires_grad=True)
    with pytest.raises(GradcheckError) as caught:
        gradcheck(lambda c, a: c * WrongCube.apply(a), (ng.tensor(2.0, dtype=ng.float64), x))
    message = str(caught.value)
    # analytical 2*c*x^2, numerical 3*c*x^2: torch prints both Jacobians, a row per input element
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 1,\n"
                              "numerical:tensor([[ 6.0000,  0.0000,  0.0000],\n")
    assert message.endswith("analytical:tensor([[ 4.,  0.,  0.],\n        [ 0., 16.,  0.],\n"
                            "        [ 0.,  0.,  1.]], dtype=numgrad.float64)\n")
    with pytest.raises(GradcheckError) as caught:
        gradcheck(WrongCube.apply, (x,), fast_mode=True)
    message = str(caught.value)
    assert ("\n\nThe above quantities relating the numerical and analytical jacobians are "
            "computed \nin fast mode.") in message
    # at x = -2: 3 x^2 by differences, 2 x^2 analytical
    assert re.search(r"\n\nThe max per-element difference \(slow mode\) is: 4\.0000000\d*\.\n$",
                     message)
    assert gradcheck(WrongCube.apply, (x,), raise_exception=False) is False


def test_tolerances_decide():
    x = f64(4)
    # eps large: central differences of x^3 are off by eps^2 = 1e-4, over the default atol
    assert not gradcheck(Cube.apply, (x,), eps=1e-2, raise_exception=False)
    assert gradcheck(Cube.apply, (x,), eps=1e-2, atol=1e-3, rtol=0)


def test_nondeterministic_backward_needs_nondet_tol():
    x = f64(3)
    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        gradcheck(NoisyCube.apply, (x,))
    assert gradcheck(NoisyCube.apply, (x,), nondet_tol=1e-7)


def test_no_differentiable_output_must_have_zero_numerical_gradient():
    x = f64(2)
    assert gradcheck(lambda a: (a > 0), (x,))
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be zero"):
        gradcheck(lambda a: a.detach() * 2, (x,))
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(ng.sin, (ng.ones(2, dtype=ng.float64),))


def test_non_contiguous_input_and_float32_warning():
    data = np.asfortranarray(np.random.default_rng(0).standard_normal((3, 2)))
    x = ng.from_numpy(data).requires_grad_()
    assert not x.numpy(force=True).flags.c_contiguous
    assert gradcheck(lambda a: a.exp().sum(0), (x,))
    with pytest.warns(UserWarning, match="not a double precision"):
        gradcheck(ng.sin, (ng.randn(2, requires_grad=True),), atol=1e-2, rtol=1e-2, eps=1e-3)


def test_gradgradcheck():
    x, y = f64(3), f64(3)
    assert gradgradcheck(lambda a: (a * a * a).sum(), (x,))
    assert gradgradcheck(lambda a, b: a * b.exp(), (x, y))
    assert gradgradcheck(lambda a, b: a * b.exp(), (x, y), fast_mode=True)
    assert gradgradcheck(Cube.apply, (x,))
    # first derivatives agree; the second does not: gradgradcheck catches it
    assert gradcheck(DetachedCube.apply, (x,))
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to "
                                             "input 0"):
        gradgradcheck(DetachedCube.apply, (x,))
