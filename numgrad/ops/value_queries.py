"""Questions about values whose answers carry no gradient: isin, histc, histogram,
unique_consecutive, unravel_index, nonzero_static, isposinf/isneginf. NumPy computes them (on a
host copy for CUDA tensors, as untracked.py does for every such result)."""
import collections

import numpy as np

from .. import dtypes
from ..tensor import Tensor, _wrap_dim
from .select import return_types
from .untracked import to_host, untracked


def _array(value):
    return value._data if isinstance(value, Tensor) else np.asarray(value)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of elements is among test_elements (either may be a number)."""
    if any(_array(v).dtype == np.bool_ for v in (elements, test_elements)):
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    return untracked(lambda e, t: np.isin(e, t, invert=invert), _array(elements),
                     _array(test_elements))


def _histc_edges(data, min, max):
    """torch's outer edges: [min, max], the data's range when they are equal, widened by one on
    each side when that is a single value too."""
    low, high = float(min), float(max)
    if low == high and data.size:
        low, high = float(np.min(data)), float(np.max(data))
    if low == high:
        low, high = low - 1, high + 1
    if not (np.isfinite(low) and np.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low}, {high}] is not finite")
    if low >= high:
        raise RuntimeError("torch.histc: max must be larger than min")
    return low, high


def _histc(data, bins, low, high):
    flat = data.reshape(-1)
    inside = flat[(flat >= low) & (flat <= high)]
    # the bin of each value, the top edge belonging to the last bin, as torch computes it
    position = ((inside - low) * bins / (high - low)).astype(np.int64)
    position[position == bins] = bins - 1
    return np.bincount(position, minlength=bins).astype(data.dtype)


def histc(input, bins=100, min=0, max=0):
    """A histogram of input's values over bins equal bins from min to max (the data's range when
    min == max); values outside are not counted. Not differentiable, as torch's."""
    if not dtypes.is_floating(input.dtype):
        # torch's bool histc fails earlier, making its bin edges
        kernel = "linspace_cpu" if input.dtype == dtypes.bool_ else "histogram_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{dtypes.scalar_type_name(input.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    low, high = _histc_edges(to_host(input._data), min, max)
    return untracked(_histc, input._data, int(bins), low, high)


def _histogram_type():
    cls = collections.namedtuple("histogram", ("hist", "bin_edges"))
    cls.__module__ = "numgrad.return_types"
    cls.__repr__ = lambda self: (f"numgrad.return_types.histogram(\nhist={self.hist!r},\n"
                                 f"bin_edges={self.bin_edges!r})")
    return cls


return_types.histogram = _histogram_type()


def histogram(input, bins, *, range=None, weight=None, density=False):
    """(hist, bin_edges): counts (sums of weight) of input's values in bins equal bins over range
    (the data's range by default), or between the edges bins gives; density divides by the total
    and the bin widths. Not differentiable."""
    if not dtypes.is_floating(input.dtype):
        raise NotImplementedError(f"\"histogramdd\" not implemented for "
                                  f"'{dtypes.scalar_type_name(input.dtype)}'")
    edges = _array(bins) if isinstance(bins, Tensor) else int(bins)
    weights = None if weight is None else to_host(_array(weight))
    hist, bin_edges = np.histogram(to_host(input._data), edges, range=range, weights=weights,
                                   density=density)
    return return_types.histogram(
        untracked(lambda h: h.astype(input.dtype), hist),
        untracked(lambda e: e.astype(input.dtype), bin_edges))


def _run_starts(data, dim):
    """Whether each element (each slice along dim) differs from the one before it."""
    if dim is None:
        flat = data.reshape(-1)
        return np.concatenate([[True], flat[1:] != flat[:-1]]) if flat.size else \
            np.zeros(0, np.bool_)
    moved = np.moveaxis(data, dim, 0).reshape(data.shape[dim], -1)
    if not moved.shape[0]:
        return np.zeros(0, np.bool_)
    return np.concatenate([[True], (moved[1:] != moved[:-1]).any(axis=1)])


def _unique_consecutive_part(data, dim, which):
    starts = _run_starts(data, dim)
    first = np.flatnonzero(starts)
    if which == 0:
        return data.reshape(-1)[first] if dim is None else np.take(data, first, axis=dim)
    if which == 1:
        inverse = np.cumsum(starts) - 1
        return inverse.reshape(data.shape) if dim is None else inverse
    return np.diff(np.append(first, starts.size)).astype(np.int64)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """The input with each run of equal consecutive elements (slices along dim) kept once, with
    the run each element falls in and each run's length if asked."""
    data = input._data
    if dim is not None:
        dim = _wrap_dim(dim, data.ndim)
    results = [untracked(_unique_consecutive_part, data, dim, 0)]
    if return_inverse:
        results.append(untracked(lambda a: _unique_consecutive_part(a, dim, 1).astype(np.int64),
                                 data))
    if return_counts:
        results.append(untracked(_unique_consecutive_part, data, dim, 2))
    return results[0] if len(results) == 1 else tuple(results)


def unravel_index(indices, shape):
    """Flat indices as a tuple of coordinate tensors into shape (an index wraps modulo the size,
    as torch's does)."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be a tensor, but got {type(indices).__name__}")
    if indices.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got "
                        f"{dtypes.name(indices.dtype)}")
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got "
                         f"{tuple(shape)}")
    size = int(np.prod(shape))
    return tuple(untracked(lambda a, k=k: np.unravel_index(np.mod(a, size) if size else a,
                                                           shape)[k].astype(np.int64),
                           indices._data) for k in range(len(shape)))


def nonzero_static(input, *, size, fill_value=-1):
    """nonzero's (count, ndim) indices cut or padded with fill_value to exactly size rows."""
    def rows(data):
        found = np.argwhere(data)[:size]
        padding = np.full((size - len(found), data.ndim), fill_value, np.int64)
        return np.concatenate([found.astype(np.int64), padding])
    return untracked(rows, input._data)


def isposinf(input):
    """Whether each element is +inf."""
    return untracked(np.isposinf, input._data)


def isneginf(input):
    """Whether each element is -inf."""
    return untracked(np.isneginf, input._data)


PUBLIC = ("isin", "histc", "histogram", "nonzero_static", "unique_consecutive", "unravel_index",
          "isposinf", "isneginf")
METHODS = ("histc", "histogram", "nonzero_static", "unique_consecutive", "isposinf", "isneginf")
INPLACE = {}
