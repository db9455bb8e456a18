"""pdist: the p-norm distance between every pair of rows of a matrix."""
import math

import numpy as np

from .. import dtypes, linalg
from ..ops.elementwise import where
from ..ops.named import named


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
    if not dtypes.is_floating(input.dtype):
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    first, second = np.triu_indices(input.shape[0], 1)
    differences = input[first] - input[second]
    distances = linalg.vector_norm(differences, p, dim=1)
    if p != math.inf or not differences.requires_grad:
        return named(distances, "PdistBackward0", inputs=(input,))
    # torch's PdistBackward gives every tied maximum the whole gradient (vector_norm shares it):
    # add the tied elements' sum minus itself, zero in value, whose gradient is the tie mask
    magnitudes = differences.abs()
    ties = magnitudes * (magnitudes.detach() == distances.detach().unsqueeze(1))
    tied = ties.sum(1)
    return named(where(distances.detach().isfinite(), distances.detach() + (tied - tied.detach()),
                       distances), "PdistBackward0", inputs=(input,))
