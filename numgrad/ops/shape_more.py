"""Shape utilities torch has beside the common ones: split_with_sizes (and the unsafe_ forms of
split and chunk, from split.py), diagflat, combinations. Composites of split, diag and
indexing."""
import itertools

import numpy as np

from .index import getitem
from .layout import diag
from .shape import reshape
from .split import split, unsafe_chunk, unsafe_split, unsafe_split_with_sizes


def split_with_sizes(input, split_sizes, dim=0):
    """Views of input along dim, of the listed sizes (which must sum to its size there)."""
    return split(input, [int(s) for s in split_sizes], dim)


def diagflat(input, offset=0):
    """input flattened onto the offset diagonal of a square matrix."""
    return diag(reshape(input, (-1,)), offset)


def combinations(input, r=2, with_replacement=False):
    """The length-r combinations of a 1-d input's elements, one per row (itertools' order).

    >>> import numgrad as ng
    >>> ng.combinations(ng.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return getitem(input, np.zeros(0, np.int64))
    pick = (itertools.combinations_with_replacement if with_replacement
            else itertools.combinations)(range(input.shape[0]), r)
    rows = np.array(list(pick), np.int64).reshape(-1, r)
    return getitem(input, rows)


PUBLIC = ("split_with_sizes", "unsafe_split", "unsafe_chunk", "unsafe_split_with_sizes",
          "diagflat", "combinations")
METHODS = PUBLIC[:-1]
INPLACE = {}
