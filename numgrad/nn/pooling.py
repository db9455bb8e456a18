"""Pooling layers: max, average and adaptive pooling over one or two dims."""
from . import functional as F
from .module import Module


class _MaxPoolNd(Module):
    """The settings both max poolings share, as torch's _MaxPoolNd (so their state and repr
    match torch's)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class _AvgPoolNd(Module):
    """The settings the average poolings share, as torch's _AvgPoolNd (AvgPool1d's are tuples)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptiveAvgPoolNd(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class _AdaptiveMaxPoolNd(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"


class MaxPool2d(_MaxPoolNd):
    """The maximum over each kernel_size window (stride defaults to kernel_size).

    >>> import numgrad as ng
    >>> ng.nn.MaxPool2d(2)(ng.ones(1, 3, 8, 8)).shape
    numgrad.Size([1, 3, 4, 4])
    """

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class AvgPool2d(_AvgPoolNd):
    """The mean over each kernel_size window (stride defaults to kernel_size).

    >>> import numgrad as ng
    >>> ng.nn.AvgPool2d(2)(ng.ones(1, 3, 8, 8)).shape
    numgrad.Size([1, 3, 4, 4])
    """

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """The mean over windows that tile the input into output_size (an int, or (h, w) where None
    keeps that input size).

    >>> import numgrad as ng
    >>> ng.nn.AdaptiveAvgPool2d((1, 2))(ng.ones(1, 3, 5, 5)).shape
    numgrad.Size([1, 3, 1, 2])
    """

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)


class MaxPool1d(_MaxPoolNd):
    """The maximum over each kernel_size window of (N, C, L) inputs (stride defaults to
    kernel_size).

    >>> import numgrad as ng
    >>> ng.nn.MaxPool1d(2)(ng.tensor([[[1.0, 3.0, 2.0, 0.0]]]))
    tensor([[[3., 2.]]])
    """

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


def _single(value):
    return (value,) if isinstance(value, int) else tuple(value)


class AvgPool1d(_AvgPoolNd):
    """The mean over each kernel_size window of (N, C, L) inputs (stride defaults to kernel_size).

    >>> import numgrad as ng
    >>> ng.nn.AvgPool1d(2)
    AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    """

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__(_single(kernel_size), _single(stride if stride is not None else kernel_size),
                         _single(padding), ceil_mode, count_include_pad)

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """The maximum over windows that tile the input into output_size.

    >>> import numgrad as ng
    >>> ng.nn.AdaptiveMaxPool2d((1, 2))(ng.ones(1, 3, 5, 5)).shape
    numgrad.Size([1, 3, 1, 2])
    """

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """The mean over windows that tile the last dim into output_size."""

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)
