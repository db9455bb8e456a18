"""grad_fn._saved_<name> and grad_fn._raw_saved_<name>: what a node saved for its backward, under
torch's names (OpDef.saved_names: self, other, result, mat2, ...).

Reading `_saved_<name>` unpacks the value as a backward would: after a backward freed it, or after
its tensor changed in place, torch's errors are raised. A leaf input comes back as the leaf itself
(`x is y.grad_fn._saved_self`, as in torch); another input as a new tensor on its producer's node;
an output as a new tensor on this node (`y is y.grad_fn._saved_result` is False in torch too).

`_raw_saved_<name>.register_hooks(pack_hook, unpack_hook)` packs that one value now, and the
graph keeps what pack_hook returned instead (Note [packed saved values] in
autograd/saved_hooks.py): a backward, or reading `_saved_<name>`, calls unpack_hook.
"""
import numpy as np

from . import grad_mode, tape
from .lower import version_changed, version_error
from .node import node_name
from .ops import registry
from .ops.apply import Derived
from .tensor import Tensor


def saved_attribute(seg, node, name):
    """grad_fn attribute `name` (_saved_ or _raw_saved_, then torch's name) of node `node`: a
    saved tensor, or (only as _saved_) one of the node's other attributes."""
    raw = name.startswith("_raw_saved_")
    torch_name = name[len("_raw_saved_" if raw else "_saved_"):]
    position = _position(seg, node, torch_name)
    if position is not None:
        return SavedTensor(seg, node, position) if raw else _unpack(seg, node, position)
    attributes = _attributes(seg, node)
    if raw or torch_name not in attributes:
        raise AttributeError(f"'{node_name(seg, node)}' object has no attribute '{name}'")
    value = attributes[torch_name]
    if isinstance(value, Derived):
        value = value.compute()
    return _as_uint64(value) if torch_name in _INT64_ARGUMENTS else value


def saved_names(seg, node):
    """torch's names of the tensors node `node` saved (those it shows)."""
    return [name for name in _tensor_names(seg, node) if name is not None]


def _tensor_names(seg, node):
    """torch's name of each value the node saved (None: not shown): the op's, or those a named
    composite gave its node (ops/named.py)."""
    named = seg.named_saved.get(node)
    if named is not None:
        return named[0]
    local = node & 0xFFFFFFFF
    start, end = seg.saved_of(local)
    return registry.OPS[seg.op_of(local)].saved_names[:end - start]


def attribute_names(seg, node):
    """torch's names of what node `node` keeps besides tensors."""
    return list(_attributes(seg, node))


def _attributes(seg, node):
    """What the call recorded (ops/apply.show_attributes) over what every node of the op keeps."""
    fixed = registry.OPS[seg.op_of(node & 0xFFFFFFFF)].attributes
    recorded = seg.attributes.get(node)
    return fixed if recorded is None else {**fixed, **recorded}


# The arguments torch's schemas type int64 (its Scalars - an exponent, clamp's bounds, a
# correction - are others): its nodes keep them as uint64, so a negative one reads back as 2**64
# plus it (dim=-1 as 18446744073709551615).
_INT64_ARGUMENTS = frozenset((
    "dim", "dims", "dim0", "dim1", "dim2", "index", "start", "end", "step", "shifts", "pad",
    "diagonal", "offset", "ignore_index", "padding_idx", "split_size", "split_sizes", "repeats",
    "dimension", "size", "k"))


def _as_uint64(value):
    if isinstance(value, tuple):
        return tuple(_as_uint64(v) for v in value)
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return value + 2 ** 64
    return value


def _position(seg, node, torch_name):
    """Which of the node's saved values torch calls `torch_name` (None: none of them)."""
    for position, name in enumerate(_tensor_names(seg, node)):
        if name == torch_name:
            return position
    return None


def _where(seg, node, position):
    return registry.OPS[seg.op_of(node & 0xFFFFFFFF)].save_index[position]


def _stored(seg, node, position):
    """(index in the saved columns, the stored value: an array, or None where it was packed)."""
    local_s = seg.saved_of(node & 0xFFFFFFFF)[0] + position
    ref = seg.s_ref[local_s]
    if ref == tape.FREED:
        raise RuntimeError(tape.FREED_ERROR)
    if ref < 0:
        return local_s, seg.arrays[~ref]
    is64 = bool(seg.kind[node & 0xFFFFFFFF] & tape.FLOAT64)
    return local_s, np.array((seg.sv64 if is64 else seg.sv32)[ref],
                             np.float64 if is64 else np.float32)


def _as_tensor(seg, node, where, value, unpacked):
    """The saved value as torch unpacks it: connected to the graph where its tensor was (indices
    and masks need no gradient)."""
    if value.dtype.kind != "f":
        return Tensor._make(value, False)
    if where < 0:
        # outputs past those torch's node has (a norm's statistics) are not differentiable
        grad_outputs = registry.OPS[seg.op_of(node & 0xFFFFFFFF)].grad_outputs
        if grad_outputs is not None and ~where >= grad_outputs:
            return Tensor._make(value, False)
        return Tensor._make(value, True, seg, node, ~where)
    producer, slot = _edge_of_input(seg, node, where)
    if producer < 0:
        return Tensor._make(value, False)
    pseg = tape.segment_holding(seg, producer)
    if pseg.op_of(producer & 0xFFFFFFFF) == tape.ACCUMULATE and not unpacked:
        return pseg.leaves[producer]
    return Tensor._make(value, True, pseg, producer, slot)


def _edge_of_input(seg, node, where):
    """(producer node, slot) of the node's input `where`: a named composite's saved inputs are
    detached aliases on its node, so their edges are those of the tensors they alias."""
    named = seg.named_saved.get(node)
    if named is not None:
        return named[1][where - 1]          # input 0 is the composite's result
    start, _ = seg.inputs_of(node & 0xFFFFFFFF)
    return seg.e_node[start + where], seg.e_slot[start + where]


def _was_saved(seg, node, position):
    """Whether the node saved this value: Note [values not saved] in ops/apply.py. The inputs
    that wanted a gradient are those with an edge."""
    local = node & 0xFFFFFFFF
    start, end = seg.inputs_of(local)
    wanted = sum(1 << k for k in range(end - start) if seg.e_node[start + k] != -1)
    return registry.OPS[seg.op_of(local)].kept(wanted)[position]


def _unpack(seg, node, position):
    if not _was_saved(seg, node, position):
        return None
    local_s, value = _stored(seg, node, position)
    where = _where(seg, node, position)
    packed = seg.packed.get(node, {}).get(position)
    if packed is not None:
        from .autograd.saved_hooks import unpacked
        value = unpacked(packed)._data
    elif version_changed(seg, local_s):
        raise version_error(seg, node, where, local_s, value.shape,
                            np.float64 if value.dtype == np.float64 else np.float32)
    if registry.OPS[seg.op_of(node & 0xFFFFFFFF)].saved_masks[position]:
        value = value != 0
    return _as_tensor(seg, node, where, value, packed is not None)


class SavedTensor:
    """One value a node saved, as torch's grad_fn._raw_saved_<name> shows it."""

    __slots__ = ("_seg", "_node", "_position")

    def __init__(self, seg, node, position):
        self._seg = seg
        self._node = node
        self._position = position

    def register_hooks(self, pack_hook, unpack_hook):
        """Call pack_hook(tensor) on this saved value now and keep what it returns instead; the
        backward (and grad_fn._saved_<name>) get the value back from unpack_hook(packed)."""
        seg, node, position = self._seg, self._node, self._position
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError("register_hooks(pack_hook, unpack_hook) expects two callables")
        if not _was_saved(seg, node, position):
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        if position in seg.packed.get(node, {}):
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already "
                               "been set. Hint: only one pair of hooks is allowed at a time.")
        if seg.s_ref[seg.saved_of(node & 0xFFFFFFFF)[0] + position] == tape.FREED:
            raise RuntimeError("Calling register_hooks on a saved tensor after it has been freed. "
                               "Saved intermediate values of the graph are freed when you call "
                               ".backward() or autograd.grad(). Specify retain_graph=True if you "
                               "need to backward through the graph a second time or if you need "
                               "to access saved variables after calling backward.")
        local_s, value = _stored(seg, node, position)
        if type(value) is not np.ndarray:
            raise NotImplementedError("register_hooks: numgrad keeps the saved values of GPU "
                                      "tensors as they are; only host tensors can be packed")
        with grad_mode.no_grad():
            # torch hands pack_hook the saved data without its autograd record, even a leaf's
            packed = pack_hook(Tensor._make(value, False))
        seg.packed.setdefault(node, {})[position] = (unpack_hook, packed)
        seg.s_vc[local_s] = None
        ref = seg.s_ref[local_s]
        if ref < 0:         # the graph no longer keeps the array; a 0-d value is kept by value
            seg.saved_bytes -= value.nbytes
            seg.arrays[~ref] = None

    def __repr__(self):
        return f"<numgrad.autograd.SavedTensor object at {hex(id(self))}>"
