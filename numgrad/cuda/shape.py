"""Shape-op forwards on the GPU: reshape is free, everything else is a copy through strides.

NumPy's basic indexing, permute, expand and split return views that share memory with their base;
here they return copies (a kernel reads flat memory through an affine map), so an in-place write
through such a result does not reach its base on the GPU.
"""
import numpy as np
from numba import cuda

from .array import empty, zeros
from .basic import copy_into, fill, grid_1d
from .elementwise import MAXDIM
from ..kernels.cuda import first_thread, thread_step


def _padded(values, fill_value):
    values = tuple(int(v) for v in values)
    if len(values) > MAXDIM:
        raise NotImplementedError(f"shape ops on the GPU: at most {MAXDIM} dimensions")
    return (fill_value,) * (MAXDIM - len(values)) + values


def _c_strides(shape):
    strides, step = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = step
        step *= shape[d]
    return strides


@cuda.jit(device=True, inline="always")
def _affine(i, offset, shape, strides):
    for d in range(MAXDIM - 1, -1, -1):
        offset += (i % shape[d]) * strides[d]
        i //= shape[d]
    return offset


@cuda.jit(cache=True)
def _gather(out, x, offset, shape, strides):
    for i in range(first_thread(), out.size, thread_step()):
        out[i] = x[_affine(i, offset, shape, strides)]


@cuda.jit(cache=True)
def _scatter(out, x, offset, shape, strides):
    for i in range(first_thread(), x.size, thread_step()):
        out[_affine(i, offset, shape, strides)] = x[i]


@cuda.jit(cache=True)
def _blocks(dst, dst_width, dst_start, src, src_width, src_start, outer, width):
    """dst[o, dst_start:+width] = src[o, src_start:+width] for rows o of two row-major blocks."""
    for e in range(first_thread(), outer * width, thread_step()):
        o = e // width
        c = e % width
        dst[o * dst_width + dst_start + c] = src[o * src_width + src_start + c]


@cuda.jit(cache=True)
def _tile(out, x, out_shape, in_shape):
    for i in range(first_thread(), out.size, thread_step()):
        rest = i
        offset = 0
        step = 1
        for d in range(MAXDIM - 1, -1, -1):
            offset += (rest % out_shape[d] % in_shape[d]) * step
            rest //= out_shape[d]
            step *= in_shape[d]
        out[i] = x[offset]


def _flat(x):
    return x.reshape(x.size)


def gather(x, offset, strides, out_shape):
    """out[idx] = x.flat[offset + sum(idx * strides)] (strides in elements, maybe negative)."""
    out = empty(tuple(out_shape), x.dtype)
    if out.size:
        _gather[grid_1d(out.size)](_flat(out), _flat(x), int(offset), _padded(out_shape, 1),
                                   _padded(strides, 0))
    return out


def scatter(out, x, offset, strides):
    """out.flat[offset + sum(idx * strides)] = x[idx], for an injective map."""
    if x.size:
        _scatter[grid_1d(x.size)](_flat(out), _flat(x), int(offset), _padded(x.shape, 1),
                                  _padded(strides, 0))
    return out


def reshape(x, shape, **_):
    return x.reshape(tuple(int(s) for s in shape))


def clone(x, keep_layout=False):
    out = empty(x.shape, x.dtype)
    copy_into(out, x)
    return out


def cast(x, dtype):
    out = empty(x.shape, np.dtype(dtype))
    copy_into(out, x)
    return out


def permute(x, perm):
    shape = tuple(x.shape)
    strides = _c_strides(shape)
    return gather(x, 0, [strides[p] for p in perm], [shape[p] for p in perm])


def strided(x, offset, strides, in_shape, out_shape, index=None):
    return gather(x, offset, strides, out_shape)


def flip(x, dims, offset, strides):
    return gather(x, offset, strides, x.shape)


def expand(x, shape):
    shape = tuple(shape)
    lead = len(shape) - x.ndim
    own = _c_strides(tuple(x.shape))
    strides = [0] * lead + [s if size != 1 else 0 for s, size in zip(own, tuple(x.shape))]
    return gather(x, 0, strides, shape)


def strided_scatter(g, offset, strides, in_shape):
    return scatter(zeros(tuple(in_shape), g.dtype), g, offset, strides)


def pad(x, widths, value, offset, strides):
    shape = tuple(s + b + a for s, (b, a) in zip(tuple(x.shape), widths))
    out = empty(shape, x.dtype)
    if out.size:
        fill(out, value)
    return scatter(out, x, offset, strides)


def repeat(x, sizes, padded):
    out_shape = tuple(int(p) * int(s) for p, s in zip(padded, sizes))
    out = empty(out_shape, x.dtype)
    if out.size:
        _tile[grid_1d(out.size)](_flat(out), _flat(x), _padded(out_shape, 1), _padded(padded, 1))
    return out


def _copy_blocks(dst, dst_width, dst_start, src, src_width, src_start, outer, width):
    if outer * width:
        _blocks[grid_1d(outer * width)](_flat(dst), dst_width, dst_start, _flat(src), src_width,
                                        src_start, outer, width)


def _side_by_side(xs, outer, widths, shape):
    """Each input is a block of every row of the output (stack and cat)."""
    out = empty(shape, xs[0].dtype)
    total, start = sum(widths), 0
    for x, w in zip(xs, widths):
        _copy_blocks(out, total, start, x, w, 0, outer, w)
        start += w
    return out


def stack(*xs, dim, outer, widths):
    shape = list(xs[0].shape)
    shape.insert(dim, len(xs))
    return _side_by_side(xs, outer, widths, tuple(shape))


def cat(*xs, dim, outer, widths):
    # legacy empty (0,) inputs have width 0 and no say in the shape (ops/shape.py's cat)
    shaped = [x for x in xs if x.shape != (0,)] or xs[:1]
    shape = list(shaped[0].shape)
    shape[dim] = sum(int(x.shape[dim]) for x in shaped)
    return _side_by_side(xs, outer, widths, tuple(shape))


def split(x, dim, sizes, keepdim, outer, widths):
    total, start, pieces = sum(widths), 0, []
    for size, w in zip(sizes, widths):
        shape = list(x.shape)
        shape[dim] = size
        if not keepdim:
            del shape[dim]
        piece = empty(tuple(shape), x.dtype)
        _copy_blocks(piece, w, 0, x, total, start, outer, w)
        pieces.append(piece)
        start += w
    return tuple(pieces)    # as split.py's forward: always a tuple (the op has n_out=None)
