"""More padding layers: zero padding of one or three dims, constant, reflection and replication
padding of three, and circular padding of one to three dims, over numgrad.nn.functional.pad."""
from .padding import ConstantPad1d, _ConstantPadNd, _IndexPadNd


class _CircularPadNd(_IndexPadNd):
    """torch's circular padding layers check the input's rank themselves, before padding."""

    mode = "circular"

    def forward(self, input):
        dims = len(self.padding) // 2
        if input.ndim not in (dims + 1, dims + 2):
            raise ValueError(f"expected {dims + 1}D or {dims + 2}D input (got {input.ndim}D input)")
        return super().forward(input)


class ZeroPad1d(ConstantPad1d):
    """Pad the last dim with zeros: padding is an int or (left, right).

    >>> import numgrad as ng
    >>> ng.nn.ZeroPad1d((1, 0))(ng.ones(1, 2))
    tensor([[0., 1., 1.]])
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dims with value: an int or (left, right, top, bottom, front, back)."""

    def __init__(self, padding, value):
        super().__init__(padding, value, 6)


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dims with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad3d(_IndexPadNd):
    """Pad the last three dims with their reflection."""

    mode = "reflect"

    def __init__(self, padding):
        super().__init__(padding, 6)


class ReplicationPad3d(_IndexPadNd):
    """Pad the last three dims by repeating their edge values."""

    mode = "replicate"

    def __init__(self, padding):
        super().__init__(padding, 6)


class CircularPad1d(_CircularPadNd):
    """Pad the last dim with the values from its other end (wrapping around).

    >>> import numgrad as ng
    >>> ng.nn.CircularPad1d(1)(ng.tensor([[[1.0, 2.0, 3.0]]]))
    tensor([[[3., 1., 2., 3., 1.]]])
    """

    def __init__(self, padding):
        super().__init__(padding, 2)


class CircularPad2d(_CircularPadNd):
    """Pad the last two dims circularly: padding is an int or (left, right, top, bottom)."""

    def __init__(self, padding):
        super().__init__(padding, 4)


class CircularPad3d(_CircularPadNd):
    """Pad the last three dims circularly."""

    def __init__(self, padding):
        super().__init__(padding, 6)
