"""The GPU backward's plan, computed on the host from the lowered arrays (compiled, like plan.py).

`levels` walks the needed nodes once, newest first (every edge points to an older node, so a
node's contributors are seen before it): it marks the nodes that run (a gradient reached one of
their outputs), the edges that deliver, and each node's dependency level, 1 + the highest level of
the nodes that send it gradient. `modes` picks how each delivering edge writes its slot (Note
[zeroed buffers] in kernels/cuda.py), and `argument_blocks` lays out the blocks the kernels read.
"""
import numpy as np
from numba import njit

from ..kernels.abi import ADD, HEADER, WRITE

ATOMIC = 2


@njit(cache=True)
def levels(n, needed, runnable, in_ptr, e_node, e_slot, out_ptr, seeded):
    """(level, runs, delivers, written): per node, per node, per edge, per (node, output) slot."""
    level = np.zeros(n, np.int64)
    runs = np.zeros(n, np.bool_)
    delivers = np.zeros(len(e_node), np.bool_)
    written = seeded.copy()
    for i in range(n - 1, -1, -1):
        if not (needed[i] and runnable[i]):
            continue
        defined = False
        for s in range(out_ptr[i], out_ptr[i + 1]):
            defined = defined or written[s]
        if not defined:
            continue                       # no gradient reached it: it runs no kernel
        runs[i] = True
        for e in range(in_ptr[i], in_ptr[i + 1]):
            dst = e_node[e]
            if dst >= 0 and needed[dst]:
                delivers[e] = True
                written[out_ptr[dst] + e_slot[e]] = True
                level[dst] = max(level[dst], level[i] + 1)
    return level, runs, delivers, written


@njit(cache=True)
def modes(order, slot_of, level_of, seeded, n_edges):
    """order: the delivering edges sorted by (slot, level of their source). Edges that meet one
    slot in one level race: ATOMIC. Otherwise the first contribution to an unseeded slot WRITEs
    and later ones ADD."""
    mode = np.full(n_edges, WRITE, np.int64)
    k = 0
    while k < len(order):
        s, lv = slot_of[order[k]], level_of[order[k]]
        end = k + 1
        while end < len(order) and slot_of[order[end]] == s and level_of[order[end]] == lv:
            end += 1
        first = k == 0 or slot_of[order[k - 1]] != s
        how = ATOMIC if end - k > 1 else (WRITE if first and not seeded[s] else ADD)
        for q in range(k, end):
            mode[order[q]] = how
        k = end
    return mode


@njit(cache=True)
def _address(ws_addr, buf_kind, buf_off, slot):
    kind = buf_kind[slot]
    return ws_addr[kind] + buf_off[slot] * (4 if kind % 2 == 0 else 8)


@njit(cache=True)
def argument_blocks(order, in_ptr, e_node, e_slot, out_ptr, sv_ptr, mt, mt_ptr, fm_ptr, written,
                    delivers, mode, buf_kind, buf_off, ws_addr, s_addr, mt_addr, fm_addr):
    """The argument block of every node in `order` (abi.py's layout, device addresses), their
    starts, and each node's work: the largest element count among its shapes."""
    starts = np.zeros(len(order) + 1, np.int64)
    for j in range(len(order)):
        i = order[j]
        width = (out_ptr[i + 1] - out_ptr[i]) + 2 * (in_ptr[i + 1] - in_ptr[i]) \
            + (sv_ptr[i + 1] - sv_ptr[i])
        starts[j + 1] = starts[j] + HEADER + width
    args = np.zeros(starts[-1], np.int64)
    work = np.ones(len(order), np.int64)
    for j in range(len(order)):
        i = order[j]
        b = starts[j]
        n_in, n_out = in_ptr[i + 1] - in_ptr[i], out_ptr[i + 1] - out_ptr[i]
        n_saved = sv_ptr[i + 1] - sv_ptr[i]
        args[b] = n_out
        args[b + 1] = n_in
        args[b + 2] = n_saved
        args[b + 3] = mt_addr + mt_ptr[i] * 8
        args[b + 4] = mt_ptr[i + 1] - mt_ptr[i]
        args[b + 5] = fm_addr + fm_ptr[i] * 8
        for jj in range(n_out):
            s = out_ptr[i] + jj
            args[b + HEADER + jj] = _address(ws_addr, buf_kind, buf_off, s) if written[s] else 0
        for k in range(n_in):
            e = in_ptr[i] + k
            if delivers[e]:
                slot = out_ptr[e_node[e]] + e_slot[e]
                args[b + HEADER + n_out + k] = _address(ws_addr, buf_kind, buf_off, slot)
                args[b + HEADER + n_out + n_in + k] = mode[e]
            else:
                args[b + HEADER + n_out + n_in + k] = WRITE
        for q in range(n_saved):
            args[b + HEADER + n_out + 2 * n_in + q] = s_addr[sv_ptr[i] + q]
        pos = mt_ptr[i]
        for _ in range(n_in + n_out):
            numel = 1
            for d in range(mt[pos]):
                numel *= mt[pos + 1 + d]
            work[j] = max(work[j], numel)
            pos += 1 + mt[pos]
    return args, starts[:-1], work
