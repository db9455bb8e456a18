"""LazyLinear: a Linear whose in_features is taken from its first input."""
import numpy as np

from .. import creation
from .linear import Linear
from .module import Module
from .parameter import Parameter


class LazyLinear(Linear):
    """A Linear with in_features=0 until the first forward, which sizes weight (out, in) from the
    input's last dim, initialises it as Linear does and turns this module into a Linear. The
    parameters are the same objects before and after, so an optimizer made earlier updates them.

    >>> import numgrad as ng
    >>> layer = ng.nn.LazyLinear(2)
    >>> layer(ng.ones(5, 3)).shape, layer
    (numgrad.Size([5, 2]), Linear(in_features=3, out_features=2, bias=True))
    """

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        Module.__init__(self)
        self.in_features = 0
        self.out_features = out_features
        self.weight = Parameter(creation.empty(out_features, 0, dtype=dtype))
        self.bias = Parameter(creation.empty(out_features, dtype=dtype)) if bias else None
        self._device = device

    def reset_parameters(self):
        if self.in_features:
            super().reset_parameters()

    def forward(self, input):
        if self.in_features == 0:
            self._materialize(input.shape[-1])
        # (this module is a Linear now: super() would refuse it)
        return Linear.forward(self, input)

    def _materialize(self, in_features):
        self.in_features = in_features
        self.weight._data = np.empty((self.out_features, in_features), self.weight.dtype)
        self.reset_parameters()
        device = self._device
        del self._device
        self.__class__ = self.cls_to_become
        if device is not None:   # made on the CPU, where nn.init fills them
            self.to(device)
