"""Elementwise ops: NumPy forward and one derivative formula per input, side by side.

Formulas name what they need (g: upstream gradient; x, y, z: inputs; out: output; other names are
float attributes) and use only arithmetic and `fmath` (as F.name: the public functions below reuse
the plain names), so the same text is the Numba kernel and the
differentiable VJP. Broadcasting is the engine's business: a formula's result is summed back to its
input's shape.
"""
import math
import numbers

import numpy as np

from .. import dtypes
from ..creation import as_tensor
from ..tensor import Tensor, new_version_counter
from .apply import apply, show_attributes
from . import fmath as F
from .fused import fma
from .registry import OpDef
from .shape import keeps_layout
from .tensor_operands import tensor_operand
from .untracked import untracked

_LN2 = math.log(2.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_INF = math.inf


def _unary(name, forward, grad, **kw):
    return OpDef(name, forward, n_in=1, grads=(grad,), **kw)


def _binary(name, forward, grad_x, grad_y, **kw):
    return OpDef(name, forward, n_in=2, grads=(grad_x, grad_y), **kw)


# ---- formulas -----------------------------------------------------------------------------------
# Each multiplies in the order of torch's formula (derivatives.yaml, its CPU backward kernels):
# float32 gradients then round as torch's do.
def d_identity(g): return g
def d_negate(g): return -g
def d_zero(g): return 0.0
def d_mul_x(g, y): return g * y
def d_mul_y(g, x): return g * x
def d_div_x(g, y): return g / y
def d_div_y(g, x, y): return -g * ((x / y) / y)
# The pow formulas are torch's pow_backward term for term, g * (y * x^(y-1)): the same rounding,
# and under create_graph the same nodes (a Python number enters through the Scalar overloads)
def d_pow_x(g, x, y): return F.select(y == 0.0, 0.0, g * (y * F.pow(x, F.sub_scalar(y, 1.0))))
def d_pow_y(g, x, y, out): return g * F.select((x == 0.0) & (y >= 0.0), 0.0, out * F.log(x))
def d_pow_scalar(g, x, p):
    return F.select(p == 0.0, 0.0, g * F.mul_scalar(F.pow_scalar(x, p - 1.0), p))
def d_scale(g, s): return g * s
# add, sub and rsub with alpha: torch's maybe_multiply scales by alpha unless it is 1, through the
# Scalar overload (MulBackward1 under create_graph); sub and rsub negate first
def d_scaled(g, alpha): return F.select(alpha == 1.0, g, F.mul_scalar(g, alpha))
def d_negate_scaled(g, alpha): return F.select(alpha == 1.0, -g, F.mul_scalar(-g, alpha))
def d_divide(g, s): return g / s
# torch's pow_backward_exponent for a scalar base, term for term (its double backward too): it
# reads the exponent (masking 0 ** x for x >= 0, where out * log(0) is nan), so the exponent is
# saved and version-checked
def d_pow_base(g, x, out, base, log_base):
    scaled = F.mul_scalar(out, log_base)
    return g * F.select(base == 0.0, F.select(x >= 0.0, 0.0, scaled), scaled)
def d_exp(g, out): return g * out
def d_expm1(g, out): return g * (out + 1.0)
def d_log(g, x): return g / x
def d_log1p(g, x): return g / (x + 1.0)
def d_log2(g, x): return g / F.mul_scalar(x, _LN2)
def d_sqrt(g, out): return g / F.mul_scalar(out, 2.0)
def d_rsqrt(g, out): return -0.5 * g * F.pow_scalar(out, 3.0)
def d_sin(g, x): return g * F.cos(x)
def d_cos(g, x): return g * -F.sin(x)
def d_tan(g, out): return g * (1.0 + out * out)
def d_tanh(g, out): return g * F.fma(-out, out, 1.0)    # torch's kernel: 1 - out * out, fused
def d_sigmoid(g, out): return g * (1.0 - out) * out
# torch's threshold_backward: g is stopped only where out <= 0, so a NaN passes it
def d_relu(g, out): return F.threshold_backward(g, out, 0.0)
def d_abs(g, x): return g * F.sign(x)      # torch's sgn: 0 at 0 and at NaN
def d_atan(g, x): return g / (1.0 + x * x)
# torch's atan2_backward: 1 / (x^2 + y^2) masked to 0 where it is inf, so atan2(0, 0) has
# gradient 0, not nan
def d_atan2_x(g, x, y):
    return g * y * F.select(1.0 / (x * x + y * y) == _INF, 0.0, 1.0 / (x * x + y * y))


def d_atan2_y(g, x, y):
    return -g * x * F.select(1.0 / (x * x + y * y) == _INF, 0.0, 1.0 / (x * x + y * y))
# torch squares by pow(x, 2) where these square by x * x (the same value): fmath.pow_scalar would
# compute the exp of a float32 kernel in float64
def d_erf(g, x): return F.mul_scalar(F.exp(-(x * x)), _TWO_OVER_SQRT_PI) * g
def d_reciprocal(g, out): return -g * (out * out)
def d_square(g, x): return g * F.mul_scalar(F.pow_scalar(x, 1.0), 2.0)   # pow(x, 2)'s
# torch's rule: ties share g, and only the side that is strictly beaten gets 0, so where a NaN
# is involved (every comparison false) both sides get the whole g
def d_max_x(g, x, y): return F.select(x < y, 0.0, F.select(x == y, g * 0.5, g))
def d_max_y(g, x, y): return F.select(x > y, 0.0, F.select(x == y, g * 0.5, g))
def d_min_x(g, x, y): return F.select(x > y, 0.0, F.select(x == y, g * 0.5, g))
def d_min_y(g, x, y): return F.select(x < y, 0.0, F.select(x == y, g * 0.5, g))
def d_clamp(g, x, lo, hi): return F.select((x >= lo) & (x <= hi), g, 0.0)
# clamp(x, y, z) with tensor bounds, torch's rule: a bound gets g where it is the result
def d_clamp_x(g, x, y, z): return F.select((x >= y) & (x <= z), g, 0.0)
def d_clamp_min(g, x, y, z): return F.select((x < y) & (y < z), g, 0.0)
def d_clamp_max(g, x, y, z): return F.select((x > z) | (z < y), g, 0.0)
def d_where_x(g, x): return F.select(x != 0.0, g, 0.0)
def d_where_y(g, x): return F.select(x != 0.0, 0.0, g)
# x - y * q with the quotient q rounded (floor: remainder, trunc: fmod), q's derivative zero
def d_remainder_y(g, x, y): return -g * F.floor_div(x, y)
def d_fmod_y(g, x, y): return -g * F.trunc_div(x, y)


def add_scaled(x, y, alpha):
    """x + alpha * y in y's dtype (x an array or a number), alpha taken in that dtype, as torch's
    add, sub and rsub with alpha compute it: one rounding for floats (torch's kernels fuse the
    multiply-add), integers wrapping."""
    dtype = y.dtype
    alpha = dtype.type(alpha)
    x = np.asarray(x, dtype)
    if dtypes.is_floating(dtype):
        return fma(y, alpha, x)
    return np.add(x, np.multiply(y, alpha))


def _quiet(fn):
    """A forward whose division by zero is a result (inf, nan), as in torch, not a warning."""
    def forward(*args, **attrs):
        with np.errstate(divide="ignore", invalid="ignore"):
            return fn(*args, **attrs)
    return forward


# torch's maximum and minimum give x where x and y are equal (as 0.0 and -0.0 are), NumPy's give y:
# relu(-0.0) and clamp_min(-0.0, 0.0) are -0.0 in torch. NaN wins either way.
def torch_maximum(x, y):
    return np.maximum(y, x)


def torch_minimum(x, y):
    return np.minimum(y, x)


@_quiet
def _remainder(x, y):
    """torch's remainder: fmod, moved into the divisor's sign (fmod keeps -0.0, as torch does;
    np.remainder gives the zero the divisor's sign)."""
    mod = np.fmod(x, y)
    return np.where((mod != 0) & ((y < 0) != (mod < 0)), mod + y, mod)


def pow_by_scalar(x, p):
    """x ** p as torch's kernel for a Scalar exponent computes it: sqrt for 0.5 (sqrt(-0.0) is
    -0.0), 1 / sqrt for -0.5, 1 / x for -1, products for 2, 3 and -2, else pow."""
    one = x.dtype.type(1)
    special = {0.5: np.sqrt, -0.5: lambda v: one / np.sqrt(v), -1.0: lambda v: one / v,
               2.0: lambda v: v * v, 3.0: lambda v: v * v * v, -2.0: lambda v: one / (v * v)}
    compute = special.get(p)
    return compute(x) if compute is not None else np.power(x, x.dtype.type(p))


def special_fn(name):
    """scipy.special's function `name`, in x's dtype. scipy.special is imported on first use: at
    import it would cost 0.15 s of every start."""
    def forward(x):
        from scipy import special
        return getattr(special, name)(x).astype(x.dtype, copy=False)
    return forward


def _sigmoid(x):
    # exact to rounding at both tails (exp overflows to inf, giving 0), and on float32 four times
    # faster than scipy's expit
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


# ---- the ops ------------------------------------------------------------------------------------
ADD = _binary("add", np.add, d_identity, d_identity, attributes={"alpha": 1})
SUB = _binary("sub", np.subtract, d_identity, d_negate, attributes={"alpha": 1})
MUL = _binary("mul", np.multiply, d_mul_x, d_mul_y)
DIV = _binary("div", np.true_divide, d_div_x, d_div_y)
POW = _binary("pow", np.power, d_pow_x, d_pow_y, node_name="PowBackward1",
              saved_names=("self", "exponent", "result"))
ATAN2 = _binary("atan2", np.arctan2, d_atan2_x, d_atan2_y)
# Rounded division is piecewise constant: zero gradients, as torch gives (DivBackward2). NumPy's
# floor_divide is torch's algorithm (from fmod, so 1 // 0.1 is 9, not 10).
DIV_FLOOR = _binary("div_floor", _quiet(np.floor_divide), d_zero, d_zero, node_name="DivBackward2")
DIV_TRUNC = _binary("div_trunc", _quiet(lambda x, y: np.trunc(np.true_divide(x, y))), d_zero,
                    d_zero, node_name="DivBackward2")
REMAINDER = _binary("remainder", _remainder, d_identity, d_remainder_y,
                    node_name="RemainderBackward1")
FMOD = _binary("fmod", _quiet(np.fmod), d_identity, d_fmod_y, node_name="FmodBackward1")
# a Python scalar divisor: torch's Scalar overloads, with their own node names
REMAINDER_SCALAR = _unary("remainder_scalar", lambda x, s: _remainder(x, x.dtype.type(s)),
                          d_identity, node_name="RemainderBackward0")
FMOD_SCALAR = _unary("fmod_scalar", _quiet(lambda x, s: np.fmod(x, x.dtype.type(s))),
                     d_identity, node_name="FmodBackward0")
MAXIMUM = _binary("maximum", torch_maximum, d_max_x, d_max_y)
MINIMUM = _binary("minimum", torch_minimum, d_min_x, d_min_y)
WHERE = OpDef("where", lambda c, a, b: np.where(c != 0, a, b), n_in=3,
              grads=(None, d_where_x, d_where_y), saved_names=("condition",))
# masked_fill(x, mask, value) is where(mask, value, x): the condition comes first here too
MASKED_FILL = OpDef("masked_fill", lambda c, x, v: np.where(c != 0, v, x), n_in=3,
                    grads=(None, d_where_y, d_where_x), node_name="MaskedFillBackward0",
                    listed=(1,), saved_names=("mask",))
MASKED_FILL_TENSOR = OpDef("masked_fill_tensor", lambda c, x, v: np.where(c != 0, v, x), n_in=3,
                           grads=(None, d_where_y, d_where_x), node_name="MaskedFillBackward1",
                           saved_names=("mask",))
POW_SCALAR = _unary("pow_scalar", _quiet(lambda x, p: pow_by_scalar(x, p)), d_pow_scalar,
                    node_name="PowBackward0", meta=lambda p: ((), (p,)))
# base ** x for a Python scalar base
POW_BASE = _unary("pow_base", _quiet(lambda x, base, log_base: np.power(x.dtype.type(base), x)),
                  d_pow_base, node_name="PowBackward2", saved_names=("exponent", "result"),
                  meta=lambda base, log_base: ((), (base, log_base)))
RSUB = _unary("rsub", lambda x, s: np.subtract(s, x), d_negate, node_name="RsubBackward1",
               attributes={"alpha": 1})
# with alpha (not 1 for add, sub and a Python number's rsub): one node keeping it, as torch's
_ALPHA_META = {"meta": lambda alpha, **_: ((), (alpha,))}
ADD_ALPHA = _binary("add_alpha", add_scaled, d_identity, d_scaled, node_name="AddBackward0",
                    **_ALPHA_META)
SUB_ALPHA = _binary("sub_alpha", lambda x, y, alpha: add_scaled(x, y, -alpha), d_identity,
                    d_negate_scaled, node_name="SubBackward0", **_ALPHA_META)
RSUB_ALPHA = _unary("rsub_alpha", lambda x, s, alpha: add_scaled(s, x, -alpha), d_negate_scaled,
                    node_name="RsubBackward1", **_ALPHA_META)
# rsub(x, y) of two tensors, y - alpha * x: its own node, whose inputs are x then y
RSUB_TENSOR = _binary("rsub_tensor", lambda x, y, alpha: add_scaled(y, x, -alpha),
                      d_negate_scaled, d_identity, node_name="RsubBackward0", **_ALPHA_META)
# torch's Scalar overloads, which its own composites call (the eps of pairwise_distance): one
# input, where `x + 2.0` in Python records the number as a second input that needs no gradient
ADD_SCALAR = _unary("add_scalar", lambda x, s: np.add(x, x.dtype.type(s)), d_identity,
                    node_name="AddBackward1")
SUB_SCALAR = _unary("sub_scalar", lambda x, s: np.subtract(x, x.dtype.type(s)), d_identity,
                    node_name="SubBackward1")
MUL_SCALAR = _unary("mul_scalar", lambda x, s: np.multiply(x, x.dtype.type(s)), d_scale,
                    node_name="MulBackward1", meta=lambda s: ((), (s,)))
DIV_SCALAR = _unary("div_scalar", _quiet(lambda x, s: np.divide(x, x.dtype.type(s))), d_divide,
                    node_name="DivBackward1", meta=lambda s: ((), (s,)))
CLAMP = _unary("clamp", lambda x, lo, hi: np.clip(x, x.dtype.type(lo), x.dtype.type(hi)), d_clamp,
               node_name="ClampBackward1", meta=lambda lo, hi: ((), (lo, hi)))
CLAMP_TENSOR = OpDef("clamp_tensor", lambda x, lo, hi: torch_minimum(torch_maximum(x, lo), hi),
                     n_in=3, grads=(d_clamp_x, d_clamp_min, d_clamp_max),
                     node_name="ClampBackward0", saved_names=("self", "min", "max"))
NEG = _unary("neg", np.negative, d_negate)
EXP = _unary("exp", np.exp, d_exp)
EXPM1 = _unary("expm1", np.expm1, d_expm1)
LOG = _unary("log", np.log, d_log)
LOG1P = _unary("log1p", np.log1p, d_log1p, node_name="Log1PBackward0")
LOG2 = _unary("log2", np.log2, d_log2)
SQRT = _unary("sqrt", np.sqrt, d_sqrt)
RSQRT = _unary("rsqrt", lambda x: np.reciprocal(np.sqrt(x)), d_rsqrt)
SIN = _unary("sin", np.sin, d_sin)
COS = _unary("cos", np.cos, d_cos)
TAN = _unary("tan", np.tan, d_tan)
# Note [backward ops of their own]
# torch differentiates tanh and sigmoid through ops of their own, tanh_backward(g, out) and
# sigmoid_backward(g, out): a create_graph backward records their nodes (TanhBackwardBackward0,
# linked to g and to the saved output) and differentiates them by their own formulas. Here the
# compiled kernels evaluate d_tanh and d_sigmoid, and the VJPs used under create_graph apply these
# ops, whose forwards are those same formulas.
def _tanh_vjp(ctx, g):
    (out,) = ctx.saved
    return (apply(TANH_BACKWARD, (g, out)),)


def _sigmoid_vjp(ctx, g):
    (out,) = ctx.saved
    return (apply(SIGMOID_BACKWARD, (g, out)),)


# x is the upstream gradient the backward op was given, y the output it read (derivatives.yaml)
def d_tanh_backward_x(g, y): return g * F.fma(-y, y, 1.0)
def d_tanh_backward_y(g, x, y): return g * (F.mul_scalar(y, -2.0) * x)
def d_sigmoid_backward_x(g, y): return g * (1.0 - y) * y
def d_sigmoid_backward_y(g, x, y): return g * x * (F.mul_scalar(y, -2.0) + 1.0)


def _tanh_backward_vjp(ctx, g):
    x, y = ctx.saved
    return (apply(TANH_BACKWARD, (g, y)) if ctx.needs_input_grad[0] else None,
            g * (mul_scalar(y, -2.0) * x) if ctx.needs_input_grad[1] else None)


def _sigmoid_backward_vjp(ctx, g):
    x, y = ctx.saved
    return (apply(SIGMOID_BACKWARD, (g, y)) if ctx.needs_input_grad[0] else None,
            g * x * add_scalar(mul_scalar(y, -2.0), 1.0) if ctx.needs_input_grad[1] else None)


TANH = _unary("tanh", np.tanh, d_tanh, vjp=_tanh_vjp)
SIGMOID = _unary("sigmoid", lambda x: _sigmoid(x), d_sigmoid, vjp=_sigmoid_vjp)
TANH_BACKWARD = _binary("tanh_backward", d_tanh, d_tanh_backward_x, d_tanh_backward_y,
                        node_name="TanhBackwardBackward0",
                        saved_names=("grad_output", "output"), vjp=_tanh_backward_vjp)
SIGMOID_BACKWARD = _binary("sigmoid_backward", d_sigmoid, d_sigmoid_backward_x,
                           d_sigmoid_backward_y, node_name="SigmoidBackwardBackward0",
                           saved_names=("grad_output", "output"),
                           vjp=_sigmoid_backward_vjp)
RELU = _unary("relu", lambda x: torch_maximum(x, x.dtype.type(0)), d_relu)
ABS = _unary("abs", np.abs, d_abs)
ATAN = _unary("atan", np.arctan, d_atan)
ERF = _unary("erf", special_fn("erf"), d_erf)
RECIPROCAL = _unary("reciprocal", np.reciprocal, d_reciprocal)
SQUARE = _unary("square", np.square, d_square, node_name="PowBackward0",
                attributes={"exponent": 2})      # torch's square is pow(x, 2)

def torch_sign(x):
    """torch's sign, (0 < x) - (x < 0): 0 at NaN and at -0.0, where NumPy's sign gives nan and
    -0.0 (also abs's derivative, so abs'(NaN) is 0 as in torch)."""
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


SIGN = _unary("sign", torch_sign, d_zero)     # piecewise constant: a zero gradient


def _value_broadcast(value, source):
    return np.array(np.broadcast_to(value, np.broadcast_shapes(value.shape, source.shape)))


# Note [backward ops that read their input]
# torch's relu backward is an op of its own, threshold_backward(grad, result, 0), differentiable
# in result with derivative zero: under create_graph the gradient it gives requires grad whenever
# result does, and differentiating that gradient again gives zeros, where a mask alone (a where
# on a comparison) would leave it constant and a second grad would raise "does not require grad".
# Formulas spell such ops with fmath's torch-named functions, which on Tensors end in this node:
# the value, and an edge to what was read, whose derivative is zero.
READS = _binary("reads", _value_broadcast, d_identity, d_zero)

# Not differentiable: no node is recorded, results never require grad.
EQ = OpDef("eq", np.equal, n_in=2, differentiable=False)
NE = OpDef("ne", np.not_equal, n_in=2, differentiable=False)
LT = OpDef("lt", np.less, n_in=2, differentiable=False)
LE = OpDef("le", np.less_equal, n_in=2, differentiable=False)
GT = OpDef("gt", np.greater, n_in=2, differentiable=False)
GE = OpDef("ge", np.greater_equal, n_in=2, differentiable=False)
LOGICAL_AND = OpDef("logical_and", np.logical_and, n_in=2, differentiable=False)
LOGICAL_OR = OpDef("logical_or", np.logical_or, n_in=2, differentiable=False)
LOGICAL_XOR = OpDef("logical_xor", np.logical_xor, n_in=2, differentiable=False)
LOGICAL_NOT = OpDef("logical_not", np.logical_not, differentiable=False)


# ---- dtype promotion ----------------------------------------------------------------------------
_constants = {}


def constant(value, dtype):
    """A Python scalar as a 0-d array of dtype. Constants are only read (by the forward and, once
    saved, by kernels), so the same few values are shared instead of made anew per op."""
    if not value:
        return np.array(value, dtype)       # -0.0 == 0.0 as a key, but not as a factor
    key = (value, dtype)
    array = _constants.get(key)
    if array is None:
        if len(_constants) > 4096:
            _constants.clear()
        array = _constants[key] = np.array(value, dtype)
        array.flags.writeable = False
    return array


def _scalar_operand(t, s):
    """A tensor and a Python scalar: the scalar never upcasts the tensor within its category."""
    dt = t._data.dtype
    if dt != dtypes.float32 and dt != dtypes.float64:
        new = dtypes.promote_scalar(dt, s)
        if new != dt:
            t = cast(t, new)
            dt = new
        if type(s) is int and not -_HALF_RANGE[dt] <= s < _HALF_RANGE[dt]:
            s = _wrapped(s, dt)
    return t, constant(s, dt)


# 2 ** (bits - 1) of the integer types a Python int can meet in arithmetic
_HALF_RANGE = {dtypes.int32: 2 ** 31, dtypes.int64: 2 ** 63}


def _wrapped(value, dtype):
    """An int outside dtype's range, wrapped around as torch casts a scalar to the tensor's type
    (int32 + 2**32 is int32 + 0; NumPy would raise); beyond 64 bits torch refuses it too."""
    if not -2 ** 63 <= value < 2 ** 64:
        raise OverflowError("int too big to convert")
    half = _HALF_RANGE[dtype]
    return (value + half) % (2 * half) - half


def _tensor_result_type(da, nda, db, ndb):
    """torch.result_type of two tensors: a 0-d tensor beside a dimensioned one is like a scalar,
    it counts only when its category (bool < int < float) is higher: float32 (3,) + float64 0-d
    is float32, int32 (3,) + float64 0-d is float64."""
    if (nda == 0) == (ndb == 0):
        return dtypes.promote(da, db)
    dim, zero = (da, db) if nda else (db, da)
    if dtypes.is_floating(dim):
        return dim
    if dim == dtypes.bool_ or dtypes.is_floating(zero):
        return dtypes.promote(dim, zero)
    return dim


def operands(a, b):
    """Two operands as (Tensor or constant ndarray) of one dtype, following torch's promotion."""
    if isinstance(a, Tensor):
        if isinstance(b, Tensor):
            da, db = a._data.dtype, b._data.dtype
            if da != db:
                dt = _tensor_result_type(da, a._data.ndim, db, b._data.ndim)
                a = a if da == dt else _promoted(a, dt)
                b = b if db == dt else _promoted(b, dt)
            return a, b
        if isinstance(b, (float, int, np.generic)):
            return _scalar_operand(a, b.item() if isinstance(b, np.generic) else b)
        return operands(a, _array_operand(b))
    if isinstance(b, Tensor):
        if isinstance(a, (float, int, np.generic)):
            b, a = _scalar_operand(b, a.item() if isinstance(a, np.generic) else a)
            return a, b
        return operands(_array_operand(a), b)
    return operands(_array_operand(a), b)


def _promoted(t, dtype):
    """t cast to the dtype an op computes in. torch promotes inside the op and saves t itself, so
    changing t in place afterwards is an error at backward; the cast shares t's version counter
    to make it one here too, whether or not t needs a gradient (the cast is a copy nobody else sees,
    never itself changed in place)."""
    result = cast(t, dtype, op=PROMOTE)
    vc = t._vc
    if vc is None:
        vc = t._vc = new_version_counter()
    result._vc = vc
    return result


def _array_operand(value):
    """An ndarray operand as a tensor; a list, None, a string or another object is torch's
    TypeError (torch takes no sequence for a tensor operand)."""
    if not isinstance(value, (np.ndarray, numbers.Number)):
        raise TypeError(f"unsupported operand type(s): 'Tensor' and '{type(value).__name__}'")
    return as_tensor(value)


def _float_operands(a, b):
    """Operands for ops whose result is always floating (true division, atan2)."""
    x, y = operands(a, b)
    dx = x.dtype if isinstance(x, np.ndarray) else x._data.dtype
    if dtypes.is_floating(dx):
        return x, y
    # integers and bools compute in the default float type; the tensors are cast before a Python
    # number joins them: made in their integer type it could wrap around (int32 / 2**62)
    dt = dtypes.get_default_dtype()
    return operands(*(cast(v, dt) if isinstance(v, Tensor) else v for v in (a, b)))


def _float_input(x):
    return x if dtypes.is_floating(x._data.dtype) else cast(x, dtypes.get_default_dtype())


# ---- public functions ---------------------------------------------------------------------------
def _check_alpha(dtype, alpha):
    """torch's refusals of an alpha the result's dtype cannot take."""
    if isinstance(alpha, bool) and dtype != np.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and not dtypes.is_floating(dtype):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")


def _dtype_of(operand):
    return (operand if isinstance(operand, np.ndarray) else operand._data).dtype


def _with_alpha(op, a, b, alpha):
    """op(a, b) scaling b by alpha (not 1): one node that keeps alpha, as torch's."""
    return show_attributes(apply(op, (a, b), {"alpha": alpha}), alpha=alpha)


def add(x, y, *, alpha=1):
    a, b = operands(x, y)
    if alpha == 1 and not isinstance(alpha, bool):
        return apply(ADD, (a, b))
    dtype = _dtype_of(a)
    _check_alpha(dtype, alpha)
    if dtype == np.bool_:         # x or (alpha and y): nothing here can need a gradient
        b_data = b if isinstance(b, np.ndarray) else b._data
        return apply(ADD, (a, b if alpha else np.zeros_like(b_data)))
    return _with_alpha(ADD_ALPHA, a, b, alpha)


def _is_bool(value):
    return isinstance(value, bool) or (isinstance(value, Tensor) and value._data.dtype == np.bool_)


def _check_bool_subtraction(x, y):
    """torch refuses `-` with a bool operand (a mask is inverted with ~, two compared with ^)."""
    if _is_bool(x) and _is_bool(y):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if _is_bool(x) or _is_bool(y):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


def sub(x, y, *, alpha=1):
    _check_bool_subtraction(x, y)
    a, b = operands(x, y)
    if alpha == 1 and not isinstance(alpha, bool):
        return apply(SUB, (a, b))
    _check_alpha(_dtype_of(a), alpha)
    return _with_alpha(SUB_ALPHA, a, b, alpha)


def add_scalar(x, s):
    """x + s for a Python number s, as torch's composites add one (AddBackward1)."""
    return apply(ADD_SCALAR, (x,), {"s": s})


def sub_scalar(x, s):
    """x - s for a Python number s, as torch's composites subtract one (SubBackward1)."""
    return apply(SUB_SCALAR, (x,), {"s": s})


def mul_scalar(x, s):
    """x * s for a Python number s, as torch's composites scale by one (MulBackward1)."""
    return apply(MUL_SCALAR, (x,), {"s": s})


def div_scalar(x, s):
    """x / s for a Python number s, as torch's composites divide by one (DivBackward1)."""
    return apply(DIV_SCALAR, (x,), {"s": s})


def rsub(x, y, *, alpha=1):
    """y - alpha * x; `scalar - tensor` is rsub(tensor, scalar)."""
    _check_bool_subtraction(y, x)
    a, b = operands(x, y)
    plain = alpha == 1 and not isinstance(alpha, bool)
    if not plain:
        _check_alpha(_dtype_of(a), alpha)
    if isinstance(a, Tensor) and not isinstance(b, Tensor):
        if plain:
            return apply(RSUB, (a,), {"s": b})
        return show_attributes(apply(RSUB_ALPHA, (a,), {"s": b, "alpha": alpha}), alpha=alpha)
    return _with_alpha(RSUB_TENSOR, a, b, alpha)


def mul(x, y):
    return apply(MUL, operands(x, y))


def _int_rounded_div(x, y, mode):
    """Integer division as torch: by zero raises; trunc rounds toward zero (NumPy floors)."""
    if np.any(y == 0):
        raise RuntimeError("ZeroDivisionError")
    q = np.floor_divide(x, y)
    if mode == "trunc":
        q = q + ((q < 0) & (q * y != x))
    return np.asarray(q)


def div(x, y, *, rounding_mode=None):
    if rounding_mode is None:
        return apply(DIV, _float_operands(x, y))
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    a, b = operands(x, y)
    if isinstance(a, np.ndarray):
        a = as_tensor(a)
    _refuse_bool(a, "div_floor_cpu" if rounding_mode == "floor" else "div_trunc_cpu")
    if not dtypes.is_floating(a._data.dtype):
        bv = b if isinstance(b, np.ndarray) else b._data
        return untracked(_int_rounded_div, a._data, bv, rounding_mode)
    return apply(DIV_FLOOR if rounding_mode == "floor" else DIV_TRUNC, (a, b))


def floor_divide(x, y):
    """x // y: division rounded down. torch records no derivative for floor_divide (unlike div's
    rounding_mode='floor'): a backward through it raises."""
    from .not_implemented import without_derivative
    return without_derivative("floor_divide", lambda a, b: div(a, b, rounding_mode="floor"), x, y)


def rfloordiv(x, y):
    """y // x, for `scalar // tensor`."""
    return floor_divide(y, x)


def _refuse_bool(operand, kernel):
    """torch has no bool kernel for the arithmetic that would leave bool (NumPy gives int8)."""
    if operand._data.dtype == np.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _int_modulo(x, y, int_fn):
    if np.any(y == 0):
        raise RuntimeError("ZeroDivisionError")
    return int_fn(x, y)


def _modulo(x, y, op, scalar_op, int_fn):
    a, b = operands(x, y)
    if isinstance(a, np.ndarray):
        a = as_tensor(a)
    _refuse_bool(a, "remainder_cpu" if op is REMAINDER else "fmod_cpu")
    if not dtypes.is_floating(a._data.dtype):
        bv = b if isinstance(b, np.ndarray) else b._data
        return untracked(_int_modulo, a._data, bv, int_fn)
    if isinstance(b, np.ndarray) and isinstance(y, (int, float, np.generic)):
        return apply(scalar_op, (a,), {"s": b.item()})
    return apply(op, (a, b))


def remainder(x, y):
    """x - y * floor(x / y): the result has the sign of y (Python's %)."""
    return _modulo(x, y, REMAINDER, REMAINDER_SCALAR, _remainder)


def rremainder(x, y):
    """y % x, for `scalar % tensor`: torch's remainder(Scalar, Tensor) has no derivative, so a
    backward through it raises."""
    if isinstance(y, Tensor):
        return remainder(y, x)
    from .not_implemented import without_derivative
    return without_derivative("remainder", lambda a: remainder(y, a), x)


def fmod(x, y):
    """x - y * trunc(x / y): the result has the sign of x (C's fmod)."""
    return _modulo(x, y, FMOD, FMOD_SCALAR, np.fmod)


def rdiv(x, y):
    """y / x, for `scalar / tensor`: torch computes reciprocal(x) * y (MulBackward0)."""
    if isinstance(x, Tensor) and isinstance(y, (int, float, np.generic)):
        return mul(reciprocal(x), y)
    a, b = _float_operands(x, y)
    return apply(DIV, (b, a))


def pow(x, exponent):
    if isinstance(exponent, np.generic):        # a Python number to torch, shown as one
        exponent = exponent.item()
    if isinstance(x, Tensor) and _is_scalar_exponent(x, exponent):
        x = _float_input(x) if isinstance(exponent, float) else x
        if not dtypes.is_floating(x._data.dtype):
            if exponent < 0:
                raise RuntimeError("Integers to negative integer powers are not allowed.")
            return untracked(np.power, x._data, exponent)
        out = apply(POW_SCALAR, (x,), {"p": float(exponent)})
        show_attributes(out, exponent=exponent)
        return out
    if isinstance(x, (int, float)) and isinstance(exponent, Tensor):
        return rpow(exponent, x)
    a, b = operands(x, exponent)
    return _int_or_float_power(a, b)


def _is_scalar_exponent(x, exponent):
    """Whether x ** exponent is torch's pow(Tensor, Scalar) on numgrad's scalar path: a bool
    exponent counts only for a float x (an integer or bool x keeps its dtype, computed below)."""
    if isinstance(exponent, bool):
        return dtypes.is_floating(x._data.dtype)
    return isinstance(exponent, (int, float))


def _int_or_float_power(a, b):
    data = [v if isinstance(v, np.ndarray) else v._data for v in (a, b)]
    if dtypes.is_floating(data[0].dtype):
        return apply(POW, (a, b))
    if data[0].dtype == np.bool_:
        if isinstance(b, Tensor):
            raise NotImplementedError('"pow" not implemented for \'Bool\'')
        # a Python bool exponent: torch's pow(Tensor, Scalar) keeps bool
        return untracked(lambda v, e: np.power(v, e).astype(np.bool_), *data)
    return untracked(_int_power, *data)


def _int_power(base, exponent):
    """Integer powers as torch: a negative exponent gives 0, except for bases 1 and -1 (NumPy
    raises)."""
    negative = exponent < 0
    result = np.power(base, np.where(negative, 0, exponent))
    inverse = np.where(base == 1, 1, np.where(base == -1, 1 - 2 * (np.abs(exponent) % 2), 0))
    return np.where(negative, inverse, result).astype(result.dtype)


def rpow(x, base):
    """base ** x for a scalar base."""
    a, b = operands(x, base)
    if isinstance(a, Tensor) and not isinstance(b, Tensor) and dtypes.is_floating(b.dtype):
        log_base = math.log(b) if b > 0 else -math.inf if b == 0 else math.nan
        out = apply(POW_BASE, (a,), {"base": float(b), "log_base": log_base})
        # torch's pow(Scalar self, Tensor exponent) keeps the base as given
        show_attributes(out, self=base.item() if isinstance(base, np.generic) else base)
        return out
    return _int_or_float_power(b, a)


@tensor_operand()
def atan2(input, other):
    return apply(ATAN2, _float_operands(input, other))


@tensor_operand()
def maximum(input, other):
    return apply(MAXIMUM, operands(input, other))


@tensor_operand()
def minimum(input, other):
    return apply(MINIMUM, operands(input, other))


def clamp(x, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _clamp_tensor(x, min, max)
    # NumPy scalar bounds count as Python numbers, as in torch (np.clip would promote by NumPy's
    # rules: an int64 tensor clamped by a float32 bound would be float64)
    min, max = (v.item() if isinstance(v, np.generic) else v for v in (min, max))
    refuse_bool_clamp(x, (min, max),
                      "clamp_scalar_cpu" if min is not None and max is not None else
                      "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu")
    if not dtypes.is_floating(x._data.dtype):
        if isinstance(min, float) or isinstance(max, float):
            x = cast(x, dtypes.get_default_dtype())
        else:
            return untracked(np.clip, x._data, min, max)
    lo = -math.inf if min is None else float(min)
    hi = math.inf if max is None else float(max)
    out = apply(CLAMP, (x,), {"lo": lo, "hi": hi})
    show_attributes(out, min=min, max=max)
    return out


def refuse_bool_clamp(x, bounds, kernel):
    """A bool tensor clamped by bool scalars stays bool, and torch's scalar kernels have none
    (an int or float bound promotes it to int64 or float, and is clamped there)."""
    if x._data.dtype == np.bool_ and all(isinstance(b, bool) for b in bounds if b is not None):
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


def _clamp_tensor(x, min, max):
    """clamp with tensor bounds: one node (ClampBackward0); a missing bound is infinite. The
    result's dtype is promoted from x and the given bounds only: an infinity standing in for a
    missing one would make an integer clamp float."""
    for bound in (min, max):
        if bound is not None:
            x, _ = operands(x, bound)
    lo = None if min is None else operands(min, x)[0]
    hi = None if max is None else operands(max, x)[0]
    if not dtypes.is_floating(x._data.dtype):
        data = [None if v is None else v if isinstance(v, np.ndarray) else v._data
                for v in (x, lo, hi)]
        return untracked(_clamp_integers, *data)
    lo = operands(x, -math.inf)[1] if lo is None else lo
    hi = operands(x, math.inf)[1] if hi is None else hi
    return apply(CLAMP_TENSOR, (x, lo, hi))


def _clamp_integers(x, lo, hi):
    result = x if lo is None else np.maximum(x, lo)
    return result if hi is None else np.minimum(result, hi)


clip = clamp


def where(condition, x=None, y=None):
    """x where condition else y; condition is a bool tensor, never differentiated. where(condition)
    alone is nonzero(condition, as_tuple=True), as in torch."""
    if x is None and y is None:
        from .predicates import nonzero
        return nonzero(condition, as_tuple=True)
    if isinstance(condition, Tensor) and condition._data.dtype != np.bool_:
        # torch reads no truth into numbers: an integer or float condition is refused
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {dtypes.scalar_type_name(condition._data.dtype)}")
    a, b = operands(x, y)
    dt = (a if isinstance(a, np.ndarray) else a._data).dtype
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if not dtypes.is_floating(dt):
        for value in (x, y):
            check_fits(value, dt)
        av = a if isinstance(a, np.ndarray) else a._data
        bv = b if isinstance(b, np.ndarray) else b._data
        return untracked(np.where, cond, av, bv)
    return apply(WHERE, (condition_operand(cond, dt), a, b))


def check_fits(value, dtype):
    """A Python int written into an integer dtype (by where, fill_) must fit: torch refuses it
    there (arithmetic wraps it around instead)."""
    if isinstance(value, int) and not isinstance(value, bool) and dtype in dtypes.C_INT_NAMES:
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise RuntimeError(f"value cannot be converted to type {dtypes.C_INT_NAMES[dtype]} "
                               "without overflow")


def condition_operand(cond, dtype):
    """A condition (bool array) as the float 0/1 input of where and masked_fill: a constant array
    on the host; on the GPU a Tensor that needs no gradient, as every device input of an op is."""
    values = cond.astype(dtype)
    return values if isinstance(values, np.ndarray) else Tensor._make(values, False)


def _unary_fn(op):
    def fn(x):
        return apply(op, (x if x._data.dtype.kind == "f" else _float_input(x),))
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = f"Elementwise {op.name}, differentiable ({op.node_name})."
    return fn


exp = _unary_fn(EXP)
expm1 = _unary_fn(EXPM1)
log = _unary_fn(LOG)
log1p = _unary_fn(LOG1P)
log2 = _unary_fn(LOG2)
sqrt = _unary_fn(SQRT)
rsqrt = _unary_fn(RSQRT)
sin = _unary_fn(SIN)
cos = _unary_fn(COS)
tan = _unary_fn(TAN)
tanh = _unary_fn(TANH)
sigmoid = _unary_fn(SIGMOID)
atan = _unary_fn(ATAN)
erf = _unary_fn(ERF)
reciprocal = _unary_fn(RECIPROCAL)
arctan = atan


def _same_dtype_unary(op):
    def fn(x):
        return apply(op, (x,))
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = f"Elementwise {op.name} (keeps integer dtypes)."
    return fn


def neg(x):
    """-x, keeping integer dtypes; refused for bool tensors with torch's message."""
    if x._data.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator "
                           "instead.")
    return apply(NEG, (x,))


_abs = _same_dtype_unary(ABS)


def abs(x):
    _refuse_bool(x, "abs_cpu")
    return _abs(x)


_relu = _same_dtype_unary(RELU)


def relu(x):
    if x._data.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    return _relu(x)


_square = _same_dtype_unary(SQUARE)


def square(x):
    """x * x, keeping integer dtypes; a bool tensor squares as int64, as torch's pow(x, 2)."""
    return _square(cast(x, np.int64) if x._data.dtype == np.bool_ else x)

_sign = _same_dtype_unary(SIGN)


def reads(value, source, node_name, grad=None):
    """`value`, with a zero-derivative edge to `source` on a node named `node_name`: Note
    [backward ops that read their input]. Without a gradient to carry it is `value` itself.
    `grad`: the gradient torch's backward op takes, which its node lists before `source` (in
    place of the mask numgrad computed `value` with)."""
    if not (isinstance(source, Tensor) and source._requires_grad):
        return value
    out = apply(READS, operands(value, source))
    if out._requires_grad:
        out._seg.names[out._node] = node_name
        if grad is not None:
            from .named import show_inputs
            show_inputs(out, grad, source)
    return out


def sign(x):
    """-1, 0 or 1 (of x's dtype; a bool tensor is its own sign); not differentiable."""
    if x._data.dtype == np.bool_:
        return untracked(np.copy, x._data)
    return _sign(x)

negative = neg
absolute = abs


def _compare(op):
    def fn(x, y):
        return apply(op, operands(x, y))
    fn.__name__ = fn.__qualname__ = op.name
    fn.__doc__ = f"Elementwise {op.name}: a bool tensor, not differentiable."
    return fn


eq, ne, lt, le, gt, ge = (_compare(op) for op in (EQ, NE, LT, LE, GT, GE))
# the operators & | ^ of bool tensors take numbers too (bitwise_and's Scalar overload); the
# public logical_* do not
_logical_and, _logical_or, _logical_xor = (_compare(op)
                                           for op in (LOGICAL_AND, LOGICAL_OR, LOGICAL_XOR))
logical_and, logical_or, logical_xor = (tensor_operand()(op)
                                        for op in (_logical_and, _logical_or, _logical_xor))
greater, less, greater_equal, less_equal, equal_ = gt, lt, ge, le, eq


def logical_not(x):
    return apply(LOGICAL_NOT, (x,))


def _bitwise(logical, numpy_fn, kernel):
    def fn(x, y):
        a, b = operands(x, y)
        dtype = (a if isinstance(a, np.ndarray) else a._data).dtype
        if dtypes.is_floating(dtype):
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{dtypes.scalar_type_name(dtype)}'")
        if dtype == np.bool_:
            return logical(a, b)
        return untracked(numpy_fn, *[v if isinstance(v, np.ndarray) else v._data for v in (a, b)])
    fn.__name__ = fn.__qualname__ = kernel.removesuffix("_cpu")
    fn.__doc__ = ("Elementwise bitwise operation of integer tensors; on bool tensors the logical "
                  "one (the `&`, `|`, `^` operators).")
    return fn


bitwise_and = _bitwise(_logical_and, np.bitwise_and, "bitwise_and_cpu")
bitwise_or = _bitwise(_logical_or, np.bitwise_or, "bitwise_or_cpu")
bitwise_xor = _bitwise(_logical_xor, np.bitwise_xor, "bitwise_xor_cpu")


def bitwise_not(x):
    """Logical not of a bool tensor, bitwise not of an integer one."""
    if x._data.dtype == np.bool_:
        return logical_not(x)
    if dtypes.is_floating(x._data.dtype):
        raise NotImplementedError(f'"bitwise_not_cpu" not implemented for '
                                  f"'{dtypes.scalar_type_name(x._data.dtype)}'")
    return untracked(np.invert, x._data)


def invert(x):
    """~x: bitwise_not, whose refusal of a float tensor is the operator's TypeError in torch."""
    if dtypes.is_floating(x._data.dtype):
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(x)


def clamp_inplace_bounds(x, min=None, max=None):
    """clamp for clamp_/clip_: a float scalar bound cannot clamp an integer or bool tensor in
    place (torch's scalar kernel says so naming the C type; a tensor bound, the dtype's name)."""
    if not dtypes.is_floating(x._data.dtype) and (isinstance(min, float) or isinstance(max, float)):
        raise RuntimeError(f"result type {dtypes.scalar_type_name(dtypes.get_default_dtype())} "
                           f"can't be cast to the desired output type {dtypes.c_type_name(x._data.dtype)}")
    return clamp(x, min, max)


# ---- dtype casts --------------------------------------------------------------------------------
def _cast_vjp(ctx, g):
    # casts are recorded between the two float types only, so the input had the other one
    return (cast(g, dtypes.float32 if g.dtype == dtypes.float64 else dtypes.float64),)


def _cast_forward(x, dtype):
    return x.astype(dtype, order="K" if keeps_layout(x) else "C")     # torch's preserve_format


_CAST = dict(node_name="ToCopyBackward0", kernel="cast_bwd", vjp=_cast_vjp, mixed_floats=True)
CAST = OpDef("cast", _cast_forward, **_CAST)
# the cast an op of mixed float types makes of an operand (_promoted), or of an in-place op's
# result back to the changed tensor's type (inplace.rebase): torch casts inside the op, with no
# node of its own, so next_functions and grad_fn look through this one (node.through_promotes)
PROMOTE = OpDef("promote", _cast_forward, **_CAST)


def cast(x, dtype, op=CAST):
    """x converted to dtype; differentiable between float types (ToCopyBackward0)."""
    dtype = np.dtype(dtype)
    if x._data.dtype == dtype:
        return x
    if not (dtypes.is_floating(dtype) and dtypes.is_floating(x._data.dtype)):
        return Tensor._make(x._data.astype(dtype), False)
    return apply(op, (x,), {"dtype": dtype})

