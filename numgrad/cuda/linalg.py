"""Matrix products on the GPU: mm, bmm, dot, mv and linear, all one tiled shared-memory kernel
(kernels/cuda.py's tile_matmul, which the backward uses too); transposes are strides."""
from numba import cuda

from .array import empty
from .basic import grid_1d
from ..kernels.cuda import BLOCK, MAX_GRID_X, TILE, WRITE, first_thread, thread_step, tile_matmul
from ..kernels.cuda import tiles


@cuda.jit(cache=True)
def _matmul(C, A, B, batch, rows, inner, cols, ars, acs, a_batch, brs, bcs, b_batch):
    sa = cuda.shared.array((TILE, TILE), C.dtype)
    sb = cuda.shared.array((TILE, TILE), C.dtype)
    n_t = tiles(rows) * tiles(cols)
    for t in range(cuda.blockIdx.x, batch * n_t, cuda.gridDim.x):
        b = t // n_t
        tile_matmul(t % n_t, tiles(cols), A, b * a_batch, ars, acs, B, b * b_batch, brs, bcs,
                    C, b * rows * cols, rows, inner, cols, WRITE, sa, sb)


@cuda.jit(cache=True)
def _add_rows(C, bias, cols):
    for i in range(first_thread(), C.size, thread_step()):
        C[i] += bias[i % cols]


def _product(shape, A, B, batch, rows, inner, cols, a_strides, b_strides):
    """C = A @ B for `batch` products of (rows, inner) @ (inner, cols); strides (row, col, batch)
    in elements say how each operand is read."""
    out = empty(shape, A.dtype)
    if out.size:
        n_tiles = batch * ((rows + TILE - 1) // TILE) * ((cols + TILE - 1) // TILE)
        _matmul[max(1, min(n_tiles, MAX_GRID_X)), BLOCK](
            out.reshape(out.size), A.reshape(A.size), B.reshape(B.size), batch, rows, inner, cols,
            *a_strides, *b_strides)
    return out


def mm(x, y):
    (rows, inner), cols = x.shape, y.shape[1]
    return _product((rows, cols), x, y, 1, rows, inner, cols, (inner, 1, 0), (cols, 1, 0))


def bmm(x, y):
    (batch, rows, inner), cols = x.shape, y.shape[2]
    return _product((batch, rows, cols), x, y, batch, rows, inner, cols,
                    (inner, 1, rows * inner), (cols, 1, inner * cols))


def dot(x, y):
    n = x.shape[0]
    return _product((), x, y, 1, 1, n, 1, (n, 1, 0), (1, 1, 0))


def mv(x, y):
    rows, inner = x.shape
    return _product((rows,), x, y, 1, rows, inner, 1, (inner, 1, 0), (1, 1, 0))


def linear(x, w, b=None):
    """x (M, K) @ w (N, K).T [+ b (N,)]."""
    (rows, inner), cols = x.shape, w.shape[0]
    out = _product((rows, cols), x, w, 1, rows, inner, cols, (inner, 1, 0), (1, inner, 0))
    if b is not None and out.size:
        _add_rows[grid_1d(out.size)](out.reshape(out.size), b.reshape(b.size), cols)
    return out
