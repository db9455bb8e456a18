"""torch's TransformerEncoder "sparsity fast path". In eval, without gradients, given a key
padding mask whose kept positions lead each row, torch runs the layers on a nested tensor of the
kept positions only and pads the result back with zeros: the kept positions hold the masked
computation's values, the padded ones 0. numgrad computes the masked result and zeroes those
positions, under torch's conditions (checked in its order; the layer's at construction, with its
warning)."""
import warnings

import numpy as np

from .. import grad_mode
from ..ops.untracked import to_host
from .activation import GELU, ReLU
from .functional_activation import gelu, relu


def _why_not_nested(layer):
    from .transformer import TransformerEncoderLayer   # (transformer.py imports this module)
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    attention = layer.self_attn
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not attention.batch_first:
        return (f"{name}.self_attn.batch_first was not True(use batch_first for better inference "
                f"performance)")
    if not attention._qkv_same_embed_dim:
        return f"{name}.self_attn._qkv_same_embed_dim was not True"
    if attention.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not (layer.activation in (relu, gelu) or isinstance(layer.activation, (ReLU, GELU))):
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if attention.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""


def uses_nested_tensor(layer, enable_nested_tensor):
    """TransformerEncoder.use_nested_tensor, warning as torch when it is asked for in vain."""
    why = _why_not_nested(layer)
    if enable_nested_tensor and why:
        warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because "
                      f"{why}", UserWarning, stacklevel=3)
        return False
    return enable_nested_tensor


def padded_positions(encoder, src, mask, src_key_padding_mask):
    """The (N, S) bool positions torch's fast path leaves out and fills with zeros, or None when
    it does not take it."""
    first = encoder.layers[0]
    if not encoder.use_nested_tensor or first.training or src.ndim != 3 or \
            src_key_padding_mask is None:
        return None
    # kept where the mask is False (a bool mask) or 0 (a float one)
    keep = np.logical_not(to_host(src_key_padding_mask.detach()._data))
    # left aligned: no kept position after a padded one in any row
    if encoder.mask_check and (np.diff(keep.astype(np.int8), axis=-1) > 0).any():
        return None
    if mask is not None:
        return None
    attention = first.self_attn
    tensors = (src, attention.in_proj_weight, attention.in_proj_bias, attention.out_proj.weight,
               attention.out_proj.bias, first.norm1.weight, first.norm1.bias, first.norm2.weight,
               first.norm2.bias, first.linear1.weight, first.linear1.bias, first.linear2.weight,
               first.linear2.bias)
    if grad_mode.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors):
        return None
    # the nested tensor holds each row's first (number kept) positions: the mask itself when
    # left aligned, what torch makes of it without mask_check otherwise
    return np.arange(keep.shape[-1]) >= keep.sum(-1, keepdims=True)
