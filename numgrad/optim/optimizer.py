"""Optimizer: parameter groups, per-parameter state, zero_grad and state_dict; the update rules
live in one file each (sgd.py, adam.py, ...), compiled with Numba, with CUDA twins in
numgrad/cuda/optim.py for parameters on the GPU (state lives on its parameter's device)."""
import copy
import functools
import itertools
import warnings
from collections import OrderedDict, defaultdict

import numpy as np

from .. import dtypes, grad_mode
from ..hooks import RemovableHandle
from ..ops.untracked import to_host
from ..tensor import Tensor

_hook_ids = itertools.count()
# hooks around every optimizer's step (torch.optim.optimizer.register_optimizer_step_pre_hook):
# the pre hooks run before each optimizer's own, the post hooks after
_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """hook(optimizer, args, kwargs) runs before every optimizer's step; it may return
    (args, kwargs) to replace step's arguments."""
    return _register(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """hook(optimizer, args, kwargs) runs after every optimizer's step."""
    return _register(_global_optimizer_post_hooks, hook)


class _Required:
    def __repr__(self):
        return "<required parameter>"


required = _Required()


class Optimizer:
    """Base class: holds param_groups (dicts with "params" and hyperparameters) and state
    (a dict per parameter). Subclasses implement step().

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.ones(2))
    >>> opt = ng.optim.SGD([{"params": [w], "lr": 0.5}], lr=0.1)
    >>> opt.param_groups[0]["lr"], opt.defaults["lr"]
    (0.5, 0.1)
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        _hook_step_of(type(self))
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {_typename(params)}")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Add a group of parameters with its own hyperparameters (the defaults fill the rest).
        Its params may be (name, tensor) pairs, as model.named_parameters() gives: the names are
        kept in the group's "param_names"."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        group = dict(param_group)
        params = group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                            "the ordering of tensors in sets will change between runs. Please use a "
                            "list instead.")
        params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        group["params"] = [p[1] if isinstance(p, tuple) else p for p in params]
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            group["param_names"] = names
        for p in group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            group.setdefault(name, default)
        if len({id(p) for p in group["params"]}) != len(group["params"]):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        for other in self.param_groups:
            if ("param_names" in group) != ("param_names" in other):
                kind = "with names" if "param_names" in group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {kind} to the optimizer")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters: to None by default, else to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    # as torch (and Module.zero_grad): a gradient with history is cut from it,
                    # another (a view, say) keeps its place and only stops requiring grad
                    if p._grad.grad_fn is not None:
                        p._grad.detach_()
                    else:
                        p._grad.requires_grad_(False)
                    p._grad.zero_()

    def step(self, closure=None):
        """One update of every parameter with a gradient; closure re-evaluates the loss."""
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        with grad_mode.no_grad():
            for group in self.param_groups:
                if group.get("capturable"):
                    self._check_capturable(group)
                for p in group["params"]:
                    if p._grad is None:
                        continue
                    state = self.state[p]
                    _follow_parameter(state, p)
                    for _ in range(self._step_parameter(p, state, group)):
                        p._bump_version()
        return loss

    # torch's capturable update refuses host tensors in its own words: what it names and whether
    # its device list names xla, for its single-tensor and its foreach update (indexed by
    # foreach); subclasses whose torch update says otherwise set theirs
    _capturable_checked = ("params and state_steps", "params and state_steps")
    _capturable_on_xla = (True, False)

    def _check_capturable(self, group):
        """torch's capturable updates run on accelerators only: a group with a gradient on the
        host is refused before it is updated (the groups before it were), in the words of the
        class's update (single-tensor, or foreach's)."""
        if any(p._grad is not None and not p.is_cuda for p in group["params"]):
            foreach = bool(group.get("foreach"))
            devices = ["cuda", "xpu", "hpu", "privateuseone"]
            devices += ["xla"] if self._capturable_on_xla[foreach] else []
            raise AssertionError(f"If capturable=True, {self._capturable_checked[foreach]} must "
                                 f"be on supported devices: {devices}.")

    def _param_writes(self, group):
        """How many in-place ops torch's update makes on each parameter of group, for the
        kernels' rules."""
        return 1

    def _step_parameter(self, p, state, group):
        """Update p in place from its gradient; returns how many in-place ops torch's update
        makes on p (each bumps its version, which a later backward's error about a modified
        saved tensor reports). By default through _update's kernels on flat arrays. Rules
        written with tensor ops (which run on either device) override this, on plain(p)."""
        if p._data.flags.c_contiguous:
            self._update(p._data.reshape(-1), _flat(p._grad._data), state, group, p)
        else:
            # the kernels write through a flat view: they update a C-ordered copy, written back
            # into p's own memory, which its aliases (p.data, p.detach(), views) share, as in
            # torch
            data = np.ascontiguousarray(p._data)
            self._update(data.reshape(-1), _flat(p._grad._data), state, group, p)
            np.copyto(p._data, data)
        return self._param_writes(group)

    def _update(self, param, grad, state, group, p):
        """Update the flat parameter data in place from its flat gradient."""
        raise NotImplementedError

    # ---- hooks ----------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook):
        """hook(optimizer, args, kwargs) runs before each step; it may return (args, kwargs) to
        replace step's arguments."""
        return _register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """hook(optimizer, args, kwargs) runs after each step."""
        return _register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer) runs before state_dict() builds its dict."""
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) runs on state_dict()'s result; a returned dict replaces
        it."""
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """hook(optimizer, state_dict) runs before load_state_dict; a returned dict is loaded
        instead."""
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """hook(optimizer) runs after load_state_dict."""
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---- state ----------------------------------------------------------------------------------
    def state_dict(self):
        """{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}: parameters are
        numbered in group order, as torch does, so the dict holds no tensors of the model (state
        kept under another key, as load_state_dict keeps a saved id of no param, stays under it)."""
        for hook in list(self._optimizer_state_dict_pre_hooks.values()):
            hook(self)
        index, groups = {}, []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(p)] if isinstance(p, Tensor) else p): s for p, s in self.state.items()
                 if s and (id(p) in index or not isinstance(p, Tensor))}
        state_dict = {"state": state, "param_groups": groups}
        for hook in list(self._optimizer_state_dict_post_hooks.values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict):
        """Restore hyperparameters and state saved by state_dict, as torch does: each group
        becomes the saved group (options it lacks are filled by _fill_loaded_group, options only
        this optimizer had are dropped) with this optimizer's params; saved state is matched to
        the params by the saved ids in group order, and state under an id of no param is kept
        under that id. The state tensors are taken over, not copied: cast to a parameter's dtype
        and device only where they differ (the step counters never), so later steps update the
        tensors of `state_dict`."""
        state_dict = dict(state_dict)
        for hook in list(self._optimizer_load_state_dict_pre_hooks.values()):
            result = hook(self, state_dict)
            if result is not None:
                state_dict = result
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the "
                             "size of optimizer's group")
        by_id = dict(zip(itertools.chain.from_iterable(s["params"] for s in saved_groups),
                         itertools.chain.from_iterable(g["params"] for g in self.param_groups)))
        state = defaultdict(dict)
        for i, values in state_dict["state"].items():
            if i in by_id:
                options = next((s for s in state_dict["param_groups"] if i in s["params"]), {})
                scalar_step = not (options.get("capturable") or options.get("fused"))
                state[by_id[i]] = _cast_state(values, by_id[i], scalar_step)
            else:
                state[i] = values
        for group, saved in zip(self.param_groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            self._fill_loaded_group(saved)
        self.state = state
        self.param_groups = saved_groups
        for hook in list(self._optimizer_load_state_dict_post_hooks.values()):
            hook(self)

    # the options torch's __setstate__ of this optimizer fills into loaded groups that lack them
    # (checkpoints of older versions); the others stay missing, as in torch
    _loaded_group_defaults = {}

    def _fill_loaded_group(self, group):
        for key, value in self._loaded_group_defaults.items():
            group.setdefault(key, value)

    def __repr__(self):
        # torch's layout: a blank line between groups
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(k for k in group if k != "params"):
                text += f"    {key}: {group[key]}\n"
        return text + ")"


def _typename(obj):
    """torch.typename: a tensor's legacy type name (torch.FloatTensor, torch.cuda.LongTensor,
    ...), else the qualified name of obj's class."""
    if isinstance(obj, Tensor):
        kind = dtypes.LEGACY_TYPE_NAMES[obj.dtype]
        return f"torch.{'cuda.' if obj.is_cuda else ''}{kind}"
    cls = type(obj)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def _register(table, hook, prepend=False):
    key = next(_hook_ids)
    table[key] = hook
    if prepend:
        table.move_to_end(key, last=False)
    return RemovableHandle(table, key)


def _hook_step_of(cls):
    """Wrap cls.step (once per class, as torch patches it) so that the step hooks run around
    it: the concrete class's step, so that a step calling super().step() runs them once."""
    step = cls.step
    if getattr(step, "_hooked", False):
        return

    @functools.wraps(step)
    def hooked_step(*args, **kwargs):
        # as torch's wrapper, the hooks see the optimizer as args[0] and may replace it too
        self = args[0]
        pre_hooks = [*_global_optimizer_pre_hooks.values(), *self._optimizer_step_pre_hooks.values()]
        for hook in pre_hooks:
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
                args, kwargs = result
        out = step(*args, **kwargs)
        post_hooks = [*self._optimizer_step_post_hooks.values(),
                      *_global_optimizer_post_hooks.values()]
        for hook in post_hooks:
            hook(self, args, kwargs)
        return out

    hooked_step._hooked = True
    cls.step = hooked_step


def _cast_state(value, param, scalar_step=True, key=None):
    """A saved state value for param, as torch's load_state_dict takes it: a tensor as it is
    where it is on param's device and, param being floating, in its dtype (an integer tensor
    too), else a cast copy; the step counter as it is (in float32 on param's device for a
    capturable or fused group), and as the 0-d tensor torch's __setstate__ makes where it is a
    plain number (as checkpoints of torch before 1.12 hold it; NAdam's and ASGD's other scalars
    too); dicts, lists and tuples cast item by item. (The update kernels read state in C order:
    a tensor of another layout is copied.)"""
    if isinstance(value, dict):
        return {k: _cast_state(v, param, scalar_step, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(v, param, scalar_step) for v in value)
    if key in HOST_SCALARS and isinstance(value, (int, float)):
        return scalar_state(float(value))
    if not isinstance(value, Tensor):
        return value
    with grad_mode.no_grad():
        if key == "step":
            return value if scalar_step else value.to(device=param.device, dtype=dtypes.float32)
        dtype = param.dtype if param.is_floating_point() else None
        moved = value.to(device=param.device, dtype=dtype)
    if type(moved._data) is np.ndarray and not moved._data.flags.c_contiguous:
        moved = moved.contiguous()
    return moved


# 0-d state that torch keeps on the CPU in its scalar dtype and reads with .item(): the step
# counter, NAdam's mu_product, ASGD's eta and mu (their float32 rounding is part of the update)
HOST_SCALARS = frozenset({"step", "mu_product", "eta", "mu"})


def _follow_parameter(state, p):
    """State made on another device than its parameter's (Adagrad makes its sums up front, so
    before a later Module.to("cuda")) moves to the parameter's, as load_state_dict places it."""
    for key, value in state.items():
        if key not in HOST_SCALARS and isinstance(value, Tensor) and value.is_cuda != p.is_cuda:
            state[key] = _cast_state(value, p)


def _flat(array):
    return array.reshape(-1) if array.flags.c_contiguous else array.copy().reshape(-1)


def state_zeros(p):
    """A flat-updatable state tensor shaped like parameter p, on its device."""
    return Tensor._make(np.zeros_like(p._data, order="C"), False)


def check_lerp_dtype(average, grad):
    """torch updates some running averages with average.lerp_(grad, weight) (Adam's exp_avg,
    centred RMSprop's grad_avg), and lerp_ promotes nothing: an average of another dtype than the
    gradient (put into the state by hand; load_state_dict casts) is refused in lerp_'s words, the
    step already counted, as in torch."""
    if average.dtype != grad.dtype:
        raise RuntimeError(f"expected dtype {dtypes.c_type_name(average.dtype)} for `end` but got "
                           f"dtype {dtypes.c_type_name(grad.dtype)}")


def count_writes(state, **writes):
    """Bump the versions of state tensors a kernel updated, once per in-place op torch's update
    makes on each (exp_avg_sq.mul_(beta2).addcmul_(...) is two)."""
    for key, times in writes.items():
        for _ in range(times):
            state[key]._bump_version()


def next_step(state):
    """Count one more step in state["step"] (a 0-d tensor on the CPU in torch's scalar dtype, as
    torch keeps it); returns it."""
    step = state.get("step")
    if step is None:
        step = state["step"] = scalar_state(0.0)
    step._data += 1
    step._bump_version()    # torch's step_t += 1
    return float(step._data)


def on_device_of(param, update):
    """update (a CPU kernel of this package), or its CUDA twin of the same name and arguments in
    numgrad/cuda/optim.py when the parameter's data lives on the GPU."""
    if type(param) is np.ndarray:
        return update
    from ..cuda import optim
    return getattr(optim, update.__name__)


def plain(p):
    """p's data and gradient as tensors without history, for update rules written with tensor
    ops: in-place ops on them write into p's memory, and the data's version counts them (the
    caller bumps p's version as many times)."""
    return Tensor._make(p._data, False), Tensor._make(p._grad._data, False)


def hyper(value):
    """A hyper-parameter as torch's update rules compute with it: a tensor (lr, betas) as a
    NumPy scalar of its dtype, a number as a Python float. torch's arithmetic on a 0-d tensor
    rounds in its dtype (a float32 lr makes lr / bias_correction a float32), as NumPy's on its
    scalars does, Python numbers taking the scalar's type."""
    if isinstance(value, Tensor):
        return np.asarray(to_host(value._data)).reshape(-1)[0]
    return float(value)


def scalar_pow(base, exponent):
    """base ** exponent (a Python number), as torch's pow of a 0-d tensor when base is hyper's
    NumPy scalar: squares and cubes multiplied out, other powers in double rounded once (its
    square root rounds as IEEE's, where torch's float32 one is at times an ulp off)."""
    if not isinstance(base, np.floating):
        return base ** exponent
    if exponent == 2:
        return base * base
    if exponent == 3:
        return base * base * base
    if exponent == 0.5:
        return np.sqrt(base)
    return type(base)(np.float64(base) ** exponent)


def scalar_div(numerator, denominator):
    """numerator / denominator, as torch's when the denominator is a 0-d tensor (hyper's NumPy
    scalar) and the numerator a Python number: Tensor.__rtruediv__ multiplies by the
    reciprocal, rounding twice."""
    if isinstance(denominator, np.floating) and not isinstance(numerator, np.floating):
        return (1 / denominator) * numerator
    return numerator / denominator


def scalar_state(value):
    """A 0-d state tensor on the CPU in torch's scalar dtype (float64 only when that is the
    default dtype), for values torch keeps as tensors and reads back with .item(), such as
    NAdam's mu_product: their rounding is part of the update."""
    dtype = np.float64 if dtypes.get_default_dtype() == np.float64 else np.float32
    return Tensor._make(np.array(value, dtype), False)


def check_lr(lr):
    """torch's checks of a learning rate (a float or a one-element tensor)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_betas(eps, betas, weight_decay):
    """torch's checks of the Adam family's other options (Adamax, NAdam, RAdam)."""
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def check_flags(differentiable, foreach=None, fused=None):
    """foreach, fused and capturable change only how torch schedules the same arithmetic, so they
    are accepted and ignored (after torch's checks of their combinations), except that a
    capturable update refuses parameters on the host as torch's does (Optimizer.
    _check_capturable); differentiable=True (autograd through step) is not available."""
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if fused and differentiable:
        raise RuntimeError("`fused` does not support `differentiable`")
    if differentiable:
        raise NotImplementedError("differentiable=True is not supported by numgrad's optimizers: "
                                  "step() is not recorded by autograd")
