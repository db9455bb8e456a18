"""numgrad.utils.data against torch.utils.data's behaviour: the datasets, random_split, the
samplers, DataLoader's options and errors, default_collate and default_convert. Expected values
were read off torch 2.13; random orders are checked as permutations, reproducible by seed."""
import collections
import re

import numpy as np
import pytest

import numgrad as ng
from numgrad.utils.data import (BatchSampler, ChainDataset, ConcatDataset, DataLoader, Dataset,
                                IterableDataset, RandomSampler, SequentialSampler, StackDataset,
                                Subset, SubsetRandomSampler, TensorDataset, WeightedRandomSampler,
                                default_collate, default_convert, get_worker_info, random_split)

Point = collections.namedtuple("Point", "x y")


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


class SizedStream(Stream):
    def __len__(self):
        return self.n


def raises(error, message):
    return pytest.raises(error, match="^" + re.escape(message) + "$")


# default_collate and default_convert

def test_collate_numbers_keep_torch_dtypes():
    assert default_collate([1.0, 2.5]).dtype == ng.float64
    assert default_collate([1, 2]).dtype == ng.int64
    assert default_collate([True, False]).tolist() == [True, False]
    assert default_collate([True, False]).dtype == ng.bool
    assert default_collate([1, 2.5]).dtype == ng.float32      # an int first: torch.tensor's rules
    assert default_collate([np.float32(1), np.float32(2)]).dtype == ng.float32
    assert default_collate([np.int32(1), np.int32(2)]).dtype == ng.int32
    arrays = default_collate([np.ones(2), np.zeros(2)])
    assert arrays.dtype == ng.float64 and arrays.tolist() == [[1, 1], [0, 0]]


def test_collate_containers():
    assert default_collate(["a", "b"]) == ["a", "b"]
    assert default_collate([b"a", b"b"]) == [b"a", b"b"]
    point = default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert type(point) is Point and point.x.tolist() == [1, 3] and point.y.dtype == ng.float64
    ordered = default_collate([collections.OrderedDict(a=1, b=[2, 3])] * 2)
    assert type(ordered) is collections.OrderedDict
    assert ordered["a"].tolist() == [1, 1]
    assert [t.tolist() for t in ordered["b"]] == [[2, 2], [3, 3]]
    nested = default_collate([(ng.ones(2), {"k": (1, "s")}), (ng.zeros(2), {"k": (2, "t")})])
    assert isinstance(nested, list) and nested[0].shape == (2, 2)
    assert nested[1]["k"][0].tolist() == [1, 2] and nested[1]["k"][1] == ("s", "t")


def test_collate_errors_in_torch_words():
    with raises(TypeError, "default_collate: batch must contain tensors, numpy arrays, numbers, "
                           "dicts or lists; found <class 'object'>"):
        default_collate([object()])
    with raises(TypeError, "default_collate: batch must contain tensors, numpy arrays, numbers, "
                           "dicts or lists; found <U1"):
        default_collate([np.array(["a"])])
    with raises(RuntimeError, "each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with raises(RuntimeError, "stack expects each tensor to be equal size, but got [2] at entry 0 "
                              "and [3] at entry 1"):
        default_collate([ng.ones(2), ng.ones(3)])


def test_default_convert_turns_numpy_into_tensors_only():
    out = default_convert((np.ones(2), 1, "a", np.float64(2), np.str_("s")))
    assert isinstance(out, list) and out[1:3] == [1, "a"] and out[4] == "s"
    assert out[0].dtype == ng.float64 and out[0].tolist() == [1, 1]
    assert out[3].shape == () and out[3].item() == 2.0
    point = default_convert(Point(np.arange(2), 5))
    assert type(point) is Point and point.x.tolist() == [0, 1] and point.y == 5
    assert default_convert({"a": np.int64(3)})["a"].dtype == ng.int64
    text = np.array(["a"])
    assert default_convert(text) is text


# datasets and random_split

def test_concat_dataset():
    data = ConcatDataset([range(3), range(10, 14)])
    assert data.cumulative_sizes == [3, 7] and len(data) == 7
    assert [data[i] for i in (0, 2, 3, 6, -1, -7)] == [0, 2, 10, 13, 13, 0]
    with raises(ValueError, "absolute value of index should not exceed dataset length"):
        data[-8]
    with pytest.raises(IndexError):
        data[7]
    with raises(AssertionError, "datasets should not be an empty iterable"):
        ConcatDataset([])
    with raises(AssertionError, "ConcatDataset does not support IterableDataset"):
        ConcatDataset([Stream(2)])
    added = TensorDataset(ng.arange(3)) + TensorDataset(ng.arange(10, 12))
    assert isinstance(added, ConcatDataset) and len(added) == 5 and added[-2][0].item() == 10


def test_chain_and_iterable_datasets():
    chained = Stream(2) + Stream(3)
    assert isinstance(chained, ChainDataset) and list(chained) == [0, 1, 0, 1, 2]
    assert len(ChainDataset([SizedStream(2), SizedStream(4)])) == 6
    with raises(TypeError, "object of type 'Stream' has no len()"):
        len(chained)
    with raises(AssertionError, "ChainDataset only supports IterableDataset"):
        list(ChainDataset([Stream(1), range(3)]))
    with raises(TypeError, "object of type 'Dataset' has no len()"):
        len(Dataset())


def test_stack_dataset_and_subset():
    assert StackDataset(range(2), range(5, 7))[1] == (1, 6)
    assert StackDataset(a=range(2), b=range(5, 7))[1] == {"a": 1, "b": 6}
    assert len(StackDataset(range(4), range(4))) == 4
    with raises(ValueError, "At least one dataset should be passed"):
        StackDataset()
    with raises(ValueError, "Supported either ``tuple``- (via ``args``) or``dict``- (via "
                            "``kwargs``) like input/output, but both types are given."):
        StackDataset(range(2), b=range(2))
    with raises(ValueError, "Size mismatch between datasets"):
        StackDataset(range(2), range(3))
    subset = Subset(range(10, 20), [5, 2, 8])
    assert len(subset) == 3 and list(subset) == [15, 12, 18]
    assert Subset(TensorDataset(ng.arange(10, 20)), [5, 2])[[0, 1]][0].tolist() == [15, 12]


def test_random_split_lengths_and_errors():
    def lengths(n, split):
        return [len(part) for part in random_split(range(n), split)]
    assert lengths(10, [3, 7]) == [3, 7]
    assert lengths(10, [0.33, 0.33, 0.34]) == [4, 3, 3]
    assert lengths(11, [0.5, 0.5]) == [6, 5]
    assert lengths(7, [0.1, 0.2, 0.3, 0.4]) == [1, 2, 2, 2]
    with pytest.warns(UserWarning, match=re.escape(
            "Length of split at index 1 is 0. This might result in an empty dataset.")):
        assert lengths(2, [0.1, 0.1, 0.8]) == [1, 0, 1]
    with raises(ValueError, "Sum of input lengths does not equal the length of the input dataset!"):
        random_split(range(10), [3, 3])
    with raises(ValueError, "Sum of input lengths does not equal the length of the input dataset!"):
        random_split(range(10), [0.5, 0.4])
    with raises(ValueError, "Fraction at index 0 is not between 0 and 1"):
        random_split(range(10), [1.5, -0.5])


def test_random_split_is_a_seeded_partition():
    parts = random_split(range(10, 20), [0.2, 0.8], generator=np.random.default_rng(0))
    assert all(isinstance(part, Subset) for part in parts)
    assert sorted(list(parts[0]) + list(parts[1])) == list(range(10, 20))
    again = random_split(range(10, 20), [0.2, 0.8], generator=np.random.default_rng(0))
    assert [list(p) for p in again] == [list(p) for p in parts]
    ng.manual_seed(4)
    first = [p.indices for p in random_split(range(6), [3, 3])]
    ng.manual_seed(4)
    assert [p.indices for p in random_split(range(6), [3, 3])] == first


# samplers

def test_sequential_and_batch_samplers():
    assert list(SequentialSampler(range(3))) == [0, 1, 2] and len(SequentialSampler(range(3))) == 3
    batches = BatchSampler(range(7), 3, drop_last=False)
    assert list(batches) == [[0, 1, 2], [3, 4, 5], [6]] and len(batches) == 3
    dropped = BatchSampler(range(7), 3, drop_last=True)
    assert list(dropped) == [[0, 1, 2], [3, 4, 5]] and len(dropped) == 2
    for size in (0, True, 2.0):
        with raises(ValueError, f"batch_size should be a positive integer value, but got "
                                f"batch_size={size}"):
            BatchSampler(range(3), size, False)
    with raises(ValueError, "drop_last should be a boolean value, but got drop_last=None"):
        BatchSampler(range(3), 2, None)


def test_random_sampler():
    with raises(TypeError, "replacement should be a boolean value, but got replacement=1"):
        RandomSampler(range(3), replacement=1)
    with raises(ValueError, "num_samples should be a positive integer value, but got "
                            "num_samples=0"):
        RandomSampler([])
    with raises(ValueError, "num_samples should be a positive integer value, but got "
                            "num_samples=2.0"):
        RandomSampler(range(3), num_samples=2.0)
    longer = list(RandomSampler(range(3), num_samples=7))
    assert len(longer) == 7 and sorted(longer[:6]) == [0, 0, 1, 1, 2, 2] and longer[6] in range(3)
    drawn = list(RandomSampler(range(3), replacement=True, num_samples=70))
    assert len(drawn) == 70 and set(drawn) == {0, 1, 2}
    assert len(RandomSampler(range(3), num_samples=7)) == 7
    ng.manual_seed(2)
    sampler = RandomSampler(range(20))
    first, second = list(sampler), list(sampler)
    assert sorted(first) == list(range(20)) and first != second
    ng.manual_seed(2)
    assert list(sampler) == first
    own = list(RandomSampler(range(20), generator=np.random.default_rng(7)))
    assert own == list(RandomSampler(range(20), generator=np.random.default_rng(7)))


def test_subset_random_sampler():
    sampler = SubsetRandomSampler([9, 4, 2], generator=np.random.default_rng(1))
    assert sorted(sampler) == [2, 4, 9] and len(sampler) == 3


def test_weighted_random_sampler():
    assert list(WeightedRandomSampler([0.0, 1.0, 0.0], 4)) == [1, 1, 1, 1]
    picked = list(WeightedRandomSampler([1.0, 0.0, 2.0], 3, replacement=False))
    assert sorted(picked[:2]) == [0, 2] and picked[2] == 1         # zero weights come last
    assert list(WeightedRandomSampler([1, 0, 0], 3, replacement=False)) == [0, 1, 2]
    seeded = [list(WeightedRandomSampler([1, 2, 3], 5, generator=np.random.default_rng(3)))
              for _ in range(2)]
    assert seeded[0] == seeded[1] and set(seeded[0]) <= {0, 1, 2}
    sampler = WeightedRandomSampler(ng.tensor([1.0, 2.0], requires_grad=True), 2)
    assert sampler.weights.dtype == ng.float64 and len(sampler) == 2
    with raises(ValueError, "num_samples should be a positive integer value, but got "
                            "num_samples=True"):
        WeightedRandomSampler([1, 2], True)
    with raises(ValueError, "replacement should be a boolean value, but got replacement=0"):
        WeightedRandomSampler([1, 2], 2, replacement=0)
    with raises(ValueError, "weights should be a 1d sequence but given weights have shape (1, 2)"):
        WeightedRandomSampler([[1, 2]], 2)
    errors = [([1.0, 2.0], 3, False, "cannot sample n_sample > prob_dist.size(-1) samples without "
                                     "replacement"),
              ([1.0, -1.0], 1, True, "probability tensor contains either `inf`, `nan` or "
                                     "element < 0"),
              ([1.0, -1.0], 1, False, "probability tensor contains either `inf`, `nan` or "
                                      "element < 0"),
              ([1.0, -1.0], 3, True, "invalid multinomial distribution (encountering probability "
                                     "entry < 0)"),
              ([1.0, np.nan], 3, True, "invalid multinomial distribution (encountering "
                                       "probability entry < 0)"),
              ([1.0, np.inf], 3, True, "invalid multinomial distribution (encountering "
                                       "probability entry = infinity or NaN)"),
              ([0.0, 0.0], 3, True, "invalid multinomial distribution (sum of probabilities <= 0)"),
              ([0.0, 0.0], 1, False, "invalid multinomial distribution (sum of probabilities "
                                      "<= 0)")]
    for weights, n, replacement, message in errors:
        with raises(RuntimeError, message):
            list(WeightedRandomSampler(weights, n, replacement))


# DataLoader

def test_loader_option_errors_in_torch_words():
    cases = [(dict(batch_sampler=[[0]], batch_size=2), "batch_sampler option is mutually exclusive "
              "with batch_size, shuffle, sampler, and drop_last"),
             (dict(batch_sampler=[[0]], shuffle=True), "batch_sampler option is mutually "
              "exclusive with batch_size, shuffle, sampler, and drop_last"),
             (dict(batch_sampler=[[0]], sampler=[0]), "batch_sampler option is mutually "
              "exclusive with batch_size, shuffle, sampler, and drop_last"),
             (dict(batch_sampler=[[0]], drop_last=True), "batch_sampler option is mutually "
              "exclusive with batch_size, shuffle, sampler, and drop_last"),
             (dict(batch_size=None, drop_last=True), "batch_size=None option disables "
              "auto-batching and is mutually exclusive with drop_last"),
             (dict(sampler=[0], shuffle=True), "sampler option is mutually exclusive with shuffle"),
             (dict(num_workers=-1), "num_workers option should be non-negative; use "
              "num_workers=0 to disable multiprocessing."),
             (dict(timeout=-1), "timeout option should be non-negative"),
             (dict(prefetch_factor=2), "prefetch_factor option could only be specified in "
              "multiprocessing.let num_workers > 0 to enable multiprocessing, otherwise set "
              "prefetch_factor to None."),
             (dict(num_workers=1, prefetch_factor=-1), "prefetch_factor option should be "
              "non-negative"),
             (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
             (dict(batch_size=0), "batch_size should be a positive integer value, but got "
              "batch_size=0"),
             (dict(drop_last=1), "drop_last should be a boolean value, but got drop_last=1")]
    for options, message in cases:
        with raises(ValueError, message):
            DataLoader(range(3), **options)
    loader = DataLoader(range(3))
    with raises(ValueError, "batch_size attribute should not be set after DataLoader is "
                            "initialized"):
        loader.batch_size = 3


def test_loader_without_batching_and_with_a_batch_sampler():
    assert list(DataLoader(range(3), batch_size=None)) == [0, 1, 2]
    (array,) = DataLoader([np.ones(2)], batch_size=None)
    assert isinstance(array, ng.Tensor) and array.dtype == ng.float64
    assert list(DataLoader(range(4), batch_size=None, collate_fn=lambda x: x * 2)) == [0, 2, 4, 6]
    assert len(DataLoader(range(5), batch_size=None)) == 5
    loader = DataLoader(range(5), batch_sampler=[[0, 1], [4]])
    assert [b.tolist() for b in loader] == [[0, 1], [4]] and len(loader) == 2
    assert loader.batch_size is None and loader.drop_last is False
    by_sampler = DataLoader(range(4), batch_sampler=BatchSampler(SequentialSampler(range(4)), 3,
                                                                 True))
    assert [b.tolist() for b in by_sampler] == [[0, 1, 2]]
    assert list(DataLoader(range(4), batch_size=3, collate_fn=lambda x: x)) == [[0, 1, 2], [3]]
    assert isinstance(DataLoader(range(3)).sampler, SequentialSampler)
    assert isinstance(DataLoader(range(3), shuffle=True).sampler, RandomSampler)


def test_loader_lengths_and_shuffling():
    with_replacement = RandomSampler(range(10), replacement=True, num_samples=25)
    assert len(DataLoader(range(10), sampler=with_replacement, batch_size=4)) == 7
    assert len(DataLoader(range(10), batch_size=4, drop_last=True, shuffle=True)) == 2
    loader = DataLoader(range(10), batch_size=4, shuffle=True, generator=np.random.default_rng(5))
    seen = [x for b in loader for x in b.tolist()]
    assert sorted(seen) == list(range(10))
    assert seen == np.random.default_rng(5).permutation(10).tolist()


def test_loader_over_an_iterable_dataset():
    assert [b.tolist() for b in DataLoader(Stream(7), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in DataLoader(Stream(7), batch_size=3, drop_last=True)] == \
        [[0, 1, 2], [3, 4, 5]]
    assert list(DataLoader(Stream(3), batch_size=None)) == [0, 1, 2]
    assert len(DataLoader(SizedStream(5), batch_size=2)) == 3
    assert len(DataLoader(SizedStream(5), batch_size=2, drop_last=True)) == 2
    assert len(DataLoader(SizedStream(5), batch_size=None)) == 5
    with raises(TypeError, "object of type 'Stream' has no len()"):
        len(DataLoader(Stream(5), batch_size=2))
    with raises(ValueError, "DataLoader with IterableDataset: expected unspecified shuffle "
                            "option, but got shuffle=True"):
        DataLoader(Stream(3), shuffle=True)
    with raises(ValueError, "DataLoader with IterableDataset: expected unspecified sampler "
                            "option, but got sampler=[0]"):
        DataLoader(Stream(3), sampler=[0])
    with raises(ValueError, "DataLoader with IterableDataset: expected unspecified batch_sampler "
                            "option, but got batch_sampler=[[0]]"):
        DataLoader(Stream(3), batch_sampler=[[0]])


def test_worker_options_are_accepted_and_load_in_this_process():
    calls = []
    loader = DataLoader(SizedStream(5), batch_size=4, num_workers=2, pin_memory=True,
                        persistent_workers=True, prefetch_factor=4, timeout=5,
                        worker_init_fn=calls.append)
    assert [b.tolist() for b in loader] == [[0, 1, 2, 3], [4]]    # one copy, not one per worker
    assert calls == [] and get_worker_info() is None
    assert DataLoader(range(3), num_workers=2).prefetch_factor == 2


def test_loader_uses_getitems_and_collates_stacked_datasets():
    class Batched(Dataset):
        def __len__(self):
            return 4

        def __getitems__(self, indices):
            return [10 * i for i in indices]

    assert [b.tolist() for b in DataLoader(Batched(), batch_size=3)] == [[0, 10, 20], [30]]
    stacked = next(iter(DataLoader(StackDataset(a=range(3), b=[ng.ones(2)] * 3), batch_size=2)))
    assert stacked["a"].tolist() == [0, 1] and stacked["b"].shape == (2, 2)
    subset = [b.tolist() for (b,) in DataLoader(Subset(TensorDataset(ng.arange(6)), [4, 1, 3]),
                                                batch_size=2)]
    assert subset == [[4, 1], [3]]
