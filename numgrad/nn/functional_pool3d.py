"""3-D pooling for numgrad.nn.functional, composed from the 2-D pooling of functional_conv.py.

Pooling over a (D, H, W) box is pooling over the (H, W) window of each plane, then over the depth
window of those results: a max of maxima, or a sum of sums. Max pooling finds each plane's window
maxima with max_pool2d's compiled kernel, picks the first maximal plane of each depth window (so
the winner is the first maximum in (d, h, w) order, as torch's loop finds it) and reads the input
there with `take`; average pooling is two window sums (im2col) and one division. No new kernel.

>>> import numgrad as ng
>>> import numgrad.nn.functional as F
>>> F.max_pool3d(ng.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
tensor([[[[[7.]]]]])
"""
import numpy as np

from .. import dtypes
from ..ops import nn_ops as _N
from ..ops.index import take
from ..ops.named import named, read_by_backward
from ..ops.untracked import to_host
from ..tensor import Tensor
from .bool_argument import check_bool
from .functional_conv import (_adaptive_weights, _avg_divisors, _pool_out, avg_pool2d,
                              truncated_average)
from .functional_conv3d import _triple
from .functional_pooling_more import _max_unpool, _root_of_sum, _unpooled_size
from .kernel_dtypes import check_kernel_dtype


def _batched(input):
    """(the input as (N, C, D, H, W), whether it was one sample)."""
    if input.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    return (input.unsqueeze(0), True) if input.ndim == 4 else (input, False)


# torch's refusals of settings that are neither an int nor a triple, in each function's words
_REFUSALS = {
    "max_pool3d": ("max_pool3d: kernel_size must either be a single int, or a tuple of three ints",
                   "max_pool3d: stride must either be omitted, a single int, or a tuple of three "
                   "ints",
                   "max_pool3d: padding must either be a single int, or a tuple of three ints",
                   "max_pool3d: dilation must be either a single int, or a tuple of three ints"),
    "avg_pool3d": ("avg_pool3d: kernel_size must be a single int, or a tuple of three ints",
                   "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints",
                   "avg_pool3d: padding must be a single int, or a tuple of three ints", None),
}


def _pool_args(op, kernel_size, stride, padding, dilation):
    words = _REFUSALS[op]
    kernel = _triple(kernel_size, words[0])
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
        else _triple(stride, words[1])
    return kernel, stride, _triple(padding, words[2]), _triple(dilation, words[3])


def _out_sizes(input, kernel, stride, padding, dilation, ceil_mode):
    """The output (D, H, W), after torch's refusals of the settings (pooling_output_shape's)."""
    return tuple(_pool_out(size, k, s, p, d, ceil_mode)
                 for size, k, s, p, d in zip(input.shape[-3:], kernel, stride, padding, dilation))


def _check_pool3d(input, kernel, stride, padding, dilation, out, op, check_input_size):
    """torch's pool3d_shape_check, in its order and words; input as given (4-D or 5-D)."""
    (kt, kh, kw), (st, sh, sw), (pt, ph, pw), (dt, dh, dw) = kernel, stride, padding, dilation
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {kt} kH: {kh} "
                           f"kW: {kw}")
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {st} dH: {sh} "
                           f"dW: {sw}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {dt} "
                           f"dilationH: {dh} dilationW: {dw}")
    if 0 in input.shape[input.ndim - 4:]:
        # sic: torch prints the empty dim's length (0) where its index belongs
        raise RuntimeError(f"{op}: Expected input's non-batch dimensions to have positive length, "
                           f"but input has a shape of {list(input.shape)} and non-batch "
                           f"dimension 0 has length zero!")
    c, t, h, w = input.shape[-4:]
    if check_input_size and (t < kt or h < kh or w < kw):
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size "
                           f"(kT: {kt} kH: {kh} kW: {kw})")
    if kt // 2 < pt or kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"kT: {kt} kW: {kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}")
    if min(out) < 1:
        raise RuntimeError(f"Given input size: ({c}x{t}x{h}x{w}). Calculated output size: "
                           f"({c}x{out[0]}x{out[1]}x{out[2]}). Output size is too small")


def _window_planes(size, out, k, s, p, d):
    """(out, k) input planes of each depth window; taps in the padding repeat the window's first
    plane inside, which can change neither the maximum nor which element is first."""
    planes = np.arange(out)[:, None] * s - p + np.arange(k)[None, :] * d
    inside = (planes >= 0) & (planes < size)
    first = planes[np.arange(out), inside.argmax(1)]
    return np.where(inside, planes, first[:, None])


def _max_positions(data, kernel, stride, padding, dilation, out):
    """Flat positions in data (P, D, H, W) of each window's first maximal element."""
    planes, depth = data.shape[:2]
    geometry = _N.window_geometry(data.shape, kernel[1:], stride[1:], padding[1:], dilation[1:],
                                  _N.POOL)
    geometry[4], geometry[5] = out[1:]
    flat = _N.max_pool_positions(data, geometry)                      # (P, D, oh, ow)
    taps = _window_planes(depth, out[0], kernel[0], stride[0], padding[0], dilation[0])
    candidates = flat[:, taps]                                         # (P, od, kd, oh, ow)
    best = data.reshape(-1)[candidates].argmax(2)
    return np.take_along_axis(candidates, best[:, :, None], 2)[:, :, 0]


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool3d's values and indices (each within its (D, H, W) volume), always both."""
    check_bool(ceil_mode, "max_pool3d_with_indices", "ceil_mode", 6)
    x, unbatched = _batched(input)
    kernel, stride, padding, dilation = _pool_args("max_pool3d", kernel_size, stride, padding,
                                                   dilation)
    out = _out_sizes(x, kernel, stride, padding, dilation, ceil_mode)
    _check_pool3d(input, kernel, stride, padding, dilation, out,
                  "max_pool3d_with_indices_out_cpu_template()", check_input_size=False)
    check_kernel_dtype(input, "max_pool3d", ("Long", "Int"))
    n, c, d, h, w = x.shape
    data = np.ascontiguousarray(to_host(x.detach()._data)).reshape(n * c, d, h, w)
    positions = _max_positions(data, kernel, stride, padding, dilation, out)
    lead = input.shape[:-3]
    values = take(read_by_backward(input, "MaxPool3DWithIndicesBackward0"),
                  positions.reshape(*lead, *out))
    indices = positions - (np.arange(n * c) * (d * h * w)).reshape(-1, 1, 1, 1)
    return (named(values, "MaxPool3DWithIndicesBackward0", input),
            Tensor._make(indices.reshape(*lead, *out), False))


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum of each (kd, kh, kw) window of (N, C, D, H, W) or (C, D, H, W) inputs (stride
    defaults to kernel_size); the gradient goes to the first maximal element.

    >>> F.max_pool3d(ng.arange(27.0).reshape(1, 3, 3, 3), 2, stride=1).shape
    numgrad.Size([1, 2, 2, 2])
    """
    check_bool(ceil_mode, "max_pool3d_with_indices" if return_indices else "max_pool3d",
               "ceil_mode", 6)
    values, indices = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation,
                                              ceil_mode)
    return (values, indices) if return_indices else values


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each (kd, kh, kw) window (zero padding counted unless count_include_pad=False;
    divisor_override replaces the window size).

    >>> F.avg_pool3d(ng.arange(8.0).reshape(1, 1, 2, 2, 2), 2)
    tensor([[[[[3.5000]]]]])
    """
    check_bool(ceil_mode, "avg_pool3d", "ceil_mode")
    check_bool(count_include_pad, "avg_pool3d", "count_include_pad")
    x, unbatched = _batched(input)
    kernel, stride, padding, _ = _pool_args("avg_pool3d", kernel_size, stride, padding, 1)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    out = _out_sizes(x, kernel, stride, padding, (1, 1, 1), ceil_mode)
    _check_pool3d(input, kernel, stride, padding, (1, 1, 1), out, "avg_pool3d()",
                  check_input_size=True)
    check_kernel_dtype(input, "avg_pool3d_out_frame", ("Long",))
    if input.dtype == dtypes.int64:
        return truncated_average(
            lambda x, divisor: avg_pool3d(x, kernel_size, stride, padding, ceil_mode,
                                          count_include_pad, divisor), input, divisor_override)
    n, c, d, h, w = x.shape
    # window sums over (H, W) of every plane, then over depth windows of those sums
    planes = avg_pool2d(x.reshape(n, c * d, h, w), kernel[1:], stride[1:], padding[1:],
                        ceil_mode, True, 1)
    sums = avg_pool2d(planes.reshape(n * c, 1, d, out[1] * out[2]), (kernel[0], 1),
                      (stride[0], 1), (padding[0], 0), ceil_mode, True, 1)
    sums = sums.reshape(n, c, *out)
    if divisor_override:
        result = sums * (1.0 / divisor_override)
    else:
        sizes = [_avg_divisors(size, k, s, p, o, count_include_pad)
                 for size, k, s, p, o in zip((d, h, w), kernel, stride, padding, out)]
        count = sizes[0][:, None, None] * sizes[1][None, :, None] * sizes[2][None, None, :]
        from ..creation import as_tensor
        result = sums * as_tensor((1.0 / count).astype(x.dtype), device=x.device)
    if unbatched:
        result = result.squeeze(0)
    return named(result, "AvgPool3DBackward0", input, view_of_intermediate=True)


def _output_size(output_size, sizes, refusal):
    out = (output_size,) * 3 if isinstance(output_size, (int, np.integer)) else \
        tuple(output_size)
    if len(out) != 3:
        raise RuntimeError(refusal)
    return tuple(size if o is None else int(o) for o, size in zip(out, sizes))


def _check_non_empty(input, op):
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {dim} being empty")


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of (N, C, D, H, W) or (C, D, H, W) inputs to output_size (an int, or a
    triple where None keeps that size), windows as torch's: averaging matrices over each dim.

    >>> F.adaptive_avg_pool3d(ng.arange(8.0).reshape(1, 2, 2, 2), 1)
    tensor([[[[3.5000]]]])
    """
    from ..creation import as_tensor
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                           f"{list(input.shape)}")
    d, h, w = input.shape[-3:]
    od, oh, ow = _output_size(output_size, (d, h, w),
                              "adaptive_avg_pool3d: output_size must be 3")
    _check_non_empty(input, "adaptive_avg_pool3d")
    if min(od, oh, ow) < 0:
        # sic: torch's braces and spacing
        raise RuntimeError(f"adaptive_avg_pool3d: elements of output_size must be greater than or "
                           f"equal to 0 but received {{{od}, {oh},{ow}}}")
    if (od, oh, ow) == (1, 1, 1):
        return input.mean((-3, -2, -1), keepdim=True)         # torch's node too: MeanBackward1
    check_kernel_dtype(input, "adaptive_avg_pool3d_cpu")
    lead, dtype = input.shape[:-3], input.dtype
    depth = as_tensor(_adaptive_weights(d, od, dtype), device=input.device)
    rows = as_tensor(_adaptive_weights(h, oh, dtype), device=input.device)
    cols = as_tensor(_adaptive_weights(w, ow, dtype).T.copy(), device=input.device)
    out = (depth @ read_by_backward(input, "AdaptiveAvgPool3DBackward0").reshape(*lead, d, h * w)
           ).reshape(*lead, od, h, w)
    return named(rows @ out @ cols, "AdaptiveAvgPool3DBackward0", input)


def _adaptive_max_positions(data, out):
    """Flat positions in data (P, D, H, W) of each adaptive window's first maximal element."""
    planes, d, h, w = data.shape
    od, oh, ow = out
    flat = np.arange(data.size).reshape(data.shape)
    positions = np.empty((planes, od, oh, ow), np.int64)
    rows = np.arange(planes)
    bounds = [[(i * size // o, -(-(i + 1) * size // o)) for i in range(o)]
              for size, o in zip((d, h, w), out)]
    for i, (d0, d1) in enumerate(bounds[0]):
        for j, (h0, h1) in enumerate(bounds[1]):
            for k, (w0, w1) in enumerate(bounds[2]):
                window = data[:, d0:d1, h0:h1, w0:w1].reshape(planes, -1)
                best = np.argmax(window, axis=1)
                positions[:, i, j, k] = flat[:, d0:d1, h0:h1, w0:w1].reshape(planes, -1)[
                    rows, best]
    return positions


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool3d's values and indices, always both."""
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: "
                           f"{list(input.shape)}")
    _check_non_empty(input, "adaptive_max_pool3d")
    d, h, w = input.shape[-3:]
    out = _output_size(output_size, (d, h, w),
                       "adaptive_max_pool3d(): internal error: output_size.size() must be 3")
    check_kernel_dtype(input, "adaptive_max_pool3d_cpu")
    if min(out) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{next(o for o in out if o < 0)}: "
                           f"{list(input.shape[:-3]) + list(out)}")
    lead = input.shape[:-3]
    data = np.ascontiguousarray(to_host(input.detach()._data)).reshape(-1, d, h, w)
    positions = _adaptive_max_positions(data, out) if data.size else \
        np.zeros((0, *out), np.int64)
    values = take(read_by_backward(input, "AdaptiveMaxPool3DBackward0"),
                  positions.reshape(*lead, *out))
    planes = np.arange(positions.shape[0]).reshape(-1, 1, 1, 1) * (d * h * w)
    indices = Tensor._make((positions - planes).reshape(*lead, *out), False)
    return named(values, "AdaptiveMaxPool3DBackward0", input), indices


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pooling of (N, C, D, H, W) or (C, D, H, W) inputs to output_size, windows as
    adaptive_avg_pool3d's; the gradient goes to each window's first maximal element.

    >>> F.adaptive_max_pool3d(ng.arange(8.0).reshape(1, 2, 2, 2), 1)
    tensor([[[[7.]]]])
    """
    values, indices = adaptive_max_pool3d_with_indices(input, output_size)
    return (values, indices) if return_indices else values


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum of x^p over each (kd, kh, kw) window)^(1/p), as torch computes it.

    >>> F.lp_pool3d(ng.ones(1, 1, 2, 2, 2), 2, 2)
    tensor([[[[[2.8284]]]]])
    """
    kd, kh, kw = _triple(kernel_size)
    means = avg_pool3d(input ** norm_type, kernel_size, stride, 0, ceil_mode)
    return _root_of_sum(means, kd * kh * kw, norm_type)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool3d: each value put back where max_pool3d's indices say, zeros
    elsewhere.

    >>> values, indices = F.max_pool3d(ng.arange(8.0).reshape(1, 1, 2, 2, 2), 2,
    ...                                return_indices=True)
    >>> F.max_unpool3d(values, indices, 2).flatten()
    tensor([0., 0., 0., 0., 0., 0., 0., 7.])
    """
    size = _unpooled_size(input, kernel_size, stride, padding, output_size, 3)
    check_kernel_dtype(input, "max_unpool3d")
    return named(_max_unpool(input, indices, size), "MaxUnpool3DBackward0", input,
                 view_of_intermediate=True)
