"""Stochastic weight averaging (Izmailov et al., 2018) and exponential moving averages of a
model, as torch.optim.swa_utils: AveragedModel, SWALR, update_bn and the averaging functions.

>>> import numgrad as ng
>>> from numgrad.optim.swa_utils import AveragedModel
>>> model = ng.nn.Linear(2, 1)
>>> swa = AveragedModel(model)
>>> swa.update_parameters(model)
>>> int(swa.n_averaged)
1
"""
import copy
import itertools
import math

from .. import creation, dtypes, grad_mode
from ..nn.module import Module
from ..nn.normalization import _BatchNorm
from .lr_scheduler import LRScheduler, format_param


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] "
                         "range.")


def get_ema_avg_fn(decay=0.999):
    """averaged <- decay * averaged + (1 - decay) * current."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """averaged <- the running mean of the models seen:
    averaged + (current - averaged) / (n + 1)."""
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def get_ema_multi_avg_fn(decay=0.999):
    """ema_update over lists of parameters of one dtype, in place: averaged.lerp_(current,
    1 - decay), or for integers (buffers such as counters) decay * averaged + (1 - decay) *
    current, truncated."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        for ema, current in zip(ema_param_list, current_param_list):
            if ema.is_floating_point():
                ema.lerp_(current, 1 - decay)
            else:
                ema.copy_(ema * decay + current * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """swa_update over lists of parameters of one dtype, in place: averaged.lerp_(current,
    1 / (n + 1)), or for integers averaged + (current - averaged) / (n + 1), truncated."""
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        for averaged, current in zip(averaged_param_list, current_param_list):
            if averaged.is_floating_point():
                averaged.lerp_(current, 1 / (float(num_averaged) + 1))
            else:
                averaged.copy_(averaged + (current - averaged) / (num_averaged + 1))
    return swa_update


class AveragedModel(Module):
    """A deep copy of model whose parameters (and buffers, with use_buffers) are an average of
    the models given to update_parameters: their running mean by default, or what avg_fn
    (one parameter at a time) or multi_avg_fn (all at once, in place) computes. Calling it
    calls the averaged copy."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", creation.tensor(0, dtype=dtypes.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        """Average model's parameters into this one's (the first call copies them)."""
        if self.use_buffers:
            averaged = list(itertools.chain(self.module.parameters(), self.module.buffers()))
            current = list(itertools.chain(model.parameters(), model.buffers()))
        else:
            averaged, current = list(self.parameters()), list(model.parameters())
        averaged = [p.detach() for p in averaged]
        current = [p.detach().to(a.device) for p, a in zip(current, averaged)]
        with grad_mode.no_grad():
            if int(self.n_averaged) == 0:
                for a, c in zip(averaged, current):
                    a.copy_(c)
            elif self.avg_fn is not None and self.multi_avg_fn is None:
                for a, c in zip(averaged, current):
                    a.copy_(self.avg_fn(a, c, self.n_averaged.to(a.device)))
            else:
                # as torch: one call per (device, dtype) group; without multi_avg_fn, the
                # running mean is the foreach lerp on the GPU and get_swa_avg_fn's division on
                # the CPU
                groups = {}
                for a, c in zip(averaged, current):
                    groups.setdefault((a.device.type, a.device.index, a.dtype), []).append((a, c))
                for pairs in groups.values():
                    n_averaged = self.n_averaged.to(pairs[0][0].device)
                    if self.multi_avg_fn is not None or pairs[0][0].is_cuda:
                        multi_avg_fn = self.multi_avg_fn or get_swa_multi_avg_fn()
                        multi_avg_fn([a for a, _ in pairs], [c for _, c in pairs], n_averaged)
                    else:
                        for a, c in pairs:
                            a.copy_(get_swa_avg_fn()(a, c, n_averaged))
            if not self.use_buffers:
                # buffers are not averaged: they follow the source model
                for own, source in zip(self.module.buffers(), model.buffers()):
                    own.detach().copy_(source.detach().to(own.device))
            self.n_averaged.add_(1)


def update_bn(loader, model, device=None):
    """Recompute the running statistics of model's batch norm layers in one pass over loader
    (an average over all its batches), as the averaged weights need their own statistics."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None              # a cumulative average over the batches
    with grad_mode.no_grad():
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to swa_lr over anneal_epochs steps (cosine or linear),
    then hold it there."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        for lr, group in zip(format_param("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def _set_anneal_func(self, anneal_strategy):
        # the state keeps the strategy's name, as torch's does, so that it holds no function
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        # torch's rule: recover the pre-annealing lr from the current one, then anneal it
        self._warn_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        groups = self.optimizer.param_groups
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(float(group["lr"]), group["swa_lr"], prev_alpha)
                    for group in groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(groups, prev_lrs)]
