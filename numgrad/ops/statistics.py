"""Statistics: median, nanmean, nansum, aminmax (differentiable, composed from existing ops) and
unique, bincount, searchsorted, bucketize (counts and indices: no gradient, computed by NumPy on
the host for CUDA tensors too, untracked.py).

median's values are copies of the elements picked, never views of the input. Without dim the
gradient is shared evenly by the elements equal to the median, as torch's MedianBackward0 does
(evenly_distribute_backward): the median is amax of those elements (AmaxBackward0, then
IndexBackward0), which shares it; a NaN median is the mean of the NaNs (MeanBackward0). With dim
it goes to the element at the index, as torch's does (GatherBackward0, then SqueezeBackward1
without keepdim). nanmean and nansum zero the NaNs with masked_fill before summing, so NaNs get a
zero gradient as in torch; nanmean ends in DivBackward0, as torch's does.
"""
import collections

import numpy as np

from .. import dtypes, grad_mode
from ..tensor import Tensor, _wrap_dim
from .dim_argument import int_dim
from .index import gather, take
from .named import named
from .predicates import isnan
from .reduce import as_reduction_dtype, shown_dims, sum as _sum
from .select import _return_type, amax, amin, return_types
from .untracked import to_host, untracked

return_types.median = _return_type("median")


def _aminmax_type():
    cls = collections.namedtuple("aminmax", ("min", "max"))
    cls.__module__ = "numgrad.return_types"
    cls.__repr__ = lambda self: (f"numgrad.return_types.aminmax(\nmin={self.min!r},\n"
                                 f"max={self.max!r})")
    return cls


return_types.aminmax = _aminmax_type()


def _median_index(values, axis):
    """Along axis: the index of the lower median, or of the first NaN where there is one (torch's
    median is NaN then)."""
    k = (values.shape[axis] - 1) // 2
    order = np.argsort(values, axis=axis, kind="stable")
    picked = np.take(order, [k], axis=axis)
    nan = np.isnan(values) if values.dtype.kind == "f" else np.zeros(values.shape, np.bool_)
    has_nan = nan.any(axis=axis, keepdims=True)
    return np.where(has_nan, np.argmax(nan, axis=axis, keepdims=True), picked).astype(np.int64)


@int_dim()
def median(input, dim=None, keepdim=False):
    """median(x): the lower median of all elements (NaN if there is one). median(x, dim):
    (values, indices) of the lower medians along dim."""
    data = to_host(input._data)
    if data.dtype == np.bool_:
        kernel = "median_cpu" if dim is None else "median_out"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    if dim is None:
        if data.size == 0 and data.dtype.kind != "f":
            # torch's integer kernel gives the dtype's lowest value for nothing
            lowest = np.iinfo(data.dtype).min if data.dtype.kind in "iu" else False
            return Tensor._make(np.array(lowest, data.dtype), False).to(input.device)
        return named(_median_of_all(input, data), "MedianBackward0", inputs=(input,))
    return median_along(input, data, dim, keepdim, _median_index, return_types.median)


def _median_of_all(input, data):
    """The lower median of every element, whose gradient goes to the elements equal to it."""
    if data.size == 0:
        return take(input, np.zeros(0, np.int64)).mean()       # NaN, as torch's
    flat = data.reshape(-1)
    value = flat[int(_median_index(flat, 0)[0])]
    if value != value:
        # NaN: the mean of the NaNs is NaN, and gives each its even share of the gradient
        return take(input, np.flatnonzero(np.isnan(flat))).mean()
    return amax(take(input, np.flatnonzero(flat == value)))


def median_along(input, data, dim, keepdim, index_of, result):
    """(values, indices) of a median along dim: index_of(data, dim) picks the element, whose
    gradient is the value's (median and nanmedian)."""
    d = _wrap_dim(dim, data.ndim)
    if data.ndim == 0:
        values, indices = input.clone(), Tensor._make(np.zeros((), np.int64), False)
    else:
        if data.shape[d] == 0:
            raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
        idx = index_of(data, d)
        values = gather(input, d, idx)
        indices = Tensor._make(idx, False)
        if type(input._data) is not np.ndarray:
            indices = indices.to(input.device)
        if not keepdim:
            values, indices = values.squeeze(d), indices.squeeze(d)
    # MedianBackward1, NanmedianBackward1: torch's nodes of the forms with dim, a 0-d input's too
    values = named(values, f"{result.__name__.capitalize()}Backward1", inputs=(input,),
                   view_of_intermediate=True,
                   attributes={"dim": int(dim), "keepdim": bool(keepdim),
                               "self_sym_sizes": data.shape})
    return result(values, indices)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum, NaNs counted as zero."""
    input = as_reduction_dtype(input, dtype)
    if not dtypes.is_floating(input._data.dtype):
        return _sum(input, dim, keepdim, dtype=dtype)
    with grad_mode.composite_masks():
        zeroed = input.masked_fill(isnan(input), 0)
    return named(_sum(zeroed, dim, keepdim), "NansumBackward0", input, saved_names=("self",),
                 attributes={"dim": shown_dims(dim), "keepdim": bool(keepdim)})


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the elements that are not NaN (NaN where all are)."""
    if dtype is not None:
        input = input.to(dtype)
    if not dtypes.is_floating(input._data.dtype):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but "
                           f"got {dtypes.scalar_type_name(input._data.dtype)}")
    present = ~isnan(input)
    count = _sum(present, dim, keepdim).to(input._data.dtype)
    # no element present: NaN, as torch gives, without NumPy's warning about 0 / 0
    return nansum(input, dim, keepdim) / count.masked_fill(count == 0, float("nan"))


@int_dim(optional=True)
def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) over everything or along dim; gradients as amin's and amax's."""
    if input._data.size == 0:
        if dim is None:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        d = _wrap_dim(dim, input._data.ndim)
        if input._data.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    dims = () if dim is None else dim
    if dim is None and keepdim:
        dims = tuple(range(input._data.ndim))
    shown = {"dim": None if dim is None else int(dim), "keepdim": bool(keepdim)}
    results = [named(extreme(input, dims, keepdim), "AminmaxBackward0", inputs=(input,),
                     attributes=shown) for extreme in (amin, amax)]
    return return_types.aminmax(*results)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values, with the inverse indices into them and their counts if asked; with dim,
    the distinct slices along dim. Always sorted (torch may sort with sorted=False too)."""
    def part(a, which):
        out = np.unique(a, return_inverse=True, return_counts=True, axis=dim)
        if which == 1:
            return out[1].astype(np.int64).reshape(a.shape if dim is None else -1)
        return out[which].astype(np.int64) if which else out[0]
    data = input._data
    results = [untracked(part, data, 0)]
    if return_inverse:
        results.append(untracked(part, data, 1))
    if return_counts:
        results.append(untracked(part, data, 2))
    return results[0] if len(results) == 1 else tuple(results)


def bincount(input, weights=None, minlength=0):
    """How often each of 0, 1, ... occurs in a 1-D non-negative integer tensor (summing weights
    instead of ones if given), at least minlength long."""
    if input._data.dtype.kind not in "iu":
        raise NotImplementedError("\"bincount_cpu\" not implemented for "
                                  f"'{dtypes.scalar_type_name(input._data.dtype)}'")
    if input._data.ndim != 1 or (to_host(input._data) < 0).any():
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return untracked(lambda a: np.bincount(a, minlength=minlength).astype(np.int64),
                         input._data)
    if tuple(weights.shape) != tuple(input.shape):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dtype = weights._data.dtype if dtypes.is_floating(weights._data.dtype) else np.float64
    return untracked(lambda a, w: np.bincount(a, w, minlength=minlength).astype(dtype),
                     input._data, weights._data)


def _search(boundaries, values, side, out_int32=False):
    """The insertion indices, int64 (int32 with out_int32, as torch's)."""
    dtype = np.int32 if out_int32 else np.int64
    values = np.asarray(values)
    if boundaries.ndim <= 1:
        return np.searchsorted(boundaries, values, side=side).astype(dtype)
    if boundaries.shape[:-1] != values.shape[:-1]:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                           "first N-1 dimensions of boundaries tensor and input value tensor must "
                           "match")
    rows_b = boundaries.reshape(-1, boundaries.shape[-1])
    rows_v = values.reshape(-1, values.shape[-1])
    out = [np.searchsorted(b, v, side=side) for b, v in zip(rows_b, rows_v)]
    return np.asarray(out, dtype).reshape(values.shape)


def _side(right, side):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got "
                               f"{side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites")
        return side
    return "right" if right else "left"


def _array(x):
    return x._data if isinstance(x, Tensor) else np.asarray(x)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None):
    """For each value, its insertion index into sorted_sequence (each row, if N-D) that keeps it
    sorted: the first such index, or the last with right=True (side="right")."""
    return untracked(_search, _array(sorted_sequence), _array(input), _side(right, side),
                     out_int32)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each value among 1-D boundaries: i with boundaries[i-1] < x <= boundaries[i]
    (boundaries[i-1] <= x < boundaries[i] with right=True)."""
    if _array(boundaries).ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{_array(boundaries).ndim})")
    return untracked(_search, _array(boundaries), _array(input), "right" if right else "left",
                     out_int32)


PUBLIC = ("median", "nanmean", "nansum", "aminmax", "unique", "bincount", "searchsorted",
          "bucketize")
METHODS = ("median", "nanmean", "nansum", "aminmax", "unique", "bincount")
INPLACE = {}
