"""Special elementwise ops, as torch has them: sinc, xlogy, logaddexp2, copysign, fmax, fmin,
deg2rad, rad2deg, erfc, erfinv and nextafter (differentiable), float_power (pow in float64),
signbit and heaviside (no gradient), torch's alias names (multiply, subtract, divide, true_divide,
not_equal, greater_equal, positive, Tensor.where) and the in-place forms torch has.

Written as elementwise.py writes its ops: a NumPy forward and one derivative formula per input, in
arithmetic and `fmath` (F), which is at once the Numba kernel and the differentiable VJP; the CUDA
forwards are in numgrad/cuda/formulas.py. Dtypes follow torch: the transcendental ops promote
integer inputs to the default float dtype, fmax and fmin keep them, logaddexp2 and nextafter
refuse them; in-place forms refuse a result their tensor's dtype cannot hold.
"""
import math

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from . import fmath as F
from .apply import apply
from .elementwise import (_binary, _float_operands, _quiet, _unary, _unary_fn, cast, d_zero, div,
                          ge, mul, ne, neg, operands, pow, rpow, special_fn, sub)
from .elementwise import where as _where
from .inplace import apply_inplace
from .tensor_operands import tensor_operand
from .untracked import untracked

_PI = math.pi
_LN2 = math.log(2.0)
_DEG_TO_RAD = math.pi / 180.0
_RAD_TO_DEG = 180.0 / math.pi
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_HALF_SQRT_PI = math.sqrt(math.pi) / 2.0
_SQRT_2PI = math.sqrt(2.0 * math.pi)


# ---- formulas -----------------------------------------------------------------------------------
# torch's sinc_backward: zero where x * x * pi is 0 (the limit at 0, and where x * x underflows)
def d_sinc(g, x):
    x_pi = F.mul_scalar(x, _PI)
    return F.select(x * x == 0.0, 0.0,
                    g * ((x_pi * F.cos(x_pi) - F.sin(x_pi)) / F.mul_scalar(x * x, _PI)))


# torch's: xlogy(g, y) (0 where g is 0, unless y is NaN), masked to 0 where x == 0 and y <= 0
def d_xlogy_x(g, x, y):
    return F.select((x == 0.0) & (y <= 0.0), 0.0,
                    F.select((g == 0.0) & (y == y), 0.0, g * F.log(y)))


def d_xlogy_y(g, x, y): return g * x / y
def d_logaddexp2_x(g, x, y): return g / (1.0 + F.exp((y - x) * _LN2))
def d_logaddexp2_y(g, x, y): return g / (1.0 + F.exp((x - y) * _LN2))
# the sign flip, out / x, zero where x is 0 (torch's copysign_tensor_self_backward): g times the
# masked ratio, so that differentiated again only the masked element is NaN (0 / 0), not g
def d_copysign_x(g, x, out): return g * F.select(x == 0.0, 0.0, out / x)
# fmax and fmin: the gradient goes to the side that is the result, to x at ties (as torch)
def d_fmax_x(g, x, y): return F.select((x >= y) | (y != y), g, 0.0)
def d_fmax_y(g, x, y): return F.select((x >= y) | (y != y), 0.0, g)
def d_fmin_x(g, x, y): return F.select((x <= y) | (y != y), g, 0.0)
def d_fmin_y(g, x, y): return F.select((x <= y) | (y != y), 0.0, g)
def d_deg2rad(g): return g * _DEG_TO_RAD
def d_rad2deg(g): return g * _RAD_TO_DEG
# grouped as torch's (erf's note on x * x in elementwise.py)
def d_erfc(g, x): return F.mul_scalar(F.exp(-(x * x)), -_TWO_OVER_SQRT_PI) * g
def d_erfinv(g, out): return F.mul_scalar(F.exp(out * out), _HALF_SQRT_PI) * g
# torch.special's entr, log_ndtr and ndtri, term for term: entr's is NaN below 0 and inf at 0
def d_entr(g, x): return g * -(1.0 + F.log(x))
def d_log_ndtr(g, x, out): return g / _SQRT_2PI * F.exp(-(out + x * x / 2.0))
def d_ndtri(g, out): return g * _SQRT_2PI * F.exp(out * out / 2.0)
# torch passes g to nextafter's x except where x == y (the result is then x's value, y's own)
def d_nextafter_x(g, x, y): return F.select(x == y, 0.0, g)


# ---- forwards -----------------------------------------------------------------------------------
@_quiet
def _sinc(x):
    px = x.dtype.type(_PI) * x
    return np.where(x == 0, x.dtype.type(1), np.sin(px) / px)


@_quiet
def _xlogy(x, y):
    # 0 where x is 0 (even where log(y) is infinite), unless y is NaN. torch takes a single y
    # (a number, a 0-d tensor) through C's log, rounded once; NumPy's float32 log is not
    log_y = np.log(y.astype(np.float64)).astype(y.dtype) if y.size == 1 else np.log(y)
    return np.where((x == 0) & (y == y), x.dtype.type(0), x * log_y)


def _scaled(factor):
    return lambda x: x * x.dtype.type(factor)


def _heaviside(x, values):
    # torch's: values where x is 0, else x > 0 (so NaN gives 0, where NumPy's heaviside gives NaN)
    return np.where(x == 0, values, x > 0).astype(x.dtype)


# ---- the ops ------------------------------------------------------------------------------------
SINC = _unary("sinc", _sinc, d_sinc)
XLOGY = _binary("xlogy", _xlogy, d_xlogy_x, d_xlogy_y)
# A Python scalar operand is a constant input (as `x * 2.0` has), under torch's node names.
XLOGY_SCALAR_SELF = _binary("xlogy_scalar_self", _xlogy, None, d_xlogy_y,
                            node_name="XlogyBackward1")
XLOGY_SCALAR_OTHER = _binary("xlogy_scalar_other", _xlogy, d_xlogy_x, None,
                             node_name="XlogyBackward2")
LOGADDEXP2 = _binary("logaddexp2", np.logaddexp2, d_logaddexp2_x, d_logaddexp2_y)
# torch gives the sign source a zero gradient
COPYSIGN = _binary("copysign", np.copysign, d_copysign_x, d_zero)
COPYSIGN_SCALAR = _binary("copysign_scalar", np.copysign, d_copysign_x, None,
                          node_name="CopysignBackward1")
FMAX = _binary("fmax", np.fmax, d_fmax_x, d_fmax_y)
FMIN = _binary("fmin", np.fmin, d_fmin_x, d_fmin_y)
DEG2RAD = _unary("deg2rad", _scaled(_DEG_TO_RAD), d_deg2rad, node_name="Deg2RadBackward0")
RAD2DEG = _unary("rad2deg", _scaled(_RAD_TO_DEG), d_rad2deg, node_name="Rad2DegBackward0")
ERFC = _unary("erfc", special_fn("erfc"), d_erfc)
ERFINV = _unary("erfinv", special_fn("erfinv"), d_erfinv)
NEXTAFTER = _binary("nextafter", np.nextafter, d_nextafter_x, d_zero)
# SciPy's values are torch's: entr(NaN) is NaN, log_ndtr exact in both tails, ndtri in the left
SPECIAL_ENTR = _unary("special_entr", special_fn("entr"), d_entr, node_name="SpecialEntrBackward0")
SPECIAL_LOG_NDTR = _unary("special_log_ndtr", special_fn("log_ndtr"), d_log_ndtr,
                          node_name="SpecialLogNdtrBackward0")
SPECIAL_NDTRI = _unary("special_ndtri", special_fn("ndtri"), d_ndtri,
                       node_name="SpecialNdtriBackward0")


# ---- public functions ---------------------------------------------------------------------------
def _dtype_of(v):
    return (v if isinstance(v, np.ndarray) else v._data).dtype


def _float_only(fn_name, a):
    """torch's refusal of integer and bool operands (the op has no such kernel)."""
    dtype = _dtype_of(a)
    if not dtypes.is_floating(dtype):
        name = dtypes.scalar_type_name(dtype)
        raise NotImplementedError(f'"{fn_name}_cpu" not implemented for \'{name}\'')


sinc = _unary_fn(SINC)
deg2rad = _unary_fn(DEG2RAD)
rad2deg = _unary_fn(RAD2DEG)
erfc = _unary_fn(ERFC)
erfinv = _unary_fn(ERFINV)
special_entr = _unary_fn(SPECIAL_ENTR)
special_log_ndtr = _unary_fn(SPECIAL_LOG_NDTR)
special_ndtri = _unary_fn(SPECIAL_NDTRI)


def xlogy(input, other):
    """input * log(other), 0 where input is 0 (unless other is NaN). Either may be a Python
    scalar (XlogyBackward1 / XlogyBackward2, as torch names those nodes)."""
    a, b = _float_operands(input, other)
    if isinstance(a, np.ndarray):
        return apply(XLOGY_SCALAR_SELF, (a, b))
    if isinstance(b, np.ndarray):
        return apply(XLOGY_SCALAR_OTHER, (a, b))
    return apply(XLOGY, (a, b))


@tensor_operand()
def logaddexp2(input, other):
    """log2(2**input + 2**other) without overflow; floating tensors only, as torch."""
    a, b = operands(input, other)
    _float_only("logaddexp2", a)
    return apply(LOGADDEXP2, (a, b))


def copysign(input, other):
    """|input| with other's sign (-0.0 counts as negative); the result is floating. The gradient
    of input is the sign flip; other's is zero."""
    a, b = _float_operands(input, other)
    if isinstance(b, np.ndarray) and isinstance(a, Tensor):
        return apply(COPYSIGN_SCALAR, (a, b))
    return apply(COPYSIGN, (a, b))


def _nan_ignoring(op, np_fn):
    def fn(input, other):
        a, b = operands(input, other)
        if not dtypes.is_floating(_dtype_of(a)):
            return untracked(np_fn, a._data, b._data)      # integers and bools keep their dtype
        return apply(op, (a, b))
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = (f"Elementwise {op.name[1:]}imum that ignores NaN (NaN only where both are); "
                  f"the gradient goes to the side that is the result ({op.node_name}).")
    return tensor_operand()(fn)


fmax = _nan_ignoring(FMAX, np.fmax)
fmin = _nan_ignoring(FMIN, np.fmin)


@tensor_operand()
def nextafter(input, other):
    """The next floating value after input toward other (other itself where they are equal).
    As torch, input's gradient is g, zero where input == other; other's is zero."""
    a, b = operands(input, other)
    _float_only("nextafter", a)
    return apply(NEXTAFTER, (a, b))


def float_power(input, exponent):
    """input ** exponent computed in float64, whatever the operands' dtypes (torch's pow nodes,
    after a cast to float64)."""
    if not isinstance(input, Tensor):
        return rpow(cast(exponent, dtypes.float64), float(input))
    base = cast(input, dtypes.float64)
    if isinstance(exponent, Tensor):
        return pow(base, cast(exponent, dtypes.float64))
    # torch's float_power takes a Python exponent as a double: its node shows 2 as 2.0
    return pow(base, float(exponent))


def signbit(input):
    """Whether the sign bit is set (True for -0.0 and negative NaN): a bool tensor."""
    return untracked(np.signbit, input._data)


@tensor_operand("values")
def heaviside(input, values):
    """0 where input < 0, values where input == 0, 1 where input > 0 (NaN gives 0); the operands
    must have one dtype. torch records it without a derivative: a backward through it raises."""
    from .not_implemented import without_derivative
    if input._data.dtype != values._data.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return without_derivative("heaviside", lambda x, v: untracked(_heaviside, x._data, v._data),
                              input, values)


def true_divide(input, other):
    """input / other, true division (div without a rounding mode)."""
    return div(input, other)


def positive(input):
    """input itself (torch returns the same tensor); refused for bool tensors, as unary +."""
    if input._data.dtype == dtypes.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def where(self, condition, y):
    """Tensor.where(condition, y) is where(condition, self, y): a method only (numgrad.where is
    elementwise.where, condition first)."""
    return _where(condition, self, y)


multiply = mul
subtract = sub
divide = div
not_equal = ne
greater_equal = ge


# ---- in-place forms -----------------------------------------------------------------------------
def float_power_(self, exponent):
    """In-place float_power: only a float64 tensor can hold its result."""
    if self._data.dtype != dtypes.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{dtypes.scalar_type_name(self._data.dtype)} but the operation's "
                           f"result requires dtype Double")
    return apply_inplace(self, float_power, exponent)


PUBLIC = ("sinc", "xlogy", "logaddexp2", "float_power", "copysign", "fmax", "fmin", "deg2rad",
          "rad2deg", "erfc", "erfinv", "nextafter", "signbit", "heaviside", "multiply",
          "subtract", "divide", "true_divide", "not_equal", "greater_equal", "positive")
METHODS = PUBLIC + ("where", "float_power_")
# In-place forms: whether the op saves its input (then the in-place write must not clobber it).
# A result of a higher dtype category than the tensor's is refused by inplace.apply_inplace.
INPLACE = {"sinc_": (sinc, True), "xlogy_": (xlogy, True),
           "copysign_": (copysign, True),
           "deg2rad_": (deg2rad, False),
           "rad2deg_": (rad2deg, False),
           "erfc_": (erfc, True), "erfinv_": (erfinv, False),
           "nextafter_": (nextafter, True),
           "heaviside_": (heaviside, False),
           "multiply_": (mul, True), "subtract_": (sub, False),
           "divide_": (div, True),
           "true_divide_": (true_divide, True), "negative_": (neg, False)}
