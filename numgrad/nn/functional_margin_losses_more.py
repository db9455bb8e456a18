"""More margin losses for numgrad.nn.functional: multilabel_margin_loss and
triplet_margin_with_distance_loss, composites of gather, relu and sums."""
import numpy as np

from ..ops import elementwise as _E
from ..ops.index import gather
from ..ops.named import named
from ..ops.untracked import to_host
from ..tensor import Tensor
from .functional_losses import _reduce, _reduction
from .functional_margin_losses import check_triplet


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Per sample, the sum over its target classes j (target's leading entries, up to the first
    -1) and the other classes i of max(0, 1 - (x[j] - x[i])), divided by the number of classes.

    >>> import numgrad as ng
    >>> import numgrad.nn.functional as F
    >>> F.multilabel_margin_loss(ng.tensor([[0.1, 0.2, 0.4, 0.8]]), ng.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    reduction = _reduction(size_average, reduce, reduction)
    labels = to_host(target._data if isinstance(target, Tensor) else np.asarray(target))
    if labels.dtype.kind not in "iu":
        raise RuntimeError(f"expected scalar type Long but found "
                           f"{ {'f': 'Float', 'b': 'Bool'}.get(labels.dtype.kind, labels.dtype)}")
    if tuple(labels.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(labels.shape)} for input of size: "
                           f"{list(input.shape)}")
    unbatched = input.ndim <= 1
    scores = input.reshape(1, -1) if unbatched else input
    labels = labels.reshape(scores.shape)
    classes = scores.shape[1]
    if ((labels < -1) | (labels >= classes)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    # the targets of a sample are its entries before the first -1
    listed = np.cumprod(labels != -1, axis=1).astype(np.bool_)
    picked = np.where(listed, labels, 0)
    is_target = np.zeros(scores.shape, np.bool_)
    rows = np.broadcast_to(np.arange(scores.shape[0])[:, None], picked.shape)
    is_target[rows[listed], picked[listed]] = True
    target_scores = gather(scores, 1, Tensor._make(picked, False))
    margins = (1 - target_scores.unsqueeze(2) + scores.unsqueeze(1)).relu()
    pairs = listed[:, :, None] & ~is_target[:, None, :]
    losses = margins.masked_fill(Tensor._make(~pairs, False), 0).sum((1, 2)) / classes
    return named(_reduce(losses.reshape(()) if unbatched else losses, reduction),
                 "MultilabelMarginLossBackward0", inputs=(input,))


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """max(0, d(anchor, positive) - d(anchor, negative) + margin) with any distance function d
    (pairwise_distance by default); swap uses the closer of d(anchor, negative) and
    d(positive, negative)."""
    from .functional import pairwise_distance      # (functional.py imports this module first)
    check_triplet(margin, anchor, positive, negative)
    distance = pairwise_distance if distance_function is None else distance_function
    closer = distance(anchor, positive)
    farther = distance(anchor, negative)
    if swap:
        farther = _E.minimum(farther, distance(positive, negative))
    # torch's clamp_min (ClampMinBackward0)
    return _reduce((margin + closer - farther).clamp_min(0), _reduction(None, None, reduction))
