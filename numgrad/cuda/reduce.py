"""Reduction forwards on the GPU: sum, mean, prod, amax/amin, var/std, logsumexp, norm (shared-
memory tree reductions), cumsum/cumprod and max/min along a dim (a thread per line).

One kernel reduces every group (the input elements that meet in one output element) with a
transform and a combine; a block takes a group, or a chunk of a big group when the combine is a sum
(chunks meet by atomic adds). The raw float64 results are then finished into the output dtype
(mean's scale, var's 1/(N - correction), norm's root, logsumexp's log).
"""
import math

import numpy as np
from numba import cuda

from .array import empty, zeros
from .basic import grid_1d
from .elementwise import MAXDIM
from ..kernels.cuda import (BLOCK, MAX_GRID_X, SIM, first_thread, group_member, thread_step)

# transforms of an element before combining
VALUE, ABS, SQUARE, ABS_POW, CENTERED_SQUARE, CENTERED_EXP, NONZERO = range(7)
# combines
SUM, MAX, MIN, PROD = range(4)
# finishes
NONE, SCALE, SQRT_SCALE, LOG_PLUS_CENTER, POW = range(5)
_IDENTITY = {SUM: 0.0, MAX: -math.inf, MIN: math.inf, PROD: 1.0}
_CHUNK = 4 * BLOCK           # elements per block when a big sum is split across blocks
# math raises on overflow and log(0) where a GPU returns inf; the simulator runs NumPy's instead
_exp, _log, _sqrt = (np.exp, np.log, np.sqrt) if SIM else (math.exp, math.log, math.sqrt)


@cuda.jit(device=True)
def _combine(a, b, how):
    if how == SUM:
        return a + b
    if how == PROD:
        return a * b
    if how == MAX:
        return b if b > a or b != b else a      # NaN wins, as in np.max
    return b if b < a or b != b else a


@cuda.jit(device=True)
def _center(center, k):
    c = center[k]
    return 0.0 if math.isinf(c) else c          # logsumexp shifts by a finite max only


@cuda.jit(device=True)
def _transform(v, how, center, k, p):
    if how == VALUE:
        return v
    if how == ABS:
        return abs(v)
    if how == SQUARE:
        return v * v
    if how == ABS_POW:
        return abs(v) ** p
    if how == CENTERED_SQUARE:
        return (v - center[k]) * (v - center[k])
    if how == CENTERED_EXP:
        return _exp(v - _center(center, k))
    return 1.0 if v != 0 else 0.0


@cuda.jit(cache=True)
def _reduce(acc, x, meta, n_out, size, chunks, transform, combine, identity, center, p):
    sh = cuda.shared.array(BLOCK, np.float64)
    pk = MAXDIM + 1
    t0 = cuda.threadIdx.x
    for u in range(cuda.blockIdx.x, n_out * chunks, cuda.gridDim.x):
        k = u // chunks
        lo = (u % chunks) * _CHUNK if chunks > 1 else 0
        hi = min(size, lo + _CHUNK) if chunks > 1 else size
        v = identity
        for r in range(lo + t0, hi, cuda.blockDim.x):
            v = _combine(v, _transform(x[group_member(meta, 0, pk, k, r)], transform, center, k,
                                       p), combine)
        sh[t0] = v
        cuda.syncthreads()
        s = cuda.blockDim.x // 2
        while s > 0:
            if t0 < s:
                sh[t0] = _combine(sh[t0], sh[t0 + s], combine)
            cuda.syncthreads()
            s //= 2
        if t0 == 0:
            if chunks > 1:
                cuda.atomic.add(acc, k, sh[0])
            else:
                acc[k] = sh[0]
        cuda.syncthreads()


@cuda.jit(cache=True)
def _finish(out, acc, how, scale, center):
    for i in range(first_thread(), out.size, thread_step()):
        v = acc[i]
        if how == SCALE:
            v = v * scale
        elif how == SQRT_SCALE:
            v = _sqrt(v * scale)
        elif how == LOG_PLUS_CENTER:
            v = _log(v) + _center(center, i)
        elif how == POW:
            v = v ** scale
        out[i] = v


def _groups(x, dims):
    """The reduction's meta (ndim, input dims, ndim, kept dims) padded to MAXDIM, the group count
    and the group size."""
    shape = tuple(x.shape)
    if len(shape) > MAXDIM:
        raise NotImplementedError(f"reductions on the GPU: at most {MAXDIM} dimensions")
    kept = tuple(1 if d in dims else s for d, s in enumerate(shape))
    pad = (1,) * (MAXDIM - len(shape))
    meta = (MAXDIM, *pad, *shape, MAXDIM, *pad, *kept)
    n_out = int(np.prod(kept, dtype=np.int64))
    return meta, n_out, (x.size // n_out if n_out else 0), kept


def reduce_raw(x, dims, transform, combine, center=None, p=0.0):
    """Each group's combined transformed values, in float64: (acc, kept shape)."""
    meta, n_out, size, kept = _groups(x, tuple(dims))
    chunks = max(1, -(-size // _CHUNK)) if combine == SUM else 1
    acc = zeros(max(n_out, 1), np.float64)
    if center is None:
        center = acc
    if n_out and (size or combine != SUM):
        blocks = max(1, min(n_out * chunks, MAX_GRID_X))
        _reduce[blocks, BLOCK](acc, x.reshape(x.size), meta, n_out, size, chunks, transform,
                               combine, _IDENTITY[combine], center, float(p))
    return acc, kept


def finish(acc, shape, dtype, how=NONE, scale=1.0, center=None):
    out = empty(tuple(shape), dtype)
    if out.size:
        _finish[grid_1d(out.size)](out.reshape(out.size), acc, how, float(scale),
                                   acc if center is None else center)
    return out


def _out_shape(x, dims, keepdim, kept):
    if keepdim:
        return kept
    return tuple(s for d, s in enumerate(tuple(x.shape)) if d not in dims)


def _simple(x, dims, keepdim, transform, combine, how=NONE, scale=1.0, p=0.0):
    acc, kept = reduce_raw(x, dims, transform, combine, p=p)
    return finish(acc, _out_shape(x, dims, keepdim, kept), x.dtype, how, scale)


def sum_(x, dims, keepdim, kshape, divisor):
    return _simple(x, dims, keepdim, VALUE, SUM)


def mean(x, dims, keepdim, kshape, divisor):
    return _simple(x, dims, keepdim, VALUE, SUM, SCALE, 1.0 / divisor)


def prod(x, dims, keepdim, kshape):
    return _simple(x, dims, keepdim, VALUE, PROD)


def amax(x, dims, keepdim, kshape):
    return _simple(x, dims, keepdim, VALUE, MAX)


def amin(x, dims, keepdim, kshape):
    return _simple(x, dims, keepdim, VALUE, MIN)


def _variance(x, dims, keepdim, correction, root):
    meta, n_out, size, kept = _groups(x, tuple(dims))
    total, _ = reduce_raw(x, dims, VALUE, SUM)
    mean_ = finish(total, (max(n_out, 1),), np.float64, SCALE, 1.0 / size if size else math.nan)
    acc, _ = reduce_raw(x, dims, CENTERED_SQUARE, SUM, center=mean_)
    dof = size - correction
    scale = 1.0 / dof if dof > 0 else math.inf
    return finish(acc, _out_shape(x, dims, keepdim, kept), x.dtype,
                  SQRT_SCALE if root else SCALE, scale)


def var(x, dims, keepdim, kshape, correction, scale):
    return _variance(x, dims, keepdim, correction, False)


def std(x, dims, keepdim, kshape, correction, scale):
    return _variance(x, dims, keepdim, correction, True)


def logsumexp(x, dims, keepdim, kshape):
    top, kept = reduce_raw(x, dims, VALUE, MAX)
    acc, _ = reduce_raw(x, dims, CENTERED_EXP, SUM, center=top)
    return finish(acc, _out_shape(x, dims, keepdim, kept), x.dtype, LOG_PLUS_CENTER, center=top)


def norm(x, dims, keepdim, kshape, p):
    if p == math.inf:
        return _simple(x, dims, keepdim, ABS, MAX)
    if p == -math.inf:
        return _simple(x, dims, keepdim, ABS, MIN)
    if p == 0:
        return _simple(x, dims, keepdim, NONZERO, SUM)
    if p == 1:
        return _simple(x, dims, keepdim, ABS, SUM)
    if p == 2:
        return _simple(x, dims, keepdim, SQUARE, SUM, SQRT_SCALE, 1.0)
    return _simple(x, dims, keepdim, ABS_POW, SUM, POW, 1.0 / p, p=p)


# ---- along one dim: a thread per line (outer, n, inner) -----------------------------------------
@cuda.jit(cache=True)
def _scan(out, x, outer, n, inner, product):
    for line in range(first_thread(), outer * inner, thread_step()):
        base = (line // inner) * n * inner + line % inner
        acc = 1.0 if product else 0.0
        for j in range(n):
            q = base + j * inner
            acc = acc * x[q] if product else acc + x[q]
            out[q] = acc


@cuda.jit(cache=True)
def _pick(values, index, x, outer, n, inner, largest):
    """The first extreme of each line (a NaN counts as the extreme, as np.argmax)."""
    for line in range(first_thread(), outer * inner, thread_step()):
        base = (line // inner) * n * inner + line % inner
        best = 0
        for j in range(1, n):
            v, b = x[base + j * inner], x[base + best * inner]
            if b == b and (v != v or (v > b if largest else v < b)):
                best = j
        values[line] = x[base + best * inner]
        index[line] = best


def _lines(op_fn, x, lines, product):
    outer, n, inner = (int(v) for v in lines)
    out = empty(tuple(x.shape), x.dtype)
    if outer * inner * n:
        op_fn[grid_1d(outer * inner)](out.reshape(out.size), x.reshape(x.size), outer, n, inner,
                                      product)
    return out


def cumsum(x, dim, lines):
    return _lines(_scan, x, lines, False)


def cumprod(x, dim, lines):
    return _lines(_scan, x, lines, True)


def pick(x, dim, lines, k, keepdim, largest):
    """max/min along dim: (values, int64 indices)."""
    if dim is None:                               # a 0-d input: the element itself, index 0
        return x.copy(), zeros((), np.int64)
    outer, n, inner = (int(v) for v in lines)
    shape = list(x.shape)
    if keepdim:
        shape[dim] = 1
    else:
        del shape[dim]
    values, index = empty(tuple(shape), x.dtype), empty(tuple(shape), np.int64)
    if outer * inner:
        _pick[grid_1d(outer * inner)](values.reshape(values.size), index.reshape(index.size),
                                      x.reshape(x.size), outer, n, inner, largest)
    return values, index
