"""Compiled half of lowering: which nodes a backward needs, their pending counts, their buffers.

Note [pending counts]
A node may run only when every contribution to its input slots has arrived. pending[i] counts the
*edges* from needed nodes into i, with multiplicity: x*x gives the multiplication two edges to x's
AccumulateGrad, so the accumulator waits for both. Counting distinct producers instead would run
it after the first contribution and lose the second. The scheduler decrements once per edge.
"""
import numpy as np
from numba import njit

ACCUMULATE = 0


@njit(cache=True)
def plan(n, roots, targets, op, dt, in_ptr, e_node, out_ptr, o_numel):
    """Mark the needed nodes, count pending edges and place one buffer per (node, output).

    roots: nodes whose gradients are seeded. targets: nodes gradients are wanted for; empty means
    every AccumulateGrad reached. Returns (needed, pending, buf_off, buf_kind, totals): buf_kind is
    the workspace of a buffer (0/1: intermediate float32/float64, 2/3: leaf results) and totals
    its size in elements.
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
        for r in roots:
            needed[r] = True

    pending = np.zeros(n, np.int64)
    n_out_total = out_ptr[n]
    buf_off = np.full(n_out_total, -1, np.int64)
    buf_kind = np.zeros(n_out_total, np.int8)
    totals = np.zeros(4, np.int64)
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
            buf_off[s] = totals[kind]
            buf_kind[s] = kind
            totals[kind] += o_numel[s]
    return needed, pending, buf_off, buf_kind, totals


@njit(cache=True)
def output_numels(in_ptr, out_ptr, mt_ptr, mt):
    """The element count of every node output, read from the shapes in the meta column: the
    size of each gradient buffer."""
    n = in_ptr.size - 1
    numels = np.empty(out_ptr[n], np.int64)
    for node in range(n):
        pos = mt_ptr[node]
        for _ in range(in_ptr[node + 1] - in_ptr[node]):
            pos += 1 + mt[pos]
        for s in range(out_ptr[node], out_ptr[node + 1]):
            ndim = mt[pos]
            size = 1
            for d in range(ndim):
                size *= mt[pos + 1 + d]
            numels[s] = size
            pos += 1 + ndim
    return numels
