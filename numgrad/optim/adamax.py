"""Adamax: Adam with an exponentially weighted infinity norm in place of the second moment."""
from .. import maximum, zeros_like
from .optimizer import (Optimizer, check_betas, check_flags, check_lr, hyper, plain,
                        scalar_state)


class Adamax(Optimizer):
    """Adamax (Kingma & Ba, section 7), torch's update rule, written with tensor ops so it runs on
    the CPU and the GPU. foreach and capturable are accepted and ignored.

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([1.0]))
    >>> opt = ng.optim.Adamax([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9000], requires_grad=True)
    """

    _loaded_group_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                              "capturable": False}

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_betas(eps, betas, weight_decay)
        check_flags(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _step_parameter(self, p, state, group):
        param, grad = plain(p)
        if not state:
            state["step"] = scalar_state(0.0)
            state["exp_avg"] = zeros_like(param)
            state["exp_inf"] = zeros_like(param)
        beta1, beta2 = group["betas"]
        lr, weight_decay = hyper(group["lr"]), group["weight_decay"]   # (a tensor rounds)
        exp_avg, exp_inf, step_t = state["exp_avg"], state["exp_inf"], state["step"]
        if group["maximize"]:
            grad = -grad
        step_t.add_(1)
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_inf.copy_(maximum(exp_inf.mul_(beta2), grad.abs().add_(group["eps"])))
        # torch's multi-tensor rule reads a tensor lr's value here, its single-tensor one
        # divides the tensor
        clr = (float(lr) if group["foreach"] else lr) / (1 - beta1 ** step_t.item())
        param.addcdiv_(exp_avg, exp_inf, value=-clr)
        return param._version   # its in-place writes, which step counts on p
