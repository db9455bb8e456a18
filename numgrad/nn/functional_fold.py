"""unfold and fold: the sliding windows of an image as columns, and their sum back into an image
(each the other's adjoint), on the im2col/col2im nodes the convolutions use."""
import numpy as np

from ..ops import nn_ops as _N
from ..ops.apply import apply
from ..ops.named import named
from ..tensor import _wrap_dim
from .kernel_dtypes import check_kernel_dtype


def _settings(**settings):
    """Each setting as a pair (torch's _pair), in the order given, refused in torch's words when
    a sequence is not of two."""
    pairs = []
    for name, value in settings.items():
        pair = (int(value), int(value)) if isinstance(value, (int, np.integer)) else tuple(value)
        if len(pair) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(pair)}")
        pairs.append(pair)
    return pairs


_REFUSALS = {"kernel": ("kernel size should be greater than zero", "kernel"),
             "stride": ("stride should be greater than zero", "stride"),
             "dilation": ("dilation should be greater than zero", "dilation"),
             "padding": ("padding should be non-negative", "pad")}


def _check_settings(kernel, stride, dilation, padding, order):
    """torch's im2col / col2im shape checks of the settings, in the op's order."""
    values = {"kernel": kernel, "stride": stride, "dilation": dilation, "padding": padding}
    for name in order:
        (h, w), (words, short) = values[name], _REFUSALS[name]
        if min(h, w) < (0 if name == "padding" else 1):
            raise RuntimeError(f"{words}, but got {short}_height: {h} {short}_width: {w}")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """The kernel_size windows of an (N, C, H, W) or (C, H, W) input as the columns of
    (N, C * kh * kw, L), L windows, row-major.

    >>> import numgrad as ng
    >>> import numgrad.nn.functional as F
    >>> F.unfold(ng.arange(4.0).reshape(1, 1, 2, 2), 1)
    tensor([[[0., 1., 2., 3.]]])
    """
    kernel, dilation, padding, stride = _settings(
        kernel_size=kernel_size, dilation=dilation, padding=padding, stride=stride)
    _check_settings(kernel, stride, dilation, padding, ("kernel", "dilation", "padding", "stride"))
    _wrap_dim(2, input.ndim)     # torch reads input.size(2) next: its IndexError below 3 dims
    if not (input.ndim == 3 and 0 not in input.shape) and \
            not (input.ndim == 4 and 0 not in input.shape[1:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(input.shape)}")
    source = input
    unbatched = input.ndim == 3
    if unbatched:
        input = input.unsqueeze(0)
    blocks = [_N.out_size(size, k, s, p, d)
              for size, k, s, p, d in zip(input.shape[2:], kernel, stride, padding, dilation)]
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({input.shape[2]}, {input.shape[3]}), "
                           f"kernel_size=({kernel[0]}, {kernel[1]}), dilation=({dilation[0]}, "
                           f"{dilation[1]}), padding=({padding[0]}, {padding[1]}), calculated "
                           f"shape of the array of sliding blocks as ({blocks[0]}, {blocks[1]}), "
                           f"but its components must be at least one.")
    check_kernel_dtype(input, "im2col_out_cpu", ("Bool",))
    windows = _N.im2col(input, kernel, stride, padding, dilation, _N.POOL)
    n, c, oh, ow = windows.shape[:4]
    columns = windows.permute(0, 1, 4, 5, 2, 3).reshape(n, c * kernel[0] * kernel[1], oh * ow)
    return named(columns.squeeze(0) if unbatched else columns, "Im2ColBackward0", source,
                 view_of_intermediate=True)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The columns of (N, C * kh * kw, L) (unfold's layout) summed into an (N, C, H, W) image of
    output_size, overlapping windows adding up.

    >>> F.fold(ng.ones(1, 4, 4), (3, 3), 2)
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
    """
    (height, width), kernel, dilation, padding, stride = _settings(
        output_size=output_size, kernel_size=kernel_size, dilation=dilation, padding=padding,
        stride=stride)
    _check_settings(kernel, stride, dilation, padding, ("kernel", "stride", "dilation", "padding"))
    if not (input.ndim == 2 and 0 not in input.shape) and \
            not (input.ndim == 3 and 0 not in input.shape[1:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    source = input
    unbatched = input.ndim == 2
    if unbatched:
        input = input.unsqueeze(0)
    oh, ow = (_N.out_size(size, k, s, p, d)
              for size, k, s, p, d in zip((height, width), kernel, stride, padding, dilation))
    n, rows, length = input.shape
    per_channel = kernel[0] * kernel[1]
    if rows % per_channel:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={rows} and "
                           f"kernel_size=({kernel[0]}, {kernel[1]}).")
    if length != oh * ow:
        raise RuntimeError(f"Given output_size=({height}, {width}), kernel_size=({kernel[0]}, "
                           f"{kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), padding="
                           f"({padding[0]}, {padding[1]}), stride=({stride[0]}, {stride[1]}), "
                           f"expected size of input's dimension 2 to match the calculated number "
                           f"of sliding blocks {oh} * {ow} = {oh * ow}, but got input.size(2)="
                           f"{length}.")
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given output_size=({height}, {width}), kernel_size=({kernel[0]}, "
                           f"{kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), padding="
                           f"({padding[0]}, {padding[1]}), stride=({stride[0]}, {stride[1]}), "
                           f"calculated shape of the array of sliding blocks as ({oh}, {ow}), "
                           f"which is too small (non-positive)")
    check_kernel_dtype(input, "col2im_out_cpu", ("Bool",))
    c = rows // per_channel
    windows = input.reshape(n, c, kernel[0], kernel[1], oh, ow).permute(0, 1, 4, 5, 2, 3)
    image = apply(_N.COL2IM, (windows,),
                  {"kernel": kernel, "stride": stride, "padding": padding, "dilation": dilation,
                   "layout": _N.POOL, "in_shape": (n, c, height, width)})
    # one Col2ImBackward0 over the input itself, as torch's col2im (which takes unbatched inputs)
    return named(image.squeeze(0) if unbatched else image, "Col2ImBackward0", inputs=(source,),
                 view_of_intermediate=True)
