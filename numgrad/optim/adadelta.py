"""Adadelta: steps scaled by the ratio of running RMS of past updates to that of gradients."""
from .. import zeros_like
from .optimizer import Optimizer, check_flags, check_lr, plain, scalar_state


class Adadelta(Optimizer):
    """Adadelta (Zeiler), torch's update rule, written with tensor ops so it runs on the CPU and
    the GPU. foreach and capturable are accepted and ignored.

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([1.0], dtype=ng.float64))
    >>> opt = ng.optim.Adadelta([w], lr=1.0, rho=0.0)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> round(w.item(), 6)
    0.999
    """

    _loaded_group_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                              "capturable": False}

    _capturable_on_xla = (False, False)

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        check_flags(differentiable)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _step_parameter(self, p, state, group):
        param, grad = plain(p)
        if not state:
            state["step"] = scalar_state(0.0)
            state["square_avg"] = zeros_like(param)
            state["acc_delta"] = zeros_like(param)
        rho, eps, weight_decay = group["rho"], group["eps"], group["weight_decay"]
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        state["step"].add_(1)
        if group["maximize"]:
            grad = -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-float(group["lr"]))
        return param._version   # its in-place writes, which step counts on p
