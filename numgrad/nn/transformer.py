"""TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer, TransformerDecoder and
Transformer, torch's modules (post-norm or pre-norm), built from MultiheadAttention, Linear,
LayerNorm and Dropout.

>>> import numgrad as ng
>>> from numgrad.nn.transformer import TransformerEncoder, TransformerEncoderLayer
>>> layer = TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, batch_first=True)
>>> TransformerEncoder(layer, num_layers=2)(ng.randn(2, 3, 4)).shape
numgrad.Size([2, 3, 4])
"""
import copy

import numpy as np

from .. import creation, dtypes
from . import functional as F
from . import init
from .activation import GELU, ReLU
from .attention import MultiheadAttention
from .attention_fast_path import as_bool_mask, layer_fast_path
from .container import ModuleList
from .dropout import Dropout
from .functional_mha import canonical_mask
from .linear import Linear
from .module import Module
from .normalization import LayerNorm
from .transformer_fast_path import padded_positions, uses_nested_tensor


def _activation_fn(name):
    if name == "relu":
        return F.relu
    if name == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {name}")


def _add_feed_forward_and_norms(layer, blocks, d_model, dim_feedforward, dropout, activation,
                                layer_norm_eps, norm_first, bias, device, dtype):
    """What the encoder and decoder layers share, registered in torch's order (its parameter
    names and state_dict order): the feed-forward block, then one norm and one dropout per
    block."""
    layer.linear1 = Linear(d_model, dim_feedforward, bias=bias, device=device, dtype=dtype)
    layer.dropout = Dropout(dropout)
    layer.linear2 = Linear(dim_feedforward, d_model, bias=bias, device=device, dtype=dtype)
    layer.norm_first = norm_first
    for k in range(1, blocks + 1):
        setattr(layer, f"norm{k}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias,
                                             device=device, dtype=dtype))
    for k in range(1, blocks + 1):
        setattr(layer, f"dropout{k}", Dropout(dropout))
    layer.activation = _activation_fn(activation) if isinstance(activation, str) else activation


def _feed_forward(layer, x):
    return layer.linear2(layer.dropout(layer.activation(layer.linear1(x))))


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
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, device=device, dtype=dtype)
        _add_feed_forward_and_norms(self, 2, d_model, dim_feedforward, dropout, activation,
                                    layer_norm_eps, norm_first, bias, device, dtype)
        # torch's record, made once, of whether its fast path can run the activation (1 relu,
        # 2 gelu, 0 neither)
        act = self.activation
        self.activation_relu_or_gelu = 1 if act is F.relu or isinstance(act, ReLU) else \
            2 if act is F.gelu or isinstance(act, GELU) else 0

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        # as torch: the masks made additive first (which keeps MultiheadAttention off its fast
        # path), or read as booleans by the layer's own fast path (attention_fast_path.py)
        src_key_padding_mask = canonical_mask(
            src_key_padding_mask, "src_key_padding_mask",
            None if src_mask is None else src_mask.dtype, "src_mask", src.dtype)
        src_mask = canonical_mask(src_mask, "src_mask", None, "", src.dtype)
        if layer_fast_path(self, src):
            src_mask, src_key_padding_mask = as_bool_mask(src_mask), \
                as_bool_mask(src_key_padding_mask)
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
        return self.dropout2(_feed_forward(self, x))


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
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        # they steer torch's fast path (transformer_fast_path.py)
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = uses_nested_tensor(encoder_layer, enable_nested_tensor)
        self.mask_check = mask_check

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        # torch's fast path: the layers see each row's leading kept positions, the rest is zeros
        padded = padded_positions(self, src, mask, src_key_padding_mask)
        if padded is not None:
            src_key_padding_mask = creation.as_tensor(padded, device=src.device)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                           is_causal=bool(is_causal))
        if padded is not None:
            output = output.masked_fill(src_key_padding_mask.unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoderLayer(Module):
    """Self-attention over tgt, attention from tgt to memory, then a feed-forward block, each with
    dropout and a residual connection; LayerNorm after each block, or before it with norm_first.

    forward(tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
    memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False) takes (T, N, E)
    tgt and (S, N, E) memory ((N, T, E) and (N, S, E) with batch_first).

    >>> import numgrad as ng
    >>> layer = TransformerDecoderLayer(4, 2, dim_feedforward=8)
    >>> layer(ng.randn(5, 2, 4), ng.randn(3, 2, 4)).shape
    numgrad.Size([5, 2, 4])
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu,
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, device=device, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, device=device,
                                                 dtype=dtype)
        _add_feed_forward_and_norms(self, 3, d_model, dim_feedforward, dropout, activation,
                                    layer_norm_eps, norm_first, bias, device, dtype)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask,
                                    memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                               memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, memory, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, memory, memory, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(_feed_forward(self, x))


class TransformerDecoder(Module):
    """num_layers deep copies of decoder_layer applied in turn to tgt (each attending to memory),
    then norm if given."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """The encoder-decoder Transformer (Vaswani et al., 2017): a TransformerEncoder over src whose
    output (memory) a TransformerDecoder over tgt attends to, each ending in a LayerNorm; every
    weight matrix starts xavier-uniform, as torch's.

    >>> import numgrad as ng
    >>> model = Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
    ...                     dim_feedforward=8)
    >>> model(ng.randn(3, 2, 4), ng.randn(5, 2, 4)).shape
    numgrad.Size([5, 2, 4])
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
                                                    activation, layer_norm_eps, batch_first,
                                                    norm_first, bias, device=device, dtype=dtype)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device,
                                     dtype=dtype)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout,
                                                    activation, layer_norm_eps, batch_first,
                                                    norm_first, bias, device=device, dtype=dtype)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, device=device,
                                     dtype=dtype)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.size(batch_dim) != tgt.size(batch_dim):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """An (sz, sz) float mask: -inf above the diagonal (a position may not attend to later
        ones), 0 elsewhere."""
        mask = np.triu(np.full((sz, sz), -np.inf), 1)
        return creation.tensor(mask, dtype=dtype or dtypes.get_default_dtype(), device=device)
