"""Matrix decompositions and inverses as autograd Functions: det, slogdet, inv, solve, cholesky,
qr, eigh, svd and pinv, plus torch's top-level aliases (det, logdet, slogdet, inverse, cholesky,
pinverse, dist) and their Tensor methods. numgrad.linalg is the public face of the rest.

NumPy's LAPACK computes the forwards on the host; each backward is torch's formula (FunctionsManual)
written in differentiable numgrad ops, some calling the other Functions here (det's backward
inverts, solve's solves), so create_graph gives second and higher derivatives. All work on
batches (..., m, n) in float32 and float64.
"""
import collections

import numpy as np

from .. import creation, dtypes
from ..autograd.function import Function
from ..tensor import Tensor
from .elementwise import where
from .layout import diagonal, tril, triu
from .linalg import matmul
from .named import named
from .order_stats import diag_embed
from .reduce import norm, prod
from .shape import cat, stack
from .tensor_operands import tensor_operand
from .untracked import to_host

PUBLIC = ("det", "logdet", "slogdet", "inverse", "cholesky", "pinverse", "dist")
METHODS = PUBLIC
INPLACE = {}


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a matrix that is singular, or not positive-definite, where the
    operation needs one that is not."""


def _named_tuple(name, fields):
    """A named tuple printed as torch.return_types.<name>."""
    cls = collections.namedtuple(name, fields)
    cls.__module__ = "numgrad.return_types"
    cls.__repr__ = lambda self: (f"numgrad.return_types.{name}(\n" + ",\n".join(
        f"{f}={v!r}" for f, v in zip(fields, self)) + ")")
    return cls


# ---- checks with torch's messages ----------------------------------------------------------------
def check_matrices(name, A, square=True):
    data = A._data
    if data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if not dtypes.is_floating(data.dtype):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{dtypes.scalar_type_name(data.dtype)}")
    if square and data.shape[-1] != data.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{data.shape[-2]} by {data.shape[-1]} matrices")


def _batch_prefix(shape, flat_index):
    """torch names the failing matrix of a batch: '(Batch element k): '."""
    return f"(Batch element {flat_index}): " if len(shape) > 2 else ""


def _on_device(array, like):
    t = Tensor._make(np.array(array, like._data.dtype, order="C"), False)    # 0-d stays 0-d
    return t if type(like._data) is np.ndarray else t.to(like.device)


def _host(t):
    return to_host(t._data)


def _diagonal_mask(n, like):
    return creation.eye(n, dtype=dtypes.bool_, device=like.device)


# ---- inv, det, slogdet ---------------------------------------------------------------------------
def _singular_error(name, a):
    """torch's LinAlgError for an exactly singular matrix: the first zero pivot of its LU."""
    from scipy.linalg import lapack     # on the error path only: SciPy is slow to import
    for k, matrix in enumerate(a.reshape((-1,) + a.shape[-2:])):
        (getrf,) = lapack.get_lapack_funcs(("getrf",), (matrix,))
        zero_pivot = getrf(matrix)[2]          # LAPACK's info: the first zero of U's diagonal
        if zero_pivot > 0:
            raise LinAlgError(f"{name}: {_batch_prefix(a.shape, k)}The diagonal element "
                              f"{zero_pivot} is zero, the inversion could not be completed "
                              "because the input matrix is singular.")
    raise LinAlgError(f"{name}: The input matrix is singular.")


class LinalgInvEx(Function):
    @staticmethod
    def forward(ctx, A):
        ctx.node_name = "LinalgInvExBackward0"
        a = _host(A)
        try:
            out = _on_device(np.linalg.inv(a), A)
        except np.linalg.LinAlgError:
            _singular_error("linalg.inv", a)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        # d(A^-1) = -A^-1 dA A^-1, so gA = -A^-T g A^-T
        (X,) = ctx.saved_tensors
        return -matmul(X.mT, matmul(g, X.mT))


def inv(A):
    check_matrices("linalg.inv", A)
    return LinalgInvEx.apply(A)


def inverse(input):
    return inv(input)


class LinalgDet(Function):
    @staticmethod
    def forward(ctx, A):
        ctx.node_name = "LinalgDetBackward0"
        out = _on_device(np.linalg.det(_host(A)), A)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, g):
        # d det = tr(adj(A) dA), and adj(A)^T = det A^-T where A is invertible
        A, d = ctx.saved_tensors
        eps = np.finfo(A._data.dtype).eps
        if np.all(np.abs(_host(d)) >= 100 * eps):      # torch's test for "singular"
            return (g * d).unsqueeze(-1).unsqueeze(-1) * inv(A).mT
        return _det_backward_singular(A, g)


def _det_backward_singular(A, g):
    """adj(A)^T from an SVD, which exists for singular A too: with A = U diag(S) Vh,
    adj(A)^T = det(U) det(Vh) U diag(prod_{j != i} S_j) Vh (torch's formula)."""
    U, S, Vh = LinalgSvd.apply(A)
    orientation = np.linalg.det(_host(U)) * np.linalg.det(_host(Vh))    # +-1: no gradient
    n = S.shape[-1]
    others = stack([prod(cat([S[..., :i], S[..., i + 1:]], -1), -1) for i in range(n)], -1)
    scale = g * _on_device(orientation, A)
    return matmul(U * (scale.unsqueeze(-1) * others).unsqueeze(-2), Vh)


def det(A):
    check_matrices("linalg.det", A)
    return LinalgDet.apply(A)


class LinalgSlogdet(Function):
    @staticmethod
    def forward(ctx, A):
        ctx.node_name = "LinalgSlogdetBackward0"
        ctx.set_materialize_grads(False)
        sign, logabsdet = np.linalg.slogdet(_host(A))
        sign, logabsdet = _on_device(sign, A), _on_device(logabsdet, A)
        # sign is an output of torch's node too (differentiable for complex inputs); for real
        # ones its gradient is dropped
        ctx.save_for_backward(A)
        return sign, logabsdet

    @staticmethod
    def backward(ctx, g_sign, g_logabsdet):
        if g_logabsdet is None:
            return None
        (A,) = ctx.saved_tensors
        return g_logabsdet.unsqueeze(-1).unsqueeze(-1) * inv(A).mT


slogdet_result = _named_tuple("slogdet", ("sign", "logabsdet"))
linalg_slogdet = _named_tuple("linalg_slogdet", ("sign", "logabsdet"))


def _slogdet(name, A, result_type):
    check_matrices(name, A)
    return result_type(*LinalgSlogdet.apply(A))


def slogdet(input):
    """(sign, log|det|) of square matrices; only log|det| is differentiable."""
    return _slogdet("linalg.slogdet", input, slogdet_result)


def logdet(input):
    """log det(A): nan where det < 0, -inf where it is 0."""
    sign, logabsdet = _slogdet("linalg.slogdet", input, slogdet_result)
    return where(sign < 0, creation.tensor(float("nan"), dtype=input.dtype, device=input.device),
                 logabsdet)


# ---- solve ---------------------------------------------------------------------------------------
class LinalgSolveEx(Function):
    """X = A^-1 B for matrices B, or for vectors B (`vector`) as one node, as torch's (batch dims
    broadcast)."""

    @staticmethod
    def forward(ctx, A, B, vector, left=True):
        ctx.node_name = "LinalgSolveExBackward0"
        ctx.vector, ctx.left = vector, left
        a, b = _host(A), _host(B)
        if not left:        # X A = B is A^T X^T = B^T
            a, b = a.swapaxes(-1, -2), b.swapaxes(-1, -2)
        try:
            out = np.linalg.solve(a, b[..., None] if vector else b)
        except np.linalg.LinAlgError:
            stack = a.reshape((-1,) + a.shape[-2:])
            bad = next((k for k, m in enumerate(stack) if np.linalg.matrix_rank(m) < len(m)), 0)
            raise LinAlgError(f"torch.linalg.solve: {_batch_prefix(a.shape, bad)}The solver failed "
                              "because the input matrix is singular.") from None
        out = _on_device(out[..., 0] if vector else out.swapaxes(-1, -2) if not left else out, A)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, g):
        # left: gB = A^-T g, gA = -gB X^T (outer products of the vectors); X A = B (not left):
        # gB = g A^-T, gA = -X^T gB
        A, X = ctx.saved_tensors
        gB = LinalgSolveEx.apply(A.mT, g, ctx.vector, ctx.left)
        gA = None
        if ctx.needs_input_grad[0]:
            if ctx.vector:
                gA = -matmul(gB.unsqueeze(-1), X.unsqueeze(-2))
            else:
                gA = -matmul(gB, X.mT) if ctx.left else -matmul(X.mT, gB)
        return gA, gB, None, None


def solve(A, B, *, left=True):
    """X with A X = B (X A = B when left=False). B is a batch of vectors when it is 1-d or has
    A's shape without its last dim, as in torch."""
    check_matrices("linalg.solve", A)
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of "
                           f"type {dtypes.scalar_type_name(A._data.dtype)} and B of type "
                           f"{dtypes.scalar_type_name(B._data.dtype)} instead")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    n = A.shape[-1]
    rows, cols = (B.shape[-1], 1) if vector else (B.shape[-2], B.shape[-1])
    # torch reads a vector B as a column, which X A = B (not left) fits only when n is 1
    if (rows if left else cols) != n or vector and not left:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX' if left else 'XA'} = B ({n}x{n} and {rows}x{cols})")
    return LinalgSolveEx.apply(A, B, vector, left)


# ---- cholesky ------------------------------------------------------------------------------------
def _halved_tril(X):
    """The lower triangle of X with its diagonal halved (torch's Phi)."""
    return tril(X) - 0.5 * diag_embed(diagonal(X, 0, -2, -1))


class LinalgCholeskyEx(Function):
    """L, or U = L^T (upper), as one node: torch's linalg_cholesky_ex, or its deprecated
    cholesky (node_name CholeskyBackward0)."""

    @staticmethod
    def forward(ctx, A, upper=False, node_name="LinalgCholeskyExBackward0"):
        ctx.node_name = node_name
        ctx.upper = upper
        a = _host(A)
        try:
            L = _on_device(np.linalg.cholesky(a), A)
        except np.linalg.LinAlgError:
            from scipy.linalg import lapack
            for k, matrix in enumerate(a.reshape((-1,) + a.shape[-2:])):
                (potrf,) = lapack.get_lapack_funcs(("potrf",), (matrix,))
                order = potrf(matrix, lower=1)[1]
                if order > 0:
                    raise LinAlgError(
                        f"linalg.cholesky: {_batch_prefix(a.shape, k)}The factorization could not "
                        "be completed because the input is not positive-definite (the leading "
                        f"minor of order {order} is not positive-definite).") from None
            raise
        if upper:
            L = L.mT.contiguous()
        ctx.save_for_backward(L)
        return L

    @staticmethod
    def backward(ctx, gL):
        # gA = L^-T Phi(L^T gL) L^-1, symmetrized (torch's cholesky_backward)
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L, gL = L.mT, gL.mT
        phi = _halved_tril(matmul(L.mT, tril(gL)))
        L_inv = inv(L)
        gA = matmul(L_inv.mT, matmul(phi, L_inv))
        return 0.5 * (gA + gA.mT), None, None


def linalg_cholesky(A, *, upper=False):
    """The lower Cholesky factor L (A = L L^T) of symmetric positive-definite matrices (its
    transpose when upper); only A's lower triangle is read."""
    check_matrices("linalg.cholesky", A)
    return LinalgCholeskyEx.apply(A, upper)


def cholesky(input, upper=False):
    check_matrices("linalg.cholesky", input)
    return LinalgCholeskyEx.apply(input, upper, "CholeskyBackward0")


# ---- qr ------------------------------------------------------------------------------------------
class LinalgQr(Function):
    """Q and R as one node, for every mode and shape (mode 'r': Q empty), as torch's."""

    @staticmethod
    def forward(ctx, A, mode):
        ctx.node_name = "LinalgQrBackward0"
        ctx.set_materialize_grads(False)
        ctx.mode = mode
        Q, R = np.linalg.qr(_host(A), mode="complete" if mode == "complete" else "reduced")
        Q, R = _on_device(Q, A), _on_device(R, A)
        ctx.save_for_backward(Q, R)
        if mode == "r":
            Q = _on_device(np.zeros(0), A)
        return Q, R

    @staticmethod
    def backward(ctx, gQ, gR):
        Q, R = ctx.saved_tensors
        m, n = Q.shape[-2], R.shape[-1]
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you are "
                               "going to differentiate through linalg.qr.")
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                               "and nrows > ncols.")
        if m >= n:
            return _qr_backward(gQ, gR, Q, R), None
        # A = [X | Y] = Q [U | V] with X = Q U square and V = Q^T Y (torch's linalg_qr_backward)
        U, V = R[..., :m], R[..., m:]
        gU, gV = (gR[..., :m], gR[..., m:]) if gR is not None else (None, None)
        if gV is not None:
            through_Y = matmul(matmul(Q, V), gV.mT)
            gQ = through_Y if gQ is None else gQ + through_Y
        gX = _qr_backward(gQ, gU, Q, U)
        gY = matmul(Q, gV) if gV is not None else creation.zeros_like(V)
        return cat([gX, gY], -1), None


def _qr_backward(gQ, gR, Q, R):
    """gA = [Q copyltu(M) + gQ] R^-T with M = triu(gR R^T - Q^T gQ), for A with m >= n."""
    if gR is not None:
        M = matmul(gR, R.mT) - (matmul(Q.mT, gQ) if gQ is not None else 0)
    else:
        M = -matmul(Q.mT, gQ)
    M = triu(M)
    M = M + M.mT - diag_embed(diagonal(M, 0, -2, -1))
    gA = matmul(Q, M)
    if gQ is not None:
        gA = gA + gQ
    return LinalgSolveEx.apply(R, gA.mT, False).mT


linalg_qr = _named_tuple("linalg_qr", ("Q", "R"))


def qr(A, mode="reduced"):
    """A = Q R with orthonormal columns in Q and upper-triangular R ('reduced', 'complete', or
    'r': R alone, Q empty)."""
    check_matrices("linalg.qr", A, square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    return linalg_qr(*LinalgQr.apply(A, mode))


# ---- eigh ----------------------------------------------------------------------------------------
class LinalgEigh(Function):
    @staticmethod
    def forward(ctx, A, UPLO):
        ctx.node_name = "LinalgEighBackward0"
        ctx.set_materialize_grads(False)
        w, V = np.linalg.eigh(_host(A), UPLO=UPLO)
        w, V = _on_device(w, A), _on_device(V, A)
        ctx.save_for_backward(w, V)
        return w, V

    @staticmethod
    def backward(ctx, gL, gV):
        # gA = V (diag(gL) + skew(V^T gV) / E) V^T with E_ij = L_j - L_i off the diagonal and
        # skew(X) = (X - X^T) / 2, so gA is symmetric (torch's linalg_eig_backward, Hermitian)
        L, V = ctx.saved_tensors
        eye = _diagonal_mask(V.shape[-1], V)
        if gV is None:
            inner = diag_embed(gL)
        else:
            gaps = L.unsqueeze(-2) - L.unsqueeze(-1)
            VhgV = matmul(V.mT, gV)
            inner = 0.5 * (VhgV - VhgV.mT) / where(eye, 1.0, gaps)
            inner = where(eye, diag_embed(gL) if gL is not None else 0.0, inner)
        return matmul(V, matmul(inner, V.mT)), None


linalg_eigh = _named_tuple("linalg_eigh", ("eigenvalues", "eigenvectors"))


def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric matrices, from the
    triangle UPLO names."""
    check_matrices("linalg.eigh", A)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return linalg_eigh(*LinalgEigh.apply(A, UPLO))


def eigvalsh(A, UPLO="L"):
    return eigh(A, UPLO).eigenvalues


# ---- svd -----------------------------------------------------------------------------------------
class LinalgSvd(Function):
    """The SVD as one node; with full_matrices the extra columns of U (rows of Vh) complete an
    orthonormal basis, and as in torch their gradients are dropped."""

    @staticmethod
    def forward(ctx, A, full_matrices=False):
        ctx.node_name = "LinalgSvdBackward0"
        ctx.set_materialize_grads(False)
        U, S, Vh = np.linalg.svd(_host(A), full_matrices=full_matrices)
        U, S, Vh = _on_device(U, A), _on_device(S, A), _on_device(Vh, A)
        ctx.save_for_backward(U, S, Vh)
        return U, S, Vh

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        # torch's svd_backward (real case), on the first k columns of U and rows of Vh
        U, S, Vh = ctx.saved_tensors
        k = S.shape[-1]
        if U.shape[-1] != k or Vh.shape[-2] != k:
            U, Vh = U[..., :k], Vh[..., :k, :]
            gU = gU[..., :k] if gU is not None else None
            gVh = gVh[..., :k, :] if gVh is not None else None
        m, n = U.shape[-2], Vh.shape[-1]
        if gU is None and gVh is None:
            return matmul(U * gS.unsqueeze(-2), Vh), None
        eye = _diagonal_mask(S.shape[-1], S)
        row, col = S.unsqueeze(-1), S.unsqueeze(-2)
        gaps = where(eye, 1.0, (col - row) * (col + row))       # E_ij = S_j^2 - S_i^2
        V = Vh.mT
        gV = gVh.mT if gVh is not None else None
        inner = 0.0
        if gU is not None:
            UhgU = matmul(U.mT, gU)
            inner = (UhgU - UhgU.mT) * col
        if gV is not None:
            VhgV = matmul(V.mT, gV)
            inner = inner + row * (VhgV - VhgV.mT)
        inner = inner / gaps
        if gS is not None:
            inner = inner + diag_embed(gS)
        if m > n and gU is not None:
            gUSinv = gU / col
            return matmul(matmul(U, inner) + gUSinv - matmul(U, matmul(U.mT, gUSinv)), Vh), None
        if m < n and gV is not None:
            gVSinv = gV / col
            return (matmul(U, matmul(inner, Vh) + gVSinv.mT - matmul(matmul(gVSinv.mT, V), Vh)),
                    None)
        return matmul(U, matmul(inner, Vh)), None


linalg_svd = _named_tuple("linalg_svd", ("U", "S", "Vh"))


def svd(A, full_matrices=True):
    """A = U diag(S) Vh, S descending. With full_matrices the extra columns of U (rows of Vh)
    complete an orthonormal basis; as in torch they get no gradient."""
    check_matrices("linalg.svd", A, square=False)
    return linalg_svd(*LinalgSvd.apply(A, bool(full_matrices)))


def svdvals(A):
    """Singular values, descending; their gradient is U diag(g) Vh."""
    check_matrices("linalg.svd", A, square=False)
    return LinalgSvd.apply(A)[1]


# ---- pinv ----------------------------------------------------------------------------------------
def _pinv_tolerance(s, atol, rtol, shape):
    """torch's cut-off: singular values at most max(atol, rtol * largest) count as zero; rtol
    defaults to eps * max(m, n) when neither is given, and to 0 when only atol is."""
    eps = np.finfo(s.dtype).eps
    if rtol is None:
        rtol = eps * max(shape[-2:]) if atol is None else 0.0
    atol = 0.0 if atol is None else atol
    atol, rtol = (_host(t) if isinstance(t, Tensor) else t for t in (atol, rtol))
    largest = s[..., :1] if s.shape[-1] else np.zeros(s.shape[:-1] + (1,), s.dtype)
    return np.maximum(atol, rtol * largest)


class LinalgPinv(Function):
    @staticmethod
    def forward(ctx, A, atol, rtol, hermitian):
        ctx.node_name = "LinalgPinvBackward0"
        a = _host(A)
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        tolerance = _pinv_tolerance(s, atol, rtol, a.shape)
        kept = np.where(s > tolerance, 1 / np.where(s > tolerance, s, 1), 0).astype(a.dtype)
        out = _on_device(np.matmul(vh.swapaxes(-1, -2) * kept[..., None, :], u.swapaxes(-1, -2)), A)
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx, g):
        # torch's pinv_backward, written for the smaller of the two products
        A, P = ctx.saved_tensors
        m, n = A.shape[-2:]
        Ph, gh = P.mT, g.mT
        if m <= n:
            K = matmul(gh, P)
            KPh = matmul(K, Ph)
            gA = (-matmul(P, K).mT + KPh - matmul(matmul(A, P), KPh)
                  + matmul(matmul(Ph, P), gh - matmul(K, A)))
        else:
            K = matmul(P, gh)
            PhK = matmul(Ph, K)
            gA = (-matmul(K, P).mT + matmul(matmul(gh - matmul(A, K), P), Ph) + PhK
                  - matmul(matmul(PhK, P), A))
        return gA, None, None, None


def pinv(A, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse, by an SVD with torch's cut-off for small singular
    values (hermitian only skips no work here: the SVD serves both)."""
    if A.ndim < 2 or not dtypes.is_floating(A._data.dtype):
        raise RuntimeError(f"linalg.pinv({dtypes.scalar_type_name(A._data.dtype)}"
                           f"{{{list(A.shape)}}}): expected a tensor with 2 or more dimensions of "
                           "float, double, cfloat or cdouble types")
    return LinalgPinv.apply(A, atol, rtol, hermitian)


def pinverse(input, rcond=1e-15):
    return pinv(input, rtol=rcond)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False):
    """The number of singular values above torch's cut-off (int64, not differentiable)."""
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least "
                           "2 dimensions.")
    check_matrices("linalg.svd", A, square=False)
    s = np.linalg.svd(_host(A), compute_uv=False)
    rank = np.array(np.sum(s > _pinv_tolerance(s, atol, rtol, A.shape), axis=-1), np.int64)
    return Tensor._make(rank, False).to(A.device)


@tensor_operand()
def dist(input, other, p=2):
    """The p-norm of input - other."""
    return named(norm(input - other, p), "DistBackward0", input, other,
                 saved_names=("self", "other"))
