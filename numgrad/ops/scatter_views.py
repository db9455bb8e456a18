"""diagonal_scatter, select_scatter, slice_scatter and as_strided_scatter: input with src written
into the place a view (diagonal, select, slice, as_strided) would show, out of place. Each is scatter.py's write at the view's
flat positions (MaskedFillBackward0, then ScatterAddBackward0): the gradient of input is zero in
the place, that of src is the gradient read out of it, as torch's."""
import numpy as np

from ..tensor import _wrap_dim
from .named import named
from .scatter import _place


def _write_view(node_name, input, src, view_of_positions):
    positions = view_of_positions(np.arange(input._data.size, dtype=np.int64)
                                  .reshape(input._data.shape))
    if tuple(src.shape) != positions.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(positions.shape)}")
    return named(_place(input, np.ascontiguousarray(positions), src), node_name,
                 inputs=(input, src))


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with src on its diagonal (as input.diagonal(offset, dim1, dim2) shows it).

    >>> import numgrad as ng
    >>> ng.zeros(2, 2).diagonal_scatter(ng.ones(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    d1, d2 = _wrap_dim(dim1, input.ndim), _wrap_dim(dim2, input.ndim)
    return _write_view("DiagonalScatterBackward0", input, src,
                       lambda p: np.diagonal(p, offset, d1, d2))


def select_scatter(input, src, dim, index):
    """input with src as its slice index along dim (as input.select(dim, index) shows it)."""
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    return _write_view("SelectScatterBackward0", input, src,
                       lambda p: p[(slice(None),) * d + (int(index),)])


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with src in its slice start:end:step along dim."""
    d = _wrap_dim(dim, input.ndim)
    return _write_view("SliceScatterBackward0", input, src,
                       lambda p: p[(slice(None),) * d + (slice(start, end, step),)])


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """input (contiguous) with src written where input.as_strided(size, stride, storage_offset)
    would show it."""
    offset = 0 if storage_offset is None else int(storage_offset)

    def view(positions):
        flat = positions.reshape(-1)[offset:]
        return np.lib.stride_tricks.as_strided(
            flat, tuple(int(n) for n in size), tuple(int(k) * flat.itemsize for k in stride))
    return _write_view("AsStridedScatterBackward0", input, src, view)


PUBLIC = ("diagonal_scatter", "select_scatter", "slice_scatter", "as_strided_scatter")
METHODS = PUBLIC
INPLACE = {}
