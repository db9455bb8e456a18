"""Tensor hooks and their removable handles."""
import itertools


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
        # lowering flags the node (tape.PRE_HOOKS) while this table is not empty
        table = tensor._seg.hooks.setdefault((tensor._node, tensor._slot), {})
    table[key] = hook
    return RemovableHandle(table, key)


def register_post_accumulate_hook(tensor, hook):
    key = next(_ids)
    table = tensor._extras().setdefault("post_accumulate_hooks", {})
    table[key] = hook
    return RemovableHandle(table, key)


def run_hooks(hooks, grad):
    """Call each hook in registration order; a returned tensor replaces the gradient, and must
    keep its shape and dtype (torch's checks)."""
    from .tensor import Tensor
    for hook in list(hooks.values()):
        result = hook(grad)
        if result is None:
            continue
        name = getattr(hook, "__name__", type(hook).__name__)
        if not isinstance(result, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
        if result._data.shape != grad._data.shape:
            raise RuntimeError(f"hook '{name}' has changed the size of value")
        if result._data.dtype != grad._data.dtype:
            raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                               f"{_type_name(grad)} got {_type_name(result)})")
        grad = result
    return grad


def _type_name(t):
    return "numgrad." + {"float64": "DoubleTensor", "float32": "FloatTensor"}.get(
        t._data.dtype.name, t._data.dtype.name)
