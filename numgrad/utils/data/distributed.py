"""DistributedSampler: each rank's share of a dataset's indices, as torch.utils.data.distributed."""
import math

import numpy as np

from .sampler import Sampler


class DistributedSampler(Sampler):
    """Iterate over the indices of this rank's share of the dataset: every num_replicas-th index
    of one order, starting at rank. Every rank gets the same number, num_samples: without
    drop_last the order is padded by repeating its start, with drop_last its tail is cut. With
    shuffle, the order is a permutation drawn from seed + epoch, the same on every rank: call
    set_epoch(epoch) before each epoch for a new one. num_replicas and rank default to the world's
    (numgrad.distributed.init() first).

    >>> sampler = DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False)
    >>> list(sampler)
    [1, 3, 0]
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            from ... import distributed
            num_replicas = distributed.get_world_size() if num_replicas is None else num_replicas
            rank = distributed.get_rank() if rank is None else rank
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.shuffle = shuffle
        self.seed = seed
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            indices = np.random.default_rng(self.seed + self.epoch).permutation(n)
        else:
            indices = np.arange(n)
        if self.drop_last:
            indices = indices[:self.total_size]
        else:
            indices = np.resize(indices, self.total_size)   # repeats the order to pad it
        return iter(indices[self.rank:self.total_size:self.num_replicas].tolist())

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Use the order of this epoch: the same on every rank, another for each epoch."""
        self.epoch = epoch
