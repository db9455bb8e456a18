"""scatter_reduce and index_reduce: src's values reduced (sum, prod, mean, amax, amin) into input
at index along dim, with input's own value counted too (include_self=True) or not.

Composed from differentiable ops, so their gradients are torch's ScatterReduceBackward0's at any
order (the node names are those of the ops below):
- sum adds src at the places (scatter_add), after zeroing the places when input is left out;
  mean divides that by how many values each place got (a constant);
- prod, amax and amin lay each place's values out as one row of a (places, most values) matrix,
  padded with the reduction's identity, and reduce the rows (prod, amax, amin): prod's gradient
  handles zeros as torch's does, and amax/amin share it evenly between tied values, as torch's
  scatter_reduce does (with include_self=False, a left-out own value equal to the result takes a
  share that goes nowhere, as in torch). The matrix is as wide as the most values one place
  gets.
"""
import numpy as np

from .. import dtypes
from ..tensor import Tensor, _wrap_dim
from .index import SCATTER_ADD, _check_bounds, _index_array, _scatter_add, _scatter_positions, \
    masked_fill, take
from .named import named
from .shape import cat, reshape
from .untracked import to_host

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
# torch also takes the names of scatter's older reduce argument
_ALIASES = {"max": "amax", "min": "amin"}


def _identity(reduce, dtype):
    """The value a padded slot holds: it never changes a row's reduction."""
    if reduce == "prod":
        return 1
    if dtypes.is_floating(dtype):
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _constant(array, like):
    """A host array as a constant tensor on like's device."""
    return Tensor._make(array, False).to(like.device)


def _rows(positions, own):
    """An index into the values per place and slot: each place's row holds the value own names
    (none where own is -1), then the src values written to it, in order; the pad (the last value
    but the detached inputs) fills the rest."""
    places = own.size
    flat = positions.reshape(-1)
    has_own = (own >= 0).astype(np.int64)
    width = max(int((np.bincount(flat, minlength=places) + has_own).max()) if places else 0, 1)
    rows = np.full((places, width), places + flat.size, np.int64)
    rows[has_own.astype(np.bool_), 0] = own[own >= 0]
    order = np.argsort(flat, kind="stable")
    sorted_places = flat[order]
    # the slot of each src value: after the place's own value, in order of arrival
    first_of_place = np.searchsorted(sorted_places, sorted_places, side="left")
    slots = np.arange(flat.size) - first_of_place + has_own[sorted_places]
    rows[sorted_places, slots] = places + order
    return rows


def _ties_left_out(input, positions, src, reduce, written):
    """The written places whose own value, left out, equals their result: torch's gradient shares
    the result's gradient with them too (and then drops their share), so they sit in the row as
    constants."""
    data = to_host(input._data).reshape(-1)
    result = np.where(written, _identity(reduce, data.dtype), data)
    (np.maximum if reduce == "amax" else np.minimum).at(result, positions.reshape(-1),
                                                        to_host(src._data).reshape(-1))
    return written & (data == result)


def _reduce_at(input, positions, src, reduce, include_self):
    places = input._data.size
    written = np.zeros(places, np.bool_)
    written[positions.reshape(-1)] = True
    if reduce in ("sum", "mean"):
        base = input if include_self else masked_fill(
            input, _constant(written.reshape(input._data.shape), input), 0)
        total = _scatter_add(SCATTER_ADD, base, src, positions)
        if reduce == "sum":
            return total
        own = 1 if include_self else ~written
        counts = np.maximum(np.bincount(positions.reshape(-1), minlength=places) + own, 1)
        counts = _constant(counts.reshape(input._data.shape).astype(input._data.dtype), input)
        return total / counts if dtypes.is_floating(input._data.dtype) else total // counts
    # values: input, src, the pad, input again as constants
    pad = _constant(np.full(1, _identity(reduce, input._data.dtype), input._data.dtype), input)
    flat_input = reshape(input, (-1,))
    values = cat([flat_input, reshape(src, (-1,)), pad, flat_input.detach()])
    own = np.arange(places)
    if not include_self:
        own = np.where(written, -1, own)
        if reduce != "prod":
            ties = _ties_left_out(input, positions, src, reduce, written)
            own[ties] = places + src._data.size + 1 + np.flatnonzero(ties)
    laid_out = take(values, _rows(positions, own))
    reduced = laid_out.prod(-1) if reduce == "prod" else \
        laid_out.amax(-1) if reduce == "amax" else laid_out.amin(-1)
    return reshape(reduced, input._data.shape)


def _check_src(input, src):
    if src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """out = input, then out[index[i][j]][j] = reduce(out[...], src[i][j]) for dim 0 (and so on),
    reduce one of sum, prod, mean, amax, amin; include_self=False leaves input's value out of
    the places written.

    >>> import numgrad as ng
    >>> ng.tensor([1.0, 2.0]).scatter_reduce(0, ng.tensor([0, 0, 1]), ng.tensor([3.0, 4.0, 5.0]),
    ...                                      "amax")
    tensor([4., 5.])
    """
    reduce = _ALIASES.get(reduce, reduce)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    _check_src(input, src)
    idx = _index_array(index)
    if idx.dtype.kind not in "iu":
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    nd = input._data.ndim
    d = _wrap_dim(dim, nd)
    if nd and (idx.ndim != nd or src._data.ndim != nd):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if any(i > s for i, s in zip(idx.shape, src._data.shape)) or \
            any(i > s for k, (i, s) in enumerate(zip(idx.shape, input._data.shape)) if k != d):
        raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self "
                           f"{list(input._data.shape)} apart from dimension {d} and to be no "
                           f"larger size than src {list(src._data.shape)}")
    _check_bounds(idx, input._data.shape[d] if nd else 1, d)
    piece = src[tuple(slice(0, s) for s in idx.shape)] if src._data.shape != idx.shape else src
    positions = _scatter_positions(input._data.shape, d, idx)
    return named(_reduce_at(input, positions, piece, reduce, include_self),
                 "ScatterReduceBackward0", inputs=(input, src), view_of_intermediate=True,
                 attributes={"dim": dim, "index": Tensor._make(idx, False), "reduce": reduce,
                             "include_self": include_self})


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """out = input, then the slice index[i] of out along dim reduced with source's slice i
    (reduce one of prod, mean, amax, amin).

    >>> import numgrad as ng
    >>> ng.ones(2, 2).index_reduce(0, ng.tensor([1, 1]), ng.tensor([[2.0, 3.0], [4.0, 5.0]]),
    ...                            "prod")
    tensor([[ 1.,  1.],
            [ 8., 15.]])
    """
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    idx = _index_array(index)
    if idx.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: "
                         f"{idx.ndim} with type: {dtypes.scalar_type_name(idx.dtype)} and size: "
                         f"{list(idx.shape)}")
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{dtypes.scalar_type_name(idx.dtype)}")
    _check_src(input, source)
    nd = input._data.ndim
    d = _wrap_dim(dim, nd)
    idx = idx.reshape(-1)
    count = source._data.shape[d] if source._data.ndim else 1
    if idx.size != count:
        raise RuntimeError(f"index_reduce_(): Number of indices ({idx.size}) should be equal to "
                           f"source.size(dim): ({count}), for dim: {d}")
    size = input._data.shape[d] if nd else 1
    if idx.size and (idx.min() < -size or idx.max() >= size):
        raise IndexError("index out of range in self")
    # source's slice i goes to slice idx[i]: scatter_reduce's index, idx repeated across the rest
    along = (-1,) + (1,) * (nd - d - 1)
    full = np.broadcast_to(np.mod(idx, size).reshape(along), source._data.shape)
    positions = _scatter_positions(input._data.shape, d, full)
    return named(_reduce_at(input, positions, source, reduce, include_self),
                 "IndexReduceBackward0", inputs=(input, source), view_of_intermediate=True)


PUBLIC = ("scatter_reduce", "index_reduce")
METHODS = PUBLIC
# the in-place forms: prod's and amax's gradients read input's old value, which the write must
# not overwrite
INPLACE = {"scatter_reduce_": (scatter_reduce, True), "index_reduce_": (index_reduce, True)}
