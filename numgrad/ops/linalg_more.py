"""More products and norms: addr, addbmm, renorm, matrix_exp, chain_matmul, the Cholesky
solves (cholesky_solve, cholesky_inverse, solve_triangular), and the conjugate transposes
adjoint / H / mH, which for real tensors are transposes (views). Composites of matmul, solve,
norms and where, so gradients and higher derivatives are those ops'."""
import math
import warnings

import numpy as np

from .. import creation

from ..tensor import Tensor
from .composite import addmv
from .elementwise import where
from .index import masked_fill
from .layout import tril, triu
from .inplace_more import _same_shape
from .linalg import matmul, outer
from .named import named
from .reduce import norm as vector_norm
from .shape import permute, reshape, transpose


def _scaled_sum(input, product, beta, alpha):
    """beta * input + alpha * product; beta = 0 ignores input's values (NaNs too) and gives it a
    zero gradient, as torch's."""
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return masked_fill(input, _ALL, 0) + product
    return (input if beta == 1 else input * beta) + product


_ALL = Tensor._make(np.ones((), np.bool_), False)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2)."""
    for name, vec in (("vec1", vec1), ("vec2", vec2)):
        if vec.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {vec.ndim}-D")
    return named(_scaled_sum(input, outer(vec1, vec2), beta, alpha), "AddrBackward0", vec1, vec2,
                 inputs=(input, vec1, vec2), saved_names=("vec1", "vec2"))


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * sum over b of batch1[b] @ batch2[b]: one matrix product of the
    batches laid side by side, (n, b*m) @ (b*m, p)."""
    for name, batch in (("batch1", batch1), ("batch2", batch2)):
        if batch.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    count, rows, inner = batch1.shape
    side_by_side = reshape(permute(batch1, (1, 0, 2)), (rows, count * inner))
    product = matmul(side_by_side, reshape(batch2, (count * inner, -1)))
    return named(_scaled_sum(input, product, beta, alpha), "AddbmmBackward0", batch1, batch2,
                 inputs=(input, batch1, batch2), saved_names=("batch1", "batch2"))


def renorm(input, p, dim, maxnorm):
    """Each slice along dim whose p-norm exceeds maxnorm scaled down to norm maxnorm (divided by
    norm + 1e-7, as torch's); the others unchanged. Differentiable through the norm, as torch's."""
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} "
                           "dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = dim % input.ndim
    others = tuple(k for k in range(input.ndim) if k != d)
    over = vector_norm(input.detach(), p, others, keepdim=True) > maxnorm
    # the slices left unchanged take g as it is, as torch's where(norm > maxnorm, ..., grad): the
    # norm's derivative (NaN for a NaN norm, even times 0) must not reach them
    norm = vector_norm(where(over, input, 0.0), p, others, keepdim=True)
    factor = where(over, maxnorm / (norm + 1e-7), 1.0)
    return named(input * factor, "RenormBackward0", inputs=(input,))


def matrix_exp(input):
    """exp of each square matrix (..., n, n): the Taylor series to degree 18 of A / 2**s, s making
    its 1-norm at most 1/2, then squared s times. Made of matrix products, so its gradient (of
    any order) is that of the series, as accurate as the value."""
    if input.ndim < 2 or input.shape[-1] != input.shape[-2]:
        raise RuntimeError("linalg.matrix_exp: A must be batches of square matrices, but they are "
                           f"{input.shape[-2] if input.ndim > 1 else input.ndim} by "
                           f"{input.shape[-1] if input.ndim else 0} matrices")
    data = np.abs(np.asarray(input.detach()._data, np.float64))
    norm = float(data.sum(-2).max()) if data.size else 0.0
    squarings = max(0, math.ceil(math.log2(norm)) + 1) if norm > 0 else 0
    scaled = input * (0.5 ** squarings)
    eye = creation.eye(input.shape[-1], dtype=input.dtype, device=input.device)
    # Horner: I + A (I + A/2 (I + A/3 (... (I + A/18))))
    result = eye + scaled * (1.0 / 18)
    for k in range(17, 0, -1):
        result = eye + matmul(scaled, result) * (1.0 / k)
    for _ in range(squarings):
        result = matmul(result, result)
    return named(result, "LinalgMatrixExpBackward0", inputs=(input,))


def chain_matmul(*matrices):
    """The product of the matrices in order (deprecated in torch for linalg.multi_dot)."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch "
                  "release. Use torch.linalg.multi_dot instead, which accepts a list of two or "
                  "more tensors rather than multiple parameters.", UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    result = matrices[0]
    for matrix in matrices[1:]:
        result = matmul(result, matrix)
    return result if len(matrices) > 1 else result.clone()


def _gram(factor, upper):
    """A = L L^T (or U^T U) from its Cholesky factor."""
    return matmul(transpose(factor, -2, -1), factor) if upper else \
        matmul(factor, transpose(factor, -2, -1))


def cholesky_solve(B, L, upper=False):
    """X with A X = B, A = L L^T given by its Cholesky factor L (U^T U with upper)."""
    from .decompositions import solve
    return solve(_gram(L, upper), B)


def cholesky_inverse(L, upper=False):
    """The inverse of A = L L^T (U^T U with upper) given its Cholesky factor."""
    from .decompositions import inv
    return inv(_gram(L, upper))


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """X with A X = B (X A = B with left=False) reading only A's upper or lower triangle (and
    ones on its diagonal with unitriangular); A's gradient is triangular too, as torch's."""
    from .decompositions import solve
    triangle = triu(A) if upper else tril(A)
    if unitriangular:
        eye = creation.eye(A.shape[-1], dtype=A.dtype, device=A.device)
        triangle = triangle - triangle * eye + eye
    if left:
        return solve(triangle, B)
    return transpose(solve(transpose(triangle, -2, -1), transpose(B, -2, -1)), -2, -1)


def adjoint(input):
    """The conjugate transpose of the last two dims: for real tensors, their transpose (a view)."""
    return transpose(input, -2, -1)


def _h(self):
    if self.ndim > 2:
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor. For batches of matrices, consider using "
                           "tensor.mH")
    return self.T


def _mh(self):
    if self.ndim < 2:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. Got "
                           f"{self.ndim}-D tensor.")
    return adjoint(self)


H = property(_h)
mH = property(_mh)


PUBLIC = ("addr", "addbmm", "renorm", "adjoint", "matrix_exp", "chain_matmul", "cholesky_solve",
          "cholesky_inverse")
METHODS = ("addr", "addbmm", "renorm", "adjoint", "matrix_exp", "cholesky_solve",
           "cholesky_inverse", "H", "mH")
INPLACE = {"addr_": (_same_shape(addr), False), "addbmm_": (_same_shape(addbmm), False),
           "addmv_": (_same_shape(addmv), False),
           "renorm_": (renorm, True)}
