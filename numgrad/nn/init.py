"""numgrad.nn.init: fill tensors in place with torch's initialisation schemes (gain and fan rules).

Random values come from numgrad's generator: numgrad.manual_seed makes them reproducible.

>>> import numgrad as ng
>>> w = ng.empty(3, 4)
>>> _ = ng.nn.init.xavier_uniform_(w)
>>> float(w.abs().max()) <= (6 / 7) ** 0.5
True
"""
import math

from .. import creation


def _fill(tensor, values):
    """Write values into tensor's memory; an in-place change, so the version moves on."""
    tensor._data[...] = values
    tensor._bump_version()
    return tensor


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (torch's table).

    >>> calculate_gain("relu")
    1.4142135623730951
    """
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor, mode):
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0):
    """Fill with U(a, b)."""
    return _fill(tensor, creation.generator().uniform(a, b, tensor.shape))


def normal_(tensor, mean=0.0, std=1.0):
    """Fill with N(mean, std^2)."""
    return _fill(tensor, creation.generator().normal(mean, std, tensor.shape))


def constant_(tensor, val):
    return _fill(tensor, val)


def zeros_(tensor):
    return _fill(tensor, 0)


def ones_(tensor):
    return _fill(tensor, 1)


def xavier_uniform_(tensor, gain=1.0):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound)


def xavier_normal_(tensor, gain=1.0):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al., 2015)."""
    if 0 in tensor.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    """N(0, std^2) with std = gain / sqrt(fan)."""
    if 0 in tensor.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std)
