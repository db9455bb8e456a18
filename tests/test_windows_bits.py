"""Window functions, integer and binary-exponent arithmetic, histogram and numgrad.special,
against torch 2.13's numbers."""
import numpy as np
import pytest

import numgrad as ng
from numgrad.autograd import gradcheck, gradgradcheck

# torch.<name>(5) (periodic) and torch.<name>(4, periodic=False), float64, rounded to 6 decimals
WINDOWS = {
    "hann_window": ([0.0, 0.345492, 0.904508, 0.904508, 0.345492], [0.0, 0.75, 0.75, 0.0]),
    "hamming_window": ([0.08, 0.397852, 0.912148, 0.912148, 0.397852], [0.08, 0.77, 0.77, 0.08]),
    "blackman_window": ([0.0, 0.20077, 0.84923, 0.84923, 0.20077], [0.0, 0.63, 0.63, 0.0]),
    "bartlett_window": ([0.0, 0.4, 0.8, 0.8, 0.4], [0.0, 0.666667, 0.666667, 0.0]),
    "kaiser_window": ([5.3e-05, 0.10172, 0.79294, 0.79294, 0.10172],
                      [5.3e-05, 0.518845, 0.518845, 5.3e-05]),
}


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_windows(name):
    periodic, symmetric = WINDOWS[name]
    window = getattr(ng, name)
    np.testing.assert_allclose(np.asarray(window(5, dtype=ng.float64)), periodic, atol=1e-6)
    np.testing.assert_allclose(np.asarray(window(4, False, dtype=ng.float64)), symmetric,
                               atol=1e-6)
    assert window(5).dtype == ng.float32
    assert window(1).tolist() == [1.0] and window(0).shape == (0,)


def test_integer_arithmetic():
    a, b = ng.tensor([12, -18, 0, 7]), ng.tensor([8, 12, 0, 3])
    assert ng.gcd(a, b).tolist() == [4, 6, 0, 1]
    assert ng.lcm(a, b).tolist() == [24, 36, 0, 21]
    assert (a << 2).tolist() == [48, -72, 0, 28] and (a >> 1).tolist() == [6, -9, 0, 3]
    assert (1 << ng.tensor([0, 3])).tolist() == [1, 8]
    a.bitwise_left_shift_(1)
    assert a.tolist() == [24, -36, 0, 14]
    with pytest.raises(NotImplementedError, match="\"gcd_cpu\" not implemented for 'Float'"):
        ng.gcd(ng.ones(2), ng.ones(2))
    with pytest.raises(NotImplementedError, match="\"lshift_cpu\" not implemented for 'Bool'"):
        ng.tensor([True]) << ng.tensor([True])


def test_frexp_and_ldexp():
    x = ng.tensor([8.0, 0.3, -5.0, 0.0, 1e-310], dtype=ng.float64, requires_grad=True)
    mantissa, exponent = ng.frexp(x)
    np.testing.assert_allclose(np.asarray(mantissa.detach()),
                               [0.5, 0.6, -0.625, 0.0, 0.5752618], rtol=1e-6)
    assert exponent.tolist() == [4, -1, 3, 0, -1029] and exponent.dtype == ng.int32
    # away from powers of two (and 0), where the exponent jumps
    assert gradcheck(lambda v: ng.frexp(v)[0], (x[1:3],))
    y = ng.tensor([1.5, -2.0], dtype=ng.float64, requires_grad=True)
    out = ng.ldexp(y, ng.tensor([3, 1]))
    assert out.tolist() == [12.0, -4.0]
    assert gradcheck(lambda v: ng.ldexp(v, ng.tensor([3, -1])), (y,))
    assert ng.ldexp(ng.tensor([1, 2]), ng.tensor([1, 1])).dtype == ng.float32


def test_histogram():
    hist, edges = ng.histogram(ng.tensor([1.0, 2.0, 1.0, 4.0]), 3)
    assert hist.tolist() == [2.0, 1.0, 1.0] and edges.tolist() == [1.0, 2.0, 3.0, 4.0]
    hist, _ = ng.histogram(ng.tensor([1.0, 2.0, 1.0, 4.0]), ng.tensor([0.0, 1.5, 5.0]),
                           weight=ng.tensor([1.0, 2.0, 3.0, 4.0]), density=True)
    np.testing.assert_allclose(np.asarray(hist), [0.266667, 0.171429], atol=1e-6)
    hist, _ = ng.tensor([1.0, 2.0, 1.0, 4.0]).histogram(4, range=(0.0, 2.0))
    assert hist.tolist() == [0.0, 0.0, 2.0, 1.0]


def test_special_names_and_composites():
    x = ng.tensor([-3.0, -0.5, 0.0, 1.5], dtype=ng.float64, requires_grad=True)
    # torch.special.ndtr / log_ndtr at these points
    np.testing.assert_allclose(np.asarray(ng.special.ndtr(x).detach()),
                               [0.0013499, 0.3085375, 0.5, 0.9331928], atol=1e-7)
    np.testing.assert_allclose(np.asarray(ng.special.log_ndtr(x * 8).detach()),
                               [-292.098721, -10.360101, -0.6931472, -1.776482e-33], rtol=1e-6)
    assert gradcheck(ng.special.ndtr, (x,)) and gradcheck(ng.special.log_ndtr, (x,))
    p = ng.tensor([0.01, 0.5, 0.99], dtype=ng.float64, requires_grad=True)
    np.testing.assert_allclose(np.asarray(ng.special.ndtri(p).detach()),
                               [-2.3263479, 0.0, 2.3263479], atol=1e-6)
    assert gradcheck(ng.special.ndtri, (p,))
    np.testing.assert_allclose(np.asarray(ng.special.entr(ng.tensor([0.0, 0.5, -1.0]))),
                               [0.0, 0.3465736, -np.inf])
    a = ng.tensor([0.0, 0.0, 2.0], dtype=ng.float64, requires_grad=True)
    b = ng.tensor([-1.0, 3.0, 1e-9], dtype=ng.float64, requires_grad=True)
    out = ng.special.xlog1py(a, b)
    out.sum().backward()
    np.testing.assert_allclose(np.asarray(out.detach()), [0.0, 0.0, 2e-9], rtol=1e-9)
    # as torch: input's gradient is log1p(other), except at other = -1
    np.testing.assert_allclose(np.asarray(a.grad), [0.0, np.log(4.0), 1e-9], rtol=1e-9)
    assert ng.special.expit is not None and ng.special.gammaln(ng.tensor([4.0])).item() == \
        pytest.approx(np.log(6.0))
    assert ng.special.psi is ng.special.digamma


def test_numeric_gradient():
    # torch.gradient's values
    (slope,) = ng.gradient(ng.tensor([1.0, 4.0, 9.0, 16.0]))
    assert slope.tolist() == [3.0, 4.0, 6.0, 7.0]
    (slope,) = ng.gradient(ng.tensor([[1.0, 2.0, 4.0], [2.0, 5.0, 9.0]]), spacing=2.0, dim=1,
                           edge_order=2)
    np.testing.assert_allclose(np.asarray(slope), [[0.25, 0.75, 1.25], [1.25, 1.75, 2.25]])
    values = ng.tensor([0.0, 1.0, 4.0, 2.0], dtype=ng.float64, requires_grad=True)
    coordinates = ng.tensor([0.0, 0.5, 2.0, 2.5], dtype=ng.float64)
    assert gradcheck(lambda v: ng.gradient(v, spacing=(coordinates,), edge_order=2)[0], (values,))
    with pytest.raises(RuntimeError, match="expected each dimension size to be at least "
                                           "edge_order\\+1"):
        ng.gradient(ng.tensor([1.0, 3.0]), edge_order=2)


def test_modified_bessel_functions():
    x = ng.tensor([0.0, 0.5, -1.5, 3.0], dtype=ng.float64, requires_grad=True)
    # torch.special's values and gradients at these points
    expected = {"i0": ([1.0, 1.063483, 1.646723, 4.880793], [0.0, 0.257894, -0.981666, 3.95337]),
                "i0e": ([1.0, 0.645035, 0.367434, 0.243], [0.0, -0.488614, 0.148394, -0.046174]),
                "i1": ([0.0, 0.257894, -0.981666, 3.95337], [0.5, 0.547695, 0.992279, 3.563003]),
                "i1e": ([0.0, 0.156421, -0.219039, 0.196827], [0.5, 0.175773, 0.002368, -0.019435])}
    for name, (values, grads) in expected.items():
        x.grad = None
        out = getattr(ng.special, name)(x)
        out.sum().backward()
        np.testing.assert_allclose(np.asarray(out.detach()), values, atol=1e-6)
        np.testing.assert_allclose(np.asarray(x.grad), grads, atol=1e-6)
        assert gradgradcheck(getattr(ng.special, name),
                             (ng.tensor([0.3, -1.2], dtype=ng.float64, requires_grad=True),))
    assert ng.tensor([1.0]).i0().item() == pytest.approx(1.2660659)


def test_more_special_functions():
    x = ng.tensor([0.7, 1.5], dtype=ng.float64, requires_grad=True)
    shape = ng.tensor([2.0, 3.0], dtype=ng.float64)
    # torch.special's values and gradients
    for fn, values, grads in [
            (lambda v: ng.special.erfcx(v), [0.52593, 0.321585], [-0.392077, -0.163623]),
            (lambda v: ng.special.gammainc(shape, v), [0.155805, 0.191153], [0.34761, 0.251021]),
            (lambda v: ng.special.zeta(shape, v), [2.834049, 0.414398], [-6.434993, -0.704546])]:
        x.grad = None
        out = fn(x)
        out.sum().backward()
        np.testing.assert_allclose(np.asarray(out.detach()), values, atol=1e-6)
        np.testing.assert_allclose(np.asarray(x.grad), grads, atol=1e-6)
    with pytest.raises(NotImplementedError, match="the derivative for 'igamma: input' is not "
                                                  "implemented."):
        ng.special.gammainc(x, shape).sum().backward()
    np.testing.assert_allclose(np.asarray(ng.special.bessel_j0(ng.tensor([0.7, 1.5]))),
                               [0.881201, 0.511828], atol=1e-6)
    np.testing.assert_allclose(
        np.asarray(ng.special.chebyshev_polynomial_t(ng.tensor([0.7, 1.5]), 3)),
        [-0.728, 9.0], atol=1e-6)
    assert not ng.special.airy_ai(x).requires_grad
