"""The ops of numgrad/ops/elementwise_special.py beyond what the op table checks: node names, values
and gradients at the special points (zeros, NaN, infinities; checked against torch 2.x), dtype
rules, errors, the ops without gradients, the alias names, the in-place forms and a CUDA run."""
import math

import numpy as np
import pytest
from scipy import special

import numgrad as ng
import numgrad.cuda

NAN, INF = math.nan, math.inf


def leaf(data, dtype=ng.float64, device="cpu"):
    return ng.tensor(data, dtype=dtype, device=device, requires_grad=True)


def grads(fn, *inputs):
    """(output values, input gradients) of sum(fn(*inputs))."""
    out = fn(*inputs)
    out.backward(ng.ones_like(out))
    return out.detach().cpu().numpy(), [t.grad.cpu().numpy() for t in inputs]


def test_node_names_match_torch():
    x = leaf([0.3, 0.6])
    y = leaf([0.2, 0.4])
    cases = {
        "SincBackward0": ng.sinc(x), "XlogyBackward0": x.xlogy(y),
        "XlogyBackward1": ng.xlogy(2.0, y), "XlogyBackward2": ng.xlogy(x, 3.0),
        "Logaddexp2Backward0": ng.logaddexp2(x, y), "CopysignBackward0": x.copysign(y),
        "CopysignBackward1": ng.copysign(x, -1.0), "FmaxBackward0": ng.fmax(x, y),
        "FminBackward0": x.fmin(y), "Deg2RadBackward0": x.deg2rad(),
        "Rad2DegBackward0": ng.rad2deg(x), "ErfcBackward0": x.erfc(),
        "ErfinvBackward0": ng.erfinv(x), "NextafterBackward0": x.nextafter(y),
        "PowBackward0": ng.float_power(x, 2), "PowBackward1": x.float_power(y),
        "PowBackward2": ng.float_power(2, x), "MulBackward0": x.multiply(y),
        "SubBackward0": ng.subtract(x, y, alpha=2), "DivBackward0": x.true_divide(y),
        "WhereBackward0": x.where(x > 0.4, y),
    }
    for expected, out in cases.items():
        assert out.grad_fn.name() == expected
    # float_power of a float32 tensor: a cast to float64 first, as torch
    out = ng.float_power(leaf([0.5], ng.float32), 2)
    assert out.dtype == ng.float64
    assert out.grad_fn.next_functions[0][0].name() == "ToCopyBackward0"


def test_sinc_at_zero_and_integers():
    x = leaf([0.0, -0.0, 0.5, 1.0])
    out, (g,) = grads(ng.sinc, x)
    np.testing.assert_allclose(out, [1.0, 1.0, 2 / math.pi, 0.0], atol=1e-16)
    # d/dx sin(pi x)/(pi x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2): -4/pi at 0.5, -1 at 1
    np.testing.assert_allclose(g, [0.0, 0.0, -4 / math.pi, -1.0], rtol=1e-14)
    i = ng.sinc(ng.tensor([1, 0, -2]))
    assert i.dtype == ng.float32 and not i.requires_grad
    # computed in float32, as torch: sin(float32(pi)) / float32(pi) is not 0
    pi32 = np.float32(math.pi)
    np.testing.assert_array_equal(i.numpy(), [np.sin(pi32) / pi32, 1.0, np.sin(-2 * pi32)
                                              / (-2 * pi32)])


def test_xlogy_special_points():
    x = leaf([0.0, 0.0, 1.0, 0.0, 0.5, NAN])
    y = leaf([0.0, -1.0, 0.0, NAN, 2.0, 1.0])
    out, (gx, gy) = grads(ng.xlogy, x, y)
    np.testing.assert_array_equal(out[:4], [0.0, 0.0, -INF, NAN])
    assert np.isclose(out[4], 0.5 * math.log(2)) and np.isnan(out[5])
    # x's gradient log(y), masked to 0 where x == 0 and y <= 0; y's x / y
    np.testing.assert_array_equal(gx[:4], [0.0, 0.0, -INF, NAN])
    assert np.isclose(gx[4], math.log(2)) and gx[5] == 0.0
    np.testing.assert_array_equal(gy[:4], [NAN, -0.0, INF, NAN])
    assert np.isclose(gy[4], 0.25) and np.isnan(gy[5])
    # a zero upstream gradient gives zero where log(y) is infinite (torch's xlogy(g, y))
    x = leaf([0.0, 2.0])
    out = ng.xlogy(x, 0.0)
    out.backward(ng.zeros_like(out))
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


def test_xlogy_scalars_and_dtypes():
    y = leaf([0.0, 1.0, 4.0, NAN])
    out, (g,) = grads(lambda t: ng.xlogy(2.0, t), y)
    np.testing.assert_array_equal(out[:3], [-INF, 0.0, 2 * math.log(4.0)])
    np.testing.assert_array_equal(g[:3], [INF, 2.0, 0.5])
    assert np.isnan(out[3]) and np.isnan(g[3])
    np.testing.assert_array_equal(ng.xlogy(0.0, y).detach().numpy()[:3], [0.0, 0.0, 0.0])
    i = ng.tensor([1, 0, 2])
    for result in (ng.xlogy(i, i), ng.xlogy(i, 2), ng.xlogy(i, 2.5), ng.xlogy(i > 0, i > 0)):
        assert result.dtype == ng.float32
    assert ng.xlogy(i.float(), i.double()).dtype == ng.float64
    np.testing.assert_allclose(ng.xlogy(i, 2).numpy(), [math.log(2), 0.0, 2 * math.log(2)],
                               rtol=1e-6)


def test_logaddexp2():
    x = leaf([INF, -INF, 1.0, 3.0])
    y = leaf([INF, -INF, 3.0, 3.0])
    out, (gx, gy) = grads(ng.logaddexp2, x, y)
    np.testing.assert_allclose(out, [INF, -INF, 3 + math.log2(1.25), 4.0], rtol=1e-15)
    # 2^x / (2^x + 2^y): 1/5 and 4/5 at (1, 3), halves at a tie
    np.testing.assert_allclose(gx[2:], [0.2, 0.5], rtol=1e-15)
    np.testing.assert_allclose(gy[2:], [0.8, 0.5], rtol=1e-15)
    assert ng.logaddexp2(ng.tensor([1.0], dtype=ng.float32), ng.tensor([1])).dtype == ng.float32
    with pytest.raises(RuntimeError, match="logaddexp2_cpu\" not implemented for 'Long'"):
        ng.logaddexp2(ng.tensor([1]), ng.tensor([2]))
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        ng.logaddexp2(x, 1.0)


def test_copysign():
    x = leaf([0.5, -1.0, 0.0, 2.0, -3.0])
    y = leaf([2.0, 0.0, -1.0, -0.0, -INF])
    out, (gx, gy) = grads(ng.copysign, x, y)
    np.testing.assert_array_equal(out, [0.5, 1.0, -0.0, -2.0, -3.0])
    np.testing.assert_array_equal(np.signbit(out), [False, False, True, True, True])
    # the sign flip (zero at x == 0); the sign source gets zeros
    np.testing.assert_array_equal(gx, [1.0, -1.0, 0.0, -1.0, 1.0])
    np.testing.assert_array_equal(gy, [0.0, 0.0, 0.0, 0.0, 0.0])
    x = leaf([0.0, 1.0, -2.0])
    out, (g,) = grads(lambda t: t.copysign(-1.0), x)
    np.testing.assert_array_equal(out, [-0.0, -1.0, -2.0])
    np.testing.assert_array_equal(g, [0.0, -1.0, 1.0])
    i = ng.tensor([1, 0, -2])
    assert ng.copysign(i, i).dtype == ng.float32
    np.testing.assert_array_equal(ng.copysign(ng.tensor([3]), -0.0).numpy(), [-3.0])


def test_fmax_fmin_ignore_nan():
    x = leaf([0.5, -1.0, 0.0, 2.0, NAN, 1.0, NAN])
    y = leaf([2.0, 0.0, -1.0, 2.0, 1.0, NAN, NAN])
    out, (gx, gy) = grads(ng.fmax, x, y)
    np.testing.assert_array_equal(out, [2.0, 0.0, 0.0, 2.0, 1.0, 1.0, NAN])
    # to the side that is the result, to x at ties and where both are NaN
    np.testing.assert_array_equal(gx, [0, 0, 1, 1, 0, 1, 1])
    np.testing.assert_array_equal(gy, [1, 1, 0, 0, 1, 0, 0])
    x.grad = y.grad = None
    out, (gx, gy) = grads(ng.fmin, x, y)
    np.testing.assert_array_equal(out, [0.5, -1.0, -1.0, 2.0, 1.0, 1.0, NAN])
    np.testing.assert_array_equal(gx, [1, 1, 0, 1, 0, 1, 1])
    np.testing.assert_array_equal(gy, [0, 0, 1, 0, 1, 0, 0])
    i = ng.tensor([1, 5])
    assert ng.fmax(i, ng.tensor([3, 2])).dtype == ng.int64
    np.testing.assert_array_equal(ng.fmin(i, ng.tensor([3, 2])).numpy(), [1, 2])
    assert ng.fmax(i > 2, i > 0).dtype == ng.bool
    assert ng.fmax(ng.tensor([1.0], dtype=ng.float32), i[:1]).dtype == ng.float32
    with pytest.raises(TypeError, match="fmax\\(\\): argument 'other' .* not float"):
        ng.fmax(x, 1.0)


def test_degrees_radians_erfc_erfinv():
    x = leaf([180.0, -90.0, 0.0])
    out, (g,) = grads(ng.deg2rad, x)
    np.testing.assert_allclose(out, [math.pi, -math.pi / 2, 0.0], rtol=1e-15)
    np.testing.assert_allclose(g, [math.pi / 180] * 3, rtol=1e-15)
    out, (g,) = grads(ng.rad2deg, leaf([math.pi, 1.0]))
    np.testing.assert_allclose(out, [180.0, 180 / math.pi], rtol=1e-15)
    np.testing.assert_allclose(g, [180 / math.pi] * 2, rtol=1e-15)
    x = leaf([-1.0, 0.0, 0.5, 3.0])
    out, (g,) = grads(ng.erfc, x)
    np.testing.assert_allclose(out, special.erfc([-1.0, 0.0, 0.5, 3.0]), rtol=1e-15)
    np.testing.assert_allclose(g, -2 / math.sqrt(math.pi) * np.exp(-np.array([1, 0, 0.25, 9.0])),
                               rtol=1e-14)
    x = leaf([-1.0, 1.0, 1.5, 0.5, 0.0])
    out, (g,) = grads(ng.erfinv, x)
    np.testing.assert_array_equal(out[:3], [-INF, INF, NAN])
    np.testing.assert_allclose(out[3], 0.4769362762044699, rtol=1e-15)
    # sqrt(pi)/2 exp(erfinv(x)^2): infinite at +-1, sqrt(pi)/2 at 0
    np.testing.assert_array_equal(g[:3], [INF, INF, NAN])
    np.testing.assert_allclose(g[3:], [math.sqrt(math.pi) / 2 * math.exp(out[3] ** 2),
                                       math.sqrt(math.pi) / 2], rtol=1e-14)
    for fn in (ng.deg2rad, ng.rad2deg, ng.erfc, ng.erfinv):
        assert fn(ng.tensor([1, 0])).dtype == ng.float32
    assert ng.erfinv(ng.tensor([1, 0])).numpy()[0] == INF


def test_nextafter():
    x = leaf([0.5, -1.0, 0.0, 1.0])
    y = leaf([2.0, -2.0, -1.0, 1.0])
    out, (gx, gy) = grads(ng.nextafter, x, y)
    np.testing.assert_array_equal(out, [0.5 + 2.0 ** -53, -1.0 - 2.0 ** -52, -5e-324, 1.0])
    # g for x, but zero where x == y (masked: an infinite g gives no NaN); zero for y
    np.testing.assert_array_equal(gx, [1.0, 1.0, 1.0, 0.0])
    np.testing.assert_array_equal(gy, [0.0] * 4)
    x = leaf([1.0, 1.0])
    ng.nextafter(x, ng.tensor([1.0, 2.0], dtype=ng.float64)).backward(ng.full((2,), INF))
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, INF])
    f = ng.nextafter(ng.tensor([1.0], dtype=ng.float32), ng.tensor([2.0], dtype=ng.float32))
    assert f.dtype == ng.float32 and f.item() == 1.0 + 2.0 ** -23
    with pytest.raises(RuntimeError, match="nextafter_cpu\" not implemented for 'Long'"):
        ng.nextafter(ng.tensor([1]), ng.tensor([2]))
    with pytest.raises(TypeError, match="must be Tensor, not int"):
        ng.nextafter(x, 2)


def test_float_power_is_float64():
    i = ng.tensor([1, 2, 3])
    for out, want in ((ng.float_power(i, 2), [1.0, 4.0, 9.0]),
                      (ng.float_power(i, i), [1.0, 4.0, 27.0]),
                      (ng.float_power(i > 1, i > 1), [1.0, 1.0, 1.0]),
                      (ng.float_power(2, i), [2.0, 4.0, 8.0]),
                      (i.float().float_power(-1.0), [1.0, 0.5, 1 / 3])):
        assert out.dtype == ng.float64
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-15)
    # float32 operands are computed in float64: (0.1f)^2 without float32 rounding
    x32 = np.float32(0.1)
    assert ng.float_power(ng.tensor([x32]), 2).item() == float(x32) ** 2
    x = leaf([0.5, 2.0], ng.float32)
    out, (g,) = grads(lambda t: ng.float_power(t, 3), x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, [0.75, 12.0], rtol=1e-7)


def test_signbit():
    out = ng.signbit(leaf([0.0, -0.0, -1.5, 2.0, -NAN, INF, -INF]))
    assert out.dtype == ng.bool and not out.requires_grad
    np.testing.assert_array_equal(out.numpy(), [False, True, True, False, True, False, True])
    np.testing.assert_array_equal(ng.tensor([1, 0, -2]).signbit().numpy(), [False, False, True])


def test_heaviside():
    x = leaf([-1.5, 0.0, 2.0, NAN])
    out = ng.heaviside(x, ng.tensor([0.5, 0.5, 0.5, 0.5], dtype=ng.float64))
    # NaN gives 0 (torch's; NumPy's heaviside gives NaN); torch records it without a derivative
    np.testing.assert_array_equal(out.detach().numpy(), [0.0, 0.5, 1.0, 0.0])
    assert out.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="^derivative for aten::heaviside is not implemented$"):
        out.sum().backward()
    np.testing.assert_array_equal(ng.tensor([1, 0, -2]).heaviside(ng.tensor([7])).numpy(),
                                  [1, 7, 0])
    with pytest.raises(RuntimeError, match="different dtypes"):
        ng.heaviside(x, ng.tensor([0.5], dtype=ng.float32))
    with pytest.raises(TypeError, match="argument 'values' .* not float"):
        ng.heaviside(x, 0.5)


def test_aliases():
    assert ng.multiply is ng.mul and ng.subtract is ng.sub and ng.divide is ng.div
    assert ng.not_equal is ng.ne and ng.greater_equal is ng.ge
    x = leaf([1.0, 4.0])
    y = leaf([2.0, 4.0])
    np.testing.assert_array_equal(x.multiply(y).detach().numpy(), [2.0, 16.0])
    np.testing.assert_array_equal(x.subtract(y, alpha=2).detach().numpy(), [-3.0, -4.0])
    np.testing.assert_array_equal(x.divide(y).detach().numpy(), [0.5, 1.0])
    np.testing.assert_array_equal(ng.divide(ng.tensor([7]), 2, rounding_mode="floor").numpy(), [3])
    i = ng.true_divide(ng.tensor([1, 3]), 2)
    assert i.dtype == ng.float32
    np.testing.assert_array_equal(i.numpy(), [0.5, 1.5])
    np.testing.assert_array_equal(x.not_equal(y).numpy(), [True, False])
    np.testing.assert_array_equal(x.greater_equal(y).numpy(), [False, True])
    assert ng.positive(x) is x and x.positive() is x
    with pytest.raises(RuntimeError, match="on a bool tensor is not supported"):
        ng.positive(ng.tensor([True]))


def test_tensor_where_takes_the_condition_first():
    x = leaf([1.0, -2.0, 3.0])
    y = leaf([10.0, 20.0, 30.0])
    out, (gx, gy) = grads(lambda a, b: a.where(a > 0, b), x, y)
    np.testing.assert_array_equal(out, [1.0, 20.0, 3.0])
    np.testing.assert_array_equal(gx, [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(gy, [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(ng.tensor([1.0, -2.0]).where(ng.tensor([True, False]), 5.0)
                                  .numpy(), [1.0, 5.0])


def test_inplace_values():
    def run(name, data, *args, **kwargs):
        t = ng.tensor(data, dtype=ng.float64)
        assert getattr(t, name)(*args, **kwargs) is t
        return t.numpy()
    other = ng.tensor([2.0, -1.0], dtype=ng.float64)
    np.testing.assert_allclose(run("sinc_", [0.0, 0.5]), [1.0, 2 / math.pi])
    np.testing.assert_allclose(run("xlogy_", [0.0, 2.0], ng.tensor([0.0, 4.0])),
                               [0.0, 2 * math.log(4)])
    np.testing.assert_array_equal(run("copysign_", [1.0, 2.0], other), [1.0, -2.0])
    np.testing.assert_allclose(run("deg2rad_", [180.0, 90.0]), [math.pi, math.pi / 2])
    np.testing.assert_allclose(run("rad2deg_", [math.pi, 0.0]), [180.0, 0.0])
    np.testing.assert_allclose(run("erfc_", [0.0, 1.0]), special.erfc([0.0, 1.0]))
    np.testing.assert_allclose(run("erfinv_", [0.0, 0.5]), special.erfinv([0.0, 0.5]))
    np.testing.assert_array_equal(run("nextafter_", [1.0, 1.0], other),
                                  [1.0 + 2.0 ** -52, 1.0 - 2.0 ** -53])
    np.testing.assert_array_equal(run("heaviside_", [-1.0, 0.0], other), [0.0, -1.0])
    np.testing.assert_array_equal(run("multiply_", [1.0, 3.0], other), [2.0, -3.0])
    np.testing.assert_array_equal(run("subtract_", [1.0, 3.0], other), [-1.0, 4.0])
    np.testing.assert_array_equal(run("divide_", [1.0, 3.0], other), [0.5, -3.0])
    np.testing.assert_array_equal(run("divide_", [7.0, 3.0], other, rounding_mode="floor"),
                                  [3.0, -3.0])
    np.testing.assert_array_equal(run("true_divide_", [1.0, 3.0], other), [0.5, -3.0])
    np.testing.assert_array_equal(run("negative_", [1.0, -3.0]), [-1.0, 3.0])
    np.testing.assert_array_equal(run("float_power_", [2.0, 3.0], 2), [4.0, 9.0])


def test_inplace_gradients_match_out_of_place():
    for name, args in (("sinc_", ()), ("xlogy_", (ng.tensor([2.0, 3.0]).double(),)),
                       ("copysign_", (-1.0,)), ("erfc_", ()), ("erfinv_", ()),
                       ("multiply_", (ng.tensor([2.0, 3.0]).double(),)),
                       ("float_power_", (3,))):
        x = leaf([0.25, 0.5])
        y = x * 1.0
        getattr(y, name)(*args)
        y.sum().backward()
        inplace_grad = x.grad.numpy().copy()
        x.grad = None
        getattr(ng, name[:-1])(x * 1.0, *args).sum().backward()
        np.testing.assert_array_equal(inplace_grad, x.grad.numpy(), err_msg=name)


def test_inplace_dtype_errors():
    for name, args in (("sinc_", ()), ("deg2rad_", ()), ("erfinv_", ()),
                       ("xlogy_", (ng.tensor([1, 2]),)), ("copysign_", (ng.tensor([1, 2]),)),
                       ("true_divide_", (ng.tensor([1, 2]),)), ("divide_", (2,))):
        i = ng.tensor([1, 2])
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                               "output type Long"):
            getattr(i, name)(*args)
        np.testing.assert_array_equal(i.numpy(), [1, 2])      # nothing written
    with pytest.raises(RuntimeError, match="float_power_ has dtype Float but the operation's "
                                           "result requires dtype Double"):
        ng.tensor([1.0, 2.0]).float_power_(2)
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.sinc_()


@pytest.mark.skipif(not numgrad.cuda.is_available(),
                    reason="needs numba-cuda and a GPU or its simulator")
def test_on_cuda_tensors_as_on_the_cpu():
    cases = [
        (ng.sinc, [[0.0, 0.5, -1.5]]),
        (ng.xlogy, [[0.0, 0.5, 2.0], [0.0, 3.0, NAN]]),
        (lambda t: ng.xlogy(t, 0.5), [[0.0, 0.5, 2.0]]),
        (ng.logaddexp2, [[1.0, -INF, 2.0], [3.0, -INF, 2.0]]),
        (ng.copysign, [[0.0, 0.5, 2.0], [-1.0, 3.0, -0.0]]),
        (ng.fmax, [[NAN, 0.5, 2.0], [1.0, NAN, 2.0]]),
        (ng.fmin, [[NAN, 0.5, 2.0], [1.0, NAN, 2.0]]),
        (ng.deg2rad, [[180.0, -1.0]]), (ng.rad2deg, [[1.0, -1.0]]),
        (ng.erfc, [[0.5, -2.0]]), (ng.erfinv, [[0.5, -0.25, 1.0]]),
        (ng.nextafter, [[1.0, 0.0], [2.0, -1.0]]),
    ]
    for dtype in (ng.float64, ng.float32):
        for fn, data in cases:
            cpu = grads(fn, *[leaf(d, dtype) for d in data])
            gpu = grads(fn, *[leaf(d, dtype, "cuda") for d in data])
            for c, g in zip([cpu[0]] + cpu[1], [gpu[0]] + gpu[1]):
                assert g.dtype == c.dtype
                np.testing.assert_allclose(g, c, rtol=1e-6, atol=0)
    x = ng.tensor([-0.0, 1.0, -2.0], device="cuda")
    assert x.signbit().device == x.device
    np.testing.assert_array_equal(x.signbit().cpu().numpy(), [True, False, True])
    np.testing.assert_array_equal(x.heaviside(ng.tensor([0.5], device="cuda")).cpu().numpy(),
                                  [0.5, 1.0, 0.0])
    # the next float32, not float64, on the GPU too
    f = ng.nextafter(ng.tensor([1.0], device="cuda"), ng.tensor([2.0], device="cuda"))
    assert f.cpu().item() == 1.0 + 2.0 ** -23
