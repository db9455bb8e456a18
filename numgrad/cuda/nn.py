"""nn forwards on the GPU: softmax, log_softmax and cross entropy (a block per line, its max and
sum in shared memory), im2col and col2im (a thread per column entry), conv2d (im2col, then the
tiled product)."""
import math

import numpy as np
from numba import cuda

from .array import empty, is_device_array, to_device, zeros
from .basic import grid_1d
from .reduce import SCALE, SUM, VALUE, finish, reduce_raw
from ..kernels.cuda import (BLOCK, MAX_GRID_X, SIM, _window_pixel, block_max, block_sum,
                            first_thread, thread_step)

_exp, _log = (np.exp, np.log) if SIM else (math.exp, math.log)


@cuda.jit(cache=True)
def _softmax(out, x, outer, n, inner, log):
    sh = cuda.shared.array(BLOCK, np.float64)
    for line in range(cuda.blockIdx.x, outer * inner, cuda.gridDim.x):
        base = (line // inner) * n * inner + line % inner
        top = -np.inf
        for k in range(cuda.threadIdx.x, n, cuda.blockDim.x):
            v = x[base + k * inner]
            if v > top or v != v:
                top = v
        top = block_max(sh, top)
        s = 0.0
        for k in range(cuda.threadIdx.x, n, cuda.blockDim.x):
            s += _exp(x[base + k * inner] - top)
        s = block_sum(sh, s)
        for k in range(cuda.threadIdx.x, n, cuda.blockDim.x):
            q = base + k * inner
            out[q] = x[q] - top - _log(s) if log else _exp(x[q] - top) / s


@cuda.jit(cache=True)
def _cross_entropy_rows(loss, x, target, w, classes, ignore):
    """Note [cross entropy coefficients] in nn_ops.py: row i's loss, 0 for an ignored row."""
    sh = cuda.shared.array(BLOCK, np.float64)
    for i in range(cuda.blockIdx.x, loss.size, cuda.gridDim.x):
        t = target[i]
        if t == ignore:
            continue                      # its loss stays zero
        base = i * classes
        top = -np.inf
        for c in range(cuda.threadIdx.x, classes, cuda.blockDim.x):
            if x[base + c] > top or x[base + c] != x[base + c]:
                top = x[base + c]
        top = block_max(sh, top)
        s = 0.0
        for c in range(cuda.threadIdx.x, classes, cuda.blockDim.x):
            s += _exp(x[base + c] - top)
        log_total = _log(block_sum(sh, s)) + top
        if cuda.threadIdx.x == 0:
            loss[i] = w[t] * (log_total - x[base + t])


@cuda.jit(cache=True)
def _im2col(cols, image, meta):
    for j in range(first_thread(), cols.size, thread_step()):
        pixel = _window_pixel(meta, 0, 5, j)
        cols[j] = image[pixel] if pixel >= 0 else 0


@cuda.jit(cache=True)
def _col2im(image, cols, meta):
    for j in range(first_thread(), cols.size, thread_step()):
        pixel = _window_pixel(meta, 7, 0, j)
        if pixel >= 0:
            cuda.atomic.add(image, pixel, cols[j])


def _lines(outer, n, inner):
    return max(1, min(outer * inner, MAX_GRID_X))


def softmax(x, dim, rows, log=False):
    outer, n, inner = (int(v) for v in rows)
    out = empty(tuple(x.shape), x.dtype)
    if out.size:
        _softmax[_lines(outer, n, inner), BLOCK](out.reshape(out.size), x.reshape(x.size), outer,
                                                 n, inner, log)
    return out


def log_softmax(x, dim, rows):
    return softmax(x, dim, rows, log=True)


def cross_entropy(x, target, weight, ignore_index, reduction, scale):
    rows, classes = (int(s) for s in x.shape)
    target = target if is_device_array(target) else to_device(np.asarray(target, np.int64))
    weight = weight if is_device_array(weight) else to_device(np.asarray(weight, x.dtype))
    loss = zeros((rows,), np.float64)
    if rows:
        _cross_entropy_rows[max(1, min(rows, MAX_GRID_X)), BLOCK](
            loss, x.reshape(x.size), target, weight, classes, int(ignore_index))
    from ..ops.nn_ops import NONE
    if reduction == NONE:
        return finish(loss, (rows,), x.dtype)
    total, _ = reduce_raw(loss, (0,), VALUE, SUM)
    return finish(total, (), x.dtype, SCALE, scale)


def _windows_meta(image_shape, cols_shape, kernel, stride, padding, dilation, layout, image_first):
    shapes = [(4, *image_shape), (6, *cols_shape)]
    if not image_first:
        shapes.reverse()
    return tuple(int(v) for v in (*shapes[0], *shapes[1], *kernel, *stride, *padding, *dilation,
                                  layout))


def im2col(x, kernel, stride, padding, dilation, layout):
    from ..ops.nn_ops import CONV, out_size
    n, c, h, w = (int(s) for s in x.shape)
    oh = out_size(h, kernel[0], stride[0], padding[0], dilation[0])
    ow = out_size(w, kernel[1], stride[1], padding[1], dilation[1])
    shape = (n, oh, ow, c, *kernel) if layout == CONV else (n, c, oh, ow, *kernel)
    out = empty(shape, x.dtype)
    if out.size:
        meta = _windows_meta(x.shape, shape, kernel, stride, padding, dilation, layout, True)
        _im2col[grid_1d(out.size)](out.reshape(out.size), x.reshape(x.size), meta)
    return out


def col2im(cols, kernel, stride, padding, dilation, layout, in_shape):
    out = zeros(tuple(in_shape), cols.dtype)
    if cols.size:
        meta = _windows_meta(in_shape, cols.shape, kernel, stride, padding, dilation, layout, False)
        _col2im[grid_1d(cols.size)](out.reshape(out.size), cols.reshape(cols.size), meta)
    return out


def conv2d(x, w, b=None, *, stride, padding, dilation):
    """im2col's columns (N*oh*ow, C*kh*kw) @ w.T + b, moved to (N, O, oh, ow)."""
    from ..ops.nn_ops import CONV
    from .linalg import linear
    from .shape import permute
    out_channels = int(w.shape[0])
    cols = im2col(x, tuple(w.shape[2:]), stride, padding, dilation, CONV)
    n, oh, ow = (int(s) for s in cols.shape[:3])
    rows = linear(cols.reshape((n * oh * ow, cols.size // max(n * oh * ow, 1))),
                  w.reshape((out_channels, w.size // out_channels)), b)
    return permute(rows.reshape((n, oh, ow, out_channels)), (0, 3, 1, 2))
