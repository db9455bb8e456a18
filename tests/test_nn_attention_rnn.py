"""Attention and recurrent layers against torch 2.13: scaled_dot_product_attention,
MultiheadAttention, RNN/LSTM/GRU and their cells, TransformerEncoder(Layer).

The literals at the end are torch's results (float64) for parameters and inputs filled by
_fixed, made by a scratch script that loaded the same arrays into torch; the tests check forward
values, parameter gradients, shapes for the option combinations, masks, parameter names, and
torch's error messages."""
import copy
import math
import re

import numpy as np
import pytest

import numgrad as ng
import numgrad.cuda
from numgrad.autograd import gradcheck, gradgradcheck
from numgrad.nn.attention import MultiheadAttention
from numgrad.nn.functional_attention import scaled_dot_product_attention as sdpa
from numgrad.nn.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell
from numgrad.nn.transformer import TransformerEncoder, TransformerEncoderLayer

F64 = ng.float64


def _fixed(shape, seed):
    """Deterministic values in [-0.5, 0.5]; torch's literals below were made from the same."""
    return 0.5 * np.sin(np.arange(1, math.prod(shape) + 1) * (0.7 + 0.1 * seed)).reshape(shape)


def _t(shape, seed, requires_grad=False):
    return ng.tensor(_fixed(shape, seed), requires_grad=requires_grad)


def _load(module):
    """Fill the parameters in named_parameters order, parameter i with _fixed(shape, i)."""
    with ng.no_grad():
        for i, (_, param) in enumerate(module.named_parameters()):
            param.copy_(ng.tensor(_fixed(tuple(param.shape), i)))
    return module


def _close(tensor, expected, atol=1e-7):
    np.testing.assert_allclose(tensor.detach().numpy(), expected, rtol=1e-6, atol=atol)


def _names_and_shapes(module):
    return [(name, tuple(param.shape)) for name, param in module.named_parameters()]


# ---- scaled_dot_product_attention ----------------------------------------------------------------
def test_sdpa_float_mask_and_scale_match_torch():
    q, k, v = (_t((2, 2, 3, 2), seed, True) for seed in (1, 2, 3))
    mask = _t((2, 3, 3), 4)                      # broadcast over the batch
    out = sdpa(q, k, v, attn_mask=mask, scale=0.8)
    (out * _t(out.shape, 5)).sum().backward()
    _close(out, SDPA_OUT)
    _close(q.grad, SDPA_GRAD_Q)
    _close(k.grad, SDPA_GRAD_K)
    _close(v.grad, SDPA_GRAD_V)


def test_sdpa_masks():
    q, k, v = _t((2, 3, 4), 1), _t((2, 5, 4), 2), _t((2, 5, 3), 3)
    keep = ng.tensor(_fixed((3, 5), 4) > -0.2)
    additive = ng.tensor(np.where(_fixed((3, 5), 4) > -0.2, 0.0, -np.inf))
    _close(sdpa(q, k, v, attn_mask=keep), sdpa(q, k, v, attn_mask=additive).detach().numpy(),
           atol=1e-12)
    # is_causal is the top-left lower triangle, also when L != S
    causal = ng.tensor(np.tril(np.ones((3, 5), bool)))
    _close(sdpa(q, k, v, is_causal=True), sdpa(q, k, v, attn_mask=causal).detach().numpy(),
           atol=1e-12)
    # by hand: softmax(q k^T / sqrt(E)) v
    scores = q.numpy() @ k.numpy().transpose(0, 2, 1) / 2.0
    weights = np.exp(scores) / np.exp(scores).sum(-1, keepdims=True)
    _close(sdpa(q, k, v), weights @ v.numpy(), atol=1e-12)
    # a row masked entirely gives zeros and no nan in the gradient, as torch's
    rows = np.ones((3, 5), bool)
    rows[1] = False
    q.requires_grad_()
    out = sdpa(q, k, v, attn_mask=ng.tensor(rows))
    out.sum().backward()
    assert not out.detach().numpy()[:, 1].any() and not q.grad.numpy()[:, 1].any()
    assert np.isfinite(q.grad.numpy()).all()


def test_sdpa_grouped_query_attention_and_broadcast_batch():
    q, k, v = _t((2, 4, 3, 2), 1), _t((2, 2, 3, 2), 2), _t((2, 1, 3, 2), 3)
    out = sdpa(q, k, v, enable_gqa=True)
    assert out.shape == (2, 4, 3, 2)
    want = sdpa(q, k.repeat_interleave(2, dim=1), v.expand(2, 4, 3, 2))
    _close(out, want.detach().numpy(), atol=1e-12)
    # key and value broadcast over a batch dim of one
    assert sdpa(_t((2, 2, 3, 4), 1), _t((1, 2, 5, 4), 2), _t((1, 2, 5, 6), 3)).shape == \
        (2, 2, 3, 6)
    assert sdpa(_t((3, 4), 1), _t((5, 4), 2), _t((5, 6), 3)).shape == (3, 6)


def test_sdpa_dropout_is_seeded():
    q = _t((2, 3, 4), 1)
    ng.manual_seed(3)
    a = sdpa(q, q, q, dropout_p=0.5)
    ng.manual_seed(3)
    np.testing.assert_array_equal(a.numpy(), sdpa(q, q, q, dropout_p=0.5).numpy())
    assert not np.allclose(a.numpy(), sdpa(q, q, q).numpy())


def test_sdpa_gradcheck():
    q, k, v = (_t((1, 2, 3, 2), seed, True) for seed in (1, 2, 3))
    mask = _t((3, 3), 4, True)
    assert gradcheck(lambda a, b, c, m: sdpa(a, b, c, attn_mask=m), (q, k, v, mask))
    assert gradcheck(lambda a, b, c: sdpa(a, b, c, is_causal=True, scale=0.3), (q, k, v))
    assert gradgradcheck(lambda a, b, c: sdpa(a, b, c), (q, k, v))


@pytest.mark.parametrize("call, error, message", [
    (lambda q: sdpa(q, q, q, attn_mask=ng.ones(3, 3, dtype=ng.bool), is_causal=True),
     RuntimeError, "Explicit attn_mask should not be set when is_causal=True"),
    (lambda q: sdpa(q, q.float(), q), RuntimeError,
     "Expected query, key, and value to have the same dtype, but got query.dtype: double "
     "key.dtype: float and value.dtype: double instead."),
    (lambda q: sdpa(q, q, q, attn_mask=ng.ones(3, 3, dtype=ng.int64)), RuntimeError,
     "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
     "attn_mask.dtype: long int and  query.dtype: double instead."),
    (lambda q: sdpa(q[0, 0, 0], q, q), RuntimeError,
     "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: 1 "
     "key.dim: 4 and value.dim: 4 instead."),
    (lambda q: sdpa(q, q[..., :1], q), RuntimeError,
     "Expected size for first two dimensions of batch2 tensor to be: [4, 2] but got: [4, 1]."),
    (lambda q: sdpa(q, q, q, attn_mask=ng.ones(3, 4)), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 3"),
    (lambda q: sdpa(q, q, q, attn_mask=ng.ones(2, 1, 1, 3, 3)), RuntimeError,
     "output with shape [2, 2, 3, 3] doesn't match the broadcast shape [2, 2, 2, 3, 3]"),
    (lambda q: sdpa(ng.cat([q, q[:, :1]], 1), q, q, enable_gqa=True), RuntimeError,
     "Number of heads in key and value must divide the number of heads in"),
    (lambda q: sdpa(q, q, q, dropout_p=1.5), RuntimeError,
     "dropout probability has to be between 0 and 1, but got 1.5"),
])
def test_sdpa_errors_in_torch_words(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call(_t((2, 2, 3, 2), 1))


# ---- MultiheadAttention --------------------------------------------------------------------------
def test_mha_matches_torch_with_masks():
    mha = _load(MultiheadAttention(4, 2, dtype=F64))
    x = _t((3, 2, 4), 10)                                      # (sequence, batch, embedding)
    padding = ng.tensor([[False, False, True], [False, False, False]])
    future = ng.tensor(np.triu(np.ones((3, 3), bool), 1))
    out, weights = mha(x, x, x, key_padding_mask=padding, attn_mask=future)
    ((out * _t(out.shape, 20)).sum() + (weights * _t(weights.shape, 21)).sum()).backward()
    _close(out, MHA_OUT)
    _close(weights, MHA_WEIGHTS)
    _close(mha.in_proj_weight.grad, MHA_GRAD_IN_PROJ_WEIGHT)
    _close(mha.in_proj_bias.grad, MHA_GRAD_IN_PROJ_BIAS)
    _close(mha.out_proj.weight.grad, MHA_GRAD_OUT_PROJ_WEIGHT)
    _close(mha.out_proj.bias.grad, MHA_GRAD_OUT_PROJ_BIAS)
    # need_weights=False goes through sdpa: the same output
    fast, none = mha(x, x, x, key_padding_mask=padding, attn_mask=future, need_weights=False)
    assert none is None
    _close(fast, MHA_OUT)
    # float masks are added; is_causal is a hint beside the mask
    additive = ng.zeros(3, 3, dtype=F64).masked_fill(future, -math.inf)
    with pytest.warns(UserWarning, match="mismatched key_padding_mask and attn_mask"):
        _close(mha(x, x, x, key_padding_mask=padding, attn_mask=additive)[0], MHA_OUT)
    _close(mha(x, x, x, attn_mask=future, is_causal=True, need_weights=False)[0],
           mha(x, x, x, attn_mask=future)[0].detach().numpy(), atol=1e-12)


def test_mha_cross_attention_with_bias_kv_and_zero_attn():
    mha = _load(MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=True, kdim=3, vdim=5,
                                   batch_first=True, dtype=F64))
    out, weights = mha(_t((2, 3, 4), 11), _t((2, 2, 3), 12), _t((2, 2, 5), 13),
                       average_attn_weights=False)
    assert weights.shape == (2, 2, 3, 4)         # two keys, bias_k, the zero key
    _close(out, MHA_CROSS_OUT)
    _close(weights, MHA_CROSS_WEIGHTS)


def test_mha_layouts_agree():
    mha = _load(MultiheadAttention(4, 2, dtype=F64))
    x = _t((3, 2, 4), 10)
    out, weights = mha(x, x, x)
    first = _load(MultiheadAttention(4, 2, batch_first=True, dtype=F64))
    xb = x.transpose(0, 1)
    out_b, weights_b = first(xb, xb, xb)
    _close(out_b, out.transpose(0, 1).detach().numpy(), atol=1e-12)
    _close(weights_b, weights.detach().numpy(), atol=1e-12)
    single = x[:, 1]
    out_u, weights_u = mha(single, single, single, average_attn_weights=False)
    assert out_u.shape == (3, 4) and weights_u.shape == (2, 3, 3)
    _close(out_u, out[:, 1].detach().numpy(), atol=1e-12)
    # query is key is value shares one projection; separate equal tensors give the same
    _close(mha(x, x.clone(), x.clone())[0], out.detach().numpy(), atol=1e-12)


def test_mha_parameters_and_initialisation():
    assert _names_and_shapes(MultiheadAttention(4, 2)) == [
        ("in_proj_weight", (12, 4)), ("in_proj_bias", (12,)), ("out_proj.weight", (4, 4)),
        ("out_proj.bias", (4,))]
    assert _names_and_shapes(MultiheadAttention(4, 2, kdim=3, vdim=5)) == [
        ("q_proj_weight", (4, 4)), ("k_proj_weight", (4, 3)), ("v_proj_weight", (4, 5)),
        ("in_proj_bias", (12,)), ("out_proj.weight", (4, 4)), ("out_proj.bias", (4,))]
    assert _names_and_shapes(MultiheadAttention(4, 2, add_bias_kv=True)) == [
        ("in_proj_weight", (12, 4)), ("in_proj_bias", (12,)), ("bias_k", (1, 1, 4)),
        ("bias_v", (1, 1, 4)), ("out_proj.weight", (4, 4)), ("out_proj.bias", (4,))]
    assert _names_and_shapes(MultiheadAttention(4, 2, bias=False)) == [
        ("in_proj_weight", (12, 4)), ("out_proj.weight", (4, 4))]
    mha = MultiheadAttention(40, 4)
    bound = math.sqrt(6 / (40 + 120))            # xavier_uniform_ over (3E, E)
    weight = mha.in_proj_weight.detach().numpy()
    assert bound * 0.9 < np.abs(weight).max() <= bound
    assert not mha.in_proj_bias.detach().numpy().any()
    assert not mha.out_proj.bias.detach().numpy().any()
    assert repr(mha) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear("
                         "in_features=40, out_features=40, bias=True)\n)")


@pytest.mark.parametrize("call, error, message", [
    (lambda m, x: MultiheadAttention(5, 2), AssertionError,
     "embed_dim must be divisible by num_heads"),
    (lambda m, x: MultiheadAttention(4, 0), ValueError,
     "embed_dim and num_heads must be greater than 0, got embed_dim=4 and num_heads=0 instead"),
    (lambda m, x: m(x, x, x, attn_mask=ng.zeros(3, 4)), RuntimeError,
     "The shape of the 2D attn_mask is numgrad.Size([3, 4]), but should be (3, 3)."),
    (lambda m, x: m(x, x, x, attn_mask=ng.zeros(5, 3, 3)), RuntimeError,
     "The shape of the 3D attn_mask is numgrad.Size([5, 3, 3]), but should be (4, 3, 3)."),
    (lambda m, x: m(x, x, x, attn_mask=ng.zeros(2, 2, 3, 3)), AssertionError,
     "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found 4-D "
     "tensor instead"),
    (lambda m, x: m(x, x, x, key_padding_mask=ng.zeros(2, 3, dtype=ng.int64)), AssertionError,
     "only bool and floating types of key_padding_mask are supported"),
    (lambda m, x: m(x, x, x, is_causal=True), RuntimeError,
     "Need attn_mask if specifying the is_causal hint."),
    (lambda m, x: m(x[..., :3], x, x), AssertionError,
     "was expecting embedding dimension of 4, but got 3"),
    (lambda m, x: m(x, x[:2], x), AssertionError,
     "key shape numgrad.Size([2, 2, 4]) does not match value shape numgrad.Size([3, 2, 4])"),
    (lambda m, x: m(x.unsqueeze(0), x, x), AssertionError,
     "query should be unbatched 2D or batched 3D tensor but received 4-D query tensor"),
    (lambda m, x: m(x, x[:, 0], x), AssertionError,
     "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found 2-D and 3-D "
     "tensors respectively"),
    (lambda m, x: m(x, x, x, key_padding_mask=ng.zeros(2, 4, dtype=ng.bool)), AssertionError,
     "Expected key_padded_mask.shape[1] to be 3, but got 4"),
])
def test_mha_errors_in_torch_words(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call(MultiheadAttention(4, 2), ng.randn(3, 2, 4))


# ---- recurrent layers ----------------------------------------------------------------------------
def test_lstm_matches_torch():
    lstm = _load(LSTM(2, 3, dtype=F64))
    x = _t((3, 2, 2), 30, True)                  # (sequence, batch, input)
    out, (h, c) = lstm(x, (_t((1, 2, 3), 31), _t((1, 2, 3), 32)))
    ((out * _t(out.shape, 33)).sum() + (c * _t(c.shape, 34)).sum()).backward()
    _close(out, LSTM_OUT)
    _close(h, LSTM_OUT[-1:])
    _close(c, LSTM_C)
    _close(x.grad, LSTM_GRAD_INPUT)
    _close(lstm.weight_ih_l0.grad, LSTM_GRAD_WEIGHT_IH_L0)
    _close(lstm.weight_hh_l0.grad, LSTM_GRAD_WEIGHT_HH_L0)
    _close(lstm.bias_ih_l0.grad, LSTM_GRAD_BIAS_IH_L0)
    _close(lstm.bias_hh_l0.grad, LSTM_GRAD_BIAS_HH_L0)


def test_gru_matches_torch():
    gru = _load(GRU(2, 3, dtype=F64))
    x = _t((3, 2, 2), 30, True)
    out, h = gru(x, _t((1, 2, 3), 31))
    (out * _t(out.shape, 33)).sum().backward()
    _close(out, GRU_OUT)
    _close(h, GRU_OUT[-1:])
    _close(x.grad, GRU_GRAD_INPUT)
    _close(gru.weight_ih_l0.grad, GRU_GRAD_WEIGHT_IH_L0)
    _close(gru.weight_hh_l0.grad, GRU_GRAD_WEIGHT_HH_L0)
    _close(gru.bias_ih_l0.grad, GRU_GRAD_BIAS_IH_L0)
    _close(gru.bias_hh_l0.grad, GRU_GRAD_BIAS_HH_L0)


def test_stacked_bidirectional_and_projected_match_torch():
    rnn = _load(RNN(2, 3, num_layers=2, nonlinearity="relu", bidirectional=True,
                    batch_first=True, dtype=F64))
    out, h = rnn(_t((2, 3, 2), 40))
    _close(out, RNN_RELU_OUT)
    _close(h, RNN_RELU_H)
    lstm = _load(LSTM(2, 3, proj_size=2, bidirectional=True, dtype=F64))
    out, (h, c) = lstm(_t((3, 2), 41))           # unbatched
    _close(out, LSTM_PROJ_OUT)
    _close(h, LSTM_PROJ_H)
    _close(c, LSTM_PROJ_C)


@pytest.mark.parametrize("layer", [RNN, LSTM, GRU])
@pytest.mark.parametrize("batch_first, bidirectional, num_layers",
                         [(False, False, 1), (True, True, 2), (False, True, 2), (True, False, 1)])
def test_recurrent_shapes(layer, batch_first, bidirectional, num_layers):
    module = layer(3, 4, num_layers=num_layers, batch_first=batch_first,
                   bidirectional=bidirectional)
    directions = 2 if bidirectional else 1
    x = ng.randn(2, 5, 3) if batch_first else ng.randn(5, 2, 3)
    out, state = module(x)
    assert out.shape == ((2, 5, 4 * directions) if batch_first else (5, 2, 4 * directions))
    states = state if layer is LSTM else (state,)
    assert all(s.shape == (num_layers * directions, 2, 4) for s in states)
    # unbatched: batch_first does not apply
    out, state = module(ng.randn(5, 3))
    states = state if layer is LSTM else (state,)
    assert out.shape == (5, 4 * directions)
    assert all(s.shape == (num_layers * directions, 4) for s in states)


def test_recurrent_initial_state_and_unbatched_input():
    gru = GRU(3, 4, bidirectional=True)
    x = ng.randn(5, 3)
    h0 = ng.randn(2, 4)
    out, h = gru(x, h0)
    out_b, h_b = gru(x.unsqueeze(1), h0.unsqueeze(1))
    assert h.shape == (2, 4)
    _close(out, out_b[:, 0].detach().numpy(), atol=1e-6)
    _close(h, h_b[:, 0].detach().numpy(), atol=1e-6)
    # the reverse direction's state is its output at the first step
    _close(h[1], out[0, 4:].detach().numpy(), atol=1e-6)
    lstm = LSTM(3, 4, proj_size=2)
    out, (h, c) = lstm(ng.randn(2, 5, 3), (ng.zeros(1, 5, 2), ng.zeros(1, 5, 4)))
    assert out.shape == (2, 5, 2) and h.shape == (1, 5, 2) and c.shape == (1, 5, 4)


def test_dropout_between_layers_only_in_training():
    lstm = LSTM(3, 4, num_layers=2, dropout=0.5)
    x = ng.randn(5, 2, 3)
    lstm.eval()
    out_eval = lstm(x)[0].detach().numpy()
    plain = LSTM(3, 4, num_layers=2)
    plain.load_state_dict(lstm.state_dict())
    np.testing.assert_array_equal(plain(x)[0].detach().numpy(), out_eval)
    lstm.train()
    assert not np.allclose(lstm(x)[0].detach().numpy(), out_eval)
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last"):
        GRU(3, 4, dropout=0.5)


def test_cells_are_one_step_of_the_layers():
    x, h0, c0 = ng.randn(2, 3), ng.randn(2, 4), ng.randn(2, 4)
    for layer, cell in ((LSTM(3, 4), LSTMCell(3, 4)), (GRU(3, 4), GRUCell(3, 4)),
                        (RNN(3, 4, nonlinearity="relu"), RNNCell(3, 4, nonlinearity="relu"))):
        cell.load_state_dict({name[:-3]: value for name, value in layer.state_dict().items()})
        if isinstance(cell, LSTMCell):
            h, c = cell(x, (h0, c0))
            out, (h_n, c_n) = layer(x.unsqueeze(0), (h0.unsqueeze(0), c0.unsqueeze(0)))
            _close(c, c_n[0].detach().numpy(), atol=1e-6)
        else:
            h = cell(x, h0)
            out, h_n = layer(x.unsqueeze(0), h0.unsqueeze(0))
        _close(h, out[0].detach().numpy(), atol=1e-6)
        single = cell(x[0]) if not isinstance(cell, LSTMCell) else cell(x[0])[0]
        assert single.shape == (4,)


def test_cell_gradcheck():
    # parameter gradients are checked against torch above; here the step's inputs and states
    x, h, c = _t((2, 3), 1, True), _t((2, 4), 2, True), _t((2, 4), 3, True)
    lstm = _load(LSTMCell(3, 4, dtype=F64))
    assert gradcheck(lambda a, b, d: ng.cat(lstm(a, (b, d)), -1), (x, h, c))
    gru = _load(GRUCell(3, 4, dtype=F64))
    assert gradcheck(gru, (x, h))


def test_recurrent_parameter_names_and_initialisation():
    assert _names_and_shapes(LSTM(3, 4, 2, bidirectional=True, proj_size=2)) == [
        ("weight_ih_l0", (16, 3)), ("weight_hh_l0", (16, 2)), ("bias_ih_l0", (16,)),
        ("bias_hh_l0", (16,)), ("weight_hr_l0", (2, 4)), ("weight_ih_l0_reverse", (16, 3)),
        ("weight_hh_l0_reverse", (16, 2)), ("bias_ih_l0_reverse", (16,)),
        ("bias_hh_l0_reverse", (16,)), ("weight_hr_l0_reverse", (2, 4)), ("weight_ih_l1", (16, 4)),
        ("weight_hh_l1", (16, 2)), ("bias_ih_l1", (16,)), ("bias_hh_l1", (16,)),
        ("weight_hr_l1", (2, 4)), ("weight_ih_l1_reverse", (16, 4)),
        ("weight_hh_l1_reverse", (16, 2)), ("bias_ih_l1_reverse", (16,)),
        ("bias_hh_l1_reverse", (16,)), ("weight_hr_l1_reverse", (2, 4))]
    assert _names_and_shapes(GRU(3, 4, 2, bias=False)) == [
        ("weight_ih_l0", (12, 3)), ("weight_hh_l0", (12, 4)), ("weight_ih_l1", (12, 4)),
        ("weight_hh_l1", (12, 4))]
    assert _names_and_shapes(LSTMCell(3, 4)) == [
        ("weight_ih", (16, 3)), ("weight_hh", (16, 4)), ("bias_ih", (16,)), ("bias_hh", (16,))]
    rnn = RNN(30, 25)
    for param in rnn.parameters():                # U(-1/sqrt(hidden), 1/sqrt(hidden))
        values = np.abs(param.detach().numpy())
        assert 0.15 < values.max() <= 0.2
    assert repr(LSTM(3, 4, 2, bidirectional=True, proj_size=2)) == \
        "LSTM(3, 4, proj_size=2, num_layers=2, bidirectional=True)"
    assert repr(GRU(3, 4, 2, bias=False, batch_first=True, dropout=0.5)) == \
        "GRU(3, 4, num_layers=2, bias=False, batch_first=True, dropout=0.5)"
    assert repr(RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"


@pytest.mark.parametrize("call, error, message", [
    (lambda: RNN(3, 4, nonlinearity="sigmoid"), ValueError,
     "Unknown nonlinearity 'sigmoid'. Select from 'tanh' or 'relu'."),
    (lambda: RNN(3, 4, dropout=2), ValueError,
     "dropout should be a number in range [0, 1] representing the probability of an element "
     "being zeroed"),
    (lambda: GRU(3, 0), ValueError, "hidden_size must be greater than zero"),
    (lambda: GRU(3, 4, 0), ValueError, "num_layers must be greater than zero"),
    (lambda: LSTM(3, 4, proj_size=4), ValueError, "proj_size has to be smaller than hidden_size"),
    (lambda: LSTM(3, 4)(ng.randn(5, 2, 2, 3)), ValueError,
     "LSTM: Expected input to be 2D or 3D, got 4D instead"),
    (lambda: LSTM(3, 4)(ng.randn(5, 2, 2)), RuntimeError,
     "input.size(-1) must be equal to input_size. Expected 3, got 2"),
    (lambda: GRU(3, 4)(ng.randn(5, 2, 3), ng.zeros(1, 3, 4)), RuntimeError,
     "Expected hidden size (1, 2, 4), got [1, 3, 4]"),
    (lambda: GRU(3, 4)(ng.randn(5, 2, 3), ng.zeros(2, 4)), RuntimeError,
     "For batched 3-D input, hx should also be 3-D but got 2-D tensor"),
    (lambda: GRU(3, 4)(ng.randn(5, 3), ng.zeros(1, 1, 4)), RuntimeError,
     "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"),
    (lambda: LSTM(3, 4)(ng.randn(5, 2, 3), (ng.zeros(1, 2, 4), ng.zeros(1, 3, 4))), RuntimeError,
     "Expected hidden[1] size (1, 2, 4), got [1, 3, 4]"),
    (lambda: LSTM(3, 4)(ng.randn(5, 3), (ng.zeros(1, 2, 4), ng.zeros(1, 2, 4))), RuntimeError,
     "For unbatched 2-D input, hx and cx should also be 2-D but got (3-D, 3-D) tensors"),
    (lambda: GRU(3, 4)(ng.randn(5, 2, 3, dtype=F64)), ValueError,
     "RNN input dtype (numgrad.float64) does not match weight dtype (numgrad.float32)."),
    (lambda: LSTMCell(3, 4)(ng.randn(2, 2, 3)), ValueError,
     "LSTMCell: Expected input to be 1D or 2D, got 3D instead"),
    (lambda: LSTMCell(3, 4)(ng.randn(2, 2)), RuntimeError,
     "input has inconsistent input_size: got 2 expected 3"),
    (lambda: LSTMCell(3, 4)(ng.randn(2, 3), (ng.zeros(3, 4), ng.zeros(3, 4))), RuntimeError,
     "Input batch size 2 doesn't match hidden0 batch size 3"),
    (lambda: LSTMCell(3, 4)(ng.randn(2, 3), (ng.zeros(2, 4), ng.zeros(2, 5))), RuntimeError,
     "hidden1 has inconsistent hidden_size: got 5, expected 4"),
    (lambda: GRUCell(3, 4)(ng.randn(2, 3), ng.zeros(2, 2, 4)), ValueError,
     "GRUCell: Expected hidden to be 1D or 2D, got 3D instead"),
    (lambda: RNNCell(3, 4, nonlinearity="sigmoid")(ng.randn(3)), RuntimeError,
     "Unknown nonlinearity: sigmoid"),
])
def test_recurrent_errors_in_torch_words(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


# ---- transformer encoder -------------------------------------------------------------------------
@pytest.mark.parametrize("tag, options, shape", [
    ("POST", {}, (3, 2, 4)),
    ("PRE", dict(norm_first=True, activation="gelu", batch_first=True), (2, 3, 4))])
def test_encoder_layer_matches_torch(tag, options, shape):
    layer = _load(TransformerEncoderLayer(4, 2, dim_feedforward=6, dropout=0.0, dtype=F64,
                                          **options))
    padding = ng.tensor([[False, False, True], [False, False, False]])
    out = layer(_t(shape, 50), src_key_padding_mask=padding)
    (out * _t(out.shape, 51)).sum().backward()
    expected = globals()
    _close(out, expected[f"ENCODER_{tag}_OUT"])
    _close(layer.linear1.weight.grad, expected[f"ENCODER_{tag}_GRAD_LINEAR1_WEIGHT"])
    _close(layer.self_attn.in_proj_bias.grad, expected[f"ENCODER_{tag}_GRAD_IN_PROJ_BIAS"])


def test_encoder_stacks_copies():
    layer = TransformerEncoderLayer(4, 2, dim_feedforward=6, dropout=0.0)
    norm = ng.nn.LayerNorm(4)
    encoder = TransformerEncoder(layer, num_layers=2, norm=norm)
    names = [name for name, _ in encoder.named_parameters()]
    assert names[:12] == [
        "layers.0.self_attn.in_proj_weight", "layers.0.self_attn.in_proj_bias",
        "layers.0.self_attn.out_proj.weight", "layers.0.self_attn.out_proj.bias",
        "layers.0.linear1.weight", "layers.0.linear1.bias", "layers.0.linear2.weight",
        "layers.0.linear2.bias", "layers.0.norm1.weight", "layers.0.norm1.bias",
        "layers.0.norm2.weight", "layers.0.norm2.bias"]
    assert len(names) == 26 and names[-2:] == ["norm.weight", "norm.bias"]
    assert encoder.layers[0] is not layer and encoder.layers[0].linear1.weight is not \
        encoder.layers[1].linear1.weight
    x = ng.randn(3, 2, 4)
    mask = ng.tensor(np.triu(np.ones((3, 3), bool), 1))
    want = norm(encoder.layers[1](encoder.layers[0](x, mask), mask))
    _close(encoder(x, mask=mask), want.detach().numpy(), atol=1e-6)
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        TransformerEncoderLayer(4, 2, activation="tanh")


# ---- the GPU path (numba-cuda's simulator without a GPU): the composites need nothing new --------
@pytest.mark.skipif(not numgrad.cuda.is_available(), reason="needs numba-cuda and a GPU or its "
                                                            "simulator")
def test_attention_on_cuda_matches_the_cpu():
    cpu = _load(MultiheadAttention(4, 2, dtype=F64))
    gpu = copy.deepcopy(cpu).cuda()
    future = np.triu(np.ones((3, 3), bool), 1)
    results = []
    for mha, device in ((cpu, "cpu"), (gpu, "cuda")):
        x = ng.tensor(_fixed((3, 2, 4), 10), device=device)
        mask = ng.tensor(future, device=device)
        out, weights = mha(x, x, x, attn_mask=mask)
        fast = mha(x, x, x, attn_mask=mask, need_weights=False)[0]    # through sdpa
        (out.sum() + weights.sum() + fast.sum()).backward()
        results.append([t.detach().cpu().numpy()
                        for t in [out, weights, fast] + [p.grad for p in mha.parameters()]])
    for on_cpu, on_gpu in zip(*results):
        np.testing.assert_allclose(on_gpu, on_cpu, rtol=1e-9, atol=1e-12)


# ---- torch 2.13's values (see the module docstring) ----------------------------------------------
SDPA_OUT = np.array([
    0.15600366, 0.07430109, -0.063003, -0.04748903, 0.02341789, -0.03405364, -0.12731655,
    -0.09646228, 0.16953382, 0.10328999, -0.10508174, -0.12048094, 0.07018581, 0.09458284,
    -0.06771912, -0.07112924, 0.13070036, 0.03876833, -0.08887429, -0.14166295, 0.09229137,
    0.20426987, -0.04706865, -0.11603853]).reshape(2, 2, 3, 2)

SDPA_GRAD_Q = np.array([
    0.05120685, 0.07878693, -0.04662213, -0.06371463, 0.00178337, 0.0246831, 0.02976109,
    0.04606584, 0.00073566, -0.04621037, 0.01933669, 0.06246619, 0.04217499, 0.00369395,
    -0.00627668, -0.02577392, -0.0162261, 0.02540845, 0.07766364, 0.01920612, -0.04691779,
    -0.03621334, 0.00365665, 0.01664806]).reshape(2, 2, 3, 2)

SDPA_GRAD_K = np.array([
    -0.00458753, 0.03423904, 0.00852036, -0.00580823, -0.00393283, -0.02843081, -0.01714676,
    -0.03967815, 0.00086912, 0.01376386, 0.01627763, 0.02591429, 0.04202461, 0.04812048,
    0.00788222, -0.00653595, -0.04990683, -0.04158454, -0.03463438, -0.02221168, -0.01148279,
    0.02173322, 0.04611717, 0.00047846]).reshape(2, 2, 3, 2)

SDPA_GRAD_V = np.array([
    0.12447047, 0.16039721, 0.03943365, 0.11337111, -0.05885255, -0.0372851, -0.08515915,
    -0.05657758, 0.02595408, 0.0360312, 0.29207317, 0.14792542, 0.09867067, -0.09074513,
    0.13909041, 0.00701226, -0.05948143, 0.00223206, 0.01134321, 0.13670704, 0.00969413,
    -0.08063812, -0.03699211, -0.28261021]).reshape(2, 2, 3, 2)

MHA_OUT = np.array([
    0.92607769, 0.00356096, 0.37425128, -0.47198891, 0.92607818, -0.00236604, 0.38488097,
    -0.48512644, 0.92048714, 0.00599341, 0.3754792, -0.47662365, 0.91398738, 0.0096518,
    0.37541758, -0.48017152, 0.92004258, 0.00650166, 0.37501221, -0.47629434, 0.90192804,
    0.02530536, 0.35940199, -0.46710085]).reshape(3, 2, 4)

MHA_WEIGHTS = np.array([
    1, 0, 0, 0.49660788, 0.50339212, 0, 0.48135737, 0.51864263, 0, 1, 0, 0, 0.49095693,
    0.50904307, 0, 0.31916192, 0.34238232, 0.33845576]).reshape(2, 3, 3)

MHA_GRAD_IN_PROJ_WEIGHT = np.array([
    0.01151843, -0.01873209, -0.00669138, 0.02045639, -0.01210602, 0.01939145, 0.00710906,
    -0.02122338, 0.01586095, -0.01977291, -0.01076569, 0.02254711, -0.01321165, 0.01577165,
    0.00914747, -0.01812885, -0.00592748, -0.00359329, 0.00685343, 0.00182724, -0.01998764,
    -0.01226415, 0.02314797, 0.00629918, -0.01408483, -0.0035775, 0.01500671, -0.00028956,
    0.004626, -0.00148057, -0.00424447, 0.00257432, 0.44425302, -0.0692109, -0.42641813,
    0.17909416, 0.28543457, -0.08825393, -0.26269251, 0.15594689, -0.09049764, -0.04070842,
    0.10098775, 0.01468499, -0.39977207, 0.03910477, 0.38969521, -0.13952493]).reshape(12, 4)

MHA_GRAD_IN_PROJ_BIAS = np.array([
    0.02774727, -0.02882815, 0.03043534, -0.0240416, 0, 0, 0, 0, 0.58370242, 0.4893849,
    0.02471065, -0.45866414]).reshape(12,)

MHA_GRAD_OUT_PROJ_WEIGHT = np.array([
    0.22706732, 0.2249063, 0.21397192, -0.11654207, -0.16864779, -0.19383516, -0.19412698,
    0.12910199, 0.07787222, 0.12557564, 0.13703767, -0.11689295, 0.02784358, -0.03322371,
    -0.0536569, 0.08225734]).reshape(4, 4)

MHA_GRAD_OUT_PROJ_BIAS = np.array([
    0.53315387, -0.44870615, 0.2781716, -0.05426823]).reshape(4,)

MHA_CROSS_OUT = np.array([
    0.79899275, 0.23754767, -0.67641322, -0.61116087, 0.79578581, 0.23886227, -0.67197445,
    -0.6083162, 0.7954028, 0.241401, -0.66921257, -0.60826695, 0.80975884, 0.24946763,
    -0.67600991, -0.62270292, 0.81387129, 0.24897285, -0.68058599, -0.62649608, 0.81703718,
    0.24766348, -0.68497879, -0.62930291]).reshape(2, 3, 4)

MHA_CROSS_WEIGHTS = np.array([
    0.21812557, 0.22163364, 0.3173778, 0.24286298, 0.22126908, 0.2245039, 0.3101958,
    0.24403122, 0.21960176, 0.22332749, 0.31041811, 0.24665265, 0.22808804, 0.22373658,
    0.28734315, 0.26083223, 0.212942, 0.20444982, 0.31470567, 0.2679025, 0.20464073,
    0.19396624, 0.33003305, 0.27135998, 0.21909604, 0.21498064, 0.31752156, 0.24840177,
    0.21508873, 0.21076141, 0.32621599, 0.24793386, 0.21420992, 0.20841635, 0.33082085,
    0.24655289, 0.20012501, 0.21099497, 0.31996114, 0.26891888, 0.21811611, 0.22432109,
    0.29442455, 0.26313825, 0.23433751, 0.23526685, 0.27309013, 0.25730551]).reshape(2, 2, 3, 4)

LSTM_OUT = np.array([
    0.03525673, 0.16536007, 0.05743255, 0.1419863, 0.12420021, 0.06858772, 0.09336824,
    0.185072, 0.15262537, 0.16445428, 0.19504957, 0.15370092, 0.14914839, 0.21083373,
    0.17259782, 0.15127059, 0.18387438, 0.16268914]).reshape(3, 2, 3)

LSTM_C = np.array([
    0.35274479, 0.61921212, 0.56671899, 0.33666019, 0.56491155, 0.58389056]).reshape(1, 2, 3)

LSTM_GRAD_INPUT = np.array([
    -0.01591874, 0.02504784, 0.03359241, 0.03084458, 0.02095791, 0.03353244, 0.0332439,
    0.02533016, -0.05396406, -0.01267899, -0.06566359, -0.03657254]).reshape(3, 2, 2)

LSTM_GRAD_WEIGHT_IH_L0 = np.array([
    0.00109657, -0.00628541, 0.01864523, -0.00267518, 0.00992582, -0.00965977, -0.01023702,
    0.00955841, 0.01860344, -0.00200144, -0.03099207, 0.02491681, 0.02008651, -0.08155113,
    0.05928128, 0.00707825, -0.01209131, 0.01311102, 0.03903466, -0.02490729, -0.05938851,
    0.04304109, 0.00086219, 0.02075586]).reshape(12, 2)

LSTM_GRAD_WEIGHT_HH_L0 = np.array([
    0.00087643, -0.01243538, 0.005786, 0.01240343, 0.03152688, 0.00580476, -0.01864206,
    -0.03778489, 0.01434223, -0.00972741, 0.00634628, -0.01320805, 0.01025858, 0.0269152,
    0.00708964, -0.00519413, -0.00283108, -0.02461096, 0.01845679, -0.14364859, 0.06676143,
    0.04181504, 0.10188937, 0.01740555, -0.03180751, -0.07270389, 0.01326204, 0.01191484,
    0.0123974, 0.02193338, -0.02059997, 0.01128449, -0.04938697, -0.00940663, -0.02102303,
    0.00668335]).reshape(12, 3)

LSTM_GRAD_BIAS_IH_L0 = np.array([
    -0.04574221, 0.15415793, -0.20492508, -0.00081552, 0.12850945, -0.02386966, -0.49903589,
    0.48948221, -0.38731808, 0.07602678, -0.00073806, -0.13027485]).reshape(12,)

LSTM_GRAD_BIAS_HH_L0 = np.array([
    -0.04574221, 0.15415793, -0.20492508, -0.00081552, 0.12850945, -0.02386966, -0.49903589,
    0.48948221, -0.38731808, 0.07602678, -0.00073806, -0.13027485]).reshape(12,)

GRU_OUT = np.array([
    -0.00676253, 0.53173263, 0.19824216, 0.23505984, 0.42102888, 0.32220848, 0.06714549,
    0.63024513, 0.48096803, 0.2626852, 0.5776311, 0.48623144, 0.13473485, 0.5594308,
    0.54792343, 0.13841347, 0.46770046, 0.58696815]).reshape(3, 2, 3)

GRU_GRAD_INPUT = np.array([
    0.0241238, -0.02969464, 0.12727951, -0.03536329, 0.11983112, -0.03908779, 0.14537734,
    -0.03258807, 0.13313254, 0.02398074, 0.1395558, 0.07491735]).reshape(3, 2, 2)

GRU_GRAD_WEIGHT_IH_L0 = np.array([
    0.00203658, -0.00795602, -0.02149292, 0.01366518, 0.00871862, 0.00104543, -0.01203121,
    0.02548932, 0.02010222, -0.01946659, -0.1290358, 0.11099869, 0.24990596, -0.28477443,
    -0.26825884, 0.16553417, 0.18337054, -0.11799873]).reshape(9, 2)

GRU_GRAD_WEIGHT_HH_L0 = np.array([
    0.01082547, 0.0083359, 0.0099789, -0.01085986, -0.00674607, -0.02994127, -0.00478825,
    -0.03037211, 0.00174385, -0.00448838, 0.0079123, -0.01213686, -0.00973771, -0.01567294,
    0.01054092, 0.00178847, 0.143686, -0.10813213, 0.19522056, 0.45246579, 0.37895984,
    -0.07660216, -0.05328906, -0.25299323, -0.01416407, -0.1913086, 0.05344323]).reshape(9, 3)

GRU_GRAD_BIAS_IH_L0 = np.array([
    0.02681341, 0.00301141, -0.07990183, 0.01644373, -0.06177323, 0.44181341, 1.16783336,
    0.04095948, -0.92970454]).reshape(9,)

GRU_GRAD_BIAS_HH_L0 = np.array([
    0.02681341, 0.00301141, -0.07990183, 0.01644373, -0.06177323, 0.44181341, 0.90173711,
    0.05966919, -0.51530609]).reshape(9,)

RNN_RELU_OUT = np.array([
    0.99213125, 0, 0, 2.55915709, 0.58228739, 0.98305218, 2.03779449, 0, 0, 3.05013515,
    0.78184222, 0.337096, 2.96280738, 0, 0, 1.88085832, 0, 0, 1.17041683, 0, 0, 2.90218307,
    1.00962381, 1.07482055, 2.1111195, 0, 0, 3.03287492, 0.59627675, 0.16950621, 2.97887598, 0,
    0, 1.89603492, 0.15350096, 0]).reshape(2, 3, 6)

RNN_RELU_H = np.array([
    1.67536904, 0.33395548, 0, 1.68500153, 0.93224506, 0, 1.54690358, 0, 0.1231536, 1.85846006,
    0, 0, 2.96280738, 0, 0, 2.97887598, 0, 0, 2.55915709, 0.58228739, 0.98305218, 2.90218307,
    1.00962381, 1.07482055]).reshape(4, 2, 3)

LSTM_PROJ_OUT = np.array([
    0.07840153, -0.0629762, -0.18210597, -0.16775952, 0.14303135, -0.12935709, -0.18595866,
    -0.15076207, 0.11329939, -0.09501969, -0.12007291, -0.08272434]).reshape(3, 4)

LSTM_PROJ_H = np.array([
    0.11329939, -0.09501969, -0.18210597, -0.16775952]).reshape(2, 2)

LSTM_PROJ_C = np.array([
    0.32339422, 0.70083523, 0.55944892, -0.47977246, -0.84806324, 0.18004845]).reshape(2, 3)

ENCODER_POST_OUT = np.array([
    1.24390606, -0.23343968, 0.18119928, 0.29902686, 1.19581358, -0.24593777, 0.24316279,
    0.33189379, 1.24061058, -0.23384305, 0.18731733, 0.30315418, 1.22981971, -0.23781433,
    0.20084802, 0.30807346, 1.2113581, -0.24148426, 0.22652216, 0.32387856, 1.24637276,
    -0.2323723, 0.17811233, 0.29821413]).reshape(3, 2, 4)

ENCODER_POST_GRAD_LINEAR1_WEIGHT = np.array([
    -0.0080957, -0.00033876, 0.00174615, -0.00228205, 0, 0, 0, 0, 0, 0, 0, 0, 0.00372017,
    -0.00343446, -0.01222851, -0.00261683, 0, 0, 0, 0, -0.00056907, 0.00004807, 0.00053771,
    -0.00012481]).reshape(6, 4)

ENCODER_POST_GRAD_IN_PROJ_BIAS = np.array([
    -0.0013631, 0.00096065, -0.00028029, 0.00099872, 0, 0, 0, 0, -0.02254675, -0.02698685,
    -0.01100384, 0.01330665]).reshape(12,)

ENCODER_PRE_OUT = np.array([
    1.45048766, -0.13202933, -0.83014877, -1.33944379, 1.55371472, 0.5092734, 0.08205523,
    -0.43695937, 2.1549395, 0.53729612, -0.40572682, -1.29441548, 1.23816928, -0.17231654,
    -0.61049985, -1.04352725, 1.93793394, 0.74311961, 0.20952706, -0.59426419, 1.90554971,
    0.15825113, -0.67455386, -1.50405902]).reshape(2, 3, 4)

ENCODER_PRE_GRAD_LINEAR1_WEIGHT = np.array([
    -0.10762016, 0.03285796, 0.19998317, 0.0133384, -0.00363841, 0.0030379, -0.01167754,
    0.00172185, 0.07157038, -0.01335049, -0.09261699, 0.00059862, 0.02077295, -0.01334423,
    -0.03305487, -0.00902055, 0.01564593, -0.00200145, 0.00513976, 0.00181542, -0.05368767,
    0.01513018, 0.08037626, 0.00476253]).reshape(6, 4)

ENCODER_PRE_GRAD_IN_PROJ_BIAS = np.array([
    0.00012955, -0.00056259, -0.00496736, 0.00631736, 0, 0, 0, 0, -0.07476926, -0.08467289,
    -0.03049776, 0.04675747]).reshape(12,)


def test_public_names():
    """The layers are reachable where torch users look for them."""
    import numgrad.nn.attention as attention
    import numgrad.nn.functional_attention as functional_attention
    import numgrad.nn.rnn as rnn
    import numgrad.nn.transformer as transformer
    assert ng.nn.functional.scaled_dot_product_attention is functional_attention.scaled_dot_product_attention
    assert ng.nn.MultiheadAttention is attention.MultiheadAttention
    for name in ("RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "RNNBase", "RNNCellBase"):
        assert getattr(ng.nn, name) is getattr(rnn, name)
    for name in ("TransformerEncoder", "TransformerEncoderLayer"):
        assert getattr(ng.nn, name) is getattr(transformer, name)
