"""Fold and Unfold: sliding windows to columns and back, over numgrad.nn.functional."""
from . import functional as F
from .module import Module


class Unfold(Module):
    """The kernel_size windows of (N, C, H, W) inputs as the columns of (N, C * kh * kw, L).

    >>> import numgrad as ng
    >>> ng.nn.Unfold(2)(ng.ones(1, 3, 4, 4)).shape
    numgrad.Size([1, 12, 9])
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """Columns (N, C * kh * kw, L) summed back into (N, C, H, W) images of output_size.

    >>> import numgrad as ng
    >>> ng.nn.Fold((3, 3), 2)(ng.ones(1, 4, 4))[0, 0]
    tensor([[1., 2., 1.],
            [2., 4., 2.],
            [1., 2., 1.]])
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")
