"""Normalisation layers: LayerNorm and BatchNorm1d."""
import numpy as np

from .. import creation, grad_mode
from ..tensor import Tensor
from . import functional as F
from .module import Module
from .parameter import Parameter


class LayerNorm(Module):
    """Normalise over the last dims (normalized_shape), then scale by weight (ones) and shift by
    bias (zeros).

    >>> import numgrad as ng
    >>> ng.nn.LayerNorm(4)
    LayerNorm((4,), eps=1e-05, elementwise_affine=True)
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(creation.ones(*self.normalized_shape, dtype=dtype))
            self.bias = Parameter(creation.zeros(*self.normalized_shape, dtype=dtype)) \
                if bias else None
        else:
            self.weight = None
            self.bias = None

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class BatchNorm1d(Module):
    """Normalise each feature over the batch of (N, C) or (N, C, L) inputs.

    In training, batch statistics normalise and update the running ones (running_mean,
    running_var buffers; momentum None means a cumulative average); in eval mode the running
    statistics are used.

    >>> import numgrad as ng
    >>> bn = ng.nn.BatchNorm1d(3)
    >>> bn(ng.randn(8, 3)).shape
    numgrad.Size([8, 3])
    >>> [name for name, _ in bn.named_buffers()]
    ['running_mean', 'running_var', 'num_batches_tracked']
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, dtype=None):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(creation.ones(num_features, dtype=dtype))
            self.bias = Parameter(creation.zeros(num_features, dtype=dtype))
        else:
            self.weight = None
            self.bias = None
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", creation.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", Tensor._make(np.array(0, np.int64), False))
        else:
            self.running_mean = None
            self.running_var = None
            self.num_batches_tracked = None

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def forward(self, input):
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")
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

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, track_running_stats={self.track_running_stats}")
