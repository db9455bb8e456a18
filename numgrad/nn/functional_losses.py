"""Loss functions for numgrad.nn.functional, with torch's reductions, weights and special cases.

cross_entropy with class indices is one fused node (numgrad.ops.nn_ops.cross_entropy); with class
probabilities it is log_softmax times the targets. The others are short composites; the margin
and embedding losses are in functional_margin_losses.py.

>>> import numgrad as ng
>>> import numgrad.nn.functional as F
>>> F.mse_loss(ng.tensor([1.0, 2.0]), ng.tensor([1.0, 4.0]))
tensor(2.)
"""
import math
import warnings

import numpy as np

from .. import dtypes, grad_mode
from ..autograd.function import Function
from ..creation import as_tensor
from ..ops import elementwise as _E
from ..ops import elementwise_special as _S
from ..ops import nn_ops as _N
from ..ops.apply import show_attributes
from ..ops.composite import broadcast_tensors
from ..ops.index import masked_fill, take
from ..ops.named import named, read_by_backward, rename
from ..ops.shape import VIEW as _VIEW, reshape as _reshape
from ..tensor import Tensor
from .bool_argument import check_bool
from .kernel_dtypes import check_kernel_dtype

_CODES = {"none": _N.NONE, "mean": _N.MEAN, "sum": _N.SUM}


def _reduction(size_average, reduce, reduction, check=True):
    """torch's legacy size_average/reduce arguments, mapped onto reduction (checked, unless the
    caller reduces in Python and refuses a bad one itself, as torch's weighted losses do)."""
    if size_average is None and reduce is None:
        if check and reduction not in _CODES:
            raise ValueError(f"{reduction} is not a valid value for reduction")
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    legacy = "none" if not reduce else ("mean" if size_average else "sum")
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{legacy}' instead.", UserWarning, stacklevel=3)
    return legacy


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _as_tensor(value, like):
    if isinstance(value, Tensor):
        return value if value.dtype == like.dtype else value.to(like.dtype)
    return as_tensor(np.asarray(value, like.dtype), device=like.device)


def _class_rows(input, target, values=None):
    """input (N, C, d1, ...) or (C,) as rows (M, C), and target as (M,) int64, with the shape a
    reduction='none' result takes. `values`: the tensor to take the rows of, when not input (a
    view of it)."""
    index = np.asarray(target._data if isinstance(target, Tensor) else target)
    _check_target_shape(input.shape, index.shape)
    values = input if values is None else values
    if values.ndim == 1:
        return values.unsqueeze(0), index.reshape(1), ()
    classes = values.shape[1]
    if values.ndim == 2:
        rows = values
    else:
        order = [0] + list(range(2, values.ndim)) + [1]
        rows = values.permute(order).reshape(-1, classes)
    return rows, index.reshape(-1), index.shape


def _check_target_shape(input_shape, target_shape):
    """torch's checks that the target has a class per input position, in its order."""
    if not input_shape:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    if len(input_shape) > 1 and target_shape[:1] != input_shape[:1]:
        raise ValueError(f"Expected input batch_size ({input_shape[0]}) to match target "
                         f"batch_size ({target_shape[0] if target_shape else 0}).")
    if len(input_shape) <= 2:
        if len(target_shape) > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if len(input_shape) == 1 and target_shape and target_shape[0] != 1:
            raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                             f"{target_shape[0]}")
        return
    expected = input_shape[:1] + input_shape[2:]
    if target_shape != expected:
        if len(input_shape) == 4:
            raise RuntimeError(f"size mismatch (got input: {list(input_shape)} , target: "
                               f"{list(target_shape)}")
        raise RuntimeError(f"Expected target size {list(expected)}, got {list(target_shape)}")


def _class_indices(index, input, kernel):
    """The target as int64 after torch's kernel checks: its dtype, then input's (kernel is the
    name of torch's kernel that has no integer version)."""
    if index.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{dtypes.scalar_type_name(index.dtype)}")
    _check_floating(input, kernel)
    return index.astype(np.int64, copy=False)


def _check_floating(input, kernel):
    if not dtypes.is_floating(input.dtype):
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{dtypes.scalar_type_name(input.dtype)}'")


def _check_targets(index, classes, ignore_index):
    bad = (index != ignore_index) & ((index < 0) | (index >= classes))
    if bad.any():
        raise IndexError(f"Target {int(index[bad][0])} is out of bounds.")


def refuse_grad(function, argument, value):
    """torch's kernels that have no derivative for an argument (class weights, ...) refuse a
    tensor there that requires grad, while grad mode is on, rather than ignore its gradient."""
    if isinstance(value, Tensor) and value.requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError(f"The function '{function}' is not differentiable with respect to "
                           f"argument '{argument}'. This input cannot have requires_grad True.")


def _nll_kernel(input):
    """torch's nll_loss_nd runs nll_loss2d for inputs of 3 or more dimensions (viewed as 4-d)."""
    return "nll_loss2d_forward" if input.ndim >= 3 else "nll_loss_forward"


def _check_weight_dtype(weight, dtype):
    """torch's class-index losses take class weights of the input's dtype only."""
    if isinstance(weight, Tensor) and weight.dtype != dtype:
        raise RuntimeError(f"expected scalar type {dtypes.scalar_type_name(dtype)} but found "
                           f"{dtypes.scalar_type_name(weight.dtype)}")


def _class_weights(weight, classes, dtype):
    if weight is None:
        return np.ones(classes, dtype)
    w = weight._data if isinstance(weight, Tensor) else np.asarray(weight)
    if w.shape != (classes,):
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or "
                           f"no classes but got weight tensor of shape: {list(w.shape)}")
    return np.ascontiguousarray(w, dtype)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross entropy of logits against class indices (int) or class probabilities (float).

    >>> F.cross_entropy(ng.tensor([[0.0, 0.0]]), ng.tensor([1]))
    tensor(0.6931)
    """
    reduction = _reduction(size_average, reduce, reduction)
    # torch checks only an upper bound: a negative smoothing is taken as it is
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    # class probabilities exactly when the target has the input's shape, as torch decides
    if isinstance(target, Tensor) and tuple(target.shape) == tuple(input.shape):
        if not dtypes.is_floating(target.dtype):
            raise RuntimeError(f"Expected floating point type for target with class "
                               f"probabilities, got {dtypes.scalar_type_name(target.dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing)
    # torch's log_softmax comes first, refusing integer logits before the target is looked at
    _check_floating(input, "log_softmax_lastdim_kernel_impl" if input.ndim <= 2 else
                    "log_softmax_kernel_impl")
    if label_smoothing > 0.0:
        return _cross_entropy_smoothed(input, target, weight, ignore_index, reduction,
                                       label_smoothing)
    # torch's graph: nll_loss(log_softmax(input)), through a view to 4-d for other spatial
    # inputs, and a view of the result back for reduction="none" (Note [torch's inner nodes])
    logits = _N.through(input, _N.CROSS_ENTROPY_LOGITS)
    if logits is not input:
        # torch's log_softmax(input, class dim) that the carrier stands for
        show_attributes(logits, dim=0 if input.ndim == 1 else 1)
    spatial = input.ndim >= 3
    viewed = spatial and input.ndim != 4
    seen = logits
    if viewed:
        # torch views its log_softmax result, always contiguous: a ViewBackward0 whatever x's
        # strides (an empty batch is (n, c, 0, 0))
        n, c = input.shape[0], input.shape[1]
        seen = _reshape(logits, (n, c, 1, -1) if input.numel() else (n, c, 0, 0), op=_VIEW)
    rows, index, shape = _class_rows(input, target, seen)
    refuse_grad(_nll_kernel(input), "weight", weight)
    w = _class_weights(weight, rows.shape[1], rows.dtype)
    index = _class_indices(index, rows, "nll_loss_out_frame")
    _check_weight_dtype(weight, rows.dtype)
    out = _N.cross_entropy(rows, np.ascontiguousarray(index), w, int(ignore_index),
                           _CODES[reduction])
    name = "NllLoss2DBackward0" if spatial else "NllLossBackward0"
    attributes = _nll_attributes(weight, ignore_index, reduction)
    if reduction != "none" or tuple(out.shape) == tuple(shape):
        return rename(out, name, inputs=(seen,), attributes=attributes)
    if viewed:
        return rename(out, name, inputs=(seen,), attributes=attributes).reshape(shape)
    return rename(out.reshape(shape), name, inputs=(seen,), attributes=attributes)


def _cross_entropy_smoothed(input, target, weight, ignore_index, reduction, label_smoothing):
    """torch's composite for class indices with label smoothing, node for node: (1 - s) times
    nll_loss of log_softmax, plus s / C times the (weighted) sum of -log p over the classes with
    the positions of ignore_index left out, averaged over the weights of the targets kept."""
    class_dim = 0 if input.ndim == 1 else 1
    classes = input.shape[class_dim]
    logp = _N.log_softmax(input, class_dim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    index = np.asarray(target._data if isinstance(target, Tensor) else target)
    ignored = index == ignore_index
    terms = logp
    if weight is not None:
        shape = [1] * input.ndim
        shape[class_dim] = classes
        terms = logp * _as_tensor(weight, input).reshape(shape)
    smooth = masked_fill(-terms.sum(class_dim), ignored, 0.0)
    if reduction == "none":
        ret = smooth
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        kept = index[~ignored].reshape(-1)
        count = (_class_weights(weight, classes, input.dtype)[kept].sum() if weight is not None
                 else kept.size)
        ret = smooth.sum() / _as_tensor(count, smooth)
    smoothing = _E.mul_scalar(ret, label_smoothing / classes)
    return _E.mul_scalar(nll, 1.0 - label_smoothing) + smoothing


def _nll_attributes(weight, ignore_index, reduction):
    """What torch's NllLossBackward0 keeps besides tensors; weight shows None when not given."""
    attributes = {"ignore_index": int(ignore_index), "reduction": _CODES[reduction]}
    if weight is None:
        attributes["weight"] = None
    return attributes


def _cross_entropy_probs(input, target, weight, reduction, label_smoothing):
    class_dim = 0 if input.ndim == 1 else 1
    classes = input.shape[class_dim]
    logp = _N.log_softmax(input, class_dim)
    # (a target of another float type promotes the products, as torch's)
    if label_smoothing > 0.0:
        # torch's C++ composite, with Scalars (MulBackward1, AddBackward1)
        target = _E.add_scalar(_E.mul_scalar(target, 1.0 - label_smoothing),
                               label_smoothing / classes)
    terms = logp * target
    if weight is not None:
        checked = _class_weights(weight, classes, input.dtype)
        # torch differentiates this composite in its weights too
        weight = _as_tensor(weight, input) if isinstance(weight, Tensor) else checked
        shape = [1] * input.ndim
        shape[class_dim] = classes
        terms = terms * weight.reshape(shape)
    if reduction == "none":
        return -terms.sum(class_dim)
    if reduction == "sum":
        return -terms.sum()
    # torch divides by the batch size as a number (DivBackward1)
    return _E.div_scalar(-terms.sum(), input.numel() / classes if input.numel() else math.nan)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log likelihood of log-probabilities input at the target classes.

    >>> F.nll_loss(ng.tensor([[-1.0, -2.0]]), ng.tensor([1]))
    tensor(2.)
    """
    reduction = _reduction(size_average, reduce, reduction)
    # torch's nll_loss_nd: nll_loss2d for 3 or more dimensions, on a 4-d view of other inputs,
    # with a view of the result back to the target's shape for reduction="none"
    spatial = input.ndim >= 3
    viewed = spatial and input.ndim != 4
    seen = input
    if viewed and input._requires_grad and grad_mode.is_grad_enabled():
        n, c = input.shape[0], input.shape[1]
        seen = _reshape(input, (n, c, 1, -1) if input.numel() else (n, c, 0, 0), op=_VIEW)
    rows, index, shape = _class_rows(input, target, seen)
    refuse_grad(_nll_kernel(input), "weight", weight)
    classes = rows.shape[1]
    w = _class_weights(weight, classes, rows.dtype)
    index = _class_indices(index, rows, "nll_loss_out_frame" if input.ndim <= 2 else
                           "nll_loss2d_forward_out_frame")
    _check_targets(index, classes, ignore_index)
    _check_weight_dtype(weight, rows.dtype)
    kept = index != ignore_index
    safe = np.where(kept, index, 0)
    row_weight = np.where(kept, w[safe], 0).astype(rows.dtype)
    name = "NllLoss2DBackward0" if spatial else "NllLossBackward0"
    positions, weights = np.arange(len(index)) * classes + safe, row_weight
    if reduction != "none":
        # torch's kernel gives ignored rows no gradient at all: a mean over none kept (0 / 0)
        # is nan with a zero gradient
        positions, weights = positions[kept], row_weight[kept]
    picked = take(read_by_backward(rows, name), positions)
    losses = picked * _as_tensor(-weights, picked)
    if reduction == "none":
        result = losses if viewed else losses.reshape(shape)
    elif reduction == "sum":
        result = losses.sum()
    else:
        denominator = float(row_weight.sum())
        result = losses.sum() * (1.0 / denominator if denominator else math.nan)
    # the reshape for reduction="none" views only the rows' losses, an intermediate
    result = named(result, name, seen, target, view_of_intermediate=True,
                   attributes=_nll_attributes(weight, ignore_index, reduction),
                   saved_names=("self", "target"))
    return result.reshape(shape) if viewed and reduction == "none" else result


def _pair_up(input, target):
    """(input, target) of an elementwise loss, broadcast to one shape as torch's are (expanded
    only where a shape differs); a tensor target keeps its dtype, and the difference promotes
    as torch's does (float32 input, float64 target: a float64 loss)."""
    if not isinstance(target, Tensor):
        target = _as_tensor(target, input)
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=3)
    return broadcast_tensors(input, target)


def _weighted(errors, weight, input, reduction, mean):
    """torch's weighted elementwise losses: errors * weight (weight shaped as the input), reduced
    in Python, the mean by `mean`."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    errors = errors * weight
    if reduction == "none":
        return errors
    if reduction == "sum":
        return errors.sum()
    if reduction == "mean":
        return mean(errors)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                     f"'sum'.")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean (or sum) of squared differences; with weight, of the weighted ones, the mean divided
    by the sum of the weights (torch's).

    >>> F.mse_loss(ng.tensor([1.0, 2.0]), ng.tensor([0.0, 4.0]), weight=ng.tensor([1.0, 3.0]))
    tensor(3.2500)
    """
    # torch warns of the shapes, maps the legacy arguments, then broadcasts, then checks
    expanded, target = _pair_up(input, target)
    reduction = _reduction(size_average, reduce, reduction, check=weight is None)
    if weight is not None:
        return _weighted((expanded - target).pow(2), weight, input, reduction,
                         lambda errors: errors.sum() / weight.sum())
    check_kernel_dtype(expanded, "mse_cpu")
    diff = expanded - target
    return named(_reduce(diff * diff, reduction), "MseLossBackward0", expanded, target,
                 saved_names=("self", "target"), attributes={"reduction": _CODES[reduction]})


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean (or sum) of absolute differences; with weight, as mse_loss's.

    >>> F.l1_loss(ng.tensor([1.0, 2.0]), ng.tensor([0.0, 4.0]))
    tensor(1.5000)
    """
    # torch warns of the shapes, maps the legacy arguments, then broadcasts, then checks
    expanded, target = _pair_up(input, target)
    reduction = _reduction(size_average, reduce, reduction, check=weight is None)
    if weight is not None:
        return _weighted((expanded - target).abs(), weight, input, reduction,
                         lambda errors: errors.sum() / weight.sum())
    return _reduce((expanded - target).abs(), reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (beta = 0: the L1 loss)."""
    input, target = _pair_up(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return _reduce((input - target).abs(), reduction)
    check_kernel_dtype(input, "smooth_l1_cpu")
    d = (input - target).abs()
    loss = _reduce(_E.where(d < beta, d * d * (0.5 / beta), d - 0.5 * beta), reduction)
    # torch's beta is a float argument: 1 shows as 1.0
    return named(loss, "SmoothL1LossBackward0", input, target,
                 saved_names=("self", "target"),
                 attributes={"beta": float(beta), "reduction": _CODES[reduction]})


class _RefusedBackward(Function):
    """x passed through, whose backward raises `message` (a kernel's refusal that torch meets
    only when it differentiates)."""

    @staticmethod
    def forward(ctx, x, message):
        ctx.message = message
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(ctx.message)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta); with weight, the weighted losses'
    plain mean (torch's, unlike mse_loss's).

    >>> F.huber_loss(ng.tensor([0.0, 3.0]), ng.tensor([0.5, 0.0]))
    tensor(1.3125)
    """
    expanded, target = _pair_up(input, target)
    if weight is not None:
        return _weighted(huber_loss(expanded, target, "none", delta), weight, input, reduction,
                         lambda errors: errors.mean())
    reduction = _reduction(None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    refusal = None
    if target.dtype != input.dtype:
        # torch's huber kernel computes in the input's dtype, and its backward refuses the
        # other (mse_loss and the others promote)
        refusal = (f"Found dtype {dtypes.scalar_type_name(target.dtype)} but expected "
                   f"{dtypes.scalar_type_name(input.dtype)}")
        target = target.to(input.dtype)
    check_kernel_dtype(expanded, "huber_cpu")
    d = (expanded - target).abs()
    loss = _reduce(_E.where(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta), reduction)
    if refusal is not None:
        loss = _RefusedBackward.apply(loss, refusal)
    # torch's delta is a float argument: 2 shows as 2.0
    return named(loss, "HuberLossBackward0", expanded, target,
                 saved_names=("self", "target"),
                 attributes={"delta": float(delta), "reduction": _CODES[reduction]})


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """-(t log p + (1 - t) log(1 - p)) for probabilities p, logs clamped at -100 like torch.

    >>> F.binary_cross_entropy(ng.tensor([0.5]), ng.tensor([1.0]))
    tensor(0.6931)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if isinstance(target, Tensor) and target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {dtypes.scalar_type_name(target.dtype)} but expected "
                           f"{dtypes.scalar_type_name(input.dtype)}")
    target = _as_tensor(target, input)
    refuse_grad("binary_cross_entropy", "weight", weight)
    check_kernel_dtype(input, "binary_cross_entropy")
    data = input._data
    if data.size and (data.min() < 0 or data.max() > 1):
        raise RuntimeError("all elements of input should be between 0 and 1")
    loss = _N.binary_cross_entropy(input, target)
    if weight is not None:
        loss = loss * _as_tensor(weight, input)
    attributes = {"reduction": _CODES[reduction]}
    if weight is None:
        attributes["weight"] = None
    return named(_reduce(loss, reduction), "BinaryCrossEntropyBackward0", input, target,
                 saved_names=("self", "target"), attributes=attributes)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Binary cross entropy of sigmoid(input), computed stably from the logits:
    (1 - t) x + (1 + (pos_weight - 1) t) softplus(-x).

    >>> F.binary_cross_entropy_with_logits(ng.tensor([0.0]), ng.tensor([1.0]))
    tensor(0.6931)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if not isinstance(target, Tensor):
        target = _as_tensor(target, input)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    # torch computes the loss in place in (1 - target): of the target's float type
    if not dtypes.is_floating(target.dtype):
        raise RuntimeError(f"result type {dtypes.scalar_type_name(input.dtype)} can't be cast to "
                           f"the desired output type {dtypes.scalar_type_name(target.dtype)}")
    refuse_grad("binary_cross_entropy_with_logits", "weight", weight)
    refuse_grad("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    # softplus without its threshold: log(1 + exp(-x)) exactly, however large -x is
    log_sigmoid_neg = _N.softplus(-input, 1.0, math.inf)
    if pos_weight is not None:
        log_weight = (_as_tensor(pos_weight, input) - 1.0) * target + 1.0
        log_sigmoid_neg = log_sigmoid_neg * log_weight
    loss = (1.0 - target) * input + log_sigmoid_neg
    if weight is not None:
        loss = loss * _as_tensor(weight, input)
    if loss.dtype != target.dtype:
        loss = loss.to(target.dtype)
    attributes = {"reduction": _CODES[reduction]}
    for name, value in (("weight", weight), ("pos_weight", pos_weight)):
        if value is None:
            attributes[name] = None
    return named(_reduce(loss, reduction), "BinaryCrossEntropyWithLogitsBackward0", input, target,
                 saved_names=("self", "target"), attributes=attributes)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Kullback-Leibler divergence of log-probabilities input from target: target * (log target -
    input), 0 where target is 0 (or exp(target) * (target - input) with log_target).
    reduction="batchmean" divides the sum by the batch size, the divergence's definition.

    >>> F.kl_div(ng.tensor([[-0.5, -1.0]]), ng.tensor([[0.5, 0.5]]), reduction="batchmean")
    tensor(0.0569)
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, "mean")
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", UserWarning, stacklevel=2)
    elif reduction not in _CODES and reduction != "batchmean":
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not all(dtypes.is_floating(t.dtype) for t in (input, target) if isinstance(t, Tensor)):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if not isinstance(target, Tensor):
        target = _as_tensor(target, input)      # (a tensor's float type promotes, as torch's)
    if log_target:
        loss = _E.exp(target) * (target - input)
    else:
        loss = _S.xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Negative log likelihood of target under Poisson(rate): exp(input) - target * input for a
    log rate (log_input), else input - target * log(input + eps); full adds Stirling's
    approximation of log(target!) where target > 1.

    >>> F.poisson_nll_loss(ng.tensor([0.0]), ng.tensor([2.0]))
    tensor(1.)
    """
    reduction = _reduction(size_average, reduce, reduction)
    check_bool(log_input, "poisson_nll_loss", "log_input", 3)
    check_bool(full, "poisson_nll_loss", "full", 4)
    if not isinstance(target, Tensor):
        target = _as_tensor(target, input)      # (a tensor's float type promotes, as torch's)
    if log_input:
        loss = _E.exp(input) - target * input
    else:
        # torch's C++ composite adds eps as a Scalar (AddBackward1)
        loss = input - target * _E.log(_E.add_scalar(input, eps))
    if full:
        # torch's composite, node for node: the term is masked to 0 where target <= 1, and its
        # gradient there is the term's own times 0 (nan at target 0, as torch's)
        stirling = (target * _E.log(target) - target
                    + _E.mul_scalar(_E.log(_E.mul_scalar(target, 2 * math.pi)), 0.5))
        loss = loss + masked_fill(stirling, target._data <= 1, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log likelihood of target under Normal(input, var): 0.5 (log var + (input -
    target)^2 / var), + 0.5 log(2 pi) with full. var is clamped below at eps outside the graph (its
    gradient is that of the unclamped var, as torch's); one var per sample broadcasts.

    >>> F.gaussian_nll_loss(ng.tensor([1.0]), ng.tensor([2.0]), ng.tensor([1.0]))
    tensor(0.5000)
    """
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = _as_tensor(np.full(input.shape, var), input)
    elif bool((var.detach() < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.ndim == var.ndim and sum(v for i, v in zip(input.shape, var.shape)
                                                 if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in _CODES:
        raise ValueError(f"{reduction} is not valid")
    # torch clamps a clone outside the graph (CloneBackward0): the gradient is the unclamped var's
    var = var.clone()
    with grad_mode.no_grad():
        var.clamp_(min=eps)
    diff = input - _as_tensor(target, input)
    loss = (_E.log(var) + diff ** 2 / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)
