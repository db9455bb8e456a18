"""More layers over numgrad.nn.functional: Dropout3d, FeatureAlphaDropout, ChannelShuffle,
ConvTranspose1d, UpsamplingNearest2d, UpsamplingBilinear2d and InstanceNorm3d, and torch's names
kept for older code: NLLLoss2d and DataParallel."""
import warnings

from . import functional as F
from .conv import _ConvTransposeNd
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


class ConvTranspose1d(_ConvTransposeNd):
    """The transpose of a 1-D convolution, over (N, C, L) inputs; weight is (in_channels,
    out_channels / groups, k).

    >>> import numgrad as ng
    >>> ng.nn.ConvTranspose1d(4, 2, 3, stride=2)(ng.ones(1, 4, 5)).shape
    numgrad.Size([1, 2, 11])
    """

    rank = 1

    def forward(self, input, output_size=None):
        output_padding = self.output_padding if output_size is None \
            else self._output_padding(input, list(output_size))
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
