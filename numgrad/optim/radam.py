"""RAdam: Adam whose adaptive rate is switched on, and rectified, once its variance is tractable."""
from .. import zeros_like
from .optimizer import (Optimizer, check_betas, check_flags, check_lr, hyper, plain,
                        scalar_state)


class RAdam(Optimizer):
    """RAdam (Liu et al.), torch's update rule, written with tensor ops so it runs on the CPU and
    the GPU; decoupled_weight_decay=True decays the weights as AdamW does. foreach=True takes
    torch's multi-tensor formula, which rounds otherwise; capturable is accepted and ignored.

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([1.0]))
    >>> opt = ng.optim.RAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8000], requires_grad=True)
    """

    _loaded_group_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                              "decoupled_weight_decay": False, "capturable": False}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_lr(lr)
        check_betas(eps, betas, weight_decay)
        check_flags(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _step_parameter(self, p, state, group):
        param, grad = plain(p)
        if not state:
            state["step"] = scalar_state(0.0)
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
        beta1, beta2 = group["betas"]
        lr, weight_decay = hyper(group["lr"]), group["weight_decay"]   # (a tensor rounds)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        if group["maximize"]:
            grad = -grad
        step = state["step"].add_(1).item()
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        # the length of the approximated simple moving average, and its limit
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5 if rho_t > 5.0 else 0
        if group["foreach"]:
            _multi_tensor_update(param, exp_avg, exp_avg_sq, lr, rect, bias_correction1,
                                 bias_correction2, group["eps"])
            return param._version
        bias_corrected_exp_avg = exp_avg / bias_correction1
        if rect:
            adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(group["eps"])
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
        return param._version   # its in-place writes, which step counts on p


def _multi_tensor_update(param, exp_avg, exp_avg_sq, lr, rect, bias_correction1,
                         bias_correction2, eps):
    """torch's multi-tensor (foreach) RAdam update, which rounds otherwise than its single-tensor
    one: param += exp_avg * (1 / ((sqrt(v) + eps) / -(sqrt(bc2) lr rect / bc1)) - lr unrect / bc1)
    in one addcmul_. Before the rate is rectified (rect 0) the division by -0.0 makes the first
    term -0.0, leaving -lr / bc1."""
    unrect_step_size = (lr * (0 if rect > 0 else 1.0) / bias_correction1) * -1
    rect_step_size = (bias_correction2 ** 0.5) * (lr * rect / bias_correction1) * -1
    buffer = exp_avg_sq.sqrt().add_(eps).div_(rect_step_size).reciprocal_()
    param.addcmul_(exp_avg, buffer.add_(unrect_step_size))
