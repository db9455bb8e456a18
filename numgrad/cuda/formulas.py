"""The forward of every elementwise op as one scalar formula, for the generated CUDA kernels.

The registry's elementwise forwards are NumPy calls; these are their scalar twins, in the derivative
formulas' language (arithmetic and F = numgrad.kernels.formula_cuda). A formula's parameters are the
op's inputs in order, then the float attributes it reads (named as `apply` passes them). Results
follow NumPy: NaN propagates through maximum/minimum/clamp/relu as np.maximum does.
"""
import math

from ..kernels import formula_cuda as F

_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_SQRT2 = math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715
_LN2 = math.log(2.0)
_INF = math.inf
_PI = math.pi
_DEG_TO_RAD = math.pi / 180.0
_RAD_TO_DEG = 180.0 / math.pi


def _bce(x, y):
    lo, hi = F.log(x), F.log1p(-x)
    return -(y * F.select(lo > -100.0, lo, -100.0) + (1.0 - y) * F.select(hi > -100.0, hi, -100.0))


def _softplus(x, beta, threshold):
    z = x * beta
    soft = (F.maximum(z, 0.0) + F.log1p(F.exp(-abs(z)))) / beta
    return F.select(z > threshold, x, soft)


def _logit(x, eps):
    lo, hi = F.cast_like(eps, x), F.cast_like(1.0 - eps, x)
    z = F.select(eps < 0.0, x, F.select(x < lo, lo, F.select(x > hi, hi, x)))
    return F.log(z / (F.cast_like(1.0, x) - z))


def _round_decimals(x, decimals):
    # as numgrad/ops/elementwise_more.py's forward: scale, round half to even, scale back
    scale = F.cast_like(10.0 ** abs(decimals), x)
    return F.select(decimals > 0.0, F.rint(x * scale) / scale, F.rint(x / scale) * scale)


def _logaddexp(x, y):
    # NumPy's: equal arguments (infinities too) give x + log 2; exp of a non-positive number only
    return F.select(x == y, x + _LN2, F.maximum(x, y) + F.log1p(F.exp(-abs(x - y))))


def _lerp(x, y, w):
    # torch's: from the nearer end, so that weight 1 gives exactly y
    return F.select(abs(w) < 0.5, x + w * (y - x), y - (y - x) * (F.cast_like(1.0, x) - w))


def _lerp_scalar(x, y, weight):
    # _lerp with the weight in x's type (a device function calls no plain Python function)
    w = F.cast_like(weight, x)
    return F.select(abs(w) < 0.5, x + w * (y - x), y - (y - x) * (F.cast_like(1.0, x) - w))


def _sinc(x):
    px = F.cast_like(_PI, x) * x
    return F.select(x == 0, F.cast_like(1.0, x), F.sin(px) / px)


def _xlogy(x, y):
    # 0 where x is 0 (even where log(y) is infinite), unless y is NaN
    return F.select((x == 0) & (y == y), F.cast_like(0.0, x), x * F.log(y))


def _logaddexp2(x, y):
    # NumPy's: equal arguments (infinities too) give x + 1; exp2 of a non-positive number only
    return F.select(x == y, x + 1.0, F.maximum(x, y) + F.log1p(F.exp2(-abs(x - y))) / _LN2)


def _nan_to_num(x, nan, posinf, neginf):
    return F.select(x != x, F.cast_like(nan, x), F.select(
        x == _INF, F.cast_like(posinf, x), F.select(x == -_INF, F.cast_like(neginf, x), x)))


FORWARD = {
    "add": lambda x, y: x + y,
    "copy_slices": lambda x, y: x + y,
    "zero": lambda x: F.cast_like(0.0, x),
    "fill_scalar": lambda x, y: y,
    "fill_tensor": lambda x, y: y,
    "copy": lambda x, y: y,
    "index_put": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "div": lambda x, y: x / y,
    "pow": lambda x, y: F.pow(x, y),
    "atan2": lambda x, y: F.atan2(x, y),
    "div_floor": lambda x, y: F.floor_div(x, y),
    "div_trunc": lambda x, y: F.trunc_div(x, y),
    "remainder": lambda x, y: F.remainder(x, y),
    "fmod": lambda x, y: F.fmod(x, y),
    "remainder_scalar": lambda x, s: F.remainder(x, F.cast_like(s, x)),
    "fmod_scalar": lambda x, s: F.fmod(x, F.cast_like(s, x)),
    "maximum": lambda x, y: F.maximum(x, y),
    "minimum": lambda x, y: F.minimum(x, y),
    "where": lambda c, x, y: F.select(c != 0, x, y),
    "masked_fill": lambda c, x, v: F.select(c != 0, v, x),
    "masked_fill_tensor": lambda c, x, v: F.select(c != 0, v, x),
    "pow_scalar": lambda x, p: F.pow_scalar(x, p),
    "pow_base": lambda x, base: F.pow(base, x),
    "rsub": lambda x, s: s - x,
    "add_alpha": lambda x, y, alpha: x + F.cast_like(alpha, x) * y,
    "sub_alpha": lambda x, y, alpha: x - F.cast_like(alpha, x) * y,
    "rsub_alpha": lambda x, s, alpha: s - F.cast_like(alpha, x) * x,
    "rsub_tensor": lambda x, y, alpha: y - F.cast_like(alpha, x) * x,
    "add_scalar": lambda x, s: x + F.cast_like(s, x),
    "sub_scalar": lambda x, s: x - F.cast_like(s, x),
    "mul_scalar": lambda x, s: x * F.cast_like(s, x),
    "div_scalar": lambda x, s: x / F.cast_like(s, x),
    "clamp": lambda x, lo, hi: F.select(x < lo, lo, F.select(x > hi, hi, x)),
    "clamp_tensor": lambda x, lo, hi: F.minimum(F.maximum(x, lo), hi),
    "neg": lambda x: -x,
    "exp": lambda x: F.exp(x),
    "expm1": lambda x: F.expm1(x),
    "log": lambda x: F.log(x),
    "log1p": lambda x: F.log1p(x),
    "log2": lambda x: F.log2(x),
    "sqrt": lambda x: F.sqrt(x),
    "rsqrt": lambda x: 1.0 / F.sqrt(x),
    "sin": lambda x: F.sin(x),
    "cos": lambda x: F.cos(x),
    "tan": lambda x: F.tan(x),
    "tanh": lambda x: F.tanh(x),
    "sigmoid": lambda x: F.sigmoid(x),
    # x * 0 would make relu(-inf) nan and relu(-1.0) -0.0; x itself at -0.0 and NaN, as torch
    "relu": lambda x: F.select(x < 0, F.cast_like(0.0, x), x),
    "abs": lambda x: abs(x),
    "atan": lambda x: F.atan(x),
    "erf": lambda x: F.erf(x),
    "reciprocal": lambda x: 1.0 / x,
    "square": lambda x: x * x,
    "sign": lambda x: F.sign(x),
    "reads": lambda x, y: x,
    "eq": lambda x, y: x == y,
    "ne": lambda x, y: x != y,
    "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y,
    "gt": lambda x, y: x > y,
    "ge": lambda x, y: x >= y,
    "logical_and": lambda x, y: (x != 0) & (y != 0),
    "logical_or": lambda x, y: (x != 0) | (y != 0),
    "logical_xor": lambda x, y: (x != 0) != (y != 0),
    "logical_not": lambda x: x == 0,
    "gelu": lambda x: 0.5 * x * (1.0 + F.erf(x * _INV_SQRT2)),
    "gelu_tanh": lambda x: 0.5 * x * (1.0 + F.tanh(_SQRT_2_OVER_PI * (x + _GELU_C * x * x * x))),
    "silu": lambda x: x * F.sigmoid(x),
    "softplus": _softplus,
    "leaky_relu": lambda x, slope: F.select(x > 0, x, x * slope),
    "hardtanh": lambda x, lo, hi: F.select(x < lo, F.cast_like(lo, x),
                                           F.select(x > hi, F.cast_like(hi, x), x)),
    "threshold": lambda x, threshold, value: F.select(x <= threshold, F.cast_like(value, x), x),
    "hardshrink": lambda x, lambd: F.select((x >= -lambd) & (x <= lambd), F.cast_like(0.0, x), x),
    "softshrink": lambda x, lambd: F.select(x > lambd, x - lambd,
                                            F.select(x < -lambd, x + lambd, x * 0.0)),
    "elu": lambda x, alpha, scale, input_scale, grad_input_scale: F.select(
        x > 0, x * scale, F.expm1(F.minimum(x, 0.0) * input_scale) * (alpha * scale)),
    "hardswish": lambda x: x * F.minimum(F.maximum(x + 3.0, 0.0), 6.0) / 6.0,
    "tanh_backward": lambda x, y: x * F.fma(-y, y, 1.0),
    "sigmoid_backward": lambda x, y: x * (1.0 - y) * y,
    "ldexp": lambda x, y: x * F.exp2(y),
    "affine": lambda x, y, z: x * y + z,
    "binary_cross_entropy": _bce,
    "floor": lambda x: F.floor(x),
    "ceil": lambda x: F.ceil(x),
    "round": lambda x: F.rint(x),
    "round_decimals": _round_decimals,
    "trunc": lambda x: F.trunc(x),
    "frac": lambda x: x - F.trunc(x),
    "sgn": lambda x: F.sign(x),
    "angle": lambda x: F.select(x != x, x, F.select(x < 0.0, F.cast_like(_PI, x),
                                                    F.cast_like(0.0, x))),
    "log10": lambda x: F.log10(x),
    "exp2": lambda x: F.exp2(x),
    "sinh": lambda x: F.sinh(x),
    "cosh": lambda x: F.cosh(x),
    "asin": lambda x: F.asin(x),
    "acos": lambda x: F.acos(x),
    "asinh": lambda x: F.asinh(x),
    "acosh": lambda x: F.acosh(x),
    "atanh": lambda x: F.atanh(x),
    "logit": _logit,
    "hypot": lambda x, y: F.hypot(x, y),
    "logaddexp": _logaddexp,
    "lerp": _lerp_scalar,
    "lerp_tensor": _lerp,
    "addcmul": lambda x, y, z, value: x + F.cast_like(value, x) * y * z,
    "addcdiv": lambda x, y, z, value: x + F.cast_like(value, x) * y / z,
    "clamp_min": lambda x, lo: F.maximum(x, F.cast_like(lo, x)),
    "clamp_max": lambda x, hi: F.minimum(x, F.cast_like(hi, x)),
    "clamp_min_tensor": lambda x, y: F.maximum(x, y),
    "clamp_max_tensor": lambda x, y: F.minimum(x, y),
    "nan_to_num": _nan_to_num,
    # numgrad/ops/elementwise_special.py
    "sinc": _sinc,
    "xlogy": _xlogy,
    "xlogy_scalar_self": _xlogy,
    "xlogy_scalar_other": _xlogy,
    "logaddexp2": _logaddexp2,
    "copysign": lambda x, y: F.copysign(x, y),
    "copysign_scalar": lambda x, y: F.copysign(x, y),
    # NaN-ignoring: x where it is the result (NaN only where both are), as np.fmax and np.fmin
    "fmax": lambda x, y: F.select((x >= y) | (y != y), x, y),
    "fmin": lambda x, y: F.select((x <= y) | (y != y), x, y),
    "deg2rad": lambda x: x * F.cast_like(_DEG_TO_RAD, x),
    "rad2deg": lambda x: x * F.cast_like(_RAD_TO_DEG, x),
    "erfc": lambda x: F.erfc(x),
    "erfinv": lambda x: F.erfinv(x),
    "special_entr": lambda x: F.select(x > 0.0, -x * F.log(x), F.select(
        x == 0.0, F.cast_like(0.0, x), F.select(x != x, x, F.cast_like(-_INF, x)))),
    "special_log_ndtr": lambda x: F.select(x < 0.0, F.log(0.5 * F.erfc(-x * _INV_SQRT2)),
                                           F.log1p(-0.5 * F.erfc(x * _INV_SQRT2))),
    "special_ndtri": lambda x: _SQRT2 * F.erfinv(2.0 * x - 1.0),
    "nextafter": lambda x, y: F.nextafter(x, y),
    # numgrad/ops/elementwise_gamma.py
    "lgamma": lambda x: F.lgamma(x),
    "digamma": lambda x: F.digamma(x),
    "polygamma": lambda x, n: F.polygamma(n, x),
}

# Ops whose result is bool whatever their inputs (the others keep their inputs' dtype).
BOOL_RESULT = frozenset(("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
                         "logical_xor", "logical_not"))
