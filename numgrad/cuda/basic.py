"""The smallest device kernels: copy with conversion, add in place, fill; and the 1-D launch size
every elementwise forward uses."""
import numpy as np
from numba import cuda

from ..kernels.cuda import BLOCK, MAX_GRID_X, first_thread, thread_step


def grid_1d(n):
    """(blocks, threads) for n elements: kernels stride over the grid, so any size is right."""
    return max(1, min((int(n) + BLOCK - 1) // BLOCK, MAX_GRID_X)), BLOCK


@cuda.jit(cache=True)
def _convert(dst, src):
    for i in range(first_thread(), dst.size, thread_step()):
        dst[i] = src[i]


@cuda.jit(cache=True)
def _add(dst, src):
    # src of one element broadcasts (a scalar added to every element)
    for i in range(first_thread(), dst.size, thread_step()):
        dst[i] += src[i % src.size]


@cuda.jit(cache=True)
def _fill(dst, value):
    for i in range(first_thread(), dst.size, thread_step()):
        dst[i] = value


def _flat(array, what):
    if not array.is_c_contiguous():
        raise NotImplementedError(f"{what}: non-contiguous device arrays are not supported")
    return array.reshape(array.size)


def copy_into(dst, src):
    """dst[...] = src, converting the dtype; both of one shape (src may be a host array)."""
    from .array import is_device_array, to_device
    if not is_device_array(src):
        src = to_device(np.asarray(src))
    if tuple(src.shape) != tuple(dst.shape):
        raise ValueError(f"could not broadcast device array from shape {tuple(src.shape)} into "
                         f"shape {tuple(dst.shape)}")
    if dst.size:
        _convert[grid_1d(dst.size)](_flat(dst, "copy"), _flat(src, "copy"))


def add_into(dst, src):
    """dst += src for src of dst's shape, a scalar or a one-element array."""
    from .array import is_device_array, to_device
    if not is_device_array(src):
        src = to_device(np.asarray(src, dst.dtype).reshape(-1))
    if src.size != 1 and tuple(src.shape) != tuple(dst.shape):
        raise ValueError(f"operands could not be broadcast together with shapes "
                         f"{tuple(dst.shape)} {tuple(src.shape)}")
    if dst.size:
        _add[grid_1d(dst.size)](_flat(dst, "+="), _flat(src, "+="))


def fill(dst, value):
    if dst.size:
        _fill[grid_1d(dst.size)](_flat(dst, "fill"), value)
