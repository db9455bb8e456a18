"""Shape ops: reshape/view and their kin, permute/transpose, basic indexing, stack and cat.

Views share their base's version counter, as in torch: an in-place change through one is seen
by the saved-value checks of the other.
"""
import numpy as np

from ..tensor import Tensor, _wrap_dim
from .apply import apply
from .registry import OpDef


def _view_of(x, out):
    out._vc = x._shared_vc()
    return out


# ---- reshape and kin: the same elements in the same order ---------------------------------------
def _reshape_vjp(ctx, g):
    return (g.reshape(ctx.in_shapes[0]),)


def _reshape_forward(x, shape):
    return x.reshape(shape)


_COPY = dict(kernel="copy_bwd", vjp=_reshape_vjp)
VIEW = OpDef("view", _reshape_forward, node_name="ViewBackward0", **_COPY)
UNSQUEEZE = OpDef("unsqueeze", _reshape_forward, node_name="UnsqueezeBackward0", **_COPY)
SQUEEZE = OpDef("squeeze", _reshape_forward, node_name="SqueezeBackward0", **_COPY)
CLONE = OpDef("clone", lambda x: x.copy(), node_name="CloneBackward0", **_COPY)


def _infer_shape(shape, numel):
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return tuple(shape)


def _shape_args(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def reshape(x, *shape, op=VIEW):
    shape = _infer_shape(_shape_args(shape), x._data.size)
    return _view_of(x, apply(op, (x,), {"shape": shape}))


def view(x, *shape):
    if not x._data.flags.c_contiguous and x._data.size > 1:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.")
    return reshape(x, *shape)


def flatten(x, start_dim=0, end_dim=-1):
    nd = x._data.ndim
    if nd == 0:
        return reshape(x, 1)
    s, e = _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)
    shape = x._data.shape
    return reshape(x, shape[:s] + (int(np.prod(shape[s:e + 1])),) + shape[e + 1:])


def unsqueeze(x, dim):
    d = _wrap_dim(dim, x._data.ndim + 1)
    shape = x._data.shape[:d] + (1,) + x._data.shape[d:]
    return reshape(x, shape, op=UNSQUEEZE)


def squeeze(x, dim=None):
    shape = x._data.shape
    if dim is None:
        new = tuple(s for s in shape if s != 1)
    else:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        drop = {_wrap_dim(d, x._data.ndim) for d in dims} if x._data.ndim else set()
        new = tuple(s for i, s in enumerate(shape) if not (i in drop and s == 1))
    return reshape(x, new, op=SQUEEZE)


def clone(x):
    return apply(CLONE, (x,))


def contiguous(x):
    return x if x._data.flags.c_contiguous else clone(x)


# ---- permute and transpose ----------------------------------------------------------------------
def _permute_vjp(ctx, g):
    perm = [int(p) for p in ctx.ints]
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return (permute(g, inverse),)


_PERMUTE = dict(kernel="permute_bwd", vjp=_permute_vjp, meta=lambda perm: (perm, ()))
PERMUTE = OpDef("permute", lambda x, perm: x.transpose(perm), node_name="PermuteBackward0", **_PERMUTE)
TRANSPOSE = OpDef("transpose", lambda x, perm: x.transpose(perm), node_name="TransposeBackward0",
                  **_PERMUTE)


def permute(x, *dims, op=PERMUTE):
    dims = _shape_args(dims)
    nd = x._data.ndim
    if len(dims) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not "
                           f"match the length of the desired ordering of dimensions i.e. input.dim()"
                           f" = {nd} is not equal to len(dims) = {len(dims)}")
    perm = tuple(_wrap_dim(d, nd) for d in dims) if nd else ()
    if sorted(perm) != list(range(nd)):
        raise RuntimeError("permute(): dims must be a permutation of 0..ndim-1")
    return _view_of(x, apply(op, (x,), {"perm": perm}))


def transpose(x, dim0, dim1):
    nd = x._data.ndim
    if nd == 0:
        return x
    perm = list(range(nd))
    a, b = _wrap_dim(dim0, nd), _wrap_dim(dim1, nd)
    perm[a], perm[b] = perm[b], perm[a]
    return permute(x, perm, op=TRANSPOSE)


def t(x):
    if x._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x._data.ndim}D")
    return transpose(x, 0, -1) if x._data.ndim == 2 else x


# ---- basic indexing: an affine view ---------------------------------------------------------------
def _strided_meta(offset, strides, in_shape):
    return (offset, *strides), ()


def _strided_vjp(ctx, g):
    return (apply(STRIDED_SCATTER, (g,), _strided_attrs(ctx.ints, ctx.in_shapes[0])),)


def _strided_attrs(ints, in_shape):
    return {"offset": int(ints[0]), "strides": tuple(int(s) for s in ints[1:]),
            "in_shape": tuple(in_shape)}


def _scatter_vjp(ctx, g):
    attrs = _strided_attrs(ctx.ints, ctx.out_shapes[0])
    return (apply(STRIDED, (g,), dict(attrs, out_shape=tuple(ctx.in_shapes[0]))),)


def _strided_forward(x, offset, strides, in_shape, out_shape, index=None):
    if index is not None:
        return x[index]          # NumPy's own view: writes through it reach x
    flat = x.reshape(-1) if x.flags.c_contiguous else np.ascontiguousarray(x).reshape(-1)
    item = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat[offset:], out_shape, [s * item for s in strides])


def _scatter_forward(g, offset, strides, in_shape):
    out = np.zeros(in_shape, g.dtype)
    item = out.itemsize
    target = np.lib.stride_tricks.as_strided(out.reshape(-1)[offset:], g.shape, [s * item for s in strides])
    target[...] = g
    return out


STRIDED = OpDef("strided", _strided_forward, node_name="SliceBackward0", kernel="strided_bwd",
                vjp=_strided_vjp, meta=lambda offset, strides, in_shape, out_shape, index=None:
                _strided_meta(offset, strides, in_shape))


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
    if n_real > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at:at + 1] = [slice(None)] * (len(shape) - n_real)
    items += [slice(None)] * (len(shape) - n_real - sum(1 for i in items if i is Ellipsis))
    cstrides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        cstrides[d] = cstrides[d + 1] * shape[d + 1]
    out_shape, strides, offset, d = [], [], 0, 0
    for item in items:
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
                raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
            offset += (i % size) * cstrides[d]
        d += 1
    return tuple(out_shape), offset, tuple(strides)


def basic_getitem(x, index):
    out_shape, offset, strides = basic_index_map(x._data.shape, index)
    attrs = {"offset": offset, "strides": strides, "in_shape": x._data.shape,
             "out_shape": out_shape, "index": index}
    return _view_of(x, apply(STRIDED, (x,), attrs))


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


def _blocks_meta(dim, outer, widths):
    return (outer, sum(widths), *widths), ()


STACK = OpDef("stack", lambda *xs, dim, outer, widths: np.stack(xs, axis=dim), n_in=None,
              node_name="StackBackward0", kernel="stack_bwd", vjp=_blocks_vjp, meta=_blocks_meta)
CAT = OpDef("cat", lambda *xs, dim, outer, widths: np.concatenate(xs, axis=dim), n_in=None,
            node_name="CatBackward0", kernel="stack_bwd", vjp=_blocks_vjp, meta=_blocks_meta)


def _common(tensors):
    from .elementwise import operands
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("expected a non-empty list of Tensors")
    first = tensors[0]
    for i in range(1, len(tensors)):
        first, tensors[i] = operands(first, tensors[i])
    return [operands(t, tensors[-1])[0] for t in tensors]


def stack(tensors, dim=0):
    tensors = _common(tensors)
    shape = tensors[0]._data.shape
    for i, t_ in enumerate(tensors):
        if t_._data.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape)} "
                               f"at entry 0 and {list(t_._data.shape)} at entry {i}")
    d = _wrap_dim(dim, len(shape) + 1)
    outer = int(np.prod(shape[:d])) if d else 1
    width = int(np.prod(shape[d:])) if d < len(shape) else 1
    return apply(STACK, tensors, {"dim": d, "outer": outer, "widths": (width,) * len(tensors)})


def cat(tensors, dim=0):
    tensors = [t_ for t_ in _common(tensors) if not (t_._data.ndim == 1 and t_._data.size == 0)]
    if not tensors:
        raise RuntimeError("expected a non-empty list of Tensors")
    nd = tensors[0]._data.ndim
    if nd == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _wrap_dim(dim, nd)
    base = tensors[0]._data.shape
    for i, t_ in enumerate(tensors):
        s = t_._data.shape
        if len(s) != nd or any(s[k] != base[k] for k in range(nd) if k != d):
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                               f"{base[d - 1] if d else base[1]} but got size {s} for tensor number {i} "
                               "in the list.")
    outer = int(np.prod(base[:d])) if d else 1
    widths = tuple(int(np.prod(t_._data.shape[d:])) for t_ in tensors)
    return apply(CAT, tensors, {"dim": d, "outer": outer, "widths": widths})
