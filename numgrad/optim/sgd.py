"""SGD with momentum, dampening, Nesterov momentum, weight decay and maximize."""
import numpy as np
from numba import njit

from ..ops.fmath import fma
from .optimizer import (Optimizer, check_flags, check_lr, count_writes, on_device_of, required,
                        state_zeros)


@njit(cache=True)
def sgd_update(param, grad, buf, lr, momentum, dampening, weight_decay, nesterov, maximize, first):
    """torch's rule, element by element: d = (-)g + wd p; b = d on the first step, else
    momentum b + (1 - dampening) d; p -= lr (d + momentum b if nesterov else b).

    Rounded as torch's tensor ops round, so that steps agree with torch's bit for bit: each
    scalar is cast to the parameter's dtype (then held in a float64, where its product with a
    float32 element is exact), each op's result is rounded to the dtype, and the ops torch's CPU
    kernels compute with a fused multiply-add (add_ with alpha, addcmul_, lerp_; not addcdiv_,
    which divides) are one fma, rounded once: float64 steps differed in the last bit of about
    one element in ten without it."""
    cast = param.dtype.type
    lr, momentum = np.float64(cast(lr)), np.float64(cast(momentum))
    weight_decay, keep = np.float64(cast(weight_decay)), np.float64(cast(1.0 - dampening))
    for i in range(param.size):
        d = -grad[i] if maximize else grad[i]
        if weight_decay != 0.0:
            d = cast(fma(weight_decay, param[i], d))
        if momentum != 0.0:
            b = d if first else cast(fma(keep, d, cast(momentum * buf[i])))
            buf[i] = b
            d = cast(fma(momentum, b, d)) if nesterov else b
        param[i] = cast(fma(-lr, d, param[i]))


class SGD(Optimizer):
    """Stochastic gradient descent, torch's update rule. foreach and fused are accepted and
    ignored.

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([1.0]))
    >>> opt = ng.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8000], requires_grad=True)
    """

    _loaded_group_defaults = {"nesterov": False, "maximize": False, "foreach": None,
                              "differentiable": False, "fused": False}

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        if lr is not required:
            check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        check_flags(differentiable, foreach, fused)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    def _update(self, param, grad, state, group, p):
        momentum = float(group["momentum"])
        buf = state.get("momentum_buffer")
        first = buf is None
        if momentum != 0.0 and first:
            buf = state["momentum_buffer"] = state_zeros(p)
        update = on_device_of(param, sgd_update)
        update(param, grad, param if buf is None else buf._data.reshape(-1), float(group["lr"]),
               momentum, float(group["dampening"]), float(group["weight_decay"]),
               bool(group["nesterov"]), bool(group["maximize"]), first)
        if buf is not None and not first:
            count_writes(state, momentum_buffer=2)   # torch's buf.mul_(momentum).add_(grad)
