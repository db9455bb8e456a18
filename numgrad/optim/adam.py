"""Adam and AdamW (decoupled weight decay), with amsgrad and maximize."""
import math

import numpy as np
from numba import njit

from ..ops.fmath import fma
from ..tensor import Tensor
from .optimizer import (Optimizer, check_flags, check_lerp_dtype, check_lr, count_writes, hyper,
                        next_step, on_device_of, scalar_div, scalar_pow, state_zeros)


@njit(cache=True)
def adam_update(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step_size, bias2_sqrt, shrink,
                beta1, beta2, eps, weight_decay, decoupled, amsgrad, maximize):
    """torch's Adam, element by element; decoupled weight decay (AdamW) shrinks p first (by
    shrink, 1 - lr * weight_decay). The step's scalars (step_size = lr / (1 - beta1 ** step),
    bias2_sqrt = sqrt(1 - beta2 ** step)) come computed as torch computes them (adam_scalars).

    Rounded as torch's tensor ops round (see sgd_update): scalars cast to the parameter's dtype,
    each op's result rounded, lerp_ and addcmul_'s product-and-add fused, addcdiv_ not. The
    square root is IEEE's, correctly rounded; torch's vectorized float32 sqrt is at times an ulp
    off, so float32 steps can differ from torch's by an ulp or two (float64 ones agree)."""
    cast = param.dtype.type
    shrink = np.float64(cast(shrink))
    weight_decay = np.float64(cast(weight_decay))
    keep1 = np.float64(cast(1.0 - beta1))       # lerp_'s weight
    rest1 = np.float64(cast(1.0 - cast(keep1)))  # 1 - weight, as lerp_ takes it above one half
    beta2_, keep2 = np.float64(cast(beta2)), np.float64(cast(1.0 - beta2))
    bias2_sqrt, eps = np.float64(cast(bias2_sqrt)), np.float64(cast(eps))
    neg_step = np.float64(cast(-step_size))
    for i in range(param.size):
        g = -grad[i] if maximize else grad[i]
        if weight_decay != 0.0:
            if decoupled:
                param[i] = cast(param[i] * shrink)
            else:
                g = cast(fma(weight_decay, param[i], g))
        diff = cast(g - exp_avg[i])
        m = cast(fma(keep1, diff, exp_avg[i])) if keep1 < 0.5 else cast(fma(-rest1, diff, g))
        v = cast(beta2_ * exp_avg_sq[i])
        v = cast(fma(np.float64(cast(keep2 * g)), g, v))
        exp_avg[i] = m
        exp_avg_sq[i] = v
        if amsgrad:
            v = max(max_exp_avg_sq[i], v)
            max_exp_avg_sq[i] = v
        denom = cast(cast(cast(math.sqrt(v)) / bias2_sqrt) + eps)
        param[i] = cast(param[i] + cast(cast(neg_step * m) / denom))


def adam_scalars(lr, beta1, beta2, weight_decay, step):
    """(step_size, bias2_sqrt, shrink) of a step, as torch's single-tensor Adam computes them:
    in Python floats, or in the dtype of a tensor lr or betas (see hyper)."""
    step_size = scalar_div(lr, 1 - scalar_pow(beta1, step))
    bias2_sqrt = np.sqrt(1 - scalar_pow(beta2, step))
    return float(step_size), float(bias2_sqrt), float(1 - lr * weight_decay)


def _check(lr, betas, eps, weight_decay, foreach, capturable):
    """torch's checks of Adam's options, in its order. torch's multi-tensor (foreach) Adam
    takes no tensor lr or betas unless capturable, and betas must be two floats (an int is
    refused) or two tensors."""
    if isinstance(lr, Tensor) and foreach and not capturable:
        raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
    check_lr(lr)
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
    if not (all(isinstance(b, float) for b in betas) or all(isinstance(b, Tensor) for b in betas)):
        raise ValueError("betas must be either both floats or both Tensors")
    for i, beta in enumerate(betas):
        if isinstance(beta, Tensor):
            if foreach and not capturable:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False "
                                 "and foreach=True")
            if beta.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")


class Adam(Optimizer):
    """Adam (Kingma & Ba), torch's update rule; weight_decay is an L2 term added to the gradient,
    or with decoupled_weight_decay=True shrinks the weights as AdamW does. foreach, fused and
    capturable are accepted (see check_flags).

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([1.0]))
    >>> opt = ng.optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9000], requires_grad=True)
    """

    _loaded_group_defaults = {"amsgrad": False, "maximize": False, "foreach": None,
                              "capturable": False, "differentiable": False,
                              "decoupled_weight_decay": False, "fused": None}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check(lr, betas, eps, weight_decay, foreach, capturable)
        check_flags(differentiable, foreach, fused)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _update(self, param, grad, state, group, p):
        fresh = not state
        step = next_step(state)   # first, so that the state's keys come in torch's order
        if fresh:
            state["exp_avg"] = state_zeros(p)
            state["exp_avg_sq"] = state_zeros(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = state_zeros(p)
        exp_avg = state["exp_avg"]._data.reshape(-1)
        check_lerp_dtype(exp_avg, grad)
        exp_avg_sq = state["exp_avg_sq"]._data.reshape(-1)
        amsgrad = bool(group["amsgrad"])
        most = state["max_exp_avg_sq"]._data.reshape(-1) if amsgrad else exp_avg_sq
        lr, (beta1, beta2) = hyper(group["lr"]), map(hyper, group["betas"])
        weight_decay = float(group["weight_decay"])
        update = on_device_of(param, adam_update)
        update(param, grad, exp_avg, exp_avg_sq, most,
               *adam_scalars(lr, beta1, beta2, weight_decay, step), float(beta1), float(beta2),
               float(group["eps"]), weight_decay, bool(group["decoupled_weight_decay"]),
               amsgrad, bool(group["maximize"]))
        count_writes(state, exp_avg=1, exp_avg_sq=2, max_exp_avg_sq=1 if amsgrad else 0)

    def _param_writes(self, group):
        # torch's decoupled weight decay is a param.mul_ before the param.addcdiv_
        return 2 if group["weight_decay"] != 0 and group["decoupled_weight_decay"] else 1


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): p *= 1 - lr * weight_decay before
    the Adam step. The default weight_decay is 0.01, as in torch.

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([1.0]))
    >>> opt = ng.optim.AdamW([w], lr=0.1, weight_decay=0.5)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8500], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)

    def _fill_loaded_group(self, group):
        # torch's AdamW.__setstate__ makes every loaded group decoupled, whatever it was saved as
        super()._fill_loaded_group(group)
        group["decoupled_weight_decay"] = True
