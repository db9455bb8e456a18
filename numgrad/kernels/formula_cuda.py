"""Scalar math for formulas inside CUDA kernels: `numgrad.ops.fmath`'s functions, and the few more
that elementwise forwards need.

A derivative formula such as ``g * F.cos(x)`` names `F`, the fmath module. To compile it for the
GPU, `numgrad.cuda.generate` rebinds the formula's `F` to this module, so the same text calls these
device functions. Under the simulator kernels run as Python on NumPy scalars: there `_m` is NumPy,
because `math` raises on log(0) or sqrt(-1) where a GPU returns inf and nan.
"""
import math

import numpy as np
from numba import config, cuda

# the constants of the CPU kernels' digamma and polygamma, whose algorithms are repeated below
from .formula import (_EPSILON, _EULER, _MACHEP, _NEG_ROOT, _NEG_ROOT_VALUE, _POS_ROOT,
                      _POS_ROOT_VALUE, _PSI_ASYMPTOTIC, _ZETA_A)

SIM = bool(config.ENABLE_CUDASIM)


class _SimMath:
    """math's names over NumPy's functions (simulator only)."""
    cos, sin, tan, exp, expm1, log, log1p, log2, sqrt, tanh = (
        np.cos, np.sin, np.tan, np.exp, np.expm1, np.log, np.log1p, np.log2, np.sqrt, np.tanh)
    atan, atan2, pow = np.arctan, np.arctan2, np.power
    fmod, floor, trunc, copysign = np.fmod, np.floor, np.trunc, np.copysign
    erf, erfc = staticmethod(math.erf), staticmethod(math.erfc)   # no domain error to mask
    nextafter = np.nextafter
    ceil, rint, exp2, log10, hypot = np.ceil, np.rint, np.exp2, np.log10, np.hypot
    sinh, cosh, asin, acos, asinh, acosh, atanh = (
        np.sinh, np.cosh, np.arcsin, np.arccos, np.arcsinh, np.arccosh, np.arctanh)

    @staticmethod
    def erfinv(x):
        from scipy.special import erfinv     # imported on first use, as in ops/elementwise.py
        return erfinv(x)

    @staticmethod
    def lgamma(x):
        # math.lgamma raises at the poles, where a GPU returns inf (lgamma(-inf) too, as torch)
        from scipy.special import gammaln
        return math.inf if x == -math.inf else gammaln(x)


_m = _SimMath if SIM else math
if SIM:
    _ld = _SimMath
else:
    # Numba's math.floor, ceil and trunc return integers (Python's), which inf and nan are not;
    # libdevice's keep the float. exp2 is libdevice's too: math has none in Numba.
    from numba.cuda import libdevice as _ld
_device = cuda.jit(device=True, inline="always")


@_device
def cos(x):
    return _m.cos(x)


@_device
def sin(x):
    return _m.sin(x)


@_device
def tan(x):
    return _m.tan(x)


@_device
def exp(x):
    return _m.exp(x)


@_device
def expm1(x):
    return _m.expm1(x)


@_device
def log(x):
    return _m.log(x)


@_device
def log1p(x):
    return _m.log1p(x)


@_device
def log2(x):
    return _m.log2(x)


@_device
def sqrt(x):
    return _m.sqrt(x)


@_device
def tanh(x):
    return _m.tanh(x)


@_device
def atan(x):
    return _m.atan(x)


@_device
def atan2(x, y):
    return _m.atan2(x, y)


@_device
def erf(x):
    return _m.erf(x)


@_device
def erfc(x):
    return _m.erfc(x)


@_device
def erfinv(x):
    return _ld.erfinv(x)


@_device
def copysign(x, y):
    return _m.copysign(x, y)


@_device
def log10(x):
    return _m.log10(x)


@_device
def exp2(x):
    return _ld.exp2(x)


@_device
def sinh(x):
    return _m.sinh(x)


@_device
def cosh(x):
    return _m.cosh(x)


@_device
def asin(x):
    return _m.asin(x)


@_device
def acos(x):
    return _m.acos(x)


@_device
def asinh(x):
    return _m.asinh(x)


@_device
def acosh(x):
    return _m.acosh(x)


@_device
def atanh(x):
    return _m.atanh(x)


@_device
def hypot(x, y):
    return _m.hypot(x, y)


@_device
def floor(x):
    return _ld.floor(x)


@_device
def ceil(x):
    return _ld.ceil(x)


@_device
def rint(x):
    # half to even, as np.round and torch.round
    return _ld.rint(x)


@_device
def trunc(x):
    return _ld.trunc(x)


@_device
def pow(x, p):
    return _m.pow(x, p)


@_device
def pow_scalar(x, p):
    # formula.py's: torch's pow by a Scalar
    if p == 0.5:
        return _m.sqrt(x)
    if p == -0.5:
        return 1.0 / _m.sqrt(x)
    if p == -1.0:
        return 1.0 / x
    if p == 2.0:
        return x * x
    if p == 3.0:
        return x * x * x
    if p == -2.0:
        return 1.0 / (x * x)
    return _m.pow(x, p)


@_device
def sign(x):
    # torch's sign: 0 at NaN and at -0.0 (NumPy's gives nan and -0.0)
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0)


@_device
def fma(a, b, c):
    # the GPU's compiler fuses a product and a sum itself
    return a * b + c


@_device
def select(cond, a, b):
    return a if cond else b


@_device
def mul_scalar(x, s):
    return x * s


@_device
def sub_scalar(x, s):
    return x - s


@_device
def threshold_backward(g, x, threshold):
    return 0.0 if x <= threshold else g


@_device
def hardtanh_backward(g, x, lo, hi):
    return 0.0 if x <= lo or x >= hi else g


@_device
def hardshrink_backward(g, x, lambd):
    return 0.0 if x >= -lambd and x <= lambd else g


softshrink_backward = hardshrink_backward      # the same mask (their nodes' names differ)


@_device
def leaky_relu_backward(g, x, slope):
    return g if x > 0.0 else g * slope


@_device
def maximum(x, y):
    # NaN wins, as in np.maximum; x at ties (0.0 and -0.0), as in torch
    return y if y > x or y != y else x


@_device
def minimum(x, y):
    return y if y < x or y != y else x


@_device
def sigmoid(x):
    # 1 / (1 + exp(-x)) without overflow: exp of a non-positive number only
    e = _m.exp(-x if x >= 0 else x)
    return 1.0 / (1.0 + e) if x >= 0 else e / (1.0 + e)


@_device
def fmod(x, y):
    return _m.fmod(x, y)


@_device
def remainder(x, y):
    # torch's (and the CPU's): fmod moved into the divisor's sign where it is not zero, so that
    # fmod's -0.0 stays -0.0 (NumPy's remainder gives the zero the divisor's sign)
    mod = _m.fmod(x, y)
    return mod + y if mod != 0 and (y < 0) != (mod < 0) else mod


@_device
def floor_div(x, y):
    # NumPy's and torch's floor division: from fmod, so that 1 // 0.1 is 9 as 1 % 0.1 says
    if y == 0:
        return x / y
    mod = _m.fmod(x, y)
    div = (x - mod) / y
    if mod != 0 and (y < 0) != (mod < 0):
        div -= 1.0
    if div == 0:
        return _m.copysign(0.0, x / y)
    q = _m.floor(div)
    return q + 1.0 if div - q > 0.5 else q


@_device
def trunc_div(x, y):
    return _m.trunc(x / y)


# cast_like(s, x): the float s in x's type. Kernels receive an op's float attributes as float64,
# while the CPU computes with x.dtype.type(s), as torch's Scalar overloads do: for a float32 x,
# fmod(x, 0.1) in float64 is off by the quotient times float32(0.1)'s rounding error.
if SIM:
    def cast_like(s, x):
        return type(x)(s)             # x is a NumPy scalar here
else:
    from numba import types
    from numba.cuda.extending import overload

    def cast_like(s, x):
        raise NotImplementedError("cast_like runs inside CUDA kernels only")

    @overload(cast_like, target="cuda", inline="always")
    def _cast_like(s, x):
        to = x                        # x's Numba type, which converts when called
        return lambda s, x: to(s)


# nextafter(x, y) in x's type: in float64, a float32 x's next value would round back to x
if SIM:
    nextafter = _SimMath.nextafter
else:
    def nextafter(x, y):
        raise NotImplementedError("nextafter runs inside CUDA kernels only")

    @overload(nextafter, target="cuda", inline="always")
    def _nextafter(x, y):
        if x == types.float32:
            return lambda x, y: _ld.nextafterf(x, y)
        return lambda x, y: _ld.nextafter(x, y)


@_device
def lgamma(x):
    return _m.lgamma(x)


# digamma and polygamma: the CPU kernels' algorithms (Note [digamma and polygamma in kernels] in
# numgrad/kernels/formula.py), in float64 whatever x's type, as there.
@_device
def _hurwitz_zeta(s, q):
    if q <= 0.0 and (q == -math.inf or q == _ld.floor(q)):
        return math.inf
    if q > 1e8:
        return (1.0 / (s - 1.0) + 0.5 / q) * _m.pow(q, 1.0 - s)
    total = _m.pow(q, -s)
    a = q
    b = 0.0
    i = 0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = _m.pow(a, -s)
        total += b
        if -_MACHEP * total < b and b < _MACHEP * total:
            return total
    w = a
    total += b * w / (s - 1.0)
    total -= 0.5 * b
    factor = 1.0
    k = 0.0
    for j in range(12):
        factor *= s + k
        b /= w
        term = factor * b / _ZETA_A[j]
        total += term
        if abs(term / total) < _MACHEP:
            break
        k += 1.0
        factor *= s + k
        b /= w
        k += 1.0
    return total


@_device
def _digamma_near_root(x, root, value):
    total = value
    coefficient = -1.0
    dx = x - root
    for n in range(1, 100):
        coefficient *= -dx
        term = coefficient * _hurwitz_zeta(n + 1.0, root)
        total += term
        if abs(term) < _EPSILON * abs(total):
            break
    return total


@_device
def _digamma_positive(x):
    if abs(x - _POS_ROOT) < 0.3:
        return _digamma_near_root(x, _POS_ROOT, _POS_ROOT_VALUE)
    if x <= 10.0 and x == _ld.floor(x):
        total = -_EULER
        for k in range(1, int(x)):
            total += 1.0 / k
        return total
    shift = 0.0
    while x < 10.0:
        shift += 1.0 / x
        x += 1.0
    series = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        for c in _PSI_ASYMPTOTIC:
            series = series * z + c
        series *= z
    return _m.log(x) - 0.5 / x - series - shift


@_device
def _digamma64(x):
    if x == 0.0:
        return _m.copysign(math.inf, -x)
    if x < 0.0:
        if x == -math.inf or x == _ld.floor(x):
            return math.nan
        if abs(x - _NEG_ROOT) < 0.3:
            return _digamma_near_root(x, _NEG_ROOT, _NEG_ROOT_VALUE)
        return _digamma_positive(1.0 - x) - math.pi / _m.tan(math.pi * (x - _ld.trunc(x)))
    return _digamma_positive(x)


@_device
def digamma(x):
    return _digamma64(float(x))


@_device
def polygamma(n, x):
    # n arrives as a float attribute
    order = int(n)
    v = float(x)
    if order == 0:
        return _digamma64(v)
    if order == 1 and abs(v) == math.inf:
        return 0.0 if v > 0.0 else math.nan
    if v == math.inf:
        return math.nan
    factorial = 1.0
    for k in range(2, order + 1):
        factorial *= k
    sign = 1.0 if order % 2 == 1 else -1.0
    return sign * factorial * _hurwitz_zeta(order + 1.0, v)
