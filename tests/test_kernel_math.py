"""The scalar math that derivative kernels compile: float32 sin and cos are numgrad's own,
vectorisable code (Note [float32 sin and cos] in numgrad/kernels/formula.py), so they are checked
here against float64 references over the whole float32 range, and through the ops that use them."""
import math

import numpy as np
import pytest
from numba import njit

import numgrad as ng
from numgrad.kernels import formula
from numgrad.ops import fmath as F


@njit(cache=False)
def _kernel_sin(x, out):
    for i in range(x.size):
        out[i] = F.sin(x[i])


@njit(cache=False)
def _kernel_cos(x, out):
    for i in range(x.size):
        out[i] = F.cos(x[i])


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
        y = x.tanh()
        out = y.detach().numpy()
        expected = g * (one - out * out)
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
