"""Resampling for numgrad.nn.functional: pixel_shuffle / pixel_unshuffle (a reshape and a permute)
and interpolate, whose 'nearest', 'linear' and 'bilinear' modes are products with per-axis
interpolation matrices (rows of one-hot or two weights, torch's source positions), so the
gradient is the transposed product.

>>> import numgrad as ng
>>> import numgrad.nn.functional as F
>>> F.interpolate(ng.tensor([[[1.0, 2.0]]]), scale_factor=2)
tensor([[[1., 1., 2., 2.]]])
"""
import math

import numpy as np

from ..creation import as_tensor
from ..ops.named import named

_LINEAR_MODES = {"linear": 1, "bilinear": 2}
# every mode torch knows (numgrad computes the first three): another is refused in torch's words
_TORCH_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "lanczos", "area",
                "nearest-exact")


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r): each group of r^2 channels becomes an r x r block.

    >>> F.pixel_shuffle(ng.arange(4.0).reshape(1, 4, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]]]])
    """
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.ndim} dimension(s)")
    r = int(upscale_factor)
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible "
                           f"by the square of upscale_factor, but input.size(-3)={c} is not "
                           f"divisible by {r * r}")
    k = len(lead)
    blocks = input.reshape(*lead, c // (r * r), r, r, h, w)
    order = list(range(k)) + [k, k + 3, k + 1, k + 4, k + 2]
    return named(blocks.permute(order).reshape(*lead, c // (r * r), h * r, w * r),
                 "PixelShuffleBackward0", inputs=(input,))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of pixel_shuffle.

    >>> F.pixel_unshuffle(ng.arange(4.0).reshape(1, 1, 2, 2), 2).flatten()
    tensor([0., 1., 2., 3.])
    """
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.ndim} dimension(s)")
    r = int(downscale_factor)
    *lead, c, h, w = input.shape
    for name, size, dim in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({dim})={size} is not divisible "
                               f"by {r}")
    k = len(lead)
    blocks = input.reshape(*lead, c, h // r, r, w // r, r)
    order = list(range(k)) + [k, k + 2, k + 4, k + 1, k + 3]
    return named(blocks.permute(order).reshape(*lead, c * r * r, h // r, w // r),
                 "PixelUnshuffleBackward0", inputs=(input,))


def _nearest_matrix(size, out, scale, dtype):
    """(out, size): row i picks torch's source floor(i * scale), computed in float32 as its
    kernel does, where scale is 1 / scale_factor when one was given, else size / out."""
    scale = np.float32(size / out if scale is None else 1.0 / scale)
    source = np.minimum(np.floor(np.arange(out, dtype=np.float32) * scale).astype(np.int64),
                        size - 1)
    matrix = np.zeros((out, size), dtype)
    matrix[np.arange(out), source] = 1.0
    return matrix


def _linear_matrix(size, out, scale, align_corners, dtype):
    """(out, size): row i mixes the two inputs around torch's source position for output i."""
    if align_corners:
        source = np.arange(out) * ((size - 1) / (out - 1) if out > 1 else 0.0)
    else:
        step = size / out if scale is None else 1.0 / scale
        source = np.maximum((np.arange(out) + 0.5) * step - 0.5, 0.0)
    low = source.astype(np.int64)
    high = np.minimum(low + 1, size - 1)
    weight = source - low
    matrix = np.zeros((out, size), dtype)
    np.add.at(matrix, (np.arange(out), low), 1.0 - weight)
    np.add.at(matrix, (np.arange(out), high), weight)
    return matrix


def _as_list(value, count):
    return list(value) if isinstance(value, (tuple, list)) else [value] * count


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of (N, C, L) or (N, C, H, W) inputs to size, or by scale_factor:
    'nearest' (3-D or 4-D), 'linear' (3-D) or 'bilinear' (4-D, align_corners as torch's).

    >>> F.interpolate(ng.tensor([[[[0.0, 1.0]]]]), size=(1, 3), mode="bilinear",
    ...               align_corners=True)
    tensor([[[[0.0000, 0.5000, 1.0000]]]])
    """
    if mode == "nearest" and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if mode in _LINEAR_MODES and input.ndim != _LINEAR_MODES[mode] + 2:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{_LINEAR_MODES[mode] + 2}D input")
    if mode not in _TORCH_MODES:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.ndim}D) for the modes: {' | '.join(_TORCH_MODES)} "
                                  f"(got {mode})")
    if mode not in ("nearest",) + tuple(_LINEAR_MODES) or input.ndim not in (3, 4) or antialias:
        raise NotImplementedError(f"interpolate supports the modes nearest, linear and bilinear "
                                  f"of 3-D or 4-D inputs without antialias (got {mode} of a "
                                  f"{input.ndim}-D input)")
    dims = input.ndim - 2
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    sizes = list(input.shape[2:])
    if size is not None:
        outs, scales = [int(s) for s in _as_list(size, dims)], [None] * dims
    else:
        scales = [float(s) for s in _as_list(scale_factor, dims)]
        outs = [math.floor(n * s) for n, s in zip(sizes, scales)]
        if recompute_scale_factor:
            scales = [None] * dims
    dtype = input.dtype
    if mode == "nearest":
        matrices = [_nearest_matrix(n, o, s, dtype) for n, o, s in zip(sizes, outs, scales)]
    else:
        matrices = [_linear_matrix(n, o, s, bool(align_corners), dtype)
                    for n, o, s in zip(sizes, outs, scales)]
    last = as_tensor(matrices[-1].T.copy(), device=input.device)
    out = input @ last if dims == 1 else as_tensor(matrices[0], device=input.device) @ input @ last
    return named(out, f"Upsample{mode.capitalize() if mode != 'bilinear' else 'Bilinear'}"
                      f"{dims}DBackward0", inputs=(input,))
