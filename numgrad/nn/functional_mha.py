"""multi_head_attention_forward: torch's functional multi-head attention, with every weight given
as an argument; MultiheadAttention runs it on its parameters, as torch's layer does.

It takes torch's ops one by one, so that the graph it records has torch's nodes (SelectBackward0
of the packed self-attention projection, SplitWithSizesBackward0 of encoder-decoder attention,
the views around scaled_dot_product_attention, ...) and its gradients torch's rounding.
"""
import math
import warnings

from .. import creation, dtypes
from ..ops.linalg import baddbmm, bmm
from ..ops.shape import cat
from .functional_attention import scaled_dot_product_attention


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """(output, weights) of multi-head attention over (L, N, E) query and (S, N, E) key and
    value ((L, E) and (S, E) unbatched). key_padding_mask (N, S) and attn_mask (L, S) or
    (N * num_heads, L, S): True (bool) marks a position that is not attended to, a float mask is
    added to the scores. weights are (N, L, S) averaged over heads, (N, num_heads, L, S) with
    average_attn_weights=False, None with need_weights=False."""
    # (functional.py imports this module before linear, softmax and pad exist)
    from .functional import dropout, linear, pad, softmax
    is_batched = check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask",
                                      None if attn_mask is None else attn_mask.dtype, "attn_mask",
                                      query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None        # the hint alone: sdpa builds the causal mask itself
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got "
                             f"{embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(linear, query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, weight in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if weight is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight "
                                     "is None")
        biases = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(linear, query, key, value,
                                 (q_proj_weight, k_proj_weight, v_proj_weight), biases)
    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _heads(k, static_k, "k", bsz * num_heads, head_dim)
    v = _heads(v, static_v, "v", bsz * num_heads, head_dim)
    if add_zero_attn:
        zero_attn_shape = (bsz * num_heads, 1, head_dim)
        k = cat([k, creation.zeros(zero_attn_shape, dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, creation.zeros(zero_attn_shape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        for dim, want in enumerate((bsz, src_len)):
            if key_padding_mask.shape[dim] != want:
                raise AssertionError(f"Expected key_padded_mask.shape[{dim}] to be {want}, but "
                                     f"got {key_padding_mask.shape[dim]}")
        key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(
            -1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0
    if need_weights:
        q_scaled = q * math.sqrt(1.0 / float(q.shape[2]))
        if attn_mask is not None:
            if attn_mask.dtype != q.dtype:
                # baddbmm promotes nothing
                name = dtypes.scalar_type_name
                raise RuntimeError(f"Input dtypes must be the same, got: input "
                                   f"{name(attn_mask.dtype).lower()}, batch1: "
                                   f"{name(q.dtype).lower()}, batch2: {name(k.dtype).lower()}")
            weights = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = bmm(q_scaled, k.transpose(-2, -1))
        # a plain softmax, as torch's: a row masked entirely gives nan weights
        weights = softmax(weights, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        output = bmm(weights, v)
        output = output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        output = linear(output, out_proj_weight, out_proj_bias)
        output = output.view(tgt_len, bsz, output.shape[1])
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            output, weights = output.squeeze(1), weights.squeeze(0)
        return output, weights
    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.ndim == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    output = output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    output = linear(output, out_proj_weight, out_proj_bias)
    output = output.view(tgt_len, bsz, output.shape[1])
    if not is_batched:
        output = output.squeeze(1)
    return output, None


def _in_projection_packed(linear, q, k, v, w, b):
    """torch's projection by one (3E, E) weight: one product for self-attention (q is k is v), two
    for encoder-decoder attention (k is v), else three."""
    embed = q.shape[-1]
    if k is v:
        if q is k:
            proj = linear(q, w, b)
            # (..., 3, E) with the 3 first, as torch lays it out
            proj = proj.unflatten(-1, (3, embed)).unsqueeze(0).transpose(0, -2).squeeze(-2) \
                .contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([embed, embed * 2])
        b_q, b_kv = (None, None) if b is None else b.split([embed, embed * 2])
        q_proj = linear(q, w_q, b_q)
        kv_proj = linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, (2, embed)).unsqueeze(0).transpose(0, -2).squeeze(-2) \
            .contiguous()
        return q_proj, kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(linear, q, k, v, weights, biases):
    """torch's projection by separate weights, checked first."""
    embed = q.shape[-1]
    names = ("query", "key", "value")
    for name, x, w in zip(names, (q, k, v), weights):
        if tuple(w.shape) != (embed, x.shape[-1]):
            raise AssertionError(f"expecting {name} weights shape of {(embed, x.shape[-1])}, but "
                                 f"got {w.shape}")
    for name, bias in zip(names, biases):
        if bias is not None and tuple(bias.shape) != (embed,):
            raise AssertionError(f"expecting {name} bias shape of {(embed,)}, but got "
                                 f"{bias.shape}")
    return tuple(linear(x, w, b) for x, w, b in zip((q, k, v), weights, biases))


def _heads(x, static, name, heads, head_dim):
    """(sequence, batch, E) -> (batch * heads, sequence, head_dim), or the static one given."""
    if static is None:
        return x.view(x.shape[0], heads, head_dim).transpose(0, 1)
    if static.shape[0] != heads:
        raise AssertionError(f"expecting static_{name}.size(0) of {heads}, but got "
                             f"{static.shape[0]}")
    if static.shape[2] != head_dim:
        raise AssertionError(f"expecting static_{name}.size(2) of {head_dim}, but got "
                             f"{static.shape[2]}")
    return static


def canonical_mask(mask, name, other_dtype, other_name, target_dtype):
    """torch's _canonical_mask: a bool mask becomes a float one (-inf where True), a float one
    passes; other_dtype, the other mask's, warns when it differs."""
    if mask is None:
        return None
    if mask.dtype != dtypes.bool and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if other_dtype is not None and mask.dtype != other_dtype:
        warnings.warn(f"Support for mismatched {name} and {other_name} is deprecated. Use same "
                      "type for both instead.", UserWarning, stacklevel=3)
    if mask.dtype == dtypes.bool:
        return creation.zeros_like(mask, dtype=target_dtype).masked_fill_(mask, -math.inf)
    return mask


def check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
    """torch's _mha_shape_check: whether the input is batched, or its AssertionError."""
    if query.ndim == 3:
        kind, inputs, mask_dims = "batched (3-D)", 3, 2
    elif query.ndim == 2:
        kind, inputs, mask_dims = "unbatched (2-D)", 2, 1
    else:
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.ndim}-D query tensor")
    if key.ndim != inputs or value.ndim != inputs:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {inputs}-D but "
                             f"found {key.ndim}-D and {value.ndim}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != mask_dims:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{mask_dims}-D but found {key_padding_mask.ndim}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or "
                                 f"3-D but found {attn_mask.ndim}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if inputs == 2 and attn_mask.ndim == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{attn_mask.shape}")
    return inputs == 3
