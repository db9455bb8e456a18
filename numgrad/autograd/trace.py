"""Trace mode: what the scheduler did during a backward, as events you can print or inspect.

How the record is made (and what is real): the run order and the delivery events -- which edge
delivered into which slot, and the destination's pending count after it -- are the compiled
scheduler's own record (`graph.order`, `graph.events`), and the gradient each node ran with is read
from the engine's buffers. The engine only keeps sums, so to show the partial sums of a slot as its
contributions arrive, each node's VJP is evaluated once more in Python (`node_vjp`, the path of
create_graph) on the input it really ran with. That replay costs a Python backward, and runs the
`backward` of custom Functions a second time; it is meant for small graphs.
"""
import threading
from typing import NamedTuple, Optional

import numpy as np

from .. import grad_mode, tape
from ..kernels import ready_queue
from ..tensor import Tensor
from . import api
from .differentiable import node_vjp
from .graph import Labels


_ORDERS = {"torch": ready_queue.TORCH, "fifo": ready_queue.FIFO}


def _fmt(value):
    if value is None:
        return "undefined"
    if value.size == 1:
        return f"{float(value.reshape(())):g}"
    # one event, one line: rows of a matrix follow each other
    return np.array2string(value, precision=4, separator=", ", max_line_width=10 ** 9).replace(
        "\n", "")


class Seed(NamedTuple):
    """A root's slot (node, output) starts with the gradient given to backward (1 for a scalar)."""
    node: int
    output: int
    label: str
    value: np.ndarray

    def __str__(self):
        return f"seed {self.label}: {_fmt(self.value)}"


class Run(NamedTuple):
    """A node ran with the summed gradients of its outputs (None: undefined, no kernel ran)."""
    node: int
    label: str
    grads: tuple

    def __str__(self):
        shown = _fmt(self.grads[0]) if len(self.grads) == 1 else \
            "(" + ", ".join(_fmt(g) for g in self.grads) + ")"
        return f"run {self.label}: {shown}"


class Delivery(NamedTuple):
    """An edge delivered a contribution into slot (dst, input_nr); `buffer` is the slot's sum so far
    and `pending` what the destination still waits for."""
    src: int
    dst: int
    input_nr: int
    label: str
    contribution: Optional[np.ndarray]
    buffer: Optional[np.ndarray]
    pending: int

    def __str__(self):
        return f"{self.label} buffer={_fmt(self.buffer)}, pending={self.pending}"


class LeafGrad(NamedTuple):
    """A leaf's AccumulateGrad produced `value`; `grad` is its .grad afterwards when the backward
    accumulated it (None for autograd.grad, which returns it and leaves .grad alone)."""
    node: int
    label: str
    value: np.ndarray
    grad: Optional[np.ndarray]

    def __str__(self):
        if self.grad is None:
            return f"{self.label} gradient={_fmt(self.value)} (returned, .grad untouched)"
        return f"{self.label}.grad={_fmt(self.grad)}"


class trace:
    """Record every backward run in this thread inside the block.

    `names` ({"x": x, ...}) labels tensors; other nodes print as `MulBackward0#1`. `order`: the
    order ready nodes run in, "torch" (the newest node first, as torch's engine) or "fifo" (first
    ready, first run: the seed's C++ model, whose printout this reproduces).

    >>> x = numgrad.tensor(2., requires_grad=True)
    >>> y = x * x
    >>> with numgrad.autograd.trace(names={"x": x, "y": y}) as t:
    ...     y.backward()
    >>> print(t)
    seed y: 1
    run y: 1
    x buffer=2, pending=1
    x buffer=4, pending=0
    run x: 4
    x.grad=4
    """

    def __init__(self, names=None, order="torch"):
        if order not in _ORDERS:
            raise ValueError(f"order must be 'torch' or 'fifo', got {order!r}")
        self.names = names
        self._order = _ORDERS[order]
        self._outer_order = None
        self._events = []
        self._leaves = []       # (event index, leaf, its .grad and version before) still to settle
        self._thread = None

    def __enter__(self):
        self._thread = threading.get_ident()
        api.observers.append(self._observe)
        self._outer_order = grad_mode.state.ready_order
        grad_mode.state.ready_order = self._order
        return self

    def __exit__(self, *exc):
        grad_mode.state.ready_order = self._outer_order
        api.observers.remove(self._observe)
        self._settle()
        return False

    @property
    def events(self):
        """Seed, Run, Delivery and LeafGrad events in the order the engine produced them."""
        self._settle()
        return list(self._events)

    @property
    def order(self):
        """Positions of the nodes in the order they ran."""
        return [e.node for e in self.events if isinstance(e, Run)]

    def __str__(self):
        return "\n".join(str(e) for e in self.events)

    def _observe(self, graph, read):
        if threading.get_ident() != self._thread:
            return
        self._settle()
        labels = Labels(graph, self.names)
        order = graph.order[:graph.n_order].tolist()
        grads = summed_grads(graph, read, order)
        contributions = _contributions(graph, order, grads)
        sums = _seeds(graph, grads, contributions)
        for i in dict.fromkeys(graph.roots.tolist()):
            for s in range(int(graph.out_ptr[i]), int(graph.out_ptr[i + 1])):
                if s in sums:
                    out = s - int(graph.out_ptr[i])
                    self._events.append(Seed(i, out, labels.slot(i, out), sums[s].copy()))
        pending = iter(_pending_after(graph, order))
        for i in order:
            o0, o1 = int(graph.out_ptr[i]), int(graph.out_ptr[i + 1])
            self._events.append(Run(i, labels.node(i), tuple(grads[s] for s in range(o0, o1))))
            for e in range(int(graph.in_ptr[i]), int(graph.in_ptr[i + 1])):
                dst = int(graph.e_node[e])
                if dst < 0 or not graph.needed[dst]:
                    continue
                nr = int(graph.e_slot[e])
                slot = int(graph.out_ptr[dst]) + nr
                c = contributions.get(e)
                if c is not None:
                    sums[slot] = c.copy() if sums.get(slot) is None else np.asarray(sums[slot] + c)
                self._events.append(Delivery(i, dst, nr, labels.slot(dst, nr), c,
                                             None if sums.get(slot) is None else sums[slot].copy(),
                                             next(pending)))
            if graph.op[i] == tape.ACCUMULATE and grads[o0] is not None:
                seg, node = graph.locate(i)
                leaf = seg.leaves[node]
                before = (leaf._grad, leaf._grad._version if leaf._grad is not None else None)
                self._leaves.append((len(self._events), leaf, before))
                self._events.append(LeafGrad(i, labels.node(i), grads[o0], None))

    def _settle(self):
        """Once a backward is over, see whether it stored each leaf gradient in .grad."""
        for k, leaf, (old, version) in self._leaves:
            now = leaf._grad
            if now is not None and (now is not old or now._version != version):
                self._events[k] = self._events[k]._replace(grad=now._data.copy())
        self._leaves = []


def summed_grads(graph, read, order):
    """{slot: the gradient the engine summed there} for the outputs of the nodes that ran (None:
    never written). Copies: a leaf's buffer may become its .grad, which later backwards add into."""
    grads = {}
    for i in order:
        for j in range(int(graph.out_ptr[i + 1] - graph.out_ptr[i])):
            g = read(i, j)
            grads[int(graph.out_ptr[i]) + j] = None if g is None else np.array(g._data)
    return grads


def replay(graph, order, grads):
    """Yield (position, input gradients) for each node that ran a kernel, in run order: its VJP
    evaluated in Python on the summed gradients it really ran with."""
    with grad_mode.no_grad():
        for i in order:
            if graph.op[i] == tape.ACCUMULATE:
                continue
            i0, i1 = int(graph.in_ptr[i]), int(graph.in_ptr[i + 1])
            outs = [grads[s] for s in range(int(graph.out_ptr[i]), int(graph.out_ptr[i + 1]))]
            wanted = any(graph.e_node[e] >= 0 and graph.needed[graph.e_node[e]]
                         for e in range(i0, i1))
            if not wanted or all(g is None for g in outs):
                continue        # the engine skips the kernel: nothing is delivered
            seg, node = graph.locate(i)
            in_grads = node_vjp(graph, i, seg, node,
                                [None if g is None else Tensor._make(g, False) for g in outs])
            yield i, [None if g is None else np.asarray(g._data if isinstance(g, Tensor) else g)
                      for g in in_grads]


def _contributions(graph, order, grads):
    """{edge: the gradient it carried}."""
    result = {}
    for i, in_grads in replay(graph, order, grads):
        i0 = int(graph.in_ptr[i])
        for k, g in enumerate(in_grads):
            if g is not None:
                result[i0 + k] = g
    return result


def _seeds(graph, grads, contributions):
    """Starting sums: a root slot holds its seed, which is what the engine summed there minus what
    edges delivered into it."""
    sums = {}
    for i in graph.roots.tolist():
        for s in range(int(graph.out_ptr[i]), int(graph.out_ptr[i + 1])):
            if grads.get(s) is not None:
                sums[s] = grads[s].copy()
    for e, c in contributions.items():
        dst = int(graph.e_node[e])
        slot = int(graph.out_ptr[dst]) + int(graph.e_slot[e])
        if slot in sums:
            sums[slot] = sums[slot] - c
    return sums


def _pending_after(graph, order):
    """The destination's pending count after each delivery: the scheduler's own record when the
    compiled path ran; the create_graph path keeps none, so count down from the plan."""
    events = getattr(graph, "events", None)
    if events is not None:
        return events[3][:graph.n_events].tolist()
    pending = graph.pending.copy()      # that path counts down a copy: the plan is intact
    result = []
    for i in order:
        for e in range(int(graph.in_ptr[i]), int(graph.in_ptr[i + 1])):
            dst = int(graph.e_node[e])
            if dst >= 0 and graph.needed[dst]:
                pending[dst] -= 1
                result.append(int(pending[dst]))
    return result
