"""A fused multiply-add in NumPy: a * b + c rounded once, as C's fma.

torch's CPU kernels for add and sub with alpha, addcmul and lerp compute with fma (its vectorised
loops call fmadd), so their float32 and float64 results differ from a multiply then an add in the
last bit of about a quarter of the elements. NumPy has no fma; this one is exact with plain
float64 arithmetic.

Note [fma by rounding to odd]
Rounding first to 53 bits and then to fewer can round twice the wrong way, at a tie the first
rounding made. Rounding the first step *to odd* (to the neighbour whose last bit is one, when the
value is not exact) never makes such a tie, so a second rounding to at most 51 bits is then the
correctly rounded result (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved
algorithms using rounding to odd", IEEE Trans. Computers, 2008).
- float32: a * b is exact in float64 (48 bits), their sum with c rounded to odd in float64, then
  to float32.
- float64: a * b = uh + ul exactly (Dekker's product), c + uh = th + tl exactly (Knuth's sum),
  then th + round_to_odd(tl + ul) rounded once (the paper's Algorithm 5.4).
Where these exact steps overflow or give zero (whose sign they lose), the plain a * b + c stands:
at infinities and NaNs they agree (but for a finite product overflowing beside an infinite c: that
c), and a zero result is exact either way. Dekker's product is inexact where it underflows (a * b
below 2 ** -969 in float64), as Veltkamp's split would overflow above 2 ** 995: a factor that
large trades 2 ** 54 with the other, which leaves the product as it was.
"""
import numpy as np

_SPLITTER = float(2 ** 27 + 1)      # Veltkamp's split of a float64 into two 26-bit halves
_SPLIT_LIMIT = 2.0 ** 995
_TRADE = 2.0 ** 54


def fma(a, b, c):
    """a * b + c with one rounding, in the result type of the float32 or float64 arrays (or
    numbers) a, b and c."""
    dtype = np.result_type(a, b, c)
    if dtype == np.float32:
        wide = np.multiply(a, b, dtype=np.float64)
        fused = _add_round_to_odd(wide, np.asarray(c, np.float64)).astype(np.float32)
    else:
        a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
        product_high, product_low = _two_product(a, b)
        sum_high, sum_low = _two_sum(c, product_high)
        with np.errstate(invalid="ignore"):
            fused = sum_high + _add_round_to_odd(sum_low, product_low)
    with np.errstate(invalid="ignore", over="ignore"):
        c = np.asarray(c, dtype)
        plain = np.where(np.isinf(c) & np.isfinite(a) & np.isfinite(b), c,
                         np.multiply(a, b, dtype=dtype) + c)
    return np.where(np.isfinite(fused) & (fused != 0), fused, plain)


def _two_sum(a, b):
    """s, e with s = a + b rounded and s + e = a + b exactly (Knuth)."""
    with np.errstate(invalid="ignore", over="ignore"):
        s = a + b
        b_part = s - a
        return s, (a - (s - b_part)) + (b - b_part)


def _split(a):
    with np.errstate(invalid="ignore", over="ignore"):
        t = _SPLITTER * a
        high = t - (t - a)
        return high, a - high


def _two_product(a, b):
    """p, e with p = a * b rounded and p + e = a * b exactly (Dekker), barring overflow and
    underflow."""
    a_big, b_big = abs(a) > _SPLIT_LIMIT, abs(b) > _SPLIT_LIMIT
    if a_big.any() or b_big.any():      # (both big overflow the product: plain a * b + c)
        a_down, b_down = a_big & ~b_big, b_big & ~a_big
        with np.errstate(over="ignore"):
            a = np.where(a_down, a / _TRADE, np.where(b_down, a * _TRADE, a))
            b = np.where(b_down, b / _TRADE, np.where(a_down, b * _TRADE, b))
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    with np.errstate(invalid="ignore", over="ignore"):
        p = a * b
        return p, ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low


def _add_round_to_odd(a, b):
    """a + b in float64 rounded to odd: when inexact, the neighbour of the exact sum whose last
    bit is one (Note [fma by rounding to odd])."""
    s, error = _two_sum(np.asarray(a), np.asarray(b))
    even = (s.view(np.uint64) & 1) == 0
    # a NaN error (from an infinite sum) is neither above nor below zero: that sum stays
    toward = np.where(error > 0, np.inf, -np.inf)
    return np.where(even & ((error > 0) | (error < 0)), np.nextafter(s, toward), s)
