"""Writing into places: scatter (and scatter_), index_fill, index_copy (and their in-place forms)
and repeat_interleave, composed from the differentiable ops of index.py and masked_fill.

A write of src at some places is: input with those places zeroed (masked_fill, whose gradient is g
outside them), plus src added at them (scatter_add, whose gradient to src is g gathered back). That
is torch's ScatterBackward0 / IndexCopyBackward0 gradient, recorded as the two nodes
MaskedFillBackward0 and ScatterAddBackward0 (torch records one node). A place written twice holds
the last value written, as torch's CPU kernel does; its gradient reaches every src element written
there, as torch's does. Filling with a value (scatter(value=...), index_fill) is masked_fill alone,
so its node is MaskedFillBackward0 where torch says ScatterBackward1 / IndexFillBackward0.
repeat_interleave is index_select, as in torch (IndexSelectBackward0).
"""
import numpy as np

from .. import dtypes, grad_mode
from ..tensor import Tensor, _wrap_dim
from .index import SCATTER_ADD, _check_bounds, _index_array, _positions, _scatter_add, \
    _scatter_positions, check_index_dtype, check_scatter_index, index_select, masked_fill
from .named import named, rename
from .untracked import to_host, untracked


def _on_device_of(x, array):
    """A constant host array as a Tensor beside x (a mask or index must live where x lives)."""
    t = Tensor._make(array, False)
    return t if type(x._data) is np.ndarray else t.to(x.device)


def _mask(x, positions):
    mask = np.zeros(x._data.size, np.bool_)
    mask[positions.reshape(-1)] = True
    return _on_device_of(x, mask.reshape(x._data.shape))


def _last_writes(positions):
    """True for each write that is the last one to its position (in row-major order of the
    writes), as torch's CPU kernel leaves them."""
    flat = positions.reshape(-1)
    _, first_from_end = np.unique(flat[::-1], return_index=True)
    last = np.zeros(flat.size, np.bool_)
    last[flat.size - 1 - first_from_end] = True
    return last.reshape(positions.shape)


def keep_last_writes(x, positions, src):
    """src (positions' shape) with every write that a later write to the same position overrides
    made 0 in value but not in gradient, so that adding all the writes at their positions leaves
    the last one, and each still gets the gradient at its position, as in torch."""
    last = _last_writes(positions)
    if last.all():
        return src
    overridden = ~last
    values = to_host(src._data)
    if values.dtype.kind == "f" and not np.isfinite(values[overridden]).all():
        # an overridden inf or NaN minus itself would be NaN: it is zeroed outright, and so gets
        # no gradient (torch's gets the gradient at its position)
        src = masked_fill(src, _on_device_of(x, overridden & ~np.isfinite(values)), 0)
    # the correction is detached: the overridden values subtract themselves in value only
    return src - masked_fill(src, _on_device_of(x, last), 0).detach()


def _records(*tensors):
    return grad_mode.state.grad_enabled and any(isinstance(t, Tensor) and t._requires_grad
                                                for t in tensors)


def _place(x, positions, src):
    """x with src written at flat positions (src has positions' shape)."""
    if not _records(x, src):
        def write(a, values):
            out = np.array(a, copy=True)
            out.reshape(-1)[positions.reshape(-1)] = np.asarray(values, a.dtype).reshape(-1)
            return out
        return untracked(write, x._data, src._data if isinstance(src, Tensor) else src)
    if not isinstance(src, Tensor):
        src = _on_device_of(x, np.asarray(src, x._data.dtype))
    if src._data.dtype != x._data.dtype:
        src = src.to(x._data.dtype)
    src = keep_last_writes(x, positions, src.expand(positions.shape))
    with grad_mode.composite_masks():
        kept = masked_fill(x, _mask(x, positions), 0)
    return _scatter_add(SCATTER_ADD, kept, src, positions)


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """input with src's values (or value) written at index along dim: out[index[i][j]][j] = src[i][j]
    for dim 0, and so on. A float given as src is a value. reduce='add' or 'multiply' combines
    them with input's elements instead, without a derivative (as torch has none)."""
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if (src is None) == (value is None):
        raise TypeError("scatter() needs exactly one of src and value")
    if src is not None and not isinstance(src, Tensor):
        src, value = None, src
    idx = _index_array(index)
    if src is not None and src.ndim == 0 and idx.ndim == 1:
        src = src.reshape(1)      # torch's checks take a 0-d src as 1-d of one element
    nd = input._data.ndim
    d = _wrap_dim(dim, nd)
    if idx.ndim != nd and nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    check_scatter_index(input, d, idx, src)
    positions = _scatter_positions(input._data.shape, d, idx)
    shown = {"dim": dim, "index": Tensor._make(idx, False)}
    if value is not None and reduce is None:
        return rename(masked_fill(input, _mask(input, positions), value), "ScatterBackward1",
                      attributes=shown)
    if value is None:
        piece = src[tuple(slice(0, s) for s in idx.shape)] if src._data.shape != idx.shape else src
        if reduce is None:
            return rename(_place(input, positions, piece), "ScatterBackward0", inputs=(input, src),
                          attributes=shown)
    if _records(input, src):
        # torch records a node whose backward raises this; numgrad refuses before computing
        raise RuntimeError("derivative for aten::scatter is not implemented")
    values = np.broadcast_to(np.asarray(value, input._data.dtype), positions.shape) \
        if value is not None else to_host(piece._data)
    combine = np.add if reduce == "add" else np.multiply

    def reduced(a):
        out = np.array(a, copy=True)
        combine.at(out.reshape(-1), positions.reshape(-1), values.reshape(-1))
        return out
    return untracked(reduced, to_host(input._data)).to(input.device)


def _dim_positions(x, d, idx):
    """Flat positions of x's slices idx (1-D) along dim d, in the shape of the written source."""
    full = [slice(None)] * x._data.ndim
    if x._data.ndim:
        full[d] = idx
        return _positions(x._data.shape, tuple(full))
    return np.zeros(idx.shape, np.int64)


def index_fill(input, dim, index, value):
    """input with the slices index along dim set to value (a scalar or a 0-d tensor)."""
    idx = _index_array(index)
    if idx.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    check_index_dtype(idx, "index_fill_(): Expected dtype int64 for index.", IndexError,
                      int32=False)
    if isinstance(value, Tensor) and value._data.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s).")
    idx = idx.reshape(-1)
    d = _wrap_dim(dim, input._data.ndim)
    _check_bounds(idx, input._data.shape[d] if input._data.ndim else 1, d, error=IndexError)
    filled = masked_fill(input, _mask(input, _dim_positions(input, d, idx)), value)
    shown = {"dim": dim, "index": Tensor._make(idx, False)}
    if isinstance(value, Tensor):
        return named(filled, "IndexFillBackward1", inputs=(input, value), attributes=shown)
    return named(filled, "IndexFillBackward0", inputs=(input,), attributes=shown)


def index_copy(input, dim, index, source):
    """input with source's slices copied to the slices index along dim."""
    idx = _index_array(index)
    if idx.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
    # torch's checks in its order: dims, dtypes, the slices' shapes, the count, the bounds
    nd, snd = input._data.ndim, source._data.ndim
    if snd == 0 and idx.size != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element "
                         f"(got {idx.size})")
    if snd != nd and snd and nd:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({snd}), destination "
                         f"dimensionality ({nd})")
    check_index_dtype(idx, "index_copy_(): Expected a long tensor for index, but got "
                      f"{dtypes.scalar_type_name(idx.dtype)}", int32=False)
    idx = idx.reshape(-1)
    d = _wrap_dim(dim, nd)
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {dtypes.scalar_type_name(input._data.dtype)} and (source) "
                           f"{dtypes.scalar_type_name(source._data.dtype)}")
    dest = input._data.shape[:d] + input._data.shape[d + 1:]
    sliced = source._data.shape[:d] + source._data.shape[d + 1:]
    if dest != sliced:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. "
                           f"Destination slice shape: {' '.join(map(str, dest))} at dimension {d} "
                           f"and source slice shape: {' '.join(map(str, sliced))} at dimension 0.")
    count = source._data.shape[d] if snd else 1
    if idx.size != count:
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to "
                         f"source.size(dim) ({count})")
    _check_bounds(idx, input._data.shape[d] if nd else 1, d, negative=False,
                  error=IndexError, prefix="index_copy_(): ")
    positions = _dim_positions(input, d, idx)
    return named(_place(input, positions, source), "IndexCopyBackward0", source,
                 inputs=(input, source), saved_names=("source",),
                 attributes={"dim": dim, "index": Tensor._make(idx, False), "source_dim": snd})


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (each slice along dim; of the flattened input without dim) repeated repeats
    times, repeats being an int or one count per element. repeat_interleave(counts) alone repeats
    0, 1, ... by counts."""
    if repeats is None:
        counts = _index_array(input).reshape(-1)
        return untracked(lambda c: np.repeat(np.arange(c.size, dtype=np.int64), c), counts)
    if dim is None:
        input, dim = input.flatten(), 0
    d = _wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d] if input._data.ndim else 1
    counts = _index_array(repeats).reshape(-1) if isinstance(repeats, Tensor) else np.asarray(repeats)
    if counts.ndim and counts.size not in (1, size):
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {counts.size} and input.size({d}) = {size}")
    if (counts < 0).any():       # torch words this one by whether repeats is an int
        raise RuntimeError("repeats can not be negative" if counts.ndim else
                           "Repeats must be non-negative")
    idx = np.repeat(np.arange(size, dtype=np.int64), counts.reshape(-1) if counts.ndim else counts)
    if output_size is not None and idx.size != output_size:
        raise RuntimeError(f"allocated size does not match required size: {output_size} vs "
                           f"{idx.size}")
    if isinstance(repeats, Tensor) or counts.ndim or input._data.ndim == 0:
        return index_select(input, d, idx)
    # an int count: torch copies an expanded view (ViewBackward0 over CloneBackward0), the same
    # gradient as gathering with idx
    shape = tuple(input._data.shape)
    spread = input.unsqueeze(d + 1).expand(*shape[:d + 1], int(counts), *shape[d + 1:])
    return spread.clone().flatten(d, d + 1)


PUBLIC = ("scatter", "index_fill", "index_copy", "repeat_interleave")
METHODS = PUBLIC
# None of them saves input (masked_fill saves its mask only), so the write needs no copy of it.
INPLACE = {"scatter_": (scatter, False), "index_fill_": (index_fill, False),
           "index_copy_": (index_copy, False)}
