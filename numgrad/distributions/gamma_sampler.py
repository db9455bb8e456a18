"""Reparameterised Gamma draws: x ~ Gamma(concentration, 1) with the implicit gradient
dx/dconcentration = -(dF/dconcentration) / (dF/dx), F the Gamma CDF at x (the pathwise
derivative torch's _standard_gamma gives, here exact up to a finite difference in
concentration rather than torch's approximation)."""
import numpy as np
from scipy import special

from .. import creation
from ..autograd.function import Function
from ..ops.untracked import untracked


def _cdf_slope_in_concentration(alpha, x):
    """dP(alpha, x)/dalpha by a fourth-order central difference (scipy has no closed form)."""
    h = 1e-3 * alpha
    f = [special.gammainc(alpha + k * h, x) for k in (-2, -1, 1, 2)]
    return (f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * h)


def _standard_gamma_grad(alpha, x):
    alpha, x = alpha.astype(np.float64), x.astype(np.float64)
    density = np.exp((alpha - 1) * np.log(x) - x - special.gammaln(alpha))
    return -_cdf_slope_in_concentration(alpha, x) / density


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


def standard_gamma(concentration):
    """Gamma(concentration, 1) draws of concentration's shape, differentiable in it."""
    return _StandardGamma.apply(concentration)
