"""The functions derivative formulas may call.

A formula such as ``g * cos(x)`` runs in two worlds: on Tensors, where these functions call
numgrad ops (so the result is differentiable, for create_graph), and inside Numba kernels, where
`numgrad.kernels.formula` registers scalar implementations of the same names. Nothing here imports
Numba.
"""
from ..tensor import Tensor
from . import elementwise as _E, fused


def cos(x):
    return _E.cos(x)


def sin(x):
    return _E.sin(x)


def exp(x):
    return _E.exp(x)


def log(x):
    return _E.log(x)


def sqrt(x):
    return _E.sqrt(x)


# sinh and cosh are each other's derivative: written from exp, sinh(x) would lose its relative
# precision near 0. elementwise_more imports this module, so they are looked up at call time.
def sinh(x):
    from . import elementwise_more
    return elementwise_more.sinh(x)


def cosh(x):
    from . import elementwise_more
    return elementwise_more.cosh(x)


def sign(x):
    """torch's formulas take sgn (SgnBackward0), its sign of any dtype."""
    from . import elementwise_more
    return elementwise_more.sgn(x)


def erf(x):
    return _E.erf(x)


# torch's C++ formulas scale by or subtract a Python number through the Scalar overloads
# (MulBackward1, SubBackward1), where Python's operators on a tensor give MulBackward0
def mul_scalar(x, s):
    return _E.mul_scalar(x, s)


def sub_scalar(x, s):
    return _E.sub_scalar(x, s)


def fma(a, b, c):
    """a * b + c rounded once, as torch's compiled kernels compute the formulas that call it
    (tanh_backward's 1 - out * out). On Tensors the product and the sum, which differentiate the
    same; on NumPy arrays (a backward op's forward: Note [backward ops of their own] in
    elementwise.py) the exact fused result."""
    if any(isinstance(v, Tensor) for v in (a, b, c)):
        return a * b + c
    return fused.fma(a, b, c)


def select(cond, a, b):
    """a where cond else b: cond is never differentiated. A Python bool (a test on a float
    attribute) picks a branch outright."""
    if isinstance(cond, bool):
        return a if cond else b
    return _E.where(cond, a, b)


# torch's backward ops that read their input with derivative zero: Note [backward ops that read
# their input] in elementwise.py. Their kernels compute the select alone.
def threshold_backward(g, x, threshold):
    """g where x > threshold, else 0 (a NaN x passes g): relu's and threshold's backward."""
    return _E.reads(select(x <= threshold, 0.0, g), x, "ThresholdBackwardBackward0", g)


def leaky_relu_backward(g, x, slope):
    return _E.reads(select(x > 0.0, g, g * slope), x, "LeakyReluBackwardBackward0", g)


def hardtanh_backward(g, x, lo, hi):
    """g strictly between lo and hi, else 0 (a NaN x passes g)."""
    return _E.reads(select((x <= lo) | (x >= hi), 0.0, g), x, "HardtanhBackwardBackward0", g)


def hardshrink_backward(g, x, lambd):
    """0 where -lambd <= x <= lambd, else g (a NaN x passes g)."""
    return _E.reads(select(_within(x, lambd), 0.0, g), x, "HardshrinkBackwardBackward0", g)


def softshrink_backward(g, x, lambd):
    """The same mask as hardshrink's, on a node of its own name."""
    return _E.reads(select(_within(x, lambd), 0.0, g), x, "SoftshrinkBackwardBackward0", g)


def _within(x, lambd):
    return (x >= -lambd) & (x <= lambd)


def pow(x, p):
    return _E.pow(x, p)


def pow_scalar(x, p):
    """x ** p for a float attribute p, by torch's kernel for a Scalar exponent (sqrt for 0.5,
    1 / sqrt for -0.5, products for 2 and 3: the signs of zeros and the roundings are its)."""
    return _E.pow(x, p)


def floor_div(x, y):
    """x / y rounded down, by torch's algorithm (its remainder's derivative uses it)."""
    return _E.div(x, y, rounding_mode="floor")


def trunc_div(x, y):
    return _E.div(x, y, rounding_mode="trunc")


# digamma and polygamma are the gamma family's ops, which import this module: looked up at call
# time. polygamma's order n may come as a float (kernels and the create_graph VJP read attributes
# as floats).
def digamma(x):
    from . import elementwise_gamma
    return elementwise_gamma.digamma(x)


def polygamma(n, x):
    from . import elementwise_gamma
    return elementwise_gamma.polygamma(int(n), x)
