"""Compiled half of lowering: which nodes a backward needs, their pending counts, their buffers.

Note [pending counts]
A node may run only when every contribution to its input slots has arrived. pending[i] counts the
*edges* from needed nodes into i, with multiplicity: x*x gives the multiplication two edges to x's
AccumulateGrad, so the accumulator waits for both. Counting distinct producers instead would run
it after the first contribution and lose the second. The scheduler decrements once per edge.

Note [buffer reuse]
Each (node, output) slot gets a gradient buffer. Laid out one after another, a chain of 30 ops on
10^6 values wants 120 MB of buffers, each touched once: every kernel then reads and writes memory
that left the cache long ago. A slot's buffer is dead once its node has run, so large slots share
memory as torch's caching allocator lets them: `plan` replays the scheduler's ready queue (the
same queue, from the same ready list and pending counts, so the order is the one the run will
have), gives a slot its buffer when the first contribution to it is written, and frees the
node's own slots after it has run - after its destinations got theirs, so a kernel never writes
into the buffer it reads. A freed buffer serves the next slot of the same workspace and size. Slots
read after the run (gradients asked for by `autograd.grad`, retained gradients) are never freed,
nor are leaf results (they become `.grad`); small slots keep their own places: sharing them saves
no cache and would only renumber the buffers of small graphs.
An input whose derivative is the upstream gradient itself (either side of `x + y`, the input
of a view or reshape, a named composite's result), reached by that one edge only and as large as
the output, takes the output's own buffer instead, and its kernel leaves it as it is: no copy at
all (OpDef.passes_through).
"""
import numpy as np
from numba import njit

from .abi import numel_at
from .ready_queue import pop, push, push_all, rank_of

ACCUMULATE = 0
REUSE_MIN_NUMEL = 4096   # Note [buffer reuse]: smaller slots keep their own buffers
RELEASED = 1    # the flag bits of tape.py
PYTHON = 2


# Note [roots that lead nowhere]
# With inputs (autograd.grad, backward(inputs=...)), torch's engine runs only the nodes on a path to
# them. A lone root is its graph task's first node all the same: its tensor hooks (retain_grad's
# too) see the seed, though the node itself does not run, so a leaf root accumulates nothing.
# Several roots hang from one GraphRoot node instead, which hands the seeds only to the roots that
# lead somewhere: the others see nothing, hooks included.
@njit(cache=True)
def plan(n, roots, targets, op, dt, in_ptr, e_node, out_ptr, o_numel, keep, reuse):
    """Mark the needed nodes, count pending edges and place one buffer per (node, output).

    roots: nodes whose gradients are seeded. targets: nodes gradients are wanted for; empty means
    every AccumulateGrad reached. reuse: large slots, except those marked in keep (one flag per
    slot), are left for share_buffers to place (Note [buffer reuse]). Returns (needed, pending,
    buf_off, buf_kind, totals, runnable, ready, unplaced): buf_kind is the workspace of a buffer
    (0/1: intermediate float32/float64, 2/3: leaf results) and totals its size in elements. Only
    runnable nodes compute something: needed, not an AccumulateGrad, and with at least one needed
    input (a root that leads to no requested input does not run, as in torch, so its graph stays
    usable: Note [roots that lead nowhere]). ready: the needed nodes nothing waits
    on, in id order (the ready queue's first pushes); unplaced: whether share_buffers has slots
    to place.
    """
    reached = np.zeros(n, np.bool_)
    post = np.empty(n, np.int64)          # reached nodes, each after everything it reaches
    n_post = 0
    stack = np.empty(n + 1, np.int64)
    cursor = np.empty(n, np.int64)        # next input edge to visit, per node on the stack
    for r in roots:
        if reached[r]:
            continue
        reached[r] = True
        top = 0
        stack[0] = r
        cursor[r] = in_ptr[r]
        while top >= 0:
            node = stack[top]
            e = cursor[node]
            if e < in_ptr[node + 1]:
                cursor[node] = e + 1
                dst = e_node[e]
                if dst >= 0 and not reached[dst]:
                    reached[dst] = True
                    top += 1
                    stack[top] = dst
                    cursor[dst] = in_ptr[dst]
            else:
                post[n_post] = node
                n_post += 1
                top -= 1

    needed = reached
    if targets.size > 0:
        # keep only nodes on a path from a root to a target: in post order, inputs come first
        leads = np.zeros(n, np.bool_)
        for t in targets:
            leads[t] = True
        for k in range(n_post):
            node = post[k]
            if leads[node]:
                continue
            for e in range(in_ptr[node], in_ptr[node + 1]):
                dst = e_node[e]
                if dst >= 0 and leads[dst]:
                    leads[node] = True
                    break
        needed = reached & leads
        if roots.size == 1:
            # Note [roots that lead nowhere]
            needed[roots[0]] = True

    pending = np.zeros(n, np.int64)
    n_out_total = out_ptr[n]
    buf_off = np.full(n_out_total, -1, np.int64)
    buf_kind = np.zeros(n_out_total, np.int8)
    totals = np.zeros(4, np.int64)
    shared = 0          # slots left for share_buffers
    for k in range(n_post):
        node = post[k]
        if not needed[node]:
            continue
        for e in range(in_ptr[node], in_ptr[node + 1]):
            dst = e_node[e]
            if dst >= 0 and needed[dst]:
                pending[dst] += 1
        kind = dt[node] + (2 if op[node] == ACCUMULATE else 0)
        for s in range(out_ptr[node], out_ptr[node + 1]):
            buf_kind[s] = kind
            if reuse and kind < 2 and o_numel[s] >= REUSE_MIN_NUMEL and not keep[s]:
                shared += 1
                continue
            buf_off[s] = totals[kind]
            totals[kind] += o_numel[s]
    runnable = runnable_nodes(n, needed, op, in_ptr, e_node)
    n_ready = 0
    ready = np.empty(n, np.int64)
    for node in range(n):
        if needed[node] and pending[node] == 0:
            ready[n_ready] = node
            n_ready += 1
    return needed, pending, buf_off, buf_kind, totals, runnable, ready[:n_ready], shared > 0


@njit(cache=True)
def share_buffers(n, roots, ready, ready_order, needed, pending, op, in_ptr, e_node,
                  e_slot, out_ptr, o_numel, keep, passes_through, buf_off, buf_kind, totals):
    """Place the slots plan left unplaced (buf_off -1) in the order the scheduler will run the
    nodes, reusing the buffers of slots whose node has run (Note [buffer reuse]). Apart from plan:
    compiled only when a graph has large slots."""
    free_off = np.empty(64, np.int64)       # recently freed buffers: few are live at a time in
    free_numel = np.empty(64, np.int64)     # practice, and a bounded list keeps this linear
    free_kind = np.empty(64, np.int8)
    n_free = 0
    contributions = np.zeros(out_ptr[n], np.int64)      # edges into each slot
    for node in range(n):
        if needed[node]:
            for e in range(in_ptr[node], in_ptr[node + 1]):
                dst = e_node[e]
                if dst >= 0 and needed[dst]:
                    contributions[out_ptr[dst] + e_slot[e]] += 1
    left = np.empty(n, np.int64)
    for node in range(n):
        left[node] = pending[node]
    queue = np.empty(n, np.int64)
    ranks = np.empty(n, np.int64)
    size = push_all(queue, ranks, ready, ready_order, op)
    pushed = size
    for r in roots:      # seeded before anything runs
        for s in range(out_ptr[r], out_ptr[r + 1]):
            if buf_off[s] < 0:
                buf_off[s] = totals[buf_kind[s]]
                totals[buf_kind[s]] += o_numel[s]
    while size > 0:
        node = pop(queue, ranks, size)
        size -= 1
        own = out_ptr[node]
        passed_on = False     # the node's one output buffer now belongs to an input's slot
        for e in range(in_ptr[node], in_ptr[node + 1]):
            dst = e_node[e]
            if dst < 0 or not needed[dst]:
                continue
            s = out_ptr[dst] + e_slot[e]
            if buf_off[s] < 0:
                kind = buf_kind[s]
                if (not passed_on and passes_through[op[node]] >> (e - in_ptr[node]) & 1
                        and contributions[s] == 1 and out_ptr[node + 1] - own == 1
                        and buf_off[own] >= 0 and not keep[own] and buf_kind[own] == kind
                        and o_numel[own] == o_numel[s] and o_numel[s] >= REUSE_MIN_NUMEL):
                    # the kernel leaves the gradient where it is (`x + y` passes g on to x)
                    buf_off[s] = buf_off[own]
                    passed_on = True
                else:
                    found = -1
                    for f in range(n_free - 1, -1, -1):
                        if free_kind[f] == kind and free_numel[f] == o_numel[s]:
                            found = f
                            break
                    if found >= 0:
                        buf_off[s] = free_off[found]
                        n_free -= 1
                        free_off[found] = free_off[n_free]
                        free_numel[found] = free_numel[n_free]
                        free_kind[found] = free_kind[n_free]
                    else:
                        buf_off[s] = totals[kind]
                        totals[kind] += o_numel[s]
            left[dst] -= 1
            if left[dst] == 0:
                size = push(queue, ranks, size, dst, rank_of(ready_order, op, dst, pushed))
                pushed += 1
        for s in range(out_ptr[node], out_ptr[node + 1]):
            if (buf_off[s] >= 0 and buf_kind[s] < 2 and o_numel[s] >= REUSE_MIN_NUMEL
                    and not keep[s] and not passed_on):
                if n_free == free_off.size:     # forget the oldest
                    for f in range(1, n_free):
                        free_off[f - 1] = free_off[f]
                        free_numel[f - 1] = free_numel[f]
                        free_kind[f - 1] = free_kind[f]
                    n_free -= 1
                free_off[n_free] = buf_off[s]
                free_numel[n_free] = o_numel[s]
                free_kind[n_free] = buf_kind[s]
                n_free += 1
    for node in range(n):       # slots no contribution reaches still get a place
        if needed[node]:
            for s in range(out_ptr[node], out_ptr[node + 1]):
                if buf_off[s] < 0:
                    buf_off[s] = totals[buf_kind[s]]
                    totals[buf_kind[s]] += o_numel[s]


@njit(cache=True)
def runnable_nodes(n, needed, op, in_ptr, e_node):
    """The needed nodes that compute something (see plan)."""
    runnable = np.zeros(n, np.bool_)
    for node in range(n):
        if needed[node] and op[node] != ACCUMULATE:
            for e in range(in_ptr[node], in_ptr[node + 1]):
                dst = e_node[e]
                if dst >= 0 and needed[dst]:
                    runnable[node] = True
                    break
    return runnable


@njit(cache=True)
def unpack(kind, counts, mt, s_ref, e_node, base, python_op, freed):
    """Everything lowering derives from the tape's two per-node integers (Note [packed counts] in
    tape.py), in one compiled pass: op codes, dtypes, devices, the CSR starts, each output's size
    (from the shapes in meta), the node owning each edge and each saved value, flags, the widest
    kernel argument block, and which variant of its kernel each node calls (Note [kernel
    variants] in table.py). With one segment (base >= 0: its first global id), the edges'
    global ids also become positions, in place."""
    if base >= 0:
        for e in range(e_node.size):
            if e_node[e] >= 0:
                e_node[e] -= base
    n = kind.size
    op = np.empty(n, np.int32)
    dt = np.empty(n, np.int8)
    on_cuda = np.empty(n, np.bool_)
    flags = np.zeros(n, np.int8)
    in_ptr = np.zeros(n + 1, np.int64)
    out_ptr = np.zeros(n + 1, np.int64)
    sv_ptr = np.zeros(n + 1, np.int64)
    mt_ptr = np.zeros(n + 1, np.int64)
    fm_ptr = np.zeros(n + 1, np.int64)
    width = 0
    for i in range(n):
        k = kind[i]
        op[i] = k & 0xFFFFFF
        dt[i] = 1 if k & (1 << 24) else 0
        on_cuda[i] = (k & (1 << 25)) != 0
        if op[i] == python_op:
            flags[i] |= PYTHON
        c = counts[i]
        n_in, n_out, n_saved = c & 0xFFF, (c >> 12) & 0xFFF, (c >> 24) & 0xFFF
        in_ptr[i + 1] = in_ptr[i] + n_in
        out_ptr[i + 1] = out_ptr[i] + n_out
        sv_ptr[i + 1] = sv_ptr[i] + n_saved
        mt_ptr[i + 1] = mt_ptr[i] + ((c >> 36) & 0xFFFFF)
        fm_ptr[i + 1] = fm_ptr[i] + ((c >> 56) & 0xFF)
        width = max(width, 2 * n_in + n_out + n_saved)
    o_numel = np.empty(out_ptr[n], np.int64)
    edge_owner = np.empty(in_ptr[n], np.int64)
    saved_owner = np.empty(sv_ptr[n], np.int64)
    variant = np.zeros(n, np.int8)
    for i in range(n):
        pos = mt_ptr[i]
        n_in = in_ptr[i + 1] - in_ptr[i]
        all_full = True          # every input as large as output 0
        affine = True            # every input that large or a single element
        out_pos = pos
        for _ in range(n_in):
            out_pos += 1 + mt[out_pos]
        first_out = numel_at(mt, out_pos) if out_ptr[i + 1] > out_ptr[i] else 0
        for _ in range(n_in):
            size = numel_at(mt, pos)
            all_full = all_full and size == first_out
            affine = affine and (size == first_out or size == 1)
            pos += 1 + mt[pos]
        variant[i] = 0 if all_full else (1 if affine else 2)     # Note [kernel variants]
        for s in range(out_ptr[i], out_ptr[i + 1]):
            o_numel[s] = numel_at(mt, pos)
            pos += 1 + mt[pos]
        edge_owner[in_ptr[i]:in_ptr[i + 1]] = i
        for s in range(sv_ptr[i], sv_ptr[i + 1]):
            saved_owner[s] = i
            if s_ref[s] == freed:
                flags[i] |= RELEASED
    return (op, dt, on_cuda, flags, in_ptr, out_ptr, sv_ptr, mt_ptr, fm_ptr, o_numel, edge_owner,
            saved_owner, width, variant)


@njit(cache=True)
def saved_value_addresses(s_ref, used, is64, scalars32, scalars64, array_addr, out):
    """The address of each saved value the backward reads (out, 0 elsewhere): a scalar kept by value
    at its index in its dtype's column (at address scalars32 / scalars64), an array where its
    address was noted when saved (s_ref holds ~index into array_addr)."""
    for j in range(len(s_ref)):
        if not used[j]:
            continue
        ref = s_ref[j]
        if ref < 0:
            out[j] = array_addr[~ref]
        elif is64[j]:
            out[j] = scalars64 + ref * 8
        else:
            out[j] = scalars32 + ref * 4
