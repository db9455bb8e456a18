"""numgrad.nn.utils: gradient clipping, parameters as one vector, padded and packed sequences,
parametrizations, weight and spectral normalization, batch norm fusion, skip_init."""
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,
                        get_total_norm)
from . import fusion, parametrizations, parametrize, rnn, stateless
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,
                     fuse_linear_bn_weights)
from .init import skip_init
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "get_total_norm", "parameters_to_vector", "remove_spectral_norm", "remove_weight_norm",
           "skip_init", "spectral_norm", "vector_to_parameters", "weight_norm"]
