"""affine_grid and grid_sample: spatial transformers (Jaderberg et al., 2015) on 2-D images.

grid_sample reads input (N, C, H, W) at the points grid (N, Ho, Wo, 2) gives (x, y in [-1, 1]):
bilinearly, from the four neighbouring pixels, or at the nearest one. It is composed from `take`
(whose gradient scatters back into input) and the interpolation weights, differentiable in the
grid, so its gradients are torch's for both input and grid. Neighbours outside the image read
zeros, the border's value (padding_mode="border") or the reflected image ("reflection"), as
torch's grid sampler does; bicubic and 5-D inputs are not supported.
"""
import warnings

import numpy as np

from .. import creation
from ..ops import elementwise as _E
from ..ops.index import take
from ..ops.named import named
from ..tensor import Tensor

_ALL = Tensor._make(np.ones((), np.bool_), False)
_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False "
                  "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
                  "See the documentation of grid_sample for details.")


def _align_corners(align_corners):
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=3)
        return False
    return align_corners


def _base_coordinates(size, align_corners):
    """The pixel centres of a dim of this size in [-1, 1] (the edges' centres are +-1 with
    align_corners, else the edges themselves)."""
    points = np.linspace(-1, 1, size) if size > 1 else np.zeros(size)
    return points if align_corners else points * (size - 1) / size


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps theta (N, 2, 3) over an output of size (N, C, H, W):
    (N, H, W, 2) points theta @ (x, y, 1), or (N, D, H, W, 3) for theta (N, 3, 4) and a 5-D size.

    >>> import numgrad as ng
    >>> import numgrad.nn.functional as F
    >>> F.affine_grid(ng.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]), (1, 1, 1, 2),
    ...               align_corners=True)
    tensor([[[[-1.,  0.],
              [ 1.,  0.]]]])
    """
    align_corners = _align_corners(align_corners)
    size = tuple(int(s) for s in size)
    if len(size) not in (4, 5):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    spatial = size[2:]
    dims = len(spatial)
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (dims, dims + 1):
        raise ValueError(f"Expected a batch of {dims}D affine matrices of shape "
                         f"Nx{dims}x{dims + 1} for size {size}. Got numgrad.Size("
                         f"{list(theta.shape)}).")
    if theta.shape[0] != size[0]:
        raise ValueError(f"Expected theta to have the batch size of size ({size[0]}), got "
                         f"{theta.shape[0]}")
    # (x, y[, z], 1) at every output point, x along the last dim
    axes = [_base_coordinates(n, align_corners) for n in reversed(spatial)]
    mesh = list(np.meshgrid(*axes[::-1], indexing="ij"))[::-1]
    base = np.stack(mesh + [np.ones(spatial)], -1).reshape(-1, dims + 1)
    base = creation.tensor(base, dtype=theta.dtype, device=theta.device)
    points = base @ theta.transpose(1, 2)
    return points.reshape(size[0], *spatial, dims)


def _unnormalize(coordinate, size, align_corners):
    if align_corners:
        return (coordinate + 1) * ((size - 1) / 2)
    return ((coordinate + 1) * size - 1) / 2


def _reflect(coordinate, twice_low, twice_high):
    """coordinate reflected about the span [twice_low / 2, twice_high / 2] until inside it."""
    if twice_low == twice_high:
        return coordinate * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = (coordinate - low).abs()
    flips = (distance.detach() / span).floor()
    extra = distance - flips * span
    even = _E.remainder(flips, 2) == 0
    return _E.where(even, extra + low, span - extra + low)


def _source_coordinate(coordinate, size, padding_mode, align_corners):
    """Pixel coordinates of the points, moved inside the image for border/reflection padding
    (the gradient is zero where a coordinate was clipped, as torch's)."""
    coordinate = _unnormalize(coordinate, size, align_corners)
    if padding_mode == "border":
        return coordinate.clamp(0, size - 1)
    if padding_mode == "reflection":
        if align_corners:
            coordinate = _reflect(coordinate, 0, 2 * (size - 1))
        else:
            coordinate = _reflect(coordinate, -1, 2 * size - 1)
        return coordinate.clamp(0, size - 1)
    return coordinate


def _read(input, ys, xs):
    """input at integer pixel coordinates ys, xs (N, Ho, Wo) for every channel: (N, C, Ho, Wo),
    zeros where a coordinate is outside the image."""
    n, c, h, w = input.shape
    inside = (ys >= 0) & (ys < h) & (xs >= 0) & (xs < w)
    planes = (np.arange(n)[:, None, None, None] * c + np.arange(c)[None, :, None, None]) * (h * w)
    positions = planes + (np.clip(ys, 0, h - 1) * w + np.clip(xs, 0, w - 1))[:, None]
    values = take(input, positions)
    if inside.all():
        return values
    mask = Tensor._make(np.broadcast_to(~inside[:, None], positions.shape), False)
    return values.masked_fill(mask.to(input.device), 0)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input (N, C, H, W) sampled at grid (N, Ho, Wo, 2): (N, C, Ho, Wo).

    >>> import numgrad as ng
    >>> import numgrad.nn.functional as F
    >>> image = ng.arange(4.0).reshape(1, 1, 2, 2)
    >>> F.grid_sample(image, ng.tensor([[[[0.0, 0.0]]]]), align_corners=True)
    tensor([[[[1.5000]]]])
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    align_corners = _align_corners(align_corners)
    if input.ndim != 4 or mode == "bicubic":
        raise NotImplementedError("grid_sample supports 4-D inputs with the modes bilinear and "
                                  "nearest")
    if grid.ndim != 4 or grid.shape[0] != input.shape[0] or grid.shape[-1] != 2:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    return named(_sample(input, grid, mode, padding_mode, align_corners),
                 "GridSampler2DBackward0", inputs=(input, grid))


def _sample(input, grid, mode, padding_mode, align_corners):
    """input read at the grid's points (mode nearest or bilinear)."""
    h, w = input.shape[2:]
    x = _source_coordinate(grid[..., 0], w, padding_mode, align_corners)
    y = _source_coordinate(grid[..., 1], h, padding_mode, align_corners)
    xs, ys = np.asarray(x.detach()._data), np.asarray(y.detach()._data)
    if mode == "nearest":
        # round half to even, as torch's nearbyint; the grid gets a zero gradient, as in torch
        no_gradient = grid.masked_fill(_ALL, 0).sum(-1).unsqueeze(1)
        return _read(input, np.rint(ys).astype(np.int64), np.rint(xs).astype(np.int64)) + \
            no_gradient
    left, top = np.floor(xs).astype(np.int64), np.floor(ys).astype(np.int64)
    # the weights of the right and lower neighbours, differentiable in the grid
    east = (x - Tensor._make(left.astype(xs.dtype), False).to(x.device)).unsqueeze(1)
    south = (y - Tensor._make(top.astype(ys.dtype), False).to(y.device)).unsqueeze(1)
    west, north = 1 - east, 1 - south
    return (_read(input, top, left) * west * north + _read(input, top, left + 1) * east * north
            + _read(input, top + 1, left) * west * south
            + _read(input, top + 1, left + 1) * east * south)
