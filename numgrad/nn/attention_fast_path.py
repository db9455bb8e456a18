"""torch's inference fast paths of MultiheadAttention and TransformerEncoderLayer, where they
give other values than the ordinary path.

In eval, when nothing needs a gradient (and under the conditions below, in torch's words in its
source), torch runs `_native_multi_head_attention` or `_transformer_encoder_layer_fwd`. Two of
their results differ from the ordinary path's:
- their softmax is a plain one: a query row whose keys are all masked gets NaN weights, so its
  output row is NaN, where the ordinary path's scaled_dot_product_attention gives zeros;
- the encoder layer's reads its masks as booleans, so a float mask masks every position whose
  value is not 0 (0.5 masks as -inf does), where the ordinary path adds it to the scores.
numgrad computes the ordinary path and then makes these differences: masks turned into booleans,
and NaN written into the rows without a key.
"""
import math

import numpy as np

from .. import dtypes, grad_mode
from ..ops.untracked import to_host


def _needs_grad(tensors):
    return grad_mode.is_grad_enabled() and any(t is not None and t.requires_grad
                                               for t in tensors)


def mha_fast_path(mha, query, key, value, attn_mask, key_padding_mask):
    """Whether torch's MultiheadAttention.forward takes `_native_multi_head_attention`."""
    if any(m is not None and m.is_floating_point() for m in (attn_mask, key_padding_mask)):
        return False                    # "floating-point masks are not supported for fast path"
    bias, weight = mha.in_proj_bias, mha.in_proj_weight
    if query.ndim != 3 or not (query is key and key is value) or weight is None \
            or bias is None or query.dtype != bias.dtype or query.dtype != weight.dtype:
        return False
    if mha.training or mha.num_heads % 2 or not mha.batch_first or mha.bias_k is not None \
            or mha.bias_v is not None or mha.add_zero_attn or not mha._qkv_same_embed_dim:
        return False
    return not _needs_grad((query, weight, bias, mha.out_proj.weight, mha.out_proj.bias))


def layer_fast_path(layer, src):
    """Whether torch's TransformerEncoderLayer.forward takes `_transformer_encoder_layer_fwd`
    (torch decides relu-or-gelu once, when the layer is made)."""
    attention = layer.self_attn
    if src.ndim != 3 or layer.training or not attention.batch_first \
            or attention.in_proj_bias is None or not attention._qkv_same_embed_dim \
            or not layer.activation_relu_or_gelu or layer.norm1.eps != layer.norm2.eps \
            or attention.num_heads % 2:
        return False
    if any(m._forward_hooks or m._forward_pre_hooks for m in layer.modules()):
        return False
    return not _needs_grad((src, attention.in_proj_weight, attention.in_proj_bias,
                            attention.out_proj.weight, attention.out_proj.bias,
                            layer.norm1.weight, layer.norm1.bias, layer.norm2.weight,
                            layer.norm2.bias, layer.linear1.weight, layer.linear1.bias,
                            layer.linear2.weight, layer.linear2.bias))


def as_bool_mask(mask):
    """The encoder layer's fast path reading of a mask: True wherever it is not 0."""
    if mask is None or mask.dtype == dtypes.bool:
        return mask
    return mask != 0


def rows_without_keys(attn_mask, key_padding_mask, batch, heads, length):
    """(N, L) bool: the query rows with every key masked in some head, for bool masks
    (attn_mask (L, S) or (N * heads, L, S), key_padding_mask (N, S)); None when there are none."""
    masked = None
    if attn_mask is not None:
        masked = to_host(attn_mask._data).astype(bool)
        masked = masked.reshape(batch, heads, length, -1) if masked.ndim == 3 \
            else masked[None, None]
    if key_padding_mask is not None:
        padding = to_host(key_padding_mask._data).astype(bool)[:, None, None, :]
        masked = padding if masked is None else masked | padding
    if masked is None:
        return None
    dead = np.broadcast_to(masked.all(-1), (batch, heads, length)).any(1)
    return dead if dead.any() else None


def poison_rows(output, dead):
    """output (N, L, E) with NaN in the rows `dead` marks (None: none), as the plain softmax of
    the fast paths leaves them."""
    if dead is None:
        return output
    from ..creation import as_tensor
    return output.masked_fill(as_tensor(dead[:, :, None], device=output.device), math.nan)
