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
# saved_tensors_hooks blocks open in any thread (autograd/saved_hooks.py): recording reads this
# module global first, cheaper than the thread-local state it then consults
packing = 0
_ndarray = np.ndarray
_asarray = np.asarray
_state = grad_mode.state
_recorder = tape._recorder
_epoch = tape._inplace_epoch
_new = object.__new__
_FLOAT64, _CUDA = tape.FLOAT64, tape.CUDA
_LEAF, _NO_GRAD_VIEW = tape.LEAF, tape.NO_GRAD_VIEW


# Note [quiet forwards]
# torch computes 1 / 0, log(0) or exp(1000) as inf or nan, silently; NumPy warns ("divide by
# zero encountered"), and under warnings-as-errors it raises. Forwards run with NumPy's
# floating-point errors ignored. Entering np.errstate costs 1 us, a third of a recorded scalar op;
# NumPy 2 keeps those settings in a context variable, whose set/reset cost 0.1 us.
class _NumPy1Errors:
    """NumPy 1's settings, behind the context variable's set/reset."""

    @staticmethod
    def set(settings):
        return np.seterr(**settings)

    @staticmethod
    def reset(previous):
        np.seterr(**previous)


try:
    from numpy._core._ufunc_config import _extobj_contextvar as _fp_errors
    with np.errstate(all="ignore"):
        _IGNORE_FP_ERRORS = _fp_errors.get()
except ImportError:
    _fp_errors, _IGNORE_FP_ERRORS = _NumPy1Errors, {"all": "ignore"}
_set_fp_errors, _reset_fp_errors = _fp_errors.set, _fp_errors.reset


# Note [values not saved]
# A value that only the derivatives of inputs needing no gradient read (x in `x * 2`, or in
# `x * c` for a constant tensor c) is never read by the backward: the kernels compute only the
# gradients whose destination exists. torch does not save it, so it neither keeps the tensor alive
# (`(a @ b) * scale` would hold a @ b until the backward), nor version-checks it, nor passes it to
# a saved_tensors_hooks pack hook, and grad_fn._saved_<name> is None. The tape keeps a shared 0-d
# zero in its place, so every node still has one entry per saved value.
_NOT_SAVED = (np.zeros((), np.float32), np.zeros((), np.float64))
for _placeholder in _NOT_SAVED:
    _placeholder.flags.writeable = False


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
            continue
        data = t._data
        arrays.append(data)
        if type(data) is not _ndarray:
            on_device = True
        if t._requires_grad:
            needs_grad = True
    if on_device:
        from ..cuda.dispatch import forward      # the numba.cuda twin of op.forward
        result = forward(op, arrays, attrs)
    else:
        quiet = _set_fp_errors(_IGNORE_FP_ERRORS)      # Note [quiet forwards]
        try:
            result = op.forward(*arrays, **attrs) if attrs else op.forward(*arrays)
        except ValueError:
            _raise_if_not_broadcastable(op, arrays)
            raise
        finally:
            _reset_fp_errors(quiet)
    record = needs_grad and op.differentiable and _state.grad_enabled
    if op.n_out != 1:
        outs = tuple(o if type(o) is _ndarray or on_device else _asarray(o) for o in result)
        if record:
            tensors = _record(op, inputs, arrays, outs, attrs)
        else:
            inference = _state.inference
            tensors = tuple(_tensor(o, False, None, -1, None, inference) for o in outs)
    else:
        # a ufunc of 0-d arrays returns a NumPy scalar
        out = result if type(result) is _ndarray or on_device else _asarray(result)
        if record and op.scalar_kinds is not None and out.ndim == 0 and not on_device:
            return _record_scalar(op, inputs, arrays, out)
        if record:
            tensors = _record(op, inputs, arrays, (out,), attrs)
        else:
            tensors = (_tensor(out, False, None, -1, None, _state.inference),)
    if op.view and type(inputs[0]) is not _ndarray:
        views.track(inputs[0], tensors, op, attrs)      # Note [views] in views.py
        # a view of an inference tensor is one, in any mode, and a normal tensor's view normal
        inference = inputs[0]._inference
        for t in tensors:
            t._inference = inference
    return tensors[0] if op.n_out == 1 else tensors


class Derived:
    """An attribute value computed when grad_fn._saved_<name> reads it: for what torch's node keeps
    but no kernel reads (batch norm's 1 / sqrt(var + eps)), so that the forward pays nothing."""

    __slots__ = ("compute",)

    def __init__(self, compute):
        self.compute = compute


def show_attributes(out, **values):
    """Keep what torch's node of `out` (one of the node's outputs) holds besides tensors - its
    dims, the input's sizes, scalar arguments - under torch's names, for grad_fn._saved_<name>
    (node_saved.py). Nothing when out was not recorded. Returns out."""
    if out._node >= 0:
        out._seg.attributes[out._node] = values
    return out


def _raise_if_not_broadcastable(op, arrays):
    """torch's error for elementwise operands whose shapes do not broadcast, where NumPy raises a
    ValueError of its own. The shapes are combined left to right, each new one against the
    broadcast of those before it, and the first clash from the last dimension is named, as
    torch's infer_size does."""
    # comparisons and logical ops are NumPy ufuncs without derivative formulas: elementwise too
    plain_ufunc = isinstance(op.forward, np.ufunc) and op.forward.signature is None
    if op.elementwise or plain_ufunc:
        broadcast_shape(*(a.shape for a in arrays))


def broadcast_shape(*shapes):
    """The shapes broadcast together, or torch's error (infer_size): combined left to right, each
    new one against the broadcast of those before it, the first clash from the last dimension."""
    shape = ()
    for other in shapes:
        ndim = max(len(shape), len(other))
        for i in range(ndim - 1, -1, -1):
            offset = ndim - 1 - i
            size_a = shape[len(shape) - 1 - offset] if offset < len(shape) else 1
            size_b = other[len(other) - 1 - offset] if offset < len(other) else 1
            if size_a != size_b and size_a != 1 and size_b != 1:
                raise RuntimeError(f"The size of tensor a ({size_a}) must match the size of tensor "
                                   f"b ({size_b}) at non-singleton dimension {i}") from None
        shape = np.broadcast_shapes(shape, other)
    return shape


def _tensor(data, requires_grad, seg, node, vc, inference):
    """Tensor._make for an op's output (slot 0), inline: this is the hot path of every op."""
    t = _new(Tensor)
    t._data = data
    t._requires_grad = requires_grad
    t._seg = seg
    t._node = node
    t._slot = 0
    t._grad = None
    t._vc = vc
    t._inference = inference
    t._extra = None
    return t


def _record(op, inputs, arrays, outs, attrs):
    ref = _recorder.current
    seg = ref() if ref is not None else None
    if seg is None:
        seg = tape.current_segment()
    out = outs[0]
    is64 = out.dtype.itemsize == 8
    n_out = len(outs)
    if not (op.elementwise or op.mixed_floats):
        _check_one_float_type(op, arrays, out.dtype)
    kind = op.code | (_FLOAT64 if is64 else 0) | (0 if type(out) is _ndarray else _CUDA)
    if out.ndim == 0 and op.elementwise:
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
    wanted = _append_edges(op, inputs, seg)
    node = seg.add_node(kind, counts)
    if on_record is not None:
        on_record(seg, node)
    seg.mt.extend(meta)
    if fmeta:
        seg.fm.extend(fmeta)
    column = seg.sv64 if is64 else seg.sv32
    out_vcs = [None] * n_out
    for index, readers in op.save_plan:
        if not readers & wanted:
            value, vc, version = _NOT_SAVED[is64], None, 0      # Note [values not saved]
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
        if not version and (value.ndim == 0 and type(value) is _ndarray
                            and value.dtype.kind == "f" and seg.last_epoch == _epoch[0]):
            # the common case of Segment.save, inline: this loop is the hot path
            seg.s_ref.append(len(column))
            column.append(value)
            seg.s_vc.append(vc)
        else:
            seg.save(value, is64, vc, version)
    if n_out == 1:
        tensors = (_tensor(out, True, seg, node, out_vcs[0], False),)
    else:
        tensors = tuple(Tensor._make(o, True, seg, node, j, False, out_vcs[j])
                        for j, o in enumerate(outs))
    if packing and _state.saved_hooks is not None:
        _pack_saved(seg, node, op, inputs, tensors, wanted)
    return tensors


def _check_one_float_type(op, arrays, dtype):
    """A hand-written kernel reads every float input as the node's float type: a float64 operand
    of a float32 node would be read past its end. The public functions promote or refuse with
    torch's words first; this is the last line, against memory corruption."""
    for a in arrays:
        if a.dtype.kind == "f" and a.dtype != dtype:
            raise RuntimeError(f"{op.name}: expected every float operand to be {dtype}, but got "
                               f"{a.dtype}")


def _append_edges(op, inputs, seg):
    """The node's edges, straight into the segment's columns (a leaf's AccumulateGrad node is
    appended to the node columns first, so the node's own id is taken after them). Returns the
    bit mask of the inputs that want a gradient."""
    e_node, e_slot = seg.e_node, seg.e_slot
    first_edge = len(e_node)
    wanted = 0
    bit = 1
    inference = False
    for t in inputs:
        if type(t) is not _ndarray:
            inference = inference or t._inference
            if t._requires_grad:
                wanted |= bit
                node = t._node
                if node >= 0:
                    if t._extra is not None and views.seen_outdated(t):
                        # read anew first (Note [views changed unrecorded] in views.py), which
                        # records a node: the edges so far are taken back and appended again
                        del e_node[first_edge:]
                        del e_slot[first_edge:]
                        views.refresh(t)
                        return _append_edges(op, inputs, seg)
                    if t._seg is not seg:
                        seg.deps.add(t._seg)
                    e_node.append(node)
                    e_slot.append(t._slot)
                elif node == _LEAF:
                    e_node.append(seg.acc_of.get(id(t)) or seg.add_leaf(t))
                    e_slot.append(0)
                elif node == _NO_GRAD_VIEW and views.outdated(t):
                    del e_node[first_edge:]     # read anew, as above
                    del e_slot[first_edge:]
                    views.refresh(t)
                    return _append_edges(op, inputs, seg)
                elif node == _NO_GRAD_VIEW and not views.changed_since_made(t):
                    e_node.append(-1)            # its gradient goes nowhere, as in torch
                    e_slot.append(0)
                    if len(inputs) > 1:
                        # torch's op of several inputs saves a value for this one's gradient
                        # only where its edge is valid (one of a single input saves it anyway)
                        wanted &= ~bit
                else:
                    del e_node[first_edge:]        # the tape as it was
                    del e_slot[first_edge:]
                    raise views.stale_view_error(t)
                bit <<= 1
                continue
        e_node.append(-1)
        e_slot.append(0)
        bit <<= 1
    if inference:
        _check_inference(op, inputs, seg, first_edge, wanted)
    return wanted


def _record_scalar(op, inputs, arrays, out):
    """_record for the commonest node of scalar code: an elementwise op without attributes whose
    output is a 0-d host float array. Its kind, meta and counts are constants of the op and every
    value it saves is a float scalar, kept by value; this is _record with what cannot vary taken
    out, and it returns the output Tensor itself. Scalar programs record one node per Python
    operator, so each line here is paid per op."""
    ref = _recorder.current
    seg = ref() if ref is not None else None
    if seg is None:
        seg = tape.current_segment()
    wanted = _append_edges(op, inputs, seg)
    is64 = out.dtype.itemsize == 8
    node = seg.add_node(op.scalar_kinds[is64], op.scalar_counts)
    if on_record is not None:
        on_record(seg, node)
    seg.mt.extend(op.scalar_meta)
    column = seg.sv64 if is64 else seg.sv32
    out_vc = None
    for index, readers in op.save_plan:
        version = 0
        if not readers & wanted:
            value, vc = _NOT_SAVED[is64], None      # Note [values not saved]
        elif index < 0:
            value, vc = out, new_version_counter()
            out_vc = vc
        else:
            value, t = arrays[index], inputs[index]
            if type(t) is _ndarray:
                vc = None
            else:
                vc = t._vc
                if vc is None:
                    vc = t._vc = new_version_counter()
                elif not vc[1]:
                    vc[1] = True         # saved now: later in-place changes must be checked
                version = vc[0]
        if version or seg.last_epoch != _epoch[0]:
            seg.save(value, is64, vc, version)
        else:
            seg.s_ref.append(len(column))
            column.append(value)
            seg.s_vc.append(vc)
    result = _tensor(out, True, seg, node, out_vc, False)
    if packing and _state.saved_hooks is not None:
        _pack_saved(seg, node, op, inputs, (result,), wanted)
    return result


def _pack_saved(seg, node, op, inputs, outputs, wanted):
    """A saved_tensors_hooks block is active: Note [packed saved values]. Values not saved are
    not packed (Note [values not saved])."""
    from ..autograd.saved_hooks import pack_saved
    pack_saved(seg, node, op, inputs, outputs, op.kept(wanted))


def _check_inference(op, inputs, seg, edges_start, wanted):
    """torch's refusal to save an inference tensor, where a gradient that will be computed reads
    it (Note [values not saved]); the edges this node appended are taken back first, so the
    tape is as it was."""
    for index, readers in op.save_plan:
        if index >= 0 and readers & wanted and type(inputs[index]) is not _ndarray \
                and inputs[index]._inference:
            del seg.e_node[edges_start:]
            del seg.e_slot[edges_start:]
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created "
                "in inference mode in computation tracked by autograd. To work around this, you can "
                "make a clone to get a normal tensor and use it in autograd, or use "
                "`numgrad.no_grad()` instead of `numgrad.inference_mode()`.")
