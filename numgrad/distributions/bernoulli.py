"""Bernoulli(probs or logits): 1 with probability probs, else 0."""
import numpy as np

from ..creation import arange
from ..nn import functional as F
from ..ops import bernoulli, broadcast_tensors, logit, sigmoid
from . import constraints
from .distribution import Distribution, as_parameter


def probs_or_logits(probs, logits):
    """Exactly one of probs and logits, as torch asks for."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return (as_parameter(probs), None) if logits is None else (None, as_parameter(logits))


def derived_of(probs):
    """Which of probs and logits a family computed from the other (probs: the argument)."""
    return ("logits",) if probs is not None else ("probs",)


def _logits_of(probs):
    # torch's probs_to_logits: probs clamped to [eps, 1 - eps] first
    return logit(probs, float(np.finfo(probs.dtype).eps))


def counted_probs(total_count, probs, logits):
    """(total_count, probs, logits) of a count family (Binomial, NegativeBinomial): the count
    broadcast with the parameter given, the other parameter derived from it as Bernoulli's."""
    probs, logits = probs_or_logits(probs, logits)
    given = probs if probs is not None else logits
    total_count, given = broadcast_tensors(as_parameter(total_count, given), given)
    if probs is not None:
        return total_count, given, _logits_of(given)
    return total_count, sigmoid(given), given


class Bernoulli(Distribution):
    """Bernoulli(probs=None, logits=None)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        probs, logits = probs_or_logits(probs, logits)
        self.probs = probs if probs is not None else sigmoid(logits)
        self.logits = logits if logits is not None else _logits_of(probs)
        self._derived = derived_of(probs)
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        # a fair coin has no mode
        return (self.probs >= 0.5).to(self.probs.dtype).masked_fill(self.probs == 0.5,
                                                                    float("nan"))

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        return bernoulli(self.probs.detach().expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.logits)
        logits, value = broadcast_tensors(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def enumerate_support(self, expand=True):
        return self._support_values(arange(2, dtype=self.probs.dtype), expand)

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
