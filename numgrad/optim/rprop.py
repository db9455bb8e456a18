"""Rprop: per-element step sizes that grow while the gradient keeps its sign and shrink when it
flips; only the gradient's sign moves the parameters."""
from .. import full_like, where, zeros_like
from .optimizer import Optimizer, check_flags, check_lr, plain, scalar_state


class Rprop(Optimizer):
    """Resilient backpropagation (Riedmiller & Braun), torch's update rule, written with tensor
    ops so it runs on the CPU and the GPU. foreach and capturable are accepted (see
    check_flags).

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([1.0]))
    >>> opt = ng.optim.Rprop([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9000], requires_grad=True)
    """

    _loaded_group_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                              "capturable": False}

    _capturable_on_xla = (True, True)

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        check_flags(differentiable)
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _step_parameter(self, p, state, group):
        param, grad = plain(p)
        if not state:
            state["step"] = scalar_state(0.0)
            state["prev"] = zeros_like(param)
            state["step_size"] = full_like(grad, float(group["lr"]))
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        prev, step_size = state["prev"], state["step_size"]
        if group["maximize"]:
            grad = -grad
        state["step"].add_(1)
        sign = grad.mul(prev).sign()
        # the factor each step size changes by: etaplus where the gradient kept its sign,
        # etaminus where it flipped, 1 where either was zero
        factor = where(sign > 0, etaplus, where(sign < 0, etaminus, full_like(sign, 1.0)))
        step_size.mul_(factor).clamp_(step_size_min, step_size_max)
        # after a sign flip the element rests: no move now, and no flip seen at the next step
        grad = where(factor == etaminus, 0.0, grad)
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
        return param._version   # its in-place writes, which step counts on p
