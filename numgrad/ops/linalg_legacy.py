"""torch's older linear-algebra functions, kept for code written against them: svd (U, S, V with
some= and compute_uv=), qr (some=), triangular_solve (solution and a copy of the matrix),
nuclear_norm and frobenius_norm, on numgrad.linalg's, with torch's deprecation warnings."""
import warnings

from .. import creation
from .decompositions import _named_tuple, qr as linalg_qr, svd as linalg_svd
from .linalg_more import solve_triangular
from .shape import transpose as _transpose

svd_result = _named_tuple("svd", ("U", "S", "V"))
qr_result = _named_tuple("qr", ("Q", "R"))
triangular_solve_result = _named_tuple("triangular_solve", ("solution", "cloned_coefficient"))


def svd(input, some=True, compute_uv=True):
    """(U, S, V) with input = U diag(S) V^T: V, not linalg.svd's Vh; some=False gives square U
    and V; compute_uv=False gives zero U and V."""
    u, s, vh = linalg_svd(input, full_matrices=not some or not compute_uv)
    v = _transpose(vh, -2, -1)
    if not compute_uv:
        u = creation.zeros(*u.shape, dtype=u.dtype, device=u.device)
        v = creation.zeros(*v.shape, dtype=v.dtype, device=v.device)
    return svd_result(u, s, v)


def qr(input, some=True):
    warnings.warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a "
                  "future PyTorch release.\nThe boolean parameter 'some' has been replaced with a "
                  "string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\n"
                  "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')", UserWarning,
                  stacklevel=2)
    return qr_result(*linalg_qr(input, "reduced" if some else "complete"))


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """X with A X = b (A^T X = b with transpose) reading one triangle of A, and a copy of A."""
    warnings.warn("torch.triangular_solve is deprecated in favor of "
                  "torch.linalg.solve_triangularand will be removed in a future PyTorch release.\n"
                  "torch.linalg.solve_triangular has its arguments reversed and does not return a "
                  "copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould "
                  "be replaced with\nX = torch.linalg.solve_triangular(A, B).", UserWarning,
                  stacklevel=2)
    matrix = _transpose(A, -2, -1) if transpose else A
    solution = solve_triangular(matrix, b, upper=upper != transpose, unitriangular=unitriangular)
    return triangular_solve_result(solution, A.clone())


def nuclear_norm(input, dim=None, keepdim=False):
    """The sum of the singular values (deprecated in torch for linalg.matrix_norm(A, 'nuc'))."""
    from .. import linalg
    warnings.warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It "
                  "will be removed in a future PyTorch release. Please use `linalg.matrix_norm(A, "
                  "'nuc', dim, keepdim)` instead", UserWarning, stacklevel=2)
    return linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else dim, keepdim)


def frobenius_norm(input, dim=(), keepdim=False):
    """The 2-norm of the elements over dim (deprecated in torch for linalg.vector_norm)."""
    from .. import linalg
    warnings.warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. "
                  "It will be removed in a future PyTorch release. Please use "
                  "`linalg.vector_norm(A, 2., dim, keepdim)` instead", UserWarning, stacklevel=2)
    return linalg.vector_norm(input, 2.0, tuple(dim) or None, keepdim)


PUBLIC = ("svd", "qr", "triangular_solve", "nuclear_norm", "frobenius_norm")
METHODS = ("svd", "qr", "triangular_solve")
INPLACE = {}
