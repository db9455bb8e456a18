"""Global switches of torch's API that numgrad accepts: the default device (only the CPU; pass
device= to put a tensor on a GPU), deterministic algorithms (numgrad's are deterministic
already), set_anomaly_enabled, and switches numgrad remembers without needing (matmul precision,
warn_always, flush_denormal, set_default_tensor_type, which sets the default dtype)."""
import warnings

from . import dtypes
from .autograd import anomaly
from .device import CPU, device as _device

_deterministic = {"mode": False, "warn_only": False}


def get_default_device():
    return CPU


def set_default_device(device):
    """Accepted for the CPU (or None, the CPU); numgrad's factories do not follow another default
    device."""
    if device is not None and _device(device).type != "cpu":
        raise NotImplementedError("numgrad's default device is the CPU: pass device= to the "
                                  "factory functions to make tensors on a GPU")


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Record the setting: numgrad's CPU and GPU kernels give the same results run after run
    already (scatter-adds on the GPU add in an order that may vary)."""
    _deterministic.update(mode=bool(mode), warn_only=bool(warn_only))


def are_deterministic_algorithms_enabled():
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    return _deterministic["warn_only"]


def set_anomaly_enabled(enabled, check_nan=True):
    """torch.set_anomaly_enabled: anomaly detection on or off, as autograd.set_detect_anomaly."""
    anomaly.set_detect_anomaly(enabled, check_nan)


_precision = ["highest"]
_debug_modes = {"default": 0, "warn": 1, "error": 2}
_warn_always = [False]


def get_float32_matmul_precision():
    return _precision[0]


def set_float32_matmul_precision(precision):
    """Accepted and remembered: NumPy's BLAS computes float32 products in float32 whatever it
    says ('highest')."""
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _precision[0] = precision


def get_deterministic_debug_mode():
    """0 (default), 1 (warn) or 2 (error): use_deterministic_algorithms' setting, as torch."""
    if not _deterministic["mode"]:
        return 0
    return 1 if _deterministic["warn_only"] else 2


def set_deterministic_debug_mode(debug_mode):
    """0/'default', 1/'warn' or 2/'error': use_deterministic_algorithms off, with warn_only, on."""
    if isinstance(debug_mode, str):
        if debug_mode not in _debug_modes:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _debug_modes[debug_mode]
    elif debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                           f"{debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def is_warn_always_enabled():
    return _warn_always[0]


def set_warn_always(b):
    """Remembered only: numgrad's warnings follow Python's warning filters."""
    _warn_always[0] = bool(b)


def set_flush_denormal(mode):
    """False: NumPy gives no control over denormal flushing (torch returns whether it could)."""
    return False


def init_num_threads():
    """Nothing to do: numgrad's thread pools start on first use."""


_TENSOR_TYPES = {"torch.FloatTensor": "float32", "torch.DoubleTensor": "float64",
                 "numgrad.FloatTensor": "float32", "numgrad.DoubleTensor": "float64"}


def set_default_tensor_type(t):
    """Deprecated in torch for set_default_dtype: a float tensor type sets the default dtype."""
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
                  UserWarning, stacklevel=2)
    name = t if isinstance(t, str) else getattr(t, "__name__", str(t))
    if name not in _TENSOR_TYPES:
        raise TypeError("only floating-point types are supported as the default type")
    dtypes.set_default_dtype(_TENSOR_TYPES[name])


def is_storage(obj):
    """numgrad has no storages: always False."""
    return False
