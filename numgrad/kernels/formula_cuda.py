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

SIM = bool(config.ENABLE_CUDASIM)


class _SimMath:
    """math's names over NumPy's functions (simulator only)."""
    cos, sin, tan, exp, expm1, log, log1p, log2, sqrt, tanh = (
        np.cos, np.sin, np.tan, np.exp, np.expm1, np.log, np.log1p, np.log2, np.sqrt, np.tanh)
    atan, atan2, pow = np.arctan, np.arctan2, np.power
    erf = staticmethod(math.erf)      # defined everywhere: no domain error to mask


_m = _SimMath if SIM else math
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
def pow(x, p):
    return _m.pow(x, p)


@_device
def sign(x):
    # sign(nan) is nan, as in NumPy and torch
    return 1.0 if x > 0 else (-1.0 if x < 0 else x * 0.0 if x == x else x)


@_device
def select(cond, a, b):
    return a if cond else b


@_device
def maximum(x, y):
    # NaN wins, as in np.maximum
    return x if x > y or x != x else y


@_device
def minimum(x, y):
    return x if x < y or x != x else y


@_device
def sigmoid(x):
    # 1 / (1 + exp(-x)) without overflow: exp of a non-positive number only
    e = _m.exp(-x if x >= 0 else x)
    return 1.0 / (1.0 + e) if x >= 0 else e / (1.0 + e)
