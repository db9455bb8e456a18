"""Circular padding as torch's kernel builds it (_pad_circular): the (cropped) input copied into
the middle of a new tensor, then each padded dim's ends copied from its other end, left before
right, the last dim first. The result's node is the last copy's CopySlices, as torch's."""
from ..creation import zeros


def pad_circular(input, widths, padded):
    """input padded circularly by widths[d] = (left, right) per dim (negative amounts crop) over
    its last `padded` dims; the amounts are checked already."""
    shape = [size + left + right for size, (left, right) in zip(input.shape, widths)]
    out = zeros(*shape, dtype=input.dtype, device=input.device)
    inner = tuple(slice(max(left, 0), size - max(right, 0))
                  for (left, right), size in zip(widths, shape))
    # torch slices the input once per padded dim, the last first (a SliceBackward0 each)
    kept = input
    for dim in range(input.ndim - 1, input.ndim - 1 - padded, -1):
        left, right = widths[dim]
        start = max(-left, 0)
        kept = kept.narrow(dim, start, input.shape[dim] - max(-right, 0) - start)
    out[inner].copy_(kept)
    everything = slice(None)
    for dim in range(input.ndim - 1, -1, -1):
        left, right = widths[dim]
        size = shape[dim]
        before = (everything,) * dim
        if left > 0:
            source = slice(size - left - max(right, 0), size - max(right, 0))
            out[before + (slice(0, left),)].copy_(out[before + (source,)])
        if right > 0:
            source = slice(max(left, 0), max(left, 0) + right)
            out[before + (slice(size - right, size),)].copy_(out[before + (source,)])
    return out
