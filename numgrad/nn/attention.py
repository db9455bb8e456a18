"""MultiheadAttention, torch's layer: its parameters, initialisation, masks and (output, weights).

>>> import numgrad as ng
>>> from numgrad.nn.attention import MultiheadAttention
>>> mha = MultiheadAttention(4, 2)
>>> x = ng.randn(3, 2, 4)                     # (sequence, batch, embedding)
>>> out, weights = mha(x, x, x)
>>> out.shape, weights.shape
(numgrad.Size([3, 2, 4]), numgrad.Size([2, 3, 3]))
"""
import math
import warnings

from .. import creation, dtypes
from ..ops.linalg import baddbmm, bmm
from ..ops.shape import cat
from . import functional as F
from . import init
from .attention_fast_path import mha_fast_path, poison_rows, rows_without_keys
from .functional_attention import scaled_dot_product_attention
from .linear import Linear
from .module import Module
from .parameter import Parameter


class NonDynamicallyQuantizableLinear(Linear):
    """A plain Linear; torch gives MultiheadAttention.out_proj this class, so reprs match."""


class MultiheadAttention(Module):
    """Attention over num_heads heads of size embed_dim // num_heads (Vaswani et al., 2017).

    Parameters as torch's: in_proj_weight (3E, E) or, when kdim or vdim differ from embed_dim,
    q_proj_weight (E, E), k_proj_weight (E, kdim), v_proj_weight (E, vdim); in_proj_bias (3E);
    out_proj (a Linear E -> E); bias_k and bias_v (1, 1, E) with add_bias_kv. The projections start
    xavier-uniform, the biases at zero, bias_k and bias_v xavier-normal; out_proj.weight keeps
    Linear's initialisation.

    forward(query, key, value) takes (L, N, E) inputs ((N, L, E) with batch_first, (L, E)
    unbatched) and returns (output, weights): weights are (N, L, S) averaged over heads,
    (N, num_heads, L, S) with average_attn_weights=False, None with need_weights=False.
    key_padding_mask (N, S) and attn_mask (L, S) or (N * num_heads, L, S): True (bool) marks a
    position that is not attended to; a float mask is added to the scores.

    >>> import numgrad as ng
    >>> [name for name, _ in MultiheadAttention(4, 2, kdim=3).named_parameters()]
    ['q_proj_weight', 'k_proj_weight', 'v_proj_weight', 'in_proj_bias',
     'out_proj.weight', 'out_proj.bias']
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")

        def empty(*shape):
            return Parameter(creation.empty(*shape, dtype=dtype))
        if self._qkv_same_embed_dim:
            self.in_proj_weight = empty(3 * embed_dim, embed_dim)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = empty(embed_dim, embed_dim)
            self.k_proj_weight = empty(embed_dim, self.kdim)
            self.v_proj_weight = empty(embed_dim, self.vdim)
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = empty(3 * embed_dim)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        if add_bias_kv:
            self.bias_k = empty(1, 1, embed_dim)
            self.bias_v = empty(1, 1, embed_dim)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()
        if device is not None:   # made on the CPU, where nn.init fills them
            self.to(device)

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        is_batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, self.num_heads)
        dead = None
        if mha_fast_path(self, query, key, value, attn_mask, key_padding_mask):
            # torch's fast path reads the mask it is given and ignores the is_causal hint (even
            # without a mask), and its plain softmax leaves NaN in the rows without a key
            dead = rows_without_keys(attn_mask, key_padding_mask, query.shape[0], self.num_heads,
                                     query.shape[1])
            is_causal = False
        if key_padding_mask is not None and attn_mask is not None \
                and key_padding_mask.dtype != attn_mask.dtype:
            warnings.warn("Support for mismatched key_padding_mask and attn_mask is deprecated. "
                          "Use same type for both instead.", UserWarning, stacklevel=2)
        key_padding_mask = _additive_mask(key_padding_mask, "key_padding_mask", query.dtype)
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                               "Transformer module method `generate_square_subsequent_mask` to "
                               "create this mask.")
        if is_causal and key_padding_mask is None and not need_weights:
            attn_mask = None        # the hint alone: sdpa builds the causal mask itself
        else:
            attn_mask = _additive_mask(attn_mask, "attn_mask", query.dtype)
            is_causal = False       # the mask (merged with the padding mask) decides
        if not is_batched:
            query, key, value = _map_keeping_identity(lambda x: x.unsqueeze(1), query, key, value)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif self.batch_first:
            query, key, value = _map_keeping_identity(lambda x: x.transpose(0, 1), query, key,
                                                      value)
        output, weights = self._attend(query, key, value, key_padding_mask, need_weights,
                                       attn_mask, is_causal)
        if weights is not None and average_attn_weights:
            weights = weights.mean(1)
        if not is_batched:
            return output.squeeze(1), None if weights is None else weights.squeeze(0)
        if self.batch_first:
            output = poison_rows(output.transpose(0, 1), dead)
        return output, weights

    def _attend(self, query, key, value, key_padding_mask, need_weights, attn_mask, is_causal):
        """torch's multi_head_attention_forward on (L, N, E) inputs and additive masks; weights
        per head (N, num_heads, L, S) or None."""
        length, batch, embed_dim = query.shape
        source = key.shape[0]
        heads, head_dim = self.num_heads, self.head_dim
        if embed_dim != self.embed_dim:
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got "
                                 f"{embed_dim}")
        if self._qkv_same_embed_dim and key.shape != value.shape:
            raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
        if not self._qkv_same_embed_dim and key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
        q, k, v = self._in_projection(query, key, value)
        if attn_mask is not None:
            if attn_mask.ndim == 2:
                if tuple(attn_mask.shape) != (length, source):
                    raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                       f"should be {(length, source)}.")
                attn_mask = attn_mask.unsqueeze(0)
            elif tuple(attn_mask.shape) != (batch * heads, length, source):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(batch * heads, length, source)}.")
        if self.bias_k is not None:
            k = cat([k, self.bias_k.repeat(1, batch, 1)], 0)
            v = cat([v, self.bias_v.repeat(1, batch, 1)], 0)
            attn_mask, key_padding_mask = _pad_key_dim(attn_mask), _pad_key_dim(key_padding_mask)
        # (sequence, batch, E) -> (batch * heads, sequence, head_dim), torch's layout
        q, k, v = (x.reshape(x.shape[0], batch * heads, head_dim).transpose(0, 1)
                   for x in (q, k, v))
        if self.add_zero_attn:
            zeros = creation.zeros(batch * heads, 1, head_dim, dtype=k.dtype, device=k.device)
            k, v = cat([k, zeros], 1), cat([v, zeros], 1)
            attn_mask, key_padding_mask = _pad_key_dim(attn_mask), _pad_key_dim(key_padding_mask)
        source = k.shape[1]
        if key_padding_mask is not None:
            for dim, want in enumerate((batch, source)):
                if key_padding_mask.shape[dim] != want:
                    raise AssertionError(f"Expected key_padded_mask.shape[{dim}] to be {want}, but "
                                         f"got {key_padding_mask.shape[dim]}")
            key_padding_mask = key_padding_mask.reshape(batch, 1, 1, source).expand(
                batch, heads, 1, source).reshape(batch * heads, 1, source)
            attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
        dropout_p = self.dropout if self.training else 0.0
        if need_weights:
            if attn_mask is not None and attn_mask.dtype != q.dtype:
                # torch adds the mask with baddbmm, which promotes nothing
                name = dtypes.scalar_type_name
                raise RuntimeError(f"Input dtypes must be the same, got: input "
                                   f"{name(attn_mask.dtype).lower()}, batch1: "
                                   f"{name(q.dtype).lower()}, batch2: {name(k.dtype).lower()}")
            # plain softmax here, as torch: a row masked entirely gives nan weights; torch's
            # bmm and baddbmm (the mask added in the product)
            scaled = q * math.sqrt(1.0 / head_dim)
            scores = bmm(scaled, k.transpose(-2, -1)) if attn_mask is None else \
                baddbmm(attn_mask, scaled, k.transpose(-2, -1))
            weights = F.softmax(scores, -1)
            if dropout_p > 0.0:
                weights = F.dropout(weights, dropout_p)
            output = bmm(weights, v)
            weights = weights.reshape(batch, heads, length, source)
        else:
            if attn_mask is not None:
                attn_mask = attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1 else \
                    attn_mask.reshape(batch, heads, -1, source)
            shape = (batch, heads, -1, head_dim)
            output = scaled_dot_product_attention(q.reshape(shape), k.reshape(shape),
                                                  v.reshape(shape), attn_mask, dropout_p,
                                                  is_causal)
            output = output.reshape(batch * heads, length, head_dim)
            weights = None
        output = output.transpose(0, 1).reshape(length * batch, embed_dim)
        output = self.out_proj(output).reshape(length, batch, embed_dim)
        return output, weights

    def _in_projection(self, query, key, value):
        bias = self.in_proj_bias
        biases = (None, None, None) if bias is None else bias.chunk(3)
        if self._qkv_same_embed_dim:
            if query is key and key is value:
                # self-attention: one product for all three
                return F.linear(query, self.in_proj_weight, bias).chunk(3, -1)
            weights = self.in_proj_weight.chunk(3)
        else:
            weights = (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight)
            embed = query.shape[-1]
            for name, x, w in zip(("query", "key", "value"), (query, key, value), weights):
                if tuple(w.shape) != (embed, x.shape[-1]):
                    raise AssertionError(f"expecting {name} weights shape of "
                                         f"{(embed, x.shape[-1])}, but got {w.shape}")
        return tuple(F.linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def _map_keeping_identity(fn, query, key, value):
    """fn of each input, once per distinct object: self-attention (query is key is value) stays
    recognisable after a transpose, so its projection stays one product."""
    results = {}
    for x in (query, key, value):
        if id(x) not in results:
            results[id(x)] = fn(x)
    return tuple(results[id(x)] for x in (query, key, value))


def _pad_key_dim(mask):
    """One more key position, not masked (0 added), for bias_k or the zero attention."""
    if mask is None:
        return None
    zeros = creation.zeros(*mask.shape[:-1], 1, dtype=mask.dtype, device=mask.device)
    return cat([mask, zeros], -1)


def _additive_mask(mask, name, dtype):
    """A float mask to add to the scores: bool True becomes -inf; float masks pass through."""
    if mask is None:
        return None
    if mask.dtype == dtypes.bool:
        zeros = creation.zeros(*mask.shape, dtype=dtype, device=mask.device)
        return zeros.masked_fill(mask, -math.inf)
    if not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
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
