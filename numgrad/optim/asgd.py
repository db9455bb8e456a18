"""ASGD: SGD whose rate decays as steps go on, keeping a running average of the parameters."""
import numpy as np

from .. import zeros_like
from .optimizer import (Optimizer, check_flags, check_lr, hyper, plain, scalar_div, scalar_pow,
                        scalar_state)


class ASGD(Optimizer):
    """Averaged SGD (Polyak & Juditsky), torch's update rule, written with tensor ops so it runs
    on the CPU and the GPU. The average lives in state["ax"]; it starts averaging after t0 steps.
    foreach and capturable are accepted (see check_flags).

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([1.0]))
    >>> opt = ng.optim.ASGD([w], lr=0.1, lambd=0.0)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8000], requires_grad=True)
    """

    _loaded_group_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                              "capturable": False}

    _capturable_checked = ("params, mus, etas, and state_steps",) * 2

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        check_flags(differentiable)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _step_parameter(self, p, state, group):
        param, grad = plain(p)
        if not state:
            state["step"] = scalar_state(0.0)
            # eta and mu are float32 tensors in torch, read back with .item(): their rounding
            # is part of the update
            state["eta"] = scalar_state(float(group["lr"]))
            state["mu"] = scalar_state(1.0)
            state["ax"] = zeros_like(param)
        # a tensor lr rounds the new eta in its dtype, as torch's 0-d tensor ops
        lr, lambd, alpha, t0 = hyper(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        weight_decay = group["weight_decay"]
        eta, mu, ax = state["eta"], state["mu"], state["ax"]
        if group["maximize"]:
            grad = -grad
        step_tensor = state["step"].add_(1)
        step = step_tensor.item()
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        if group["foreach"]:
            # torch's multi-tensor rule: one addcmul_ of grad + lambd * param, eta read as a
            # tensor, ax moved by an addcmul_ even when mu is 1; its new eta is computed on the
            # step tensor, in its dtype
            param.addcmul_(grad.add(param, alpha=lambd), eta, value=-1)
            ax.addcmul_(param.sub(ax), mu)
            step = np.asarray(step_tensor._data)[()]
        else:
            eta_value = eta.item()
            param.mul_(1 - lambd * eta_value)
            param.add_(grad, alpha=-eta_value)
            mu_value = mu.item()
            if mu_value != 1:
                ax.add_(param.sub(ax).mul_(mu_value))
            else:
                ax.copy_(param)
        # through a tensor in torch's scalar dtype, as torch.as_tensor rounds them
        eta.copy_(scalar_state(scalar_div(lr, scalar_pow(1 + lambd * lr * step, alpha))))
        mu.copy_(scalar_state(1 / max(1, step - t0)))
        return param._version   # its in-place writes, which step counts on p
