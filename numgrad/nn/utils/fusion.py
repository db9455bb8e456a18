"""Folding an eval-mode batch norm into the convolution or linear layer before it, as
torch.nn.utils.fusion: one layer computing what the two did, for inference."""
import copy

from ...creation import ones_like, zeros_like
from ..parameter import Parameter


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of conv whose weight and bias take in bn's affine map of its running statistics
    (both in eval mode); transpose for a ConvTranspose, whose output channels are dim 1.

    >>> import numgrad as ng
    >>> conv, bn = ng.nn.Conv1d(1, 2, 1).eval(), ng.nn.BatchNorm1d(2).eval()
    >>> x = ng.ones(1, 1, 3)
    >>> bool(ng.allclose(fuse_conv_bn_eval(conv, bn)(x), bn(conv(x))))
    True
    """
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean,
                                                    bn.running_var, bn.eps, bn.weight, bn.bias,
                                                    transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """(weight, bias) Parameters of a convolution followed by the batch norm of running mean
    bn_rm, running variance bn_rv, eps, weight bn_w and bias bn_b (None: 1 and 0), in the
    convolution's dtypes."""
    weight_dtype = conv_w.dtype
    bias_dtype = conv_b.dtype if conv_b is not None else weight_dtype
    if conv_b is None:
        conv_b = zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ones_like(bn_rm)
    if bn_b is None:
        bn_b = zeros_like(bn_rm)
    rsqrt_var = (bn_rv + bn_eps).rsqrt()
    # one scale per output channel: dim 0 of a convolution's weight, dim 1 of a transposed one's
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.ndim - 2)
    fused_w = (conv_w * (bn_w * rsqrt_var).reshape(shape)).to(dtype=weight_dtype)
    fused_b = ((conv_b - bn_rm) * rsqrt_var * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of linear whose weight and bias take in bn's affine map of its running
    statistics (both in eval mode; bn over linear's features, or a single one)."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or "
                             "bn.num_features == 1, got linear.out_features="
                             f"{linear.out_features} and bn.num_features={bn.num_features}")
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean,
                                                      bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """(weight, bias) Parameters of a linear layer followed by the batch norm of running mean
    bn_rm, running variance bn_rv, eps, weight bn_w and bias bn_b, in the layer's dtypes."""
    weight_dtype = linear_w.dtype
    bias_dtype = linear_b.dtype if linear_b is not None else weight_dtype
    if linear_b is None:
        linear_b = zeros_like(bn_rm)
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * scale.unsqueeze(-1).to(dtype=weight_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
