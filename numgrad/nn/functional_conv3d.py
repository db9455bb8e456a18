"""3-D convolutions for numgrad.nn.functional, built on conv2d's one-node im2col and BLAS product.

Note [conv3d as conv2d]
A 3-D convolution is a 2-D one over (H, W) whose channels are the (kd, C) depth windows: the input
(N, C, D, H, W) is gathered to (N, oD, kd, C, H, W) (depth padding, stride and dilation applied by
the gather), seen as a batch of N*oD images with kd*C channels, and convolved by conv2d with the
weight (O, C, kd, kh, kw) reordered to (O, kd*C, kh, kw). The columns conv2d builds from these
images are exactly the 3-D columns, so the work is one BLAS product per image, as in 2-D, and the
gradients are conv2d's and the gather's (a scatter-add): no new kernel.

>>> import numgrad as ng
>>> import numgrad.nn.functional as F
>>> F.conv3d(ng.ones(1, 1, 3, 3, 3), ng.ones(2, 1, 2, 2, 2)).shape
numgrad.Size([1, 2, 2, 2, 2])
"""
import numpy as np

from ..ops import nn_ops as _N
from ..ops.named import named
from ..tensor import Tensor
from .functional_conv import (_check_conv_dtypes, _check_input_dims, _check_kernel_fits,
                              _check_transposed_dtypes, _check_transposed_output, _same_padding)
from .kernel_dtypes import check_kernel_dtype


def _triple(value, refusal=None):
    """(v, v, v) for an int or a 1-tuple, the triple itself, else RuntimeError(refusal)."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * 3
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return value * 3
    if len(value) != 3 and refusal is not None:
        raise RuntimeError(refusal)
    return value


def _conv_triple(name, value):
    """_triple, refused in torch's words for a convolution."""
    shown = list(value) if not isinstance(value, (int, np.integer)) else value
    return _triple(value, f"expected {name} to be a single integer value or a list of 3 values "
                          f"to match the convolution dimensions, but got {name}={shown}")


def _depth_images(input, kd, sd, pd, dd, od):
    """(N, C, D, H, W) -> (N*od, kd*C, H, W): each output depth's window of input planes
    (Note [conv3d as conv2d]); padded planes read as zeros."""
    from ..ops.shape import pad
    n, c, _, h, w = input.shape
    planes = input.permute(0, 2, 1, 3, 4)                  # (N, D, C, H, W)
    if pd:
        planes = pad(planes, (0, 0, 0, 0, 0, 0, pd, pd))
    if kd == 1 and sd == 1 and planes.shape[1] == od:
        return planes.reshape(n * od, c, h, w)
    index = (np.arange(od)[:, None] * sd + np.arange(kd)[None, :] * dd).reshape(-1)
    picked = planes.index_select(1, Tensor._make(index, False))
    return picked.reshape(n * od, kd * c, h, w)


def _conv3d_group(input, weight, bias, stride, padding, dilation):
    n = input.shape[0]
    out_channels, per_group, kd, kh, kw = weight.shape
    od = _N.out_size(input.shape[2], kd, stride[0], padding[0], dilation[0])
    images = _depth_images(input, kd, stride[0], padding[0], dilation[0], od)
    kernel = weight.permute(0, 2, 1, 3, 4).reshape(out_channels, kd * per_group, kh, kw)
    out = _N.conv2d(images, kernel, bias, stride[1:], padding[1:], dilation[1:])
    oh, ow = out.shape[2:]
    return out.reshape(n, od, out_channels, oh, ow).permute(0, 2, 1, 3, 4).contiguous()


def _conv3d_groups(input, weight, bias, stride, padding, dilation, groups):
    if groups == 1:
        return _conv3d_group(input, weight, bias, stride, padding, dilation)
    from ..ops.shape import cat
    per_group, step = weight.shape[1], weight.shape[0] // groups
    return cat([_conv3d_group(input[:, k * per_group:(k + 1) * per_group],
                              weight[k * step:(k + 1) * step],
                              None if bias is None else bias[k * step:(k + 1) * step],
                              stride, padding, dilation) for k in range(groups)], 1)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution (cross-correlation, as torch): input (N, C, D, H, W) or (C, D, H, W),
    weight (O, C/groups, kd, kh, kw); padding an int, a triple, 'valid' or 'same' (stride 1).

    >>> x = ng.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> F.conv3d(x, ng.ones(1, 1, 2, 2, 2))
    tensor([[[[[28.]]]]])
    """
    _check_input_dims("conv3d", input, 3)
    _check_conv_dtypes(input, weight, bias)
    unbatched = input.ndim == 4
    if unbatched:
        input = input.unsqueeze(0)
    batched = input
    per_group = weight.shape[1]
    kernel = tuple(weight.shape[2:])
    stride, dilation = _conv_triple("stride", stride), _conv_triple("dilation", dilation)
    if not isinstance(padding, str) and any(p < 0 for p in _conv_triple("padding", padding)):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if padding == "valid":
        padding = 0
    elif padding == "same":
        if stride != (1, 1, 1):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        sides = _same_padding(kernel, dilation)
        if any(left != right for left, right in sides):
            from ..ops.shape import pad
            input = pad(input, [p for side in reversed(sides) for p in side])
            padding = 0
        else:
            padding = tuple(left for left, _ in sides)
    padding = _triple(padding)
    _check_kernel_fits([size + 2 * p for size, p in zip(input.shape[2:], padding)],
                       [d * (k - 1) + 1 for k, d in zip(kernel, dilation)])
    if input.shape[1] != per_group * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {per_group * groups} channels, but "
                           f"got {input.shape[1]} channels instead")
    check_kernel_dtype(input, "compute_columns3d", ("Long", "Int"))
    out = _conv3d_groups(input, weight, bias, stride, padding, dilation, groups)
    return _unbatched(named(out, "ConvolutionBackward0", batched, weight,
                            inputs=(batched, weight, bias), view_of_intermediate=True), unbatched)


def _unbatched(out, unbatched):
    """torch's convolutions of one sample: the batch of one's node, then SqueezeBackward1."""
    return out.squeeze(0) if unbatched else out


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The transpose of conv3d (its gradient with respect to the input): weight is (C_in,
    C_out/groups, kd, kh, kw); each output size (S-1)*stride - 2*padding + dilation*(k-1)
    + output_padding + 1. Written as conv_transpose2d is: a convolution of the input spread out by
    stride and padded by dilation*(k-1) - padding, with the flipped, transposed kernel.

    >>> F.conv_transpose3d(ng.ones(1, 1, 1, 1, 1), ng.ones(1, 2, 2, 2, 2)).shape
    numgrad.Size([1, 2, 2, 2, 2])
    """
    from ..ops.shape import cat, pad
    _check_input_dims("conv_transpose3d", input, 3)
    _check_transposed_dtypes(input, weight, bias)
    unbatched = input.ndim == 4
    if unbatched:
        input = input.unsqueeze(0)
    batched = input
    stride, padding = _triple(stride), _triple(padding)
    output_padding, dilation = _triple(output_padding), _triple(dilation)
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(not (op < s or op < d) for op, s, d in zip(output_padding, stride, dilation)):
        words = [f"{what}_{dim}: {v}" for what, values in
                 (("output_padding", output_padding), ("stride", stride), ("dilation", dilation))
                 for dim, v in zip(("depth", "height", "width"), values)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                           "got " + " ".join(words))
    in_channels = weight.shape[0]
    kernel = weight.shape[2:]
    if input.shape[1] != in_channels:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {in_channels} channels, but got "
                           f"{input.shape[1]} channels instead")
    _check_transposed_output(input.shape[2:], kernel, stride, padding, output_padding, dilation)
    check_kernel_dtype(input, "slow_conv_transpose3d_out_cpu", ("Long",))
    n, c, d, h, w = input.shape
    sd, sh, sw = stride
    if sd > 1 or sh > 1 or sw > 1:
        # each value followed by stride - 1 zeros along each dim
        spread = pad(input.reshape(n, c, d, 1, h, 1, w, 1), (0, sw - 1, 0, 0, 0, sh - 1, 0, 0,
                                                               0, sd - 1))
        input = spread.reshape(n, c, d * sd, h * sh, w * sw)[
            :, :, :(d - 1) * sd + 1, :(h - 1) * sh + 1, :(w - 1) * sw + 1]
    widths = []
    for k, p, op, dl in reversed(list(zip(kernel, padding, output_padding, dilation))):
        widths += [dl * (k - 1) - p, dl * (k - 1) - p + op]
    input = pad(input, widths)
    step = in_channels // groups
    flipped = weight.flip(2, 3, 4)
    kernel = cat([flipped[g * step:(g + 1) * step].transpose(0, 1) for g in range(groups)], 0) \
        if groups > 1 else flipped.transpose(0, 1)
    _check_kernel_fits(input.shape[2:], [dl * (k - 1) + 1 for k, dl in zip(kernel.shape[2:],
                                                                            dilation)])
    out = _conv3d_groups(input, kernel, bias, (1, 1, 1), (0, 0, 0), dilation, groups)
    return _unbatched(named(out, "ConvolutionBackward0", batched, weight,
                            inputs=(batched, weight, bias), view_of_intermediate=True), unbatched)
