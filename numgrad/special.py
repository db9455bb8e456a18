"""numgrad.special: torch.special's functions. Most are numgrad's ops under torch.special's
names (expit is sigmoid, gammaln is lgamma, ...); ndtri, log_ndtr and entr are ops of
elementwise_special.py; ndtr and xlog1py are composed from erf, log1p and where, so their
gradients are those ops'. The modified
Bessel functions i0, i0e, i1, i1e, and erfcx, gammainc/gammaincc and zeta are autograd Functions
on SciPy's values whose derivatives are written with numgrad functions (differentiable in the
arguments torch differentiates); the other Bessel functions and the orthogonal polynomials give
values only, as torch's do.

>>> import numgrad as ng
>>> ng.special.ndtr(ng.tensor([0.0]))
tensor([0.5000])
"""
import math

import numpy as np

from . import dtypes, ops
from .autograd import Function
from .ops.elementwise import where
from .ops.elementwise_special import special_entr, special_log_ndtr, special_ndtri
from .ops.named import named
from .ops.untracked import untracked
from .tensor import Tensor

_SQRT_HALF = math.sqrt(0.5)


def _lazy(name):
    """scipy.special.<name>, imported when first called: importing SciPy's special functions
    costs 0.2 s of every numgrad start."""
    def call(*args):
        from scipy import special
        return getattr(special, name)(*args)
    call.__name__ = name
    return call


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
    """The standard normal distribution function, as torch composes it: (1 + erf(x / sqrt(2)))
    * 0.5, its Scalar overloads' nodes (so it is 0, not tiny, far in the left tail, as torch's)."""
    from .ops.elementwise import add_scalar, mul_scalar
    if not dtypes.is_floating(input._data.dtype):
        input = input.to(dtypes.get_default_dtype())
    return mul_scalar(add_scalar(ops.erf(mul_scalar(input, _SQRT_HALF)), 1.0), 0.5)


def ndtri(input):
    """The inverse of ndtr (SpecialNdtriBackward0)."""
    return special_ndtri(input)


def log_ndtr(input):
    """log(ndtr(x)), exact in both tails (SpecialLogNdtrBackward0)."""
    return special_log_ndtr(input)


def entr(input):
    """-x log x for x > 0, 0 at 0, -inf below, NaN at NaN (the entropy of each probability)."""
    return special_entr(input)


def xlog1py(input, other):
    """input * log1p(other), 0 where input is 0 (unless other is NaN). As torch's, input's
    gradient is log1p(other) even where input is 0, except at other = -1."""
    # where input is 0, an infinite log1p(other) would make 0 * inf = NaN: read 0 there instead
    infinite = (input == 0) & ((other == -1) | ops.isinf(other))
    return input * where(infinite, 0.0, ops.log1p(where(infinite, 0.0, other)))


def _float_type(dtype):
    """The dtype SciPy's values are given in: the inputs' if it is a float, else the default
    float type (torch's special functions of integers and bools are floats)."""
    return dtype if dtype.kind == "f" else np.dtype(dtypes.get_default_dtype())


# torch.i0 is a core op, the others special's: I0Backward0, SpecialI0EBackward0, ...
_BESSEL_NODES = {"i0": "I0Backward0"}


def _bessel(name, values):
    """A modified Bessel function of SciPy's, as the forward of a Function."""
    class Bessel(Function):
        @staticmethod
        def forward(ctx, input):
            ctx.node_name = _BESSEL_NODES.get(name, f"Special{name.upper()}Backward0")
            ctx.save_for_backward(input)
            return untracked(lambda x: values(x).astype(_float_type(x.dtype)), input._data)

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


def _not_tiny(input):
    """|x| above the float type's epsilon, where torch's i1 and i1e derivatives use their
    formula; elsewhere (NaN too) they are the limit at 0, 1/2."""
    return abs(input) > float(np.finfo(_float_type(input._data.dtype)).eps)


def _off_zero(input, not_tiny):
    """x, or the epsilon where x is tiny: torch's safe_self, which keeps 1/x finite there."""
    return where(not_tiny, input, float(np.finfo(_float_type(input._data.dtype)).eps))


def _i1_derivative(x):
    not_tiny = _not_tiny(x)
    safe = _off_zero(x, not_tiny)
    return where(not_tiny, i0(safe) - i1(x) * safe.reciprocal(), 0.5)


def _i1e_derivative(x):
    not_tiny = _not_tiny(x)
    safe = _off_zero(x, not_tiny)
    return where(not_tiny, i0e(safe) - i1e(x) * (ops.sgn(safe) + safe.reciprocal()), 0.5)


i0 = _bessel("i0", _lazy("i0"))
i0e = _bessel("i0e", _lazy("i0e"))
i1 = _bessel("i1", _lazy("i1"))
i1e = _bessel("i1e", _lazy("i1e"))
# their derivatives, as torch writes them
_DERIVATIVES = {
    "i0": lambda x: i1(x),
    "i0e": lambda x: i1e(x) - ops.sign(x) * i0e(x),
    "i1": _i1_derivative,
    "i1e": _i1e_derivative,
}


class _Erfcx(Function):
    @staticmethod
    def forward(ctx, input):
        ctx.node_name = "SpecialErfcxBackward0"
        ctx.save_for_backward(input)
        return untracked(lambda x: _lazy("erfcx")(x).astype(_float_type(x.dtype)), input._data)

    @staticmethod
    def backward(ctx, grad):
        (input,) = ctx.saved_tensors
        return grad * (2 * input * erfcx(input) - 2 / math.sqrt(math.pi))


def erfcx(input):
    """exp(x^2) erfc(x), the scaled complementary error function."""
    return _Erfcx.apply(input)


def _two_argument(name, node_name, values, derivative, refused):
    """A Function of (input, other) differentiable in the argument derivative's index names;
    the other argument's gradient is refused with torch's message."""
    class TwoArgument(Function):
        @staticmethod
        def forward(ctx, input, other):
            ctx.node_name = node_name
            ctx.save_for_backward(input, other)
            return untracked(lambda a, b: values(a, b).astype(_float_type(a.dtype)), input._data,
                             other._data)

        @staticmethod
        def backward(ctx, grad):
            input, other = ctx.saved_tensors
            index, formula = derivative
            if ctx.needs_input_grad[1 - index]:
                raise NotImplementedError(f"the derivative for '{refused}' is not implemented.")
            gradients = [None, None]
            gradients[index] = grad * formula(input, other)
            return tuple(gradients)

    def function(input, other):
        input, other = ops.broadcast_tensors(*(_as_tensor(v, input, other)
                                               for v in (input, other)))
        return TwoArgument.apply(input, other)
    function.__name__ = function.__qualname__ = name
    return function


def _as_tensor(value, *operands):
    if isinstance(value, Tensor):
        return value
    like = next(v for v in operands if isinstance(v, Tensor))
    return Tensor._make(np.asarray(value, like.dtype), False).to(like.device)


def _incomplete_gamma_density(a, x):
    # d/dx P(a, x) = x^(a-1) e^-x / Gamma(a)
    return (ops.xlogy(a - 1, x) - x - ops.lgamma(a)).exp()


gammainc = _two_argument("gammainc", "SpecialGammaincBackward0", _lazy("gammainc"),
                         (1, _incomplete_gamma_density), "igamma: input")
gammaincc = _two_argument("gammaincc", "SpecialGammainccBackward0", _lazy("gammaincc"),
                          (1, lambda a, x: -_incomplete_gamma_density(a, x)), "igammac: input")
# d/dq zeta(x, q) = -x zeta(x + 1, q)
zeta = _two_argument("zeta", "SpecialZetaBackward0", _lazy("zeta"),
                     (1, lambda x, q: -x * zeta(x + 1, q)), "zeta")


# ---- values without a gradient (torch defines none for these) ------------------------------------
def _values_only(name, values):
    def function(input):
        return untracked(lambda x: np.asarray(values(x)).astype(_float_type(x.dtype)),
                         input._data)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.special.{name}: SciPy's values, without a gradient (as torch's)."
    return function


def _polynomial(name, values):
    def function(input, n):
        degree = n._data if isinstance(n, Tensor) else n
        return untracked(lambda x, k: np.asarray(values(k, x)).astype(_float_type(x.dtype)),
                         input._data, degree)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.special.{name}(input, n): the polynomial of degree n at input."
    return function


bessel_j0 = _values_only("bessel_j0", _lazy("j0"))
bessel_j1 = _values_only("bessel_j1", _lazy("j1"))
bessel_y0 = _values_only("bessel_y0", _lazy("y0"))
bessel_y1 = _values_only("bessel_y1", _lazy("y1"))
modified_bessel_i0 = _values_only("modified_bessel_i0", _lazy("i0"))
modified_bessel_i1 = _values_only("modified_bessel_i1", _lazy("i1"))
modified_bessel_k0 = _values_only("modified_bessel_k0", _lazy("k0"))
modified_bessel_k1 = _values_only("modified_bessel_k1", _lazy("k1"))
scaled_modified_bessel_k0 = _values_only("scaled_modified_bessel_k0", _lazy("k0e"))
scaled_modified_bessel_k1 = _values_only("scaled_modified_bessel_k1", _lazy("k1e"))
spherical_bessel_j0 = _values_only("spherical_bessel_j0", lambda x: _lazy("spherical_jn")(0, x))
airy_ai = _values_only("airy_ai", lambda x: _lazy("airy")(x)[0])
chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", _lazy("eval_chebyt"))
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", _lazy("eval_chebyu"))
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t",
                                             _lazy("eval_sh_chebyt"))
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u",
                                             _lazy("eval_sh_chebyu"))
hermite_polynomial_h = _polynomial("hermite_polynomial_h", _lazy("eval_hermite"))
hermite_polynomial_he = _polynomial("hermite_polynomial_he", _lazy("eval_hermitenorm"))
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", _lazy("eval_laguerre"))
legendre_polynomial_p = _polynomial("legendre_polynomial_p", _lazy("eval_legendre"))
