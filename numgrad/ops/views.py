"""Views, and in-place ops through them: torch's view tracking, CopySlices and regenerated views.

Note [views]
The output of a view op (OpDef(view=True): reshape/view, slicing and select, transpose/permute/T,
squeeze/unsqueeze, expand, split/chunk/unbind) shares its input's memory. As in torch, every view
knows its base - the first tensor up its chain of views that is not a view itself
(`Tensor._base`) - and shares the base's version counter; the base knows its live views, weakly.

An in-place op on a view writes the base's memory, so the base's history must change too. The
base's new history is "the old base, with the view's region replaced by the op's result" (torch's
CopySlices), recorded as base + scatter(result - base[region]); every live view of the base then
gets a new history reading its region out of the base's new one (torch's AsStridedBackward0). An
in-place op on the base itself regenerates its views the same way. torch regenerates a view when
it is next used; numgrad does it at once, for the live views only, so the tape holds no stale
history anybody can still reach (Note [views read anew unseen] says where that differs).

A region is found from memory addresses: the view's elements as flat positions in the base
(`_region`), an affine (offset, strides) map when the base is C-contiguous. A view whose memory
is no longer inside its base's (a reshape that had to copy; a base whose `.data` was replaced) is
not a view any more and is modified alone.

torch's refusals are kept: an in-place op through a view of a leaf that requires grad, through a
view made in no_grad mode and through an output of an op that returns several views all raise
when the op would be recorded.
"""
import re
import weakref

import numpy as np

from .. import grad_mode, tape
from ..tensor import Tensor

# How a view was created (torch's CreationMeta): which in-place ops through it may be recorded.
DEFAULT, NO_GRAD_MODE, MULTI_OUTPUT, INFERENCE_MODE, IN_CUSTOM_FUNCTION = 0, 1, 2, 3, 4

_VIEW_OF_LEAF_ERROR = ("a view of a leaf Variable that requires grad is being used in an in-place "
                       "operation.")
_MULTI_OUTPUT = ("This view is the output of a function that returns multiple views. Such "
                 "functions do not allow the output views to be modified inplace. You should "
                 "replace the inplace operation by an out-of-place one.")
_AMBIGUOUS = ("Given that this use case is ambiguous and error-prone, it is forbidden. You can "
              "clarify your code by moving both the view and the inplace either both inside the "
              "{block} block (if you don't want the inplace to be tracked) or both outside (if you "
              "want the inplace to be tracked).")
_REASONS = {
    MULTI_OUTPUT: _MULTI_OUTPUT,
    NO_GRAD_MODE: _AMBIGUOUS.format(block="no_grad"),
    INFERENCE_MODE: _AMBIGUOUS.format(block="inference_mode"),
    IN_CUSTOM_FUNCTION: (
        "This view was created inside a custom Function (or because an input was returned as-is) "
        "and the autograd logic to handle view+inplace would override the custom backward "
        "associated with the custom Function, leading to incorrect gradients. This behavior is "
        "forbidden. You can fix this by cloning the output of the custom Function."),
}


class ViewInfo:
    """What a view knows of its base (held in the view's `_extra["view"]`)."""

    __slots__ = ("base", "creation", "multi_output", "producer", "output", "own_node", "chain",
                 "positions", "stale", "version", "unseen")

    def __init__(self, base, creation, multi_output, producer, output, own_node, chain, version):
        self.base = base              # the base Tensor: kept alive by its views, as in torch
        self.creation = creation      # DEFAULT, NO_GRAD_MODE or MULTI_OUTPUT
        self.multi_output = multi_output    # made by (or from) split/unbind in grad mode
        self.producer = producer      # node name of the view op, for the refusals' messages
        self.output = output          # which of its outputs this view is
        self.own_node = own_node      # whether torch gives it a grad_fn (its messages name it)
        self.chain = chain            # device views: view ops from the base (Note [device views])
        self.positions = None         # device views: (base shape, their region), made when needed
        self.stale = None             # torch's error on the next use in grad mode (regenerate)
        self.version = version        # the base's version when the view was made
        self.unseen = None            # Note [views read anew unseen]


def view_info(t):
    extra = t._extra
    return extra.get("view") if extra else None


def track(source, outputs, op, attrs):
    """Register the outputs of view op `op` (with attrs) applied to `source` as views of source's
    base."""
    info = view_info(source)
    base = info.base if info is not None else source
    # a device view's region is found from its chain of view ops (Note [device views])
    parent_chain = None
    if type(source._data) is not np.ndarray:
        parent_chain = info.chain if info is not None else ()
    vc = source._shared_vc()
    grad_enabled = grad_mode.state.grad_enabled
    # multi_output: torch's CreationMeta MULTI_OUTPUT_NODE, which names the refusal's reason even
    # where no history is recorded (a base that does not require grad)
    if grad_mode.state.inference and not base._inference:
        # a normal tensor's view made in inference mode is a normal tensor, which torch refuses to
        # change in place with recording outside it
        creation, multi_output = INFERENCE_MODE, False
    elif base._inference:
        # an inference tensor has no autograd record, its views none either: torch's refusal of
        # an in-place change outside inference mode is the inference tensor's own
        creation, multi_output = DEFAULT, False
    elif op.n_out != 1:        # split, unbind: several views
        recorded = grad_enabled and base._requires_grad
        creation, multi_output = MULTI_OUTPUT if recorded else NO_GRAD_MODE, grad_enabled
    elif not grad_enabled:
        creation, multi_output = NO_GRAD_MODE, False
    elif info is not None:
        # a view of such a view inherits the restriction
        creation, multi_output = info.creation, info.multi_output
    else:
        creation, multi_output = DEFAULT, False
    # recorded in torch, where a view requires grad when its base does
    own_node = grad_enabled and (base._requires_grad or source._requires_grad)
    # torch's view made without recording still requires grad through its base (tape.NO_GRAD_VIEW)
    detached_from_grad = not grad_enabled and base._requires_grad
    views = base._extras().setdefault("views", _LiveViews())
    for k, out in enumerate(outputs):
        out._vc = vc
        chain = None if parent_chain is None else parent_chain + ((op, attrs, k),)
        out._extras()["view"] = ViewInfo(base, creation, multi_output, op.node_name, k, own_node,
                                         chain, vc[0])
        views.add(out)
        if detached_from_grad:
            out._requires_grad, out._node = True, tape.NO_GRAD_VIEW


class _LiveViews:
    """Weak references to a base's views. Dead ones are dropped whenever the list has doubled, so a
    base viewed in every step of a long loop keeps a list as long as its live views."""

    __slots__ = ("refs", "limit")

    def __init__(self):
        self.refs = []
        self.limit = 16

    def add(self, view):
        self.refs.append(weakref.ref(view))
        if len(self.refs) >= self.limit:
            self.refs = [r for r in self.refs if r() is not None]
            self.limit = max(16, 2 * len(self.refs))

    def alive(self):
        return [v for v in (r() for r in self.refs) if v is not None]

    def __reduce__(self):
        # a pickled or copied base starts with no views: its views' memory is not its memory
        return (_LiveViews, ())


def check_inplace(t):
    """torch's refusals of a recorded in-place op through the view t (Note [views]): how the view
    was made first, then whether its base is a leaf while the view requires grad (torch's
    check_inplace: a view of a base detached in place since, or a view made to require grad
    itself, is refused too)."""
    info = view_info(t)
    if info is None:
        return
    if info.creation != DEFAULT:
        raise RuntimeError(_refusal(info, indirect=False))
    if info.base._node < 0 and (info.base._requires_grad or t._requires_grad):
        raise RuntimeError(_VIEW_OF_LEAF_ERROR)


def check_write_through_view(t, producer):
    """torch's refusals of t[index] = value where the index views t first (producer: the node
    name of its last view op), in grad mode: using t at all when its base changed since it was
    made (a stale view), then the new view's, which is made as t was and names its own op."""
    if t._node == tape.NO_GRAD_VIEW and outdated(t):
        refresh(t)
    if t._node == tape.STALE_VIEW or (t._node == tape.NO_GRAD_VIEW and changed_since_made(t)):
        raise stale_view_error(t)
    info = view_info(t)
    if info is not None and t._requires_grad:
        seen(t)         # torch's view op records t, asking for its grad_fn, before refusing
    if info is not None and info.creation != DEFAULT and t._requires_grad:
        written = ViewInfo(info.base, info.creation, info.multi_output, producer, 0, True, None,
                           info.version)
        raise RuntimeError(_refusal(written, indirect=False))
    base = t if info is None else info.base
    if base._requires_grad and base._node < 0 and view_info(base) is None:
        raise RuntimeError(_VIEW_OF_LEAF_ERROR)


def _short(node_name):
    """The op as torch's refusals name it: SplitBackward0 -> Split, SqueezeBackward1 -> Squeeze1,
    BackwardHookFunctionBackward -> BackwardHookFunction (only the node's own suffix goes)."""
    return re.sub(r"Backward(0$|(?=\d*$))", "", node_name)


_INDIRECTLY = "its base or another view of its base has been"


def _refusal(info, indirect):
    """torch's error (handle_view_on_rebase) for a view whose creation forbids in-place changes,
    changed in place itself or (indirect) through its base or another view of it. A view with a
    grad_fn of its own is named by it."""
    modified = _INDIRECTLY if indirect else "is being"
    reason = _MULTI_OUTPUT if info.multi_output else _REASONS[info.creation]
    if info.creation not in (NO_GRAD_MODE, INFERENCE_MODE) and info.own_node:
        return _own_node_refusal(info.output, info.producer, modified, reason)
    prefix = (f"Output {info.output} of {_short(info.producer)} is a view of a view which was "
              "created in" if info.own_node else "A view was created in")
    if info.creation == INFERENCE_MODE:
        return f"{prefix} inference mode and {modified} modified inplace in normal mode. {reason}"
    return f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled. {reason}"


def _own_node_refusal(output, node_name, modified, reason):
    return (f"Output {output} of {_short(node_name)} is a view and {modified} modified inplace. "
            f"{reason}")


def multi_output_view_message(output, node_name):
    """torch's refusal of output `output` of a multi-output view op (split, unbind) after its base
    changed in place: on its next use, or when a backward unpacks it as a saved value."""
    return _own_node_refusal(output, node_name, _INDIRECTLY, _MULTI_OUTPUT)


def stale_view_error(t):
    """The RuntimeError for using a view that regenerate() made stale, or a view made in no_grad
    mode (tape.NO_GRAD_VIEW) whose base changed in place since, in any mode: torch refuses both in
    grad mode, and the second stays stale."""
    info = t._extra["view"]
    if info.stale is None:
        info.stale = _refusal(info, indirect=True)
        t._seg, t._node, t._slot = None, tape.STALE_VIEW, 0
    return RuntimeError(info.stale)


def base_stopped_requiring_grad(base):
    """base was detached in place or made not to require grad: its views made in no_grad mode,
    which required grad only through it, require none now (torch's view asks its base) and are
    no longer refused."""
    for view in _live_views(base):
        info = view._extra["view"]
        if view._node == tape.NO_GRAD_VIEW or view._node == tape.STALE_VIEW and not info.own_node:
            view._seg, view._node, view._slot = None, tape.LEAF, 0
            view._requires_grad = False


def base_started_requiring_grad(base):
    """base (a leaf) now requires grad: its views without a history require grad through it, as
    torch's view asks its base, without a grad_fn (tape.NO_GRAD_VIEW); one made in grad mode is
    read anew once the base's version moves on (outdated), as torch's."""
    for view in _live_views(base):
        info = view._extra["view"]
        if info.creation in (DEFAULT, NO_GRAD_MODE) and view._node == tape.LEAF \
                and not view._requires_grad:
            view._node, view._requires_grad = tape.NO_GRAD_VIEW, True


def changed_since_made(t):
    """Whether the base of view t was changed in place after t was made."""
    return t._vc[0] != t._extra["view"].version


def check_view_of_leaf(t):
    """In grad mode, an in-place op through a view of a tensor that requires grad is refused as a
    recorded one is (check_inplace), whether or not it would be recorded: torch's view reports
    its base's requires_grad."""
    info = view_info(t)
    if info is not None and grad_mode.state.grad_enabled and info.base._requires_grad:
        check_inplace(t)


class _Region:
    """Where a view's elements are in its base: `affine` (offset, strides) over the base's flat
    C-order index when the base is C-contiguous, else the flat positions of each element."""

    __slots__ = ("positions", "affine")

    def __init__(self, positions, affine):
        self.positions = positions
        self.affine = affine


def _bounds(a):
    """[first byte, one past the last byte) of an array's elements."""
    low = high = a.__array_interface__["data"][0]
    for size, stride in zip(a.shape, a.strides):
        if stride > 0:
            high += (size - 1) * stride
        else:
            low += (size - 1) * stride
    return low, high + a.itemsize


def _region(base, view):
    """The _Region of `view` inside `base` (ndarrays), or None when view's memory is not base's."""
    if type(base) is not np.ndarray or type(view) is not np.ndarray or view.dtype != base.dtype:
        return None
    if view.size == 0:
        # no element to place: an empty region, and in-place ops through it still give the base
        # and its views new histories, as in torch
        if base.flags.c_contiguous:
            return _Region(None, (0, (0,) * view.ndim))
        return _Region(np.zeros(view.shape, np.int64), None)
    item = base.itemsize
    lo, hi = _bounds(base)
    v_lo, v_hi = _bounds(view)
    if v_lo < lo or v_hi > hi or any(s % item for s in base.strides + view.strides):
        return None
    v_start = view.__array_interface__["data"][0]
    b_start = base.__array_interface__["data"][0]
    if (v_lo - lo) % item:
        return None
    if base.flags.c_contiguous:
        # the base's flat index is its memory order: the region is affine, no positions needed
        return _Region(None, ((v_start - b_start) // item, tuple(s // item for s in view.strides)))
    # every byte position of the base's span, numbered by the base's flat (C order) index
    numbering = np.full((hi - lo) // item, -1, np.int64)
    as_strided = np.lib.stride_tricks.as_strided
    scale = numbering.itemsize
    as_strided(numbering[(b_start - lo) // item:], base.shape,
               [s // item * scale for s in base.strides])[...] = \
        np.arange(base.size, dtype=np.int64).reshape(base.shape)
    positions = as_strided(numbering[(v_start - lo) // item:], view.shape,
                           [s // item * scale for s in view.strides]).copy()
    if (positions < 0).any():
        return None
    return _Region(positions, None)


def read_region(base, region, shape):
    """base's elements in the region, recorded: the history of a view of base, which torch
    names AsStridedBackward0 whatever the base's layout."""
    from .apply import apply, show_attributes
    from .index import take
    from .named import rename
    from .shape import AS_STRIDED
    if region.affine is not None:
        offset, strides = region.affine
        out = apply(AS_STRIDED, (base,), {"offset": offset, "strides": strides,
                                          "in_shape": base._data.shape, "out_shape": tuple(shape)})
        return show_attributes(out, size=tuple(shape), stride=tuple(strides),
                               storage_offset=offset)
    return rename(take(base, region.positions), "AsStridedBackward0")


def restrict_like(view, source):
    """view, made from source's base directly (as_strided over its storage), is refused in-place
    ops as a view of source would be: it inherits source's creation, as in torch."""
    parent = view_info(source)
    info = view_info(view)
    if parent is not None and info is not None and grad_mode.state.grad_enabled:
        info.creation, info.multi_output = parent.creation, parent.multi_output


def as_strided_of(source, source_data, storage, data, node_name, attributes):
    """The history of `data`, an as_strided layout over storage's memory, read out of `source`
    (whose elements are source_data there), as torch's node named node_name has it: each
    element takes the gradient of the element of source it shows; one outside source gets none."""
    from .index import masked_fill, take
    from .named import rename
    where = _region(storage._data, data)
    of_source = _region(storage._data, source_data)
    # each element of data as the flat (C order) index of the element of source that it shows
    inverse = np.full(storage._data.size, -1, np.int64)
    inverse[_flat_positions(of_source, source_data.shape)] = \
        np.arange(source_data.size).reshape(source_data.shape)
    places = inverse[_flat_positions(where, data.shape)]
    shown = take(source, np.maximum(places, 0))
    if (places < 0).any():
        shown = masked_fill(shown, Tensor._make(places < 0, False), 0)
    return rename(shown, node_name, inputs=(source,), attributes=attributes)


def _flat_positions(region, shape):
    """A _Region's elements as flat positions in its storage, in the view's shape."""
    if region.positions is not None:
        return region.positions
    offset, strides = region.affine
    return offset + sum(np.arange(n).reshape((-1,) + (1,) * (len(shape) - d - 1)) * s
                        for d, (n, s) in enumerate(zip(shape, strides))) + np.zeros(shape, np.int64)


def storage_of(t):
    """(tensor, offset): what as_strided indexes - t's base and t's offset in it when t is an
    affine view of a C-contiguous base, else t itself (its elements in C order) and 0."""
    base, region = base_and_region(t)
    if base is not None and region.affine is not None:
        return base, region.affine[0]
    return t, 0


def _scatter_region(values, region, shape):
    """zeros(shape) with values in the region, recorded."""
    from .apply import apply
    from .index import put_add
    from .shape import STRIDED_SCATTER
    if region.affine is not None:
        offset, strides = region.affine
        return apply(STRIDED_SCATTER, (values,), {"offset": offset, "strides": strides,
                                                  "in_shape": tuple(shape)})
    return put_add(values, region.positions, shape)


def base_and_region(t):
    """(base, region) when t is a view still inside its base's memory, else (None, None)."""
    info = view_info(t)
    if info is None:
        return None, None
    region = _region_of(info, t)
    return (info.base, region) if region is not None else (None, None)


def _region_of(info, view):
    if info.chain is None:
        return _region(info.base._data, view._data)
    positions = device_positions(info)
    if positions is None:
        return None
    # a device base is C-contiguous: its views' regions are affine, as on the host
    affine = _affine(positions)
    return _Region(None, affine) if affine is not None else _Region(positions, None)


def _affine(positions):
    """(offset, strides) when the positions are an affine function of the index, else None."""
    if positions.size == 0:
        return None
    offset = int(positions.flat[0])
    strides = tuple(int(np.take(positions, 1, axis=d).flat[0]) - offset if size > 1 else 0
                    for d, size in enumerate(positions.shape))
    expected = offset + sum(np.arange(size).reshape((-1,) + (1,) * (positions.ndim - d - 1)) * step
                            for d, (size, step) in enumerate(zip(positions.shape, strides)))
    return (offset, strides) if np.array_equal(expected, positions) else None


# Note [device views]
# A view op on the GPU copies (numba.cuda's arrays cannot express every view numgrad has), so a
# device view and its base do not share memory. To keep torch's semantics, every in-place change
# of either is copied to the other: after a write to a device view, its elements are put into the
# base at its region, and every other live view of that base is read anew out of the base; after
# a write to the base, every live view is. The region is the view ops applied, on the host, to
# the base's flat positions (np.arange), once, when first needed: in-place writes through views
# are rare, and a base written without live views costs nothing.
def device_positions(info):
    """A device view's flat positions in its base (int64, the view's shape), or None when the
    base's data has changed shape since."""
    shape = tuple(info.base._data.shape)
    if info.positions is None:
        positions = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
        for op, attrs, k in info.chain:
            positions = op.forward(positions, **attrs)
            if op.n_out != 1:
                positions = positions[k]
        info.positions = (shape, np.ascontiguousarray(positions))
    made_for, positions = info.positions
    return positions if made_for == shape else None


def check_device_write(t):
    """torch's refusal of a write into a view whose elements share memory (expand)."""
    info = view_info(t)
    if info is None or info.chain is None:
        return
    positions = device_positions(info)
    if positions is not None and np.unique(positions).size != positions.size:
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor "
                           "refers to a single memory location. Please clone() the tensor before "
                           "performing the operation.")


def sync_device(t):
    """After an in-place write to device tensor t: the base and the base's other live views get
    the new values (Note [device views])."""
    from ..cuda.index import put_into, take_into
    info = view_info(t)
    if info is not None and info.chain is not None:
        base = info.base
        positions = device_positions(info)
        if positions is None:
            return
        put_into(base._data, t._data, positions)
    else:
        base = t
    for view in _live_views(base):
        info = view._extra["view"]
        if view is t or info.chain is None:
            continue
        positions = device_positions(info)
        if positions is not None and positions.shape == tuple(view._data.shape):
            take_into(view._data, base._data, positions)


def copy_slices(base, region, result):
    """The recorded history of `base` after its region was overwritten with `result` (torch's
    CopySlices): base + scatter(result - base[region]). The gradient reaching the new base flows
    to the old base outside the region and to result inside it; the forward value is not used
    (the caller writes result into the shared memory)."""
    from . import elementwise as E
    from .apply import apply
    from .inplace import COPY_SLICES
    old = Tensor._make(base._data, base._requires_grad, base._seg, base._node, base._slot)
    positions = _shared_places(region, result._data.shape)
    if positions is not None:
        return _show_copy_slices(_copy_overlapping(old, positions, result), old, result)
    inside = read_region(old, region, result._data.shape)
    change = _scatter_region(E.sub(result, inside), region, base._data.shape)
    return _show_copy_slices(apply(COPY_SLICES, (old, change)), old, result)


def _show_copy_slices(new, old, result):
    """torch's CopySlices lists the base's old node, then the other inputs of the op it wraps
    (the op that wrote `result` into the view): new's next_functions show those."""
    from ..node import shown_edges
    from .named import _edge_to
    if new._requires_grad and new._node >= 0:
        seg = new._seg
        wrapped = shown_edges(result._seg, result._node)[1:] if result._node >= 0 else []
        if result._requires_grad and result._node >= 0 and result._seg is not seg:
            seg.deps.add(result._seg)
        seg.shown[new._node] = (_edge_to(seg, old), *wrapped)
    return new


def _shared_places(region, shape):
    """The region's flat positions when some are shared by several of the view's elements (an
    overlapping unfold or as_strided), else None."""
    positions = region.positions
    if region.affine is not None:
        from .shape import _overlaps
        offset, strides = region.affine
        if not _overlaps(shape, strides):
            return None
        numbers = np.arange(offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides)),
                            dtype=np.int64)
        positions = np.lib.stride_tricks.as_strided(numbers[offset:], shape,
                                                    [s * numbers.itemsize for s in strides])
    if np.unique(positions).size == positions.size:
        return None
    return positions


def _copy_overlapping(old, positions, result):
    """CopySlices over places shared by several elements: the scatter of result - old[region]
    would count the old value once per element. Instead: old with the region zeroed plus each
    element written at its place, the last write to a place kept (as the memory keeps it); the
    old base gets no gradient inside the region and every element its place's, as in torch."""
    from .apply import apply
    from .index import masked_fill, put_add
    from .inplace import COPY_SLICES
    from .scatter import _mask, keep_last_writes
    kept = masked_fill(old, _mask(old, positions), 0)
    placed = put_add(keep_last_writes(old, positions, result), positions, old._data.shape)
    return apply(COPY_SLICES, (kept, placed))


def _live_views(base):
    extra = base._extra
    views = extra.get("views") if extra else None
    return views.alive() if views is not None else ()


def keep_retaining(t):
    """retain_grad follows the tensor to its new history, as torch moves its retains-grad hook:
    .grad is then the gradient of the modified tensor (or of the view read anew)."""
    if t._extra and t._extra.get("retains_grad") and t._node >= 0:
        t._seg.retained[(t._node, t._slot)] = weakref.ref(t)


def regenerate(base, changed=None):
    """Give every live view of base a history read out of base's current one (Note [views]);
    `changed`: a view of base an in-place view op changed, whose history is that op's."""
    for view in _live_views(base):
        info = view._extra["view"]
        if view is changed:
            info.version, info.unseen = view._vc[0], None
            continue
        if info.unseen is None:
            info.unseen = view._node >= 0
        _read_anew(view, info)


# Note [views read anew unseen]
# torch reads a view anew out of its base lazily, when its grad_fn is next asked for (an op
# recording it, .grad_fn, is_leaf, hooks, retain_grad, a backward taking its edge); numgrad at
# once (regenerate). The two differ when the base's history changes without its version between
# the two: detach_() or requires_grad_() of the base. So a view read anew keeps, until its grad_fn
# is asked for (seen), whether torch's still had a grad_fn then (ViewInfo.unseen), and such a
# change of its base reads it anew again as torch would at its next use: without an edge to a base
# that no longer requires grad, or with no grad_fn at all if torch's view had none.
def seen(t):
    """t's grad_fn is asked for, as torch's grad_fn() is (Note [views read anew unseen])."""
    info = t._extra.get("view")
    if info is not None:
        info.unseen = None


def seen_outdated(t):
    """An op records t: seen, and whether it must be read anew first (Note [views changed
    unrecorded])."""
    seen(t)
    return outdated(t)


def reread_unseen(base):
    """base was detached in place or changed requires_grad: its views read anew and not seen since
    take the history torch's would at their next use (Note [views read anew unseen])."""
    for view in _live_views(base):
        info = view._extra["view"]
        if info.unseen is None or info.creation != DEFAULT:
            continue
        if not info.unseen and not base._requires_grad:
            view._seg, view._node, view._slot = None, tape.LEAF, 0
            view._requires_grad = False
        else:
            _read_anew(view, info)


def _read_anew(view, info):
    """view's history read out of its base's current one (torch's AsStridedBackward0), as of the
    version now; a view whose creation forbids it is made stale instead (its next use raises)."""
    info.version = view._vc[0]
    if info.creation != DEFAULT:
        info.stale = _refusal(info, indirect=True)
        view._seg, view._node, view._slot = None, tape.STALE_VIEW, 0
        view._requires_grad = True
        return
    region = _region_of(info, view)
    if region is None:
        return
    base = info.base
    if not base._requires_grad:
        # torch reads it anew all the same (its base detached in place since): a node whose
        # edge to the base is None
        base = Tensor._make(base._data, True, None, tape.NO_GRAD_VIEW, vc=base._vc)
        base._extras()["view"] = ViewInfo(info.base, NO_GRAD_MODE, False, "", 0, False, None,
                                          base._vc[0])
    fresh = read_region(base, region, view._data.shape)
    view._seg, view._node, view._slot = fresh._seg, fresh._node, fresh._slot
    view._requires_grad = fresh._requires_grad
    keep_retaining(view)


# Note [views changed unrecorded]
# A view's history is as of the version it was set at (ViewInfo.version): an in-place change that
# records nothing (under no_grad, through a detach()ed alias, .data) bumps the shared counter
# and leaves the view's history naming its old view op. torch reads such a view anew out of its
# base when its grad_fn is next asked for (an op recording it as an input, .grad_fn, backward,
# register_hook, retain_grad): AsStridedBackward0 of the base's history, and hooks registered on
# the old node no longer fire; a view of a multi-output op raises there. So does numgrad, at the
# same places (outdated / refresh).
def outdated(t):
    """Whether view t (a tensor with _extra) has a history older than its base's version: one of
    its own, or none while it requires grad through a base it was made from in grad mode
    (base_started_requiring_grad), which torch reads anew all the same."""
    info = t._extra.get("view")
    if info is None or t._vc[0] == info.version:
        return False
    return t._node >= 0 or (t._node == tape.NO_GRAD_VIEW and info.creation == DEFAULT)


def refresh(t):
    """Read view t anew out of its base when it is outdated (Note [views changed unrecorded]);
    raises torch's error where its creation forbids that."""
    if t._extra is None:
        return
    seen(t)
    if not outdated(t):
        return
    with grad_mode.enable_grad():
        _read_anew(t, t._extra["view"])
    if t._node == tape.STALE_VIEW:
        raise stale_view_error(t)
