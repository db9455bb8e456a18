"""The ops of numgrad/ops/elementwise_more.py beyond what the op table checks: node names, values and
gradients worked out by hand (checked against torch 2.x), integer inputs, the arguments of logit,
lerp and nan_to_num, and the in-place forms."""
import math

import numpy as np
import pytest

import numgrad as ng


def leaf(data, dtype=ng.float64):
    return ng.tensor(data, dtype=dtype, requires_grad=True)


def grad_of(fn, *inputs, upstream=None):
    out = fn(*inputs)
    out.backward(ng.ones_like(out) if upstream is None else upstream)
    return out.detach().numpy(), [t.grad.numpy() for t in inputs]


def test_node_names_match_torch():
    x = leaf([0.3, 0.6])
    y = leaf([0.2, 0.4])
    cases = {
        "FloorBackward0": ng.floor(x), "CeilBackward0": x.ceil(), "RoundBackward0": x.round(),
        "TruncBackward0": ng.trunc(x), "FracBackward0": x.frac(), "SgnBackward0": x.sgn(),
        "Log10Backward0": x.log10(), "Exp2Backward0": ng.exp2(x), "SinhBackward0": x.sinh(),
        "CoshBackward0": ng.cosh(x), "AsinBackward0": x.asin(), "AcosBackward0": ng.arccos(x),
        "AsinhBackward0": x.asinh(), "AcoshBackward0": (x + 1.0).acosh(),
        "AtanhBackward0": ng.atanh(x), "LogitBackward0": x.logit(eps=0.1),
        "HypotBackward0": x.hypot(y), "LogaddexpBackward0": ng.logaddexp(x, y),
        "LerpBackward0": x.lerp(y, 0.5), "LerpBackward1": ng.lerp(x, y, y),
        "AddcmulBackward0": x.addcmul(x, y), "AddcdivBackward0": ng.addcdiv(x, x, y, value=2),
        "ClampMinBackward0": x.clamp_min(0.4), "ClampMinBackward1": ng.clamp_min(x, y),
        "ClampMaxBackward0": ng.clamp_max(x, 0.4), "ClampMaxBackward1": x.clamp_max(y),
        "NanToNumBackward0": x.nan_to_num(),
    }
    for expected, out in cases.items():
        assert out.grad_fn.name() == expected


def test_rounding_values_and_zero_gradients():
    data = [-1.5, -0.5, 0.5, 2.7]
    expected = {ng.floor: [-2.0, -1.0, 0.0, 2.0], ng.ceil: [-1.0, -0.0, 1.0, 3.0],
                ng.round: [-2.0, -0.0, 0.0, 3.0], ng.trunc: [-1.0, -0.0, 0.0, 2.0]}
    for fn, want in expected.items():
        x = leaf(data)
        out, (g,) = grad_of(fn, x)
        np.testing.assert_array_equal(out, want)
        # -0.0 where torch gives it (ceil(-0.5), round(-0.5), trunc(-0.5))
        np.testing.assert_array_equal(np.signbit(out), np.signbit(want))
        np.testing.assert_array_equal(g, [0.0, 0.0, 0.0, 0.0])
    x = leaf([-1.5, -0.5, 0.5, 2.75])
    out, (g,) = grad_of(ng.frac, x)
    np.testing.assert_array_equal(out, [-0.5, -0.5, 0.5, 0.75])
    np.testing.assert_array_equal(g, [1.0, 1.0, 1.0, 1.0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_round_to_decimals_as_torch(dtype):
    # torch scales, rounds half to even and scales back, in the tensor's dtype
    v = np.array([1.2345, -2.5, 0.125, 1234.5, 15.0], dtype)
    x = ng.tensor(v, requires_grad=True)
    for decimals in (0, 1, 2, -1, -2):
        scale = dtype(10.0 ** abs(decimals))
        want = np.round(v * scale) / scale if decimals >= 0 else np.round(v / scale) * scale
        y = ng.round(x, decimals=decimals)
        np.testing.assert_array_equal(y.detach().numpy(), want)
        assert y.grad_fn.name() == "RoundBackward1"     # RoundBackward0 without decimals
    assert x.round().grad_fn.name() == "RoundBackward0"
    ng.round(x, decimals=2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(5))
    # NumPy's np.round(2.675, 2) gives 2.67 (it divides by 100 after rounding 267.49999...)
    assert ng.round(ng.tensor([0.125, 0.135, 2.675], dtype=ng.float64), decimals=2).tolist() \
        == [0.12, 0.14, 2.68]
    big = ng.round(ng.tensor([1e30, 3.4e38]), decimals=2).numpy()     # float32: overflows
    assert big[0] == np.float32(1e30) and big[1] == np.inf
    y = ng.tensor(v.copy())
    y.round_(decimals=1)
    np.testing.assert_array_equal(y.numpy(), np.round(v * dtype(10)) / dtype(10))


def test_round_to_decimals_refuses_integers_as_torch():
    for decimals, kernel in ((0, "round_vml_cpu"), (1, "round_cpu"), (-1, "round_cpu")):
        with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for \'Long\''):
            ng.round(ng.tensor([15, 25]), decimals=decimals)


def test_integer_inputs():
    i = ng.tensor([1, -2, 3])
    for fn in (ng.floor, ng.ceil, ng.round, ng.trunc, ng.sgn):
        out = fn(i)
        assert out.dtype == ng.int64 and not out.requires_grad
        np.testing.assert_array_equal(out.numpy(), np.sign(i.numpy()) if fn is ng.sgn
                                      else i.numpy())
    # a copy, as torch returns
    out = ng.floor(i)
    out[0] = 7
    assert i[0].item() == 1
    with pytest.raises(RuntimeError, match="frac"):
        ng.frac(i)
    for fn in (ng.log10, ng.exp2, ng.sinh, ng.cosh, ng.asinh, ng.logit):
        assert fn(i).dtype == ng.get_default_dtype()
    np.testing.assert_allclose(ng.exp2(i).numpy(), [2.0, 0.25, 8.0])
    assert ng.clamp_min(i, 2).dtype == ng.int64
    np.testing.assert_array_equal(ng.clamp_min(i, 2).numpy(), [2, 2, 3])
    np.testing.assert_array_equal(ng.clamp_max(i, 1.5).numpy(), [1.0, -2.0, 1.5])
    np.testing.assert_array_equal(ng.nan_to_num(i).numpy(), [1, -2, 3])
    np.testing.assert_array_equal(ng.addcmul(i, i, i, value=2).numpy(), [3, 6, 21])
    with pytest.raises(RuntimeError, match="addcdiv"):
        ng.addcdiv(i, i, i)
    with pytest.raises(RuntimeError, match="lerp"):
        ng.lerp(i, i, 0.5)


@pytest.mark.parametrize("fn, x, value, slope", [
    (ng.log10, 100.0, 2.0, 1 / (100 * math.log(10))),
    (ng.exp2, 3.0, 8.0, 8 * math.log(2)),
    (ng.sinh, 0.0, 0.0, 1.0),
    (ng.cosh, 0.0, 1.0, 0.0),
    (ng.asin, 0.5, math.pi / 6, 1 / math.sqrt(0.75)),
    (ng.acos, 0.5, math.pi / 3, -1 / math.sqrt(0.75)),
    (ng.asinh, 0.0, 0.0, 1.0),
    (ng.acosh, 2.0, math.log(2 + math.sqrt(3)), 1 / math.sqrt(3)),
    (ng.atanh, 0.5, 0.5 * math.log(3), 4 / 3),
    (ng.logit, 0.25, -math.log(3), 16 / 3),
], ids=lambda v: getattr(v, "__name__", ""))
def test_unary_values_and_derivatives(fn, x, value, slope):
    t = leaf([x])
    out, (g,) = grad_of(fn, t)
    np.testing.assert_allclose(out, [value], rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(g, [slope], rtol=1e-14, atol=1e-15)


def test_sinh_and_cosh_second_derivatives():
    x = leaf([0.7])
    (g,) = ng.autograd.grad(ng.sinh(x), x, create_graph=True)
    (gg,) = ng.autograd.grad(g, x)
    np.testing.assert_allclose(gg.numpy(), [math.sinh(0.7)], rtol=1e-14)
    (g,) = ng.autograd.grad(ng.cosh(x), x, create_graph=True)
    (gg,) = ng.autograd.grad(g, x)
    np.testing.assert_allclose(gg.numpy(), [math.cosh(0.7)], rtol=1e-14)


def test_logit_with_and_without_eps():
    data = [-0.5, 0.05, 0.5, 0.95, 1.5]
    # without eps: NaN outside [0, 1], with a NaN gradient there
    out, (g,) = grad_of(ng.logit, leaf(data))
    np.testing.assert_allclose(out, [np.nan, -math.log(19), 0.0, math.log(19), np.nan])
    np.testing.assert_allclose(g, [np.nan, 1 / (0.05 * 0.95), 4.0, 1 / (0.05 * 0.95), np.nan])
    # with eps: clamped into [eps, 1 - eps], with a zero gradient where clamped
    out, (g,) = grad_of(lambda x: x.logit(eps=0.1), leaf(data))
    np.testing.assert_allclose(out, [-math.log(9), -math.log(9), 0.0, math.log(9), math.log(9)])
    np.testing.assert_array_equal(g, [0.0, 0.0, 4.0, 0.0, 0.0])
    assert ng.logit(leaf([1.0])).item() == math.inf


def test_hypot_and_logaddexp():
    out, (gx, gy) = grad_of(ng.hypot, leaf([3.0]), leaf([4.0]))
    np.testing.assert_allclose((out, gx, gy), ([5.0], [0.6], [0.8]), rtol=1e-15)
    out, (gx, gy) = grad_of(ng.logaddexp, leaf([0.0]), leaf([0.0]))
    np.testing.assert_allclose((out, gx, gy), ([math.log(2)], [0.5], [0.5]), rtol=1e-15)
    out, (gx, gy) = grad_of(ng.logaddexp, leaf([1000.0]), leaf([0.0]))
    assert out[0] == 1000.0 and gx[0] == 1.0 and gy[0] == 0.0
    inf = ng.tensor([-math.inf, math.inf])
    np.testing.assert_array_equal(ng.logaddexp(inf, inf).numpy(), [-math.inf, math.inf])
    with pytest.raises(NotImplementedError, match="\"hypot_cpu\" not implemented for 'Long'"):
        ng.hypot(ng.tensor([1, 0]), ng.tensor([1, 0]))          # torch has no integer kernel


def test_lerp_scalar_and_tensor_weight():
    out, (gs, ge) = grad_of(lambda s, e: ng.lerp(s, e, 0.25), leaf([1.0]), leaf([3.0]))
    np.testing.assert_allclose((out, gs, ge), ([1.5], [0.75], [0.25]))
    # computed from the nearer end: weight 1 gives end exactly
    assert ng.lerp(ng.tensor([0.1]), ng.tensor([0.7]), 1.0).item() == np.float32(0.7)
    out, (gs, ge, gw) = grad_of(ng.lerp, leaf([1.0, 1.0]), leaf([3.0, 3.0]), leaf([0.25, 2.0]))
    np.testing.assert_allclose(out, [1.5, 5.0])
    np.testing.assert_allclose(gs, [0.75, -1.0])
    np.testing.assert_allclose(ge, [0.25, 2.0])
    np.testing.assert_allclose(gw, [2.0, 2.0])


def test_addcmul_and_addcdiv():
    out, grads = grad_of(lambda x, y, z: ng.addcmul(x, y, z, value=0.5),
                         leaf([1.0]), leaf([2.0]), leaf([3.0]))
    np.testing.assert_allclose([out, *grads], [[4.0], [1.0], [1.5], [1.0]])
    out, grads = grad_of(lambda x, y, z: x.addcdiv(y, z, value=2),
                         leaf([1.0]), leaf([2.0]), leaf([4.0]))
    np.testing.assert_allclose([out, *grads], [[2.0], [1.0], [0.5], [-0.25]])


def test_clamp_min_and_max_ties_go_to_the_input():
    for fn, bound in ((ng.clamp_min, 0.5), (ng.clamp_max, 1.0)):
        out, (g,) = grad_of(lambda x: fn(x, bound), leaf([0.5, 1.0]))
        np.testing.assert_array_equal(out, [0.5, 1.0])
        np.testing.assert_array_equal(g, [1.0, 1.0])
    out, (gx, gb) = grad_of(ng.clamp_min, leaf([0.5, 1.0, 0.2]), leaf([0.5, 1.0, 0.3]))
    np.testing.assert_array_equal(out, [0.5, 1.0, 0.3])
    np.testing.assert_array_equal((gx, gb), ([1.0, 1.0, 0.0], [0.0, 0.0, 1.0]))
    out, (gx, gb) = grad_of(ng.clamp_max, leaf([0.5, 1.0, 0.4]), leaf([0.5, 1.0, 0.3]))
    np.testing.assert_array_equal(out, [0.5, 1.0, 0.3])
    np.testing.assert_array_equal((gx, gb), ([1.0, 1.0, 0.0], [0.0, 0.0, 1.0]))
    # NaN stays NaN, as torch's clamp_min
    assert math.isnan(ng.clamp_min(ng.tensor([math.nan]), 0.0).item())


def test_nan_to_num_arguments_and_gradient():
    data = [math.nan, math.inf, -math.inf, 2.0]
    out = ng.nan_to_num(ng.tensor(data))
    f32 = np.finfo(np.float32)
    np.testing.assert_array_equal(out.numpy(), np.array([0.0, f32.max, f32.min, 2.0], np.float32))
    out = ng.nan_to_num(ng.tensor(data, dtype=ng.float64))
    assert out.numpy()[1] == np.finfo(np.float64).max
    out = ng.tensor(data).nan_to_num(nan=1.0, posinf=2.0, neginf=-3.0)
    np.testing.assert_array_equal(out.numpy(), [1.0, 2.0, -3.0, 2.0])
    x = leaf(data)
    _, (g,) = grad_of(ng.nan_to_num, x)
    np.testing.assert_array_equal(g, [0.0, 0.0, 0.0, 1.0])
    # torch multiplies by isfinite(x): an infinite upstream gradient gives nan where x is not
    x = leaf(data)
    _, (g,) = grad_of(ng.nan_to_num, x, upstream=ng.full((4,), math.inf, dtype=ng.float64))
    np.testing.assert_array_equal(g, [math.nan, math.nan, math.nan, math.inf])


INPLACE = [
    ("floor_", (), [0.25, 1.75]), ("ceil_", (), [0.25, 1.75]), ("round_", (), [0.25, 1.75]),
    ("trunc_", (), [0.25, 1.75]), ("frac_", (), [0.25, 1.75]), ("sgn_", (), [0.25, -1.75]),
    ("log10_", (), [0.25, 1.75]), ("exp2_", (), [0.25, 1.75]), ("sinh_", (), [0.25, 1.75]),
    ("cosh_", (), [0.25, 1.75]), ("asin_", (), [0.25, 0.75]), ("acos_", (), [0.25, 0.75]),
    ("asinh_", (), [0.25, 1.75]), ("acosh_", (), [1.25, 1.75]), ("atanh_", (), [0.25, 0.75]),
    ("arcsin_", (), [0.25, 0.75]), ("logit_", (), [0.25, 0.75]), ("hypot_", ([2.0, 1.0],),
                                                                    [0.25, 1.75]),
    ("lerp_", ([2.0, 1.0], 0.25), [0.25, 1.75]), ("lerp_", ([2.0, 1.0], [0.25, 0.75]), [0.25, 1.75]),
    ("addcmul_", ([2.0, 1.0], [3.0, -1.0]), [0.25, 1.75]),
    ("addcdiv_", ([2.0, 1.0], [3.0, -1.0]), [0.25, 1.75]),
    ("clamp_min_", (0.5,), [0.25, 1.75]), ("clamp_max_", (0.5,), [0.25, 1.75]),
    ("clamp_min_", ([0.5, 0.5],), [0.25, 1.75]), ("nan_to_num_", (), [0.25, 1.75]),
]


@pytest.mark.parametrize("method, args, data", INPLACE, ids=[m for m, _, _ in INPLACE])
def test_inplace_forms_match_out_of_place(method, args, data):
    """y.op_(...) on a non-leaf gives op's values, node and gradients (the input the derivative
    reads is the one before the write), and bumps the version counter."""
    def run(inplace):
        x = leaf(data)
        others = [leaf(a) if isinstance(a, list) else a for a in args]
        y = x * 1.0
        if inplace:
            version = y._version
            out = getattr(y, method)(*others)
            assert out is y and y._version == version + 1
        else:
            out = getattr(y, method[:-1])(*others)
        out.backward(ng.tensor([0.5, 2.0], dtype=ng.float64))
        return (out.detach().numpy(), out.grad_fn.name(),
                [t.grad.numpy() for t in [x, *others] if isinstance(t, ng.Tensor)])
    got, want = run(True), run(False)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1]
    for a, b in zip(got[2], want[2]):
        np.testing.assert_array_equal(a, b)


def test_inplace_on_integers_and_under_no_grad():
    i = ng.tensor([1, -2])
    assert i.floor_() is i
    np.testing.assert_array_equal(i.numpy(), [1, -2])
    x = ng.tensor([0.5, 2.0])
    with ng.no_grad():
        x.exp2_()
    np.testing.assert_allclose(x.numpy(), [math.sqrt(2), 4.0], rtol=1e-7)


def test_round_to_decimals_on_the_gpu_matches_the_cpu():
    v = np.array([1.2345, -2.5, 0.125, 1234.5, 15.0], np.float32)
    x = ng.tensor(v, device="cuda", requires_grad=True)
    for decimals in (2, 0, -1):
        gpu = ng.round(x, decimals=decimals).detach().cpu().numpy()
        np.testing.assert_array_equal(gpu, ng.round(ng.tensor(v), decimals=decimals).numpy())
    ng.round(x, decimals=1).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.zeros(5))
