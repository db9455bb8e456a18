"""Flatten and Unflatten: reshape layers."""
from .module import Module


class Flatten(Module):
    """Flatten dims start_dim..end_dim into one (by default all but the batch dim).

    >>> import numgrad as ng
    >>> ng.nn.Flatten()(ng.ones(2, 3, 4)).shape
    numgrad.Size([2, 12])
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim into unflattened_size.

    >>> import numgrad as ng
    >>> ng.nn.Unflatten(1, (3, 4))(ng.ones(2, 12)).shape
    numgrad.Size([2, 3, 4])
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim = dim
        self.unflattened_size = tuple(unflattened_size)

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
