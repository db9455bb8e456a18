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
from .apply import apply
from .registry import OpDef


def _result(x, *inputs):
    return x


def _pass_through_vjp(ctx, g):
    return (g,)


# one op per number of saved inputs (the saved values are inputs y and z, of any float type: the
# kernel never reads them); their kernel is reshape's copy of the gradient, so naming compiles no
# kernel of its own
_NAMED = {n_saved: OpDef(f"named_{n_saved}", _result, node_name="NamedBackward0",
                         n_in=1 + n_saved, kernel="copy_bwd", vjp=_pass_through_vjp,
                         saves=("y", "z")[:n_saved], mixed_floats=True)
          for n_saved in (0, 1, 2)}


def named(result, node_name, *saved, inputs=None, view_of_intermediate=False):
    """`result` (a Tensor a composite computed), carrying a node named `node_name` that saves
    `saved` (up to two Tensors; None or non-Tensors are skipped) for the version checks.

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
    if inputs is None:
        inputs = [t for t in saved if isinstance(t, Tensor) and dtypes.is_floating(t.dtype)]
    seg.shown[out._node] = tuple(_edge_to(seg, t) for t in inputs)
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
        stack, seen = [seg], set()
        while stack:
            s = stack.pop()
            if id(t) in s.acc_of:
                return s.acc_of[id(t)], 0
            if id(s) not in seen:
                seen.add(id(s))
                stack.extend(s.deps)
    return -1, 0


def rename(result, node_name):
    """`result`, whose own node (a fresh op's, never an input's) is shown as `node_name`: an op
    that stands for a torch op of another name, such as an in-place form (leaky_relu_ is
    LeakyReluBackward1). Unlike `named` it adds no node."""
    if result._requires_grad and result._node >= 0:
        result._seg.names[result._node] = node_name
    return result
