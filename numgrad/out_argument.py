"""torch's `out=` keyword: a function's result written into tensors the caller gives.

The result is computed as without `out`, then written into `out` in place: out's version counts
the write, its views see it, and the call returns it (a tuple of them for a function of several
results, max's `(values, indices)` as its named tuple). An `out` of another shape is resized,
with torch's warning unless it was empty.

Such calls are not differentiable. With recording on, a call where any tensor argument (`out`
included) requires grad is refused in torch's words, before anything is computed or written.

Which casts into `out` are allowed depends on the kind of function, as in torch:
- CAST (elementwise ops, most others): the result may go to a type of the same or a higher
  category (int into float, float32 into float64), not lower (float into int);
- SAME: the result's type exactly (matrix products, indexing, the unary ops that keep their
  input's type such as abs and floor, every function of several results);
- ACCUMULATE (sum, prod, cumsum, cumprod, nansum): out's type is the one computed in, as
  `dtype=` would make it;
- CREATE (zeros, arange, rand, ...): out's type is the one made, unless `dtype=` says another,
  which is refused.
"""
import functools
import warnings

import numpy as np

from . import dtypes, grad_mode
from .dtype_info import can_cast
from .ops.inplace import _check_can_write as check_can_write
from .tensor import Tensor

CAST, SAME, ACCUMULATE, CREATE = "cast", "same", "accumulate", "create"

# the top-level functions of torch that take out=, by how they cast into it (CAST otherwise)
_SAME = ("abs", "absolute", "addbmm", "addmm", "addmv", "addr", "all", "amax", "amin", "any",
         "argmax", "argmin", "baddbmm", "bmm", "ceil", "clamp", "clip", "cross", "diag", "dot",
         "fix", "floor", "frac", "gather", "index_select", "inner", "inverse", "kron",
         "masked_select", "matmul", "matrix_power", "mm", "mv", "nan_to_num", "neg", "negative",
         "nonzero", "norm", "renorm", "round", "sgn", "sign", "take_along_dim", "tril", "triu",
         "trunc", "vdot", "where")
_ACCUMULATE = ("cumprod", "cumsum", "nansum", "prod", "sum")
_CREATE = ("arange", "empty", "eye", "full", "linspace", "logspace", "ones", "rand", "randint",
           "randn", "randperm", "range", "zeros")
_CAST = (
    "acos", "acosh", "add", "addcdiv", "addcmul", "aminmax", "angle", "arccos", "arccosh",
    "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "asin", "asinh", "atan", "atan2", "atanh",
    "bernoulli", "bitwise_and", "bitwise_left_shift", "bitwise_not", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "bucketize", "cat", "cholesky", "cholesky_inverse",
    "cholesky_solve", "column_stack", "concat", "concatenate", "conj_physical", "copysign", "cos",
    "cosh", "cummax", "cummin", "deg2rad", "digamma", "div", "divide", "dstack", "eq", "erf",
    "erfc", "erfinv", "exp", "exp2", "expm1", "float_power", "floor_divide", "fmax", "fmin",
    "fmod", "frexp", "gcd", "ge", "ger", "greater", "greater_equal", "gt", "heaviside", "histc",
    "histogram", "hstack", "hypot", "i0", "index_add", "index_copy", "index_reduce", "isneginf",
    "isposinf", "kthvalue", "lcm", "ldexp", "le", "lerp", "less", "less_equal", "lgamma", "log",
    "log10", "log1p", "log2", "logaddexp", "logaddexp2", "logcumsumexp", "logical_and",
    "logical_not", "logical_or", "logical_xor", "logit", "logsumexp", "lt", "max", "maximum",
    "mean", "median", "min", "minimum", "mode", "msort", "mul", "multinomial", "multiply",
    "mvlgamma", "nanmean", "nanmedian", "nanquantile", "narrow_copy", "ne", "nextafter", "normal",
    "not_equal", "outer", "polygamma", "pow", "qr", "quantile", "rad2deg", "reciprocal",
    "remainder", "row_stack", "rsqrt", "searchsorted", "sigmoid", "signbit", "sin", "sinc",
    "sinh", "sort", "sqrt", "square", "stack", "std", "std_mean", "sub", "subtract", "svd", "tan",
    "tanh", "topk", "triangular_solve", "true_divide", "var", "var_mean", "vstack", "xlogy")
TOP_LEVEL = {**dict.fromkeys(_CAST, CAST), **dict.fromkeys(_SAME, SAME),
             **dict.fromkeys(_ACCUMULATE, ACCUMULATE), **dict.fromkeys(_CREATE, CREATE)}

# torch.linalg's functions that take out=: its kernels want out in the result's type
LINALG = dict.fromkeys((
    "cholesky", "cholesky_ex", "cond", "cross", "det", "eigh", "eigvalsh", "inv", "inv_ex",
    "matmul", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr",
    "slogdet", "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv",
    "tensorsolve", "vecdot", "vector_norm"), SAME)

# torch.special's functions that take out= (all elementwise, or reductions that cast)
SPECIAL = dict.fromkeys((
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2",
    "expit", "expm1", "gammainc", "gammaincc", "gammaln", "hermite_polynomial_h",
    "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
    "legendre_polynomial_p", "log1p", "log_ndtr", "logit", "logsumexp", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr",
    "ndtri", "polygamma", "psi", "round", "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "sinc", "spherical_bessel_j0", "xlog1py", "xlogy",
    "zeta"), CAST)


def install(namespace, functions):
    """Give each function named in `functions` (name -> cast rule) that `namespace` (a module's
    dict) holds the out= keyword. Aliases stay one function (`multiply is mul`)."""
    wrapped = {}
    for name, rule in functions.items():
        if name in namespace:
            function = namespace[name]
            if id(function) not in wrapped:
                wrapped[id(function)] = accepting_out(name, function, rule)
            namespace[name] = wrapped[id(function)]


def accepting_out(name, function, rule):
    @functools.wraps(function)
    def with_out(*args, out=None, **kwargs):
        if out is None:
            return function(*args, **kwargs)
        return _into(name, function, rule, args, kwargs, out)
    return with_out


def _into(name, function, rule, args, kwargs, out):
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    for t in outs:
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(t).__name__}")
    if grad_mode.is_grad_enabled() and any(t.requires_grad for t in _tensors(args, kwargs, outs)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           f"differentiation, but one of the arguments requires grad.")
    if rule in (ACCUMULATE, CREATE) and len(outs) == 1:
        kwargs = _with_dtype_of(outs[0], rule, kwargs)
    with grad_mode.no_grad():
        result = function(*args, **kwargs)
    results = result if isinstance(result, tuple) else (result,)
    if len(results) != len(outs):
        raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(results)} Tensors, "
                        f"not {len(outs)}")
    for value, target in zip(results, outs):
        _check_type(name, SAME if len(outs) > 1 else rule, value.dtype, target.dtype)
    with grad_mode.no_grad():
        for target in outs:     # every refusal before the first write: a refused call changes none
            check_can_write(target)
    for value, target in zip(results, outs):
        _write(target, value)
    if not isinstance(result, tuple):
        return out
    return type(result)(*outs) if hasattr(result, "_fields") else outs


def _tensors(args, kwargs, outs):
    """The tensor arguments, those inside a list (cat's) included."""
    found = list(outs)
    for value in (*args, *kwargs.values()):
        if isinstance(value, Tensor):
            found.append(value)
        elif isinstance(value, (tuple, list)):
            found.extend(v for v in value if isinstance(v, Tensor))
    return found


def _with_dtype_of(target, rule, kwargs):
    given = kwargs.get("dtype")
    if given is not None and rule == CREATE and np.dtype(given) != target.dtype:
        raise RuntimeError(f"dtype {dtypes.scalar_type_name(given)} does not match dtype of out "
                           f"parameter ({dtypes.scalar_type_name(target.dtype)})")
    return {**kwargs, "dtype": target.dtype}


def _check_type(name, rule, result, target):
    if rule in (ACCUMULATE, CREATE) or result == target:
        return
    if rule == SAME:
        raise RuntimeError(_SAME_TYPE_MESSAGES.get(name, _expected_out)(result, target))
    if not can_cast(result, target):
        if name in ("cat", "concat", "concatenate"):
            raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                            f"{dtypes.scalar_type_name(target)}")
        raise RuntimeError(f"result type {dtypes.scalar_type_name(result)} can't be cast to the "
                           f"desired output type {dtypes.scalar_type_name(target)}")


def _expected_out(result, target):
    return (f"Expected out tensor to have dtype {dtypes.c_type_name(result)}, but got "
            f"{dtypes.c_type_name(target)} instead")


def _found(result, target):
    return (f"Found dtype {dtypes.scalar_type_name(target)} but expected "
            f"{dtypes.scalar_type_name(result)}")


def _input_and_out(result, target):
    return (f"Expected the dtype for input and out to match, but got "
            f"{dtypes.scalar_type_name(result)} for input's dtype and "
            f"{dtypes.scalar_type_name(target)} for out's dtype.")


def _out_type(result, target):
    return (f"Expected out type to be {dtypes.scalar_type_name(result)} but got "
            f"{dtypes.scalar_type_name(target)}")


def _same_scalar_type(name):
    return lambda result, target: f"{name}(): self and result must have the same scalar type"


def _bool_result(name):
    return lambda result, target: (f"{name} only supports bool tensor for result, got: "
                                   f"{dtypes.scalar_type_name(target)}")


# the SAME functions whose kernels word the refusal their own way
_SAME_TYPE_MESSAGES = {
    "amax": _input_and_out, "amin": _input_and_out, "where": _out_type,
    **dict.fromkeys(("abs", "absolute", "ceil", "clamp", "clip", "fix", "floor", "frac", "neg",
                     "negative", "round", "sgn", "sign", "trunc"), _found),
    "index_select": _same_scalar_type("index_select"),
    "masked_select": _same_scalar_type("masked_select"),
    "all": _bool_result("all"), "any": _bool_result("any"),
    "nan_to_num": lambda result, target: (f"nan_to_num: dtype of out: "
                                          f"{dtypes.scalar_type_name(target)} should be same as "
                                          f"input: {dtypes.scalar_type_name(result)}"),
    "vdot": lambda result, target: (f"result dtype {dtypes.scalar_type_name(target)} does not "
                                    f"match input dtype {dtypes.scalar_type_name(result)}"),
    "nonzero": lambda result, target: (f"nonzero: Expected out tensor to have scalar type Long "
                                       f"but got scalar type{dtypes.scalar_type_name(target)}"),
    "inner": lambda result, target: (f"tensordot: Expected the output tensor to have dtype "
                                     f"{dtypes.scalar_type_name(result)}, but got an output "
                                     f"tensor with dtype {dtypes.scalar_type_name(target)}"),
}


def _write(target, value):
    """value into target, in place: given new memory of value's shape first where the shapes
    differ (with torch's warning unless target was empty)."""
    shape = tuple(value.shape)
    if tuple(target.shape) != shape:
        if target.numel():
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(target.shape)}, which does not match the required output shape "
                          f"{list(shape)}. This behavior is deprecated, and in a future PyTorch "
                          f"release outputs will not be resized unless they have zero elements. "
                          f"You can explicitly reuse an out tensor t by resizing it, inplace, to "
                          f"zero elements with t.resize_(0).", UserWarning, stacklevel=4)
        # torch's resize, which a leaf that requires grad also gets without recording; the
        # write below counts the one version
        target._data = np.empty(shape, target._data.dtype)
    with grad_mode.no_grad():
        target.copy_(value)
