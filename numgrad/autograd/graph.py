"""See the engine's input: the lowered backward graph as a table and as Graphviz text.

`lower(roots)` plans the backward that `backward(roots)` would run -- the same LoweredGraph, the
same pending counts and buffer plan -- and runs nothing, frees nothing. Positions are the graph's
own (indices into the flat arrays), so what the table shows is what the scheduler and a trace see.
"""
import functools
import shutil
import subprocess
from typing import NamedTuple

import numpy as np

from .. import tape
from ..engine import output_shape
from ..node import node_name
from . import api
from .api import _as_tuple, _check_roots, _targets
# torch.autograd.graph's public names that live elsewhere in numgrad
from ..node import Node  # noqa: F401
from .saved_hooks import (allow_mutation_on_saved_tensors, disable_saved_tensors_hooks,  # noqa: F401
                          save_on_cpu, saved_tensors_hooks)
from .. import grad_mode
from ..hooks import RemovableHandle
from ..node import node_view
from ..tensor import Tensor


class GradientEdge(NamedTuple):
    """An edge of the backward graph: the node a gradient flows into and which of its outputs
    it is. autograd.grad and autograd.backward take one in place of a tensor."""
    node: Node
    output_nr: int
    ownership_token: Node = None


def get_gradient_edge(tensor):
    """The GradientEdge a tensor's gradient flows along: its grad_fn and output number, or its
    AccumulateGrad for a leaf.

    >>> x = numgrad.tensor([1., 2.], requires_grad=True)
    >>> y = x * 2
    >>> numgrad.autograd.grad(y.sum(), get_gradient_edge(y))
    (tensor([1., 1.]),)
    """
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    if tensor._node >= 0:
        return GradientEdge(tensor.grad_fn, tensor._slot)
    seg = tape.current_segment()
    node = seg.acc_of.get(id(tensor)) or seg.add_leaf(tensor)
    return GradientEdge(node_view(seg, node), 0)


def edge_tensor(edge):
    """A tensor standing for a GradientEdge where autograd.grad and backward take tensors: the
    leaf of an AccumulateGrad, else a handle on the node's output (its shape and dtype read from
    the tape, its values unused)."""
    node, slot = edge.node, edge.output_nr
    seg, node_id = node._seg, node._id
    local = node_id & 0xFFFFFFFF
    if seg.op_of(local) == tape.ACCUMULATE:
        return seg.leaves[node_id]
    counts = np.frombuffer(seg.counts, np.int64)[:local + 1]
    n_meta = (counts >> tape.META_BITS) & ((1 << (tape.FM_BITS - tape.META_BITS)) - 1)
    pos = int(n_meta[:local].sum())
    for _ in range(int(counts[local] & 0xFFF) + slot):       # inputs' shapes, then outputs'
        pos += 1 + seg.mt[pos]
    shape = tuple(seg.mt[pos + 1:pos + 1 + seg.mt[pos]])
    dtype = np.float64 if seg.kind[local] & tape.FLOAT64 else np.float32
    return Tensor._make(np.zeros(shape, dtype), True, seg, node_id, slot)


class _MultiHandle(RemovableHandle):
    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for handle in self.handles:
            handle.remove()


def _will_execute(t):
    """Whether the running backward computes a gradient for t (torch's _will_engine_execute_node
    of its grad_fn or AccumulateGrad)."""
    graph = grad_mode.state.running_graph
    if t._node < 0 and not graph.accumulates:
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are "
                           "currently running autograd.grad(). This is currently not supported.")
    return any(graph.needed[p] for p, _ in _targets(graph, [t])[0])


def _graph_task():
    task = grad_mode.state.graph_task
    if task is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return task


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """mode="all": fn(grads) once per backward, after the gradients of all the tensors that
    backward reaches were computed (None for the others); mode="any": fn(grad) once per backward,
    with the first of them computed.

    >>> a, b = numgrad.ones(2, requires_grad=True), numgrad.ones(2, requires_grad=True)
    >>> handle = register_multi_grad_hook((a, b), lambda grads: print(len(grads)))
    >>> (a * b).sum().backward()
    2
    """
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    if mode == "all":
        count, buffer, nb_calls = {}, {}, {}

        def inner_hook(idx, grad):
            task = _graph_task()
            if task not in count:
                count[task] = 0
                buffer[task] = [None] * len(tensors)
                nb_calls[task] = sum(map(_will_execute, tensors))
            count[task] += 1
            buffer[task][idx] = grad
            if count[task] == nb_calls[task]:
                grads = buffer.pop(task)
                del count[task], nb_calls[task]
                fn(grads)

        handles = tuple(t.register_hook(functools.partial(inner_hook, i))
                        for i, t in enumerate(tensors))
    else:
        ran = set()

        @functools.wraps(fn)
        def wrapped_fn(grad):
            task = _graph_task()
            if task in ran:
                return
            ran.add(task)
            fn(grad)

        handles = tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)



def increment_version(tensor):
    """Bump the version counter of `tensor` (or of each tensor of an iterable) as an in-place
    change would, for code that changes data behind numgrad's back."""
    for t in (tensor,) if not isinstance(tensor, (list, tuple)) else tensor:
        t._bump_version()


_WORKSPACES = ("float32", "float64", "leaf float32", "leaf float64")
_FLAG_NOTES = ((tape.PYTHON, "python"), (tape.PRE_HOOKS, "hooks"), (tape.RELEASED, "released"))


def plan_backward(roots, inputs=None):
    """The LoweredGraph a backward of `roots` (pruned to `inputs`) runs, and the seeded slots as
    (position, output) pairs: api.plan_backward, which the backward itself uses."""
    roots = _as_tuple(roots)
    _check_roots(roots)
    graph = api.plan_backward(roots, _as_tuple(inputs) if inputs is not None else None)
    return graph, graph.root_slots


class Labels:
    """Names for positions and slots: the user's names for tensors where given, else the node's
    class name and position (`MulBackward0#1`)."""

    def __init__(self, graph, names=None):
        self.graph = graph
        self._slots = {}
        for label, t in (names or {}).items():
            for place in _targets(graph, [t])[0]:
                self._slots[place] = label

    def node_name(self, index):
        return node_name(*self.graph.locate(index))

    def user(self, index):
        """The user's names of a node's outputs, joined; None when it has none."""
        outputs = range(int(self.graph.out_ptr[index + 1] - self.graph.out_ptr[index]))
        given = [self._slots[(index, j)] for j in outputs if (index, j) in self._slots]
        return ", ".join(given) or None

    def node(self, index):
        return self.user(index) or f"{self.node_name(index)}#{index}"

    def slot(self, index, output):
        if (index, output) in self._slots:
            return self._slots[(index, output)]
        n_out = int(self.graph.out_ptr[index + 1] - self.graph.out_ptr[index])
        return self.node(index) + (f"[{output}]" if n_out > 1 else "")


class BackwardGraph:
    """The lowered backward graph of some roots: nodes, edges, pending counts, buffer plan.

    Attributes: `lowered` (the numgrad.lower.LoweredGraph: flat arrays), `roots` (seeded slots as
    (position, output)). Printing gives a table; `to_dot()` Graphviz text; `render()` an image.

    >>> x = numgrad.tensor(2., requires_grad=True)
    >>> g = numgrad.autograd.graph.lower(x * x)
    >>> [name for _, name in g.nodes]
    ['MulBackward0', 'AccumulateGrad']
    """

    def __init__(self, lowered, roots, names=None):
        self.lowered = lowered
        self.roots = roots
        self.labels = Labels(lowered, names)

    @property
    def positions(self):
        """Needed nodes, newest first: a valid run order (every edge points to an older node)."""
        return np.flatnonzero(self.lowered.needed)[::-1].tolist()

    @property
    def nodes(self):
        """(position, node name) of each needed node."""
        return [(i, self.labels.node_name(i)) for i in self.positions]

    @property
    def edges(self):
        """(source, destination, input_nr) of each edge the scheduler follows, in its order."""
        g = self.lowered
        result = []
        for i in self.positions:
            for e in range(int(g.in_ptr[i]), int(g.in_ptr[i + 1])):
                dst = int(g.e_node[e])
                if dst >= 0 and g.needed[dst]:
                    result.append((i, dst, int(g.e_slot[e])))
        return result

    @property
    def pending(self):
        """{position: number of incoming edges} before the run (Note [pending counts])."""
        return {i: int(self.lowered.pending[i]) for i in self.positions}

    @property
    def buffers(self):
        """(slot, position, output, size, workspace, offset) of each planned gradient buffer."""
        g = self.lowered
        result = []
        for i in self.positions:
            for s in range(int(g.out_ptr[i]), int(g.out_ptr[i + 1])):
                result.append((s, i, s - int(g.out_ptr[i]), int(g.o_numel[s]),
                               _WORKSPACES[g.buf_kind[s]], int(g.buf_off[s])))
        return result

    def _edge_cells(self, i):
        g = self.lowered
        cells = []
        for e in range(int(g.in_ptr[i]), int(g.in_ptr[i + 1])):
            dst = int(g.e_node[e])
            if dst < 0:
                cells.append("None")
            else:
                # an edge to a node outside the request (inputs=) carries nothing
                cells.append(f"({dst}, {int(g.e_slot[e])})" + ("" if g.needed[dst] else " pruned"))
        return " ".join(cells)

    def _name_cell(self, i):
        name = self.labels.node_name(i)
        user = self.labels.user(i)
        notes = [note for bit, note in _FLAG_NOTES if self.lowered.flags[i] & bit]
        return name + (f" ({user})" if user else "") + (f" [{', '.join(notes)}]" if notes else "")

    def __str__(self):
        g = self.lowered
        roots = " ".join(f"({i}, {out})" for i, out in self.roots)
        head = (f"backward graph: {len(self.positions)} of {_count(g.n, 'recorded node')}, "
                f"{_count(len(self.edges), 'edge')}, roots {roots}")
        nodes = _table(("node", "name", "pending", "next_functions (node, input_nr)"),
                       [(i, self._name_cell(i), int(g.pending[i]), self._edge_cells(i))
                        for i in self.positions])
        buffers = _table(("slot", "node", "output", "shape", "size", "workspace", "offset"),
                         [(s, i, out, output_shape(g, i, out), size, ws, off)
                          for s, i, out, size, ws, off in self.buffers])
        return "\n".join([head, nodes, "gradient buffers, one per (node, output):", buffers])

    __repr__ = __str__

    def to_dot(self):
        """Graphviz text: one box per node (pending count inside), one arrow per edge labelled
        with its input_nr; roots are green, leaf accumulators blue (torchviz's colours)."""
        g = self.lowered
        roots = {i for i, _ in self.roots}
        lines = ["digraph backward {", '  node [shape=box, style=filled, fillcolor=white, '
                 'fontname="Helvetica"];']
        for i in self.positions:
            lines_of_label = [self.labels.user(i), self.labels.node_name(i),
                              f"#{i} pending={int(g.pending[i])}"]
            label = "\\n".join(_escape(part) for part in lines_of_label if part)
            fill = ""
            if i in roots:
                fill = ", fillcolor=darkolivegreen1"
            elif g.op[i] == tape.ACCUMULATE:
                fill = ", fillcolor=lightblue"
            lines.append(f'  n{i} [label="{label}"{fill}];')
        for src, dst, nr in self.edges:
            lines.append(f'  n{src} -> n{dst} [label="{nr}"];')
        lines.append("}")
        return "\n".join(lines) + "\n"

    def render(self, filename, format="svg"):
        """Write the drawing to `filename` with Graphviz's `dot` program (it must be installed)."""
        dot = shutil.which("dot")
        if dot is None:
            raise RuntimeError("Graphviz's 'dot' program was not found on PATH; install graphviz, "
                               "or use .to_dot() for the text")
        subprocess.run([dot, f"-T{format}", "-o", str(filename)], input=self.to_dot(), text=True,
                       check=True)
        return filename


def _count(n, noun):
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _table(header, rows):
    cells = [tuple(str(c) for c in header)] + [tuple(str(c) for c in row) for row in rows]
    widths = [max(len(row[k]) for row in cells) for k in range(len(header))]
    # text columns (names, edges) read best left-aligned, numbers right-aligned
    text = {k for k in range(len(header))
            if any(not row[k].lstrip("-").isdigit() for row in cells[1:])}
    lines = []
    for row in cells:
        parts = [row[k].ljust(widths[k]) if k in text else row[k].rjust(widths[k])
                 for k in range(len(header))]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def lower(roots, inputs=None, names=None):
    """The backward graph of `roots` as `backward(roots, inputs=inputs)` would run it; nothing runs
    and nothing is released. `names` maps labels to tensors ({"x": x}) for the printout.

    >>> x = numgrad.tensor(2., requires_grad=True)
    >>> g = numgrad.autograd.graph.lower(x * x)
    >>> [(name, count) for (_, name), count in zip(g.nodes, g.pending.values())]
    [('MulBackward0', 0), ('AccumulateGrad', 2)]
    """
    graph, root_slots = plan_backward(roots, inputs)
    return BackwardGraph(graph, root_slots, names)
