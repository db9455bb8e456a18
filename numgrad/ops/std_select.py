"""torch's CPU topk (TopKImpl.h) with the libstdc++ algorithms it calls, ported as they are:
std::partial_sort when k is small beside the line (k * 64 <= n), else std::nth_element and,
for sorted=True, std::sort of the k - 1 before the k-th. None is stable, so which of equal
values topk returns, and in which order, is wherever these leave them."""
import math


def topk_line(values, k, largest, sorted_):
    """The original indices of torch's topk of one line (a list of Python numbers), in its
    order."""
    n = len(values)
    if k == 0:
        return []
    if largest:
        def before(a, b):          # NaN first, as torch's topk
            return (math.isnan(a[0]) and not math.isnan(b[0])) or a[0] > b[0]
    else:
        def before(a, b):
            return (not math.isnan(a[0]) and math.isnan(b[0])) or a[0] < b[0]
    queue = [(v, j) for j, v in enumerate(values)]
    if k * 64 <= n:
        _heap_select(queue, 0, k, n, before)
        _sort_heap(queue, 0, k, before)
    else:
        _introselect(queue, 0, k - 1, n, 2 * _lg(n), before)
        if sorted_:
            _sort(queue, 0, k - 1, before)
    return [j for _, j in queue[:k]]


def _lg(n):
    return n.bit_length() - 1


# ---- heaps (std::__make_heap, __adjust_heap, __push_heap, __pop_heap, __sort_heap) -----------
def _push_heap(q, first, hole, top, value, comp):
    parent = (hole - 1) // 2
    while hole > top and comp(q[first + parent], value):
        q[first + hole] = q[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[first + hole] = value


def _adjust_heap(q, first, hole, length, value, comp):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if comp(q[first + child], q[first + child - 1]):
            child -= 1
        q[first + hole] = q[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        q[first + hole] = q[first + child - 1]
        hole = child - 1
    _push_heap(q, first, hole, top, value, comp)


def _make_heap(q, first, last, comp):
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(q, first, parent, length, q[first + parent], comp)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(q, first, last, result, comp):
    value = q[result]
    q[result] = q[first]
    _adjust_heap(q, first, 0, last - first, value, comp)


def _heap_select(q, first, middle, last, comp):
    _make_heap(q, first, middle, comp)
    for i in range(middle, last):
        if comp(q[i], q[first]):
            _pop_heap(q, first, middle, i, comp)


def _sort_heap(q, first, last, comp):
    while last - first > 1:
        last -= 1
        _pop_heap(q, first, last, last, comp)


# ---- partitions and insertion sorts --------------------------------------------------------------
def _move_median_to_first(q, result, a, b, c, comp):
    if comp(q[a], q[b]):
        if comp(q[b], q[c]):
            pick = b
        elif comp(q[a], q[c]):
            pick = c
        else:
            pick = a
    elif comp(q[a], q[c]):
        pick = a
    elif comp(q[b], q[c]):
        pick = c
    else:
        pick = b
    q[result], q[pick] = q[pick], q[result]


def _unguarded_partition(q, first, last, pivot, comp):
    while True:
        while comp(q[first], q[pivot]):
            first += 1
        last -= 1
        while comp(q[pivot], q[last]):
            last -= 1
        if not first < last:
            return first
        q[first], q[last] = q[last], q[first]
        first += 1


def _partition_pivot(q, first, last, comp):
    mid = first + (last - first) // 2
    _move_median_to_first(q, first, first + 1, mid, last - 1, comp)
    return _unguarded_partition(q, first + 1, last, first, comp)


def _linear_insert(q, last, comp):
    value = q[last]
    nxt = last - 1
    while comp(value, q[nxt]):
        q[last] = q[nxt]
        last = nxt
        nxt -= 1
    q[last] = value


def _insertion_sort(q, first, last, comp):
    if first == last:
        return
    for i in range(first + 1, last):
        if comp(q[i], q[first]):
            value = q[i]
            q[first + 1:i + 1] = q[first:i]
            q[first] = value
        else:
            _linear_insert(q, i, comp)


def _introselect(q, first, nth, last, depth, comp):
    while last - first > 3:
        if depth == 0:
            _heap_select(q, first, nth + 1, last, comp)
            q[first], q[nth] = q[nth], q[first]
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, comp)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last, comp)


_THRESHOLD = 16


def _sort(q, first, last, comp):
    if first == last:
        return
    _introsort_loop(q, first, last, 2 * _lg(last - first), comp)
    if last - first > _THRESHOLD:
        _insertion_sort(q, first, first + _THRESHOLD, comp)
        for i in range(first + _THRESHOLD, last):
            _linear_insert(q, i, comp)
    else:
        _insertion_sort(q, first, last, comp)


def _introsort_loop(q, first, last, depth, comp):
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_select(q, first, last, last, comp)      # std::__partial_sort(first, last, last)
            _sort_heap(q, first, last, comp)
            return
        depth -= 1
        cut = _partition_pivot(q, first, last, comp)
        _introsort_loop(q, cut, last, depth, comp)
        last = cut
