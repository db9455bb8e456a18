"""More ways to make tensors, as torch has them: scalar_tensor, asarray, frombuffer,
empty_strided, and the deprecated range (end included)."""
import math
import warnings

import numpy as np

from . import creation, dtypes
from .tensor import Tensor


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor holding s, of the default float dtype unless dtype says otherwise (also for
    int and bool s, as torch's)."""
    return creation.tensor(s, dtype=dtype or dtypes.get_default_dtype(), device=device,
                           requires_grad=requires_grad)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """obj as a tensor, sharing memory with a tensor or NumPy array when dtype and device allow
    and copy is not True; copy=False refuses to copy."""
    shared = isinstance(obj, (Tensor, np.ndarray))
    if shared and not copy:
        result = creation.as_tensor(obj, dtype=dtype, device=device)
        if copy is False and result._data is not (obj._data if isinstance(obj, Tensor) else obj):
            raise ValueError("can't alias tensor from the object: a copy is needed for the dtype "
                             "or device asked for")
        # a new leaf sharing the memory, as torch's asarray makes
        return result.detach().requires_grad_(True) if requires_grad else result
    if copy is False and not shared:
        raise ValueError(f"can't alias tensor from an object of type {type(obj).__name__}")
    data = obj.detach() if isinstance(obj, Tensor) else obj
    return creation.tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """start, start + step, ... up to end included, of the default float dtype: deprecated in
    torch, which warns, for arange (end excluded)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its "
                  "behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    count = math.floor((end - start) / step) + 1
    values = start + step * np.arange(count, dtype=np.float64)
    return creation.tensor(values, dtype=dtype or dtypes.get_default_dtype(), device=device,
                           requires_grad=requires_grad)


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-d tensor over an object with the buffer protocol, sharing its memory."""
    array = np.frombuffer(buffer, np.dtype(dtype), count, offset)
    if not array.flags.writeable:
        warnings.warn("The given buffer is not writable, and PyTorch does not support "
                      "non-writable tensors.", UserWarning, stacklevel=2)
    result = creation.from_numpy(array)
    return result.requires_grad_(True) if requires_grad else result


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """An uninitialised tensor of size (laid out contiguously: numgrad keeps no other strides)."""
    return creation.empty(*size, dtype=dtype, device=device, requires_grad=requires_grad)
