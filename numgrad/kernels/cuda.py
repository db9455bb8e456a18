"""numba.cuda twins of the CPU backward kernels in cpu.py, with the same names, and the calling
convention they share (abi.py's twin).

Each kernel runs a batch of nodes of one op and dtype (numgrad/cuda/engine.py launches one batch per
dependency level and op kind): `kernel[grid, BLOCK](args, starts, first, count, w)`. Node j of the
batch finds its argument block, laid out exactly as abi.py describes, at `args[starts[first + j]]`;
block row `blockIdx.y` strides over the nodes, `blockIdx.x` over the node's work. `w` is a one-element
array of the node's float dtype: it types the raw addresses in the block, as `dt` does on the CPU.

Note [zeroed buffers]
Every gradient buffer starts zeroed, and a node's contribution to an input buffer comes with a
mode chosen by the engine: WRITE (the only contribution so far and in its level), ADD (alone in its
level, after earlier ones) or ATOMIC (it races with others of its level, as x*x's two edges do).
Kernels whose own threads meet in one element (broadcast sums, scatter-adds) always add atomically;
zeroed buffers make that right for WRITE too. Nothing here ever clears a buffer.
"""
import ctypes
import math

import numpy as np
from numba import config, cuda

from .abi import ADD, HEADER, WRITE

SIM = bool(config.ENABLE_CUDASIM)
ATOMIC = 2
# Threads per block, and the matmul tile (TILE * TILE == BLOCK). The simulator runs each thread as a
# Python thread (~60 us each, ~30 ms per block that syncs), so it gets small blocks and grids.
BLOCK = 16 if SIM else 256
TILE = 4 if SIM else 16
MAX_GRID_X = 2 if SIM else 65535
MAX_GRID_Y = 2 if SIM else 65535

_device = cuda.jit(device=True, inline="always")


def _inline(fn):
    """A helper that returns an array view: CUDA device functions may only return arrays they were
    given, so on the GPU it is inlined into its caller (an overload); the simulator calls it."""
    if SIM:
        return fn
    from numba.cuda.extending import overload

    def stub(*args):
        raise NotImplementedError(f"{fn.__name__} runs inside CUDA kernels only")
    stub.__name__ = fn.__name__
    overload(stub, target="cuda", inline="always", strict=False)(lambda *types: fn)
    return stub


# ==== the calling convention on the device =========================================================
if SIM:
    def view(addr, n, dtype):
        """n elements of dtype at a raw address. Simulated device memory is host memory."""
        dtype = np.dtype(dtype)
        if addr == 0 or n <= 0:
            return np.zeros(0, dtype)
        return np.frombuffer((ctypes.c_char * (int(n) * dtype.itemsize)).from_address(int(addr)),
                             dtype)

    def other_float(dt):
        return np.float32 if np.dtype(dt) == np.float64 else np.float64
else:
    from llvmlite import ir
    from numba.cuda import types
    from numba.cuda.extending import intrinsic, overload
    from numba.cuda.np.numpy_support import carray

    @intrinsic
    def _voidptr(typingctx, addr):
        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], ir.IntType(8).as_pointer())
        return types.voidptr(types.int64), codegen

    @_inline
    def view(addr, n, dtype):
        return carray(_voidptr(addr), n, dtype)

    def other_float(dt):
        """float32 for float64 and back, picked while typing (cpu.other_float's twin)."""

    @overload(other_float, target="cuda")
    def _other_float(dt):
        if getattr(dt, "dtype", dt) == types.float64:
            return lambda dt: np.float32
        return lambda dt: np.float64


@_inline
def node_args(args, starts, first, j):
    return args[starts[first + j]:]


@_inline
def meta(a):
    return view(a[3], a[4], np.int64)


@_inline
def fmeta(a, n):
    return view(a[5], n, np.float64)


@_device
def gout(a, j):
    return a[HEADER + j]


@_device
def gin(a, k):
    return a[HEADER + a[0] + k]


@_device
def mode(a, k):
    return a[HEADER + a[0] + a[1] + k]


@_device
def saved(a, s):
    return a[HEADER + a[0] + 2 * a[1] + s]


@cuda.jit(device=True)
def put(buf, i, v, how):
    """Deliver v into buf[i] as the mode says (Note [zeroed buffers])."""
    if how == WRITE:
        buf[i] = v
    elif how == ADD:
        buf[i] += v
    else:
        cuda.atomic.add(buf, i, v)


@_device
def shape_pos(m, k):
    pos = 0
    for _ in range(k):
        pos += 1 + m[pos]
    return pos


@_device
def numel_at(m, pos):
    n = 1
    for d in range(m[pos]):
        n *= m[pos + 1 + d]
    return n


@_device
def same_shape(m, p, q):
    if m[p] != m[q]:
        return False
    for d in range(m[p]):
        if m[p + 1 + d] != m[q + 1 + d]:
            return False
    return True


@_device
def bcast_offset(m, pin, pout, i):
    """The flat index of the input element that broadcasting maps to output element i (one
    element of abi.broadcast_index): shapes align from the right, size-1 dims repeat."""
    nd_out, nd_in = m[pout], m[pin]
    offset = 0
    stride = 1
    for d in range(nd_out - 1, -1, -1):
        size = m[pout + 1 + d]
        c = i % size
        i //= size
        di = d - (nd_out - nd_in)
        if di >= 0:
            in_size = m[pin + 1 + di]
            if in_size != 1:
                offset += c * stride
            stride *= in_size
    return offset


@_device
def group_member(m, pin, pk, k, r):
    """Member r of group k of a reduction: the input (shape at pin) reduced to the kept shape at
    pk (same ndim, reduced dims 1). Group k is an element of the kept shape, in C order."""
    offset = 0
    stride = 1
    for d in range(m[pin] - 1, -1, -1):
        size = m[pin + 1 + d]
        if m[pk + 1 + d] == 1 and size != 1:
            c = r % size
            r //= size
        else:
            c = k % size
            k //= size
        offset += c * stride
        stride *= size
    return offset


@_device
def first_thread():
    return cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x


@_device
def thread_step():
    return cuda.gridDim.x * cuda.blockDim.x


# Block-wide reductions through a shared float64 array of BLOCK entries. Every thread of the block
# must call them (they sync), so they sit behind block-uniform conditions only.
@cuda.jit(device=True)
def block_sum(sh, v):
    t = cuda.threadIdx.x
    sh[t] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    total = sh[0]
    cuda.syncthreads()          # sh is free again for the next call
    return total


@cuda.jit(device=True)
def block_prod(sh, v):
    t = cuda.threadIdx.x
    sh[t] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            sh[t] *= sh[t + s]
        cuda.syncthreads()
        s //= 2
    total = sh[0]
    cuda.syncthreads()
    return total


@cuda.jit(device=True)
def block_max(sh, v):
    """The largest v of the block; a NaN wins, as in np.max."""
    t = cuda.threadIdx.x
    sh[t] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if t < s:
            other = sh[t + s]
            if other > sh[t] or other != other:
                sh[t] = other
        cuda.syncthreads()
        s //= 2
    total = sh[0]
    cuda.syncthreads()
    return total


@cuda.jit(device=True)
def tile_matmul(tile, tiles_c, A, ao, ars, acs, B, bo, brs, bcs, C, co, rows, inner, cols, how,
                sa, sb):
    """One TILE x TILE tile of C (rows x cols, contiguous from co) = A @ B through shared memory.
    A(i, k) is A[ao + i*ars + k*acs], B(k, j) is B[bo + k*brs + j*bcs]: transposes are strides."""
    tx = cuda.threadIdx.x % TILE
    ty = cuda.threadIdx.x // TILE
    i = (tile // tiles_c) * TILE + ty
    j = (tile % tiles_c) * TILE + tx
    acc = 0.0
    for k0 in range(0, inner, TILE):
        sa[ty, tx] = A[ao + i * ars + (k0 + tx) * acs] if i < rows and k0 + tx < inner else 0
        sb[ty, tx] = B[bo + (k0 + ty) * brs + j * bcs] if k0 + ty < inner and j < cols else 0
        cuda.syncthreads()
        for kk in range(TILE):
            acc += sa[ty, kk] * sb[kk, tx]
        cuda.syncthreads()
    if i < rows and j < cols:
        put(C, co + i * cols + j, acc, how)


@_device
def tiles(n):
    return (n + TILE - 1) // TILE


# ==== the kernels, in cpu.py's order ===============================================================

@cuda.jit(cache=True)
def copy_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        n = numel_at(m, 0)
        g = view(gout(a, 0), n, w.dtype)
        gx = view(gin(a, 0), n, w.dtype)
        how = mode(a, 0)
        for i in range(first_thread(), n, thread_step()):
            put(gx, i, g[i], how)


@cuda.jit(cache=True)
def cast_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        n = numel_at(m, 0)
        g = view(gout(a, 0), n, w.dtype)
        gx = view(gin(a, 0), n, other_float(w.dtype))
        how = mode(a, 0)
        for i in range(first_thread(), n, thread_step()):
            put(gx, i, g[i], how)


@cuda.jit(cache=True)
def reduce_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        n = numel_at(m, 0)
        g = view(gout(a, 0), numel_at(m, shape_pos(m, 1)), w.dtype)
        gx = view(gin(a, 0), n, w.dtype)
        divisor = fmeta(a, 1)[0]
        pk = shape_pos(m, 2)
        how = mode(a, 0)
        for i in range(first_thread(), n, thread_step()):
            put(gx, i, g[bcast_offset(m, pk, 0, i)] / divisor, how)


@cuda.jit(cache=True)
def expand_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        p_out = shape_pos(m, 1)
        n = numel_at(m, p_out)
        g = view(gout(a, 0), n, w.dtype)
        gx = view(gin(a, 0), numel_at(m, 0), w.dtype)
        for i in range(first_thread(), n, thread_step()):
            cuda.atomic.add(gx, bcast_offset(m, 0, p_out, i), g[i])


@cuda.jit(cache=True)
def permute_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        nd = m[0]
        n = numel_at(m, 0)
        p_out = shape_pos(m, 1)
        p_attr = shape_pos(m, 2)
        g = view(gout(a, 0), n, w.dtype)
        gx = view(gin(a, 0), n, w.dtype)
        how = mode(a, 0)
        for i in range(first_thread(), n, thread_step()):
            rest = i
            offset = 0
            for d in range(nd - 1, -1, -1):
                size = m[p_out + 1 + d]
                c = rest % size
                rest //= size
                stride = 1                      # input stride of dim perm[d]
                for q in range(m[p_attr + d] + 1, nd):
                    stride *= m[1 + q]
                offset += c * stride
            put(gx, offset, g[i], how)


@_device
def _affine_offset(m, pshape, pattr, i):
    """Position of element i (C order over the shape at pshape) under the affine map at pattr:
    offset, then one stride per dim (strided views, flip, pad)."""
    nd = m[pshape]
    offset = m[pattr]
    for d in range(nd - 1, -1, -1):
        size = m[pshape + 1 + d]
        offset += (i % size) * m[pattr + 1 + d]
        i //= size
    return offset


@cuda.jit(cache=True)
def strided_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        p_out = shape_pos(m, 1)
        n = numel_at(m, p_out)
        p_attr = shape_pos(m, 2)
        g = view(gout(a, 0), n, w.dtype)
        gx = view(gin(a, 0), numel_at(m, 0), w.dtype)
        how = mode(a, 0)
        for i in range(first_thread(), n, thread_step()):
            put(gx, _affine_offset(m, p_out, p_attr, i), g[i], how)    # a view: one writer each


@cuda.jit(cache=True)
def stack_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        m = meta(a)
        k_in = a[1]
        p = shape_pos(m, k_in + 1)
        outer, width = m[p], m[p + 1]
        g = view(gout(a, 0), outer * width, w.dtype)
        for e in range(first_thread(), outer * width, thread_step()):
            o = e // width
            c = e % width
            start = 0
            for k in range(k_in):
                wk = m[p + 2 + k]
                if start <= c < start + wk:
                    if gin(a, k) != 0:
                        put(view(gin(a, k), outer * wk, w.dtype), o * wk + c - start, g[e],
                            mode(a, k))
                    break
                start += wk


@cuda.jit(cache=True)
def matmul_bwd(args, starts, first, count, w):
    """(B, m, k) @ (B, k, n): gx = g y^T, gy = x^T g, tile by tile."""
    sa = cuda.shared.array((TILE, TILE), w.dtype)
    sb = cuda.shared.array((TILE, TILE), w.dtype)
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        md = meta(a)
        py = shape_pos(md, 1)
        nd = md[0]
        batch = md[1] if nd == 3 else 1
        rows, inner, cols = md[nd - 1], md[nd], md[py + nd]
        x = view(saved(a, 0), batch * rows * inner, w.dtype)
        y = view(saved(a, 1), batch * inner * cols, w.dtype)
        g = view(gout(a, 0), batch * rows * cols, w.dtype)
        gx = view(gin(a, 0), batch * rows * inner, w.dtype)
        gy = view(gin(a, 1), batch * inner * cols, w.dtype)
        n_gx = tiles(rows) * tiles(inner) if gin(a, 0) != 0 else 0
        n_gy = tiles(inner) * tiles(cols) if gin(a, 1) != 0 else 0
        for t in range(cuda.blockIdx.x, batch * (n_gx + n_gy), cuda.gridDim.x):
            b = t // (n_gx + n_gy)
            u = t % (n_gx + n_gy)
            if u < n_gx:
                tile_matmul(u, tiles(inner), g, b * rows * cols, cols, 1,
                            y, b * inner * cols, 1, cols, gx, b * rows * inner,
                            rows, cols, inner, mode(a, 0), sa, sb)
            else:
                tile_matmul(u - n_gx, tiles(cols), x, b * rows * inner, 1, inner,
                            g, b * rows * cols, cols, 1, gy, b * inner * cols,
                            inner, rows, cols, mode(a, 1), sa, sb)


@cuda.jit(cache=True)
def strided_gather_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        n = numel_at(m, 0)
        p_out = shape_pos(m, 1)
        p_attr = shape_pos(m, 2)
        g = view(gout(a, 0), numel_at(m, p_out), w.dtype)
        gx = view(gin(a, 0), n, w.dtype)
        how = mode(a, 0)
        for i in range(first_thread(), n, thread_step()):
            put(gx, i, g[_affine_offset(m, 0, p_attr, i)], how)


@cuda.jit(cache=True)
def take_bwd(args, starts, first, count, w):
    """Scatter-add g back: duplicate positions meet, so always atomically."""
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        n = numel_at(m, shape_pos(m, 1))
        positions = view(saved(a, 0), n, np.int64)
        g = view(gout(a, 0), n, w.dtype)
        gx = view(gin(a, 0), numel_at(m, 0), w.dtype)
        for i in range(first_thread(), n, thread_step()):
            cuda.atomic.add(gx, positions[i], g[i])


@cuda.jit(cache=True)
def take_rows_bwd(args, starts, first, count, w):
    """Each picked row's gradient added into its row, atomically (rows may repeat)."""
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        n_rows = numel_at(m, shape_pos(m, 1))
        n = numel_at(m, shape_pos(m, 2))
        if n == 0:
            continue
        width = n // n_rows
        rows = view(saved(a, 0), n_rows, np.int64)
        g = view(gout(a, 0), n, w.dtype)
        gx = view(gin(a, 0), numel_at(m, 0), w.dtype)
        for i in range(first_thread(), n, thread_step()):
            r = i // width
            cuda.atomic.add(gx, rows[r] * width + i - r * width, g[i])


@cuda.jit(cache=True)
def put_add_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        n = numel_at(m, 0)
        positions = view(saved(a, 0), n, np.int64)
        g = view(gout(a, 0), numel_at(m, shape_pos(m, 2)), w.dtype)
        gx = view(gin(a, 0), n, w.dtype)
        how = mode(a, 0)
        for i in range(first_thread(), n, thread_step()):
            put(gx, i, g[positions[i]], how)


# ==== reductions that keep a group per output ========================================================
# One block per group (block x strides over groups): the block first reduces what the group's
# gradient needs (zeros, ties, the mean) in shared memory, then writes each member.

@cuda.jit(cache=True)
def prod_bwd(args, starts, first, count, w):
    sh = cuda.shared.array(BLOCK, np.float64)
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        n = numel_at(m, 0)
        n_out = numel_at(m, shape_pos(m, 1))
        pk = shape_pos(m, 2)
        x = view(saved(a, 0), n, w.dtype)
        out = view(saved(a, 1), n_out, w.dtype)
        g = view(gout(a, 0), n_out, w.dtype)
        gx = view(gin(a, 0), n, w.dtype)
        how = mode(a, 0)
        size = n // n_out if n_out else 0
        for k in range(cuda.blockIdx.x, n_out, cuda.gridDim.x):
            zeros = 0.0
            others = 1.0
            for r in range(cuda.threadIdx.x, size, cuda.blockDim.x):
                v = x[group_member(m, 0, pk, k, r)]
                if v == 0:
                    zeros += 1.0
                else:
                    others *= v
            zeros = block_sum(sh, zeros)
            others = block_prod(sh, others)
            for r in range(cuda.threadIdx.x, size, cuda.blockDim.x):
                i = group_member(m, 0, pk, k, r)
                v = g[k] * 0
                if zeros == 0:
                    v = g[k] * out[k] / x[i]
                elif zeros == 1 and x[i] == 0:
                    v = g[k] * others
                put(gx, i, v, how)


@cuda.jit(cache=True)
def amax_bwd(args, starts, first, count, w):
    _share_among_ties(args, starts, first, count, w, False)


@cuda.jit(cache=True)
def max_all_bwd(args, starts, first, count, w):
    _share_among_ties(args, starts, first, count, w, True)


@cuda.jit(device=True)
def _ties(value, result, nans_tie):
    return value == result or (nans_tie and value != value and result != result)


@cuda.jit(device=True)
def _share_among_ties(args, starts, first, count, w, nans_tie):
    """kernels/cpu.py's: (g / count) * tie, NaN throughout a group where nothing ties; with
    nans_tie a NaN result is shared among the NaNs."""
    sh = cuda.shared.array(BLOCK, np.float64)
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        n = numel_at(m, 0)
        n_out = numel_at(m, shape_pos(m, 1))
        pk = shape_pos(m, 2)
        x = view(saved(a, 0), n, w.dtype)
        out = view(saved(a, 1), n_out, w.dtype)
        g = view(gout(a, 0), n_out, w.dtype)
        gx = view(gin(a, 0), n, w.dtype)
        how = mode(a, 0)
        size = n // n_out if n_out else 0
        for k in range(cuda.blockIdx.x, n_out, cuda.gridDim.x):
            ties = 0.0
            for r in range(cuda.threadIdx.x, size, cuda.blockDim.x):
                if _ties(x[group_member(m, 0, pk, k, r)], out[k], nans_tie):
                    ties += 1.0
            ties = block_sum(sh, ties)
            for r in range(cuda.threadIdx.x, size, cuda.blockDim.x):
                i = group_member(m, 0, pk, k, r)
                if _ties(x[i], out[k], nans_tie):
                    put(gx, i, g[k] / ties, how)
                else:   # as kernels/cpu.py's: 0 for nans_tie even where g is NaN
                    put(gx, i, 0.0 if nans_tie else g[k] / ties * 0.0, how)


@cuda.jit(device=True)
def _var_input_grad(a, m, w, gvar_k, k, sh):
    """Group k's members get scale * gvar_k * (x - mean); fmeta[0] = 2 / (N - correction)."""
    n = numel_at(m, 0)
    n_out = numel_at(m, shape_pos(m, 1))
    pk = shape_pos(m, 2)
    x = view(saved(a, 0), n, w.dtype)
    gx = view(gin(a, 0), n, w.dtype)
    scale = fmeta(a, 1)[0]
    size = n // n_out
    total = 0.0
    for r in range(cuda.threadIdx.x, size, cuda.blockDim.x):
        total += x[group_member(m, 0, pk, k, r)]
    mean = block_sum(sh, total) / size
    for r in range(cuda.threadIdx.x, size, cuda.blockDim.x):
        i = group_member(m, 0, pk, k, r)
        put(gx, i, scale * gvar_k * (x[i] - mean), mode(a, 0))


@cuda.jit(cache=True)
def var_bwd(args, starts, first, count, w):
    sh = cuda.shared.array(BLOCK, np.float64)
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        n_out = numel_at(m, shape_pos(m, 1))
        g = view(gout(a, 0), n_out, w.dtype)
        for k in range(cuda.blockIdx.x, n_out, cuda.gridDim.x):
            _var_input_grad(a, m, w, g[k], k, sh)


@cuda.jit(cache=True)
def std_bwd(args, starts, first, count, w):
    sh = cuda.shared.array(BLOCK, np.float64)
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        n_out = numel_at(m, shape_pos(m, 1))
        g = view(gout(a, 0), n_out, w.dtype)
        out = view(saved(a, 1), n_out, w.dtype)
        for k in range(cuda.blockIdx.x, n_out, cuda.gridDim.x):
            gvar = g[k] / (2 * out[k]) if out[k] != 0 else g[k] * 0
            _var_input_grad(a, m, w, gvar, k, sh)


@cuda.jit(cache=True)
def logsumexp_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        n = numel_at(m, 0)
        n_out = numel_at(m, shape_pos(m, 1))
        pk = shape_pos(m, 2)
        x = view(saved(a, 0), n, w.dtype)
        out = view(saved(a, 1), n_out, w.dtype)
        g = view(gout(a, 0), n_out, w.dtype)
        gx = view(gin(a, 0), n, w.dtype)
        how = mode(a, 0)
        for i in range(first_thread(), n, thread_step()):
            k = bcast_offset(m, pk, 0, i)
            put(gx, i, g[k] * _exp(x[i] - out[k]), how)


@_device
def _sign(v):
    return 1.0 if v > 0 else (-1.0 if v < 0 else 0.0)


_exp = np.exp if SIM else math.exp      # math.exp raises OverflowError where a GPU returns inf


@cuda.jit(cache=True)
def norm_bwd(args, starts, first, count, w):
    sh = cuda.shared.array(BLOCK, np.float64)
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        n = numel_at(m, 0)
        n_out = numel_at(m, shape_pos(m, 1))
        pk = shape_pos(m, 2)
        x = view(saved(a, 0), n, w.dtype)
        out = view(saved(a, 1), n_out, w.dtype)
        g = view(gout(a, 0), n_out, w.dtype)
        gx = view(gin(a, 0), n, w.dtype)
        how = mode(a, 0)
        p = fmeta(a, 1)[0]
        size = n // n_out if n_out else 0
        for k in range(cuda.blockIdx.x, n_out, cuda.gridDim.x):
            ties = 1.0
            if math.isinf(p):
                ties = 0.0
                for r in range(cuda.threadIdx.x, size, cuda.blockDim.x):
                    xr = x[group_member(m, 0, pk, k, r)]
                    if abs(xr) == out[k] or xr != xr:     # a NaN is a tie, as in torch
                        ties += 1.0
                ties = block_sum(sh, ties)
            for r in range(cuda.threadIdx.x, size, cuda.blockDim.x):
                i = group_member(m, 0, pk, k, r)      # torch's cases, as the CPU kernel's
                if math.isinf(p):
                    hit = 1.0 if abs(x[i]) == out[k] or x[i] != x[i] else 0.0
                    v = _sign(x[i]) * (g[k] / ties * hit)
                elif p == 0:
                    v = 0.0
                elif p == 1:
                    v = _sign(x[i]) * g[k]
                elif p == 2:
                    v = g[k] * (0.0 if out[k] == 0 else x[i] / out[k])
                elif p < 1:
                    v = (_sign(x[i]) * (0.0 if x[i] == 0 else abs(x[i]) ** (p - 1)) * g[k]
                         * out[k] ** (1 - p))
                else:
                    scale = 0.0 if out[k] == 0 else g[k] / out[k] ** (p - 1)
                    v = scale * (_sign(x[i]) * abs(x[i]) ** (p - 1) if p < 2
                                 else x[i] * abs(x[i]) ** (p - 2))
                put(gx, i, v, how)


# ==== along one dim: one thread per line (outer, n, inner) ===========================================

@cuda.jit(cache=True)
def cumsum_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        p = shape_pos(m, 2)
        outer, n, inner = m[p], m[p + 1], m[p + 2]
        g = view(gout(a, 0), outer * n * inner, w.dtype)
        gx = view(gin(a, 0), outer * n * inner, w.dtype)
        how = mode(a, 0)
        for line in range(first_thread(), outer * inner, thread_step()):
            base = (line // inner) * n * inner + line % inner
            acc = 0.0
            for jj in range(n - 1, -1, -1):
                q = base + jj * inner
                acc += g[q]
                put(gx, q, acc, how)


@cuda.jit(cache=True)
def cumprod_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        p = shape_pos(m, 2)
        outer, n, inner = m[p], m[p + 1], m[p + 2]
        total = outer * n * inner
        x = view(saved(a, 0), total, w.dtype)
        out = view(saved(a, 1), total, w.dtype)
        g = view(gout(a, 0), total, w.dtype)
        gx = view(gin(a, 0), total, w.dtype)
        how = mode(a, 0)
        for line in range(first_thread(), outer * inner, thread_step()):
            base = (line // inner) * n * inner + line % inner
            z = n
            for jj in range(n):
                if x[base + jj * inner] == 0:
                    z = jj
                    break
            acc = 0.0
            for jj in range(n - 1, -1, -1):
                q = base + jj * inner
                v = g[q] * 0
                if jj < z:
                    acc += g[q] * out[q]
                    v = acc / x[q]
                elif jj == z:
                    prefix = out[q - inner] if z > 0 else g[q] * 0 + 1
                    run = g[q] * 0 + 1
                    total_z = g[q] * 0
                    for kk in range(z, n):
                        if kk > z:
                            run *= x[base + kk * inner]
                        total_z += g[base + kk * inner] * run
                    v = prefix * total_z
                put(gx, q, v, how)


@cuda.jit(cache=True)
def select_dim_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        p = shape_pos(m, 1 + a[0])
        outer, n, inner, k = m[p], m[p + 1], m[p + 2], m[p + 3]
        index = view(saved(a, 0), outer * k * inner, np.int64)
        g = view(gout(a, 0), outer * k * inner, w.dtype)
        gx = view(gin(a, 0), outer * n * inner, w.dtype)
        for q in range(first_thread(), outer * k * inner, thread_step()):
            o = q // (k * inner)
            i = q % inner
            cuda.atomic.add(gx, (o * n + index[q]) * inner + i, g[q])


@cuda.jit(cache=True)
def split_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        k_out = a[0]
        p = shape_pos(m, 1 + k_out)
        outer, width = m[p], m[p + 1]
        gx = view(gin(a, 0), outer * width, w.dtype)
        how = mode(a, 0)
        for e in range(first_thread(), outer * width, thread_step()):
            o = e // width
            c = e % width
            start = 0
            for jj in range(k_out):
                wj = m[p + 2 + jj]
                if start <= c < start + wj:
                    if gout(a, jj) != 0:       # an undefined piece leaves its zeros
                        put(gx, e, view(gout(a, jj), outer * wj, w.dtype)[o * wj + c - start], how)
                    break
                start += wj


@cuda.jit(cache=True)
def repeat_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        p_out = shape_pos(m, 1)
        nd = m[p_out]
        n = numel_at(m, p_out)
        p_attr = shape_pos(m, 2)
        g = view(gout(a, 0), n, w.dtype)
        gx = view(gin(a, 0), numel_at(m, 0), w.dtype)
        for i in range(first_thread(), n, thread_step()):
            rest = i
            offset = 0
            stride = 1
            for d in range(nd - 1, -1, -1):
                c = rest % m[p_out + 1 + d]
                rest //= m[p_out + 1 + d]
                offset += (c % m[p_attr + d]) * stride
                stride *= m[p_attr + d]
            cuda.atomic.add(gx, offset, g[i])


# ==== products of vectors, scatter-add ==============================================================

@cuda.jit(cache=True)
def dot_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        m = meta(a)
        n = numel_at(m, 0)
        x = view(saved(a, 0), n, w.dtype)
        y = view(saved(a, 1), n, w.dtype)
        g = view(gout(a, 0), 1, w.dtype)[0]
        for i in range(first_thread(), n, thread_step()):
            if gin(a, 0) != 0:
                put(view(gin(a, 0), n, w.dtype), i, g * y[i], mode(a, 0))
            if gin(a, 1) != 0:
                put(view(gin(a, 1), n, w.dtype), i, g * x[i], mode(a, 1))


@cuda.jit(cache=True)
def mv_bwd(args, starts, first, count, w):
    """gx = outer(g, y): one thread per element; gy = x^T g: one thread per column."""
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        m = meta(a)
        rows, cols = m[1], m[2]
        x = view(saved(a, 0), rows * cols, w.dtype)
        y = view(saved(a, 1), cols, w.dtype)
        g = view(gout(a, 0), rows, w.dtype)
        for e in range(first_thread(), rows * cols + cols, thread_step()):
            if e < rows * cols:
                if gin(a, 0) != 0:
                    put(view(gin(a, 0), rows * cols, w.dtype), e, g[e // cols] * y[e % cols],
                        mode(a, 0))
            elif gin(a, 1) != 0:
                c = e - rows * cols
                s = g[0] * 0
                for r in range(rows):
                    s += x[r * cols + c] * g[r]
                put(view(gin(a, 1), cols, w.dtype), c, s, mode(a, 1))


@cuda.jit(cache=True)
def scatter_add_bwd(args, starts, first, count, w):
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        m = meta(a)
        n = numel_at(m, 0)
        n_src = numel_at(m, shape_pos(m, 1))
        g = view(gout(a, 0), n, w.dtype)
        positions = view(saved(a, 0), n_src, np.int64)
        for i in range(first_thread(), max(n, n_src), thread_step()):
            if i < n and gin(a, 0) != 0:
                put(view(gin(a, 0), n, w.dtype), i, g[i], mode(a, 0))
            if i < n_src and gin(a, 1) != 0:
                put(view(gin(a, 1), n_src, w.dtype), i, g[positions[i]], mode(a, 1))


# ==== nn: kernels of numgrad/ops/nn_ops.py ===========================================================
# softmax, log_softmax and cross entropy: one block per line, the line's sums in shared memory.

@cuda.jit(cache=True)
def softmax_bwd(args, starts, first, count, w):
    sh = cuda.shared.array(BLOCK, np.float64)
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        p = shape_pos(m, 2)
        outer, n, inner = m[p], m[p + 1], m[p + 2]
        y = view(saved(a, 0), outer * n * inner, w.dtype)
        g = view(gout(a, 0), outer * n * inner, w.dtype)
        gx = view(gin(a, 0), outer * n * inner, w.dtype)
        how = mode(a, 0)
        for line in range(cuda.blockIdx.x, outer * inner, cuda.gridDim.x):
            base = (line // inner) * n * inner + line % inner
            s = 0.0
            for k in range(cuda.threadIdx.x, n, cuda.blockDim.x):
                s += g[base + k * inner] * y[base + k * inner]
            s = block_sum(sh, s)
            for k in range(cuda.threadIdx.x, n, cuda.blockDim.x):
                q = base + k * inner
                put(gx, q, y[q] * (g[q] - s), how)


@cuda.jit(cache=True)
def batch_norm_bwd(args, starts, first, count, w):
    """cpu.batch_norm_bwd's twin: one block per channel, its sums in shared memory."""
    sh = cuda.shared.array(BLOCK, np.float64)
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        p = shape_pos(m, 4)
        outer, channels, inner = m[p], m[p + 1], m[p + 2]
        eps = fmeta(a, 1)[0]
        n = outer * channels * inner
        total = outer * inner
        x_hat = view(saved(a, 0), n, w.dtype)
        var = view(saved(a, 1), channels, w.dtype)
        has_g, has_mean, has_var = gout(a, 0) != 0, gout(a, 1) != 0, gout(a, 2) != 0
        g = view(gout(a, 0) if has_g else saved(a, 0), n, w.dtype)
        g_mean = view(gout(a, 1) if has_mean else saved(a, 1), channels, w.dtype)
        g_var = view(gout(a, 2) if has_var else saved(a, 1), channels, w.dtype)
        gx = view(gin(a, 0), n, w.dtype)
        how = mode(a, 0)
        for c in range(cuda.blockIdx.x, channels, cuda.gridDim.x):
            invstd = 1.0 / math.sqrt(var[c] + eps)
            sum_g = 0.0
            sum_gx = 0.0
            if has_g:
                for k in range(cuda.threadIdx.x, total, cuda.blockDim.x):
                    q = ((k // inner) * channels + c) * inner + k % inner
                    sum_g += g[q]
                    sum_gx += g[q] * x_hat[q]
            mean_g = block_sum(sh, sum_g) / total
            mean_gx = block_sum(sh, sum_gx) / total
            shift = g_mean[c] / total if has_mean else 0.0
            slope = 2.0 * g_var[c] / (invstd * total) if has_var else 0.0
            for k in range(cuda.threadIdx.x, total, cuda.blockDim.x):
                q = ((k // inner) * channels + c) * inner + k % inner
                v = shift + slope * x_hat[q]
                if has_g:
                    v += invstd * (g[q] - mean_g - x_hat[q] * mean_gx)
                put(gx, q, v, how)


@cuda.jit(cache=True)
def batch_norm_affine_bwd(args, starts, first, count, w):
    """cpu.batch_norm_affine_bwd's twin: one block per channel, its sums in shared memory."""
    sh = cuda.shared.array(BLOCK, np.float64)
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        m = meta(a)
        p = shape_pos(m, 6)
        outer, channels, inner = m[p], m[p + 1], m[p + 2]
        eps = fmeta(a, 1)[0]
        n = outer * channels * inner
        total = outer * inner
        want_x, want_w, want_b = gin(a, 0) != 0, gin(a, 1) != 0, gin(a, 2) != 0
        mean = view(saved(a, 2), channels, w.dtype)
        var = view(saved(a, 3), channels, w.dtype)
        has_g, has_mean, has_var = gout(a, 0) != 0, gout(a, 1) != 0, gout(a, 2) != 0
        x = view(saved(a, 0), n if want_x or want_w else 0, w.dtype)
        weight = view(saved(a, 1), channels if want_x else 0, w.dtype)
        g = view(gout(a, 0) if has_g else saved(a, 2), n if has_g else 0, w.dtype)
        g_mean = view(gout(a, 1) if has_mean else saved(a, 2), channels, w.dtype)
        g_var = view(gout(a, 2) if has_var else saved(a, 2), channels, w.dtype)
        for c in range(cuda.blockIdx.x, channels, cuda.gridDim.x):
            invstd = 1.0 / math.sqrt(var[c] + eps)
            centre = mean[c]
            sum_g = 0.0
            dot = 0.0
            if has_g:
                for k in range(cuda.threadIdx.x, total, cuda.blockDim.x):
                    q = ((k // inner) * channels + c) * inner + k % inner
                    sum_g += g[q]
                    if want_x or want_w:
                        dot += (x[q] - centre) * g[q]
            sum_g = block_sum(sh, sum_g)
            dot = block_sum(sh, dot)
            if cuda.threadIdx.x == 0:
                if want_b:
                    put(view(gin(a, 2), channels, w.dtype), c, sum_g, mode(a, 2))
                if want_w:
                    put(view(gin(a, 1), channels, w.dtype), c, dot * invstd, mode(a, 1))
            if want_x:
                gx = view(gin(a, 0), n, w.dtype)
                how = mode(a, 0)
                scale = weight[c] * invstd
                mean_g = sum_g / total
                slope_k = dot * invstd * invstd / total
                shift = g_mean[c] / total if has_mean else 0.0
                slope = 2.0 * g_var[c] / total if has_var else 0.0
                for k in range(cuda.threadIdx.x, total, cuda.blockDim.x):
                    q = ((k // inner) * channels + c) * inner + k % inner
                    centred = x[q] - centre
                    v = shift + slope * centred
                    if has_g:
                        v += (g[q] - mean_g - centred * slope_k) * scale
                    put(gx, q, v, how)


@cuda.jit(cache=True)
def layer_norm_bwd(args, starts, first, count, w):
    """cpu.layer_norm_bwd's twin: one block per row, its sums in shared memory; the parameters'
    gradients are added atomically (Note [zeroed buffers]). The rows' mean and rstd are saved."""
    sh = cuda.shared.array(BLOCK, np.float64)
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        m = meta(a)
        p = shape_pos(m, 6)
        rows, inner = m[p], m[p + 1]
        want_x, want_w, want_b = gin(a, 0) != 0, gin(a, 1) != 0, gin(a, 2) != 0
        x = view(saved(a, 0), rows * inner if want_x or want_w else 0, w.dtype)
        weight = view(saved(a, 1), inner if want_x else 0, w.dtype)
        means = view(saved(a, 2), rows, w.dtype)
        rstds = view(saved(a, 3), rows, w.dtype)
        g = view(gout(a, 0), rows * inner, w.dtype)
        gx = view(gin(a, 0), rows * inner if want_x else 0, w.dtype)
        gw = view(gin(a, 1), inner if want_w else 0, w.dtype)
        gb = view(gin(a, 2), inner if want_b else 0, w.dtype)
        how = mode(a, 0)
        for r in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
            base = r * inner
            if want_b:
                for k in range(cuda.threadIdx.x, inner, cuda.blockDim.x):
                    cuda.atomic.add(gb, k, g[base + k])
            if not (want_x or want_w):
                continue
            mean, rstd = means[r], rstds[r]
            s1 = 0.0
            s2 = 0.0
            for k in range(cuda.threadIdx.x, inner, cuda.blockDim.x):
                x_hat = (x[base + k] - mean) * rstd
                if want_w:
                    cuda.atomic.add(gw, k, g[base + k] * x_hat)
                if want_x:
                    s1 += g[base + k] * weight[k]
                    s2 += g[base + k] * weight[k] * x_hat
            if want_x:
                mean_gw = block_sum(sh, s1) / inner
                mean_gwx = block_sum(sh, s2) / inner
                for k in range(cuda.threadIdx.x, inner, cuda.blockDim.x):
                    x_hat = (x[base + k] - mean) * rstd
                    put(gx, base + k, rstd * (g[base + k] * weight[k] - mean_gw - x_hat * mean_gwx),
                        how)


@cuda.jit(cache=True)
def group_norm_bwd(args, starts, first, count, w):
    """cpu.group_norm_bwd's twin: one block per (sample, group), the channel rows' sums in shared
    memory; the parameters' gradients are added atomically (Note [zeroed buffers])."""
    sh = cuda.shared.array(BLOCK, np.float64)
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        m = meta(a)
        p = shape_pos(m, 6)
        n, channels, inner, groups = m[p], m[p + 1], m[p + 2], m[p + 3]
        per = channels // groups
        size = n * channels * inner
        want_x, want_w, want_b = gin(a, 0) != 0, gin(a, 1) != 0, gin(a, 2) != 0
        has_g, has_mean, has_rstd = gout(a, 0) != 0, gout(a, 1) != 0, gout(a, 2) != 0
        x = view(saved(a, 0), size if want_x or want_w else 0, w.dtype)
        weight = view(saved(a, 1), channels if want_x else 0, w.dtype)
        means = view(saved(a, 2), n * groups, w.dtype)
        rstds = view(saved(a, 3), n * groups, w.dtype)
        g = view(gout(a, 0) if has_g else saved(a, 2), size if has_g else 0, w.dtype)
        g_mean = view(gout(a, 1) if has_mean else saved(a, 2), n * groups, w.dtype)
        g_rstd = view(gout(a, 2) if has_rstd else saved(a, 2), n * groups, w.dtype)
        gx = view(gin(a, 0), size if want_x else 0, w.dtype)
        gw = view(gin(a, 1), channels if want_w else 0, w.dtype)
        gb = view(gin(a, 2), channels if want_b else 0, w.dtype)
        how = mode(a, 0)
        total = per * inner
        for group in range(cuda.blockIdx.x, n * groups, cuda.gridDim.x):
            i, k = group // groups, group % groups
            mean, rstd = means[group], rstds[group]
            ds_w = 0.0
            db_w = 0.0
            if has_g:
                for c in range(k * per, (k + 1) * per):
                    base = (i * channels + c) * inner
                    db = 0.0
                    ds = 0.0
                    for q in range(cuda.threadIdx.x, inner, cuda.blockDim.x):
                        db += g[base + q]
                        if want_x or want_w:
                            ds += g[base + q] * x[base + q]
                    db = block_sum(sh, db)
                    ds = block_sum(sh, ds)
                    if cuda.threadIdx.x == 0:
                        if want_w:
                            cuda.atomic.add(gw, c, (ds - db * mean) * rstd)
                        if want_b:
                            cuda.atomic.add(gb, c, db)
                    if want_x:
                        ds_w += ds * weight[c]
                        db_w += db * weight[c]
            if not want_x or total == 0:
                continue
            c2 = (db_w * mean - ds_w) * rstd * rstd * rstd / total
            c3 = -c2 * mean - db_w * rstd / total
            if has_mean:
                c3 += g_mean[group] / total
            if has_rstd:
                slope = g_rstd[group] * rstd * rstd * rstd / total
                c2 -= slope
                c3 += slope * mean
            for c in range(k * per, (k + 1) * per):
                base = (i * channels + c) * inner
                c1 = rstd * weight[c] if has_g else 0.0
                for q in range(cuda.threadIdx.x, inner, cuda.blockDim.x):
                    v = c2 * x[base + q] + c3
                    if has_g:
                        v += c1 * g[base + q]
                    put(gx, base + q, v, how)


@cuda.jit(cache=True)
def log_softmax_bwd(args, starts, first, count, w):
    sh = cuda.shared.array(BLOCK, np.float64)
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        p = shape_pos(m, 2)
        outer, n, inner = m[p], m[p + 1], m[p + 2]
        y = view(saved(a, 0), outer * n * inner, w.dtype)
        g = view(gout(a, 0), outer * n * inner, w.dtype)
        gx = view(gin(a, 0), outer * n * inner, w.dtype)
        how = mode(a, 0)
        for line in range(cuda.blockIdx.x, outer * inner, cuda.gridDim.x):
            base = (line // inner) * n * inner + line % inner
            s = 0.0
            for k in range(cuda.threadIdx.x, n, cuda.blockDim.x):
                s += g[base + k * inner]
            s = block_sum(sh, s)
            for k in range(cuda.threadIdx.x, n, cuda.blockDim.x):
                q = base + k * inner
                put(gx, q, g[q] - _exp(y[q]) * s, how)


@cuda.jit(cache=True)
def cross_entropy_bwd(args, starts, first, count, w):
    """Note [cross entropy coefficients] in nn_ops.py; the softmax recomputed row by row."""
    sh = cuda.shared.array(BLOCK, np.float64)
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        rows, classes = m[1], m[2]
        p = shape_pos(m, 4)
        ignore, per_row = m[p], m[p + 1] == 0
        scale = fmeta(a, 1)[0]
        x = view(saved(a, 0), rows * classes, w.dtype)
        target = view(saved(a, 1), rows, np.int64)
        wt = view(saved(a, 2), classes, w.dtype)
        g = view(gout(a, 0), rows if per_row else 1, w.dtype)
        gx = view(gin(a, 0), rows * classes, w.dtype)
        how = mode(a, 0)
        for i in range(cuda.blockIdx.x, rows, cuda.gridDim.x):
            t = target[i]
            if t == ignore:
                continue                 # its zeros stay (Note [zeroed buffers])
            base = i * classes
            top = -np.inf
            for c in range(cuda.threadIdx.x, classes, cuda.blockDim.x):
                if x[base + c] > top or x[base + c] != x[base + c]:
                    top = x[base + c]
            top = block_max(sh, top)
            s = 0.0
            for c in range(cuda.threadIdx.x, classes, cuda.blockDim.x):
                s += _exp(x[base + c] - top)
            s = block_sum(sh, s)
            gi = (g[i] if per_row else g[0]) * scale
            hit = wt[t]
            for c in range(cuda.threadIdx.x, classes, cuda.blockDim.x):
                put(gx, base + c, gi * (_exp(x[base + c] - top) / s * hit
                                        - (hit if c == t else 0.0)), how)


@cuda.jit(cache=True)
def linear_bwd(args, starts, first, count, w):
    """out = x (M, K) @ w (N, K).T [+ b]: gx = g w and gw = g.T x tile by tile; gb: column sums.
    The inputs are (x, w), or (b, x, w) with a bias (ops/nn_ops.py)."""
    sa = cuda.shared.array((TILE, TILE), w.dtype)
    sb = cuda.shared.array((TILE, TILE), w.dtype)
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        md = meta(a)
        ix = a[1] - 2
        pos = shape_pos(md, ix)
        rows, inner = md[pos + 1], md[pos + 2]
        cols = md[shape_pos(md, ix + 1) + 1]
        x = view(saved(a, 0), rows * inner, w.dtype)
        wm = view(saved(a, 1), cols * inner, w.dtype)
        g = view(gout(a, 0), rows * cols, w.dtype)
        gx = view(gin(a, ix), rows * inner, w.dtype)
        gw = view(gin(a, ix + 1), cols * inner, w.dtype)
        n_gx = tiles(rows) * tiles(inner) if gin(a, ix) != 0 else 0
        n_gw = tiles(cols) * tiles(inner) if gin(a, ix + 1) != 0 else 0
        for t in range(cuda.blockIdx.x, n_gx + n_gw, cuda.gridDim.x):
            if t < n_gx:
                tile_matmul(t, tiles(inner), g, 0, cols, 1, wm, 0, inner, 1, gx, 0,
                            rows, cols, inner, mode(a, ix), sa, sb)
            else:
                tile_matmul(t - n_gx, tiles(inner), g, 0, 1, cols, x, 0, inner, 1, gw, 0,
                            cols, rows, inner, mode(a, ix + 1), sa, sb)
        if ix == 1 and gin(a, 0) != 0:
            gb = view(gin(a, 0), cols, w.dtype)
            for c in range(first_thread(), cols, thread_step()):
                s = g[0] * 0
                for r in range(rows):
                    s += g[r * cols + c]
                put(gb, c, s, mode(a, 0))


@_device
def _window_pixel(m, p_image, p_cols, j):
    """For column entry j of im2col (attrs after the two shapes: kh, kw, sh, sw, ph, pw, dh, dw,
    layout), the flat index of the image pixel it reads, or -1 in the padding."""
    channels, height, width = m[p_image + 2], m[p_image + 3], m[p_image + 4]
    p = shape_pos(m, 2)
    kh, kw, sh, sw, ph, pw, dh, dw = (m[p], m[p + 1], m[p + 2], m[p + 3], m[p + 4], m[p + 5],
                                      m[p + 6], m[p + 7])
    kx = j % kw
    j //= kw
    ky = j % kh
    j //= kh
    if m[p + 8] == 0:                   # (N, oh, ow, C, kh, kw)
        ow = m[p_cols + 3]
        oh = m[p_cols + 2]
        c = j % channels
        j //= channels
        ox = j % ow
        j //= ow
        oy = j % oh
        n = j // oh
    else:                               # (N, C, oh, ow, kh, kw)
        ow = m[p_cols + 4]
        oh = m[p_cols + 3]
        ox = j % ow
        j //= ow
        oy = j % oh
        j //= oh
        c = j % channels
        n = j // channels
    iy = oy * sh - ph + ky * dh
    ix = ox * sw - pw + kx * dw
    if 0 <= iy < height and 0 <= ix < width:
        return ((n * channels + c) * height + iy) * width + ix
    return -1


@cuda.jit(cache=True)
def im2col_bwd(args, starts, first, count, w):
    """col2im of the gradient: each column entry adds back into the pixel it was read from."""
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        p_out = shape_pos(m, 1)
        n_cols = numel_at(m, p_out)
        gx = view(gin(a, 0), numel_at(m, 0), w.dtype)
        g = view(gout(a, 0), n_cols, w.dtype)
        for e in range(first_thread(), n_cols, thread_step()):
            pixel = _window_pixel(m, 0, p_out, e)
            if pixel >= 0:
                cuda.atomic.add(gx, pixel, g[e])


@cuda.jit(cache=True)
def col2im_bwd(args, starts, first, count, w):
    """im2col of the gradient: each column entry reads the pixel it was added into."""
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        p_out = shape_pos(m, 1)
        n_cols = numel_at(m, 0)
        gx = view(gin(a, 0), n_cols, w.dtype)
        g = view(gout(a, 0), numel_at(m, p_out), w.dtype)
        how = mode(a, 0)
        for e in range(first_thread(), n_cols, thread_step()):
            pixel = _window_pixel(m, p_out, 0, e)
            put(gx, e, g[pixel] if pixel >= 0 else g[0] * 0, how)


@_device
def _pool_extent(o, k, s, p, size):
    """cpu._pool_window's twin: (start, end) of window o clipped to the input, and its extent
    clipped to the padded input."""
    start = o * s - p
    end = min(start + k, size + p)
    return max(start, 0), min(end, size), end - start


@cuda.jit(cache=True)
def avg_pool2d_bwd(args, starts, first, count, w):
    """cpu.avg_pool2d_bwd's twin: a thread per output element adds its share over its window,
    atomically (windows overlap; Note [zeroed buffers]). meta attrs: kh, kw, sh, sw, ph, pw,
    count_include_pad, divisor_override."""
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        if gin(a, 0) == 0:
            continue
        m = meta(a)
        p_out = shape_pos(m, 1)
        p = shape_pos(m, 2)
        h, wide = m[m[0] - 1], m[m[0]]
        oh, ow = m[p_out + m[p_out] - 1], m[p_out + m[p_out]]
        n_out = numel_at(m, p_out)
        gx = view(gin(a, 0), numel_at(m, 0), w.dtype)
        g = view(gout(a, 0), n_out, w.dtype)
        for e in range(first_thread(), n_out, thread_step()):
            plane, i, jj = e // (oh * ow), (e // ow) % oh, e % ow
            hs, he, padded_h = _pool_extent(i, m[p], m[p + 2], m[p + 4], h)
            ws, we, padded_w = _pool_extent(jj, m[p + 1], m[p + 3], m[p + 5], wide)
            if m[p + 7]:
                divisor = m[p + 7]
            elif m[p + 6]:
                divisor = padded_h * padded_w
            else:
                divisor = (he - hs) * (we - ws)
            share = g[e] / divisor      # rounded to gx's type as it is added: the CPU's division
            for y in range(hs, he):
                for x in range(ws, we):
                    cuda.atomic.add(gx, (plane * h + y) * wide + x, share)


@cuda.jit(cache=True)
def conv2d_bwd(args, starts, first, count, w):
    """out = cols(x) @ w.T + b in NCHW. A thread per element of each gradient, gathering: gx from
    the outputs whose windows read its pixel, gw from every window's pixel at its tap, gb the
    sums of g. meta attrs: sh, sw, ph, pw, dh, dw."""
    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):
        a = node_args(args, starts, first, j)
        md = meta(a)
        p_w = shape_pos(md, 1)
        p_out = shape_pos(md, a[1])
        p = shape_pos(md, a[1] + 1)
        n_img, channels, height, width = md[1], md[2], md[3], md[4]
        out_channels, kh, kw = md[p_w + 1], md[p_w + 3], md[p_w + 4]
        oh, ow = md[p_out + 3], md[p_out + 4]
        sh, sw, ph, pw, dh, dw = md[p], md[p + 1], md[p + 2], md[p + 3], md[p + 4], md[p + 5]
        taps = channels * kh * kw
        n_x = n_img * channels * height * width
        g = view(gout(a, 0), n_img * out_channels * oh * ow, w.dtype)
        x = view(saved(a, 0), n_x, w.dtype)
        wm = view(saved(a, 1), out_channels * taps, w.dtype)
        n_gx = n_x if gin(a, 0) != 0 else 0
        n_gw = out_channels * taps if gin(a, 1) != 0 else 0
        n_gb = out_channels if a[1] == 3 and gin(a, 2) != 0 else 0
        for e in range(first_thread(), n_gx + n_gw + n_gb, thread_step()):
            s = 0.0
            if e < n_gx:
                ix = e % width
                iy = (e // width) % height
                c = (e // (width * height)) % channels
                n = e // (width * height * channels)
                for ky in range(kh):
                    ty = iy + ph - ky * dh
                    if ty < 0 or ty % sh != 0 or ty // sh >= oh:
                        continue
                    for kx in range(kw):
                        tx = ix + pw - kx * dw
                        if tx < 0 or tx % sw != 0 or tx // sw >= ow:
                            continue
                        for o in range(out_channels):
                            s += (g[((n * out_channels + o) * oh + ty // sh) * ow + tx // sw]
                                  * wm[((o * channels + c) * kh + ky) * kw + kx])
                put(view(gin(a, 0), n_x, w.dtype), e, s, mode(a, 0))
            elif e < n_gx + n_gw:
                q = e - n_gx
                o = q // taps
                kx = q % kw
                ky = (q // kw) % kh
                c = q // (kw * kh) % channels
                for n in range(n_img):
                    for oy in range(oh):
                        iy = oy * sh - ph + ky * dh
                        if iy < 0 or iy >= height:
                            continue
                        for ox in range(ow):
                            ix = ox * sw - pw + kx * dw
                            if 0 <= ix < width:
                                s += (g[((n * out_channels + o) * oh + oy) * ow + ox]
                                      * x[((n * channels + c) * height + iy) * width + ix])
                put(view(gin(a, 1), out_channels * taps, w.dtype), q, s, mode(a, 1))
            else:
                o = e - n_gx - n_gw
                for n in range(n_img):
                    for r in range(oh * ow):
                        s += g[(n * out_channels + o) * oh * ow + r]
                put(view(gin(a, 2), out_channels, w.dtype), o, s, mode(a, 2))


# Kernels whose blocks work group by group (or line, row, tile) rather than element by element.
GROUP_KERNELS = frozenset(("matmul_bwd", "linear_bwd", "prod_bwd", "amax_bwd", "max_all_bwd",
                           "var_bwd", "std_bwd", "norm_bwd", "softmax_bwd", "log_softmax_bwd",
                           "cross_entropy_bwd"))


def grid_x(kernel_name, work):
    """Blocks along x for a batch whose largest node touches `work` elements; every kernel
    strides, so this sizes the launch and never decides correctness."""
    per_block = 32 if kernel_name in GROUP_KERNELS and not SIM else BLOCK
    return max(1, min((int(work) + per_block - 1) // per_block, MAX_GRID_X))
