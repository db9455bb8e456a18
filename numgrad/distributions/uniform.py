"""Uniform(low, high): uniform on [low, high), reparameterised (low + u * (high - low))."""
from .. import creation
from ..ops import broadcast_tensors
from . import constraints
from .distribution import Distribution, as_parameter


class Uniform(Distribution):
    """Uniform(low, high)."""

    has_rsample = True
    arg_constraints = {"low": constraints.real, "high": constraints.real}

    @property
    def support(self):
        return constraints.interval(self.low, self.high)

    def __init__(self, low, high, validate_args=None):
        low = as_parameter(low)
        self.low, self.high = broadcast_tensors(low, as_parameter(high, low))
        super().__init__(self.low.shape, validate_args=validate_args)
        self._check("low", self.low, f"LessThan(upper_bound={self.high!r})", self.low < self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return float("nan") * self.high

    @property
    def variance(self):
        return (self.high - self.low) ** 2 / 12

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        draws = creation.rand(*shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + draws * (self.high - self.low)

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.low)
        inside = (self.low <= value) & (value < self.high)
        return inside.to(self.low.dtype).log() - (self.high - self.low).log()

    def cdf(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.low)
        return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

    def icdf(self, value):
        return as_parameter(value, self.low) * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()
