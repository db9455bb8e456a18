"""Lowering: the part of the tape a backward needs, as flat NumPy arrays for the compiled code.

Segments reached from the roots are concatenated (usually there is one: no copy beyond turning its
columns into arrays); global node ids become positions in the concatenation. The compiled `plan`
then marks the needed nodes, counts pending edges (Note [pending counts] in kernels/plan.py) and
places the gradient buffers. Nothing here walks the graph in Python.
"""
import numpy as np

from . import dtypes, tape
from .kernels import ready_queue
from .kernels.plan import plan, runnable_nodes, share_buffers, unpack
from .node import forward_name, node_name, node_view, through_promotes
from .ops import registry, views

# what a leaf's AccumulateGrad runs in Python: tensor hooks, node hooks, post-accumulate hooks
_LEAF_HOOKS = ("hooks", "accumulate_pre_hooks", "accumulate_post_hooks", "post_accumulate_hooks")
_NODE_HOOK_FLAGS = {"pre_hooks": tape.PRE_HOOKS, "post_hooks": tape.PYTHON}
_COLUMNS = (("kind", np.int32), ("counts", np.int64), ("e_node", np.int64), ("e_slot", np.int64),
            ("s_ref", np.int64), ("mt", np.int64), ("fm", np.float64))


def _column(array_obj, dtype):
    return np.frombuffer(array_obj, dtype).copy() if len(array_obj) else np.zeros(0, dtype)


def segments_of(seg_list):
    """The segments reachable from these, oldest first."""
    seen, stack = {}, list(seg_list)
    while stack:
        seg = stack.pop()
        if seg.serial not in seen:
            seen[seg.serial] = seg
            stack.extend(seg.deps)
    return [seen[k] for k in sorted(seen)]


class LoweredGraph:
    """The flat arrays of one backward: columns of the involved segments, and the plan."""

    def __init__(self, segments):
        self.segments = segments
        self.starts = np.zeros(len(segments) + 1, np.int64)
        for i, seg in enumerate(segments):
            self.starts[i + 1] = self.starts[i] + len(seg)
        self.n = int(self.starts[-1])
        for name, dtype in _COLUMNS:
            parts = [_column(getattr(seg, name), dtype) for seg in segments]
            setattr(self, name, parts[0] if len(parts) == 1 else np.concatenate(parts))
        # custom Functions (and anomaly mode's notes) live in the segments' python tables
        self.may_have_python = any(seg.python for seg in segments)
        single = segments[0].base if len(segments) == 1 else -1
        (self.op, self.dt, self.on_cuda, self.flags, self.in_ptr, self.out_ptr, self.sv_ptr,
         self.mt_ptr, self.fm_ptr, self.o_numel, self.edge_owner, self.saved_owner,
         self.arg_width, self.variant) = unpack(self.kind, self.counts, self.mt, self.s_ref,
                                                self.e_node, single, registry.PYTHON_FUNCTION.code,
                                                tape.FREED)
        if single < 0:
            self.e_node = self.index_of(self.e_node)
        self.any_cuda = bool(self.on_cuda.any())
        for k, seg in enumerate(segments):
            for (node, _), hooks in seg.hooks.items():
                if hooks:
                    self.flags[self.starts[k] + (node & 0xFFFFFFFF)] |= tape.PRE_HOOKS
            # a retained gradient is stored when its node runs, after the tensor hooks, as
            # torch's retains_grad hook (graph.retain_step)
            for node, _ in seg.retained:
                self.flags[self.starts[k] + (node & 0xFFFFFFFF)] |= tape.PRE_HOOKS
            # A node with pre-hooks is handed back to Python before it runs, as for tensor
            # hooks; a node with hooks after it runs in Python altogether
            # (engine.serve_python_node), so that they see and may replace its input gradients
            # before they are delivered.
            for (kind, node), hooks in seg.node_hooks.items():
                if hooks:
                    self.flags[self.starts[k] + (node & 0xFFFFFFFF)] |= _NODE_HOOK_FLAGS[kind]
        self.any_packed = any(seg.packed for seg in segments)
        self.leaf_step = self.retain_step = None
        # the slots of the inputs autograd.grad asks for, and the gradients captured there
        # before the hooks of a node that runs (engine._run_pre_hooks)
        self.captures = frozenset()
        self.captured = {}
        # nodes of backward()'s non-leaf inputs, run though none of their inputs wants a gradient
        # (Note [non-leaf inputs of backward] in autograd/api.py)
        self.input_nodes = frozenset()
        self.wants_none = np.zeros(0, np.bool_)     # Note [nodes that lead nowhere]
        self.ready_order = ready_queue.TORCH      # Note [ready order] in kernels/ready_queue.py

    def _flag_hooked_leaves(self):
        """A leaf with hooks has its AccumulateGrad handed to Python when it runs (to
        graph.leaf_step(graph, index, grad)), so that its hooks run, and its .grad is stored,
        where torch's engine does it (Note [ready order] in kernels/ready_queue.py). A leaf with
        a needed node in several lowered segments (used in graphs recorded on either side of an
        earlier backward) gets its parts summed after the run instead, as one gradient."""
        places = {}
        for k, seg in enumerate(self.segments):
            for node, leaf in seg.leaves.items():
                extra = leaf._extra
                position = int(self.starts[k]) + (node & 0xFFFFFFFF)
                if extra and self.needed[position] and any(extra.get(key) for key in _LEAF_HOOKS):
                    places.setdefault(id(leaf), []).append(position)
        for positions in places.values():
            if len(positions) == 1:
                self.flags[positions[0]] |= tape.PRE_HOOKS

    def saved_epochs(self):
        """The in-place epoch each value was saved under (Note [version checks])."""
        epochs = np.empty(len(self.s_ref), np.int64)
        for k, seg in enumerate(self.segments):
            lo, hi = int(self.sv_ptr[self.starts[k]]), int(self.sv_ptr[self.starts[k + 1]])
            marks = np.frombuffer(seg.epoch_marks, np.int64).reshape(-1, 2) if len(seg.epoch_marks) \
                else np.zeros((0, 2), np.int64)
            marks = marks[marks[:, 0] < hi - lo]
            which = np.searchsorted(marks[:, 0], np.arange(hi - lo), side="right") - 1
            epochs[lo:hi] = np.where(which >= 0, marks[np.maximum(which, 0), 1], -1) if len(marks) else -1
        return epochs

    def index_of(self, ids):
        """Positions in the concatenation of global node ids (-1 stays -1)."""
        if len(self.segments) == 1:
            base = self.segments[0].base
            if isinstance(ids, list):
                return np.array([i - base if i >= 0 else -1 for i in ids], np.int64)
            return np.where(ids >= 0, ids - base, -1)
        ids = np.asarray(ids, np.int64)
        serials = np.array([s.serial for s in self.segments], np.int64)
        which = np.searchsorted(serials, ids >> 32)
        which = np.minimum(which, len(serials) - 1)
        return np.where(ids >= 0, self.starts[which] + (ids & 0xFFFFFFFF), -1)

    def locate(self, index):
        """(segment, global node id) of a position."""
        k = int(np.searchsorted(self.starts, index, side="right")) - 1
        seg = self.segments[k]
        return seg, seg.base | int(index - self.starts[k])

    def plan(self, roots, targets, keep=None):
        """keep: None, or one flag per slot, set where a gradient is read after the run; large
        slots not kept then share buffers (Note [buffer reuse] in kernels/plan.py)."""
        self.roots = np.asarray(roots, np.int64)
        self.targets = np.asarray(targets, np.int64)
        reuse = keep is not None
        if not reuse:
            keep = np.zeros(0, np.bool_)
        (self.needed, self.pending, self.buf_off, self.buf_kind, self.totals, self.runnable,
         self.ready, unplaced) = plan(self.n, self.roots, self.targets, self.op, self.dt,
                                      self.in_ptr, self.e_node, self.out_ptr, self.o_numel, keep,
                                      reuse)
        if not self.targets.size:
            self._run_every_reached_node()
        if unplaced:
            share_buffers(self.n, self.roots, self.ready, self.ready_order, self.needed,
                          self.pending, self.op, self.in_ptr, self.e_node,
                          self.e_slot, self.out_ptr, self.o_numel, keep,
                          registry.pass_through_table(), self.buf_off, self.buf_kind, self.totals)
        self._flag_hooked_leaves()

    # Note [nodes that lead nowhere]
    # A backward without inputs runs, in torch, every node it reaches, also one whose inputs all
    # want no gradient (an op on a view made in no_grad mode of a tensor that requires grad): its
    # hooks fire (post-hooks see None for each input), a custom Function's backward runs, its
    # saved values are checked and freed. Such a node computes nothing here: it is runnable (the
    # saved values' checks and release follow that), and when it has post-hooks or is a custom
    # Function it is handed to Python before it runs (engine.run_without_inputs).
    def _run_every_reached_node(self):
        wants = np.zeros(self.n, np.bool_)
        has_input = self.e_node >= 0
        has_input[has_input] = self.needed[self.e_node[has_input]]
        wants[self.edge_owner[has_input]] = True
        self.runnable = self.needed & (self.op != tape.ACCUMULATE)
        self.flags[self.runnable & ~wants & ((self.flags & tape.PYTHON) != 0)] |= tape.PRE_HOOKS
        self.wants_none = self.runnable & ~wants

    def read_after_run(self, places):
        """One flag per slot: the (position, output) places, and every retained gradient."""
        keep = np.zeros(int(self.out_ptr[-1]), np.bool_)
        for index, output in places:
            keep[self.out_ptr[index] + output] = True
        for k, seg in enumerate(self.segments):
            for node, output in seg.retained:
                keep[self.out_ptr[self.starts[k] + (node & 0xFFFFFFFF)] + output] = True
        return keep

    def run_only_roots(self):
        """Nothing asked for is reachable: the backward runs nothing past its roots, and a root
        only where it is alone (Note [roots that lead nowhere] in kernels/plan.py)."""
        self.needed[:] = False
        if len(self.roots) == 1:
            self.needed[self.roots] = True
        self.runnable = runnable_nodes(self.n, self.needed, self.op, self.in_ptr, self.e_node)
        self.ready = np.flatnonzero(self.needed & (self.pending == 0))

    def python_nodes(self):
        """Positions of the runnable custom Function nodes."""
        if not self.may_have_python:
            return ()
        return np.flatnonzero(self.runnable & (self.op == registry.PYTHON_FUNCTION.code)).tolist()

    def saved_owner_of(self):
        """For each saved value, the position of the node that saved it."""
        return self.saved_owner

    def check_saved(self):
        """Raise torch's errors before anything runs when a saved value was freed, detached in
        place or modified: the one torch meets first. Later nodes run first, and a node unpacks
        its values in order, checking each for each in turn."""
        failures = []          # (node position, order of the check, the error)
        freed = self.runnable & ((self.flags & tape.RELEASED) != 0)
        if freed.any():
            failures.append((int(np.flatnonzero(freed)[-1]), 0, RuntimeError(tape.FREED_ERROR)))
        if any(seg.detached for seg in self.segments):
            failures += self._detached_failures()
        failures += self._version_failures()
        if failures:
            node, _, error = max(failures, key=lambda failure: (failure[0], -failure[1]))
            self.failed_node = node         # anomaly mode names it
            raise error

    def _version_failures(self):
        """[(node, 2, torch's error)] for the first saved value torch would find changed in
        place, else []."""
        if all(not len(seg.epoch_marks) or seg.epoch_marks[1] == tape.epoch()
               for seg in self.segments):
            return []      # no in-place op anywhere since these values were saved
        owner = self.saved_owner
        kept = self.runnable & ((self.flags & tape.RELEASED) == 0)      # freed: nothing to check
        stale = np.flatnonzero(kept[owner] & (self.saved_epochs() < tape.epoch()))
        changed = stale[self._changed(stale)]
        if not len(changed):
            return []
        # the first node to run, and in it the first value its op unpacks (OpDef.unpack_order)
        nodes = owner[changed]
        ranks = registry.unpack_ranks(self.op[nodes], changed - self.sv_ptr[nodes])
        first = int(changed[np.lexsort((ranks, -nodes))[0]])
        return [(int(owner[first]), 2, self._version_error(int(owner[first]), first))]

    def _detached_failures(self):
        """[(node, 1, torch's error)] for each node that saved an input whose tensor was detached
        in place since (Note [saved inputs detached in place] in tape.py): the edges into each
        such tensor's slot lead back to the nodes that saved it."""
        failures = []
        named = self._named_composites()
        for k, seg in enumerate(self.segments):
            for node, output in seg.detached:
                producer = int(self.starts[k]) + (node & 0xFFFFFFFF)
                edges = np.flatnonzero((self.e_node == producer) & (self.e_slot == output))
                owners = np.searchsorted(self.in_ptr, edges, side="right") - 1
                for edge, owner in zip(edges.tolist(), owners.tolist()):
                    if (self.runnable[owner] and owner not in named
                            and self._saves_input(owner, edge - int(self.in_ptr[owner]))):
                        failures.append((owner, 1, RuntimeError(tape.DETACHED_ERROR)))
        return failures

    def _saves_input(self, index, where):
        """Whether node `index` saved its input `where` (and so unpacks it when it runs)."""
        first = int(self.sv_ptr[index])
        save_index = registry.OPS[int(self.op[index])].save_index
        for position in range(int(self.sv_ptr[index + 1]) - first):
            if position < len(save_index) and save_index[position] == where:
                seg, local_s = self.local_saved(index, first + position)
                if seg.s_vc[local_s] is not None:       # None: not saved, or packed
                    return True
        return False

    def _named_composites(self):
        """Positions of the nodes whose saved inputs are a named composite's aliases, with edges
        of their own (node_saved._edge_of_input)."""
        return {int(self.starts[k]) + (node & 0xFFFFFFFF)
                for k, seg in enumerate(self.segments) for node in seg.named_saved}

    def _changed(self, saved):
        """Which of the saved values (sorted positions in the saved columns) changed in place
        since they were saved: one pass per segment over their version counters (an in-place op
        anywhere leaves every older value to be checked, which may be all of a deep graph's)."""
        firsts = self.sv_ptr[self.starts]
        which = np.searchsorted(firsts, saved, side="right") - 1
        changed = np.zeros(len(saved), bool)
        for k in np.unique(which).tolist():
            seg, mine = self.segments[k], which == k
            counters, versions = seg.s_vc, seg.versions
            local = (saved[mine] - int(firsts[k])).tolist()
            # version_changed, inline: this runs once per saved value
            changed[mine] = [counters[i] is not None and counters[i][0] != versions.get(i, 0)
                             for i in local]
        return changed

    def segment_index(self, index):
        return int(np.searchsorted(self.starts, index, side="right")) - 1

    def local_saved(self, index, s):
        """(segment, position in its saved columns) of saved value s, saved by node `index`."""
        k = self.segment_index(index)
        return self.segments[k], s - int(self.sv_ptr[self.starts[k]])

    def _version_error(self, index, s):
        """torch's error for saved value s of node `index`, changed in place."""
        seg, local_s = self.local_saved(index, s)
        _, node = self.locate(index)
        op = registry.OPS[int(self.op[index])]
        position = s - int(self.sv_ptr[index])
        where = op.save_index[position] if position < len(op.save_index) else 0
        shape, dtype = self._saved_shape(seg, local_s, index, where)
        return version_error(seg, node, where, local_s, shape, dtype)

    def _saved_shape(self, seg, local_s, index, where):
        ref = seg.s_ref[local_s]
        dtype = np.float64 if self.dt[index] == 1 else np.float32
        if ref < 0:
            array = seg.arrays[~ref]
            if array is not None:
                return array.shape, dtype
            # packed by saved_tensors_hooks: the node's meta has the shape of that input/output
            n_in = int(self.in_ptr[index + 1] - self.in_ptr[index])
            pos = int(self.mt_ptr[index])
            for _ in range(where if where >= 0 else n_in + ~where):
                pos += 1 + int(self.mt[pos])
            return tuple(int(d) for d in self.mt[pos + 1:pos + 1 + int(self.mt[pos])]), dtype
        return (), dtype


def lower(root_ids, root_segments, target_ids=()):
    """Lower the graph behind root nodes (global ids) for a backward; targets prune it."""
    graph = LoweredGraph(segments_of(root_segments))
    graph.plan(graph.index_of(root_ids), graph.index_of(list(target_ids)))
    return graph


def version_changed(seg, local_s):
    """Whether the tensor of saved value local_s (of seg) changed in place since it was saved."""
    vc = seg.s_vc[local_s]
    return vc is not None and vc[0] != seg.versions.get(local_s, 0)


def version_error(seg, node, where, local_s, shape, dtype):
    """torch's error for a saved value (input `where` of the node, or output ~where) that changed
    in place since it was saved: it names the tensor's node, where it has one."""
    vc = seg.s_vc[local_s]
    ref = seg.s_ref[local_s]
    owner = ""
    if where >= 0:
        now, shape = owner_now(vc, seg.arrays[~ref] if ref < 0 else None, shape)
        start, _ = seg.inputs_of(node & 0xFFFFFFFF)
        producer = seg.e_node[start + where]
        pseg = tape.segment_holding(seg, producer) if producer >= 0 else None
        producer_op = registry.OPS[pseg.op_of(producer & 0xFFFFFFFF)] if pseg else None
        if producer_op is not None and producer_op.view and producer_op.n_out != 1:
            # an output of split or unbind, whose base changed: torch refuses to regenerate it
            return RuntimeError(views.multi_output_view_message(seg.e_slot[start + where],
                                                                node_name(pseg, producer)))
        if producer_op is registry.BY_NAME["linear_weight"]:
            # torch's linear saved w.t(), a view of w that it regenerates once w changes in place
            # (Note [torch's inner nodes] in ops/nn_ops.py)
            shape, owner = tuple(reversed(shape)), ", which is output 0 of AsStrided,"
        elif now is not None:
            owner = now
        elif producer >= 0:
            # an operand an op of mixed float types cast (a PROMOTE node) is, in torch, the
            # tensor itself: a leaf has no node to name
            pseg, producer, slot = through_promotes(pseg, producer, seg.e_slot[start + where])
            if producer >= 0 and pseg.op_of(producer & 0xFFFFFFFF) != tape.ACCUMULATE:
                owner = f", which is output {slot} of {_forward_name(pseg, producer)},"
    else:
        owner = f", which is output {~where} of {_forward_name(seg, node)},"
    if len(vc) > 2:
        # torch names the tensor it saved; an op that promoted it saved a copy in its own dtype
        dtype = vc[2][0].dtype
    return version_message(dtype, shape, owner, vc[0], seg.versions.get(local_s, 0))


def version_message(dtype, shape, owner, version, expected):
    """torch's error for a saved tensor changed in place: `owner` names its node (or is "")."""
    from .autograd import anomaly
    kind = dtypes.LEGACY_TYPE_NAMES[np.dtype(dtype)]
    # in anomaly mode torch's hint points at the traceback its warning printed
    hint = ("the backtrace further above shows the operation that failed to compute its "
            "gradient. The variable in question was changed in there or anywhere later. Good "
            "luck!" if anomaly.enabled else
            "enable anomaly detection to find the operation that failed to compute its gradient, "
            "with numgrad.autograd.set_detect_anomaly(True, check_nan=False).")
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [numgrad.{kind} {list(shape)}]{owner} is at version {version}; expected "
        f"version {expected} instead. Hint: {hint}")


def owner_now(vc, saved, shape):
    """torch names the node a saved input has when the check fails, not the one it had when it
    was saved: after x.add_(1), x's AddBackward0. The notes of the tensor changed in place last
    and of its base (tensor._changed_note, kept by the version counter) tell it: the one holding
    the saved data is the saved tensor, whose node is named (AsStrided for a view, whose node
    torch regenerates); a saved tensor holding neither is a view of them: AsStrided too. None
    (the producer is named) when the saved data was changed through a tensor outside the graph
    (a leaf, a detached alias), whose node stays, or when the node's segment is gone. `saved`:
    the saved array, None where the value is kept by value or packed. Returns (that, the shape
    torch shows: the tensor's now, which an in-place view op may have changed)."""
    notes = vc[2] if len(vc) > 2 else ()
    if saved is not None and notes and saved.dtype != notes[0].dtype:
        saved = None        # a copy an op promoted (ops/elementwise._promoted): alike by shape
    for note in notes:
        if saved is not None:
            held = note.data_id == id(saved)
        else:           # kept by value (a scalar) or packed: alike when the shapes are
            held = tuple(note.shape) == tuple(shape) and note.owns_data
        if not held:
            continue
        if note.is_view:
            return ", which is output 0 of AsStrided,", shape
        node_seg = note.seg() if note.seg is not None else None
        if note.node < 0 or node_seg is None:
            return None, note.shape
        node_seg, node, slot = through_promotes(node_seg, note.node, note.slot)
        return (f", which is output {slot} of {forward_name(node_view(node_seg, node).name())},",
                note.shape)
    # a view of them (a scalar kept by value that no tensor of its shape holds too: x[0] changed
    # itself, or through x): torch regenerates its node once they need a gradient, else it has
    # none
    family_needs_grad = any(note.requires_grad for note in notes)
    return ", which is output 0 of AsStrided," if family_needs_grad else None, shape


def _forward_name(seg, node):
    """torch names the forward op in this message: MulBackward0 -> Mul."""
    return forward_name(node_name(seg, node))
