"""The ops of numgrad/ops/elementwise_gamma.py beyond what the op table checks: hand-derived values,
values and gradients at the poles and infinities (checked against torch 2.13), the kernels'
digamma and polygamma against scipy.special, derivatives of higher order, dtypes, errors, the
in-place forms and a CUDA run."""
import math

import numpy as np
import pytest
from scipy import special

import numgrad as ng
import numgrad.cuda

NAN, INF = math.nan, math.inf
EULER = 0.5772156649015329
# both signs, near the poles, near digamma's roots (1.46, -0.50, -1.57, ...) and far out
POINTS = np.concatenate([np.linspace(-9.75, 9.75, 79), [1e-300, 1e-8, 0.9999999, 1.4616321, 1.7,
                         -0.5040830, -1.5734, -2.0000001, -3.9999999, 25.5, 1e4, 1e9, 1e17,
                         1e300, -1e3 - 0.25]])


def points(dtype):
    """POINTS that dtype holds (float32 has no 1e300), as float64 values of that dtype."""
    inside = POINTS[np.abs(POINTS) < np.finfo(dtype).max]
    return inside.astype(dtype).astype(np.float64)


def leaf(data, dtype=ng.float64, device="cpu"):
    return ng.tensor(data, dtype=dtype, device=device, requires_grad=True)


def grads(fn, x):
    """(output values, the gradient of their sum)."""
    out = fn(x)
    out.backward(ng.ones_like(out))
    return out.detach().cpu().numpy(), x.grad.cpu().numpy()


def test_node_names_match_torch():
    x = leaf([0.5, 1.5])
    assert ng.lgamma(x).grad_fn.name() == "LgammaBackward0"
    assert x.digamma().grad_fn.name() == "DigammaBackward0"
    # torch records polygamma(0, x) as PolygammaBackward0, though its value is digamma's
    assert ng.polygamma(0, x).grad_fn.name() == "PolygammaBackward0"
    assert x.polygamma(3).grad_fn.name() == "PolygammaBackward0"


def test_hand_derived_values():
    x = leaf([1.0, 0.5, 2.0])
    out, g = grads(ng.lgamma, x)
    # lgamma(1) = lgamma(2) = 0, lgamma(1/2) = log(sqrt(pi)); lgamma' is digamma:
    # digamma(1) = -gamma, digamma(1/2) = -gamma - 2 log 2, digamma(2) = 1 - gamma
    np.testing.assert_allclose(out, [0.0, 0.5 * math.log(math.pi), 0.0], atol=1e-16)
    np.testing.assert_allclose(g, [-EULER, -EULER - 2 * math.log(2), 1 - EULER], rtol=1e-15)
    np.testing.assert_allclose(ng.digamma(x).detach().numpy(), g, rtol=1e-15)
    # polygamma(n, 1) = (-1)^(n+1) n! zeta(n + 1): pi^2/6, -2 zeta(3), pi^4/15
    one = leaf([1.0])
    zeta3 = 1.2020569031595942
    for n, want in ((0, -EULER), (1, math.pi ** 2 / 6), (2, -2 * zeta3), (3, math.pi ** 4 / 15)):
        np.testing.assert_allclose(ng.polygamma(n, one).item(), want, rtol=1e-15)
    _, g = grads(lambda t: t.polygamma(1), one)
    np.testing.assert_allclose(g, [-2 * zeta3], rtol=1e-15)
    # mvlgamma(x, 1) is lgamma; dimension 2 adds lgamma(x - 1/2) and log(pi) / 2
    y = leaf([3.0, 4.5])
    np.testing.assert_allclose(ng.mvlgamma(y, 1).detach().numpy(), special.gammaln([3.0, 4.5]))
    out, g = grads(lambda t: t.mvlgamma(2), y)
    np.testing.assert_allclose(out, special.gammaln([3.0, 4.5]) + special.gammaln([2.5, 4.0])
                               + 0.5 * math.log(math.pi), rtol=1e-15)
    np.testing.assert_allclose(g, special.digamma([3.0, 4.5]) + special.digamma([2.5, 4.0]),
                               rtol=1e-15)
    np.testing.assert_allclose(ng.mvlgamma(y, 3).detach().numpy(),
                               special.multigammaln(np.array([3.0, 4.5]), 3), rtol=1e-15)


def test_forwards_match_scipy():
    for dtype in (ng.float64, ng.float32):
        x = ng.tensor(points(dtype), dtype=dtype)
        v = x.numpy()
        np.testing.assert_allclose(ng.lgamma(x).numpy(), special.gammaln(v), rtol=1e-6)
        np.testing.assert_allclose(ng.digamma(x).numpy(), special.digamma(v), rtol=1e-6)
        for n in (1, 2, 5):
            with np.errstate(over="ignore"):
                want = special.polygamma(n, v).astype(v.dtype)
            np.testing.assert_allclose(ng.polygamma(n, x).numpy(), want, rtol=1e-6)


def _relative_error(got, want):
    """|got - want| relative to want, or to 1 near want's zeros (digamma's roots, where the
    cancellation of the reflection formula leaves an absolute error, in scipy too)."""
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(got - want) / np.maximum(np.abs(want), 1.0)
    return np.where(same, 0.0, error)


@pytest.mark.parametrize("dtype", [ng.float64, ng.float32])
def test_kernels_match_scipy(dtype):
    """The backward kernels compute digamma (lgamma's derivative) and polygamma(n + 1) (digamma's
    and polygamma's): to 2e-15 in float64, as scipy's to a few ulp in float32."""
    tolerance = 2e-15 if dtype == ng.float64 else 3 * 2.0 ** -24
    reference = points(dtype)
    with np.errstate(over="ignore"):
        cases = [(ng.lgamma, special.digamma(reference)),
                 (ng.digamma, special.polygamma(1, reference))]
        cases += [(lambda t, n=n: ng.polygamma(n, t), special.polygamma(n + 1, reference))
                  for n in (1, 2, 4)]
    for fn, want in cases:
        _, g = grads(fn, leaf(reference, dtype))
        with np.errstate(over="ignore"):       # float32's infinities, where scipy's is finite
            want = want.astype(g.dtype).astype(np.float64)
        error = _relative_error(g.astype(np.float64), want)
        assert error.max() <= tolerance, (reference[error.argmax()], g[error.argmax()])


def test_values_and_gradients_at_poles_and_infinities_as_torch():
    points = [0.0, -0.0, -1.0, -2.0, INF, -INF, NAN]
    # (function, its values there, the gradient's): torch 2.13's, but for trigamma (polygamma(1),
    # digamma's gradient) at the negative integers: torch's reflection formula divides by
    # sin(pi x)^2, which rounds to 1e-32 there, and gives 6.6e32 at -1; numgrad gives the pole's
    # inf, as scipy does and torch's own polygamma(n >= 2)
    cases = [
        (ng.lgamma, [INF, INF, INF, INF, INF, INF, NAN], [-INF, INF, NAN, NAN, INF, NAN, NAN]),
        (ng.digamma, [-INF, INF, NAN, NAN, INF, NAN, NAN], [INF, INF, INF, INF, 0.0, NAN, NAN]),
        (lambda t: t.polygamma(1), [INF, INF, INF, INF, 0.0, NAN, NAN],
         [-INF, -INF, -INF, -INF, NAN, -INF, NAN]),
        (lambda t: ng.polygamma(2, t), [-INF, -INF, -INF, -INF, NAN, -INF, NAN],
         [INF, INF, INF, INF, NAN, INF, NAN]),
    ]
    for dtype in (ng.float64, ng.float32):
        for fn, values, gradient in cases:
            out, g = grads(fn, leaf(points, dtype))
            np.testing.assert_array_equal(out, values)
            np.testing.assert_array_equal(g, gradient)
    # negative non-integers: finite, of the reflection formula's sign
    out, g = grads(ng.lgamma, leaf([-0.5, -2.5]))
    np.testing.assert_allclose(out, [1.2655121234846454, -0.05624371649767405], rtol=1e-14)
    np.testing.assert_allclose(g, [0.03648997397857652, 1.1031566406452433], rtol=1e-14)


def test_derivatives_of_any_order():
    x = leaf([-2.5, -0.7, 3.2])
    for fn in (ng.lgamma, ng.digamma, lambda t: t.polygamma(1), lambda t: ng.polygamma(3, t),
               lambda t: ng.mvlgamma(t + 4.0, 3)):
        assert ng.autograd.gradcheck(fn, (x,))
        assert ng.autograd.gradgradcheck(fn, (x,))
    # d3/dx3 lgamma = polygamma(2), through three recorded backward passes (torch's values)
    g, = ng.autograd.grad(ng.lgamma(x).sum(), x, create_graph=True)
    g2, = ng.autograd.grad(g.sum(), x, create_graph=True)
    g3, = ng.autograd.grad(g2.sum(), x)
    np.testing.assert_allclose(g3.numpy(), [-0.1082040516417282, -69.44163279863852,
                                            -0.13280000680313123], rtol=1e-13)
    assert g2.grad_fn.name() == "MulBackward0"


def test_float32_gradients_close_to_float64():
    data = [-2.5, -0.7, 0.3, 1.5, 3.2, 40.0]
    for fn in (ng.lgamma, ng.digamma, lambda t: ng.polygamma(2, t)):
        out32, g32 = grads(fn, leaf(data, ng.float32))
        out64, g64 = grads(fn, leaf(data))
        assert out32.dtype == g32.dtype == np.float32
        np.testing.assert_allclose(out32, out64, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g32, g64, rtol=1e-5)


def test_integers_promote_to_the_default_float_dtype():
    i = ng.tensor([1, 2, 3])
    for out in (ng.lgamma(i), i.digamma(), ng.polygamma(1, i), i.polygamma(0), ng.mvlgamma(i, 2)):
        assert out.dtype == ng.float32 and not out.requires_grad
    np.testing.assert_allclose(i.digamma().numpy(), [-EULER, 1 - EULER, 1.5 - EULER], rtol=1e-6)
    np.testing.assert_allclose(ng.polygamma(1, ng.tensor([True])).numpy(), [math.pi ** 2 / 6],
                               rtol=1e-6)
    ng.set_default_dtype(ng.float64)
    try:
        assert ng.lgamma(i).dtype == ng.float64
    finally:
        ng.set_default_dtype(ng.float32)


def test_errors_as_torch():
    x = ng.tensor([1.5])
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n."):
        ng.polygamma(-1, x)
    with pytest.raises(RuntimeError, match="does not support negative n"):
        x.polygamma(-2)
    with pytest.raises(TypeError, match=r"polygamma\(\): argument 'n' \(position 1\) must be int, "
                                        "not float"):
        ng.polygamma(1.0, x)
    with pytest.raises(TypeError, match="must be int, not bool"):
        ng.polygamma(True, x)
    with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
        ng.mvlgamma(x, 0)
    with pytest.raises(TypeError, match=r"mvlgamma\(\): argument 'p' \(position 2\) must be int, "
                                        "not float"):
        x.mvlgamma(2.0)
    # torch 2.x dropped its check that every element exceeds (p - 1) / 2: a value, no error
    np.testing.assert_allclose(ng.mvlgamma(ng.tensor([0.4], dtype=ng.float64), 2).numpy(),
                               [3.7380040933552725], rtol=1e-14)


def test_inplace_forms():
    cases = (("lgamma_", (), lambda t: ng.lgamma(t)), ("digamma_", (), ng.digamma),
             ("polygamma_", (2,), lambda t: ng.polygamma(2, t)),
             ("mvlgamma_", (2,), lambda t: ng.mvlgamma(t, 2)))
    for name, args, fn in cases:
        t = ng.tensor([2.5, 3.5], dtype=ng.float64)
        assert getattr(t, name)(*args) is t and t._version == 1
        np.testing.assert_array_equal(t.numpy(), fn(ng.tensor([2.5, 3.5], dtype=ng.float64))
                                      .numpy())
        # the gradient through the in-place form is the out-of-place one
        x = leaf([2.5, 3.5])
        y = x * 1.0
        getattr(y, name)(*args)
        y.sum().backward()
        _, want = grads(fn, leaf([2.5, 3.5]))
        np.testing.assert_array_equal(x.grad.numpy(), want, err_msg=name)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            getattr(leaf([2.5]), name)(*args)
        i = ng.tensor([1, 2])
        message = ("mvlgamma: result type Long can't be cast to the desired output type Float"
                   if name == "mvlgamma_" else
                   "result type Float can't be cast to the desired output type Long")
        with pytest.raises(RuntimeError, match=message):
            getattr(i, name)(*args)
        np.testing.assert_array_equal(i.numpy(), [1, 2])      # nothing written


@pytest.mark.skipif(not numgrad.cuda.is_available(),
                    reason="needs numba-cuda and a GPU or its simulator")
def test_on_cuda_tensors_as_on_the_cpu():
    data = [0.5, 1.4, -0.5, -2.3, 12.0, 0.0, -1.0, INF, NAN]
    for dtype in (ng.float64, ng.float32):
        for fn in (ng.lgamma, ng.digamma, lambda t: t.polygamma(1), lambda t: ng.polygamma(3, t),
                   lambda t: ng.mvlgamma(t, 2)):
            cpu = grads(fn, leaf(data, dtype))
            gpu = grads(fn, leaf(data, dtype, "cuda"))
            for c, g in zip(cpu, gpu):
                assert g.dtype == c.dtype
                np.testing.assert_allclose(g, c, rtol=1e-6, atol=0)
