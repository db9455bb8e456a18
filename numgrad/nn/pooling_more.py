"""More pooling layers: adaptive max pooling over one dim, power-average (LP) pooling and max
unpooling, over numgrad.nn.functional."""
from . import functional as F
from .module import Module
from .pooling import _AdaptiveMaxPoolNd


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """The maximum over windows that tile the last dim into output_size."""

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class _LPPoolNd(Module):
    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """(sum of x^norm_type over each window)^(1 / norm_type) of (N, C, L) inputs.

    >>> import numgrad as ng
    >>> ng.nn.LPPool1d(2, 2)(ng.tensor([[[3.0, 4.0]]]))
    tensor([[[5.]]])
    """

    def forward(self, input):
        return F.lp_pool1d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """(sum of x^norm_type over each window)^(1 / norm_type) of (N, C, H, W) inputs."""

    def forward(self, input):
        return F.lp_pool2d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


def _tuple(value, count):
    return (value,) * count if isinstance(value, int) else tuple(value)


class _MaxUnpoolNd(Module):
    dims = 0

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _tuple(kernel_size, self.dims)
        self.stride = _tuple(stride if stride is not None else kernel_size, self.dims)
        self.padding = _tuple(padding, self.dims)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """MaxPool1d undone: each value put back at its index (from return_indices), zeros elsewhere.

    >>> import numgrad as ng
    >>> ng.nn.MaxUnpool1d(2)(ng.tensor([[[3.0, 2.0]]]), ng.tensor([[[1, 2]]]))
    tensor([[[0., 3., 2., 0.]]])
    """

    dims = 1

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """MaxPool2d undone: each value put back at its index, zeros elsewhere."""

    dims = 2

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)
