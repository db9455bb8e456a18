"""The compiled scheduler: runs each needed node once, when its pending count reaches zero.

It pops the ready node torch would run next (Note [ready order] in ready_queue.py), lets its kernel
turn output gradients into input gradients written straight into the destination slots' buffers
(the first contribution writes, later ones add: Note [write then add] in abi.py), then decrements
each destination's pending count once per edge (Note [pending counts] in plan.py) and queues it at
zero. AccumulateGrad nodes only mark their leaf's gradient as final; Python stores it in `.grad`
afterwards, or, for a leaf with hooks, when the node runs. Nodes that need Python (custom
Functions, hooks) are handed back: `run` returns the node id and state stays in the arrays, so a
second call resumes where the first stopped.
"""
from numba import njit

from .abi import ADD, HEADER, WRITE, call_kernel
from .ready_queue import pop, push, rank_of

ACCUMULATE = 0
PYTHON = 2
PRE_HOOKS = 4

# `resume` phases
START = 0          # nothing to resume
HOOKS_DONE = 1     # Python ran the tensor hooks of node `resume_node`: now run the node itself
PYTHON_DONE = 2    # Python ran the backward of node `resume_node`: now release its inputs

# state slots: READY, how many nodes the ready queue holds, and PUSHED, how many it was given;
# REASON says why run() returned a node: its HOOKS are due, or its PYTHON backward
READY, PUSHED, N_ORDER, N_EVENTS, REASON = 0, 1, 2, 3, 4
HOOKS, PYTHON_BACKWARD = 1, 2

_ITEMSIZE = (4, 8, 4, 8)


@njit(cache=True)
def buffer_address(ws_addr, buf_kind, buf_off, slot):
    kind = buf_kind[slot]
    return ws_addr[kind] + buf_off[slot] * (4 if kind % 2 == 0 else 8)


@njit(cache=True)
def run(op, dt, variant, flags, in_ptr, e_node, e_slot, out_ptr, sv_ptr, s_addr, mt_addr, mt_ptr,
        fm_addr, fm_ptr, needed, pending, buf_off, buf_kind, written, ws_addr, fn_table, queue,
        ranks, ready_order, state, order, ev_src, ev_dst, ev_slot, ev_pending, scratch,
        resume_node, resume_phase):
    """Run until the graph is done (returns -1) or a node needs Python (returns its id)."""
    args_addr = scratch.ctypes.data
    node = resume_node
    phase = resume_phase
    while True:
        if phase == START:
            if state[READY] == 0:
                return -1
            node = pop(queue, ranks, state[READY])
            state[READY] -= 1
            if flags[node] & PRE_HOOKS:
                state[REASON] = HOOKS
                return node                     # Python runs the hooks, then resumes HOOKS_DONE
        if phase != PYTHON_DONE:
            order[state[N_ORDER]] = node
            state[N_ORDER] += 1
            if op[node] == ACCUMULATE:
                phase = START
                continue
            i0, i1 = in_ptr[node], in_ptr[node + 1]
            o0, o1 = out_ptr[node], out_ptr[node + 1]
            n_in, n_out = i1 - i0, o1 - o0
            n_saved = sv_ptr[node + 1] - sv_ptr[node]
            defined = False
            for s in range(o0, o1):
                defined = defined or written[s]
            wanted = False
            for e in range(i0, i1):
                dst = e_node[e]
                wanted = wanted or (dst >= 0 and needed[dst])
            scratch[0] = n_out
            scratch[1] = n_in
            scratch[2] = n_saved
            scratch[3] = mt_addr + mt_ptr[node] * 8
            scratch[4] = mt_ptr[node + 1] - mt_ptr[node]
            scratch[5] = fm_addr + fm_ptr[node] * 8
            for j in range(n_out):
                s = o0 + j
                scratch[HEADER + j] = buffer_address(ws_addr, buf_kind, buf_off, s) if written[s] else 0
            if flags[node] & PYTHON:
                # as torch: a Function runs even when no gradient reached its outputs (it then
                # gets zeros), as long as an input wants one
                if wanted:
                    state[REASON] = PYTHON_BACKWARD
                    return node                 # Python runs it and delivers, then resumes PYTHON_DONE
                phase = PYTHON_DONE
                continue
            base_in = HEADER + n_out
            for k in range(n_in):
                e = i0 + k
                dst = e_node[e]
                if defined and dst >= 0 and needed[dst]:
                    slot = out_ptr[dst] + e_slot[e]
                    scratch[base_in + k] = buffer_address(ws_addr, buf_kind, buf_off, slot)
                    scratch[base_in + n_in + k] = ADD if written[slot] else WRITE
                    written[slot] = True
                else:
                    scratch[base_in + k] = 0
                    scratch[base_in + n_in + k] = WRITE
            for q in range(n_saved):
                scratch[base_in + 2 * n_in + q] = s_addr[sv_ptr[node] + q]
            if defined and wanted:
                call_kernel(fn_table[op[node], dt[node] * 3 + variant[node]], args_addr)
        # release the inputs: one decrement per edge
        for e in range(in_ptr[node], in_ptr[node + 1]):
            dst = e_node[e]
            if dst >= 0 and needed[dst]:
                pending[dst] -= 1
                ev = state[N_EVENTS]
                ev_src[ev] = node
                ev_dst[ev] = dst
                ev_slot[ev] = e_slot[e]
                ev_pending[ev] = pending[dst]
                state[N_EVENTS] += 1
                if pending[dst] == 0:
                    rank = rank_of(ready_order, op, dst, state[PUSHED])
                    state[READY] = push(queue, ranks, state[READY], dst, rank)
                    state[PUSHED] += 1
        phase = START
