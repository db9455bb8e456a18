"""default_collate and default_convert: turn samples into batches of tensors, as
torch.utils.data does."""
import collections.abc
import copy

import numpy as np

from ... import creation
from ...tensor import Tensor

_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
          "found {}")


def _is_text_array(array):
    # Strings and objects have no tensor dtype: torch leaves them alone or refuses them.
    return array.dtype.kind in "SUO"


def _is_numpy_value(data):
    return isinstance(data, (np.ndarray, np.generic)) and not isinstance(data, (np.str_, np.bytes_))


def _rebuild(sample, values):
    """values (one per field of sample, in order) in sample's container type where it can be
    rebuilt from them, else a list (a tuple always gives a list, as in torch)."""
    values = list(values)
    if isinstance(sample, tuple):
        return values
    if isinstance(sample, collections.abc.MutableSequence):
        clone = copy.copy(sample)
        clone[:] = values
        return clone
    try:
        return type(sample)(values)
    except TypeError:
        return values


def _remap(sample, values):
    """A mapping of sample's keys to values, of sample's type where it can be made."""
    if isinstance(sample, collections.abc.MutableMapping):
        clone = copy.copy(sample)
        clone.update(values)
        return clone
    try:
        return type(sample)(values)
    except TypeError:
        return values


def default_convert(data):
    """Turn NumPy arrays and scalars in a sample (also inside lists, tuples, dicts and
    namedtuples) into tensors, leaving everything else as it is: what DataLoader applies to
    each sample when it does not batch (batch_size=None).

    >>> import numpy as np
    >>> default_convert((np.arange(2), 1, "a"))
    [tensor([0, 1]), 1, 'a']
    """
    if isinstance(data, Tensor):
        return data
    if _is_numpy_value(data):
        if isinstance(data, np.ndarray) and _is_text_array(data):
            return data
        return creation.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _remap(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):    # a namedtuple keeps its type
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, (default_convert(d) for d in data))
    return data


def default_collate(batch):
    """Stack a list of samples into one batch, as torch does: tensors and arrays are stacked,
    Python floats become float64 and ints int64 (bools bool) tensors, strings and bytes are kept,
    and lists, tuples (as lists), dicts and namedtuples are collated field by field.

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
        if _is_text_array(first):
            raise TypeError(_ERROR.format(first.dtype))
        return default_collate([creation.as_tensor(b) for b in batch])
    if _is_numpy_value(first):
        return creation.as_tensor(np.array(batch))
    if isinstance(first, float):
        return creation.tensor(batch, dtype=np.float64)
    if isinstance(first, int):   # bools too; torch.tensor's rules give ints mixed with floats float
        return creation.tensor(batch)
    if isinstance(first, (str, bytes)):
        return batch
    if isinstance(first, collections.abc.Mapping):
        return _remap(first, {key: default_collate([sample[key] for sample in batch])
                              for key in first})
    if isinstance(first, tuple) and hasattr(first, "_fields"):
        return type(first)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(first, collections.abc.Sequence):
        if any(len(sample) != len(first) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        # each field goes on as the tuple zip makes: strings in a field collate to a tuple
        return _rebuild(first, (default_collate(field) for field in zip(*batch)))
    raise TypeError(_ERROR.format(type(first)))
