"""Categorical(probs or logits): one of K classes (the last dim) with the given probabilities."""
import numpy as np

from .. import creation
from ..ops import gather, logsumexp, multinomial, softmax
from .bernoulli import derived_of, probs_or_logits
from . import constraints
from .distribution import Distribution, as_parameter


class Categorical(Distribution):
    """Categorical(probs=None, logits=None): probs are normalised to sum to 1, logits to
    log-probabilities (logits - logsumexp)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    @property
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    def __init__(self, probs=None, logits=None, validate_args=None):
        probs, logits = probs_or_logits(probs, logits)
        if probs is not None:
            if probs.ndim < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            # torch's probs_to_logits: probabilities clamped to [eps, 1 - eps] first
            eps = float(np.finfo(probs.dtype).eps)
            self.logits = self.probs.clamp(eps, 1 - eps).log()
        else:
            if logits.ndim < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logsumexp(logits, -1, keepdim=True)
            self.probs = softmax(self.logits, -1)
        self._num_events = self.probs.shape[-1]
        self._derived = derived_of(probs)
        super().__init__(self.probs.shape[:-1], validate_args=validate_args)

    # Its values are labels: torch gives NaN moments of the batch's shape
    @property
    def mean(self):
        return creation.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def variance(self):
        return creation.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(-1)

    def sample(self, sample_shape=()):
        count = 1
        for size in sample_shape:
            count *= size
        rows = self.probs.detach().reshape(-1, self._num_events)
        draws = multinomial(rows, count, replacement=True).t()
        return draws.reshape(*tuple(sample_shape), *tuple(self._batch_shape))

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value)
        shape = tuple(value.shape) if value.ndim >= len(self._batch_shape) else \
            tuple(self._batch_shape)
        logits = self.logits.broadcast_to(
            tuple(shape[:len(shape) - len(self._batch_shape)]) + tuple(self.logits.shape))
        index = value.long().broadcast_to(logits.shape[:-1]).unsqueeze(-1)
        return gather(logits, -1, index).squeeze(-1)

    def enumerate_support(self, expand=True):
        return self._support_values(creation.arange(self._num_events), expand)

    def entropy(self):
        # -inf logits (zero probabilities) clamped to the dtype's lowest: 0 * finite is 0
        lowest = float(np.finfo(self.logits.dtype).min)
        return -(self.logits.clamp(min=lowest) * self.probs).sum(-1)
