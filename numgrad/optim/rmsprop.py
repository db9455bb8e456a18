"""RMSprop, optionally centred and with momentum."""
import math

from numba import njit

from .optimizer import Optimizer, check_flags, check_lr, next_step, on_device_of, state_zeros


@njit(cache=True)
def rmsprop_update(param, grad, square_avg, grad_avg, buf, lr, alpha, eps, weight_decay, momentum,
                   centered, maximize):
    """torch's RMSprop, element by element."""
    for i in range(param.size):
        g = -grad[i] if maximize else grad[i]
        if weight_decay != 0.0:
            g = g + weight_decay * param[i]
        sq = alpha * square_avg[i] + (1.0 - alpha) * g * g
        square_avg[i] = sq
        if centered:
            mean = grad_avg[i] + (1.0 - alpha) * (g - grad_avg[i])
            grad_avg[i] = mean
            sq = sq - mean * mean
        avg = math.sqrt(sq) + eps
        if momentum > 0.0:
            b = momentum * buf[i] + g / avg
            buf[i] = b
            param[i] -= lr * b
        else:
            param[i] -= lr * g / avg


class RMSprop(Optimizer):
    """RMSprop (Hinton), torch's update rule. foreach and capturable are accepted and ignored.

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([1.0]))
    >>> opt = ng.optim.RMSprop([w], lr=0.01)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([0.9000], requires_grad=True)
    """

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
        buf = state["momentum_buffer"]._data.reshape(-1) if "momentum_buffer" in state else square_avg
        update = on_device_of(param, rmsprop_update)
        update(param, grad, square_avg, grad_avg, buf, float(group["lr"]), float(group["alpha"]),
               float(group["eps"]), float(group["weight_decay"]), float(group["momentum"]),
               bool(group["centered"]), bool(group["maximize"]))
