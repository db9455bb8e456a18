"""Reparameterised Gamma and Dirichlet draws, with torch's implicit gradients: for a draw x of
CDF F, dx/dconcentration = -(dF/dconcentration) / (dF/dx) (F the Gamma CDF; for a Dirichlet
coordinate its Beta(alpha, total - alpha) marginal's). torch approximates dF/dconcentration;
here it is a finite difference of SciPy's exact CDF."""
import numpy as np
from scipy import special

from .. import creation
from ..autograd.function import Function
from ..ops.untracked import untracked


def _slope_in(cdf, alpha):
    """d cdf(alpha) / dalpha by a fourth-order central difference (SciPy has no closed form)."""
    h = 1e-3 * alpha
    f = [cdf(alpha + k * h) for k in (-2, -1, 1, 2)]
    return (f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * h)


def _standard_gamma_grad(alpha, x):
    alpha, x = alpha.astype(np.float64), x.astype(np.float64)
    density = np.exp((alpha - 1) * np.log(x) - x - special.gammaln(alpha))
    return -_slope_in(lambda a: special.gammainc(a, x), alpha) / density


def _dirichlet_grad(x, alpha, total):
    """torch's _dirichlet_grad: dx/dalpha for x ~ Beta(alpha, total - alpha), the second
    parameter held, over 1 - x (the backward's factor (grad - x.grad) puts it back: each
    coordinate then moves as its Beta marginal does, the others absorbing the change)."""
    x, alpha, beta = x.astype(np.float64), alpha.astype(np.float64), (total - alpha).astype(
        np.float64)
    density = np.exp((alpha - 1) * np.log(x) + (beta - 1) * np.log1p(-x)
                     - special.betaln(alpha, beta))
    return -_slope_in(lambda a: special.betainc(a, beta, x), alpha) / density / (1 - x)


class _StandardGamma(Function):
    @staticmethod
    def forward(ctx, concentration):
        draws = untracked(lambda c: creation.generator().standard_gamma(c).astype(c.dtype),
                          concentration.detach()._data)
        ctx.save_for_backward(concentration, draws)
        return draws

    @staticmethod
    def backward(ctx, grad):
        concentration, draws = ctx.saved_tensors
        slope = untracked(lambda c, x: _standard_gamma_grad(c, x).astype(c.dtype),
                          concentration.detach()._data, draws.detach()._data)
        return grad * slope


class _Dirichlet(Function):
    @staticmethod
    def forward(ctx, concentration):
        def draw(c):
            gammas = creation.generator().standard_gamma(c)
            return (gammas / gammas.sum(-1, keepdims=True)).astype(c.dtype)
        draws = untracked(draw, concentration.detach()._data)
        ctx.save_for_backward(concentration, draws)
        return draws

    @staticmethod
    def backward(ctx, grad):
        concentration, draws = ctx.saved_tensors
        total = concentration.sum(-1, keepdim=True).expand_as(concentration)
        slope = untracked(lambda x, c, n: _dirichlet_grad(x, c, n).astype(c.dtype),
                          draws.detach()._data, concentration.detach()._data,
                          total.detach()._data)
        return slope * (grad - (draws * grad).sum(-1, keepdim=True))


def dirichlet(concentration):
    """Dirichlet(concentration) draws (one per row of the last dim), differentiable in it."""
    return _Dirichlet.apply(concentration)


def standard_gamma(concentration):
    """Gamma(concentration, 1) draws of concentration's shape, differentiable in it."""
    return _StandardGamma.apply(concentration)
