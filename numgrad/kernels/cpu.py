"""Hand-written CPU backward kernels for the ops that are not elementwise.

Each takes the address of an argument block (see abi.py) and the dtype; `table.py` wraps them into
one C function per (op, dtype). The CUDA twins in cuda.py have the same names.
"""
import numpy as np
from numba import njit

from .abi import (ADD, args_block, broadcast_index, fmeta, gin, gout, meta, mode, numel_at, saved,
                  shape_pos, view)


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
    """reshape, view, flatten, squeeze, unsqueeze, contiguous, clone: the same elements in order."""
    a = args_block(addr)
    m = meta(a)
    n = numel_at(m, 0)
    if gin(a, 0) != 0:
        _store(view(gin(a, 0), n, dt), view(gout(a, 0), n, dt), mode(a, 0))


@njit
def cast_bwd(addr, dt):
    """The gradient of a float32 <-> float64 conversion, converted back."""
    a = args_block(addr)
    m = meta(a)
    n = numel_at(m, 0)
    g = view(gout(a, 0), n, dt)
    if gin(a, 0) != 0:
        if dt == np.float64:
            _store(view(gin(a, 0), n, np.float32), g, mode(a, 0))
        else:
            _store(view(gin(a, 0), n, np.float64), g, mode(a, 0))


@njit
def reduce_bwd(addr, dt):
    """sum and mean: every input element gets the gradient of the output it was reduced into,
    times a scale (1 or 1/count). meta attrs: the output shape with kept dims (ndim, dims...)."""
    a = args_block(addr)
    m = meta(a)
    n = numel_at(m, 0)
    n_out = numel_at(m, shape_pos(m, 1))
    scale = fmeta(a, 1)[0]
    g = view(gout(a, 0), n_out, dt)
    if gin(a, 0) == 0:
        return
    gx = view(gin(a, 0), n, dt)
    add = mode(a, 0) == ADD
    if n_out == 1:
        v = g[0] * scale
        for i in range(n):
            gx[i] = gx[i] + v if add else v
        return
    index = broadcast_index(m, shape_pos(m, 2), 0)
    for i in range(n):
        v = g[index[i]] * scale
        gx[i] = gx[i] + v if add else v


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
    index = broadcast_index(m, 0, p_out)
    for i in range(n):
        gx[index[i]] += g[i]


@njit
def permute_bwd(addr, dt):
    """permute / transpose: output dim d is input dim perm[d]. meta attrs: perm."""
    a = args_block(addr)
    m = meta(a)
    nd = m[0]
    n = numel_at(m, 0)
    if gin(a, 0) == 0:
        return
    p_out = shape_pos(m, 1)
    p_attr = shape_pos(m, 2)
    g = view(gout(a, 0), n, dt)
    gx = view(gin(a, 0), n, dt)
    in_strides = np.empty(nd, np.int64)
    stride = 1
    for d in range(nd - 1, -1, -1):
        in_strides[d] = stride
        stride *= m[1 + d]
    strides = np.empty(nd, np.int64)
    for d in range(nd):
        strides[d] = in_strides[m[p_attr + d]]
    add = mode(a, 0) == ADD
    counter = np.zeros(nd, np.int64)
    offset = 0
    for i in range(n):
        gx[offset] = gx[offset] + g[i] if add else g[i]
        d = nd - 1
        while d >= 0:
            counter[d] += 1
            offset += strides[d]
            if counter[d] < m[p_out + 1 + d]:
                break
            offset -= strides[d] * counter[d]
            counter[d] = 0
            d -= 1


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
    counter = np.zeros(nd, np.int64)
    offset = m[p_attr]
    for i in range(n):
        gx[offset] += g[i]
        d = nd - 1
        while d >= 0:
            counter[d] += 1
            offset += m[p_attr + 1 + d]
            if counter[d] < m[p_out + 1 + d]:
                break
            offset -= m[p_attr + 1 + d] * counter[d]
            counter[d] = 0
            d -= 1


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
            add = mode(a, k) == ADD
            for o in range(outer):
                for i in range(w):
                    v = g[o * width + start + i]
                    gx[o * w + i] = gx[o * w + i] + v if add else v
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
    x = view(saved(a, 0), batch * rows * inner, dt).reshape((batch, rows, inner))
    y = view(saved(a, 1), batch * inner * cols, dt).reshape((batch, inner, cols))
    g = view(gout(a, 0), batch * rows * cols, dt).reshape((batch, rows, cols))
    if gin(a, 0) != 0:
        gx = view(gin(a, 0), batch * rows * inner, dt).reshape((batch, rows, inner))
        for b in range(batch):
            if mode(a, 0) == ADD:
                gx[b] += np.dot(g[b], y[b].T)
            else:
                np.dot(g[b], np.ascontiguousarray(y[b].T), gx[b])
    if gin(a, 1) != 0:
        gy = view(gin(a, 1), batch * inner * cols, dt).reshape((batch, inner, cols))
        for b in range(batch):
            if mode(a, 1) == ADD:
                gy[b] += np.dot(x[b].T, g[b])
            else:
                np.dot(np.ascontiguousarray(x[b].T), g[b], gy[b])


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
