"""Margin and embedding losses for numgrad.nn.functional: hinges on scores, on distances and on
cosine similarities, as composites of numgrad ops with torch's reductions.

Where torch clamps with clamp_min the hinge passes the gradient at exactly zero (clamp_min);
multi_margin_loss's kernel tests z > 0 strictly, so it uses relu.

>>> import numgrad as ng
>>> import numgrad.nn.functional as F
>>> F.margin_ranking_loss(ng.tensor([1.0, 2.0]), ng.tensor([2.0, 1.0]), ng.tensor([1.0, 1.0]))
tensor(0.5000)
"""
import numpy as np

from .. import dtypes
from ..ops import elementwise as _E
from ..ops.index import take
from ..ops.named import named, rename
from ..tensor import Tensor
from .bool_argument import check_bool
from .functional_activation import logsigmoid
from .functional_losses import _as_tensor, _reduce, _reduction, refuse_grad


def _hinge(x):
    return x.clamp_min(0.0)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -target * (input1 - input2) + margin): target 1 wants input1 ranked higher."""
    reduction = _reduction(size_average, reduce, reduction)
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    target = _as_tensor(target, input1)
    return _reduce(_hinge(_E.add_scalar(-target * (input1 - input2), margin)), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """input where target is 1, max(0, margin - input) where target is -1 (input a distance).

    >>> F.hinge_embedding_loss(ng.tensor([0.3, 0.2]), ng.tensor([1.0, -1.0]))
    tensor(0.5500)
    """
    reduction = _reduction(size_average, reduce, reduction)
    target = _as_tensor(target, input).detach()
    # torch subtracts from the margin as a 0-d tensor (SubBackward0, its edge None)
    loss = _E.where(target != 1.0, _hinge(_E.sub(_as_tensor(margin, input), input)), 0.0) \
        + _E.where(target != -1.0, input, 0.0)
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target * input)), a smooth hinge for targets of +1 and -1.

    >>> F.soft_margin_loss(ng.tensor([0.0]), ng.tensor([1.0]))
    tensor(0.6931)
    """
    reduction = _reduction(size_average, reduce, reduction)
    refuse_grad("soft_margin_loss", "target", target)
    target = _as_tensor(target, input)
    loss = _reduce(_E.log1p(_E.exp(-input * target)), reduction)     # torch's operand order
    # torch differentiates soft_margin_loss in its input only
    return named(loss, "SoftMarginLossBackward0", input, target, inputs=(input,),
                 saved_names=("self", "target"))


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1; rows of
    (N, D) inputs or two (D,) vectors with a 0-d target.

    >>> F.cosine_embedding_loss(ng.tensor([[1.0, 0.0]]), ng.tensor([[1.0, 1.0]]), ng.tensor([1]))
    tensor(0.2929)
    """
    reduction = _reduction(size_average, reduce, reduction)
    target_dims = np.ndim(target._data if isinstance(target, Tensor) else target)
    if target_dims > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if (input1.ndim, input2.ndim) != ((2, 2) if target_dims == 1 else (1, 1)):
        raise RuntimeError(f"{target_dims}D target tensor expects {target_dims + 1}D input "
                           f"tensors, but found inputs with sizes {list(input1.shape)} and "
                           f"{list(input2.shape)}.")
    dim = input1.ndim - 1
    # torch's epsilon inside the squared norms, and no clamping
    dot = (input1 * input2).sum(dim)
    squares = (_E.add_scalar((input1 * input1).sum(dim), 1e-12)
               * _E.add_scalar((input2 * input2).sum(dim), 1e-12))
    cos = dot / squares.sqrt()
    target = _as_tensor(target, cos).detach()
    loss = _E.where(target == 1.0, _E.sub(_as_tensor(1.0, cos), cos), 0.0) \
        + _E.where(target == -1.0, _hinge(_E.sub_scalar(cos, margin)), 0.0)
    return _reduce(loss, reduction)


def distance(x1, x2, p, eps, keepdim=False):
    """pairwise_distance: ||x1 - x2 + eps||_p over the last dim, with torch's nodes (its
    at::norm is NormBackward1, and eps a Scalar: AddBackward1)."""
    difference = x1 - x2
    if not dtypes.is_floating(difference.dtype):
        difference = difference.to(dtypes.get_default_dtype())   # the float eps promotes it
    return rename(_E.add_scalar(difference, eps).norm(p, -1, keepdim), "NormBackward1")


def check_triplet(margin, anchor, positive, negative):
    """torch's refusals of a triplet loss's margin and inputs."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {anchor.ndim}D, positive "
                           f"{positive.ndim}D, and negative {negative.ndim}D inputs")


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(0, d(anchor, positive) - d(anchor, negative) + margin) with the p-norm distance of
    pairwise_distance; swap uses the closer of d(anchor, negative) and d(positive, negative).

    >>> a, pos, neg = ng.tensor([[0.0, 0.0]]), ng.tensor([[0.0, 1.0]]), ng.tensor([[3.0, 0.0]])
    >>> F.triplet_margin_loss(a, pos, neg, eps=0.0)
    tensor(0.)
    """
    reduction = _reduction(size_average, reduce, reduction)
    check_bool(swap, "triplet_margin_loss", "swap", 7)
    check_triplet(margin, anchor, positive, negative)
    closer = distance(anchor, positive, p, eps)
    farther = distance(anchor, negative, p, eps)
    if swap:
        farther = _E.minimum(farther, distance(positive, negative, p, eps))
    return _reduce(_hinge(_E.add_scalar(closer, margin) - farther), reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Mean over the classes j other than the target y of max(0, margin - x[y] + x[j])^p (p 1 or
    2), times weight[y] when given (a constant, as in torch).

    >>> F.multi_margin_loss(ng.tensor([[0.1, 0.2, 0.4, 0.8]]), ng.tensor([3]))
    tensor(0.3250)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    if not (input.ndim == 0 or (input.ndim in (1, 2) and input.shape[-1] != 0)):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(input.shape)}")
    rows = input.reshape(1, -1) if input.ndim <= 1 else input
    count, classes = rows.shape
    index = np.asarray(target._data if isinstance(target, Tensor) else target).reshape(-1)
    if index.size != count:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the "
                           f"number of input samples (batch size). Expected target size [{count}], "
                           f"but got {list(np.shape(target))}. Input has shape "
                           f"{list(input.shape)}.")
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got "
                           f"{list(weight.shape)}")
    refuse_grad("multi_margin_loss", "weight", weight)
    if index.size and (index.min() < 0 or index.max() >= classes):
        raise RuntimeError("target out of range")
    picked = take(rows, (np.arange(count) * classes + index)[:, None])
    # relu, not clamp_min: torch's gradient is zero where the margin is met exactly
    terms = _E.relu(rows - picked + margin)
    if p == 2:
        terms = terms * terms
    others = np.ones((count, classes), rows.dtype)
    others[np.arange(count), index] = 0.0
    if weight is not None:
        others *= np.asarray(weight.detach()._data if isinstance(weight, Tensor) else weight,
                             rows.dtype)[index][:, None]
    loss = (terms * _as_tensor(others, rows)).sum(1) * (1.0 / classes)
    if input.ndim <= 1:
        loss = loss.reshape(())
    return named(_reduce(loss, reduction), "MultiMarginLossBackward0", input, target,
                 saved_names=("self", "target"))


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Binary cross entropy of sigmoid(input) for each label, averaged over the labels (last dim).

    >>> F.multilabel_soft_margin_loss(ng.tensor([[0.0, 0.0]]), ng.tensor([[1.0, 0.0]]))
    tensor(0.6931)
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    # torch's composite: tensors of other types promote
    if not isinstance(target, Tensor):
        target = _as_tensor(target, input)
    loss = -(target * logsigmoid(input) + (1.0 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * (weight if isinstance(weight, Tensor) else _as_tensor(weight, input))
    loss = loss.sum(input.ndim - 1) / input.shape[-1]   # torch's DivBackward0
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    return _reduce(loss, reduction)
