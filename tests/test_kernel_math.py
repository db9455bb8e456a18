"""The scalar math that derivative kernels compile: float32 sin, cos, exp and erf are numgrad's own,
vectorisable code (Note [float32 sin and cos] and Note [float32 exp and erf] in
numgrad/kernels/formula.py), so they are checked here against float64 references over the whole
float32 range, and through the ops that use them."""
import math

import numpy as np
import pytest
from numba import njit

import numgrad as ng
from numgrad.kernels import formula
from numgrad.ops import fmath as F


def _kernel(fn):
    """A compiled loop of fn, an fmath function, as a derivative kernel calls it."""
    @njit(cache=False)
    def kernel(x, out):
        for i in range(x.size):
            out[i] = fn(x[i])
    return kernel


_kernel_sin, _kernel_cos, _kernel_exp, _kernel_erf = (_kernel(fn) for fn in (F.sin, F.cos, F.exp,
                                                                             F.erf))


def _run(kernel, x):
    out = np.empty_like(x)
    kernel(x, out)
    return out


def _ulps(result, reference):
    """Distance in float32 units in the last place of the float64 reference."""
    spacing = np.spacing(np.abs(reference).astype(np.float32)).astype(np.float64)
    return np.abs(result.astype(np.float64) - reference) / spacing


def test_two_over_pi_chunks_sum_to_two_over_pi():
    chunks = formula._two_over_pi_chunks(7)
    assert chunks[0] == pytest.approx(2 / math.pi, abs=2.0 ** -29)
    assert sum(chunks) == 2 / math.pi
    # each chunk holds 29 significant bits, so a float32 times a chunk is exact in float64
    for chunk in chunks:
        mantissa, _ = math.frexp(chunk)
        assert (mantissa * 2 ** 29) == int(mantissa * 2 ** 29)


@pytest.mark.parametrize("scale", [1e-30, 1e-5, 1.0, 40.0, 1e4, 1e8, 1e16, 1e30, 1e37])
def test_float32_sin_cos_are_correctly_rounded_to_a_fraction_of_an_ulp(scale):
    x = (np.random.default_rng(7).uniform(-1, 1, 20_000) * scale).astype(np.float32)
    x64 = x.astype(np.float64)
    assert _ulps(_run(_kernel_sin, x), np.sin(x64)).max() <= 0.6
    assert _ulps(_run(_kernel_cos, x), np.cos(x64)).max() <= 0.6


def test_float32_sin_cos_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, np.pi / 2, -np.pi, 3.4e38, -3.4e38],
                 np.float32)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(_run(_kernel_cos, x)[[0, 1, 5, 6]], np.cos(x)[[0, 1, 5, 6]])
        sin = _run(_kernel_sin, x)
    assert np.signbit(sin[1]) and sin[1] == 0 and not np.signbit(sin[0])
    assert np.isnan(sin[2:5]).all() and np.isnan(_run(_kernel_cos, x)[2:5]).all()
    np.testing.assert_allclose(sin[7:], np.sin(x[7:].astype(np.float64)), rtol=1e-6)


@pytest.mark.parametrize("op, derivative", [(ng.sin, np.cos), (ng.cos, lambda v: -np.sin(v))])
def test_sin_cos_gradients_in_float32_match_float64_values(op, derivative):
    data = np.random.default_rng(3).uniform(-1e3, 1e3, 10_000).astype(np.float32)
    x = ng.tensor(data, requires_grad=True)
    op(x).sum().backward()
    expected = derivative(data.astype(np.float64))
    assert x.grad.dtype == ng.float32
    assert _ulps(x.grad.numpy(), expected).max() <= 1.0


@pytest.mark.parametrize("name", ["tanh", "sigmoid", "mul_scalar", "div_scalar"])
def test_float32_kernels_compute_in_float32(name):
    """Note [float32 kernels]: each step rounds to float32, as torch's kernels do; computed in
    float64 and rounded once, most of these values would differ in the last bit."""
    rng = np.random.default_rng(0)
    v = rng.uniform(-3, 3, 50_000).astype(np.float32)
    g = rng.standard_normal(50_000).astype(np.float32)
    x = ng.tensor(v, requires_grad=True)
    one, c = np.float32(1.0), np.float32(0.3)
    if name == "tanh":
        from numgrad.ops.fused import fma
        y = x.tanh()
        out = y.detach().numpy()
        expected = g * fma(-out, out, one)          # fused, as torch's (test below)
    elif name == "sigmoid":
        y = x.sigmoid()
        out = y.detach().numpy()
        expected = g * (one - out) * out        # torch's sigmoid_backward, in its order
    elif name == "mul_scalar":
        y = x * 0.3
        expected = g * c
    else:
        y = x / 0.3
        expected = g / c
    y.backward(ng.tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def _correctly_rounded(values64):
    with np.errstate(over="ignore"):
        return values64.astype(np.float32)


@pytest.mark.parametrize("scale", [1e-30, 1e-3, 1.0, 10.0, 40.0, 100.0])
def test_float32_exp_is_correctly_rounded_but_in_rare_cases(scale):
    x = (np.random.default_rng(11).uniform(-1, 1, 200_000) * scale).astype(np.float32)
    with np.errstate(over="ignore"):
        reference = np.exp(x.astype(np.float64))
    result = _run(_kernel_exp, x)
    normal = (np.abs(reference) >= np.finfo(np.float32).tiny) & (reference < 3.4e38)
    assert _ulps(result[normal], reference[normal]).max() <= 0.501
    assert np.mean(result == _correctly_rounded(reference)) >= 0.9999
    # subnormal results and overflow: rounded once from the float64 value, as float32 does
    np.testing.assert_array_equal(result[~normal], _correctly_rounded(reference[~normal]))


@pytest.mark.parametrize("scale", [1e-38, 1e-6, 0.5, 1.0, 2.0, 4.0, 1e3])
def test_float32_erf_is_correctly_rounded_but_in_rare_cases(scale):
    from scipy.special import erf
    x = (np.random.default_rng(12).uniform(-1, 1, 200_000) * scale).astype(np.float32)
    reference = erf(x.astype(np.float64))
    result = _run(_kernel_erf, x)
    nonzero = reference != 0
    assert _ulps(result[nonzero], reference[nonzero]).max() <= 0.501
    assert np.mean(result == _correctly_rounded(reference)) >= 0.9999


def test_float32_exp_erf_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 88.72, 88.73, -103.9, -104.0, 1e-45,
                  3.92, 4.0], np.float32)
    exp = _run(_kernel_exp, x)
    np.testing.assert_array_equal(exp, [1.0, 1.0, np.inf, 0.0, np.nan, np.float32(3.3931806e38),
                                        np.inf, np.float32(1e-45), 0.0, 1.0,
                                        np.float32(50.400448), np.float32(54.59815)])
    erf = _run(_kernel_erf, x)
    np.testing.assert_array_equal(erf, [0.0, -0.0, 1.0, -1.0, np.nan, 1.0, 1.0, -1.0, -1.0,
                                        np.float32(1e-45), 1.0, 1.0])
    assert np.signbit(erf[1]) and not np.signbit(erf[0])


def _erf_fits():
    """The fits the erf polynomials' coefficients come from (Note [float32 exp and erf]),
    highest power first."""
    from numpy.polynomial import polynomial
    nodes = np.cos(np.linspace(0, np.pi, 4000))
    z = (nodes + 1) / 2
    a = np.sqrt(z)
    below_1 = polynomial.polyfit(z, [math.erf(v) / v if v > 0 else 2 / math.sqrt(math.pi)
                                     for v in a], 8)
    from_1_to_4 = polynomial.polyfit(nodes, [math.erf(2.5 + 1.5 * u) for u in nodes], 18)
    return below_1[::-1], from_1_to_4[::-1]


def test_erf_polynomials_are_the_fits_and_hold_their_error_bounds():
    below_1, from_1_to_4 = _erf_fits()
    np.testing.assert_allclose(formula._ERF_SMALL, below_1, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(formula._ERF_LARGE, from_1_to_4, rtol=1e-6, atol=1e-12)
    a = np.linspace(0, 1, 20_001)
    small = np.array([v * formula._erf_below_1(v * v) for v in a])
    assert np.abs(small - [math.erf(v) for v in a]).max() < 2e-12
    a = np.linspace(1, 4, 20_001)
    large = np.array([formula._erf_from_1_to_4((v - 2.5) / 1.5) for v in a])
    assert np.abs(large - [math.erf(v) for v in a]).max() < 2e-11


def test_float32_gelu_silu_forwards_round_each_step_as_torch():
    """torch's float32 GELU and SiLU round after each operation; so do numgrad's compiled
    forwards, with exp and erf correctly rounded but in rare cases."""
    from scipy.special import erf
    x32 = np.random.default_rng(5).uniform(-6, 6, 20_000).astype(np.float32)
    f32 = np.float32
    alpha = f32(1 / math.sqrt(2))
    erf_part = erf((x32 * alpha).astype(np.float64)).astype(np.float32)
    gelu = x32 * f32(0.5) * (f32(1.0) + erf_part)
    silu = x32 / (f32(1.0) + np.exp(-x32.astype(np.float64)).astype(np.float32))
    for op, expected in ((ng.nn.functional.gelu, gelu), (ng.nn.functional.silu, silu)):
        result = op(ng.tensor(x32)).numpy()
        assert result.dtype == np.float32
        assert np.mean(result == expected) >= 0.999
        np.testing.assert_allclose(result, expected, rtol=0, atol=4e-7)


@pytest.mark.parametrize("name", ["gelu", "silu", "erf", "log_softmax"])
def test_float32_gradients_through_exp_and_erf_match_float64_values(name):
    from scipy.special import erf
    data = np.random.default_rng(5).uniform(-6, 6, 20_000).astype(np.float32)
    x = ng.tensor(data, requires_grad=True)
    v = data.astype(np.float64)
    if name == "gelu":
        y = ng.nn.functional.gelu(x)
        gaussian = np.exp(-0.5 * v * v) / math.sqrt(2 * math.pi)
        expected = 0.5 * (1 + erf(v / math.sqrt(2))) + v * gaussian
    elif name == "silu":
        s = 1 / (1 + np.exp(-v))
        y, expected = ng.nn.functional.silu(x), s * (1 + v * (1 - s))
    elif name == "erf":
        y, expected = ng.erf(x), 2 / math.sqrt(math.pi) * np.exp(-v * v)
    else:
        rows = v.reshape(20, 1000)
        y = ng.log_softmax(x.reshape(20, 1000), -1) * ng.tensor(rows[::-1].astype(np.float32))
        softmax = np.exp(rows - rows.max(1, keepdims=True))
        softmax /= softmax.sum(1, keepdims=True)
        weights = rows[::-1]
        expected = (weights - softmax * weights.sum(1, keepdims=True)).reshape(-1)
    y.sum().backward()
    assert x.grad.dtype == ng.float32
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tanh_backward_fuses_one_minus_out_squared_as_torch(dtype):
    """torch's tanh_backward kernel is g * (1 - out * out) with the product and the difference
    fused (its compiler contracts them); so are numgrad's kernel, and the backward op's forward
    under create_graph (an ulp apart from the plain formula in about half the elements)."""
    from numgrad.ops.fused import fma
    rng = np.random.default_rng(8)
    data = rng.uniform(-3, 3, 4000).astype(dtype)
    g = rng.standard_normal(4000).astype(dtype)
    x = ng.tensor(data, requires_grad=True)
    y = x.tanh()
    out = y.detach().numpy()
    expected = g * fma(-out, out, dtype(1.0))
    assert np.mean(expected != g * (dtype(1.0) - out * out)) > 0.1
    (grad,) = ng.autograd.grad(y, x, ng.tensor(g), create_graph=True)
    assert grad.grad_fn.name() == "TanhBackwardBackward0"
    np.testing.assert_array_equal(grad.detach().numpy(), expected)
    y2 = ng.tensor(data, requires_grad=True).tanh()
    y2.backward(ng.tensor(g))
    np.testing.assert_array_equal(y2.grad_fn.next_functions[0][0].variable.grad.numpy(), expected)


@pytest.mark.parametrize("p, expected", [
    # torch 2.13 gives these gradients of x.norm(p) at x = [nan, 0, 2] and [0, -1, 3]
    (1, ([0.0, 0.0, 1.0], [0.0, -1.0, 1.0])),
    (2, ([np.nan] * 3, [0.0, -0.31622776601683794, 0.9486832980505138])),
    (3, ([np.nan] * 3, [0.0, -0.10844960613841653, 0.9760464552457488])),
    (0.5, ([np.nan] * 3, [0.0, -2.732050807568877, 1.577350269189626])),
    (1.5, ([np.nan] * 3, [0.0, -0.5444516301110671, 0.9430178856160654])),
    (float("inf"), ([0.0, 0.0, 0.0], [0.0, -0.0, 1.0])),
])
def test_norm_backward_masks_factors_as_torch(p, expected):
    """torch's norm_backward masks a factor, not the gradient: where x is 0 and the norm NaN,
    0 * NaN is NaN; the infinity norm's other elements get sign(x) * 0 (-0.0 for a negative x)."""
    for values, want in zip(([np.nan, 0.0, 2.0], [0.0, -1.0, 3.0]), expected):
        x = ng.tensor(values, dtype=ng.float64, requires_grad=True)
        x.norm(p).backward()
        np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-14)
        assert list(np.signbit(x.grad.numpy())) == list(np.signbit(want))
