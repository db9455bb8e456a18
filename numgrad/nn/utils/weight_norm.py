"""Weight normalization (https://arxiv.org/abs/1602.07868) in its older, deprecated form: a
forward pre-hook recomputes weight from the parameters weight_g (magnitude) and weight_v
(direction) before each call, as torch.nn.utils.weight_norm."""
import warnings

from ...ops.named import named, rename
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim"]


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm of each slice of v along dim, shaped to broadcast against v (size 1 in
    every other dimension); dim=-1 means the norm of all of v (torch's convention). Its nodes
    are torch's C++ function's: at::norm (NormBackward0, NormBackward1 along a dim) of a
    contiguous view."""
    if dim == -1:
        return rename(v.norm(pow), "NormBackward0")
    if dim == 0:
        norms = rename(v.contiguous().view(v.shape[0], -1).norm(pow, 1), "NormBackward1")
        return norms.view(v.shape[0], *[1] * (v.ndim - 1))
    if dim == v.ndim - 1:
        norms = rename(v.contiguous().view(-1, v.shape[-1]).norm(pow, 0), "NormBackward1")
        return norms.view(*[1] * (v.ndim - 1), v.shape[-1])
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v, g, dim=0):
    """v scaled so that its norm along dim (see norm_except_dim) is g, as torch._weight_norm:
    along the first or last dimension torch computes it in one fused op, whose node
    (WeightNormInterfaceBackward0, saving v and g) the result carries; along another dimension
    or all of v (dim -1) torch composes it from the same ops as here, ending in MulBackward0."""
    result = v * (g / norm_except_dim(v, 2, dim))
    if dim not in (0, v.ndim - 1):
        return result
    return named(result, "WeightNormInterfaceBackward0", v, g, saved_names=("v", "g"),
                 attributes={"dim": dim})


class WeightNorm:
    """The forward pre-hook weight_norm registers."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"),
                            self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError("Cannot register two weight_norm hooks on the same parameter "
                                   f"{name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Replace module.<name> by name_g * name_v / ||name_v|| (norms per slice along dim, of the
    whole tensor when dim is None), recomputed before each forward. Deprecated in favor of
    nn.utils.parametrizations.weight_norm, as in torch. Returns module.

    >>> import warnings
    >>> import numgrad as ng
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     lin = ng.nn.utils.weight_norm(ng.nn.Linear(3, 2))
    >>> [(name, tuple(p.shape)) for name, p in lin.named_parameters()]
    [('bias', (2,)), ('weight_g', (2, 1)), ('weight_v', (2, 3))]
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo weight_norm: module.<name> becomes a parameter again, holding the current weight."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            # Module.__call__ skips its hook path only when no hook id is left
            module._registered_hook_ids.discard(key)
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
