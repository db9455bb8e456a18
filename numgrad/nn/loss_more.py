"""More loss layers: MultiLabelMarginLoss, TripletMarginWithDistanceLoss and CTCLoss."""
from . import functional as F
from .distance import PairwiseDistance
from .loss import _Loss


class MultiLabelMarginLoss(_Loss):
    """The multi-label hinge: each target class against each other class, margin 1."""

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """max(0, d(anchor, positive) - d(anchor, negative) + margin) for a distance function d
    (a PairwiseDistance submodule by default, as in torch)."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than "
                             f"0, got {margin} instead")
        self.distance_function = distance_function if distance_function is not None \
            else PairwiseDistance()
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(anchor, positive, negative,
                                                   distance_function=self.distance_function,
                                                   margin=self.margin, swap=self.swap,
                                                   reduction=self.reduction)


class CTCLoss(_Loss):
    """The connectionist temporal classification loss of (T, N, C) log-probabilities against
    target sequences (blank is the class of "no label")."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)
