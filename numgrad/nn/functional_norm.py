"""Normalisation for numgrad.nn.functional: layer, batch, group, instance, RMS and local response
normalisation, each a composite of numgrad ops (means, rsqrt, products), so gradients, higher
derivatives and the GPU path are those of the ops; a training-mode batch norm on the host
normalises in one fused node instead (Note [batch norm's normalisation] in ops/nn_ops.py).

>>> import numgrad as ng
>>> import numgrad.nn.functional as F
>>> F.group_norm(ng.tensor([[[1.0, 3.0], [5.0, 7.0]]]), 1)
tensor([[[-1.3416, -0.4472],
         [ 0.4472,  1.3416]]])
"""
import math

import numpy as np

from .. import dtypes, grad_mode
from ..ops import elementwise as _E
from ..ops import nn_ops as _N
from ..ops.apply import Derived, show_attributes
from ..ops.named import named
from ..ops.shape import pad as _constant_pad
from ..tensor import Tensor
from .bool_argument import check_bool
from .functional_activation import float_kernel
from .functional_conv import avg_pool2d
from .functional_pool3d import avg_pool3d
from .kernel_dtypes import check_kernel_dtype


def _channel_shape(input):
    """(1, C, 1, ...): a per-channel vector shaped to broadcast over (N, C, *)."""
    return (1, input.shape[1]) + (1,) * (input.ndim - 2)


def _affine(out, weight, bias, shape):
    """out * weight + bias, each parameter optional and reshaped to `shape` where given.

    With both, one node takes (out, weight, bias), as torch's norm node does, so the weight's
    gradient is stored (and its hooks run) before the bias's. The bias is reshaped first: the
    weight's reshape is then the later node, which the backward runs first (Note [ready order])."""
    if weight is not None and bias is not None:
        if shape is not None:
            bias = bias.reshape(shape)
            weight = weight.reshape(shape)
        return _N.affine(out, weight, bias)
    if weight is not None:
        out = out * (weight if shape is None else weight.reshape(shape))
    if bias is not None:
        out = out + (bias if shape is None else bias.reshape(shape))
    return out


def _moments(input, dims):
    """The mean over dims, input minus it, and the biased variance over dims (dims kept)."""
    mean = input.mean(dims, keepdim=True)
    centred = input - mean
    return mean, centred, (centred * centred).mean(dims, keepdim=True)


def _update_running(running_mean, running_var, mean, var, momentum, count):
    """running = (1 - momentum) * running + momentum * batch, with the unbiased variance. torch's
    kernel writes them without bumping their versions: so does this, through aliases of their
    data."""
    running_mean = Tensor._make(running_mean._data, False)
    running_var = Tensor._make(running_var._data, False)
    with grad_mode.no_grad():
        running_mean.mul_(1 - momentum).add_(mean.detach().reshape(-1) * momentum)
        running_var.mul_(1 - momentum).add_(var.detach().reshape(-1)
                                            * (momentum * count / (count - 1)))


def _normalized_dims(input, normalized_shape, separator):
    """The trailing dims that normalized_shape names, checked; separator follows torch's message
    (layer_norm writes [*, 2, 4], rms_norm [*2, 4])."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    size = len(normalized_shape)
    if size > input.ndim or tuple(input.shape[input.ndim - size:]) != tuple(normalized_shape):
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with "
                           f"shape [*{separator}{', '.join(map(str, normalized_shape))}], but got "
                           f"input of size{list(input.shape)}")
    return tuple(range(input.ndim - size, input.ndim))


def _check_affine_shapes(normalized_shape, weight, bias):
    """torch's checks of layer_norm's and rms_norm's parameters, before the input's shape."""
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if not shape:
        raise RuntimeError(f"Expected normalized_shape to be at least 1-dimensional, i.e., "
                           f"containing at least one element, but got normalized_shape = {shape}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and list(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {list(t.shape)} and normalized_shape = {shape}")


def _check_same_dtype(input, *parameters):
    """torch's CPU normalisation kernels: when the first given parameter's dtype is not the
    input's ("mixed dtype"), the parameters must be float32 and the input a reduced float, which
    numgrad has not; otherwise a parameter of another dtype fails the kernel's read of it."""
    given = [p for p in parameters if p is not None]
    if not given:
        return
    name = dtypes.scalar_type_name
    if given[0].dtype != input.dtype:
        if any(p.dtype != dtypes.float32 for p in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    for p in given:
        if p.dtype != input.dtype:
            raise RuntimeError(f"expected scalar type {name(input.dtype)} but found "
                               f"{name(p.dtype)}")


@float_kernel("LayerNormKernelImpl")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the last len(normalized_shape) dims (biased variance), then scale and shift.

    >>> F.layer_norm(ng.tensor([[1.0, 3.0]]), (2,))
    tensor([[-1.0000,  1.0000]])
    """
    _check_same_dtype(input, weight, bias)
    _check_affine_shapes(normalized_shape, weight, bias)
    dims = _normalized_dims(input, normalized_shape, ", ")
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if weight is not None and bias is not None and not input.is_cuda \
            and dtypes.is_floating(input.dtype):
        # one node (Note [layer norm's rows] in ops/nn_ops.py)
        return show_attributes(_N.layer_norm(input, weight, bias, eps), normalized_shape=shape,
                               bias=bias)
    _, centred, var = _moments(input, dims)
    out = _affine(centred * (var + eps).rsqrt(), weight, bias, None)
    attributes = {"normalized_shape": shape}
    for name, value in (("weight", weight), ("bias", bias)):
        if value is None:
            attributes[name] = None      # torch's node shows an absent parameter as None
    return named(out, "NativeLayerNormBackward0", input, weight, inputs=(input, weight, bias),
                 attributes=attributes)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """input / sqrt(mean(input^2) + eps) over the last len(normalized_shape) dims, times weight;
    eps=None is the machine epsilon of input's dtype, as torch.

    >>> F.rms_norm(ng.tensor([[3.0, 4.0]]), (2,), eps=0.0)
    tensor([[0.8485, 1.1314]])
    """
    _check_affine_shapes(normalized_shape, weight, None)
    dims = _normalized_dims(input, normalized_shape, "")
    check_kernel_dtype(input, "rms_norm")
    if eps is None:
        eps = float(np.finfo(input.dtype).eps)
    # torch's nodes: PowBackward0, then eps added as a Scalar (AddBackward1)
    out = input * _E.add_scalar(input.pow(2).mean(dims, keepdim=True), eps).rsqrt()
    if weight is None:
        return out
    # torch's result keeps the input's dtype (a cast after a weight of another one)
    return (out * weight).to(input.dtype)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dim 1) of an (N, C, *) input over the batch and any further dims.

    In training, batch statistics are used and the running ones (if given) are updated in place:
    running = (1 - momentum) * running + momentum * batch, with the unbiased batch variance.
    Otherwise the running statistics normalise.

    >>> F.batch_norm(ng.tensor([[1.0], [3.0]]), None, None, training=True)
    tensor([[-1.0000],
            [ 1.0000]])
    """
    check_bool(training, "batch_norm", "training", 6)   # torch's F passes it by position
    channels = input.shape[1]
    for name, tensor in (("running_mean", running_mean), ("running_var", running_var),
                         ("weight", weight), ("bias", bias)):
        if tensor is not None and tensor.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {tensor.numel()}")
    _check_same_dtype(input, weight, bias, running_mean, running_var)
    check_kernel_dtype(input, "batch_norm")
    dims = (0,) + tuple(range(2, input.ndim))
    shape = _channel_shape(input)
    # what torch's node keeps besides the input and weight
    attributes = {"eps": eps, "training": bool(training), "running_mean": running_mean,
                  "running_var": running_var}
    if weight is None:
        attributes["weight"] = None
    if training:
        count = input.numel() // input.shape[1]
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {input.shape}")
        # (on a GPU the composite: the fused node's statistics have no device kernel yet)
        if not input.is_cuda and dtypes.is_floating(input.dtype) and weight is not None \
                and bias is not None:
            out, mean, var = _N.batch_norm(input, weight, bias, eps)
            if running_mean is not None:
                _update_running(running_mean, running_var, mean, var, momentum, count)
            return show_attributes(out, result2=_invstd(var, eps), **attributes)
        if not input.is_cuda and dtypes.is_floating(input.dtype):
            normalised, mean, var = _N.batch_norm_stats(input, eps)
            out = _affine(normalised, weight, bias, shape)
        else:
            mean, centred, var = _moments(input, dims)
            out = _affine(centred * (var + eps).rsqrt(), weight, bias, shape)
        if running_mean is not None:
            _update_running(running_mean, running_var, mean, var, momentum, count)
        attributes.update(result1=Derived(lambda: mean.detach().reshape(-1)),
                          result2=_invstd(var, eps))
    else:
        for name, tensor in (("running_mean", running_mean), ("running_var", running_var)):
            if tensor is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
        out = _affine((input - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps)
                      .rsqrt(), weight, bias, shape)
        # torch's eval-mode node keeps no batch statistics: two empty tensors
        empty = Tensor._make(np.zeros(0, input.dtype), False)
        attributes.update(result1=empty, result2=empty)
    return named(out, "NativeBatchNormBackward0", input, weight, inputs=(input, weight, bias),
                 view_of_intermediate=True, attributes=attributes,
                 saved_names=("input", "weight"))


def _invstd(var, eps):
    """torch's saved result2 of a training batch norm, 1 / sqrt(var + eps) per channel, as a
    tensor outside the graph, computed when read."""
    def compute():
        with grad_mode.no_grad():
            return (var.detach().reshape(-1) + eps).rsqrt()
    return Derived(compute)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Normalise each (sample, channel) of an (N, C, *) input over its spatial dims, as torch
    computes it: batch_norm of the input seen as one sample of N * C channels, with the
    parameters and running statistics repeated per sample (so its nodes, and the order in which
    the parameters get their gradients, are torch's).

    With running statistics and use_input_stats, they are updated as batch_norm's would be by each
    sample, then averaged over the batch (torch's rule); use_input_stats=False normalises with them.

    >>> F.instance_norm(ng.tensor([[[1.0, 3.0]]]))
    tensor([[[-1.0000,  1.0000]]])
    """
    if use_input_stats and math.prod(input.shape[2:]) <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{input.shape}")
    check_bool(use_input_stats, "instance_norm", "use_input_stats", 6)
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when "
                           "use_input_stats is false")
    n, c = input.shape[:2]
    weight, bias = (None if t is None else t.repeat(n) for t in (weight, bias))
    # torch takes running statistics of another float type here, where batch_norm refuses them
    mean, var = (None if t is None else t.repeat(n).to(input.dtype)
                 for t in (running_mean, running_var))
    out = batch_norm(input.reshape(1, n * c, *input.shape[2:]), mean, var, weight, bias,
                     use_input_stats, momentum, eps)
    if running_mean is not None and use_input_stats:
        with grad_mode.no_grad():
            running_mean.copy_(mean.view(n, c).mean(0))
            running_var.copy_(var.view(n, c).mean(0))
    return out.view(input.shape)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Split the channels of an (N, C, *) input into num_groups groups and normalise each group of
    each sample (biased variance), then scale and shift per channel.

    >>> F.group_norm(ng.tensor([[[1.0, 2.0], [3.0, 5.0]]]), 2)
    tensor([[[-1.0000,  1.0000],
             [-1.0000,  1.0000]]])
    """
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    # torch's _verify_batch_size of the groups, in training or not
    sizes = [input.shape[0] * input.shape[1] // num_groups, num_groups, *input.shape[2:]]
    if sizes[0] * math.prod(sizes[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{sizes}")
    if input.shape[1] % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    for tensor in (weight, bias):
        if tensor is not None and (tensor.ndim != 1 or tensor.numel() != input.shape[1]):
            name = "weight" if tensor is weight else "bias"
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape "
                               f"{list(tensor.shape)} and input of shape {list(input.shape)}")
    check_kernel_dtype(input, "GroupNormKernelImpl")
    _check_same_dtype(input, weight, bias)
    if weight is not None and bias is not None and not input.is_cuda:
        # one node (Note [group norm's groups] in ops/nn_ops.py)
        out = _N.group_norm(input, weight, bias, num_groups, eps)[0]
        return show_attributes(out, N=input.shape[0], C=input.shape[1],
                               HxW=math.prod(input.shape[2:]), group=num_groups, eps=eps)
    groups = input.reshape(input.shape[0], num_groups, -1)
    _, centred, var = _moments(groups, (2,))
    out = (centred * (var + eps).rsqrt()).reshape(input.shape)
    return named(_affine(out, weight, bias, _channel_shape(input)), "NativeGroupNormBackward0",
                 input, weight, inputs=(input, weight, bias), view_of_intermediate=True)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """input / (k + alpha * mean of input^2 over size neighbouring channels)^beta, the window
    zero-padded at the ends (size // 2 before, (size - 1) // 2 after) and always divided by size.

    >>> F.local_response_norm(ng.ones(1, 2, 1), 2, alpha=1.0, beta=1.0)
    tensor([[[0.6667],
             [0.5000]]])
    """
    if input.ndim < 3:
        # sic: torch's message carries its source's line continuation (25 spaces)
        raise ValueError(f"Expected 3D or higher dimensionality {' ' * 25}input (got "
                         f"{input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    # torch's composite, node for node: the squares averaged over channel windows by
    # avg_pool2d (3-D input) or avg_pool3d, whose kernels refuse the dtypes they refuse
    div = input.mul(input)
    if input.ndim == 3:
        div = _constant_pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = _constant_pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    return input / div.mul(alpha).add(k).pow(beta)
