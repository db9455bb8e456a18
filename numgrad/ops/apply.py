"""apply: run an op's NumPy forward and, when a gradient is needed, record its node on the tape.

This is the hot path of every forward op: it appends a handful of integers to the current tape
segment (Note [packed counts] in tape.py) and creates no Python object beyond the output Tensor.
"""
import numpy as np

from .. import grad_mode, tape
from ..tensor import Tensor, new_version_counter
from . import views

_NO_ATTRS = {}
on_record = None   # set by autograd/anomaly.py while anomaly mode is on: keeps forward stacks
_ndarray = np.ndarray
_state = grad_mode.state
_recorder = tape._recorder
_epoch = tape._inplace_epoch
_new = object.__new__
_FLOAT64, _CUDA = tape.FLOAT64, tape.CUDA
_MAX_NODES, _MAX_SAVED_BYTES = tape.MAX_NODES, tape.MAX_SAVED_BYTES


def apply(op, inputs, attrs=_NO_ATTRS):
    """Run `op` on `inputs` (Tensors, or ndarrays for constants such as Python scalars).

    Float inputs share one dtype already (the callers promote). Returns a Tensor, or a tuple of
    Tensors for an op with several outputs.
    """
    arrays = []
    needs_grad = False
    on_device = False
    for t in inputs:
        if type(t) is _ndarray:
            arrays.append(t)
        else:
            data = t._data
            arrays.append(data)
            if type(data) is not _ndarray:
                on_device = True
            if t._requires_grad:
                needs_grad = True
    if on_device:
        from ..cuda.dispatch import forward      # the numba.cuda twin of op.forward
        result = forward(op, arrays, attrs)
    elif attrs:
        result = op.forward(*arrays, **attrs)
    else:
        result = op.forward(*arrays)
    if op.n_out == 1:
        outs = (result if type(result) is _ndarray or on_device else np.asarray(result),)
    else:
        outs = tuple(o if type(o) is _ndarray or on_device else np.asarray(o) for o in result)
    if needs_grad and op.differentiable and _state.grad_enabled:
        tensors = _record(op, inputs, arrays, outs, attrs)
    else:
        inference = _state.inference
        tensors = [Tensor._make(o, False, None, -1, 0, inference) for o in outs]
    if op.view and not on_device and type(inputs[0]) is not _ndarray:
        views.track(inputs[0], tensors, op)      # Note [views] in views.py
    return tensors[0] if op.n_out == 1 else tuple(tensors)


def _record(op, inputs, arrays, outs, attrs):
    ref = _recorder.current
    seg = ref() if ref is not None else None
    if seg is None:
        seg = tape.current_segment()
    # edges first: a leaf's AccumulateGrad node is appended before this node
    e_nodes, e_slots = [], []
    wanted = 0          # bit k: input k wants a gradient
    bit = 1
    for t in inputs:
        if type(t) is _ndarray:
            e_nodes.append(-1)
            e_slots.append(0)
            bit <<= 1
            continue
        if t._inference:
            _check_inference(op, inputs)
        if t._requires_grad:
            wanted |= bit
            node = t._node
            if node >= 0:
                if t._seg is not seg:
                    seg.deps.add(t._seg)
                e_nodes.append(node)
                e_slots.append(t._slot)
            else:
                e_nodes.append(seg.acc_of.get(id(t)) or seg.add_leaf(t))
                e_slots.append(0)
        else:
            e_nodes.append(-1)
            e_slots.append(0)
        bit <<= 1
    is64 = outs[0].dtype.itemsize == 8
    n_out = len(outs)
    # The commonest node of scalar code, an elementwise op without attributes and with a 0-d
    # output on the host: its meta and counts are constants of the op, and every value it saves
    # is a float scalar kept by value.
    scalar = op.elementwise and op.meta is None and outs[0].ndim == 0 and type(outs[0]) is _ndarray
    if scalar:
        meta, fmeta, counts = op.scalar_meta, (), op.scalar_counts
    else:
        if outs[0].ndim == 0 and op.elementwise:
            meta = list(op.scalar_meta)   # every shape is () when an elementwise output is
        else:
            meta = []
            for a in arrays:
                meta.append(a.ndim)
                meta += a.shape
            for o in outs:
                meta.append(o.ndim)
                meta += o.shape
        fmeta = ()
        if op.meta is not None:
            ints, fmeta = op.meta(**attrs)
            meta.extend(ints)
        counts = op.counts | len(meta) << tape.META_BITS | len(fmeta) << tape.FM_BITS
        if op.n_in is None:
            counts |= len(arrays)
        if op.n_out is None:
            counts |= n_out << tape.OUT_BITS
    # Segment.add_node, inline (this is the hot path of every recorded op)
    local = len(seg.kind)
    seg.kind.append(op.code | (_FLOAT64 if is64 else 0) | (0 if type(outs[0]) is _ndarray else _CUDA))
    seg.counts.append(counts)
    node = seg.base | local
    if local >= _MAX_NODES or seg.saved_bytes >= _MAX_SAVED_BYTES:
        tape.close_segment(seg)
    if on_record is not None:
        on_record(seg, node)
    seg.e_node.extend(e_nodes)
    seg.e_slot.extend(e_slots)
    seg.mt.extend(meta)
    if fmeta:
        seg.fm.extend(fmeta)
    by_value = scalar and seg.last_epoch == _epoch[0]
    column = seg.sv64 if is64 else seg.sv32
    out_vcs = [None] * n_out
    for index, readers in op.save_plan:
        if not readers & wanted:
            # only derivatives that will not be computed read it: no version check (as torch,
            # which would not have saved it)
            value, vc, version = (arrays[index] if index >= 0 else outs[~index]), None, 0
        elif index >= 0:
            t = inputs[index]
            if type(t) is _ndarray:
                value, vc, version = t, None, 0
            else:
                value, vc = arrays[index], t._vc
                if vc is None:
                    vc = t._vc = new_version_counter()
                elif not vc[1]:
                    vc[1] = True         # saved now: later in-place changes must be checked
                version = vc[0]
        else:
            value, vc, version = outs[~index], new_version_counter(), 0
            out_vcs[~index] = vc
        if not version and (by_value or (value.ndim == 0 and type(value) is _ndarray
                                         and value.dtype.kind == "f"
                                         and seg.last_epoch == _epoch[0])):
            # the common case of Segment.save, inline: this loop is the hot path
            seg.s_ref.append(len(column))
            column.append(value)
            seg.s_vc.append(vc)
        else:
            seg.save(value, is64, vc, version)
    if n_out == 1:
        # Tensor._make, inline
        t = _new(Tensor)
        t._data = outs[0]
        t._requires_grad = True
        t._seg = seg
        t._node = node
        t._slot = 0
        t._grad = None
        t._vc = out_vcs[0]
        t._inference = False
        t._extra = None
        return (t,)
    return [Tensor._make(o, True, seg, node, j, False, out_vcs[j]) for j, o in enumerate(outs)]


def _check_inference(op, inputs):
    for index in op.save_index:
        if index >= 0 and type(inputs[index]) is not _ndarray and inputs[index]._inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created "
                "in inference mode in computation tracked by autograd. To work around this, you can "
                "make a clone to get a normal tensor and use it in autograd, or use "
                "`numgrad.no_grad()` instead of `numgrad.inference_mode()`.")
