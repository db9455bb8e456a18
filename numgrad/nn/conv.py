"""Convolution layers: Conv1d, Conv2d (im2col and one matrix product; see functional_conv) and
ConvTranspose2d."""
import math

from .. import creation
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

# sets, as torch's, so that the errors print them as torch does
_PAD_MODES = {"zeros", "reflect", "replicate", "circular"}
_PAD_STRINGS = {"same", "valid"}


class _ConvNd(Module):
    def __init__(self, rank, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 groups, bias, padding_mode, device, dtype, transposed=False,
                 output_padding=0):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        as_tuple = lambda v: (v,) * rank if isinstance(v, int) else tuple(v)  # noqa: E731
        if isinstance(padding, str):
            if padding not in _PAD_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{_PAD_STRINGS}")
            if padding == "same" and any(s != 1 for s in as_tuple(stride)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PAD_MODES:
            raise ValueError(f"padding_mode must be one of {_PAD_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = as_tuple(kernel_size)
        self.stride = as_tuple(stride)
        self.padding = padding if isinstance(padding, str) else as_tuple(padding)
        self.dilation = as_tuple(dilation)
        self.output_padding = as_tuple(output_padding)
        self.transposed = transposed
        self.groups = groups
        self.padding_mode = padding_mode
        # a transposed convolution maps out to in: its weight is (in, out / groups, *kernel)
        shape = (in_channels, out_channels // groups) if transposed \
            else (out_channels, in_channels // groups)
        self.weight = Parameter(creation.empty(*shape, *self.kernel_size, dtype=dtype))
        # torch registers an absent bias as None
        self.register_parameter("bias", Parameter(creation.empty(out_channels, dtype=dtype))
                                if bias else None)
        self.reset_parameters()
        if device is not None:   # made on the CPU, where nn.init fills them
            self.to(device)

    def reset_parameters(self):
        # torch's default: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for the weight and the bias
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def _padded(self, input):
        """Non-zero padding modes pad first (torch's order: last dim first) and convolve with 0;
        padding='same' pads dilation*(k-1) per dim, the odd one on the right, as torch does."""
        if self.padding_mode == "zeros":
            return input, self.padding
        if self.padding == "same":
            sides = [(d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2)
                     for k, d in zip(self.kernel_size, self.dilation)]
        else:
            # 'valid' pads by nothing, but pads (torch's graph has the padding node)
            sides = [(p, p) for p in (self.padding if self.padding != "valid" else
                                      (0,) * len(self.kernel_size))]
        amounts = [amount for side in reversed(sides) for amount in side]
        return F.pad(input, amounts, mode=self.padding_mode), 0

    def extra_repr(self):
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,) * len(self.kernel_size):
            text += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class Conv1d(_ConvNd):
    """1-D convolution over (N, C, L) inputs.

    >>> import numgrad as ng
    >>> ng.nn.Conv1d(2, 4, 3, padding=1)(ng.ones(5, 2, 10)).shape
    numgrad.Size([5, 4, 10])
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(1, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        input, padding = self._padded(input)
        return F.conv1d(input, self.weight, self.bias, self.stride, padding, self.dilation,
                        self.groups)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C, H, W) inputs.

    >>> import numgrad as ng
    >>> conv = ng.nn.Conv2d(1, 8, 3, padding=1)
    >>> conv
    Conv2d(1, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
    >>> conv(ng.ones(2, 1, 16, 16)).shape
    numgrad.Size([2, 8, 16, 16])
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(2, in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input):
        input, padding = self._padded(input)
        return F.conv2d(input, self.weight, self.bias, self.stride, padding, self.dilation,
                        self.groups)


class _ConvTransposeNd(_ConvNd):
    """The transposed convolutions of rank 1 and 2 (the class attribute `rank`)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(self.rank, in_channels, out_channels, kernel_size, stride, padding,
                         dilation, groups, bias, padding_mode, device, dtype, True,
                         output_padding)

    def _output_padding(self, input, output_size):
        """The output_padding that makes the output output_size (torch's range check): a strided
        transposed convolution can end at any of stride sizes."""
        rank = self.rank
        lead = 2 if input.ndim == rank + 2 else 1
        if len(output_size) == lead + rank:
            output_size = output_size[lead:]
        if len(output_size) != rank:
            raise ValueError(f"ConvTranspose{rank}D: for {input.ndim}D input, output_size must "
                             f"have {rank} or {lead + rank} elements (got {len(output_size)})")
        smallest = [(input.shape[lead + d] - 1) * self.stride[d] - 2 * self.padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1 for d in range(rank)]
        largest = [size + stride - 1 for size, stride in zip(smallest, self.stride)]
        if any(not low <= size <= high for size, low, high in zip(output_size, smallest, largest)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes range "
                             f"from {smallest} to {largest} (for an input of "
                             f"numgrad.Size({list(input.shape[lead:])}))")
        return tuple(size - low for size, low in zip(output_size, smallest))


class ConvTranspose2d(_ConvTransposeNd):
    """The transpose of a 2-D convolution (its gradient with respect to the input), over
    (N, C, H, W) inputs; weight is (in_channels, out_channels / groups, kh, kw).

    >>> import numgrad as ng
    >>> up = ng.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)
    >>> up
    ConvTranspose2d(4, 2, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), output_padding=(1, 1))
    >>> up(ng.ones(1, 4, 5, 5)).shape
    numgrad.Size([1, 2, 10, 10])
    """

    rank = 2

    def forward(self, input, output_size=None):
        output_padding = self.output_padding if output_size is None \
            else self._output_padding(input, list(output_size))
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)
