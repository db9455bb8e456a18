"""Distance layers: CosineSimilarity and PairwiseDistance, over numgrad.nn.functional."""
from . import functional as F
from .module import Module


class CosineSimilarity(Module):
    """The cosine of the angle between x1 and x2 along dim.

    >>> import numgrad as ng
    >>> ng.nn.CosineSimilarity()(ng.tensor([[1.0, 0.0]]), ng.tensor([[1.0, 1.0]]))
    tensor([0.7071])
    """

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """The p-norm of x1 - x2 + eps over the last dim.

    >>> import numgrad as ng
    >>> ng.nn.PairwiseDistance(eps=0.0)(ng.tensor([[0.0, 0.0]]), ng.tensor([[3.0, 4.0]]))
    tensor([5.])
    """

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
