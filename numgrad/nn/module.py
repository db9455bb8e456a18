"""Module: the base class of layers; it registers parameters, buffers and submodules by assignment."""
import functools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

import numpy as np

from .. import dtypes, grad_mode
from ..device import device as _device
from ..hooks import RemovableHandle
from ..ops.tensor_info import typename
from ..creation import empty_like
from ..tensor import Tensor
from . import module_hooks as global_hooks
from .buffer import Buffer
from .module_hooks import HookHandle, hook_ids
# torch's home of the global hooks is torch.nn.modules.module: here numgrad.nn.module
from .module_hooks import (register_module_backward_hook,  # noqa: F401
                           register_module_buffer_registration_hook,
                           register_module_forward_hook, register_module_forward_pre_hook,
                           register_module_full_backward_hook,
                           register_module_full_backward_pre_hook,
                           register_module_module_registration_hook,
                           register_module_parameter_registration_hook)
from .parameter import Parameter
from .uninitialized import is_lazy
from .utils.hooks import BackwardHook



class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns; printed as torch prints it."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


# torch casts modules to dtypes numgrad lacks (float16, bfloat16, complex, ...): refused, rather
# than leave the module in a dtype it did not ask for
_NO_SUCH_DTYPE = "{}: numgrad has no {} dtype; its floating dtypes are float32 and float64"
_EXTRA_STATE = "_extra_state"   # torch's key for get_extra_state's value in a state dict


def _addindent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module:
    """Base class of all layers. Subclasses assign parameters and submodules as attributes in
    __init__ (after super().__init__()) and define forward.

    >>> import numgrad as ng
    >>> class Affine(ng.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.scale = ng.nn.Parameter(ng.ones(2))
    ...     def forward(self, x):
    ...         return x * self.scale
    >>> [name for name, _ in Affine().named_parameters()]
    ['scale']
    """

    # the version state_dict records per module (in its _metadata), which load_state_dict gives
    # to _upgrade_state_dict: a layer whose saved entries change counts up, as torch's
    _version = 1

    def __init__(self):
        # object.__setattr__: our own __setattr__ reads these dicts
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", {})
        # OrderedDicts: prepend=True moves a hook to the front
        for table in ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks",
                      "_backward_pre_hooks", "_load_state_dict_post_hooks",
                      "_load_state_dict_pre_hooks", "_state_dict_hooks", "_state_dict_pre_hooks"):
            object.__setattr__(self, table, OrderedDict())
        # the ids of all hooks registered here, so that a call without hooks tests one attribute
        object.__setattr__(self, "_registered_hook_ids", set())
        # the ids of the hooks registered with these options
        object.__setattr__(self, "_forward_hooks_with_kwargs", set())
        object.__setattr__(self, "_forward_hooks_always_called", set())
        object.__setattr__(self, "_forward_pre_hooks_with_kwargs", set())
        # which kind _backward_hooks holds: full (True), register_backward_hook's (False), none yet
        object.__setattr__(self, "_is_full_backward_hook", None)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def __call__(self, *args, **kwargs):
        # every forward passes here: without hooks, one empty-set test and nothing else
        if not self._registered_hook_ids and not global_hooks.call_hook_ids:
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        """forward between the hooks, in torch's order: forward pre-hooks, backward hooks set
        up on the arguments, forward, forward hooks, backward hooks set up on the result. Forward
        hooks registered with always_call=True also run when something here raises."""
        called = set()
        result = None
        try:
            # the hooks of this call are those registered now, the global ones first, as in torch
            backward_hooks, node_hooks = self._backward_hooks_by_kind()
            backward_pre_hooks = [*global_hooks.backward_pre_hooks.values(),
                                  *self._backward_pre_hooks.values()]
            for key, hook in [*global_hooks.forward_pre_hooks.items(),
                              *self._forward_pre_hooks.items()]:
                if key in self._forward_pre_hooks_with_kwargs:
                    new = hook(self, args, kwargs)
                    if new is not None:
                        if not (isinstance(new, tuple) and len(new) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple of "
                                               f"(new_args, new_kwargs), but got {new}.")
                        args, kwargs = new
                else:
                    new = hook(self, args)
                    if new is not None:
                        args = new if isinstance(new, tuple) else (new,)
            backward_hook = None
            if backward_hooks or backward_pre_hooks:
                backward_hook = BackwardHook(self, backward_hooks, backward_pre_hooks)
                args = backward_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            if backward_hook:
                backward_hook.check_inputs_unmodified()
            for key, hook in [*global_hooks.forward_hooks.items(), *self._forward_hooks.items()]:
                called.add(key)
                with_kwargs = (key in self._forward_hooks_with_kwargs
                               or key in global_hooks.forward_hooks_with_kwargs)
                new = hook(self, args, kwargs, result) if with_kwargs else hook(self, args, result)
                if new is not None:
                    result = new
            if backward_hook:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a "
                                  "Tensor or a tuple of Tensors but received "
                                  f"{type(result)}", stacklevel=3)
                result = backward_hook.setup_output_hook(result)
            if node_hooks:
                _hook_output_node(self, node_hooks, args, result)
            return result
        except Exception:
            # torch calls the global ones without kwargs here
            for key, hook in list(global_hooks.forward_hooks.items()):
                if key not in global_hooks.forward_hooks_always_called or key in called:
                    continue
                try:
                    new = hook(self, args, result)
                    if new is not None:
                        result = new
                except Exception as e:
                    warnings.warn("global module forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {e}", stacklevel=3)
            for key, hook in list(self._forward_hooks.items()):
                if key not in self._forward_hooks_always_called or key in called:
                    continue
                try:
                    new = (hook(self, args, kwargs, result)
                           if key in self._forward_hooks_with_kwargs else hook(self, args, result))
                    if new is not None:
                        result = new
                except Exception as e:
                    warnings.warn("module forward hook with ``always_call=True`` raised an "
                                  f"exception that was silenced as another error was raised in "
                                  f"forward: {e}", stacklevel=3)
            raise

    # ---- registration ---------------------------------------------------------------------------
    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            # a parameter replacing one keeps its place in _parameters (and so in state_dict)
            self._forget(name, keep=self._parameters)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(numgrad.nn.Parameter or None expected)")
            params[name] = None
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, keep=modules)
            modules[name] = global_hooks.registered(global_hooks.module_registration_hooks,
                                                    self, name, value)
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(numgrad.nn.Module or None expected)")
            modules[name] = global_hooks.registered(global_hooks.module_registration_hooks,
                                                    self, name, None)
            return
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Buffer):      # torch 2.5+: assigning a Buffer registers it
            self.register_buffer(name, value, value.persistent)
            return
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(numgrad.nn.Buffer, numgrad.Tensor or None expected)")
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        # only called when normal lookup fails: parameters, buffers and modules live in dicts
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def _forget(self, name, keep):
        """Drop name from every table but keep, the one it is about to be (re)assigned in."""
        for table in (self.__dict__, self._parameters, self._buffers, self._modules):
            if table is not keep:
                table.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def register_parameter(self, name, param):
        """Add a parameter (or None) under name."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_name(name, self, "parameter")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(numgrad.nn.Parameter or None required)")
        if param is not None:    # torch's registration hooks see parameters, not None
            param = global_hooks.registered(global_hooks.parameter_registration_hooks, self, name,
                                            param)
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is state but not a parameter (running statistics, say); persistent
        buffers are part of state_dict."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_name(name, self, "buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(numgrad Tensor or None required)")
        self._buffers[name] = global_hooks.registered(global_hooks.buffer_registration_hooks, self,
                                                      name, tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Add a child module (or None) under name."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if isinstance(name, str) and "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        _check_name(name, self, "module")
        self._modules[name] = global_hooks.registered(global_hooks.module_registration_hooks, self,
                                                      name, module)

    register_module = add_module

    def get_submodule(self, target):
        """The submodule at a dotted path such as "encoder.0"."""
        module = self
        for item in target.split(".") if target else []:
            # any attribute is looked up, as torch's: a parameter on the path is not a module
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return module

    def set_submodule(self, target, module, strict=False):
        """Put module at a dotted path such as "encoder.0", replacing what is there (only an
        existing submodule with strict)."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent_path, _, name = target.rpartition(".")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError(f"`{name}` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target):
        """The parameter at a dotted path such as "encoder.0.weight"."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at a dotted path such as "bn.running_mean"."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        if name not in module._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return getattr(module, name)

    # ---- iteration ------------------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) for this module and every submodule, depth first, each once."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if self in memo:      # memo holds modules, as torch's: a caller's memo skips them
                return
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def _named_members(self, table, prefix, recurse, remove_duplicate=True):
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) \
            if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in getattr(module, table).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, parameter) pairs; a parameter shared by two modules comes once."""
        yield from self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    # ---- modes and gradients --------------------------------------------------------------------
    def train(self, mode=True):
        """Set training mode (dropout active, batch statistics) here and in every submodule."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all parameters: to None by default, else to zeros in place."""
        for param in self.parameters():
            if param._grad is None:
                continue
            if set_to_none:
                param._grad = None
            else:
                # as torch: a gradient with history is cut from it, another (a view, say) keeps
                # its place and only stops requiring grad
                if param._grad.grad_fn is not None:
                    param._grad.detach_()
                else:
                    param._grad.requires_grad_(False)
                param._grad.zero_()

    def apply(self, fn):
        """Call fn on every submodule (children first) and then on self; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- conversion -----------------------------------------------------------------------------
    def to(self, *args, **kwargs):
        """Move every parameter and buffer (and any .grad) to a device, and cast the floating-point
        ones to a dtype: to(device), to(dtype), to(device, dtype), to(tensor) (its device and
        dtype), or the keywords device= and dtype=. Each Parameter (and its .grad) stays the
        same object, so an optimizer made before the move keeps updating it; a buffer the move
        changes is replaced, as torch's. Returns self.

        >>> import numgrad as ng
        >>> lin = ng.nn.Linear(2, 1)
        >>> weight = lin.weight
        >>> lin.to(ng.float64) is lin, lin.weight is weight, weight.dtype == ng.float64
        (True, True, True)
        """
        device, dtype = _parse_to(args, kwargs)
        if dtype is not None:
            dtype = np.dtype(dtype)
            if dtype.kind not in "fc":
                raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired "
                                f"dtype={dtypes.qualified_name(dtype)}")
            if dtype not in dtypes.SUPPORTED:
                raise TypeError(_NO_SUCH_DTYPE.format("nn.Module.to", dtype.name))
        for tensor in self.parameters():
            _move(tensor, device, dtype)
            if tensor._grad is not None:
                _move(tensor._grad, device, dtype)
        # as torch's _apply: a buffer the move changes is replaced by its converted copy (a new
        # tensor, version 0), each module's own; one already there in that dtype stays
        for module in self.modules():
            for name, buf in module._buffers.items():
                if buf is not None:
                    moved = _moved(buf, device, dtype)
                    if is_lazy(buf) and moved is not buf:
                        moved = type(buf)(buf.requires_grad, moved.device, moved.dtype)
                    module._buffers[name] = moved
        return self

    def _apply(self, fn, recurse=True):
        """fn(tensor) -> tensor on every parameter, its .grad and every buffer (recurse=False:
        this module's own), under no_grad, as torch's _apply, which libraries call with their own
        conversions: a parameter (and its .grad) stays the same object and takes the data of fn's
        result; a buffer is replaced by fn's result. Returns self."""
        for module in self.modules() if recurse else [self]:
            with grad_mode.no_grad():
                for param in module._parameters.values():
                    if param is None:
                        continue
                    param._data = fn(param)._data
                    if param._grad is not None:
                        param._grad._data = fn(param._grad)._data
                for name, buf in module._buffers.items():
                    if buf is not None:
                        module._buffers[name] = fn(buf)
        return self

    def type(self, dst_type):
        """Cast every parameter and buffer, integer buffers too (unlike to), to dst_type."""
        for tensor in list(self.parameters()) + list(self.buffers()):
            with grad_mode.no_grad():
                tensor._data = tensor.detach().type(dst_type)._data
                if tensor._grad is not None:
                    tensor._grad._data = tensor._grad.detach().type(dst_type)._data
        return self

    def float(self):
        return self.to(dtypes.float32)

    def double(self):
        return self.to(dtypes.float64)

    def half(self):
        """torch casts to float16 here; numgrad has no float16, so this refuses rather than
        leave the module in a dtype it did not ask for."""
        raise TypeError(_NO_SUCH_DTYPE.format("Module.half", "float16"))

    def bfloat16(self):
        """As half: numgrad has no bfloat16."""
        raise TypeError(_NO_SUCH_DTYPE.format("Module.bfloat16", "bfloat16"))

    def to_empty(self, *, device, recurse=True):
        """Replace every parameter and buffer (and any .grad) with uninitialised memory of its
        shape and dtype on device (None: where it is), in place as to() does; recurse=False:
        this module's own only. torch uses it to materialise modules built on its meta device
        (nn.utils.skip_init)."""
        for tensor in [*self.parameters(recurse=recurse), *self.buffers(recurse=recurse)]:
            for t in (tensor, tensor._grad):
                if t is not None:
                    target = t.device if device is None else device
                    t._data = empty_like(t, device=target)._data
        return self

    def share_memory(self):
        """Tensor.share_memory_ on every parameter and buffer, as torch's: a no-op here, where
        tensors are NumPy memory that numgrad does not move to shared memory."""
        for tensor in [*self.parameters(), *self.buffers()]:
            tensor.share_memory_()
        return self

    def cuda(self, device=None):
        """Move every parameter and buffer to the GPU (see to); cuda(0) and cuda("cuda:0") too."""
        return self.to(f"cuda:{device}" if isinstance(device, int) else device or "cuda")

    def cpu(self):
        return self.to("cpu")

    # ---- state ----------------------------------------------------------------------------------
    def state_dict(self, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of every parameter and persistent buffer by dotted name; the values
        share memory with the module's (detached unless keep_vars)."""
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in list(self._state_dict_pre_hooks.values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination, prefix + name + ".", keep_vars)
        for hook in list(self._state_dict_hooks.values()):
            result = hook(self, destination, prefix, local_metadata)
            if result is None:
                continue
            if getattr(hook, "_from_public_api", False):
                raise RuntimeError("state_dict post-hook must return None")
            destination = result    # the older _register_state_dict_hook may replace it
        return destination

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """This module's own entries (not its children's)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE] = self.get_extra_state()

    def get_extra_state(self):
        """What state_dict saves under "_extra_state" besides tensors, for a module that
        overrides this (and set_extra_state, which load_state_dict then calls)."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be "
                           "called. Please file an issue at https://github.com/pytorch/pytorch/"
                           "issues/new?template=bug-report.yml to report this bug.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be "
                           "called. Please file an issue at https://github.com/pytorch/pytorch/"
                           "issues/new?template=bug-report.yml to report this bug.")

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values from state_dict into the parameters and buffers (in place, under no_grad).

        strict: every key must match. Shapes must match in any case. Returns the
        (missing_keys, unexpected_keys) named tuple. As torch's, each module (a shared one under
        each of its names) loads its own keys through _load_from_state_dict, which a subclass may
        override, from a dict of the keys under its prefix; its load_state_dict post-hooks run
        once its children are loaded.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)   # the hooks and upgrades must not touch the caller's
        if metadata is not None:
            state_dict._metadata = metadata
        # explicit stack, no recursion: (module, its dict, its prefix, children loaded yet)
        stack = [(self, state_dict, "", False)]
        while stack:
            module, local_state_dict, prefix, children_loaded = stack.pop()
            if children_loaded:
                # the hooks may change the key lists in place, before strict reads them
                incompatible = _IncompatibleKeys(missing, unexpected)
                for hook in list(module._load_state_dict_post_hooks.values()):
                    if hook(module, incompatible) is not None:
                        raise AssertionError("Hooks registered with "
                                             "``register_load_state_dict_post_hook`` are not "
                                             "expected to return new values, if "
                                             "incompatible_keys need to be modified, it should "
                                             "be done inplace.")
                continue
            # what state_dict recorded of the module (its version), nothing for a plain dict;
            # torch marks assign in the recorded dict itself
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing, unexpected, errors)
            stack.append((module, None, prefix, True))
            for name, child in reversed(list(module._modules.items())):
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {k: v for k, v in local_state_dict.items()
                                        if k.startswith(child_prefix)}
                    stack.append((child, child_state_dict, child_prefix, False))
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {self._get_name()}:\n\t"
                               + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Load this module's own entries (not its children's) from state_dict, whose keys
        start with prefix, as torch's: the version upgrades and load_state_dict pre-hooks first
        (they may edit state_dict), then each parameter and persistent buffer, the extra state,
        and (strict) the keys of state_dict that name nothing here. Problems go into the three
        lists. Subclasses override it to read older checkpoints (call this one after)."""
        self._upgrade_state_dict(state_dict, prefix, local_metadata)
        for hook in list(self._load_state_dict_pre_hooks.values()):
            hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        local_state.update((k, v) for k, v in self._buffers.items()
                           if v is not None and k not in self._non_persistent_buffers_set)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, target in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected '
                                  f'numgrad.Tensor or Tensor-like object from checkpoint but '
                                  f'received {type(value)}')
                continue
            # a placeholder of a lazy layer takes any shape (its load hook sized it from an
            # initialised checkpoint); a placeholder loaded into an initialised tensor refuses
            # through its shape, as torch's
            lazy_target = is_lazy(target)
            if not lazy_target and target.ndim == 0 and value.shape == (1,):
                value = value[0]    # torch's backward compatibility: once 0-d were 1-d
            if not lazy_target and value.shape != target._data.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{_size(value._data.shape)} from checkpoint, the shape in "
                                  f"current model is {_size(target._data.shape)}.")
                continue
            with grad_mode.no_grad():
                if assign:
                    # torch's assign: the checkpoint's tensor (its dtype, its memory) takes the
                    # place of the module's, as a Parameter where it replaces one
                    if isinstance(target, Parameter):
                        if not isinstance(value, Parameter):
                            value = Parameter(value, requires_grad=target.requires_grad)
                        value.requires_grad_(target.requires_grad)
                    setattr(self, name, value)
                else:
                    # across devices too: a CPU checkpoint into a module on the GPU
                    np.copyto(target._data, value._data, casting="unsafe")
                    target._bump_version()
        extra_key = prefix + _EXTRA_STATE
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    first, dot, _ = key[len(prefix):].partition(".")
                    if (first not in self._modules) if dot else (first not in local_state):
                        unexpected_keys.append(key)

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) runs after load_state_dict (of this module or one
        containing it); it may edit incompatible_keys' lists in place."""
        return _plain_handle(self._load_state_dict_post_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs) runs before load_state_dict reads this module's keys (under
        prefix); it may edit state_dict and the lists in place."""
        return _plain_handle(self._load_state_dict_pre_hooks, hook)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """torch's older form, which libraries still use: hook(state_dict, prefix, ...) without
        the module unless with_module."""
        if not with_module:
            hook = functools.partial(_without_module, hook)
        return _plain_handle(self._load_state_dict_pre_hooks, hook)

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars) runs before state_dict collects this module's
        entries."""
        return _plain_handle(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) runs after state_dict collected this
        module's entries; it may edit state_dict in place and must return None."""
        hook._from_public_api = True     # as torch marks it, to tell it from the older form's
        return _plain_handle(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook):
        """torch's older form of register_state_dict_post_hook: a state dict the hook returns
        replaces the one being built."""
        return _plain_handle(self._state_dict_hooks, hook)

    def _upgrade_state_dict(self, state_dict, prefix, local_metadata):
        """Fill in, for this module's keys under prefix, what checkpoints of older versions of
        the module lack (torch's versioned _load_from_state_dict; local_metadata holds the saved
        "version", absent from a plain dict); nothing by default."""

    # ---- hooks ----------------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) runs before forward; a returned value replaces args (a non-tuple
        becomes a 1-tuple). with_kwargs: hook(module, args, kwargs) returns None or
        (new_args, new_kwargs). prepend: run before the hooks already registered."""
        options = [(self._forward_pre_hooks_with_kwargs, with_kwargs)]
        return self._register(self._forward_pre_hooks, hook, prepend, options)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """hook(module, args, output) runs after forward; a returned value replaces output.
        with_kwargs: hook(module, args, kwargs, output). always_call: it also runs (with the
        output so far, None when forward failed) when forward or another hook raises."""
        options = [(self._forward_hooks_with_kwargs, with_kwargs),
                   (self._forward_hooks_always_called, always_call)]
        return self._register(self._forward_hooks, hook, prepend, options)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) runs when the gradients of the module's outputs are known,
        once per backward through each call of the module; a returned tuple replaces grad_output
        (None for outputs that received no gradient).

        >>> import numgrad as ng
        >>> lin = ng.nn.Linear(1, 1)
        >>> _ = lin.register_full_backward_pre_hook(lambda m, grad_output: (grad_output[0] * 0,))
        >>> x = ng.ones(1, 1, requires_grad=True)
        >>> lin(x).sum().backward()
        >>> x.grad
        tensor([[0.]])
        """
        return self._register(self._backward_pre_hooks, hook, prepend, [])

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) runs when the gradients of the module's
        positional arguments are known, once per backward through each call of the module. One
        grad_input entry per argument: None for non-tensors, zeros for tensors that need no
        gradient; a returned tuple replaces grad_input. When no argument requires grad the hook
        runs from the outputs' side with grad_input all None (torch's warning says so).

        >>> import numgrad as ng
        >>> lin = ng.nn.Linear(2, 1)
        >>> double = lambda module, grad_input, grad_output: (grad_input[0] * 2,)
        >>> _ = lin.register_full_backward_hook(double)
        >>> x = ng.ones(1, 2, requires_grad=True)
        >>> lin(x).sum().backward()
        >>> bool((x.grad == 2 * lin.weight).all())
        True
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on "
                               "a single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", True)
        return self._register(self._backward_hooks, hook, prepend, [])

    def register_backward_hook(self, hook):
        """Deprecated, as in torch (register_full_backward_hook replaces it): hook(module,
        grad_input, grad_output) is registered on the node the module's (first) output came from,
        so it sees that node's gradients: for a Linear on a batch, AddmmBackward0's (bias, input,
        weight.t()), not the module's. torch warns where that misses gradients."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on "
                               "a single Module. Please use only one of them.")
        object.__setattr__(self, "_is_full_backward_hook", False)
        return self._register(self._backward_hooks, hook, False, [])

    def _backward_hooks_by_kind(self):
        """(full backward hooks, register_backward_hook's) of this call, the global ones first,
        as torch's _get_backward_hooks."""
        full, node_hooks = [], []
        for is_full, table in ((global_hooks.kind["full"], global_hooks.backward_hooks),
                               (self._is_full_backward_hook, self._backward_hooks)):
            if is_full is True:
                full += table.values()
            elif is_full is False:
                node_hooks += table.values()
        return full, node_hooks

    def _register(self, table, hook, prepend, options):
        """Add hook to table (first when prepend), and its id to the ids of each (ids, on) option
        that is on."""
        key = next(hook_ids)
        table[key] = hook
        if prepend:
            table.move_to_end(key, last=False)
        id_sets = [self._registered_hook_ids] + [ids for ids, on in options if on]
        for ids in id_sets:
            ids.add(key)
        return HookHandle(table, key, id_sets)

    # ---- printing -------------------------------------------------------------------------------
    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The text inside the parentheses of this module's repr; layers override it."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _addindent(repr(module), 2)
                       for name, module in self._modules.items()]
        lines = extra_lines + child_lines
        body = ""
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                body = extra_lines[0]
            else:
                body = "\n  " + "\n  ".join(lines) + "\n"
        return f"{self._get_name()}({body})"

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._buffers)
                      | set(self._modules))


def _hook_output_node(module, hooks, args, result):
    """register_backward_hook's hooks go on the grad_fn of the first tensor of result, as torch's
    (with torch's warnings where that node does not carry the module's gradients)."""
    output = result
    while not isinstance(output, Tensor):
        if isinstance(output, dict):
            output = next(v for v in output.values() if isinstance(v, Tensor))
        else:
            output = output[0]
    grad_fn = output.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(functools.partial(hook, module))
    problem = _missed_by_node_hooks(args, result, grad_fn)
    if problem:
        warnings.warn(problem, FutureWarning, stacklevel=4)


def _missed_by_node_hooks(inputs, result, grad_fn):
    """torch's warning (Module._maybe_warn_non_full_backward_hook) when the node of the output
    does not see all the module's gradients, or None."""
    if isinstance(result, Tensor):
        result = (result,)
    elif not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
        return ("Using non-full backward hooks on a Module that does not return a single Tensor "
                "or a tuple of Tensors is deprecated and will be removed in future versions. "
                "This hook will be missing some of the grad_output. Please use "
                "register_full_backward_hook to get the documented behavior.")
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    elif not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
        return ("Using non-full backward hooks on a Module that does not take as input a single "
                "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                "versions. This hook will be missing some of the grad_input. Please use "
                "register_full_backward_hook to get the documented behavior.")
    output_nodes = {r.grad_fn for r in result if r.grad_fn is not None}
    if not output_nodes or (len(output_nodes) == 1 and grad_fn not in output_nodes):
        return ("Using a non-full backward hook when outputs are nested in python data structure "
                "is deprecated and will be removed in future versions. This hook will be missing "
                "some grad_output.")
    if len(output_nodes) > 1:
        return ("Using a non-full backward hook when outputs are generated by different autograd "
                "Nodes is deprecated and will be removed in future versions. This hook will be "
                "missing some grad_output. Please use register_full_backward_hook to get the "
                "documented behavior.")
    input_nodes = {i.grad_fn for i in inputs if i.grad_fn is not None}
    if input_nodes != {n for n, _ in grad_fn.next_functions}:
        return ("Using a non-full backward hook when the forward contains multiple autograd Nodes "
                "is deprecated and will be removed in future versions. This hook will be missing "
                "some grad_input. Please use register_full_backward_hook to get the documented "
                "behavior.")
    return None


def _without_module(hook, module, *args):
    return hook(*args)


def _plain_handle(table, hook):
    """Register hook in table with a plain handle: these hooks do not concern __call__'s test
    for hooks."""
    key = next(hook_ids)
    table[key] = hook
    return RemovableHandle(table, key)


def _size(shape):
    return f"numgrad.Size({list(shape)})"


def _check_name(name, module, kind):
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    # torch refuses a name taken by anything but the kind being registered: a buffer cannot
    # shadow a parameter, nor a module a buffer
    own = {"parameter": module._parameters, "buffer": module._buffers,
           "module": module._modules}[kind]
    if hasattr(module, name) and name not in own:
        raise KeyError(f"attribute '{name}' already exists")


def _parse_to(args, kwargs):
    """(device, dtype) from Module.to's arguments, None for what stays as it is."""
    device, dtype = kwargs.get("device"), kwargs.get("dtype")
    for arg in args:
        if isinstance(arg, Tensor):
            device, dtype = arg.device, arg.dtype
        elif isinstance(arg, (str, _device)):
            device = arg
        elif isinstance(arg, bool):
            continue                               # non_blocking or copy: no meaning here
        elif isinstance(arg, int):
            device = f"cuda:{arg}"                 # torch reads a bare index as a CUDA device
        elif arg is not None:
            dtype = arg
    return device, dtype


def _moved(tensor, device, dtype):
    """tensor on device, cast to dtype when floating (integer buffers keep theirs): tensor
    itself when it is already there in that dtype, else a copy."""
    if not tensor.is_floating_point():
        dtype = None
    with grad_mode.no_grad():
        return tensor.to(device=device, dtype=dtype)


def _move(tensor, device, dtype):
    """Replace tensor's data with _moved's: a parameter (or its .grad) stays the same object.
    (Tensor's own detach: a lazy placeholder's refuses, Note [placeholders refuse Tensor
    functions].)"""
    tensor._data = _moved(Tensor.detach(tensor), device, dtype)._data
