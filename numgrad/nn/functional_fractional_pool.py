"""Fractional max pooling for numgrad.nn.functional (Graham, https://arxiv.org/abs/1412.6071).

Each plane's windows start at pseudo-random offsets drawn from one sample u in [0, 1) per plane
and dim, with torch's formula in the input's own dtype (float32 rounding moves the starts):
alpha = (size - k) / (out - 1), start_i = int((i + u) * alpha) - int(u * alpha), and the last
window ends at the input's edge. The winner of a window is its first maximum, or its last NaN
(torch's `val > max || isnan(val)`). The values are read with `take`, whose gradient scatters
them back to the winners (as torch's backward does with the indices).

>>> import numgrad as ng
>>> import numgrad.nn.functional as F
>>> x = ng.arange(16.0).reshape(1, 1, 4, 4)
>>> F.fractional_max_pool2d(x, 2, output_size=2, _random_samples=ng.zeros(1, 1, 2))
tensor([[[[ 5.,  7.],
          [13., 15.]]]])
"""
import numpy as np

from .. import creation
from ..ops.index import take
from ..ops.named import named, read_by_backward
from ..ops.untracked import to_host
from ..tensor import Tensor


def _ints(value, dims, refusal):
    values = (value,) * dims if isinstance(value, (int, np.integer)) else tuple(value)
    if len(values) != dims:
        raise RuntimeError(refusal)
    return tuple(int(v) for v in values)


def _check_samples(input, samples, dims):
    """torch's fractional_max_pool_check_shape, in its order and words."""
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batch, channels = (1, input.shape[0]) if input.ndim == dims + 1 else input.shape[:2]
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != dims:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {dims}; got "
                           f"{samples.shape[2]}.")


def _starts(samples, size, out, k):
    """(planes, out) window starts along one dim, from each plane's sample (in its dtype)."""
    starts = np.full((samples.shape[0], out), size - k, dtype=np.int64)
    if out > 1:
        kind = samples.dtype.type
        alpha = kind(size - k) / kind(out - 1)
        steps = np.arange(out - 1).astype(samples.dtype)[None, :] + samples[:, None]
        starts[:, :-1] = ((steps * alpha).astype(np.int64)
                          - (samples * alpha).astype(np.int64)[:, None])
    return starts


def _winners(data, starts, kernel):
    """Flat positions in data (P, *sizes) of each window's winner: (P, *out)."""
    planes, sizes = data.shape[0], data.shape[1:]
    dims = len(sizes)
    # each dim's input coordinate of every (output position, tap), broadcast over all dims
    coords = []
    for d in range(dims):
        shape = [planes] + [1] * (2 * dims)
        shape[1 + d] = starts[d].shape[1]
        shape[1 + dims + d] = kernel[d]
        coords.append((starts[d][:, :, None] + np.arange(kernel[d])).reshape(shape))
    plane = np.arange(planes).reshape([planes] + [1] * (2 * dims))
    flat = np.ravel_multi_index((plane, *coords), data.shape)
    out = flat.shape[1:1 + dims]
    flat = flat.reshape(planes, *out, int(np.prod(kernel)))       # taps in (t, h, w) order
    values = data.reshape(-1)[flat]
    nan = np.isnan(values)
    last_nan = flat.shape[-1] - 1 - nan[..., ::-1].argmax(-1)
    best = np.where(nan.any(-1), last_nan, values.argmax(-1))
    return np.take_along_axis(flat, best[..., None], -1)[..., 0]


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, samples, dims, op):
    name = f"{op}()" if dims == 2 else f"{op}_out()"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if dims == 2 and len(output_ratio) > 2:
            raise ValueError(f"{op} requires output_ratio to either be a single Int or tuple "
                             f"of Ints.")
        # (a one-element list is not spread over the dims: torch's IndexError)
        ratio = (output_ratio,) * dims if isinstance(output_ratio, (int, float)) \
            else tuple(output_ratio)
        output_size = [int(input.size(d - dims) * ratio[d]) for d in range(dims)]
    if samples is None:
        batch = 1 if input.ndim == dims + 1 else input.size(0)
        samples = creation.rand(batch, input.size(-dims - 1), dims, dtype=input.dtype,
                                device=input.device)
    ints = "Ints" if dims == 2 else "three Ints"
    kernel = _ints(kernel_size, dims, f"{op}: kernel_size must either be a single Int or tuple "
                                      f"of {ints}")
    out = _ints(output_size, dims, f"{op}: output_size must either be a single Int or tuple of "
                                   f"{ints}")
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"{name}: Expected {dims + 1}D or {dims + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"{name}: Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(input.shape)} with dimension {dim} "
                               f"being empty.")
    sizes = input.shape[-dims:]
    checks = list(zip(("time", "height", "width")[3 - dims:], sizes, out, kernel))
    # torch's 3-D checks go time, width, height
    for word, size, o, k in checks if dims == 2 else [checks[0], checks[2], checks[1]]:
        # sic: torch's 3-D check is strict (an output that just fits is refused)
        if o + k - 1 > size or (dims == 3 and o + k - 1 == size):
            raise RuntimeError(f"{name}: pool {word} {k} too large relative to input {word} "
                               f"{size}")
    _check_samples(input, samples, dims)
    if min(out) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{next(o for o in out if o < 0)}: "
                           f"{list(input.shape[:-dims]) + list(out)}")
    lead = input.shape[:-dims]
    planes = int(np.prod(lead))
    data = np.ascontiguousarray(to_host(input.detach()._data)).reshape(planes, *sizes)
    channels = input.shape[-dims - 1]
    # plane p is (batch p // C, channel p % C); the samples' last dim runs (W, H) in 2-D and
    # (T, H, W) in 3-D, as torch's loops read them
    per_plane = to_host(samples.detach()._data)[:planes // channels].reshape(-1, dims)
    order = (1, 0) if dims == 2 else (0, 1, 2)
    starts = [_starts(per_plane[:, order[d]], sizes[d], out[d], kernel[d]) for d in range(dims)]
    positions = _winners(data, starts, kernel) if planes and min(out) > 0 else \
        np.zeros((planes, *out), np.int64)
    node = f"FractionalMaxPool{dims}DBackward0"
    values = take(read_by_backward(input, node), positions.reshape(*lead, *out))
    indices = positions - (np.arange(planes) * int(np.prod(sizes))).reshape(
        (-1,) + (1,) * dims)
    return named(values, node, input), Tensor._make(indices.reshape(*lead, *out), False)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """fractional_max_pool2d's values and indices (each within its (H, W) plane), always both."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples,
                                2, "fractional_max_pool2d")


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """The maximum of (kh, kw) windows of (N, C, H, W) or (C, H, W) inputs at pseudo-random
    starts that give output_size (or output_ratio times the input's size)."""
    values, indices = fractional_max_pool2d_with_indices(input, kernel_size, output_size,
                                                         output_ratio, True, _random_samples)
    return (values, indices) if return_indices else values


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """fractional_max_pool3d's values and indices (each within its volume), always both."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples,
                                3, "fractional_max_pool3d")


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """fractional_max_pool2d over (T, H, W) volumes of (N, C, T, H, W) or (C, T, H, W) inputs."""
    values, indices = fractional_max_pool3d_with_indices(input, kernel_size, output_size,
                                                         output_ratio, True, _random_samples)
    return (values, indices) if return_indices else values
