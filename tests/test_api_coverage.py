"""torch API that numgrad gained to cover what CPU autograd users reach for: top-level nn forms,
scatter_reduce/index_reduce, the *_scatter ops, value queries, tensor facts, dtype questions,
random state, and more nn layers and functional ops. Expected numbers come from torch 2.13
(api_coverage_expected.py); gradients are checked by finite differences in float64."""
import warnings

import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F
from numgrad.autograd import gradcheck, gradgradcheck

from api_coverage_expected import EXPECTED

FLOATS = [ng.float32, ng.float64]


def close(actual, expected, atol=1e-5):
    np.testing.assert_allclose(np.asarray(actual.detach() if isinstance(actual, ng.Tensor)
                                          else actual, np.float64),
                               np.asarray(expected, np.float64), atol=atol, rtol=1e-5)


def t(values, dtype=ng.float64, grad=False):
    return ng.tensor(np.asarray(values, np.float64), dtype=dtype, requires_grad=grad)


X = np.array([[1.0, 2.0, 0.0], [4.0, 2.0, 6.0], [3.0, 3.0, 3.0]])
SRC = np.array([[2.0, 2.0, 5.0], [0.0, 2.0, 1.0], [3.0, 0.0, 3.0], [1.0, 7.0, 3.0]])
INDEX = ng.tensor([[0, 1, 0], [1, 1, 0], [0, 2, 2], [0, 1, 2]])
WEIGHTS = np.arange(9.0).reshape(3, 3) / 4 - 1
XS = np.linspace(-1, 1, 2 * 3 * 5).reshape(2, 3, 5)
TABLE = np.arange(12.0).reshape(4, 3)


# ---- scatter_reduce and index_reduce ------------------------------------------------------------
@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_values_and_gradients_match_torch(reduce, include_self):
    # ties (amax/amin share the gradient) and zeros (prod) on purpose
    value, input_grad, src_grad = EXPECTED[f"scatter_reduce/{reduce}/{include_self}"]
    for dtype in FLOATS:
        a, s = t(X, dtype, True), t(SRC, dtype, True)
        out = a.scatter_reduce(0, INDEX, s, reduce, include_self=include_self)
        (out * t(WEIGHTS, dtype)).sum().backward()
        assert out.dtype == dtype
        close(out, value)
        close(a.grad, input_grad)
        close(s.grad, src_grad)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
def test_scatter_reduce_second_derivatives(reduce):
    # distinct values: finite differences are smooth there
    a = t(np.arange(9.0).reshape(3, 3) / 3 + 0.5, grad=True)
    s = t(np.arange(12.0).reshape(4, 3) / 5 - 0.9, grad=True)
    fn = lambda a, s: a.scatter_reduce(0, INDEX, s, reduce, include_self=False)  # noqa: E731
    assert gradcheck(fn, (a, s))
    assert gradgradcheck(lambda a, s: ng.scatter_reduce(a, 0, INDEX, s, reduce), (a, s))


def test_scatter_reduce_integers_and_in_place():
    out = ng.tensor([1, 2, 3]).scatter_reduce(0, ng.tensor([0, 0, 1]), ng.tensor([4, 5, 6]),
                                              "mean")
    assert out.tolist() == [3, 4, 3] and out.dtype == ng.int64    # floor division, as torch
    a = t(X, grad=True) * 1
    a.scatter_reduce_(0, INDEX, t(SRC), "prod")
    close(a, EXPECTED["scatter_reduce/prod/True"][0])


def test_scatter_reduce_errors():
    a, s = t(X), t(SRC)
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, "
                                           "amax or amin, got foo"):
        a.scatter_reduce(0, INDEX, s, "foo")
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        a.scatter_reduce(0, INDEX, s.float(), "sum")
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0 with size 3"):
        a.scatter_reduce(0, INDEX + 5, s, "sum")
    with pytest.raises(RuntimeError, match=r"index_reduce\(\): Expected reduce to be one of prod"):
        a.index_reduce(0, ng.tensor([2, 0, 2, 2]), s, "sum")


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_matches_torch(reduce):
    value, input_grad, src_grad = EXPECTED[f"index_reduce/{reduce}"]
    a, s = t(X, grad=True), t(SRC, grad=True)
    out = a.index_reduce(0, ng.tensor([2, 0, 2, 2]), s, reduce, include_self=False)
    (out * t(WEIGHTS)).sum().backward()
    close(out, value)
    close(a.grad, input_grad)
    close(s.grad, src_grad)


# ---- writing into views, products, norms ---------------------------------------------------------
def test_scatter_into_views():
    close(ng.diagonal_scatter(ng.zeros(2, 3, 4, dtype=ng.float64), ng.ones(3, 1) * 7, 1, 2, 0),
          EXPECTED["diagonal_scatter"])
    close(ng.zeros(3, 4).slice_scatter(ng.ones(3, 2), 1, 0, 4, 2), EXPECTED["slice_scatter"])
    close(ng.zeros(2, 2).select_scatter(ng.tensor([1.0, 2.0]), 0, -1), [[0, 0], [1, 2]])
    a, s = t(X, grad=True), t([1.0, 2.0, 3.0], grad=True)
    assert gradcheck(lambda a, s: a.diagonal_scatter(s), (a, s))
    assert gradcheck(lambda a, s: a.select_scatter(s, 1, 0), (a, s))
    with pytest.raises(RuntimeError, match=r"expected src to have a size equal to the slice of "
                                           r"self. src size = \[2\], slice size = \[3\]"):
        a.diagonal_scatter(s[:2])


def test_addr_addbmm_renorm():
    close(ng.addr(t(X), t([1.0, 2.0, 3.0]), t([0.5, -1.0, 2.0]), beta=0.5, alpha=2),
          EXPECTED["addr"])
    close(ng.addbmm(t(X), t(np.arange(12.0).reshape(2, 3, 2) / 5),
                    t(np.arange(12.0).reshape(2, 2, 3) / 7 - 0.5)), EXPECTED["addbmm"])
    value, grad = EXPECTED["renorm"]
    a = t(SRC, grad=True)
    out = a.renorm(2, 0, 3.0)
    (out * t(np.arange(12.0).reshape(4, 3))).sum().backward()
    close(out, value)
    close(a.grad, grad)
    # beta=0 ignores input, NaNs too, and gives it a zero gradient
    nan_input = t(np.full((3, 3), np.nan), grad=True)
    out = ng.addr(nan_input, t([1.0, 2.0, 3.0]), t([1.0, 1.0, 1.0]), beta=0)
    out.sum().backward()
    assert not np.isnan(np.asarray(out.detach())).any()
    close(nan_input.grad, np.zeros((3, 3)))
    with pytest.raises(RuntimeError, match="addr: Expected 1-D argument vec1, but got 2-D"):
        ng.addr(t(X), t(X), t([1.0, 2.0, 3.0]))


def test_adjoint_views():
    x = ng.zeros(2, 3)
    assert x.H.shape == (3, 2) and x.mH.shape == (3, 2) and ng.adjoint(x)._base is x
    with pytest.raises(RuntimeError, match="tensor.mH is only supported on matrices"):
        ng.ones(2).mH


def test_nanmedian():
    m = np.array([[1.0, np.nan, 3.0, 2.0], [5.0, 1.0, np.nan, 4.0], [4.0, 4.0, 2.0, 1.0]])
    value, grad = EXPECTED["nanmedian/all"]
    a = t(m, grad=True)
    out = ng.nanmedian(a)
    out.backward()
    close(out, value)
    close(a.grad, grad)
    value, indices, grad = EXPECTED["nanmedian/dim"]
    a = t(m, grad=True)
    out, index = a.nanmedian(1)
    (out * t([1.0, 2.0, 3.0])).sum().backward()
    close(out, value)
    assert index.tolist() == indices
    close(a.grad, grad)


# ---- no-gradient queries -----------------------------------------------------------------------
def test_value_queries():
    close(ng.histc(t([1.0, 2.0, 1.0, 4.0, 7.5, -1.0]), 4, 0, 4), EXPECTED["histc"])
    close(ng.tensor([1.0, 2.0, 1.0]).histc(2, 1, 1), [2, 1])       # min == max: the data's range
    with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'Long'"):
        ng.histc(ng.tensor([1, 2]))
    assert ng.isin(ng.tensor([[1, 2], [3, 4]]), ng.tensor([2, 3])).tolist() == [[False, True],
                                                                               [True, False]]
    assert ng.isin(ng.tensor([1, 2]), ng.tensor([2]), invert=True).tolist() == [True, False]
    values, inverse, counts = ng.unique_consecutive(ng.tensor([1, 1, 2, 2, 3, 1, 1, 2]),
                                                    return_inverse=True, return_counts=True)
    assert values.tolist() == [1, 2, 3, 1, 2]
    assert inverse.tolist() == [0, 0, 1, 1, 2, 3, 3, 4] and counts.tolist() == [2, 2, 1, 2, 1]
    rows, counts = ng.tensor([[1, 1], [1, 1], [2, 3]]).unique_consecutive(dim=0,
                                                                          return_counts=True)
    assert rows.tolist() == [[1, 1], [2, 3]] and counts.tolist() == [2, 1]
    assert [c.tolist() for c in ng.unravel_index(ng.tensor([4, 1, -1]), (2, 3))] == \
        [[1, 0, 1], [1, 1, 2]]
    inf = float("inf")
    assert ng.isposinf(ng.tensor([1.0, inf, -inf])).tolist() == [False, True, False]
    assert ng.isneginf(ng.tensor([1.0, inf, -inf])).tolist() == [False, False, True]
    assert ng.combinations(ng.tensor([1, 2, 3, 4]), 3).tolist() == EXPECTED["combinations"]


# ---- torch's top-level forms of nn functions ----------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
def test_top_level_nn_forms(dtype):
    weights = t(np.linspace(-0.5, 0.7, 24).reshape(4, 3, 2), dtype)
    close(ng.conv1d(t(XS, dtype), weights, t([0.1, 0.2, 0.3, 0.4], dtype), 2, 1),
          EXPECTED["conv1d"])
    # ATen's order: weight, bias before the running statistics; every argument given
    close(ng.batch_norm(t(XS, dtype), t([1.0, 2.0, 3.0], dtype), t([0.0, 0.5, 1.0], dtype), None,
                        None, True, 0.1, 1e-5, False), EXPECTED["batch_norm"], atol=1e-4)
    # ATen's embedding takes the weight first
    close(ng.embedding(t(TABLE, dtype), ng.tensor([[0, 3], [2, 2]])), EXPECTED["embedding"])
    logp = t(np.log([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]), dtype)
    q = t([[0.1, 0.4, 0.5], [0.3, 0.3, 0.4]], dtype)
    for code, expected in enumerate(EXPECTED["kl_div"]):      # 0 none, 1 mean, 2 sum
        close(ng.kl_div(logp, q, code), expected)
    close(ng.binary_cross_entropy_with_logits(logp, q, None, t([1.0, 2.0, 0.5], dtype), 2),
          EXPECTED["bce_logits"])
    close(ng.margin_ranking_loss(t([0.3, -0.2, 0.5], dtype), t([0.1, 0.4, 0.5], dtype),
                                 t([1.0, -1.0, 1.0], dtype), 0.2, 0), EXPECTED["margin_ranking"])
    close(ng.max_pool1d(t(XS, dtype), 2), EXPECTED["max_pool1d"])
    values, indices = ng.adaptive_max_pool1d(t(XS, dtype), 3)
    close(values, EXPECTED["adaptive_max_pool1d"][0])
    assert indices.tolist() == EXPECTED["adaptive_max_pool1d"][1]


def test_recurrent_cell_functions_match_the_modules():
    cell = ng.nn.LSTMCell(3, 4).double()
    x, h, c = t(np.ones((2, 3)) * 0.5), t(np.ones((2, 4)) * 0.1), t(np.ones((2, 4)) * -0.2)
    hy, cy = ng.lstm_cell(x, (h, c), cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)
    expected_h, expected_c = cell(x, (h, c))
    close(hy, np.asarray(expected_h.detach()))
    close(cy, np.asarray(expected_c.detach()))
    gru = ng.nn.GRUCell(3, 4).double()
    close(ng.gru_cell(x, h, gru.weight_ih, gru.weight_hh, gru.bias_ih, gru.bias_hh),
          np.asarray(gru(x, h).detach()))
    rnn = ng.nn.RNNCell(3, 4).double()
    close(ng.rnn_tanh_cell(x, h, rnn.weight_ih, rnn.weight_hh, rnn.bias_ih, rnn.bias_hh),
          np.asarray(rnn(x, h).detach()))


def test_top_level_in_place_and_tensor_first_forms():
    x = ng.ones(3)
    assert ng.exp_(x) is x
    close(x, np.full(3, np.e))
    ng.zero_(x)
    close(x, np.zeros(3))
    assert ng.is_nonzero(ng.tensor([1])) and ng.is_floating_point(x) and ng.is_same_size(x, x)
    assert ng.detach(x)._data is x._data
    assert ng.dropout(x, 0.5, False) is x
    with pytest.raises(ValueError, match="5 is not a valid value for reduction"):
        ng.kl_div(x, x, 5)


# ---- functional additions ------------------------------------------------------------------------
def test_pdist():
    for p, expected in EXPECTED["pdist"].items():
        close(F.pdist(t(TABLE), p), expected)
    close(ng.pdist(t([[0.0, 1.0], [0.0, 1.0], [2.0, 3.0]]), 2), [0, 2 * 2 ** 0.5, 2 * 2 ** 0.5])
    assert gradcheck(F.pdist, (t(np.arange(8.0).reshape(4, 2) ** 1.5, grad=True),))
    # equal rows: distance 0 and gradient 0, as torch's
    rows = t([[0.0, 1.0], [0.0, 1.0]], grad=True)
    F.pdist(rows).sum().backward()
    close(rows.grad, np.zeros((2, 2)))
    # p = inf: every tied maximum gets the whole gradient, as torch's
    points = t([[0.0, 1.0], [0.0, 1.0], [2.0, 3.0]], grad=True)
    F.pdist(points, float("inf")).sum().backward()
    close(points.grad, [[-1.0, -1.0], [-1.0, -1.0], [2.0, 2.0]])
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 1D"):
        F.pdist(ng.ones(3))


def test_fold_and_unfold():
    # float64 only: each dtype compiles the window kernels again (~10 s cold)
    dtype = ng.float64
    image = t(np.arange(40.0).reshape(1, 2, 4, 5) / 10, dtype)
    close(F.unfold(image, (2, 3), 1, 1, (1, 2)), EXPECTED["unfold"])
    close(F.fold(t(np.arange(96.0).reshape(1, 8, 12) / 10, dtype), (4, 5), 2), EXPECTED["fold"])
    close(ng.nn.Fold((3, 3), 2)(ng.ones(4, 4)), [[[1, 2, 1], [2, 4, 2], [1, 2, 1]]])


def test_fold_unfold_gradients_and_errors():
    image = t(np.arange(40.0).reshape(1, 2, 4, 5) / 10, grad=True)
    assert gradcheck(lambda x: F.unfold(x, 2, 1, 1, 2), (image,))
    columns = t(np.arange(48.0).reshape(1, 4, 12) / 10, grad=True)
    assert gradcheck(lambda c: F.fold(c, (4, 5), 2), (columns,))
    with pytest.raises(RuntimeError, match="Expected size of input's dimension 1 to be divisible"):
        F.fold(ng.ones(1, 5, 4), (3, 3), 2)


def test_pooling_additions():
    close(F.lp_pool1d(t(np.abs(XS) + 0.1), 3, 2), EXPECTED["lp_pool1d"])
    close(F.lp_pool2d(t(np.arange(40.0).reshape(1, 2, 4, 5) / 10 + 0.1), 2, (2, 2), 1),
          EXPECTED["lp_pool2d"])
    values, indices, unpooled = EXPECTED["max_unpool1d"]
    close(F.max_unpool1d(t(values), ng.tensor(indices), 2, output_size=[5]), unpooled)
    a = t(values, grad=True)
    assert gradcheck(lambda v: ng.nn.MaxUnpool1d(2)(v, ng.tensor(indices)), (a,))
    with pytest.raises(ValueError, match=r'invalid output_size "\[9\]" \(dim 0 must be between '
                                         r"2 and 6\)"):
        F.max_unpool1d(t(values), ng.tensor(indices), 2, output_size=[9])


def test_rrelu():
    close(F.rrelu(t(XS[0]), 0.1, 0.3), EXPECTED["rrelu_eval"])
    x = t(-np.ones(1000), grad=True)
    out = ng.nn.RReLU(0.1, 0.3)(x)          # training: one slope per element from [0.1, 0.3]
    out.sum().backward()
    slopes = -np.asarray(out.detach())
    assert 0.1 <= slopes.min() < 0.12 and 0.28 < slopes.max() <= 0.3
    close(x.grad, slopes)


# ---- layers -------------------------------------------------------------------------------------
def test_layers_print_and_compute_as_torch():
    assert repr(ng.nn.ZeroPad3d(1)) == "ZeroPad3d((1, 1, 1, 1, 1, 1))"
    assert repr(ng.nn.LPPool1d(2, 3)) == "LPPool1d(norm_type=2, kernel_size=3, stride=None, " \
                                         "ceil_mode=False)"
    assert repr(ng.nn.MaxUnpool2d(2)) == "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), " \
                                         "padding=(0, 0))"
    assert repr(ng.nn.Unfold(2)) == "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"
    close(ng.nn.CircularPad2d((1, 0, 2, 1))(t(np.arange(6.0).reshape(1, 1, 2, 3))),
          EXPECTED["circular_pad2d"])
    close(ng.nn.Softmax2d()(t(np.arange(8.0).reshape(2, 2, 2) / 3)), EXPECTED["softmax2d"])
    close(ng.nn.CosineSimilarity(dim=0)(t([1.0, 0.0]), t([1.0, 1.0])), 2 ** -0.5)
    close(ng.nn.PairwiseDistance(eps=0.0)(t([[0.0, 0.0]]), t([[3.0, 4.0]])), [5.0])


def test_transformer_decoder_layer_matches_torch():
    layer = ng.nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0).double()
    names = [name for name, _ in layer.named_parameters()]
    assert names[:5] == ["self_attn.in_proj_weight", "self_attn.in_proj_bias",
                         "self_attn.out_proj.weight", "self_attn.out_proj.bias",
                         "multihead_attn.in_proj_weight"]
    with ng.no_grad():
        for k, p in enumerate(layer.parameters()):
            p.copy_(ng.linspace(-0.5, 0.5, p.numel(), dtype=ng.float64).reshape(p.shape)
                    * (1 + k / 10))
    tgt = t(np.linspace(-1, 1, 12).reshape(3, 1, 4), grad=True)
    memory = t(np.cos(np.arange(8.0)).reshape(2, 1, 4))
    mask = ng.nn.Transformer.generate_square_subsequent_mask(3, dtype=ng.float64)
    close(layer(tgt, memory, tgt_mask=mask), EXPECTED["decoder_layer"])
    layer(tgt, memory, tgt_mask=mask).sum().backward()
    assert tgt.grad.shape == tgt.shape


def test_multi_head_attention_forward_is_the_layer():
    layer = ng.nn.MultiheadAttention(4, 2, add_bias_kv=True).double()
    query, key = t(np.sin(np.arange(24.0)).reshape(3, 2, 4)), t(np.cos(np.arange(40.0))
                                                                 .reshape(5, 2, 4))
    expected, expected_weights = layer(query, key, key)
    out, weights = F.multi_head_attention_forward(
        query, key, key, 4, 2, layer.in_proj_weight, layer.in_proj_bias, layer.bias_k,
        layer.bias_v, False, 0.0, layer.out_proj.weight, layer.out_proj.bias, training=False)
    close(out, np.asarray(expected.detach()))
    close(weights, np.asarray(expected_weights.detach()))


def test_adaptive_log_softmax():
    layer = ng.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7], div_value=2.0, head_bias=True)
    layer = layer.double()
    x = t(np.sin(np.arange(48.0)).reshape(6, 8), grad=True)
    labels = ng.tensor([0, 5, 9, 3, 7, 8])
    result = layer(x, labels)
    full = layer.log_prob(x)
    # the output is each row's target log-probability in the full distribution
    close(result.output, np.asarray(full.detach())[np.arange(6), np.asarray(labels)])
    close(np.exp(np.asarray(full.detach())).sum(1), np.ones(6))
    assert np.array_equal(np.asarray(layer.predict(x)), np.asarray(full.detach()).argmax(1))
    result.loss.backward()
    assert x.grad.shape == (6, 8) and layer.tail[1][0].weight.grad is not None
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\]"):
        layer(x, ng.tensor([11, 0, 0, 0, 0, 0]))


def test_older_layer_names():
    wrapped = ng.nn.DataParallel(ng.nn.Linear(2, 3))
    assert [name for name, _ in wrapped.named_parameters()] == ["module.weight", "module.bias"]
    assert wrapped(ng.ones(4, 2)).shape == (4, 3)
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        loss = ng.nn.NLLLoss2d()
    scores = ng.zeros(1, 3, 2, 2).log_softmax(1)
    close(loss(scores, ng.zeros(1, 2, 2, dtype=ng.int64)), np.log(3.0))


def test_transformer_shapes_and_errors():
    model = ng.nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=2,
                              dim_feedforward=8, batch_first=True)
    assert len(model.decoder.layers) == 2 and model.decoder.norm is not None
    assert model(ng.randn(2, 3, 4), ng.randn(2, 5, 4)).shape == (2, 5, 4)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        model(ng.randn(2, 3, 4), ng.randn(3, 5, 4))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_matches_torch(mode):
    value, grad = EXPECTED[f"embedding_bag/{mode}"]
    for dtype in FLOATS:
        weight = t(np.linspace(-1, 1, 18).reshape(6, 3), dtype, grad=True)
        out = F.embedding_bag(ng.tensor([1, 2, 4, 4, 3, 0, 5]), weight, ng.tensor([0, 2, 2, 5]),
                              mode=mode, padding_idx=3)
        (out * t(np.arange(12.0).reshape(4, 3), dtype)).sum().backward()
        close(out, value)           # the empty bag (offsets 2, 2) gives zeros
        close(weight.grad, grad)


def test_embedding_bag_per_sample_weights_and_module():
    value, grad = EXPECTED["embedding_bag/per_sample_weights"]
    scales = t(np.linspace(0.5, 2, 7), grad=True)
    out = F.embedding_bag(ng.tensor([1, 2, 4, 4, 3, 0, 5]), t(np.linspace(-1, 1, 18).reshape(6, 3)),
                          ng.tensor([0, 2, 2, 5]), mode="sum", per_sample_weights=scales)
    out.sum().backward()
    close(out, value)
    close(scales.grad, grad)
    bag = ng.nn.EmbeddingBag(10, 3, mode="max", padding_idx=1)
    assert repr(bag) == "EmbeddingBag(10, 3, mode='max', padding_idx=1)"
    assert bag(ng.tensor([[1, 2], [4, 5]])).shape == (2, 3)
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        bag(ng.tensor([1, 2]))


def test_gumbel_softmax():
    logits = t([[1.0, 2.0, 0.5]], grad=True)
    soft = F.gumbel_softmax(logits, tau=0.5)
    close(soft.sum(-1), [1.0])
    hard = F.gumbel_softmax(logits, hard=True)
    assert sorted(hard.detach().tolist()[0]) == [0.0, 0.0, 1.0]
    (hard * t([[1.0, 2.0, 3.0]])).sum().backward()      # the soft sample's gradient
    assert abs(float(logits.grad.sum())) < 1e-12 and float(logits.grad.abs().sum()) > 0
    # the argmax of a sample is distributed as softmax(logits)
    picks = np.bincount([int(F.gumbel_softmax(t([1.0, 2.0, 0.5])).argmax()) for _ in range(600)],
                        minlength=3) / 600
    close(picks, np.exp([1.0, 2.0, 0.5]) / np.exp([1.0, 2.0, 0.5]).sum(), atol=0.07)


def test_lazy_linear_sizes_itself_on_first_call():
    layer = ng.nn.LazyLinear(2)
    assert repr(layer) == "LazyLinear(in_features=0, out_features=2, bias=True)"
    optimizer = ng.optim.SGD(layer.parameters(), lr=0.1)
    out = layer(ng.ones(5, 3))
    assert out.shape == (5, 2) and type(layer) is ng.nn.Linear and layer.weight.shape == (2, 3)
    before = layer.weight.detach().clone()
    out.sum().backward()
    optimizer.step()                         # the optimizer holds the materialised parameters
    close(layer.weight.detach() - before, -0.1 * np.full((2, 3), 5.0))


def test_conv_transpose1d_and_channel_shuffle():
    # float64 only: a float32 backward compiles the convolution kernels again (~5 s cold)
    dtype = ng.float64
    value, input_grad, weight_grad = EXPECTED["conv_transpose1d"]
    x = t(np.linspace(-1, 1, 40).reshape(2, 4, 5), dtype, grad=True)
    weight = t(np.linspace(-0.6, 0.8, 36).reshape(4, 3, 3), dtype, grad=True)
    out = ng.conv_transpose1d(x, weight, None, 2, 1, 1)
    (out * t(np.cos(np.arange(out.numel())).reshape(out.shape), dtype)).sum().backward()
    close(out, value)
    close(x.grad, input_grad)
    close(weight.grad, weight_grad)
    assert ng.channel_shuffle(ng.arange(12).reshape(1, 6, 2), 3).tolist() == \
        EXPECTED["channel_shuffle"]
    with pytest.raises(RuntimeError, match="Number of channels must be divisible by groups. Got "
                                           "6 channels and 4 groups."):
        ng.nn.ChannelShuffle(4)(ng.ones(1, 6, 2))


def test_functional_forms():
    x = t([-1.0, 2.0])
    assert F.relu_(x) is x and x.tolist() == [0.0, 2.0]
    values, indices = F.max_pool1d_with_indices(t([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    assert values.tolist() == [[[3.0, 2.0]]] and indices.tolist() == [[[1, 2]]]
    with pytest.warns(UserWarning, match="nn.functional.upsample_bilinear is deprecated"):
        out = F.upsample_bilinear(t([[[[0.0, 1.0]]]]), size=(1, 3))
    close(out, [[[[0.0, 0.5, 1.0]]]])
    # whole channels are dropped (and kept ones scaled) together
    out = F.dropout3d(ng.ones(2, 8, 2, 2, 2), 0.5)
    channels = np.asarray(out).reshape(16, -1)
    assert all(np.unique(c).size == 1 for c in channels)
    out = np.asarray(F.feature_alpha_dropout(ng.ones(50, 4, 3), 0.3, True))
    assert np.array_equal(out[..., 0], out[..., 2]) and np.unique(out).size == 2
    assert repr(ng.nn.UpsamplingBilinear2d(size=(3, 4))) == \
        "UpsamplingBilinear2d(size=(3, 4), mode='bilinear')"
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
        ng.feature_dropout(ng.ones(3), 0.5, True)


@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_matches_torch(padding_mode):
    value, image_grad, grid_grad = EXPECTED[f"grid_sample/{padding_mode}"]
    image = t(np.sin(np.arange(48.0)).reshape(2, 2, 3, 4), grad=True)
    grid = t(np.cos(np.arange(24.0) * 1.7).reshape(2, 2, 3, 2) * 1.2, grad=True)
    out = F.grid_sample(image, grid, "bilinear", padding_mode, False)
    (out * t(np.arange(out.numel()).reshape(out.shape) / 10)).sum().backward()
    close(out, value)
    close(image.grad, image_grad)
    close(grid.grad, grid_grad)
    assert gradcheck(lambda i, g: F.grid_sample(i, g, padding_mode=padding_mode,
                                                align_corners=True), (image, grid))


def test_grid_sample_nearest_and_affine_grid():
    image = t(np.sin(np.arange(48.0)).reshape(2, 2, 3, 4))
    grid = t(np.cos(np.arange(24.0) * 1.7).reshape(2, 2, 3, 2) * 1.2)
    close(F.grid_sample(image, grid, "nearest", "zeros", True), EXPECTED["grid_sample/nearest"])
    theta = t([[[0.5, -0.2, 0.1], [0.3, 0.9, -0.4]]])
    close(F.affine_grid(theta, (1, 1, 2, 3), False), EXPECTED["affine_grid"])
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has "
                                         "changed to align_corners=False"):
        F.affine_grid(theta, (1, 1, 2, 3))
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or "
                                         "'reflection', but got: 'foo'"):
        F.grid_sample(image, grid, padding_mode="foo", align_corners=False)


def test_more_margin_losses():
    # torch 2.13: per-sample losses 0.85 and 1.425 (the -1 ends a sample's targets)
    scores = t([[0.1, 0.2, 0.4, 0.8], [0.3, -0.1, 0.5, 0.2]], grad=True)
    labels = ng.tensor([[3, 0, -1, 1], [1, 2, 2, -1]])
    close(F.multilabel_margin_loss(scores, labels, reduction="none"), [0.85, 1.425])
    close(ng.nn.MultiLabelMarginLoss()(scores, labels), 1.1375)
    assert gradcheck(lambda s: F.multilabel_margin_loss(s, labels), (scores,))
    with pytest.raises(RuntimeError, match=r"inconsistent target size: \[2, 3\] for input of "
                                           r"size: \[2, 4\]"):
        F.multilabel_margin_loss(scores, labels[:, :3])
    anchor, positive, negative = (t(np.eye(3)[k:k + 2] * (k + 1), grad=True) for k in range(3))
    loss = ng.nn.TripletMarginWithDistanceLoss(margin=2.0, swap=True)
    assert "(distance_function): PairwiseDistance()" in repr(loss)
    expected = F.triplet_margin_loss(anchor, positive, negative, margin=2.0, swap=True)
    close(loss(anchor, positive, negative), expected.detach())


@pytest.mark.parametrize("dtype", FLOATS)
def test_matrix_exp_and_cholesky_solves(dtype):
    value, grad = EXPECTED["matrix_exp"]
    a = t([[0.3, -1.2, 0.5], [2.0, 0.1, -0.7], [0.4, 0.9, -1.5]], dtype, grad=True)
    out = ng.linalg.matrix_exp(a)
    (out * t(np.arange(9.0).reshape(3, 3), dtype)).sum().backward()
    close(out, value, atol=1e-4 if dtype == ng.float32 else 1e-6)
    close(a.grad, grad, atol=1e-4 if dtype == ng.float32 else 1e-6)
    value, factor_grad, rhs_grad = EXPECTED["cholesky_solve"]
    factor = t([[2.0, 0.0, 0.0], [0.5, 1.5, 0.0], [-0.3, 0.2, 1.1]], dtype, grad=True)
    rhs = t([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]], dtype, grad=True)
    out = ng.cholesky_solve(rhs, factor)
    out.sum().backward()
    close(out, value, atol=1e-4)
    close(factor.grad, factor_grad, atol=1e-4)
    close(rhs.grad, rhs_grad, atol=1e-4)


def test_triangular_solves_and_matrix_exp_identities():
    lower = t([[2.0, 0.0, 0.0], [0.5, 1.5, 0.0], [-0.3, 0.2, 1.1]])
    junk = lower + t(np.triu(np.ones((3, 3)), 1) * 9)          # never read
    rhs = t([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]])
    close(ng.linalg.solve_triangular(junk, rhs, upper=False), np.linalg.solve(lower, rhs))
    close(ng.cholesky_inverse(lower), np.linalg.inv(np.asarray(lower @ lower.T)))
    close(ng.matrix_exp(ng.zeros(2, 2)), np.eye(2))
    a = t(np.diag([1.0, -2.0]) * 3)                  # large norm: 4 squarings
    close(ng.matrix_exp(a), np.diag(np.exp([3.0, -6.0])), atol=1e-9)
    assert gradgradcheck(ng.matrix_exp, (t([[0.2, -0.4], [0.7, 0.1]], grad=True),))
    with pytest.warns(UserWarning, match="torch.chain_matmul is deprecated"):
        close(ng.chain_matmul(lower, rhs), np.asarray(lower) @ np.asarray(rhs))


def test_legacy_linear_algebra():
    a = t(np.arange(12.0).reshape(4, 3) ** 1.3 / 10, grad=True)
    u, s, v = ng.svd(a)
    assert (u.shape, s.shape, v.shape) == ((4, 3), (3,), (3, 3))
    close(u @ ng.diag(s) @ v.t(), np.asarray(a.detach()))
    assert ng.svd(a, some=False).U.shape == (4, 4)
    assert float(ng.svd(a, compute_uv=False).V.abs().sum()) == 0.0
    with pytest.warns(UserWarning, match="torch.qr is deprecated"):
        q, r = ng.qr(a)
    close(q @ r, np.asarray(a.detach()))
    triangle = t([[2.0, 1.0, 0.5], [9.0, 3.0, -1.0], [9.0, 9.0, 4.0]])
    with pytest.warns(UserWarning, match="torch.triangular_solve is deprecated"):
        solution, copy = ng.triangular_solve(t([[1.0], [2.0], [3.0]]), triangle)
    close(np.triu(np.asarray(triangle)) @ np.asarray(solution), [[1.0], [2.0], [3.0]])
    assert copy._data is not triangle._data


def test_more_of_torch_linalg():
    a = t([[2.0, 1.0, 0.3], [1.0, 3.0, -0.5], [0.3, -0.5, 1.5]], grad=True)
    assert ng.linalg.vander(ng.tensor([1.0, 2.0]), N=3).tolist() == [[1, 1, 1], [1, 2, 4]]
    singular_values = np.linalg.svd(np.asarray(a.detach()), compute_uv=False)
    close(ng.linalg.cond(a), singular_values[0] / singular_values[-1])
    assert gradcheck(ng.linalg.cond, (a,))
    inverse, info = ng.linalg.inv_ex(ng.zeros(2, 2))
    assert int(info) == 1 and np.isnan(np.asarray(inverse)).all()
    with pytest.raises(ng.linalg.LinAlgError):
        ng.linalg.cholesky_ex(-a.detach(), check_errors=True)
    tensor = t(np.random.default_rng(0).standard_normal((2, 3, 6)))
    close(ng.linalg.tensorinv(tensor, 2).reshape(6, 6) @ tensor.reshape(6, 6), np.eye(6))


def test_view_copies_and_samplers():
    x = t(np.arange(24.0).reshape(2, 3, 4), grad=True)
    copy = ng.permute_copy(x, (2, 0, 1))
    assert copy._base is None and copy.shape == (4, 2, 3)
    assert [p.shape for p in ng.split_copy(x, 2, 2)] == [(2, 3, 2), (2, 3, 2)]
    close(ng.slice_copy(x, 2, 1, 4, 2), np.asarray(x.detach())[..., 1:4:2])
    assert gradcheck(lambda v: ng.diagonal_copy(v, 1, 0, 2), (x,))
    assert x.narrow_copy(1, 1, 2).shape == (2, 2, 4)
    ng.manual_seed(0)
    draws = ng.empty(4000, dtype=ng.float64)
    assert 3.7 < float(draws.geometric_(0.25).mean()) < 4.3
    assert float(draws.log_normal_(0.5, 0.3).min()) > 0
    assert abs(float(draws.cauchy_(1.0, 2.0).median()) - 1.0) < 0.2
    assert 2.9 < float(ng.poisson(ng.full((4000,), 3.0)).mean()) < 3.1
    with pytest.raises(RuntimeError, match="invalid Poisson rate, expected rate to be "
                                           "non-negative"):
        ng.poisson(ng.tensor([-1.0]))


def test_lazy_layers_take_their_sizes_from_the_first_input():
    assert repr(ng.nn.LazyConv2d(4, 3)) == "LazyConv2d(0, 4, kernel_size=(3, 3), stride=(1, 1))"
    layers = [ng.nn.LazyConv2d(4, 3), ng.nn.LazyBatchNorm1d(), ng.nn.LazyInstanceNorm1d(),
              ng.nn.LazyConvTranspose1d(2, 3)]
    # (torch sizes a lazy instance norm from the input's dim 1, unbatched inputs' too: a
    # batched input here)
    inputs = [ng.ones(2, 3, 5, 5), ng.randn(4, 3), ng.randn(1, 3, 6), ng.ones(2, 5, 7)]
    optimizer = ng.optim.SGD([p for layer in layers for p in layer.parameters()], lr=0.1)
    outputs = [layer(x) for layer, x in zip(layers, inputs)]
    assert [type(layer).__name__ for layer in layers] == ["Conv2d", "BatchNorm1d",
                                                           "InstanceNorm1d", "ConvTranspose1d"]
    assert [o.shape for o in outputs] == [(2, 4, 3, 3), (4, 3), (1, 3, 6), (2, 2, 9)]
    assert layers[0].weight.shape == (4, 3, 3, 3) and layers[2].running_mean.shape == (3,)
    before = layers[0].bias.detach().clone()
    sum(o.sum() for o in outputs).backward()
    optimizer.step()
    close(layers[0].bias.detach() - before, np.full(4, -0.1 * 18))


def test_ctc_loss_matches_torch():
    logits = t(np.sin(np.arange(105.0)).reshape(7, 3, 5), grad=True)
    targets = ng.tensor([[1, 2, 2], [3, 1, 0], [4, 4, 4]])
    input_lengths, target_lengths = ng.tensor([7, 5, 7]), ng.tensor([3, 2, 3])
    losses = F.ctc_loss(logits.log_softmax(2), targets, input_lengths, target_lengths,
                        reduction="none")
    (losses * t([1.0, 2.0, 3.0])).sum().backward()
    close(losses, [6.574686, 4.458795, 7.656281])
    # the second sample's logits (its input ends after 5 frames), torch 2.13's numbers
    close(logits.grad[:, 1], [[-0.157952, 0.208097, 0.53081, -0.996477, 0.415522],
                              [-0.353505, 0.244975, 0.299235, -0.312764, 0.122059],
                              [-0.55485, -0.616043, 0.190559, 0.029544, 0.95079],
                              [-0.189214, -0.987749, 0.718721, 0.304995, 0.153248],
                              [-0.429418, -0.262425, 0.170574, 0.163492, 0.357776],
                              [0.0] * 5, [0.0] * 5])
    impossible = ng.nn.CTCLoss(reduction="none")(logits.log_softmax(2), targets,
                                                 ng.tensor([2, 5, 7]), target_lengths)
    assert impossible[0].item() == float("inf")
    zeroed = F.ctc_loss(logits.log_softmax(2), targets, ng.tensor([2, 5, 7]), target_lengths,
                        reduction="none", zero_infinity=True)
    assert float(zeroed[0]) == 0.0


# ---- tensor facts, dtypes, random state, settings -----------------------------------------------
def test_tensor_facts():
    x = ng.zeros(3, 4)
    assert (x.nbytes, x.itemsize, x.ndimension(), x.is_cpu, x.get_device()) == (48, 4, 2, True, -1)
    assert x[1:].storage_offset() == 4 and x.t()[1].storage_offset() == 1
    assert x[1].data_ptr() - x.data_ptr() == 16
    assert x.type() == "numgrad.FloatTensor" and ng.typename(x.double()) == "numgrad.DoubleTensor"
    assert x.type("torch.IntTensor").dtype == ng.int32 and x.type(ng.float64).dtype == ng.float64
    assert ng.typename(3) == "int" and ng.typename(ng.nn.Linear(1, 1)) == "numgrad.nn.linear.Linear"
    assert x.new(2).shape == (2,) and x.new().shape == (0,) and x.new([1, 2]).dtype == ng.float32
    assert x.is_signed() and not ng.ones(1, dtype=ng.bool).is_signed() and not x.is_complex()
    assert x.conj() is x and not x.is_conj() and x.real is x and x.to_dense() is x
    assert x.permute(1, 0).dim_order() == (1, 0) and x.is_set_to(x.view(3, 4))
    assert not x[0].is_set_to(x) and x.const_data_ptr() == x.data_ptr()
    y = ng.tensor([1.0, 2.0])
    y.apply_(lambda v: v * 2).map_(ng.tensor([10.0, 20.0]), lambda a, b: a + b)
    assert y.tolist() == [12.0, 24.0] and y._version == 2
    with pytest.raises(RuntimeError, match=r"Can't call apply_\(\) on Variable that requires grad"):
        ng.ones(2, requires_grad=True).apply_(float)


def test_more_tensor_and_global_utilities():
    x = ng.tensor([[1.0, 2.0], [3.0, 4.0]])
    x.resize_(3)
    assert x.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        ng.ones(2, requires_grad=True).resize_(3)
    y = ng.tensor([1.0, 2.0]).map2_(ng.tensor([1.0, 1.0]), ng.tensor([2.0, 3.0]),
                                    lambda a, b, c: a + b * c)
    assert y.tolist() == [3.0, 5.0]
    a = ng.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    ng.angle(a).sum().backward()
    close(ng.angle(a), [np.pi, 0.0, 0.0])
    close(a.grad, [0.0, 0.0, 0.0])
    assert ng.isreal(a).tolist() == [True] * 3 and not a.is_shared() and not a.is_pinned()
    assert ng.nonzero_static(ng.tensor([0, 1, 0, 2]), size=3).tolist() == [[1], [3], [-1]]
    buffer = bytearray(np.array([1.0, 2.0], np.float32).tobytes())
    shared = ng.frombuffer(buffer, dtype=ng.float32)
    buffer[:4] = np.array([3.0], np.float32).tobytes()
    assert shared.tolist() == [3.0, 2.0]
    assert (ng.pi, ng.inf, ng.newaxis) == (np.pi, np.inf, None) and ng.get_device(x) == -1
    ng.set_deterministic_debug_mode("warn")
    assert ng.get_deterministic_debug_mode() == 1
    assert ng.is_deterministic_algorithms_warn_only_enabled()
    ng.set_deterministic_debug_mode(0)
    with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
        ng.set_default_tensor_type("torch.DoubleTensor")
    try:
        assert ng.get_default_dtype() == ng.float64
    finally:
        ng.set_default_dtype(ng.float32)


def test_dtype_questions():
    assert repr(ng.finfo()) == ("finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, "
                                "eps=1.19209e-07, smallest_normal=1.17549e-38, tiny=1.17549e-38, "
                                "dtype=float32)")
    assert ng.finfo(ng.float64).eps == 2.220446049250313e-16 and ng.iinfo(ng.int32).max == 2**31 - 1
    with pytest.raises(TypeError, match="torch.bool is not supported by torch.iinfo"):
        ng.iinfo(ng.bool)
    assert ng.promote_types(ng.int64, ng.float32) == ng.float32
    # torch's categories: dimensioned tensors, 0-d tensors, Python numbers
    assert ng.result_type(ng.tensor(1.0, dtype=ng.float64), ng.ones(2)) == ng.float32
    assert ng.result_type(ng.ones(2, dtype=ng.int32), ng.tensor(5)) == ng.int32
    assert ng.result_type(ng.ones(2, dtype=ng.int32), ng.tensor(5.0, dtype=ng.float64)) == \
        ng.float64
    assert ng.result_type(ng.tensor([True]), 2.5) == ng.float32
    assert ng.result_type(ng.tensor(True), 2) == ng.int64
    assert not ng.can_cast(ng.float64, ng.int32) and ng.can_cast(ng.float64, ng.float32)
    assert not ng.can_cast(ng.int64, ng.bool)


def test_random_state_and_threads():
    ng.manual_seed(5)
    assert ng.initial_seed() == 5
    state = ng.get_rng_state()
    first = ng.rand(3)
    ng.set_rng_state(state)
    close(ng.rand(3), first)
    fresh = ng.seed()
    assert ng.initial_seed() == fresh
    generator = ng.Generator().manual_seed(3)
    assert generator.initial_seed() == 3
    saved = generator.get_state()
    order = generator.permutation(6).tolist()         # NumPy's methods, for generator= users
    assert generator.set_state(saved).permutation(6).tolist() == order
    sampler = ng.utils.data.RandomSampler(range(6), generator=ng.Generator().manual_seed(3))
    assert list(sampler) == order
    ng.default_generator.manual_seed(11)
    assert ng.initial_seed() == 11
    threads = ng.get_num_threads()
    ng.set_num_threads(1)
    assert ng.get_num_threads() == 1
    ng.set_num_threads(threads)
    assert ng.get_num_threads() == threads


def test_creation_and_settings():
    assert ng.scalar_tensor(3).dtype == ng.float32 and ng.scalar_tensor(3).item() == 3.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        close(ng.range(0, 1, 0.5), [0.0, 0.5, 1.0])
    assert "torch.range is deprecated" in str(caught[0].message)
    array = np.ones(2)
    shared = ng.asarray(array)
    array[0] = 5
    assert shared.tolist() == [5.0, 1.0]
    assert ng.asarray(array, copy=True)._data is not array
    assert ng.get_default_device() == ng.device("cpu")
    ng.use_deterministic_algorithms(True)
    assert ng.are_deterministic_algorithms_enabled()
    ng.use_deterministic_algorithms(False)
    ng.set_anomaly_enabled(True)
    assert ng.is_anomaly_enabled()
    ng.set_anomaly_enabled(False)
    assert not ng.is_anomaly_enabled()
