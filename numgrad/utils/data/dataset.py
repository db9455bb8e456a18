"""Dataset and TensorDataset."""
from ...tensor import Tensor


class Dataset:
    """A map-style dataset: subclasses define __getitem__(index) and __len__()."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __len__(self):
        raise NotImplementedError("Subclasses of Dataset should implement __len__.")


class TensorDataset(Dataset):
    """Samples are the rows (first index) of the given tensors.

    >>> import numgrad as ng
    >>> data = TensorDataset(ng.arange(6.0).reshape(3, 2), ng.tensor([0, 1, 0]))
    >>> data[1]
    (tensor([2., 3.]), tensor(1))
    """

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise ValueError("Size mismatch between tensors")
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
