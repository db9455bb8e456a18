"""saved_tensors_hooks: the user decides what the graph keeps of each tensor saved for backward.

Note [packed saved values]
While a `saved_tensors_hooks(pack, unpack)` block is active, every tensor an op saves for its
backward goes through `pack`, and the graph keeps what pack returned instead of the tensor: the
tape drops its own reference to the array (a kept 0-d value costs nothing and stays). When a
backward runs the node, `unpack` turns the packed object back into the tensor the derivative
reads: `engine.saved_addresses` points the compiled kernels at it, the create_graph walk and
custom Functions read it too. As in torch, a packed value is not version-checked: the tensor may
change in place afterwards, and the backward reads what unpack returns. Packed objects live in
the segment's `packed` table, per node, and go when the backward frees the node's saved values.
Tensors on the GPU and constants (Python numbers an op took) are not packed.
"""
import numpy as np

from .. import grad_mode, tape
from ..kernels.abi import address_of
from ..ops import apply as _apply, registry
from ..tensor import Tensor


class saved_tensors_hooks:
    """Context manager: `pack_hook(tensor) -> object` runs on every tensor saved for backward
    inside the block, `unpack_hook(object) -> Tensor` when a backward needs it. Blocks nest; the
    innermost applies.

    >>> with numgrad.autograd.graph.saved_tensors_hooks(lambda t: t.tolist(), numgrad.tensor):
    ...     y = x * x
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        state = grad_mode.state
        if state.saved_hooks_disabled is not None:
            raise RuntimeError(state.saved_hooks_disabled)
        self._outer = state.saved_hooks
        state.saved_hooks = (self.pack_hook, self.unpack_hook)
        _apply.packing += 1

    def __exit__(self, *exc):
        grad_mode.state.saved_hooks = self._outer
        _apply.packing -= 1


class save_on_cpu(saved_tensors_hooks):
    """Keep saved tensors in host memory, moving them back to their device for the backward
    (pin_memory is accepted and has no effect: numgrad's host memory is NumPy's)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda t: (t.device, t.cpu()), lambda packed: packed[1].to(packed[0]))


class allow_mutation_on_saved_tensors(saved_tensors_hooks):
    """Context manager: inside it, a tensor saved for backward may change in place afterwards,
    and the backward reads it as it was when saved, where it would otherwise raise the version
    error. Saved tensors are packed as (tensor, its version, a copy): unpacking gives the tensor
    itself while it is unchanged, so gradients flow through it as usual, and the copy once it
    changed. torch copies a tensor when it is first changed; numgrad copies each one when it is
    saved (the in-place ops change their data before they count the change), so the block holds
    a second copy of what it saves. The graph can be differentiated only inside the block."""

    _entered = 0

    def __init__(self):
        super().__init__(self._pack, self._unpack)
        self._open = False

    def __enter__(self):
        if allow_mutation_on_saved_tensors._entered:
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        super().__enter__()
        allow_mutation_on_saved_tensors._entered += 1
        self._open = True
        return self

    def __exit__(self, *exc):
        super().__exit__(*exc)
        allow_mutation_on_saved_tensors._entered -= 1
        self._open = False

    @staticmethod
    def _pack(t):
        return t, t._version, t.detach().clone()

    def _unpack(self, packed):
        if not self._open:
            # torch's words, as torch joins them
            raise RuntimeError("Trying to backward outside of the "
                               "'allow_mutation_on_saved_tensors' contextin which the graph was "
                               "originally recorded.")
        t, version, copy = packed
        return t if t._version == version else copy


class disable_saved_tensors_hooks:
    """Context manager: entering saved_tensors_hooks inside it raises RuntimeError(error_message),
    and so does entering it inside saved_tensors_hooks, as in torch."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        state = grad_mode.state
        if state.saved_hooks is not None:
            raise RuntimeError(self.error_message)
        self._outer = state.saved_hooks_disabled
        state.saved_hooks_disabled = self.error_message

    def __exit__(self, *exc):
        grad_mode.state.saved_hooks_disabled = self._outer


def pack_one(t):
    """(unpack hook, what the pack hook made of t) under the innermost hooks; what the pack hook
    itself computes is not packed, nor recorded (torch packs under no_grad), and it must not
    change t."""
    hooks = grad_mode.state.saved_hooks
    grad_mode.state.saved_hooks = None
    version = t._version
    try:
        with grad_mode.no_grad():
            packed = hooks[0](t)
    finally:
        grad_mode.state.saved_hooks = hooks
    if t._version != version:
        raise RuntimeError("A saved tensor pack hook is modifying its input in place. Tensors "
                           "provided as input to pack hook cannot be modified by in-place "
                           "operations as this can lead to unexpected side-effects. Please open "
                           "an issue if you need to perform in-place operations on the input to a "
                           "pack hook.")
    return hooks[1], packed


def pack_saved(seg, node, op, inputs, outputs, kept):
    """Pack the values the node `op` just recorded saved (Note [packed saved values]); kept: per
    saved value, whether the node saved it (Note [values not saved] in ops/apply.py). A mask is
    packed as the bool tensor torch saves, unless a composite made it (grad_mode.composite_masks)."""
    first = len(seg.s_ref) - len(op.save_index)
    packed = {}
    for position in op.unpack_order:       # torch's node packs its values in that order too
        where = op.save_index[position]
        t = inputs[where] if where >= 0 else outputs[~where]
        if op.saved_masks[position] and type(t) is np.ndarray:
            if not grad_mode.state.pack_masks:
                continue
            t = Tensor._make(t != 0, False)
        if not (kept[position] and isinstance(t, Tensor)) or type(t._data) is not np.ndarray:
            continue
        packed[position] = pack_one(t)
        seg.s_vc[first + position] = None     # torch checks no version of a packed value
        ref = seg.s_ref[first + position]
        if ref < 0:
            seg.saved_bytes -= seg.arrays[~ref].nbytes
            seg.arrays[~ref] = None
    if packed:
        seg.packed[node] = packed


def unpacked(packed_entry):
    """The Tensor a packed saved value stands for, from its unpack hook."""
    unpack, packed = packed_entry
    t = unpack(packed)
    if not isinstance(t, Tensor):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result "
                        f"of type {type(t).__name__}")
    return t


def unpacked_array(packed_entry, dtype):
    """The array of a packed saved value as the backward reads it: a mask (packed as bool, as
    torch saves it) in the node's float type `dtype`."""
    data = unpacked(packed_entry)._data
    return data.astype(dtype) if data.dtype == np.bool_ else data


def point_at_unpacked(graph, addr, keep):
    """Saved-value addresses of the runnable nodes whose values were packed, redirected to what
    their unpack hooks return (kept alive in `keep` while the kernels run). The hooks run in the
    order torch's nodes would: its engine runs the ready node created last first, which makes the
    nodes run newest first, and a node unpacks as it runs."""
    for k in range(len(graph.segments) - 1, -1, -1):
        seg = graph.segments[k]
        for node in sorted(seg.packed, reverse=True):
            packed = seg.packed[node]
            index = int(graph.starts[k]) + (node & 0xFFFFFFFF)
            if not graph.runnable[index]:
                continue
            dtype = np.float64 if graph.dt[index] == 1 else np.float32
            for position, entry in packed.items():
                data = unpacked_array(entry, dtype)
                if type(data) is not np.ndarray or data.dtype != dtype or \
                        data.shape != _saved_shape(graph, index, position):
                    # not what the compiled kernel reads: the node's formulas take it as torch's
                    # do (broadcast, in its type, summed back to each input), in Python
                    graph.flags[index] |= tape.PYTHON
                    continue
                data = np.ascontiguousarray(data)
                keep.append(data)
                addr[int(graph.sv_ptr[index]) + position] = address_of(data)


def _saved_shape(graph, index, position):
    """The shape of a node's saved value: that of the input or output it is."""
    from ..engine import shape_of
    where = registry.OPS[int(graph.op[index])].save_index[position]
    n_in = int(graph.in_ptr[index + 1] - graph.in_ptr[index])
    return shape_of(graph, index, where if where >= 0 else n_in + ~where)


def release_packed(graph):
    """Forget the packed values of the nodes a backward ran and freed."""
    for k, seg in enumerate(graph.segments):
        for node in [node for node in seg.packed
                     if graph.runnable[int(graph.starts[k]) + (node & 0xFFFFFFFF)]]:
            del seg.packed[node]
