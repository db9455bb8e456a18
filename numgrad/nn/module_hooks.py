"""Module hook handles and ids, and the hooks for every module at once, as
torch.nn.modules.module's register_module_* functions: the
forward and backward hooks run around each module call before the module's own (the global
forward hooks first as well), the registration hooks see each parameter, buffer and child being
registered and may replace it. Module (module.py) reads these tables; numgrad.nn.module exports the
functions, as torch.nn.modules.module does.

>>> import numgrad as ng
>>> from numgrad.nn.module import register_module_forward_hook
>>> seen = []
>>> handle = register_module_forward_hook(lambda module, args, output: seen.append(type(module)))
>>> _ = ng.nn.Sequential(ng.nn.ReLU())(ng.ones(1))
>>> handle.remove()
>>> [cls.__name__ for cls in seen]
['ReLU', 'Sequential']
"""
import itertools
from collections import OrderedDict

from ..hooks import RemovableHandle

# one count for every module hook, the global ones too: a call tests an id against both kinds'
# option sets, as torch does
hook_ids = itertools.count()


class HookHandle(RemovableHandle):
    """A module hook's handle: removing the hook also takes its id out of the id sets it is in."""

    def __init__(self, table, key, id_sets):
        super().__init__(table, key)
        self._id_sets = id_sets

    def remove(self):
        super().remove()
        for ids in self._id_sets:
            ids.discard(self._key)


forward_pre_hooks = OrderedDict()
forward_hooks = OrderedDict()
forward_hooks_with_kwargs = set()
forward_hooks_always_called = set()
backward_pre_hooks = OrderedDict()
backward_hooks = OrderedDict()
# which kind the global backward hooks are: full (True), the deprecated kind of
# register_module_backward_hook (False), none yet (None); torch refuses to mix them
kind = {"full": None}
# the ids of the call hooks above, so that a module call without any tests one set
call_hook_ids = set()

buffer_registration_hooks = OrderedDict()
parameter_registration_hooks = OrderedDict()
module_registration_hooks = OrderedDict()


def _register(table, hook, id_sets):
    key = next(hook_ids)
    table[key] = hook
    for ids in id_sets:
        ids.add(key)
    return HookHandle(table, key, id_sets)


def register_module_forward_pre_hook(hook):
    """hook(module, args) runs before every module's forward, before the module's own pre-hooks;
    a returned value replaces args."""
    return _register(forward_pre_hooks, hook, [call_hook_ids])


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """hook(module, args, output) (with_kwargs: hook(module, args, kwargs, output)) runs after
    every module's forward, before the module's own forward hooks; a returned value replaces
    output. always_call: it also runs when forward raises."""
    options = [(forward_hooks_with_kwargs, with_kwargs),
               (forward_hooks_always_called, always_call)]
    return _register(forward_hooks, hook, [call_hook_ids] + [ids for ids, on in options if on])


def register_module_full_backward_pre_hook(hook):
    """hook(module, grad_output) for every module call, before the module's own."""
    return _register(backward_pre_hooks, hook, [call_hook_ids])


def register_module_full_backward_hook(hook):
    """hook(module, grad_input, grad_output) for every module call, before the module's own."""
    _claim(True)
    return _register(backward_hooks, hook, [call_hook_ids])


def register_module_backward_hook(hook):
    """Deprecated, as in torch (register_module_full_backward_hook replaces it): hook(module,
    grad_input, grad_output) for every module call, on the node its output came from, as
    Module.register_backward_hook."""
    _claim(False)
    return _register(backward_hooks, hook, [call_hook_ids])


def _claim(full):
    if kind["full"] is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    kind["full"] = full


def register_module_buffer_registration_hook(hook):
    """hook(module, name, buffer) runs as a buffer is registered; a returned tensor replaces it."""
    return _register(buffer_registration_hooks, hook, [])


def register_module_parameter_registration_hook(hook):
    """hook(module, name, param) runs as a parameter is registered; a returned value replaces
    it."""
    return _register(parameter_registration_hooks, hook, [])


def register_module_module_registration_hook(hook):
    """hook(module, name, submodule) runs as a child is registered; a returned value replaces
    it."""
    return _register(module_registration_hooks, hook, [])


def registered(table, module, name, value):
    """value after the registration hooks of table."""
    for hook in list(table.values()):
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value
