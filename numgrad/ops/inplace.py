"""In-place ops: add_, mul_, ..., zero_, fill_, copy_, clamp_, __setitem__.

Every one bumps the version counter, also under no_grad. Outside of recording they just write the
data. When the graph is recorded (a non-leaf, or an operand that requires grad) the op is computed
out of place and recorded, the result is written into this tensor's memory, and the tensor's
history moves to the new node, as in torch. A leaf that requires grad refuses, in grad mode, and
so does a view of one. Views and in-place ops: Note [in-place through views].
"""
import sys
import weakref

import numpy as np

from .. import grad_mode, tape
from ..tensor import Tensor

_LEAF_ERROR = "a leaf Variable that requires grad is being used in an in-place operation."
_VIEW_OF_LEAF_ERROR = ("a view of a leaf Variable that requires grad is being used in an in-place "
                       "operation.")

# Note [in-place through views]
# A view shares its base's memory: an in-place op through it changes the base's values, and one on
# the base changes its views'. torch then rewrites the other aliases' histories (CopySlices, view
# nodes regenerated on access). numgrad cannot reach those tensors' objects from the tape, so each
# recorded in-place op notes which histories it made stale (a _StaleMark): the whole family of the
# modified tensor - the first non-view tensor up its chain of view ops and every view of that
# recorded before the op - except the modified tensor itself, whose history moves to the in-place
# node. A backward that would carry a gradient through a stale history, from a node recorded after
# the op, raises before anything runs (check_stale_views); uses recorded before the op saw the old
# values and stay correct. `base[index] op= value` is Python's getitem, in-place op on the view,
# then setitem, and setitem gives the base a correct history again: its own read of the base,
# which masks the written region out, is exempt. A view of a leaf that requires grad refuses
# in-place ops at once, as in torch. Views made while the base did not require grad are not on
# the tape: an in-place op through one with an operand that requires grad leaves the base without
# a history (torch would give it one).

# The ops whose output is a view of their input (one input).
_VIEW_OPS = ("view", "unsqueeze", "squeeze", "squeeze_dim", "squeeze_dims", "permute", "transpose",
             "t", "strided", "select", "expand", "split", "split_with_sizes", "unbind")
_view_codes = None


def _is_view_op(code):
    global _view_codes
    if _view_codes is None:
        from .registry import BY_NAME
        _view_codes = frozenset(BY_NAME[name].code for name in _VIEW_OPS if name in BY_NAME)
    return code in _view_codes


class _StaleMark:
    """Histories made stale by one recorded in-place op (Note [in-place through views])."""

    __slots__ = ("root", "modified", "after", "exempt")

    def __init__(self, root, modified, after):
        self.root = root            # (node id, output) of the first non-view tensor of the family
        self.modified = modified    # (node id, output) the modified tensor had before the op
        self.after = after          # id of the in-place op's last node: later readers are stale
        self.exempt = None          # (first, last) node ids of a setitem that rewrote the base


_stale_marks = weakref.WeakKeyDictionary()   # segment of a family's root -> [_StaleMark]


def _first_input(seg, local):
    """(producer node id, its output) of a node's first input edge."""
    start, _ = seg.inputs_of(local)
    return seg.e_node[start], seg.e_slot[start]


def _view_root(t):
    """(segment, node id, output) of the first tensor up t's chain of recorded view ops (t's own
    when it is not a view)."""
    from ..node import _segment_holding
    seg, node, slot = t._seg, t._node, t._slot
    while node >= 0 and _is_view_op(seg.op_of(tape.local_of(node))):
        producer, slot = _first_input(seg, tape.local_of(node))
        if producer < 0:
            break
        seg, node = _segment_holding(seg, producer), producer
    return seg, node, slot


def is_recorded_view(t):
    return t._node >= 0 and _is_view_op(t._seg.op_of(tape.local_of(t._node)))


def _check_not_view_of_leaf(self):
    if grad_mode.state.grad_enabled and is_recorded_view(self):
        seg, node, _ = _view_root(self)
        if node >= 0 and seg.op_of(tape.local_of(node)) == tape.ACCUMULATE:
            raise RuntimeError(_VIEW_OF_LEAF_ERROR)


def _may_have_aliases(t):
    # Views and detached aliases share the version counter (so do saved values): when nothing but
    # the tensor itself refers to it (getrefcount counts its own argument too), t has no view.
    return t._vc is not None and sys.getrefcount(t._vc) > 2


def _mark_stale(self, after):
    """Called by rebase before self's history moves to the in-place node `after`."""
    if self._node < 0 or not (is_recorded_view(self) or _may_have_aliases(self)):
        return None
    root_seg, root_node, root_slot = _view_root(self)
    mark = _StaleMark((root_node, root_slot), (self._node, self._slot), after)
    _stale_marks.setdefault(root_seg, []).append(mark)
    return mark


def check_stale_views(graph):
    """Raise before a backward runs when it would carry a gradient through a history made stale by
    an in-place op (Note [in-place through views])."""
    marks = [m for seg in graph.segments for m in _stale_marks.get(seg, ())]
    if not marks:
        return
    ids = np.concatenate([seg.base + np.arange(len(seg), dtype=np.int64) for seg in graph.segments])
    _is_view_op(0)
    views = np.flatnonzero(np.isin(graph.op, list(_view_codes)))
    view_src = graph.e_node[graph.in_ptr[views]]
    view_src_slot = graph.e_slot[graph.in_ptr[views]]
    edges = None
    for mark in marks:
        root, root_slot = _position(graph, mark.root[0]), mark.root[1]
        modified = _position(graph, mark.modified[0]), mark.modified[1]
        # the family's views recorded before the op: a view op has one input, so grow the family
        # from the root one level of views per pass
        early = (views > root) & (ids[views] < mark.after)
        candidates, src = views[early], view_src[early]
        from_root = (src == root) & (view_src_slot[early] == root_slot)
        family = np.zeros(graph.n, np.bool_)
        while True:
            grown = ~family[candidates] & (from_root | ((src >= 0) & family[np.maximum(src, 0)]))
            if not grown.any():
                break
            family[candidates[grown]] = True
        if modified == (root, root_slot) and not family.any():
            continue                  # an in-place op on a tensor that had no view: nothing stale
        if edges is None:
            owner = np.repeat(np.arange(graph.n), np.diff(graph.in_ptr))
            live = (graph.e_node >= 0) & graph.needed[owner]
            edges = (ids[owner], live, np.where(live, graph.e_node, 0))
        reader, live, dst = edges
        reads = live & (reader > mark.after)
        if mark.exempt is not None:
            first, last = mark.exempt
            reads &= ~((reader >= first) & (reader <= last))
        into_root = (dst == root) & (graph.e_slot == root_slot)
        stale = reads & (into_root | family[dst])
        stale &= ~((dst == modified[0]) & (graph.e_slot == modified[1]))
        if stale.any():
            from ..node import node_name
            e = int(np.flatnonzero(stale)[0])
            seg, node = graph.locate(int(graph.e_node[e]))
            raise RuntimeError(
                f"output {int(graph.e_slot[e])} of {node_name(seg, node)} was used after an "
                "in-place operation changed its values through a view (or changed the base of "
                "this view), and numgrad cannot rewrite its history as torch does. Apply the "
                "in-place operation to a clone(), use the out-of-place op, or assign through the "
                "base: base[index] = value.")


def _position(graph, node_id):
    """A node's position in the lowered graph, -1 when its segment was not lowered."""
    if all(seg.serial != tape.segment_of(node_id) for seg in graph.segments):
        return -1
    return int(graph.index_of([node_id])[0])


def _records(self, *others):
    if not grad_mode.state.grad_enabled:
        return False
    return self._requires_grad or any(isinstance(o, Tensor) and o._requires_grad for o in others)


def _check_can_write(self):
    """torch's refusals, before anything is written or recorded."""
    if not self._data.flags.writeable and 0 in self._data.strides:
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor "
                           "refers to a single memory location. Please clone() the tensor before "
                           "performing the operation.")
    if self._node < 0 and self._requires_grad and grad_mode.state.grad_enabled:
        raise RuntimeError(_LEAF_ERROR)
    _check_not_view_of_leaf(self)
    if self._inference and not grad_mode.state.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed."
                           "You can make a clone to get a normal tensor before doing inplace update."
                           "See https://github.com/pytorch/rfcs/pull/17 for more details.")


def _snapshot(self):
    """This tensor's current value and history, in memory of its own, for ops that save their
    input: the in-place write must not change what the new node saved."""
    return Tensor._make(self._data.copy(), self._requires_grad, self._seg, self._node, self._slot)


def rebase(self, result):
    """Write result into self's memory and give self result's history."""
    if result._data.shape != self._data.shape:
        raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast "
                           f"shape {list(result._data.shape)}")
    np.copyto(self._data, result._data, casting="unsafe")
    _mark_stale(self, result._node)
    self._seg, self._node, self._slot = result._seg, result._node, result._slot
    self._requires_grad = result._requires_grad
    self._bump_version()
    return self


def apply_inplace(self, fn, *others, saves_self=True):
    """self = fn(self, *others), in place."""
    _check_can_write(self)
    if _records(self, *others):
        source = _snapshot(self) if saves_self and self._requires_grad else self
        return rebase(self, fn(source, *others))
    with grad_mode.no_grad():
        result = fn(Tensor._make(self._data, False), *others)
    if result._data.shape != self._data.shape:
        raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast "
                           f"shape {list(result._data.shape)}")
    np.copyto(self._data, result._data, casting="unsafe")
    self._bump_version()
    return self


def _method(fn, saves_self=True):
    def method(self, *args, **kwargs):
        return apply_inplace(self, lambda s, *o: fn(s, *o, **kwargs), *args, saves_self=saves_self)
    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"In-place {fn.__name__}: bumps the version counter."
    return method


def zero_(self):
    return fill_(self, 0)


def fill_(self, value):
    _check_can_write(self)
    if _records(self, value):
        from . import elementwise as E
        # zero times the old value keeps the graph shape torch has; value's gradient flows
        return rebase(self, E.add(E.mul(_snapshot(self), 0.0), value))
    self._data[...] = value._data if isinstance(value, Tensor) else value
    self._bump_version()
    return self


def copy_(self, src):
    _check_can_write(self)
    if _records(self, src):
        from . import elementwise as E
        from .reduce import expand
        src_t = src if isinstance(src, Tensor) else Tensor._make(np.asarray(src), False)
        src_t = E.cast(src_t, self._data.dtype) if src_t._data.dtype != self._data.dtype else src_t
        result = expand(src_t, self._data.shape)
        if self._requires_grad:
            result = E.add(E.mul(_snapshot(self), 0.0), result)
        return rebase(self, result)
    self._data[...] = src._data if isinstance(src, Tensor) else src
    self._bump_version()
    return self


def setitem(self, index, value):
    """self[index] = value: differentiable for both self (outside the index) and value."""
    from .index import _normalize, _positions, put_add
    index = _normalize(index)
    if not _records(self, value):
        _check_can_write(self)
        self._data[index] = value._data if isinstance(value, Tensor) else value
        self._bump_version()
        return
    _check_can_write(self)
    from . import elementwise as E
    positions = np.ascontiguousarray(_positions(self._data.shape, index), np.int64)
    value_t = value if isinstance(value, Tensor) else Tensor._make(np.asarray(value, self._data.dtype), False)
    value_t = E.cast(value_t, self._data.dtype) if value_t._data.dtype != self._data.dtype else value_t
    from .reduce import expand
    value_t = expand(value_t, positions.shape)
    # self outside the index, plus value at the index: keep = self - self[index] at those places
    mask = np.ones(self._data.size, self._data.dtype)
    mask[positions.reshape(-1)] = 0
    rewritten = _mark_of_modified_view(self, index, value)
    seg = tape.current_segment()
    first = seg.base | len(seg)
    kept = E.mul(_snapshot(self) if self._requires_grad else self, mask.reshape(self._data.shape))
    placed = put_add(value_t, positions, self._data.shape) if value_t._requires_grad else \
        Tensor._make(_place(value_t._data, positions, self._data), False)
    result = E.add(kept, placed)
    if rewritten is not None:
        rewritten.exempt = (first, result._node)
    rebase(self, result)


def _mark_of_modified_view(self, index, value):
    """The stale mark of `base[index] op= value` when this setitem completes one: value is the
    result of an in-place op through the view self[index] (Note [in-place through views])."""
    if not isinstance(value, Tensor) or value._node < 0 or self._node < 0:
        return None
    root_seg, _, _ = _view_root(self)
    marks = [m for m in _stale_marks.get(root_seg, ()) if m.after == value._node]
    if not marks:
        return None
    region, written = self._data[index], value._data
    same_memory = (isinstance(region, np.ndarray)
                   and region.__array_interface__["data"] == written.__array_interface__["data"]
                   and region.shape == written.shape and region.strides == written.strides)
    return marks[-1] if same_memory else None


def _place(values, positions, like):
    out = np.zeros(like.size, like.dtype)
    out[positions.reshape(-1)] = values.reshape(-1)
    return out.reshape(like.shape)
