"""More in-place Tensor methods: the in-place view ops (t_, transpose_, swapdims_/swapaxes_,
squeeze_, unsqueeze_), the in-place forms of addmm, baddbmm, tril, triu, cumprod and logical_not,
and the writes into places fill_diagonal_, index_put(_), put(_) and masked_scatter(_).

An in-place view op changes the tensor's shape and strides, never its values: the tensor gets the
data of the view op and, when recorded, its node as its new history (torch's TBackward1,
TransposeBackward1, SqueezeBackward3/4/5 and UnsqueezeBackward1: the out-of-place ops' derivative
under those names). It stays a view of the same base, and the version counter moves, as in torch.

A write of values at some places is the tensor with those places zeroed (masked_fill) plus the
values placed there (put_add, or the values added for accumulate=True), summed by a node named as
torch names it (IndexPutBackward0, CopySlices): the gradient reaches the tensor outside the places
and each value at its place. A place written twice holds the last value written, as torch's CPU
kernel leaves it. put and masked_scatter are recorded as IndexPutBackward0 where torch says
PutBackward0 and MaskedScatterBackward0. Everything is composed of registry ops, so gradients,
create_graph and the GPU come from them.
"""
import numbers

import numpy as np

from .. import dtypes, grad_mode
from ..tensor import Tensor, _wrap_dim
from . import views
from .apply import apply, show_attributes
from .elementwise import logical_not
from .index import _normalize, _positions, masked_fill, put_add
from .inplace import COPY_SLICES, INDEX_PUT, _LEAF_ERROR, _check_can_write, _repeats_elements, \
    apply_inplace
from .layout import tril, triu
from .linalg import addmm, baddbmm
from .named import named, rename, show_inputs
from .reduce import expand
from .scan import cumprod
from .scatter import _mask, _on_device_of, keep_last_writes
from .shape import PERMUTE, SQUEEZE_, SQUEEZE_DIM_, SQUEEZE_DIMS_, T_, TRANSPOSE_, UNSQUEEZE_, \
    VIEW, permute, reshape
from .untracked import to_host

_INFERENCE_ERROR = ("Inplace update to inference tensor outside InferenceMode is not allowed.You "
                    "can make a clone to get a normal tensor before doing inplace update.See "
                    "https://github.com/pytorch/rfcs/pull/17 for more details.")


# ---- in-place view ops ---------------------------------------------------------------------------
def _check_view_op(self):
    """torch's refusals of an in-place view op, made before the op checks its arguments."""
    if not grad_mode.state.grad_enabled:
        return
    info = views.view_info(self)
    if info is not None and (info.base._requires_grad or self._requires_grad):
        # torch checks a view of a base that requires grad even when the view does not (one
        # made in no_grad mode)
        views.check_inplace(self)
    if self._requires_grad and self._node < 0:
        raise RuntimeError(_LEAF_ERROR if info is None else views._VIEW_OF_LEAF_ERROR)


def _restride(self, view_op):
    """self takes view_op(self)'s shape and strides in place; view_op is an out-of-place view op
    (a permute or a reshape) whose node, when recorded, becomes self's history."""
    if self._inference and not grad_mode.state.inference:
        raise RuntimeError(_INFERENCE_ERROR)
    records = self._requires_grad and grad_mode.state.grad_enabled
    if records:
        views.refresh(self)     # its edge as of now (Note [views changed unrecorded])
    # an alias of self, so that the op's output is not registered as a view of self
    alias = Tensor._make(self._data, records, self._seg, self._node, self._slot)
    if records:
        out = view_op(alias)
    else:
        with grad_mode.no_grad():
            out = view_op(alias)
    old_shape = self._data.shape
    if type(self._data) is np.ndarray and views.view_info(self) is None:
        # its new array is a NumPy view of the old one, which the values saved before hold: a
        # version error names this tensor as theirs (tensor._changed_note)
        self._extras().setdefault("restrided_from", self._data)
    self._data = out._data
    if records:
        self._seg, self._node, self._slot = out._seg, out._node, out._slot
    if type(self._data) is not np.ndarray:
        _restride_device_views(self, views.view_info(out).chain[0], old_shape)
    self._bump_version()
    if records:
        # the version changed: its views, or the other views of its base, read the new history,
        # as torch's AsStridedBackward0
        info = views.view_info(self)
        views.regenerate(self if info is None else info.base, changed=self)
    return self


def _restride_device_views(self, step, old_shape):
    """A device view op copies (Note [device views] in views.py): the view ops from the base that
    give each device view's elements must take this change into account."""
    info = views.view_info(self)
    if info is not None and info.chain is not None:
        info.chain = info.chain + (step,)      # self's elements: one view op further
        info.positions = None
        return
    # self is a base: its views' positions are read from its new layout, so each chain starts
    # with the op that takes the new layout back to the old one
    attrs = step[1]
    if "perm" in attrs:
        undo = (PERMUTE, {"perm": tuple(int(p) for p in np.argsort(attrs["perm"]))}, 0)
    else:
        undo = (VIEW, {"shape": tuple(old_shape)}, 0)
    for view in views._live_views(self):
        view_info = view._extra["view"]
        if view_info.chain is not None:
            view_info.chain = (undo,) + view_info.chain
            view_info.positions = None


def _permute_in_place(self, perm, op):
    return _restride(self, lambda x: permute(x, perm, op=op))


def t_(self):
    """In-place t: a matrix's dims swapped; 0-d and 1-D tensors unchanged (a node all the same)."""
    _check_view_op(self)
    nd = self._data.ndim
    if nd > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return _permute_in_place(self, tuple(range(nd))[::-1], T_)


def transpose_(self, dim0, dim1):
    """In-place transpose of dims dim0 and dim1."""
    _check_view_op(self)
    nd = self._data.ndim
    perm = list(range(nd))
    a, b = _wrap_dim(dim0, nd), _wrap_dim(dim1, nd)
    if nd:
        perm[a], perm[b] = perm[b], perm[a]
    return _restride(self, lambda x: permute(x, tuple(perm), op=TRANSPOSE_, dim0=dim0, dim1=dim1))


swapdims_ = swapaxes_ = transpose_


def squeeze_(self, dim=None):
    """In-place squeeze: the size-1 dims removed (those of dim only, an int or a tuple)."""
    _check_view_op(self)
    shape = self._data.shape
    if dim is None:
        new, op = tuple(s for s in shape if s != 1), SQUEEZE_
    else:
        one = isinstance(dim, (int, np.integer))
        dims = [_wrap_dim(d, len(shape)) for d in ((dim,) if one else dim)]
        for d in dims:
            if dims.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
        op = SQUEEZE_DIM_ if one else SQUEEZE_DIMS_
    shown = {"self_sym_sizes": shape} if dim is None else \
        {"self_sym_sizes": shape, "dim": dim if one else tuple(dim)}
    return _restride(self, lambda x: reshape(x, new, op=op, **shown))


def unsqueeze_(self, dim):
    """In-place unsqueeze: a size-1 dim inserted at dim."""
    _check_view_op(self)
    shape = self._data.shape
    d = _wrap_dim(dim, len(shape) + 1)
    return _restride(self, lambda x: reshape(x, shape[:d] + (1,) + shape[d:], op=UNSQUEEZE_,
                                             dim=dim))


def as_strided_(self, size, stride, storage_offset=None):
    """In-place as_strided: self shows its storage (its base's memory, for a view) with these sizes
    and strides; storage_offset defaults to self's own. Recorded, torch's node is
    AsStridedBackward1 over self's history, each element taking the gradient of the element of
    self it shows."""
    from .shape import as_strided
    _check_view_op(self)
    if type(self._data) is not np.ndarray:
        raise NotImplementedError("as_strided_ of a device tensor")
    with grad_mode.no_grad():
        # torch's checks of the sizes, and the new layout over the storage
        data = as_strided(self, size, stride, storage_offset)._data
    storage, _ = views.storage_of(self)
    where = views._region(storage._data, data)
    size, stride = tuple(data.shape), tuple(s // data.itemsize for s in data.strides)
    offset = where.affine[0] if where.affine is not None else int(storage_offset or 0)

    def view_op(alias):
        shown = views.as_strided_of(alias, self._data, storage, data, "AsStridedBackward1",
                                    {"size": size, "stride": stride, "storage_offset": offset})
        return Tensor._make(data, shown._requires_grad, shown._seg, shown._node, shown._slot)
    return _restride(self, view_op)


# ---- in-place forms of out-of-place ops ----------------------------------------------------------
def _same_shape(fn):
    """fn for its in-place form: torch refuses a result whose shape or dtype is not self's (the
    in-place op cannot broadcast self or change its dtype)."""
    def checked(self, *args, **kwargs):
        out = fn(self, *args, **kwargs)
        if out._data.shape != self._data.shape:
            raise RuntimeError(f"Bad in-place call: input tensor size {list(self._data.shape)} and "
                               f"output tensor size {list(out._data.shape)} should match")
        if out._data.dtype != self._data.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype "
                               f"{dtypes.c_type_name(self._data.dtype)} and output tensor dtype "
                               f"{dtypes.c_type_name(out._data.dtype)} should match")
        return out
    checked.__name__ = fn.__name__
    return checked


def logical_not_(self):
    """In-place logical_not: 1 where self is 0, else 0, in self's dtype. As in torch, it is not
    recorded at all: self keeps its history (and a leaf that requires grad may be written)."""
    if type(self._data) is np.ndarray and _repeats_elements(self._data):
        _check_can_write(self)          # torch's refusal of a write into an expanded tensor
    if self._inference and not grad_mode.state.inference:
        raise RuntimeError(_INFERENCE_ERROR)
    with grad_mode.no_grad():
        result = logical_not(Tensor._make(self._data, False))
    np.copyto(self._data, result._data, casting="unsafe")
    self._bump_version()
    return self


# ---- writes into places --------------------------------------------------------------------------
def _write(x, positions, values, op, accumulate=False, shown=None):
    """x with values (a Tensor or a number, broadcast to positions' shape) written at the flat
    positions - added there with accumulate - as op, a sum whose gradient reaches both terms. Its
    next_functions list x and values (`shown`, where the caller reshaped what torch's op takes)."""
    shown = values if shown is None else shown
    if not isinstance(values, Tensor):
        values = _on_device_of(x, np.asarray(values, x._data.dtype))
    values = expand(values, positions.shape)
    if accumulate:
        kept = x
    else:
        values = keep_last_writes(x, positions, values)     # only the last write to a place stays
        kept = masked_fill(x, _mask(x, positions), 0)
    return show_inputs(apply(op, (kept, put_add(values, positions, x._data.shape))), x, shown)


def fill_diagonal_(self, fill_value, wrap=False):
    """The main diagonal (of a matrix, or of a tensor whose dims are all equal) set to fill_value;
    with wrap, a tall matrix's diagonal starts again every cols + 1 rows, as in torch."""
    if isinstance(fill_value, Tensor) and not fill_value._requires_grad and not fill_value.ndim:
        fill_value = fill_value.item()      # torch reads a 0-d tensor as its number
    if not isinstance(fill_value, numbers.Number):
        raise TypeError(f"fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not "
                        f"{type(fill_value).__name__}")
    shape = self._data.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    # torch writes through a strided view of self: a leaf that requires grad is a view's base
    if self._requires_grad and grad_mode.state.grad_enabled and self._node < 0:
        raise RuntimeError(views._VIEW_OF_LEAF_ERROR)
    # the diagonal's flat positions are evenly spaced: one step is the sum of the C strides
    step = sum(int(np.prod(shape[k + 1:])) for k in range(len(shape)))
    if len(shape) == 2 and wrap:
        positions = np.arange(0, self._data.size, step, dtype=np.int64)
    else:
        positions = np.arange(min(shape), dtype=np.int64) * step
    return apply_inplace(self, lambda s: _write(s, positions, fill_value, COPY_SLICES),
                         saves_self=False)


def index_put(input, indices, values, accumulate=False):
    """input with values (broadcast) at input[indices] (a tuple of index tensors), added there
    (duplicates accumulating) with accumulate."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put_(): argument 'indices' (position 1) must be tuple of Tensors, "
                        f"not {type(indices).__name__}")
    for index in indices:
        if isinstance(index, Tensor) and index._data.dtype.kind not in "iub":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if values._data.dtype != input._data.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{dtypes.scalar_type_name(input._data.dtype)} for the destination and "
                           f"{dtypes.scalar_type_name(values._data.dtype)} for the source.")
    try:
        positions = _positions(input._data.shape, _normalize(tuple(indices)))
    except IndexError as error:
        raise IndexError(str(error).replace(" axis ", " dimension ")) from None
    if not _broadcasts_to(values._data.shape, positions.shape):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values._data.shape)} "
                           f"cannot be broadcast to indexing result of shape "
                           f"{list(positions.shape)}")
    return show_attributes(_write(input, positions, values, INDEX_PUT, accumulate),
                           accumulate=accumulate, indices=tuple(indices))


def _broadcasts_to(shape, target):
    try:
        return np.broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def put(input, index, source, accumulate=False):
    """input with source's elements at the flat (row-major) positions index, negative ones
    counting from the end; added there (duplicates accumulating) with accumulate."""
    if index._data.dtype != dtypes.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{dtypes.scalar_type_name(index._data.dtype)}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {dtypes.scalar_type_name(input._data.dtype)} and "
                           f"source.dtype = {dtypes.scalar_type_name(source._data.dtype)}")
    if source._data.size != index._data.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, "
                         f"but got source.numel() = {source._data.size}, index.numel() = "
                         f"{index._data.size}")
    positions = to_host(index._data).reshape(-1)
    count = input._data.size
    bad = (positions < -count) | (positions >= count)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(positions[bad][0])} on a "
                         f"tensor of {count} elements.")
    return rename(_write(input, positions % max(count, 1), reshape(source, -1), INDEX_PUT,
                         accumulate, shown=source), "PutBackward0",
                  attributes={"accumulate": accumulate, "index": index})


def _bool_mask(mask):
    array = to_host(mask._data) if isinstance(mask, Tensor) else np.asarray(mask)
    if array.dtype != np.bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{dtypes.scalar_type_name(array.dtype)}")
    return array


def _scatter_masked(input, mask, source, given_mask):
    """input with source's first elements, in order, where mask (input's shape) holds; the node
    keeps the mask as given, as torch's."""
    if source._data.dtype != input._data.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{dtypes.scalar_type_name(input._data.dtype)} and "
                           f"{dtypes.scalar_type_name(source._data.dtype)}")
    positions = np.flatnonzero(mask)
    if source._data.size < positions.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    values = reshape(source, -1)[:positions.size]
    return rename(_write(input, positions, values, INDEX_PUT, shown=source),
                  "MaskedScatterBackward0", attributes={"mask": Tensor._make(given_mask, False),
                                                        "source_sym_sizes": source._data.shape})


def masked_scatter(input, mask, source):
    """input and mask broadcast together, with source's first elements, in order, where mask
    holds."""
    given = _bool_mask(mask)
    shape = np.broadcast_shapes(input._data.shape, given.shape)
    target = expand(input, shape) if shape != input._data.shape else input
    return named(_scatter_masked(target, np.broadcast_to(given, shape), source, given),
                 "MaskedScatterBackward0", inputs=(input, source),
                 attributes={"mask": Tensor._make(given, False),
                             "source_sym_sizes": source._data.shape})


def _masked_scatter_into(self, mask, source):
    # in place, the mask is broadcast to self (torch's expand errors), never self to the mask
    mask = given = _bool_mask(mask)
    if mask.ndim > self._data.ndim:
        device = "CPU" if type(self._data) is np.ndarray else "CUDA"
        raise RuntimeError(f"expand({device}BoolType{{{list(mask.shape)}}}, "
                           f"size={list(self._data.shape)}): the number of sizes provided "
                           f"({self._data.ndim}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({mask.ndim})")
    if mask.shape != self._data.shape:
        mask = expand(Tensor._make(mask, False), self._data.shape)._data
    return _scatter_masked(self, mask, source, given)


_masked_scatter_into.__name__ = "masked_scatter"

PUBLIC = ("index_put", "put", "masked_scatter")
METHODS = PUBLIC + ("as_strided_", "t_", "transpose_", "swapdims_", "swapaxes_", "squeeze_", "unsqueeze_",
                    "logical_not_", "fill_diagonal_")
# saves_self: whether the op's derivative reads self's old value (cumprod's does; addmm's and
# baddbmm's scale it by a number, tril's and triu's keep it by a mask, the writes mask it out).
INPLACE = {"addmm_": (_same_shape(addmm), False), "baddbmm_": (_same_shape(baddbmm), False),
           "tril_": (tril, False), "triu_": (triu, False), "cumprod_": (_same_shape(cumprod), True),
           "index_put_": (index_put, False), "put_": (put, False),
           "masked_scatter_": (_masked_scatter_into, False)}
