"""torch's CPU selection (quick_select_template in ATen's SortingUtils.h), ported as it is: the
index kthvalue reports among equal values is wherever this partitioning leaves them, which no
stable or reverse-stable sort reproduces."""
import math


def _after(a, b):
    """torch's gt_or_nan: a sorts after b (NaN after every number)."""
    return (math.isnan(a) and not math.isnan(b)) or a > b


def quick_select_index(row, k):
    """The original index of the element that torch's quick select leaves at position k (from
    0) of a copy of `row` (a 1-d array: its Python numbers, so int64 keeps every bit)."""
    values = row.tolist()
    indices = list(range(len(values)))

    def swap(i, j):
        values[i], values[j] = values[j], values[i]
        indices[i], indices[j] = indices[j], indices[i]

    low, high = 0, len(values) - 1
    while True:
        if high <= low:
            return indices[k]
        if high == low + 1:
            if _after(values[low], values[high]):
                swap(low, high)
            return indices[k]
        # median of three as the pivot, moved to values[low]
        swap(low + (high - low) // 2, low + 1)
        if _after(values[low + 1], values[high]):
            swap(low + 1, high)
        if _after(values[low], values[high]):
            swap(low, high)
        if _after(values[low + 1], values[low]):
            swap(low + 1, low)
        i, j, pivot = low + 1, high, values[low]
        while True:
            i += 1
            while _after(pivot, values[i]):
                i += 1
            j -= 1
            while _after(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(low, j)
        if j <= k:
            low = i
        if j >= k:
            high = j - 1
