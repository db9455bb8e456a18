"""Results no gradient flows through: integer and bool arithmetic, reductions, scans and indices.

NumPy computes them. When an operand lives on the GPU, NumPy runs on a host copy and the result goes
back to the GPU, as sort and topk do (cuda/dispatch.py): these values are labels, counts and
indices, small beside the float work, and they are never on the gradient path. A CPU operand
beside a CUDA one is torch's device error, as in `apply`.
"""
import numpy as np

from ..tensor import Tensor

_DEVICES_ERROR = ("Expected all tensors to be on the same device, but found at least two devices, "
                  "cuda:0 and cpu!")


def _on_device(a):
    return hasattr(a, "copy_to_host")


def untracked(fn, *operands, **kwargs):
    """Tensor(fn(*operands)) on the operands' device, not requiring grad. Operands are arrays (host
    or device) or Python values; fn computes with NumPy."""
    device = [_on_device(a) for a in operands]
    if not any(device):
        return Tensor._make(np.asarray(fn(*operands, **kwargs)), False)
    for a, on_device in zip(operands, device):
        if not on_device and isinstance(a, np.ndarray) and a.ndim:
            raise RuntimeError(_DEVICES_ERROR)
    from ..cuda.array import to_device
    host = [np.asarray(a) if on_device else a for a, on_device in zip(operands, device)]
    return Tensor._make(to_device(fn(*host, **kwargs)), False)


def to_host(a):
    """An index or mask array for NumPy's position arithmetic, wherever it lives."""
    return np.asarray(a) if _on_device(a) else a
