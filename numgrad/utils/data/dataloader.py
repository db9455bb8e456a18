"""DataLoader: batches of a dataset, read in the order its sampler gives, as torch's."""
import itertools
import math

import numpy as np

from .collate import default_collate, default_convert
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler


def get_worker_info():
    """None: numgrad loads every batch in the main process, which is where torch returns None
    too."""
    return None


class _InfiniteConstantSampler(Sampler):
    """A sampler for an IterableDataset, which takes no indices: None, forever."""

    def __iter__(self):
        return itertools.repeat(None)


class DataLoader:
    """Iterate over a dataset in batches, as torch.utils.data.DataLoader.

    The order comes from sampler (any iterable of indices, such as DistributedSampler), or
    batch_sampler (of lists of indices), or else is sequential, or with shuffle a new random order
    every epoch drawn from `generator` (a NumPy Generator) or numgrad's generator, so
    numgrad.manual_seed makes it reproducible. batch_size=None reads single samples (converted by
    default_convert, or collate_fn). An IterableDataset is read as its stream goes.

    num_workers > 0, pin_memory, timeout, worker_init_fn, prefetch_factor, persistent_workers
    and multiprocessing_context are accepted (and checked as torch checks them) so torch scripts
    run, but every batch is loaded in the main process: worker_init_fn is not called and
    get_worker_info() returns None. A TensorDataset with the default collate is batched with one
    indexing per tensor, not one per sample.

    >>> import numgrad as ng
    >>> data = TensorDataset(ng.arange(5.0), ng.arange(5))
    >>> [y.tolist() for _, y in DataLoader(data, batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    _initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self._initialized = True

    def __setattr__(self, attr, value):
        # The samplers were built from these: changing one would leave them out of step.
        if self._initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                          "dataset", "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(attr, value)

    def __iter__(self):
        if self._iterable:
            return self._iter_stream()
        if self.batch_sampler is None:
            return (self.collate_fn(self.dataset[index]) for index in self.sampler)
        return (self._fetch(indices) for indices in self.batch_sampler)

    def _iter_stream(self):
        samples = iter(self.dataset)
        if self.batch_size is None:
            yield from (self.collate_fn(sample) for sample in samples)
            return
        while batch := list(itertools.islice(samples, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield self.collate_fn(batch)

    def _fetch(self, indices):
        if isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate:
            return self.dataset.rows(np.asarray(indices, np.int64))
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.collate_fn(self.dataset.__getitems__(indices))
        return self.collate_fn([self.dataset[index] for index in indices])

    def __len__(self):
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is None:
                return length
            if self.drop_last:
                return length // self.batch_size
            return math.ceil(length / self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)
