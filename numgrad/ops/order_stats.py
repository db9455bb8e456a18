"""Order statistics and small shape utilities: cummax/cummin, kthvalue, mode, quantile/nanquantile,
msort, argwhere, Tensor.unfold, diag_embed, matrix_power, sum_to_size, is_same_size, is_nonzero.

All are composites: positions are found by NumPy on the host (for CUDA tensors too, as median
does, statistics.py), and the values are then picked with gather, sort, take, put_add, where and
matmul, so gradients, create_graph and the GPU come from those ops. The values of cummax, cummin,
kthvalue and mode get their gradient at the picked index (their node is GatherBackward0, or
SqueezeBackward1 without keepdim, where torch names its own); quantile is sort, two gathers and
torch's lerp, so the gradient splits between the two neighbouring order statistics as in torch.
"""
import builtins

import numpy as np

from .. import creation, dtypes
from ..kernels.selection import exact_lines, kth_indices
from ..tensor import Size, Tensor, _wrap_dim
from .apply import apply, show_attributes
from .dim_argument import int_dim
from .elementwise import where
from .index import DIAG_EMBED, gather, put_add, take
from .linalg import matmul
from .named import named
from .predicates import nonzero
from .reduce import sum_to
from .select import _return_type, return_types, sort
from .shape import UNFOLD, clone, permute, reshape
from .untracked import to_host

for _name in ("cummax", "cummin", "kthvalue", "mode"):
    setattr(return_types, _name, _return_type(_name))

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _on_device_of(array, like):
    """A host array as a Tensor (no grad) on like's device."""
    t = Tensor._make(np.array(array, order="C"), False)    # a copy: 0-d stays 0-d
    return t if type(like._data) is np.ndarray else t.to(like.device)


def _picked(kind, input, d, index, keepdim, shown):
    """(values, indices) of `kind` from a host index array (keepdim layout) along dim d; a 0-d
    input is its own value, at index 0. The node shows the attributes `shown` of torch's."""
    node_name = f"{kind.capitalize()}Backward0"         # CummaxBackward0, KthvalueBackward0, ...
    if input._data.ndim == 0:
        values = named(clone(input), node_name, inputs=(input,), attributes=shown)
        return getattr(return_types, kind)(values, _on_device_of(np.zeros((), np.int64), input))
    values = gather(input, d, index)
    indices = _on_device_of(index, input)
    if not keepdim:
        values, indices = values.squeeze(d), indices.squeeze(d)
    values = named(values, node_name, inputs=(input,), view_of_intermediate=True,
                   attributes=shown)
    return getattr(return_types, kind)(values, indices)


def _shown_pick(input, dim, keepdim):
    """What torch's node of kthvalue and mode shows."""
    return {"dim": int(dim), "keepdim": bool(keepdim), "self_sym_sizes": input._data.shape}


def _check_reduction_dim(name, data, d):
    if data.ndim and data.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


# ---- cummax / cummin -----------------------------------------------------------------------------
def _cumulative_index(a, axis, largest):
    """The index of the running extreme along axis. As torch's kernel (x >= best replaces best),
    ties take the later index; a NaN, once met, stays the extreme with its own index."""
    best = (np.maximum if largest else np.minimum).accumulate(a, axis=axis)
    shape = [1] * a.ndim
    shape[axis] = a.shape[axis]
    steps = np.arange(a.shape[axis]).reshape(shape)
    # positions where the running extreme is (re)attained; the latest one up to i is i's index
    index = np.maximum.accumulate(np.where(a == best, steps, 0), axis=axis)
    if a.dtype.kind == "f" and a.size:
        nan = np.isnan(a)
        first_nan = np.argmax(nan, axis=axis, keepdims=True)
        index = np.where(np.isnan(best), first_nan, index)
    return index.astype(np.int64)


def _cumulative(kind, input, dim, largest):
    data = to_host(input._data)
    if data.ndim == 0 and dim not in (0, -1):
        raise IndexError(f"{kind}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    d = _wrap_dim(dim, data.ndim)
    shown = {"dim": int(dim)}
    if data.ndim == 0:
        return _picked(kind, input, 0, None, True, shown)
    return _picked(kind, input, d, _cumulative_index(data, d, largest), True, shown)


@int_dim()
def cummax(input, dim):
    """(values, indices) of the running maximum along dim; values' gradient goes to the index."""
    return _cumulative("cummax", input, dim, True)


@int_dim()
def cummin(input, dim):
    """(values, indices) of the running minimum along dim; values' gradient goes to the index."""
    return _cumulative("cummin", input, dim, False)


# ---- kthvalue / mode -----------------------------------------------------------------------------
@int_dim()
def kthvalue(input, k, dim=-1, keepdim=False):
    """(values, indices) of the k-th smallest element (k from 1) along dim; NaN counts as the
    largest. Among equal values the index is the one torch's quick select picks."""
    data = to_host(input._data)
    if data.dtype == np.bool_:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    d = _wrap_dim(dim, data.ndim)
    _check_reduction_dim("kthvalue", data, d)
    size = data.shape[d] if data.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    shown = _shown_pick(input, dim, keepdim)
    if data.ndim == 0:
        return _picked("kthvalue", input, 0, None, keepdim, shown)
    return _picked("kthvalue", input, d, _kth_index(data, d, k), keepdim, shown)


def _kth_index(data, d, k):
    """The index (keepdim layout) of each line's k-th smallest value along d: torch's quick
    select's (kernels/selection.py), which picks among equal values as torch does."""
    lines = np.moveaxis(data, d, -1)
    kth = kth_indices(exact_lines(lines), k - 1)
    return np.expand_dims(kth.reshape(lines.shape[:-1]), d)


def _mode_index(row):
    """The index of row's most frequent value (the smallest such value on ties) at its last
    occurrence, as torch's; NaNs never equal each other, so each counts once."""
    order = np.argsort(row, kind="stable")
    values = row[order]
    starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
    lengths = np.diff(np.append(starts, row.size))
    best = int(np.argmax(lengths))
    return order[starts[best] + lengths[best] - 1]


@int_dim()
def mode(input, dim=-1, keepdim=False):
    """(values, indices) of the most frequent value along dim: the smallest of those tied, at its
    last index."""
    data = to_host(input._data)
    d = _wrap_dim(dim, data.ndim)
    _check_reduction_dim("mode", data, d)
    shown = _shown_pick(input, dim, keepdim)
    if data.ndim == 0:
        return _picked("mode", input, 0, None, keepdim, shown)
    rows = np.moveaxis(data, d, -1)
    index = np.array([_mode_index(r) for r in rows.reshape(-1, rows.shape[-1])], np.int64)
    index = np.expand_dims(index.reshape(rows.shape[:-1]), d)
    return _picked("mode", input, d, index, keepdim, shown)


# ---- quantile / nanquantile ---------------------------------------------------------------------
def _quantile_q(name, input, q):
    """q as a 1-D host array in input's dtype, and whether it was a scalar."""
    if isinstance(q, Tensor):
        if q._data.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q._data.dtype != input._data.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        values = to_host(q._data)
        if np.any((values < 0) | (values > 1)):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        return values.reshape(-1), values.ndim == 0
    if not isinstance(q, (float, int)) or isinstance(q, bool):
        raise TypeError(f"{name}() received an invalid combination of arguments - q must be a "
                        f"float or a Tensor, not {type(q).__name__}")
    if not 0 <= q <= 1:
        raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
    return np.array([q], input._data.dtype), True


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    dtype = input._data.dtype
    if dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    qs, scalar = _quantile_q(name, input, q)
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint "
                           f"or nearest, but got {interpolation}")
    nd = input._data.ndim
    d = None if dim is None else _wrap_dim(dim, nd)
    if input._data.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if d is None:
        ordered = sort(reshape(input, -1), 0).values
        kept = (1,) * nd
    else:
        ordered = sort(input, d).values
        if nd:
            ordered = permute(ordered, [k for k in range(nd) if k != d] + [d])
        kept = tuple(1 if k == d else s for k, s in enumerate(input._data.shape))
    if ordered._data.ndim == 0:
        ordered = reshape(ordered, 1)
    # ranks in [0, n - 1] per row and q, computed in input's dtype as torch does
    host = to_host(ordered._data)
    nan = np.isnan(host)
    if ignore_nan:
        count = np.sum(~nan, axis=-1, keepdims=True)
        ranks = np.maximum(qs * (count - 1).astype(dtype), 0).astype(dtype)
    else:
        last = host.shape[-1] - 1
        ranks = np.broadcast_to(qs * dtype.type(last), host.shape[:-1] + qs.shape)
        # a row with a NaN: its last (sorted) value, the NaN
        ranks = np.where(nan.any(axis=-1, keepdims=True), dtype.type(last), ranks).astype(dtype)
    if interpolation in ("lower", "higher", "nearest"):
        ranks = {"lower": np.floor, "higher": np.ceil, "nearest": np.round}[interpolation](ranks)
    below = ranks.astype(np.int64)
    result = gather(ordered, -1, below)
    if interpolation in ("linear", "midpoint"):
        above = gather(ordered, -1, np.ceil(ranks).astype(np.int64))
        midpoint = interpolation == "midpoint"
        weight = np.full_like(ranks, 0.5) if midpoint else ranks - np.floor(ranks)
        # torch's lerp: from the nearer end, so weight 1 gives exactly `above`
        diff = above - result
        w = _on_device_of(weight, input)
        near_below = Tensor._make(weight < 0.5, False)
        result = where(near_below, result + w * diff, above - diff * (1 - w))
    # rows, q -> q first (dropped when q is a scalar), then the kept shape
    result = permute(result, [result._data.ndim - 1] + list(range(result._data.ndim - 1)))
    rows = kept if keepdim else tuple(s for k, s in enumerate(kept) if d is not None and k != d)
    return reshape(result, (() if scalar else qs.shape) + rows)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles (q a float or a 1-D tensor, in [0, 1]) over everything or along dim,
    interpolating between the neighbouring sorted values as `interpolation` says; NaN where a row
    holds a NaN. With a 1-D q the quantiles are the result's first dim."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """quantile of the values that are not NaN (NaN where a row has none)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


# ---- msort, argwhere -----------------------------------------------------------------------------
def msort(input):
    """input sorted along its first dim (sort's values)."""
    return sort(input, 0).values


def argwhere(input):
    """The indices of the nonzero elements, (count, ndim) int64: nonzero's."""
    return nonzero(input)


# ---- unfold: sliding windows ---------------------------------------------------------------------
def unfold(self, dimension, size, step):
    """The windows of `size` elements along dimension, `step` apart, as a new last dim: a view,
    as in torch. On the GPU, overlapping windows are a gathered copy, since the device kernel of
    the strided view's backward writes each gradient element once and overlaps must accumulate."""
    data = self._data
    nd = data.ndim
    d = _wrap_dim(dimension, builtins.max(nd, 1))
    length = data.shape[d] if nd else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is "
                           f"{size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if nd == 0:
        return reshape(self, 1)[:size]
    count = (length - size) // step + 1
    cstrides = [int(np.prod(data.shape[k + 1:], dtype=np.int64)) for k in range(nd)]
    shape = data.shape[:d] + (count,) + data.shape[d + 1:] + (size,)
    strides = tuple(cstrides[:d]) + (cstrides[d] * step,) + tuple(cstrides[d + 1:]) + \
        (cstrides[d],)
    overlapping = step < size and count > 1
    if not overlapping or type(data) is np.ndarray:
        out = apply(UNFOLD, (self,), {"offset": 0, "strides": strides, "in_shape": data.shape,
                                       "out_shape": shape})
        show_attributes(out, dimension=dimension, size=size, step=step, self_sym_sizes=data.shape)
        return out
    flat = np.arange(data.size, dtype=np.int64)
    item = flat.itemsize
    positions = np.lib.stride_tricks.as_strided(flat, shape, [s * item for s in strides])
    return take(self, positions)


# ---- diag_embed, matrix_power --------------------------------------------------------------------
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Each vector along input's last dim placed on the `offset` diagonal of dims dim1, dim2 of
    the result (one dim more than input), zeros elsewhere."""
    data = input._data
    nd = data.ndim + 1
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    m = data.shape[-1]
    n = m + abs(offset)
    rest = list(data.shape[:-1])
    out_shape = [0] * nd
    others = iter(rest)
    for k in range(nd):
        out_shape[k] = n if k in (d1, d2) else next(others)
    rows = np.arange(m) + builtins.max(-offset, 0)
    positions = np.arange(int(np.prod(out_shape)), dtype=np.int64).reshape(out_shape)
    positions = np.moveaxis(positions, (d1, d2), (-2, -1))[..., rows, rows + offset]
    return put_add(input, positions, tuple(out_shape), DIAG_EMBED)


def matrix_power(input, n):
    """The n-th power of square matrices in the last two dims, by repeated squaring as torch;
    n = 0 is the identity, recorded with a zero gradient to input as in torch, and a negative n
    powers the inverse."""
    data = input._data
    if data.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 "
                           "dimensions.")
    rows, cols = data.shape[-2:]
    if rows != cols:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they "
                           f"are {rows} by {cols} matrices")
    if n < 0:
        # torch inverts first (linalg.inv itself for n = -1); decompositions imports this module
        from .decompositions import inv
        input, n = inv(input), -n
        if n == 1:
            return input
    if n == 0:
        # torch copies the identity into a clone of input: its gradient to input is zero
        eye = creation.eye(rows, dtype=data.dtype, device=input.device)
        return clone(input).copy_(eye)
    if n == 1:
        return clone(input)
    if n == 3:
        return matmul(matmul(input, input), input)     # torch's own order for a cube
    result, power = None, None
    while n:
        n, bit = divmod(n, 2)
        power = input if power is None else matmul(power, power)
        if bit:
            result = power if result is None else matmul(result, power)
    return result


# ---- size utilities ------------------------------------------------------------------------------
def sum_to_size(self, *size):
    """self summed down to size, which must broadcast to self's shape."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = size[0]
    size = tuple(int(s) for s in size)
    shape = self._data.shape
    tail = shape[len(shape) - len(size):] if size else ()
    if len(size) > len(shape) or any(s not in (1, t) for s, t in zip(size, tail)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    return sum_to(self, size)


def is_same_size(self, other):
    """Whether self and other have the same shape."""
    return tuple(self._data.shape) == tuple(other._data.shape)


def is_nonzero(self):
    """Whether the one element is nonzero (NaN is)."""
    if self._data.size == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if self._data.size > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(to_host(self._data).reshape(()).item())


PUBLIC = ("cummax", "cummin", "kthvalue", "mode", "quantile", "nanquantile", "msort", "argwhere",
          "diag_embed", "matrix_power")
METHODS = PUBLIC + ("unfold", "sum_to_size", "is_same_size", "is_nonzero")
INPLACE = {}
