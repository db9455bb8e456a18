"""3-D convolution layers: Conv3d, ConvTranspose3d and their lazy forms (over functional_conv3d)."""
from .conv import _ConvNd, _ConvTransposeNd
from .functional_conv3d import conv3d, conv_transpose3d
from .lazy import _LazyConv, _LazyConvTranspose


class Conv3d(_ConvNd):
    """3-D convolution over (N, C, D, H, W) or (C, D, H, W) inputs.

    >>> import numgrad as ng
    >>> conv = ng.nn.Conv3d(2, 4, 3, padding=1)
    >>> conv
    Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1))
    >>> conv(ng.ones(1, 2, 4, 4, 4)).shape
    numgrad.Size([1, 4, 4, 4, 4])
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(3, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        input, padding = self._padded(input)
        return conv3d(input, self.weight, self.bias, self.stride, padding, self.dilation,
                      self.groups)


class ConvTranspose3d(_ConvTransposeNd):
    """The transpose of a 3-D convolution (its gradient with respect to the input), over
    (N, C, D, H, W) inputs; weight is (in_channels, out_channels / groups, kd, kh, kw).

    >>> import numgrad as ng
    >>> up = ng.nn.ConvTranspose3d(4, 2, 3, stride=2, padding=1, output_padding=1)
    >>> up(ng.ones(1, 4, 3, 3, 3)).shape
    numgrad.Size([1, 2, 6, 6, 6])
    """

    rank = 3

    def forward(self, input, output_size=None):
        output_padding = self.output_padding if output_size is None \
            else self._output_padding(input, list(output_size))
        return conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                output_padding, self.groups, self.dilation)


class LazyConv3d(_LazyConv, Conv3d):
    """A Conv3d whose in_channels is its first input's."""

    cls_to_become = Conv3d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """A ConvTranspose3d whose in_channels is its first input's."""

    cls_to_become = ConvTranspose3d
