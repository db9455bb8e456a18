"""Ready-made parametrizations (see nn.utils.parametrize), as torch.nn.utils.parametrizations."""
from ... import grad_mode
from ...ops import mv, vdot
from ...tensor import Tensor
from .. import functional as F
from ..module import Module
from . import parametrize
from .spectral_norm import _output_dim
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["spectral_norm", "weight_norm"]


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
    [('bias', (2,)), ('parametrizations.weight.original0', (2, 1)), ('parametrizations.weight.original1', (2, 3))]
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    upgrade = module._upgrade_state_dict

    def upgrade_weight_norm(state_dict, prefix):
        # torch does this in a load_state_dict pre-hook; numgrad's Module asks each module
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)
        upgrade(state_dict, prefix)

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
    >>> lin = spectral_norm(ng.nn.Linear(4, 3))
    >>> float(ng.linalg.matrix_norm(lin.weight, 2)) - 1 < 1e-4
    True
    >>> sorted(lin.state_dict())
    ['bias', 'parametrizations.weight.0._u', 'parametrizations.weight.0._v', 'parametrizations.weight.original']
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = _output_dim(module)
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module

