"""MultiheadAttention, torch's layer: its parameters, initialisation, masks and (output, weights).

>>> import numgrad as ng
>>> from numgrad.nn.attention import MultiheadAttention
>>> mha = MultiheadAttention(4, 2)
>>> x = ng.randn(3, 2, 4)                     # (sequence, batch, embedding)
>>> out, weights = mha(x, x, x)
>>> out.shape, weights.shape
(numgrad.Size([3, 2, 4]), numgrad.Size([2, 3, 3]))
"""
from .. import creation
from . import init
from .attention_fast_path import mha_fast_path, poison_rows, rows_without_keys
from .functional_mha import canonical_mask, check_shapes, multi_head_attention_forward
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
        is_batched = query.ndim == 3
        dead = None
        if mha_fast_path(self, query, key, value, attn_mask, key_padding_mask):
            # torch's fast path reads the mask it is given and ignores the is_causal hint (even
            # without a mask), and its plain softmax leaves NaN in the rows without a key
            check_shapes(query, key, value, key_padding_mask, attn_mask, self.num_heads)
            dead = rows_without_keys(attn_mask, key_padding_mask, query.shape[0], self.num_heads,
                                     query.shape[1])
            is_causal = False
        key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask",
                                          None if attn_mask is None else attn_mask.dtype,
                                          "attn_mask", query.dtype)
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query.dtype)
        if self.batch_first and is_batched:
            # one transpose per distinct input, as torch: self-attention stays recognisable, so
            # its projection stays one product
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        output, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and is_batched:
            output = poison_rows(output.transpose(1, 0), dead)
        return output, weights
