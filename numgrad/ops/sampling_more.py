"""More random sampling from numgrad's generator: the in-place fills cauchy_, geometric_ and
log_normal_ (sampling.py's rules: an in-place write that cuts the gradient) and the functions
poisson and binomial (samples carry no gradient)."""
import numpy as np

from .. import dtypes
from ..creation import generator
from .sampling import _fill, _float_only
from .untracked import to_host, untracked


def cauchy_(self, median=0.0, sigma=1.0):
    """Fill with Cauchy values of the given median and scale."""
    _float_only(self, "cauchy_")
    if sigma <= 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    return _fill(self, lambda shape: median + sigma * generator().standard_cauchy(shape))


def geometric_(self, p):
    """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    return _fill(self, lambda shape: generator().geometric(p, shape))


def log_normal_(self, mean=1.0, std=2.0):
    """Fill with exp of normal values of the given mean and standard deviation."""
    _float_only(self, "log_normal_")
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    return _fill(self, lambda shape: generator().lognormal(mean, std, shape))


def _require_floating(input, kernel):
    if not dtypes.is_floating(input.dtype):
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{dtypes.scalar_type_name(input.dtype)}'")


def poisson(input, generator_=None):
    """A Poisson sample for each rate in input, in input's dtype."""
    _require_floating(input, "poisson_cpu")
    if (to_host(input._data) < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return untracked(lambda rates: generator().poisson(rates).astype(rates.dtype), input._data)


def binomial(count, prob, generator_=None):
    """A binomial sample (successes in count trials of probability prob) for each element."""
    _require_floating(count, "binomial_cpu")
    return untracked(lambda n, p: generator().binomial(n.astype(np.int64),
                                                       np.clip(p, 0, 1)).astype(n.dtype),
                     count._data, prob._data)


PUBLIC = ("poisson", "binomial")
METHODS = ("cauchy_", "geometric_", "log_normal_")
INPLACE = {}
