"""Normalisation layers: LayerNorm, RMSNorm, GroupNorm, LocalResponseNorm, BatchNorm1d/2d/3d and
InstanceNorm1d/2d, over the functional forms in functional_norm.py."""
import warnings

import numpy as np

from .. import creation, grad_mode
from ..tensor import Tensor
from . import functional as F
from .module import Module
from .parameter import Parameter


def _ones_and_zeros(weight, bias):
    """A norm layer's affine parameters as its reset_parameters makes them. torch's __init__
    makes them empty and fills them there, in place: each starts at version 1."""
    with grad_mode.no_grad():
        if weight is not None:
            weight.fill_(1)
        if bias is not None:
            bias.zero_()


class LayerNorm(Module):
    """Normalise over the last dims (normalized_shape), then scale by weight (ones) and shift by
    bias (zeros).

    >>> import numgrad as ng
    >>> ng.nn.LayerNorm(4)
    LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            place = {"dtype": dtype, "device": device}
            self.weight = Parameter(creation.empty(*self.normalized_shape, **place))
            self.register_parameter("bias", Parameter(creation.empty(*self.normalized_shape,
                                                                     **place)) if bias else None)
        else:
            # torch registers absent parameters as None
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        _ones_and_zeros(self.weight, self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class RMSNorm(Module):
    """Divide by the root mean square over the last dims (normalized_shape), then scale by weight
    (ones); eps=None is the machine epsilon of the input's dtype.

    >>> import numgrad as ng
    >>> ng.nn.RMSNorm([2, 3])
    RMSNorm((2, 3), eps=None, elementwise_affine=True)
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        place = {"dtype": dtype, "device": device}
        self.register_parameter("weight", Parameter(creation.empty(*self.normalized_shape, **place))
                                if elementwise_affine else None)
        self.reset_parameters()

    def reset_parameters(self):
        _ones_and_zeros(self.weight, None)

    def forward(self, input):
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class GroupNorm(Module):
    """Normalise groups of channels of (N, C, *) inputs, then scale and shift per channel.

    >>> import numgrad as ng
    >>> ng.nn.GroupNorm(2, 4)
    GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None,
                 *, bias=True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        place = {"dtype": dtype, "device": device}
        self.register_parameter("weight", Parameter(creation.empty(num_channels, **place))
                                if affine else None)
        self.register_parameter("bias", Parameter(creation.empty(num_channels, **place))
                                if affine and bias else None)
        self.reset_parameters()

    def reset_parameters(self):
        _ones_and_zeros(self.weight, self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class LocalResponseNorm(Module):
    """Divide each channel by a power of the mean square over `size` neighbouring channels.

    >>> import numgrad as ng
    >>> ng.nn.LocalResponseNorm(3)
    LocalResponseNorm(3, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class _NormBase(Module):
    """Per-channel weight (ones) and bias (zeros) when affine; running_mean, running_var and
    num_batches_tracked buffers when track_running_stats (torch's names, so state dicts match)."""

    _version = 2     # num_batches_tracked came with version 2

    def __init__(self, num_features, eps, momentum, affine, track_running_stats, device, dtype,
                 bias):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        place = {"dtype": dtype, "device": device}
        # torch registers absent parameters and buffers as None
        self.register_parameter("weight", Parameter(creation.empty(num_features, **place))
                                if affine else None)
        self.register_parameter("bias", Parameter(creation.empty(num_features, **place))
                                if affine and bias else None)
        if track_running_stats:
            self.register_buffer("running_mean", creation.empty(num_features, **place))
            self.register_buffer("running_var", creation.empty(num_features, **place))
            self.register_buffer("num_batches_tracked",
                                 Tensor._make(np.array(0, np.int64), False).to(device or "cpu"))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        _ones_and_zeros(self.weight, self.bias)

    def _upgrade_state_dict(self, state_dict, prefix, local_metadata):
        # checkpoints from before num_batches_tracked existed (version 1, or a plain dict that
        # carries no version) load with the current count, as torch's
        key = prefix + "num_batches_tracked"
        version = local_metadata.get("version")
        if (version is None or version < 2) and self.track_running_stats \
                and key not in state_dict:
            state_dict[key] = self.num_batches_tracked

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    """In training, batch statistics normalise and update the running ones (momentum None means a
    cumulative average); in eval mode the running statistics are used, or the batch's when they
    are not tracked."""

    expected_dims = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias)

    def forward(self, input):
        if input.ndim not in self.expected_dims:
            allowed = " or ".join(f"{d}D" for d in self.expected_dims)
            raise ValueError(f"expected {allowed} input (got {input.ndim}D input)")
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with grad_mode.no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                momentum = 1.0 / float(self.num_batches_tracked)
        use_batch = self.training or not self.track_running_stats
        # without tracking, running_mean and running_var are None: batch statistics always
        return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                            use_batch, momentum, self.eps)


class BatchNorm1d(_BatchNorm):
    """Normalise each feature over the batch of (N, C) or (N, C, L) inputs.

    >>> import numgrad as ng
    >>> bn = ng.nn.BatchNorm1d(3)
    >>> bn(ng.randn(8, 3)).shape
    numgrad.Size([8, 3])
    >>> [name for name, _ in bn.named_buffers()]
    ['running_mean', 'running_var', 'num_batches_tracked']
    """

    expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Normalise each channel of (N, C, H, W) inputs over the batch and the plane.

    >>> import numgrad as ng
    >>> ng.nn.BatchNorm2d(3)(ng.randn(2, 3, 4, 4)).shape
    numgrad.Size([2, 3, 4, 4])
    """

    expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Normalise each channel of (N, C, D, H, W) inputs over the batch and the volume."""

    expected_dims = (5,)


class _InstanceNorm(_NormBase):
    """Each sample's channels normalised over their own spatial dims. With track_running_stats the
    running statistics are updated in training (momentum None: not at all, as torch) and normalise
    in eval mode."""

    expected_dims = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias)

    def forward(self, input):
        unbatched, batched = self.expected_dims
        if input.ndim not in self.expected_dims:
            raise ValueError(f"expected {unbatched}D or {batched}D input (got {input.ndim}D input)")
        feature_dim = input.ndim - unbatched
        if input.shape[feature_dim] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.shape[feature_dim]}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can "
                          "silence this warning by not passing in num_features, which is not used "
                          "because affine=False", UserWarning, stacklevel=2)
        if input.ndim == unbatched:
            return self._normalize(input.unsqueeze(0)).squeeze(0)
        return self._normalize(input)

    def _normalize(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               0.0 if self.momentum is None else self.momentum, self.eps)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or unbatched (C, L) inputs.

    >>> import numgrad as ng
    >>> ng.nn.InstanceNorm1d(3)  # doctest: +NORMALIZE_WHITESPACE
    InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False,
                   track_running_stats=False)
    """

    expected_dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or unbatched (C, H, W) inputs.

    >>> import numgrad as ng
    >>> ng.nn.InstanceNorm2d(2)(ng.randn(1, 2, 3, 3)).shape
    numgrad.Size([1, 2, 3, 3])
    """

    expected_dims = (3, 4)
