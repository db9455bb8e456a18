"""kl_divergence between different families, torch's closed forms (and infinities where p puts
mass q cannot), registered into kl's table on import."""
import math

from ..creation import full_like
from ..ops import digamma, erf, lgamma
from ..ops.elementwise import where
from .bernoulli import Bernoulli
from .dirichlet import Dirichlet
from .exponential_family import Beta, Exponential, Gamma, Laplace, Poisson
from .kl import _EULER_GAMMA, kl_divergence, register_kl
from .more_families import Binomial, Gumbel, HalfCauchy, HalfNormal, LogNormal
from .normal import Normal
from .transformed_families import Pareto
from .transforms import TransformedDistribution
from .uniform import Uniform


def _infinite_like(tensor):
    return full_like(tensor, math.inf)


def _x_log_x(tensor):
    return tensor * tensor.log()


def _infinite_where(mask, result):
    return where(mask, math.inf, result)


# ---- p has mass where q has none ----------------------------------------------------------------

def _register_infinite(type_p, types_q, parameter):
    for type_q in types_q:
        register_kl(type_p, type_q)(lambda p, q: _infinite_like(getattr(p, parameter)))


_register_infinite(Beta, (Pareto,), "concentration1")
_register_infinite(Exponential, (Beta, Pareto, Uniform), "rate")
_register_infinite(Gamma, (Beta, Pareto, Uniform), "concentration")
_register_infinite(Gumbel, (Beta, Exponential, Gamma, Pareto, Uniform), "loc")
_register_infinite(Laplace, (Beta, Exponential, Gamma, Pareto, Uniform), "loc")
_register_infinite(Normal, (Beta, Exponential, Gamma, Pareto, Uniform), "loc")
_register_infinite(Pareto, (Beta, Uniform), "scale")
_register_infinite(Poisson, (Bernoulli, Binomial), "rate")


# ---- closed forms -------------------------------------------------------------------------------

@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return (-p.entropy() - q.rate.log()
            + q.rate * (p.concentration1 / (p.concentration1 + p.concentration0)))


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    total = p.concentration1 + p.concentration0
    return (-p.entropy() + lgamma(q.concentration) - q.concentration * q.rate.log()
            - (q.concentration - 1) * (digamma(p.concentration1) - digamma(total))
            + q.rate * p.concentration1 / total)


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    mean = p.concentration1 / (p.concentration1 + p.concentration0)
    var_normal = q.scale ** 2
    second = (mean * (1 - mean) / (p.concentration1 + p.concentration0 + 1) + mean ** 2) * 0.5
    return (-p.entropy() + 0.5 * (var_normal * 2 * math.pi).log()
            + (second - q.loc * mean + q.loc ** 2 * 0.5) / var_normal)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    return _infinite_where((q.low > 0.0) | (q.high < 1.0), result)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    return (-q.concentration * ratio.log() + ratio + lgamma(q.concentration)
            + q.concentration * _EULER_GAMMA - (1 + _EULER_GAMMA))


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    product = p.rate * q.scale
    loc_ratio = q.loc / q.scale
    return (product.log() - 1 - loc_ratio + loc_ratio.exp() * product / (product + 1)
            + product.reciprocal())


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_normal = q.scale ** 2
    rate_sqr = p.rate ** 2
    return (0.5 * (rate_sqr * var_normal * 2 * math.pi).log() - 1
            + (rate_sqr.reciprocal() - q.loc / p.rate + q.loc ** 2 * 0.5) / var_normal)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    product = p.rate * q.scale
    loc_ratio = q.loc / q.scale
    c = p.concentration
    return ((c - 1) * digamma(c) - lgamma(c) - c + product.log() + c / product
            + loc_ratio.exp() * (1 + product.reciprocal()) ** (-c) - loc_ratio)


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    var_normal = q.scale ** 2
    rate_sqr = p.rate ** 2
    c = p.concentration
    t1 = 0.5 * (rate_sqr * var_normal * 2 * math.pi).log() - c - lgamma(c)
    t2 = 0.5 * (c ** 2 + c) / rate_sqr
    return t1 + (c - 1) * digamma(c) + (t2 - q.loc * c / p.rate + 0.5 * q.loc ** 2) / var_normal


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    ratio = p.scale / q.scale
    t1 = (ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * ratio * 0.5) ** 2 / 3
    t3 = ((p.loc + p.scale * _EULER_GAMMA - q.loc) / q.scale) ** 2 * 0.5
    return -t1 + t2 + t3 - (_EULER_GAMMA + 1)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_normal = q.scale ** 2
    ratio = p.scale ** 2 / var_normal
    t1 = 0.5 * (2 * ratio / math.pi).log()
    return (-t1 + ratio + (0.5 * p.loc ** 2 - p.loc * q.loc + 0.5 * q.loc ** 2) / var_normal
            - 1)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_ratio = p.loc / q.scale
    var_ratio = (p.scale / q.scale) ** 2
    loc_ratio = q.loc / q.scale
    return (-var_ratio.log() * 0.5 + mean_ratio - loc_ratio
            + (-mean_ratio + 0.5 * var_ratio + loc_ratio).exp()
            - (0.5 * (1 + math.log(2 * math.pi))))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    loc_diff = p.loc - q.loc
    standardized = loc_diff / p.scale
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * standardized ** 2).exp()
    t3 = loc_diff * erf(math.sqrt(0.5) * standardized)
    return (-(p.scale / q.scale).log() + (t2 + t3) / q.scale
            - (0.5 * (1 + math.log(0.5 * math.pi))))


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    product = p.scale * q.rate
    result = ((p.alpha / product).log() - p.alpha.reciprocal()
              + p.alpha * product / (p.alpha - 1) - 1)
    return _infinite_where(p.alpha <= 1, result)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    common = p.scale.log() + p.alpha.reciprocal()
    result = (p.alpha.log() - common + lgamma(q.concentration)
              - q.concentration * q.rate.log() + (1 - q.concentration) * common
              + q.rate * p.alpha * p.scale / (p.alpha - 1) - 1)
    return _infinite_where(p.alpha <= 1, result)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    var_normal = 2 * q.scale ** 2
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common ** 2 / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc) ** 2
    result = t1 - p.alpha.reciprocal() + (t3 + t4) / var_normal - 1
    return _infinite_where(p.alpha <= 2, result)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = ((q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width)
          / width)
    t4 = (lgamma(q.concentration1) + lgamma(q.concentration0)
          - lgamma(q.concentration1 + q.concentration0))
    return _infinite_where((p.high > 1.0) | (p.low < 0.0), t3 + t4 - width.log() - t2)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _infinite_where(p.low < 0.0, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    t2 = lgamma(q.concentration) - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    result = -width.log() + t2 + t3 + q.rate * (p.high + p.low) / 2
    return _infinite_where(p.low < 0.0, result)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    common = q.scale / (p.high - p.low)
    high = (p.high - q.loc) / q.scale
    low = (p.low - q.loc) / q.scale
    return common.log() + 0.5 * (high + low) - common * ((-high).exp() - (-low).exp())


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t3 = ((p.high + p.low - 2 * q.loc) / 2) ** 2
    return t1 + 0.5 * (width ** 2 / 12 + t3) / q.scale ** 2


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    t1 = (q.alpha * q.scale ** q.alpha * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    return _infinite_where(p.low < q.scale, t2 * (q.alpha + 1) - t1)


# ---- torch's fallback for two exponential families no pair above covers (last: the table is
# searched in order) ------------------------------------------------------------------------------

_EXPONENTIAL_FAMILIES = (Bernoulli, Beta, Dirichlet, Exponential, Gamma, Normal, Poisson)


@register_kl(_EXPONENTIAL_FAMILIES, _EXPONENTIAL_FAMILIES)
def _kl_expfamily_expfamily(p, q):
    # torch's wording, a line continuation's spaces included
    raise NotImplementedError("The cross KL-divergence between different exponential families "
                              "cannot                             be computed using Bregman "
                              "divergences")


# torch builds these by transforming a base: two of them meet in its transformed-transformed
# rule, which compares the bases when the transforms agree (|x| for both folded families) and
# otherwise raises a bare NotImplementedError
_TRANSFORMED_IN_TORCH = (Gumbel, HalfCauchy, HalfNormal, LogNormal, TransformedDistribution)


@register_kl(_TRANSFORMED_IN_TORCH, _TRANSFORMED_IN_TORCH)
def _kl_transformed_in_torch(p, q):
    folded = (HalfCauchy, HalfNormal)
    if isinstance(p, folded) and isinstance(q, folded):
        return kl_divergence(p.base_dist, q.base_dist)
    raise NotImplementedError
