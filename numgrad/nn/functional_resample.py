"""Resampling for numgrad.nn.functional: pixel_shuffle / pixel_unshuffle (a reshape and a permute)
and interpolate, whose modes (but 'area', adaptive average pooling) are products with one
interpolation matrix per spatial axis (rows of torch's weights at torch's source positions: one-hot
for the nearest modes, two weights for the linear ones, four for bicubic, a normalised filter for
antialiasing), so the gradient is the transposed product.

>>> import numgrad as ng
>>> import numgrad.nn.functional as F
>>> F.interpolate(ng.tensor([[[1.0, 2.0]]]), scale_factor=2)
tensor([[[1., 1., 2., 2.]]])
"""
import numpy as np

from ..creation import as_tensor
from ..ops.named import named
from .bool_argument import check_bool_of_overloads
from .kernel_dtypes import check_kernel_dtype

# torch's modes in its order (its refusal lists them)
_TORCH_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "lanczos", "area",
                "nearest-exact")
# the interpolating modes: the input's rank they need, torch's node name
_INTERPOLATING = {"linear": (3, "UpsampleLinear1DBackward0"),
                  "bilinear": (4, "UpsampleBilinear2DBackward0"),
                  "trilinear": (5, "UpsampleTrilinear3DBackward0"),
                  "bicubic": (4, "UpsampleBicubic2DBackward0")}
# antialiased 2-D modes: the filter's support at scale 1, and torch's node name
_ANTIALIASED = {"bilinear": (1.0, "UpsampleBilinear2DAaBackward0"),
                "bicubic": (2.0, "UpsampleBicubic2DAaBackward0"),
                "lanczos": (3.0, "UpsampleLanczos2DAaBackward0")}


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r): each group of r^2 channels becomes an r x r block.

    >>> F.pixel_shuffle(ng.arange(4.0).reshape(1, 4, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]]]])
    """
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.ndim} dimension(s)")
    r = _factor(upscale_factor, "pixel_shuffle", "upscale_factor")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible "
                           f"by the square of upscale_factor, but input.size(-3)={c} is not "
                           f"divisible by {r * r}")
    k = len(lead)
    blocks = input.reshape(*lead, c // (r * r), r, r, h, w)
    order = list(range(k)) + [k, k + 3, k + 1, k + 4, k + 2]
    return named(_own_copy(blocks.permute(order).reshape(*lead, c // (r * r), h * r, w * r),
                           input), "PixelShuffleBackward0", inputs=(input,),
                 view_of_intermediate=True)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W), the inverse of pixel_shuffle.

    >>> F.pixel_unshuffle(ng.arange(4.0).reshape(1, 1, 2, 2), 2).flatten()
    tensor([0., 1., 2., 3.])
    """
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.ndim} dimension(s)")
    r = _factor(downscale_factor, "pixel_unshuffle", "downscale_factor")
    *lead, c, h, w = input.shape
    for name, size, dim in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by "
                               f"downscale_factor, but input.size({dim})={size} is not divisible "
                               f"by {r}")
    k = len(lead)
    blocks = input.reshape(*lead, c, h // r, r, w // r, r)
    order = list(range(k)) + [k, k + 2, k + 4, k + 1, k + 3]
    return named(_own_copy(blocks.permute(order).reshape(*lead, c * r * r, h // r, w // r),
                           input), "PixelUnshuffleBackward0", inputs=(input,),
                 view_of_intermediate=True)


def _factor(value, op, name):
    """torch's int argument, refused when it is not positive."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{op}(): argument '{name}' (position 2) must be int, not "
                        f"{type(value).__name__}")
    if value <= 0:
        raise RuntimeError(f"{op} expects a positive {name}, but got {value}")
    return int(value)


def _own_copy(result, input):
    """result, copied when the reshapes left it a view of input (factor 1, or planes of one
    pixel): torch's shuffles always return new memory."""
    root = input if input._base is None else input._base
    return result.clone() if result._base is root else result


def _source_scale(size, out, scale, align_corners=False):
    """torch's step between source positions: (size-1)/(out-1) with align_corners, else
    1 / scale_factor when one was given, else size / out."""
    if align_corners:
        return (size - 1) / (out - 1) if out > 1 else 0.0
    return size / out if scale is None or scale <= 0 else 1.0 / scale


def _legacy_nearest_matrix(size, out, scale, dtype):
    """torch's 2-D nearest kernel (nearest_idx): a dim that keeps its size is copied and one
    that doubles repeats each input twice, whatever the scale_factor; others as usual."""
    if out not in (size, 2 * size):
        return _nearest_matrix(size, out, scale, False, dtype)
    matrix = np.zeros((out, size), dtype)
    matrix[np.arange(out), np.arange(out) // (out // size)] = 1.0
    return matrix


def _nearest_matrix(size, out, scale, exact, dtype):
    """(out, size): row i picks torch's source floor(i * step), or with nearest-exact
    floor((i + 0.5) * step), the step in float32 as its kernel holds it."""
    step = np.float32(_source_scale(size, out, scale))
    if exact:
        position = (np.arange(out) + 0.5) * np.float64(step)
    else:
        position = np.arange(out, dtype=np.float32) * step
    source = np.minimum(np.floor(position).astype(np.int64), size - 1)
    matrix = np.zeros((out, size), dtype)
    matrix[np.arange(out), source] = 1.0
    return matrix


def _source_positions(size, out, scale, align_corners, cubic):
    step = _source_scale(size, out, scale, align_corners)
    if align_corners:
        return np.arange(out) * step
    source = (np.arange(out) + 0.5) * step - 0.5
    # linear modes clamp at the first input; cubic ones reach before it (and clamp the index)
    return source if cubic else np.maximum(source, 0.0)


def _linear_matrix(size, out, scale, align_corners, dtype):
    """(out, size): row i mixes the two inputs around torch's source position for output i; a
    dim that keeps its size is copied, whatever the scale_factor (torch's shortcut)."""
    if out == size:
        return np.eye(size, dtype=dtype)
    source = _source_positions(size, out, scale, align_corners, cubic=False)
    low = source.astype(np.int64)
    high = np.minimum(low + 1, size - 1)
    weight = source - low
    matrix = np.zeros((out, size), dtype)
    np.add.at(matrix, (np.arange(out), low), 1.0 - weight)
    np.add.at(matrix, (np.arange(out), high), weight)
    return matrix


def _cubic(x, a):
    """Keys' cubic convolution kernel at distances |x|, with torch's a."""
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x <= 1, near, np.where(x < 2, far, 0.0))


def _cubic_matrix(size, out, scale, align_corners, dtype):
    """(out, size): row i weighs the four inputs around torch's source position (a = -0.75),
    indices clamped to the edges as torch's bicubic kernel reads them."""
    source = _source_positions(size, out, scale, align_corners, cubic=True)
    floor = np.floor(source).astype(np.int64)
    t = source - floor
    matrix = np.zeros((out, size), dtype)
    for k in range(4):
        index = np.clip(floor - 1 + k, 0, size - 1)
        np.add.at(matrix, (np.arange(out), index), _cubic(t - (k - 1), -0.75))
    return matrix


def _antialias_filter(mode, x):
    if mode == "bilinear":
        return np.maximum(1.0 - np.abs(x), 0.0)
    if mode == "bicubic":
        return _cubic(x, -0.5)              # PIL's a, as torch's antialiased bicubic
    # Lanczos-3: sinc(x) sinc(x / 3) inside |x| < 3
    return np.where(np.abs(x) < 3.0, np.sinc(x) * np.sinc(x / 3.0), 0.0)


def _antialias_matrix(mode, size, out, scale, align_corners, dtype):
    """(out, size): torch's separable antialiasing weights: the filter widened by the step when
    shrinking, over the inputs within its support of each output's centre, normalised."""
    step = _source_scale(size, out, scale, align_corners)
    support = _ANTIALIASED[mode][0] * (step if step >= 1.0 else 1.0)
    stretch = 1.0 / step if step >= 1.0 else 1.0
    matrix = np.zeros((out, size), dtype)
    for i in range(out):
        centre = step * (i + 0.5)
        low = max(int(centre - support + 0.5), 0)
        high = min(int(centre + support + 0.5), size)
        weights = _antialias_filter(mode, (np.arange(low, high) - centre + 0.5) * stretch)
        total = weights.sum()
        matrix[i, low:high] = weights / total if total != 0.0 else weights
    return matrix


def _along_spatial_axes(input, matrices):
    """input with each spatial axis k multiplied by matrices[k] (out_k, size_k)."""
    device = input.device
    out = input @ as_tensor(matrices[-1].T.copy(), device=device)
    if len(matrices) >= 2:
        out = as_tensor(matrices[-2], device=device) @ out
    if len(matrices) == 3:
        n, c, depth, h, w = out.shape
        out = (as_tensor(matrices[0], device=device) @ out.reshape(n, c, depth, h * w)).reshape(
            n, c, matrices[0].shape[0], h, w)
    return out


def _check_sizes(input, outs):
    """torch's upsample_{1,2,3}d_common_check: positive input and output sizes, and channels."""
    dims = len(outs)
    names = "DHW"[3 - dims:]
    if min(input.shape[2:]) <= 0 or min(outs) <= 0:
        given = ", ".join(f"{n}: {s}" for n, s in zip(names, input.shape[2:]))
        wanted = ", ".join(f"{n}: {s}" for n, s in zip(names, outs))
        # sic: the 1-D check alone says "and output"
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({given}){' and' if dims == 1 else ''} output ({wanted})")
    if input.shape[1] == 0:
        raise RuntimeError(f"Non-empty {dims + 2}D data tensor expected but got a tensor with "
                           f"sizes {list(input.shape)}")


def _kernel_name(mode, dims, antialias):
    """The torch CPU kernel that refuses a non-floating input to this mode, as it names itself."""
    if antialias:
        return "compute_index_ranges_weights"
    if dims == 2 and mode in ("nearest", "nearest-exact", "bilinear"):
        return f"upsample_{'bilinear' if mode == 'bilinear' else 'nearest'}2d_channels_last"
    kind = {"nearest-exact": "nearest", "bicubic": "cubic"}.get(mode, mode)
    return f"compute_indices_weights_{'linear' if kind.endswith('linear') else kind}"


def _as_list(value, count):
    return list(value) if isinstance(value, (tuple, list)) else [value] * count


def _check_align_corners(input, size, scale_factor, recompute_scale_factor, mode, antialias,
                         align_corners, outs):
    """torch's interpolate hands align_corners to its upsample op (upsample_bilinear2d, ...),
    with the output size and scale factors as it made them, whose argument parser refuses one
    that is not a bool (0 and 1 too)."""
    dims = input.ndim - 2
    output_size, scale_factors = None, None
    if size is not None:
        output_size = size if isinstance(size, (tuple, list)) else [size] * dims
    elif recompute_scale_factor:
        output_size = outs
    else:
        scale_factors = (scale_factor if isinstance(scale_factor, (tuple, list))
                         else [scale_factor] * dims)
    if mode == "lanczos" or antialias:
        op = f"_upsample_{mode}2d_aa"
    else:
        op = f"upsample_{mode}{dims}d"
    scales = {1: ["scales"], 2: ["scales_h", "scales_w"],
              3: ["scales_d", "scales_h", "scales_w"]}[dims]
    check_bool_of_overloads(align_corners, op, (input, output_size, align_corners, scale_factors), [
        ("Tensor input, tuple of ints output_size, bool align_corners, tuple of floats "
         "scale_factors", [False, True, True, True]),
        ("Tensor input, tuple of ints output_size, bool align_corners, "
         + "".join(f"float {name} = None, " for name in scales) + "*, Tensor out = None", None)])


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of (N, C, L), (N, C, H, W) or (N, C, D, H, W) inputs to size, or
    by scale_factor, as torch's interpolate: every mode is a product with one matrix per spatial
    axis (torch's source positions and weights), 'area' is adaptive average pooling.

    >>> F.interpolate(ng.tensor([[[[0.0, 1.0]]]]), size=(1, 3), mode="bilinear",
    ...               align_corners=True)
    tensor([[[[0.0000, 0.5000, 1.0000]]]])
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dims = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (tuple, list)) and len(size) != dims:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, "
                             f"but got input with spatial dimensions of {list(input.shape[2:])} "
                             f"and output size of {size}. Please provide input tensor in (N, C, "
                             f"d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
        outs, scales = [int(s) for s in _as_list(size, dims)], [None] * dims
    elif scale_factor is not None:
        if isinstance(scale_factor, (tuple, list)) and len(scale_factor) != dims:
            raise ValueError(f"Input and scale_factor must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
                             f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                             f"scale_factor in (s1, s2, ...,sK) format.")
        scales = [float(s) for s in _as_list(scale_factor, dims)]
        outs = [int(n * s) for n, s in zip(input.shape[2:], scales)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area":
        scales = [None] * dims
    if antialias and not (mode in _ANTIALIASED and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes "
                         "and requires a 4-D tensor as input")
    if mode not in _TORCH_MODES or input.ndim not in (3, 4, 5) or (
            mode in ("bicubic", "lanczos") and input.ndim != 4):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.ndim}D) for the modes: {' | '.join(_TORCH_MODES)} "
                                  f"(got {mode})")
    if mode in _INTERPOLATING and _INTERPOLATING[mode][0] != input.ndim:
        need = _INTERPOLATING[mode][0]
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {need}D input")
    if mode == "area":
        from . import functional as F
        pool = (F.adaptive_avg_pool1d, F.adaptive_avg_pool2d, F.adaptive_avg_pool3d)[dims - 1]
        return pool(input, outs)
    if mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if mode not in ("nearest", "nearest-exact"):
        _check_align_corners(input, size, scale_factor, recompute_scale_factor, mode, antialias,
                             align_corners, outs)
    _check_sizes(input, outs)
    check_kernel_dtype(input, _kernel_name(mode, dims, antialias))
    sizes, dtype = input.shape[2:], input.dtype
    axes = list(zip(sizes, outs, scales))
    backward_matrices = None
    if mode in ("nearest", "nearest-exact"):
        exact = mode == "nearest-exact"
        matrices = [_legacy_nearest_matrix(n, o, s, dtype) if dims == 2 and not exact else
                    _nearest_matrix(n, o, s, exact, dtype) for n, o, s in axes]
        if mode == "nearest" and dims != 2:
            # sic: torch's 1-D and 3-D nearest backward kernels read the 2-D rule
            backward_matrices = [_legacy_nearest_matrix(n, o, s, dtype) for n, o, s in axes]
        name = f"Upsample{'NearestExact' if exact else 'Nearest'}{dims}DBackward0"
    elif antialias:
        matrices = [_antialias_matrix(mode, n, o, s, align_corners, dtype) for n, o, s in axes]
        name = _ANTIALIASED[mode][1]
    else:
        make = _cubic_matrix if mode == "bicubic" else _linear_matrix
        matrices = [make(n, o, s, align_corners, dtype) for n, o, s in axes]
        name = _INTERPOLATING[mode][1]
    result = _along_spatial_axes(input, matrices)
    if backward_matrices is not None and any(
            not np.array_equal(a, b) for a, b in zip(matrices, backward_matrices)):
        # the values of the forward's rule, the gradient of the backward's
        routed = _along_spatial_axes(input, backward_matrices)
        result = routed + (result - routed).detach()
    if antialias and mode in ("bilinear", "bicubic") and outs[1] == 1 and outs[0] != sizes[0]:
        # torch's separable kernel, resizing the height of an image one column wide, writes
        # its first row into every row; its backward is the true one
        first_row = result[:, :, :1].expand_as(result)
        result = result + (first_row - result).detach()
    # the 3-D product ends in a reshape: a view of an intermediate nobody else holds
    return named(result, name, inputs=(input,), view_of_intermediate=True)
