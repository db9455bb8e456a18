"""gradient: a tensor's derivative along its dims estimated by finite differences (second-order
central differences inside, first- or second-order one-sided at the edges), as numpy.gradient and
torch.gradient compute it. Each estimate is a weighted sum of slices of the input, so it is
differentiable in the input; spacings and coordinates are constants."""
import numpy as np

from ..tensor import Tensor, _wrap_dim
from .shape import cat


def _coordinates(spacing, size):
    """The sample coordinates along a dim: spacing is a number (uniform steps) or a 1-d tensor of
    coordinates."""
    if isinstance(spacing, Tensor):
        return np.asarray(spacing._data, np.float64).reshape(-1)
    return np.arange(size, dtype=np.float64) * float(spacing)


def _weights(x, edge_order):
    """Per output position along the dim, the weights of the values at offsets -1, 0, +1 (for
    the first and last positions: of positions 0, 1, 2 and n-3, n-2, n-1)."""
    dx = np.diff(x)
    d1, d2 = dx[:-1], dx[1:]
    inner = (-d2 / (d1 * (d1 + d2)), (d2 - d1) / (d1 * d2), d1 / (d2 * (d1 + d2)))
    if edge_order == 1:
        first = (-1 / dx[0], 1 / dx[0], 0.0)
        last = (0.0, -1 / dx[-1], 1 / dx[-1])
    else:
        a, b = dx[0], dx[1]
        first = (-(2 * a + b) / (a * (a + b)), (a + b) / (a * b), -a / (b * (a + b)))
        a, b = dx[-2], dx[-1]
        last = (b / (a * (a + b)), -(a + b) / (a * b), (2 * b + a) / (b * (a + b)))
    return first, inner, last


def _along(input, d, start, stop):
    return input[(slice(None),) * d + (slice(start, stop),)]


def _derivative(input, d, spacing, edge_order):
    size = input.shape[d]
    if size < edge_order + 1:
        raise RuntimeError("torch.gradient expected each dimension size to be at least "
                           "edge_order+1")
    x = _coordinates(spacing, size)
    first, inner, last = _weights(x, edge_order)
    shape = (-1,) + (1,) * (input.ndim - d - 1)

    def weight(values):
        return Tensor._make(np.asarray(values, np.float64).astype(input.dtype).reshape(shape),
                            False).to(input.device)
    edge_first = sum(_along(input, d, k, k + 1) * float(first[k]) for k in range(3)
                     if first[k] != 0 and k < size)
    edge_last = sum(_along(input, d, size - 3 + k, size - 2 + k if k < 2 else None)
                    * float(last[k]) for k in range(3) if last[k] != 0)
    pieces = [edge_first]
    if size > 2:
        pieces.append(_along(input, d, 0, size - 2) * weight(inner[0])
                      + _along(input, d, 1, size - 1) * weight(inner[1])
                      + _along(input, d, 2, size) * weight(inner[2]))
    pieces.append(edge_last)
    return cat(pieces, d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """A tuple with the estimated derivative of input along each of dim (every dim by default).
    spacing: one number for every dim, one per dim, or one coordinates tensor per dim.

    >>> import numgrad as ng
    >>> ng.gradient(ng.tensor([1.0, 4.0, 9.0, 16.0]))
    (tensor([3., 4., 6., 7.]),)
    """
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if not input.is_floating_point():
        input = input.float()
    dims = list(range(input.ndim)) if dim is None else \
        [dim] if isinstance(dim, int) else list(dim)
    dims = [_wrap_dim(d, input.ndim) for d in dims]
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or "
                               f"it's spacing and dim arguments to have the same length, but got "
                               f"a spacing argument of length {len(spacing)} and a dim argument "
                               f"of length {len(dims)}.")
        spacings = list(spacing)
    else:
        spacings = [spacing] * len(dims)
    return tuple(_derivative(input, d, s, edge_order) for d, s in zip(dims, spacings))


PUBLIC = ("gradient",)
METHODS = ()
INPLACE = {}
