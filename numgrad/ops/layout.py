"""Ops that keep, move or pick elements by position: tril/triu, diagonal/diag, roll and
masked_select. Composites of where, the strided view of basic indexing and take: their
derivatives are those ops'."""
import numpy as np

from .. import grad_mode
from ..tensor import Tensor, _wrap_dim
from .apply import apply, show_attributes
from .elementwise import where
from .index import DIAG_EMBED, put_add, take
from .linalg import infer_size_error
from .named import named
from .shape import DIAGONAL, DIAGONAL_COPY
from .untracked import to_host


def _triangle(x, keep, name):
    if x._data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    # where, not a product with a 0/1 mask: inf outside the triangle must become 0, not nan. The
    # zero is of x's dtype, so that integer and bool triangles keep it, as in torch.
    zero = x._data.dtype.type(0)
    with grad_mode.composite_masks():
        return where(Tensor._make(keep(np.ones(x._data.shape[-2:], np.bool_)), False), x, zero)


def tril(x, diagonal=0):
    """The lower triangle of the last two dims (on and below `diagonal`); zeros elsewhere."""
    return named(_triangle(x, lambda ones: np.tril(ones, diagonal), "tril"), "TrilBackward0",
                 inputs=(x,), attributes={"diagonal": diagonal})


def triu(x, diagonal=0):
    """The upper triangle of the last two dims (on and above `diagonal`); zeros elsewhere."""
    return named(_triangle(x, lambda ones: np.triu(ones, diagonal), "triu"), "TriuBackward0",
                 inputs=(x,), attributes={"diagonal": diagonal})


def diagonal(x, offset=0, dim1=0, dim2=1, op=DIAGONAL):
    """The diagonal of dims dim1 and dim2 as a new last dim; a view of x, as in torch (a copy
    with op=DIAGONAL_COPY)."""
    shape = x._data.shape
    nd = len(shape)
    d1, d2 = _wrap_dim(dim1, nd), _wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    cstrides = [int(np.prod(shape[k + 1:], dtype=np.int64)) for k in range(nd)]
    size = max(0, min(shape[d1] + min(offset, 0), shape[d2] - max(offset, 0)))
    start = (-offset if offset < 0 else 0) * cstrides[d1] + max(offset, 0) * cstrides[d2]
    rest = [k for k in range(nd) if k not in (d1, d2)]
    out_shape = tuple(shape[k] for k in rest) + (size,)
    strides = tuple(cstrides[k] for k in rest) + (cstrides[d1] + cstrides[d2],)
    attrs = {"offset": start if size else 0, "strides": strides, "in_shape": shape,
             "out_shape": out_shape}
    out = apply(op, (x,), attrs)
    show_attributes(out, offset=offset, dim1=dim1, dim2=dim2, self_sym_sizes=shape)
    return out


def diag(x, diagonal=0):
    """A 1-D x as the `diagonal` of a square matrix, or the `diagonal` of a 2-D x."""
    if x._data.ndim == 2:
        return globals()["diagonal"](x, diagonal, op=DIAGONAL_COPY)
    if x._data.ndim != 1:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {x._data.ndim}D")
    n = x._data.shape[0] + abs(diagonal)
    rows = np.arange(x._data.shape[0]) + max(-diagonal, 0)
    out = put_add(x, rows * n + rows + diagonal, (n, n), DIAG_EMBED)
    # torch's diag of a vector is diag_embed's, on the last two dims
    show_attributes(out, offset=diagonal, dim1=-2, dim2=-1)
    return out


def roll(x, shifts, dims=None):
    """Elements shifted along dims, those that fall off one end coming back at the other."""
    positions = np.arange(x._data.size, dtype=np.int64).reshape(x._data.shape)
    one = isinstance(shifts, (int, np.integer))
    shifts, dims = ((shifts,) if one else tuple(shifts)), (
        () if dims is None else (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims))
    # torch's checks, before NumPy's own (an AxisError, and broadcasting of shifts against dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if x._data.ndim == 0 and dims:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    if not dims and len(shifts) == 1:
        rolled = np.roll(positions.reshape(-1), shifts[0]).reshape(x._data.shape)
    else:
        if len(shifts) != len(dims):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               f"dims:{len(dims)}")
        rolled = np.roll(positions, shifts, [_wrap_dim(d, x._data.ndim) for d in dims])
    return named(take(x, rolled), "RollBackward0", inputs=(x,),
                 attributes={"dims": dims, "shifts": shifts})


def masked_select(x, mask):
    """The elements of x where mask (broadcast with x) holds, as a 1-D tensor."""
    mask = to_host(mask._data) if isinstance(mask, Tensor) else np.asarray(mask)
    if mask.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    try:
        shape = np.broadcast_shapes(x._data.shape, mask.shape)
    except ValueError:
        infer_size_error(mask.shape, x._data.shape)     # torch expands mask against input
    positions = np.broadcast_to(np.arange(x._data.size, dtype=np.int64).reshape(x._data.shape),
                                shape)
    return named(take(x, positions[np.broadcast_to(mask, shape)]), "MaskedSelectBackward0", x,
                 saved_names=("self",), attributes={"mask": Tensor._make(mask, False)})
