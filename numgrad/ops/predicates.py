"""Questions about values, answered as bool or int64 tensors that need no gradient: isnan, isinf,
isfinite, any, all, count_nonzero, nonzero. They run on the tensor's device (ops/untracked.py).

>>> import numgrad as ng
>>> x = ng.tensor([[0.0, 1.0], [float("nan"), 2.0]])
>>> ng.isnan(x).any()
tensor(True)
>>> x.nonzero()
tensor([[0, 1],
        [1, 0],
        [1, 1]])
"""
import numpy as np

from .reduce import _dims
from .untracked import untracked


def isnan(x):
    return untracked(np.isnan, x._data)


def isinf(x):
    return untracked(np.isinf, x._data)


def isfinite(x):
    return untracked(np.isfinite, x._data)


def _no_dims(dim):
    """any and all given dim=() reduce nothing, unlike sum's empty dims: torch's result is the
    elements as bools."""
    return isinstance(dim, (tuple, list)) and len(dim) == 0


def any(x, dim=None, keepdim=False):
    """Whether any element (along dim) is nonzero: a bool tensor."""
    if _no_dims(dim):
        return untracked(lambda v: v != 0, x._data)
    return untracked(np.any, x._data, axis=_dims(x, dim), keepdims=keepdim)


def all(x, dim=None, keepdim=False):
    """Whether every element (along dim) is nonzero: a bool tensor."""
    if _no_dims(dim):
        return untracked(lambda v: v != 0, x._data)
    return untracked(np.all, x._data, axis=_dims(x, dim), keepdims=keepdim)


def count_nonzero(x, dim=None):
    return untracked(lambda v: np.asarray(np.count_nonzero(v, axis=_dims(x, dim)), np.int64),
                     x._data)


def nonzero(x, *, as_tuple=False):
    """The indices of the nonzero elements: an int64 tensor (count, ndim), or with as_tuple one
    int64 tensor per dim (a 0-d input counts as 1-d there, as in torch)."""
    if not as_tuple:
        return untracked(lambda v: np.argwhere(v).astype(np.int64), x._data)
    ndim = max(x._data.ndim, 1)
    return tuple(untracked(lambda v, d=d: np.nonzero(np.atleast_1d(v))[d].astype(np.int64),
                           x._data) for d in range(ndim))
