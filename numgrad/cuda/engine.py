"""The backward on the GPU, driven by the same lowered arrays as the CPU scheduler.

Note [GPU backward]
The CPU scheduler pops one ready node at a time; launching a kernel per node from Python would cost
tens of microseconds each. Here the order is fixed up front instead (schedule.py, on the host):
  1. A node's dependency level is 1 + the highest level among the nodes that send it gradient
     (roots are level 0). Nodes of one level never feed each other, so they can run at once.
  2. All gradient buffers live in four zeroed device workspaces (the plan's buffer layout); each
     delivering edge gets a mode: WRITE, ADD, or ATOMIC where contributions race in one level
     (x*x's two edges into x's accumulator, two consumers of one tensor in one level).
  3. Every node's argument block (abi.py's layout, holding device addresses of its gradient
     buffers, saved values and meta) goes to the device in one copy, with the meta and float
     attributes.
  4. Level by level, one launch per (level, op kind): the kernel's block rows stride over the
     batch's nodes (kernels/cuda.py). Python nodes (tensor hooks, custom Functions) run between
     launches at their level, on device tensors, through the same calls as on the CPU.
Leaf and retained gradients are read from the workspaces afterwards, as on the CPU.

Differences from the CPU engine: a custom Function that returns None for an input sends zeros
(the plan counts its edges before it runs); trace events are not recorded.
"""
import numpy as np

from .. import tape
from ..engine import output_shape, serve_python_node
from ..kernels import cuda as kernels
from ..kernels.scheduler import HOOKS, PYTHON_BACKWARD
from ..lower import _column
from ..ops import registry
from ..tensor import Tensor
from . import schedule
from .array import address_of, contiguous, is_device_array, to_device, zeros
from .basic import add_into
from .generate import kernels as generated

_WS_DTYPES = (np.float32, np.float64, np.float32, np.float64)
_WITNESS = {}


def _witness(is64):
    """The one-element array that tells a kernel its float type."""
    if is64 not in _WITNESS:
        _WITNESS[is64] = zeros((1,), np.float64 if is64 else np.float32)
    return _WITNESS[is64]


class DeviceBuffers:
    """engine.Buffers' twin: the four workspaces on the device, where each slot lives in them,
    and which slots hold a gradient (known before the run: see Note [GPU backward])."""

    def __init__(self, graph):
        self.graph = graph
        self.spaces = [zeros((max(int(n), 1),), dt) for n, dt in zip(graph.totals, _WS_DTYPES)]
        self.addr = np.array([address_of(ws) for ws in self.spaces], np.int64)
        self.written = np.zeros(len(graph.buf_off), np.bool_)
        self.keep = []                       # host-made device arrays the kernels read

    def slot(self, index, output):
        return int(self.graph.out_ptr[index]) + output

    def view(self, slot, shape):
        g = self.graph
        off = int(g.buf_off[slot])
        return self.spaces[g.buf_kind[slot]][off:off + int(g.o_numel[slot])].reshape(shape)

    def add(self, slot, shape, value):
        """A contribution from Python (seed, custom Function): buffers start zeroed, so add."""
        add_into(self.view(slot, shape), value if is_device_array(value) else np.asarray(value))
        self.written[slot] = True


def _device_saved(graph, buffers):
    """Device address of every saved value the running nodes read: device arrays as they are
    (made contiguous if not), host constants (index positions, scalars kept by value) uploaded."""
    addr = np.zeros(len(graph.s_ref), np.int64)
    owner = graph.saved_owner_of()
    use = graph.runnable[owner]
    for k, seg in enumerate(graph.segments):
        lo, hi = int(graph.sv_ptr[graph.starts[k]]), int(graph.sv_ptr[graph.starts[k + 1]])
        refs, used = graph.s_ref[lo:hi], use[lo:hi]
        is64 = graph.dt[owner[lo:hi]] == 1
        for column, itemsize, mask in ((seg.sv32, 4, ~is64), (seg.sv64, 8, is64)):
            pick = used & (refs >= 0) & mask
            if pick.any():
                values = to_device(_column(column, np.float32 if itemsize == 4 else np.float64))
                buffers.keep.append(values)
                addr[lo:hi][pick] = address_of(values) + refs[pick] * itemsize
        for s in np.flatnonzero(used & (refs < 0)):
            array = seg.arrays[~int(refs[s])]
            array = contiguous(array) if is_device_array(array) else to_device(array)
            buffers.keep.append(array)
            addr[lo + s] = address_of(array)
    return addr


def _kernel_of(op_code):
    op = registry.OPS[op_code]
    name = f"{op.name}_bwd" if op.elementwise else op.kernel
    return (generated() if op.elementwise else kernels).__dict__[name], name


def _check_supported(graph):
    running = graph.needed & graph.runnable & ((graph.flags & tape.PYTHON) == 0)
    if (running & ~graph.on_cuda).any():
        raise NotImplementedError("a backward through CPU and CUDA nodes at once is not supported: "
                                  "run one backward per device")


def execute(graph, seeds):
    """Run the backward of a planned graph on the GPU. seeds: (position, output, array) per root,
    arrays on the host or the device. Returns the DeviceBuffers (see engine.execute)."""
    _check_supported(graph)
    buffers = DeviceBuffers(graph)
    seeded = np.zeros(len(graph.buf_off), np.bool_)
    for index, output, value in seeds:
        slot = buffers.slot(index, output)
        buffers.add(slot, output_shape(graph, index, output), value)
        seeded[slot] = True
    level, runs, delivers, written = schedule.levels(
        graph.n, graph.needed, graph.runnable, graph.in_ptr, graph.e_node, graph.e_slot,
        graph.out_ptr, seeded)
    buffers.written = written
    source = np.repeat(np.arange(graph.n), np.diff(graph.in_ptr))
    edge_slot = np.where(graph.e_node >= 0, graph.out_ptr[np.maximum(graph.e_node, 0)]
                         + graph.e_slot, -1)
    edges = np.flatnonzero(delivers)
    edges = edges[np.lexsort((level[source[edges]], edge_slot[edges]))]
    mode = schedule.modes(edges, edge_slot, level[source], seeded, len(graph.e_node))

    python = (graph.flags & tape.PYTHON) != 0
    hooked = runs & ((graph.flags & tape.PRE_HOOKS) != 0)
    ran = np.flatnonzero(runs)
    ran = ran[np.lexsort((graph.kind[ran], level[ran]))]
    order = ran[~python[ran]]
    s_addr = _device_saved(graph, buffers)
    mt = to_device(graph.mt if graph.mt.size else np.zeros(1, np.int64))
    fm = to_device(graph.fm if graph.fm.size else np.zeros(1))
    args, starts, work = schedule.argument_blocks(
        order, graph.in_ptr, graph.e_node, graph.e_slot, graph.out_ptr, graph.sv_ptr, graph.mt,
        graph.mt_ptr, graph.fm_ptr, written, delivers, mode, graph.buf_kind, graph.buf_off,
        buffers.addr, s_addr, address_of(mt), address_of(fm))
    args_dev, starts_dev = to_device(args), to_device(starts)
    buffers.keep += [mt, fm, args_dev, starts_dev]

    # batches: runs of one (level, kind) in `order` (none when only custom Functions run)
    order_level, order_kind = level[order], graph.kind[order]
    cut = np.flatnonzero((np.diff(order_level) != 0) | (np.diff(order_kind) != 0)) + 1
    bounds = np.concatenate(([0], cut, [len(order)])).astype(np.int64) if len(order) else \
        np.zeros(1, np.int64)
    batch = 0
    for lv in np.unique(level[ran]).tolist():
        for index in ran[(level[ran] == lv) & hooked[ran] & ~python[ran]].tolist():
            serve_python_node(graph, buffers, index, HOOKS)
        while batch < len(bounds) - 1 and order_level[bounds[batch]] == lv:
            first, end = int(bounds[batch]), int(bounds[batch + 1])
            kind = int(order_kind[first])
            kernel, name = _kernel_of(kind & 0xFFFFFF)
            grid = (kernels.grid_x(name, work[first:end].max()),
                    min(end - first, kernels.MAX_GRID_Y))
            kernel[grid, kernels.BLOCK](args_dev, starts_dev, first, end - first,
                                        _witness((kind & tape.FLOAT64) != 0))
            batch += 1
        for index in ran[(level[ran] == lv) & python[ran]].tolist():
            if hooked[index]:
                serve_python_node(graph, buffers, index, HOOKS)
            serve_python_node(graph, buffers, index, PYTHON_BACKWARD)
    needed_leaves = np.flatnonzero(graph.needed & (graph.op == tape.ACCUMULATE))
    graph.order = np.concatenate((ran, needed_leaves[np.argsort(level[needed_leaves],
                                                                 kind="stable")]))
    graph.n_order = len(graph.order)
    graph.events = tuple(np.zeros(1, np.int64) for _ in range(4))
    graph.n_events = 0
    return buffers


def reader(graph, buffers):
    """read(position, output) -> the gradient as a CUDA Tensor, or None (api._buffer_reader's
    twin): leaf results are views of their workspace, intermediate ones copies."""
    def read(index, out):
        slot = int(graph.out_ptr[index]) + out
        if not buffers.written[slot]:
            return None
        view = buffers.view(slot, output_shape(graph, index, out))
        return Tensor._make(view if graph.buf_kind[slot] >= 2 else view.copy(), False)
    return read
