"""Ready-made parametrizations (see nn.utils.parametrize), as torch.nn.utils.parametrizations."""
from ..module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["weight_norm"]


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
