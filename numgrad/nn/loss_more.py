"""More loss layers: MultiLabelMarginLoss and TripletMarginWithDistanceLoss."""
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
