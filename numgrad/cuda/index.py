"""Indexing forwards on the GPU: take (gather, index_select) reads flat positions; put_add and
scatter_add add at them with atomics, so duplicate positions accumulate; put_into and take_into
copy a device view's values to and from its base (Note [device views] in ops/views.py).

Positions are int64 arrays the ops compute on the host with NumPy; they are uploaded per call.
"""
import numpy as np
from numba import cuda

from .array import empty, is_device_array, to_device, zeros
from .basic import copy_into, grid_1d
from ..kernels.cuda import first_thread, thread_step


@cuda.jit(cache=True)
def _take(out, x, positions):
    for i in range(first_thread(), out.size, thread_step()):
        out[i] = x[positions[i]]


@cuda.jit(cache=True)
def _add_at(out, values, positions):
    for i in range(first_thread(), values.size, thread_step()):
        cuda.atomic.add(out, positions[i], values[i])


@cuda.jit(cache=True)
def _put(out, values, positions):
    for i in range(first_thread(), values.size, thread_step()):
        out[positions[i]] = values[i]


def _flat(a):
    return a.reshape(a.size)


def _on_device(positions):
    if is_device_array(positions):
        return positions
    return to_device(np.ascontiguousarray(positions, np.int64))


def take(x, positions):
    positions = _on_device(positions)
    out = empty(tuple(positions.shape), x.dtype)
    if out.size:
        _take[grid_1d(out.size)](_flat(out), _flat(x), _flat(positions))
    return out


def take_rows(x, rows):
    """x[rows] along dim 0 (rows a host array), through take at the rows' flat positions."""
    from ..ops.index import row_positions
    return take(x, row_positions(rows, x.shape))


def take_into(out, x, positions):
    """out[...] = x.flat[positions], into out's memory."""
    positions = _on_device(positions)
    if out.size:
        _take[grid_1d(out.size)](_flat(out), _flat(x), _flat(positions))


def put_into(out, values, positions):
    """out.flat[positions] = values, in out's memory (positions distinct)."""
    positions = _on_device(positions)
    if values.size:
        _put[grid_1d(values.size)](_flat(out), _flat(values), _flat(positions))


def _add_into(out, values, positions):
    positions = _on_device(positions)
    if values.size:
        _add_at[grid_1d(values.size)](_flat(out), _flat(values), _flat(positions))
    return out


def put_add(g, positions, shape):
    return _add_into(zeros(tuple(shape), g.dtype), g, positions)


def scatter_add(x, src, positions):
    out = empty(tuple(x.shape), x.dtype)
    copy_into(out, x)
    return _add_into(out, src, positions)
