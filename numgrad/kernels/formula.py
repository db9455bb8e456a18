"""Scalar implementations of `numgrad.ops.fmath`, so derivative formulas compile inside kernels."""
import math

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..ops import fmath


# Note [float32 sin and cos]
# sin and cos of float32 values in derivative kernels (sin's gradient is g * cos(x)) are written
# out rather than called from libm: a libm call per element keeps LLVM from vectorising the
# kernel's loop, which then ran 4x slower than torch's vectorised one. Everything below is
# branch-free float64 arithmetic, so the loop vectorises.
#
# Argument reduction: y = x * 2/pi, taken modulo 4 (the quadrant and the fraction within it),
# with 2/pi held as seven 29-bit chunks C_k (203 bits, enough for the largest float32, 2^128). A
# float32 has 24 significant bits, so each x * C_k (53 bits) is exact in float64, and so is its
# remainder modulo 4: products of 2^50 and more are multiples of 4 and drop out exactly. Summing
# the remainders rounds, by at most a few units of 2^-52 in y; that is an absolute error below
# 2^-48 in the reduced argument, far under float32 precision. The reduced argument r, within
# [-pi/4, pi/4], goes through Taylor polynomials of sin and cos (relative errors below 2e-9,
# under float32's 6e-8). tests/test_kernel_math.py checks 0.6 ulp from 1e-30 to 1e37.
def _two_over_pi_chunks(count, bits=29):
    """2/pi's first count * bits binary digits as count floats (Machin's formula, in integers)."""
    precision = count * bits + 64

    def arctan_inverse(n):     # arctan(1/n) * 2^precision, by its series
        total, term, k = 0, (1 << precision) // n, 0
        while term:
            total += term // (2 * k + 1) if k % 2 == 0 else -(term // (2 * k + 1))
            term //= n * n
            k += 1
        return total
    pi = 16 * arctan_inverse(5) - 4 * arctan_inverse(239)
    two_over_pi = (2 << (2 * precision)) // pi        # 2/pi * 2^precision
    mask = (1 << bits) - 1
    return tuple(float((two_over_pi >> (precision - bits * (k + 1))) & mask)
                 * 2.0 ** (-bits * (k + 1)) for k in range(count))


_C0, _C1, _C2, _C3, _C4, _C5, _C6 = _two_over_pi_chunks(7)
_HALF_PI = math.pi / 2


@njit(inline="always")
def _mod4(p):
    """p modulo 4 into [-2, 2], exactly."""
    return p - 4.0 * np.rint(p * 0.25)


@njit
def _pick(condition, a, b):
    """a if condition else b, as its own small function: LLVM inlines it as a select, which
    vectorises, where Numba's inlining of a conditional expression would leave a branch."""
    return a if condition else b


@njit(inline="always")
def _sin_cos_f32(x, want_cos):
    """sin(x) (want_cos 0) or cos(x) (want_cos 1) of a float32, vectorisable: Note [float32 sin
    and cos]."""
    v = np.float64(x)
    y = (_mod4(v * _C0) + _mod4(v * _C1) + _mod4(v * _C2) + _mod4(v * _C3)
         + _mod4(v * _C4) + _mod4(v * _C5) + _mod4(v * _C6))
    q = np.rint(y)
    # the reduction loses a zero's sign: -0.0 gets it back, so that sin(-0.0) is -0.0
    negative_zero = (v == 0.0) & (math.copysign(1.0, v) < 0.0)
    r = (y - q) * _HALF_PI * (1.0 - 2.0 * negative_zero)
    r2 = r * r
    sin_r = r * (1.0 + r2 * (-1.0 / 6 + r2 * (1.0 / 120 + r2 * (-1.0 / 5040
                                                              + r2 * (1.0 / 362880)))))
    cos_r = 1.0 + r2 * (-0.5 + r2 * (1.0 / 24 + r2 * (-1.0 / 720 + r2 * (1.0 / 40320 + r2 * (
        -1.0 / 3628800)))))
    # sin(r + n pi/2) is sin(r), cos(r), -sin(r), -cos(r) for n = 0..3
    n = (np.int64(q) + want_cos) & 3
    return np.float32(_pick(n & 1, cos_r, sin_r) * np.float64(1 - (n & 2)))


@overload(fmath.cos, inline="always")
def _cos(x):
    if x == types.float32:
        return lambda x: _sin_cos_f32(x, 1)
    return lambda x: math.cos(x)


@overload(fmath.sin, inline="always")
def _sin(x):
    if x == types.float32:
        return lambda x: _sin_cos_f32(x, 0)
    return lambda x: math.sin(x)


@overload(fmath.exp)
def _exp(x):
    return lambda x: math.exp(x)


@overload(fmath.log)
def _log(x):
    return lambda x: math.log(x)


@overload(fmath.sqrt)
def _sqrt(x):
    return lambda x: math.sqrt(x)


@overload(fmath.erf)
def _erf(x):
    return lambda x: math.erf(x)


@overload(fmath.sign)
def _sign(x):
    # sign(nan) is nan and sign(-0.0) is -0.0, as in NumPy and torch; float32 stays float32
    if x == types.float32:
        return lambda x: (np.float32(1.0) if x > 0 else (np.float32(-1.0) if x < 0 else x))
    return lambda x: (1.0 if x > 0 else (-1.0 if x < 0 else x))


@overload(fmath.select)
def _select(cond, a, b):
    return lambda cond, a, b: a if cond else b


@overload(fmath.pow)
def _pow(x, p):
    return lambda x, p: x ** p


@overload(fmath.floor_div)
def _floor_div(x, y):
    def impl(x, y):
        # NumPy's and torch's floor division: from fmod, so that 1 // 0.1 is 9 as 1 % 0.1 says
        if y == 0:
            return x / y
        mod = np.fmod(x, y)
        div = (x - mod) / y
        if mod != 0 and (y < 0) != (mod < 0):
            div -= 1.0
        if div == 0:
            return np.copysign(0.0, x / y)
        q = np.floor(div)
        return q + 1.0 if div - q > 0.5 else q
    return impl


@overload(fmath.trunc_div)
def _trunc_div(x, y):
    return lambda x, y: np.trunc(x / y)


@overload(fmath.sinh)
def _sinh(x):
    return lambda x: math.sinh(x)


@overload(fmath.cosh)
def _cosh(x):
    return lambda x: math.cosh(x)
