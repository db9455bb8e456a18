"""Elementwise forwards on the GPU: one generated kernel per op (generate.py), broadcasting
through strides; inputs of the output's shape and one-element inputs take fast paths."""
import numpy as np
from numba import cuda

from .array import empty, is_device_array, to_device
from .basic import grid_1d
from .formulas import BOOL_RESULT, FORWARD
from .generate import kernels

MAXDIM = 8                 # shapes travel to the kernel as fixed-size tuples: one compilation
SAME, SCALAR, STRIDED = 0, 1, 2


@cuda.jit(device=True, inline="always")
def load(x, kind, strides, shape, i):
    """Input element for output element i: the same index, the one element, or by strides."""
    if kind == SAME:
        return x[i]
    if kind == SCALAR:
        return x[0]
    offset = 0
    for d in range(MAXDIM - 1, -1, -1):
        offset += (i % shape[d]) * strides[d]
        i //= shape[d]
    return x[offset]


_constants = {}


def device_input(value):
    """An input as a device array: host constants (Python scalars made 0-d arrays, masks) are
    uploaded, the scalars once per (value, dtype)."""
    if is_device_array(value):
        return value
    value = np.asarray(value)
    if value.ndim:
        return to_device(value)
    key = (value.dtype.str, value.tobytes())
    array = _constants.get(key)
    if array is None:
        if len(_constants) > 4096:
            _constants.clear()
        array = _constants[key] = to_device(value.reshape(1))
    return array


def _operand(x, shape):
    """(flat array, kind, strides as a MAXDIM tuple) of one input broadcast to shape."""
    flat = x.reshape(x.size) if x.ndim != 1 else x
    xshape = tuple(x.shape)       # the simulator's shapes refuse negative indices
    if xshape == shape:
        return flat, SAME, (0,) * MAXDIM
    if x.size == 1:
        return flat, SCALAR, (0,) * MAXDIM
    strides = [0] * MAXDIM
    step = 1
    for d in range(1, len(xshape) + 1):
        size = xshape[-d]
        if size != 1:
            strides[MAXDIM - d] = step
        step *= size
    return flat, STRIDED, tuple(strides)


def forward(op, arrays, attrs):
    """Run op's generated forward kernel; returns the output device array."""
    # the shapes as given: a host scalar constant is 0-d, though uploaded as one element
    shape = tuple(np.broadcast_shapes(*[tuple(a.shape) for a in arrays]))
    arrays = [device_input(a) for a in arrays]
    if len(shape) > MAXDIM:
        raise NotImplementedError(f"{op.name} on the GPU: at most {MAXDIM} dimensions")
    dtype = np.dtype(np.bool_) if op.name in BOOL_RESULT else np.result_type(*[a.dtype
                                                                              for a in arrays])
    out = empty(shape, dtype)
    n = out.size
    if n == 0:
        return out
    args = []
    for a in arrays:
        args.extend(_operand(a, shape))
    padded = (1,) * (MAXDIM - len(shape)) + shape
    names = list(FORWARD[op.name].__code__.co_varnames[:FORWARD[op.name].__code__.co_argcount])
    values = [float(np.asarray(attrs[name])) for name in names[len(arrays):]]
    kernel = getattr(kernels(), f"{op.name}_fwd")
    kernel[grid_1d(n)](out.reshape(n), n, padded, *args, *values)
    return out
