"""torch.linalg's remaining real-valued functions, attached to numgrad.linalg: vander, cond,
tensorinv, tensorsolve and the _ex forms (inv_ex, cholesky_ex, solve_ex), which report failure
in an info tensor instead of raising. Composites of numgrad.linalg's, so differentiable as
those are."""
import math

import numpy as np

from . import creation, dtypes
from .ops.decompositions import (LinAlgError, _named_tuple, inv, linalg_cholesky, solve,
                                 svdvals)

inv_ex_result = _named_tuple("linalg_inv_ex", ("inverse", "info"))
cholesky_ex_result = _named_tuple("linalg_cholesky_ex", ("L", "info"))
solve_ex_result = _named_tuple("linalg_solve_ex", ("result", "info"))


def vander(x, *, N=None):
    """The Vandermonde matrix of x's last dim, increasing powers: x**0, x**1, ..., x**(N-1)."""
    count = x.shape[-1] if N is None else int(N)
    if N is not None and count < 1:
        raise RuntimeError("N must be greater than 1.")
    powers = creation.arange(count, dtype=x.dtype if dtypes.is_floating(x.dtype) else
                             dtypes.int64)
    return x.unsqueeze(-1) ** powers


def _info(failed, batch):
    return creation.tensor(np.full(batch, int(failed), np.int32))


def _checked(compute, A, check_errors, result_type):
    """compute(), or on a LinAlgError (unless check_errors) NaNs and info 1."""
    try:
        value = compute()
        return result_type(value, _info(False, tuple(A.shape[:-2])))
    except LinAlgError:
        if check_errors:
            raise
        return result_type(creation.full(tuple(A.shape), math.nan, dtype=A.dtype),
                           _info(True, tuple(A.shape[:-2])))


def inv_ex(A, *, check_errors=False):
    return _checked(lambda: inv(A), A, check_errors, inv_ex_result)


def cholesky_ex(A, *, upper=False, check_errors=False):
    return _checked(lambda: linalg_cholesky(A, upper=upper), A, check_errors,
                    cholesky_ex_result)


def solve_ex(A, B, *, left=True, check_errors=False):
    try:
        return solve_ex_result(solve(A, B, left=left), _info(False, tuple(A.shape[:-2])))
    except LinAlgError:
        if check_errors:
            raise
        return solve_ex_result(creation.full(tuple(B.shape), math.nan, dtype=B.dtype),
                               _info(True, tuple(A.shape[:-2])))


def cond(A, p=None):
    """The condition number of A in the p-norm: the ratio of the extreme singular values for
    p None, 2 and -2, else norm(A, p) * norm(inv(A), p)."""
    from . import linalg
    if p in (None, 2, -2):
        values = svdvals(A)
        largest, smallest = values[..., 0], values[..., -1]
        return smallest / largest if p == -2 else largest / smallest
    return linalg.matrix_norm(A, p) * linalg.matrix_norm(inv(A), p)


def tensorinv(A, ind=2):
    """The inverse of A read as a matrix (dims before ind as rows, after as columns), shaped
    A.shape[ind:] + A.shape[:ind]."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, columns = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    matrix = A.reshape(int(np.prod(rows)), int(np.prod(columns)))
    return inv(matrix).reshape(*columns, *rows)


def tensorsolve(A, B, dims=None):
    """X with tensordot(A, X, X.ndim) = B."""
    if dims is not None:
        order = [d for d in range(A.ndim) if d not in [d % A.ndim for d in dims]] + \
            [d % A.ndim for d in dims]
        A = A.permute(*order)
    solution_shape = tuple(A.shape[B.ndim:])
    matrix = A.reshape(B.numel(), int(np.prod(solution_shape)))
    return solve(matrix, B.reshape(-1)).reshape(*solution_shape)


PUBLIC = ("vander", "cond", "tensorinv", "tensorsolve", "inv_ex", "cholesky_ex", "solve_ex")
