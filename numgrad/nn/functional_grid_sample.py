"""affine_grid and grid_sample: spatial transformers (Jaderberg et al., 2015) on 2-D images and
3-D volumes.

grid_sample reads input (N, C, H, W) at the points grid (N, Ho, Wo, 2) gives (x, y in [-1, 1]):
bilinearly, from the four neighbouring pixels, bicubically from sixteen, or at the nearest one;
(N, C, D, H, W) inputs at grid (N, Do, Ho, Wo, 3) trilinearly or at the nearest voxel. It is
composed from `take` (whose gradient scatters back into input) and the interpolation weights,
differentiable in the grid, so its gradients are torch's for both input and grid. Neighbours
outside the image read zeros, the border's value (padding_mode="border") or the reflected image
("reflection"), as torch's grid sampler does (bicubic moves each tap, not the point).
"""
import warnings

import numpy as np

from .. import creation, dtypes
from ..ops import elementwise as _E
from ..ops.index import take
from ..ops.named import named
from ..tensor import Tensor
from .bool_argument import check_bool

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
    # torch's one node over theta
    return named(points.reshape(size[0], *spatial, dims), "AffineGridGeneratorBackward0",
                 inputs=(theta,), view_of_intermediate=True)


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
    return _padded(_unnormalize(coordinate, size, align_corners), size, padding_mode,
                   align_corners)


def _padded(coordinate, size, padding_mode, align_corners):
    """A pixel coordinate moved inside the image as the padding mode says (torch's
    compute_coordinates)."""
    if padding_mode == "border":
        return coordinate.clamp(0, size - 1)
    if padding_mode == "reflection":
        if align_corners:
            coordinate = _reflect(coordinate, 0, 2 * (size - 1))
        else:
            coordinate = _reflect(coordinate, -1, 2 * size - 1)
        return coordinate.clamp(0, size - 1)
    return coordinate


def _read(input, *coordinates):
    """input (N, C, *spatial) at integer coordinates (each (N, *out), the first dim's first) for
    every channel: (N, C, *out), zeros where a point is outside the input."""
    n, c = input.shape[:2]
    spatial = input.shape[2:]
    inside = np.ones(coordinates[0].shape, np.bool_)
    flat = np.zeros(coordinates[0].shape, np.int64)
    for size, coordinate in zip(spatial, coordinates):
        inside &= (coordinate >= 0) & (coordinate < size)
        flat = flat * size + np.clip(coordinate, 0, size - 1)
    extra = (1,) * flat.ndim
    planes = (np.arange(n).reshape(-1, 1, *extra[1:]) * c
              + np.arange(c).reshape(1, -1, *extra[1:])) * int(np.prod(spatial))
    positions = planes + flat[:, None]
    values = take(input, positions)
    if inside.all():
        return values
    mask = Tensor._make(np.broadcast_to(~inside[:, None], positions.shape), False)
    return values.masked_fill(mask.to(input.device), 0)


def _check_grid(input, grid, mode):
    """torch's grid_sampler refusals, in its order and words."""
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last "
                           f"dimension, but got grid with sizes {list(grid.shape)}")
    for dim in range(2, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {dim} being empty")
    rank = 4 if input.ndim == 4 else 5
    if input.ndim != rank or grid.ndim != rank:
        raise RuntimeError(f"grid_sampler(): expected {rank}D input and grid with same number of "
                           f"dimensions, but got input with sizes {list(input.shape)} and grid "
                           f"with sizes {list(grid.shape)}")
    if rank == 5 and mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if grid.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {dtypes.scalar_type_name(input.dtype)} but "
                           f"found {dtypes.scalar_type_name(grid.dtype)}")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """input (N, C, H, W) sampled at grid (N, Ho, Wo, 2): (N, C, Ho, Wo); or (N, C, D, H, W)
    at grid (N, Do, Ho, Wo, 3): (N, C, Do, Ho, Wo).

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
    check_bool(align_corners, "grid_sampler", "align_corners", 5)
    _check_grid(input, grid, mode)
    sample = _bicubic if mode == "bicubic" else _sample
    return named(sample(input, grid, mode, padding_mode, align_corners),
                 f"GridSampler{input.ndim - 2}DBackward0", inputs=(input, grid))


def _sample(input, grid, mode, padding_mode, align_corners):
    """input read at the grid's points (mode nearest, or (bi/tri)linear)."""
    spatial = input.shape[2:]
    # the grid's last dim runs x, y[, z]: the input's dims in reverse
    points = [_source_coordinate(grid[..., len(spatial) - 1 - k], size, padding_mode,
                                 align_corners) for k, size in enumerate(spatial)]
    values = [np.asarray(p.detach()._data) for p in points]
    if mode == "nearest":
        # round half to even, as torch's nearbyint; the grid gets a zero gradient, as in torch
        no_gradient = grid.masked_fill(_ALL, 0).sum(-1).unsqueeze(1)
        return _read(input, *(np.rint(v).astype(np.int64) for v in values)) + no_gradient
    lows = [np.floor(v).astype(np.int64) for v in values]
    # the weights of the upper neighbour along each dim, differentiable in the grid
    uppers = [(p - Tensor._make(low.astype(v.dtype), False).to(p.device)).unsqueeze(1)
              for p, low, v in zip(points, lows, values)]
    out = None
    for corner in np.ndindex(*(2,) * len(spatial)):
        weight = None
        for step, upper in zip(corner, uppers):
            factor = upper if step else 1 - upper
            weight = factor if weight is None else weight * factor
        term = _read(input, *(low + step for low, step in zip(lows, corner))) * weight
        out = term if out is None else out + term
    return out


def _cubic_weights(t):
    """torch's four bicubic weights (a = -0.75) of the taps at -1, 0, 1, 2 from floor."""
    a = -0.75

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _tap(coordinate, size, padding_mode, align_corners):
    """A bicubic tap's integer coordinate moved by the padding mode, as torch moves each tap."""
    if padding_mode == "zeros":
        return coordinate
    tap = Tensor._make(coordinate.astype(np.float64), False)
    return np.asarray(_padded(tap, size, padding_mode, align_corners)._data).astype(np.int64)


def _bicubic(input, grid, mode, padding_mode, align_corners):
    """input (N, C, H, W) read at the grid's points by torch's bicubic convolution: the point
    itself is not moved by the padding mode, its sixteen taps are."""
    h, w = input.shape[2:]
    x = _unnormalize(grid[..., 0], w, align_corners)
    y = _unnormalize(grid[..., 1], h, align_corners)
    left = np.floor(np.asarray(x.detach()._data)).astype(np.int64)
    top = np.floor(np.asarray(y.detach()._data)).astype(np.int64)
    across = _cubic_weights((x - Tensor._make(left.astype(x.dtype), False).to(x.device))
                            .unsqueeze(1))
    down = _cubic_weights((y - Tensor._make(top.astype(y.dtype), False).to(y.device))
                          .unsqueeze(1))
    out = None
    for i in range(4):
        row = _tap(top - 1 + i, h, padding_mode, align_corners)
        line = None
        for j in range(4):
            column = _tap(left - 1 + j, w, padding_mode, align_corners)
            term = _read(input, row, column) * across[j]
            line = term if line is None else line + term
        out = line * down[i] if out is None else out + line * down[i]
    return out
