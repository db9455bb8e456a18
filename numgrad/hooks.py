"""Hooks on tensors and on graph nodes, and their removable handles."""
import itertools

from . import grad_mode, tape


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
    if tensor._extra is not None:
        tensor.grad_fn      # a view read anew (Note [views changed unrecorded] in ops/views.py),
                            # or torch's error for a stale one
    key = next(_ids)
    if tensor._node < 0:
        table = tensor._extras().setdefault("hooks", {})
    else:
        # lowering flags the node (tape.PRE_HOOKS) while this table is not empty
        seg, where = tensor._seg, (tensor._node, tensor._slot)
        table = seg.hooks.get(where)
        if table is None:
            table = seg.hooks[where] = {}
            seg.hook_rank[where] = key
        flag_in_running_backward(seg, tensor._node, tape.PRE_HOOKS)
    table[key] = hook
    return RemovableHandle(table, key)


def flag_in_running_backward(seg, node, flag):
    """A hook registered while a backward runs (from another hook) still runs, as in torch, when
    its node comes: the running graph, which read the flags when it was lowered, gets this one."""
    graph = grad_mode.state.running_graph
    if graph is None:
        return
    for k, lowered in enumerate(graph.segments):
        if lowered is seg:
            graph.flags[int(graph.starts[k]) + (node & 0xFFFFFFFF)] |= flag


def output_hooks(seg, node, n_out):
    """(output, hooks) of a node's outputs that have tensor hooks, in torch's order: a node keeps
    one pre-hook per output, added when that output got its first hook, and runs them in turn."""
    hooked = [(seg.hook_rank[(node, j)], j, seg.hooks[(node, j)]) for j in range(n_out)
              if seg.hooks.get((node, j))]
    return [(j, hooks) for _, j, hooks in sorted(hooked)]


def register_post_accumulate_hook(tensor, hook):
    key = next(_ids)
    table = tensor._extras().setdefault("post_accumulate_hooks", {})
    table[key] = hook
    return RemovableHandle(table, key)


def register_node_hook(table_owner, key, hook):
    """A hook on a graph node, kept in a dict under `key` of `table_owner` (a segment's python
    table, or a leaf's extras for its AccumulateGrad). Lowering flags the node while the dict
    is not empty (LoweredGraph.__init__)."""
    table = table_owner.setdefault(key, {})
    handle_key = next(_ids)
    table[handle_key] = hook
    return RemovableHandle(table, handle_key)


def run_hooks(hooks, grad):
    """Call each hook in registration order; a returned tensor replaces the gradient, and must
    keep its shape and dtype (torch's checks). grad None: an output of a node that runs got no
    gradient, which the hooks see as None, as in torch, and may not replace."""
    from .tensor import Tensor
    for hook in list(hooks.values()):
        result = hook(grad)
        if result is None:
            continue
        if not isinstance(result, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
        if grad is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        _check_replacement(hook, grad, result)
        grad = result
    return grad


def run_node_pre_hooks(hooks, grad_outputs, shown=None):
    """A node's pre-hooks, in registration order: each sees the gradients of the node's outputs
    (None where none arrived) and may return a tuple replacing them. shown: how many leading
    outputs torch's node has (OpDef.grad_outputs; None: all); the others pass unseen."""
    grad_outputs = tuple(grad_outputs)
    cut = len(grad_outputs) if shown is None else shown
    grad_outputs, unseen = grad_outputs[:cut], grad_outputs[cut:]
    for hook in list(hooks.values()):
        grad_outputs = _replaced(hook, grad_outputs, hook(grad_outputs))
    return grad_outputs + unseen


def run_node_post_hooks(hooks, grad_inputs, grad_outputs, listed=None, shown=None):
    """A node's hooks after it ran: each sees (grad_inputs, grad_outputs) and may return a tuple
    replacing grad_inputs. listed: the positions of the inputs torch counts (OpDef.listed), the
    only ones the hooks see, None for an input torch's node has and this one lacks (its gradient
    is None); listed=None: all. shown: as in run_node_pre_hooks."""
    every, grad_outputs = list(grad_inputs), tuple(grad_outputs)[:shown]
    positions = range(len(every)) if listed is None else listed
    grad_inputs = tuple(None if k is None else every[k] for k in positions)
    for hook in list(hooks.values()):
        grad_inputs = _replaced(hook, grad_inputs, hook(grad_inputs, grad_outputs))
    for k, g in zip(positions, grad_inputs):
        if k is not None:
            every[k] = g
    return every


def _replaced(hook, values, result):
    """What a node hook returned, checked as torch checks it: None keeps `values`."""
    from .tensor import Tensor
    if result is None:
        return values
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(values):
        raise RuntimeError(f"hook '{_name(hook)}' has returned an incorrect number of values "
                           f"(got {len(result)}, but expected {len(values)})")
    for old, new in zip(values, result):
        if new is not None and not isinstance(new, Tensor):
            raise TypeError(f"expected Variable or None, but hook returned "
                            f"'{type(new).__name__}'")
        if old is None and new is not None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        if new is not None:
            _check_replacement(hook, old, new)
    return result


def _check_replacement(hook, old, new):
    # torch checks the type first
    if new._data.dtype != old._data.dtype:
        raise RuntimeError(f"hook '{_name(hook)}' has changed the type of value (was "
                           f"{_type_name(old)} got {_type_name(new)})")
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{_name(hook)}' has changed the size of value")


def _name(hook):
    return getattr(hook, "__name__", type(hook).__name__)


def _type_name(t):
    return "numgrad." + {"float64": "DoubleTensor", "float32": "FloatTensor"}.get(
        t._data.dtype.name, t._data.dtype.name)
