"""More pooling for numgrad.nn.functional: adaptive max pooling over one dim, power-average
(LP) pooling and max unpooling, composed from the pooling of functional_conv.py and scatter."""
import numpy as np

from .. import creation, dtypes
from ..ops.named import named
from ..ops.scatter import scatter
from .functional_conv import (_check_2_to_3_dims, _one_output_size, _pair, adaptive_max_pool2d,
                              avg_pool1d, avg_pool2d)
from .kernel_dtypes import check_kernel_dtype


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling of (N, C, L) or (C, L) inputs to output_size, windows as adaptive_avg_pool1d's.

    >>> import numgrad as ng
    >>> import numgrad.nn.functional as F
    >>> F.adaptive_max_pool1d(ng.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    tensor([[[3., 2.]]])
    """
    _check_2_to_3_dims(input, "adaptive_max_pool1d")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"adaptive_max_pool1d(): Expected input to have non-zero size for "
                               f"non-batch dimensions, but input has sizes {list(input.shape)} "
                               f"with dimension {dim} being empty")
    size = _one_output_size(output_size, "adaptive_max_pool1d")
    result = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), return_indices)
    if return_indices:
        return result[0].squeeze(-2), result[1].squeeze(-2)
    return result.squeeze(-2)


def _root_of_sum(means, count, norm_type):
    # torch's formula: sign(mean) * relu(|mean|) (the mean of an odd power can be negative),
    # times the window size, to the power 1 / norm_type
    return (means.sign() * means.abs().relu() * count) ** (1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum of x^p over each window)^(1/p) of (N, C, L) inputs.

    >>> F.lp_pool1d(ng.tensor([[[3.0, 4.0]]]), 2, 2)
    tensor([[[5.]]])
    """
    means = avg_pool1d(input ** norm_type, kernel_size, stride, 0, ceil_mode)
    return _root_of_sum(means, kernel_size, norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum of x^p over each window)^(1/p) of (N, C, H, W) inputs."""
    kh, kw = _pair(kernel_size)
    means = avg_pool2d(input ** norm_type, kernel_size, stride, 0, ceil_mode)
    return _root_of_sum(means, kh * kw, norm_type)


def _ints(value, dims):
    return tuple(int(v) for v in np.broadcast_to(np.ravel(value), (dims,)))


def _unpooled_size(input, kernel_size, stride, padding, output_size, dims):
    """max_pool's input size that gives input's size (or output_size, checked against it)."""
    kernel = _ints(kernel_size, dims)
    stride = kernel if stride is None else _ints(stride, dims)
    padding = _ints(padding, dims)
    default = tuple((input.shape[input.ndim - dims + k] - 1) * stride[k] - 2 * padding[k]
                    + kernel[k] for k in range(dims))
    if output_size is None:
        return default
    if len(output_size) == dims + 2:
        output_size = output_size[2:]
    if len(output_size) != dims:
        raise ValueError(f"output_size should be a sequence containing {dims} or {dims + 2} "
                         f"elements, but it has a length of '{len(output_size)}'")
    for k in range(dims):
        low, high = default[k] - stride[k], default[k] + stride[k]
        if not low < output_size[k] < high:
            # torch shows output_size as given (a tuple or a list)
            raise ValueError(f'invalid output_size "{output_size}" (dim {k} must be between '
                             f"{low} and {high})")
    return tuple(output_size)


def _check_unpool(input, indices, dims):
    """torch's max_unpooling{2,3}d checks, in its order and words."""
    if indices.dtype != dtypes.int64:
        # sic: the 3-D check does not name the type
        kind = f" but got: {indices.type().split('.')[-1][:-len('Tensor')]}" if dims == 2 else ""
        raise RuntimeError(f"elements in indices should be type int64{kind}")
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"Input to max_unpooling{dims}d should be a {dims + 1}d or "
                           f"{dims + 2}d Tensor, but got a tensor with {input.ndim} dimensions.")
    if input.shape != indices.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    for dim in range(1, input.ndim):
        if input.shape[dim] == 0:
            raise RuntimeError(f"max_unpooling{dims}d_forward_out_cpu(): Expected input to have "
                               f"non-zero size for non-batch dimensions, but got "
                               f"{list(input.shape)} with dimension {dim} being empty.")


def _max_unpool(input, indices, size):
    """input's values written into zeros of spatial size at each plane's flat indices."""
    _check_unpool(input, indices, len(size))
    lead = input.shape[:input.ndim - len(size)]
    pooled = int(np.prod(input.shape[input.ndim - len(size):]))
    flat_input = input.reshape(*lead, pooled)
    flat_indices = indices.reshape(*lead, pooled)
    planes = int(np.prod(size))
    index = np.asarray(flat_indices._data)
    invalid = index[(index < 0) | (index >= planes)]
    if invalid.size:
        # the last one in order: torch's loop records each invalid index and reports the last
        raise RuntimeError(f"Found an invalid max index: {int(invalid[-1])} (output volumes are "
                           f"of size {'x'.join(map(str, size))})")
    zeros = creation.zeros(*lead, planes, dtype=input.dtype, device=input.device)
    return scatter(zeros, -1, flat_indices, flat_input).reshape(*lead, *size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool1d: each value put back where max_pool1d's indices say, zeros
    elsewhere; as torch, max_unpool2d of planes of width 1.

    >>> F.max_unpool1d(ng.tensor([[[3.0, 2.0]]]), ng.tensor([[[1, 2]]]), 2)
    tensor([[[0., 3., 2., 0.]]])
    """
    size = _unpooled_size(input, kernel_size, stride, padding, output_size, 1)
    check_kernel_dtype(input, "max_unpool2d")
    planes = _max_unpool(input.unsqueeze(-1), indices.unsqueeze(-1), size + (1,))
    return named(planes, "MaxUnpool2DBackward0", input, view_of_intermediate=True).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool2d: each value put back where max_pool2d's indices say."""
    size = _unpooled_size(input, kernel_size, stride, padding, output_size, 2)
    check_kernel_dtype(input, "max_unpool2d")
    return named(_max_unpool(input, indices, size), "MaxUnpool2DBackward0", input,
                 view_of_intermediate=True)
