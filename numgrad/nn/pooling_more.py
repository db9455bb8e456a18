"""More pooling layers: adaptive max pooling over one dim, power-average (LP) pooling, max
unpooling and fractional max pooling, over numgrad.nn.functional."""
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


def _spread(value, count):
    """torch's _pair/_triple: a sequence as it is, anything else repeated."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * count


class _FractionalMaxPoolNd(Module):
    dims = 0

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        self.kernel_size = _spread(kernel_size, self.dims)
        self.return_indices = return_indices
        # fixed samples (one per plane and dim) make the windows repeatable; None draws anew
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = None if output_size is None else _spread(output_size, self.dims)
        self.output_ratio = None if output_ratio is None else _spread(output_ratio, self.dims)
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{self.dims}d requires specifying either an "
                             f"output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """The maximum of (kh, kw) windows at pseudo-random starts, to output_size or output_ratio
    times the input's (H, W).

    >>> import numgrad as ng
    >>> pool = ng.nn.FractionalMaxPool2d(2, output_size=2, _random_samples=ng.zeros(1, 1, 2))
    >>> pool(ng.arange(16.0).reshape(1, 1, 4, 4))
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """

    dims = 2

    def forward(self, input):
        return F.fractional_max_pool2d(input, self.kernel_size, self.output_size,
                                       self.output_ratio, self.return_indices,
                                       _random_samples=self._random_samples)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """FractionalMaxPool2d over (T, H, W) volumes."""

    dims = 3

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        if (isinstance(kernel_size, int) and kernel_size <= 0) or (
                isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        super().__init__(kernel_size, output_size, output_ratio, return_indices,
                         _random_samples)

    def forward(self, input):
        return F.fractional_max_pool3d(input, self.kernel_size, self.output_size,
                                       self.output_ratio, self.return_indices,
                                       _random_samples=self._random_samples)
