"""More layers over numgrad.nn.functional: Dropout3d, FeatureAlphaDropout, ChannelShuffle,
ConvTranspose1d, UpsamplingNearest2d, UpsamplingBilinear2d and InstanceNorm3d, and torch's names
kept for older code: NLLLoss2d and DataParallel."""
import warnings

from . import functional as F
from .conv import _ConvNd
from .dropout import _DropoutNd
from .loss import NLLLoss
from .module import Module
from .normalization import _InstanceNorm
from .resample import Upsample


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) inputs with probability p in training."""

    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class FeatureAlphaDropout(_DropoutNd):
    """AlphaDropout of whole channels, in training."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)


class ChannelShuffle(Module):
    """The channels regrouped: (groups, C / groups) read as (C / groups, groups).

    >>> import numgrad as ng
    >>> ng.nn.ChannelShuffle(2)(ng.arange(4.0).reshape(1, 4, 1)).reshape(-1)
    tensor([0., 2., 1., 3.])
    """

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


class ConvTranspose1d(_ConvNd):
    """The transpose of a 1-D convolution, over (N, C, L) inputs; weight is (in_channels,
    out_channels / groups, k).

    >>> import numgrad as ng
    >>> ng.nn.ConvTranspose1d(4, 2, 3, stride=2)(ng.ones(1, 4, 5)).shape
    numgrad.Size([1, 2, 11])
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for ConvTranspose1d')
        super().__init__(1, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype, True, output_padding)

    def forward(self, input, output_size=None):
        output_padding = self.output_padding
        if output_size is not None:
            lead = 2 if input.ndim == 3 else 1
            size = list(output_size)[-1]
            smallest = ((input.shape[lead] - 1) * self.stride[0] - 2 * self.padding[0]
                        + self.dilation[0] * (self.kernel_size[0] - 1) + 1)
            if not smallest <= size <= smallest + self.stride[0] - 1:
                raise ValueError(f"requested an output size of {[size]}, but valid sizes range "
                                 f"from {[smallest]} to {[smallest + self.stride[0] - 1]} (for "
                                 f"an input of numgrad.Size({list(input.shape[lead:])}))")
            output_padding = (size - smallest,)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)


class UpsamplingNearest2d(Upsample):
    """Upsample with mode 'nearest' (torch's older name)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Upsample with mode 'bilinear' and align_corners=True (torch's older name)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or unbatched (C, D, H, W) inputs."""

    expected_dims = (4, 5)


class NLLLoss2d(NLLLoss):
    """NLLLoss under its deprecated name (NLLLoss takes (N, C, H, W) inputs itself)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement and see https://pytorch.org/docs/main/nn.html"
                      "#torch.nn.NLLLoss for more details.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class DataParallel(Module):
    """torch's single-process data parallelism: without GPUs to split the batch over, as here on
    the CPU, it runs the wrapped module (torch does the same with no device)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = [] if device_ids is None else list(device_ids)
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
