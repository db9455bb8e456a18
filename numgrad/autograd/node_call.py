"""Calling a grad_fn: `y.grad_fn(grad)` runs that one node's backward, as torch's Node.__call__.

The node's derivative is evaluated on the given output gradients with its differentiable VJP
(the one create_graph uses), so that with grad mode on, the results carry a graph of their own,
as torch's do. No hook runs: torch's engine runs hooks around a node, calling it does not. The
result is one input gradient per input torch's node lists (None for an input that wants none):
a tuple, or the gradient itself for a node of one input. Calling an AccumulateGrad adds the
gradient to its leaf's .grad and returns ().
"""
import numpy as np

from .. import grad_mode, tape
from ..engine import shown_input_grads
from ..lower import LoweredGraph, segments_of
from ..node import node_name
from ..ops import registry
from ..tensor import Tensor
from .differentiable import node_vjp


def call_node(seg, node, grads):
    local = node & 0xFFFFFFFF
    op = registry.OPS[seg.op_of(local)]
    graph = LoweredGraph(segments_of([seg]))
    index = int(graph.index_of([node])[0])
    n_out = int(graph.out_ptr[index + 1] - graph.out_ptr[index])
    expected = op.grad_outputs or n_out
    if len(grads) != expected:
        raise TypeError(f"expected {expected} arguments, got {len(grads)} instead")
    for g in grads:
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"expected a Tensor or None as each gradient, got "
                            f"{type(g).__name__}")
    if seg.op_of(local) == tape.ACCUMULATE:
        _accumulate(seg.leaves[node], grads[0])
        return ()
    if node in seg.shown:
        # a named composite's node (ops/named.py) passes the gradient to the primitives below
        # it: torch's node's derivative is theirs together
        raise NotImplementedError(f"calling {node_name(seg, node)}: numgrad computes this op "
                                  f"from several nodes, and its gradient in a backward through "
                                  f"them all")
    graph.plan([index], [])
    _check_saved(graph, index, seg, node, op)
    # what the VJP records goes into a fresh segment, as in a backward: the lowered segments
    # keep the size they were lowered with
    tape.close_segment(tape.recording_segment())
    grads_out = list(grads) + [None] * (n_out - len(grads))    # outputs torch's node lacks
    if all(g is None for g in grads_out):
        computed = [None] * int(graph.in_ptr[index + 1] - graph.in_ptr[index])
    else:
        # torch's elementwise nodes leave a broadcast input's gradient in the output's shape:
        # its engine sums it back after the node
        computed = node_vjp(graph, index, seg, node, grads_out, in_engine=False)
    shown = shown_input_grads(graph, index, computed)
    if op.listed is not None:
        shown = [shown[k] for k in op.listed]
    return shown[0] if len(shown) == 1 else tuple(shown)


def _check_saved(graph, index, seg, node, op):
    """torch's errors for this node's saved values only (freed, or changed in place): other
    nodes of the graph do not run."""
    only = np.zeros_like(graph.runnable)
    only[index] = True
    graph.runnable = only
    graph.check_saved()
    if op.python_backward:
        seg.python[node].check_saved()


def _accumulate(leaf, grad):
    if grad is None:
        return
    with grad_mode.no_grad():
        if leaf._grad is None:
            leaf._grad = grad.detach().clone()
        else:
            leaf._grad += grad
