"""ctc_loss: the connectionist temporal classification loss (Graves et al., 2006), the negative
log-likelihood of a target sequence summed over its alignments to the input frames.

The forward (alpha) recursion runs over time in log space on numgrad ops (gather, logsumexp,
where), batched over samples and the positions of the blank-extended targets, so its gradient is
the exact derivative of the loss: minus the alignment posteriors. torch's CTC backward returns
exp(log_probs) minus the posteriors (the gradient of the logits behind a log_softmax, which
removes the difference), so numgrad adds a term worth zero whose gradient is exp(log_probs) over
each sample's frames: the gradients of log_probs are torch's (_CtcGradient adds the rest of
torch's backward: NaN for impossible samples, no second derivative).
"""
import numpy as np

from .. import creation, grad_mode
from ..autograd.function import Function
from ..ops import elementwise as _E
from ..ops.index import gather
from ..ops.named import named
from ..ops.not_implemented import without_derivative
from ..ops.reduce import logsumexp
from ..ops.shape import cat, stack
from ..ops.untracked import to_host
from ..tensor import Tensor
from .bool_argument import check_bool_of_overloads
from .functional_losses import _reduction

class _CtcGradient(Function):
    """log_probs, passed through to the recursion, so that all of the loss's gradient reaches
    log_probs through this node. There the frames of impossible samples (`frames`, a one-item
    list the loss fills once it knows them; without zero_infinity) get torch's NaN gradient
    (its exp(inf - inf)), whatever gradient their loss received; and under create_graph the node
    records the gradient as torch's _ctc_loss_backward, which has no derivative (a backward
    through it raises as torch's)."""

    @staticmethod
    def forward(ctx, log_probs, frames):
        ctx.save_for_backward(log_probs)
        ctx.frames = frames
        return log_probs.clone()

    @staticmethod
    def backward(ctx, grad):
        def poisoned(g, _):
            nan_frames = ctx.frames[0]
            if nan_frames is None or not nan_frames.any():
                return g
            return _E.where(Tensor._make(nan_frames[:, :, None], False).to(g.device),
                            float("nan"), g)
        if not grad_mode.is_grad_enabled():
            return poisoned(grad, None), None
        (log_probs,) = ctx.saved_tensors
        return without_derivative("_ctc_loss_backward", lambda g, x: poisoned(g, x).clone(),
                                  grad, log_probs), None


# unreachable alignments: a large finite log-probability instead of -inf, so that no gradient
# meets inf - inf; a loss beyond _IMPOSSIBLE is an impossible alignment (inf, as torch's)
_UNREACHABLE = -1e30
_IMPOSSIBLE = 1e29


def _integers(values):
    return np.asarray(to_host(values._data) if isinstance(values, Tensor) else values,
                      np.int64).reshape(-1)


def _padded_targets(targets, target_lengths, batch):
    """targets as (N, S): rows of a 2-D tensor, or the concatenated 1-D form split by length."""
    data = np.asarray(to_host(targets._data), np.int64)
    if data.ndim == 2:
        return data
    width = int(target_lengths.max()) if batch else 0
    rows = np.zeros((batch, width), np.int64)
    starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]])
    for n, (start, length) in enumerate(zip(starts, target_lengths)):
        rows[n, :length] = data[start:start + length]
    return rows


def _check_lengths(targets, lengths, target_lengths, frames, batch):
    """torch's ctc_loss_allocate_outputs checks, in its order and words."""
    where = "(while checking arguments for ctc_loss_allocate_outputs)"
    if lengths.size != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if target_lengths.size != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    for length in target_lengths:
        if length < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value "
                               f"{length} {where}")
    expected = (0, int(target_lengths.sum())) if targets.ndim == 1 else (0, batch)
    if targets.shape[0] != expected[1]:
        raise RuntimeError(f"Expected tensor to have size {expected[1]} at dimension 0, but got "
                           f"size {targets.shape[0]} for argument #2 'targets' {where}")
    longest = int(target_lengths.max()) if target_lengths.size else 0
    if targets.ndim == 2 and targets.shape[1] < longest:
        raise RuntimeError(f"Expected tensor to have size at least {longest} at dimension 1, but "
                           f"got size {targets.shape[1]} for argument #2 'targets' {where}")
    for length in lengths:
        if length < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value "
                               f"{length} {where}")
        if length > frames:
            raise RuntimeError(f"Expected input_lengths to have value at most {frames}, but got "
                               f"value {length} {where}")


# torch.ctc_loss's two signatures, as its argument parser shows them
_CTC_SIGNATURES = (
    "Tensor log_probs, Tensor targets, tuple of ints input_lengths, tuple of ints target_lengths, "
    "int blank = 0, int reduction = at::Reduction::Mean, bool zero_infinity = False",
    "Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, int blank = 0, "
    "int reduction = at::Reduction::Mean, bool zero_infinity = False")


def _check_zero_infinity(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                         zero_infinity):
    """torch's F.ctc_loss passes its arguments by position to torch.ctc_loss, the reduction as
    its enum number, whose parser refuses a zero_infinity that is not a bool."""
    args = (log_probs, targets, input_lengths, target_lengths, blank,
            ("none", "mean", "sum").index(reduction), zero_infinity)
    lengths_are_tensors = [isinstance(a, Tensor) for a in args[2:4]]
    check_bool_of_overloads(zero_infinity, "ctc_loss", args, [
        (_CTC_SIGNATURES[0], [False, False, True, True, True, True, True]),
        (_CTC_SIGNATURES[1], [False, False, *(not t for t in lengths_are_tensors), True, True,
                              True])])


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """log_probs (T, N, C) (or (T, C) unbatched) of the classes per frame, targets (N, S) or
    concatenated, per-sample input and target lengths; reduction "mean" divides each loss by its
    target length before averaging, as torch's.

    >>> import numgrad as ng
    >>> import numgrad.nn.functional as F
    >>> frames = ng.zeros(2, 1, 2).log_softmax(2)
    >>> F.ctc_loss(frames, ng.tensor([[1]]), ng.tensor([2]), ng.tensor([1]), reduction="sum")
    tensor(0.2877)
    """
    reduction = _reduction(None, None, reduction)
    _check_zero_infinity(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                         zero_infinity)
    unbatched = log_probs.ndim == 2
    if unbatched:
        targets = targets.unsqueeze(0) if targets.ndim == 1 else targets
    where = "(while checking arguments for ctc_loss_allocate_outputs)"
    if log_probs.ndim != 3:
        # torch adds the batch dim to any log_probs that is not 3-D before it checks
        if not unbatched:
            raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.ndim + 1}-"
                               f"dimensional tensor for argument #1 'log_probs' {where}")
        log_probs = log_probs.unsqueeze(1)
    if targets.ndim not in (1, 2):
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.ndim}-dimensional "
                           f"tensor for argument #2 'targets' {where}")
    frames, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    lengths = _integers(input_lengths)
    target_lengths = _integers(target_lengths)
    _check_lengths(targets, lengths, target_lengths, frames, batch)
    labels = _padded_targets(targets, target_lengths, batch)
    # the blank-extended targets: blank, l1, blank, l2, ..., blank
    positions = 2 * labels.shape[1] + 1
    extended = np.full((batch, positions), blank, np.int64)
    extended[:, 1::2] = labels
    # a position may be reached from two back when it is a label differing from the one before
    skip = np.zeros((batch, positions), np.bool_)
    skip[:, 2:] = (extended[:, 2:] != blank) & (extended[:, 2:] != extended[:, :-2])
    valid = np.arange(positions)[None, :] < (2 * target_lengths + 1)[:, None]
    gather_index = Tensor._make(extended, False).to(log_probs.device)
    nan_frames = [None]
    passed = _CtcGradient.apply(log_probs, nan_frames) \
        if log_probs.requires_grad and grad_mode.is_grad_enabled() else log_probs

    def emissions(t):
        return gather(passed[t], 1, gather_index)

    def constant(array):
        return Tensor._make(array, False).to(log_probs.device)

    unreachable = creation.full((batch, 1), _UNREACHABLE, dtype=log_probs.dtype,
                                device=log_probs.device)
    start = np.zeros((batch, positions), np.bool_)
    start[:, :2] = True
    alpha = _E.where(constant(start & valid), emissions(0), _UNREACHABLE)
    can_skip, is_valid = constant(skip), constant(valid)
    for t in range(1, frames):
        one_back = cat([unreachable, alpha[:, :-1]], 1)
        two_back = _E.where(can_skip, cat([unreachable, unreachable, alpha[:, :-2]], 1),
                            _UNREACHABLE)
        step = logsumexp(stack([alpha, one_back, two_back]), 0) + emissions(t)
        step = _E.where(is_valid, step, _UNREACHABLE)
        # a sample whose input has ended keeps its last alphas
        running = constant((t < lengths)[:, None])
        alpha = _E.where(running, step, alpha)
    ends = np.stack([2 * target_lengths, np.maximum(2 * target_lengths - 1, 0)], 1)
    final = gather(alpha, 1, constant(ends))
    # an empty target ends only in its one blank
    final = _E.where(constant(np.stack([np.ones(batch, np.bool_), target_lengths > 0], 1)),
                     final, _UNREACHABLE)
    losses = -logsumexp(final, 1)
    impossible = to_host(losses.detach()._data) > _IMPOSSIBLE
    # torch's surplus gradient exp(log_probs), over each possible sample's frames
    frames_in = (np.arange(frames)[:, None] < lengths[None, :]) & ~impossible[None, :]
    if not zero_infinity:
        nan_frames[0] = (np.arange(frames)[:, None] < lengths[None, :]) & impossible[None, :]
    weights = log_probs.detach().exp() * constant(frames_in[:, :, None].astype(
        to_host(log_probs._data).dtype))
    surplus = (passed * weights).sum((0, 2))
    losses = losses + (surplus - surplus.detach())
    if zero_infinity:
        losses = _E.where(constant(impossible), 0.0, named(losses, "CtcLossBackward0", log_probs))
    else:
        losses = named(_E.where(constant(impossible), float("inf"), losses), "CtcLossBackward0",
                       log_probs)
    if reduction == "mean":
        divisors = constant(np.maximum(target_lengths, 1).astype(to_host(losses._data).dtype))
        return (losses / divisors).mean()
    if reduction == "sum":
        return losses.sum()
    return losses.squeeze(0) if unbatched else losses
