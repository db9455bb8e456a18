"""Shape ops: reshape/view and their kin, permute/transpose, basic indexing, stack and cat, flip,
repeat and constant padding.

Views share their base's version counter, as in torch: an in-place change through one is seen
by the saved-value checks of the other.
"""
import math
import operator

import numpy as np

from ..tensor import Tensor, _wrap_dim
from .apply import apply, show_attributes
from .registry import OpDef


# ---- reshape and kin: the same elements in the same order ---------------------------------------
def _reshape_vjp(ctx, g):
    return (g.reshape(ctx.in_shapes[0]),)


def _reshape_forward(x, shape):
    return x.reshape(shape)


# torch undoes unsqueeze with squeeze(dim) and squeeze with unsqueeze_to (an unsqueeze per dim of
# size 1 that went): under create_graph their nodes are SqueezeBackward1 and UnsqueezeBackward0
def _unsqueeze_vjp(ctx, g):
    in_shape, out_shape = tuple(ctx.in_shapes[0]), g._data.shape
    dim = next(d for d in range(len(out_shape))
               if out_shape[:d] + out_shape[d + 1:] == in_shape)
    return (squeeze(g, dim),)


def _squeeze_vjp(ctx, g):
    return (unsqueeze_to(g, ctx.in_shapes[0]),)


def unsqueeze_to(g, shape):
    """g with the dims of size 1 that `shape` has and g lacks put back, one unsqueeze each in
    increasing order, as torch's unsqueeze_to and unsqueeze_multiple (of equal neighbours, which
    one went makes the same shape)."""
    shape, have = tuple(shape), g._data.shape
    kept = 0
    missing = []
    for d, size in enumerate(shape):
        if kept < len(have) and have[kept] == size:
            kept += 1
        else:
            missing.append(d)
    for d in missing:
        g = unsqueeze(g, d)
    return g


_COPY = dict(kernel="copy_bwd", vjp=_reshape_vjp)
_UNSQUEEZE = dict(_COPY, vjp=_unsqueeze_vjp)
_SQUEEZE = dict(_COPY, vjp=_squeeze_vjp)
VIEW = OpDef("view", _reshape_forward, node_name="ViewBackward0", view=True, **_COPY)
UNSQUEEZE = OpDef("unsqueeze", _reshape_forward, node_name="UnsqueezeBackward0", view=True,
                  **_UNSQUEEZE)
SQUEEZE = OpDef("squeeze", _reshape_forward, node_name="SqueezeBackward0", view=True, **_SQUEEZE)
SQUEEZE_DIM = OpDef("squeeze_dim", _reshape_forward, node_name="SqueezeBackward1", view=True,
                    **_SQUEEZE)
SQUEEZE_DIMS = OpDef("squeeze_dims", _reshape_forward, node_name="SqueezeBackward2", view=True,
                     **_SQUEEZE)
def keeps_layout(a):
    """torch's preserve_format: a copy of a tensor whose elements are dense and do not overlap
    keeps its strides (x.t().clone() is transposed too); any other comes out contiguous."""
    if a.flags.c_contiguous:
        return True
    expected = a.itemsize
    for stride, size in sorted((s, n) for n, s in zip(a.shape, a.strides) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _clone_forward(x, keep_layout=False):
    return x.copy(order="K" if keep_layout and keeps_layout(x) else "C")


def _clone_vjp(ctx, g):
    # torch's CloneBackward0 hands the gradient on as it is: no node of its own under create_graph
    return (g,)


CLONE = OpDef("clone", _clone_forward, node_name="CloneBackward0", **dict(_COPY, vjp=_clone_vjp))
# torch's reshape of a non-contiguous tensor whose strides allow a view (_reshape_alias)
RESHAPE_ALIAS = OpDef("reshape_alias", _reshape_forward, node_name="ReshapeAliasBackward0",
                      view=True, **_COPY)
# torch's _unsafe_view: the reshape of a fresh copy, which is not a view of anything
UNSAFE_VIEW = OpDef("unsafe_view", _reshape_forward, node_name="UnsafeViewBackward0", **_COPY)
# the in-place view ops squeeze_ and unsqueeze_: the same derivative, under torch's names for them
SQUEEZE_ = OpDef("squeeze_", _reshape_forward, node_name="SqueezeBackward3", view=True, **_SQUEEZE)
SQUEEZE_DIM_ = OpDef("squeeze_dim_", _reshape_forward, node_name="SqueezeBackward4", view=True,
                     **_SQUEEZE)
SQUEEZE_DIMS_ = OpDef("squeeze_dims_", _reshape_forward, node_name="SqueezeBackward5", view=True,
                      **_SQUEEZE)
UNSQUEEZE_ = OpDef("unsqueeze_", _reshape_forward, node_name="UnsqueezeBackward1", view=True,
                   **_UNSQUEEZE)


def _infer_shape(shape, numel):
    """torch's infer_size: its checks in its order, so that each bad shape gets torch's error."""
    shape = list(shape)
    infer, known = None, 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {shape}")
        else:
            known *= s
    if numel == known or (infer is not None and known > 0 and numel % known == 0):
        if infer is not None:
            if known == 0:
                raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {shape} "
                                   "because the unspecified dimension size -1 can be any value "
                                   "and is ambiguous")
            shape[infer] = numel // known
        return tuple(shape)
    raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")


def _shape_args(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return tuple(operator.index(s) for s in shape)     # NumPy integers as ints (in messages too)


def _viewable(data, shape):
    """Whether data's strides allow shape without a copy (NumPy's rule is torch's)."""
    if data.flags.c_contiguous:
        return True           # every device array: the GPU's strided ops gather into new memory
    try:
        np.reshape(data, shape, copy=False)
    except ValueError:
        return False
    return True


def reshape(x, *shape, op=None, **shown):
    """x's elements in `shape`. As torch's reshape (op None): a view of a contiguous x, an alias
    (ReshapeAliasBackward0) of another x whose strides allow one, else the reshape of a clone,
    each node showing x's sizes. An op given (unsqueeze, squeeze, ...) is recorded as it is,
    showing `shown`: the caller's values of torch's attributes of that op's node."""
    shape = _infer_shape(_shape_args(shape), x._data.size)
    if op is None:
        data = x._data
        shown = {"self_sym_sizes": data.shape}
        if data.flags.c_contiguous:
            op = VIEW
        elif _viewable(data, shape):
            op = RESHAPE_ALIAS
        else:
            x, op = apply(CLONE, (x,)), UNSAFE_VIEW     # a contiguous copy, then viewed
    out = apply(op, (x,), {"shape": shape})
    show_attributes(out, **shown)
    return out


def view(x, *shape):
    shape = _infer_shape(_shape_args(shape), x._data.size)
    if not _viewable(x._data, shape):
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    out = apply(VIEW, (x,), {"shape": shape})
    show_attributes(out, self_sym_sizes=x._data.shape)
    return out


def flatten(x, start_dim=0, end_dim=-1):
    nd = x._data.ndim
    s, e = _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)     # a 0-d x has dims -1 and 0
    if nd == 0:
        return reshape(x, 1)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return x              # as torch: nothing to merge, no node
    shape = x._data.shape
    return reshape(x, shape[:s] + (int(np.prod(shape[s:e + 1])),) + shape[e + 1:])


def unsqueeze(x, dim):
    d = _wrap_dim(dim, x._data.ndim + 1)
    shape = x._data.shape[:d] + (1,) + x._data.shape[d:]
    return reshape(x, shape, op=UNSQUEEZE, dim=dim)


def squeeze(x, dim=None):
    shape = x._data.shape
    if dim is None:
        return reshape(x, tuple(s for s in shape if s != 1), op=SQUEEZE, self_sym_sizes=shape)
    one = isinstance(dim, (int, np.integer))
    dims = (dim,) if one else tuple(dim)
    drop = {_wrap_dim(d, x._data.ndim) for d in dims}
    new = tuple(s for i, s in enumerate(shape) if not (i in drop and s == 1))
    return reshape(x, new, op=SQUEEZE_DIM if one else SQUEEZE_DIMS, dim=dim if one else dims,
                   self_sym_sizes=shape)


def clone(x):
    """A copy of x with its own history (CloneBackward0), laid out as torch's preserve_format
    lays it out."""
    return apply(CLONE, (x,), {"keep_layout": True})


def contiguous(x):
    return x if x._data.flags.c_contiguous else apply(CLONE, (x,))


# ---- permute and transpose ----------------------------------------------------------------------
def _permute_vjp(ctx, g):
    perm = [int(p) for p in ctx.ints]
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return (permute(g, inverse),)


# torch undoes t and transpose with themselves (TBackward0, TransposeBackward0 under create_graph)
def _t_vjp(ctx, g):
    return (t(g),)


def _transpose_vjp(ctx, g):
    swapped = [d for d, p in enumerate(ctx.ints) if int(p) != d] or [0, 0]
    return (transpose(g, *swapped) if g._data.ndim else t(g),)


_PERMUTE = dict(kernel="permute_bwd", vjp=_permute_vjp, meta=lambda perm: (perm, ()), view=True)
_T = dict(_PERMUTE, vjp=_t_vjp)
_TRANSPOSE = dict(_PERMUTE, vjp=_transpose_vjp)
PERMUTE = OpDef("permute", lambda x, perm: x.transpose(perm), node_name="PermuteBackward0", **_PERMUTE)
TRANSPOSE = OpDef("transpose", lambda x, perm: x.transpose(perm), node_name="TransposeBackward0",
                  **_TRANSPOSE)
T = OpDef("t", lambda x, perm: x.transpose(perm), node_name="TBackward0", **_T)
# the in-place view ops: the same derivative, under torch's names for them
T_ = OpDef("t_", lambda x, perm: x.transpose(perm), node_name="TBackward1", **_T)
TRANSPOSE_ = OpDef("transpose_", lambda x, perm: x.transpose(perm),
                   node_name="TransposeBackward1", **_TRANSPOSE)


def permute(x, *dims, op=PERMUTE, **shown):
    """x's dims in the order dims. Recorded as permute (showing dims as given), or as op (t,
    transpose) showing `shown`: the caller's values of torch's attributes of op's node."""
    dims = _shape_args(dims)
    nd = x._data.ndim
    if len(dims) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not "
                           f"match the length of the desired ordering of dimensions i.e. input.dim()"
                           f" = {nd} is not equal to len(dims) = {len(dims)}")
    perm = tuple(_wrap_dim(d, nd) for d in dims) if nd else ()
    if len(set(perm)) != nd:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    out = apply(op, (x,), {"perm": perm})
    if op is PERMUTE:
        show_attributes(out, dims=dims)
    else:
        show_attributes(out, **shown)
    return out


def transpose(x, dim0, dim1):
    nd = x._data.ndim
    perm = list(range(nd))
    a, b = _wrap_dim(dim0, nd), _wrap_dim(dim1, nd)     # a 0-d x has dims -1 and 0
    if nd:
        perm[a], perm[b] = perm[b], perm[a]
    return permute(x, perm, op=TRANSPOSE, dim0=dim0, dim1=dim1)


def t(x):
    nd = x._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    # below 2-D, a view of the same shape: a new tensor with its own node (TBackward0), as torch
    return permute(x, tuple(range(nd))[::-1], op=T)


# ---- basic indexing: an affine view ---------------------------------------------------------------
def _strided_meta(offset, strides, in_shape):
    return (offset, *strides), ()


def _strided_vjp(ctx, g):
    return (apply(STRIDED_SCATTER, (g,), _strided_attrs(ctx.ints, ctx.in_shapes[0])),)


def _scatter_named(node_name):
    """A strided view's VJP whose node is named as torch's backward op of that view
    (select_backward: SelectBackwardBackward0, ...)."""
    def vjp(ctx, g):
        from .named import rename
        return (rename(_strided_vjp(ctx, g)[0], node_name),)
    return vjp


def _alias_vjp(ctx, g):
    return (g,)         # torch's alias passes its gradient on as it is


def _strided_attrs(ints, in_shape):
    return {"offset": int(ints[0]), "strides": tuple(int(s) for s in ints[1:]),
            "in_shape": tuple(in_shape)}


def _scatter_vjp(ctx, g):
    attrs = _strided_attrs(ctx.ints, ctx.out_shapes[0])
    return (apply(STRIDED, (g,), dict(attrs, out_shape=tuple(ctx.in_shapes[0]))),)


def _strided_forward(x, offset, strides, in_shape, out_shape, index=None):
    if index is not None:
        # NumPy's own view: writes through it reach x (the Ellipsis keeps an all-integer index
        # from returning a scalar copy)
        items = index if isinstance(index, tuple) else (index,)
        return x[items if Ellipsis in items else items + (Ellipsis,)]
    if x.flags.c_contiguous:
        flat = x.reshape(-1)
        item = flat.itemsize
        return np.lib.stride_tricks.as_strided(flat[offset:], out_shape,
                                               [s * item for s in strides])
    view = _memory_view(x, offset, strides, out_shape)
    return view if view is not None else _strided_forward(np.ascontiguousarray(x), offset, strides,
                                                          in_shape, out_shape)


def _c_digits(position, shape):
    """A flat C-order position as one count per dim of shape (the first dim takes any excess)."""
    digits = []
    for d in range(len(shape) - 1, 0, -1):
        position, digit = divmod(position, shape[d])
        digits.append(digit)
    digits.append(position)
    return digits[::-1] if shape else []


def _memory_view(x, offset, strides, out_shape):
    """The view of non-contiguous x's own memory whose elements are x's C-order elements offset +
    sum(i_k * strides_k), so that writes through it reach x (diagonal and unfold of a transposed
    or sliced tensor are views, as in torch). That is an affine map of x's memory when each
    step moves along x's dims without carrying from one dim into the next; None otherwise."""
    if 0 in out_shape:
        return np.empty(out_shape, x.dtype)
    start = _c_digits(offset, x.shape)
    reach = list(start)
    byte_strides = []
    for size, stride in zip(out_shape, strides):
        digits = _c_digits(stride, x.shape) if size > 1 else [0] * x.ndim
        reach = [r + (size - 1) * d for r, d in zip(reach, digits)]
        byte_strides.append(sum(d * s for d, s in zip(digits, x.strides)))
    if any(r >= n for r, n in zip(reach, x.shape)):
        return None
    corner = x[tuple(slice(i, i + 1) for i in start)]
    return np.lib.stride_tricks.as_strided(corner, out_shape, byte_strides)


def _overlaps(shape, strides):
    """Whether two elements of a strided view may be one place: sorted by stride, each dim must
    step past the whole span of the dims below it (a sufficient test of no overlap)."""
    span = 0
    for size, stride in sorted(((n, s) for n, s in zip(shape, strides) if n > 1),
                               key=lambda pair: pair[1]):
        if stride <= span:
            return True
        span += (size - 1) * stride
    return False


def _scatter_forward(g, offset, strides, in_shape):
    out = np.zeros(in_shape, g.dtype)
    item = out.itemsize
    flat = out.reshape(-1)
    if _overlaps(g.shape, strides):
        # places shared by several elements (as_strided, unfold windows) get their sum
        numbers = np.arange(flat.size, dtype=np.int64)
        places = np.lib.stride_tricks.as_strided(numbers[offset:], g.shape,
                                                 [s * numbers.itemsize for s in strides])
        np.add.at(flat, places, g)
        return out
    target = np.lib.stride_tricks.as_strided(flat[offset:], g.shape, [s * item for s in strides])
    target[...] = g
    return out


_STRIDED = dict(kernel="strided_bwd", vjp=_strided_vjp, view=True,
                meta=lambda offset, strides, in_shape, out_shape, index=None:
                _strided_meta(offset, strides, in_shape))
STRIDED = OpDef("strided", _strided_forward, node_name="SliceBackward0",
                **dict(_STRIDED, vjp=_scatter_named("SliceBackwardBackward0")))
SELECT = OpDef("select", _strided_forward, node_name="SelectBackward0",
               **dict(_STRIDED, vjp=_scatter_named("SelectBackwardBackward0")))
# torch's general strided view; also the history of a view regenerated after an in-place op
AS_STRIDED = OpDef("as_strided", _strided_forward, node_name="AsStridedBackward0", **_STRIDED)
# strided views torch names for their own op: diagonal, unfold, and an index that applies nothing
# (x[...], x[:, :]: torch's alias)
DIAGONAL = OpDef("diagonal", _strided_forward, node_name="DiagonalBackward0",
                 **dict(_STRIDED, vjp=_scatter_named("DiagonalBackwardBackward0")))
UNFOLD = OpDef("unfold", _strided_forward, node_name="UnfoldBackward0",
               **dict(_STRIDED, vjp=_scatter_named("UnfoldBackwardBackward0")))
ALIAS = OpDef("alias", _strided_forward, node_name="AliasBackward0", **dict(_STRIDED, vjp=_alias_vjp))
# diag of a matrix: its diagonal as a new tensor (torch's diagonal_copy), not a view
DIAGONAL_COPY = OpDef("diagonal_copy", lambda x, **attrs: _strided_forward(x, **attrs).copy(),
                      node_name="DiagonalBackward0_copy",
                      **dict(_STRIDED, view=False, vjp=_scatter_named("DiagonalBackwardBackward0")))


def as_strided(x, size, stride, storage_offset=None):
    """A view of x's storage (its base's memory for a view, as in torch) with the given sizes and
    strides in elements; storage_offset defaults to x's own.

    >>> ng.arange(6.0).as_strided((2, 2), (1, 2), 1)
    tensor([[1., 3.],
            [2., 4.]])
    """
    from .views import as_strided_of, restrict_like, storage_of
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    storage, own_offset = storage_of(x)
    offset = own_offset if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    if needed > storage._data.size:
        item = storage._data.itemsize
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset "
                           f"{offset}, and itemsize {item} requiring a storage size of "
                           f"{needed * item} are out of bounds for storage of size "
                           f"{storage._data.size * item}")
    view = apply(AS_STRIDED, (storage,), {"offset": offset, "strides": stride,
                                          "in_shape": storage._data.shape, "out_shape": size})
    shown = {"size": size, "stride": stride, "storage_offset": storage_offset}
    if storage is not x:
        restrict_like(view, x)
        if view._node >= 0 and x._requires_grad and type(view._data) is np.ndarray:
            # torch's node reads x, not its base: the gradient of an element outside x is lost
            read = as_strided_of(x, x._data, storage, view._data, "AsStridedBackward0", shown)
            view._seg, view._node, view._slot = read._seg, read._node, read._slot
            return view
    return show_attributes(view, **shown)


def _scatter_meta(offset, strides, in_shape):
    return (offset, *strides), ()


STRIDED_SCATTER = OpDef("strided_scatter", _scatter_forward, node_name="AsStridedScatterBackward0",
                        kernel="strided_gather_bwd", vjp=_scatter_vjp, meta=_scatter_meta)


def is_basic_index(index):
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, slice, np.integer))
               and not isinstance(i, bool) for i in items)


def basic_index_map(shape, index):
    """Out shape, offset and strides (in elements of the C-ordered input) of x[index]."""
    items = list(index) if isinstance(index, tuple) else [index]
    n_real = sum(1 for i in items if i is not None and i is not Ellipsis)
    if not shape and not isinstance(index, tuple):
        # torch's own words for one int or slice given to a 0-d tensor
        if isinstance(index, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        if index is not None and index is not Ellipsis:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    if n_real > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    spread = len(shape) - n_real
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at:at + 1] = [slice(None)] * spread
    else:
        at = len(items)
        items += [slice(None)] * spread
    cstrides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        cstrides[d] = cstrides[d + 1] * shape[d + 1]
    out_shape, strides, offset, d = [], [], 0, 0
    for k, item in enumerate(items):
        if item is None:
            out_shape.append(1)
            strides.append(0)
            continue
        size = shape[d]
        if isinstance(item, slice):
            start, stop, step = item.indices(size)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            out_shape.append(len(range(start, stop, step)))
            strides.append(step * cstrides[d])
            offset += start * cstrides[d] if out_shape[-1] else 0
        else:
            i = int(item)
            if not -size <= i < size:
                # torch numbers the dim by the item's place in the index (an ellipsis is one)
                place = k if k < at else k - spread + 1
                raise IndexError(f"index {i} is out of bounds for dimension {place} with size "
                                 f"{size}")
            offset += (i % size) * cstrides[d]
        d += 1
    return tuple(out_shape), offset, tuple(strides)


def torch_steps(shape, index):
    """The views torch's indexing applies one after the other, each a node of its own: an int
    selects, None (and a bool, before its mask) unsqueezes, a slice slices - except a slice inside
    a tuple that starts at 0 as given, steps by 1 and ends at or past the end, which it skips.
    Each step is (kind, dim of the partly indexed tensor, item); arrays are left for the index op
    after these steps."""
    single = not isinstance(index, tuple)
    items = [index] if single else index
    n_real = sum(consumed_dims(i) for i in items)
    sizes, steps, at = list(shape), [], 0
    for item in items:
        if item is None or _is_bool_scalar(item):
            steps.append(("unsqueeze", at, None))
            sizes.insert(at, 1)
            at += 1
        elif item is Ellipsis:
            at += len(shape) - n_real
        elif isinstance(item, np.ndarray):
            at += consumed_dims(item)
        elif isinstance(item, slice):
            start = 0 if item.start is None else int(item.start)
            stop = _NO_END if item.stop is None else int(item.stop)
            step = 1 if item.step is None else int(item.step)
            if single or not is_whole_slice(item, sizes[at]):
                steps.append(("slice", at, slice(start, stop, step)))
                sizes[at] = len(range(*slice(start, stop, step).indices(sizes[at])))
            at += 1
        else:
            steps.append(("select", at, int(item)))
            del sizes[at]
    return steps


def is_whole_slice(item, size):
    """Whether torch's indexing skips this slice of a dim of this size: it starts at 0 as given,
    steps by 1 and ends at or past the end (x[-3:] of 3 elements is a view all the same)."""
    return ((item.start or 0) == 0 and (item.step or 1) == 1
            and (item.stop is None or item.stop >= size))


def _is_bool_scalar(item):
    return isinstance(item, np.ndarray) and item.dtype == np.bool_ and item.ndim == 0


def consumed_dims(item):
    """How many of the indexed tensor's dims an index item stands for."""
    if item is None or item is Ellipsis:
        return 0
    return item.ndim if isinstance(item, np.ndarray) and item.dtype == np.bool_ else 1


# torch's slice keeps an end not given as the largest int64
_NO_END = 2 ** 63 - 1


def apply_steps(x, steps):
    """x viewed through torch_steps' steps, one node each."""
    for kind, at, item in steps:
        if kind == "unsqueeze":
            x = unsqueeze(x, at)
        elif kind == "select":
            x = select_along(x, at, item)
        else:
            x = slice_along(x, at, item.start, item.stop, item.step)
    return x


def basic_getitem(x, index):
    shape = x._data.shape
    out_shape, offset, strides = basic_index_map(shape, index)     # torch's errors first
    steps = torch_steps(shape, index)
    if not steps:
        # torch's indexing returns an alias when it applied nothing
        return _index_view(x, ALIAS, out_shape, offset, strides, index)
    return apply_steps(x, steps)


def _index_view(x, op, out_shape, offset, strides, index, /, **shown):
    """x[index] recorded as op (the strided view's select, slice or alias), showing `shown`
    (which may name torch's `index`)."""
    out = apply(op, (x,), {"offset": offset, "strides": strides, "in_shape": x._data.shape,
                           "out_shape": out_shape, "index": index})
    show_attributes(out, **shown)
    return out


def slice_along(x, dim, start, end, step=1):
    """torch's slice op (narrow, tensor_split): elements start, start + step, ... before end along
    dim, recorded as SliceBackward0 even where they are the whole dim (which an index would
    skip), showing dim, start and end as given."""
    shape = x._data.shape
    index = (slice(None),) * _wrap_dim(dim, len(shape)) + (slice(start, end, step),)
    out_shape, offset, strides = basic_index_map(shape, index)
    return _index_view(x, STRIDED, out_shape, offset, strides, index, dim=dim, start=start,
                       end=end, step=step, self_sym_sizes=shape)


def select_along(x, dim, index):
    """torch's select op: the elements at index along dim, that dim removed, showing dim and
    index as given."""
    shape = x._data.shape
    where = (slice(None),) * _wrap_dim(dim, len(shape)) + (index,)
    out_shape, offset, strides = basic_index_map(shape, where)
    return _index_view(x, SELECT, out_shape, offset, strides, where, dim=dim, index=index,
                       self_sym_sizes=shape)


# ---- stack and cat --------------------------------------------------------------------------------
def _blocks_vjp(ctx, g):
    """Cut g back into the inputs' blocks (used by stack and cat)."""
    outer, width = int(ctx.ints[0]), int(ctx.ints[1])
    flat = g.reshape(outer, width)
    grads, start = [], 0
    for k, shape in enumerate(ctx.in_shapes):
        w = int(ctx.ints[2 + k])
        piece = flat[:, start:start + w]
        grads.append(piece.reshape(shape) if ctx.needs_input_grad[k] else None)
        start += w
    return grads


def _stack_vjp(ctx, g):
    """torch's stack backward: input k's gradient is g.select(dim, k) (SelectBackward0)."""
    shape, n, outer = g._data.shape, len(ctx.in_shapes), int(ctx.ints[0])
    dim = next(d for d in range(len(shape)) if shape[d] == n and math.prod(shape[:d]) == outer
               and shape[:d] + shape[d + 1:] == tuple(ctx.in_shapes[0]))
    return [select_along(g, dim, k) if ctx.needs_input_grad[k] else None for k in range(n)]


def _cat_vjp(ctx, g):
    """torch's cat backward: input k's gradient is its slice of g along dim (SliceBackward0); an
    empty (0,) input gets zeros with no history."""
    shape = g._data.shape
    joined = [tuple(s) for s in ctx.in_shapes if tuple(s) != (0,)]
    dim = next((d for s in joined for d in range(len(shape)) if s[d] != shape[d]), 0)
    grads, start = [], 0
    for k, s in enumerate(ctx.in_shapes):
        if tuple(s) == (0,):
            grads.append(Tensor._make(np.zeros(0, g._data.dtype), False))
            continue
        grads.append(slice_along(g, dim, start, start + s[dim]) if ctx.needs_input_grad[k]
                     else None)
        start += s[dim]
    return grads


def _blocks_meta(dim, outer, widths):
    return (outer, sum(widths), *widths), ()


STACK = OpDef("stack", lambda *xs, dim, outer, widths: np.stack(xs, axis=dim), n_in=None,
              node_name="StackBackward0", kernel="stack_bwd", vjp=_stack_vjp, meta=_blocks_meta,
              list_input=True)
def _cat_forward(*xs, dim, outer, widths):
    # legacy empty (0,) inputs take no part (cat below)
    return np.concatenate([x for x in xs if x.shape != (0,)] or xs[:1], axis=dim)


CAT = OpDef("cat", _cat_forward, n_in=None,
            node_name="CatBackward0", kernel="stack_bwd", vjp=_cat_vjp, meta=_blocks_meta,
            list_input=True)


def _check_tensor_list(name, tensors):
    """torch's TypeError for anything but a list or tuple of tensors."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for i, t_ in enumerate(tensors):
        if not isinstance(t_, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t_).__name__}")


def _common(tensors):
    """The tensors (a non-empty list) promoted to one dtype."""
    from .elementwise import operands
    tensors = list(tensors)
    first = tensors[0]
    for i in range(1, len(tensors)):
        first, tensors[i] = operands(first, tensors[i])
    return [operands(t, tensors[-1])[0] for t in tensors]


def stack(tensors, dim=0):
    _check_tensor_list("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    tensors = _common(tensors)
    shape = tensors[0]._data.shape
    for i, t_ in enumerate(tensors):
        if t_._data.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape)} "
                               f"at entry 0 and {list(t_._data.shape)} at entry {i}")
    d = _wrap_dim(dim, len(shape) + 1)
    outer = int(np.prod(shape[:d])) if d else 1
    width = int(np.prod(shape[d:])) if d < len(shape) else 1
    out = apply(STACK, tensors, {"dim": d, "outer": outer, "widths": (width,) * len(tensors)})
    show_attributes(out, dim=dim)
    return out


def cat(tensors, dim=0):
    _check_tensor_list("cat", tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    tensors = _common(tensors)
    # torch refuses a 0-d tensor anywhere in the list before it compares any sizes
    for i, t_ in enumerate(tensors):
        if t_._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    # torch skips legacy empty (0,) tensors in its checks and its result, yet keeps them as inputs
    # of its node (an empty gradient each); when all are such, the result is one of them
    legacy = [t_._data.shape == (0,) for t_ in tensors]
    checked = [t_ for t_, skip in zip(tensors, legacy) if not skip] or tensors[:1]
    nd = checked[0]._data.ndim
    d = _wrap_dim(dim, nd)
    base = checked[0]._data.shape
    for i, t_ in enumerate(tensors):
        if legacy[i]:
            continue
        s = t_._data.shape
        if len(s) != nd or any(s[k] != base[k] for k in range(nd) if k != d):
            if len(s) != nd:
                raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and "
                                   f"{len(s)}")
            k = next(k for k in range(nd) if k != d and s[k] != base[k])
            got = s[k]
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                               f"{base[k]} but got size {got} for tensor number {i} in the list.")
    outer = int(np.prod(base[:d])) if d else 1
    widths = tuple(0 if skip else int(np.prod(t_._data.shape[d:]))
                   for t_, skip in zip(tensors, legacy))
    out = apply(CAT, tensors, {"dim": d, "outer": outer, "widths": widths})
    show_attributes(out, dim=dim)
    return out


# ---- flip, repeat, constant padding ---------------------------------------------------------------
def _c_strides(shape):
    strides, step = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = step
        step *= shape[d]
    return strides


def _flip_meta(dims, offset, strides):
    return (offset, *strides), ()


def _flip_vjp(ctx, g):
    return (flip(g, tuple(d for d, s in enumerate(ctx.ints[1:]) if s < 0)),)


# The gradient reads g through the affine map (offset, strides) from input to output positions:
# the same kernel as the backward of a strided scatter.
FLIP = OpDef("flip", lambda x, dims, offset, strides: np.flip(x, dims).copy(),
             node_name="FlipBackward0", kernel="strided_gather_bwd", vjp=_flip_vjp, meta=_flip_meta)


def flip(x, *dims):
    """x with the order of elements reversed along dims (a copy, as in torch)."""
    dims = _shape_args(dims)
    nd = x._data.ndim
    wrapped = [_wrap_dim(d, nd) for d in dims]
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if nd == 0:
        out = apply(FLIP, (x,), {"dims": (), "offset": 0, "strides": ()})
    else:
        shape, cstrides = x._data.shape, _c_strides(x._data.shape)
        offset = sum((shape[d] - 1) * cstrides[d] for d in wrapped if shape[d])
        strides = tuple(-c if d in wrapped else c for d, c in enumerate(cstrides))
        out = apply(FLIP, (x,), {"dims": tuple(wrapped), "offset": offset, "strides": strides})
    show_attributes(out, dims=dims)
    return out


def _repeat_vjp(ctx, g):
    """torch's repeat_backward: the leading new dims summed away one at a time, then one reshape
    to (copies, size) pairs where copies > 1 and one sum over the copies (zeros for a zero
    count)."""
    from ..creation import zeros
    from .reduce import sum as sum_
    padded = [int(s) for s in ctx.ints]
    in_shape = tuple(ctx.in_shapes[0])
    copies = [o // s if s else 0 for o, s in zip(ctx.out_shapes[0], padded)]
    if 0 in copies:
        return (zeros(in_shape, dtype=g.dtype),)
    for _ in range(len(padded) - len(in_shape)):
        g = sum_(g, 0)
    grouped, summed = [], []
    for count, size in zip(copies[len(padded) - len(in_shape):], in_shape):
        if count != 1:
            grouped.append(count)
            summed.append(len(grouped) - 1)
        grouped.append(size)
    return (sum_(g.reshape(grouped), tuple(summed)) if summed else g,)


REPEAT = OpDef("repeat", lambda x, sizes, padded: np.tile(x, sizes), node_name="RepeatBackward0",
               kernel="repeat_bwd", vjp=_repeat_vjp, meta=lambda sizes, padded: (padded, ()))


def repeat(x, *sizes):
    """x tiled sizes[d] times along each dim (leading sizes add new dims)."""
    sizes = _shape_args(sizes)
    if len(sizes) < x._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    padded = (1,) * (len(sizes) - x._data.ndim) + tuple(x._data.shape)
    # torch checks the output's shape, so a negative count multiplying a 0-size dim is allowed
    out = [p * s for p, s in zip(padded, sizes)]
    bad = next((n for n in out if n < 0), None)
    if bad is not None:
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {out}")
    out = apply(REPEAT, (x,), {"sizes": tuple(sizes), "padded": padded})
    show_attributes(out, repeats=tuple(sizes), self_sym_sizes=x._data.shape)
    return out


def _pad_forward(x, widths, value, offset, strides):
    return np.pad(x, widths, constant_values=np.asarray(value, x.dtype))


def _pad_vjp(ctx, g):
    befores = ctx.ints[1 + len(ctx.in_shapes[0]):]
    return (g[tuple(slice(int(b), int(b) + s) for b, s in zip(befores, ctx.in_shapes[0]))],)


# Input element c sits at output position c + before: an affine map, read back by the kernel.
PAD = OpDef("pad", _pad_forward, node_name="ConstantPadNdBackward0", kernel="strided_gather_bwd",
            vjp=_pad_vjp, meta=lambda widths, value, offset, strides:
            ((offset, *strides, *(b for b, _ in widths)), ()))


def pad(x, pad, mode="constant", value=None):
    """Constant padding as torch.nn.functional.pad: pad = (before, after) pairs starting from the
    last dim; negative amounts crop."""
    if mode != "constant":
        raise NotImplementedError(f"pad: mode {mode!r} is not supported (only 'constant')")
    pad = tuple(int(p) for p in pad)
    nd = x._data.ndim
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * nd:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension {nd}")
    widths = [[0, 0] for _ in range(nd)]
    for k in range(len(pad) // 2):
        widths[nd - 1 - k] = [pad[2 * k], pad[2 * k + 1]]
    given = x
    if any(b < 0 or a < 0 for b, a in widths):
        crop = []
        for d, (b, a) in enumerate(widths):
            size = x._data.shape[d]
            start, stop = max(-b, 0), size - max(-a, 0)
            if stop < start:
                raise RuntimeError("narrow(): length must be non-negative.")
            crop.append(slice(start, stop))
        x = x[tuple(crop)]
        widths = [[max(b, 0), max(a, 0)] for b, a in widths]
    out_shape = tuple(s + b + a for s, (b, a) in zip(x._data.shape, widths))
    strides = _c_strides(out_shape)
    offset = sum(b * c for (b, _), c in zip(widths, strides))
    widths = tuple((b, a) for b, a in widths)
    out = apply(PAD, (x,), {"widths": widths, "value": 0.0 if value is None else value,
                            "offset": offset, "strides": tuple(strides)})
    # torch pads (and crops) in one node, which keeps the amounts as given and lists x itself
    show_attributes(out, pad=pad)
    if given is x:
        return out
    from .named import show_inputs
    return show_inputs(out, given)
