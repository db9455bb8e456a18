"""Adagrad with learning-rate decay."""
import math

import numpy as np
from numba import njit

from ..ops.fmath import fma
from ..tensor import Tensor
from .optimizer import (Optimizer, check_flags, check_lr, count_writes, next_step, on_device_of,
                        scalar_state)


@njit(cache=True)
def adagrad_update(param, grad, state_sum, clr, eps, weight_decay, maximize):
    """torch's Adagrad, element by element: sum += g^2; p -= clr g / (sqrt(sum) + eps); rounded
    as torch's tensor ops round (see sgd_update)."""
    cast = param.dtype.type
    neg_clr, eps, weight_decay = np.float64(cast(-clr)), np.float64(cast(eps)), \
        np.float64(cast(weight_decay))
    for i in range(param.size):
        g = -grad[i] if maximize else grad[i]
        if weight_decay != 0.0:
            g = cast(fma(weight_decay, param[i], g))
        s = cast(fma(np.float64(g), g, state_sum[i]))     # addcmul_
        state_sum[i] = s
        param[i] = cast(param[i] + cast(cast(neg_clr * g) / cast(cast(math.sqrt(s)) + eps)))


class Adagrad(Optimizer):
    """Adagrad (Duchi et al.), torch's update rule; the rate decays as lr / (1 + (step-1) lr_decay).
    foreach and fused are accepted and ignored.

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([1.0]))
    >>> opt = ng.optim.Adagrad([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9000], requires_grad=True)
    """

    _loaded_group_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                              "fused": None}

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_lr(lr)
        if lr_decay < 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if initial_accumulator_value < 0.0:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        check_flags(differentiable, foreach, fused)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        # torch creates the state up front, the accumulators filled with initial_accumulator_value
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["step"] = scalar_state(0.0)
                self.state[p]["sum"] = Tensor._make(np.full_like(
                    p._data, group["initial_accumulator_value"], order="C"), False)

    def _update(self, param, grad, state, group, p):
        if not state:
            # a parameter of a group added later: torch starts its sum lazily, from the
            # constructor's initial_accumulator_value (not the group's)
            state["step"] = scalar_state(0.0)
            state["sum"] = Tensor._make(np.full_like(
                p._data, self.defaults["initial_accumulator_value"], order="C"), False)
        step = next_step(state)
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        update = on_device_of(param, adagrad_update)
        update(param, grad, state["sum"]._data.reshape(-1), float(clr), float(group["eps"]),
               float(group["weight_decay"]), bool(group["maximize"]))
        count_writes(state, sum=1)      # torch's state_sum.addcmul_
