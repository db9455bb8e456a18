"""Reductions: sum, mean (with dim and keepdim), and sum_to, the unbroadcast of gradients."""
import numpy as np

from .. import dtypes
from ..tensor import Tensor, _wrap_dim
from .apply import apply
from .registry import OpDef


def _reduce_meta(kshape, scale):
    """The kernel sees the output shape with kept dims (to broadcast g back) and the scale."""
    return (len(kshape), *kshape), (scale,)


def _reduce_vjp(ctx, g):
    ndim = int(ctx.ints[0])
    kshape = tuple(int(d) for d in ctx.ints[1:1 + ndim])
    grad = expand(g.reshape(kshape), ctx.in_shapes[0])
    scale = float(ctx.floats[0])
    return (grad if scale == 1.0 else grad * scale,)


def _sum_forward(x, dims, keepdim, kshape, scale):
    return np.sum(x, axis=dims, keepdims=keepdim)


def _mean_forward(x, dims, keepdim, kshape, scale):
    return np.mean(x, axis=dims, keepdims=keepdim)


def _sum_to_forward(x, dims, keepdim, kshape, scale):
    return np.sum(x, axis=dims, keepdims=True).reshape(kshape)


_REDUCE = dict(kernel="reduce_bwd", vjp=_reduce_vjp, meta=lambda dims, keepdim, kshape, scale:
               _reduce_meta(kshape, scale))
SUM = OpDef("sum", _sum_forward, node_name="SumBackward0", **_REDUCE)
SUM_DIM = OpDef("sum_dim", _sum_forward, node_name="SumBackward1", **_REDUCE)
MEAN = OpDef("mean", _mean_forward, node_name="MeanBackward0", **_REDUCE)
MEAN_DIM = OpDef("mean_dim", _mean_forward, node_name="MeanBackward1", **_REDUCE)
SUM_TO = OpDef("sum_to", _sum_to_forward, node_name="SumToBackward0", **_REDUCE)


def _expand_vjp(ctx, g):
    return (sum_to(g, ctx.in_shapes[0]),)


EXPAND = OpDef("expand", lambda x, shape: np.broadcast_to(x, shape), node_name="ExpandBackward0",
               kernel="expand_bwd", vjp=_expand_vjp)


def _dims(x, dim):
    ndim = x._data.ndim
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    dims = tuple(sorted({_wrap_dim(d, ndim) for d in dim})) if ndim else ()
    return dims


def _kept_shape(shape, dims):
    return tuple(1 if d in dims else s for d, s in enumerate(shape))


def _reduction(x, dim, keepdim, op_all, op_dim, mean):
    dims = _dims(x, dim)
    shape = x._data.shape
    count = 1
    for d in dims:
        count *= shape[d]
    kshape = _kept_shape(shape, dims)
    scale = 1.0 / count if mean and count else (float("nan") if mean else 1.0)
    op = op_all if dim is None else op_dim
    return apply(op, (x,), {"dims": dims, "keepdim": keepdim, "kshape": kshape, "scale": scale})


def sum(x, dim=None, keepdim=False, *, dtype=None):
    """Sum over all elements, or over dim (an int or a tuple), keeping reduced dims if asked."""
    if dtype is not None:
        x = x.to(dtype)
    if not dtypes.is_floating(x._data.dtype):
        result = np.sum(x._data, axis=_dims(x, dim), keepdims=keepdim)
        return Tensor._make(np.asarray(result, np.int64 if x._data.dtype.kind in "bi" else None), False)
    return _reduction(x, dim, keepdim, SUM, SUM_DIM, mean=False)


def mean(x, dim=None, keepdim=False, *, dtype=None):
    if dtype is not None:
        x = x.to(dtype)
    if not dtypes.is_floating(x._data.dtype):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {_dtype_title(x._data.dtype)}")
    return _reduction(x, dim, keepdim, MEAN, MEAN_DIM, mean=True)


def _dtype_title(dtype):
    return {"int64": "Long", "int32": "Int", "bool": "Bool"}.get(dtype.name, dtype.name)


def sum_to(x, shape):
    """Sum x down to `shape` (which x broadcasts from): the gradient of a broadcast."""
    shape = tuple(shape)
    if tuple(x._data.shape) == shape:
        return x
    lead = x._data.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + d for d, s in enumerate(shape)
                                      if s == 1 and x._data.shape[lead + d] != 1)
    return apply(SUM_TO, (x,), {"dims": dims, "keepdim": True, "kshape": shape, "scale": 1.0})


def expand(x, *shape):
    """A broadcast view of x with the given shape (-1 keeps a dim)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    lead = len(shape) - x._data.ndim
    if lead < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(shape)}) must be greater or "
                           f"equal to the number of dimensions in the tensor ({x._data.ndim})")
    full = tuple(x._data.shape[d - lead] if s == -1 else s for d, s in enumerate(shape))
    if full == tuple(x._data.shape):
        return x
    try:
        np.broadcast_shapes(x._data.shape, full)
    except ValueError:
        raise RuntimeError(f"The expanded size of the tensor must match the existing size at "
                           f"non-singleton dimensions. Target sizes: {list(shape)}. Tensor sizes: "
                           f"{list(x._data.shape)}") from None
    out = apply(EXPAND, (x,), {"shape": full})
    out._vc = x._shared_vc()
    return out


def broadcast_to(x, shape):
    return expand(x, tuple(shape))
