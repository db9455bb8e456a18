"""Gradient clipping: scale or clamp the .grad of parameters in place."""
import math

import numpy as np

from ... import grad_mode
from ...ops import stack
from ...tensor import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p._grad for p in parameters if p._grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the gradients so that their joint norm is at most max_norm; returns the norm before.

    The scale is max_norm / (norm + 1e-6), applied only when it is below 1 (torch's rule).

    >>> import numgrad as ng
    >>> w = ng.tensor([3.0, 4.0], requires_grad=True)
    >>> (w * w).sum().backward()
    >>> ng.nn.utils.clip_grad_norm_([w], 1.0)
    tensor(10.)
    >>> w.grad
    tensor([0.6000, 0.8000])
    """
    grads = _grads(parameters)
    if not grads:
        return Tensor._make(np.array(0.0, np.float32), False)
    norm_type = float(norm_type)
    with grad_mode.no_grad():
        # numgrad ops, so the norms are taken where the gradients live (CPU or GPU), in float64;
        # only the total crosses to the host, to decide whether to scale
        norms = [g.double().norm(norm_type) for g in grads]
        total_norm = stack(norms).norm(norm_type)
        total = total_norm.item()
        if error_if_nonfinite and not math.isfinite(total):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                               "`parameters` is non-finite, so it cannot be clipped. To disable "
                               "this error and scale the gradients by the non-finite norm anyway, "
                               "set `error_if_nonfinite=False`")
        coef = max_norm / (total + 1e-6)
        if coef < 1.0:
            for g in grads:
                g.mul_(coef)
        return total_norm.to(grads[0].dtype)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element into [-clip_value, clip_value], in place.

    >>> import numgrad as ng
    >>> w = ng.tensor([3.0, 4.0], requires_grad=True)
    >>> (w * w).sum().backward()
    >>> ng.nn.utils.clip_grad_value_([w], 7.0)
    >>> w.grad
    tensor([6., 7.])
    """
    clip_value = float(clip_value)
    with grad_mode.no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)
