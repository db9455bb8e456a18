"""Custom autograd Functions: forward and backward written in Python by the user.

Their nodes are recorded with the PYTHON flag; the compiled scheduler hands them back to Python
(engine.serve_python_node), which calls `backward` and delivers its results into the destination
buffers, then lets the scheduler resume.
"""
import functools
import weakref

import numpy as np

from .. import grad_mode, tape
from ..ops.registry import PYTHON_FUNCTION
from ..tensor import Tensor, new_version_counter


class _SavedTensor:
    """A tensor saved by save_for_backward, stored without a strong reference to the graph (no
    cycle through the tape), version-checked when unpacked."""

    __slots__ = ("data", "vc", "version", "requires_grad", "seg", "node", "slot", "leaf", "output")

    def __init__(self, t, output_index):
        self.data = t._data
        self.vc = t._shared_vc()
        self.version = self.vc[0]
        self.requires_grad = t._requires_grad
        self.output = output_index
        self.leaf = t if t._node < 0 else None
        self.seg = weakref.ref(t._seg) if t._seg is not None else None
        self.node, self.slot = t._node, t._slot

    def unpack(self, ctx):
        if self.vc[0] != self.version:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [numgrad.{_kind(self.data)} {list(self.data.shape)}], which is "
                f"output {self.output if self.output is not None else 0} of {ctx.node_name}, is at "
                f"version {self.vc[0]}; expected version {self.version} instead.")
        if self.leaf is not None:
            return self.leaf
        seg = self.seg() if self.seg is not None else None
        if self.output is not None:
            seg, node, slot = ctx._seg_ref(), ctx._node, self.output
        else:
            node, slot = self.node, self.slot
        return Tensor._make(self.data, self.requires_grad and seg is not None, seg,
                            node if seg is not None else -1, slot, vc=self.vc)


def _kind(data):
    return "DoubleTensor" if data.dtype == np.float64 else "FloatTensor"


class FunctionCtx:
    """The `ctx` of a custom Function: what forward leaves for backward."""

    def __init__(self, cls):
        self._cls = cls
        self.node_name = cls.__name__ + "Backward"
        self._to_save = ()
        self._saved = None
        self._released = False
        self._non_differentiable = set()
        self._dirty = set()
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._seg_ref = lambda: None
        self._node = -1

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self._to_save = tensors

    @property
    def saved_tensors(self):
        if self._released:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved "
                "tensors after they have already been freed). Saved intermediate values of the "
                "graph are freed when you call .backward() or autograd.grad(). Specify "
                "retain_graph=True if you need to backward through the graph a second time or if "
                "you need to access saved tensors after calling backward.")
        if self._saved is None:
            return tuple(self._to_save)
        return tuple(None if s is None else s.unpack(self) for s in self._saved)

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable.update(id(t) for t in tensors)

    def mark_dirty(self, *tensors):
        self._dirty.update(id(t) for t in tensors)

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    def release(self):
        self._saved = None
        self._to_save = ()
        self._released = True


class Function:
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grad_outputs)`; call
    `.apply(*args)`.

    >>> class Cube(numgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 3 * x ** 2 * g
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx(cls)
        tensor_args = [a for a in args if isinstance(a, Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        ctx.arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        with grad_mode.no_grad():
            raw = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(raw, tuple)
        outputs = (raw,) if single else raw
        record = grad_mode.state.grad_enabled and any(t._requires_grad for t in tensor_args)
        results = []
        for out in outputs:
            if isinstance(out, Tensor) and any(out is a for a in tensor_args) and id(out) not in ctx._dirty:
                out = Tensor._make(out._data, False, vc=out._shared_vc())   # a view of the input
            results.append(out)
        if record:
            _record(ctx, args, results)
        else:
            ctx._saved = [None if t is None else _SavedTensor(t, None) for t in ctx._to_save]
            ctx._to_save = ()
        return results[0] if single else tuple(results)


def _record(ctx, args, results):
    seg = tape.current_segment()
    edges = []
    for a in args:
        if not isinstance(a, Tensor):
            continue
        if not a._requires_grad:
            edges.append((-1, 0))
        elif a._node >= 0:
            if a._seg is not seg:
                seg.deps.add(a._seg)
            edges.append((a._node, a._slot))
        else:
            edges.append((seg.acc_of.get(id(a)) or seg.add_leaf(a), 0))
    tensors = [r for r in results if isinstance(r, Tensor)]
    differentiable = [r for r in tensors if id(r) not in ctx._non_differentiable
                      and r._data.dtype.kind == "f"]
    meta = []
    for a in args:
        if isinstance(a, Tensor):
            meta.append(a._data.ndim)
            meta.extend(a._data.shape)
    for r in differentiable:
        meta.append(r._data.ndim)
        meta.extend(r._data.shape)
    is64 = bool(differentiable) and differentiable[0]._data.dtype == np.float64
    node = seg.add_node(tape.kind_of(PYTHON_FUNCTION.code, is64), tape.PYTHON,
                        tape.pack_counts(len(edges), len(differentiable), 0, len(meta), 0))
    seg.e_node.extend([n for n, _ in edges])
    seg.e_slot.extend([slot for _, slot in edges])
    seg.o_numel.extend([r._data.size for r in differentiable])
    seg.mt.extend(meta)
    seg.python[node] = ctx
    ctx._seg_ref = weakref.ref(seg)
    ctx._node = node
    ctx.output_shapes = [r._data.shape for r in differentiable]
    ctx.output_dtypes = [r._data.dtype for r in differentiable]
    for slot, r in enumerate(differentiable):
        r._requires_grad, r._seg, r._node, r._slot = True, seg, node, slot
        if r._vc is None:
            r._vc = new_version_counter()
    outputs = {id(r): k for k, r in enumerate(differentiable)}
    ctx._saved = [None if t is None else _SavedTensor(t, outputs.get(id(t))) for t in ctx._to_save]
    ctx._to_save = ()


def _call_backward(ctx, grads_out):
    if ctx.materialize_grads:
        grads_out = [g if g is not None else
                     Tensor._make(np.zeros(shape, dtype), False)
                     for g, shape, dtype in zip(grads_out, ctx.output_shapes, ctx.output_dtypes)]
    result = ctx._cls.backward(ctx, *grads_out)
    if not isinstance(result, tuple):
        result = (result,)
    n_args = len(ctx.needs_input_grad)
    if len(result) < n_args or any(r is not None for r in result[n_args:]):
        raise RuntimeError(f"function {ctx.node_name} returned an incorrect number of gradients "
                           f"(expected {n_args}, got {len(result)})")
    return result[:n_args]


def _deliverable(ctx, graph, index, result):
    """Per tensor input (in edge order), the gradient to deliver, checked against its shape."""
    from ..engine import shape_of
    from ..ops.reduce import sum_to
    grads = []
    for k, value in enumerate(result):
        if not ctx.arg_is_tensor[k]:
            continue
        expected = tuple(shape_of(graph, index, len(grads)))
        if value is not None:
            if not isinstance(value, Tensor):
                value = Tensor._make(np.asarray(value), False)
            if tuple(value._data.shape) != expected:
                if not _broadcastable(value._data.shape, expected):
                    raise RuntimeError(f"Function {ctx.node_name} returned an invalid gradient at "
                                       f"index {k} - got {list(value._data.shape)} but expected "
                                       f"shape compatible with {list(expected)}")
                value = sum_to(value, expected)
        grads.append(value)
    return grads


def _broadcastable(shape, target):
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


def run_backward_of_node(graph, buffers, index, seg, node):
    """Called by the engine when the scheduler hands back a custom Function node."""
    from ..engine import output_shape
    ctx = seg.python[node]
    n_out = int(graph.out_ptr[index + 1] - graph.out_ptr[index])
    grads_out = []
    for j in range(n_out):
        slot = buffers.slot(index, j)
        grads_out.append(Tensor._make(buffers.view(slot, output_shape(graph, index, j)).copy(), False)
                         if buffers.written[slot] else None)
    with grad_mode.no_grad():
        result = _call_backward(ctx, grads_out)
    grads = _deliverable(ctx, graph, index, result)
    i0 = int(graph.in_ptr[index])
    for k, g in enumerate(grads):
        dst = int(graph.e_node[i0 + k])
        if g is None or dst < 0 or not graph.needed[dst]:
            continue
        out = int(graph.e_slot[i0 + k])
        slot = int(graph.out_ptr[dst]) + out
        target_dtype = buffers.spaces[graph.buf_kind[slot]].dtype
        buffers.add(slot, output_shape(graph, dst, out), g._data.astype(target_dtype, copy=False))


def differentiable_backward(graph, index, seg, node, grads_out):
    """create_graph=True: backward runs with grad mode on, so its ops are recorded."""
    ctx = seg.python[node]
    return _deliverable(ctx, graph, index, _call_backward(ctx, grads_out))


def once_differentiable(fn):
    """Mark a backward as not differentiable: it runs under no_grad even with create_graph."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            return fn(ctx, *args)
    return wrapper
