"""Global switches of torch's API that numgrad accepts: the default device (only the CPU; pass
device= to put a tensor on a GPU), deterministic algorithms (numgrad's are deterministic
already) and set_anomaly_enabled."""
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
