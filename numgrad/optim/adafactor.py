"""Adafactor: Adam-like steps whose second moment is factored into row and column statistics,
so a matrix parameter keeps O(rows + columns) state (Shazeer & Stern, 2018)."""
import math

import numpy as np

from .. import zeros, zeros_like
from .optimizer import Optimizer, plain, scalar_state


class Adafactor(Optimizer):
    """Adafactor with torch's update rule (relative step size capped by lr, update clipping at
    d, decoupled weight decay), written with tensor ops. foreach is accepted and ignored.

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([1.0]))
    >>> opt = ng.optim.Adafactor([w])
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9900], requires_grad=True)
    """

    _loaded_group_defaults = {"foreach": None}

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def _step_parameter(self, p, state, group):
        param, grad = plain(p)
        if not state:
            state["step"] = scalar_state(0.0)
            if grad.ndim > 1:
                # the factors: the mean square of each row, and of each column
                state["row_var"] = zeros(*grad.shape[:-1], 1, dtype=grad.dtype)
                state["col_var"] = zeros(*grad.shape[:-2], 1, grad.shape[-1], dtype=grad.dtype)
            else:
                state["variance"] = zeros_like(grad)
        if group["maximize"]:
            grad = -grad
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = float(np.finfo(param.dtype).eps)
        lr, weight_decay = float(group["lr"]), group["weight_decay"]
        step_t = state["step"]
        step_t.add_(1)
        step = step_t.item()
        one_minus_beta2 = step ** group["beta2_decay"]
        rho = min(lr, 1 / math.sqrt(step))
        alpha = max(eps2, param.norm(2).item() / math.sqrt(param.numel())) * rho
        if weight_decay != 0:
            param.mul_(1 - lr * weight_decay)
        if grad.ndim > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            # torch's mean squares: the norm squared over the count (another rounding than the
            # mean of the squares)
            row_var.lerp_(grad.norm(dim=-1, keepdim=True).square_().div_(grad.shape[-1]),
                          one_minus_beta2)
            col_var.lerp_(grad.norm(dim=-2, keepdim=True).square_().div_(grad.shape[-2]),
                          one_minus_beta2)
            estimate = (row_var @ col_var) / row_var.mean(-2, keepdim=True).clamp(min=eps1)
        else:
            state["variance"].lerp_(grad * grad, one_minus_beta2)
            estimate = state["variance"].clone()
        update = estimate.clamp(min=eps1 * eps1).rsqrt() * grad
        denom = max(1.0, update.norm(2).item() / (math.sqrt(update.numel()) * group["d"]))
        param.add_(update, alpha=-alpha / denom)
        return param._version   # its in-place writes, which step counts on p
