"""Dirichlet(concentration): probability vectors over the last dim, reparameterised through
gamma_sampler; Beta is the Dirichlet of (concentration1, concentration0), as in torch."""
from ..creation import zeros_like
from ..ops import digamma, lgamma, where, xlogy
from . import constraints
from .distribution import Distribution, as_parameter
from .gamma_sampler import dirichlet


def simplex_mode(concentration):
    """The mode of Dirichlet(concentration), as torch computes it: (c - 1)+ normalised; where
    every c < 1 that is 0 / 0, and torch's argmax over those NaNs puts the mode on class 0."""
    excess = (concentration - 1).clamp(min=0)
    mode = excess / excess.sum(-1, keepdim=True)
    all_below_one = (concentration < 1).all(-1, keepdim=True)
    first_class = zeros_like(mode)
    first_class[..., 0] = 1
    return where(all_below_one, first_class, mode)


class Dirichlet(Distribution):
    """Dirichlet(concentration): probability vectors over the last dim."""

    has_rsample = True
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex

    def __init__(self, concentration, validate_args=None):
        self.concentration = as_parameter(concentration)
        if self.concentration.ndim < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        shape = self.concentration.shape
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        return simplex_mode(self.concentration)

    @property
    def variance(self):
        total = self.concentration.sum(-1, keepdim=True)
        return (self.concentration * (total - self.concentration)
                / (total.pow(2) * (total + 1)))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return dirichlet(self.concentration.expand(shape))

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.concentration)
        c = self.concentration
        return (xlogy(c - 1.0, value).sum(-1) + lgamma(c.sum(-1)) - lgamma(c).sum(-1))

    def entropy(self):
        c = self.concentration
        k, total = c.shape[-1], c.sum(-1)
        return (lgamma(c).sum(-1) - lgamma(total) - (k - total) * digamma(total)
                - ((c - 1.0) * digamma(c)).sum(-1))
