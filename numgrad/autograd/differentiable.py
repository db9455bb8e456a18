"""create_graph=True: the backward run in Python with each node's differentiable VJP, so the
backward itself is recorded on the tape and can be differentiated again.

It follows the same plan as the compiled scheduler (needed nodes, pending counts per edge) and the
same rule: a node runs once, after the contributions to its outputs are summed.
"""
import functools
import inspect

import numpy as np

from .. import tape
from ..creation import full
from ..engine import (composite_post_hooks, is_named, name_failed_node, node_post_hooks,
                      node_pre_hooks, run_without_inputs, shape_of, shown_input_grads)
from ..hooks import output_hooks, run_hooks
from ..kernels import ready_queue
from ..ops import registry
from ..ops.reduce import sum_to
from ..tensor import Tensor
from .saved_hooks import unpacked_array


class SavedContext:
    """What a VJP sees of its node: saved values as Tensors connected to the graph, attributes,
    shapes, and which inputs want a gradient."""

    __slots__ = ("saved", "ints", "floats", "in_shapes", "out_shapes", "needs_input_grad")

    def __init__(self, saved, ints, floats, in_shapes, out_shapes, needs_input_grad):
        self.saved = saved
        self.ints = ints
        self.floats = floats
        self.in_shapes = in_shapes
        self.out_shapes = out_shapes
        self.needs_input_grad = needs_input_grad


def _value(seg, local_s, dtype):
    ref = seg.s_ref[local_s]
    if ref < 0:
        return seg.arrays[~ref]
    column = seg.sv64 if dtype == np.float64 else seg.sv32
    return np.array(column[ref], dtype)


def _saved_tensors(graph, index, seg, node):
    """Saved values as Tensors: inputs keep their producer's identity, so gradients flow through
    them; outputs are this node's own."""
    op = registry.OPS[int(graph.op[index])]
    dtype = np.float64 if graph.dt[index] == 1 else np.float32
    first = int(graph.sv_ptr[index])
    packed = seg.packed.get(node, {})       # Note [packed saved values]
    saved = []
    for pos, where in enumerate(op.save_index):
        _, local_s = graph.local_saved(index, first + pos)
        # an unpacked value takes the saved tensor's place in the graph, as in torch
        value = unpacked_array(packed[pos], dtype) if pos in packed else _value(seg, local_s, dtype)
        if where >= 0:
            e = int(graph.in_ptr[index]) + where
            producer = int(graph.e_node[e])
            if producer < 0:
                saved.append(Tensor._make(value, False))
            elif graph.op[producer] == tape.ACCUMULATE:
                pseg, pid = graph.locate(producer)
                # the leaf itself; an unpacked value, on the leaf's AccumulateGrad
                saved.append(Tensor._make(value, True, pseg, pid, 0) if pos in packed
                             else pseg.leaves[pid])
            else:
                pseg, pid = graph.locate(producer)
                saved.append(Tensor._make(value, True, pseg, pid, int(graph.e_slot[e])))
        else:
            saved.append(Tensor._make(value, True, seg, node, ~where))
    return saved


def _context(graph, index, seg, node):
    op = registry.OPS[int(graph.op[index])]
    n_in = int(graph.in_ptr[index + 1] - graph.in_ptr[index])
    n_out = int(graph.out_ptr[index + 1] - graph.out_ptr[index])
    in_shapes = [shape_of(graph, index, k) for k in range(n_in)]
    out_shapes = [shape_of(graph, index, n_in + j) for j in range(n_out)]
    pos = int(graph.mt_ptr[index])
    for _ in range(n_in + n_out):
        pos += 1 + int(graph.mt[pos])
    ints = graph.mt[pos:int(graph.mt_ptr[index + 1])]
    floats = graph.fm[int(graph.fm_ptr[index]):int(graph.fm_ptr[index + 1])]
    needs = []
    for e in range(int(graph.in_ptr[index]), int(graph.in_ptr[index + 1])):
        dst = int(graph.e_node[e])
        needs.append(dst >= 0 and bool(graph.needed[dst]))
    if op.list_input and any(needs):
        needs = [True] * len(needs)
    saved = _saved_tensors(graph, index, seg, node) if not op.python_backward else []
    return SavedContext(saved, ints, floats, in_shapes, out_shapes, tuple(needs))


@functools.lru_cache(maxsize=None)
def _parameters(formula):
    """A derivative formula's parameter names: what it needs (inspect is slow, formulas few)."""
    return tuple(inspect.signature(formula).parameters)


def elementwise_vjp(op, ctx, g, broadcast_back=True):
    """The registry formulas evaluated on Tensors, summed back to each input's shape (as
    torch's engine does after its node; without broadcast_back, in the output's shape, as
    torch's node computes them)."""
    values = dict(zip(op.saves, ctx.saved))
    attrs = dict(zip(op.attr_names, (float(v) for v in ctx.floats)))
    grads = []
    for k, formula in enumerate(op.grads):
        if formula is None or not ctx.needs_input_grad[k]:
            grads.append(None)
            continue
        kwargs = {}
        for name in _parameters(formula):
            kwargs[name] = g if name == "g" else attrs[name] if name in attrs else values[name]
        result = formula(**kwargs)
        if not isinstance(result, Tensor):
            # a constant derivative (zero: floor division, a power of 0): zeros, not g * 0,
            # which would carry an infinite or nan g through, as torch does not
            shape = ctx.in_shapes[k] if broadcast_back else g.shape
            result = full(shape, result, dtype=g.dtype, device=g.device)
        if broadcast_back and tuple(result.shape) != tuple(ctx.in_shapes[k]):
            result = sum_to(result, ctx.in_shapes[k])
        grads.append(result)
    return grads


def node_vjp(graph, index, seg, node, grads_out, in_engine=True):
    """Input gradients of one node from its output gradients (None: undefined), in numgrad ops.
    in_engine: as torch's engine runs the node (see below, and elementwise_vjp's
    broadcast_back); False: as calling torch's node computes them (autograd/node_call.py)."""
    op = registry.OPS[int(graph.op[index])]
    if op.python_backward:
        from .function import differentiable_backward
        return differentiable_backward(graph, index, seg, node, grads_out)
    if in_engine:
        # a gradient a hook gave in another float type comes in the node's, as torch's
        # validate_outputs casts it (the compiled engine's buffers do the same); a called node
        # computes in the type its formula promotes to
        dtype = g_dtype(graph, index)
        grads_out = [g if g is None or g.dtype == dtype else g.to(dtype) for g in grads_out]
    ctx = _context(graph, index, seg, node)
    if op.elementwise and op.vjp is None:     # else an op of torch's of its own differentiates
        return elementwise_vjp(op, ctx, grads_out[0], broadcast_back=in_engine)
    grads_out = [g if g is not None else Tensor._make(np.zeros(s, g_dtype(graph, index)), False)
                 for g, s in zip(grads_out, ctx.out_shapes)]
    return list(op.vjp(ctx, *grads_out))


def g_dtype(graph, index):
    return np.float64 if graph.dt[index] == 1 else np.float32


def _run_node(graph, grads, index):
    """One node: the hooks before it, its VJP, the hooks after it, delivery into grads.
    Returns its input edges (i0, i1)."""
    seg, node = graph.locate(index)
    o0, o1 = int(graph.out_ptr[index]), int(graph.out_ptr[index + 1])
    if graph.flags[index] & tape.PRE_HOOKS and graph.op[index] == tape.ACCUMULATE:
        if graph.leaf_step is not None and o0 in grads:
            grads[o0] = graph.leaf_step(graph, index, grads[o0])
    elif graph.flags[index] & tape.PRE_HOOKS:
        if graph.captures and graph.runnable[index] and index not in graph.input_nodes:
            # as the engine: captured before the hooks of a node that runs
            graph.captured.update((s, grads[s]) for s in range(o0, o1)
                                  if s in graph.captures and s in grads)
        for j, hooks in output_hooks(seg, node, o1 - o0):
            if (o0 + j) in grads:
                grads[o0 + j] = run_hooks(hooks, grads[o0 + j])
            elif graph.runnable[index]:
                run_hooks(hooks, None)      # an output of a running node with no gradient
        if graph.retain_step is not None and seg.retained:
            graph.retain_step(graph, index, [grads.get(s) for s in range(o0, o1)])
        pre_hooks = seg.node_hooks.get(("pre_hooks", node))
        if pre_hooks and graph.runnable[index]:
            _, outs = node_pre_hooks(graph, index, seg, node, pre_hooks,
                                     [grads.get(s) for s in range(o0, o1)])
            for s, g in zip(range(o0, o1), outs):
                if g is None:
                    grads.pop(s, None)
                else:
                    grads[s] = g
        if index in graph.input_nodes or graph.wants_none.size and graph.wants_none[index]:
            run_without_inputs(graph, index, seg, node, [grads.get(s) for s in range(o0, o1)])
    i0, i1 = int(graph.in_ptr[index]), int(graph.in_ptr[index + 1])
    if graph.op[index] != tape.ACCUMULATE:
        outs = [grads.get(s) for s in range(o0, o1)]
        wanted = [graph.e_node[e] >= 0 and graph.needed[graph.e_node[e]] for e in range(i0, i1)]
        # as the scheduler: a custom Function runs with zeros when no gradient reached it
        python_node = graph.op[index] == registry.PYTHON_FUNCTION.code
        if any(wanted) and (python_node or any(g is not None for g in outs)):
            in_grads = list(node_vjp(graph, index, seg, node, outs))
            post_hooks = seg.node_hooks.get(("post_hooks", node))
            extra = ()
            if post_hooks and is_named(graph, index):
                extra = composite_post_hooks(graph, index, seg, node, post_hooks, outs, True)
            elif post_hooks:
                in_grads = node_post_hooks(graph, index, seg, node, post_hooks,
                                           shown_input_grads(graph, index, in_grads), outs)
            deliveries = [(int(graph.e_node[i0 + k]), int(graph.e_slot[i0 + k]),
                           in_grads[k] if k < len(in_grads) else None) for k in range(i1 - i0)]
            for dst, out, g in deliveries + list(extra):
                if dst < 0 or not graph.needed[dst] or g is None:
                    continue
                slot = int(graph.out_ptr[dst]) + out
                grads[slot] = g if slot not in grads else grads[slot] + g
    return i0, i1


def execute(graph, seeds):
    """Run the plan in Python; returns {output slot: gradient Tensor} for every slot reached."""
    grads = {}
    for index, out, value in seeds:
        slot = int(graph.out_ptr[index]) + out
        grads[slot] = value if slot not in grads else grads[slot] + value
    pending = graph.pending.copy()
    # the compiled scheduler's order (Note [ready order]), through its own ready queue
    queue = np.empty(max(graph.n, 1), np.int64)
    ranks = np.empty(max(graph.n, 1), np.int64)
    size = ready_queue.push_all(queue, ranks, graph.ready, graph.ready_order, graph.op)
    pushed = size
    order = []
    index = -1
    try:
        while size:
            index = int(ready_queue.pop(queue, ranks, size))
            size -= 1
            order.append(index)
            i0, i1 = _run_node(graph, grads, index)
            for e in range(i0, i1):
                dst = int(graph.e_node[e])
                if dst >= 0 and graph.needed[dst]:
                    pending[dst] -= 1
                    if pending[dst] == 0:
                        rank = ready_queue.rank_of(graph.ready_order, graph.op, dst, pushed)
                        size = ready_queue.push(queue, ranks, size, dst, rank)
                        pushed += 1
    except Exception:
        name_failed_node(graph, index)
        raise
    graph.order = np.array(order, np.int64)
    graph.n_order = len(order)
    return grads



