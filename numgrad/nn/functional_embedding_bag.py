"""embedding_bag: the sum, mean or max of the embedding rows of each bag of indices, without
making the (indices, dim) rows' intermediate per bag: one lookup, then one segment reduction
(index_add for sum and mean, scatter_reduce's amax for max)."""
import numpy as np

from .. import creation, dtypes
from ..ops.index import index_add
from ..ops.named import named
from ..ops.scatter_reduce import scatter_reduce
from ..ops.untracked import to_host
from ..tensor import Tensor


def _check_python_arguments(input, weight, offsets, per_sample_weights):
    """torch's F.embedding_bag checks, in its order, before the mode's."""
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is "
                             "a mini-batch of fixed length sequences. However, found offsets of "
                             f"type {type(offsets)}")
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.ndim}")


def _check_kernel_arguments(input, weight, offsets, per_sample_weights):
    """The checks of torch's embedding_bag kernel: the dtypes."""
    for tensor in (input,) if offsets is None else (input, offsets):
        if tensor.dtype not in (dtypes.int64, dtypes.int32):
            raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                               f"following scalar types: Long, Int; but got {tensor.type()} "
                               f"instead (while checking arguments for embedding_bag)")
    if not dtypes.is_floating(weight.dtype):
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have one of the "
                           f"following scalar types: Half, BFloat16, Float, Double; but got "
                           f"{weight.type()} instead (while checking arguments for embedding_bag)")
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have the same type as "
                           f"tensor for argument #1 'per_sample_weights'; but type "
                           f"{weight.type()} does not equal {per_sample_weights.type()} (while "
                           f"checking arguments for embedding_bag)")


def _bags(input, offsets, include_last_offset):
    """The flat indices and the bag of each, and the number of bags."""
    index = to_host(input._data)
    if index.ndim == 2:
        count, length = index.shape
        return index.reshape(-1), np.repeat(np.arange(count), length), count
    starts = np.asarray(to_host(offsets._data), np.int64).reshape(-1)
    if include_last_offset and starts.size < 1:
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    if starts.size and starts[0] != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {starts[0]}\n"
                           f"[ {offsets.type()}{{}} ]")
    if starts.size and starts[-1] > index.size:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {index.size} but "
                           f"got offsets[-1] of {starts[-1]}")
    if include_last_offset:
        starts, count = starts[:-1], starts.size - 1
    else:
        count = starts.size
    if count == 0:          # no bags: the indices are not read
        return index[:0], np.zeros(0, np.int64), 0
    # the bag of element k: the last start at or before k
    bag = np.searchsorted(starts, np.arange(index.size), side="right") - 1
    return index, bag, count


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """Per bag (a row of a 2-D input, or input[offsets[i]:offsets[i + 1]] of a 1-D one), the sum,
    mean or max of weight's rows at its indices; entries equal to padding_idx are left out, an
    empty bag gives zeros. per_sample_weights scales each row (mode="sum" only).

    >>> import numgrad as ng
    >>> import numgrad.nn.functional as F
    >>> F.embedding_bag(ng.tensor([1, 2, 4]), ng.arange(15.0).reshape(5, 3), ng.tensor([0, 2]))
    tensor([[ 4.5000,  5.5000,  6.5000],
            [12.0000, 13.0000, 14.0000]])
    """
    # torch looks at the input and offsets before the mode, and its kernel after
    _check_python_arguments(input, weight, offsets, per_sample_weights)
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    _check_kernel_arguments(input, weight, offsets, per_sample_weights)
    index, bag, count = _bags(input, offsets, include_last_offset)
    rows = weight.shape[0]
    bad = np.flatnonzero((index < 0) | (index >= rows))
    if bad.size:
        raise RuntimeError(f"Index {bad[0]} of input takes value {index[bad[0]]} which is not in "
                           f"the valid range [0, {rows})")
    # (functional.py imports this module before these)
    from .functional import _renorm_rows, embedding
    if max_norm is not None:
        # torch renorms the rows of every index, padding_idx's too
        _renorm_rows(weight, np.unique(index), max_norm, norm_type)
    keep = np.ones(index.size, np.bool_) if padding_idx is None else \
        index != padding_idx % rows
    every_index, index, bag = index, index[keep], bag[keep]
    picked = embedding(Tensor._make(index, False), weight, sparse=sparse)
    if scale_grad_by_freq and picked.requires_grad:
        scale = _frequency_scale(every_index, index).astype(weight.dtype)[:, None]
        # the same values, each row's gradient scaled as torch's kernel scales it
        picked = picked.detach() + (picked - picked.detach()) * Tensor._make(
            scale, False).to(weight.device)
    if per_sample_weights is not None:
        if per_sample_weights.ndim == 2:
            # torch's F.embedding_bag flattens the weights of 2-d bags (a ViewBackward0 edge)
            per_sample_weights = per_sample_weights.reshape(-1)
        picked = picked * per_sample_weights[Tensor._make(np.flatnonzero(keep),
                                                          False)].unsqueeze(1)
    return named(_reduce_bags(picked, bag, count, mode, weight), "EmbeddingBagBackward0",
                 inputs=(weight, per_sample_weights), view_of_intermediate=True)


def _frequency_scale(every_index, index):
    """The factor scale_grad_by_freq puts on each picked row's gradient, as torch 2.13's CPU
    kernel computes it: it walks the distinct indices in order and divides the gradient of the
    g-th by the count of the g-th smallest entry of the sorted input (counts[indices[g]], where
    its own count was meant), so only the smallest index is scaled by its own frequency. Counts
    include padding_idx's entries, as torch's do."""
    values, counts = np.unique(every_index, return_counts=True)
    group = np.searchsorted(values, index)
    return 1.0 / counts[np.searchsorted(values, np.sort(every_index)[group])]


def _reduce_bags(picked, bag, count, mode, weight):
    """The rows picked for each bag, reduced per bag (bag: each row's bag)."""
    zeros = creation.zeros(count, weight.shape[1], dtype=weight.dtype, device=weight.device)
    if mode == "max":
        where = np.broadcast_to(bag[:, None], picked.shape)
        return scatter_reduce(zeros, 0, Tensor._make(np.ascontiguousarray(where), False), picked,
                              "amax", include_self=False)
    total = index_add(zeros, 0, Tensor._make(bag, False), picked)
    if mode == "sum":
        return total
    sizes = np.maximum(np.bincount(bag, minlength=count), 1).astype(weight.dtype)
    return total / Tensor._make(sizes[:, None], False).to(weight.device)
