"""Scalar implementations of `numgrad.ops.fmath`, so derivative formulas compile inside kernels."""
import math

import numpy as np
from numba.extending import overload

from ..ops import fmath


@overload(fmath.cos)
def _cos(x):
    return lambda x: math.cos(x)


@overload(fmath.sin)
def _sin(x):
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
    # sign(nan) is nan, as in NumPy and torch
    return lambda x: (1.0 if x > 0 else (-1.0 if x < 0 else x * 0.0 if x == x else x))


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
