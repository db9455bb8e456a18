"""pdist: the p-norm distance between every pair of rows of a matrix."""
import numpy as np

from .. import linalg


def pdist(input, p=2.0):
    """||input[i] - input[j]||_p for every i < j, row-major (the upper triangle of cdist's matrix,
    flattened). A pair of equal rows has distance 0 and gradient 0, as in torch.

    >>> import numgrad as ng
    >>> import numgrad.nn.functional as F
    >>> F.pdist(ng.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]]))
    tensor([5., 0., 5.])
    """
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    first, second = np.triu_indices(input.shape[0], 1)
    return linalg.vector_norm(input[first] - input[second], p, dim=1)
