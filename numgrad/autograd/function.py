"""Custom autograd Functions: forward and backward written in Python by the user.

Their nodes are recorded with the PYTHON flag; the compiled scheduler hands them back to Python
(engine.serve_python_node), which calls `backward` and delivers its results into the destination
buffers, then lets the scheduler resume.
"""
import functools
import inspect
import warnings
import weakref

import numpy as np

from .. import grad_mode, tape
from ..lower import owner_now, version_message
from ..node import forward_name, node_name
from ..ops import views
from ..ops.registry import PYTHON_FUNCTION
from ..tensor import Tensor, new_version_counter
from .saved_hooks import pack_one, unpacked


class _SavedTensor:
    """A tensor saved by save_for_backward, stored without a strong reference to the graph (no
    cycle through the tape), version-checked when unpacked."""

    __slots__ = ("data", "vc", "version", "requires_grad", "seg", "node", "slot", "leaf", "output",
                 "producer", "packed", "shape")

    def __init__(self, t, output_index):
        self.data = t._data
        self.shape = t._data.shape
        self.packed = None
        if grad_mode.state.saved_hooks is not None and type(t._data) is np.ndarray:
            self.packed = pack_one(t)       # Note [packed saved values]
            self.data = None
        self.vc = t._shared_vc()
        self.version = self.vc[0]
        self.requires_grad = t._requires_grad
        self.output = output_index
        self.leaf = t if t._node < 0 else None
        self.seg = weakref.ref(t._seg) if t._seg is not None else None
        self.node, self.slot = t._node, t._slot
        # the node whose output it is, named now: torch's message names it
        is_input = t._node >= 0 and output_index is None
        self.producer = node_name(t._seg, t._node) if is_input else None

    def check(self, ctx):
        """torch's error when the tensor was modified in place since it was saved (a value packed
        by saved_tensors_hooks is not checked: the backward reads what unpack returns)."""
        if self.packed is None and self.vc[0] != self.version:
            now, shape = (owner_now(self.vc, self.data, self.shape) if self.output is None
                          else (None, self.shape))
            if self.output is not None:
                owner = f", which is output {self.output} of {forward_name(ctx.node_name)},"
            elif now is not None:
                owner = now
            elif self.producer is not None:
                owner = f", which is output {self.slot} of {forward_name(self.producer)},"
            else:
                owner = ""
            raise version_message(self.data.dtype, shape, owner, self.vc[0], self.version)

    def unpack(self, ctx):
        self.check(ctx)
        if self.packed is not None:
            # the unpacked value in the saved tensor's place in the graph; a leaf's stands alone
            data = unpacked(self.packed)._data
            if self.leaf is not None:
                return Tensor._make(data, False)
        else:
            data = self.data
        if self.leaf is not None:
            return self.leaf
        seg = self.seg() if self.seg is not None else None
        if self.output is not None:
            seg, node, slot = ctx._seg_ref(), ctx._node, self.output
        else:
            node, slot = self.node, self.slot
        return Tensor._make(data, self.requires_grad and seg is not None, seg,
                            node if seg is not None else -1, slot, vc=self.vc)


class FunctionCtx:
    """The `ctx` of a custom Function: what forward leaves for backward.

    `needs_input_grad` has one flag per argument of forward (False for non-tensors).
    """

    def __init__(self, cls):
        self._cls = cls
        self.node_name = cls.__name__ + "Backward"
        self._to_save = ()
        self._saved = None
        self._released = False
        self._non_differentiable = set()
        self._dirty = {}        # id -> the tensor marked dirty
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._seg_ref = lambda: None
        self._node = -1
        # Per forward output: (node output slot, shape, dtype); slot -1 for a non-differentiable
        # tensor, None for a non-tensor. backward receives one gradient per output.
        self._outputs = ()
        # Per forward argument: (shape, dtype) of a tensor, None for anything else.
        self._inputs = ()

    def save_for_backward(self, *tensors):
        for k, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{k} is of type {type(t).__name__}")
        self._to_save = tensors

    @property
    def saved_tensors(self):
        if self._released:
            raise RuntimeError(tape.FREED_ERROR)
        if self._saved is None:
            return tuple(self._to_save)
        return tuple(None if s is None else s.unpack(self) for s in self._saved)

    @property
    def saved_variables(self):
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning,
                      stacklevel=2)
        return self.saved_tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable.update(id(t) for t in tensors)

    def mark_dirty(self, *tensors):
        self._dirty.update((id(t), t) for t in tensors)

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    def release(self):
        # as torch, only a node that saved tensors refuses to run again
        self._released = any(t is not None for t in self._saved or ())
        self._saved = None
        self._to_save = ()

    def check_saved(self):
        """Before a backward runs: torch's errors for this node's saved tensors (freed, or
        modified in place), so that the backward fails before anything runs."""
        if self._released:
            raise RuntimeError(tape.FREED_ERROR)
        for saved in self._saved or ():
            if saved is not None:
                saved.check(self)


class Function:
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grad_outputs)`; call
    `.apply(*args)`. backward gets one gradient per output of forward and returns one per
    argument (None for non-tensors and for inputs that need none).

    >>> class Cube(numgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 3 * x ** 2 * g
    >>> x = numgrad.tensor(2., requires_grad=True)
    >>> Cube.apply(x).backward()
    >>> x.grad
    tensor(12.)
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

    def __init__(self, *args, **kwargs):
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd "
                      "functions are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future version "
                      "of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: https://pytorch.org/docs/stable/autograd.html"
                           "#torch.autograd.Function)")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """torch 2's other style: override this, and forward(*args) takes no ctx."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = FunctionCtx(cls)
        separate_setup = cls.setup_context is not Function.setup_context
        if separate_setup:
            # as torch: keyword and default arguments become inputs, in forward's order
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, {}
        elif kwargs:
            # torch: keyword arguments become inputs too, in forward's order (defaults do not)
            bound = inspect.signature(cls.forward).bind(ctx, *args, **kwargs)
            args, kwargs = bound.args[1:], bound.kwargs
        tensor_args = [a for a in args if isinstance(a, Tensor)]
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        ctx._inputs = tuple((a._data.shape, a._data.dtype) if isinstance(a, Tensor) else None
                            for a in args)
        if grad_mode.state.grad_enabled:
            for a in tensor_args:
                views.refresh(a)    # its edge as of now (Note [views changed unrecorded])
        with grad_mode.no_grad():
            if separate_setup:
                raw = cls.forward(*args)
                cls.setup_context(ctx, args, raw)
            else:
                raw = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(raw, tuple)
        outputs = (raw,) if single else raw
        for t in ctx._dirty.values():
            t._bump_version()       # once per tensor marked dirty, before torch's checks
        record = grad_mode.state.grad_enabled and any(t._requires_grad for t in tensor_args)
        results = []
        for out in outputs:
            if isinstance(out, Tensor) and any(out is a for a in tensor_args):
                if id(out) not in ctx._dirty:
                    # torch returns a view of the input, or a detached alias of one that needs a
                    # gradient it will not get
                    differentiable = record and id(out) not in ctx._non_differentiable
                    if out._requires_grad and not differentiable:
                        alias = out.detach()
                    else:
                        with grad_mode.no_grad():
                            alias = out.view_as(out)
                    if id(out) in ctx._non_differentiable:
                        ctx._non_differentiable.add(id(alias))
                    out = alias
                elif record:
                    if out._node < 0 and out._requires_grad:
                        raise RuntimeError("a leaf Variable that requires grad has been used in "
                                           "an in-place operation.")
                    views.check_inplace(out)      # a view: torch's refusals of an in-place op
                elif out._requires_grad:
                    out = out.detach()      # as torch, an alias sharing the version counter
            results.append(out)
        if not ctx._dirty.keys() <= {id(out) for out in outputs}:
            raise RuntimeError("Some elements marked as dirty during the forward method were not "
                               "returned as output. The inputs that are modified inplace must all "
                               "be outputs of the Function.")
        if record:
            _record(ctx, args, results)
            # torch's view outputs of a Function with several differentiable outputs are created
            # as a multi-output node's (MULTI_OUTPUT_NODE), which names the refusal's reason
            several = sum(isinstance(r, Tensor) and id(r) not in ctx._non_differentiable
                          and r._data.dtype.kind == "f" for r in results) > 1
            for out in results:
                info = views.view_info(out) if isinstance(out, Tensor) else None
                if info is not None and id(out) in ctx._dirty:
                    _rebase_dirty_view(out)
                elif info is not None:
                    # a view of an input (returned as-is, or made in forward): torch forbids
                    # changing it in place, which would bypass the custom backward
                    info.creation, info.multi_output = views.IN_CUSTOM_FUNCTION, several
                    info.own_node, info.producer, info.output = True, ctx.node_name, out._slot
        else:
            ctx._saved = [None if t is None else _SavedTensor(t, None) for t in ctx._to_save]
            ctx._to_save = ()
        return results[0] if single else tuple(results)


def _rebase_dirty_view(view):
    """A view changed in place by the Function (mark_dirty) now has the custom node's history; as
    after an in-place op through a view (ops/inplace.rebase), its base's becomes torch's
    CopySlices over that node and the base's live views, this one too, are read anew from it."""
    base, region = views.base_and_region(view)
    if base is None:
        return
    new = views.copy_slices(base, region, view)
    base._seg, base._node, base._slot = new._seg, new._node, new._slot
    base._requires_grad = new._requires_grad
    views.regenerate(base)
    views.seen(view)            # torch reads the changed view anew at once
    for t in (base, view):
        views.keep_retaining(t)


def _record(ctx, args, results):
    if any(t is not None and t._inference for t in ctx._to_save):
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
            "inference mode in computation tracked by autograd. To work around this, you can make "
            "a clone to get a normal tensor and use it in autograd, or use `numgrad.no_grad()` "
            "instead of `numgrad.inference_mode()`.")
    seg = tape.current_segment()
    edges = []
    for a in args:
        if not isinstance(a, Tensor):
            continue
        if not a._requires_grad or a._node == tape.NO_GRAD_VIEW:
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
    if len({r._data.dtype for r in differentiable}) > 1:
        # the node's gradient buffers share one float type
        raise NotImplementedError(f"{ctx._cls.__name__}: differentiable outputs of a custom "
                                  "Function must share one dtype")
    # As in torch, output k of the node is forward's k-th return value, whatever it is (its
    # output_nr, the input_nr of a consumer's edge): the other outputs (non-differentiable
    # tensors, non-tensors, a tensor returned again later) get no gradient, and hold a 0-d slot.
    # A tensor returned twice is the node's output where it came last (an earlier place gets no
    # gradient).
    last = {id(r): k for k, r in enumerate(results)}
    wanted = {id(r) for r in differentiable}
    slots = [k if isinstance(r, Tensor) and id(r) in wanted and last[id(r)] == k else -1
             for k, r in enumerate(results)]
    meta = []
    for a in args:
        if isinstance(a, Tensor):
            meta.append(a._data.ndim)
            meta.extend(a._data.shape)
    for r, slot in zip(results, slots):
        if slot >= 0:
            meta.append(r._data.ndim)
            meta.extend(r._data.shape)
        else:
            meta.append(0)
    is64 = bool(differentiable) and differentiable[0]._data.dtype == np.float64
    node = seg.add_node(tape.kind_of(PYTHON_FUNCTION.code, is64),
                        tape.pack_counts(len(edges), len(results), 0, len(meta), 0))
    seg.e_node.extend([n for n, _ in edges])
    seg.e_slot.extend([slot for _, slot in edges])
    seg.mt.extend(meta)
    seg.python[node] = ctx
    ctx._seg_ref = weakref.ref(seg)
    ctx._node = node
    ctx._outputs = tuple((slot, r._data.shape, r._data.dtype) if isinstance(r, Tensor)
                         else (None, None, None) for r, slot in zip(results, slots))
    outputs = {}
    for r, slot in zip(results, slots):
        if slot >= 0:
            r._requires_grad, r._seg, r._node, r._slot = True, seg, node, slot
            if r._vc is None:
                r._vc = new_version_counter()
            info = views.view_info(r)
            if info is not None:
                info.version = r._vc[0]     # its history is the node's, as of now
            outputs[id(r)] = slot
    ctx._saved = [None if t is None else _SavedTensor(t, outputs.get(id(t))) for t in ctx._to_save]
    ctx._to_save = ()


def _call_backward(ctx, grads_out):
    """Call the user's backward with one gradient per forward output (grads_out holds those of
    the node's outputs); returns one gradient per forward argument, checked."""
    grads = []
    for slot, shape, dtype in ctx._outputs:
        g = grads_out[slot] if slot is not None and slot >= 0 else None
        if g is None and ctx.materialize_grads and shape is not None:
            g = Tensor._make(np.zeros(shape, dtype), False)
        grads.append(g)
    result = _user_backward(ctx._cls)(ctx, *grads)
    if not isinstance(result, tuple):
        result = (result,)
    n_args = len(ctx.needs_input_grad)
    if len(result) < n_args or any(r is not None for r in result[n_args:]):
        raise RuntimeError(f"function {ctx.node_name} returned an incorrect number of gradients "
                           f"(expected {n_args}, got {len(result)})")
    return _checked(ctx, result[:n_args])


def _user_backward(cls):
    """The user's backward, or vjp, its other name (torch refuses both)."""
    if cls.backward is not Function.backward and cls.vjp is not Function.vjp:
        raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not "
                           "allowed. You should only implement one of them.")
    return cls.vjp if cls.vjp is not Function.vjp else cls.backward


def _checked(ctx, result):
    """torch's validate_outputs: per tensor argument (in edge order) its gradient or None, summed
    down when it was broadcast, cast to the argument's dtype."""
    from ..ops.reduce import sum_to
    grads = []
    for k, (value, spec) in enumerate(zip(result, ctx._inputs)):
        if spec is None:
            if value is not None:
                raise RuntimeError(f"function {ctx.node_name} returned a gradient different than "
                                   f"None at position {k + 1}, but the corresponding forward input "
                                   "was not a Variable")
            continue
        if value is not None and not ctx.needs_input_grad[k]:
            grads.append(value)     # torch checks nothing of it (nothing will receive it); the
            continue                # node's post-hooks see it as returned
        if value is not None:
            if not isinstance(value, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(value).__name__})")
            shape, dtype = spec
            if value._data.shape != shape:
                if not _expandable(shape, value._data.shape):
                    raise RuntimeError(f"Function {ctx.node_name} returned an invalid gradient at "
                                       f"index {k} - got {list(value._data.shape)} but expected "
                                       f"shape compatible with {list(shape)}")
                value = sum_to(value, shape)
            if value._data.dtype != dtype:
                value = value.to(dtype)
        grads.append(value)
    return grads


def _expandable(shape, target):
    """Whether `shape` broadcasts to `target`."""
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


def differentiable_backward(graph, index, seg, node, grads_out):
    """create_graph=True: backward runs with grad mode on, so its ops are recorded."""
    return _call_backward(seg.python[node], grads_out)


class DelayedError(Function):
    """Stands after the results of a once_differentiable backward: differentiating them raises."""

    @staticmethod
    def forward(ctx, *values):
        return values if len(values) > 1 else values[0]

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError("trying to differentiate twice a function that was marked with "
                           "@once_differentiable")


def once_differentiable(fn):
    """Mark a backward as not differentiable: it runs under no_grad, and when create_graph asked
    for its results to be differentiable they lead to a node that raises if reached, as in torch.

    >>> class Exp(numgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         out = x.exp()
    ...         ctx.save_for_backward(out)
    ...         return out
    ...     @staticmethod
    ...     @numgrad.autograd.once_differentiable
    ...     def backward(ctx, g):
    ...         (out,) = ctx.saved_tensors
    ...         return g * out
    """
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.state.grad_enabled or \
                not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        values = (outputs,) if single else outputs
        # aliases that require grad, so that the DelayedError node is recorded after them
        aliases = [Tensor._make(v._data, True) if isinstance(v, Tensor) else v for v in values]
        wrapped = DelayedError.apply(*aliases)
        return wrapped if single else (wrapped if len(values) > 1 else (wrapped,))
    return wrapper
