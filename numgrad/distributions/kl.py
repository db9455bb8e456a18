"""kl_divergence(p, q) between distributions, by the pair of their types (register_kl adds
pairs), with torch's closed forms."""
import math

from ..nn import functional as F
from ..ops.elementwise import where
from .. import linalg
from ..ops import digamma, lgamma
from .bernoulli import Bernoulli
from .categorical import Categorical
from .exponential_family import Exponential, Gamma, Laplace
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .uniform import Uniform

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
