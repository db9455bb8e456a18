"""Spectral normalization (https://arxiv.org/abs/1802.05957) in its older form: a forward
pre-hook sets weight = weight_orig / sigma before each call, sigma estimated by power iteration
on the buffers weight_u and weight_v, as torch.nn.utils.spectral_norm."""
from ... import grad_mode
from ...ops import dot, mv
from .. import functional as F
from ..parameter import Parameter

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook spectral_norm registers."""

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.ndim) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with grad_mode.no_grad():
                # in place, as torch's out=: the buffers stay the objects state_dict holds
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(mv(weight_mat.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(mv(weight_mat, v), dim=0, eps=self.eps))
                # clones, so that the next iteration does not change what this graph saved
                u, v = u.clone(), v.clone()
        return weight / dot(u, mv(weight_mat, v))

    def remove(self, module):
        with grad_mode.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError("Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with grad_mode.no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).shape
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # until the first forward, weight is the unnormalized one, as in torch
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Replace module.<name> by name_orig / sigma(name_orig) before each forward, sigma its
    largest singular value, estimated by n_power_iterations of the power method per forward in
    training mode. dim: the output dimension (1 for transposed convolutions, 0 otherwise, by
    default). Returns module.

    >>> import numgrad as ng
    >>> lin = ng.nn.utils.spectral_norm(ng.nn.Linear(4, 3))
    >>> list(lin.state_dict())
    ['bias', 'weight_orig', 'weight_u', 'weight_v']
    """
    if dim is None:
        dim = _output_dim(module)
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def _output_dim(module):
    """The dim of module's weight that indexes outputs: 1 for transposed convolutions."""
    from ... import nn   # complete by the time this runs; not while nn itself is importing
    transposed = tuple(getattr(nn, f"ConvTranspose{n}d") for n in (1, 2, 3)
                       if hasattr(nn, f"ConvTranspose{n}d"))
    return 1 if isinstance(module, transposed) else 0


def remove_spectral_norm(module, name="weight"):
    """Undo spectral_norm: module.<name> becomes a parameter holding the normalized weight."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            # Module.__call__ skips its hook path only when no hook id is left
            module._registered_hook_ids.discard(key)
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
