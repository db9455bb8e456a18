"""Gradient clipping: scale or clamp the .grad of parameters in place."""
import functools
import math
import types
import warnings

import numpy as np

from ... import dtypes, grad_mode
from ...ops import stack
from ...tensor import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p._grad for p in parameters if p._grad is not None]


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of tensors (the norm of all their elements as one vector), in their
    promoted dtype: float32 and float64 gradients give a float64 norm, as torch's. foreach is
    accepted for torch's signature: there is one way here.

    >>> import numgrad as ng
    >>> ng.nn.utils.get_total_norm([ng.tensor([3.0]), ng.tensor([4.0])])
    tensor(5.)
    """
    norm_type = float(norm_type)     # first, as torch: a bad norm_type fails without tensors too
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    if not tensors:
        return Tensor._make(np.array(0.0, dtypes.get_default_dtype()), False)
    with grad_mode.no_grad():
        # numgrad ops, so the norms are taken where the tensors live (CPU or GPU). As torch: each
        # tensor's norm rounded to its dtype (torch's CPU reductions accumulate float32 in
        # float64), then the norm of those norms stacked, so in their promoted dtype
        norms = [t.double().norm(norm_type).to(t.dtype).double() for t in tensors]
        total_norm = stack(norms).norm(norm_type)
        if error_if_nonfinite and not math.isfinite(total_norm.item()):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                               "`parameters` is non-finite, so it cannot be clipped. To disable "
                               "this error and scale the gradients by the non-finite norm anyway, "
                               "set `error_if_nonfinite=False`")
        return total_norm.to(functools.reduce(dtypes.promote, [t.dtype for t in tensors]))


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by max_norm / (total_norm + 1e-6) when that is below 1 (torch's
    rule); total_norm is given, from get_total_norm say.

    >>> import numgrad as ng
    >>> w = ng.tensor([3.0, 4.0], requires_grad=True)
    >>> w.grad = ng.tensor([3.0, 4.0])
    >>> ng.nn.utils.clip_grads_with_norm_([w], 1.0, ng.tensor(5.0))
    >>> w.grad
    tensor([0.6000, 0.8000])
    """
    grads = _grads(parameters)
    if not grads:
        return
    if not isinstance(total_norm, Tensor):
        total_norm = Tensor._make(np.array(float(total_norm)), False).to(grads[0].dtype)
    with grad_mode.no_grad():
        # torch's arithmetic in the norm's dtype (max_norm / t is reciprocal(t) * max_norm
        # there): in float32 its rounding reaches the gradients
        coef = total_norm.detach().add(1e-6).reciprocal().mul(float(max_norm))
        # as torch, every gradient is scaled, by 1 when the norm is within max_norm (so each
        # one's version moves on), and by NaN for a NaN norm (clamp lets NaN through)
        coef = coef.clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(device=g.device))


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
    if isinstance(parameters, types.GeneratorType):
        parameters = list(parameters)       # read twice below
        if not parameters:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                          stacklevel=2)
    elif not isinstance(parameters, Tensor):
        parameters = list(parameters)
    total_norm = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated name of clip_grad_norm_ (torch warns the same)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


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
    grads = _grads(parameters)
    if not grads:
        # torch groups the gradients by device and dtype first, and its grouping refuses an
        # empty list, in these words
        raise RuntimeError("Expected !nested_tensorlist[0].empty() to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    with grad_mode.no_grad():
        for g in grads:
            # torch's two foreach ops on CPU too: each gradient's version moves by two
            g.clamp_min_(-clip_value).clamp_max_(clip_value)
