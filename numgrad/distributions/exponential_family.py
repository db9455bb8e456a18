"""Exponential, Laplace, Poisson, Gamma and Beta, as torch.distributions has them. All but
Poisson are reparameterised (Gamma and Beta through gamma_sampler's implicit gradients)."""
import numpy as np

from .. import creation, grad_mode
from ..creation import full_like, zeros_like
from ..ops import broadcast_tensors, digamma, lgamma, stack, xlogy
from ..special import gammainc
from ..ops.untracked import untracked
from . import constraints
from .distribution import Distribution, LocScale, as_parameter
from .dirichlet import Dirichlet
from .gamma_sampler import standard_gamma


def _draw(draw, *parameters):
    """Samples of numgrad's generator (no gradient), on the parameters' dtype and device."""
    with grad_mode.no_grad():
        return untracked(lambda *values: draw(creation.generator(), *values).astype(
            values[0].dtype), *[p.detach()._data for p in parameters])


class Exponential(Distribution):
    """Exponential(rate): density rate * exp(-rate * x) on x >= 0."""

    has_rsample = True
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative

    def __init__(self, rate, validate_args=None):
        self.rate = as_parameter(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return zeros_like(self.rate)

    @property
    def variance(self):
        return self.rate ** -2

    def rsample(self, sample_shape=()):
        unit = creation.empty(*self._extended_shape(sample_shape), dtype=self.rate.dtype)
        return unit.exponential_() / self.rate

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.rate)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        self._validate_sample(value)
        return 1 - (-self.rate * as_parameter(value, self.rate)).exp()

    def icdf(self, value):
        return -(-as_parameter(value, self.rate)).log1p() / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()


class Laplace(LocScale):
    """Laplace(loc, scale): density exp(-|x - loc| / scale) / (2 scale)."""

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale ** 2

    def rsample(self, sample_shape=()):
        eps = float(np.finfo(self.loc.dtype).eps)
        u = creation.empty(*self._extended_shape(sample_shape), dtype=self.loc.dtype)
        u = u.uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.loc)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        self._validate_sample(value)
        offset = as_parameter(value, self.loc) - self.loc
        return 0.5 - 0.5 * offset.sign() * (-offset.abs() / self.scale).expm1()

    def icdf(self, value):
        term = as_parameter(value, self.loc) - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()


class Poisson(Distribution):
    """Poisson(rate): counts k with probability rate**k exp(-rate) / k!."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        self.rate = as_parameter(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return _draw(lambda rng, rate: rng.poisson(np.broadcast_to(rate, shape)), self.rate)

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.rate)
        return xlogy(value, self.rate) - self.rate - lgamma(value + 1)


class Gamma(Distribution):
    """Gamma(concentration, rate): density rate**c x**(c-1) exp(-rate x) / Gamma(c),
    reparameterised through the implicit gradient of standard_gamma."""

    has_rsample = True
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative

    def __init__(self, concentration, rate, validate_args=None):
        concentration = as_parameter(concentration)
        self.concentration, self.rate = broadcast_tensors(concentration,
                                                          as_parameter(rate, concentration))
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate ** 2

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return _draw(lambda rng, c, r: rng.gamma(np.broadcast_to(c, shape),
                                                 1 / np.broadcast_to(r, shape)),
                     self.concentration, self.rate)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # as torch: tiny, not 0, outside the graph
        value.detach().clamp_(min=float(np.finfo(value.dtype).tiny))
        return value

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.rate)
        c = self.concentration
        return xlogy(c, self.rate) + xlogy(c - 1, value) - self.rate * value - lgamma(c)

    def cdf(self, value):
        self._validate_sample(value)
        return gammainc(self.concentration, self.rate * as_parameter(value, self.rate))

    def entropy(self):
        c = self.concentration
        return c - self.rate.log() + lgamma(c) + (1 - c) * digamma(c)


class Beta(Distribution):
    """Beta(concentration1, concentration0): density x**(a-1) (1-x)**(b-1) / B(a, b) on
    [0, 1]."""

    has_rsample = True
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval

    def __init__(self, concentration1, concentration0, validate_args=None):
        concentration1 = as_parameter(concentration1)
        pair = broadcast_tensors(concentration1, as_parameter(concentration0, concentration1))
        # held (and checked, in torch's words) as the Dirichlet of the pair, as torch's
        self._dirichlet = Dirichlet(stack(pair, -1), validate_args=validate_args)
        super().__init__(self._dirichlet.batch_shape, validate_args=validate_args)

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total ** 2 * (total + 1))

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return _draw(lambda rng, a, b: rng.beta(np.broadcast_to(a, shape),
                                                np.broadcast_to(b, shape)),
                     self.concentration1, self.concentration0)

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def _log_normalizer(self):
        a, b = self.concentration1, self.concentration0
        return lgamma(a) + lgamma(b) - lgamma(a + b)

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.concentration1)
        a, b = self.concentration1, self.concentration0
        return xlogy(a - 1, value) + xlogy(b - 1, 1 - value) - self._log_normalizer()

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        total = a + b
        return (self._log_normalizer() - (a - 1) * digamma(a) - (b - 1) * digamma(b)
                + (total - 2) * digamma(total))



class Chi2(Gamma):
    """Chi2(df): Gamma(df / 2, 1 / 2)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        df = as_parameter(df)
        # rate a plain 1/2 outside the graph, as torch's
        super().__init__(0.5 * df, full_like(df, 0.5), validate_args=validate_args)

    @property
    def df(self):
        return self.concentration * 2
