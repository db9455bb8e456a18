"""torch's node on a composite's result: the name, and the checks of the inputs torch saves.

Note [named composites]
torch computes mse_loss, layer_norm, hardtanh, ... as single ops: the result's grad_fn is
MseLossBackward0, and the op saves its inputs, so that changing one in place before the backward
raises the version error. numgrad builds such functions from primitives, whose nodes have other
names and save intermediate values instead. `named` puts one pass-through node on the result:
grad_fn.name() is torch's, and the node saves the inputs torch saves (through detached aliases,
which share their version counters and need no gradient), so the saved-value checks see them.
The gradient is the primitives' own. next_functions shows torch's inputs of the op (the edges
they would have: Segment.shown), so that a walk of the graph sees torch's structure; the
primitives below stay out of sight, as inside torch's op.
"""
from .. import dtypes, grad_mode, tape
from ..tensor import Tensor
from .apply import apply, show_attributes
from .elementwise import reads
from .registry import OpDef


def _result(x, *inputs):
    return x


def pass_through_vjp(ctx, g):
    return (g,)


# one op per number of saved inputs (the saved values are inputs y and z, of any float type: the
# kernel never reads them); their kernel is reshape's copy of the gradient, so naming compiles no
# kernel of its own
_NAMED = {n_saved: OpDef(f"named_{n_saved}", _result, node_name="NamedBackward0",
                         n_in=1 + n_saved, kernel="copy_bwd", vjp=pass_through_vjp,
                         saves=("y", "z")[:n_saved], mixed_floats=True)
          for n_saved in (0, 1, 2)}


def named(result, node_name, *saved, inputs=None, view_of_intermediate=False, attributes=None,
          saved_names=None):
    """`result` (a Tensor a composite computed), carrying a node named `node_name` that saves
    `saved` (up to two Tensors; None or non-Tensors are skipped) for the version checks, and
    shows `attributes` (a dict: what torch's node keeps besides tensors, ops/apply.py's
    show_attributes). `saved_names`, one per entry of `saved`: torch's names of them, shown as
    grad_fn._saved_<name>.

    next_functions lists `inputs` (Tensors, or None for an absent optional input), by default the
    floating-point tensors among `saved`: torch's node lists the inputs it differentiates.

    The named tensor shares result's memory without being tracked as a view: a result that is a
    view keeps its own node, unless the caller says it views only the composite's intermediates
    (view_of_intermediate), which nobody else can reach."""
    if not (result._requires_grad and grad_mode.state.grad_enabled):
        return result
    if result._base is not None and not view_of_intermediate:
        return result
    guards = tuple(t.detach() for t in saved if isinstance(t, Tensor))
    out = apply(_NAMED[len(guards)], (result, *guards))
    seg = out._seg
    seg.names[out._node] = node_name
    if saved_names is not None:
        kept = [(name, t) for name, t in zip(saved_names, saved) if isinstance(t, Tensor)]
        seg.named_saved[out._node] = (tuple(name for name, _ in kept),
                                      tuple(_edge_to(seg, t) for _, t in kept))
    if inputs is None:
        inputs = [t for t in saved if isinstance(t, Tensor) and dtypes.is_floating(t.dtype)]
    seg.shown[out._node] = tuple(_edge_to(seg, t) for t in inputs)
    if attributes:
        show_attributes(out, **attributes)
    return out


def _edge_to(seg, t):
    """(node, input_nr) of the edge torch's node would have to tensor t; (-1, 0) for none."""
    if not isinstance(t, Tensor) or not t._requires_grad:
        return -1, 0
    if t._node >= 0:
        if t._seg is not seg:
            seg.deps.add(t._seg)
        return t._node, t._slot
    if t._node == tape.LEAF:
        # the leaf's AccumulateGrad where the composite used it: here, or in an older segment
        for s in tape.reached(seg):
            if id(t) in s.acc_of:
                return s.acc_of[id(t)], 0
    return -1, 0


# Note [backward ops that read their input], for composites: torch's backward of max_pool2d,
# avg_pool2d, the padding modes, nll_loss, prelu, ... takes the input itself, so that under
# create_graph their gradient is linked to the input (with derivative zero) even where no other
# path reaches it, and differentiating it again gives zeros where numgrad's primitives would
# give a constant that a second grad refuses. `read_by_backward` puts that link below a
# composite: the input passes through a node whose gradient, built for create_graph, reads it.
_READER_NAMES = []


def _read_by_backward_vjp(ctx, g):
    (x,) = ctx.saved
    return (reads(g, x, _READER_NAMES[int(ctx.ints[0])]),)


READ_BY_BACKWARD = OpDef("read_by_backward", lambda x, name: x, node_name="NamedBackward0",
                         kernel="copy_bwd", vjp=_read_by_backward_vjp, saves=("x",),
                         meta=lambda name: ((name,), ()), saved_names=(None,))


def read_by_backward(x, node_name):
    """x, for a composite standing for torch op `node_name` whose backward reads x: the
    gradient that reaches x through it, under create_graph, is that of torch's node
    `node_name`Backward0, linked to x. Without a gradient to carry it is x itself."""
    if not (isinstance(x, Tensor) and x._requires_grad and grad_mode.state.grad_enabled):
        return x
    name = node_name.replace("Backward0", "BackwardBackward0")
    if name not in _READER_NAMES:
        _READER_NAMES.append(name)
    return apply(READ_BY_BACKWARD, (x,), {"name": _READER_NAMES.index(name)})


def rename(result, node_name, inputs=None, attributes=None):
    """`result`, whose own node (a fresh op's, never an input's) is shown as `node_name`: an op
    that stands for a torch op of another name, such as an in-place form (leaky_relu_ is
    LeakyReluBackward1). Unlike `named` it adds no node. `inputs` as in show_inputs;
    `attributes` (a dict) replace what the op's node showed, as in `named`."""
    if result._requires_grad and result._node >= 0:
        result._seg.names[result._node] = node_name
        if attributes is not None:
            show_attributes(result, **attributes)
    return result if inputs is None else show_inputs(result, *inputs)


def show_inputs(result, *inputs):
    """`result`, whose node numgrad reached through others (a write of values into a tensor is a
    masked copy of the tensor plus the values placed), listing `inputs` in next_functions as
    torch's single op does (None for an input that is absent or no tensor)."""
    if result._requires_grad and result._node >= 0:
        seg = result._seg
        seg.shown[result._node] = tuple(_edge_to(seg, t) for t in inputs)
    return result
