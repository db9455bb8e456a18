"""Convolution and pooling for numgrad.nn.functional.

A convolution is one node (numgrad.ops.nn_ops.conv2d): im2col, the sliding windows as rows,
then (N*oh*ow, C*kh*kw) @ weight.T + bias, a single BLAS product. Max pooling finds each window's
maximal element (a compiled loop) and reads it with `take`, so its gradient goes to that element
only, as in torch. Average pooling means the windows.

>>> import numgrad as ng
>>> import numgrad.nn.functional as F
>>> F.conv2d(ng.ones(1, 1, 3, 3), ng.ones(2, 1, 2, 2)).shape
numgrad.Size([1, 2, 2, 2])
"""
import numpy as np

from .. import dtypes
from ..ops import nn_ops as _N
from ..ops.apply import show_attributes
from ..ops.index import take
from ..ops.named import named, read_by_backward
from ..ops.untracked import to_host
from ..tensor import Tensor, _wrap_dim
from .bool_argument import check_bool
from .functional_losses import _RefusedBackward
from .kernel_dtypes import check_kernel_dtype


def _pair(value):
    return (int(value), int(value)) if isinstance(value, (int, np.integer)) else tuple(value)


# torch's refusals of 2-D pooling settings that are neither an int nor one or two of them
_POOL2D_REFUSALS = {
    "kernel_size": "kernel_size must either be a single int, or a tuple of two ints",
    "stride": "stride must either be omitted, a single int, or a tuple of two ints",
    "padding": "padding must either be a single int, or a tuple of two ints",
    "dilation": "dilation must be either a single int, or a tuple of two ints",
}


def _pool2d_pair(value, op, name):
    """A 2-D pooling setting as (h, w): an int or a sequence of one or two (torch's IntArrayRef
    rule), refused in `op`'s words otherwise."""
    values = _int_tuple(value)
    if len(values) not in (1, 2):
        raise RuntimeError(f"{op}: {_POOL2D_REFUSALS[name]}")
    return (int(values[0]), int(values[-1]))


def _pool1d_single(value, op, name, words):
    """A 1-D pooling setting: an int or a sequence of one, refused in torch's words otherwise
    (max_pool1d's own checks, or the argument parser's for the other 1-D ops)."""
    values = _int_tuple(value)
    if len(values) != 1:
        if words is None:
            raise RuntimeError(f"{op}() argument '{name}' should contain one int (got "
                               f"{len(values)})")
        raise RuntimeError(f"{op}() {name} must be {words} of size 1 but got size {len(values)}")
    return int(values[0])


def _given(stride):
    """Whether a pooling stride was given (None or an empty sequence mean the kernel size)."""
    return stride is not None and not (isinstance(stride, (tuple, list)) and len(stride) == 0)


def _int_tuple(value):
    return (int(value),) if isinstance(value, (int, np.integer)) else tuple(value)


def _check_input_dims(op, input, rank):
    """torch's refusal of inputs that are neither one sample nor a batch of rank-D signals."""
    if input.ndim not in (rank + 1, rank + 2):
        raise RuntimeError(f"Expected {rank + 1}D (unbatched) or {rank + 2}D (batched) input to "
                           f"{op}, but got input of size: {list(input.shape)}")


def _check_conv_dtypes(input, weight, bias):
    """torch's convolutions promote nothing: the bias is checked first, then the weight."""
    name = dtypes.scalar_type_name
    if bias is not None and bias.dtype != input.dtype:
        raise RuntimeError(f"Input type ({name(input.dtype).lower()}) and bias type "
                           f"({name(bias.dtype).lower()}) should be the same")
    if weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {name(input.dtype)} but found "
                           f"{name(weight.dtype)}")


def _check_transposed_dtypes(input, weight, bias):
    """torch's transposed convolutions read the weight, then the bias, as the input's dtype."""
    for tensor in (weight, bias):
        if tensor is not None and tensor.dtype != input.dtype:
            raise RuntimeError(f"expected scalar type {dtypes.scalar_type_name(input.dtype)} but "
                               f"found {dtypes.scalar_type_name(tensor.dtype)}")


def _check_conv_lists(weight, stride, padding, dilation):
    """torch's checks of a convolution's parameter lists (padding may be a string) against the
    weight's rank, the first it makes."""
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    k = weight.ndim - 2
    for name, values in (("stride", stride), ("padding", padding), ("dilation", dilation)):
        if not isinstance(values, str) and len(values) not in (1, k):
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {k} "
                               f"values to match the convolution dimensions, but got "
                               f"{name}={list(values)}")


def _check_conv_args(input, weight, bias, stride, padding, dilation, groups):
    """torch's checks of a convolution's arguments after the lists', in its order: their values,
    then the shapes (input batched) and last the dtypes."""
    if not isinstance(padding, str) and any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.ndim != input.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional "
                           f"weight {list(weight.shape)}, but got {input.ndim}-dimensional input "
                           f"of size {list(input.shape)} instead")
    out_channels, per_group = weight.shape[:2]
    if out_channels < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {list(weight.shape)} instead")
    if out_channels % groups:       # torch's message has the doubled brackets
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at "
                           f"dimension 0, but got weight of size [{list(weight.shape)}] instead")
    if input.shape[1] != per_group * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {per_group * groups} channels, but "
                           f"got {input.shape[1]} channels instead")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(f"Given weight of size {list(weight.shape)}, expected bias to be "
                           f"1-dimensional with {out_channels} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    _check_conv_dtypes(input, weight, bias)


def _same_padding(kernel, dilation):
    """(left, right) per dim for padding='same' (stride 1): torch puts the odd one on the right."""
    return [(d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for k, d in zip(kernel, dilation)]


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation, as torch): input (N, C, H, W), weight (O, C/groups, kh, kw).

    >>> x = ng.arange(9.0).reshape(1, 1, 3, 3)
    >>> F.conv2d(x, ng.ones(1, 1, 2, 2))
    tensor([[[[ 8., 12.],
              [20., 24.]]]])
    """
    _check_input_dims("conv2d", input, 2)
    if isinstance(padding, str) and padding not in ("valid", "same"):
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    unbatched = input.ndim == 3
    if unbatched:
        input = input.unsqueeze(0)
    stride, dilation = _pair(stride), _pair(dilation)
    listed = padding if isinstance(padding, str) else _pair(padding)
    _check_conv_lists(weight, stride, listed, dilation)
    _check_conv_args(input, weight, bias, stride, listed, dilation, groups)
    out_channels, per_group, kh, kw = weight.shape
    if padding == "valid":
        padding = (0, 0)
    elif padding == "same":
        if stride != (1, 1):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        sides = _same_padding((kh, kw), dilation)
        if any(left != right for left, right in sides):
            from .functional import pad
            input = pad(input, (sides[1][0], sides[1][1], sides[0][0], sides[0][1]))
            padding = (0, 0)
        else:
            padding = (sides[0][0], sides[1][0])
    padding = _pair(padding)
    _check_kernel_fits([size + 2 * p for size, p in zip(input.shape[2:], padding)],
                       [d * (k - 1) + 1 for k, d in zip((kh, kw), dilation)])
    check_kernel_dtype(input, "slow_conv2d_cpu", ("Long", "Int"))
    if groups == 1:
        out = _conv_group(input, weight, bias, stride, padding, dilation)
    else:
        from ..ops.shape import cat
        step = out_channels // groups
        outs = []
        for k in range(groups):
            part = input[:, k * per_group:(k + 1) * per_group]
            b = None if bias is None else bias[k * step:(k + 1) * step]
            outs.append(_conv_group(part, weight[k * step:(k + 1) * step], b, stride, padding,
                                    dilation))
        # one node, torch's, over the groups' convolutions
        out = named(cat(outs, 1), "ConvolutionBackward0", input, weight,
                    inputs=(input, weight, bias))
    return out.squeeze(0) if unbatched else out


def _conv_group(input, weight, bias, stride, padding, dilation):
    return _N.conv2d(input, weight, bias, stride, padding, dilation)


def _check_kernel_fits(padded, kernel):
    """torch's refusal of a (dilated) kernel larger than the padded input, per spatial dim."""
    if any(k > size for size, k in zip(padded, kernel)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, kernel))}). Kernel size can't be greater than "
                           f"actual input size")


def _check_transposed_output(sizes, kernel, stride, padding, output_padding, dilation):
    """torch's refusal of a transposed convolution whose output would be empty."""
    out = [(size - 1) * s - 2 * p + d * (k - 1) + op + 1 for size, k, s, p, op, d in
           zip(sizes, kernel, stride, padding, output_padding, dilation)]
    if any(o <= 0 for o in out):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, sizes))}). "
                           f"Calculated output size per channel: ({' x '.join(map(str, out))}). "
                           f"Output size is too small")


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution: input (N, C, L), weight (O, C/groups, k); a conv2d of height 1.

    >>> F.conv1d(ng.ones(1, 1, 4), ng.ones(1, 1, 2))
    tensor([[[2., 2., 2.]]])
    """
    _check_input_dims("conv1d", input, 1)
    if isinstance(padding, str) and padding not in ("valid", "same"):
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    unbatched = input.ndim == 2
    if unbatched:
        input = input.unsqueeze(0)
    stride, dilation = _int_tuple(stride), _int_tuple(dilation)
    listed = padding if isinstance(padding, str) else _int_tuple(padding)
    _check_conv_lists(weight, stride, listed, dilation)
    # torch's conv1d runs as a conv2d of height 1: its dilation message shows the pair
    _check_conv_args(input, weight, bias, stride, listed, (1,) + dilation, groups)
    stride, dilation = stride[0], dilation[0]
    if not isinstance(padding, str):
        padding = _int_tuple(padding)[0]
        # checked here, so that the message speaks of one dim, as torch's conv1d does
        _check_kernel_fits([input.shape[2] + 2 * padding], [dilation * (weight.shape[2] - 1) + 1])
        padding = (0, padding)
    out = conv2d(input.unsqueeze(2), weight.unsqueeze(2), bias, (1, stride), padding,
                 (1, dilation), groups).squeeze(2)
    out = named(out, "ConvolutionBackward0", input, weight, inputs=(input, weight, bias),
                view_of_intermediate=True)
    return out.squeeze(0) if unbatched else out


def _pool_size(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    if not ceil_mode:
        return span // s + 1
    out = -(-span // s) + 1
    # the last window must start inside the input or the left padding (torch's rule)
    return out - 1 if (out - 1) * s >= size + p else out


def _check_pool_input(input):
    """torch's refusal of 2-D pooling inputs of other ranks, or empty but for the batch dim."""
    if input.ndim not in (3, 4) or 0 in input.shape[-3:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size "
                           f"for input, but got:{list(input.shape)}")


def _pool_out(size, k, s, p, d, ceil_mode):
    """torch's pooling_output_shape: one dim's output size, after its refusals of the settings
    (C++ division: the half of a negative effective kernel rounds toward zero)."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if p < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    if p > int(((k - 1) * d + 1) / 2):
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                           f"pad={p}, kernel_size={k} and dilation={d}")
    return _pool_size(size, k, s, p, d, ceil_mode)


def _check_pool(input, kernel, stride, padding, dilation, out):
    """torch's pool2d_shape_check, in its order and words; input as given (3-D or 4-D)."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} "
                           f"dilationW: {dw}")
    _check_pool_input(input)
    if padding[0] > kernel[0] // 2 or padding[1] > kernel[1] // 2:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got "
                           f"padW = {padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, "
                           f"kH = {kernel[0]}")
    if out[0] < 1 or out[1] < 1:
        c, h, w = input.shape[-3:]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                           f"({c}x{out[0]}x{out[1]}). Output size is too small")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The maximum of each window; its gradient goes to the (first) maximal element.

    >>> F.max_pool2d(ng.arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    # torch's F.max_pool2d passes ceil_mode to its builtin by position
    check_bool(ceil_mode, "max_pool2d_with_indices" if return_indices else "max_pool2d",
               "ceil_mode", 6)
    (kh, kw) = _pool2d_pair(kernel_size, "max_pool2d", "kernel_size")
    sh, sw = _pool2d_pair(stride, "max_pool2d", "stride") if _given(stride) else (kh, kw)
    (ph, pw) = _pool2d_pair(padding, "max_pool2d", "padding")
    (dh, dw) = _pool2d_pair(dilation, "max_pool2d", "dilation")
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    out = (_pool_out(input.shape[-2], kh, sh, ph, dh, ceil_mode),
           _pool_out(input.shape[-1], kw, sw, pw, dw, ceil_mode))
    _check_pool(input, (kh, kw), (sh, sw), (ph, pw), (dh, dw), out)
    check_kernel_dtype(input, "max_pool2d", ("Long", "Int"))
    source = input
    unbatched = input.ndim == 3
    if unbatched:
        input = input.unsqueeze(0)
    n, c, h, w = input.shape
    geometry = _N.window_geometry(input.shape, (kh, kw), (sh, sw), (ph, pw), (dh, dw), _N.POOL)
    geometry[4], geometry[5] = out
    positions = _N.max_pool_positions(input._data, geometry)
    out = take(read_by_backward(input, "MaxPool2DWithIndicesBackward0"), positions)
    out = named(out.squeeze(0) if unbatched else out, "MaxPool2DWithIndicesBackward0", source,
                view_of_intermediate=True)
    if return_indices:
        # torch's indices count within each (H, W) plane
        plane = positions - (np.arange(n * c) * (h * w)).reshape(n, c, 1, 1)
        return out, Tensor._make(plane[0] if unbatched else plane, False)
    return out


def _avg_divisors(size, k, s, p, out, count_include_pad):
    """Each window's divisor along one dim, as torch: the window clipped to the padded input, or
    (count_include_pad=False) to the input itself. With ceil_mode a last window can run past both."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, size + p)
    if count_include_pad:
        return end - start
    return np.minimum(end, size) - np.maximum(start, 0)


def truncated_average(pool, input, divisor_override):
    """torch's average pooling of int64: each window's sum divided by its divisor, truncated
    toward zero (C++ integer division). pool(x, divisor_override) pools a floating x."""
    from ..creation import as_tensor, ones_like
    as_float = input.to(dtypes.float64)
    sums = np.asarray(to_host(pool(as_float, 1)._data)).astype(np.int64)    # exact sums
    if divisor_override:
        divisors = np.int64(divisor_override)
    else:
        ones = ones_like(as_float)
        counts = to_host(pool(ones, 1)._data)
        divisors = np.rint(counts / to_host(pool(ones, None)._data)).astype(np.int64)
    return as_tensor(np.sign(sums) * (np.abs(sums) // divisors), device=input.device)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """The mean of each window (zero padding counted unless count_include_pad=False).

    >>> F.avg_pool2d(ng.arange(16.0).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 2.5000,  4.5000],
              [10.5000, 12.5000]]]])
    """
    check_bool(ceil_mode, "avg_pool2d", "ceil_mode")
    check_bool(count_include_pad, "avg_pool2d", "count_include_pad")
    (kh, kw) = _pool2d_pair(kernel_size, "avg_pool2d", "kernel_size")
    sh, sw = _pool2d_pair(stride, "avg_pool2d", "stride") if _given(stride) else (kh, kw)
    (ph, pw) = _pool2d_pair(padding, "avg_pool2d", "padding")
    _wrap_dim(-3, input.ndim)     # torch reads input.size(-3) next: its IndexError below 3 dims
    h, w = input.shape[-2:]
    oh, ow = _pool_out(h, kh, sh, ph, 1, ceil_mode), _pool_out(w, kw, sw, pw, 1, ceil_mode)
    _check_pool(input, (kh, kw), (sh, sw), (ph, pw), (1, 1), (oh, ow))
    check_kernel_dtype(input, "avg_pool2d", ("Long",))
    if input.dtype == dtypes.int64:
        return truncated_average(
            lambda x, divisor: avg_pool2d(x, kernel_size, stride, padding, ceil_mode,
                                          count_include_pad, divisor), input, divisor_override)
    if not input.is_cuda:
        # one node (Note [average pooling] in ops/nn_ops.py)
        out = _N.avg_pool2d(input, (kh, kw), (sh, sw), (ph, pw), count_include_pad,
                            divisor_override, (oh, ow))
        # torch's node keeps the stride as given: () when it defaulted to the kernel size
        return show_attributes(out, kernel_size=(kh, kw),
                               stride=(sh, sw) if _given(stride) else (), padding=(ph, pw),
                               ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                               divisor_override=divisor_override)
    source = input
    unbatched = input.ndim == 3
    if unbatched:
        input = input.unsqueeze(0)
    input = read_by_backward(input, "AvgPool2DBackward0")
    # ceil_mode's last windows may run past the padding: zeros there make im2col see them
    extra_h, extra_w = max(0, (oh - 1) * sh + kh - h - 2 * ph), max(0, (ow - 1) * sw + kw - w - 2 * pw)
    if extra_h or extra_w:
        from ..ops.shape import pad
        input = pad(input, (0, extra_w, 0, extra_h))
    windows = _N.im2col(input, (kh, kw), (sh, sw), (ph, pw), (1, 1), _N.POOL)
    total = windows.sum((-2, -1))
    if divisor_override:
        out = total * (1.0 / divisor_override)
    else:
        rows = _avg_divisors(h, kh, sh, ph, oh, count_include_pad)
        cols = _avg_divisors(w, kw, sw, pw, ow, count_include_pad)
        if (rows == kh).all() and (cols == kw).all():
            out = total * (1.0 / (kh * kw))
        else:
            out = total * (1.0 / (rows[:, None] * cols[None, :])).astype(input.dtype)
    return named(out.squeeze(0) if unbatched else out, "AvgPool2DBackward0", source,
                 view_of_intermediate=True)


def _adaptive_weights(size, out, dtype):
    """(out, size): row i averages torch's window floor(i*size/out) .. ceil((i+1)*size/out)."""
    weights = np.zeros((out, size), dtype)
    for i in range(out):
        start, end = i * size // out, -(-(i + 1) * size // out)
        weights[i, start:end] = 1.0 / (end - start)
    return weights


def _list_with_default(output_size, defaults):
    """torch's reading of an output_size: an int stays one, a None in a sequence keeps the
    input's size there."""
    if isinstance(output_size, (int, np.integer)):
        return int(output_size)
    if len(defaults) <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    return [d if v is None else v for v, d in zip(output_size, defaults[-len(output_size):])]


def _pair_of_sizes(size, length_message):
    """(h, w) of an output_size read by _list_with_default, or torch's refusal of its length."""
    if isinstance(size, int):
        return size, size
    if len(size) != 2:
        raise RuntimeError(length_message)
    return tuple(int(v) for v in size)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a given output size (windows as torch's, overlapping when the size does
    not divide): two products with averaging matrices, over the rows and over the columns; to
    size 1, the mean, as torch computes it.

    >>> F.adaptive_avg_pool2d(ng.arange(16.0).reshape(1, 1, 4, 4), 1)
    tensor([[[[7.5000]]]])
    """
    from ..creation import as_tensor
    oh, ow = _pair_of_sizes(_list_with_default(output_size, input.shape),
                            "adaptive_avg_pool2d: output_size must be 2")
    if oh < 0 or ow < 0:
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than or "
                           f"equal to 0 but received {{{oh}, {ow}}}")
    if (oh, ow) == (1, 1):
        # as torch computes a global average, before it looks at the input's rank
        if input.ndim < 2:
            raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                               f"{list(input.shape)}")
        return input.mean((-2, -1), keepdim=True)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape)}")
    for dim in (input.ndim - 2, input.ndim - 1):
        if input.shape[dim] == 0:
            raise RuntimeError(f"adaptive_avg_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} "
                               f"with dimension {dim} being empty")
    check_kernel_dtype(input, "adaptive_avg_pool2d")
    h, w = input.shape[-2:]
    dtype = input.dtype
    rows = as_tensor(_adaptive_weights(h, oh, dtype))
    cols = as_tensor(_adaptive_weights(w, ow, dtype).T.copy())
    pooled = rows @ read_by_backward(input, "AdaptiveAvgPool2DBackward0") @ cols
    return named(_refuse_empty_backward(pooled, "adaptive_avg_pool2d_backward"),
                 "AdaptiveAvgPool2DBackward0", input)


def _refuse_empty_backward(result, op):
    """result, whose backward refuses an output empty in a non-batch dim as torch's adaptive
    pooling kernels' do (their forward allows it)."""
    empty = [dim for dim in range(1, result.ndim) if result.shape[dim] == 0]
    if not (empty and result.requires_grad):
        return result
    return _RefusedBackward.apply(
        result, f"{op}(): Expected grad_output to have non-zero size for non-batch dimensions, "
                f"but grad_output has sizes {list(result.shape)} with dimension {empty[0]} being "
                f"empty")


def _one_output_size(output_size, op):
    """torch's parsing of a 1-D pooling's output_size: an int, or a sequence of one int."""
    if isinstance(output_size, (int, np.integer)):
        return int(output_size)
    if not isinstance(output_size, (tuple, list)):
        raise TypeError(f"{op}(): argument 'output_size' (position 2) must be tuple of ints, not "
                        f"{type(output_size).__name__}")
    for position, value in enumerate(output_size):
        if not isinstance(value, (int, np.integer)):
            raise TypeError(f"{op}(): argument 'output_size' (position 2) must be tuple of ints, "
                            f"but found element of type {type(value).__name__} at pos {position}")
    if len(output_size) != 1:
        raise RuntimeError(f"{op}() argument 'output_size' should contain one int (got "
                           f"{len(output_size)})")
    return int(output_size[0])


def _check_2_to_3_dims(input, op):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor "
                           f"for argument #1 'self' (while checking arguments for {op})")


def _single(value):
    return int(value) if isinstance(value, (int, np.integer)) else int(value[0])


def _check_max_pool1d(input, kernel, stride, padding, dilation, ceil_mode):
    """torch's refusals of max_pool1d without indices, in its order and words."""
    if input.ndim not in (2, 3) or 0 in input.shape[-2:]:
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim "
                           f"batch size for input, but got:{list(input.shape)}")
    if kernel <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {kernel}")
    if stride <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {stride}")
    if padding < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {padding}")
    if padding > kernel // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={padding} and kernel_size={kernel}")
    if dilation <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {dilation}")
    out = _pool_size(input.shape[-1], kernel, stride, padding, dilation, ceil_mode)
    if out <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """max_pool2d over (N, C, L) or (C, L) inputs, as a plane of height 1.

    >>> F.max_pool1d(ng.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    tensor([[[3., 2.]]])
    """
    check_bool(ceil_mode, "max_pool1d_with_indices" if return_indices else "max_pool1d",
               "ceil_mode", 6)
    if return_indices:
        # torch's max_pool1d_with_indices takes them through its argument parser
        kernel = _pool1d_single(kernel_size, "max_pool1d", "kernel_size", None)
        stride = _pool1d_single(stride, "max_pool1d", "stride", None) if _given(stride) \
            else kernel
        padding = _pool1d_single(padding, "max_pool1d", "padding", None)
        dilation = _pool1d_single(dilation, "max_pool1d", "dilation", None)
    else:
        kernel = _pool1d_single(kernel_size, "max_pool1d", "kernel_size",
                                "an int, list of ints or tuple of ints")
        stride = _pool1d_single(stride, "max_pool1d", "stride",
                                "None, an int, list of ints, or tuple of ints") \
            if _given(stride) else kernel
        padding = _pool1d_single(padding, "max_pool1d", "padding",
                                 "an int, list of ints, or tuple of ints")
        dilation = _pool1d_single(dilation, "max_pool1d", "dilation",
                                  "an int, list of ints or tuple of ints")
    if return_indices:
        # torch's max_pool1d_with_indices: max_pool2d's checks, of the plane of height 1
        _check_2_to_3_dims(input, "max_pool1d")
    else:
        _check_max_pool1d(input, kernel, stride, padding, dilation, ceil_mode)
        check_kernel_dtype(input, "max_pool1d_impl")
    result = max_pool2d(input.unsqueeze(-2), (1, kernel), (1, stride), (0, padding),
                        (1, dilation), ceil_mode, return_indices)
    if return_indices:
        return result[0].squeeze(-2), result[1].squeeze(-2)
    return result.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """avg_pool2d over (N, C, L) or (C, L) inputs, as a plane of height 1.

    >>> F.avg_pool1d(ng.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    tensor([[[2., 1.]]])
    """
    check_bool(ceil_mode, "avg_pool1d", "ceil_mode")
    check_bool(count_include_pad, "avg_pool1d", "count_include_pad")
    kernel = _pool1d_single(kernel_size, "avg_pool1d", "kernel_size", None)
    stride = _pool1d_single(stride, "avg_pool1d", "stride", None) if _given(stride) else kernel
    padding = _pool1d_single(padding, "avg_pool1d", "padding", None)
    _check_2_to_3_dims(input, "avg_pool1d")
    return avg_pool2d(input.unsqueeze(-2), (1, kernel), (1, stride), (0, padding), ceil_mode,
                      count_include_pad).squeeze(-2)


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of (N, C, L) or (C, L) inputs to output_size (torch's windows), as torch:
    adaptive_avg_pool2d of a plane of height 1.

    >>> F.adaptive_avg_pool1d(ng.tensor([[[1.0, 3.0, 2.0]]]), 2)
    tensor([[[2.0000, 2.5000]]])
    """
    _check_2_to_3_dims(input, "adaptive_avg_pool1d")
    size = _one_output_size(output_size, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def _adaptive_max_positions(data, oh, ow):
    """Flat positions of each window's first maximal element, windows as adaptive pooling's."""
    planes, h, w = data.shape
    flat = np.arange(planes * h * w).reshape(planes, h, w)
    positions = np.empty((planes, oh, ow), np.int64)
    for i in range(oh):
        top, bottom = i * h // oh, -(-(i + 1) * h // oh)
        for j in range(ow):
            left, right = j * w // ow, -(-(j + 1) * w // ow)
            window = data[:, top:bottom, left:right].reshape(planes, -1)
            best = np.argmax(window, axis=1)
            positions[:, i, j] = flat[:, top:bottom, left:right].reshape(planes, -1)[
                np.arange(planes), best]
    return positions


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling of (N, C, H, W) or (C, H, W) inputs to output_size (an int, or (h, w) where None
    keeps that input size), windows as adaptive_avg_pool2d's; the gradient goes to each window's
    first maximal element.

    >>> F.adaptive_max_pool2d(ng.arange(16.0).reshape(1, 1, 4, 4), 1)
    tensor([[[[15.]]]])
    """
    size = _list_with_default(output_size, input.shape)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
                           f"{list(input.shape)}")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"adaptive_max_pool2d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} "
                               f"with dimension {dim} being empty")
    oh, ow = _pair_of_sizes(size, "adaptive_max_pool2d(): internal error: output_size.size() must "
                                  "be 2")
    check_kernel_dtype(input, "adaptive_max_pool2d")
    h, w = input.shape[-2:]
    if oh < 0 or ow < 0:
        shape = [*input.shape[:-2], oh, ow]
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{oh if oh < 0 else ow}: {shape}")
    lead = input.shape[:-2]
    positions = _adaptive_max_positions(to_host(input.detach()._data).reshape(-1, h, w), oh, ow)
    pooled = take(read_by_backward(input, "AdaptiveMaxPool2DBackward0"),
                  positions.reshape(*lead, oh, ow))
    out = named(_refuse_empty_backward(pooled, "adaptive_max_pool2d_backward"),
                "AdaptiveMaxPool2DBackward0", input)
    if not return_indices:
        return out
    planes = np.arange(positions.shape[0]).reshape(-1, 1, 1) * (h * w)
    return out, Tensor._make((positions - planes).reshape(*lead, oh, ow), False)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transpose of conv2d (its gradient with respect to the input): weight is (C_in,
    C_out/groups, kh, kw), and the output (N, C_out, (H-1)*stride - 2*padding
    + dilation*(kw-1) + output_padding + 1, ...).

    Written as a convolution: the input spread out by stride (zeros between), padded by
    dilation*(k-1) - padding on each side (output_padding more on the far side), convolved with the
    flipped kernel whose in and out channels are swapped.

    >>> F.conv_transpose2d(ng.ones(1, 1, 2, 2), ng.ones(1, 1, 2, 2), stride=2)
    tensor([[[[1., 1., 1., 1.],
              [1., 1., 1., 1.],
              [1., 1., 1., 1.],
              [1., 1., 1., 1.]]]])
    """
    from ..ops.shape import cat, pad
    _check_input_dims("conv_transpose2d", input, 2)
    _check_transposed_dtypes(input, weight, bias)
    unbatched = input.ndim == 3
    if unbatched:
        input = input.unsqueeze(0)
    (sh, sw), (ph, pw), (oph, opw), (dh, dw) = (_pair(stride), _pair(padding),
                                                _pair(output_padding), _pair(dilation))
    if sh <= 0 or sw <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if not (oph < sh or oph < dh) or not (opw < sw or opw < dw):
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but "
                           f"got output_padding_height: {oph} output_padding_width: {opw} "
                           f"stride_height: {sh} stride_width: {sw} dilation_height: {dh} "
                           f"dilation_width: {dw}")
    in_channels, per_group, kh, kw = weight.shape
    if input.shape[1] != in_channels:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {in_channels} channels, but got "
                           f"{input.shape[1]} channels instead")
    _check_transposed_output(input.shape[2:], (kh, kw), (sh, sw), (ph, pw), (oph, opw),
                             (dh, dw))
    check_kernel_dtype(input, "slow_conv_transpose2d_out_cpu", ("Long",))
    batched = input
    n, c, h, w = input.shape
    if sh > 1 or sw > 1:
        # zeros between the rows and columns: each value followed by stride - 1 zeros
        spread = pad(input.reshape(n, c, h, 1, w, 1), (0, sw - 1, 0, 0, 0, sh - 1))
        input = spread.reshape(n, c, h * sh, w * sw)[:, :, :(h - 1) * sh + 1, :(w - 1) * sw + 1]
    top, left = dh * (kh - 1) - ph, dw * (kw - 1) - pw
    input = pad(input, (left, left + opw, top, top + oph))
    step = in_channels // groups
    flipped = weight.flip(2, 3)
    kernel = cat([flipped[g * step:(g + 1) * step].transpose(0, 1) for g in range(groups)], 0) \
        if groups > 1 else flipped.transpose(0, 1)
    out = named(conv2d(input, kernel, bias, 1, 0, (dh, dw), groups), "ConvolutionBackward0",
                batched, weight, inputs=(batched, weight, bias))
    return out.squeeze(0) if unbatched else out
