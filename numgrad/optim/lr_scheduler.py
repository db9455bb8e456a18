"""Learning-rate schedules: StepLR, ExponentialLR, CosineAnnealingLR, OneCycleLR, LambdaLR.

Each step() sets every group's "lr" for the next epoch (or batch, for OneCycleLR), with torch's
formulas, recursive where torch's are, so the values agree with torch's.

>>> import numgrad as ng
>>> opt = ng.optim.SGD([ng.nn.Parameter(ng.ones(1))], lr=1.0)
>>> sched = ng.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
>>> lrs = []
>>> for _ in range(5):
...     opt.step()
...     sched.step()
...     lrs.append(sched.get_last_lr()[0])
>>> lrs
[1.0, 0.5, 0.5, 0.25, 0.25]
"""
import math


class LRScheduler:
    """Base class: remembers each group's initial_lr and sets group["lr"] on every step()."""

    def __init__(self, optimizer, last_epoch=-1):
        self.optimizer = optimizer
        for i, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", group["lr"])
            elif "initial_lr" not in group:
                raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when "
                               "resuming an optimizer")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self.step()

    def get_lr(self):
        raise NotImplementedError

    def step(self):
        self._step_count += 1
        self.last_epoch += 1
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def get_last_lr(self):
        """The learning rates the last step() set, one per group."""
        return self._last_lr

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def _lrs(self):
        return [group["lr"] for group in self.optimizer.param_groups]


class LambdaLR(LRScheduler):
    """lr = initial_lr * lr_lambda(epoch)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        groups = len(optimizer.param_groups)
        self.lr_lambdas = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) \
            else [lr_lambda] * groups
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * f(self.last_epoch) for base, f in zip(self.base_lrs, self.lr_lambdas)]

    def state_dict(self):
        # functions are not state
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}


class StepLR(LRScheduler):
    """Multiply the rate by gamma every step_size epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._lrs()
        return [lr * self.gamma for lr in self._lrs()]


class ExponentialLR(LRScheduler):
    """Multiply the rate by gamma every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return self._lrs()
        return [lr * self.gamma for lr in self._lrs()]


class CosineAnnealingLR(LRScheduler):
    """eta_min + (initial_lr - eta_min) (1 + cos(pi epoch / T_max)) / 2, by torch's recursion
    (which also continues past T_max, rising again)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        t, T, low = self.last_epoch, self.T_max, self.eta_min
        if t == 0:
            return self._lrs()
        if self._step_count == 1 and t > 0:
            return [low + (base - low) * (1 + math.cos(t * math.pi / T)) / 2
                    for base in self.base_lrs]
        if (t - 1 - T) % (2 * T) == 0:
            return [lr + (base - low) * (1 - math.cos(math.pi / T)) / 2
                    for lr, base in zip(self._lrs(), self.base_lrs)]
        return [(1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
                * (lr - low) + low for lr in self._lrs()]


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith): warm up from max_lr / div_factor to max_lr over pct_start of
    the steps, then anneal to initial_lr / final_div_factor; momentum (or Adam's beta1) cycles
    the other way. Step it after every batch."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError("You must define either total_steps OR (epochs AND "
                                 "steps_per_epoch)")
            total_steps = epochs * steps_per_epoch
        if total_steps <= 0:
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        if not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self.total_steps = total_steps
        self.anneal_strategy = anneal_strategy
        up = float(pct_start * total_steps) - 1
        if three_phase:
            self._phases = [(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                            (float(2 * pct_start * total_steps) - 2, "max_lr", "initial_lr",
                             "base_momentum", "max_momentum"),
                            (total_steps - 1, "initial_lr", "min_lr", "max_momentum",
                             "max_momentum")]
        else:
            self._phases = [(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                            (total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        groups = optimizer.param_groups
        max_lrs = list(max_lr) if isinstance(max_lr, (list, tuple)) else [max_lr] * len(groups)
        if last_epoch == -1:
            for group, top in zip(groups, max_lrs):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                                 "option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            if last_epoch == -1:
                for group in groups:
                    self._set_momentum(group, max_momentum)
                    group["max_momentum"] = max_momentum
                    group["base_momentum"] = base_momentum
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group, value):
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def _anneal(self, start, end, pct):
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps is "
                             f"{self.total_steps}")
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, (end, lr0, lr1, m0, m1) in enumerate(self._phases):
                if step <= end or i == len(self._phases) - 1:
                    pct = (step - start) / (end - start)
                    lrs.append(self._anneal(group[lr0], group[lr1], pct))
                    if self.cycle_momentum:
                        self._set_momentum(group, self._anneal(group[m0], group[m1], pct))
                    break
                start = end
        return lrs
