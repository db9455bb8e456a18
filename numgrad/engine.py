"""Running a lowered graph: the compiled scheduler, the nodes it hands back to Python, the results.

`execute` seeds the root buffers, resolves the addresses of saved values, runs
`kernels.scheduler.run` and serves the nodes it returns (custom Functions, tensor hooks). Then it
reads the results out of the buffers: leaf gradients, retained gradients, the gradients asked for
by `autograd.grad`; and frees saved values unless the graph is retained.
"""
import threading

import numpy as np

from . import tape
from .hooks import output_hooks, run_hooks, run_node_post_hooks, run_node_pre_hooks
from .kernels import ready_queue, scheduler, table
from .kernels.plan import saved_value_addresses
from .kernels.abi import address_of
from .lower import _column
from .ops import registry
from .tensor import Tensor

_WS_DTYPES = (np.float32, np.float64, np.float32, np.float64)


class _Scratch(threading.local):
    """Intermediate workspaces kept between backward calls of a thread: a fresh array costs page
    faults on first touch, more than the arithmetic of an elementwise kernel. (Leaf results are
    always fresh: they become .grad.)"""

    def __init__(self):
        self.free = {}


_scratch = _Scratch()


def _take_scratch(dtype, n):
    ws = _scratch.free.pop(dtype, None)
    if ws is None or ws.size < n:
        ws = np.empty(max(n, 1), dtype)
    return ws


def _give_back(*spaces):
    for ws in spaces:
        kept = _scratch.free.get(ws.dtype.type)
        if kept is None or kept.size < ws.size:
            _scratch.free[ws.dtype.type] = ws


class Buffers:
    """The gradient buffers of one backward: four workspaces (intermediate and leaf results, for
    each float type) and where each (node, output) slot lives in them."""

    def __init__(self, graph):
        self.graph = graph
        n32, n64, leaf32, leaf64 = (int(n) for n in graph.totals)
        self.spaces = [_take_scratch(np.float32, n32), _take_scratch(np.float64, n64),
                       np.empty(max(leaf32, 1), np.float32), np.empty(max(leaf64, 1), np.float64)]
        self.addr = np.array([address_of(ws) for ws in self.spaces], np.int64)
        self.written = np.zeros(len(graph.buf_off), np.bool_)

    def __del__(self):
        # When this backward is over, its intermediate workspaces serve the next one of this
        # thread (a nested backward, from a hook, takes its own meanwhile). Whatever leaves the
        # engine is copied out of them first (readers, hooks, custom Functions). (__del__, not
        # weakref.finalize: a finalizer costs 5 us per backward.)
        _give_back(self.spaces[0], self.spaces[1])

    def slot(self, index, output):
        return int(self.graph.out_ptr[index]) + output

    def view(self, slot, shape):
        g = self.graph
        off = int(g.buf_off[slot])
        return self.spaces[g.buf_kind[slot]][off:off + int(g.o_numel[slot])].reshape(shape)

    def add(self, slot, shape, value):
        """Deliver one contribution: the first writes, later ones add."""
        target = self.view(slot, shape)
        if self.written[slot]:
            target += value
        else:
            target[...] = value
            self.written[slot] = True


def shape_of(graph, index, k):
    """Shape number k of node `index` (its inputs first, then its outputs), read from meta."""
    mt = graph.mt
    pos = int(graph.mt_ptr[index])
    for _ in range(k):
        pos += 1 + int(mt[pos])
    return tuple(int(d) for d in mt[pos + 1:pos + 1 + int(mt[pos])])


def output_shape(graph, index, j):
    n_in = int(graph.in_ptr[index + 1] - graph.in_ptr[index])
    return shape_of(graph, index, n_in + j)


def saved_addresses(graph, keep):
    """Address of every saved value the runnable nodes read. Scalars were saved by value into
    per-segment columns (copied here, into `keep`); arrays by reference, their addresses noted
    when saved."""
    addr = np.zeros(len(graph.s_ref), np.int64)
    owner = graph.saved_owner
    use = graph.runnable[owner]
    is64 = graph.dt[owner] == 1
    for k, seg in enumerate(graph.segments):
        lo, hi = int(graph.sv_ptr[graph.starts[k]]), int(graph.sv_ptr[graph.starts[k + 1]])
        if lo == hi:
            continue
        columns = []
        for column, dtype in ((seg.sv32, np.float32), (seg.sv64, np.float64)):
            values = _column(column, dtype)
            keep.append(values)
            columns.append(address_of(values) if values.size else 0)
        saved_value_addresses(graph.s_ref[lo:hi], use[lo:hi], is64[lo:hi], columns[0], columns[1],
                              _column(seg.array_addr, np.int64), addr[lo:hi])
    if graph.any_packed:
        from .autograd.saved_hooks import point_at_unpacked
        point_at_unpacked(graph, addr, keep)
    return addr


def execute(graph, seeds, python_node):
    """Run the compiled backward. seeds: (position, output, array) per root. python_node(graph,
    buffers, index, phase) serves nodes the scheduler hands back. Returns the buffers."""
    buffers = Buffers(graph)
    for index, output, value in seeds:
        buffers.add(buffers.slot(index, output), output_shape(graph, index, output), value)
    keep = []
    s_addr = saved_addresses(graph, keep)
    fn_table = table.kernels_for(graph.kind, graph.runnable, graph.variant)
    queue = np.empty(max(graph.n, 1), np.int64)
    ranks = np.empty(max(graph.n, 1), np.int64)
    state = np.zeros(5, np.int64)
    state[scheduler.READY] = ready_queue.push_all(queue, ranks, graph.ready, graph.ready_order,
                                                  graph.op)
    state[scheduler.PUSHED] = state[scheduler.READY]
    graph.order = np.empty(max(graph.n, 1), np.int64)
    graph.events = np.empty((4, max(len(graph.e_node), 1)), np.int64)   # src, dst, slot, pending
    scratch = np.empty(6 + graph.arg_width, np.int64)
    mt_addr = address_of(graph.mt) if graph.mt.size else 0
    fm = graph.fm if graph.fm.size else np.zeros(1)
    pending = graph.pending.copy()      # the plan's counts stay readable after the run
    resume, phase = -1, scheduler.START
    while True:
        node = scheduler.run(graph.op, graph.dt, graph.variant, graph.flags, graph.in_ptr,
                             graph.e_node, graph.e_slot, graph.out_ptr, graph.sv_ptr, s_addr,
                             mt_addr, graph.mt_ptr, address_of(fm), graph.fm_ptr, graph.needed,
                             pending, graph.buf_off, graph.buf_kind, buffers.written,
                             buffers.addr, fn_table, queue, ranks, graph.ready_order, state,
                             graph.order, *graph.events,
                             scratch, resume, phase)
        if node < 0:
            break
        try:
            phase = python_node(graph, buffers, int(node), int(state[scheduler.REASON]))
        except Exception:
            name_failed_node(graph, int(node))
            raise
        resume = node
    graph.n_order = int(state[scheduler.N_ORDER])
    graph.n_events = int(state[scheduler.N_EVENTS])
    return buffers


def name_failed_node(graph, index):
    """In anomaly mode, torch's warning naming the node where the backward failed."""
    from .autograd import anomaly
    if anomaly.enabled:
        anomaly.warn_error_in(graph, index)


def serve_python_node(graph, buffers, index, reason):
    """The hooks of a node and of its outputs' gradients (before it runs), or the node itself when
    it runs in Python (a custom Function, or a node with hooks after it): the scheduler says which
    (`reason`), and is resumed with the matching phase."""
    seg, node = graph.locate(index)
    if reason == scheduler.HOOKS:
        _run_pre_hooks(graph, buffers, index, seg, node)
        return scheduler.HOOKS_DONE
    _run_in_python(graph, buffers, index, seg, node)
    return scheduler.PYTHON_DONE


def _output_grads(graph, buffers, index):
    """The gradients that reached a node's outputs, copied out of the buffers (None: none)."""
    grads = []
    for j in range(int(graph.out_ptr[index + 1] - graph.out_ptr[index])):
        slot = buffers.slot(index, j)
        grads.append(Tensor._make(buffers.view(slot, output_shape(graph, index, j)).copy(), False)
                     if buffers.written[slot] else None)
    return grads


def _run_pre_hooks(graph, buffers, index, seg, node):
    """Tensor hooks of each output, then the node's pre-hooks (torch's order); what they return
    replaces the gradients in the buffers; retained gradients are stored between the two
    (graph.retain_step). For a leaf's AccumulateGrad: graph.leaf_step."""
    if graph.op[index] == tape.ACCUMULATE:
        slot = buffers.slot(index, 0)
        if graph.leaf_step is not None and buffers.written[slot]:
            shape = output_shape(graph, index, 0)
            grad = Tensor._make(buffers.view(slot, shape).copy(), False)
            new = graph.leaf_step(graph, index, grad)
            if new is not grad:
                buffers.view(slot, shape)[...] = new._data
        return
    if graph.captures and graph.runnable[index] and index not in graph.input_nodes:
        # torch captures a wanted input's gradient before the hooks of a node that runs (after
        # them where the node does not run)
        for j in range(int(graph.out_ptr[index + 1] - graph.out_ptr[index])):
            slot = buffers.slot(index, j)
            if slot in graph.captures and buffers.written[slot]:
                graph.captured[slot] = Tensor._make(
                    buffers.view(slot, output_shape(graph, index, j)).copy(), False)
    for j, hooks in output_hooks(seg, node, int(graph.out_ptr[index + 1] - graph.out_ptr[index])):
        slot = buffers.slot(index, j)
        if buffers.written[slot]:
            shape = output_shape(graph, index, j)
            grad = Tensor._make(buffers.view(slot, shape).copy(), False)
            buffers.view(slot, shape)[...] = run_hooks(hooks, grad)._data
        elif graph.runnable[index]:
            run_hooks(hooks, None)      # an output of a running node that got no gradient
    if graph.retain_step is not None and seg.retained:
        graph.retain_step(graph, index, _output_grads(graph, buffers, index))
    pre_hooks = seg.node_hooks.get(("pre_hooks", node))
    if pre_hooks and graph.runnable[index]:
        # (as torch, a node's pre-hooks run only when the node itself runs)
        grads, replaced = node_pre_hooks(graph, index, seg, node, pre_hooks,
                                         _output_grads(graph, buffers, index))
        for j, (old, new) in enumerate(zip(grads, replaced)):
            slot = buffers.slot(index, j)
            if new is None:
                buffers.written[slot] = False
            elif new is not old:  # (run_node_pre_hooks refuses a gradient where there was none)
                buffers.view(slot, output_shape(graph, index, j))[...] = new._data
                buffers.written[slot] = True
    if index in graph.input_nodes or graph.wants_none.size and graph.wants_none[index]:
        run_without_inputs(graph, index, seg, node, _output_grads(graph, buffers, index))


def run_without_inputs(graph, index, seg, node, grads_out):
    """A node that runs though none of its inputs wants a gradient (Note [non-leaf inputs of
    backward] in autograd/api.py): a custom Function's backward runs and delivers nowhere; the
    post-hooks see what it returned, or no gradients from a built-in node, which computes none."""
    from .autograd.differentiable import node_vjp
    grads_in = [None] * int(graph.in_ptr[index + 1] - graph.in_ptr[index])
    if graph.op[index] == registry.PYTHON_FUNCTION.code:
        grads_in = shown_input_grads(graph, index, node_vjp(graph, index, seg, node, grads_out))
    post_hooks = seg.node_hooks.get(("post_hooks", node))
    if post_hooks:
        node_post_hooks(graph, index, seg, node, post_hooks, grads_in, grads_out)


def _run_in_python(graph, buffers, index, seg, node):
    """A node's backward in Python, through its differentiable VJP (a custom Function's own
    backward), then its hooks, then delivery into the input slots."""
    from .autograd.differentiable import node_vjp
    if index in graph.input_nodes or graph.wants_none.size and graph.wants_none[index]:
        return      # it ran after its pre-hooks (run_without_inputs)
    grads_out = _output_grads(graph, buffers, index)
    i0, i1 = int(graph.in_ptr[index]), int(graph.in_ptr[index + 1])
    grads_in = [None] * (i1 - i0)
    # as the scheduler: a custom Function runs with zeros when no gradient reached its outputs
    if graph.op[index] == registry.PYTHON_FUNCTION.code or any(g is not None for g in grads_out):
        grads_in = shown_input_grads(graph, index, node_vjp(graph, index, seg, node, grads_out))
    post_hooks = seg.node_hooks.get(("post_hooks", node))
    extra = ()
    if post_hooks and is_named(graph, index):
        extra = composite_post_hooks(graph, index, seg, node, post_hooks, grads_out, False)
    elif post_hooks:
        grads_in = node_post_hooks(graph, index, seg, node, post_hooks, grads_in, grads_out)
    deliveries = [(int(graph.e_node[i0 + k]), int(graph.e_slot[i0 + k]), g)
                  for k, g in enumerate(grads_in)]
    for dst, out, g in deliveries + list(extra):
        if g is None or dst < 0 or not graph.needed[dst]:
            continue
        buffers.add(int(graph.out_ptr[dst]) + out, output_shape(graph, dst, out), g._data)


# Note [hooks of a named composite]
# A named composite's node (ops/named.py) passes its result's gradient on to the primitives that
# computed the result, which deliver to the composite's inputs later. torch's single node computes
# the inputs' gradients itself, and its post-hooks see them (one per input it lists) and may
# replace them. So a named node with post-hooks first computes its inputs' gradients as torch's
# would (a quiet backward of the primitives, api.quiet_grads), shows those to the hooks, and
# delivers to each input the difference a hook made (what it returned less what was computed):
# the primitives still deliver their part, which keeps every input the primitives reach,
# listed or not, as it was.
def is_named(graph, index):
    return registry.OPS[int(graph.op[index])].name.startswith("named_")


def composite_post_hooks(graph, index, seg, node, hooks, grads_out, create_graph):
    """Run the post-hooks of named node `index` on its inputs' gradients as torch's node computes
    them (Note [hooks of a named composite]); returns (position, output, gradient) to deliver
    besides the primitives' gradients."""
    from .autograd.api import quiet_grads
    from .autograd.graph import GradientEdge, edge_tensor
    from .node import node_view, shown_edges
    from .tape import segment_holding
    i0 = int(graph.in_ptr[index])
    root_seg, root_node = graph.locate(int(graph.e_node[i0]))
    root = edge_tensor(GradientEdge(node_view(root_seg, root_node), int(graph.e_slot[i0])))
    serials = {s.serial for s in graph.segments}
    places = []         # (position, output) of each input torch's node lists; None: no gradient
    for producer, slot in shown_edges(seg, node):
        position = int(graph.index_of([producer])[0]) if producer >= 0 and \
            (producer >> 32) in serials else -1
        places.append((position, slot) if position >= 0 and graph.needed[position] else None)
    wanted = [p for p in places if p is not None]
    handles = []
    for position, slot in wanted:
        pseg, pnode = graph.locate(position)
        handles.append(edge_tensor(GradientEdge(node_view(segment_holding(pseg, pnode), pnode),
                                                slot)))
    computed = iter(quiet_grads(root, grads_out[0], handles, create_graph) if handles else ())
    shown = []
    for place in places:
        g = None if place is None else next(computed)
        if place is not None and g is None:
            # the primitives gave this input nothing: torch's formula gives zeros
            g = Tensor._make(np.zeros(output_shape(graph, *place), g_dtype_of(graph, place[0])),
                             False)
        shown.append(g)
    replaced = run_node_post_hooks(hooks, shown, in_output_dtypes(seg, node, grads_out))
    extra = []
    for place, old, new in zip(places, shown, replaced):
        if place is not None and new is not old:
            extra.append((*place, -old if new is None else new - old))
    return extra


def g_dtype_of(graph, index):
    return np.float64 if graph.dt[index] == 1 else np.float32


def shown_input_grads(graph, index, computed):
    """A node's computed input gradients as its post-hooks see them: None for an input that
    wants none, unless torch's op computes every piece of its tensor list (OpDef.list_input) or
    is a custom Function (whose hooks see what its backward returned)."""
    i0, i1 = int(graph.in_ptr[index]), int(graph.in_ptr[index + 1])
    op = registry.OPS[int(graph.op[index])]
    every = op.list_input or op.python_backward
    shown = [None] * (i1 - i0)
    for k, g in enumerate(computed):
        dst = int(graph.e_node[i0 + k])
        if every or dst >= 0 and graph.needed[dst]:
            shown[k] = g
    return shown


def node_pre_hooks(graph, index, seg, node, hooks, grads_out):
    """A node's pre-hooks on its output gradients as torch's node has them (their float types,
    its outputs: OpDef.grad_outputs; transposed: _flipped). Returns (the gradients shown, what
    the hooks made of them)."""
    shown = in_output_dtypes(seg, node, grads_out)
    flipped = _flipped_outputs(graph, index)
    seen = _flip(shown, flipped)
    replaced = run_node_pre_hooks(hooks, seen, registry.OPS[int(graph.op[index])].grad_outputs)
    return shown, [old if new is view else _flip([new], (0,) if j in flipped else ())[0]
                   for j, (old, view, new) in enumerate(zip(shown, seen, replaced))]


def node_post_hooks(graph, index, seg, node, hooks, grads_in, grads_out):
    """A node's post-hooks: grads_in (shown_input_grads) and grads_out as torch's node has them
    (their float types, the inputs and outputs it lists, transposed: _flipped); returns the input
    gradients to use."""
    op = registry.OPS[int(graph.op[index])]
    flipped = _flipped_inputs(graph, index)
    grads_in = run_node_post_hooks(
        hooks, _flip(in_input_dtypes(graph, index, grads_in), flipped),
        _flip(in_output_dtypes(seg, node, grads_out), _flipped_outputs(graph, index)),
        op.listed, op.grad_outputs)
    return _flip(grads_in, flipped)


# Note [hooks see torch's layout]
# torch's linear is addmm(b, x, w.t()): its node computes the gradient of w.t(), which TBackward0
# transposes into w's. numgrad's fused node computes w's gradient itself, and its TBackward0
# passes it on (Note [torch's inner nodes] in ops/nn_ops.py), so the node hooks of both are shown
# that gradient transposed, a view, as torch's nodes hold it; what the hooks return is transposed
# back.
def _flipped_inputs(graph, index):
    """Positions of node `index`'s inputs whose gradient torch's node holds transposed: those that
    reach w through TBackward0."""
    i0, i1 = int(graph.in_ptr[index]), int(graph.in_ptr[index + 1])
    weight = registry.BY_NAME["linear_weight"].code
    return tuple(k for k in range(i1 - i0)
                 if graph.e_node[i0 + k] >= 0 and graph.op[graph.e_node[i0 + k]] == weight)


def _flipped_outputs(graph, index):
    """(0,) for TBackward0 of a fused linear node, whose output gradient torch holds transposed."""
    return (0,) if graph.op[index] == registry.BY_NAME["linear_weight"].code else ()


def _flip(grads, positions):
    """The gradients, those at `positions` transposed (matrices only: a vector's is itself)."""
    return [g.mT if k in positions and g is not None and g.ndim == 2 else g
            for k, g in enumerate(grads)]


def in_output_dtypes(seg, node, grads_out):
    """A node's output gradients as torch's node hooks see them: an in-place op of mixed float
    types computes in the wider type, where torch's node gives the changed tensor's
    (Segment.narrowed)."""
    if not seg.narrowed:
        return grads_out
    return [g if g is None or (node, j) not in seg.narrowed else g.to(seg.narrowed[(node, j)])
            for j, g in enumerate(grads_out)]


def in_input_dtypes(graph, index, grads_in):
    """A node's input gradients as torch's node hooks see them: a float32 operand that the op
    promoted (numgrad's hidden PROMOTE node to float64) gets its gradient in its own type. (A
    PROMOTE to float32, an in-place op's result cast back, is the input tensor itself.)"""
    promote = registry.BY_NAME["promote"].code
    i0 = int(graph.in_ptr[index])
    grads_in = list(grads_in)
    for k, g in enumerate(grads_in):
        dst = int(graph.e_node[i0 + k])
        if g is not None and dst >= 0 and graph.op[dst] == promote and graph.dt[dst] == 1:
            grads_in[k] = g.to(np.float32)
    return grads_in


def release(graph):
    """Free what the nodes that ran saved: a later backward through them raises torch's error."""
    freeing = graph.runnable[graph.saved_owner] & (graph.s_ref != tape.FREED)
    for k, seg in enumerate(graph.segments):
        lo, hi = graph.starts[k], graph.starts[k + 1]
        s0, s1 = int(graph.sv_ptr[lo]), int(graph.sv_ptr[hi])
        mine = freeing[s0:s1]
        refs = graph.s_ref[s0:s1]
        for ref in refs[mine & (refs < 0)].tolist():
            array = seg.arrays[~ref]
            if array is not None:       # None: saved_tensors_hooks packed it
                seg.saved_bytes -= array.nbytes
                seg.arrays[~ref] = None
        if s1 > s0:
            column = np.frombuffer(seg.s_ref, np.int64)
            column[:s1 - s0][mine] = tape.FREED     # values saved after lowering stay
            del column
        tape.close_segment(seg)
    for index in graph.python_nodes():
        seg, node = graph.locate(index)
        seg.python[node].release()
    if graph.any_packed:
        from .autograd.saved_hooks import release_packed
        release_packed(graph)
