"""Ops that pick elements: amax/amin, max/min, argmax/argmin, sort/argsort and topk.

The gradient goes back to the picked elements only. Without an index (amax/amin, and max/min over
everything) elements tied for the extreme share it evenly, as in torch. Ops that return
(values, indices) are one node with two outputs; the indices output is saved (the kernel scatters
g back through it) and never requires grad.
"""
import collections
import types

import numpy as np

from .. import dtypes
from ..kernels.selection import exact_lines, topk_indices
from ..tensor import Tensor, _wrap_dim
from .apply import apply, show_attributes
from .dim_argument import int_dim
from .reduce import (_dims, _group_reduction, _kept_meta, _kshape, _reduced_dims, _spread,
                     shown_dims)
from .registry import OpDef
from .untracked import untracked
from .scan import line_meta


def _return_type(name):
    """A named tuple (values, indices) printed as torch.return_types.<name>."""
    cls = collections.namedtuple(name, ("values", "indices"))
    cls.__module__ = "numgrad.return_types"
    cls.__repr__ = lambda self: (f"numgrad.return_types.{name}(\nvalues={self.values!r},\n"
                                 f"indices={self.indices!r})")
    return cls


return_types = types.SimpleNamespace(**{name: _return_type(name) for name in ("max", "min", "sort", "topk")})


# ---- amax / amin: the extreme's gradient shared by ties ------------------------------------------
def _ties(ctx, nans_tie):
    """The elements equal to the result (and, where `nans_tie`, NaNs beside a NaN result), and
    their count per group: constants of the kernels' rule (amax_bwd, max_all_bwd in
    kernels/cpu.py)."""
    x, out = ctx.saved
    result = _spread(out, ctx)._data
    mask = x._data == result
    if nans_tie:
        mask |= np.isnan(x._data) & np.isnan(result)
    # (NumPy gives scalars for 0-d arrays: arrays again here)
    count = np.asarray(np.sum(mask, axis=_reduced_dims(ctx), keepdims=True), x._data.dtype)
    return Tensor._make(np.asarray(mask), False), count


def _extreme_vjp(ctx, g):
    """torch's scale_grad_by_count(restore_reduced_dims(g), mask): (g / count) * mask, g viewed
    with the reduced dims back (NaN for the others of a group whose count is 0: NaN throughout,
    as torch)."""
    mask, count = _ties(ctx, False)
    kshape = _kshape(ctx)
    if tuple(g.shape) != kshape:
        g = g.reshape(kshape)
    with np.errstate(divide="ignore"):
        return ((g / Tensor._make(count, False)) * mask.to(g.dtype),)


def _max_all_vjp(ctx, g):
    """torch's evenly_distribute_backward: g / count put into zeros where the ties are, so the
    others get 0 even where g is NaN or infinite."""
    from .index import masked_fill
    mask, count = _ties(ctx, True)
    x = ctx.saved[0]
    zeros = Tensor._make(np.zeros(x._data.shape, x._data.dtype), False)
    return (masked_fill(zeros, mask, g / Tensor._make(count.reshape(()), False)),)


def _amax_forward(x, dims, keepdim, kshape):
    return np.amax(x, axis=dims, keepdims=keepdim)


def _amin_forward(x, dims, keepdim, kshape):
    return np.amin(x, axis=dims, keepdims=keepdim)


# amax's ties are the elements equal to the result (none when it is NaN: NaN throughout, as
# torch); max()/min() without dim share a NaN result among the NaNs (evenly_distribute_backward)
_EXTREME = dict(saves=("x", "out"), kernel="amax_bwd", vjp=_extreme_vjp, meta=_kept_meta)
_EXTREME_ALL = dict(_EXTREME, kernel="max_all_bwd", vjp=_max_all_vjp)
AMAX = OpDef("amax", _amax_forward, node_name="AmaxBackward0", **_EXTREME)
AMIN = OpDef("amin", _amin_forward, node_name="AminBackward0", **_EXTREME)
MAX_ALL = OpDef("max_all", _amax_forward, node_name="MaxBackward1", **_EXTREME_ALL)
MIN_ALL = OpDef("min_all", _amin_forward, node_name="MinBackward1", **_EXTREME_ALL)


def _check_nonempty(name, x, dims, dim_given):
    shape = x._data.shape
    if not dim_given and x._data.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == "
                           "0. Specify the reduction dim with the 'dim' argument.")
    for d in dims:
        if shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _extreme(op, name, x, dim, keepdim):
    dims = _dims(x, dim)
    if dim is not None and x._data.ndim:
        # amax and amin name the first empty dim in the order given, as given (-1, not 1)
        for d in (dim,) if isinstance(dim, (int, np.integer)) else dim:
            if x._data.shape[_wrap_dim(d, x._data.ndim)] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    _check_nonempty(name, x, dims, dim is not None and dim != ())
    if not dtypes.is_floating(x._data.dtype):
        forward = np.amax if op in (AMAX, MAX_ALL) else np.amin
        return untracked(forward, x._data, axis=dims, keepdims=keepdim)
    out = _group_reduction(op, x, dims, keepdim)
    if op is AMAX or op is AMIN:          # max() and min() keep no dims (MaxBackward1)
        show_attributes(out, dim=shown_dims(dim), keepdim=bool(keepdim))
    return out


def amax(x, dim=(), keepdim=False):
    """The largest element over dims (all by default); ties share the gradient evenly."""
    return _extreme(AMAX, "amax", x, dim, keepdim)


def amin(x, dim=(), keepdim=False):
    return _extreme(AMIN, "amin", x, dim, keepdim)


# ---- values picked by an index along one dim: max/min with dim, sort, topk ----------------------
def _select_vjp(ctx, g, _indices_grad):
    from .index import put_add
    outer, n, inner, k = (int(v) for v in ctx.ints[:4])
    index = ctx.saved[0]._data.reshape(outer, k, inner)
    positions = (np.arange(outer)[:, None, None] * n + index) * inner + np.arange(inner)
    return (put_add(g, positions.reshape(g._data.shape), ctx.in_shapes[0]),)


def _select_meta(dim, lines, k, **_):
    outer, n, inner = lines
    return (outer, n, inner, k), ()


def _pick_forward(x, dim, lines, k, keepdim, largest):
    if dim is None:                       # a 0-d input: the element itself, index 0
        return x.copy(), np.zeros((), np.int64)
    index = (np.argmax if largest else np.argmin)(x, axis=dim, keepdims=True)
    values = np.take_along_axis(x, index, axis=dim)
    if not keepdim:
        values, index = values.squeeze(dim), index.squeeze(dim)
    return values, index.astype(np.int64)


def _sort_forward(x, dim, lines, k, descending, **_):
    if dim is None:
        return x.copy(), np.zeros((), np.int64)
    # stable, so ties keep their order (descending too, as torch's stable sort); nan is the
    # largest value, as in torch
    keys = x
    if descending:
        keys = -x.astype(np.int64) if x.dtype == np.bool_ else -x
        if x.dtype.kind == "f":
            keys = np.where(np.isnan(x), -np.inf, keys)
    index = np.argsort(keys, axis=dim, kind="stable")[(slice(None),) * dim + (slice(0, k),)]
    return np.take_along_axis(x, index, axis=dim), index.astype(np.int64)


def _topk_forward(x, dim, lines, k, descending, sorted, **_):
    """torch's CPU kernel's pick and order on every line (kernels/selection.py): a sort's where
    values differ, and torch's elements and order among equal ones (a sort has neither when
    unsorted)."""
    if dim is None or k == 0:
        return _sort_forward(x, dim, lines, k, descending)
    line = np.moveaxis(x, dim, -1)
    top = topk_indices(exact_lines(line), k, descending, sorted)
    # contiguous, as torch's outputs (a moved axis would make reshape copy: UnsafeViewBackward0)
    index = np.moveaxis(top.reshape(line.shape[:-1] + (k,)), -1, dim).copy()
    return np.take_along_axis(x, index, axis=dim), index


_PICK = dict(n_out=2, saves=("out1",), kernel="select_dim_bwd", vjp=_select_vjp,
             meta=_select_meta, saved_names=("indices",), grad_outputs=1)
MAX_DIM = OpDef("max_dim", _pick_forward, node_name="MaxBackward0", **_PICK)
MIN_DIM = OpDef("min_dim", _pick_forward, node_name="MinBackward0", **_PICK)
SORT = OpDef("sort", _sort_forward, node_name="SortBackward0", **_PICK)
TOPK = OpDef("topk", _topk_forward, node_name="TopkBackward0", **_PICK)


def _picked(op, kind, x, dim, k, shown, **attrs):
    """(values, indices) as one node, which shows dim as given, x's sizes and `shown`; the
    indices never require grad."""
    nd = x._data.ndim
    d = _wrap_dim(dim, nd)
    values, indices = apply(op, (x,), dict(attrs, dim=d if nd else None, k=k,
                                           lines=line_meta(x._data.shape, d)))
    show_attributes(values, dim=int(dim), self_sym_sizes=x._data.shape, **shown)
    indices = Tensor._make(indices._data, False, vc=indices._vc)
    return getattr(return_types, kind)(values, indices)


def _max_or_min(x, dim, keepdim, largest):
    name = "max" if largest else "min"
    if isinstance(dim, Tensor):                   # torch.max(a, b): the elementwise maximum
        from .elementwise import maximum, minimum
        return (maximum if largest else minimum)(x, dim)
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}() received an invalid combination of arguments: keepdim "
                            "needs dim")
        return _extreme(MAX_ALL if largest else MIN_ALL, name, x, None, False)
    d = _wrap_dim(dim, x._data.ndim)
    if x._data.ndim:
        _check_nonempty(name, x, (d,), True)
    return _picked(MAX_DIM if largest else MIN_DIM, name, x, dim, 1, {"keepdim": bool(keepdim)},
                   keepdim=keepdim, largest=largest)


def max(x, dim=None, keepdim=False):
    """max(x): the largest element. max(x, dim): (values, indices) along dim. max(x, other): the
    elementwise maximum."""
    return _max_or_min(x, dim, keepdim, True)


def min(x, dim=None, keepdim=False):
    return _max_or_min(x, dim, keepdim, False)


def _arg(name, fn, x, dim, keepdim):
    data = x._data
    if data.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if data.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        shape = (1,) * data.ndim if keepdim else ()
        return untracked(lambda v: np.asarray(fn(v.reshape(-1)), np.int64).reshape(shape), data)
    d = _wrap_dim(dim, data.ndim)
    if data.ndim == 0:
        return Tensor._make(np.zeros((), np.int64), False)
    if data.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return untracked(lambda v: np.asarray(fn(v, axis=d, keepdims=keepdim), np.int64), data)


@int_dim(optional=True)
def argmax(x, dim=None, keepdim=False):
    """Index of the (first) largest element, over everything (flattened) or along dim."""
    return _arg("argmax", np.argmax, x, dim, keepdim)


@int_dim(optional=True)
def argmin(x, dim=None, keepdim=False):
    return _arg("argmin", np.argmin, x, dim, keepdim)


def sort(x, dim=-1, descending=False, stable=False):
    """(values, indices) sorted along dim; the sort is always stable."""
    nd = x._data.ndim
    size = x._data.shape[_wrap_dim(dim, nd)] if nd else 1
    return _picked(SORT, "sort", x, dim, size, {}, descending=descending)


def argsort(x, dim=-1, descending=False, stable=False):
    """The indices that sort x along dim (sort's indices)."""
    return sort(x, dim, descending).indices


@int_dim()
def topk(x, k, dim=-1, largest=True, sorted=True):
    """(values, indices) of the k largest (or smallest) elements along dim, in sorted order
    unless sorted=False. Among equal values the elements and their order are those torch's CPU
    kernel picks (ones(4).topk(1) gives index 2, ones(8).topk(3) [6, 5, 4], ones(200).topk(3)
    [0, 1, 2]): its std::nth_element and std::partial_sort, ported in kernels/selection.py."""
    if x._data.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    nd = x._data.ndim
    size = x._data.shape[_wrap_dim(dim, nd)] if nd else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    return _picked(TOPK, "topk", x, dim, k, {}, descending=largest, sorted=bool(sorted))
