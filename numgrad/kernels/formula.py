"""Scalar implementations of `numgrad.ops.fmath`, so derivative formulas compile inside kernels."""
import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload

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


# Note [float32 exp and erf]
# As sin and cos (Note [float32 sin and cos]), exp and erf of float32 values are written out in
# branch-free float64 arithmetic, so that the loops calling them vectorise: libm's expf and erff
# made GELU's and SiLU's gradients, and the softmax rows of log_softmax and cross entropy, several
# times slower than torch's. Each result is rounded to float32 once, from a float64 value whose
# relative error is below 1e-10, so it is the correctly rounded one but in rare cases (where the
# value lies within 1e-10 of half an ulp; tests/test_kernel_math.py checks).
# - exp: v = n ln2 + r with n = rint(v / ln2) and |r| <= ln2 / 2, exp(r) by its Taylor polynomial
#   of degree 10 (relative error below 3e-13), times 2^n made from its bits (n is rounded, and its
#   bits found, by adding 1.5 * 2^52: AVX2 has no vector conversion from float64 to int64). v is
#   clamped to [-150, 150] first, which keeps 2^n a normal float64 and still overflows to inf and
#   underflows to 0 once rounded to float32; NaN is set aside first and given back at the end.
# - erf: an odd function, so computed at a = |x| and given x's sign (copysign keeps erf(-0.0) =
#   -0.0). Below a = 1, erf(a) / a as a polynomial in a^2 (degree 8, error 1e-12); from 1 to 4 a
#   polynomial in (a - 2.5) / 1.5 (degree 18, error 1.2e-11); erf(4) rounds to 1 in float32, so
#   a is clamped to 4. The coefficients are least-squares fits on 4000 Chebyshev nodes against
#   math.erf: numpy.polynomial.polynomial.polyfit(z, erf(sqrt(z)) / sqrt(z), 8) for z in [0, 1],
#   and polyfit(u, erf(2.5 + 1.5 u), 18) for u in [-1, 1] (`_erf_fits` in the test regenerates
#   and checks them). Both polynomials are evaluated and one is picked, as a select.
# Each Horner step is one fused multiply-add (`_fma`): half the instructions of a product and a
# sum, which Numba rounds apart (the exp loop: 2.1 -> 1.3 ms for 2M values, NumPy's own 1.2).
# Neither may be called from a function compiled with fastmath: inlined, they take its flags, and
# reassociation would cancel the rounding shift of exp's n.
_LOG2_E = 1.0 / math.log(2.0)
_LN2 = math.log(2.0)
_ROUNDING_SHIFT = 1.5 * 2.0 ** 52    # adding it rounds a float64 below 2^51 to an integer
_EXP_TAYLOR = tuple(1.0 / math.factorial(k) for k in range(10, -1, -1))   # highest power first
_ERF_SMALL = (1.0595276802366714e-06, -1.3911704863735158e-05, 0.00011956948052845975,
              -0.0008542670735553051, 0.005223785018803112, -0.026866133629855057,
              0.11283791313582259, -0.3761263888987623, 1.1283791670946965)
_ERF_LARGE = (-1.5399259198522928e-05, 3.2936129730671854e-05, 7.670069265095213e-05,
              -0.0002938103377026895, 0.00010030975080778402, 0.0009188625553004279,
              -0.0018600168101285655, 0.0004434482563210123, 0.004558522536015622,
              -0.009622182548382461, 0.006676856676413853, 0.009267782722416332,
              -0.0318759660249681, 0.046453578099465265, -0.04365081935495776,
              0.028181554644228165, -0.012252847422684515, 0.0032674262997107106,
              0.9995930479757144)


@intrinsic
def _float64_from_bits(typingctx, bits):
    """The float64 whose bits are the int64 `bits` (a bitcast, which vectorises)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@intrinsic
def _bits_of_float64(typingctx, value):
    """The bits of a float64 as an int64 (a bitcast, which vectorises)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(types.float64), codegen


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c rounded once, for three values of one float type (LLVM's fma, one vector
    instruction; Numba would round the product and the sum apart: two instructions, and a
    rounding more)."""
    if not (a == b == c and a in (types.float32, types.float64)):
        return None

    def codegen(context, builder, signature, args):
        return builder.fma(*args)
    return a(a, a, a), codegen


# The polynomials are written out, Horner's rule by hand: a loop over a tuple of coefficients
# would have to be inlined by Numba (whose inliner mishandles loops) for the kernels to vectorise.
@njit(inline="always")
def _exp_taylor(r):
    c = _EXP_TAYLOR
    t = _fma(_fma(_fma(_fma(c[0], r, c[1]), r, c[2]), r, c[3]), r, c[4])
    t = _fma(_fma(_fma(_fma(t, r, c[5]), r, c[6]), r, c[7]), r, c[8])
    return _fma(_fma(t, r, c[9]), r, c[10])


@njit(inline="always")
def _erf_below_1(z):
    c = _ERF_SMALL
    t = _fma(_fma(_fma(_fma(c[0], z, c[1]), z, c[2]), z, c[3]), z, c[4])
    return _fma(_fma(_fma(_fma(t, z, c[5]), z, c[6]), z, c[7]), z, c[8])


@njit(inline="always")
def _erf_from_1_to_4(u):
    c = _ERF_LARGE
    t = _fma(_fma(_fma(_fma(c[0], u, c[1]), u, c[2]), u, c[3]), u, c[4])
    t = _fma(_fma(_fma(_fma(t, u, c[5]), u, c[6]), u, c[7]), u, c[8])
    t = _fma(_fma(_fma(_fma(t, u, c[9]), u, c[10]), u, c[11]), u, c[12])
    t = _fma(_fma(_fma(_fma(t, u, c[13]), u, c[14]), u, c[15]), u, c[16])
    return _fma(_fma(t, u, c[17]), u, c[18])


@njit(inline="always")
def _exp_f32(x):
    """exp of a float32, vectorisable: Note [float32 exp and erf]."""
    v = np.float64(x)
    is_number = v == v
    clamped = _pick(is_number, _pick(v > 150.0, 150.0, _pick(v < -150.0, -150.0, v)), 0.0)
    shifted = clamped * _LOG2_E + _ROUNDING_SHIFT
    n = shifted - _ROUNDING_SHIFT
    # shifted's low bits hold n; adding the bias and shifting it into the exponent drops the rest
    scale = _float64_from_bits((_bits_of_float64(shifted) + 1023) << 52)          # 2^n
    value = _exp_taylor(_fma(-n, _LN2, clamped)) * scale
    return np.float32(_pick(is_number, value, v))


@njit(inline="always")
def _erf_f32(x):
    """erf of a float32, vectorisable: Note [float32 exp and erf]."""
    v = np.float64(x)
    a = abs(v)
    a = _pick(a < 4.0, a, 4.0)                   # (NaN becomes 4 here and is given back below)
    small = a * _erf_below_1(a * a)
    large = _erf_from_1_to_4((a - 2.5) * (1.0 / 1.5))
    value = math.copysign(_pick(a < 1.0, small, large), v)
    return np.float32(_pick(v == v, value, v))


@overload(fmath.exp, inline="always")
def _exp(x):
    if x == types.float32:
        return lambda x: _exp_f32(x)
    return lambda x: math.exp(x)


@overload(fmath.fma, inline="always")
def _fma_overload(a, b, c):
    if a == b == c == types.float32:
        return lambda a, b, c: _fma(a, b, c)
    return lambda a, b, c: _fma(np.float64(a), np.float64(b), np.float64(c))


@overload(fmath.log)
def _log(x):
    return lambda x: math.log(x)


@overload(fmath.sqrt)
def _sqrt(x):
    return lambda x: math.sqrt(x)


@overload(fmath.erf, inline="always")
def _erf(x):
    if x == types.float32:
        return lambda x: _erf_f32(x)
    return lambda x: math.erf(x)


@overload(fmath.sign)
def _sign(x):
    # torch's sign: 0 at NaN and at -0.0 (NumPy's gives nan and -0.0); float32 stays float32
    if x == types.float32:
        one, zero = np.float32(1.0), np.float32(0.0)
        return lambda x: (one if x > 0 else (-one if x < 0 else zero))
    return lambda x: (1.0 if x > 0 else (-1.0 if x < 0 else 0.0))


@overload(fmath.mul_scalar)
def _mul_scalar(x, s):
    return lambda x, s: x * s


@overload(fmath.sub_scalar)
def _sub_scalar(x, s):
    return lambda x, s: x - s


@overload(fmath.select)
def _select(cond, a, b):
    return lambda cond, a, b: a if cond else b


@overload(fmath.threshold_backward)
def _threshold_backward(g, x, threshold):
    zero = np.float32(0.0) if g == types.float32 else 0.0     # a float32 kernel stays float32
    return lambda g, x, threshold: zero if x <= threshold else g


@overload(fmath.hardtanh_backward)
def _hardtanh_backward(g, x, lo, hi):
    zero = np.float32(0.0) if g == types.float32 else 0.0
    return lambda g, x, lo, hi: zero if x <= lo or x >= hi else g


def _shrink_backward(g, x, lambd):
    if g == types.float32:      # compared in the input's type, as torch
        return lambda g, x, lambd: (np.float32(0.0) if x >= -np.float32(lambd)
                                    and x <= np.float32(lambd) else g)
    return lambda g, x, lambd: 0.0 if x >= -lambd and x <= lambd else g


overload(fmath.hardshrink_backward)(_shrink_backward)
overload(fmath.softshrink_backward)(_shrink_backward)


@overload(fmath.leaky_relu_backward)
def _leaky_relu_backward(g, x, slope):
    return lambda g, x, slope: g if x > 0.0 else g * slope


@overload(fmath.pow)
def _pow(x, p):
    return lambda x, p: x ** p


@overload(fmath.pow_scalar)
def _pow_scalar(x, p):
    # in x's type: a float64 1.0 would compute a float32 kernel's reciprocals in float64
    one = np.float32(1.0) if x == types.float32 else np.float64(1.0)

    def impl(x, p):
        # torch's pow by a Scalar: sqrt, rsqrt, reciprocal and products for these exponents
        if p == 0.5:
            return np.sqrt(x)
        if p == -0.5:
            return one / np.sqrt(x)
        if p == -1.0:
            return one / x
        if p == 2.0:
            return x * x
        if p == 3.0:
            return x * x * x
        if p == -2.0:
            return one / (x * x)
        return x ** p
    return impl


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


# Note [digamma and polygamma in kernels]
# lgamma's derivative is digamma, digamma's polygamma(1, .), polygamma(n, .)'s polygamma(n + 1, .).
# Neither Numba nor libm has these, so they are written here after Cephes, as scipy.special (the
# forwards) computes them, with torch's values at the poles and infinities:
# - digamma: the reflection formula below 0 (pi / tan of the fractional part, which is exact), the
#   recurrence up to x >= 10 and the asymptotic series there; near its two roots (1.46 and -0.50) a
#   Taylor series about the root instead, which keeps the relative precision where the value is 0.
# - polygamma(n >= 1, x) = (-1)^(n+1) n! zeta(n + 1, x), the Hurwitz zeta by Euler-Maclaurin
#   summation (nine terms and more until the argument passes 9, then the Bernoulli tail). Below 0
#   the sum starts at x, so its time grows with |x| (as scipy's and torch's do).
# float32 values go through the float64 functions and are rounded once: a few ulp at most.
# tests/test_elementwise_gamma.py checks them against scipy.special. Compiled with NumPy's error
# model, as the kernels that call them: a division by zero is inf or NaN, not an exception.
_njit_numpy_errors = njit(error_model="numpy")
_MACHEP = 1.11022302462515654042e-16
_EPSILON = 2.220446049250313e-16
_EULER = 0.57721566490153286061
# the Bernoulli tail's denominators, (2k)! / B_2k
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)
# digamma's roots and its (rounded) values there, as scipy's
_POS_ROOT, _POS_ROOT_VALUE = 1.4616321449683623, -9.2412655217294275e-17
_NEG_ROOT, _NEG_ROOT_VALUE = -0.504083008264455409, 7.2897639029768949e-17
# digamma(x) ~ log(x) - 1/2x - z P(z), z = 1/x^2: P's coefficients, highest power first
_PSI_ASYMPTOTIC = (8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
                   -4.16666666666666666667e-3, 3.96825396825396825397e-3,
                   -8.33333333333333333333e-3, 8.33333333333333333333e-2)


@_njit_numpy_errors
def _hurwitz_zeta(s, q):
    """sum over k >= 0 of (q + k)^-s, for an integral s >= 2 (Cephes' zeta)."""
    if q <= 0.0 and (q == -math.inf or q == np.floor(q)):
        return math.inf
    if q > 1e8:
        # the two leading terms of the expansion at large q (DLMF 25.11.43), as scipy: the sum
        # below would underflow term by term
        return (1.0 / (s - 1.0) + 0.5 / q) * q ** (1.0 - s)
    total = q ** -s
    a = q
    b = 0.0
    i = 0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = a ** -s
        total += b
        if -_MACHEP * total < b < _MACHEP * total:
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


@_njit_numpy_errors
def _digamma_near_root(x, root, value):
    """digamma by its Taylor series about a root: sum of (-1)^(n+1) zeta(n + 1, root) (x-root)^n."""
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


@_njit_numpy_errors
def _digamma_positive(x):
    if abs(x - _POS_ROOT) < 0.3:
        return _digamma_near_root(x, _POS_ROOT, _POS_ROOT_VALUE)
    if x <= 10.0 and x == np.floor(x):
        total = -_EULER                    # digamma(n) = 1 + 1/2 + ... + 1/(n-1) - gamma
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
    return math.log(x) - 0.5 / x - series - shift


@_njit_numpy_errors
def _digamma(x):
    if x == 0.0:
        return math.copysign(math.inf, -x)     # -inf at 0.0, inf at -0.0, as torch and scipy
    if x < 0.0:
        if x == -math.inf or x == np.floor(x):
            return math.nan
        if abs(x - _NEG_ROOT) < 0.3:
            return _digamma_near_root(x, _NEG_ROOT, _NEG_ROOT_VALUE)
        # pi / tan(pi x) from x's fractional part: pi * x itself would round for |x| > 1
        return _digamma_positive(1.0 - x) - math.pi / math.tan(math.pi * (x - np.trunc(x)))
    return _digamma_positive(x)


@_njit_numpy_errors
def _polygamma(n, x):
    if n == 0:
        return _digamma(x)
    if n == 1 and abs(x) == math.inf:
        return 0.0 if x > 0.0 else math.nan    # torch's trigamma: 0 at inf, NaN at -inf
    if x == math.inf:
        return math.nan                        # torch's zeta: 0 * inf in its Bernoulli tail
    factorial = 1.0
    for k in range(2, n + 1):
        factorial *= k
    sign = 1.0 if n % 2 == 1 else -1.0
    return sign * factorial * _hurwitz_zeta(n + 1.0, x)


@overload(fmath.digamma)
def _digamma_overload(x):
    if x == types.float32:
        return lambda x: np.float32(_digamma(np.float64(x)))
    return lambda x: _digamma(x)


@overload(fmath.polygamma)
def _polygamma_overload(n, x):
    # n arrives as a float attribute (kernels read attributes as floats)
    if x == types.float32:
        return lambda n, x: np.float32(_polygamma(int(n), np.float64(x)))
    return lambda n, x: _polygamma(int(n), x)
