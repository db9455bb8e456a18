"""Batches of variable-length sequences: padded (one tensor, filler past each end) and packed
(the time steps' live rows back to back, as recurrent layers consume them). Everything is built
from cat, slice copies and indexing, as torch's kernels do, so gradients flow through packing and
padding and the nodes are torch's."""
from collections import namedtuple
from collections.abc import Iterable
from itertools import groupby

import numpy as np

from ... import dtypes
from ...creation import arange, as_tensor, full
from ...ops import cat
from ...ops.named import named
from ...tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices",
                                                    "unsorted_indices"])):
    """data: every sequence's step t, for t = 0, 1, ..., the longest sequences first;
    batch_sizes[t]: how many sequences are still running at step t. Made by pack_padded_sequence
    and pack_sequence, not by hand.

    >>> import numgrad as ng
    >>> from numgrad.nn.utils.rnn import pack_sequence
    >>> pack_sequence([ng.tensor([1, 2, 3]), ng.tensor([4, 5]), ng.tensor([6])])
    PackedSequence(data=tensor([1, 4, 6, 2, 5, 3]), batch_sizes=tensor([3, 2, 1]),
                   sorted_indices=None, unsorted_indices=None)
    """

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            # torch's legacy form PackedSequence((data, batch_sizes))
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """data.to(...); self when nothing changes, the indices follow data to its device."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        moved = [None if t is None else t.to(data.device)
                 for t in (self.sorted_indices, self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, *moved)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to(f"cuda:{device}" if isinstance(device, int) else device or "cuda")

    def double(self):
        return self.to(dtype=dtypes.float64)

    def float(self):
        return self.to(dtype=dtypes.float32)

    def long(self):
        return self.to(dtype=dtypes.int64)

    def int(self):
        return self.to(dtype=dtypes.int32)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The permutation that undoes permutation (None stays None)."""
    if permutation is None:
        return None
    perm = np.asarray(permutation.cpu()._data)
    inverse = np.empty_like(perm)
    inverse[perm] = np.arange(perm.size)
    return as_tensor(inverse).to(permutation.device)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shapes (L_i, *) into (T, B, *) (or (B, T, *) when batch_first), each
    padded with padding_value to the longest length T, after its end or (padding_side='left')
    before its start. The result has the first sequence's dtype.

    >>> import numgrad as ng
    >>> from numgrad.nn.utils.rnn import pad_sequence
    >>> pad_sequence([ng.tensor([1, 2, 3]), ng.tensor([4])], batch_first=True)
    tensor([[1, 2, 3],
            [4, 0, 0]])
    """
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of "
                           f"type: {type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError("Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    first = sequences[0]
    trailing = tuple(first.shape[1:])
    longest = max(seq.shape[0] for seq in sequences)
    shape = (len(sequences), longest) if batch_first else (longest, len(sequences))
    out = full((*shape, *trailing), padding_value, dtype=first.dtype, device=first.device)
    # as torch's kernel: each sequence copied into its column of the filler (CopySlices nodes),
    # the copy broadcasting it and casting it to the first one's dtype
    for i, seq in enumerate(sequences):
        _fit_trailing(seq, trailing)
        start = longest - seq.shape[0] if padding_side == "left" else 0
        column = out[i] if batch_first else out[:, i]
        column[start:start + seq.shape[0]].copy_(seq)
    return out


def _fit_trailing(seq, trailing):
    """seq broadcast to (len(seq), *trailing) as torch's copy into the output broadcasts it, or
    the error that copy gives."""
    target = (seq.shape[0], *trailing)
    shape = tuple(seq.shape)
    for i in range(1, max(len(target), len(shape)) + 1):
        a = target[-i] if i <= len(target) else 1
        b = shape[-i] if i <= len(shape) else 1
        if a != b and b != 1:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                               f"at non-singleton dimension {len(target) - i}")
    return seq if shape == target else seq.expand(target)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences pad_sequence was given, cut back to lengths. As in torch, a
    time-first padded_sequences is transposed in place.

    >>> import numgrad as ng
    >>> from numgrad.nn.utils.rnn import unpad_sequence
    >>> unpad_sequence(ng.tensor([[1, 2, 3], [4, 0, 0]]), ng.tensor([3, 1]), batch_first=True)
    [tensor([1, 2, 3]), tensor([4])]
    """
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    steps = arange(padded_sequences.shape[1], device=lengths.device)
    return [seq[steps < length] for seq, length in zip(padded_sequences, lengths, strict=True)]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T, B, *) (or (B, T, *) when batch_first) whose sequence b has
    lengths[b] steps. enforce_sorted: lengths must already be decreasing; otherwise the batch
    is sorted here and the PackedSequence remembers the order.

    >>> import numgrad as ng
    >>> from numgrad.nn.utils.rnn import pack_padded_sequence
    >>> seq = ng.tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]])
    >>> pack_padded_sequence(seq, [2, 1, 3], batch_first=True, enforce_sorted=False)
    PackedSequence(data=tensor([4, 1, 3, 5, 2, 6]), batch_sizes=tensor([3, 2, 1]),
                   sorted_indices=tensor([2, 0, 1]), unsorted_indices=tensor([1, 2, 0]))
    """
    if isinstance(lengths, Tensor):
        lengths = lengths.to(dtypes.int64)
    else:
        lengths = as_tensor(np.asarray(lengths).astype(np.int64))
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = lengths.sort(descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack(input, lengths, batch_first)
    # one node over the (sorted) padded input, as torch's _pack_padded_sequence
    data = named(data, "PackPaddedSequenceBackward0", inputs=(input,))
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _pack(input, lengths, batch_first):
    """torch's _pack_padded_sequence: the block of steps [previous length, l) of the l-long
    sequences and those longer, for each distinct length l from the shortest up."""
    if batch_first:
        input = input.transpose(0, 1)
    if lengths.ndim != 1:
        raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.ndim}D cpu Long tensor")
    batch_size = input.size(1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if len(lengths) != batch_size:
        raise RuntimeError("Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lengths)} (batch_size={batch_size})")
    lens = [int(n) for n in np.asarray(lengths._data)]
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element "
                           "in 'lengths' that is <= 0")
    if any(a < b for a, b in zip(lens, lens[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    blocks, batch_sizes, previous = [], [], 0
    for i, length in enumerate(reversed(lens)):
        if length > previous:
            running = batch_size - i
            block = input[previous:length, :running]
            blocks.append(block.reshape(-1, *input.shape[2:]))
            batch_sizes += [running] * (length - previous)
            previous = length
    return cat(blocks), as_tensor(np.array(batch_sizes, dtype=np.int64))


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo pack_padded_sequence: (padded batch, lengths), in the batch's original order, the
    time dimension total_length long when given.

    >>> import numgrad as ng
    >>> from numgrad.nn.utils.rnn import pack_sequence, pad_packed_sequence
    >>> packed = pack_sequence([ng.tensor([1, 2]), ng.tensor([3, 4, 5])], enforce_sorted=False)
    >>> pad_packed_sequence(packed, batch_first=True)
    (tensor([[1, 2, 0],
            [3, 4, 5]]), tensor([2, 3]))
    """
    batch_sizes = np.asarray(sequence.batch_sizes._data).astype(np.int64)
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {steps}")
        steps = total_length
    data = sequence.data
    batch = int(batch_sizes[0])
    features = data.shape[1:]
    output = full((steps, batch, *features), padding_value, dtype=data.dtype, device=data.device)
    # as torch's kernel: each run of steps with one batch size is one block of data, copied into
    # its corner of the filler (so the result's node is CopySlices, as torch's)
    step = start = 0
    for size, run in groupby(batch_sizes.tolist()):
        length = len(list(run))
        block = data[start:start + length * size].view(length, size, *features)
        output[step:step + length, :size].copy_(block)
        step, start = step + length, start + length * size
    lengths = as_tensor((batch_sizes[None, :] > np.arange(batch)[:, None]).sum(1))
    if batch_first:
        output = output.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        output = output.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.cpu()]
    return output, lengths


def pack_sequence(sequences, enforce_sorted=True):
    """pack_padded_sequence of pad_sequence(sequences).

    >>> import numgrad as ng
    >>> from numgrad.nn.utils.rnn import pack_sequence
    >>> pack_sequence([ng.tensor([1]), ng.tensor([2, 3])], enforce_sorted=False).data
    tensor([2, 1, 3])
    """
    lengths = as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in their original order.

    >>> import numgrad as ng
    >>> from numgrad.nn.utils.rnn import pack_sequence, unpack_sequence
    >>> unpack_sequence(pack_sequence([ng.tensor([1, 2]), ng.tensor([3])]))
    [tensor([1, 2]), tensor([3])]
    """
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
