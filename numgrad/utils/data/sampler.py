"""Samplers: the orders in which DataLoader reads a map-style dataset, as torch.utils.data's.

Random samplers draw from `generator` (a NumPy Generator) when given, else from numgrad's
generator, so numgrad.manual_seed makes their orders reproducible (not torch's numbers)."""
import itertools

import numpy as np

from ... import creation


def _rng(generator):
    return creation.generator() if generator is None else generator


class Sampler:
    """Base class: subclasses define __iter__ (indices, or lists of them for a batch sampler)
    and, for len(DataLoader), __len__."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1.

    >>> list(SequentialSampler(range(3)))
    [0, 1, 2]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A new random order of the indices each iteration: without replacement, permutations
    (num_samples beyond the length starts another); with replacement, num_samples independent
    draws.

    >>> sorted(RandomSampler(range(4)))
    [0, 1, 2, 3]
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        """num_samples when given, else the dataset's length (read again each time)."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        rng = _rng(self.generator)
        if self.replacement:
            return iter(rng.integers(0, n, self.num_samples).tolist())
        whole, part = divmod(self.num_samples, n)
        orders = [rng.permutation(n) for _ in range(whole)]
        if part:
            orders.append(rng.permutation(n)[:part])
        return iter(np.concatenate(orders).tolist())

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a new random order each iteration.

    >>> sorted(SubsetRandomSampler([7, 3, 5]))
    [3, 5, 7]
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _rng(self.generator).permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices of weights, each drawn with probability proportional to its weight
    (weights need not sum to one); without replacement each index at most once, and
    zero-weight ones only after all the others. Errors in the weights show when iterating, as
    torch's multinomial raises them.

    >>> list(WeightedRandomSampler([0.0, 1.0, 0.0], 3))
    [1, 1, 1]
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights = creation.as_tensor(weights, dtype=np.float64)
        if weights.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        weights = self.weights.detach().numpy()
        n = len(weights)
        if not self.replacement and self.num_samples > n:
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                               "replacement")
        bad = ~(weights >= 0) | np.isinf(weights)
        if bad.any():
            # torch's kernel for several draws with replacement words this per entry.
            if not (self.replacement and self.num_samples > 1):
                raise RuntimeError("probability tensor contains either `inf`, `nan` or "
                                   "element < 0")
            if np.isinf(weights[bad.argmax()]):
                raise RuntimeError("invalid multinomial distribution (encountering probability "
                                   "entry = infinity or NaN)")
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)")
        total = weights.sum()
        if total == 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        rng = _rng(self.generator)
        if self.replacement:
            return iter(rng.choice(n, self.num_samples, p=weights / total).tolist())
        # Without replacement: the first num_samples to arrive when each index arrives after an
        # exponential time of rate its weight. As in torch, zero weights come last (in order)
        # rather than being an error.
        with np.errstate(divide="ignore"):
            arrivals = rng.exponential(size=n) / weights
        return iter(np.argsort(arrivals, kind="stable")[:self.num_samples].tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of batch_size indices from sampler (any iterable of indices); the last may be
    shorter, or with drop_last is left out.

    >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        indices = iter(self.sampler)
        while batch := list(itertools.islice(indices, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return -(-len(self.sampler) // self.batch_size)
