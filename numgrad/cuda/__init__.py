"""numgrad on NVIDIA GPUs through numba.cuda (NVIDIA's numba-cuda package, the `cuda` extra).

A CUDA tensor's data is a device array (array.py); an op whose inputs live on the GPU runs its CUDA
forward (dispatch.py) and records its node as usual, marked CUDA; a backward that needs CUDA nodes
runs in engine.py, driven by the same lowered arrays as the CPU scheduler. Importing this package
is cheap and never imports numba.cuda: the CPU-only install does not need it.

>>> x = numgrad.tensor([1., 2.], device="cuda", requires_grad=True)   # doctest: +SKIP
>>> (x * x).sum().backward(); x.grad
tensor([2., 4.], device='cuda:0')
"""
import ctypes.util
import importlib.util
import os
import sys

import numpy as np

from ..device import device as _device

CUDA = _device("cuda", 0)
_available = None


def is_available():
    """True when numba-cuda is installed and finds a GPU, or runs its simulator
    (NUMBA_ENABLE_CUDASIM=1)."""
    global _available
    if _available is None:
        _available = False
        if importlib.util.find_spec("numba_cuda") is not None:
            from numba import cuda
            _available = bool(cuda.is_available())
    return _available


def use_simulator_without_gpu():
    """Choose numba-cuda's simulator when numba-cuda is installed but no NVIDIA driver is, so the
    CUDA tests run anywhere (tests/conftest.py calls this). It must run before numba.cuda is first
    imported; an explicit NUMBA_ENABLE_CUDASIM in the environment is left alone."""
    if "numba.cuda" in sys.modules or importlib.util.find_spec("numba_cuda") is None:
        return
    if "NUMBA_ENABLE_CUDASIM" not in os.environ and ctypes.util.find_library("cuda") is None:
        import numba
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
        numba.core.config.reload_config()


def require_cuda():
    if not is_available():
        raise RuntimeError(
            "CUDA is not available: numgrad needs NVIDIA's numba-cuda package (pip install "
            "'numgrad-jit[cuda]') and a GPU with its driver, or the simulator "
            "(NUMBA_ENABLE_CUDASIM=1 set before numba.cuda is imported).")


def device_count():
    return 1 if is_available() else 0


def synchronize():
    """Wait for every queued kernel and copy (timings need it; results do not)."""
    require_cuda()
    from numba import cuda
    cuda.synchronize()


def device_of(data):
    """The device of a tensor's data that is not an ndarray: always cuda:0 (one GPU)."""
    return CUDA


def to_device(tensor, device, dtype=None):
    """Tensor.to(device[, dtype]) across devices: a copy that keeps requires_grad.

    The copy is a new leaf: numgrad records no node across devices, so a tensor that is part of a
    graph cannot move while grad mode is on (move leaves and inputs instead; see the README)."""
    from .. import dtypes, grad_mode
    from ..tensor import Tensor
    target = _device(device)
    if target.type == "cuda":
        require_cuda()
        if (target.index or 0) != 0:
            raise RuntimeError(f"Invalid device, only cuda:0 exists (got {target})")
    if tensor._node >= 0 and tensor._requires_grad and grad_mode.state.grad_enabled:
        raise NotImplementedError(
            f"moving a tensor that is part of a graph to {target} is not differentiable in "
            "numgrad: move the leaves (parameters, inputs) instead, or detach() it first")
    data = tensor._data
    dtype = np.dtype(dtype) if dtype is not None else data.dtype
    if target.type == "cuda":
        from .array import to_device as upload
        host = data if data.dtype == dtype else data.astype(dtype)
        moved = upload(host)
    else:
        moved = data.copy_to_host()
        if moved.dtype != dtype:
            moved = moved.astype(dtype)
    requires_grad = tensor._requires_grad and dtypes.is_floating(dtype)
    return Tensor._make(moved, requires_grad, inference=tensor._inference)
