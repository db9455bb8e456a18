"""The gamma family, as torch has them: lgamma, digamma, polygamma(n, x) and mvlgamma(x, p), with
their Tensor methods and in-place forms.

Written as elementwise.py writes its ops: a scipy.special forward and one derivative formula, in
arithmetic and `fmath` (F), which is at once the Numba kernel and the differentiable VJP. Each
derivative is the next op of the family (lgamma -> digamma -> polygamma(1) -> polygamma(2) ...),
so derivatives of any order are recorded. The kernels' digamma and polygamma are in
numgrad/kernels/formula.py (Note [digamma and polygamma in kernels]), the CUDA forwards in
numgrad/cuda/formulas.py. As torch: integer inputs promote to the default float dtype, and the
values at the poles and infinities are torch's (scipy's but for lgamma(-inf) = inf, and NaN where
torch's algorithms give NaN: trigamma at -inf, polygamma(n >= 2) at inf).
"""
import math

import numpy as np

from .. import dtypes
from . import fmath as F
from .apply import apply, show_attributes
from .elementwise import _float_input, _quiet, _unary, _unary_fn, special_fn
from .named import named

_LOG_PI = math.log(math.pi)


# ---- formulas -----------------------------------------------------------------------------------
def d_lgamma(g, x): return g * F.digamma(x)
def d_digamma(g, x): return g * F.polygamma(1.0, x)
def d_polygamma(g, x, n): return g * F.polygamma(n + 1.0, x)


# ---- forwards -----------------------------------------------------------------------------------
_gammaln = special_fn("gammaln")
_digamma = special_fn("digamma")


def _lgamma(x):
    # scipy's gammaln(-inf) is -inf; torch's, as C's lgamma, is inf. scipy's gammaln of a float64
    # subnormal is inf; C's is -log|x|, to which lgamma tends at 0
    with np.errstate(divide="ignore"):
        tiny = np.where(x == 0, x.dtype.type(np.inf), -np.log(np.abs(x)))
    value = np.where(np.abs(x) < np.finfo(x.dtype).tiny, tiny, _gammaln(x))
    return np.where(x == -np.inf, x.dtype.type(np.inf), value)


@_quiet
def _polygamma(x, n):
    if n == 0:
        return _digamma(x)
    from scipy import special
    # NaN where torch's algorithms give it: its trigamma at -inf (sin(pi x) of an infinity), its
    # Hurwitz zeta at inf (0 * inf in the Bernoulli tail); scipy gives the limits there
    nan_at = -np.inf if n == 1 else np.inf
    return np.where(x == nan_at, np.nan, special.polygamma(n, x)).astype(x.dtype, copy=False)


# ---- the ops ------------------------------------------------------------------------------------
LGAMMA = _unary("lgamma", _lgamma, d_lgamma)
DIGAMMA = _unary("digamma", _digamma, d_digamma)
POLYGAMMA = _unary("polygamma", _polygamma, d_polygamma, meta=lambda n: ((), (n,)))


# ---- public functions ---------------------------------------------------------------------------
lgamma = _unary_fn(LGAMMA)
digamma = _unary_fn(DIGAMMA)


def _int_argument(fn_name, name, position, value):
    """torch's TypeError for an integer argument given as anything else (a bool included)."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        raise TypeError(f"{fn_name}(): argument '{name}' (position {position}) must be int, not "
                        f"{type(value).__name__}")


def _polygamma_of(input, n):
    _int_argument("polygamma", "n", 1, n)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    out = apply(POLYGAMMA, (_float_input(input),), {"n": int(n)})
    show_attributes(out, n=int(n))
    return out


_polygamma_of.__name__ = _polygamma_of.__qualname__ = "polygamma"


class _Polygamma:
    """numgrad.polygamma(n, input) takes the order first, the method input.polygamma(n) the tensor:
    one name, two argument orders, as torch has them (a function is its own method otherwise)."""
    __name__ = __qualname__ = "polygamma"
    __doc__ = ("polygamma(n, input): the n-th derivative of digamma (digamma itself for n = 0), "
               "n >= 0 an int; differentiable to any order (PolygammaBackward0).")

    def __call__(self, n, input):
        return _polygamma_of(input, n)

    def __repr__(self):
        return "<function polygamma>"

    def __get__(self, tensor, owner=None):
        if tensor is None:
            return self
        return lambda n: _polygamma_of(tensor, n)


polygamma = _Polygamma()


def mvlgamma(input, p):
    """The multivariate log-gamma of dimension p: sum over i < p of lgamma(input - i/2), plus
    p (p - 1) / 4 log(pi). A composite of lgamma (torch records one MvlgammaBackward0 node)."""
    _int_argument("mvlgamma", "p", 2, p)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = _float_input(input)
    total = lgamma(x)
    for i in range(1, p):
        total = total + lgamma(x - 0.5 * i)
    return named(total + p * (p - 1) / 4 * _LOG_PI, "MvlgammaBackward0", x,
                 attributes={"p": int(p)})


# ---- in-place forms -----------------------------------------------------------------------------
def _mvlgamma_into_own_dtype(self, p):
    # torch's message for an integer tensor, as it words it
    if not dtypes.is_floating(self._data.dtype):
        raise RuntimeError(f"mvlgamma: result type {dtypes.scalar_type_name(self._data.dtype)} "
                           f"can't be cast to the desired output type "
                           f"{dtypes.scalar_type_name(dtypes.get_default_dtype())}")
    return mvlgamma(self, p)


_mvlgamma_into_own_dtype.__name__ = _mvlgamma_into_own_dtype.__qualname__ = "mvlgamma"

PUBLIC = ("lgamma", "digamma", "polygamma", "mvlgamma")
METHODS = PUBLIC
# In-place forms: whether the op saves its input (then the in-place write must not clobber it)
INPLACE = {"lgamma_": (lgamma, True), "digamma_": (digamma, True),
           "polygamma_": (_polygamma_of, True),
           "mvlgamma_": (_mvlgamma_into_own_dtype, True)}
