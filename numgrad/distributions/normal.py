"""Normal(loc, scale): the Gaussian, reparameterised (loc + scale * eps)."""
import math

from .. import creation
from ..ops import erf, erfinv
from .distribution import LocScale, as_parameter


class Normal(LocScale):
    """Normal(loc, scale).

    >>> import numgrad as ng
    >>> ng.distributions.Normal(ng.tensor(0.0), ng.tensor(1.0)).log_prob(ng.tensor(0.0))
    tensor(-0.9189)
    """

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self.scale ** 2

    @property
    def stddev(self):
        return self.scale

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        noise = creation.randn(*shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + noise * self.scale

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.loc)
        return (-((value - self.loc) ** 2) / (2 * self.variance) - self.scale.log()
                - math.log(math.sqrt(2 * math.pi)))

    def cdf(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.loc)
        return 0.5 * (1 + erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        value = as_parameter(value, self.loc)
        return self.loc + self.scale * erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
