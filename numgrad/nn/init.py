"""numgrad.nn.init: fill tensors in place with torch's initialisation schemes (gain and fan rules).

Random values come from numgrad's generator: numgrad.manual_seed makes them reproducible.

>>> import numgrad as ng
>>> w = ng.empty(3, 4)
>>> _ = ng.nn.init.xavier_uniform_(w)
>>> float(w.abs().max()) <= (6 / 7) ** 0.5
True
"""
import math
import warnings

import numpy as np

from .. import creation, dtypes


def _fill(tensor, values, writes=1):
    """Write values into tensor's memory; an in-place change, so the version moves on, by
    torch's count of in-place writes for the fill (dirac_ sets each one in its own write, say)."""
    tensor._data[...] = values
    for _ in range(writes):
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


def _calculate_correct_fan(tensor, mode):
    # torch's private name, which libraries import as they do _calculate_fan_in_and_fan_out
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _rng(generator):
    """generator (a numpy Generator) when given, else numgrad's seeded one."""
    return creation.generator() if generator is None else generator


def _check_samplable(tensor, kernel):
    """torch's fills run its sampling kernels, which exist for floating dtypes only; kernel is the
    name torch's refusal gives ("check_uniform_bounds", "normal_kernel_cpu")."""
    if not dtypes.is_floating(tensor.dtype):
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{dtypes.scalar_type_name(tensor.dtype)}'")


def _check_uniform(tensor, a, b):
    _check_samplable(tensor, "check_uniform_bounds")
    if a > b:       # bounds printed as C++ prints doubles: 2, 1.5
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a:g} "
                           f"> to={b:g}")


def _check_normal(tensor, std):
    _check_samplable(tensor, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with U(a, b)."""
    _check_uniform(tensor, a, b)
    return _fill(tensor, _rng(generator).uniform(a, b, tensor.shape))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with N(mean, std^2)."""
    _check_normal(tensor, std)
    return _fill(tensor, _rng(generator).normal(mean, std, tensor.shape))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill with N(mean, std^2) truncated to [a, b], by torch's method: uniform values between
    the bounds' CDFs through the inverse CDF, clamped against rounding.

    >>> w = trunc_normal_(ng.empty(1000), std=2.0, a=-1.0, b=1.0)
    >>> bool(w.abs().max() <= 1.0)
    True
    """
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    # torch samples U(a, b) with rejection against the density, which reads std squared only
    _check_uniform(tensor, a, b)
    std = abs(std)
    from scipy import special   # here: importing it costs 0.2 s of every numgrad start
    low, high = (special.ndtr((bound - mean) / std) for bound in (a, b))
    values = special.erfinv(_rng(generator).uniform(2 * low - 1, 2 * high - 1, tensor.shape))
    return _fill(tensor, np.clip(values * std * math.sqrt(2.0) + mean, a, b))


def constant_(tensor, val):
    return _fill(tensor, val)


def zeros_(tensor):
    return _fill(tensor, 0)


def ones_(tensor):
    return _fill(tensor, 1)


def eye_(tensor):
    """The identity in a 2-D tensor (ones on the diagonal of a rectangle too).

    >>> eye_(ng.empty(2, 3))
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor.shape))


def dirac_(tensor, groups=1):
    """The identity of a convolution: each of the first min(out/groups, in) output channels of
    each group copies its input channel through the kernel's centre.

    >>> dirac_(ng.empty(2, 1, 3))
    tensor([[[0., 1., 0.]],
    <BLANKLINE>
            [[0., 0., 0.]]])
    """
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_channels, in_channels = tensor.shape[:2]
    if out_channels % groups:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = out_channels // groups
    centre = tuple(size // 2 for size in tensor.shape[2:])
    values = np.zeros(tensor.shape)
    for group in range(groups):
        for channel in range(min(per_group, in_channels)):
            values[(group * per_group + channel, channel) + centre] = 1
    # torch zeroes the tensor, then sets each 1 in place
    return _fill(tensor, values, writes=1 + groups * min(per_group, in_channels))


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix (Saxe et al., 2013) over the tensor's first dim and the rest
    flattened, scaled by gain: the Q of a Gaussian matrix's QR, signs fixed by R's diagonal.

    >>> w = orthogonal_(ng.empty(3, 5))
    >>> bool(((w @ w.T) - ng.eye(3)).abs().max() < 1e-5)
    True
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    _check_samplable(tensor, "normal_kernel_cpu")
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _rng(generator).normal(0.0, 1.0, (rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q *= np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, (gain * q).reshape(tensor.shape), writes=2)   # torch: copy_, mul_(gain)


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """N(0, std^2) values with ceil(sparsity * rows) zeros in each column of a 2-D tensor
    (Martens, 2010).

    >>> int((sparse_(ng.empty(4, 3), 0.5) == 0).sum())
    6
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    _check_normal(tensor, std)
    rows, cols = tensor.shape
    zeros = int(math.ceil(sparsity * rows))
    rng = _rng(generator)
    values = rng.normal(0.0, std, (rows, cols))
    for col in range(cols):
        values[rng.permutation(rows)[:zeros], col] = 0
    return _fill(tensor, values, writes=1 + cols)   # torch: normal_, then a write per column


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al., 2015)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with std = gain / sqrt(fan)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def _deprecated(fill):
    """torch's old name of a fill (uniform for uniform_): the same fill, with a FutureWarning."""
    old = fill.__name__[:-1]

    def deprecated_fill(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{fill.__name__}`.",
                      FutureWarning, stacklevel=2)
        return fill(*args, **kwargs)

    deprecated_fill.__name__ = old
    deprecated_fill.__doc__ = f"{fill.__name__} under its deprecated name."
    return deprecated_fill


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
