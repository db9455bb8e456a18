"""Scans along one dim: cumsum and cumprod.

Kernels see the input as (outer, n, inner): n elements along the dim, `inner` apart.
"""
import numpy as np

from .. import dtypes
from ..tensor import Tensor, _wrap_dim
from .apply import apply
from .registry import OpDef


def line_meta(shape, dim):
    """(outer, n, inner) of a C-ordered shape around dim; a 0-d tensor is one line of one."""
    if not shape:
        return 1, 1, 1
    outer = int(np.prod(shape[:dim], dtype=np.int64))
    inner = int(np.prod(shape[dim + 1:], dtype=np.int64))
    return outer, shape[dim], inner


def _scan_meta(dim, lines):
    # the dim goes last, for the VJPs; -1 for a 0-d input (a scan of one element)
    return (*lines, -1 if dim is None else dim), ()


def _dim_of(ctx):
    d = int(ctx.ints[3])
    return None if d < 0 else d


def _cumsum_vjp(ctx, g):
    from .shape import flip
    d = _dim_of(ctx)
    if d is None:
        return (g,)
    return (flip(cumsum(flip(g, (d,)), d), (d,)),)


def _cumprod_vjp(ctx, g):
    from .shape import flip
    x, out = ctx.saved
    d = _dim_of(ctx)
    if d is None:
        return (g,)
    if not (x._data == 0).any():
        return (flip(cumsum(flip(g * out, (d,)), d), (d,)) / x,)
    return (_cumprod_grad_with_zeros(x, g, d),)


def _cumprod_grad_with_zeros(x, g, d):
    """gx[i] = sum_{j>=i} g[j] prod_{k<=j, k!=i} x[k], built from an (n, n) table per line: row i
    is x with x[i] replaced by one, scanned; kept where j >= i. Differentiable again, at O(n^2)
    per line; only create_graph backwards through zeros take this path."""
    from .elementwise import where
    from .reduce import sum as sum_
    from .shape import transpose
    n = x._data.shape[d]
    xl = transpose(x, d, -1) if d != x._data.ndim - 1 else x
    gl = transpose(g, d, -1) if d != x._data.ndim - 1 else g
    eye = Tensor._make(np.eye(n, dtype=bool), False)
    rows = where(eye, 1.0, xl.unsqueeze(-2).expand(*xl._data.shape[:-1], n, n))
    upper = Tensor._make(np.triu(np.ones((n, n), x._data.dtype)), False)
    grad = sum_(cumprod(rows, -1) * upper * gl.unsqueeze(-2), -1)
    return transpose(grad, d, -1) if d != x._data.ndim - 1 else grad


CUMSUM = OpDef("cumsum", lambda x, dim, lines: np.cumsum(x, axis=dim).reshape(x.shape),
               node_name="CumsumBackward0", kernel="cumsum_bwd", vjp=_cumsum_vjp, meta=_scan_meta)
CUMPROD = OpDef("cumprod", lambda x, dim, lines: np.cumprod(x, axis=dim).reshape(x.shape),
                node_name="CumprodBackward0", saves=("x", "out"), kernel="cumprod_bwd",
                vjp=_cumprod_vjp, meta=_scan_meta)


def _scan(op, np_fn, x, dim, dtype):
    if dtype is not None:
        x = x.to(dtype)
    d = _wrap_dim(dim, x._data.ndim)
    if not dtypes.is_floating(x._data.dtype):
        return Tensor._make(np_fn(x._data.astype(np.int64), axis=d if x._data.ndim else None)
                            .reshape(x._data.shape), False)
    axis = d if x._data.ndim else None
    return apply(op, (x,), {"dim": axis, "lines": line_meta(x._data.shape, d)})


def cumsum(x, dim, *, dtype=None):
    """Running sums along dim."""
    return _scan(CUMSUM, np.cumsum, x, dim, dtype)


def cumprod(x, dim, *, dtype=None):
    """Running products along dim; exact gradients with zeros in the input."""
    return _scan(CUMPROD, np.cumprod, x, dim, dtype)
