"""Lazy layers: LazyLinear, LazyConv1d/2d, LazyConvTranspose1d/2d, LazyBatchNorm1d/2d/3d and
LazyInstanceNorm1d/2d/3d, whose input size (in_features, in_channels, num_features) is taken
from their first input. As torch's LazyModuleMixin: until then their parameters and floating
buffers are UninitializedParameter / UninitializedBuffer placeholders; a forward pre-hook
registered at construction sizes them from the first input (initialize_parameters),
initialises them as the layer they become would (reset_parameters), and the module becomes
that layer (cls_to_become). The parameter objects stay the same, so an optimizer made before
the first call updates them. load_state_dict of a checkpoint of an initialised layer sizes
them from the checkpoint's tensors.

>>> import numgrad as ng
>>> layer = ng.nn.LazyLinear(2)
>>> layer.weight
<UninitializedParameter>
>>> layer(ng.ones(5, 3)).shape, layer
(numgrad.Size([5, 2]), Linear(in_features=3, out_features=2, bias=True))
"""
import itertools

from .. import grad_mode
from .conv import Conv1d, Conv2d, ConvTranspose2d
from .layers_more import ConvTranspose1d, InstanceNorm3d
from .linear import Linear
from .normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, InstanceNorm1d,
                            InstanceNorm2d)
from .uninitialized import UninitializedBuffer, UninitializedParameter, is_lazy


class LazyModuleMixin:
    """torch's mixin of the lazy layers: the placeholders, the pre-hook that initialises them
    on the first forward, and the load_state_dict pre-hook that sizes them from a checkpoint."""

    cls_to_become = None
    inferred = ""             # the constructor argument the first input decides

    def _lazy_init(self, *sizes, **arguments):
        """cls_to_become's __init__ with the input size 0 (and `sizes` before it), then its
        parameters and floating buffers replaced by placeholders of their dtype and device."""
        self.cls_to_become.__init__(self, 0, *sizes, **arguments)
        for name, param in self._parameters.items():
            if param is not None:
                self._parameters[name] = UninitializedParameter(param.requires_grad,
                                                                param.device, param.dtype)
        for name, buf in self._buffers.items():
            if buf is not None and buf.is_floating_point():
                self._buffers[name] = UninitializedBuffer(buf.requires_grad, buf.device,
                                                          buf.dtype)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters,
                                                               with_kwargs=True)

    def has_uninitialized_params(self):
        """Whether a parameter or buffer of this module (not its children) is a placeholder."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(),
                                                       self._buffers.values()))

    def reset_parameters(self):
        # nothing to initialise before the input size is known
        if not self.has_uninitialized_params() and getattr(self, self.inferred) != 0:
            self.cls_to_become.reset_parameters(self)

    def initialize_parameters(self, input, *args, **kwargs):
        """Size the placeholders from input and initialise them."""
        if not self.has_uninitialized_params():
            return
        with grad_mode.no_grad():
            setattr(self, self.inferred, self._input_size(input))
            shapes = self._materialized_shapes()
            for name, tensor in itertools.chain(self._parameters.items(),
                                                self._buffers.items()):
                if is_lazy(tensor):
                    tensor.materialize(shapes[name])
            self.reset_parameters()

    def _input_size(self, input):
        return input.shape[1]

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook, module._load_hook
        module.__class__ = module.cls_to_become

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        # a checkpoint of an initialised layer sizes the placeholders it has tensors for
        for name, tensor in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and is_lazy(tensor) and not is_lazy(state_dict[key]):
                with grad_mode.no_grad():
                    tensor.materialize(state_dict[key].shape)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # as torch's: a placeholder is saved itself, not detached
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars or is_lazy(param) \
                    else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars or is_lazy(buf) else buf.detach()


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features is its first input's last dim."""

    cls_to_become = Linear
    inferred = "in_features"

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        self._lazy_init(out_features, bias=bias, device=device, dtype=dtype)

    def _input_size(self, input):
        return input.shape[-1]

    def _materialized_shapes(self):
        return {"weight": (self.out_features, self.in_features), "bias": (self.out_features,)}

    def initialize_parameters(self, input, *args, **kwargs):
        super().initialize_parameters(input)
        if self.in_features == 0:
            # sized by load_state_dict: in_features is the loaded weight's, as torch's
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} "
                                     f"is not equal to in_features from self.weight: "
                                     f"{self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class _LazyConv(LazyModuleMixin):
    inferred = "in_channels"

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        # as torch's: out_channels 0 until then, so that groups check in_channels only
        self._lazy_init(0, kernel_size, stride=stride, padding=padding, dilation=dilation,
                        groups=groups, bias=bias, padding_mode=padding_mode, device=device,
                        dtype=dtype)
        self.out_channels = out_channels

    def _input_size(self, input):
        batched = len(self.kernel_size) + 2
        if input.ndim not in (batched - 1, batched):
            raise RuntimeError(f"Expected {batched - 1}D (unbatched) or {batched}D (batched) "
                               f"input to {type(self).__name__}, but got input of size: "
                               f"{input.shape}")
        return input.shape[1 if input.ndim == batched else 0]

    def _materialized_shapes(self):
        if self.in_channels % self.groups:
            raise ValueError("in_channels must be divisible by groups")
        # a transposed convolution maps out to in: its weight is (in, out / groups, *kernel)
        pair = (self.in_channels, self.out_channels // self.groups) if self.transposed \
            else (self.out_channels, self.in_channels // self.groups)
        return {"weight": (*pair, *self.kernel_size), "bias": (self.out_channels,)}


class LazyConv1d(_LazyConv, Conv1d):
    """A Conv1d whose in_channels is its first input's."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """A Conv2d whose in_channels is its first input's."""

    cls_to_become = Conv2d


class _LazyConvTranspose(_LazyConv):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        self._lazy_init(0, kernel_size, stride=stride, padding=padding,
                        output_padding=output_padding, groups=groups, bias=bias,
                        dilation=dilation, padding_mode=padding_mode, device=device,
                        dtype=dtype)
        self.out_channels = out_channels


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """A ConvTranspose1d whose in_channels is its first input's."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """A ConvTranspose2d whose in_channels is its first input's."""

    cls_to_become = ConvTranspose2d


class _LazyNorm(LazyModuleMixin):
    """torch's lazy norm layers: affine and tracking running statistics by default (the
    instance norms too); num_features is the input's dim 1, unbatched instance norms' too, as
    torch's."""

    inferred = "num_features"

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        self._lazy_init(eps=eps, momentum=momentum, affine=affine,
                        track_running_stats=track_running_stats, device=device, dtype=dtype,
                        bias=bias)

    def _materialized_shapes(self):
        return dict.fromkeys(("weight", "bias", "running_mean", "running_var"),
                             (self.num_features,))


class LazyBatchNorm1d(_LazyNorm, BatchNorm1d):
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNorm, BatchNorm2d):
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNorm, BatchNorm3d):
    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNorm, InstanceNorm1d):
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNorm, InstanceNorm2d):
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNorm, InstanceNorm3d):
    cls_to_become = InstanceNorm3d
