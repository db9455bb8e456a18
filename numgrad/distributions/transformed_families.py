"""Families torch builds as transformed distributions: Weibull (a power and a scaling of
Exponential(1)), Pareto (exp and a scaling of Exponential(alpha)); and NegativeBinomial."""
import numpy as np

from ..nn import functional as F
from ..ops import broadcast_tensors, lgamma, sigmoid
from . import constraints
from .bernoulli import counted_probs, derived_of
from .distribution import Distribution, as_parameter
from .exponential_family import Exponential, _draw
from .transforms import AffineTransform, ExpTransform, PowerTransform, TransformedDistribution

_EULER_GAMMA = 0.57721566490153286060


class Weibull(TransformedDistribution):
    """Weibull(scale, concentration): scale * E**(1/concentration), E ~ Exponential(1)."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        scale = as_parameter(scale)
        self.scale, self.concentration = broadcast_tensors(scale,
                                                           as_parameter(concentration, scale))
        self.concentration_reciprocal = self.concentration.reciprocal()
        super().__init__(Exponential(self.scale.detach() * 0 + 1, validate_args=validate_args),
                         [PowerTransform(self.concentration_reciprocal),
                          AffineTransform(0.0, self.scale)], validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * lgamma(1 + self.concentration_reciprocal).exp()

    @property
    def mode(self):
        return (self.scale * ((self.concentration - 1) / self.concentration)
                ** self.concentration_reciprocal)

    @property
    def variance(self):
        return self.scale ** 2 * (lgamma(1 + 2 * self.concentration_reciprocal).exp()
                                  - (2 * lgamma(1 + self.concentration_reciprocal)).exp())

    def entropy(self):
        return (_EULER_GAMMA * (1 - self.concentration_reciprocal)
                + (self.scale * self.concentration_reciprocal).log() + 1)


class Pareto(TransformedDistribution):
    """Pareto(scale, alpha): scale * exp(E), E ~ Exponential(alpha)."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        scale = as_parameter(scale)
        self.scale, self.alpha = broadcast_tensors(scale, as_parameter(alpha, scale))
        super().__init__(Exponential(self.alpha, validate_args=validate_args),
                         [ExpTransform(), AffineTransform(0.0, self.scale)],
                         validate_args=validate_args)

    @property
    def support(self):
        return constraints.greater_than_eq(self.scale)

    @property
    def mode(self):
        return self.scale

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)         # infinite for alpha <= 1
        return a * self.scale / (a - 1)

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)         # infinite for alpha <= 2
        return self.scale ** 2 * a / ((a - 1) ** 2 * (a - 2))

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


class NegativeBinomial(Distribution):
    """NegativeBinomial(total_count, probs=None, logits=None): the failures before total_count
    successes of trials succeeding with probability 1 - probs (torch's convention)."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        self.total_count, self.probs, self.logits = counted_probs(total_count, probs, logits)
        self._derived = derived_of(probs)
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / sigmoid(-self.logits)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        # torch's count: failures with success probability 1 - probs
        return _draw(lambda rng, n, p: rng.negative_binomial(np.broadcast_to(n, shape),
                                                             1 - np.broadcast_to(p, shape))
                     .astype(np.float64), self.total_count, self.probs)

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.logits)
        unnormalized = (self.total_count * F.logsigmoid(-self.logits)
                        + value * F.logsigmoid(self.logits))
        normalizer = (-lgamma(self.total_count + value) + lgamma(1.0 + value)
                      + lgamma(self.total_count))
        normalizer = normalizer.masked_fill(self.total_count + value == 0.0, 0.0)
        return unnormalized - normalizer
