"""DataLoader: batches of a dataset, in order or shuffled by a seeded generator."""
import numpy as np

from ... import creation
from ...tensor import Tensor
from .dataset import TensorDataset


def default_collate(batch):
    """Stack a list of samples into one batch, as torch does: tensors and arrays are stacked,
    Python ints become int64 and floats float64 tensors, tuples/lists/dicts are collated
    field by field.

    >>> import numgrad as ng
    >>> default_collate([(ng.ones(2), 0), (ng.zeros(2), 1)])
    [tensor([[1., 1.],
            [0., 0.]]), tensor([0, 1])]
    """
    first = batch[0]
    if isinstance(first, Tensor):
        from ...ops.shape import stack
        return stack(list(batch), 0)
    if isinstance(first, np.ndarray):
        return Tensor._make(np.stack(batch), False)
    if isinstance(first, (bool, np.bool_)):
        return Tensor._make(np.array(batch, np.bool_), False)
    if isinstance(first, (int, np.integer)):
        return Tensor._make(np.array(batch, np.int64), False)
    if isinstance(first, (float, np.floating)):
        return Tensor._make(np.array(batch, np.float64), False)
    if isinstance(first, str):
        return list(batch)
    if isinstance(first, dict):
        return {key: default_collate([sample[key] for sample in batch]) for key in first}
    if isinstance(first, (tuple, list)):
        if any(len(sample) != len(first) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(field)) for field in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                    f"or lists; found {type(first).__name__}")


class DataLoader:
    """Iterate over a dataset in batches.

    shuffle draws a new order every epoch from `generator` (a numpy Generator) or numgrad's
    generator, so numgrad.manual_seed makes it reproducible; a sampler (an iterable of indices,
    such as DistributedSampler) gives the order instead. A TensorDataset with the default
    collate is batched with one indexing per tensor, not one per sample.

    >>> import numgrad as ng
    >>> data = TensorDataset(ng.arange(5.0), ng.arange(5))
    >>> [y.tolist() for _, y in DataLoader(data, batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, drop_last=False,
                 collate_fn=None, generator=None):
        if batch_size is not None and batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.sampler = sampler
        self.drop_last = drop_last
        self.collate_fn = collate_fn
        self.generator = generator

    def _order(self):
        if self.sampler is not None:
            return np.fromiter(iter(self.sampler), np.int64)
        n = len(self.dataset)
        if not self.shuffle:
            return np.arange(n)
        rng = self.generator if self.generator is not None else creation.generator()
        return rng.permutation(n)

    def __iter__(self):
        order = self._order()
        if self.batch_size is None:
            for i in order:
                yield self.dataset[int(i)]
            return
        fast = isinstance(self.dataset, TensorDataset) and self.collate_fn is None
        collate = self.collate_fn or default_collate
        for start in range(0, len(order), self.batch_size):
            indices = order[start:start + self.batch_size]
            if self.drop_last and len(indices) < self.batch_size:
                return
            if fast:
                yield self.dataset.rows(indices)
            else:
                yield collate([self.dataset[int(i)] for i in indices])

    def __len__(self):
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
