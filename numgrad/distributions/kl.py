"""kl_divergence(p, q) between distributions, by the pair of their types (register_kl adds
pairs), with torch's closed forms."""
import math

from ..nn import functional as F
from ..ops.elementwise import where
from .. import linalg
from ..ops import digamma, lgamma
from .bernoulli import Bernoulli
from .categorical import Categorical
from .exponential_family import Beta, Exponential, Gamma, Laplace, Poisson
from .dirichlet import Dirichlet
from .independent import Independent
from .more_families import (Binomial, Cauchy, Geometric, Gumbel, HalfCauchy, HalfNormal,
                            LogNormal)
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot import OneHotCategorical
from .transformed_families import Pareto
from .transforms import TransformedDistribution
from .uniform import Uniform

_EULER_GAMMA = 0.57721566490153286060

_KL = {}


def register_kl(type_p, type_q):
    """Decorator: fn(p, q) is KL(p || q) for p of type_p and q of type_q."""
    def register(fn):
        _KL[(type_p, type_q)] = fn
        return fn
    return register


def kl_divergence(p, q):
    """KL(p || q), elementwise over the batch."""
    for (type_p, type_q), fn in _KL.items():
        if isinstance(p, type_p) and isinstance(q, type_q):
            return fn(p, q)
    raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and "
                              f"q type {type(q).__name__}")


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    variance_ratio = (p.scale / q.scale) ** 2
    spread = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (variance_ratio + spread - 1 - variance_ratio.log())


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    ones = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    ones = where(p.probs == 0, 0.0, where(q.probs == 0, math.inf, ones))
    zeros = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    zeros = where(p.probs == 1, 0.0, where(q.probs == 1, math.inf, zeros))
    return ones + zeros


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    terms = p.probs * (p.logits - q.logits)
    terms = where(p.probs == 0, 0.0, where(q.probs == 0, math.inf, terms))
    return terms.sum(-1)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return where((q.low > p.low) | (q.high < p.high), math.inf, result)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - ratio.log() - 1


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    return (q.concentration * (p.rate / q.rate).log() + lgamma(q.concentration)
            - lgamma(p.concentration)
            + (p.concentration - q.concentration) * digamma(p.concentration)
            + (q.rate - p.rate) * (p.concentration / p.rate))


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    distance = (p.loc - q.loc).abs() / q.scale
    return -scale_ratio.log() + distance + scale_ratio * (-(p.loc - q.loc).abs()
                                                          / p.scale).exp() - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariate_normal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event "
                         "shapes cannot be computed")
    k = p.event_shape[0]
    half_log_det = p._half_log_det() * -1 + q._half_log_det()
    # tr(Sq^-1 Sp) = ||Lq^-1 Lp||_F^2, and the Mahalanobis term of the means
    whitened = linalg.solve_triangular(q.scale_tril, p.scale_tril, upper=False)
    difference = linalg.solve_triangular(q.scale_tril, (q.loc - p.loc).unsqueeze(-1),
                                         upper=False).squeeze(-1)
    return half_log_det + 0.5 * ((whitened ** 2).sum((-2, -1)) + (difference ** 2).sum(-1) - k)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    total_p = p.concentration1 + p.concentration0
    total_q = q.concentration1 + q.concentration0
    return (lgamma(q.concentration1) + lgamma(q.concentration0) + lgamma(total_p)
            - (lgamma(p.concentration1) + lgamma(p.concentration0) + lgamma(total_q))
            + (p.concentration1 - q.concentration1) * digamma(p.concentration1)
            + (p.concentration0 - q.concentration0) * digamma(p.concentration0)
            + (total_q - total_p) * digamma(total_p))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    total_p = p.concentration.sum(-1)
    total_q = q.concentration.sum(-1)
    spread = digamma(p.concentration) - digamma(total_p).unsqueeze(-1)
    return (lgamma(total_p) - lgamma(total_q)
            - (lgamma(p.concentration) - lgamma(q.concentration)).sum(-1)
            + ((p.concentration - q.concentration) * spread).sum(-1))


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is "
                                  "not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p()
                          - (-q.probs).log1p())
    return where(p.total_count > q.total_count, math.inf, kl)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    scale_ratio = p.scale / q.scale
    q_loc, p_loc = q.loc / q.scale, p.loc / q.scale
    return (-scale_ratio.log() - q_loc + p_loc + scale_ratio * _EULER_GAMMA
            + (q_loc + lgamma(1 + scale_ratio) - p_loc).exp() - (1 + _EULER_GAMMA))


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return where(p.scale < q.scale, math.inf, result)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    return (((p.scale + q.scale) ** 2 + (p.loc - q.loc) ** 2).log()
            - (4 * p.scale * q.scale).log())


# torch reaches these through the base distributions (the same transform on both sides)
@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(HalfCauchy, HalfCauchy)
def _kl_halfcauchy_halfcauchy(p, q):
    return _kl_cauchy_cauchy(p.base_dist, q.base_dist)


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return p._sum(kl_divergence(p.base_dist, q.base_dist))


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    # the same transforms on both sides leave KL unchanged: the bases' (torch's bare errors)
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


# the cross-family pairs register themselves with register_kl, so they come after it
from . import kl_cross  # noqa: E402,F401
