"""Indexing: basic indexing is an affine view (shape.py); everything else - integer arrays, bool
masks, gather, index_select - is `take` at flat positions, whose gradient is `put_add` (scatter-add,
so duplicate indices accumulate), and the other way round."""
import numpy as np

from .. import dtypes
from ..tensor import Tensor, _wrap_dim
from .apply import apply, show_attributes
from .registry import OpDef
from .shape import apply_steps, basic_getitem, consumed_dims, is_basic_index, torch_steps
from .untracked import to_host


def _take_vjp(ctx, g):
    positions = ctx.saved[0]
    return (put_add(g, positions._data, ctx.in_shapes[0]),)


def _put_vjp(ctx, g):
    (positions,) = ctx.saved
    return (take(g, positions._data),)


# `positions` is an int64 array of flat indices into x (saved as a non-float input).
_TAKE = dict(n_in=2, saves=("y",), kernel="take_bwd", vjp=_take_vjp, listed=(0,))
TAKE = OpDef("take", lambda x, positions: x.reshape(-1)[positions], node_name="IndexBackward0",
             **_TAKE)
# numgrad's gradients are dense: sparse_grad=False, as torch's gather keeps by default. torch's
# GatherBackward0 also keeps self (for its sizes only): shown as _saved_self, and changing it in
# place before backward is a version error there.
GATHER = OpDef("gather", lambda x, positions: x.reshape(-1)[positions], node_name="GatherBackward0",
               attributes={"sparse_grad": False}, **dict(_TAKE, saves=("y", "x")))
INDEX_SELECT = OpDef("index_select", lambda x, positions: x.reshape(-1)[positions],
                     node_name="IndexSelectBackward0", **_TAKE)


# Note [whole rows]
# An index that picks whole rows of dim 0 (x[idx], index_select(x, 0, idx), an embedding's lookup)
# is its own op: its forward is NumPy's row gather and it saves the row indices, where the flat
# positions of every picked element cost a pass over an index the size of the result (and, for
# x[idx], one the size of x: 59 ms against NumPy's 1 ms for 8192 rows of a 50000 x 256 table). Its
# kernel adds each picked row's gradient into its row (duplicates accumulate).
def row_positions(rows, shape):
    """The flat positions of the elements of x[rows] (rows along dim 0) for x of this shape."""
    width = int(np.prod(shape[1:], dtype=np.int64))
    positions = rows.reshape(-1, 1) * width + np.arange(width)
    return positions.reshape(rows.shape + tuple(shape[1:]))


def _take_rows_vjp(ctx, g):
    shape = ctx.in_shapes[0]
    return (put_add(g, row_positions(ctx.saved[0]._data, shape), shape),)


_TAKE_ROWS = dict(n_in=2, saves=("y",), kernel="take_rows_bwd", vjp=_take_rows_vjp, listed=(0,))
TAKE_ROWS = OpDef("take_rows", lambda x, rows: x[rows], node_name="IndexBackward0", **_TAKE_ROWS)
INDEX_SELECT_ROWS = OpDef("index_select_rows", lambda x, rows: x[rows],
                          node_name="IndexSelectBackward0", **_TAKE_ROWS)
_PUT = dict(n_in=2, saves=("y",), kernel="put_add_bwd", vjp=_put_vjp, listed=(0,))
PUT_ADD = OpDef("put_add", lambda g, positions, shape: _put_add_forward(g, positions, shape),
                node_name="IndexPutBackward0", **_PUT)
# diag, diag_embed and diagflat place values on a diagonal of zeros: torch's node is diag_embed's
DIAG_EMBED = OpDef("diag_embed", lambda g, positions, shape: _put_add_forward(g, positions, shape),
                   node_name="DiagEmbedBackward0", **_PUT)


def _put_add_forward(g, positions, shape):
    out = np.zeros(int(np.prod(shape)), g.dtype)
    np.add.at(out, positions.reshape(-1), g.reshape(-1))
    return out.reshape(shape)


def take(x, positions, op=TAKE):
    """x's elements at flat positions (an int64 array of any shape)."""
    # (np.require keeps a 0-d positions array 0-d, where ascontiguousarray makes it 1-d)
    return apply(op, (x, np.require(positions, np.int64, "C")))


def take_rows(x, rows, op=TAKE_ROWS):
    """x[rows] along dim 0: rows an integer array of any shape, each in [0, len(x)) (Note [whole
    rows])."""
    return apply(op, (x, np.require(rows, np.int64, "C")))


def put_add(g, positions, shape, op=PUT_ADD):
    """zeros(shape) with g's elements added at flat positions (duplicates accumulate)."""
    return apply(op, (g, np.require(positions, np.int64, "C")), {"shape": tuple(shape)})


def _positions(shape, index):
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)[index]


def _sequence_as_tuple(index):
    """torch's (and old NumPy's) reading of a list index: a short list holding a tensor, a
    sequence, a slice, Ellipsis or None is a tuple of indices (x[[0, 1], [2, 0]] picks two
    elements), any other is one index array."""
    return len(index) < 32 and any(
        isinstance(i, (Tensor, list, tuple, np.ndarray, slice)) or i is Ellipsis or i is None
        for i in index)


def _normalize(index):
    if isinstance(index, list) and _sequence_as_tuple(index):
        index = tuple(index)
    items = index if isinstance(index, tuple) else (index,)
    out = []
    for i in items:
        if isinstance(i, (str, bytes)):
            # torch reads a string as a sequence to make an index tensor of
            raise TypeError(f"new(): invalid data type '{type(i).__name__}'")
        if isinstance(i, Tensor):
            i = i._data.item() if i._data.ndim == 0 and i._data.dtype.kind in "iu" else to_host(i._data)
        elif isinstance(i, (list, tuple)):
            # an empty list selects nothing; NumPy would read it as a float array
            i = np.asarray(i) if i else np.zeros(0, np.int64)
        elif isinstance(i, (bool, np.bool_)):
            i = np.asarray(i)           # a new dim of size 1 (or 0), as a 0-d mask gives
        out.append(i)
    return tuple(out) if isinstance(index, tuple) or len(out) != 1 else out[0]


def one_ellipsis(index, ndim):
    """The index with torch's reading of more than one Ellipsis: each moves the indexed dim on
    by the dims no item names. The first covers those dims, so a later one changes nothing when
    none are left unnamed or nothing but Ellipses follow it; else the next item indexes past the
    last dim, which torch refuses for an int and None as here (it reads past the sizes for the
    other items, refused here with the int's words)."""
    if not isinstance(index, tuple) or sum(i is Ellipsis for i in index) < 2:
        return index
    spread = ndim - sum(consumed_dims(i) for i in index)
    places = [k for k, i in enumerate(index) if i is Ellipsis]    # (no ==: arrays are items)
    first, rest = places[0], index[places[0] + 1:]
    if spread == 0 or all(i is Ellipsis for i in index[places[1]:]):
        return index[:first + 1] + tuple(i for i in rest if i is not Ellipsis)
    at, dims = 0, ndim                   # torch's cursor and the dims of its partial result
    for place, item in enumerate(index):
        if item is Ellipsis:
            at += spread
            continue
        if at >= dims and item is not None:
            raise IndexError(f"index {item if isinstance(item, int) else 0} is out of bounds for "
                             f"dimension {place} with size 0")
        if item is None:
            if at > dims:
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-dims - 1}, {dims}], but got {at})")
            dims, at = dims + 1, at + 1
        elif isinstance(item, (int, np.integer)):
            dims -= 1
        else:
            at += consumed_dims(item)
    raise AssertionError("unreachable: an item follows a later Ellipsis")


def _basic_part(shape, items):
    """torch applies None, ints and slices first (in that order of the items), then indexes the
    result with the arrays: the sizes of that intermediate result, and each array with the dim of
    the result it starts at. Raises torch's errors for the basic items."""
    sizes, arrays, d = [], [], 0
    spread = len(shape) - sum(consumed_dims(i) for i in items)
    for place, item in enumerate(items):
        if item is None:
            sizes.append(1)
        elif item is Ellipsis:
            sizes.extend(shape[d:d + spread])
            d += spread
        elif isinstance(item, slice):
            start, stop, step = item.indices(shape[d])
            if step <= 0:
                raise ValueError("step must be greater than zero")
            sizes.append(len(range(start, stop, step)))
            d += 1
        elif isinstance(item, np.ndarray):
            if item.dtype.kind not in "iub":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            arrays.append((item, len(sizes)))
            sizes.extend(shape[d:d + consumed_dims(item)])
            d += consumed_dims(item)
        else:
            if not isinstance(item, (int, np.integer)):
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or "
                                 f"byte Variables are valid indices (got {type(item).__name__})")
            size, i = shape[d], int(item)
            if not -size <= i < size:   # torch numbers the dim by the item's place in the index
                raise IndexError(f"index {i} is out of bounds for dimension {place} with size "
                                 f"{size}")
            d += 1
    return sizes + list(shape[d:]), arrays


def _check_arrays(sizes, arrays):
    """torch's errors for the index arrays, after the basic items: masks that do not fit, arrays
    that do not broadcast, indices out of bounds (its dimension counts the index arrays before it,
    a k-dim mask as k)."""
    for array, at in arrays:
        if array.dtype == np.bool_:
            for j, (m, s) in enumerate(zip(array.shape, sizes[at:at + array.ndim])):
                if m != s:
                    raise IndexError(f"The shape of the mask {list(array.shape)} at index {j} does "
                                     f"not match the shape of the indexed tensor {sizes} at index "
                                     f"{at + j}")
    shapes = []
    for array, _ in arrays:
        shapes += [(int(array.sum()),)] * array.ndim if array.dtype == np.bool_ else [array.shape]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         "shapes " + ", ".join(str(list(s)) for s in shapes)) from None
    position = 0
    for array, at in arrays:
        if array.dtype == np.bool_:
            position += array.ndim
            continue
        size = sizes[at]
        bad = (array < -size) | (array >= size)
        if bad.any():
            raise IndexError(f"index {int(array[bad].reshape(-1)[0])} is out of bounds for "
                             f"dimension {position} with size {size}")
        position += 1


def check_index(shape, index):
    """torch's refusals of x[index] (a normalized, non-basic index) for x of this shape, with its
    messages; NumPy's differ, and it takes negative steps."""
    items = index if isinstance(index, tuple) else (index,)
    if sum(consumed_dims(i) for i in items) > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    _check_arrays(*_basic_part(shape, items))


def torch_order(shape, index):
    """A normalized, non-basic index of x of this shape as two that applied one after the other
    index as torch does: first the None, int and slice items, then the arrays. NumPy alone would
    count the ints among the arrays, which moves the result's dims (x[:, 0, :, [0]]), and would
    read an Ellipsis between arrays as separating them even where it stands for no dim."""
    basic, rest = [], []
    for item in index if isinstance(index, tuple) else (index,):
        if isinstance(item, np.ndarray) and item.dtype == np.bool_ and item.ndim == 0:
            # torch unsqueezes, then takes the new dim's one element or none
            basic.append(None)
            rest.append(np.zeros(int(item), np.int64))
        elif isinstance(item, np.ndarray):
            basic += [slice(None)] * consumed_dims(item)
            rest.append(item)
        elif item is None or isinstance(item, slice):
            basic.append(item)
            rest.append(slice(None))
        elif item is Ellipsis:
            basic.append(item)
            rest.append(item)
        else:
            basic.append(item)
    if Ellipsis in basic:
        spread = len(shape) - sum(consumed_dims(i) for i in basic)
        at = next(k for k, i in enumerate(rest) if i is Ellipsis)
        rest[at:at + 1] = [slice(None)] * spread
    return tuple(basic), tuple(rest)


def index_positions(shape, index):
    """The flat positions of x[index] (a normalized, non-basic index), laid out as torch's."""
    return _indexed_positions(shape, index)[0]


def _indexed_positions(shape, index):
    """index_positions, and the shape torch's index op (IndexBackward0) indexes: x's after the
    None, int and slice items."""
    check_index(shape, index)
    basic, rest = torch_order(shape, index)
    indexed = _positions(shape, basic)
    return indexed[rest], indexed.shape


def _whole_rows(index):
    """The integer array of an index that picks whole rows of dim 0 (x[idx], x[idx, :, ...]),
    or None."""
    items = index if isinstance(index, tuple) else (index,)
    first = items[0] if items else None
    if not (isinstance(first, np.ndarray) and first.dtype.kind == "i"):
        return None
    if all(isinstance(i, slice) and i == slice(None) or i is Ellipsis for i in items[1:]):
        return first
    return None


def getitem(x, index):
    index = one_ellipsis(_normalize(index), x._data.ndim)
    if is_basic_index(index):
        return basic_getitem(x, index)
    rows = _whole_rows(index) if x._data.ndim else None
    if rows is not None:
        check_index(x._data.shape, index)
        picked = np.where(rows < 0, rows + x._data.shape[0], rows)
        out = take_rows(x, picked)
        if out._requires_grad:
            show_attributes(out, self_sym_sizes=x._data.shape, indices=(Tensor._make(rows, False),))
        return out
    positions, indexed_shape = _indexed_positions(x._data.shape, index)
    if x._requires_grad or type(x._data) is not np.ndarray:
        # as torch: the basic items' views first, a node each, then the index op on the result
        _, rest = torch_order(x._data.shape, index)
        x = apply_steps(x, torch_steps(x._data.shape, index))
        out = take(x, _positions(indexed_shape, rest))  # a device array has no NumPy indexing
        show_attributes(out, self_sym_sizes=indexed_shape, indices=_shown_indices(rest))
        return out
    return Tensor._make(x._data.reshape(-1)[positions], False)


def _shown_indices(rest):
    """torch's IndexBackward0 keeps the index tensors up to the last, None for each dim between."""
    last = max(k for k, item in enumerate(rest) if isinstance(item, np.ndarray))
    return tuple(Tensor._make(item, False) if isinstance(item, np.ndarray) else None
                 for item in rest[:last + 1])


def _index_array(index):
    return to_host(index._data) if isinstance(index, Tensor) else np.asarray(index)


def _check_bounds(idx, size, dim, *, negative=True, error=RuntimeError, prefix=""):
    """torch's bounds check of indices along dim: -size <= i < size, or 0 <= i < size for the ops
    whose kernels take no negative index (negative=False: gather, scatter, index_add, ...)."""
    bad = (idx < (-size if negative else 0)) | (idx >= size)
    if bad.any():
        raise error(f"{prefix}index {int(idx[bad].reshape(-1)[0])} is out of bounds for dimension "
                    f"{dim} with size {size}")


def check_index_dtype(idx, message, error=RuntimeError, int32=True):
    """torch's refusal of an index that is not an int64 array (or int32, where the op takes it)."""
    if idx.dtype != np.int64 and not (int32 and idx.dtype == np.int32):
        raise error(message)


def gather(x, dim, index):
    """out[i][j][k] = x[index[i][j][k]][j][k] (for dim 0), and so on."""
    idx = _index_array(index)
    nd = x._data.ndim
    d = _wrap_dim(dim, nd)
    if idx.size == 0:
        positions = np.zeros(idx.shape, np.int64)      # torch checks nothing of an empty index
    else:
        check_index_dtype(idx, "gather(): Expected dtype int32/int64 for index")
        # torch counts a 0-d tensor as a 1-d one of one element
        if max(idx.ndim, 1) != max(nd, 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as input "
                               "tensor")
        shaped = idx.reshape(idx.shape or (1,)) if nd else idx
        for k in range(shaped.ndim):
            if k != d and shaped.shape[k] > (x._data.shape or (1,))[k]:
                raise RuntimeError(f"Size does not match at dimension {k} expected index "
                                   f"{list(idx.shape)} to be no larger than self "
                                   f"{list(x._data.shape)} apart from dimension {d}")
        _check_bounds(idx, x._data.shape[d] if nd else 1, d, negative=False)
        positions = _scatter_positions(x._data.shape, d, shaped).reshape(idx.shape)
    out = take(x, positions, GATHER)
    show_attributes(out, dim=dim, index=Tensor._make(idx, False))
    return out


def index_select(x, dim, index):
    idx = _index_array(index)
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    check_index_dtype(idx, "index_select(): Expected dtype int32 or int64 for index")
    idx = idx.reshape(-1)
    d = _wrap_dim(dim, x._data.ndim)
    if x._data.ndim == 0 and idx.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {idx.size} "
                           f"value(s)")
    size = x._data.shape[d] if x._data.ndim else 1
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        if d == 1:      # torch's CPU kernel for dim 1 (index_select_out_cpu_dim1_) words its own
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={idx[bad][0]} "
                               f"axis_dim={size}")
        raise IndexError("index out of range in self")
    if d == 0 and x._data.ndim:
        out = take_rows(x, idx, INDEX_SELECT_ROWS)
        show_attributes(out, dim=dim, self_sym_sizes=x._data.shape, index=Tensor._make(idx, False))
        return out
    full = (slice(None),) * d + (idx,)
    # a 0-d x gives a 0-d result
    positions = _positions(x._data.shape, full) if x._data.ndim else np.zeros((), np.int64)
    out = take(x, positions, INDEX_SELECT)
    show_attributes(out, dim=dim, self_sym_sizes=x._data.shape, index=Tensor._make(idx, False))
    return out


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
_SCATTER = dict(n_in=3, saves=("z",), kernel="scatter_add_bwd", vjp=_scatter_add_vjp, listed=(0, 1))
SCATTER_ADD = OpDef("scatter_add", _scatter_add_forward, node_name="ScatterAddBackward0", **_SCATTER)
INDEX_ADD = OpDef("index_add", _scatter_add_forward, node_name="IndexAddBackward0", **_SCATTER)


def _scatter_add(op, x, src, positions):
    from .elementwise import operands
    x, src = operands(x, src)
    src = src if isinstance(src, Tensor) else Tensor._make(src, False)
    return apply(op, (x, src, np.ascontiguousarray(positions, np.int64)))


def check_scatter_index(x, d, idx, src):
    """torch's refusals of scatter's and scatter_add's index (an integer array, none negative) and
    of a src tensor of another dtype than x's."""
    check_index_dtype(idx, "scatter(): Expected dtype int32/int64 for index")
    if isinstance(src, Tensor) and src._data.dtype != x._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_scatter_shape(x, d, idx, src)
    _check_bounds(idx, x._data.shape[d] if x._data.ndim else 1, d, negative=False)


def _check_scatter_shape(x, d, idx, src):
    """torch's scatter_shape_check, before the bounds: index no larger than x apart from dim d,
    nor than a src tensor anywhere (0-d tensors count as 1-d of size 1)."""
    if not idx.size:
        return
    ishape, xshape = idx.shape or (1,), x._data.shape or (1,)
    if len(ishape) != len(xshape):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    wrong = any(i > s for k, (i, s) in enumerate(zip(ishape, xshape)) if k != d)
    if isinstance(src, Tensor):
        sshape = src._data.shape or (1,)
        if len(sshape) != len(ishape):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        if wrong or any(i > s for i, s in zip(ishape, sshape)):
            raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self "
                               f"{list(x._data.shape)} apart from dimension {d} and to be no "
                               f"larger size than src {list(src._data.shape)}")
    elif wrong:
        raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self "
                           f"{list(x._data.shape)} apart from dimension {d}")


def scatter_add(x, dim, index, src):
    """x with src's values added at index along dim (duplicates accumulate)."""
    idx = _index_array(index)
    d = _wrap_dim(dim, x._data.ndim)
    check_scatter_index(x, d, idx, src)
    positions = _scatter_positions(x._data.shape, d, idx)
    piece = src[tuple(slice(0, s) for s in idx.shape)] if tuple(src.shape) != idx.shape else src
    out = show_attributes(_scatter_add(SCATTER_ADD, x, piece, positions), dim=dim,
                          index=Tensor._make(idx, False))
    if piece is src:
        return out
    from .named import show_inputs
    return show_inputs(out, x, src)         # torch's node reads the part of src it needs


def index_add(x, dim, index, source, *, alpha=1):
    idx = _index_array(index)
    if idx.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {idx.ndim} "
                         f"with type: {dtypes.scalar_type_name(idx.dtype)} and size: "
                         f"{list(idx.shape)}")
    check_index_dtype(idx, "index_add_(): Expected dtype int32/int64 for index but got: "
                      f"{dtypes.scalar_type_name(idx.dtype)}")
    idx = idx.reshape(-1)
    d = _wrap_dim(dim, x._data.ndim)
    # torch's order: dtypes, source's dims, the count of indices, the slices' shapes, the bounds
    if source._data.dtype != x._data.dtype:
        raise RuntimeError(f"index_add_(): self ({dtypes.scalar_type_name(x._data.dtype)}) and "
                           f"source ({dtypes.scalar_type_name(source._data.dtype)}) must have the "
                           "same scalar type")
    if d and d >= source._data.ndim:
        raise RuntimeError(f"index_add_(): Indexing dim {d} is out of bounds of the source tensor "
                           f"with dim {source._data.ndim}")
    if source._data.ndim == 0 and idx.size != 1:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    count = source._data.shape[d] if source._data.ndim else 1
    if idx.size != count:
        raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to "
                           f"source.size(dim): ({count}), for dim: {d}")
    if x._data.ndim != source._data.ndim or x._data.shape[:d] + x._data.shape[d + 1:] != \
            source._data.shape[:d] + source._data.shape[d + 1:]:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(x._data.shape)} "
                           f"source.shape = {list(source._data.shape)}")
    if x._data.ndim <= 1:       # torch's kernel for a vector words its own
        if ((idx < 0) | (idx >= (x._data.shape or (1,))[0])).any():
            raise IndexError("index out of range in self")
    _check_bounds(idx, x._data.shape[d] if x._data.ndim else 1, d, negative=False)
    if x._data.ndim:
        full = [slice(None)] * x._data.ndim
        full[d] = idx
        positions = _positions(x._data.shape, tuple(full))
    else:
        positions = np.zeros((), np.int64)      # a 0-d x and source, index [0]
    shown = {"dim": dim, "index": Tensor._make(idx, False), "alpha": alpha,
             "source_dim": source._data.ndim}
    if alpha == 1:
        return show_attributes(_scatter_add(INDEX_ADD, x, source, positions), **shown)
    from .named import show_inputs
    # torch's one node scales the source itself: its next_functions list the source
    out = show_attributes(_scatter_add(INDEX_ADD, x, source * alpha, positions), **shown)
    return show_inputs(out, x, source)


def masked_fill(x, mask, value):
    """x with value where mask (broadcast to x) holds; value is a scalar or a 0-d tensor."""
    from .elementwise import (MASKED_FILL, MASKED_FILL_TENSOR, cast, check_fits, condition_operand,
                              constant)
    mask = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if mask.dtype != np.bool_:
        # torch names the dtype as C++ does here
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{dtypes.c_type_name(mask.dtype)}")
    cond = condition_operand(mask, x._data.dtype)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value._data.ndim} dimension(s).")
        return apply(MASKED_FILL_TENSOR, (cond, x, cast(value, x._data.dtype)))
    check_fits(value, x._data.dtype)
    return apply(MASKED_FILL, (cond, x, constant(value, x._data.dtype)))
