"""torch's CPU selection, ported as it is, so topk and kthvalue pick torch's elements among ties.

topk: TopKImpl.h with the libstdc++ algorithms it calls: std::partial_sort when k is small beside
the line (k * 64 <= n), else std::nth_element and, for sorted=True, std::sort of the k - 1 before
the k-th. kthvalue: quick_select_template in SortingUtils.h. None of them is stable, so which of
equal values they return, and in which order, is wherever these leave them (no stable or
reverse-stable sort reproduces it). Without ties they agree with any sort, so every line runs here.

Each function takes a block of lines (lines, n) of float64, made by `exact_lines`, which keeps
every comparison torch's, so one compiled specialisation serves every dtype. A line is a pair of
arrays, its values and their original indices, moved together. Positions are passed to the
helpers as np.int64(0), never a literal 0, for which Numba would compile them a second time.
"""
import math

import numpy as np
from numba import njit

# helpers are only called from compiled code: no wrappers to call them from Python (less to compile)
_helper = njit(no_cpython_wrapper=True, no_cfunc_wrapper=True)


@_helper
def _after(a, b):
    """torch's gt_or_nan: a sorts after b (NaN after every number)."""
    return (math.isnan(a) and not math.isnan(b)) or a > b


@_helper
def _before(a, b, largest):
    """a goes before b in torch's topk: the larger first for the largest (NaN first), the
    smaller for the smallest (NaN last: that order is the other one reversed)."""
    if not largest:
        a, b = b, a
    return _after(a, b)


@_helper
def _lg(n):
    lg = -1
    while n:
        n >>= 1
        lg += 1
    return lg


@_helper
def _swap(v, ix, i, j):
    v[i], v[j] = v[j], v[i]
    ix[i], ix[j] = ix[j], ix[i]


# ---- heaps (std::__make_heap, __adjust_heap, __push_heap, __pop_heap, __sort_heap) -----------
@_helper
def _push_heap(v, ix, first, hole, top, value, index, largest):
    parent = (hole - 1) // 2
    while hole > top and _before(v[first + parent], value, largest):
        v[first + hole] = v[first + parent]
        ix[first + hole] = ix[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[first + hole] = value
    ix[first + hole] = index


@_helper
def _adjust_heap(v, ix, first, hole, length, value, index, largest):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _before(v[first + child], v[first + child - 1], largest):
            child -= 1
        v[first + hole] = v[first + child]
        ix[first + hole] = ix[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        v[first + hole] = v[first + child - 1]
        ix[first + hole] = ix[first + child - 1]
        hole = child - 1
    _push_heap(v, ix, first, hole, top, value, index, largest)


@_helper
def _make_heap(v, ix, first, last, largest):
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(v, ix, first, parent, length, v[first + parent], ix[first + parent], largest)
        if parent == 0:
            return
        parent -= 1


@_helper
def _pop_heap(v, ix, first, last, result, largest):
    value, index = v[result], ix[result]
    v[result], ix[result] = v[first], ix[first]
    _adjust_heap(v, ix, first, np.int64(0), last - first, value, index, largest)


@_helper
def _heap_select(v, ix, first, middle, last, largest):
    _make_heap(v, ix, first, middle, largest)
    for i in range(middle, last):
        if _before(v[i], v[first], largest):
            _pop_heap(v, ix, first, middle, i, largest)


@_helper
def _sort_heap(v, ix, first, last, largest):
    while last - first > 1:
        last -= 1
        _pop_heap(v, ix, first, last, last, largest)


# ---- partitions and insertion sorts --------------------------------------------------------------
@_helper
def _move_median_to_first(v, ix, result, a, b, c, largest):
    if _before(v[a], v[b], largest):
        if _before(v[b], v[c], largest):
            pick = b
        elif _before(v[a], v[c], largest):
            pick = c
        else:
            pick = a
    elif _before(v[a], v[c], largest):
        pick = a
    elif _before(v[b], v[c], largest):
        pick = c
    else:
        pick = b
    _swap(v, ix, result, pick)


@_helper
def _unguarded_partition(v, ix, first, last, pivot, largest):
    while True:
        while _before(v[first], v[pivot], largest):
            first += 1
        last -= 1
        while _before(v[pivot], v[last], largest):
            last -= 1
        if not first < last:
            return first
        _swap(v, ix, first, last)
        first += 1


@_helper
def _partition_pivot(v, ix, first, last, largest):
    mid = first + (last - first) // 2
    _move_median_to_first(v, ix, first, first + 1, mid, last - 1, largest)
    return _unguarded_partition(v, ix, first + 1, last, first, largest)


@_helper
def _linear_insert(v, ix, last, largest):
    value, index = v[last], ix[last]
    nxt = last - 1
    while _before(value, v[nxt], largest):
        v[last], ix[last] = v[nxt], ix[nxt]
        last = nxt
        nxt -= 1
    v[last], ix[last] = value, index


@_helper
def _insertion_sort(v, ix, first, last, largest):
    if first == last:
        return
    for i in range(first + 1, last):
        if _before(v[i], v[first], largest):
            value, index = v[i], ix[i]
            for j in range(i, first, -1):            # std::move_backward(first, i, i + 1)
                v[j], ix[j] = v[j - 1], ix[j - 1]
            v[first], ix[first] = value, index
        else:
            _linear_insert(v, ix, i, largest)


@_helper
def _introselect(v, ix, first, nth, last, depth, largest):
    while last - first > 3:
        if depth == 0:
            _heap_select(v, ix, first, nth + 1, last, largest)
            _swap(v, ix, first, nth)
            return
        depth -= 1
        cut = _partition_pivot(v, ix, first, last, largest)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(v, ix, first, last, largest)


_THRESHOLD = 16


@_helper
def _sort(v, ix, first, last, largest):
    if first == last:
        return
    _introsort_loop(v, ix, first, last, 2 * _lg(last - first), largest)
    if last - first > _THRESHOLD:
        _insertion_sort(v, ix, first, first + _THRESHOLD, largest)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(v, ix, i, largest)
    else:
        _insertion_sort(v, ix, first, last, largest)


@_helper
def _introsort_loop(v, ix, first, last, depth, largest):
    """std::__introsort_loop, its recursion on the right part kept on a stack: the parts are
    disjoint and each is sorted on its own, so the order they are done in changes nothing. Every
    part on the stack is longer than _THRESHOLD, so it never holds more than n // 16 of them."""
    stack = np.empty((max((last - first) // _THRESHOLD, 1), 3), np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = first, last, depth
    size = 1
    while size:
        size -= 1
        first, last, depth = stack[size, 0], stack[size, 1], stack[size, 2]
        while last - first > _THRESHOLD:
            if depth == 0:
                _heap_select(v, ix, first, last, last, largest)   # std::__partial_sort(first, last, last)
                _sort_heap(v, ix, first, last, largest)
                break
            depth -= 1
            cut = _partition_pivot(v, ix, first, last, largest)
            if last - cut > _THRESHOLD:
                stack[size, 0], stack[size, 1], stack[size, 2] = cut, last, depth
                size += 1
            last = cut


@njit(cache=True)
def topk_indices(lines, k, largest, sorted_):
    """The original indices of torch's topk of each line of `lines` (lines, n), in its order:
    (lines, k) int64."""
    count, n = lines.shape
    out = np.empty((count, k), np.int64)
    if k == 0:
        return out
    v = np.empty(n, lines.dtype)
    ix = np.empty(n, np.int64)
    start = np.int64(0)         # not 0: Numba would compile the helpers again for a literal 0
    for line in range(count):
        for j in range(n):          # loops, not slices: Numba compiles slice copies slowly
            v[j] = lines[line, j]
            ix[j] = j
        if k * 64 <= n:
            _heap_select(v, ix, start, k, n, largest)
            _sort_heap(v, ix, start, k, largest)
        else:
            _introselect(v, ix, start, k - 1, n, 2 * _lg(n), largest)
            if sorted_:
                _sort(v, ix, start, k - 1, largest)
        for j in range(k):
            out[line, j] = ix[j]
    return out


@njit(cache=True)
def kth_indices(lines, k):
    """The original index of the element torch's quick select leaves at position k (from 0) of
    each line of `lines` (lines, n): (lines,) int64."""
    count, n = lines.shape
    out = np.empty(count, np.int64)
    v = np.empty(n, lines.dtype)
    ix = np.empty(n, np.int64)
    for line in range(count):
        for j in range(n):          # loops, not slices: Numba compiles slice copies slowly
            v[j] = lines[line, j]
            ix[j] = j
        low, high = 0, n - 1
        while True:
            if high <= low:
                break
            if high == low + 1:
                if _after(v[low], v[high]):
                    _swap(v, ix, low, high)
                break
            # median of three as the pivot, moved to v[low]
            _swap(v, ix, low + (high - low) // 2, low + 1)
            if _after(v[low + 1], v[high]):
                _swap(v, ix, low + 1, high)
            if _after(v[low], v[high]):
                _swap(v, ix, low, high)
            if _after(v[low + 1], v[low]):
                _swap(v, ix, low + 1, low)
            i, j, pivot = low + 1, high, v[low]
            while True:
                i += 1
                while _after(pivot, v[i]):
                    i += 1
                j -= 1
                while _after(v[j], pivot):
                    j -= 1
                if j < i:
                    break
                _swap(v, ix, i, j)
            _swap(v, ix, low, j)
            if j <= k:
                low = i
            if j >= k:
                high = j - 1
        out[line] = ix[k]
    return out


_EXACT = 2 ** 53


def exact_lines(values):
    """`values` (..., n), n > 0, as a C-contiguous float64 (lines, n) block that compares as `values`
    does: floats and integers within 2**53 as they are (float64 holds them exactly), larger
    int64 by their rank among the block's values, which keeps their order and their ties."""
    values = np.asarray(values)
    values = values.reshape(-1, values.shape[-1])
    if values.dtype.kind in "iu" and values.size and (values.min() < -_EXACT or values.max() > _EXACT):
        values = np.unique(values, return_inverse=True)[1].reshape(values.shape)
    return np.ascontiguousarray(values, np.float64)
