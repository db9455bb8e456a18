"""NAdam: Adam with Nesterov momentum, its momentum decaying on the schedule of Dozat's paper."""
from .. import zeros_like
from .optimizer import (Optimizer, check_betas, check_flags, check_lr, hyper, plain,
                        scalar_state)


class NAdam(Optimizer):
    """NAdam (Dozat), torch's update rule, written with tensor ops so it runs on the CPU and the
    GPU; decoupled_weight_decay=True gives NAdamW. foreach=True takes torch's multi-tensor
    formula, which rounds otherwise; capturable is accepted and ignored.

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([1.0]))
    >>> opt = ng.optim.NAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.8944], requires_grad=True)
    """

    _loaded_group_defaults = {"maximize": False, "foreach": None, "capturable": False,
                              "differentiable": False, "decoupled_weight_decay": False}

    _capturable_checked = ("params, mu_products and state_steps",
                           "params, mu_products, and state_steps")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        check_lr(lr)
        check_betas(eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        check_flags(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _step_parameter(self, p, state, group):
        param, grad = plain(p)
        if not state:
            state["step"] = scalar_state(0.0)
            state["mu_product"] = scalar_state(1.0)
            state["exp_avg"] = zeros_like(param)
            state["exp_avg_sq"] = zeros_like(param)
        beta1, beta2 = group["betas"]
        lr, weight_decay = hyper(group["lr"]), group["weight_decay"]   # (a tensor rounds)
        momentum_decay, eps = group["momentum_decay"], group["eps"]
        exp_avg, exp_avg_sq, mu_product = state["exp_avg"], state["exp_avg_sq"], state["mu_product"]
        if group["maximize"]:
            grad = -grad
        step = state["step"].add_(1).item()
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        # mu_product is a float32 tensor in torch: its rounding reaches the update
        mu_product.mul_(mu)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        if group["foreach"]:
            # torch's multi-tensor rule divides the square root by the correction's, and reads
            # a tensor lr's value
            denom = exp_avg_sq.sqrt().div_(bias_correction2 ** 0.5)
            lr = float(lr)
        else:
            denom = exp_avg_sq.div(bias_correction2).sqrt()
        mu_product_next = mu_product.item() * mu_next
        denom.add_(eps)
        param.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - mu_product.item())))
        param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
        return param._version   # its in-place writes, which step counts on p
