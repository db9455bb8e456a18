"""The nn functions torch also exposes at top level (torch.conv2d, torch.batch_norm, ...), in
their ATen form: arguments in ATen's order (torch.embedding takes the weight first, batch_norm
has no defaults), losses reduced by an integer (0 none, 1 mean, 2 sum) and a trailing cudnn
flag that changes nothing. Each calls its numgrad.nn.functional twin.

>>> import numgrad as ng
>>> ng.batch_norm(ng.tensor([[1.0], [3.0]]), None, None, None, None, True, 0.1, 1e-5, False)
tensor([[-1.0000],
        [ 1.0000]])
"""
from . import functional as F
from .functional_dropout import _check_p, _feature_dropout
from .functional_pdist import pdist  # noqa: F401  (torch.pdist is F.pdist)
from .functional_rnn_cells import (gru_cell, lstm_cell, rnn_relu_cell,  # noqa: F401
                                   rnn_tanh_cell)

_REDUCTIONS = ("none", "mean", "sum")


def _reduction(code):
    """An ATen reduction code as F's string, checked as torch checks it."""
    if code not in (0, 1, 2):
        raise ValueError(f"{code} is not a valid value for reduction")
    return _REDUCTIONS[code]


def _reduced(loss, code):
    """An unreduced loss reduced as ATen reduces it: the plain mean over all elements (no
    'batchmean')."""
    reduction = _reduction(code)
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


# ---- convolution and pooling ---------------------------------------------------------------------
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return F.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return F.conv2d(input, weight, bias, stride, padding, dilation, groups)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    # ATen's empty stride means "the kernel size", as F's None does
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode, True)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return F.max_pool2d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    return F.avg_pool1d(input, kernel_size, stride or None, padding, ceil_mode, count_include_pad)


def adaptive_avg_pool1d(input, output_size):
    return F.adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size):
    """(values, indices), always both, as ATen's form returns them."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return F.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return F.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups,
                              dilation)


def channel_shuffle(input, groups):
    return F.channel_shuffle(input, groups)


def constant_pad_nd(input, pad, value=0):
    return F.pad(input, pad, "constant", value)


def pixel_shuffle(input, upscale_factor):
    return F.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    return F.pixel_unshuffle(input, downscale_factor)


# ---- normalisation and dropout ------------------------------------------------------------------
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                  cudnn_enabled):
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return F.rms_norm(input, normalized_shape, weight, eps)


def dropout(input, p, train):
    return F.dropout(input, p, train)


def dropout_(input, p, train):
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    return F.alpha_dropout(input, p, train, inplace=True)


def _check_feature_dims(input):
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")


def feature_dropout(input, p, train):
    """Whole channels (dim 1) dropped."""
    _check_feature_dims(input)
    _check_p(p)
    return _feature_dropout(input, p, train, False)


def feature_dropout_(input, p, train):
    _check_feature_dims(input)
    _check_p(p)
    return _feature_dropout(input, p, train, True)


def feature_alpha_dropout(input, p, train):
    _check_feature_dims(input)
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    _check_feature_dims(input)
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of weight picked by indices; ATen's padding_idx -1 means none (F.embedding has turned
    a negative one into a row number before it gets here)."""
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


# ---- activations --------------------------------------------------------------------------------
def selu(input):
    return F.selu(input)


def selu_(input):
    return F.selu(input, inplace=True)


def celu(input, alpha=1.0):
    return F.celu(input, alpha)


def celu_(input, alpha=1.0):
    return F.celu(input, alpha, inplace=True)


def threshold(input, threshold, value):
    return F.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return F.threshold(input, threshold, value, inplace=True)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return F.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return F.rrelu(input, lower, upper, training, inplace=True)


def prelu(input, weight):
    return F.prelu(input, weight)


def hardshrink(input, lambd=0.5):
    return F.hardshrink(input, lambd)


# ---- distances and bilinear ---------------------------------------------------------------------
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    return F.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return F.pairwise_distance(x1, x2, p, eps, keepdim)


def bilinear(input1, input2, weight, bias=None):
    return F.bilinear(input1, input2, weight, bias)


# ---- losses (integer reductions) ----------------------------------------------------------------
def kl_div(input, target, reduction=1, *, log_target=False):
    return _reduced(F.kl_div(input, target, reduction="none", log_target=log_target), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    return F.binary_cross_entropy_with_logits(input, target, weight,
                                              reduction=_reduction(reduction),
                                              pos_weight=pos_weight)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                        reduction=1):
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
             zero_infinity=False):
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      _reduction(reduction), zero_infinity)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction(reduction))


PUBLIC = ("conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "channel_shuffle",
          "constant_pad_nd", "feature_dropout", "feature_dropout_", "feature_alpha_dropout",
          "feature_alpha_dropout_", "max_pool1d", "max_pool2d", "avg_pool1d", "adaptive_avg_pool1d",
          "adaptive_max_pool1d", "pixel_shuffle", "pixel_unshuffle", "layer_norm", "group_norm",
          "batch_norm", "instance_norm", "rms_norm", "dropout", "dropout_", "alpha_dropout",
          "alpha_dropout_", "embedding", "selu", "selu_", "celu", "celu_", "threshold",
          "threshold_", "rrelu", "rrelu_", "prelu", "hardshrink", "cosine_similarity",
          "pairwise_distance", "pdist", "bilinear", "kl_div", "binary_cross_entropy_with_logits",
          "triplet_margin_loss", "margin_ranking_loss", "hinge_embedding_loss",
          "cosine_embedding_loss", "poisson_nll_loss", "ctc_loss", "max_pool1d_with_indices",
          "rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell")
