"""Dropout: active in training mode only."""
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
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"
