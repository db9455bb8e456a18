"""Reductions over dims (with keepdim): sum, mean, prod, var, std, logsumexp, norm; and sum_to,
the unbroadcast of gradients, with its twin expand.

Every reduction passes its kernel the output shape with the reduced dims kept as 1 (`kshape`): a
kernel maps each input element to its output element by broadcasting, and a VJP spreads g back with
`expand(g.reshape(kshape))`.
"""
import math
import warnings

import numpy as np

from .. import dtypes, grad_mode
from ..creation import zeros_like
from ..tensor import Tensor, _wrap_dim
from ..threads import get_num_threads
from .apply import apply, show_attributes
from .named import named
from .registry import OpDef
from .untracked import untracked


def _reduce_meta(kshape, divisor):
    """The kernel sees the output shape with kept dims (to broadcast g back) and the divisor:
    1 for a sum, the count for a mean, whose gradient torch divides by it (a product by 1 / count
    rounds otherwise in a third of float64 elements)."""
    return (len(kshape), *kshape), (divisor,)


def _reduce_vjp(ctx, g):
    """torch's sum_backward: the reduced dims unsqueezed back (UnsqueezeBackward0; a 0-d g is
    expanded as it is), expanded; a mean's then divided by the count (DivBackward1)."""
    from .elementwise import div_scalar
    from .shape import unsqueeze_to
    ndim = int(ctx.ints[0])
    kshape = tuple(int(d) for d in ctx.ints[1:1 + ndim])
    grad = expand(unsqueeze_to(g, kshape) if g._data.ndim else g, ctx.in_shapes[0])
    divisor = float(ctx.floats[0])
    return (grad if divisor == 1.0 else div_scalar(grad, round(divisor)),)


def _sum_forward(x, dims, keepdim, kshape, divisor):
    return np.sum(x, axis=dims, keepdims=keepdim)


def _mean_forward(x, dims, keepdim, kshape, divisor):
    if x.size == 0:
        # the mean of nothing is NaN, quietly as in torch (NumPy warns)
        return np.sum(x, axis=dims, keepdims=keepdim) * x.dtype.type(np.nan)
    return np.mean(x, axis=dims, keepdims=keepdim)


_REDUCE = dict(kernel="reduce_bwd", vjp=_reduce_vjp, meta=lambda dims, keepdim, kshape, divisor:
               _reduce_meta(kshape, divisor))
SUM = OpDef("sum", _sum_forward, node_name="SumBackward0", **_REDUCE)
SUM_DIM = OpDef("sum_dim", _sum_forward, node_name="SumBackward1", **_REDUCE)
MEAN = OpDef("mean", _mean_forward, node_name="MeanBackward0", **_REDUCE)
MEAN_DIM = OpDef("mean_dim", _mean_forward, node_name="MeanBackward1", **_REDUCE)


def _expand_vjp(ctx, g):
    return (sum_to(g, ctx.in_shapes[0]),)


def _expand_forward(x, shape):
    """x broadcast to shape, a view of x's memory as writable as x: torch lets in-place ops write
    through an expanded tensor, or a view of one, where no element is repeated; where one is (a
    dim of stride 0 and size > 1), inplace._check_can_write refuses the write."""
    lead = len(shape) - x.ndim
    strides = [0] * lead + [0 if size == 1 and shape[lead + d] != 1 else stride
                            for d, (size, stride) in enumerate(zip(x.shape, x.strides))]
    return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=x.flags.writeable)


EXPAND = OpDef("expand", _expand_forward, node_name="ExpandBackward0", kernel="expand_bwd",
               vjp=_expand_vjp, view=True)


class _NotGiven:
    """The default of an argument whose absence torch's node tells apart from None: x.sum() is
    SumBackward0 and x.sum(dim=None) SumBackward1 (keeping dim=None); x.var() keeps
    correction=None, x.var(dim=None) correction=1 - torch's argument parser picks another
    overload for each."""

    def __repr__(self):
        return "<not given>"


NOT_GIVEN = _NotGiven()


def shown_dims(dim):
    """The dims as torch's node keeps them: as the user gave them (negative ones too), in a
    tuple; None stays None."""
    if dim is None:
        return None
    if isinstance(dim, (int, np.integer)):
        return (int(dim),)
    return tuple(int(d) for d in dim)


def _dims(x, dim):
    """The reduced dims, sorted; None and () mean all of them (as torch)."""
    ndim = x._data.ndim
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    if len(dim) == 0:
        return tuple(range(ndim))
    wrapped = [_wrap_dim(d, ndim) for d in dim]
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return tuple(sorted(wrapped)) if ndim else ()


def _kept_shape(shape, dims):
    return tuple(1 if d in dims else s for d, s in enumerate(shape))


def _reduction(x, dim, keepdim, op, mean):
    """x summed (or averaged) over dim by op: SUM / MEAN (all dims, dim None) or SUM_DIM /
    MEAN_DIM, whose node shows the dims as given."""
    dims = _dims(x, dim)
    shape = x._data.shape
    count = 1
    for d in dims:
        count *= shape[d]
    kshape = _kept_shape(shape, dims)
    divisor = float(count if count else "nan") if mean else 1.0
    out = apply(op, (x,), {"dims": dims, "keepdim": keepdim, "kshape": kshape, "divisor": divisor})
    shown = {"self_sym_sizes": shape}
    if mean:
        shown["self_sym_numel"] = x._data.size
    if op is SUM_DIM or op is MEAN_DIM:
        shown["dim"] = shown_dims(dim)
        shown["keepdim"] = bool(keepdim)
    show_attributes(out, **shown)
    return out


def as_reduction_dtype(x, dtype):
    """x cast to a reduction's dtype= (None: x itself). An integer or bool dtype has no gradient:
    torch refuses it for an input that would need one."""
    if dtype is None:
        return x
    dtype = np.dtype(dtype)
    if not dtypes.is_floating(dtype) and x._requires_grad and grad_mode.state.grad_enabled:
        raise RuntimeError(f"Autograd not support dtype: {dtypes.scalar_type_name(dtype)}")
    return x.to(dtype)


def integer_result_dtype(x, dtype):
    """The dtype of an integer or bool sum or product: int64, unless dtype= asked for another
    (int32 wraps around, a bool sum is an any and a bool product an all, as in torch)."""
    return np.int64 if dtype is None else x._data.dtype


def sum(x, dim=NOT_GIVEN, keepdim=False, *, dtype=None):
    """Sum over all elements, or over dim (an int or a tuple), keeping reduced dims if asked."""
    op = SUM if dim is NOT_GIVEN else SUM_DIM
    if dim is NOT_GIVEN:
        dim = None
    x = as_reduction_dtype(x, dtype)
    if not dtypes.is_floating(x._data.dtype):
        return untracked(np.sum, x._data, axis=_dims(x, dim), keepdims=keepdim,
                         dtype=integer_result_dtype(x, dtype))
    return _reduction(x, dim, keepdim, op, mean=False)


def mean(x, dim=NOT_GIVEN, keepdim=False, *, dtype=None):
    if dtype is not None and not dtypes.is_floating(np.dtype(dtype)):
        raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be either a "
                           "floating point or complex dtype. Got: "
                           f"{dtypes.scalar_type_name(np.dtype(dtype))}")
    x = as_reduction_dtype(x, dtype)
    if not dtypes.is_floating(x._data.dtype):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           "floating point or complex dtype. Got: "
                           f"{dtypes.scalar_type_name(x._data.dtype)}")
    op = MEAN if dim is NOT_GIVEN else MEAN_DIM
    return _reduction(x, None if dim is NOT_GIVEN else dim, keepdim, op, mean=True)


def sum_to(x, shape):
    """Sum x down to `shape` (which x broadcasts from): the gradient of a broadcast."""
    shape = tuple(shape)
    if tuple(x._data.shape) == shape:
        return x
    if not shape:
        return _reduction(x, None, False, SUM, mean=False)   # torch's: the full sum
    lead = x._data.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + d for d, s in enumerate(shape)
                                      if s == 1 and x._data.shape[lead + d] != 1)
    # torch's sum_to: one sum over the broadcast dims, keeping them (SumBackward1), then a view
    # without the leading ones
    if dims:
        x = _reduction(x, dims, True, SUM_DIM, mean=False)
    return x.view(shape) if lead else x


def expand(x, *shape, size=None):
    """A broadcast view of x with the given shape (-1 keeps a dim): a new tensor even when the
    shape is x's, as in torch. The sizes come as arguments or one sequence (size=), never none:
    a 0-d shape is (), as for torch."""
    if size is not None and not shape:
        shape = (size,)
    if not shape:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    lead = len(shape) - x._data.ndim
    if lead < 0:
        raise RuntimeError(f"expand({dtypes.tensor_type_name(x._data)}{{{list(x._data.shape)}}}, "
                           f"size={list(shape)}): the number of sizes provided ({len(shape)}) must "
                           f"be greater or equal to the number of dimensions in the tensor "
                           f"({x._data.ndim})")
    # torch checks the dims from the last one back, a leading -1 among them
    for d in reversed(range(len(shape))):
        size = x._data.shape[d - lead] if d >= lead else 1
        if shape[d] == -1 and d < lead:
            raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                               f"non-existing dimension {d}")
        if shape[d] != -1 and size != 1 and size != shape[d]:
            raise RuntimeError(f"The expanded size of the tensor ({shape[d]}) must match the "
                               f"existing size ({size}) at non-singleton dimension {d}.  "
                               f"Target sizes: {list(shape)}.  Tensor sizes: {list(x._data.shape)}")
    full = tuple(x._data.shape[d - lead] if s == -1 else s for d, s in enumerate(shape))
    out = apply(EXPAND, (x,), {"shape": full})
    show_attributes(out, self_sym_sizes=x._data.shape)
    out._vc = x._shared_vc()
    return out


def broadcast_to(x, shape):
    return expand(x, tuple(shape))


# ---- reductions that keep their groups: prod, var, std, logsumexp, norm -------------------------
def _kept_meta(kshape, **_):
    return (len(kshape), *kshape), ()


def _kshape(ctx):
    ndim = int(ctx.ints[0])
    return tuple(int(d) for d in ctx.ints[1:1 + ndim])


def _spread(value, ctx):
    """A per-output value (g, or the output itself) back on the input's shape."""
    return expand(value.reshape(_kshape(ctx)), ctx.in_shapes[0])


def _unsqueezed(value, ctx, whole=True):
    """A per-output value (g, or the output itself) as torch's backward formulas restore it: the
    reduced dims unsqueezed back one by one (unsqueeze_multiple, UnsqueezeBackward0 nodes under
    create_graph), broadcasting against the input doing the rest. `whole=False`: a 0-d value (of
    a reduction of everything) stays as it is, as norm_backward's without dims."""
    if not whole and value._data.ndim == 0:
        return value
    from .shape import unsqueeze_to
    return unsqueeze_to(value, _kshape(ctx))


def _reduced_dims(ctx):
    return tuple(d for d, k in enumerate(_kshape(ctx)) if k == 1)


def _group_reduction(op, x, dims, keepdim, **attrs):
    kshape = _kept_shape(x._data.shape, dims)
    return apply(op, (x,), dict(attrs, dims=dims, keepdim=keepdim, kshape=kshape))


def _masked(mask, value):
    """value, with zeros where the constant bool array mask holds (a NumPy comparison of 0-d
    arrays gives a scalar: made an array again here): torch's masked_fill_ in these backward
    formulas, MaskedFillBackward0 under create_graph."""
    from .index import masked_fill
    return masked_fill(value, np.asarray(mask), 0.0)


def _safe(mask, value):
    """value with ones where mask holds: divide by it or raise it to a power without making
    infinities that would turn a masked-out gradient into nan."""
    from .elementwise import where
    return where(Tensor._make(np.asarray(mask), False), 1.0, value)


def _require_floating(x, name):
    if not dtypes.is_floating(x._data.dtype):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{dtypes.scalar_type_name(x._data.dtype)}")


def _prod_forward(x, dims, keepdim, kshape):
    return np.prod(x, axis=dims, keepdims=keepdim)


def _prod_vjp(ctx, g):
    x, out = ctx.saved
    if x._data.ndim == 0:
        return (g,)     # torch's prod_backward: g itself, so create_graph records nothing here
    g = _spread(g, ctx)
    if not (x._data == 0).any():
        return (g * _spread(out, ctx) / x,)
    return (g * _product_of_others(x, _kshape(ctx)),)


def _product_of_others(x, kshape):
    """For each element, the product of the others in its group, zeros included: exclusive
    cumulative products from the left and from the right. prod reduces all dims or one."""
    from .scan import cumprod
    from .shape import cat, flip
    reduced = [d for d, (s, k) in enumerate(zip(x._data.shape, kshape)) if k == 1 and s != 1]
    if not reduced:
        return x * 0.0 + 1.0
    if len(reduced) > 1:
        return _product_of_others(x.reshape(-1), (1,)).reshape(x._data.shape)
    d = reduced[0]

    def exclusive(t):
        ones = np.ones(t._data.shape[:d] + (1,) + t._data.shape[d + 1:], t._data.dtype)
        head = t[(slice(None),) * d + (slice(0, -1),)]
        return cumprod(cat([Tensor._make(ones, False), head], d), d)
    return exclusive(x) * flip(exclusive(flip(x, (d,))), (d,))


_GROUP = dict(saves=("x", "out"), meta=_kept_meta)
PROD = OpDef("prod", _prod_forward, node_name="ProdBackward0", kernel="prod_bwd", vjp=_prod_vjp,
             **_GROUP)
PROD_DIM = OpDef("prod_dim", _prod_forward, node_name="ProdBackward1", kernel="prod_bwd",
                 vjp=_prod_vjp, **_GROUP)


def prod(x, dim=None, keepdim=False, *, dtype=None):
    """Product of all elements, or along one dim. Gradients are exact with zeros in the input."""
    if dim is not None and not isinstance(dim, (int, np.integer)):
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}: torch's "
                        f"prod reduces one dim or all of them")
    x = as_reduction_dtype(x, dtype)
    if not dtypes.is_floating(x._data.dtype):
        return untracked(np.prod, x._data, axis=_dims(x, dim), keepdims=keepdim,
                         dtype=integer_result_dtype(x, dtype))
    if dim is None:
        return _group_reduction(PROD, x, _dims(x, None), False)
    out = _group_reduction(PROD_DIM, x, _dims(x, dim), keepdim)
    show_attributes(out, dim=int(dim), keepdim=bool(keepdim))
    return out


def _var_attrs(x, dim, unbiased, correction, name):
    """Reduced dims, torch's scale 2 / (N - correction) of var's gradient, and the correction
    torch's node shows (name: the public function, which torch's warning names).

    torch's node keeps the correction its overload received: correction= as given (None too);
    else, where dim or unbiased is given, unbiased as 1 or 0 (var(x, dim, unbiased=True)); else
    None."""
    if isinstance(dim, bool):            # torch.var(x, unbiased)
        dim, unbiased = None, dim
    bessel = 1 if unbiased is None or unbiased else 0
    if correction is not NOT_GIVEN:
        shown_correction = correction
    else:
        shown_correction = None if unbiased is None and dim is NOT_GIVEN else bessel
    if correction is NOT_GIVEN or correction is None:
        correction = bessel
    dims = _dims(x, None if dim is NOT_GIVEN else dim)
    count = 1
    for d in dims:
        count *= x._data.shape[d]
    dof = count - correction
    if dof <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=4)
    if isinstance(dim, (tuple, list)) and not dim:
        # an empty dim list reduces every element forward, but torch's var_backward counts the
        # elements of no dims as 1: its scale is 2 / (1 - correction), inf for Bessel's
        dof = 1 - correction
    return dims, correction, (2.0 / dof if dof else math.inf), shown_correction


def _var_forward(x, dims, keepdim, kshape, correction, scale):
    # var() already warned as torch does; NumPy's own warning would say it twice
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.var(x, axis=dims, ddof=correction, keepdims=keepdim)


def _std_forward(x, dims, keepdim, kshape, correction, scale):
    return np.sqrt(_var_forward(x, dims, keepdim, kshape, correction, scale))


def _var_grad(x, g, ctx):
    """torch's var_backward: (2 / (N - correction)) * g * (x - mean), the scale a Scalar
    (MulBackward1) and g's reduced dims unsqueezed back (UnsqueezeBackward0), broadcast by the
    products; a 0-d g, of a reduction of everything, with the mean of everything."""
    from .elementwise import mul_scalar
    from .shape import unsqueeze_to
    if g._data.ndim == 0:
        centred = x - mean(x)
    else:
        g = unsqueeze_to(g, _kshape(ctx))
        centred = x - mean(x, _reduced_dims(ctx), keepdim=True)
    return mul_scalar(g, float(ctx.floats[0])) * centred


def _var_vjp(ctx, g):
    return (_var_grad(ctx.saved[0], g, ctx),)


def _std_vjp(ctx, g):
    x, out = ctx.saved
    zero = out._data == 0
    # torch's (g / (2 std)).masked_fill_(std == 0, 0), NaN again where std is 0 (see _norm_vjp)
    from .elementwise import mul_scalar
    return (_var_grad(x, _masked(zero, g / mul_scalar(out, 2.0)), ctx),)


def _var_meta(kshape, scale, **_):
    return (len(kshape), *kshape), (scale,)


VAR = OpDef("var", _var_forward, node_name="VarBackward0", saves=("x",), kernel="var_bwd",
            vjp=_var_vjp, meta=_var_meta)
STD = OpDef("std", _std_forward, node_name="StdBackward0", saves=("x", "out"), kernel="std_bwd",
            vjp=_std_vjp, meta=_var_meta)


def _spread_of(op, name, x, dim, unbiased, keepdim, correction):
    """var or std (op) and the attributes torch's node shows."""
    if not dtypes.is_floating(x._data.dtype):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims, correction, scale, shown_correction = _var_attrs(x, dim, unbiased, correction, name)
    out = _group_reduction(op, x, dims, keepdim, correction=correction, scale=scale)
    shown_dim = None if dim is NOT_GIVEN or isinstance(dim, bool) else shown_dims(dim)
    return out, {"correction": shown_correction, "dim": shown_dim, "keepdim": bool(keepdim)}


def var(x, dim=NOT_GIVEN, unbiased=None, keepdim=False, *, correction=NOT_GIVEN):
    """Variance over dims with Bessel's correction (correction=1) unless told otherwise."""
    out, shown = _spread_of(VAR, "var", x, dim, unbiased, keepdim, correction)
    show_attributes(out, **shown)
    return out


def std(x, dim=NOT_GIVEN, unbiased=None, keepdim=False, *, correction=NOT_GIVEN):
    out, shown = _spread_of(STD, "std", x, dim, unbiased, keepdim, correction)
    show_attributes(out, **shown)
    return out


def var_mean(x, dim=NOT_GIVEN, unbiased=None, keepdim=False, *, correction=NOT_GIVEN):
    """(var, mean) over the same dims, as torch returns them."""
    spread, shown = _spread_of(VAR, "var_mean", x, dim, unbiased, keepdim, correction)
    return _on_one_node("VarMeanBackward0", x, shown, spread, _welford_mean(x, dim, keepdim))


def std_mean(x, dim=NOT_GIVEN, unbiased=None, keepdim=False, *, correction=NOT_GIVEN):
    """(std, mean) over the same dims."""
    spread, shown = _spread_of(STD, "std_mean", x, dim, unbiased, keepdim, correction)
    return _on_one_node("StdMeanBackward0", x, shown, spread, _welford_mean(x, dim, keepdim))


def _welford_mean(x, dim, keepdim):
    """The mean of var_mean and std_mean. torch computes it with Welford's update
    m += (v - m) / n along each group, in which an infinity turns every later step into
    inf - inf: the mean is NaN unless the group's only infinity is its last element. NaN is
    added where that happens, so the gradient stays mean's."""
    dim = _mean_dim(dim)
    out = mean(x, dim, keepdim)
    data = x._data
    if type(data) is not np.ndarray or data.dtype.kind != "f" or not np.isinf(data).any():
        return out
    dims = _dims(x, None if dim is NOT_GIVEN else dim)
    infinite = np.isinf(data)
    count = infinite.sum(axis=dims, keepdims=True)
    last = infinite[tuple(slice(-1, None) if d in dims else slice(None)
                          for d in range(data.ndim))]
    lost = (count > 1) | ((count == 1) & ~last)
    if not keepdim:
        lost = lost.reshape(out._data.shape)
    return out + Tensor._make(np.where(lost, np.nan, 0.0).astype(data.dtype), False)


def _mean_dim(dim):
    """The dim of var_mean's and std_mean's mean: a bool is unbiased (var_mean(x, True)), and
    the mean is over all dims then."""
    return NOT_GIVEN if isinstance(dim, bool) else dim


def _on_one_node(node_name, x, shown, *results):
    """Results that torch computes as one op, each shown with that op's node name and the
    attributes `shown` of its node."""
    return tuple(named(r, node_name, inputs=(x,), attributes=shown) for r in results)


def _logsumexp_forward(x, dims, keepdim, kshape):
    top = np.amax(x, axis=dims, keepdims=True, initial=-np.inf)
    top = np.where(np.isinf(top), 0, top)    # all -inf (or an inf) in a group: shifting makes nan
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(x - top), axis=dims, keepdims=True)) + top
    return (out if keepdim else out.reshape([s for d, s in enumerate(out.shape) if d not in dims])
            ).astype(x.dtype, copy=False)


def _logsumexp_vjp(ctx, g):
    from .elementwise import exp
    x, out = ctx.saved
    return (_unsqueezed(g, ctx) * exp(x - _unsqueezed(out, ctx)),)


LOGSUMEXP = OpDef("logsumexp", _logsumexp_forward, node_name="LogsumexpBackward0",
                  kernel="logsumexp_bwd", vjp=_logsumexp_vjp, **_GROUP)


def logsumexp(x, dim, keepdim=False):
    """log(sum(exp(x))) over dim, computed without overflow."""
    from .elementwise import _float_input
    x = _float_input(x)
    out = _group_reduction(LOGSUMEXP, x, _dims(x, dim), keepdim)
    show_attributes(out, dim=shown_dims(dim), keepdim=bool(keepdim))
    return out


def _norm_forward(x, dims, keepdim, kshape, p):
    a = np.abs(x)
    if p == math.inf:
        out = np.amax(a, axis=dims, keepdims=keepdim, initial=0)
    elif p == -math.inf:
        out = np.amin(a, axis=dims, keepdims=keepdim, initial=math.inf)
    elif p == 0:
        out = np.sum(a != 0, axis=dims, keepdims=keepdim)
    elif p == 2:
        out = np.sqrt(np.sum(a * a, axis=dims, keepdims=keepdim))
    else:
        out = _p_norm(a, dims, keepdim, p)
    return np.asarray(out, x.dtype)


# Note [p-norms as torch's NormOps]
# torch's vector norm for p = 1 adds |x| one element after another; for any p but 0, 2 and inf it
# adds |x| ** p one element after another in the input's type
# (binary_kernel_reduce), then raises the sum to 1 / p (that quotient in the input's type too),
# with C's pow. So: a sequential accumulate, not NumPy's pairwise sum; and C's pow, which NumPy's
# power is not (its SIMD power differs in the last bit): float32 takes the float64 power rounded
# once, float64 math.pow itself. A reduction of 2 ** 15 elements or more into one result is split
# between torch's threads (parallel_for's equal chunks), whose sums are then added in order.
_GRAIN = 32768


def _c_pow_number(a, p):
    """C's pow(a, p) for a >= 0, where Python's raises: inf at 0 ** negative and on overflow."""
    try:
        return math.pow(a, p)
    except ValueError:
        return math.inf
    except OverflowError:
        return math.inf


_C_POW = np.frompyfunc(_c_pow_number, 2, 1)


def _c_pow(a, p):
    if a.dtype == np.float32:
        with np.errstate(divide="ignore", over="ignore"):
            return np.power(a.astype(np.float64), float(p)).astype(np.float32)
    return np.asarray(_C_POW(a, float(p)), np.float64).reshape(np.shape(a))


def _sequential_sum(rows, dtype):
    """Each row's sum, added one element after another (by torch's threads' chunks for one
    long row)."""
    count = rows.shape[-1]
    threads = get_num_threads()
    if rows.size != count or count < _GRAIN or threads == 1:
        return np.add.accumulate(rows, axis=-1, dtype=dtype)[..., -1]
    chunks = min(threads, -(-count // _GRAIN))
    size = -(-count // chunks)
    total = dtype.type(0)
    for start in range(0, count, size):
        chunk = rows[..., start:start + size]
        total = total + np.add.accumulate(chunk, axis=-1, dtype=dtype)[..., -1]
    return total


def _p_norm(a, dims, keepdim, p):
    dtype = a.dtype
    reduced = tuple(range(a.ndim)) if dims is None else tuple(d % max(a.ndim, 1) for d in dims)
    kept = [d for d in range(a.ndim) if d not in reduced]
    count = math.prod(a.shape[d] for d in reduced if d < a.ndim)
    rows = np.transpose(a, kept + [d for d in reduced if d < a.ndim]).reshape(
        [a.shape[d] for d in kept] + [count])
    if count == 1:          # torch's reduction of one element is that element: |x|
        out = rows[..., 0]
    elif count == 0:
        out = np.zeros(rows.shape[:-1], dtype)
    elif p == 1:            # torch's NormOneOps: the magnitudes added in the same way
        out = _sequential_sum(rows, dtype)
    else:
        total = np.asarray(_sequential_sum(_c_pow(rows, p), dtype))
        out = _c_pow(total, dtype.type(1) / dtype.type(p))
    if keepdim:
        out = out.reshape([1 if d in reduced else n for d, n in enumerate(a.shape)])
    return out


def _norm_vjp(ctx, g):
    from .elementwise import abs as abs_, sign
    x, out = ctx.saved
    p = float(ctx.floats[0])
    g, out = _unsqueezed(g, ctx, whole=False), _unsqueezed(out, ctx, whole=False)
    if math.isinf(p):
        # torch's mask: the elements that are the norm, and NaNs (a NaN norm gives them g / count
        # times sgn(NaN) = 0, where no element equal to it would divide by zero)
        ties = ((np.abs(x._data) == out._data) | np.isnan(x._data)).astype(x._data.dtype)
        share = ties / np.sum(ties, axis=_reduced_dims(ctx), keepdims=True)
        return (sign(x) * g * Tensor._make(np.asarray(share), False),)
    if p == 0:
        return (zeros_like(x),)     # not g * 0: an infinite g gives zeros too, as in torch
    if p == 1:
        return (sign(x) * g,)
    zero_out = out._data == 0
    if p == 2:
        # torch's g * (x / norm).masked_fill_(norm == 0, 0): differentiated again, the masked 0
        # divided by the zero norm is NaN, as torch's second derivative there
        return (g * _masked(zero_out, x / out),)
    zero_x = x._data == 0
    magnitude = _masked(zero_x, _safe(zero_x, abs_(x)) ** (p - 1))
    return (sign(x) * magnitude * _masked(zero_out, g * _safe(zero_out, out) ** (1 - p)),)


def _norm_meta(kshape, p, **_):
    return (len(kshape), *kshape), (p,)


NORM = OpDef("norm", _norm_forward, node_name="LinalgVectorNormBackward0", saves=("x", "out"),
             kernel="norm_bwd", vjp=_norm_vjp, meta=_norm_meta)


def _refuse_empty(x, p, dim):
    """torch's refusal of a norm that has no identity (p below 0, or inf) over an empty dim,
    naming the first such dim as given (C++'s printing of the number, its missing space)."""
    given = () if dim is None else ((dim,) if isinstance(dim, (int, np.integer)) else tuple(dim))
    if not given:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on an empty tensor "
                           f"because the operation does not have an identity")
    for d in given:
        if x._data.shape[_wrap_dim(d, x._data.ndim)] == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on the dimension "
                               f"{d}because this dimension is empty and the operation does not "
                               f"have an identity")


def norm(x, p="fro", dim=None, keepdim=False, *, dtype=None):
    """Vector p-norm over dim (all elements by default): p = 2 ('fro'), 1, inf, -inf, 0 or any
    other number. Gradients follow torch's (zero where the norm is zero)."""
    if dtype is not None:
        x = x.to(dtype)
    # torch's node keeps the order its linalg.vector_norm received: "fro" as the int 2, None
    # as 2.0, a number as given
    if p == "fro":
        p = 2
    elif p is None:
        p = 2.0
    if isinstance(p, str):
        raise RuntimeError(f"norm: p={p!r} (a matrix norm) is not supported; use a number")
    _require_floating(x, "linalg.vector_norm")
    if (p < 0 or p == math.inf) and x._data.size == 0:
        _refuse_empty(x, p, dim)
    out = _group_reduction(NORM, x, _dims(x, dim), keepdim, p=float(p))
    show_attributes(out, dim=shown_dims(dim), keepdim=bool(keepdim), ord=p)
    return out
