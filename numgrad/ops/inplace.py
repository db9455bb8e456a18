"""In-place ops: add_, mul_, ..., zero_, fill_, copy_, clamp_, __setitem__.

Every one bumps the version counter, also under no_grad. Outside of recording they just write the
data. When the graph is recorded (a non-leaf, or an operand that requires grad) the op is computed
out of place and recorded, the result is written into this tensor's memory, and the tensor's
history moves to the new node, as in torch. A leaf that requires grad refuses, in grad mode, and
so does a view of one. Through a view, the base's history changes too: Note [views] in views.py.
"""

import numpy as np

from .. import dtypes, grad_mode
from ..tensor import Tensor
from . import views
from .apply import apply, show_attributes
from .elementwise import PROMOTE, cast, check_fits, d_identity, d_zero
from .registry import OpDef
from .tensor_operands import check_operands

_LEAF_ERROR = "a leaf Variable that requires grad is being used in an in-place operation."

# The nodes of a write into a region, named as torch names them: the caller has already made the
# old value with the region zeroed and the written values placed in it, so each is a sum whose
# gradient reaches both (a region given by basic indexing: CopySlices; by index arrays or masks:
# IndexPutBackward0).
COPY_SLICES = OpDef("copy_slices", np.add, node_name="CopySlices", n_in=2,
                    grads=(d_identity, d_identity))
INDEX_PUT = OpDef("index_put", np.add, node_name="IndexPutBackward0", n_in=2,
                  grads=(d_identity, d_identity))


def _overwrite(x, value):
    return np.array(np.broadcast_to(value, x.shape), dtype=x.dtype)


# Whole-tensor overwrites, as torch records them: the old value gets a zero gradient, the written
# value (broadcast to the tensor) all of it.
ZERO = OpDef("zero", np.zeros_like, node_name="ZeroBackward0", grads=(d_zero,))
FILL_SCALAR = OpDef("fill_scalar", _overwrite, node_name="FillBackward2", n_in=2,
                    grads=(d_zero, None))
FILL_TENSOR = OpDef("fill_tensor", _overwrite, node_name="FillBackward3", n_in=2,
                    grads=(d_zero, d_identity))
COPY = OpDef("copy", _overwrite, node_name="CopyBackwards", n_in=2, grads=(d_zero, d_identity))


def _records(self, *others):
    if not grad_mode.state.grad_enabled:
        return False
    return self._requires_grad or any(isinstance(o, Tensor) and o._requires_grad for o in others)


def _check_can_write(self, *others, written=None, repeats_ok=False):
    """torch's refusals, before anything is written or recorded, in torch's order: autograd's
    (a view's creation, a leaf) before the kernel's (memory written twice). `others`: the op's
    other operands, which make it recorded when one requires grad; `written`: the part of self's
    data written, when not all of it (setitem through a basic index); `repeats_ok`: the op writes
    one number everywhere, which torch's fill kernel allows into an expanded tensor."""
    if grad_mode.state.grad_enabled:
        if _records(self, *others):
            views.check_inplace(self)
        views.check_view_of_leaf(self)
        if self._node < 0 and self._requires_grad:
            raise RuntimeError(_LEAF_ERROR)
    written = self._data if written is None else written
    if not repeats_ok and type(written) is np.ndarray and _repeats_elements(written):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor "
                           "refers to a single memory location. Please clone() the tensor before "
                           "performing the operation.")
    if type(self._data) is not np.ndarray and not repeats_ok:
        views.check_device_write(self)
    if self._inference and not grad_mode.state.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed."
                           "You can make a clone to get a normal tensor before doing inplace update."
                           "See https://github.com/pytorch/rfcs/pull/17 for more details.")


def _repeats_elements(data):
    """torch's test of a written tensor's memory: a dim of stride 0 and size > 1 (an expanded
    tensor) repeats elements; an empty tensor repeats none."""
    return data.size > 0 and any(size > 1 and stride == 0
                                 for size, stride in zip(data.shape, data.strides))


def _source(self, saves_self):
    """What an in-place op reads: this tensor's value, in memory of its own for ops that save
    their input (the write must not change what the new node saved). Its history is this tensor's;
    through a view, the base's region read anew, as torch's CopySlices hands the view's gradient
    to the base without passing the view's own node (whose hooks do not fire)."""
    if not saves_self and views.view_info(self) is None:
        return self
    history = self
    base, region = views.base_and_region(self)
    if base is not None:
        history = views.read_region(base, region, self._data.shape)
    data = self._data.copy() if saves_self else self._data
    return Tensor._make(data, history._requires_grad, history._seg, history._node, history._slot)


def rebase(self, result, through_view=False):
    """Write result into self's memory and give self result's history; through a view, the base
    and its other views get new histories too (Note [views] in views.py). through_view: torch
    changed a view of self (self[1:] = ...), not self, which leaves a view self unseen (Note
    [views read anew unseen])."""
    if result._data.shape != self._data.shape:
        raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast "
                           f"shape {list(result._data.shape)}")
    if result._requires_grad and result._data.dtype != self._data.dtype:
        # float32 x.add_(float64 y) computes in float64, as torch does, and writes float32: the
        # history x takes must give x's dtype, since the gradients that reach x come in its
        # dtype. torch casts inside its op: grad_fn shows the op (node.through_promotes), whose
        # hooks see the gradient in x's dtype (engine.in_output_dtypes)
        result._seg.narrowed[(result._node, result._slot)] = self._data.dtype
        result = cast(result, self._data.dtype, op=PROMOTE)
    base, region = views.base_and_region(self)
    if base is None:
        base = self
        new_history = result
    else:
        new_history = views.copy_slices(base, region, result)
    np.copyto(self._data, result._data, casting="unsafe")
    base._seg, base._node, base._slot = new_history._seg, new_history._node, new_history._slot
    base._requires_grad = new_history._requires_grad
    self._bump_version()       # the counter is shared by the base and its views
    _saved_result_is_self(self, result)
    views.regenerate(base)
    if base is not self and not through_view:
        views.seen(self)        # torch reads the changed view anew at once
    for t in (base, self) if base is not self else (self,):
        views.keep_retaining(t)
    return self


def _saved_result_is_self(self, result):
    """An op that saves its output (exp_, tanh_, sigmoid_, ...) saves, in torch, the tensor it
    changed: a later in-place change of that tensor is a version error at backward. Here the node
    saved its out-of-place result under the result's own counter; that entry (among the last the
    segment saved: only the dtype cast or the view's copy_slices record after it) now holds the
    tensor's counter at the version this op left it."""
    saved_vc = result._vc
    if result._data.dtype == self._data.dtype:
        # a pack hook (saved_tensors_hooks) may hold result as the saved output: it is self from
        # now on, so that its unpack hook gives back self with its later changes, as torch's
        result._data = self._data
        result._vc = self._shared_vc()
    if saved_vc is None or result._seg is None:
        return
    seg = result._seg
    vc = self._shared_vc()
    for i in range(len(seg.s_vc) - 1, max(len(seg.s_vc) - 8, 0) - 1, -1):
        if seg.s_vc[i] is saved_vc:
            seg.s_vc[i] = vc
            seg.versions[i] = vc[0]


def apply_inplace(self, fn, *others, saves_self=True):
    """self = fn(self, *others), in place."""
    _check_can_write(self, *others)
    _check_no_partial_overlap(self, others)
    if _records(self, *others):
        source = _source(self, saves_self)
        result = fn(source, *others)
        _check_castable(result._data.dtype, self._data.dtype)
        return rebase(self, result)
    with grad_mode.no_grad():
        result = fn(Tensor._make(self._data, False), *others)
    _check_castable(result._data.dtype, self._data.dtype)
    if result._data.shape != self._data.shape:
        raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast "
                           f"shape {list(result._data.shape)}")
    np.copyto(self._data, result._data, casting="unsafe")
    self._bump_version()
    return self


def _check_no_partial_overlap(self, others):
    """torch refuses an operand that shares part of the written memory (x[1:].add_(x[:2])): the
    result would depend on the order elements are written in. The very same view is fine."""
    target = self._data
    for other in others:
        if not isinstance(other, Tensor) or type(other._data) is not np.ndarray:
            continue
        source = other._data
        if (type(target) is np.ndarray and np.may_share_memory(target, source)
                and not _same_elements(target, source) and np.shares_memory(target, source)):
            raise RuntimeError("unsupported operation: some elements of the input tensor and the "
                               "written-to tensor refer to a single memory location. Please clone() "
                               "the tensor before performing the operation.")


def _same_elements(a, b):
    return (a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
            and a.shape == b.shape and a.strides == b.strides)


def _category(dtype):
    return 2 if dtype.kind == "f" else 0 if dtype.kind == "b" else 1


def _check_castable(result_dtype, dtype):
    """torch writes an in-place result into the tensor's dtype only within or below its category
    (bool < integer < float): float into an integer tensor is an error, float64 into float32 is not."""
    if _category(result_dtype) > _category(dtype):
        raise RuntimeError(f"result type {dtypes.scalar_type_name(result_dtype)} can't be cast to "
                           f"the desired output type {dtypes.scalar_type_name(dtype)}")


def _method(fn, saves_self=True):
    ufunc = _DIRECT_UFUNCS.get(fn.__name__) if fn.__module__ == f"{__package__}.elementwise" else None

    tensor_arguments = getattr(fn, "tensor_arguments", None)

    def method(self, *args, **kwargs):
        if tensor_arguments is not None:
            check_operands(fn.__name__ + "_", tensor_arguments, (self, *args), kwargs, 1)
        if ufunc is not None and len(args) == 1 and not kwargs:
            done = _direct_update(self, ufunc, args[0])
            if done is not None:
                return done
        return apply_inplace(self, lambda s, *o: fn(s, *o, **kwargs), *args, saves_self=saves_self)
    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"In-place {fn.__name__}: bumps the version counter."
    return method


# add_, sub_ and mul_ of a float tensor by a float tensor of its dtype and shape, or by a Python
# number, when nothing is recorded: an optimizer's p -= lr * g, or any update of a tensor that
# needs no gradient
_DIRECT_UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


def _direct_update(self, ufunc, other):
    """self = ufunc(self, other) computed into self's memory, where apply_inplace computes a new
    array and copies it back (three times the memory traffic: p.sub_(g) on 784x256 float32 took
    3.4 times NumPy's in-place subtract). None, having done nothing, where the general path must
    decide: a recorded op, another dtype or shape, an operand sharing self's memory, a device."""
    data = self._data
    if type(data) is not np.ndarray or data.dtype.kind != "f" or _records(self, other):
        return None
    if isinstance(other, Tensor):
        value = other._data
        if (type(value) is not np.ndarray or value.dtype != data.dtype
                or value.shape != data.shape or np.may_share_memory(data, value)):
            return None
    elif type(other) is float or type(other) is int:
        value = other             # a Python number keeps the tensor's dtype, as in torch
    else:
        return None
    _check_can_write(self, other)
    ufunc(data, value, out=data)
    self._bump_version()
    return self


def zero_(self):
    _check_can_write(self, repeats_ok=True)
    if _records(self):
        return rebase(self, apply(ZERO, (_source(self, False),)))
    self._data[...] = 0
    self._bump_version()
    return self


def fill_(self, value):
    # torch's fill_ of a tensor value goes through copy_, which refuses an expanded self
    _check_can_write(self, value, repeats_ok=not isinstance(value, Tensor))
    check_fits(value, self._data.dtype)
    if isinstance(value, Tensor) and value._data.ndim:      # recorded or not, as in torch
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions.")
    if _records(self, value):
        if isinstance(value, Tensor):
            return rebase(self, apply(FILL_TENSOR, (_source(self, False),
                                                    _as_dtype(value, self._data.dtype))))
        return rebase(self, apply(FILL_SCALAR, (_source(self, False),
                                                np.asarray(value, self._data.dtype))))
    self._data[...] = value._data if isinstance(value, Tensor) else value
    self._bump_version()
    return self


def _check_broadcast_into(shape, src_shape):
    """torch's errors when src_shape does not broadcast to shape."""
    for k in range(1, min(len(shape), len(src_shape)) + 1):
        a, b = shape[-k], src_shape[-k]
        if a != b and b != 1 and a != 1:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                               f"at non-singleton dimension {len(shape) - k}")
    full = np.broadcast_shapes(shape, src_shape)
    if full != tuple(shape):
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{list(full)}")


def _as_dtype(t, dtype):
    """t in the written tensor's dtype: torch's copy_ and fill_ convert inside their node (whose
    gradient reaches t in t's own dtype), with no ToCopyBackward0 of their own."""
    return cast(t, dtype, op=PROMOTE)


def copy_(self, src):
    _check_can_write(self, src)
    _check_no_partial_overlap(self, (src,))
    if _records(self, src):
        src_t = src if isinstance(src, Tensor) else Tensor._make(np.asarray(src), False)
        _check_broadcast_into(self._data.shape, src_t._data.shape)
        # through a view, its region of the base read anew, as other in-place ops: the view's
        # own node (and its hooks) is no part of torch's CopySlices
        return rebase(self, apply(COPY, (_source(self, False),
                                         _as_dtype(src_t, self._data.dtype))))
    source = src._data if isinstance(src, Tensor) else np.asarray(src)
    _check_broadcast_into(self._data.shape, source.shape)
    self._data[...] = source
    self._bump_version()
    return self


def _without_leading_ones(shape):
    """torch drops a written value's leading size-1 dims (broadcasting puts back what the target
    needs), so a (1, 2) value fits a (2,) place."""
    k = 0
    while k < len(shape) and shape[k] == 1:
        k += 1
    return tuple(shape[k:])


def _value_as_written(value, target_shape, basic):
    """The value as torch's setitem hands it on, its views nodes of their own: a basic index
    (copy_to) takes a value of the written place's very shape as it is, fills from a 0-d one, and
    otherwise views it without its leading ones (ViewBackward0, even where that changes nothing),
    then expands it where it still differs; index_put_ gets the view only where it drops a dim."""
    from .reduce import expand
    shape, target_shape = value._data.shape, tuple(target_shape)
    stripped = _without_leading_ones(shape)
    if not basic:
        return value if stripped == shape else value.view(stripped)
    if shape == target_shape or not shape:
        return value
    value = value.view(stripped)
    return value if stripped == target_shape else expand(value, target_shape)


def _check_value_fits(self, value_shape, target_shape, basic):
    """torch's errors when the value does not broadcast to the indexed place: a basic index copies
    into a view (expand's errors), any other is index_put_."""
    try:
        fits = np.broadcast_shapes(value_shape, target_shape) == tuple(target_shape)
    except ValueError:
        fits = False
    if fits:
        return
    if not basic:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(value_shape)} cannot be "
                           f"broadcast to indexing result of shape {list(target_shape)}")
    if len(value_shape) > len(target_shape):
        from .. import dtypes
        raise RuntimeError(f"expand({dtypes.tensor_type_name(self._data)}"
                           f"{{{list(value_shape)}}}, size={list(target_shape)}): the number of "
                           f"sizes provided ({len(target_shape)}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({len(value_shape)})")
    lead = len(target_shape) - len(value_shape)
    d = next(k for k, size in enumerate(value_shape) if size not in (1, target_shape[lead + k]))
    raise RuntimeError(f"The expanded size of the tensor ({target_shape[lead + d]}) must match the "
                       f"existing size ({value_shape[d]}) at non-singleton dimension {lead + d}.  "
                       f"Target sizes: {list(target_shape)}.  Tensor sizes: {list(value_shape)}")


def setitem(self, index, value):
    """self[index] = value: differentiable for both self (outside the index) and value."""
    from .index import _normalize, _positions, _shown_indices, check_index, index_positions, \
        masked_fill, one_ellipsis, put_add, torch_order
    from .named import show_inputs
    from .reduce import expand
    from .scatter import _mask, _on_device_of, keep_last_writes
    from .shape import basic_index_map, is_basic_index
    if index is False:
        return            # torch writes nothing, checks nothing
    index = _normalize(None if index is True else index)     # a lone True unsqueezes only
    index = one_ellipsis(index, self._data.ndim)
    basic = is_basic_index(index)
    shape = self._data.shape
    if basic:
        target_shape = basic_index_map(shape, index)[0]     # torch's refusals of the index
    else:
        check_index(shape, index)
        if isinstance(value, Tensor) and value._data.dtype != self._data.dtype:
            from .. import dtypes     # index_put_ does not cast, where a basic index's copy_ does
            raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                               f"{dtypes.scalar_type_name(self._data.dtype)} for the destination "
                               f"and {dtypes.scalar_type_name(value._data.dtype)} for the source.")
    steps = _views_written_through(shape, index)
    # torch's copy_to fills from a 0-d value (FillBackward3) and copies any other (CopyBackwards)
    fills = (value._data.ndim == 0 if isinstance(value, Tensor) else np.ndim(value) == 0) \
        and self._data.ndim > 0
    if not isinstance(value, Tensor):
        value = np.asarray(value, self._data.dtype)
        value = value.reshape(_without_leading_ones(value.shape))
    if steps and grad_mode.state.grad_enabled:
        # torch views self[index] first; a basic index then fits the value to it (expand's
        # errors) before copy_ refuses to write into that view
        if basic:
            _check_value_fits(self, _without_leading_ones(tuple(value.shape)), target_shape, True)
        views.check_write_through_view(self, _STEP_NODES[steps[-1][0]])
    place = None
    if basic and type(self._data) is np.ndarray:
        # the view torch writes into (the Ellipsis keeps an all-int index from giving a scalar)
        items = index if isinstance(index, tuple) else (index,)
        place = self._data[items if Ellipsis in items else items + (Ellipsis,)]
    _check_can_write(self, value, written=place)
    if isinstance(value, Tensor) and value._data.ndim and type(self._data) is np.ndarray:
        # the written places must not share part of the value's memory (y[1:] = y[:-1]); a 0-d
        # value is read once, as torch's fill_ reads it
        target = self if place is None else Tensor._make(place, False)
        _check_no_partial_overlap(target, (value,))
    if not _records(self, value):
        data = value
        if isinstance(value, Tensor):
            data = value._data.reshape(_without_leading_ones(value._data.shape))
        try:
            _assign(self._data, index, data, basic)
        except ValueError:
            target = (basic_index_map(shape, index)[0] if basic
                      else index_positions(shape, index).shape)
            _check_value_fits(self, data.shape, target, basic)
            raise
        self._bump_version()
        return
    positions = _positions(shape, index) if basic else index_positions(shape, index)
    _check_value_fits(self, _without_leading_ones(tuple(value.shape)), positions.shape, basic)
    raw = value
    if isinstance(value, Tensor):
        value = _value_as_written(value, positions.shape, basic)
    given = value       # torch's node lists it, whatever casting it gets here
    if isinstance(value, Tensor):
        value = _as_dtype(value, self._data.dtype)
    if not isinstance(value, Tensor):
        value = _on_device_of(self, value)
    # through a view, its region of the base read anew (_source): the view's own node is no part
    # of torch's CopySlices
    source = _source(self, False)
    if basic and not steps:
        # every element: torch writes into self itself, no view between
        rebase(self, apply(FILL_TENSOR if fills else COPY, (source, value)))
        return
    # the written places are replaced (masked_fill), never multiplied by zero: an inf or a NaN
    # there must not leak into the result or into the gradient
    kept = masked_fill(source, _mask(self, positions), 0)
    placed = put_add(keep_last_writes(source, positions, expand(value, positions.shape)),
                     positions, shape)
    written = show_inputs(apply(COPY_SLICES if steps else INDEX_PUT, (kept, placed)), self, given)
    if not steps:
        show_attributes(written, accumulate=False,
                        indices=_shown_indices(torch_order(shape, index)[1]))
    if type(self._data) is np.ndarray and type(getattr(raw, "_data", raw)) is np.ndarray:
        # the node's forward adds the zeroed tensor and the placed values, which turns a -0.0
        # kept or written into 0.0: its result is what torch's write leaves, sign and all
        exact = self._data.copy()
        _assign(exact, index, raw._data.reshape(_without_leading_ones(raw._data.shape))
                if isinstance(raw, Tensor) else raw, basic)
        np.copyto(written._data, exact, casting="unsafe")
    rebase(self, written, through_view=bool(steps))


def _assign(target, index, data, basic):
    """target[index] = data as torch's setitem writes it (index arrays in torch's order)."""
    from .index import torch_order
    if basic or type(target) is not np.ndarray:
        target[index] = data
    else:
        before, arrays = torch_order(target.shape, index)
        target[before][arrays] = data     # a view of target, then written into


# the node of each view torch's indexing takes (shape.torch_steps), named in its refusals
_STEP_NODES = {"select": "SelectBackward0", "slice": "SliceBackward0",
               "unsqueeze": "UnsqueezeBackward0"}


def _views_written_through(shape, index):
    """The views torch's setitem takes of self before it writes (CopySlices then): its indexing's,
    a lone slice skipped as inside a tuple. Empty: it writes into self itself (IndexPutBackward0,
    or a whole copy_/fill_)."""
    from .shape import torch_steps
    return torch_steps(shape, index if isinstance(index, tuple) else (index,))
