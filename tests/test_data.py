"""numgrad.utils.data: Dataset, TensorDataset, DataLoader and default_collate."""
import numpy as np
import pytest

import numgrad as ng
from numgrad.utils.data import DataLoader, Dataset, TensorDataset, default_collate


class Squares(Dataset):
    def __len__(self):
        return 7

    def __getitem__(self, i):
        return {"x": ng.tensor([float(i), float(i * i)]), "label": i % 2, "weight": 0.5}


def test_tensor_dataset():
    data = TensorDataset(ng.arange(12.0).reshape(6, 2), ng.arange(6))
    assert len(data) == 6
    x, y = data[2]
    assert x.tolist() == [4.0, 5.0] and y.item() == 2
    with pytest.raises(AssertionError, match="Size mismatch"):
        TensorDataset(ng.zeros(3), ng.zeros(4))


def test_batches_in_order_with_and_without_drop_last():
    data = TensorDataset(ng.arange(10.0), ng.arange(10))
    loader = DataLoader(data, batch_size=4)
    assert len(loader) == 3
    batches = [y.tolist() for _, y in loader]
    assert batches == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    loader = DataLoader(data, batch_size=4, drop_last=True)
    assert len(loader) == 2 and [y.tolist() for _, y in loader] == batches[:2]
    assert [x.item() for x, _ in DataLoader(data, batch_size=None)][:3] == [0.0, 1.0, 2.0]


def test_shuffle_is_seeded_and_new_each_epoch():
    data = TensorDataset(ng.arange(20))
    ng.manual_seed(1)
    loader = DataLoader(data, batch_size=5, shuffle=True)
    first = np.concatenate([b.numpy() for (b,) in loader])
    second = np.concatenate([b.numpy() for (b,) in loader])
    assert sorted(first) == list(range(20)) and not np.array_equal(first, second)
    ng.manual_seed(1)
    again = np.concatenate([b.numpy() for (b,) in loader])
    np.testing.assert_array_equal(first, again)
    own = DataLoader(data, batch_size=5, shuffle=True, generator=np.random.default_rng(3))
    want = np.random.default_rng(3).permutation(20)
    np.testing.assert_array_equal(np.concatenate([b.numpy() for (b,) in own]), want)


def test_collate_of_a_general_dataset():
    batch = next(iter(DataLoader(Squares(), batch_size=3)))
    assert batch["x"].tolist() == [[0, 0], [1, 1], [2, 4]]
    assert batch["label"].dtype == ng.int64 and batch["label"].tolist() == [0, 1, 0]
    assert batch["weight"].dtype == ng.float64
    pairs = default_collate([(np.ones(2), "a"), (np.zeros(2), "b")])
    assert pairs[0].shape == (2, 2) and pairs[1] == ("a", "b")
    custom = DataLoader(Squares(), batch_size=4, collate_fn=len)
    assert list(custom) == [4, 3]


def test_batches_keep_gradients_of_tensors_that_require_them():
    x = ng.arange(6.0).reshape(3, 2).requires_grad_()
    (xb,) = next(iter(DataLoader(TensorDataset(x), batch_size=2)))
    xb.sum().backward()
    assert x.grad.tolist() == [[1, 1], [1, 1], [0, 0]]


def test_sampler_gives_the_order():
    data = TensorDataset(ng.arange(6))
    loader = DataLoader(data, batch_size=2, sampler=[5, 3, 1])
    assert [b.tolist() for (b,) in loader] == [[5, 3], [1]] and len(loader) == 2
    with pytest.raises(ValueError, match="mutually exclusive"):
        DataLoader(data, sampler=[0], shuffle=True)
