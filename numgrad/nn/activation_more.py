"""More activation layers: Softmax2d and RReLU, over numgrad.nn.functional."""
from . import functional as F
from .module import Module


class Softmax2d(Module):
    """Softmax over the channels (dim -3) of (N, C, H, W) or (C, H, W) inputs, at each place."""

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D "
                             "instead")
        return F.softmax(input, -3)


class RReLU(Module):
    """Leaky ReLU with a negative slope drawn from [lower, upper] per element in training, their
    mean in evaluation.

    >>> import numgrad as ng
    >>> ng.nn.RReLU(0.25, 0.75).eval()(ng.tensor([-3.0, 2.0]))
    tensor([-1.5000,  2.0000])
    """

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace
                                                            else "")
