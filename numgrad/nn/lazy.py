"""Lazy layers: LazyLinear, LazyConv1d/2d, LazyConvTranspose1d/2d, LazyBatchNorm1d/2d/3d and
LazyInstanceNorm1d/2d/3d, whose input size (in_features, in_channels, num_features) is taken
from their first input. That call sizes and initialises the parameters and buffers as the layer
they become would (cls_to_become), then the module becomes that layer. The parameter objects
stay the same, so an optimizer made before the first call updates them.

>>> import numgrad as ng
>>> layer = ng.nn.LazyLinear(2)
>>> layer(ng.ones(5, 3)).shape, layer
(numgrad.Size([5, 2]), Linear(in_features=3, out_features=2, bias=True))
"""
import itertools

from .conv import Conv1d, Conv2d, ConvTranspose2d
from .layers_more import ConvTranspose1d, InstanceNorm3d
from .linear import Linear
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d,
                            InstanceNorm2d)


class _LazyMixin:
    """The layer of cls_to_become with its input size 0 until the first forward."""

    cls_to_become = None
    inferred = ""             # the constructor argument the first input decides

    def _lazy_init(self, arguments):
        self._lazy_arguments = arguments
        self.cls_to_become.__init__(self, **{self.inferred: 0}, **arguments)

    def reset_parameters(self):
        # nothing to initialise before the input size is known
        if getattr(self, self.inferred):
            self.cls_to_become.reset_parameters(self)

    def _input_size(self, input):
        return input.shape[1] if input.ndim > 1 else input.shape[0]

    def forward(self, input, *args, **kwargs):
        layer_class = self.cls_to_become
        if getattr(self, self.inferred) == 0:
            self._materialize(self._input_size(input))
        # (this module is a layer_class now: super() would refuse it)
        return layer_class.forward(self, input, *args, **kwargs)

    def _materialize(self, size):
        layer = self.cls_to_become(**{self.inferred: size}, **self._lazy_arguments)
        for name, value in itertools.chain(layer.named_parameters(recurse=False),
                                           layer.named_buffers(recurse=False)):
            own = getattr(self, name)
            if own is not None:
                own._data = value._data
        setattr(self, self.inferred, size)
        del self._lazy_arguments
        self.__class__ = self.cls_to_become


class LazyLinear(_LazyMixin, Linear):
    """A Linear whose in_features is its first input's last dim."""

    cls_to_become = Linear
    inferred = "in_features"

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        self._lazy_init(dict(out_features=out_features, bias=bias, device=device, dtype=dtype))

    def _input_size(self, input):
        return input.shape[-1]


class _LazyConv(_LazyMixin):
    inferred = "in_channels"

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        self._lazy_init(dict(out_channels=out_channels, kernel_size=kernel_size, stride=stride,
                             padding=padding, dilation=dilation, groups=groups, bias=bias,
                             padding_mode=padding_mode, device=device, dtype=dtype))

    def _input_size(self, input):
        # the channels lead an unbatched input, which has one dim per kernel dim besides
        return input.shape[0 if input.ndim == len(self.kernel_size) + 1 else 1]


class LazyConv1d(_LazyConv, Conv1d):
    """A Conv1d whose in_channels is its first input's."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """A Conv2d whose in_channels is its first input's."""

    cls_to_become = Conv2d


class _LazyConvTranspose(_LazyConv):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        self._lazy_init(dict(out_channels=out_channels, kernel_size=kernel_size, stride=stride,
                             padding=padding, output_padding=output_padding, groups=groups,
                             bias=bias, dilation=dilation, padding_mode=padding_mode,
                             device=device, dtype=dtype))


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """A ConvTranspose1d whose in_channels is its first input's."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """A ConvTranspose2d whose in_channels is its first input's."""

    cls_to_become = ConvTranspose2d


class _LazyNorm(_LazyMixin):
    """torch's lazy norm layers: affine and tracking running statistics by default (the
    instance norms too)."""

    inferred = "num_features"

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        self._lazy_init(dict(eps=eps, momentum=momentum, affine=affine,
                             track_running_stats=track_running_stats, device=device, dtype=dtype,
                             bias=bias))


class LazyBatchNorm1d(_LazyNorm, BatchNorm1d):
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNorm, BatchNorm2d):
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNorm, BatchNorm3d):
    cls_to_become = BatchNorm3d


class _LazyInstanceNorm(_LazyNorm):
    def _input_size(self, input):
        unbatched, _ = self.expected_dims
        return input.shape[0 if input.ndim == unbatched else 1]


class LazyInstanceNorm1d(_LazyInstanceNorm, InstanceNorm1d):
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyInstanceNorm, InstanceNorm2d):
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyInstanceNorm, InstanceNorm3d):
    cls_to_become = InstanceNorm3d
