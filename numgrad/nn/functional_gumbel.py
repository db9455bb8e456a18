"""gumbel_softmax: a differentiable sample from a categorical distribution (Jang et al., 2016)."""
from .. import creation
from .functional_activation import softmax


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau) along dim, g Gumbel noise; with hard, the one-hot of its
    maximum in value, with the soft sample's gradient (straight-through), as torch's.

    >>> import numgrad as ng
    >>> import numgrad.nn.functional as F
    >>> F.gumbel_softmax(ng.zeros(2, 3), hard=True).sum(-1)
    tensor([1., 1.])
    """
    # -log(Exp(1)) is Gumbel(0, 1); eps is unused, as in torch
    noise = -creation.empty_like(logits).exponential_().log()
    soft = softmax((logits + noise) / tau, dim)
    if not hard:
        return soft
    index = soft.max(dim, keepdim=True)[1]
    one_hot = creation.zeros_like(logits).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft
