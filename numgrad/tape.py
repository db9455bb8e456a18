"""The tape: every recorded op as integers in flat, growable columns, grouped in segments.

A segment is one stretch of recording. Its columns are CSR-shaped: node i owns the entries of a
column from `<column>_ptr[i]` up to the next node's start, so lowering turns them into NumPy arrays
with one copy and no Python walk. Node ids are global: ``(segment serial << 32) | local index``;
ids grow with recording time, so every edge points from a newer node to an older one and id order
is a topological order.

Lifetime (see Note [segment lifetime]): tensors made by recorded ops hold their segment; a segment
holds the older segments its edges reach. The recorder holds its current segment only weakly, so a
graph nobody refers to is freed by reference counting alone (no cycles, no cyclic collector), and
after a backward that frees the graph, recording moves on to a fresh segment.
"""
import itertools
import threading
import weakref
from array import array

# Node flag bits.
RELEASED = 1      # saved values were freed by a backward without retain_graph
PYTHON = 2        # a custom Function: its backward runs in Python
PRE_HOOKS = 4     # a tensor hook waits on one of its outputs' gradients

ACCUMULATE = 0    # op code of AccumulateGrad, the node of a leaf that requires grad

# Note [segment lifetime]
# A segment grows until a backward frees it or it passes these sizes; then recording starts a new
# one. An old segment lives on only while a tensor (or a newer segment) refers to it, so the memory
# a forgotten tensor can pin is bounded by one segment.
MAX_NODES = 1 << 20
MAX_SAVED_BYTES = 256 << 20

_serials = itertools.count(1)
_inplace_epoch = array("q", [0])   # bumped by every in-place op anywhere; see Note [version checks]


def bump_epoch():
    _inplace_epoch[0] += 1


def epoch():
    return _inplace_epoch[0]


class Segment:
    __slots__ = ("serial", "base", "op", "dt", "flags", "in_ptr", "e_node", "e_slot", "out_ptr",
                 "o_numel", "sv_ptr", "s_ref", "s_epoch", "s_ver", "s_vc", "mt_ptr", "mt",
                 "fm_ptr", "fm", "sv32", "sv64", "arrays", "acc_of", "leaves", "deps", "python",
                 "hooks", "retained", "views", "saved_bytes", "__weakref__")

    def __init__(self):
        self.serial = next(_serials)
        self.base = self.serial << 32
        self.op = array("i")
        self.dt = array("b")
        self.flags = array("b")
        self.in_ptr = array("q")
        self.e_node = array("q")     # producer node id of each input, -1 when it needs no grad
        self.e_slot = array("q")     # the producer's output index: the edge's input_nr
        self.out_ptr = array("q")
        self.o_numel = array("q")    # element count of each output: the size of its grad buffer
        self.sv_ptr = array("q")
        self.s_ref = array("q")      # >= 0: index into sv32/sv64 (a scalar kept by value); < 0: ~index into arrays
        self.s_epoch = array("q")
        self.s_ver = array("q")
        self.s_vc = []               # the version counter of each saved value
        self.mt_ptr = array("q")
        self.mt = array("q")         # shapes of inputs and outputs, then integer attributes
        self.fm_ptr = array("q")
        self.fm = array("d")         # float attributes
        self.sv32 = array("f")
        self.sv64 = array("d")
        self.arrays = []
        self.acc_of = {}             # id(leaf tensor) -> node id of its AccumulateGrad here
        self.leaves = {}             # node id of an AccumulateGrad -> the leaf tensor
        self.deps = set()            # older segments this one's edges reach
        self.python = {}             # node id -> the Python object that runs its backward
        self.hooks = {}              # (node id, output) -> [hook functions]
        self.retained = {}           # (node id, output) -> weakref of a tensor that called retain_grad
        self.views = weakref.WeakValueDictionary()   # node id -> its grad_fn object, while alive
        self.saved_bytes = 0

    def __len__(self):
        return len(self.op)

    def add_node(self, op, dt, flags, inputs, numels, meta, fmeta):
        """Append one node; `inputs` is a sequence of (node id or -1, input_nr). Returns its id."""
        local = len(self.op)
        self.op.append(op)
        self.dt.append(dt)
        self.flags.append(flags)
        self.in_ptr.append(len(self.e_node))
        e_node, e_slot = self.e_node, self.e_slot
        for node, slot in inputs:
            e_node.append(node)
            e_slot.append(slot)
        self.out_ptr.append(len(self.o_numel))
        self.o_numel.extend(numels)
        self.sv_ptr.append(len(self.s_ref))
        self.mt_ptr.append(len(self.mt))
        self.mt.extend(meta)
        self.fm_ptr.append(len(self.fm))
        if fmeta:
            self.fm.extend(fmeta)
        return self.base | local

    def save(self, value, is_float64, vc, version):
        """Save one value for the node added last. Scalars are kept by value, arrays by reference."""
        if value.ndim == 0 and value.dtype.kind == "f":
            column = self.sv64 if is_float64 else self.sv32
            self.s_ref.append(len(column))
            column.append(value)
        else:
            self.s_ref.append(~len(self.arrays))
            self.arrays.append(value)
            self.saved_bytes += value.nbytes
        self.s_epoch.append(_inplace_epoch[0])
        self.s_ver.append(version)
        self.s_vc.append(vc)

    def add_leaf(self, tensor):
        data = tensor._data
        dt = 1 if data.dtype.itemsize == 8 else 0
        node = self.add_node(ACCUMULATE, dt, 0, (), (data.size,), (data.ndim, *data.shape), None)
        self.acc_of[id(tensor)] = node
        self.leaves[node] = tensor
        return node

    def full(self):
        return len(self.op) >= MAX_NODES or self.saved_bytes >= MAX_SAVED_BYTES


class _Recorder(threading.local):
    """Each thread records into its own current segment, so concurrent forwards never interleave."""

    def __init__(self):
        self.current = None


_recorder = _Recorder()


def current_segment():
    ref = _recorder.current
    seg = ref() if ref is not None else None
    if seg is None or seg.full():
        seg = Segment()
        _recorder.current = weakref.ref(seg)
    return seg


def close_segment(seg):
    """A backward freed this segment's graph: record what comes next into a new one."""
    ref = _recorder.current
    if ref is not None and ref() is seg:
        _recorder.current = None


def segment_of(node):
    return node >> 32


def local_of(node):
    return node & 0xFFFFFFFF
