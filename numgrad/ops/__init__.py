"""The ops: public functions (numgrad.exp(x)) and Tensor methods (x.exp()), each defined once in
its family module; the registry in registry.py holds their forward and derivative."""
from . import elementwise, index, inplace, linalg, reduce, scan, select, shape
from . import nn_ops
from .elementwise import (abs, absolute, add, arctan, atan, atan2, bitwise_and, bitwise_not,
                          bitwise_or, bitwise_xor, cast, clamp, clamp_inplace_bounds, clip, cos,
                          div, eq, erf, exp, expm1, floor_divide, fmod, ge, greater, greater_equal,
                          gt, invert, le, less, less_equal, log, log1p, log2, logical_and,
                          logical_not, logical_or, logical_xor, lt, maximum, minimum, mul, ne, neg,
                          negative, pow, rdiv, reciprocal, relu, remainder, rfloordiv, rpow,
                          rremainder, rsqrt, rsub, sigmoid, sign, sin, sqrt, square, sub, tan,
                          tanh, where)
from .index import gather, getitem, index_add, index_select, masked_fill, scatter_add
from .inplace import copy_, fill_, setitem, zero_
from .layout import diag, diagonal, masked_select, roll, tril, triu
from .linalg import addmm, baddbmm, bmm, dot, matmul, mm, mv, outer
from .predicates import all, any, count_nonzero, isfinite, isinf, isnan, nonzero
from .reduce import (broadcast_to, expand, logsumexp, mean, norm, prod, std, std_mean, sum, sum_to,
                     var, var_mean)
from .scan import cumprod, cumsum
from .select import amax, amin, argmax, argmin, argsort, max, min, return_types, sort, topk
from .shape import (as_strided, cat, clone, contiguous, flatten, flip, pad, permute, repeat, reshape,
                    squeeze, stack, t, transpose, unsqueeze, view)
from .split import chunk, split, unbind
from .einsum import einsum
from ..creation import as_tensor
# Families that list their own names (PUBLIC, METHODS, INPLACE) instead of appearing above.
from . import (bits, composite, decompositions, elementwise_gamma, elementwise_more,
               elementwise_special, inplace_more, linalg_legacy, linalg_more, nanmedian,
               numeric_gradient, order_stats, sampling, sampling_more, scatter, scatter_reduce,
               scatter_views, shape_more, stacking, statistics, tensor_info, torch_aliases,
               value_queries, view_copies)

FAMILIES = (bits, composite, decompositions, elementwise_gamma, elementwise_more,
            elementwise_special, inplace_more, linalg_legacy, linalg_more, nanmedian,
            numeric_gradient, order_stats, sampling, sampling_more, scatter, scatter_reduce,
            scatter_views, shape_more, stacking, statistics, tensor_info, torch_aliases,
            value_queries, view_copies)
for _family in FAMILIES:
    globals().update({name: getattr(_family, name) for name in _family.PUBLIC})

# Tensor methods that are the public function with the tensor first.
_METHODS = ("abs", "add", "atan", "atan2", "clamp", "clip", "cos", "div", "eq", "erf", "exp",
            "expm1", "floor_divide", "fmod", "remainder", "ge", "gt", "le", "log", "log1p", "log2",
            "logical_and", "logical_not", "logical_or", "logical_xor", "lt", "maximum", "minimum", "mul", "ne", "neg", "pow",
            "reciprocal", "relu", "rsqrt", "sigmoid", "sign", "sin", "sqrt", "square", "sub", "tan",
            "tanh", "gather", "index_add", "index_select", "masked_fill", "scatter_add", "matmul",
            "mm", "bmm", "dot", "mv", "outer", "expand", "broadcast_to", "mean", "sum", "sum_to",
            "clone", "contiguous", "flatten", "permute", "reshape", "squeeze", "t", "transpose",
            "unsqueeze", "view", "zero_", "fill_", "copy_", "prod", "amax", "amin", "max", "min",
            "argmax", "argmin", "var", "std", "logsumexp", "norm", "cumsum", "cumprod", "split",
            "chunk", "unbind", "flip", "repeat", "sort", "argsort", "topk", "addmm", "baddbmm",
            "tril", "triu", "diagonal", "diag", "roll", "masked_select", "as_strided", "isnan",
            "isinf", "isfinite", "any", "all", "count_nonzero", "nonzero", "bitwise_and",
            "bitwise_or", "bitwise_xor", "bitwise_not")
# In-place forms of out-of-place functions: x.add_(y) is x = add(x, y) written into x.
_INPLACE = {"add_": (add, False), "sub_": (sub, False), "mul_": (mul, True), "div_": (div, True),
            "pow_": (pow, True), "clamp_": (clamp_inplace_bounds, True),
            "clip_": (clamp_inplace_bounds, True),
            "exp_": (exp, False), "log_": (log, True), "relu_": (relu, False),
            "sigmoid_": (sigmoid, False), "tanh_": (tanh, False), "neg_": (neg, False),
            "abs_": (abs, True), "sqrt_": (sqrt, False), "sin_": (sin, True), "cos_": (cos, True),
            "masked_fill_": (masked_fill, False), "square_": (square, True),
            "reciprocal_": (reciprocal, False), "rsqrt_": (rsqrt, False),
            "expm1_": (expm1, False), "log1p_": (log1p, True), "log2_": (log2, True),
            "tan_": (tan, False), "atan_": (atan, True), "erf_": (erf, True),
            "sign_": (sign, False), "atan2_": (atan2, True), "index_add_": (index_add, False),
            "scatter_add_": (scatter_add, False), "cumsum_": (cumsum, False),
            "floor_divide_": (floor_divide, False), "remainder_": (remainder, False),
            "fmod_": (fmod, False)}


def _expand_as(self, other):
    return expand(self, other.shape)


def _view_as(self, other):
    # torch's view_as is view(other.size()): ViewBackward0, and refused where view is
    return view(self, other.shape)


def _reshape_as(self, other):
    return reshape(self, other.shape)


def install_methods(cls):
    # an op refusing numbers as its second operand has a method of its own (tensor_operands.py)
    for name in _METHODS:
        setattr(cls, name, getattr(globals()[name], "method", globals()[name]))
    for name, (fn, saves_self) in _INPLACE.items():
        setattr(cls, name, inplace._method(fn, saves_self))
    for family in FAMILIES:
        for name in family.METHODS:
            op = getattr(family, name)
            setattr(cls, name, getattr(op, "method", op))
        for name, (fn, saves_self) in family.INPLACE.items():
            setattr(cls, name, inplace._method(fn, saves_self))
    # Operators are the ops themselves, not methods calling them: one Python call less per op,
    # the hot path of scalar code. (Tensor's other operators are in tensor.py.)
    cls.__add__ = cls.__radd__ = add
    cls.__sub__ = sub
    cls.__rsub__ = rsub
    cls.__mul__ = cls.__rmul__ = mul
    cls.__truediv__ = div
    cls.__rtruediv__ = rdiv
    cls.__pow__ = pow
    cls.__rpow__ = rpow
    cls.__neg__ = neg
    cls.__floordiv__ = floor_divide
    cls.__rfloordiv__ = rfloordiv
    cls.__mod__ = remainder
    cls.__rmod__ = rremainder
    cls.__lshift__ = bits.bitwise_left_shift
    cls.__rshift__ = bits.bitwise_right_shift
    cls.__rlshift__ = bits._rlshift
    cls.__rrshift__ = bits._rrshift
    # without these Python would rebind `t **= 2`, `m &= other`, ... to a new tensor, where torch
    # changes t in place (its dtype kept, views and version counter seeing the change)
    cls.__ipow__ = cls.pow_
    cls.__iand__ = cls.bitwise_and_
    cls.__ior__ = cls.bitwise_or_
    cls.__ixor__ = cls.bitwise_xor_
    cls.__ilshift__ = cls.bitwise_left_shift_
    cls.__irshift__ = cls.bitwise_right_shift_
    cls.__ifloordiv__ = cls.floor_divide_
    cls.__imod__ = cls.remainder_
    cls.expand_as = _expand_as
    cls.view_as = _view_as
    cls.reshape_as = _reshape_as
    cls.greater = gt
    cls.less = lt
    cls.negative = neg
    cls.arctan = atan

