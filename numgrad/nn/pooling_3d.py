"""3-D pooling layers over functional_pool3d: MaxPool3d, AvgPool3d, AdaptiveAvgPool3d,
AdaptiveMaxPool3d, LPPool3d and MaxUnpool3d."""
from . import functional_pool3d as P
from .pooling import _AdaptiveAvgPoolNd, _AdaptiveMaxPoolNd, _AvgPoolNd, _MaxPoolNd
from .pooling_more import _LPPoolNd, _MaxUnpoolNd


class MaxPool3d(_MaxPoolNd):
    """The maximum over each kernel_size window of (N, C, D, H, W) inputs (stride defaults to
    kernel_size).

    >>> import numgrad as ng
    >>> ng.nn.MaxPool3d(2)(ng.ones(1, 3, 4, 4, 4)).shape
    numgrad.Size([1, 3, 2, 2, 2])
    """

    def forward(self, input):
        return P.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class AvgPool3d(_AvgPoolNd):
    """The mean over each kernel_size window of (N, C, D, H, W) inputs (stride defaults to
    kernel_size).

    >>> import numgrad as ng
    >>> ng.nn.AvgPool3d(2)(ng.ones(1, 3, 4, 4, 4)).shape
    numgrad.Size([1, 3, 2, 2, 2])
    """

    def forward(self, input):
        return P.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """The mean over windows that tile the input into output_size (an int, or (d, h, w) where
    None keeps that input size).

    >>> import numgrad as ng
    >>> ng.nn.AdaptiveAvgPool3d((1, 2, 2))(ng.ones(1, 3, 5, 5, 5)).shape
    numgrad.Size([1, 3, 1, 2, 2])
    """

    def forward(self, input):
        return P.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """The maximum over windows that tile the input into output_size."""

    def forward(self, input):
        return P.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class LPPool3d(_LPPoolNd):
    """(sum of x^norm_type over each window)^(1 / norm_type) of (N, C, D, H, W) inputs."""

    def forward(self, input):
        return P.lp_pool3d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class MaxUnpool3d(_MaxUnpoolNd):
    """MaxPool3d undone: each value put back at its index, zeros elsewhere."""

    dims = 3

    def forward(self, input, indices, output_size=None):
        return P.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)
