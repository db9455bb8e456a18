"""Indexing: basic indexing is an affine view (shape.py); everything else - integer arrays, bool
masks, gather, index_select - is `take` at flat positions, whose gradient is `put_add` (scatter-add,
so duplicate indices accumulate), and the other way round."""
import numpy as np

from ..tensor import Tensor, _wrap_dim
from .apply import apply
from .registry import OpDef
from .shape import basic_getitem, is_basic_index


def _take_vjp(ctx, g):
    (positions,) = ctx.saved
    return (put_add(g, positions._data, ctx.in_shapes[0]),)


def _put_vjp(ctx, g):
    (positions,) = ctx.saved
    return (take(g, positions._data),)


# `positions` is an int64 array of flat indices into x (saved as a non-float input).
TAKE = OpDef("take", lambda x, positions: x.reshape(-1)[positions], n_in=2, saves=("y",),
             node_name="IndexBackward0", kernel="take_bwd", vjp=_take_vjp)
PUT_ADD = OpDef("put_add", lambda g, positions, shape: _put_add_forward(g, positions, shape), n_in=2,
                saves=("y",), node_name="IndexPutBackward0", kernel="put_add_bwd", vjp=_put_vjp)


def _put_add_forward(g, positions, shape):
    out = np.zeros(int(np.prod(shape)), g.dtype)
    np.add.at(out, positions.reshape(-1), g.reshape(-1))
    return out.reshape(shape)


def take(x, positions):
    """x's elements at flat positions (an int64 array of any shape)."""
    return apply(TAKE, (x, np.ascontiguousarray(positions, np.int64)))


def put_add(g, positions, shape):
    """zeros(shape) with g's elements added at flat positions (duplicates accumulate)."""
    return apply(PUT_ADD, (g, np.ascontiguousarray(positions, np.int64)), {"shape": tuple(shape)})


def _positions(shape, index):
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)[index]


def _normalize(index):
    items = index if isinstance(index, tuple) else (index,)
    out = []
    for i in items:
        if isinstance(i, Tensor):
            i = i._data.item() if i._data.ndim == 0 and i._data.dtype.kind in "iu" else i._data
        elif isinstance(i, list):
            i = np.asarray(i)
        out.append(i)
    return tuple(out) if isinstance(index, tuple) or len(out) != 1 else out[0]


def getitem(x, index):
    index = _normalize(index)
    if is_basic_index(index):
        return basic_getitem(x, index)
    try:
        positions = _positions(x._data.shape, index)
    except IndexError as error:
        raise IndexError(str(error)) from None
    if not x._requires_grad:
        return Tensor._make(np.asarray(x._data[index]), False)
    return take(x, positions)


def gather(x, dim, index):
    """out[i][j][k] = x[index[i][j][k]][j][k] (for dim 0), and so on."""
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    d = _wrap_dim(dim, x._data.ndim)
    grids = list(np.indices(idx.shape, sparse=True))
    grids[d] = idx
    return getitem(x, tuple(grids)) if x._requires_grad else Tensor._make(x._data[tuple(grids)], False)


def index_select(x, dim, index):
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    d = _wrap_dim(dim, x._data.ndim)
    return getitem(x, (slice(None),) * d + (idx.reshape(-1),))


def _scatter_positions(shape, dim, idx):
    d = _wrap_dim(dim, len(shape))
    grids = list(np.indices(idx.shape, sparse=True))
    grids[d] = idx
    return _positions(shape, tuple(grids))


def scatter_add(x, dim, index, src):
    """x with src's values added at index along dim (duplicates accumulate)."""
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    positions = _scatter_positions(x._data.shape, dim, idx)
    piece = src[tuple(slice(0, s) for s in idx.shape)] if tuple(src.shape) != idx.shape else src
    return x + put_add(piece, positions, x._data.shape)


def index_add(x, dim, index, source, *, alpha=1):
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    d = _wrap_dim(dim, x._data.ndim)
    full = [slice(None)] * x._data.ndim
    full[d] = idx.reshape(-1)
    positions = _positions(x._data.shape, tuple(full))
    if alpha != 1:
        source = source * alpha
    return x + put_add(source, positions, x._data.shape)


def masked_fill(x, mask, value):
    from .elementwise import where
    mask_t = mask if isinstance(mask, Tensor) else Tensor._make(np.asarray(mask), False)
    return where(mask_t, value, x)
