"""Hand-written CPU backward kernels for the ops that are not elementwise.

Each takes the address of an argument block (see abi.py) and the dtype; `table.py` wraps them into
one C function per (op, dtype). The CUDA twins in cuda.py have the same names.
"""
import math

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..ops import fmath
from . import formula  # noqa: F401 (registers fmath's kernel implementations: exp, erf, ...)
from .abi import (ADD, args_block, broadcast_index, broadcast_rows, fmeta, gin, gout, meta, mode,
                  next_row, numel_at, saved, shape_pos, view)
from .blas import gemm


_SQRT1_2 = 1.0 / math.sqrt(2.0)


@njit
def _store(dst, values, how):
    if how == ADD:
        for i in range(dst.size):
            dst[i] += values[i]
    else:
        for i in range(dst.size):
            dst[i] = values[i]


@njit
def copy_bwd(addr, dt):
    """reshape, view, flatten, squeeze, unsqueeze, contiguous, clone: the same elements in order
    (nothing to do when the engine gave the input the output's buffer: Note [buffer reuse])."""
    a = args_block(addr)
    m = meta(a)
    n = numel_at(m, 0)
    if gin(a, 0) != 0 and gin(a, 0) != gout(a, 0):
        _store(view(gin(a, 0), n, dt), view(gout(a, 0), n, dt), mode(a, 0))


def other_float(dt):
    """float32 for float64 and back (resolved while typing: see the overload below)."""


@overload(other_float)
def _other_float(dt):
    # Comparing dtype classes (`dt == np.float64`) does not type in Numba; pick at compile time.
    if dt.instance_type == types.float64:
        return lambda dt: np.float32
    return lambda dt: np.float64


def rounded_like(array, value):
    """value rounded to array's float type (resolved while typing: see the overload below)."""


@overload(rounded_like)
def _rounded_like(array, value):
    if array.dtype == types.float32:
        return lambda array, value: np.float32(value)
    return lambda array, value: np.float64(value)


@njit
def cast_bwd(addr, dt):
    """The gradient of a float32 <-> float64 conversion, converted back."""
    a = args_block(addr)
    m = meta(a)
    n = numel_at(m, 0)
    g = view(gout(a, 0), n, dt)
    if gin(a, 0) != 0:
        _store(view(gin(a, 0), n, other_float(dt)), g, mode(a, 0))


@njit
def reduce_bwd(addr, dt):
    """sum and mean: every input element gets the gradient of the output it was reduced into,
    divided by the divisor (1, or the mean's count: ops/reduce._reduce_meta). meta attrs: the
    output shape with kept dims (ndim, dims...); fmeta: the divisor."""
    a = args_block(addr)
    m = meta(a)
    n = numel_at(m, 0)
    n_out = numel_at(m, shape_pos(m, 1))
    divisor = dt(fmeta(a, 1)[0])
    g = view(gout(a, 0), n_out, dt)
    if gin(a, 0) == 0:
        return
    gx = view(gin(a, 0), n, dt)
    add = mode(a, 0) == ADD
    if n_out == 1:
        v = g[0] / divisor
        for i in range(n):
            gx[i] = gx[i] + v if add else v
        return
    # the input walked in rows, the kept-dims output broadcast over it (Note [broadcast rows])
    dims, strides, inner, rows = broadcast_rows(m, np.array((shape_pos(m, 2),)), 0)
    step = strides[0, len(dims) - 1]
    counter = np.zeros(len(dims), np.int64)
    base = np.zeros(1, np.int64)
    for row in range(rows):
        o = row * inner
        b = base[0]
        gx_row = gx[o:o + inner]
        if step == 0:
            v = g[b] / divisor
            for j in range(inner):
                gx_row[j] = gx_row[j] + v if add else v
        else:
            g_row = g[b:b + inner]
            for j in range(inner):
                v = g_row[j] / divisor
                gx_row[j] = gx_row[j] + v if add else v
        next_row(dims, strides, counter, base)


@njit
def expand_bwd(addr, dt):
    """expand / broadcast_to / sum_to's twin: sum the gradient over the broadcast dimensions."""
    a = args_block(addr)
    m = meta(a)
    n_in = numel_at(m, 0)
    p_out = shape_pos(m, 1)
    n = numel_at(m, p_out)
    if gin(a, 0) == 0:
        return
    g = view(gout(a, 0), n, dt)
    gx = view(gin(a, 0), n_in, dt)
    if mode(a, 0) != ADD:
        gx[:] = 0
    # the output walked in rows, the input broadcast over it (Note [broadcast rows])
    dims, strides, inner, rows = broadcast_rows(m, np.array((0,)), p_out)
    step = strides[0, len(dims) - 1]
    counter = np.zeros(len(dims), np.int64)
    base = np.zeros(1, np.int64)
    for row in range(rows):
        o = row * inner
        b = base[0]
        g_row = g[o:o + inner]
        if step == 0:
            gx[b] += row_sum(g_row)         # Note [channel loops]: a sum that vectorises
        else:
            gx_row = gx[b:b + inner]
            for j in range(inner):
                gx_row[j] += g_row[j]
        next_row(dims, strides, counter, base)


# Note [row walks]
# Kernels that move a gradient between layouts (permute, basic indexing, cat and stack) walk a
# row at a time (the output's rows; permute's, the input's): an odometer over the outer dims finds
# where each row starts, and the row is moved by `_store` over slices of the two arrays, one of
# them strided where the layout is. Indexing a flat array with computed positions instead
# (g[o * width + start + i]) cost ~6 ns an element: Numba checks each signed index for
# wraparound, which keeps LLVM from vectorising; a loop over slices vectorises (the loops of a
# cat on the last dim: 15 ms -> 0.3 ms for 2M values).
@njit
def _advance_rows(counter, offset, sizes, strides, nd):
    """Moves the odometer over dims 0 .. nd - 2 (the last dim is the row) one row on; returns
    the row's new start offset."""
    d = nd - 2
    while d >= 0:
        counter[d] += 1
        offset += strides[d]
        if counter[d] < sizes[d]:
            break
        offset -= strides[d] * counter[d]
        counter[d] = 0
        d -= 1
    return offset


@njit
def _strided(array, start, step, count):
    """array[start + j * step] for j < count, as a slice (Note [row walks]); step > 0."""
    return array[start:start + (count - 1) * step + 1:step]


@njit
def permute_bwd(addr, dt):
    """permute / transpose: output dim d is input dim perm[d]. meta attrs: perm. The walk is in
    the input's order, reading g strided: strided reads are cheaper than strided writes (a
    (64, 256, 128) transpose: 12.6 ms the other way round, as NumPy's copy)."""
    a = args_block(addr)
    m = meta(a)
    nd = m[0]
    n = numel_at(m, 0)
    if gin(a, 0) == 0 or n == 0:
        return
    p_out = shape_pos(m, 1)
    p_attr = shape_pos(m, 2)
    g = view(gout(a, 0), n, dt)
    gx = view(gin(a, 0), n, dt)
    how = mode(a, 0)
    if nd == 0:
        _store(gx, g, how)
        return
    out_strides = np.empty(nd, np.int64)      # g's own (contiguous) strides
    stride = 1
    for d in range(nd - 1, -1, -1):
        out_strides[d] = stride
        stride *= m[p_out + 1 + d]
    g_strides = np.empty(nd, np.int64)        # g's stride along each input dim
    for d in range(nd):
        g_strides[m[p_attr + d]] = out_strides[d]
    sizes = m[1:1 + nd]
    inner = sizes[nd - 1]
    counter = np.zeros(nd, np.int64)
    offset = 0
    for r in range(n // inner):
        _store(gx[r * inner:(r + 1) * inner], _strided(g, offset, g_strides[nd - 1], inner), how)
        offset = _advance_rows(counter, offset, sizes, g_strides, nd)


@njit
def strided_bwd(addr, dt):
    """Basic indexing (ints, slices with steps, None, Ellipsis): the output is an affine view of
    the input. meta attrs: offset, then one stride per output dim, in input elements."""
    a = args_block(addr)
    m = meta(a)
    n_in = numel_at(m, 0)
    p_out = shape_pos(m, 1)
    nd = m[p_out]
    n = numel_at(m, p_out)
    if gin(a, 0) == 0:
        return
    p_attr = shape_pos(m, 2)
    g = view(gout(a, 0), n, dt)
    gx = view(gin(a, 0), n_in, dt)
    if mode(a, 0) != ADD:
        gx[:] = 0
    if n == 0:
        return
    offset = m[p_attr]
    if nd == 0:
        gx[offset] += g[0]
        return
    sizes = m[p_out + 1:p_out + 1 + nd]
    strides = m[p_attr + 1:p_attr + 1 + nd]
    inner = sizes[nd - 1]
    counter = np.zeros(nd, np.int64)
    step = strides[nd - 1]
    for r in range(n // inner):
        g_row = g[r * inner:(r + 1) * inner]
        if step == 0:
            # a view of an expanded tensor repeats an element along the row: it gets their sum
            for j in range(inner):
                gx[offset] += g_row[j]
        else:
            _store(_strided(gx, offset, step, inner), g_row, ADD)
        offset = _advance_rows(counter, offset, sizes, strides, nd)


@njit
def stack_bwd(addr, dt):
    """stack and cat along one dim: input k owns a block of every row of the output.
    meta attrs: outer (rows), total width, then each input's width (elements per row)."""
    a = args_block(addr)
    m = meta(a)
    k_in = a[1]
    p_attr = shape_pos(m, k_in + 1)
    outer = m[p_attr]
    width = m[p_attr + 1]
    g = view(gout(a, 0), outer * width, dt)
    start = 0
    for k in range(k_in):
        w = m[p_attr + 2 + k]
        if gin(a, k) != 0:
            gx = view(gin(a, k), outer * w, dt)
            how = mode(a, k)
            for o in range(outer):          # Note [row walks]
                _store(gx[o * w:(o + 1) * w], g[o * width + start:o * width + start + w], how)
        start += w


@njit
def matmul_bwd(addr, dt):
    """(B, m, k) @ (B, k, n), B >= 1 (2-D operands have B = 1): gx = g y^T, gy = x^T g."""
    a = args_block(addr)
    md = meta(a)
    px, py = 0, shape_pos(md, 1)
    nd = md[px]
    batch = md[px + 1] if nd == 3 else 1
    rows = md[px + nd - 1]
    inner = md[px + nd]
    cols = md[py + nd]
    x = view(saved(a, 0), batch * rows * inner, dt)
    y = view(saved(a, 1), batch * inner * cols, dt)
    g = view(gout(a, 0), batch * rows * cols, dt)
    sx, sy, sg = rows * inner, inner * cols, rows * cols      # one matrix of each
    if gin(a, 0) != 0:
        gx = view(gin(a, 0), batch * sx, dt)
        for b in range(batch):        # gx[b] = g[b] y[b]^T: BLAS reads y[b] transposed
            gemm(gx[b * sx:(b + 1) * sx], g[b * sg:(b + 1) * sg], False,
                 y[b * sy:(b + 1) * sy], True, rows, inner, cols, mode(a, 0) == ADD)
    if gin(a, 1) != 0:
        gy = view(gin(a, 1), batch * sy, dt)
        for b in range(batch):        # gy[b] = x[b]^T g[b]
            gemm(gy[b * sy:(b + 1) * sy], x[b * sx:(b + 1) * sx], True,
                 g[b * sg:(b + 1) * sg], False, inner, cols, rows, mode(a, 1) == ADD)


@njit
def strided_gather_bwd(addr, dt):
    """The twin of strided_bwd: read the affine view (offset, strides) out of the gradient.
    Used by the backward of strided_scatter, which double backward of indexing needs."""
    a = args_block(addr)
    m = meta(a)
    p_in = 0
    nd = m[p_in]
    n = numel_at(m, p_in)
    p_out = shape_pos(m, 1)
    n_out = numel_at(m, p_out)
    if gin(a, 0) == 0:
        return
    p_attr = shape_pos(m, 2)
    g = view(gout(a, 0), n_out, dt)
    gx = view(gin(a, 0), n, dt)
    add = mode(a, 0) == ADD
    counter = np.zeros(nd, np.int64)
    offset = m[p_attr]
    for i in range(n):
        gx[i] = gx[i] + g[offset] if add else g[offset]
        d = nd - 1
        while d >= 0:
            counter[d] += 1
            offset += m[p_attr + 1 + d]
            if counter[d] < m[p_in + 1 + d]:
                break
            offset -= m[p_attr + 1 + d] * counter[d]
            counter[d] = 0
            d -= 1


@njit
def take_bwd(addr, dt):
    """out = x.flat[positions]: scatter-add g back (duplicates accumulate)."""
    a = args_block(addr)
    m = meta(a)
    n_in = numel_at(m, 0)
    n = numel_at(m, shape_pos(m, 1))
    if gin(a, 0) == 0:
        return
    positions = view(saved(a, 0), n, np.int64)
    g = view(gout(a, 0), n, dt)
    gx = view(gin(a, 0), n_in, dt)
    if mode(a, 0) != ADD:
        gx[:] = 0
    for i in range(n):
        gx[positions[i]] += g[i]


@njit
def take_rows_bwd(addr, dt):
    """out = x[rows] along dim 0 (Note [whole rows] in ops/index.py): each picked row's gradient
    is added into its row (duplicates accumulate). Saved: rows (int64, in range)."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    n_rows = numel_at(m, shape_pos(m, 1))
    n = numel_at(m, shape_pos(m, 2))
    rows = view(saved(a, 0), n_rows, np.int64)
    g = view(gout(a, 0), n, dt)
    gx = view(gin(a, 0), numel_at(m, 0), dt)
    if mode(a, 0) != ADD:
        gx[:] = 0
    if n == 0:
        return
    width = n // n_rows
    for i in range(n_rows):
        start = rows[i] * width
        _store(gx[start:start + width], g[i * width:(i + 1) * width], ADD)


@njit
def put_add_bwd(addr, dt):
    """out = zeros with g added at positions: gather the gradient back from those positions."""
    a = args_block(addr)
    m = meta(a)
    n = numel_at(m, 0)
    n_out = numel_at(m, shape_pos(m, 2))
    if gin(a, 0) == 0:
        return
    positions = view(saved(a, 0), n, np.int64)
    g = view(gout(a, 0), n_out, dt)
    gx = view(gin(a, 0), n, dt)
    add = mode(a, 0) == ADD
    for i in range(n):
        gx[i] = gx[i] + g[positions[i]] if add else g[positions[i]]


# ==== reductions that keep a group per output: prod, amax, var/std, logsumexp, norm ===============
# Their meta attrs start with the output shape with kept dims (ndim, dims...): each input element's
# group (the output element it was reduced into) is its broadcast index into that shape.

@njit
def _groups(m, n_outputs):
    """Each input element's output index, for a one-input op with n_outputs outputs."""
    return broadcast_index(m, shape_pos(m, 1 + n_outputs), 0)


@njit
def prod_bwd(addr, dt):
    """prod: g * out / x; where a group holds zeros, the product of the others instead (nonzero
    only at a group's single zero), as torch's prod_backward."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    n = numel_at(m, 0)
    n_out = numel_at(m, shape_pos(m, 1))
    x = view(saved(a, 0), n, dt)
    out = view(saved(a, 1), n_out, dt)
    g = view(gout(a, 0), n_out, dt)
    gx = view(gin(a, 0), n, dt)
    add = mode(a, 0) == ADD
    group = _groups(m, 1)
    zeros = np.zeros(n_out, np.int64)
    others = np.ones(n_out, dt)
    for i in range(n):
        if x[i] == 0:
            zeros[group[i]] += 1
        else:
            others[group[i]] *= x[i]
    for i in range(n):
        k = group[i]
        v = g[k] * 0
        if zeros[k] == 0:
            v = g[k] * out[k] / x[i]
        elif zeros[k] == 1 and x[i] == 0:
            v = g[k] * others[k]
        gx[i] = gx[i] + v if add else v


@njit
def amax_bwd(addr, dt):
    """amax/amin: the elements equal to the result share g evenly."""
    _share_among_ties(addr, dt, False)


@njit
def max_all_bwd(addr, dt):
    """max()/min() without dim: as amax, except that a NaN result's ties are the NaNs."""
    _share_among_ties(addr, dt, True)


@njit(inline="always")
def _ties(value, result, nans_tie):
    return value == result or (nans_tie and value != value and result != result)


@njit
def _share_among_ties(addr, dt, nans_tie):
    """torch's (g / count) * tie: a group where nothing ties (amax's NaN result: NaN never equals
    itself) gets NaN throughout, as torch's scale_grad_by_count gives; with nans_tie (torch's
    evenly_distribute_backward) a NaN result is shared among the NaNs, and the others get 0."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    n = numel_at(m, 0)
    n_out = numel_at(m, shape_pos(m, 1))
    x = view(saved(a, 0), n, dt)
    out = view(saved(a, 1), n_out, dt)
    g = view(gout(a, 0), n_out, dt)
    gx = view(gin(a, 0), n, dt)
    add = mode(a, 0) == ADD
    group = _groups(m, 1)
    count = np.zeros(n_out, np.int64)
    for i in range(n):
        if _ties(x[i], out[group[i]], nans_tie):
            count[group[i]] += 1
    for i in range(n):
        k = group[i]
        if _ties(x[i], out[k], nans_tie):
            v = g[k] / count[k]
        else:   # evenly_distribute_backward (nans_tie) writes into zeros: 0 even for a NaN g
            v = 0.0 if nans_tie else g[k] / count[k] * 0.0
        gx[i] = gx[i] + v if add else v


@njit
def _var_input_grad(a, m, dt, gvar):
    """gx = gvar * 2 / (N - correction) * (x - mean), gvar per group; fmeta[0] = 2 / (N - c)."""
    n = numel_at(m, 0)
    n_out = numel_at(m, shape_pos(m, 1))
    x = view(saved(a, 0), n, dt)
    gx = view(gin(a, 0), n, dt)
    add = mode(a, 0) == ADD
    scale = fmeta(a, 1)[0]
    group = _groups(m, 1)
    mean = np.zeros(n_out, np.float64)
    for i in range(n):
        mean[group[i]] += x[i]
    per_group = n // n_out if n_out else 1
    for k in range(n_out):
        mean[k] /= per_group
    for i in range(n):
        k = group[i]
        v = scale * gvar[k] * (x[i] - mean[k])
        gx[i] = gx[i] + v if add else v


@njit
def var_bwd(addr, dt):
    """var over dims with a correction. meta attrs: kept shape; fmeta: 2 / (N - correction)."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    n_out = numel_at(m, shape_pos(m, 1))
    _var_input_grad(a, m, dt, view(gout(a, 0), n_out, dt))


@njit
def std_bwd(addr, dt):
    """std = sqrt(var): var's gradient of g / (2 std), zero where std is zero (as torch)."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    n_out = numel_at(m, shape_pos(m, 1))
    g = view(gout(a, 0), n_out, dt)
    out = view(saved(a, 1), n_out, dt)
    gvar = np.zeros(n_out, dt)
    for k in range(n_out):
        if out[k] != 0:
            gvar[k] = g[k] / (2 * out[k])
    _var_input_grad(a, m, dt, gvar)


@njit
def logsumexp_bwd(addr, dt):
    """logsumexp: g * exp(x - out), the softmax of each group."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    n = numel_at(m, 0)
    n_out = numel_at(m, shape_pos(m, 1))
    x = view(saved(a, 0), n, dt)
    out = view(saved(a, 1), n_out, dt)
    g = view(gout(a, 0), n_out, dt)
    gx = view(gin(a, 0), n, dt)
    add = mode(a, 0) == ADD
    group = _groups(m, 1)
    for i in range(n):
        k = group[i]
        v = g[k] * fmath.exp(x[i] - out[k])
        gx[i] = gx[i] + v if add else v


@njit
def _sign(v):
    return 1.0 if v > 0 else (-1.0 if v < 0 else 0.0)


@njit
def norm_bwd(addr, dt):
    """Vector p-norm (fmeta[0] = p), by torch's norm_backward case by case, whose masks zero a
    factor (not the gradient: a NaN norm still makes 0 * NaN where x is 0). p = +-inf: the
    elements whose |x| is the result, and NaNs, share g * sign(x) evenly; p = 0: zero; p = 1:
    sign(x) g; p = 2: g x / out; p < 1: sign(x) |x|^(p-1) g out^(1-p), |x|^(p-1) masked to 0 at
    x = 0; otherwise sign(x) |x|^(p-1) (x |x|^(p-2) from 2 on) times g / out^(p-1), masked to 0
    where the norm is 0."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    n = numel_at(m, 0)
    n_out = numel_at(m, shape_pos(m, 1))
    x = view(saved(a, 0), n, dt)
    out = view(saved(a, 1), n_out, dt)
    g = view(gout(a, 0), n_out, dt)
    gx = view(gin(a, 0), n, dt)
    add = mode(a, 0) == ADD
    p = fmeta(a, 1)[0]
    group = _groups(m, 1)
    count = np.zeros(n_out, np.int64)
    if np.isinf(p):
        for i in range(n):
            if abs(x[i]) == out[group[i]] or x[i] != x[i]:     # a NaN is a tie, as in torch
                count[group[i]] += 1
    for i in range(n):
        k = group[i]
        if np.isinf(p):
            hit = 1.0 if abs(x[i]) == out[k] or x[i] != x[i] else 0.0
            v = _sign(x[i]) * (g[k] / count[k] * hit)
        elif p == 0:
            v = 0.0
        elif p == 1:
            v = _sign(x[i]) * g[k]
        elif p == 2:
            v = g[k] * (0.0 if out[k] == 0 else x[i] / out[k])
        elif p < 1:
            v = _sign(x[i]) * (0.0 if x[i] == 0 else abs(x[i]) ** (p - 1)) * g[k] * out[k] ** (1 - p)
        else:
            scale = 0.0 if out[k] == 0 else g[k] / out[k] ** (p - 1)
            power = _sign(x[i]) * abs(x[i]) ** (p - 1) if p < 2 else x[i] * abs(x[i]) ** (p - 2)
            v = power * scale
        gx[i] = gx[i] + v if add else v


# ==== along one dim: scans, selections by index, split ==============================================
# Their meta attrs describe the input as (outer, n, inner): n elements along the dim, each a stride
# of `inner` apart.

@njit
def cumsum_bwd(addr, dt):
    """cumsum: each input element gets the sum of g from its position to the end of its line.
    meta attrs: outer, n, inner."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    p = shape_pos(m, 2)
    outer, n, inner = m[p], m[p + 1], m[p + 2]
    g = view(gout(a, 0), outer * n * inner, dt)
    gx = view(gin(a, 0), outer * n * inner, dt)
    add = mode(a, 0) == ADD
    for o in range(outer):
        for i in range(inner):
            acc = g[0] * 0
            for j in range(n - 1, -1, -1):
                q = (o * n + j) * inner + i
                acc += g[q]
                gx[q] = gx[q] + acc if add else acc


@njit
def cumprod_bwd(addr, dt):
    """cumprod, zeros included (torch's cumprod_backward): before a line's first zero z,
    gx[k] = sum_{j>=k} g[j] out[j] / x[k]; at z, out[z-1] times sum_{j>=z} g[j] prod_{z<i<=j} x[i];
    after z, zero. meta attrs: outer, n, inner."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    p = shape_pos(m, 2)
    outer, n, inner = m[p], m[p + 1], m[p + 2]
    total = outer * n * inner
    x = view(saved(a, 0), total, dt)
    out = view(saved(a, 1), total, dt)
    g = view(gout(a, 0), total, dt)
    gx = view(gin(a, 0), total, dt)
    add = mode(a, 0) == ADD
    for o in range(outer):
        for i in range(inner):
            base = o * n * inner + i
            z = n
            for j in range(n):
                if x[base + j * inner] == 0:
                    z = j
                    break
            acc = g[0] * 0
            for j in range(n - 1, -1, -1):
                q = base + j * inner
                v = g[q] * 0
                if j < z:
                    acc += g[q] * out[q]
                    v = acc / x[q]
                elif j == z:
                    prefix = out[q - inner] if z > 0 else g[q] * 0 + 1
                    run = g[q] * 0 + 1
                    total_z = g[q] * 0
                    for k in range(z, n):
                        if k > z:
                            run *= x[base + k * inner]
                        total_z += g[base + k * inner] * run
                    v = prefix * total_z
                gx[q] = gx[q] + v if add else v


@njit
def select_dim_bwd(addr, dt):
    """Values picked along a dim by saved indices (max/min with dim, sort, topk): g goes back to
    the picked positions. meta attrs: outer, n (input size along dim), inner, k (picked)."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    p = shape_pos(m, 1 + a[0])
    outer, n, inner, k = m[p], m[p + 1], m[p + 2], m[p + 3]
    index = view(saved(a, 0), outer * k * inner, np.int64)
    g = view(gout(a, 0), outer * k * inner, dt)
    gx = view(gin(a, 0), outer * n * inner, dt)
    if mode(a, 0) != ADD:
        gx[:] = 0
    for o in range(outer):
        for j in range(k):
            for i in range(inner):
                q = (o * k + j) * inner + i
                gx[(o * n + index[q]) * inner + i] += g[q]


@njit
def split_bwd(addr, dt):
    """split / chunk / unbind: output j is a block of every row of the input; the input gradient is
    the outputs' gradients side by side (zeros for undefined ones).
    meta attrs: outer (rows), total width, then each output's width (elements per row)."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    k_out = a[0]
    p = shape_pos(m, 1 + k_out)
    outer, width = m[p], m[p + 1]
    gx = view(gin(a, 0), outer * width, dt)
    add = mode(a, 0) == ADD
    start = 0
    for j in range(k_out):
        w = m[p + 2 + j]
        if gout(a, j) != 0:
            g = view(gout(a, j), outer * w, dt)
            for o in range(outer):
                for i in range(w):
                    q = o * width + start + i
                    gx[q] = gx[q] + g[o * w + i] if add else g[o * w + i]
        elif not add:
            for o in range(outer):
                gx[o * width + start:o * width + start + w] = 0
        start += w


@njit
def repeat_bwd(addr, dt):
    """repeat (tile): each input element gets the sum of g over its copies.
    meta attrs: the input shape padded with leading ones to the output's ndim."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    n_in = numel_at(m, 0)
    p_out = shape_pos(m, 1)
    nd = m[p_out]
    n = numel_at(m, p_out)
    p_attr = shape_pos(m, 2)
    g = view(gout(a, 0), n, dt)
    gx = view(gin(a, 0), n_in, dt)
    if mode(a, 0) != ADD:
        gx[:] = 0
    strides = np.empty(nd, np.int64)
    stride = 1
    for d in range(nd - 1, -1, -1):
        strides[d] = stride
        stride *= m[p_attr + d]
    counter = np.zeros(nd, np.int64)
    inner = np.zeros(nd, np.int64)   # the position within the current copy, per dim
    offset = 0
    for i in range(n):
        gx[offset] += g[i]
        d = nd - 1
        while d >= 0:
            counter[d] += 1
            inner[d] += 1
            offset += strides[d]
            if inner[d] == m[p_attr + d]:
                inner[d] = 0
                offset -= strides[d] * m[p_attr + d]
            if counter[d] < m[p_out + 1 + d]:
                break
            counter[d] = 0      # the output size is a multiple of the input's: inner wrapped too
            d -= 1


# ==== products of vectors, scatter-add ==============================================================

@njit
def dot_bwd(addr, dt):
    """dot(x, y) of two vectors: gx = g y, gy = g x."""
    a = args_block(addr)
    m = meta(a)
    n = numel_at(m, 0)
    x = view(saved(a, 0), n, dt)
    y = view(saved(a, 1), n, dt)
    g = view(gout(a, 0), 1, dt)[0]
    for k in range(2):
        if gin(a, k) != 0:
            gk = view(gin(a, k), n, dt)
            other = y if k == 0 else x
            add = mode(a, k) == ADD
            for i in range(n):
                gk[i] = gk[i] + g * other[i] if add else g * other[i]


@njit
def mv_bwd(addr, dt):
    """mv(x, y) of an (r, c) matrix and a c-vector: gx = outer(g, y), gy = x^T g."""
    a = args_block(addr)
    m = meta(a)
    rows, cols = m[1], m[2]
    x = view(saved(a, 0), rows * cols, dt).reshape((rows, cols))
    y = view(saved(a, 1), cols, dt)
    g = view(gout(a, 0), rows, dt)
    if gin(a, 0) != 0:
        gx = view(gin(a, 0), rows * cols, dt).reshape((rows, cols))
        add = mode(a, 0) == ADD
        for r in range(rows):
            for c in range(cols):
                gx[r, c] = gx[r, c] + g[r] * y[c] if add else g[r] * y[c]
    if gin(a, 1) != 0:
        gy = view(gin(a, 1), cols, dt)
        if mode(a, 1) != ADD:
            gy[:] = 0
        for r in range(rows):
            for c in range(cols):
                gy[c] += x[r, c] * g[r]


@njit
def scatter_add_bwd(addr, dt):
    """out = x with src added at flat positions (scatter_add, index_add): gx = g, and src gets g
    read back at its positions."""
    a = args_block(addr)
    m = meta(a)
    n = numel_at(m, 0)
    n_src = numel_at(m, shape_pos(m, 1))
    g = view(gout(a, 0), n, dt)
    if gin(a, 0) != 0:
        _store(view(gin(a, 0), n, dt), g, mode(a, 0))
    if gin(a, 1) != 0:
        positions = view(saved(a, 0), n_src, np.int64)
        gs = view(gin(a, 1), n_src, dt)
        add = mode(a, 1) == ADD
        for i in range(n_src):
            gs[i] = gs[i] + g[positions[i]] if add else g[positions[i]]


# ==== nn: kernels of numgrad/ops/nn_ops.py =========================================================
# softmax, log_softmax, cross_entropy, linear, im2col, col2im and conv2d; then forward helpers
# that nn_ops calls from Python. The same conventions as above.

@njit
def softmax_bwd(addr, dt):
    """gx = y * (g - sum(g * y)) along the softmax dim. meta attrs: outer, n, inner, dim."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    p = shape_pos(m, 2)
    outer, n, inner = m[p], m[p + 1], m[p + 2]
    y = view(saved(a, 0), outer * n * inner, dt).reshape((outer, n, inner))
    g = view(gout(a, 0), outer * n * inner, dt).reshape((outer, n, inner))
    gx = view(gin(a, 0), outer * n * inner, dt).reshape((outer, n, inner))
    add = mode(a, 0) == ADD
    if inner == 1:          # along the last dim: one contiguous row per softmax
        y, g, gx = y.reshape((outer, n)), g.reshape((outer, n)), gx.reshape((outer, n))
        for o in range(outer):
            y_row, g_row, gx_row = y[o], g[o], gx[o]
            s = _row_dot(g_row, y_row)
            for k in range(n):
                v = y_row[k] * (g_row[k] - s)
                gx_row[k] = gx_row[k] + v if add else v
        return
    sums = np.empty(inner, np.float64)
    for o in range(outer):
        # the sums of g * y along the dim for all `inner` positions at once, a row of them at a
        # time, so that every loop runs along contiguous memory (Note [channel loops])
        sums[:] = 0.0
        for k in range(n):
            _add_products(sums, g[o, k], y[o, k])
        for k in range(n):
            y_row, g_row, gx_row = y[o, k], g[o, k], gx[o, k]
            for i in range(inner):
                v = y_row[i] * (g_row[i] - sums[i])
                gx_row[i] = gx_row[i] + v if add else v


# Note [channel loops]
# Batch norm's kernels walk each channel as `outer` rows of `inner` contiguous elements, each row
# a slice: indexing the flat arrays at row + s instead kept Numba's check for negative indices in
# the loop, which stopped LLVM from vectorising it (6x slower sums, measured on 64x32x14x14). The
# sums are float64 and may be reordered (fastmath's reassoc alone): a single running sum waits
# on its previous addition at every element.
@njit(fastmath={"reassoc"})
def _channel_sums(g, x, mean, outer, channels, inner, c):
    """sum(g) and sum((x - mean) g) over channel c of (outer, channels, inner) arrays, in float64
    (Note [channel loops])."""
    sum_g = 0.0
    dot = 0.0
    for o in range(outer):
        row = (o * channels + c) * inner
        g_row, x_row = g[row:row + inner], x[row:row + inner]
        for s in range(inner):
            sum_g += g_row[s]
            dot += (x_row[s] - mean) * g_row[s]
    return sum_g, dot


@njit(fastmath={"reassoc"})
def row_sum(values):
    """The sum of a contiguous array in float64, its additions free to reorder so that they
    vectorise (Note [channel loops]; the generated kernels' sums: Note [sums in parts] in
    table.py)."""
    total = 0.0
    for j in range(values.size):
        total += values[j]
    return total


@njit(fastmath={"reassoc"})
def _row_dot(a, b):
    """sum(a * b) in float64, as row_sum."""
    total = 0.0
    for j in range(a.size):
        total += a[j] * b[j]
    return total


@njit
def _add_values(sums, row):
    """sums += row, elementwise (float64 sums)."""
    for j in range(row.size):
        sums[j] += row[j]


@njit
def _add_products(sums, a, b):
    """sums += a * b, elementwise (float64 sums)."""
    for j in range(a.size):
        sums[j] += a[j] * b[j]


@njit
def _channel_sum(g, outer, channels, inner, c):
    """sum(g) over channel c, as _channel_sums."""
    total = 0.0
    for o in range(outer):
        row = (o * channels + c) * inner
        total += row_sum(g[row:row + inner])
    return total


@njit
def batch_norm_bwd(addr, dt):
    """x_hat = (x - mean) invstd per channel: gx = invstd (g - mean(g) - x_hat mean(g x_hat)),
    plus the mean's gradient / count and the variance's times 2 (x - mean) / count where they
    have one. Saved: x_hat, the variance. meta attrs: outer, channels, inner; fmeta: eps."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    p = shape_pos(m, 4)
    outer, channels, inner = m[p], m[p + 1], m[p + 2]
    eps = fmeta(a, 1)[0]
    n = outer * channels * inner
    count = outer * inner
    x_hat = view(saved(a, 0), n, dt)
    var = view(saved(a, 1), channels, dt)
    has_g, has_mean, has_var = gout(a, 0) != 0, gout(a, 1) != 0, gout(a, 2) != 0
    # an undefined gradient's view points at a saved value and is never read
    g = view(gout(a, 0) if has_g else saved(a, 0), n, dt)
    g_mean = view(gout(a, 1) if has_mean else saved(a, 1), channels, dt)
    g_var = view(gout(a, 2) if has_var else saved(a, 1), channels, dt)
    gx = view(gin(a, 0), n, dt)
    add = mode(a, 0) == ADD
    for c in range(channels):
        invstd = 1.0 / np.sqrt(var[c] + eps)
        sum_g, sum_gx = 0.0, 0.0
        if has_g:
            sum_g, sum_gx = _channel_sums(g, x_hat, dt(0.0), outer, channels, inner, c)
        mean_g, mean_gx = dt(sum_g / count), dt(sum_gx / count)
        shift = dt(g_mean[c] / count) if has_mean else dt(0.0)
        slope = dt(2.0 * g_var[c] / (invstd * count)) if has_var else dt(0.0)
        scale = dt(invstd)
        for o in range(outer):
            row = (o * channels + c) * inner
            x_row, gx_row = x_hat[row:row + inner], gx[row:row + inner]      # Note [channel loops]
            g_row = g[row:row + inner] if has_g else x_row
            for s in range(inner):
                v = shift + slope * x_row[s]
                if has_g:
                    v += scale * (g_row[s] - mean_g - x_row[s] * mean_gx)
                gx_row[s] = gx_row[s] + v if add else v


@njit
def batch_norm_affine_bwd(addr, dt):
    """out = x_hat w + b with x_hat = (x - mean) invstd per channel: gb = sum(g), gw = sum(g x_hat)
    and gx = w invstd (g - mean(g) - (x - mean) k), k = sum((x - mean) g) invstd^2 / count (torch's
    formulation), plus the statistics' own gradients as in batch_norm_bwd. Saved: x, w (only
    where gx is wanted), the mean, the variance. meta attrs: outer, channels, inner; fmeta: eps."""
    a = args_block(addr)
    m = meta(a)
    p = shape_pos(m, 6)
    outer, channels, inner = m[p], m[p + 1], m[p + 2]
    eps = fmeta(a, 1)[0]
    n = outer * channels * inner
    count = outer * inner
    want_x, want_w, want_b = gin(a, 0) != 0, gin(a, 1) != 0, gin(a, 2) != 0
    mean = view(saved(a, 2), channels, dt)
    var = view(saved(a, 3), channels, dt)
    has_g, has_mean, has_var = gout(a, 0) != 0, gout(a, 1) != 0, gout(a, 2) != 0
    # x and w are saved only for the gradients that read them; an undefined gradient's view
    # points at a saved value and is never read
    x = view(saved(a, 0), n if want_x or want_w else 0, dt)
    w = view(saved(a, 1), channels if want_x else 0, dt)
    g = view(gout(a, 0) if has_g else saved(a, 2), n if has_g else 0, dt)
    g_mean = view(gout(a, 1) if has_mean else saved(a, 2), channels, dt)
    g_var = view(gout(a, 2) if has_var else saved(a, 2), channels, dt)
    for c in range(channels):
        invstd = 1.0 / np.sqrt(var[c] + eps)
        centre = mean[c]
        sum_g, dot = 0.0, 0.0
        if has_g and (want_x or want_w):
            sum_g, dot = _channel_sums(g, x, centre, outer, channels, inner, c)
        elif has_g:
            sum_g = _channel_sum(g, outer, channels, inner, c)
        if want_b:
            gb = view(gin(a, 2), channels, dt)
            gb[c] = gb[c] + sum_g if mode(a, 2) == ADD else sum_g
        if want_w:
            gw = view(gin(a, 1), channels, dt)
            gw[c] = gw[c] + dot * invstd if mode(a, 1) == ADD else dot * invstd
        if not want_x:
            continue
        gx = view(gin(a, 0), n, dt)
        add = mode(a, 0) == ADD
        scale = dt(w[c] * invstd)
        mean_g = dt(sum_g / count)
        k = dt(dot * invstd * invstd / count)
        shift = dt(g_mean[c] / count) if has_mean else dt(0.0)
        slope = dt(2.0 * g_var[c] / count) if has_var else dt(0.0)
        for o in range(outer):
            row = (o * channels + c) * inner
            x_row, gx_row = x[row:row + inner], gx[row:row + inner]      # Note [channel loops]
            g_row = g[row:row + inner] if has_g else x_row
            for s in range(inner):
                centred = x_row[s] - centre
                v = shift + slope * centred
                if has_g:
                    v += (g_row[s] - mean_g - centred * k) * scale
                gx_row[s] = gx_row[s] + v if add else v


@njit(fastmath={"reassoc"})
def _row_moments(x_row):
    """(mean, 1 / n sum of squared deviations) of a row, summed in float64 (Note [channel loops]);
    the deviations from the mean rounded to the row's dtype, as torch's."""
    total = 0.0
    for j in range(x_row.size):
        total += x_row[j]
    mean = rounded_like(x_row, total / x_row.size)
    squares = 0.0
    for j in range(x_row.size):
        d = x_row[j] - mean
        squares += d * d
    return mean, squares / x_row.size


@njit(fastmath={"reassoc"})
def _layer_norm_row_sums(g_row, w, x_row, mean, rstd):
    """sum(g w) and sum(g w x_hat) over a row, x_hat = (x - mean) rstd, in float64."""
    s1 = 0.0
    s2 = 0.0
    for j in range(g_row.size):
        gw = g_row[j] * w[j]
        s1 += gw
        s2 += gw * ((x_row[j] - mean) * rstd)
    return s1, s2


@njit
def layer_norm_bwd(addr, dt):
    """out = x_hat w + b over rows of `inner` elements, x_hat = (x - mean) rstd (Note [layer
    norm's rows] in ops/nn_ops.py): gx = rstd (g w - mean(g w) - x_hat mean(g w x_hat)) per row;
    gw and gb are sums over the rows of g x_hat and g. Saved: x, w (only where gx is wanted),
    and each row's mean and rstd, outputs of the forward. meta attrs: rows, inner; fmeta: eps."""
    a = args_block(addr)
    m = meta(a)
    p = shape_pos(m, 6)
    rows, inner = m[p], m[p + 1]
    if inner == 0:
        return          # nothing normalised, nothing to differentiate
    want_x, want_w, want_b = gin(a, 0) != 0, gin(a, 1) != 0, gin(a, 2) != 0
    x = view(saved(a, 0), rows * inner if want_x or want_w else 0, dt).reshape((-1, inner))
    w = view(saved(a, 1), inner if want_x else 0, dt)
    means = view(saved(a, 2), rows, dt)
    rstds = view(saved(a, 3), rows, dt)
    g = view(gout(a, 0), rows * inner, dt).reshape((rows, inner))
    # the parameters' gradients are sums over the rows: float64 rows of sums, added elementwise
    # (vectorised across the row)
    sum_gx = np.zeros(inner if want_w else 0, np.float64)
    sum_g = np.zeros(inner if want_b else 0, np.float64)
    gx = view(gin(a, 0), rows * inner if want_x else 0, dt).reshape((-1, inner))
    add = mode(a, 0) == ADD
    for r in range(rows):
        g_row = g[r]
        if want_b:
            _add_values(sum_g, g_row)
        if not (want_x or want_w):
            continue
        x_row = x[r]
        mean, rstd = means[r], rstds[r]
        if want_w:
            for j in range(inner):
                sum_gx[j] += g_row[j] * ((x_row[j] - mean) * rstd)
        if want_x:
            s1, s2 = _layer_norm_row_sums(g_row, w, x_row, mean, rstd)
            mean_gw, mean_gwx = dt(s1 / inner), dt(s2 / inner)
            gx_row = gx[r]
            for j in range(inner):
                v = rstd * (g_row[j] * w[j] - mean_gw - (x_row[j] - mean) * rstd * mean_gwx)
                gx_row[j] = gx_row[j] + v if add else v
    if want_w:
        gw = view(gin(a, 1), inner, dt)
        for j in range(inner):
            gw[j] = gw[j] + sum_gx[j] if mode(a, 1) == ADD else sum_gx[j]
    if want_b:
        gb = view(gin(a, 2), inner, dt)
        for j in range(inner):
            gb[j] = gb[j] + sum_g[j] if mode(a, 2) == ADD else sum_g[j]


@njit(fastmath={"reassoc"})
def _row_sum_and_dot(g_row, x_row):
    """sum(g) and sum(g x) over a row, in float64."""
    total = 0.0
    dot = 0.0
    for j in range(g_row.size):
        total += g_row[j]
        dot += g_row[j] * x_row[j]
    return total, dot


@njit
def group_norm_bwd(addr, dt):
    """out = (x - mean) rstd w + b, each sample's channels split into `groups` groups of D =
    channels / groups * inner elements with a mean and rstd each (Note [group norm's groups] in
    ops/nn_ops.py). torch's formulation: per channel row ds = sum(g x), db = sum(g); per group
    c2 = (sum(db w) mean - sum(ds w)) rstd^3 / D, c3 = -c2 mean - sum(db w) rstd / D, and
    gx = rstd w g + c2 x + c3; gw = sum over samples of (ds - db mean) rstd, gb of db. Gradients
    reaching the mean and rstd outputs add their own terms. Saved: x, w (only where gx is wanted),
    the means and rstds, (N, groups). meta attrs: N, channels, inner, groups."""
    a = args_block(addr)
    m = meta(a)
    p = shape_pos(m, 6)
    n, channels, inner, groups = m[p], m[p + 1], m[p + 2], m[p + 3]
    per = channels // groups
    size = n * channels * inner
    want_x, want_w, want_b = gin(a, 0) != 0, gin(a, 1) != 0, gin(a, 2) != 0
    has_g, has_mean, has_rstd = gout(a, 0) != 0, gout(a, 1) != 0, gout(a, 2) != 0
    x = view(saved(a, 0), size if want_x or want_w else 0, dt)
    w = view(saved(a, 1), channels if want_x else 0, dt)
    means = view(saved(a, 2), n * groups, dt)
    rstds = view(saved(a, 3), n * groups, dt)
    # an undefined gradient's view points at a saved value and is never read
    g = view(gout(a, 0) if has_g else saved(a, 2), size if has_g else 0, dt)
    g_mean = view(gout(a, 1) if has_mean else saved(a, 2), n * groups, dt)
    g_rstd = view(gout(a, 2) if has_rstd else saved(a, 2), n * groups, dt)
    gx = view(gin(a, 0), size if want_x else 0, dt)
    add = mode(a, 0) == ADD
    sum_w = np.zeros(channels if want_w else 0, np.float64)
    sum_b = np.zeros(channels if want_b else 0, np.float64)
    count = per * inner
    for i in range(n):
        for k in range(groups):
            group = i * groups + k
            mean, rstd = means[group], rstds[group]
            ds_w, db_w = 0.0, 0.0
            if has_g:
                for c in range(k * per, (k + 1) * per):
                    row = (i * channels + c) * inner
                    g_row = g[row:row + inner]
                    if want_x or want_w:
                        db, ds = _row_sum_and_dot(g_row, x[row:row + inner])
                    else:
                        db, ds = row_sum(g_row), 0.0
                    if want_w:
                        sum_w[c] += (ds - db * mean) * rstd
                    if want_b:
                        sum_b[c] += db
                    if want_x:
                        ds_w += ds * w[c]
                        db_w += db * w[c]
            if not want_x or count == 0:
                continue
            c2 = (db_w * mean - ds_w) * rstd * rstd * rstd / count
            c3 = -c2 * mean - db_w * rstd / count
            # d mean / dx = 1 / D; d rstd / dx = -rstd^3 (x - mean) / D
            if has_mean:
                c3 += g_mean[group] / count
            if has_rstd:
                slope = g_rstd[group] * rstd * rstd * rstd / count
                c2 -= slope
                c3 += slope * mean
            c2_dt, c3_dt = dt(c2), dt(c3)
            for c in range(k * per, (k + 1) * per):
                row = (i * channels + c) * inner
                x_row, gx_row = x[row:row + inner], gx[row:row + inner]
                c1 = dt(rstd * w[c]) if has_g else dt(0.0)
                g_row = g[row:row + inner] if has_g else x_row
                for s in range(inner):
                    v = c1 * g_row[s] + c2_dt * x_row[s] + c3_dt
                    gx_row[s] = gx_row[s] + v if add else v
    if want_w:
        gw = view(gin(a, 1), channels, dt)
        for c in range(channels):
            gw[c] = gw[c] + sum_w[c] if mode(a, 1) == ADD else sum_w[c]
    if want_b:
        gb = view(gin(a, 2), channels, dt)
        for c in range(channels):
            gb[c] = gb[c] + sum_b[c] if mode(a, 2) == ADD else sum_b[c]


@njit
def log_softmax_bwd(addr, dt):
    """gx = g - exp(y) * sum(g) along the dim. meta attrs: outer, n, inner, dim."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    p = shape_pos(m, 2)
    outer, n, inner = m[p], m[p + 1], m[p + 2]
    y = view(saved(a, 0), outer * n * inner, dt).reshape((outer, n, inner))
    g = view(gout(a, 0), outer * n * inner, dt).reshape((outer, n, inner))
    gx = view(gin(a, 0), outer * n * inner, dt).reshape((outer, n, inner))
    add = mode(a, 0) == ADD
    if inner == 1:          # as softmax_bwd
        y, g, gx = y.reshape((outer, n)), g.reshape((outer, n)), gx.reshape((outer, n))
        for o in range(outer):
            y_row, g_row, gx_row = y[o], g[o], gx[o]
            s = row_sum(g_row)
            for k in range(n):
                v = g_row[k] - fmath.exp(y_row[k]) * s
                gx_row[k] = gx_row[k] + v if add else v
        return
    sums = np.empty(inner, np.float64)
    for o in range(outer):
        sums[:] = 0.0
        for k in range(n):
            _add_values(sums, g[o, k])
        for k in range(n):
            y_row, g_row, gx_row = y[o, k], g[o, k], gx[o, k]
            for i in range(inner):
                v = g_row[i] - fmath.exp(y_row[i]) * sums[i]
                gx_row[i] = gx_row[i] + v if add else v


@njit
def cross_entropy_bwd(addr, dt):
    """Note [cross entropy coefficients] in nn_ops.py: gx = g * scale * (softmax(x) * A - a), the
    softmax recomputed row by row. Saved: x (M, C), target (M,) int64, weight (C,).
    meta attrs: ignore_index, reduction (0: none, g per row); fmeta: scale."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    rows, classes = m[1], m[2]
    p = shape_pos(m, 4)
    ignore, per_row = m[p], m[p + 1] == 0
    scale = fmeta(a, 1)[0]
    x = view(saved(a, 0), rows * classes, dt)
    target = view(saved(a, 1), rows, np.int64)
    w = view(saved(a, 2), classes, dt)
    g = view(gout(a, 0), rows if per_row else 1, dt)
    gx = view(gin(a, 0), rows * classes, dt)
    add = mode(a, 0) == ADD
    shifted_exp = np.empty(classes, dt)
    for i in range(rows):
        x_row, gx_row = x[i * classes:(i + 1) * classes], gx[i * classes:(i + 1) * classes]
        t = target[i]
        if t == ignore:
            if not add:
                gx_row[:] = 0
            continue
        gi = (g[i] if per_row else g[0]) * scale
        s = _exp_minus_max(x_row, shifted_exp)[1]
        hit = w[t]
        before = gx_row[t]
        for c in range(classes):
            v = gi * (shifted_exp[c] / s * hit)
            gx_row[c] = gx_row[c] + v if add else v
        v = gi * (shifted_exp[t] / s * hit - hit)          # the target's class: a[t] = 1
        gx_row[t] = before + v if add else v


@njit
def _exp_minus_max(row, shifted_exp):
    """shifted_exp = exp(row - max(row)); returns (the max, the sum of shifted_exp in float64).
    The exp and the sum vectorise (Note [float32 exp and erf] in formula.py)."""
    top = rounded_like(row, -np.inf)
    for c in range(row.size):
        top = max(top, row[c])
    for c in range(row.size):
        shifted_exp[c] = fmath.exp(row[c] - top)
    return top, row_sum(shifted_exp)


@njit
def linear_bwd(addr, dt):
    """out = x (M, K) @ w (N, K).T [+ b]: gx = g w, gw = g.T x, gb = g summed over rows. The
    inputs are (x, w), or (b, x, w) with a bias (ops/nn_ops.py)."""
    a = args_block(addr)
    md = meta(a)
    first = a[1] - 2
    pos = shape_pos(md, first)
    rows, inner = md[pos + 1], md[pos + 2]
    cols = md[shape_pos(md, first + 1) + 1]
    x = view(saved(a, 0), rows * inner, dt)
    w = view(saved(a, 1), cols * inner, dt)
    g = view(gout(a, 0), rows * cols, dt).reshape((rows, cols))
    if gin(a, first) != 0:
        gemm(view(gin(a, first), rows * inner, dt), g.reshape(-1), False, w, False, rows, inner,
             cols, mode(a, first) == ADD)
    if gin(a, first + 1) != 0:     # BLAS reads g transposed: no copy
        gemm(view(gin(a, first + 1), cols * inner, dt), g.reshape(-1), True, x, False, cols,
             inner, rows, mode(a, first + 1) == ADD)
    if first == 1 and gin(a, 0) != 0:
        gb = view(gin(a, 0), cols, dt)
        if mode(a, 0) != ADD:
            gb[:] = 0
        for i in range(rows):
            for j in range(cols):
                gb[j] += g[i, j]


@njit
def _window_pairs(padded, cols, geometry, gather, add):
    """Every (pixel, column entry) pair of im2col, in the columns' order, on the zero-padded
    image batch (N, C, H + 2 ph, W + 2 pw). gather: cols (=|+=) padded; else padded += cols
    (col2im). geometry: n, c, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, layout
    (0: columns (N, oh, ow, C, kh, kw); 1: (N, C, oh, ow, kh, kw)). Flat indices throughout:
    an array view per row would cost a reference count each."""
    n_img, channels, oh, ow = geometry[0], geometry[1], geometry[4], geometry[5]
    kh, kw, sh, sw, dh, dw = (geometry[6], geometry[7], geometry[8], geometry[9], geometry[12],
                              geometry[13])
    conv = geometry[14] == 0
    height, width = padded.shape[2], padded.shape[3]
    image = padded.reshape(-1)
    d1, d2, d3 = (oh, ow, channels) if conv else (channels, oh, ow)
    j = 0
    for n in range(n_img):
        for p in range(d1):
            for q in range(d2):
                for r in range(d3):
                    if conv:
                        oy, ox, c = p, q, r
                    else:
                        c, oy, ox = p, q, r
                    base = ((n * channels + c) * height + oy * sh) * width + ox * sw
                    for ky in range(kh):
                        # unsigned indices, never wrapped around (Note [conv columns])
                        i = base + ky * dh * width
                        if not gather:
                            for kx in range(kw):
                                image[np.uint64(i + kx * dw)] += cols[np.uint64(j + kx)]
                        elif add:
                            for kx in range(kw):
                                cols[np.uint64(j + kx)] += image[np.uint64(i + kx * dw)]
                        else:
                            for kx in range(kw):
                                cols[np.uint64(j + kx)] = image[np.uint64(i + kx * dw)]
                        j += kw


@njit
def _padded(image, geometry):
    """image (N, C, H, W) with zero padding around each plane (image itself when there is none)."""
    ph, pw = geometry[10], geometry[11]
    if ph == 0 and pw == 0:
        return image
    n, c, h, w = image.shape
    out = np.zeros((n, c, h + 2 * ph, w + 2 * pw), image.dtype)
    out[:, :, ph:ph + h, pw:pw + w] = image
    return out


@njit
def _col2im_into(image, cols, geometry, add):
    """image (=|+=) col2im(cols)."""
    ph, pw = geometry[10], geometry[11]
    if ph == 0 and pw == 0:
        if not add:
            image[...] = 0
        _window_pairs(image, cols, geometry, False, True)
        return
    n, c, h, w = image.shape
    padded = np.zeros((n, c, h + 2 * ph, w + 2 * pw), image.dtype)
    _window_pairs(padded, cols, geometry, False, True)
    if add:
        image += padded[:, :, ph:ph + h, pw:pw + w]
    else:
        image[...] = padded[:, :, ph:ph + h, pw:pw + w]


@njit
def _geometry(m, p_image, p_cols):
    """The window geometry of an im2col/col2im node, from its meta (shapes, then 9 attrs)."""
    p = shape_pos(m, 2)
    layout = m[p + 8]
    oh = m[p_cols + 2] if layout == 0 else m[p_cols + 3]
    ow = m[p_cols + 3] if layout == 0 else m[p_cols + 4]
    geometry = np.empty(15, np.int64)
    geometry[0:4] = m[p_image + 1:p_image + 5]
    geometry[4] = oh
    geometry[5] = ow
    geometry[6:15] = m[p:p + 9]
    return geometry


@njit
def im2col_bwd(addr, dt):
    """col2im of the gradient: each column entry adds back into the pixel it was read from."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    p_out = shape_pos(m, 1)
    gx = view(gin(a, 0), numel_at(m, 0), dt)
    g = view(gout(a, 0), numel_at(m, p_out), dt)
    geometry = _geometry(m, 0, p_out)
    image = gx.reshape((geometry[0], geometry[1], geometry[2], geometry[3]))
    _col2im_into(image, g, geometry, mode(a, 0) == ADD)


@njit
def col2im_bwd(addr, dt):
    """im2col of the gradient: each column entry reads the pixel it was added into."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    p_out = shape_pos(m, 1)
    gx = view(gin(a, 0), numel_at(m, 0), dt)
    g = view(gout(a, 0), numel_at(m, p_out), dt)
    geometry = _geometry(m, p_out, 0)
    image = g.reshape((geometry[0], geometry[1], geometry[2], geometry[3]))
    _window_pairs(_padded(image, geometry), gx, geometry, True, mode(a, 0) == ADD)


@njit(inline="always")
def _pool_window(o, k, s, p, size):
    """One dim of an average pool's window o, as torch: (start, end) clipped to the input, and
    its extent clipped to the padded input (count_include_pad's divisor)."""
    start = o * s - p
    end = min(start + k, size + p)
    return max(start, 0), min(end, size), end - start


@njit
def _pool_windows(oh, ow, geometry):
    """Per output (i, j) of an average pool: its rows' and columns' (start, end) in the input
    and its divisor, as torch's avg_pool2d. geometry: h, w, kh, kw, sh, sw, ph, pw,
    count_include_pad, divisor_override (0: none)."""
    h, w = geometry[0], geometry[1]
    rows = np.empty((oh, 2), np.int64)
    columns = np.empty((ow, 2), np.int64)
    padded_h = np.empty(oh, np.int64)
    padded_w = np.empty(ow, np.int64)
    for i in range(oh):
        rows[i, 0], rows[i, 1], padded_h[i] = _pool_window(i, geometry[2], geometry[4],
                                                           geometry[6], h)
    for j in range(ow):
        columns[j, 0], columns[j, 1], padded_w[j] = _pool_window(j, geometry[3], geometry[5],
                                                                 geometry[7], w)
    divisors = np.empty((oh, ow), np.int64)
    for i in range(oh):
        for j in range(ow):
            if geometry[9]:
                divisors[i, j] = geometry[9]
            elif geometry[8]:
                divisors[i, j] = padded_h[i] * padded_w[j]
            else:
                divisors[i, j] = (rows[i, 1] - rows[i, 0]) * (columns[j, 1] - columns[j, 0])
    return rows, columns, divisors


@njit(cache=True)
def pool_divisors(oh, ow, geometry):
    """The (oh, ow) divisors of an average pool's windows (_pool_windows)."""
    return _pool_windows(oh, ow, geometry)[2]


@njit(cache=True, error_model="numpy")
def avg_pool2d_forward(planes, oh, ow, geometry):
    """Each window's sum over planes (P, h, w), C-contiguous, in their dtype and torch's order
    (rows, then columns), divided by the window's divisor (Note [average pooling] in
    ops/nn_ops.py). geometry: as _pool_windows'."""
    rows, columns, divisors = _pool_windows(oh, ow, geometry)
    out = np.empty((planes.shape[0], oh, ow), planes.dtype)
    zero = planes.dtype.type(0)
    for q in range(planes.shape[0]):
        plane, out_plane = planes[q], out[q]
        for i in range(oh):
            for j in range(ow):
                total = zero
                for y in range(rows[i, 0], rows[i, 1]):
                    for x in range(columns[j, 0], columns[j, 1]):
                        total += plane[y, x]
                out_plane[i, j] = total / planes.dtype.type(divisors[i, j])
    return out


@njit(error_model="numpy")
def avg_pool2d_bwd(addr, dt):
    """Each output's gradient divided by its window's divisor, added to every input of the window,
    in torch's order (avg_pool2d_backward). meta attrs: kh, kw, sh, sw, ph, pw,
    count_include_pad, divisor_override."""
    a = args_block(addr)
    if gin(a, 0) == 0:
        return
    m = meta(a)
    p_out = shape_pos(m, 1)
    p = shape_pos(m, 2)
    h, w = m[m[0] - 1], m[m[0]]
    oh, ow = m[p_out + m[p_out] - 1], m[p_out + m[p_out]]
    count = numel_at(m, 0) // (h * w) if h * w else 0
    geometry = np.empty(10, np.int64)
    geometry[0], geometry[1] = h, w
    geometry[2:10] = m[p:p + 8]
    rows, columns, divisors = _pool_windows(oh, ow, geometry)
    gx = view(gin(a, 0), count * h * w, dt).reshape((count, h, w))
    g = view(gout(a, 0), count * oh * ow, dt).reshape((count, oh, ow))
    if mode(a, 0) != ADD:
        gx[:] = 0
    for q in range(count):
        g_plane, gx_plane = g[q], gx[q]
        for i in range(oh):
            for j in range(ow):
                share = g_plane[i, j] / dt(divisors[i, j])
                for y in range(rows[i, 0], rows[i, 1]):
                    for x in range(columns[j, 0], columns[j, 1]):
                        gx_plane[y, x] += share


# Note [conv columns]
# conv2d's columns of one image are (C*kh*kw, oh*ow): row (c, ky, kx) is what that tap sees at every
# output position, zero in the padding. Then w (O, C*kh*kw) @ columns is the image's output already
# in NCHW order, and the runs the loops copy are output rows (contiguous), or with stride 1 and
# oh*ow = H*W whole shifted planes: one copy, then the taps that fell off the left or right edge
# zeroed. The loops index with unsigned integers: Numba's wraparound of negative signed indices kept
# LLVM from vectorising them (9x slower, measured).

@njit
def _inside(count, stride, offset, size):
    """The positions o in [0, count) with 0 <= o * stride + offset < size: (first, end)."""
    first = min(count, max(0, (stride - 1 - offset) // stride))
    end = max(first, min(count, (size - offset + stride - 1) // stride))
    return first, end


@njit
def _fill(dst, start, stop, value):
    for i in range(start, stop):
        dst[np.uint64(i)] = value


@njit
def _copy_run(dst, d0, src, s0, count, step):
    """dst[d0 + i] = src[s0 + i * step] for i < count."""
    for i in range(count):
        dst[np.uint64(d0 + i)] = src[np.uint64(s0 + i * step)]


@njit
def _add_run(dst, d0, src, s0, count, step):
    """dst[d0 + i * step] += src[s0 + i] for i < count."""
    for i in range(count):
        dst[np.uint64(d0 + i * step)] += src[np.uint64(s0 + i)]


@njit
def _conv_columns_of(image, geometry, cols, gather):
    """One image's columns (Note [conv columns]), both arrays flat. gather: cols = columns of
    image; else image += the columns' entries added back where they were read (col2im), after
    zeroing cols' padding taps (cols is scratch then)."""
    channels, height, width, oh, ow = (geometry[1], geometry[2], geometry[3], geometry[4],
                                       geometry[5])
    kh, kw, sh, sw, ph, pw, dh, dw = (geometry[6], geometry[7], geometry[8], geometry[9],
                                      geometry[10], geometry[11], geometry[12], geometry[13])
    spots, plane = oh * ow, height * width
    # the output plane must be the input's shape, not only its size (4x5 out of 5x4 is not)
    dense = sh == 1 and sw == 1 and oh == height and ow == width
    row = 0
    for c in range(channels):
        for ky in range(kh):
            y_off = ky * dh - ph
            y0, y1 = _inside(oh, sh, y_off, height)
            for kx in range(kw):
                x_off = kx * dw - pw
                x0, x1 = _inside(ow, sw, x_off, width)
                if dense:
                    # the plane shifted by (y_off, x_off); taps off the left/right edge read the
                    # neighbouring row (or just outside the image, skipped) and are zeroed
                    shift = c * plane + y_off * width + x_off
                    first = max(y0 * ow, -shift)
                    stop = min(y1 * ow, channels * plane - shift)
                    if gather:
                        _fill(cols, row, row + y0 * ow, 0.0)
                        _copy_run(cols, row + first, image, shift + first, stop - first, 1)
                        _fill(cols, row + y1 * ow, row + spots, 0.0)
                    for ox in range(ow):
                        if ox < x0 or ox >= x1:
                            for oy in range(oh):
                                cols[np.uint64(row + oy * ow + ox)] = 0.0
                    if not gather:
                        _add_run(image, shift + first, cols, row + first, stop - first, 1)
                else:
                    for oy in range(oh):
                        start = row + oy * ow
                        if oy < y0 or oy >= y1:
                            if gather:
                                _fill(cols, start, start + ow, 0.0)
                            continue
                        source = c * plane + (oy * sh + y_off) * width + x_off
                        if gather:
                            _fill(cols, start, start + x0, 0.0)
                            _copy_run(cols, start + x0, image, source + x0 * sw, x1 - x0, sw)
                            _fill(cols, start + x1, start + ow, 0.0)
                        else:
                            _add_run(image, source + x0 * sw, cols, start + x0, x1 - x0, sw)
                row += spots


@njit
def conv2d_bwd(addr, dt):
    """out[n] = w (O, C*kh*kw) @ columns(x[n]) + b (Note [conv columns]): gb sums g over images
    and positions; gw = sum over images of g[n] @ columns(x[n]).T, the columns recomputed one
    image at a time (they are kh*kw times the input); gx[n] = col2im(w.T @ g[n]).
    meta attrs: sh, sw, ph, pw, dh, dw."""
    a = args_block(addr)
    md = meta(a)
    p_w = shape_pos(md, 1)
    p_out = shape_pos(md, a[1])
    p = shape_pos(md, a[1] + 1)
    n_img, channels, height, width = md[1], md[2], md[3], md[4]
    out_channels, kh, kw = md[p_w + 1], md[p_w + 3], md[p_w + 4]
    oh, ow = md[p_out + 3], md[p_out + 4]
    geometry = np.array([n_img, channels, height, width, oh, ow, kh, kw, md[p], md[p + 1],
                         md[p + 2], md[p + 3], md[p + 4], md[p + 5], 0], np.int64)
    spots, taps, pixels = oh * ow, channels * kh * kw, channels * height * width
    g = view(gout(a, 0), n_img * out_channels * spots, dt).reshape((n_img, out_channels, spots))
    if a[1] == 3 and gin(a, 2) != 0:
        gb = view(gin(a, 2), out_channels, dt)
        if mode(a, 2) != ADD:
            gb[:] = 0
        flat = g.reshape(-1)
        for o in range(out_channels):       # Note [channel loops]
            gb[o] += _channel_sum(flat, n_img, out_channels, spots, o)
    cols = np.empty((taps, spots), dt)
    if gin(a, 1) != 0:
        x = view(saved(a, 0), n_img * pixels, dt).reshape((n_img, pixels))
        gw = view(gin(a, 1), out_channels * taps, dt).reshape((out_channels, taps))
        if mode(a, 1) != ADD:
            gw[:] = 0
        for n in range(n_img):       # gw += g[n] columns^T: BLAS reads the columns transposed
            _conv_columns_of(x[n], geometry, cols.reshape(-1), True)
            gemm(gw.reshape(-1), g[n].reshape(-1), False, cols.reshape(-1), True, out_channels,
                 taps, spots, True)
    if gin(a, 0) != 0:
        w = view(saved(a, 1), out_channels * taps, dt).reshape((out_channels, taps))
        gx = view(gin(a, 0), n_img * pixels, dt).reshape((n_img, pixels))
        if mode(a, 0) != ADD:
            gx[:] = 0
        for n in range(n_img):       # columns = w^T g[n]
            gemm(cols.reshape(-1), w.reshape(-1), True, g[n].reshape(-1), False, taps, spots,
                 out_channels, False)
            _conv_columns_of(gx[n], geometry, cols.reshape(-1), False)


# Forward helpers of nn_ops, called from Python: one pass instead of a dozen NumPy calls.

@njit(cache=True, error_model="numpy")
def gelu_forward(x):
    """torch's GELU of a flat array, x * 0.5 * (1 + erf(x / sqrt(2))), in x's dtype: one loop
    that vectorises in float32 (Note [float32 exp and erf] in formula.py)."""
    out = np.empty_like(x)
    half, one, alpha = rounded_like(x, 0.5), rounded_like(x, 1.0), rounded_like(x, _SQRT1_2)
    for i in range(x.size):
        out[i] = x[i] * half * (one + fmath.erf(x[i] * alpha))
    return out


@njit(cache=True, error_model="numpy")     # a division's check for zero would not vectorise
def silu_forward(x):
    """torch's SiLU of a flat array, x / (1 + exp(-x)), in x's dtype (exp(-x) overflows to inf
    for large negative x, giving -0.0, as torch)."""
    out = np.empty_like(x)
    one = rounded_like(x, 1.0)
    for i in range(x.size):
        out[i] = x[i] / (one + fmath.exp(-x[i]))
    return out


@njit(cache=True, error_model="numpy")
def softmax_forward(x, log):
    """softmax (log_softmax when `log`) of a C-contiguous (outer, n, inner) array along its middle
    axis, in x's dtype: exp(x - max), its sum in float64 rounded once, then a division (softmax)
    or x - max - log(sum) (log_softmax). Each step is one pass over contiguous rows that vectorises
    (Note [float32 exp and erf] in formula.py). A NaN makes its row's sum NaN, and so the whole
    row, whatever the max made of it, as in torch."""
    outer, n, inner = x.shape
    out = np.empty_like(x)
    if inner == 1:              # along the last dim: each row on its own
        rows, out_rows = x.reshape((outer, n)), out.reshape((outer, n))
        for o in range(outer):
            _softmax_row(rows[o], out_rows[o], log)
        return out
    tops = np.empty(inner, x.dtype)
    sums = np.empty(inner, np.float64)
    scales = np.empty(inner, x.dtype)
    for o in range(outer):
        tops[:] = -np.inf
        for k in range(n):
            _running_max(tops, x[o, k])
        sums[:] = 0.0
        for k in range(n):
            x_row, out_row = x[o, k], out[o, k]
            for i in range(inner):
                out_row[i] = fmath.exp(x_row[i] - tops[i])
            _add_values(sums, out_row)
        for i in range(inner):
            scales[i] = np.log(sums[i]) if log else sums[i]
        for k in range(n):
            x_row, out_row = x[o, k], out[o, k]
            if log:
                for i in range(inner):
                    out_row[i] = x_row[i] - tops[i] - scales[i]
            else:
                for i in range(inner):
                    out_row[i] = out_row[i] / scales[i]
    return out


@njit(error_model="numpy")
def _softmax_row(row, out_row, log):
    top, total = _exp_minus_max(row, out_row)
    if log:
        lse = rounded_like(row, np.log(total))
        for i in range(row.size):
            out_row[i] = row[i] - top - lse
    else:
        scale = rounded_like(row, total)
        for i in range(row.size):
            out_row[i] = out_row[i] / scale


@njit
def _running_max(tops, row):
    """tops = max(tops, row), elementwise."""
    for i in range(row.size):
        tops[i] = max(tops[i], row[i])


@njit(cache=True, fastmath={"reassoc"})
def batch_norm_forward(x, weight, bias, eps):
    """A training batch norm of x (outer, channels, inner), C-contiguous, in three passes per
    channel: the mean and the biased variance (summed in float64), then out = x alpha + beta with
    alpha = w / sqrt(var + eps) and beta = b - mean alpha, as torch's CPU kernel writes it.
    Returns (out, mean, var)."""
    outer, channels, inner = x.shape
    count = outer * inner
    out = np.empty_like(x)
    mean = np.empty(channels, x.dtype)
    var = np.empty(channels, x.dtype)
    terms = np.empty(2, x.dtype)
    for c in range(channels):
        total = 0.0
        for o in range(outer):
            x_row = x[o, c]                     # Note [channel loops]
            for s in range(inner):
                total += x_row[s]
        mean[c] = total / count
        centre = mean[c]
        squares = 0.0
        for o in range(outer):
            x_row = x[o, c]
            for s in range(inner):
                d = x_row[s] - centre
                squares += d * d
        var[c] = squares / count
        invstd = 1.0 / np.sqrt(squares / count + eps)
        terms[0] = invstd                       # invstd, alpha and beta in x's dtype
        terms[0] = weight[c] * terms[0]
        terms[1] = bias[c] - centre * terms[0]
        alpha, beta = terms[0], terms[1]
        for o in range(outer):
            x_row, out_row = x[o, c], out[o, c]
            for s in range(inner):
                out_row[s] = x_row[s] * alpha + beta
    return out, mean, var


@njit(cache=True)
def layer_norm_forward(x, weight, bias, eps):
    """A layer norm of x's rows (rows, inner), C-contiguous: (out, mean, rstd) with out = (x -
    mean) rstd w + b, each row's mean and rstd = 1 / sqrt(var + eps) in x's dtype (Note [layer
    norm's rows] in ops/nn_ops.py)."""
    rows, inner = x.shape
    out = np.empty_like(x)
    means = np.empty(rows, x.dtype)
    rstds = np.empty(rows, x.dtype)
    for r in range(rows):
        x_row, out_row = x[r], out[r]
        mean, var = _row_moments(x_row)
        rstd = rounded_like(x, 1.0 / np.sqrt(var + eps))
        means[r], rstds[r] = mean, rstd
        for j in range(inner):
            out_row[j] = (x_row[j] - mean) * rstd * weight[j] + bias[j]
    return out, means, rstds


@njit(cache=True)
def group_norm_forward(x, weight, bias, groups, eps):
    """A group norm of x (N, channels, inner), C-contiguous, with `groups` groups of channels:
    (out, mean, rstd), the statistics (N, groups) in x's dtype (Note [group norm's groups] in
    ops/nn_ops.py). Each channel is scaled and shifted as torch's kernel does it: out = x scale +
    shift with scale = rstd w and shift = b - scale mean."""
    n, channels, inner = x.shape
    per = channels // groups
    rows = x.reshape((n, groups, per * inner))
    out = np.empty_like(x)
    means = np.empty((n, groups), x.dtype)
    rstds = np.empty((n, groups), x.dtype)
    for i in range(n):
        for k in range(groups):
            mean, var = _row_moments(rows[i, k])
            rstd = rounded_like(x, 1.0 / np.sqrt(var + eps))
            means[i, k], rstds[i, k] = mean, rstd
            for c in range(k * per, (k + 1) * per):
                scale = rounded_like(x, rstd * weight[c])
                shift = rounded_like(x, bias[c] - scale * mean)
                x_row, out_row = x[i, c], out[i, c]
                for s in range(inner):
                    out_row[s] = x_row[s] * scale + shift
    return out, means, rstds


@njit(cache=True)
def cross_entropy_rows(x, target, weight, ignore):
    """Row losses -sum_c a[i, c] log_softmax(x)[i, c] (Note [cross entropy coefficients]);
    x is (M, C) C-contiguous. 0 for ignored rows."""
    rows, classes = x.shape
    out = np.empty(rows, x.dtype)
    shifted_exp = np.empty(classes, x.dtype)
    for i in range(rows):
        t = target[i]
        if t == ignore:
            out[i] = 0.0
            continue
        x_row = x[i]
        top, s = _exp_minus_max(x_row, shifted_exp)
        lse = top + np.log(s)
        out[i] = weight[t] * (lse - x_row[t])
    return out


@njit(cache=True)
def class_weight_total(target, weight, ignore):
    """(sum of weight[t] over the rows not ignored, the first out-of-range target or ignore)."""
    classes = weight.shape[0]
    total = 0.0
    for t in target:
        if t == ignore:
            continue
        if t < 0 or t >= classes:
            return total, t
        total += weight[t]
    return total, ignore


@njit(cache=True)
def im2col_forward(x, geometry):
    """The columns of a C-contiguous image batch x, shaped by the layout in geometry
    (see _window_pairs)."""
    n, c, oh, ow, kh, kw = geometry[0], geometry[1], geometry[4], geometry[5], geometry[6], geometry[7]
    if geometry[14] == 0:
        cols = np.empty((n, oh, ow, c, kh, kw), x.dtype)
    else:
        cols = np.empty((n, c, oh, ow, kh, kw), x.dtype)
    _window_pairs(_padded(x, geometry), cols.reshape(-1), geometry, True, False)
    return cols


@njit(cache=True)
def conv_columns(x, geometry):
    """The columns (N, C*kh*kw, oh*ow) of a C-contiguous image batch x (Note [conv columns])."""
    n_img = x.shape[0]
    taps = geometry[1] * geometry[6] * geometry[7]
    cols = np.empty((n_img, taps, geometry[4] * geometry[5]), x.dtype)
    images = x.reshape((n_img, -1))
    for n in range(n_img):
        _conv_columns_of(images[n], geometry, cols[n].reshape(-1), True)
    return cols


@njit(cache=True)
def max_pool_positions(x, geometry):
    """For each pooling window (layout 1 geometry; padding never wins), the flat position in x
    of its first maximal element (NaN counts as maximal, as in torch), shaped (N, C, oh, ow).
    A row of windows is scanned tap by tap with a branch-free update (a window's own loop of
    2 x 2 taps mispredicts a branch per tap)."""
    n_img, channels, height, width = geometry[0], geometry[1], geometry[2], geometry[3]
    oh, ow, kh, kw = geometry[4], geometry[5], geometry[6], geometry[7]
    sh, sw, ph, pw, dh, dw = (geometry[8], geometry[9], geometry[10], geometry[11], geometry[12],
                              geometry[13])
    flat = x.reshape(-1)
    out = np.full(n_img * channels * oh * ow, -1, np.int64)
    top = np.empty(ow, x.dtype)
    k = 0
    for plane in range(0, n_img * channels * height * width, height * width):
        for oy in range(oh):
            for ky in range(kh):
                iy = oy * sh - ph + ky * dh
                if iy < 0 or iy >= height:
                    continue
                row = plane + iy * width
                for kx in range(kw):
                    for ox in range(ow):
                        ix = ox * sw - pw + kx * dw
                        if ix < 0 or ix >= width:
                            continue
                        v = flat[row + ix]
                        t = top[ox]
                        better = (out[k + ox] < 0) | (v > t) | ((v != v) & (t == t))
                        out[k + ox] = row + ix if better else out[k + ox]
                        top[ox] = v if better else t
            k += ow
    return out.reshape((n_img, channels, oh, ow))


@njit(cache=True)
def col2im_forward(cols, geometry):
    """The adjoint of im2col_forward: the image batch with every column entry added back."""
    image = np.empty((geometry[0], geometry[1], geometry[2], geometry[3]), cols.dtype)
    _col2im_into(image, cols.reshape(-1), geometry, False)
    return image
