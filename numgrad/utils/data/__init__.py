"""numgrad.utils.data: datasets and a batching DataLoader, as in torch.utils.data."""
from .dataloader import DataLoader, default_collate
from .dataset import Dataset, TensorDataset

__all__ = ["Dataset", "TensorDataset", "DataLoader", "default_collate"]
from .distributed import DistributedSampler
