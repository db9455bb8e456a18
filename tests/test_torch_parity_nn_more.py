"""More nn layers and functional forms against torch 2.13 (session 16's sweep): each difference
found, pinned to torch's own numbers and words (hard-coded: torch is no test dependency)."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F


def _raises(kind, message, fn, *args, **kwargs):
    with pytest.raises(kind) as info:
        fn(*args, **kwargs)
    assert str(info.value) == message


# ---- fractional max pooling ---------------------------------------------------------------------
def test_fractional_max_pool2d_values_indices_and_gradient():
    x = ng.tensor(np.sin(np.arange(2 * 7 * 6) * 1.7).reshape(1, 2, 7, 6), dtype=ng.float32,
                  requires_grad=True)
    samples = ng.tensor([[[0.9, 0.2], [0.4, 0.75]]], dtype=ng.float32)
    values, indices = F.fractional_max_pool2d(x, 2, output_size=(3, 4), return_indices=True,
                                              _random_samples=samples)
    # torch 2.13 gives these (sample 0 moves the width's windows, sample 1 the height's)
    np.testing.assert_array_equal(indices.numpy(), [[[[1, 1, 8, 5], [19, 19, 27, 23],
                                                      [30, 38, 38, 34]],
                                                     [[7, 7, 3, 11], [18, 25, 22, 29],
                                                      [37, 37, 33, 40]]]])
    np.testing.assert_allclose(values.detach().numpy()[0, 0],
                               [[0.991665, 0.991665, 0.859162, 0.798487],
                                [0.773328, 0.773328, 0.940429, 0.985600],
                                [0.670229, 0.980590, 0.980590, 0.949404]], atol=1e-6)
    assert values.grad_fn.name() == "FractionalMaxPool2DBackward0"
    assert indices.dtype == ng.int64 and not indices.requires_grad
    values.backward(ng.arange(24.0).reshape(1, 2, 3, 4))
    # torch 2.13: the gradients of windows that share a winner add up
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], [[0, 1, 0, 0, 0, 3], [0, 0, 2, 0, 0, 0],
                                                         [0, 0, 0, 0, 0, 0], [0, 9, 0, 0, 0, 7],
                                                         [0, 0, 0, 6, 0, 0], [8, 0, 0, 0, 11, 0],
                                                         [0, 0, 19, 0, 0, 0]])


def test_fractional_max_pool2d_starts_round_in_the_inputs_dtype():
    # torch 2.13 computes the window starts in float32 for float32 inputs: the 21st differs
    x = ng.arange(58.0).reshape(1, 1, 1, 58)
    sample = 0.17543867230415344
    single = F.fractional_max_pool2d(x, 1, output_size=(1, 24), return_indices=True,
                                     _random_samples=ng.tensor([[[sample, 0.0]]]))[1]
    double = F.fractional_max_pool2d(x.double(), 1, output_size=(1, 24), return_indices=True,
                                     _random_samples=ng.tensor([[[sample, 0.0]]]).double())[1]
    assert single.numpy()[0, 0, 0, 20] == 49 and double.numpy()[0, 0, 0, 20] == 50


def test_fractional_max_pool3d_values_and_indices():
    x = ng.tensor(np.cos(np.arange(5 * 6 * 7) * 0.9).reshape(1, 5, 6, 7), requires_grad=True)
    values, indices = F.fractional_max_pool3d(
        x, (2, 3, 2), output_size=(3, 2, 4), return_indices=True,
        _random_samples=ng.tensor([[[0.1, 0.5, 0.95]]], dtype=ng.float64))
    # torch 2.13 gives these (samples in (T, H, W) order)
    np.testing.assert_array_equal(indices.numpy(), [[[[0, 2, 60, 62], [21, 23, 81, 83]],
                                                     [[42, 44, 102, 104], [63, 65, 123, 125]],
                                                     [[126, 128, 186, 188],
                                                      [147, 149, 207, 209]]]])
    np.testing.assert_allclose(values.detach().numpy()[0, 2, 1],
                               [0.938302, -0.549957, -0.584905, 0.922781], atol=1e-6)
    assert values.grad_fn.name() == "FractionalMaxPool3DBackward0"


def test_fractional_max_pool_picks_the_last_nan_and_differentiates_twice():
    x = ng.tensor([[[[1.0, np.nan], [np.nan, 0.0]]]], requires_grad=True)
    values, indices = F.fractional_max_pool2d(x, 2, output_size=1, return_indices=True,
                                              _random_samples=ng.zeros(1, 1, 2))
    assert indices.item() == 2          # torch 2.13: `val > max || isnan(val)`, the last NaN
    y = ng.tensor(np.arange(16.0).reshape(1, 1, 4, 4), requires_grad=True)
    out = F.fractional_max_pool2d(y, 2, output_size=2, _random_samples=ng.zeros(1, 1, 2,
                                                                                dtype=ng.float64))
    (g,) = ng.autograd.grad((out ** 2).sum(), y, create_graph=True)
    assert g.grad_fn.name() == "FractionalMaxPool2DBackwardBackward0"
    (gg,) = ng.autograd.grad((g ** 2).sum(), y)
    # torch 2.13: 8 * y at the winners (5, 7, 13, 15), zeros elsewhere
    np.testing.assert_array_equal(gg.numpy().ravel()[[5, 7, 13, 15]], [40, 56, 104, 120])
    assert gg.numpy().sum() == 320


def test_fractional_max_pool_ratio_empty_and_zero_sizes():
    x = ng.ones(2, 3, 7, 6)
    samples = ng.full((2, 3, 2), 0.3)
    assert F.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5),
                                   _random_samples=samples).shape == (2, 3, 3, 3)
    assert F.fractional_max_pool2d(x, 2, output_size=0, _random_samples=samples).shape == \
        (2, 3, 0, 0)
    assert F.fractional_max_pool2d(ng.ones(0, 2, 4, 5), 2, output_size=2,
                                   _random_samples=ng.ones(0, 2, 2)).shape == (0, 2, 2, 2)
    # torch 2.13: more batches of samples than inputs are fine; a one-element ratio list is not
    # spread over the dims (an IndexError); a float ratio has no len() in the 2-D form
    assert F.fractional_max_pool2d(x, 2, output_size=3,
                                   _random_samples=ng.full((4, 3, 2), 0.3)).shape == (2, 3, 3, 3)
    _raises(IndexError, "tuple index out of range", F.fractional_max_pool2d, x, 2,
            output_ratio=[0.5], _random_samples=samples)
    _raises(TypeError, "object of type 'float' has no len()", F.fractional_max_pool2d, x, 2,
            output_ratio=0.5, _random_samples=samples)
    assert F.fractional_max_pool3d(ng.ones(2, 3, 5, 6, 7), 2, output_ratio=0.5,
                                   _random_samples=ng.full((2, 3, 3), 0.3)).shape == \
        (2, 3, 2, 3, 3)


def test_fractional_max_pool_refusals_in_torchs_order_and_words():
    x = ng.ones(2, 3, 7, 6)
    s = ng.full((2, 3, 2), 0.3)
    bad = ng.full((2, 3, 2), 0.3, dtype=ng.float64)
    fmp2, fmp3 = F.fractional_max_pool2d, F.fractional_max_pool3d
    # torch 2.13's messages; the settings and shape are checked before the samples
    _raises(RuntimeError, "fractional_max_pool2d: kernel_size must either be a single Int or "
            "tuple of Ints", fmp2, x, (2, 2, 2), output_size=2, _random_samples=bad)
    _raises(RuntimeError, "fractional_max_pool2d: output_size must either be a single Int or "
            "tuple of Ints", fmp2, x, 2, output_size=[3], _random_samples=s)
    _raises(RuntimeError, "fractional_max_pool2d(): Expected 3D or 4D tensor, but got: "
            "[1, 2, 3, 4, 5]", fmp2, ng.ones(1, 2, 3, 4, 5), 2, output_size=2,
            _random_samples=bad)
    _raises(RuntimeError, "fractional_max_pool2d(): Expected input to have non-zero size for "
            "non-batch dimensions, but got[2, 3, 0, 6] with dimension 2 being empty.", fmp2,
            ng.ones(2, 3, 0, 6), 2, output_size=2, _random_samples=bad)
    _raises(RuntimeError, "fractional_max_pool2d(): pool height 5 too large relative to input "
            "height 7", fmp2, x, 5, output_size=5, _random_samples=bad)
    _raises(RuntimeError, "fractional_max_pool2d(): pool width 3 too large relative to input "
            "width 6", fmp2, x, 3, output_size=(2, 5), _random_samples=s)
    _raises(RuntimeError, "Expect _random_samples to have the same dtype as input", fmp2, x, 2,
            output_size=2, _random_samples=bad)
    _raises(RuntimeError, "Expect _random_samples to have 3 dimensions, got 2", fmp2, x, 2,
            output_size=2, _random_samples=ng.ones(6, 2))
    _raises(RuntimeError, "Expect _random_samples.size(0) no less then input batch size.", fmp2,
            x, 2, output_size=2, _random_samples=ng.ones(1, 3, 2))
    _raises(RuntimeError, "Expect _random_samples.size(1) equals to input channel size.", fmp2,
            x, 2, output_size=2, _random_samples=ng.ones(2, 4, 2))
    _raises(RuntimeError, "Expect _random_samples.size(2) equals to 2; got 3.", fmp2, x, 2,
            output_size=2, _random_samples=ng.ones(2, 3, 3))
    _raises(RuntimeError, "Trying to create tensor with negative dimension -1: [2, 3, -1, -1]",
            fmp2, x, 2, output_size=-1, _random_samples=s)
    _raises(ValueError, "fractional_max_pool2d requires specifying either an output_size or an "
            "output_ratio", fmp2, x, 2, _random_samples=s)
    _raises(ValueError, "fractional_max_pool2d requires output_ratio to either be a single Int "
            "or tuple of Ints.", fmp2, x, 2, output_ratio=(0.5, 0.5, 0.5))
    v = ng.ones(2, 3, 5, 6, 7)
    s3 = ng.full((2, 3, 3), 0.3)
    # torch 2.13's 3-D checks: time, width, then height, each refusing an exact fit
    _raises(RuntimeError, "fractional_max_pool3d_out(): pool time 3 too large relative to input "
            "time 5", fmp3, v, 3, output_size=(3, 2, 2), _random_samples=s3)
    _raises(RuntimeError, "fractional_max_pool3d_out(): pool width 3 too large relative to input "
            "width 7", fmp3, v, 3, output_size=(2, 6, 5), _random_samples=s3)
    _raises(RuntimeError, "fractional_max_pool3d_out(): pool height 3 too large relative to "
            "input height 6", fmp3, v, 3, output_size=(2, 4, 2), _random_samples=s3)
    _raises(RuntimeError, "fractional_max_pool3d_out(): Expected 4D or 5D tensor, but got: "
            "[1, 2, 3, 5, 6, 7]", fmp3, ng.ones(1, 2, 3, 5, 6, 7), 2, output_size=2)
    _raises(RuntimeError, "fractional_max_pool3d: kernel_size must either be a single Int or "
            "tuple of three Ints", fmp3, v, (2, 2), output_size=2, _random_samples=s3)
    _raises(RuntimeError, "Expect _random_samples.size(2) equals to 3; got 2.", fmp3, v, 2,
            output_size=2, _random_samples=ng.ones(2, 3, 2))


def test_fractional_max_pool_modules():
    samples = ng.full((1, 1, 2), 0.5)
    pool = ng.nn.FractionalMaxPool2d(2, output_size=2, _random_samples=samples)
    # torch 2.13: no extra_repr; the samples are a buffer
    assert repr(pool) == "FractionalMaxPool2d()"
    assert list(pool.state_dict()) == ["_random_samples"]
    assert pool(ng.arange(16.0).reshape(1, 1, 4, 4)).tolist() == [[[[5.0, 7.0], [13.0, 15.0]]]]
    assert ng.nn.FractionalMaxPool3d(2, output_ratio=0.5).output_ratio == (0.5, 0.5, 0.5)
    _raises(ValueError, "FractionalMaxPool2d requires specifying either an output size, or a "
            "pooling ratio", ng.nn.FractionalMaxPool2d, 2)
    _raises(ValueError, "only one of output_size and output_ratio may be specified",
            ng.nn.FractionalMaxPool2d, 2, 2, 0.5)
    _raises(ValueError, "output_ratio must be between 0 and 1 (got (0.5, 1.0))",
            ng.nn.FractionalMaxPool2d, 2, output_ratio=(0.5, 1.0))
    _raises(ValueError, "kernel_size must be greater than 0, but got (2, 0, 1)",
            ng.nn.FractionalMaxPool3d, (2, 0, 1), 2)


# ---- CrossMapLRN2d -------------------------------------------------------------------------------
def test_cross_map_lrn2d_copies_torchs_forward_and_backward():
    x = ng.tensor(np.arange(1, 7.0).reshape(1, 6, 1, 1) * 0.5, requires_grad=True)
    m = ng.nn.CrossMapLRN2d(3, alpha=0.3, beta=0.75, k=1.0)
    assert repr(m) == "CrossMapLRN2d(3, alpha=0.3, beta=0.75, k=1.0)"
    y = m(x)
    assert y.grad_fn.name() == "CrossMapLRN2dBackward"
    y.backward(ng.tensor(np.linspace(-1, 1, 6).reshape(1, 6, 1, 1)))
    # torch 2.13 gives these: channel 0 stays in the window sums of channels 2.. (its running
    # sum never takes it out), and its backward reads a shifted window
    np.testing.assert_allclose(y.detach().numpy().ravel(),
                               [0.4577260319793595, 0.7984535821401871, 0.9858542716248025,
                                1.07967723637077, 1.1106404757604595, 1.4866752773556597],
                               rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy().ravel(),
                               [-0.884936995160095, -0.3648117728775185, 0.06529386680645946,
                                0.21975391510389541, 0.18850098969737944, 0.08883961886682218],
                               rtol=1e-12)


def test_cross_map_lrn2d_refusals():
    m = ng.nn.CrossMapLRN2d(3)
    _raises(ValueError, "CrossMapLRN2d: Expected input to be 4D, got 3D instead.", m,
            ng.ones(2, 3, 3))
    _raises(RuntimeError, "result type Float can't be cast to the desired output type Long", m,
            ng.ones(1, 2, 3, 3, dtype=ng.int64))
    x = ng.ones(1, 2, 1, 1, requires_grad=True)
    # torch 2.13: its backward writes into out= buffers, refused under create_graph
    _raises(RuntimeError, "mul(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad.", ng.autograd.grad,
            m(x).sum(), x, create_graph=True)
    # and with size 1 its narrow of the padded channels runs past the end
    y = ng.nn.CrossMapLRN2d(1)(ng.ones(1, 6, 1, 1, requires_grad=True))
    _raises(RuntimeError, "start (1) + length (6) exceeds dimension size (6).", y.sum().backward)


# ---- the inference fast paths of attention ------------------------------------------------------
def _nan_rows(y):
    return np.isnan(y.numpy()).any(-1).astype(int).tolist()


def _encoder_layer():
    ng.manual_seed(0)
    return ng.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True)


def test_fast_paths_leave_nan_in_rows_without_a_key():
    x = ng.randn(2, 3, 4)
    padding = ng.tensor([[False, False, True], [True, True, True]])
    rows = ng.tensor([[False, True, True], [True, True, True], [False, False, False]])
    layer = _encoder_layer()
    mha = ng.nn.MultiheadAttention(4, 2, batch_first=True)
    # torch 2.13: training, or a graph to record, take the ordinary path (zeros for such rows)
    assert _nan_rows(layer(x, src_key_padding_mask=padding).detach()) == [[0, 0, 0], [0, 0, 0]]
    layer.eval(), mha.eval()
    assert _nan_rows(mha(x, x, x, key_padding_mask=padding, need_weights=False)[0].detach()) == \
        [[0, 0, 0], [0, 0, 0]]
    with ng.no_grad():
        # torch 2.13: eval without gradients runs the fused kernels, whose softmax gives NaN
        assert _nan_rows(layer(x, src_key_padding_mask=padding)) == [[0, 0, 0], [1, 1, 1]]
        assert _nan_rows(layer(x, src_mask=rows)) == [[0, 1, 0], [0, 1, 0]]
        per_head = ng.zeros(4, 3, 3, dtype=ng.bool)
        per_head[1, 2, :] = True                    # batch 0, head 1, query 2
        assert _nan_rows(layer(x, src_mask=per_head)) == [[0, 0, 1], [0, 0, 0]]
        assert _nan_rows(mha(x, x, x, key_padding_mask=padding, need_weights=False)[0]) == \
            [[0, 0, 0], [1, 1, 1]]
        # not for float masks, nor attention between different tensors, nor unbatched input
        float_padding = ng.zeros(2, 3).masked_fill(padding, float("-inf"))
        assert _nan_rows(mha(x, x, x, key_padding_mask=float_padding,
                             need_weights=False)[0]) == [[0, 0, 0], [0, 0, 0]]
        assert _nan_rows(mha(x, x.clone(), x.clone(), key_padding_mask=padding,
                             need_weights=False)[0]) == [[0, 0, 0], [0, 0, 0]]
        assert _nan_rows(layer(x[1], src_key_padding_mask=padding[1])) == [0, 0, 0]
        # the fused attention ignores the is_causal hint, even without a mask
        np.testing.assert_array_equal(mha(x, x, x, is_causal=True, need_weights=False)[0],
                                      mha(x, x, x, need_weights=False)[0])
        # a hook keeps the layer on the ordinary path
        layer.register_forward_hook(lambda *args: None)
        assert _nan_rows(layer(x, src_key_padding_mask=padding)) == [[0, 0, 0], [0, 0, 0]]


def test_encoder_layer_fast_path_reads_float_masks_as_booleans():
    x = ng.randn(2, 3, 4)
    layer = _encoder_layer()
    soft = ng.tensor([[0.5, 0.0, -2.0], [0.0, 0.0, 0.0]])
    with ng.no_grad():
        ordinary = layer(x, src_key_padding_mask=soft)
        layer.eval()
        fused = layer(x, src_key_padding_mask=soft)
        as_bool = layer(x, src_key_padding_mask=soft != 0)
    # torch 2.13: its fused layer masks every position whose value is not 0
    np.testing.assert_allclose(fused.numpy(), as_bool.numpy(), atol=1e-6)
    assert not np.allclose(fused.numpy(), ordinary.numpy(), atol=1e-3)


# ---- ctc_loss's backward ------------------------------------------------------------------------
def _ctc_setup():
    logits = ng.tensor(np.sin(np.arange(4 * 3 * 3) * 0.7).reshape(4, 3, 3), requires_grad=True)
    log_probs = logits.log_softmax(-1)
    targets = ng.tensor([[1, 2, 1], [1, 1, 1], [2, 2, 2]])
    return logits, log_probs, targets


def test_ctc_loss_gradient_has_no_derivative():
    logits, log_probs, targets = _ctc_setup()
    loss = F.ctc_loss(log_probs, targets, ng.tensor([4, 4, 4]), ng.tensor([1, 1, 2]))
    (grad,) = ng.autograd.grad(loss, logits, create_graph=True)
    assert grad.requires_grad
    # torch 2.13 records the gradient on a NotImplemented node, and refuses to go through it
    assert grad.grad_fn.next_functions[0][0].name() == "torch::autograd::NotImplemented"
    _raises(RuntimeError, "derivative for aten::_ctc_loss_backward is not implemented",
            ng.autograd.grad, grad.sum(), logits)


def test_ctc_loss_impossible_samples_get_nan_gradients():
    _, log_probs, targets = _ctc_setup()
    log_probs.retain_grad()
    loss = F.ctc_loss(log_probs, targets, ng.tensor([4, 2, 4]), ng.tensor([1, 2, 3]),
                      reduction="none")
    assert np.isinf(loss.detach().numpy()[1:]).all()
    loss.backward(ng.tensor([1.0, 0.0, 1.0]))
    grad = log_probs.grad.numpy()
    # torch 2.13: NaN on every frame within an impossible sample's input length, whatever
    # gradient its loss got, zeros after it
    assert np.isnan(grad[:2, 1]).all() and (grad[2:, 1] == 0).all()
    assert np.isnan(grad[:, 2]).all() and np.isfinite(grad[:, 0]).all()
    # zero_infinity gives those samples zeros instead
    _, log_probs, targets = _ctc_setup()
    log_probs.retain_grad()
    F.ctc_loss(log_probs, targets, ng.tensor([4, 2, 4]), ng.tensor([1, 2, 3]),
               zero_infinity=True).backward()
    assert (log_probs.grad.numpy()[:, 1:] == 0).all()


# ---- interpolate ----------------------------------------------------------------------------------
def test_antialiased_resize_to_one_column_repeats_the_first_row():
    x = ng.tensor(np.arange(15.0).reshape(1, 1, 5, 3) ** 1.5, requires_grad=True)
    y = F.interpolate(x, size=(3, 1), mode="bilinear", antialias=True)
    # torch 2.13: every row holds the first one's value, and the gradient is the true one
    np.testing.assert_allclose(y.detach().numpy().ravel(), [4.181354507330675] * 3, rtol=1e-12)
    assert y.grad_fn.name() == "UpsampleBilinear2DAaBackward0"
    y.backward(ng.tensor([[[[1.0], [2.0], [3.0]]]]))
    np.testing.assert_allclose(
        x.grad.numpy().ravel(),
        [0.16326530612244897, 0.2448979591836734, 0.16326530612244897, 0.2494331065759638,
         0.37414965986394555, 0.2494331065759638, 0.3174603174603175, 0.4761904761904762,
         0.3174603174603175, 0.49433106575963726, 0.7414965986394557, 0.49433106575963726,
         0.48979591836734715, 0.7346938775510207, 0.48979591836734715], rtol=1e-12)
    # not when the height stays: torch 2.13 gives the true values
    same_height = F.interpolate(x.detach(), size=(5, 1), mode="bicubic", antialias=True)
    np.testing.assert_allclose(same_height.numpy().ravel(),
                               [1.2521299944879711, 8.114584616149525, 18.606644381728234,
                                31.695004272718258, 46.9354982089002], rtol=1e-12)


def test_interpolate_refuses_empty_sizes_in_torchs_words():
    _raises(RuntimeError, "Input and output sizes should be greater than 0, but got input (W: 3) "
            "and output (W: 0)", F.interpolate, ng.ones(2, 3, 3), size=0)
    _raises(RuntimeError, "Input and output sizes should be greater than 0, but got input (H: 3, "
            "W: 4) output (H: 0, W: 0)", F.interpolate, ng.ones(2, 3, 3, 4), scale_factor=0.1)
    _raises(RuntimeError, "Input and output sizes should be greater than 0, but got input (H: 3, "
            "W: 0) output (H: 3, W: 4)", F.interpolate, ng.ones(2, 3, 3, 0), size=(3, 4),
            mode="bicubic", antialias=True)
    _raises(RuntimeError, "Input and output sizes should be greater than 0, but got input (D: 3, "
            "H: 4, W: 5) output (D: 3, H: 0, W: 5)", F.interpolate, ng.ones(2, 3, 3, 4, 5),
            size=(3, 0, 5), mode="trilinear")
    _raises(RuntimeError, "Non-empty 4D data tensor expected but got a tensor with sizes "
            "[2, 0, 3, 4]", F.interpolate, ng.ones(2, 0, 3, 4), size=(3, 4), mode="bilinear")
    # an empty batch is fine (torch 2.13)
    assert F.interpolate(ng.ones(0, 3, 3, 4, 5), size=(3, 4, 5)).shape == (0, 3, 3, 4, 5)
    _raises(RuntimeError, "adaptive_avg_pool3d(): Expected input to have non-zero size for "
            "non-batch dimensions, but input has sizes [2, 3, 0, 4, 5] with dimension 2 being "
            "empty", F.interpolate, ng.ones(2, 3, 0, 4, 5), size=(3, 4, 5), mode="area")
    _raises(RuntimeError, "adaptive_max_pool3d(): Expected input to have non-zero size for "
            "non-batch dimensions, but input has sizes [2, 0, 3, 4, 5] with dimension 1 being "
            "empty", F.adaptive_max_pool3d, ng.ones(2, 0, 3, 4, 5), 2)
    assert F.adaptive_max_pool3d(ng.ones(0, 3, 2, 4, 5), 2).shape == (0, 3, 2, 2, 2)


# ---- shuffles, unfold and fold ------------------------------------------------------------------
def test_pixel_shuffles_return_new_memory_and_refuse_factors_below_one():
    x = ng.ones(2, 2, 3, 2, requires_grad=True)
    # torch 2.13: factor 1 (or one-pixel planes) still gives its own node and memory, no view
    for y in (F.pixel_shuffle(x, 1), F.pixel_unshuffle(x, 1),
              F.pixel_shuffle(ng.ones(1, 4, 1, 1, requires_grad=True), 2)):
        assert y.grad_fn.name() in ("PixelShuffleBackward0", "PixelUnshuffleBackward0")
        assert y._base is None
    _raises(RuntimeError, "pixel_shuffle expects a positive upscale_factor, but got 0",
            F.pixel_shuffle, x, 0)
    _raises(RuntimeError, "pixel_unshuffle expects a positive downscale_factor, but got -1",
            F.pixel_unshuffle, x, -1)
    _raises(TypeError, "pixel_shuffle(): argument 'upscale_factor' (position 2) must be int, not "
            "float", F.pixel_shuffle, x, 2.0)


def test_unfold_and_fold_refusals_in_torchs_order():
    x = ng.ones(1, 2, 4, 4)
    columns = ng.ones(1, 8, 4)
    # torch 2.13: unfold checks kernel, dilation, padding, stride; fold kernel, stride,
    # dilation, padding; both before the input
    _raises(RuntimeError, "dilation should be greater than zero, but got dilation_height: 0 "
            "dilation_width: 0", F.unfold, x, 2, 0, -1, 0)
    _raises(RuntimeError, "padding should be non-negative, but got pad_height: -1 pad_width: -1",
            F.unfold, x, 2, 1, -1, 0)
    _raises(RuntimeError, "kernel size should be greater than zero, but got kernel_height: 2 "
            "kernel_width: 0", F.unfold, ng.ones(1, 1, 2, 4, 4), (2, 0))
    _raises(RuntimeError, "stride should be greater than zero, but got stride_height: 0 "
            "stride_width: 0", F.fold, columns, (3, 3), 2, 0, -1, 0)
    _raises(RuntimeError, "padding should be non-negative, but got pad_height: -1 pad_width: -1",
            F.fold, columns, (3, 3), 2, 1, -1, 1)
    _raises(RuntimeError, "It is expected kernel_size equals to 2, but got size 1", F.unfold, x,
            [2])
    _raises(RuntimeError, "It is expected output_size equals to 2, but got size 3", F.fold,
            columns, (3, 3, 3), 2)
    _raises(RuntimeError, "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
            "other non-zero dimensions for input, but got: [1, 2, 0, 4]", F.unfold,
            ng.ones(1, 2, 0, 4), 2)
    _raises(RuntimeError, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch "
            "size and non-zero dimensions for input, but got: [1, 0, 4]", F.fold,
            ng.ones(1, 0, 4), (3, 3), 2)
    assert F.unfold(ng.ones(0, 2, 4, 4), 2).shape == (0, 8, 9)
    assert F.fold(ng.ones(0, 8, 4), (3, 3), 2).shape == (0, 2, 3, 3)


# ---- normalisation ------------------------------------------------------------------------------
def test_group_and_instance_norm_refusals():
    # torch 2.13: group_norm checks the values per group, in training or not
    _raises(ValueError, "Expected more than 1 value per channel when training, got input size "
            "[1, 4]", ng.nn.GroupNorm(4, 4), ng.ones(1, 4))
    _raises(ValueError, "Expected more than 1 value per channel when training, got input size "
            "[1, 2, 1, 1]", F.group_norm, ng.ones(1, 2, 1, 1), 2)
    assert F.group_norm(ng.ones(1, 4), 2).shape == (1, 4)
    _raises(RuntimeError, "Expected running_mean and running_var to be defined when "
            "use_input_stats is false", F.instance_norm, ng.ones(2, 3, 4), use_input_stats=False)


# ---- embedding_bag ------------------------------------------------------------------------------
def test_embedding_bag_checks_in_torchs_order_and_words():
    w = ng.ones(10, 3)
    bag = F.embedding_bag
    # torch 2.13's Python checks, then its kernel's
    _raises(ValueError, "embedding_bag: If per_sample_weights (numgrad.Size([3])) is not None, "
            "then it must have the same shape as the input (numgrad.Size([2]))", bag,
            ng.tensor([1, 2]), w, ng.tensor([0]), mode="mean", per_sample_weights=ng.ones(3))
    _raises(ValueError, "weight has to be a 2D Tensor, but got Tensor of dimension 1", bag,
            ng.tensor([[1, 2]]), ng.ones(10))
    _raises(ValueError, "offsets has to be a 1D Tensor", bag, ng.tensor([1, 2]), w,
            ng.tensor([[0]]))
    _raises(ValueError, "max mode does not support scaling the gradient by the frequency", bag,
            ng.tensor([1, 2]), w, ng.tensor([0]), mode="max", scale_grad_by_freq=True)
    _raises(RuntimeError, "Expected tensor for argument #1 'indices' to have one of the "
            "following scalar types: Long, Int; but got numgrad.FloatTensor instead (while "
            "checking arguments for embedding_bag)", bag, ng.tensor([1, 2]), w, ng.tensor([0.0]))
    _raises(RuntimeError, "Expected tensor for argument #1 'weight' to have the same type as "
            "tensor for argument #1 'per_sample_weights'; but type numgrad.FloatTensor does not "
            "equal numgrad.DoubleTensor (while checking arguments for embedding_bag)", bag,
            ng.tensor([1, 2]), w, ng.tensor([0]), mode="sum",
            per_sample_weights=ng.ones(2, dtype=ng.float64))
    _raises(RuntimeError, "include_last_offset: number of offset should be at least 1", bag,
            ng.tensor([1, 2]), w, ng.tensor([], dtype=ng.int64), include_last_offset=True)
    _raises(RuntimeError, "offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
            "has to start from position 0. However, got 1\n[ numgrad.LongTensor{} ]", bag,
            ng.tensor([1, 20]), w, ng.tensor([1, 5]))
    _raises(RuntimeError, "offsets[-1] can not be greater than input's length 2 but got "
            "offsets[-1] of 5", bag, ng.tensor([1, 20]), w, ng.tensor([0, 5]))
    # no offsets, no bags: the indices are not read
    assert bag(ng.tensor([1, 2]), w, ng.tensor([], dtype=ng.int64)).shape == (0, 3)


def test_multihead_attention_checks_separate_projection_shapes():
    mha = ng.nn.MultiheadAttention(4, 2, kdim=3, vdim=5)
    # torch 2.13's _in_projection words (the key's features do not fit k_proj_weight)
    _raises(AssertionError, "expecting key weights shape of (4, 4), but got numgrad.Size([4, 3])",
            mha, ng.ones(3, 2, 4), ng.ones(6, 2, 4), ng.ones(6, 2, 5))


# ---- pooling settings and unpooling -------------------------------------------------------------
def test_pooling_settings_of_one_or_the_wrong_count():
    x3, x4 = ng.ones(2, 3, 8), ng.ones(2, 3, 8, 8)
    # torch 2.13: one value stands for both dims (IntArrayRef's rule)
    assert F.max_pool2d(x4, (2,), (1,)).shape == (2, 3, 7, 7)
    assert F.avg_pool2d(x4, [2], padding=(1,)).shape == (2, 3, 5, 5)
    assert F.max_pool1d(x3, (2,), []).shape == (2, 3, 4)
    _raises(RuntimeError, "max_pool2d: kernel_size must either be a single int, or a tuple of two "
            "ints", F.max_pool2d, x4, (2, 2, 2))
    _raises(RuntimeError, "avg_pool2d: stride must either be omitted, a single int, or a tuple of "
            "two ints", F.avg_pool2d, x4, 2, (1, 1, 1))
    _raises(RuntimeError, "max_pool2d: dilation must be either a single int, or a tuple of two "
            "ints", F.max_pool2d, x4, 2, 1, 0, [])
    _raises(RuntimeError, "max_pool1d() stride must be None, an int, list of ints, or tuple of "
            "ints of size 1 but got size 5", F.max_pool1d, x3, 2, (1,) * 5)
    _raises(RuntimeError, "max_pool1d() argument 'kernel_size' should contain one int (got 0)",
            F.max_pool1d, x3, [], return_indices=True)
    _raises(RuntimeError, "avg_pool1d() argument 'padding' should contain one int (got 3)",
            F.avg_pool1d, x3, 2, 1, (0, 0, 0))
    _raises(RuntimeError, "adaptive_avg_pool3d: elements of output_size must be greater than or "
            "equal to 0 but received {2, -2,3}", F.adaptive_avg_pool3d, ng.ones(2, 3, 6, 6, 6),
            (2, -2, 3))
    _raises(RuntimeError, "Trying to create tensor with negative dimension -1: [2, 3, -1, 2, -3]",
            F.adaptive_max_pool3d, ng.ones(2, 3, 6, 6, 6), (-1, 2, -3))


def test_max_unpool_refusals():
    _raises(RuntimeError, "elements in indices should be type int64 but got: Int", F.max_unpool2d,
            ng.ones(1, 1, 2, 2), ng.zeros(1, 1, 2, 2, dtype=ng.int32), 2)
    _raises(RuntimeError, "elements in indices should be type int64", F.max_unpool3d,
            ng.ones(1, 1, 2, 2, 2), ng.zeros(1, 1, 2, 2, 2), 2)
    _raises(RuntimeError, "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor "
            "with 2 dimensions.", F.max_unpool2d, ng.ones(2, 2), ng.zeros(2, 2, dtype=ng.int64), 2)
    _raises(RuntimeError, "Expected shape of indices to be same as that of the input tensor "
            "([1, 1, 2, 1]) but got indices tensor with shape: [1, 1, 3, 1]", F.max_unpool1d,
            ng.ones(1, 1, 2), ng.zeros(1, 1, 3, dtype=ng.int64), 2)
    _raises(RuntimeError, "max_unpooling3d_forward_out_cpu(): Expected input to have non-zero "
            "size for non-batch dimensions, but got [1, 0, 2, 2, 2] with dimension 1 being empty.",
            F.max_unpool3d, ng.ones(1, 0, 2, 2, 2), ng.zeros(1, 0, 2, 2, 2, dtype=ng.int64), 2)
    assert F.max_unpool2d(ng.ones(0, 1, 2, 2), ng.zeros(0, 1, 2, 2, dtype=ng.int64),
                          2).shape == (0, 1, 4, 4)


# ---- losses ---------------------------------------------------------------------------------------
def test_cross_entropy_with_double_probabilities_promotes():
    logits = ng.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
    target = ng.tensor([[0.25, 0.25, 0.5]], dtype=ng.float64)
    loss = F.cross_entropy(logits, target)
    # torch 2.13: log_softmax(float32) * target(float64) is float64
    assert loss.dtype == ng.float64 and loss.grad_fn.name() == "DivBackward1"
    np.testing.assert_allclose(loss.item(), 1.3663113191723824, rtol=1e-6)
    loss.backward()
    assert logits.grad.dtype == ng.float32


def test_losses_with_targets_of_another_dtype():
    x32 = ng.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    t64 = ng.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=ng.float64)
    # torch 2.13: these composites promote to the target's float64
    for loss in (F.kl_div(x32, t64, reduction="sum"), F.poisson_nll_loss(x32, t64),
                 F.multilabel_soft_margin_loss(x32, t64),
                 F.binary_cross_entropy_with_logits(x32, t64)):
        assert loss.dtype == ng.float64
    # its BCE with logits computes in place in (1 - target): the target's type, even narrower
    narrow = F.binary_cross_entropy_with_logits(x32.double(), t64.float())
    assert narrow.dtype == ng.float32
    assert narrow.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"
    _raises(RuntimeError, "result type Float can't be cast to the desired output type Long",
            F.binary_cross_entropy_with_logits, x32, t64.long())
    # huber's kernel computes in the input's dtype, and its backward refuses the target's;
    # binary_cross_entropy checks the shape first
    huber = F.huber_loss(x32, t64)
    assert huber.dtype == ng.float32 and huber.grad_fn.name() == "HuberLossBackward0"
    np.testing.assert_allclose(huber.item(), 0.6015625)
    _raises(RuntimeError, "Found dtype Double but expected Float", huber.backward)
    _raises(ValueError, "Using a target size (numgrad.Size([1, 2])) that is different to the "
            "input size (numgrad.Size([2, 2])) is deprecated. Please ensure they have the same "
            "size.", F.binary_cross_entropy, x32.sigmoid(), t64[:1])


def test_ctc_and_multi_margin_refusals():
    target, lengths = ng.tensor([[1]]), (ng.tensor([3]), ng.tensor([1]))
    # torch 2.13 adds a batch dim to log_probs that are not 3-D before it checks them
    _raises(RuntimeError, "Expected 3-dimensional tensor, but got 5-dimensional tensor for "
            "argument #1 'log_probs' (while checking arguments for ctc_loss_allocate_outputs)",
            F.ctc_loss, ng.ones(3, 1, 2, 1), target, *lengths)
    _raises(RuntimeError, "Expected 1 to 2 dimensions, but got 3-dimensional tensor for argument "
            "#2 'targets' (while checking arguments for ctc_loss_allocate_outputs)", F.ctc_loss,
            ng.ones(3, 1, 2), ng.tensor([[[1]]]), *lengths, blank=5)
    _raises(RuntimeError, "blank must be in label range", F.ctc_loss, ng.ones(3, 1, 2), target,
            ng.tensor([3]), ng.tensor([-1]), blank=5)
    _raises(RuntimeError, "Expected non-empty vector or matrix with optional 0-dim batch size, "
            "but got: [2, 3, 1]", F.multi_margin_loss, ng.ones(2, 3, 1), ng.tensor([0, 1]))


# ---- activations ----------------------------------------------------------------------------------
def test_hard_activations_at_infinities_and_nan():
    x = ng.tensor([float("inf"), float("-inf"), float("nan"), -3.0, 3.0, -1.0],
                  requires_grad=True)
    # torch 2.13: NaN takes its kernels' else branch; no 0 * inf in the gradients
    y = F.hardswish(x)
    np.testing.assert_allclose(y.detach().numpy(), [np.inf, np.nan, np.nan, -0.0, 3.0,
                                                    -1.0 / 3.0], rtol=1e-6)
    assert np.signbit(y.detach().numpy()[3])
    (g,) = ng.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(g.numpy(), [1.0, 0.0, 1.0, 0.0, 1.0, 1.0 / 6.0], rtol=1e-6)
    y = F.hardsigmoid(x)
    np.testing.assert_array_equal(y.detach().numpy()[:5], [1.0, 0.0, np.nan, 0.0, 1.0])
    (g,) = ng.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(g.numpy(), [0.0, 0.0, 0.0, 0.0, 0.0, 1.0 / 6.0], rtol=1e-6)


# ---- padding --------------------------------------------------------------------------------------
def test_reflection_and_replication_padding_refusals():
    _raises(RuntimeError, "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and "
            "other non-zero dimensions for input, but got: [2, 0, 4]", F.pad, ng.ones(2, 0, 4),
            (1, 1), mode="reflect")
    _raises(RuntimeError, "Expected 4D or 5D (batch mode) tensor with possibly 0 batch size and "
            "other non-zero dimensions for input, but got: [1, 0, 3, 4]", F.pad,
            ng.ones(1, 0, 3, 4), (1, 1, 1, 1, 1, 1), mode="replicate")
    assert F.pad(ng.ones(0, 2, 3, 4), (1, 1, 1, 1), mode="reflect").shape == (0, 2, 5, 6)
    # torch 2.13: 1-D outputs must keep an element; 2-D and 3-D ones may be empty, not negative
    _raises(RuntimeError, "input (W: 4) is too small. Calculated output W: 0", F.pad,
            ng.ones(2, 3, 4), (-2, -2), mode="replicate")
    assert F.pad(ng.ones(2, 3, 4), (-2, -2, 0, 0), mode="reflect").shape == (2, 3, 0)
    _raises(RuntimeError, "Trying to create tensor with negative dimension -1: [2, 3, -1]",
            F.pad, ng.ones(2, 3, 4), (-3, -2, 0, 0), mode="replicate")
    _raises(RuntimeError, "numel: integer multiplication overflow", F.pad, ng.ones(2, 3, 4),
            (-3, -2, 0, 0), mode="reflect")
    _raises(TypeError, "pad(): argument 'pad' (position 2) must be tuple of ints, but found "
            "element of type float at pos 0", F.pad, ng.ones(2, 3, 4), (1.5, 1))


# ---- convolutions of one sample --------------------------------------------------------------------
@pytest.mark.parametrize("conv, x, w", [(F.conv3d, (2, 3, 3, 3), (3, 2, 2, 2, 2)),
                                        (F.conv_transpose1d, (2, 5), (2, 3, 2)),
                                        (F.conv_transpose3d, (2, 3, 3, 3), (2, 3, 2, 2, 2))])
def test_unbatched_convolutions_squeeze_torchs_node(conv, x, w):
    y = conv(ng.ones(*x, requires_grad=True), ng.ones(*w, requires_grad=True),
             ng.ones(3, requires_grad=True))
    # torch 2.13: SqueezeBackward1 -> ConvolutionBackward0 -> (UnsqueezeBackward0, weight, bias)
    assert y.grad_fn.name() == "SqueezeBackward1"
    node = y.grad_fn.next_functions[0][0]
    assert node.name() == "ConvolutionBackward0"
    assert [f.name() for f, _ in node.next_functions] == [
        "UnsqueezeBackward0", "torch::autograd::AccumulateGrad", "torch::autograd::AccumulateGrad"]


def test_sdpa_names_torchs_cpu_flash_node():
    q = ng.ones(2, 2, 3, 4, requires_grad=True)
    kv = ng.ones(2, 2, 5, 4, requires_grad=True)
    # torch 2.13 on the CPU: 4-D inputs of one batch and head size, no dropout, take its flash
    # kernel (one node over query, key and value), masks and is_causal included
    for kwargs in ({}, {"is_causal": True}, {"attn_mask": ng.ones(3, 5, dtype=ng.bool)}):
        y = F.scaled_dot_product_attention(q, kv, kv, **kwargs)
        assert y.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
        assert len(y.grad_fn.next_functions) == 3
    # the others take the composite
    assert F.scaled_dot_product_attention(q[0], kv[0], kv[0]).grad_fn.name() == \
        "UnsafeViewBackward0"
    assert F.scaled_dot_product_attention(q, kv[:1], kv[:1]).grad_fn.name() == \
        "UnsafeViewBackward0"
    _raises(RuntimeError, "The size of tensor a (4) must match the size of tensor b (2) at "
            "non-singleton dimension 1", F.scaled_dot_product_attention, ng.ones(2, 4, 3, 4),
            ng.ones(2, 2, 5, 4), ng.ones(2, 2, 5, 4))
    lp = ng.ones(3, 2, 3).log_softmax(2)
    _raises(RuntimeError, "input_lengths must be of size batch_size", F.ctc_loss, lp,
            ng.tensor([[1], [1]]), ng.tensor([3, 3, 3]), ng.tensor([1, 1]))


def _names(node):
    """Every node name in the graph below node."""
    todo, names = [(node, 0)], set()
    while todo:
        node, depth = todo.pop()
        if node is None or depth > 12:
            continue
        names.add(node.name())
        todo.extend((f, depth + 1) for f, _ in node.next_functions)
    return names


def test_composites_have_torchs_inner_nodes():
    x = ng.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=ng.float32, requires_grad=True)
    # torch 2.13: each norm cloned, then clamped in place outside the graph; no expand of
    # inputs of one shape
    names = _names(F.cosine_similarity(x, x * 2).grad_fn)
    assert "CloneBackward0" in names and not names & {"AddBackward0", "ExpandBackward0"}
    # the math attention's softmax is _safe_softmax's node
    assert "SafeSoftmaxBackward0" in _names(F.scaled_dot_product_attention(x[None], x[None],
                                                                           x[None]).grad_fn)
    # (input - target) ** 2
    assert "PowBackward0" in _names(F.gaussian_nll_loss(x, ng.ones(3, 4), ng.ones(3, 4)).grad_fn)
    # local_response_norm pools the squares with avg_pool3d and views them back
    names = _names(F.local_response_norm(x.reshape(1, 3, 2, 2), 2).grad_fn)
    assert {"AvgPool3DBackward0", "ConstantPadNdBackward0", "ViewBackward0"} <= names
    assert "PermuteBackward0" not in names
    # circular padding copies the input sliced once per padded dim (no alias)
    names = _names(F.pad(x.reshape(1, 3, 4), (1, 2), mode="circular").grad_fn)
    assert "SliceBackward0" in names and "AliasBackward0" not in names


def test_math_attention_scales_both_sides_and_adds_its_mask():
    x = ng.tensor(np.linspace(-1, 1, 12).reshape(1, 3, 4), dtype=ng.float32, requires_grad=True)
    # torch 2.13's math kernel: query and key each times sqrt(scale) (MulBackward1), a bool
    # mask made additive (AddBackward0)
    names = _names(F.scaled_dot_product_attention(x, x, x,
                                                  attn_mask=ng.ones(3, 3, dtype=ng.bool)).grad_fn)
    assert {"MulBackward1", "AddBackward0", "SafeSoftmaxBackward0"} <= names
    assert "WhereBackward0" not in names


def test_recurrent_cells_add_the_input_share_to_the_hidden_one():
    x, h = ng.ones(2, 4, requires_grad=True), ng.ones(2, 3, requires_grad=True)
    w_ih, w_hh = ng.ones(12, 4, requires_grad=True), ng.ones(12, 3, requires_grad=True)
    # torch 2.13: linear_hh(h).add_(linear_ih(x)): the hidden state's product listed first
    y = ng.nn.RNNCell(4, 3)(x, h)
    add = y.grad_fn.next_functions[0][0]
    assert add.name() == "AddBackward0"
    assert add.next_functions[0][0].next_functions[1][0].name() == \
        "torch::autograd::AccumulateGrad"
    assert add.next_functions[0][0].next_functions[1][0].variable is h
    y = ng.lstm_cell(x, (h, h), w_ih, w_hh)[0]
    names = _names(y.grad_fn)
    assert "UnsafeSplitBackward0" in names and "SplitBackward0" not in names
    y = ng.gru_cell(x, h, w_ih[:9], w_hh[:9])
    assert y.grad_fn.name() == "AddBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"


def test_attention_weights_path_uses_bmm_and_baddbmm():
    x = ng.tensor(np.linspace(-1, 1, 24).reshape(3, 2, 4), dtype=ng.float32, requires_grad=True)
    mha = ng.nn.MultiheadAttention(4, 2)
    out, _ = mha(x, x, x)
    # torch 2.13: ... UnsafeView <- Clone <- Transpose <- Bmm(Softmax, Transpose)
    node = out.grad_fn.next_functions[0][0].next_functions[1][0]
    for name in ("UnsafeViewBackward0", "CloneBackward0", "TransposeBackward0", "BmmBackward0"):
        assert node.name() == name
        node = node.next_functions[0][0]
    assert node.name() == "SoftmaxBackward0"
    out, _ = mha(x, x, x, attn_mask=ng.zeros(3, 3))
    assert "BaddbmmBackward0" in _names(out.grad_fn)


def test_adaptive_log_softmax_builds_its_output_in_place():
    ng.manual_seed(0)
    asm = ng.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2, 4])
    out = asm(ng.ones(3, 4, requires_grad=True), ng.tensor([0, 3, 5]))
    # torch 2.13: zeros, each cluster's rows index_copy_'d in, the head's added in place
    assert out.output.grad_fn.name() == "AddBackward0"
    first, second = (f for f, _ in out.output.grad_fn.next_functions)
    assert first.name() == "IndexCopyBackward0" and second.name() == "SqueezeBackward0"
    assert first.next_functions[0][0].name() == "IndexCopyBackward0"


def test_interpolate_shortcuts_for_kept_and_doubled_sizes():
    x = ng.arange(6.0).reshape(1, 2, 3)
    # torch 2.13: a linear dim that keeps its size is copied, whatever the scale_factor
    assert F.interpolate(x, scale_factor=1.3, mode="linear").tolist() == x.tolist()
    # its 2-D nearest kernel copies kept dims and repeats doubled ones (nearest_idx)
    y = F.interpolate(ng.arange(9.0).reshape(1, 1, 3, 3), scale_factor=2.2, mode="nearest")
    assert y[0, 0, 0].tolist() == [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]
    # its 1-D and 3-D nearest forward kernels use the scale, their backward that rule
    t = ng.arange(3.0).reshape(1, 1, 3).requires_grad_()
    y = F.interpolate(t, scale_factor=1.3, mode="nearest")
    assert y.tolist() == [[[0.0, 0.0, 1.0]]]
    y.backward(ng.arange(3.0).reshape(1, 1, 3))
    assert t.grad.tolist() == [[[0.0, 1.0, 2.0]]]
