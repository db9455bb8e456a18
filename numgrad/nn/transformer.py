"""TransformerEncoderLayer and TransformerEncoder, torch's modules (post-norm or pre-norm), built
from MultiheadAttention, Linear, LayerNorm and Dropout.

>>> import numgrad as ng
>>> from numgrad.nn.transformer import TransformerEncoder, TransformerEncoderLayer
>>> layer = TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, batch_first=True)
>>> TransformerEncoder(layer, num_layers=2)(ng.randn(2, 3, 4)).shape
numgrad.Size([2, 3, 4])
"""
import copy

from . import functional as F
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm


def _activation_fn(name):
    if name == "relu":
        return F.relu
    if name == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {name}")


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block (linear1, activation, linear2), each with dropout
    and a residual connection; LayerNorm after each block, or before it with norm_first.

    activation is "relu", "gelu", or a callable (a module is registered as a submodule, as in
    torch). forward(src, src_mask=None, src_key_padding_mask=None, is_causal=False) takes
    (S, N, E) input ((N, S, E) with batch_first, (S, E) unbatched).

    >>> import numgrad as ng
    >>> layer = TransformerEncoderLayer(4, 2, dim_feedforward=8)
    >>> [name for name, _ in layer.named_parameters()][:4]
    ['self_attn.in_proj_weight', 'self_attn.in_proj_bias',
     'self_attn.out_proj.weight', 'self_attn.out_proj.bias']
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation_fn(activation) if isinstance(activation, str) else activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerEncoder(Module):
    """num_layers deep copies of encoder_layer applied in turn, then norm if given.

    is_causal is a hint, as in torch: the mask decides the result.

    >>> import numgrad as ng
    >>> encoder = TransformerEncoder(TransformerEncoderLayer(4, 2, 8), 3)
    >>> len(encoder.layers), encoder(ng.randn(3, 4)).shape
    (3, numgrad.Size([3, 4]))
    """

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        # enable_nested_tensor and mask_check steer torch's fast path; numgrad has none
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                           is_causal=bool(is_causal))
        if self.norm is not None:
            output = self.norm(output)
        return output
