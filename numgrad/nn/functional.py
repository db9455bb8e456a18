"""numgrad.nn.functional: linear layers, distances, embedding, one_hot, pad; activations
(functional_activation.py), normalisation (functional_norm.py), dropout (functional_dropout.py),
convolution and pooling (functional_conv.py), resampling (functional_resample.py) and losses
(functional_losses.py, functional_margin_losses.py).

Composites of numgrad ops where that is exact and fast; one fused node (numgrad.ops.nn_ops) where
the composite would cost several.

>>> import numgrad as ng
>>> import numgrad.nn.functional as F
>>> F.softmax(ng.tensor([[1.0, 2.0, 3.0]]), dim=1)
tensor([[0.0900, 0.2447, 0.6652]])
"""
import numpy as np

from .. import dtypes, grad_mode
from ..ops import elementwise as _E
from ..ops import nn_ops as _N
from ..ops.index import take, take_rows
from ..ops.linalg import infer_size_error
from ..ops.named import named, read_by_backward
from ..ops.shape import pad as _constant_pad
from ..ops.tensor_info import typename
from ..ops.untracked import to_host, untracked
from ..tensor import Tensor
from .bool_argument import check_bool
from .functional_activation import (celu, elu, gelu, glu, hardshrink, hardsigmoid, hardswish,
                                    hardtanh, leaky_relu, log_softmax, logsigmoid, mish, prelu,
                                    relu, relu6, selu, sigmoid, silu, softmax, softmin, softplus,
                                    softshrink, softsign, tanh, tanhshrink, threshold)
from .functional_conv import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_max_pool2d,
                              avg_pool1d, avg_pool2d, conv1d, conv2d, conv_transpose2d, max_pool1d,
                              max_pool2d)
from .functional_attention import scaled_dot_product_attention
from .functional_circular_pad import pad_circular
from .functional_dropout import alpha_dropout, dropout, dropout1d, dropout2d
from .functional_losses import (binary_cross_entropy, binary_cross_entropy_with_logits,
                                cross_entropy, gaussian_nll_loss, huber_loss, kl_div, l1_loss,
                                mse_loss, nll_loss, poisson_nll_loss, smooth_l1_loss)
from .functional_margin_losses import (cosine_embedding_loss, distance, hinge_embedding_loss,
                                       margin_ranking_loss, multi_margin_loss,
                                       multilabel_soft_margin_loss, soft_margin_loss,
                                       triplet_margin_loss)
from .functional_margin_losses_more import (multilabel_margin_loss,
                                            triplet_margin_with_distance_loss)
from .functional_resample import interpolate, pixel_shuffle, pixel_unshuffle
from .functional_norm import (batch_norm, group_norm, instance_norm, layer_norm,
                              local_response_norm, rms_norm)
from .functional_ctc import ctc_loss
from .functional_embedding_bag import embedding_bag
from .functional_fold import fold, unfold
from .functional_forms import (adaptive_max_pool1d_with_indices, adaptive_max_pool2d_with_indices,
                               celu_, channel_shuffle, conv_transpose1d, dropout3d, elu_,
                               feature_alpha_dropout, hardtanh_, leaky_relu_,
                               max_pool1d_with_indices, max_pool2d_with_indices, relu_, rrelu_,
                               selu_, threshold_, upsample, upsample_bilinear, upsample_nearest)
from .functional_grid_sample import affine_grid, grid_sample
from .functional_fractional_pool import (fractional_max_pool2d,
                                        fractional_max_pool2d_with_indices,
                                        fractional_max_pool3d,
                                        fractional_max_pool3d_with_indices)
from .functional_gumbel import gumbel_softmax
from .functional_mha import multi_head_attention_forward
from .functional_pdist import pdist
from .functional_pooling_more import (adaptive_max_pool1d, lp_pool1d, lp_pool2d, max_unpool1d,
                                      max_unpool2d)
from .functional_rrelu import rrelu
from .functional_conv3d import conv3d, conv_transpose3d
from .functional_pool3d import (adaptive_avg_pool3d, adaptive_max_pool3d,
                                adaptive_max_pool3d_with_indices, avg_pool3d, lp_pool3d,
                                max_pool3d, max_pool3d_with_indices, max_unpool3d)

__all__ = ["relu", "leaky_relu", "elu", "gelu", "silu", "softplus", "sigmoid", "tanh", "logsigmoid",
           "hardtanh", "relu6", "softsign", "mish", "hardsigmoid", "hardswish", "glu", "prelu",
           "selu", "celu", "threshold", "tanhshrink", "softmin", "hardshrink", "softshrink",
           "group_norm", "instance_norm", "rms_norm", "local_response_norm", "normalize",
           "cosine_similarity", "pairwise_distance", "softmax",
           "log_softmax", "linear", "bilinear", "dropout", "dropout1d", "dropout2d",
           "alpha_dropout", "layer_norm", "batch_norm", "embedding",
           "one_hot", "pad", "conv1d", "conv2d", "conv_transpose2d", "max_pool1d", "max_pool2d",
           "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool2d", "pixel_shuffle", "pixel_unshuffle", "interpolate",
           "cross_entropy",
           "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
           "poisson_nll_loss", "gaussian_nll_loss", "margin_ranking_loss", "hinge_embedding_loss",
           "soft_margin_loss", "cosine_embedding_loss", "triplet_margin_loss", "multi_margin_loss",
           "multilabel_soft_margin_loss", "scaled_dot_product_attention", "rrelu", "pdist",
           "adaptive_max_pool1d", "lp_pool1d", "lp_pool2d", "max_unpool1d", "max_unpool2d",
           "fold", "unfold", "embedding_bag", "gumbel_softmax", "relu_", "elu_", "leaky_relu_",
           "hardtanh_", "selu_", "celu_", "rrelu_", "threshold_", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices", "upsample", "upsample_nearest",
           "upsample_bilinear", "dropout3d", "feature_alpha_dropout", "channel_shuffle",
           "conv_transpose1d", "affine_grid", "grid_sample", "multilabel_margin_loss",
           "triplet_margin_with_distance_loss", "ctc_loss", "multi_head_attention_forward",
           "conv3d", "conv_transpose3d", "max_pool3d", "max_pool3d_with_indices", "avg_pool3d",
           "adaptive_avg_pool3d", "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices",
           "lp_pool3d", "max_unpool3d", "fractional_max_pool2d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
           "fractional_max_pool3d_with_indices"]


# ---- linear layers --------------------------------------------------------------------------------
def linear(input, weight, bias=None):
    """input @ weight.T + bias, one node for any number of leading dims.

    >>> F.linear(ng.ones(1, 2), ng.ones(3, 2), ng.zeros(3))
    tensor([[2., 2., 2.]])
    """
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input.ndim}D and {weight.ndim}D")
    _check_linear_dtypes(input, weight, bias)
    try:
        if input.ndim == 2:
            return _N.linear(input, weight, bias)
        # torch's dispatch: with a 1-D bias, a contiguous input is folded to 2-D and back (a
        # view of its addmm); otherwise matmul (UnsafeViewBackward0 or SqueezeBackward4), then
        # the bias added in place
        if bias is not None and input.is_contiguous() and bias.ndim == 1:
            out = _N.linear(input.reshape(-1, input.shape[-1]), weight, bias)
            return out.view(*input.shape[:-1], weight.shape[0])
    except ValueError:          # NumPy's, for a bias that does not broadcast to the output
        _bias_expand_error(input, weight, bias)
    out = input @ weight.t()
    return out if bias is None else out.add_(bias)


def _bias_expand_error(input, weight, bias):
    """torch's error for such a bias: its addmm expands the bias to (rows, out_features), rows
    being input's leading dims folded."""
    target = [input.numel() // input.shape[-1] if input.shape[-1] else 0, weight.shape[0]]
    if bias.ndim > 2:
        raise RuntimeError(f"expand({bias.type()}{{{list(bias.shape)}}}, size={target}): the "
                           f"number of sizes provided (2) must be greater or equal to the number "
                           f"of dimensions in the tensor ({bias.ndim})")
    shape = (1,) * (2 - bias.ndim) + tuple(bias.shape)
    i = next(i for i in (1, 0) if shape[i] not in (1, target[i]))
    raise RuntimeError(f"The expanded size of the tensor ({target[i]}) must match the existing "
                       f"size ({shape[i]}) at non-singleton dimension {i}.  Target sizes: "
                       f"{target}.  Tensor sizes: {list(bias.shape)}")


def _check_linear_dtypes(input, weight, bias):
    """torch promotes nothing in linear: each of its kernels (addmm with a bias on a batch, mm,
    mv) refuses mixed dtypes in its own words."""
    name = dtypes.scalar_type_name
    if input.dtype != weight.dtype:
        if bias is not None and input.ndim >= 2:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{name(input.dtype)} and {name(weight.dtype)}")
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{name(input.dtype).lower()} != {name(weight.dtype).lower()}")
    if bias is not None and bias.dtype != weight.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{name(bias.dtype)} and {name(weight.dtype)}")


def bilinear(input1, input2, weight, bias=None):
    """y[..., k] = input1 @ weight[k] @ input2 + bias[k]; weight is (out, in1, in2).

    >>> F.bilinear(ng.ones(1, 2), ng.ones(1, 3), ng.ones(4, 2, 3)).shape
    numgrad.Size([1, 4])
    """
    given = {"input1": input1, "input2": input2, "weight": weight}
    if bias is not None:
        given["bias"] = bias
    if len({t.dtype for t in given.values()}) > 1:
        names = ", ".join(f"{what}: {dtypes.scalar_type_name(t.dtype).lower()}"
                          for what, t in given.items())
        raise RuntimeError(f"All tensors must have the same dtype, got {names}")
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and "
                           f"{input2.ndim}")
    for i, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if a != b:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{a} and {b}")
    out_features, in1, in2 = weight.shape
    for k, got, want in ((1, input1.shape[-1], in1), (2, input2.shape[-1], in2)):
        if got != want:
            raise RuntimeError(f"bilinear(): input{k} size does not match weight size: got {got} "
                               f"but expected {want}")
    if bias is not None and bias.shape[0] != out_features:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {out_features}")
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    # (rows, in1) @ (in1, out * in2): every output's bilinear form at once
    mixed = x1.matmul(weight.permute(1, 0, 2).reshape(in1, out_features * in2))
    forms = (mixed.reshape(-1, out_features, in2) * x2.unsqueeze(1)).sum(-1)
    # torch's graph: _trilinear of the flattened inputs and the weight, viewed back, plus bias
    out = named(forms, "TrilinearBackward0", x1, x2,
                inputs=(x1, weight, x2)).reshape(*lead, out_features)
    return out if bias is None else out + bias


# ---- distances ----------------------------------------------------------------------------------
def normalize(input, p=2.0, dim=1, eps=1e-12):
    """input / max(||input||_p, eps) along dim.

    >>> F.normalize(ng.tensor([[3.0, 4.0]]))
    tensor([[0.6000, 0.8000]])
    """
    # torch's steps: the clamped norm expanded to the input's shape, then the division
    return input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along dim (after broadcasting).

    As in torch, each input is divided by its norm first (the result stays within [-1, 1]) and the
    norms are clamped outside the graph: the gradient is that of the unclamped norms.

    >>> F.cosine_similarity(ng.tensor([[1.0, 0.0]]), ng.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """
    try:
        shape = np.broadcast_shapes(x1.shape, x2.shape)
    except ValueError:
        infer_size_error(x1.shape, x2.shape)
    common = np.result_type(x1._data.dtype, x2._data.dtype)
    if not dtypes.is_floating(common):
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{dtypes.scalar_type_name(common)}")
    # both in the common dtype and shape (expanded only where it differs), as torch's
    x1, x2 = (x if tuple(x.shape) == shape else x.broadcast_to(shape)
              for x in (x1.to(common), x2.to(common)))
    # torch's graph: each norm cloned, then clamped in place outside the graph
    n1, n2 = x1.norm(2, dim, keepdim=True).clone(), x2.norm(2, dim, keepdim=True).clone()
    with grad_mode.no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim.

    >>> F.pairwise_distance(ng.tensor([[0.0, 0.0]]), ng.tensor([[3.0, 4.0]]), eps=0.0)
    tensor([5.])
    """
    check_bool(keepdim, "pairwise_distance", "keepdim")
    return distance(x1, x2, p, eps, keepdim)


# ---- embedding and one_hot --------------------------------------------------------------------------
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of weight picked by the integer tensor input; the row padding_idx gets no gradient.

    >>> F.embedding(ng.tensor([1, 0]), ng.tensor([[0.0, 1.0], [2.0, 3.0]]))
    tensor([[2., 3.],
            [0., 1.]])
    """
    # torch's F.embedding passes them to its builtin by position
    check_bool(scale_grad_by_freq, "embedding", "scale_grad_by_freq", 4)
    check_bool(sparse, "embedding", "sparse", 5)
    if sparse:
        raise NotImplementedError("embedding: sparse gradients are not supported")
    rows = weight.shape[0]
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= rows
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    index = to_host(input._data)
    if index.dtype.kind not in "iu":
        # torch names the type by its legacy name, a bool one by its older one still
        kind = "CPUBoolType" if index.dtype == np.bool_ else typename(input)
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following "
                           f"scalar types: Long, Int; but got {kind} instead (while checking "
                           "arguments for embedding)")
    if index.size and (index.min() < 0 or index.max() >= rows):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_rows(weight, np.unique(index), max_norm, norm_type)
    out = take_rows(weight, index)          # Note [whole rows]
    if scale_grad_by_freq and out.requires_grad:
        _, inverse, counts = np.unique(index, return_inverse=True, return_counts=True)
        scale = (1.0 / counts[inverse.reshape(index.shape)])[..., None].astype(weight._data.dtype)
        # the same values (out - out.detach() is zero), with each row's gradient divided by how
        # often the batch picks it, as torch's
        out = out.detach() + (out - out.detach()) * Tensor._make(scale, False)
    if padding_idx is not None and out.requires_grad:
        keep = Tensor._make(np.broadcast_to((index != padding_idx)[..., None], out.shape), False)
        out = _E.where(keep, out, out.detach())
    # torch keeps padding_idx wrapped (-1 when there is none); sparse=True was refused above
    attributes = {"padding_idx": -1 if padding_idx is None else padding_idx,
                  "scale_grad_by_freq": scale_grad_by_freq, "sparse": False,
                  "weight_sym_argsize_0": rows}
    return named(out, "EmbeddingBackward0", input, inputs=(weight,), attributes=attributes)


def _renorm_rows(weight, rows, max_norm, norm_type):
    """torch's max_norm: rows whose norm exceeds max_norm are scaled down in place."""
    with grad_mode.no_grad():
        data = weight._data
        norms = np.linalg.norm(data[rows], ord=norm_type, axis=1)
        big = norms > max_norm
        if big.any():
            data[rows[big]] *= (max_norm / (norms[big] + 1e-7))[:, None].astype(data.dtype)
            weight._bump_version()


def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding along a new last dim; not differentiable.

    >>> F.one_hot(ng.tensor([0, 2]), 3)
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    index = to_host(tensor._data)
    if index.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if not index.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(index.max()) + 1
    if index.size and (index.min() < 0 or index.max() >= num_classes):
        raise RuntimeError("Class values must be smaller than num_classes." if index.min() >= 0
                           else "Class values must be non-negative.")
    return untracked(_one_hot, tensor._data, num_classes)


def _one_hot(index, num_classes):
    out = np.zeros(index.shape + (num_classes,), np.int64)
    np.put_along_axis(out, index[..., None].astype(np.int64), 1, axis=-1)
    return out


# ---- pad ----------------------------------------------------------------------------------------------
_INDEX_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _check_padded_size(input, widths, dims, mode):
    """torch's refusals of the sizes that reflection and replication padding would give: in 1-D
    an output below one; in 2-D and 3-D a negative one, where it allocates (the 2-D reflection
    kernel overflows first)."""
    out = [size + left + right for size, (left, right) in zip(input.shape, widths)]
    if dims == 1 and out[-1] < 1:
        raise RuntimeError(f"input (W: {input.shape[-1]}) is too small. Calculated output W: "
                           f"{out[-1]}")
    negative = [size for size in out if size < 0]
    if negative and dims == 2 and mode == "reflect":
        raise RuntimeError("numel: integer multiplication overflow")
    if negative:
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: "
                           f"{out}")


def pad(input, pad, mode="constant", value=None):
    """Pad the last len(pad) // 2 dims: pad = (last_left, last_right, prev_left, ...).

    Constant padding (negative amounts crop) is numgrad.ops' pad; reflect, replicate and circular
    read the input at the positions np.pad computes, so the gradients of repeated elements add.

    >>> F.pad(ng.tensor([[1.0, 2.0]]), (1, 1), value=9.0)
    tensor([[9., 1., 2., 9.]])
    >>> F.pad(ng.tensor([[1.0, 2.0, 3.0]]), (2, 0), mode="reflect")
    tensor([[3., 2., 1., 2., 3.]])
    """
    for position, amount in enumerate(pad):
        if isinstance(amount, (float, np.floating)):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found "
                            f"element of type {type(amount).__name__} at pos {position}")
    if mode == "constant":
        return _constant_pad(input, pad, value=value)
    if mode not in _INDEX_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.ndim}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if not 1 <= len(pad) // 2 <= 3 or input.ndim - len(pad) // 2 not in (1, 2):
        # torch's non-constant modes pad the last 1-3 dims of an input with one or two more
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    dims = len(pad) // 2
    if mode != "circular" and 0 in input.shape[input.ndim - dims - 1:]:
        # torch's reflection and replication kernels: a batch may be empty, nothing else
        raise RuntimeError(f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with possibly "
                           f"0 batch size and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    widths = [(0, 0)] * input.ndim
    for k in range(dims):
        widths[input.ndim - 1 - k] = (int(pad[2 * k]), int(pad[2 * k + 1]))
    # the last dim first, as torch checks (its pad arguments #4, #6, ... in that order)
    for k, dim in enumerate(range(input.ndim - 1, -1, -1)):
        left, right = widths[dim]
        # np.pad would reflect or wrap more than once; torch refuses
        if mode == "reflect" and max(left, right) >= input.shape[dim] and (left or right):
            raise RuntimeError(f"Argument #{4 + 2 * k}: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding ({left}, "
                               f"{right}) at dimension {dim} of input {list(input.shape)}")
        if mode == "circular" and max(left, right) > input.shape[dim]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if mode == "circular" and input.shape[dim] + left + right < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    if mode == "circular":
        return pad_circular(input, widths, dims)
    _check_padded_size(input, widths, dims, mode)
    # negative amounts crop, as torch: the input padded whole, then cropped
    grow = [(max(left, 0), max(right, 0)) for left, right in widths]
    padded = np.pad(np.arange(input.numel(), dtype=np.int64).reshape(input.shape), grow,
                    mode=_INDEX_MODES[mode])
    positions = padded[tuple(slice(max(-left, 0), padded.shape[d] - max(-right, 0))
                             for d, (left, right) in enumerate(widths))]
    node_name = (f"{'Reflection' if mode == 'reflect' else 'Replication'}Pad{len(pad) // 2}"
                 "DBackward0")
    return named(take(read_by_backward(input, node_name), positions), node_name, input)
