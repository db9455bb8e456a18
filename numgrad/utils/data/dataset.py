"""Datasets as torch.utils.data's: map-style (Dataset, TensorDataset, StackDataset,
ConcatDataset, Subset), iterable-style (IterableDataset, ChainDataset), and random_split."""
import bisect
import itertools
import math
import warnings

from ...tensor import Tensor
from .sampler import _rng


class Dataset:
    """A map-style dataset: subclasses define __getitem__(index) and, for the default samplers,
    __len__() (not defined here, so len() of a dataset without one is a TypeError, as in torch).
    `a + b` concatenates two datasets.

    >>> len(TensorDataset(ng.zeros(2)) + TensorDataset(ng.zeros(3)))
    5
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples: subclasses define __iter__. DataLoader reads it in order, batching
    as it goes. `a + b` chains two streams."""

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are the rows (first index) of the given tensors.

    >>> import numgrad as ng
    >>> data = TensorDataset(ng.arange(6.0).reshape(3, 2), ng.tensor([0, 1, 0]))
    >>> data[1]
    (tensor([2., 3.]), tensor(1))
    """

    def __init__(self, *tensors):
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")     # torch's assert
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]

    def rows(self, indices):
        """The samples at an array of indices, batched as default_collate would (a list), with
        one indexing per tensor."""
        return [t[indices] if t.requires_grad else Tensor._make(t._data[indices], False)
                for t in self.tensors]


class StackDataset(Dataset):
    """Samples are the same index of several datasets of one length: a tuple of theirs
    (datasets given by position) or a dict (given by name).

    >>> StackDataset(range(3), range(10, 13))[1], StackDataset(x=range(3), y=range(10, 13))[2]
    ((1, 11), {'x': 2, 'y': 12})
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self.datasets = args or kwargs
        parts = args or list(kwargs.values())
        self._length = len(parts[0])
        if any(len(dataset) != self._length for dataset in parts):
            raise ValueError("Size mismatch between datasets")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """The datasets one after another. cumulative_sizes[i] is the length of the first i + 1.

    >>> data = ConcatDataset([range(3), range(10, 14)])
    >>> data.cumulative_sizes, data[3], data[-1]
    ([3, 7], 10, 13)
    """

    @staticmethod
    def cumsum(sequence):
        """The running totals of the lengths of sequence's datasets."""
        return list(itertools.accumulate(len(dataset) for dataset in sequence))

    def __init__(self, datasets):
        self.datasets = list(datasets)
        # torch checks these with assert statements, hence AssertionError.
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(dataset, IterableDataset) for dataset in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[dataset_idx - 1] if dataset_idx else 0
        return self.datasets[dataset_idx][idx - start]


class ChainDataset(IterableDataset):
    """The streams of several IterableDatasets one after another, read as it goes."""

    def __init__(self, datasets):
        self.datasets = datasets

    def _each(self):
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield dataset

    def __iter__(self):
        for dataset in self._each():
            yield from dataset

    def __len__(self):
        return sum(len(dataset) for dataset in self._each())


class Subset(Dataset):
    """The samples of dataset at the given indices, in their order.

    >>> Subset(range(10, 20), [3, 1])[1]
    11
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Split dataset into non-overlapping Subsets of the given lengths, at a random permutation
    drawn from generator (a NumPy Generator) or numgrad's generator. Fractions that sum to 1 give
    floor(fraction * len(dataset)) each, and what that leaves is dealt one at a time from the
    first split on.

    >>> [len(part) for part in random_split(range(10), [0.33, 0.33, 0.34])]
    [4, 3, 3]
    """
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, fraction in enumerate(lengths):
            if fraction < 0 or fraction > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(math.floor(len(dataset) * fraction))
        for i in range(len(dataset) - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty "
                              f"dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = _rng(generator).permutation(sum(lengths)).tolist()
    return [Subset(dataset, order[end - length:end])
            for end, length in zip(itertools.accumulate(lengths), lengths)]
