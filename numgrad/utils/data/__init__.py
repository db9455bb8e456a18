"""numgrad.utils.data: datasets, samplers and a batching DataLoader, as in torch.utils.data."""
from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset,
                      TensorDataset, random_split)
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split", "Sampler", "SequentialSampler",
           "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
           "DistributedSampler", "DataLoader", "default_collate", "default_convert",
           "get_worker_info"]
