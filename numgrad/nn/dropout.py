"""Dropout: active in training mode only."""
from ..creation import ones
from . import functional as F
from .module import Module


class Dropout(Module):
    """Zero elements with probability p in training (scaling the rest by 1 / (1 - p)).

    >>> import numgrad as ng
    >>> ng.nn.Dropout(0.5).eval()(ng.ones(3))
    tensor([1., 1., 1.])
    """

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        if self.training and input.is_cuda:
            # F.dropout multiplies by a mask drawn on the host, which an op on the GPU refuses as
            # a CPU operand; until it moves the mask itself, draw the same mask from the same
            # generator (F.dropout of ones) and send it to the input's device
            mask = F.dropout(ones(input.shape, dtype=input.dtype), self.p).to(input.device)
            return input.mul_(mask) if self.inplace else input * mask
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"
