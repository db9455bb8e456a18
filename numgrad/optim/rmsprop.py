"""RMSprop, optionally centred and with momentum."""
import math

import numpy as np
from numba import njit

from ..ops.fmath import fma
from .optimizer import (Optimizer, check_flags, check_lerp_dtype, check_lr, count_writes,
                        next_step, on_device_of, state_zeros)


@njit(cache=True)
def rmsprop_update(param, grad, square_avg, grad_avg, buf, lr, alpha, eps, weight_decay, momentum,
                   centered, maximize):
    """torch's RMSprop, element by element, rounded as torch's tensor ops round (see
    sgd_update): scalars cast to the parameter's dtype, each op's result rounded, add_ with
    alpha, lerp_ and addcmul_'s product-and-add fused, addcdiv_ not. As in adam_update, the
    correctly rounded square root can differ from torch's float32 one by an ulp."""
    cast = param.dtype.type
    alpha_, keep = np.float64(cast(alpha)), np.float64(cast(1.0 - alpha))
    rest = np.float64(cast(1.0 - cast(keep)))     # 1 - weight, as lerp_ takes it above one half
    weight_decay, eps = np.float64(cast(weight_decay)), np.float64(cast(eps))
    momentum_, neg_lr = np.float64(cast(momentum)), np.float64(cast(-lr))
    for i in range(param.size):
        g = -grad[i] if maximize else grad[i]
        if weight_decay != 0.0:
            g = cast(fma(weight_decay, param[i], g))
        sq = cast(alpha_ * square_avg[i])
        sq = cast(fma(np.float64(cast(keep * g)), g, sq))     # addcmul_
        square_avg[i] = sq
        if centered:
            diff = cast(g - grad_avg[i])
            mean = cast(fma(keep, diff, grad_avg[i])) if keep < 0.5 else cast(fma(-rest, diff, g))
            grad_avg[i] = mean
            sq = cast(fma(-np.float64(mean), mean, sq))     # addcmul(value=-1)
        avg = cast(cast(math.sqrt(sq)) + eps)
        if momentum > 0.0:
            b = cast(cast(momentum_ * buf[i]) + cast(g / avg))
            buf[i] = b
            param[i] = cast(fma(neg_lr, b, param[i]))
        else:
            param[i] = cast(param[i] + cast(cast(neg_lr * g) / avg))


class RMSprop(Optimizer):
    """RMSprop (Hinton), torch's update rule. foreach and capturable are accepted (see
    check_flags).

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([1.0]))
    >>> opt = ng.optim.RMSprop([w], lr=0.01)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9000], requires_grad=True)
    """

    _loaded_group_defaults = {"momentum": 0, "centered": False, "foreach": None, "maximize": False,
                              "differentiable": False, "capturable": False}

    _capturable_on_xla = (True, True)

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_lr(lr)
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if alpha < 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        check_flags(differentiable, foreach)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, param, grad, state, group, p):
        fresh = not state
        next_step(state)   # first, so that the state's keys come in torch's order
        if fresh:
            state["square_avg"] = state_zeros(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = state_zeros(p)
            if group["centered"]:
                state["grad_avg"] = state_zeros(p)
        square_avg = state["square_avg"]._data.reshape(-1)
        # unused buffers are passed as square_avg: the kernel never touches them
        grad_avg = state["grad_avg"]._data.reshape(-1) if "grad_avg" in state else square_avg
        if group["centered"]:
            check_lerp_dtype(grad_avg, grad)
        buf = state["momentum_buffer"]._data.reshape(-1) if "momentum_buffer" in state else square_avg
        update = on_device_of(param, rmsprop_update)
        update(param, grad, square_avg, grad_avg, buf, float(group["lr"]), float(group["alpha"]),
               float(group["eps"]), float(group["weight_decay"]), float(group["momentum"]),
               bool(group["centered"]), bool(group["maximize"]))
        # torch's square_avg.mul_().addcmul_(), grad_avg.lerp_(), buf.mul_().addcdiv_()
        count_writes(state, square_avg=2, grad_avg=1 if group["centered"] else 0,
                     momentum_buffer=2 if group["momentum"] > 0 else 0)
