"""Scans along one dim: cumsum and cumprod.

Kernels see the input as (outer, n, inner): n elements along the dim, `inner` apart.
"""
import numpy as np

from .. import dtypes
from ..tensor import Tensor, _wrap_dim
from .apply import apply, show_attributes
from .dim_argument import int_dim
from .reduce import as_reduction_dtype, integer_result_dtype
from .registry import OpDef
from .untracked import untracked


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


def _reverse_cumsum(t, d):
    """Sums from each position to the end of its line: cumsum's gradient."""
    from .shape import flip
    return flip(cumsum(flip(t, (d,)), d), (d,))


def _cumsum_vjp(ctx, g):
    d = _dim_of(ctx)
    return (g if d is None else _reverse_cumsum(g, d),)


def _cumprod_vjp(ctx, g):
    x, out = ctx.saved
    d = _dim_of(ctx)
    if x._data.size <= 1:
        return (g,)     # torch's cumprod_backward: g itself, so create_graph records nothing here
    if not (x._data == 0).any():
        return (_reverse_cumsum(g * out, d) / x,)
    return (_cumprod_grad_with_zeros(x, g, d),)


def _cumprod_grad_with_zeros(x, g, d):
    """gx[i] = sum_{j>=i} g[j] prod_{k<=j, k!=i} x[k], built from an (n, n) table per line: row i
    is x with x[i] replaced by one, scanned; kept where j >= i. Differentiable again, at O(n^2)
    per line; only create_graph backwards through zeros take this path."""
    from .elementwise import where
    from .reduce import sum as sum_
    from .shape import transpose
    n = x._data.shape[d]
    xl, gl = transpose(x, d, -1), transpose(g, d, -1)      # the scanned dim last
    eye = Tensor._make(np.eye(n, dtype=bool), False)
    rows = where(eye, 1.0, xl.unsqueeze(-2).expand(*xl._data.shape[:-1], n, n))
    upper = Tensor._make(np.triu(np.ones((n, n), x._data.dtype)), False)
    return transpose(sum_(cumprod(rows, -1) * upper * gl.unsqueeze(-2), -1), d, -1)


CUMSUM = OpDef("cumsum", lambda x, dim, lines: np.cumsum(x, axis=dim).reshape(x.shape),
               node_name="CumsumBackward0", kernel="cumsum_bwd", vjp=_cumsum_vjp, meta=_scan_meta)
CUMPROD = OpDef("cumprod", lambda x, dim, lines: np.cumprod(x, axis=dim).reshape(x.shape),
                node_name="CumprodBackward0", saves=("x", "out"), kernel="cumprod_bwd",
                vjp=_cumprod_vjp, meta=_scan_meta)


def _scan(op, np_fn, x, dim, dtype):
    if dtype is not None and np.dtype(dtype) == dtypes.bool_:
        raise NotImplementedError(f'"{op.name}_out_cpu" not implemented for \'Bool\'')
    x = as_reduction_dtype(x, dtype)
    d = _wrap_dim(dim, x._data.ndim)
    axis = d if x._data.ndim else None
    if not dtypes.is_floating(x._data.dtype):
        # integers and bools scan in int64, as torch, unless dtype= says otherwise
        result_dtype = integer_result_dtype(x, dtype)
        return untracked(lambda v: np_fn(v, axis=axis, dtype=result_dtype).reshape(v.shape),
                         x._data)
    out = apply(op, (x,), {"dim": axis, "lines": line_meta(x._data.shape, d)})
    show_attributes(out, dim=int(dim))
    return out


@int_dim()
def cumsum(x, dim, *, dtype=None):
    """Running sums along dim."""
    return _scan(CUMSUM, np.cumsum, x, dim, dtype)


@int_dim()
def cumprod(x, dim, *, dtype=None):
    """Running products along dim; exact gradients with zeros in the input."""
    return _scan(CUMPROD, np.cumprod, x, dim, dtype)
