"""OneHotCategorical and Multinomial: Categorical's classes as one-hot vectors, and the counts of
total_count categorical draws."""
import numpy as np

from ..nn import functional as F
from .. import creation
from ..creation import eye
from ..ops import lgamma
from . import constraints
from .categorical import Categorical
from .more_families import Binomial
from .distribution import Distribution, as_parameter
from .exponential_family import _draw


class OneHotCategorical(Distribution):
    """OneHotCategorical(probs=None, logits=None): a Categorical's draws as one-hot vectors."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        super().__init__(self._categorical.batch_shape, self.probs.shape[-1:],
                         validate_args=validate_args)

    # the parameters live in the inner Categorical, as torch's (so its repr shows none)
    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        return F.one_hot(self.probs.argmax(-1), self.probs.shape[-1]).to(self.probs.dtype)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        classes = self._categorical.sample(sample_shape)
        return F.one_hot(classes, self.probs.shape[-1]).to(self.probs.dtype)

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.probs)
        return self._categorical.log_prob(value.argmax(-1))

    def enumerate_support(self, expand=True):
        return self._support_values(eye(self._event_shape[0], dtype=self.probs.dtype), expand)

    def entropy(self):
        return self._categorical.entropy()


class Multinomial(Distribution):
    """Multinomial(total_count=1, probs=None, logits=None): class counts of total_count draws."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    @property
    def support(self):
        return constraints.multinomial(self.total_count)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        self._binomial = Binomial(total_count, self.probs)
        super().__init__(self._categorical.batch_shape, self.probs.shape[-1:],
                         validate_args=validate_args)

    probs = OneHotCategorical.probs
    logits = OneHotCategorical.logits

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = tuple(sample_shape) + tuple(self._batch_shape)
        return _draw(lambda rng, p: rng.multinomial(self.total_count,
                                                    np.broadcast_to(p, shape + p.shape[-1:]))
                     .astype(np.float64), self.probs)

    def entropy(self):
        # torch's sum over each class's binomial count distribution; n is an integer tensor,
        # so lgamma(n + 1) is rounded to the default float dtype, as torch's is
        n = creation.tensor(self.total_count)
        counts = self._binomial.enumerate_support(expand=False)[1:]
        weights = (self._binomial.log_prob(counts).exp() * lgamma(counts + 1)).sum((0, -1))
        return n * self._categorical.entropy() - lgamma(n + 1) + weights

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.logits)
        # a class of probability 0 drawn 0 times adds 0, not 0 * -inf
        logits = self.logits.masked_fill((value == 0) & (self.logits == -np.inf), 0)
        return (lgamma(value.sum(-1) + 1) - lgamma(value + 1).sum(-1)
                + (logits * value).sum(-1))
