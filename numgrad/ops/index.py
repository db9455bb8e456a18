"""Indexing: basic indexing is an affine view (shape.py); everything else - integer arrays, bool
masks, gather, index_select - is `take` at flat positions, whose gradient is `put_add` (scatter-add,
so duplicate indices accumulate), and the other way round."""
import numpy as np

from ..tensor import Tensor, _wrap_dim
from .apply import apply
from .registry import OpDef
from .shape import basic_getitem, is_basic_index
from .untracked import to_host


def _take_vjp(ctx, g):
    (positions,) = ctx.saved
    return (put_add(g, positions._data, ctx.in_shapes[0]),)


def _put_vjp(ctx, g):
    (positions,) = ctx.saved
    return (take(g, positions._data),)


# `positions` is an int64 array of flat indices into x (saved as a non-float input).
_TAKE = dict(n_in=2, saves=("y",), kernel="take_bwd", vjp=_take_vjp)
TAKE = OpDef("take", lambda x, positions: x.reshape(-1)[positions], node_name="IndexBackward0",
             **_TAKE)
GATHER = OpDef("gather", lambda x, positions: x.reshape(-1)[positions], node_name="GatherBackward0",
               **_TAKE)
INDEX_SELECT = OpDef("index_select", lambda x, positions: x.reshape(-1)[positions],
                     node_name="IndexSelectBackward0", **_TAKE)
PUT_ADD = OpDef("put_add", lambda g, positions, shape: _put_add_forward(g, positions, shape), n_in=2,
                saves=("y",), node_name="IndexPutBackward0", kernel="put_add_bwd", vjp=_put_vjp)


def _put_add_forward(g, positions, shape):
    out = np.zeros(int(np.prod(shape)), g.dtype)
    np.add.at(out, positions.reshape(-1), g.reshape(-1))
    return out.reshape(shape)


def take(x, positions, op=TAKE):
    """x's elements at flat positions (an int64 array of any shape)."""
    return apply(op, (x, np.ascontiguousarray(positions, np.int64)))


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
            i = i._data.item() if i._data.ndim == 0 and i._data.dtype.kind in "iu" else to_host(i._data)
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


def _index_array(index):
    return to_host(index._data) if isinstance(index, Tensor) else np.asarray(index)


def _check_bounds(idx, size, dim):
    bad = (idx < -size) | (idx >= size)
    if bad.any():
        raise RuntimeError(f"index {int(idx[bad].reshape(-1)[0])} is out of bounds for dimension "
                           f"{dim} with size {size}")


def gather(x, dim, index):
    """out[i][j][k] = x[index[i][j][k]][j][k] (for dim 0), and so on."""
    idx = _index_array(index)
    nd = x._data.ndim
    d = _wrap_dim(dim, nd)
    if idx.ndim != nd and nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for k in range(idx.ndim):
        if k != d and idx.shape[k] > x._data.shape[k]:
            raise RuntimeError(f"Size does not match at dimension {k} expected index {list(idx.shape)}"
                               f" to be smaller than self {list(x._data.shape)} apart from "
                               f"dimension {d}")
    size = x._data.shape[d] if nd else 1
    _check_bounds(idx, size, d)
    return take(x, _scatter_positions(x._data.shape, d, idx), GATHER)


def index_select(x, dim, index):
    idx = _index_array(index).reshape(-1)
    d = _wrap_dim(dim, x._data.ndim)
    size = x._data.shape[d] if x._data.ndim else 1
    _check_bounds(idx, size, d)
    full = (slice(None),) * d + (idx,)
    return take(x, _positions(x._data.shape, full), INDEX_SELECT)


def _scatter_positions(shape, dim, idx):
    if not shape:
        return np.zeros(idx.shape, np.int64)
    d = _wrap_dim(dim, len(shape))
    grids = list(np.indices(idx.shape, sparse=True))
    grids[d] = idx
    return _positions(shape, tuple(grids))


def _scatter_add_vjp(ctx, g):
    positions = ctx.saved[0]._data
    return (g if ctx.needs_input_grad[0] else None,
            take(g, positions) if ctx.needs_input_grad[1] else None)


def _scatter_add_forward(x, src, positions):
    out = x.copy()
    np.add.at(out.reshape(-1), positions.reshape(-1), src.reshape(-1))
    return out


# x with src added at flat positions: one node, gradients for both (positions: constant, saved)
_SCATTER = dict(n_in=3, saves=("z",), kernel="scatter_add_bwd", vjp=_scatter_add_vjp)
SCATTER_ADD = OpDef("scatter_add", _scatter_add_forward, node_name="ScatterAddBackward0", **_SCATTER)
INDEX_ADD = OpDef("index_add", _scatter_add_forward, node_name="IndexAddBackward0", **_SCATTER)


def _scatter_add(op, x, src, positions):
    from .elementwise import operands
    x, src = operands(x, src)
    src = src if isinstance(src, Tensor) else Tensor._make(src, False)
    return apply(op, (x, src, np.ascontiguousarray(positions, np.int64)))


def scatter_add(x, dim, index, src):
    """x with src's values added at index along dim (duplicates accumulate)."""
    idx = _index_array(index)
    d = _wrap_dim(dim, x._data.ndim)
    _check_bounds(idx, x._data.shape[d] if x._data.ndim else 1, d)
    positions = _scatter_positions(x._data.shape, d, idx)
    piece = src[tuple(slice(0, s) for s in idx.shape)] if tuple(src.shape) != idx.shape else src
    return _scatter_add(SCATTER_ADD, x, piece, positions)


def index_add(x, dim, index, source, *, alpha=1):
    idx = _index_array(index).reshape(-1)
    d = _wrap_dim(dim, x._data.ndim)
    _check_bounds(idx, x._data.shape[d] if x._data.ndim else 1, d)
    full = [slice(None)] * x._data.ndim
    full[d] = idx
    positions = _positions(x._data.shape, tuple(full))
    if alpha != 1:
        source = source * alpha
    return _scatter_add(INDEX_ADD, x, source, positions)


def masked_fill(x, mask, value):
    """x with value where mask (broadcast to x) holds; value is a scalar or a 0-d tensor."""
    from .elementwise import MASKED_FILL, MASKED_FILL_TENSOR, cast, condition_operand, constant
    mask = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if mask.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype}")
    cond = condition_operand(mask, x._data.dtype)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value._data.ndim} dimension(s).")
        return apply(MASKED_FILL_TENSOR, (cond, x, cast(value, x._data.dtype)))
    return apply(MASKED_FILL, (cond, x, constant(value, x._data.dtype)))
