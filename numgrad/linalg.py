"""numgrad.linalg: torch.linalg's functions, differentiable, on batches of matrices (..., m, n).

The decompositions and inverses are autograd Functions in ops/decompositions.py; the norms and
products here are compositions of numgrad ops, so their gradients (and create_graph) come from
those.

>>> import numgrad as ng
>>> A = ng.tensor([[2., 1.], [1., 3.]], requires_grad=True)
>>> ng.linalg.det(A).backward()
>>> A.grad
tensor([[ 3., -1.],
        [-1.,  2.]])
"""
import math

import numpy as np

from . import dtypes
from .ops import amax, amin, matmul, movedim, sum as _sum
from .ops.linalg import mm as _mm
from .ops.composite import cross as _cross
from .ops.decompositions import (LinAlgError, LinalgSlogdet, _named_tuple, check_matrices, det,
                                 eigh, eigvalsh, inv, linalg_cholesky as cholesky, linalg_slogdet,
                                 matrix_rank, pinv, qr, solve, svd, svdvals)
from .ops.layout import diagonal as _diagonal
from .ops.named import named
from .ops.order_stats import matrix_power
from .ops.reduce import norm as _vector_norm
from .tensor import Tensor, _wrap_dim

__all__ = ["LinAlgError", "norm", "vector_norm", "matrix_norm", "det", "slogdet", "inv", "solve",
           "cholesky", "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "matrix_rank", "lstsq",
           "cross", "multi_dot", "diagonal", "matmul", "vecdot", "matrix_power"]

linalg_lstsq = _named_tuple("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


def slogdet(A):
    """(sign, log|det|) of square matrices; only log|det| is differentiable."""
    check_matrices("linalg.slogdet", A)
    return linalg_slogdet(*LinalgSlogdet.apply(A))


# ---- norms ---------------------------------------------------------------------------------------
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The ord-norm of x's elements over dim (all by default): 2, 1, inf, -inf, 0 or any
    other number."""
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: Expected a number as ord, got {ord!r}")
    return _vector_norm(x, ord, dim, keepdim, dtype=dtype)


def _matrix_dims(A, dim):
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    d0, d1 = _wrap_dim(dim[0], A.ndim), _wrap_dim(dim[1], A.ndim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def _restore_dims(result, d0, d1, keepdim):
    if keepdim:
        for d in sorted((d0, d1)):
            result = result.unsqueeze(d)
    return result


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm over the two dims: 'fro', 'nuc', 2 / -2 (largest / smallest singular
    value), 1 / -1 (max / min column sum of |A|), inf / -inf (max / min row sum)."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if dtype is not None:
        A = A.to(dtype)
    if not dtypes.is_floating(A._data.dtype):
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as "
                           f"input. Got {dtypes.scalar_type_name(A._data.dtype)}")
    d0, d1 = _matrix_dims(A, tuple(dim))
    if ord == "fro":
        return _vector_norm(A, 2, (d0, d1), keepdim)
    if ord in ("nuc", 2, -2):
        values = svdvals(movedim(A, (d0, d1), (-2, -1)))
        reduce = {"nuc": _sum, 2: amax, -2: amin}[ord]
        return _restore_dims(reduce(values, -1), d0, d1, keepdim)
    if ord in (1, -1, math.inf, -math.inf):
        # 1: the largest column sum (summed over rows, d0); inf: the largest row sum. As torch:
        # the 1-norm over the summed dim, then amax (amin) over the other, renumbered once the
        # first is gone
        summed, kept = (d0, d1) if ord in (1, -1) else (d1, d0)
        if not keepdim and summed < kept:
            kept -= 1
        sums = _vector_norm(A, 1.0, (summed,), keepdim)
        return (amax if ord > 0 else amin)(sums, kept, keepdim=keepdim)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm (dim an int, or A 1-d) or a matrix norm (dim a pair, or A 2-d with ord
    given); with neither ord nor dim, the 2-norm of all elements."""
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        # torch's node shows the order as a float where linalg.norm chose it
        return vector_norm(A, 2.0 if ord is None else ord, dims, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2.0, None, keepdim, dtype=dtype)
    if A.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D "
                           f"or 2D. Got {A.ndim}D.")
    if A.ndim == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)


# ---- products and views --------------------------------------------------------------------------
def multi_dot(tensors):
    """The product of a chain of matrices; the first may be a row vector and the last a column
    vector (1-d). Multiplied in the cheapest order, as torch picks it (so the graph and the
    rounding are torch's too)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    last = len(tensors) - 1
    for k, t in enumerate(tensors):
        allowed = (1, 2) if k in (0, last) else (2,)
        if t.ndim not in allowed:
            where = {0: "the first", last: "the last"}.get(k)
            if where:
                raise RuntimeError(f"multi_dot(): {where} tensor must be 1D or 2D but got "
                                   f"{t.ndim}D")
            raise RuntimeError(f"multi_dot(): tensor {k} must be 2D but got {t.ndim}D")
    out_shape = ()
    if tensors[0].ndim == 1:
        tensors[0] = tensors[0].unsqueeze(0)
    else:
        out_shape += (tensors[0].shape[0],)
    if tensors[last].ndim == 1:
        tensors[last] = tensors[last].unsqueeze(-1)
    else:
        out_shape += (tensors[last].shape[1],)
    return _chain_product(tensors, _chain_order(tensors)).view(out_shape)


def _chain_order(matrices):
    """split[i][j]: where the cheapest product of matrices i..j splits (the textbook dynamic
    programme, the first split on ties, as torch's matrix_chain_order)."""
    n = len(matrices)
    dims = [m.shape[0] for m in matrices] + [matrices[-1].shape[1]]
    split = [[0] * n for _ in range(n)]
    if n == 3:
        # torch's closed form for three, which takes (AB)C on a tie
        a, b, c, d = dims
        split[0][2] = 0 if a * c * (b + d) > b * d * (a + c) else 1
        split[1][2] = 1
        return split
    cost = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain_product(matrices, split, i=0, j=None):
    j = len(matrices) - 1 if j is None else j
    if i == j:
        return matrices[i]
    k = split[i][j]
    return _mm(_chain_product(matrices, split, i, k), _chain_product(matrices, split, k + 1, j))


def vecdot(x, y, *, dim=-1):
    """The dot products of x and y along dim (broadcast)."""
    return _sum(x * y, dim)


def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along dim."""
    return _cross(input, other, dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals of the matrices in dims dim1, dim2 (a view)."""
    return _diagonal(A, offset, dim1, dim2)


# ---- least squares -------------------------------------------------------------------------------
def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution X of A X = B, by the pseudo-inverse (so its gradient is that of
    pinv(A) @ B, as torch's). As torch's default CPU driver 'gelsy', residuals and
    singular_values are empty and rank is A's rank."""
    check_matrices("torch.linalg.lstsq", A, square=False)
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, "
                           f"but got input with dtype {dtypes.scalar_type_name(A._data.dtype)} "
                           f"and other with dtype {dtypes.scalar_type_name(B._data.dtype)}")
    vector = B.ndim == A.ndim - 1
    columns = B.unsqueeze(-1) if vector else B
    if columns.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2). Got "
                           f"{A.shape[-2]} and {columns.shape[-2]}")
    solution = matmul(pinv(A, rtol=rcond), columns)
    solution = solution.squeeze(-1) if vector else solution
    # torch's one node over the composite, saving A, B and the solution
    solution = named(solution, "LinalgLstsqBackward0", A, B, inputs=(A, B),
                     view_of_intermediate=vector, saved_names=("self", "b"))
    empty = Tensor._make(np.zeros(0, A._data.dtype), False)
    return linalg_lstsq(solution, empty, matrix_rank(A, rtol=rcond), empty)

