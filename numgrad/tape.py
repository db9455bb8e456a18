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

import numpy as np

# Node flag bits, derived at lowering (Note [packed counts]).
RELEASED = 1      # a backward without retain_graph freed its saved values
PYTHON = 2        # a custom Function: its backward runs in Python
PRE_HOOKS = 4     # a tensor hook waits on one of its outputs' gradients

ACCUMULATE = 0    # op code of AccumulateGrad, the node of a leaf that requires grad

# A tensor's node when it has none (-1: a leaf), or when it is a view that torch makes unusable
# in grad mode: one made under no_grad or by split/unbind, whose base was then changed in place
# by a recorded op (ops/views.py, regenerate), or a view made under no_grad of a base that
# requires grad: as in torch it requires grad (through its base) but has neither history nor
# AccumulateGrad, so the gradients that reach it are dropped (ops/views.py, track).
LEAF = -1
STALE_VIEW = -2
NO_GRAD_VIEW = -3

# A node's kind: op code in the low 24 bits, then its dtype and device.
FLOAT64 = 1 << 24
CUDA = 1 << 25


def kind_of(op_code, is64, on_cuda=False):
    return op_code | (FLOAT64 if is64 else 0) | (CUDA if on_cuda else 0)

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


# Note [packed counts]
# Per node the tape appends two integers: its kind (op code, dtype, device) and its counts packed
# into one int64 - inputs, outputs, saved values, meta ints, float attributes - then its edges, its
# meta (shapes, which also give each output's size) and what it saves. Everything else lowering
# needs is derived there: CSR starts from a cumulative sum of the counts, buffer sizes from the
# shapes, flags from the op codes and the hook table. Fewer appends make recording cheaper.
IN_BITS, OUT_BITS, SAVED_BITS, META_BITS = 0, 12, 24, 36
FM_BITS = 56

# Note [version checks]
# Each saved value keeps its tensor's version counter, and the counter's value at save time when
# not 0 (`versions`, sparse: most tensors are never modified). Checking every saved value at each
# backward would cost Python work per node, so segments also note the in-place epoch when saving
# (`epoch_marks`, one entry per change): only values saved before the latest in-place op anywhere
# are checked one by one.
FREED = -(1 << 62)   # s_ref of a saved value a backward released
FREED_ERROR = ("Trying to backward through the graph a second time (or directly access saved "
               "tensors after they have already been freed). Saved intermediate values of the "
               "graph are freed when you call .backward() or autograd.grad(). Specify "
               "retain_graph=True if you need to backward through the graph a second time or if "
               "you need to access saved tensors after calling backward.")


# Note [saved inputs detached in place]
# torch's node keeps a saved input that is not a leaf as the tensor itself, and takes its history
# from it when unpacking: after x.detach_() there is none, and the backward refuses (a saved
# output keeps its node; a leaf needs none). numgrad's tape keeps edges and arrays, not tensors,
# so detach_() of a tensor that something saved notes its (node, output) on its segment, and the
# backward checks the saved inputs behind those edges before it runs (lowering's check_saved).
DETACHED_ERROR = ("Trying to use a saved tensor that has been detached in-place, i.e. with "
                  ".detach_().This is not supported, please use out-of-place `.detach()` instead")


def pack_counts(n_in, n_out, n_saved, n_meta, n_fm):
    return n_in | n_out << OUT_BITS | n_saved << SAVED_BITS | n_meta << META_BITS | n_fm << FM_BITS


class Segment:
    __slots__ = ("serial", "base", "kind", "counts", "e_node", "e_slot", "s_ref", "s_vc",
                 "versions", "epoch_marks", "last_epoch", "mt", "fm", "sv32", "sv64", "arrays", "array_addr",
                 "acc_of", "leaves", "deps", "python", "hooks", "retained", "views", "names",
                 "shown", "narrowed", "attributes", "named_saved",
                 "node_hooks", "packed", "saved_bytes", "hook_rank", "detached",
                 "_input_starts", "_saved_starts", "__weakref__")

    def __init__(self):
        self.serial = next(_serials)
        self.base = self.serial << 32
        self.kind = array("i")       # op code | FLOAT64 | CUDA
        self.counts = array("q")     # Note [packed counts]
        self.e_node = array("q")     # producer node id of each input, -1 when it needs no grad
        self.e_slot = array("q")     # the producer's output index: the edge's input_nr
        self.s_ref = array("q")      # >= 0: index into sv32/sv64 (a scalar kept by value); < 0: ~index into arrays
        self.s_vc = []               # the version counter of each saved value (Note [version checks])
        self.versions = {}           # saved index -> its version when saved, where not 0
        self.epoch_marks = array("q")   # pairs (first saved index, in-place epoch from then on)
        self.last_epoch = -1
        self.mt = array("q")         # shapes of inputs and outputs, then integer attributes
        self.fm = array("d")         # float attributes
        self.sv32 = array("f")
        self.sv64 = array("d")
        self.arrays = []
        self.array_addr = array("q")  # the address of each saved host array (0 for device arrays)
        self.acc_of = {}             # id(leaf tensor) -> node id of its AccumulateGrad here
        self.leaves = {}             # node id of an AccumulateGrad -> the leaf tensor
        self.deps = set()            # older segments this one's edges reach
        self.python = {}             # node id -> the Python object that runs its backward; also
                                     # ("stack", id) and ("metadata", id) for anomaly mode
        self.names = {}              # node id -> torch's name for a composite's node (ops/named.py)
        self.shown = {}              # node id -> the (node, slot) edges next_functions shows there
        # node id -> {torch's name: value}: what torch's node keeps besides tensors (its dims,
        # sizes and scalar arguments), shown as grad_fn._saved_<name> (ops/apply.show_attributes)
        self.attributes = {}
        # node id -> (torch's names, (producer node, slot) edges) of the inputs a named
        # composite's node saves (ops/named.py): shown as grad_fn._saved_<name>, connected to
        # the graph where the input was
        self.named_saved = {}
        # (node id, output) -> the float type torch's node gives that output, where numgrad's
        # computes in a wider one: an in-place op of mixed float types (ops/inplace.rebase)
        self.narrowed = {}
        # ("pre_hooks" | "post_hooks", node id) -> {handle id: hook}: grad_fn.register_(pre)hook
        self.node_hooks = {}
        # node id -> {saved position: (unpack, packed)} (Note [packed saved values])
        self.packed = {}
        self.hooks = {}              # (node id, output) -> {handle id: hook}
        self.hook_rank = {}          # (node id, output) -> handle id of its first hook ever
        self.retained = {}           # (node id, output) -> weakref of a tensor that called retain_grad
        self.detached = set()        # (node id, output) of tensors detached in place since saved
                                     # (Note [saved inputs detached in place])
        self.views = None            # node id -> its grad_fn object while alive (made on first use)
        self.saved_bytes = 0
        self._input_starts = None
        self._saved_starts = None

    def __len__(self):
        return len(self.kind)

    def op_of(self, local):
        return self.kind[local] & 0xFFFFFF

    def inputs_of(self, local):
        """(start, end) of a node's entries in e_node/e_slot, for introspection (next_functions).
        The starts are a cumulative sum of the packed counts, kept until the segment grows."""
        starts = self._input_starts
        if starts is None or len(starts) <= local + 1:
            starts = self._input_starts = self._starts(IN_BITS)
        return int(starts[local]), int(starts[local + 1])

    def saved_of(self, local):
        """(start, end) of a node's entries in s_ref/s_vc, for introspection (grad_fn._saved_*)."""
        starts = self._saved_starts
        if starts is None or len(starts) <= local + 1:
            starts = self._saved_starts = self._starts(SAVED_BITS)
        return int(starts[local]), int(starts[local + 1])

    def _starts(self, bits):
        counts = np.frombuffer(self.counts, np.int64) if len(self.counts) else np.zeros(0, np.int64)
        return np.concatenate(([0], np.cumsum((counts >> bits) & 0xFFF)))

    def add_node(self, kind, counts):
        """Append one node (its edges, meta and saved values are appended by the caller)."""
        local = len(self.kind)
        self.kind.append(kind)
        self.counts.append(counts)
        if local >= MAX_NODES or self.saved_bytes >= MAX_SAVED_BYTES:
            close_segment(self)
        return self.base | local

    def mark_epoch(self):
        """Called before saving when an in-place op happened since the last save here."""
        self.last_epoch = _inplace_epoch[0]
        self.epoch_marks.append(len(self.s_ref))
        self.epoch_marks.append(self.last_epoch)

    def save(self, value, is_float64, vc, version):
        """Save one value for the node added last. Scalars are kept by value, arrays by reference."""
        if self.last_epoch != _inplace_epoch[0]:
            self.mark_epoch()
        if version:
            self.versions[len(self.s_ref)] = version
        if value.ndim == 0 and value.dtype.kind == "f" and type(value) is np.ndarray:
            column = self.sv64 if is_float64 else self.sv32
            self.s_ref.append(len(column))
            column.append(value)
        else:
            host = type(value) is np.ndarray
            if host and not value.flags.c_contiguous:
                value = np.ascontiguousarray(value)     # kernels read saved arrays densely
            self.s_ref.append(~len(self.arrays))
            self.arrays.append(value)
            self.array_addr.append(_address(value) if host else 0)
            self.saved_bytes += value.nbytes
        self.s_vc.append(vc)

    def add_leaf(self, tensor):
        data = tensor._data
        kind = kind_of(ACCUMULATE, data.dtype.itemsize == 8, type(data) is not np.ndarray)
        node = self.add_node(kind, pack_counts(0, 1, 0, data.ndim + 1, 0))
        self.mt.append(data.ndim)
        self.mt.extend(data.shape)
        self.acc_of[id(tensor)] = node
        self.leaves[node] = tensor
        return node


def reached(seg):
    """seg, then every older segment its edges reach, each once."""
    stack, seen = [seg], set()
    while stack:
        s = stack.pop()
        if id(s) not in seen:
            seen.add(id(s))
            yield s
            stack.extend(s.deps)


def segment_holding(seg, node_id):
    """The segment that recorded node `node_id`: `seg` or one of the older ones it reaches."""
    serial = node_id >> 32
    for s in reached(seg):
        if s.serial == serial:
            return s
    raise RuntimeError("internal error: an edge leads to a segment that is gone")


def _address(array):
    """The address of a host array's first element. `.ctypes.data` costs ~1 us per saved array;
    the compiled helper a fifth of that. It is bound on first use (the kernels package imports
    the op registry, which imports this module) and replaces this function."""
    global _address
    from .kernels.abi import address_of
    _address = address_of
    return address_of(array)


class _Recorder(threading.local):
    """Each thread records into its own current segment, so concurrent forwards never interleave."""

    def __init__(self):
        self.current = None


_recorder = _Recorder()


def current_segment():
    ref = _recorder.current
    seg = ref() if ref is not None else None
    if seg is None:
        seg = Segment()
        _recorder.current = weakref.ref(seg)
    return seg


def recording_segment():
    """The segment recording goes into now, or None when the next op will start one."""
    ref = _recorder.current
    return ref() if ref is not None else None


def close_segment(seg):
    """A backward freed this segment's graph: record what comes next into a new one."""
    ref = _recorder.current
    if ref is not None and ref() is seg:
        _recorder.current = None


def segment_of(node):
    return node >> 32


def local_of(node):
    return node & 0xFFFFFFFF
