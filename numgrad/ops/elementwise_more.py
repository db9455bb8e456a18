"""More elementwise ops, as torch has them: rounding (floor, ceil, round, trunc, frac), sgn, log10,
exp2, the hyperbolic and inverse trigonometric functions, logit, hypot, logaddexp, lerp, addcmul,
addcdiv, clamp_min, clamp_max and nan_to_num, with their in-place forms.

Written as elementwise.py writes its ops: a NumPy forward and one derivative formula per input, in
arithmetic and `fmath` (F), which is at once the Numba kernel and the differentiable VJP. Integer
inputs follow torch: rounding keeps them (a copy), the transcendental ops promote them to the
default float dtype.
"""
import math

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from . import fmath as F
from .fused import fma
from .apply import apply, show_attributes
from ..creation import as_tensor
from .elementwise import (_binary, _float_input, _promoted, _quiet, _tensor_result_type, _unary,
                          _unary_fn, constant, d_identity, d_zero, operands, refuse_bool_clamp,
                          torch_maximum, torch_minimum, torch_sign)
from .registry import OpDef
from .tensor_operands import tensor_operand
from .untracked import untracked

_LN2 = math.log(2.0)
_NAN = math.nan
_INF = math.inf


# ---- formulas -----------------------------------------------------------------------------------
# torch's constant for ln 10 is one ulp below math.log(10) in float64
def d_log10(g, x): return g / F.mul_scalar(x, 2.3025850929940456)
def d_exp2(g, out): return F.mul_scalar(g * out, _LN2)
def d_sinh(g, x): return g * F.cosh(x)
def d_cosh(g, x): return g * F.sinh(x)
# torch multiplies by rsqrt (1 / sqrt, rounded) where these divide by the root
def d_asin(g, x): return g * (1.0 / F.sqrt(1.0 - x * x))
def d_acos(g, x): return g * -(1.0 / F.sqrt(1.0 - x * x))
def d_asinh(g, x): return g * (1.0 / F.sqrt(x * x + 1.0))
def d_acosh(g, x): return g * (1.0 / F.sqrt(x * x - 1.0))
def d_atanh(g, x): return g / (1.0 - x * x)


# torch's logit_backward: without eps (eps < 0) NaN outside [0, 1], g / 0 at 0 and 1 (at -0.0
# too: +0.0 there, or the sign would flip); with it, zero where the input was clamped to
# [eps, 1 - eps]
def d_logit(g, x, eps):
    return F.select(eps < 0.0,
                    F.select((x < 0.0) | (x > 1.0), _NAN,
                             g / (F.select(x == 0.0, 0.0, x) * (1.0 - x))),
                    F.select((x < eps) | (x > 1.0 - eps), 0.0, g / (x * (1.0 - x))))


def d_hypot_x(g, x, out): return g * x / out
def d_hypot_y(g, y, out): return g * y / out
def d_logaddexp_x(g, x, y): return g / (1.0 + F.exp(y - x))
def d_logaddexp_y(g, x, y): return g / (1.0 + F.exp(x - y))
def d_lerp_start(g, weight): return g * (1.0 - weight)
def d_lerp_end(g, weight): return g * weight
def d_lerp_tensor_start(g, z): return g * (1.0 - z)
def d_lerp_tensor_end(g, z): return g * z
def d_lerp_tensor_weight(g, x, y): return g * (y - x)
# addcmul's and addcdiv's input gets g: its own function here, as kernels/table.py imports an
# op's formulas from the module of its first one
def d_input(g): return g
# grouped as torch's derivatives.yaml groups them: float32 gradients round as there
def d_addcmul_y(g, z, value): return g * F.mul_scalar(z, value)
def d_addcmul_z(g, y, value): return g * F.mul_scalar(y, value)
def d_addcdiv_y(g, z, value): return g * (value / z)
def d_addcdiv_z(g, y, z, value): return -g * (value * y / (z * z))
def d_clamp_min(g, x, lo): return F.select(x >= lo, g, 0.0)
def d_clamp_max(g, x, hi): return F.select(x <= hi, g, 0.0)
def d_clamp_min_x(g, x, y): return F.select(x >= y, g, 0.0)
def d_clamp_min_y(g, x, y): return F.select(x < y, g, 0.0)
def d_clamp_max_x(g, x, y): return F.select(x <= y, g, 0.0)
def d_clamp_max_y(g, x, y): return F.select(x > y, g, 0.0)
# torch multiplies by isfinite(x) (not a masked zero): an inf or nan upstream gradient at a
# non-finite input gives nan, as there (a comparison tests finiteness without a warning)
def d_nan_to_num(g, x): return F.select(abs(x) < _INF, g, g * 0.0)


# ---- forwards -----------------------------------------------------------------------------------
@_quiet
def _logit(x, eps):
    if eps >= 0:
        x = np.clip(x, x.dtype.type(eps), x.dtype.type(1 - eps))
    return np.log(x / (1 - x))


def _lerp_values(x, y, w):
    """torch's lerp: from the nearer end, so that weight 1 gives exactly `end`, each side one
    fused multiply-add."""
    step = y - x
    return np.where(np.abs(w) < 0.5, fma(w, step, x), fma(-step, 1 - w, y))


def _lerp(x, y, weight):
    return _lerp_values(x, y, x.dtype.type(weight))


def _addcmul(x, y, z, value):
    return fma(x.dtype.type(value) * y, z, x)    # torch's kernel: scaled first, then fused


@_quiet
def _addcdiv(x, y, z, value):
    return x + x.dtype.type(value) * y / z


# ---- the ops ------------------------------------------------------------------------------------
# Rounding is piecewise constant: zero derivatives, as torch records them.
FLOOR = _unary("floor", np.floor, d_zero)
CEIL = _unary("ceil", np.ceil, d_zero)
ROUND = _unary("round", np.round, d_zero)       # half to even, as torch's nearbyint
TRUNC = _unary("trunc", np.trunc, d_zero)
FRAC = _unary("frac", lambda x: x - np.trunc(x), d_identity)
SGN = _unary("sgn", torch_sign, d_zero)
# the argument of a real number: pi below 0, else 0 (-0.0 and inf too), NaN kept; torch's node
ANGLE = _unary("angle", lambda x: np.where(x != x, x, np.where(x < 0, x.dtype.type(math.pi),
                                                               x.dtype.type(0))), d_zero)
LOG10 = _unary("log10", _quiet(np.log10), d_log10)
EXP2 = _unary("exp2", np.exp2, d_exp2)
SINH = _unary("sinh", np.sinh, d_sinh)
COSH = _unary("cosh", np.cosh, d_cosh)
ASIN = _unary("asin", _quiet(np.arcsin), d_asin)
ACOS = _unary("acos", _quiet(np.arccos), d_acos)
ASINH = _unary("asinh", np.arcsinh, d_asinh)
ACOSH = _unary("acosh", _quiet(np.arccosh), d_acosh)
ATANH = _unary("atanh", _quiet(np.arctanh), d_atanh)
LOGIT = _unary("logit", _logit, d_logit, meta=lambda eps: ((), (eps,)))
HYPOT = _binary("hypot", np.hypot, d_hypot_x, d_hypot_y)
LOGADDEXP = _binary("logaddexp", np.logaddexp, d_logaddexp_x, d_logaddexp_y)
LERP = _binary("lerp", _lerp, d_lerp_start, d_lerp_end, meta=lambda weight: ((), (weight,)))
LERP_TENSOR = OpDef("lerp_tensor", _lerp_values, n_in=3, node_name="LerpBackward1",
                    grads=(d_lerp_tensor_start, d_lerp_tensor_end, d_lerp_tensor_weight),
                    saved_names=("self", "end", "weight"))
ADDCMUL = OpDef("addcmul", _addcmul, n_in=3, grads=(d_input, d_addcmul_y, d_addcmul_z),
                meta=lambda value: ((), (value,)), saved_names=("tensor1", "tensor2"))
ADDCDIV = OpDef("addcdiv", _addcdiv, n_in=3, grads=(d_input, d_addcdiv_y, d_addcdiv_z),
                meta=lambda value: ((), (value,)), saved_names=("tensor1", "tensor2"))
CLAMP_MIN = _unary("clamp_min", lambda x, lo: torch_maximum(x, x.dtype.type(lo)), d_clamp_min,
                   node_name="ClampMinBackward0", meta=lambda lo: ((), (lo,)))
CLAMP_MAX = _unary("clamp_max", lambda x, hi: torch_minimum(x, x.dtype.type(hi)), d_clamp_max,
                   node_name="ClampMaxBackward0", meta=lambda hi: ((), (hi,)))
CLAMP_MIN_TENSOR = _binary("clamp_min_tensor", torch_maximum, d_clamp_min_x, d_clamp_min_y,
                           node_name="ClampMinBackward1", saved_names=("self", "min"))
CLAMP_MAX_TENSOR = _binary("clamp_max_tensor", torch_minimum, d_clamp_max_x, d_clamp_max_y,
                           node_name="ClampMaxBackward1", saved_names=("self", "max"))
NAN_TO_NUM = _unary("nan_to_num", lambda x, nan, posinf, neginf: np.nan_to_num(
    x, nan=nan, posinf=posinf, neginf=neginf), d_nan_to_num, node_name="NanToNumBackward0")


# ---- public functions ---------------------------------------------------------------------------
def _is_float(x):
    return dtypes.is_floating(x._data.dtype)


def _rounding(op):
    def fn(x):
        if x._data.dtype == np.bool_:
            raise NotImplementedError(f'"{op.name}_vml_cpu" not implemented for \'Bool\'')
        if not _is_float(x):
            return untracked(np.copy, x._data)      # integers are already whole: torch's copy
        return apply(op, (x,))
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = f"Elementwise {op.name}; zero derivative ({op.node_name}); integers unchanged."
    return fn


def angle(x):
    """The argument of each element as a complex number (AngleBackward0, zero gradient); integers
    and bools give the default float type."""
    return apply(ANGLE, (x if _is_float(x) else _float_input(x),))


floor = _rounding(FLOOR)
ceil = _rounding(CEIL)
trunc = _rounding(TRUNC)
fix = trunc


@_quiet      # a huge value overflows to inf, as in torch
def _round_decimals(x, decimals):
    """torch's: the scaled value rounded half to even, scaled back, in x's dtype (so 2.675 to two
    decimals is 2.68 in float64, where NumPy's np.round gives 2.67)."""
    scale = x.dtype.type(10.0 ** abs(decimals))
    if decimals > 0:
        return np.round(x * scale) / scale
    return np.round(x / scale) * scale


# With decimals given (even 0), torch records the other overload: RoundBackward1.
ROUND_DECIMALS = _unary("round_decimals", _round_decimals, d_zero, node_name="RoundBackward1")


def round(x, decimals=None):
    """Rounded half to even, as torch; with `decimals`, to that many decimal places (negative:
    to tens, hundreds, ...). Zero derivative."""
    if decimals is None:
        return _round(x)
    if not _is_float(x):
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{dtypes.scalar_type_name(x._data.dtype)}'")
    return apply(ROUND_DECIMALS, (x,), {"decimals": int(decimals)})


_round = _rounding(ROUND)


def frac(x):
    """x - trunc(x), with x's sign; the derivative is the identity (FracBackward0)."""
    if not _is_float(x):
        raise NotImplementedError(f'"frac_cpu" not implemented for '
                                  f"'{dtypes.scalar_type_name(x._data.dtype)}'")
    return apply(FRAC, (x,))


def sgn(x):
    """sign, for real tensors (keeps integer dtypes; a bool tensor is its own sign); zero
    derivative (SgnBackward0)."""
    if x._data.dtype == np.bool_:
        return untracked(np.copy, x._data)
    return apply(SGN, (x,))


log10 = _unary_fn(LOG10)
exp2 = _unary_fn(EXP2)
sinh = _unary_fn(SINH)
cosh = _unary_fn(COSH)
asin = arcsin = _unary_fn(ASIN)
acos = arccos = _unary_fn(ACOS)
asinh = arcsinh = _unary_fn(ASINH)
acosh = arccosh = _unary_fn(ACOSH)
atanh = arctanh = _unary_fn(ATANH)


def logit(x, eps=None):
    """log(x / (1 - x)), with x first clamped to [eps, 1 - eps] when eps is given."""
    x = x if _is_float(x) else _float_input(x)
    out = apply(LOGIT, (x,), {"eps": -1.0 if eps is None else float(eps)})
    # torch's eps is a float argument (0 shows as 0.0), None when not given
    show_attributes(out, eps=None if eps is None else float(eps))
    return out


def _floating_only(x, y, kernel):
    """Two operands promoted as torch does, refused (torch has no integer kernel) unless float."""
    a, b = operands(x, y)
    dtype = (a if isinstance(a, np.ndarray) else a._data).dtype
    if not dtypes.is_floating(dtype):
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{dtypes.scalar_type_name(dtype)}'")
    return a, b


@tensor_operand()
def hypot(input, other):
    """sqrt(input**2 + other**2) without overflow."""
    return apply(HYPOT, _floating_only(input, other, "hypot_cpu"))


@tensor_operand()
def logaddexp(input, other):
    """log(exp(input) + exp(other)) without overflow."""
    return apply(LOGADDEXP, _floating_only(input, other, "logaddexp_cpu"))


# dtypes as torch's messages from C++ name them (caffe2::TypeMeta)
_TYPE_META_NAMES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double",
                    np.dtype(np.int64): "long int", np.dtype(np.int32): "int",
                    np.dtype(np.bool_): "bool"}


def _three(x, y, z):
    """Three operands of one dtype, torch's promotion over all three at once (pairwise promotion
    lets two 0-d float64 tensors beside a float32 one make float64; torch gives float32)."""
    values = [as_tensor(v) if isinstance(v, (list, tuple, np.ndarray)) else v for v in (x, y, z)]
    dtype = _result_dtype(values)
    return tuple((_promoted(v, dtype) if v._data.dtype != dtype else v)
                 if isinstance(v, Tensor) else constant(v, dtype) for v in values)


def _result_dtype(values):
    """torch.result_type of tensors and Python scalars: the dimensioned tensors' promotion, then
    the 0-d tensors' and then the scalars', each counting only where its category is higher."""
    result = None
    for zero_d in (False, True):
        group = [v._data.dtype for v in values
                 if isinstance(v, Tensor) and (v._data.ndim == 0) == zero_d]
        if not group:
            continue
        merged = group[0]
        for dtype in group[1:]:
            merged = dtypes.promote(merged, dtype)
        result = merged if result is None else _tensor_result_type(result, 1, merged, 0)
    for value in values:
        if not isinstance(value, Tensor):
            result = dtypes.promote_scalar(result, value)
    return result


def _data(v):
    return v if isinstance(v, np.ndarray) else v._data


def lerp(start, end, weight):
    """start + weight * (end - start), computed from the nearer end as torch does. A tensor
    weight is differentiable too (LerpBackward1)."""
    for name, operand in (("end", end), ("weight", weight)):
        # torch promotes nothing here: tensors of another dtype are refused (a 0-d weight is read
        # as a number)
        if (isinstance(start, Tensor) and isinstance(operand, Tensor)
                and operand._data.dtype != start._data.dtype
                and (name == "end" or operand._data.ndim)):
            raise RuntimeError(f"expected dtype {_TYPE_META_NAMES[start._data.dtype]} for `{name}` "
                               f"but got dtype {_TYPE_META_NAMES[operand._data.dtype]}")
    if isinstance(weight, Tensor):
        x, y, z = _three(start, end, weight)
    else:
        x, y = operands(start, end)
    if not _is_float(x):
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{dtypes.scalar_type_name(x._data.dtype)}'")
    if isinstance(weight, Tensor):
        return apply(LERP_TENSOR, (x, y, z))
    out = apply(LERP, (x, y), {"weight": float(weight)})
    show_attributes(out, weight=weight.item() if isinstance(weight, np.generic) else weight)
    return out


@tensor_operand("tensor1", "tensor2")
def addcmul(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 * tensor2."""
    x, y, z = _three(input, tensor1, tensor2)
    if x._data.dtype == np.bool_:
        raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")
    if not _is_float(x):
        # torch's integer kernel takes value as an integer: a float one truncated (0.5 adds 0)
        return untracked(lambda a, b, c: a + int(value) * b * c, x._data, _data(y), _data(z))
    out = apply(ADDCMUL, (x, y, z), {"value": float(value)})
    show_attributes(out, value=value)
    return out


@tensor_operand("tensor1", "tensor2")
def addcdiv(input, tensor1, tensor2, *, value=1):
    """input + value * tensor1 / tensor2 (floating tensors only, as torch)."""
    x, y, z = _three(input, tensor1, tensor2)
    # torch refuses integer (or bool) tensor1 and tensor2 whatever input is
    divides_floats = any(isinstance(t, Tensor) and _is_float(t) for t in (tensor1, tensor2))
    if not _is_float(x) or not divides_floats:
        # torch's wording, its double space included
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  "
                           "release addcdiv will perform a true division of tensor1 and tensor2. "
                           "The historic addcdiv behavior can be implemented as (input + value * "
                           "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and "
                           "as (input + value * tensor1 / tensor2) for float inputs. The future "
                           "addcdiv behavior is just the latter implementation: (input + value * "
                           "tensor1 / tensor2), for all dtypes.")
    out = apply(ADDCDIV, (x, y, z), {"value": float(value)})
    show_attributes(out, value=value)
    return out


def _clamp_one(x, bound, op, tensor_op, np_fn, torch_name):
    if isinstance(bound, Tensor):
        a, b = operands(x, bound)
        if not _is_float(a):
            return untracked(np_fn, a._data, b._data)
        return apply(tensor_op, (a, b))
    if isinstance(bound, np.generic):        # a Python number to torch, as to clamp
        bound = bound.item()
    refuse_bool_clamp(x, (bound,), f"{op.name}_scalar_cpu")
    if not _is_float(x):
        if not isinstance(bound, float):
            return untracked(np_fn, x._data, bound)
        x = _float_input(x)
    out = apply(op, (x,), {op.attr_names[0]: float(bound)})
    show_attributes(out, **{torch_name: bound})
    return out


def clamp_min(x, min):
    """max(x, min), NaN kept; the gradient goes to x where x >= min (to a tensor min elsewhere)."""
    return _clamp_one(x, min, CLAMP_MIN, CLAMP_MIN_TENSOR, np.maximum, "min")


def clamp_max(x, max):
    """min(x, max), NaN kept; the gradient goes to x where x <= max (to a tensor max elsewhere)."""
    return _clamp_one(x, max, CLAMP_MAX, CLAMP_MAX_TENSOR, np.minimum, "max")


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced by nan, posinf and neginf (by default the dtype's largest and
    smallest finite values)."""
    if not _is_float(x):
        return untracked(np.copy, x._data)
    info = np.finfo(x._data.dtype)
    return apply(NAN_TO_NUM, (x,), {"nan": float(nan),
                                    "posinf": float(info.max if posinf is None else posinf),
                                    "neginf": float(info.min if neginf is None else neginf)})


PUBLIC = ("floor", "ceil", "round", "trunc", "fix", "frac", "sgn", "log10", "exp2", "sinh", "cosh",
          "asin", "acos", "asinh", "acosh", "atanh", "arcsin", "arccos", "arcsinh", "arccosh",
          "arctanh", "logit", "hypot", "logaddexp", "lerp", "addcmul", "addcdiv", "clamp_min",
          "clamp_max", "nan_to_num")
METHODS = PUBLIC
# In-place forms: whether the op saves its input (then the in-place write must not clobber it)
INPLACE = {"floor_": (floor, False), "ceil_": (ceil, False), "round_": (round, False),
           "trunc_": (trunc, False), "fix_": (trunc, False), "frac_": (frac, False),
           "sgn_": (sgn, False), "log10_": (log10, True), "exp2_": (exp2, False),
           "sinh_": (sinh, True), "cosh_": (cosh, True), "asin_": (asin, True),
           "acos_": (acos, True), "asinh_": (asinh, True), "acosh_": (acosh, True),
           "atanh_": (atanh, True), "arcsin_": (asin, True), "arccos_": (acos, True),
           "arcsinh_": (asinh, True), "arccosh_": (acosh, True), "arctanh_": (atanh, True),
           "logit_": (logit, True), "hypot_": (hypot, True), "lerp_": (lerp, True),
           "addcmul_": (addcmul, False), "addcdiv_": (addcdiv, False),
           "clamp_min_": (clamp_min, True), "clamp_max_": (clamp_max, True),
           "nan_to_num_": (nan_to_num, True)}
