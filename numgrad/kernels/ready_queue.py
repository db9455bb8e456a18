"""The ready queue: which ready node the backward runs next.

Note [ready order]: torch's engine keeps the ready nodes of a CPU backward in a
std::priority_queue ordered by sequence number, the order in which the forward created the nodes,
and runs the newest first; an AccumulateGrad node has the largest number there is, so a leaf's
gradient is stored (and its hooks run) as soon as it is complete. That order is visible: it is the
order in which hooks and custom backwards run. Here a node's position in the lowered graph is its
creation order (segments oldest first, nodes in tape order), so the key is the position, or the
largest int64 for an AccumulateGrad node.

AccumulateGrad nodes tie. Which of two ready leaves torch stores first is what its heap does with
equal keys, so the heap below is libstdc++'s push_heap/pop_heap step for step: with the same pushes
it pops the same nodes in the same order.

The other order, FIFO (first ready, first run), is the seed's teaching model: its C++ program
queues nodes first in, first out, and `autograd.trace(order="fifo")` reproduces its printout. A
node's rank is then minus the number of nodes pushed before it.
"""
import numpy as np
from numba import njit

TORCH, FIFO = 0, 1      # the orders
_LAST = np.iinfo(np.int64).max


@njit(cache=True, inline="always")
def rank_of(order, op, node, pushed):
    """A node's rank when it becomes ready, the `pushed`-th node to: the highest runs first."""
    if order == FIFO:
        return -pushed
    return _LAST if op[node] == 0 else node        # 0: tape.ACCUMULATE


@njit(cache=True, inline="always")
def _sift_up(heap, ranks, hole, top, node):
    """Move `node` up from the hole while its parent ranks lower (libstdc++'s __push_heap)."""
    rank = ranks[node]
    parent = (hole - 1) // 2
    while hole > top and ranks[heap[parent]] < rank:
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = node


@njit(cache=True)
def push(heap, ranks, size, node, rank):
    """Add a ready node of this rank to the heap of `size` nodes; returns the new size."""
    ranks[node] = rank
    _sift_up(heap, ranks, size, 0, node)
    return size + 1


@njit(cache=True)
def pop(heap, ranks, size):
    """Remove and return the highest-ranked of the heap's `size` nodes (size > 0)."""
    best = heap[0]
    size -= 1
    if size == 0:
        return best
    last = heap[size]
    # libstdc++'s __adjust_heap: walk the hole down along the higher child to a leaf, then put the
    # last node back in from there
    hole = 0
    child = 0
    while child < (size - 1) // 2:
        child = 2 * (child + 1)
        if ranks[heap[child]] < ranks[heap[child - 1]]:
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if size % 2 == 0 and child == (size - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    _sift_up(heap, ranks, hole, 0, last)
    return best


@njit(cache=True)
def push_all(heap, ranks, nodes, order, op):
    """A heap of these nodes, pushed in turn (the first pushes of a run); returns its size."""
    size = 0
    for node in nodes:
        size = push(heap, ranks, size, node, rank_of(order, op, node, size))
    return size
