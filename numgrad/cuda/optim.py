"""CUDA twins of numgrad.optim's update kernels, with their names and arguments: each launches the
CPU loop's body once per element, on flat device arrays. An optimizer picks the twin when its
parameter's data is a device array (tests/test_cuda_optim.py checks they agree)."""
import math

from numba import cuda

from .basic import grid_1d
from ..kernels.cuda import first_thread, thread_step


@cuda.jit(cache=True)
def _sgd(param, grad, buf, lr, momentum, dampening, weight_decay, nesterov, maximize, first):
    for i in range(first_thread(), param.size, thread_step()):
        d = -grad[i] if maximize else grad[i]
        if weight_decay != 0.0:
            d = d + weight_decay * param[i]
        if momentum != 0.0:
            b = d if first else momentum * buf[i] + (1.0 - dampening) * d
            buf[i] = b
            d = d + momentum * b if nesterov else b
        param[i] -= lr * d


@cuda.jit(cache=True)
def _adam(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, shrink, beta1, beta2, eps,
          weight_decay, decoupled, amsgrad, maximize, step_size, bias2_sqrt):
    for i in range(first_thread(), param.size, thread_step()):
        g = -grad[i] if maximize else grad[i]
        if weight_decay != 0.0:
            if decoupled:
                param[i] *= shrink
            else:
                g = g + weight_decay * param[i]
        m = exp_avg[i] + (1.0 - beta1) * (g - exp_avg[i])
        v = beta2 * exp_avg_sq[i] + (1.0 - beta2) * g * g
        exp_avg[i] = m
        exp_avg_sq[i] = v
        if amsgrad:
            v = max(max_exp_avg_sq[i], v)
            max_exp_avg_sq[i] = v
        param[i] -= step_size * m / (math.sqrt(v) / bias2_sqrt + eps)


@cuda.jit(cache=True)
def _adagrad(param, grad, state_sum, clr, eps, weight_decay, maximize):
    for i in range(first_thread(), param.size, thread_step()):
        g = -grad[i] if maximize else grad[i]
        if weight_decay != 0.0:
            g = g + weight_decay * param[i]
        s = state_sum[i] + g * g
        state_sum[i] = s
        param[i] -= clr * g / (math.sqrt(s) + eps)


@cuda.jit(cache=True)
def _rmsprop(param, grad, square_avg, grad_avg, buf, lr, alpha, eps, weight_decay, momentum,
             centered, maximize):
    for i in range(first_thread(), param.size, thread_step()):
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


def sgd_update(param, grad, buf, lr, momentum, dampening, weight_decay, nesterov, maximize, first):
    if param.size:
        _sgd[grid_1d(param.size)](param, grad, buf, lr, momentum, dampening, weight_decay,
                                  nesterov, maximize, first)


def adam_update(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step_size, bias2_sqrt, shrink,
                beta1, beta2, eps, weight_decay, decoupled, amsgrad, maximize):
    if param.size:
        _adam[grid_1d(param.size)](param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, shrink,
                                   beta1, beta2, eps, weight_decay, decoupled, amsgrad, maximize,
                                   step_size, bias2_sqrt)


def adagrad_update(param, grad, state_sum, clr, eps, weight_decay, maximize):
    if param.size:
        _adagrad[grid_1d(param.size)](param, grad, state_sum, clr, eps, weight_decay, maximize)


def rmsprop_update(param, grad, square_avg, grad_avg, buf, lr, alpha, eps, weight_decay, momentum,
                   centered, maximize):
    if param.size:
        _rmsprop[grid_1d(param.size)](param, grad, square_avg, grad_avg, buf, lr, alpha, eps,
                                      weight_decay, momentum, centered, maximize)
