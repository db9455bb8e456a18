"""Ready-made parametrizations (see nn.utils.parametrize), as torch.nn.utils.parametrizations."""
from enum import Enum, auto

import numpy as np

from ... import grad_mode
from ...creation import as_tensor, eye, randn, zeros_like
from ...dtype_info import finfo
from ...ops import cat, mv, vdot
from ...ops.composite import allclose
from ...ops.decompositions import solve
from ...ops.linalg_more import matrix_exp
from ...tensor import Tensor
from .. import functional as F
from ..module import Module
from . import parametrize
from .spectral_norm import _output_dim
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    """weight = g * v / ||v||, from (original0, original1) = (g, v)."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Parametrize module.<name> as g * v / ||v|| (norms per slice along dim, of the whole
    tensor when dim is None): parametrizations.<name>.original0 is g, original1 is v. A
    state_dict of the deprecated nn.utils.weight_norm (<name>_g, <name>_v) loads into it.
    Returns module.

    >>> import numgrad as ng
    >>> from numgrad.nn.utils.parametrizations import weight_norm
    >>> lin = weight_norm(ng.nn.Linear(3, 2))
    >>> [(name, tuple(p.shape)) for name, p in lin.named_parameters()]
    [('bias', (2,)), ('parametrizations.weight.original0', (2, 1)),
     ('parametrizations.weight.original1', (2, 3))]
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    upgrade = module._upgrade_state_dict

    def upgrade_weight_norm(state_dict, prefix, local_metadata):
        # torch does this in a load_state_dict pre-hook; numgrad's Module asks each module
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)
        upgrade(state_dict, prefix, local_metadata)

    object.__setattr__(module, "_upgrade_state_dict", upgrade_weight_norm)
    return module


class _SpectralNorm(Module):
    """weight / sigma, sigma the largest singular value of weight as a matrix (dim first, the
    rest flattened), estimated by power iteration on the buffers _u and _v; a 1-D weight is just
    normalized."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from good singular vectors rather than random ones
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # in place, as torch's out=: the buffers stay the objects state_dict and users hold
        with grad_mode.no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mv(weight_mat.T, self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # clones: the next power iteration updates the buffers in place, which would otherwise
        # invalidate what this graph saved
        u, v = self._u.clone(), self._v.clone()
        return weight / vdot(u, mv(weight_mat, v))

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Parametrize module.<name> as weight / sigma(weight), its largest singular value, estimated
    by n_power_iterations of the power method each time it is read in training mode. dim: the
    output dimension (1 for transposed convolutions, 0 otherwise, by default). Returns module.

    >>> import numgrad as ng
    >>> from numgrad.nn.utils.parametrizations import spectral_norm
    >>> lin = ng.nn.Linear(2, 2)
    >>> lin.weight.data = ng.tensor([[3., 0.], [0., 1.]])
    >>> lin = spectral_norm(lin)
    >>> lin.weight
    tensor([[1.0000, 0.0000],
            [0.0000, 0.3333]], grad_fn=<DivBackward0>)
    >>> sorted(lin.state_dict())
    ['bias', 'parametrizations.weight.0._u', 'parametrizations.weight.0._v',
     'parametrizations.weight.original']
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = _output_dim(module)
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module



def _is_orthogonal(Q):
    n, k = Q.shape[-2], Q.shape[-1]
    Id = eye(k, dtype=Q.dtype, device=Q.device)
    return allclose(Q.mH @ Q, Id, atol=10.0 * n * finfo(Q.dtype).eps)


def _geqrf(A):
    """LAPACK's geqrf of each matrix in A: (Householder vectors below the diagonal and R on and
    above it, tau), which NumPy's qr gives in its 'raw' mode (transposed)."""
    a = np.asarray(A.cpu()._data)
    flat = a.reshape(-1, *a.shape[-2:])
    raws = [np.linalg.qr(m, mode="raw") for m in flat]
    X = np.stack([h.T for h, _ in raws]).reshape(a.shape)
    tau = np.stack([t for _, t in raws]).reshape(*a.shape[:-2], -1)
    return (as_tensor(X.astype(a.dtype)).to(A.device),
            as_tensor(tau.astype(a.dtype)).to(A.device))


def _householder_product(A, tau):
    """The first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T with v_i column i of A below
    the diagonal and 1 on it (torch.linalg.householder_product), from differentiable ops."""
    n, k = A.shape[-2], A.shape[-1]
    V = A.tril(-1) + eye(n, k, dtype=A.dtype, device=A.device)
    Q = eye(n, k, dtype=A.dtype, device=A.device).expand(*A.shape)
    for i in reversed(range(k)):
        v = V[..., :, i:i + 1]
        Q = Q - tau[..., i:i + 1].unsqueeze(-1) * (v @ (v.mT @ Q))
    return Q


def _make_orthogonal(A):
    """The Q of A = QR (A tall) with diag(R) non-negative."""
    X, tau = _geqrf(A)
    Q = _householder_product(X, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """An orthogonal matrix (or batch of them) from an unconstrained one through orthogonal_map;
    with use_trivialization, the result is base @ that, base a buffer that right_inverse sets."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                Id = eye(n, dtype=A.dtype, device=A.device)
                Q = solve(Id - 0.5 * A, Id + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            # torch's truncation to int: the diagonal right_inverse sets is exactly -1 or 1
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with grad_mode.no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                          "or the Cayley parametrizations when "
                                          "use_trivialization=False.")
            # the reflectors of Q's QR, with the signs of diag(R) where forward reads them
            A, tau = _geqrf(Q)
            diag = A.diagonal(dim1=-2, dim2=-1)
            diag.copy_(diag.sign() * (1 - 2 * (tau == 0.0).to(A.dtype)))
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:
            N = randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        neg_Id = zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Parametrize module.<name> (a matrix or a batch of them) as an orthogonal matrix:
    orthonormal columns, or rows when it is wide. orthogonal_map: "matrix_exp" or "cayley" of a
    skew-symmetric matrix, or "householder" reflectors (the default for non-square matrices).
    use_trivialization: keep a base matrix in parametrizations.<name>[0].base, which the
    original moves away from. The initial value is the original's (its QR's Q when it is not
    orthogonal). Returns module.

    >>> import numgrad as ng
    >>> from numgrad.nn.utils.parametrizations import orthogonal
    >>> Q = orthogonal(ng.nn.Linear(3, 5)).weight
    >>> bool(ng.allclose(Q.T @ Q, ng.eye(3), atol=1e-5))
    True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.shape[-2] == weight.shape[-1]
                          or weight.is_complex() else "householder")
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
