"""Tensor hooks and their removable handles."""
import itertools

from . import tape

_ids = itertools.count()


class RemovableHandle:
    """Returned by register_hook; .remove() unregisters the hook (safe to call twice)."""

    def __init__(self, table, key):
        self._table = table
        self._key = key
        self.id = key

    def remove(self):
        self._table.pop(self._key, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_tensor_hook(tensor, hook):
    key = next(_ids)
    if tensor._node < 0:
        table = tensor._extras().setdefault("hooks", {})
    else:
        seg = tensor._seg
        table = seg.hooks.setdefault((tensor._node, tensor._slot), {})
        seg.flags[tensor._node & 0xFFFFFFFF] |= tape.PRE_HOOKS
    table[key] = hook
    return RemovableHandle(table, key)


def register_post_accumulate_hook(tensor, hook):
    key = next(_ids)
    table = tensor._extras().setdefault("post_accumulate_hooks", {})
    table[key] = hook
    return RemovableHandle(table, key)


def run_hooks(hooks, grad):
    for hook in list(hooks.values()):
        result = hook(grad)
        if result is not None:
            grad = result
    return grad
