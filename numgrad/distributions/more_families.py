"""More families as torch.distributions has them: Cauchy, LogNormal, HalfNormal, HalfCauchy,
Gumbel and StudentT (reparameterised), Geometric and Binomial (sampled without gradient)."""
import math

import numpy as np

from .. import creation
from ..nn import functional as F
from ..creation import full_like, zeros_like
from ..ops import broadcast_tensors, digamma, lgamma, sigmoid, where
from .bernoulli import counted_probs, derived_of, probs_or_logits
from . import constraints
from .distribution import Distribution, LocScale, as_parameter
from .exponential_family import Chi2, _draw
from .normal import Normal


class Cauchy(LocScale):
    """Cauchy(loc, scale)."""

    # no moments: torch gives an undefined mean and an infinite variance
    @property
    def mean(self):
        return full_like(self.loc, float("nan"))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return full_like(self.loc, float("inf"))

    def rsample(self, sample_shape=()):
        unit = creation.empty(*self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + unit.cauchy_() * self.scale

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.loc)
        return (-math.log(math.pi) - self.scale.log()
                - (((value - self.loc) / self.scale) ** 2).log1p())

    def cdf(self, value):
        self._validate_sample(value)
        return ((as_parameter(value, self.loc) - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value):
        return (math.pi * (as_parameter(value, self.loc) - 0.5)).tan() * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()


class LogNormal(Distribution):
    """LogNormal(loc, scale): exp of Normal(loc, scale)."""

    has_rsample = True
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive

    def __init__(self, loc, scale, validate_args=None):
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(self.loc.shape, validate_args=validate_args)

    # the parameters live in the base Normal, as torch's (so its repr shows none)
    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale ** 2 / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale ** 2).exp()

    @property
    def variance(self):
        return (self.scale ** 2).expm1() * (2 * self.loc + self.scale ** 2).exp()

    def cdf(self, value):
        return self.base_dist.cdf(as_parameter(value, self.loc).log())

    def icdf(self, value):
        return self.base_dist.icdf(value).exp()

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.loc)
        return self.base_dist.log_prob(value.log()) - value.log()

    def entropy(self):
        return self.base_dist.entropy() + self.loc


class _Folded(Distribution):
    """|base(0, scale)| for a symmetric location-scale family: its density is twice the base's
    on [0, inf), and its entropy log 2 less."""

    has_rsample = True
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    base_family = None      # a LocScale family, set by each subclass

    def __init__(self, scale, validate_args=None):
        scale = as_parameter(scale)
        # checked as the folded family's own scale, not as the base's (torch's wording)
        # loc a plain zero, outside the graph (scale * 0 would hold values the first backward
        # frees)
        self.base_dist = self.base_family(zeros_like(scale), scale, validate_args=False)
        super().__init__(self.scale.shape, validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape).abs()

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.scale)
        return self.base_dist.log_prob(value) + math.log(2)

    @property
    def mode(self):
        return zeros_like(self.scale)

    def cdf(self, value):
        self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((as_parameter(prob, self.scale) + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_Folded):
    """HalfNormal(scale): |Normal(0, scale)|."""

    base_family = Normal

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale ** 2 * (1 - 2 / math.pi)


class StudentT(Distribution):
    """StudentT(df, loc=0, scale=1): loc + scale * X / sqrt(Z / df), X ~ Normal(0, 1) and
    Z ~ Chi2(df), reparameterised as torch's."""

    has_rsample = True
    arg_constraints = {"df": constraints.positive,
                       "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        df = as_parameter(df)
        self.df, self.loc, self.scale = broadcast_tensors(df, as_parameter(loc, df),
                                                          as_parameter(scale, df))
        # checks df first, in its own words, as torch's
        self._chi2 = Chi2(self.df, validate_args=validate_args)
        super().__init__(self.df.shape, validate_args=validate_args)

    # torch: no mean for df <= 1, an infinite variance for 1 < df <= 2, none for df <= 1
    @property
    def mean(self):
        return self.loc.masked_fill(self.df <= 1, float("nan"))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        finite = where(self.df > 2, self.scale ** 2 * self.df / (self.df - 2), self.df)
        return finite.masked_fill((self.df <= 2) & (self.df > 1), float("inf")).masked_fill(
            self.df <= 1, float("nan"))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        normal = creation.randn(*shape, dtype=self.df.dtype, device=self.df.device)
        chi2 = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * (normal * (chi2 / self.df).rsqrt())

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.df)
        y = (value - self.loc) / self.scale
        normalizer = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
                      + lgamma(0.5 * self.df) - lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * (y ** 2 / self.df).log1p() - normalizer

    def entropy(self):
        log_beta = lgamma(0.5 * self.df) + math.lgamma(0.5) - lgamma(0.5 * (self.df + 1))
        return (self.scale.log() + 0.5 * (self.df + 1) * (digamma(0.5 * (self.df + 1))
                                                          - digamma(0.5 * self.df))
                + 0.5 * self.df.log() + log_beta)


class Geometric(Distribution):
    """Geometric(probs=None, logits=None): the number of failures before the first success."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        probs, logits = probs_or_logits(probs, logits)
        self.probs = probs if probs is not None else sigmoid(logits)
        self.logits = logits if logits is not None else \
            (self.probs.clamp(1e-38, 1 - float(np.finfo(self.probs.dtype).eps))).logit()
        self._derived = derived_of(probs)
        super().__init__(self.probs.shape, validate_args=validate_args)
        # torch's extra check beyond the unit interval, in its own words
        if self._validate_args and probs is not None and not bool((probs > 0).all()):
            raise ValueError(f"Expected parameter probs (Tensor of shape {tuple(probs.shape)}) "
                             f"of distribution {self!r} to be positive but found invalid "
                             f"values:\n{probs.detach()[~(probs > 0)]}")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        # numpy counts trials up to the first success; torch counts the failures before it
        return _draw(lambda rng, p: rng.geometric(np.broadcast_to(p, shape)) - 1.0, self.probs)

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.probs)
        value, probs = broadcast_tensors(value, self.probs)
        # probs 1 with value 0 is log 1 = 0, not 0 * -inf
        safe = probs.masked_fill((probs == 1) & (value == 0), 0)
        return value * (-safe).log1p() + self.probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                  reduction="none") / self.probs


class Binomial(Distribution):
    """Binomial(total_count=1, probs=None, logits=None): successes in total_count trials."""

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval,
                       "logits": constraints.real}

    has_enumerate_support = True

    @property
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        self.total_count, self.probs, self.logits = counted_probs(total_count, probs, logits)
        self._derived = derived_of(probs)
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return _draw(lambda rng, n, p: rng.binomial(np.broadcast_to(n, shape).astype(np.int64),
                                                    np.broadcast_to(p, shape)).astype(np.float64),
                     self.total_count, self.probs)

    def _homogeneous_count(self, api):
        count = int(self.total_count.max().item())
        if self.total_count.min().item() != count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{api}`.")
        return count

    def enumerate_support(self, expand=True):
        count = self._homogeneous_count("enumerate_support")
        return self._support_values(creation.arange(1 + count, dtype=self.probs.dtype), expand)

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.probs)
        n, logits = self.total_count, self.logits
        log_binomial = lgamma(n + 1) - lgamma(value + 1) - lgamma(n - value + 1)
        # k logit - n log(1 + e^logit), written stably for either sign of the logit; max(logit, 0)
        # as torch's _clamp_by_zero, whose gradient at 0 is 1/2
        positive = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2
        normalizer = n * positive + n * (-logits.abs()).exp().log1p()
        return log_binomial + value * logits - normalizer


class HalfCauchy(_Folded):
    """HalfCauchy(scale): |Cauchy(0, scale)|."""

    base_family = Cauchy

    @property
    def mean(self):
        return full_like(self.scale, float("inf"))

    @property
    def variance(self):
        return full_like(self.scale, float("inf"))


_EULER_GAMMA = 0.57721566490153286060


class Gumbel(LocScale):
    """Gumbel(loc, scale): the distribution of maxima, reparameterised."""

    @property
    def mean(self):
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return (math.pi / math.sqrt(6) * self.scale) ** 2

    def rsample(self, sample_shape=()):
        info = np.finfo(self.loc.dtype)
        unit = creation.empty(*self._extended_shape(sample_shape), dtype=self.loc.dtype)
        unit = unit.uniform_(float(info.tiny), 1 - float(info.eps))
        return self.loc - self.scale * (-unit.log()).log()

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.loc)
        z = (value - self.loc) / self.scale
        return -(z + (-z).exp()) - self.scale.log()

    def cdf(self, value):
        z = (as_parameter(value, self.loc) - self.loc) / self.scale
        return (-(-z).exp()).exp()

    def icdf(self, value):
        return self.loc - self.scale * (-as_parameter(value, self.loc).log()).log()

    def entropy(self):
        return self.scale.log() + (1 + _EULER_GAMMA)
