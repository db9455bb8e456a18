"""numgrad.nn.functional's other forms of functions it has: the in-place activations (relu_,
elu_, ...), the *_with_indices poolings, the deprecated upsample names, dropout3d and
feature_alpha_dropout (channel-wise), channel_shuffle and conv_transpose1d."""
import math
import warnings

import numpy as np

from ..ops.named import named
from .bool_argument import check_bool
from .functional_activation import celu, elu, hardtanh, leaky_relu, relu, selu, threshold
from .functional_conv import adaptive_max_pool2d, conv_transpose2d, max_pool1d, max_pool2d
from .functional_dropout import (_ALPHA_PRIME, _apply, _check_float_result, _check_p,
                                 _feature_dropout, _keep)
from .functional_pooling_more import adaptive_max_pool1d
from .functional_resample import interpolate
from .functional_rrelu import rrelu


# ---- in-place activations ----------------------------------------------------------------------
def relu_(input):
    return relu(input, inplace=True)


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def selu_(input):
    return selu(input, inplace=True)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


def threshold_(input, threshold_value, value):
    return threshold(input, threshold_value, value, inplace=True)


# ---- poolings that always return the indices -----------------------------------------------------
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    return adaptive_max_pool2d(input, output_size, True)


# ---- deprecated resampling names -----------------------------------------------------------------
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Bilinear with align_corners=True, as the old function did."""
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ---- channel-wise dropouts -----------------------------------------------------------------------
def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or unbatched (C, D, H, W) inputs with probability p,
    scaling the rest by 1 / (1 - p)."""
    _check_p(p)
    if input.ndim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is "
                      "deprecated and will result in an error in a future release. To retain the "
                      "behavior and silence this warning, please use dropout instead. Note that "
                      "dropout3d exists to provide channel-wise dropout on inputs with 3 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 4D "
                      "or 5D inputs).", UserWarning, stacklevel=2)
    return _feature_dropout(input, p, training, inplace, batched=input.ndim != 4)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (dim 1): a dropped channel takes selu's negative
    saturation value, and a * x + b restores zero mean and unit variance."""
    _check_p(p)
    check_bool(training, "feature_alpha_dropout_" if inplace else "feature_alpha_dropout", "train",
               3)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return _apply(input, np.zeros(input.shape), inplace)
    _check_float_result(input, alpha=True)
    keep = np.broadcast_to(_keep(tuple(input.shape[:2]) + (1,) * (input.ndim - 2), p),
                           input.shape)
    a = 1.0 / math.sqrt((_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    offset = (keep - 1.0) * (_ALPHA_PRIME * a) + _ALPHA_PRIME * a * p
    return _apply(input, keep * a, inplace, offset)


# ---- channel_shuffle and conv_transpose1d --------------------------------------------------------
def channel_shuffle(input, groups):
    """The channels (dim 1) regrouped: (g, C / g) read as (C / g, g), as ShuffleNet does."""
    if input.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    channels = input.shape[1]
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    if channels % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} "
                           f"channels and {groups} groups.")
    lead, rest = input.shape[0], tuple(input.shape[2:])
    grouped = input.reshape(lead, groups, channels // groups, *rest)
    # one node, torch's (its channel_shuffle is an op of its own)
    return named(grouped.transpose(1, 2).reshape(input.shape), "ChannelShuffleBackward0",
                 inputs=(input,), view_of_intermediate=True)


def _single(value):
    return int(value) if isinstance(value, (int, np.integer)) else int(value[0])


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transpose of conv1d: conv_transpose2d over (N, C, L) inputs as planes of height 1."""
    if input.ndim in (2, 3) and weight.ndim == 3 and input.shape[-2] != weight.shape[0]:
        # torch's message speaks of the 1-D shapes
        batched = input if input.ndim == 3 else input.unsqueeze(0)
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(batched.shape)} to have {weight.shape[0]} channels, but "
                           f"got {batched.shape[1]} channels instead")
    # one sample: torch's node takes it as a batch of one, squeezed after (SqueezeBackward1)
    unbatched = input.ndim == 2
    batched = input.unsqueeze(0) if unbatched else input
    out = conv_transpose2d(batched.unsqueeze(-2), weight.unsqueeze(-2), bias,
                           (1, _single(stride)), (0, _single(padding)),
                           (0, _single(output_padding)), groups, (1, _single(dilation)))
    # torch's one node (the squeeze views only the planes' result, an intermediate)
    out = named(out.squeeze(-2), "ConvolutionBackward0", batched, weight,
                inputs=(batched, weight, bias), view_of_intermediate=True)
    return out.squeeze(0) if unbatched else out
