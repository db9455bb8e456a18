"""Padding layers: constant (and zero), reflection and replication padding of the last one or two
dims, over numgrad.nn.functional.pad."""
from . import functional as F
from .module import Module


def _widths(padding, count):
    """torch's padding argument: an int for every side, or a tuple of count amounts."""
    if isinstance(padding, int):
        return (padding,) * count
    padding = tuple(padding)
    if len(padding) != count:
        raise ValueError(f"Padding must be an int or a tuple of {count} ints, got {padding}")
    return padding


class _ConstantPadNd(Module):
    def __init__(self, padding, value, sides):
        super().__init__()
        self.padding = _widths(padding, sides)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with value: padding is an int or (left, right).

    >>> import numgrad as ng
    >>> ng.nn.ConstantPad1d((1, 2), 3.5)(ng.ones(1, 2))
    tensor([[3.5000, 1.0000, 1.0000, 3.5000, 3.5000]])
    """

    def __init__(self, padding, value):
        super().__init__(padding, value, 2)


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dims with value: padding is an int or (left, right, top, bottom)."""

    def __init__(self, padding, value):
        super().__init__(padding, value, 4)


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dims with zeros: padding is an int or (left, right, top, bottom).

    >>> import numgrad as ng
    >>> ng.nn.ZeroPad2d((1, 0, 0, 1))(ng.ones(1, 1, 1))
    tensor([[[0., 1.],
             [0., 0.]]])
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class _IndexPadNd(Module):
    mode = ""

    def __init__(self, padding, sides):
        super().__init__()
        self.padding = _widths(padding, sides)

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_IndexPadNd):
    """Pad the last dim with its reflection (the edge itself not repeated).

    >>> import numgrad as ng
    >>> ng.nn.ReflectionPad1d(2)(ng.tensor([[1.0, 2.0, 3.0]]))
    tensor([[3., 2., 1., 2., 3., 2., 1.]])
    """

    mode = "reflect"

    def __init__(self, padding):
        super().__init__(padding, 2)


class ReflectionPad2d(_IndexPadNd):
    """Pad the last two dims with their reflection: padding is an int or (left, right, top,
    bottom)."""

    mode = "reflect"

    def __init__(self, padding):
        super().__init__(padding, 4)


class ReplicationPad1d(_IndexPadNd):
    """Pad the last dim by repeating its edge values.

    >>> import numgrad as ng
    >>> ng.nn.ReplicationPad1d((1, 2))(ng.tensor([[1.0, 2.0]]))
    tensor([[1., 1., 2., 2., 2.]])
    """

    mode = "replicate"

    def __init__(self, padding):
        super().__init__(padding, 2)


class ReplicationPad2d(_IndexPadNd):
    """Pad the last two dims by repeating their edge values."""

    mode = "replicate"

    def __init__(self, padding):
        super().__init__(padding, 4)
