"""multi_head_attention_forward: torch's functional multi-head attention, with every weight given
as an argument. It runs MultiheadAttention's own forward on those weights (the layer's
attributes, gathered in an object of its own), so the two compute alike."""
import types


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """(output, weights) of multi-head attention over (L, N, E) query and (S, N, E) key and
    value ((L, E) and (S, E) unbatched); the arguments are MultiheadAttention's parameters and
    settings. static_k and static_v are not supported."""
    # (functional.py imports this module before the layers and linear exist)
    from .attention import MultiheadAttention
    from .functional import linear
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k and static_v are not "
                                  "supported")
    if embed_dim_to_check != query.shape[-1]:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got "
                             f"{query.shape[-1]}")
    head_dim = embed_dim_to_check // num_heads
    if head_dim * num_heads != embed_dim_to_check:
        raise AssertionError(f"embed_dim {embed_dim_to_check} not divisible by num_heads "
                             f"{num_heads}")
    layer = types.SimpleNamespace(
        embed_dim=embed_dim_to_check, num_heads=num_heads, head_dim=head_dim,
        _qkv_same_embed_dim=not use_separate_proj_weight, in_proj_weight=in_proj_weight,
        in_proj_bias=in_proj_bias, q_proj_weight=q_proj_weight, k_proj_weight=k_proj_weight,
        v_proj_weight=v_proj_weight, bias_k=bias_k, bias_v=bias_v, add_zero_attn=add_zero_attn,
        dropout=dropout_p, training=training, batch_first=False,
        out_proj=lambda x: linear(x, out_proj_weight, out_proj_bias))
    layer._attend = types.MethodType(MultiheadAttention._attend, layer)
    layer._in_projection = types.MethodType(MultiheadAttention._in_projection, layer)
    return MultiheadAttention.forward(layer, query, key, value, key_padding_mask, need_weights,
                                      attn_mask, average_attn_weights, is_causal)
