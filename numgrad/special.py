"""numgrad.special: torch.special's functions. Most are numgrad's ops under torch.special's
names (expit is sigmoid, gammaln is lgamma, ...); ndtr, ndtri, log_ndtr, entr and xlog1py are
composed from erf/erfc/erfinv, log and where, so their gradients are those ops'. The modified
Bessel functions i0, i0e, i1, i1e are autograd Functions (SciPy's values) whose derivatives are
written with each other, so they are differentiable to any order.

>>> import numgrad as ng
>>> ng.special.ndtr(ng.tensor([0.0]))
tensor([0.5000])
"""
import math

from scipy import special as _scipy

from . import ops
from .autograd import Function
from .ops.elementwise import where
from .ops.untracked import untracked

_SQRT_HALF = math.sqrt(0.5)


def expit(input):
    return ops.sigmoid(input)


def logit(input, eps=None):
    return ops.logit(input, eps)


def erf(input):
    return ops.erf(input)


def erfc(input):
    return ops.erfc(input)


def erfinv(input):
    return ops.erfinv(input)


def exp2(input):
    return ops.exp2(input)


def expm1(input):
    return ops.expm1(input)


def log1p(input):
    return ops.log1p(input)


def gammaln(input):
    return ops.lgamma(input)


def digamma(input):
    return ops.digamma(input)


psi = digamma


def polygamma(n, input):
    return ops.polygamma(n, input)


def multigammaln(input, p):
    return ops.mvlgamma(input, p)


def sinc(input):
    return ops.sinc(input)


def round(input, *, decimals=0):
    return ops.round(input, decimals=decimals)


def xlogy(input, other):
    return ops.xlogy(input, other)


def softmax(input, dim, *, dtype=None):
    return ops.softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    return ops.log_softmax(input, dim, dtype)


def logsumexp(input, dim, keepdim=False):
    return ops.logsumexp(input, dim, keepdim)


def ndtr(input):
    """The standard normal distribution function, 0.5 erfc(-x / sqrt(2)) (accurate in the left
    tail, where 0.5 (1 + erf) would cancel)."""
    return ops.erfc(input * -_SQRT_HALF) * 0.5


def ndtri(input):
    """The inverse of ndtr: sqrt(2) erfinv(2p - 1)."""
    return ops.erfinv(input * 2 - 1) * math.sqrt(2)


def log_ndtr(input):
    """log(ndtr(x)): log1p(-ndtr(-x)) on the right, where ndtr rounds to 1; -inf on the left
    where ndtr underflows (below about -37 in float64, -13 in float32)."""
    left = input < 0
    return where(left, ops.log(ndtr(where(left, input, 0.0))),
                 ops.log1p(-ndtr(-where(left, 0.0, input))))


def entr(input):
    """-x log x for x > 0, 0 at 0, -inf below (the entropy of each probability)."""
    positive = input > 0
    safe = where(positive, input, 1.0)
    return where(positive, -input * ops.log(safe), where(input == 0, 0.0, -math.inf))


def xlog1py(input, other):
    """input * log1p(other), 0 where input is 0 (unless other is NaN). As torch's, input's
    gradient is log1p(other) even where input is 0, except at other = -1."""
    # where input is 0, an infinite log1p(other) would make 0 * inf = NaN: read 0 there instead
    infinite = (input == 0) & ((other == -1) | ops.isinf(other))
    return input * where(infinite, 0.0, ops.log1p(where(infinite, 0.0, other)))


def _bessel(name, values):
    """A modified Bessel function of SciPy's, as the forward of a Function."""
    class Bessel(Function):
        @staticmethod
        def forward(ctx, input):
            ctx.node_name = f"Special{name.capitalize()}Backward0"
            ctx.save_for_backward(input)
            return untracked(lambda x: values(x).astype(x.dtype), input._data)

        @staticmethod
        def backward(ctx, grad):
            (input,) = ctx.saved_tensors
            return grad * _DERIVATIVES[name](input)
    Bessel.__name__ = Bessel.__qualname__ = f"Special{name.capitalize()}"

    def function(input):
        return Bessel.apply(input)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"The modified Bessel function {name} (SciPy's), differentiable."
    return function


def _safe_reciprocal(input):
    return where(input == 0, 0.0, 1.0 / where(input == 0, 1.0, input))


i0 = _bessel("i0", _scipy.i0)
i0e = _bessel("i0e", _scipy.i0e)
i1 = _bessel("i1", _scipy.i1)
i1e = _bessel("i1e", _scipy.i1e)
# their derivatives, as torch writes them (the limits at 0: i1' = i1e' = 1/2)
_DERIVATIVES = {
    "i0": lambda x: i1(x),
    "i0e": lambda x: i1e(x) - ops.sign(x) * i0e(x),
    "i1": lambda x: where(x == 0, 0.5, i0(x) - i1(x) * _safe_reciprocal(x)),
    "i1e": lambda x: where(x == 0, 0.5,
                           i0e(x) - i1e(x) * (ops.sign(x) + _safe_reciprocal(x))),
}
