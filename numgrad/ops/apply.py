"""apply: run an op's NumPy forward and, when a gradient is needed, record its node on the tape."""
import numpy as np

from .. import grad_mode, tape
from ..tensor import Tensor, new_version_counter

_NO_ATTRS = {}


def apply(op, inputs, attrs=_NO_ATTRS, fmeta=None):
    """Run `op` on `inputs` (Tensors, or ndarrays for constants such as Python scalars).

    Float inputs share one dtype already (the callers promote). Returns a Tensor, or a tuple of
    Tensors for an op with several outputs.
    """
    arrays = []
    needs_grad = False
    for t in inputs:
        if type(t) is np.ndarray:
            arrays.append(t)
        else:
            arrays.append(t._data)
            if t._requires_grad:
                needs_grad = True
    result = op.forward(*arrays, **attrs)
    outs = result if op.n_out > 1 else (result,)
    outs = tuple(o if type(o) is np.ndarray else np.asarray(o) for o in outs)
    if needs_grad and op.differentiable and grad_mode.state.grad_enabled:
        tensors = _record(op, inputs, arrays, outs, attrs, fmeta)
    else:
        inference = grad_mode.state.inference
        tensors = tuple(Tensor._make(o, False, None, -1, 0, inference) for o in outs)
    return tensors if op.n_out > 1 else tensors[0]


def _record(op, inputs, arrays, outs, attrs, fmeta):
    seg = tape.current_segment()
    edges = []
    for t in inputs:
        if type(t) is not np.ndarray and t._requires_grad:
            node = t._node
            if node >= 0:
                if t._seg is not seg:
                    seg.deps.add(t._seg)
                edges.append((node, t._slot))
            else:
                edges.append((seg.acc_of.get(id(t)) or seg.add_leaf(t), 0))
        else:
            edges.append((-1, 0))
    meta = []
    for a in arrays:
        meta.append(a.ndim)
        meta.extend(a.shape)
    for o in outs:
        meta.append(o.ndim)
        meta.extend(o.shape)
    if op.meta is not None:
        ints, floats = op.meta(**attrs)
        meta.extend(ints)
        fmeta = floats
    for index in op.save_index:
        if index >= 0 and type(inputs[index]) is not np.ndarray and inputs[index]._inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. To work around you can make "
                "a clone to get a normal tensor and use it in autograd.")
    is64 = outs[0].dtype == np.float64
    node = seg.add_node(op.code, 1 if is64 else 0, 0, edges, [o.size for o in outs], meta, fmeta)
    out_vcs = [None] * len(outs)
    for index in op.save_index:
        if index >= 0:
            t = inputs[index]
            if type(t) is np.ndarray:
                seg.save(t, is64, None, 0)
                continue
            vc = t._vc
            if vc is None:
                vc = t._vc = new_version_counter()
            seg.save(arrays[index], is64, vc, vc[0])
        else:
            vc = out_vcs[~index] = new_version_counter()
            seg.save(outs[~index], is64, vc, 0)
    return tuple(Tensor._make(o, True, seg, node, j, False, out_vcs[j]) for j, o in enumerate(outs))
