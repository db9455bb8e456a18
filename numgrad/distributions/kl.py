"""kl_divergence(p, q) between distributions, by the pair of their types (register_kl adds
pairs), with torch's closed forms."""
import math

from ..nn import functional as F
from ..ops.elementwise import where
from .bernoulli import Bernoulli
from .categorical import Categorical
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
