"""The losses, pooling, padding, resampling and container layers that follow torch's: forward
values and gradients against numbers computed with torch 2.13 in float64 (EXPECTED at the end),
float64 gradcheck, float32 within tolerance, reprs, state_dict keys and torch's error messages.
The helpers are test_nn_layers_more's."""
import warnings

import numpy as np
import pytest

import numgrad as ng
import numgrad.cuda
import numgrad.nn.functional as F
from numgrad import nn
from numgrad.autograd import gradgradcheck

from test_nn_layers_more import Const, check_against_torch, check_gradcheck, first_line, positive, \
    wave

SIGNS = Const([1.0, -1.0, -1.0, 1.0, -1.0, 1.0])

# name -> (function of (F, *tensors), inputs[, options]): float arrays are inputs that require grad
CASES = {
    "kl_div_batchmean": (lambda F, x, t: F.kl_div(x, t, reduction="batchmean"),
                         [wave((2, 3)), positive((2, 3), 1.0)]),
    "kl_div_log_target": (lambda F, x, t: F.kl_div(x, t, reduction="sum", log_target=True),
                          [wave((2, 3)), wave((2, 3), 1.0, 1.0)]),
    "kl_div_zero_target": (lambda F, x, t: F.kl_div(x, t, reduction="none"),
                           [wave((2, 3)), Const([[0.0, 0.5, 0.5], [0.25, 0.0, 0.75]])]),
    "poisson_nll_full": (lambda F, x, t: F.poisson_nll_loss(x, t, full=True),
                         [wave((2, 3), 1.0), positive((2, 3), 1.0)]),
    "poisson_nll_rate": (lambda F, x, t: F.poisson_nll_loss(x, t, log_input=False,
                                                            reduction="sum"),
                         [positive((2, 3)), Const(positive((2, 3), 1.0))]),
    "gaussian_nll": (lambda F, x, t, v: F.gaussian_nll_loss(x, t, v),
                     [wave((2, 3)), wave((2, 3), 1.0, 1.0), positive((2, 3), 2.0)]),
    "gaussian_nll_per_sample_var": (lambda F, x, t, v: F.gaussian_nll_loss(x, t, v, full=True,
                                                                           reduction="none"),
                                    [wave((2, 3)), wave((2, 3), 1.0, 1.0), positive(2, 2.0)]),
    # the first variances are clamped to eps: the gradient passes the clamp (gradcheck cannot see)
    "gaussian_nll_clamped": (lambda F, x, t, v: F.gaussian_nll_loss(x, t, v, eps=1e-3,
                                                                    reduction="sum"),
                             [wave(3), wave(3, 1.0, 1.0), np.array([1e-5, 1e-3, 0.5])],
                             {"gradcheck": False}),
    "margin_ranking": (lambda F, a, b, t: F.margin_ranking_loss(a, b, t, margin=0.3),
                       [wave(6), wave(6, 1.0, 1.0), SIGNS]),
    "hinge_embedding": (lambda F, x, t: F.hinge_embedding_loss(x, t, margin=1.5,
                                                               reduction="none"),
                        [wave((2, 3)), Const(SIGNS.array.reshape(2, 3))]),
    "soft_margin": (lambda F, x, t: F.soft_margin_loss(x, t, reduction="sum"),
                    [wave((2, 3)), Const(SIGNS.array.reshape(2, 3))]),
    "cosine_embedding": (lambda F, a, b, t: F.cosine_embedding_loss(a, b, t, margin=0.1),
                         [wave((3, 4)), wave((3, 4), 1.0, 1.0), Const([1.0, -1.0, -1.0])]),
    "cosine_embedding_vectors": (lambda F, a, b, t: F.cosine_embedding_loss(a, b, t),
                                 [wave(4), wave(4, 1.0, 2.0), Const(-1.0)]),
    "triplet_margin_swap": (lambda F, a, p, n: F.triplet_margin_loss(a, p, n, 2.0, swap=True),
                            [wave((3, 4)), wave((3, 4), 1.0, 1.0), wave((3, 4), 1.5, 2.0)]),
    "triplet_margin_p1": (lambda F, a, p, n: F.triplet_margin_loss(a, p, n, 1.0, p=1,
                                                                   reduction="none"),
                          [wave((3, 4)), wave((3, 4), 1.0, 1.0), wave((3, 4), 1.5, 2.0)]),
    "multi_margin": (lambda F, x, t: F.multi_margin_loss(x, t), [wave((3, 4)),
                                                                 np.array([0, 3, 1])]),
    "multi_margin_p2_weight": (lambda F, x, t, w: F.multi_margin_loss(x, t, p=2, margin=0.7,
                                                                      weight=w, reduction="sum"),
                               [wave((3, 4)), np.array([2, 0, 1]), Const(positive(4))]),
    "multi_margin_vector": (lambda F, x, t: F.multi_margin_loss(x, t), [wave(4), np.array(2)]),
    "multilabel_soft_margin": (lambda F, x, t, w: F.multilabel_soft_margin_loss(
        x, t, w, reduction="none"), [wave((2, 4)), Const([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0,
                                                                                  1.0]]),
                                     Const(positive(4))]),
    "max_pool1d": (lambda F, x: F.max_pool1d(x, 3, 2, 1, ceil_mode=True), [wave((2, 2, 7))]),
    "avg_pool1d": (lambda F, x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False),
                   [wave((2, 2, 7))]),
    "adaptive_max_pool2d": (lambda F, x: F.adaptive_max_pool2d(x, (2, 3)), [wave((1, 2, 5, 7))]),
    "adaptive_avg_pool1d": (lambda F, x: F.adaptive_avg_pool1d(x, 3), [wave((2, 2, 7))]),
    "pad_reflect_2d": (lambda F, x: F.pad(x, (2, 1, 1, 2), mode="reflect"), [wave((1, 2, 3, 4))]),
    "pad_replicate_1d": (lambda F, x: F.pad(x, (2, 3), mode="replicate"), [wave((2, 3))]),
    "pad_circular_2d": (lambda F, x: F.pad(x, (1, 2, 2, 1), mode="circular"), [wave((1, 1, 3, 4))]),
    "pixel_shuffle": (lambda F, x: F.pixel_shuffle(x, 2), [wave((1, 8, 2, 3))]),
    "pixel_unshuffle": (lambda F, x: F.pixel_unshuffle(x, 2), [wave((1, 2, 4, 6))]),
    "interpolate_nearest": (lambda F, x: F.interpolate(x, size=(5, 7)), [wave((1, 2, 3, 4))]),
    "interpolate_nearest_scale": (lambda F, x: F.interpolate(x, scale_factor=1.7),
                                  [wave((1, 2, 3))]),
    "interpolate_bilinear": (lambda F, x: F.interpolate(x, scale_factor=1.5, mode="bilinear"),
                             [wave((1, 2, 3, 4))]),
    "interpolate_bilinear_corners": (lambda F, x: F.interpolate(x, size=(4, 3), mode="bilinear",
                                                                align_corners=True),
                                     [wave((1, 2, 3, 4))]),
    "interpolate_linear": (lambda F, x: F.interpolate(x, scale_factor=2.5, mode="linear"),
                           [wave((2, 1, 4))]),
    "conv_transpose2d": (lambda F, x, w, b: F.conv_transpose2d(x, w, b, 2, 1, 1, 2, 2),
                         [wave((2, 2, 3, 3)), wave((2, 2, 3, 2), 1.0, 1.0), wave(4, 1.0, 2.0)]),
    "conv_transpose2d_plain": (lambda F, x, w: F.conv_transpose2d(x, w, stride=(2, 1)),
                               [wave((1, 3, 2, 3)), wave((3, 2, 2, 2), 1.0, 1.0)]),
}


# float32 for one case of each family: every case compiles its ops' kernels once per dtype, and
# im2col (avg_pool1d), conv2d (conv_transpose2d) and matmul (adaptive_avg_pool1d) take seconds
FLOAT32 = ["kl_div_batchmean", "poisson_nll_full", "gaussian_nll", "margin_ranking",
           "hinge_embedding", "soft_margin", "triplet_margin_swap", "multi_margin_p2_weight",
           "max_pool1d", "adaptive_max_pool2d", "pad_reflect_2d", "pad_replicate_1d",
           "pixel_shuffle", "interpolate_bilinear"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_and_gradients_match_torch(name):
    check_against_torch(CASES[name], EXPECTED[name], np.float64)


@pytest.mark.parametrize("name", FLOAT32)
def test_float32_within_tolerance(name):
    check_against_torch(CASES[name], EXPECTED[name], np.float32)


@pytest.mark.parametrize("name", sorted(n for n, case in CASES.items()
                                        if case[2:] == () or case[2]["gradcheck"]))
def test_gradcheck_float64(name):
    check_gradcheck(CASES[name])


@pytest.mark.parametrize("name", ["kl_div_batchmean", "poisson_nll_full", "gaussian_nll",
                                  "cosine_embedding", "triplet_margin_swap", "multi_margin_p2_weight",
                                  "multilabel_soft_margin", "interpolate_bilinear",
                                  "pixel_shuffle", "pad_reflect_2d"])
def test_second_derivatives_float64(name):
    check_gradcheck(CASES[name], gradgradcheck)


# ---- loss modules --------------------------------------------------------------------------------
def test_loss_modules_are_their_functionals():
    x, y = ng.tensor(wave((2, 3))), ng.tensor(positive((2, 3), 1.0))
    signs = ng.tensor(SIGNS.array.reshape(2, 3))
    a, b, c = ng.tensor(wave((3, 4))), ng.tensor(wave((3, 4), 1.0, 1.0)), ng.tensor(wave((3, 4),
                                                                                         1.5, 2.0))
    rows = ng.tensor(wave((3, 4)))
    pairs = [
        (nn.KLDivLoss(reduction="batchmean")(x, y), F.kl_div(x, y, reduction="batchmean")),
        (nn.PoissonNLLLoss(full=True)(x, y), F.poisson_nll_loss(x, y, full=True)),
        (nn.GaussianNLLLoss(full=True)(x, y, y), F.gaussian_nll_loss(x, y, y, full=True)),
        (nn.MarginRankingLoss(0.3)(x, y, signs), F.margin_ranking_loss(x, y, signs, 0.3)),
        (nn.HingeEmbeddingLoss(1.5)(x, signs), F.hinge_embedding_loss(x, signs, 1.5)),
        (nn.SoftMarginLoss(reduction="sum")(x, signs), F.soft_margin_loss(x, signs,
                                                                           reduction="sum")),
        (nn.CosineEmbeddingLoss(0.1)(x, y, signs[:, 0]), F.cosine_embedding_loss(x, y, signs[:, 0],
                                                                                 0.1)),
        (nn.TripletMarginLoss(2.0, swap=True)(a, b, c), F.triplet_margin_loss(a, b, c, 2.0,
                                                                              swap=True)),
        (nn.MultiMarginLoss(2, 0.7, ng.tensor(positive(4)))(rows, ng.tensor([2, 0, 1])),
         F.multi_margin_loss(rows, ng.tensor([2, 0, 1]), 2, 0.7, ng.tensor(positive(4)))),
        (nn.MultiLabelSoftMarginLoss(ng.tensor(positive(3)))(x, signs.clamp(min=0.0)),
         F.multilabel_soft_margin_loss(x, signs.clamp(min=0.0), ng.tensor(positive(3)))),
    ]
    for got, want in pairs:
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_kl_div_mean_warns_and_legacy_reductions():
    x, y = ng.tensor(wave((2, 3))), ng.tensor(positive((2, 3), 1.0))
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both the "
                                         "batch size and the support size."):
        mean = F.kl_div(x, y)
    np.testing.assert_allclose(mean.item(), F.kl_div(x, y, reduction="sum").item() / 6)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        legacy = nn.SoftMarginLoss(size_average=False)
    assert legacy.reduction == "sum"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.kl_div(x, y, reduction="batchmean")


LOSS_STATE_KEYS = [
    (lambda: nn.MultiMarginLoss(weight=ng.ones(3)), ["weight"]),
    (lambda: nn.MultiMarginLoss(), []),
    (lambda: nn.MultiLabelSoftMarginLoss(weight=ng.ones(3)), ["weight"]),
    (lambda: nn.KLDivLoss(), []),
    (lambda: nn.TripletMarginLoss(), []),
    (lambda: nn.GaussianNLLLoss(), []),
]


@pytest.mark.parametrize("make, keys", LOSS_STATE_KEYS)
def test_loss_state_dict_keys_match_torch(make, keys):
    module = make()
    assert list(module.state_dict()) == keys
    assert repr(module) == type(module).__name__ + "()"


LOSS_ERRORS = [
    (lambda: F.kl_div(ng.ones(2), ng.ones(2), reduction="bad"), "ValueError",
     "bad is not a valid value for reduction"),
    (lambda: F.poisson_nll_loss(ng.ones(2), ng.ones(2), reduction="bad"), "ValueError",
     "bad is not a valid value for reduction"),
    (lambda: F.gaussian_nll_loss(ng.ones(2, 3), ng.ones(2, 3), ng.ones(3)), "ValueError",
     "var is of incorrect size"),
    (lambda: F.gaussian_nll_loss(ng.ones(2, 3), ng.ones(2, 3), -ng.ones(2, 3)), "ValueError",
     "var has negative entry/entries"),
    (lambda: F.gaussian_nll_loss(ng.ones(2, 3), ng.ones(2, 3), ng.ones(2, 3), reduction="x"),
     "ValueError", "x is not valid"),
    (lambda: F.margin_ranking_loss(ng.ones(2), ng.ones(2, 1), ng.ones(2)), "RuntimeError",
     "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
     "numgrad.Size([2]), input2: numgrad.Size([2, 1]), target: numgrad.Size([2]) "),
    (lambda: F.triplet_margin_loss(ng.ones(2, 3), ng.ones(3), ng.ones(2, 3)), "RuntimeError",
     "The anchor, positive, and negative tensors are expected to have the same number of "
     "dimensions, but got: anchor 2D, positive 1D, and negative 2D inputs"),
    (lambda: F.triplet_margin_loss(ng.ones(2, 3), ng.ones(2, 3), ng.ones(2, 3), margin=0.0),
     "ValueError", "margin must be greater than 0, got 0.0"),
    (lambda: nn.TripletMarginLoss(margin=0.0), "ValueError",
     "TripletMarginLoss: expected margin to be greater than 0, got 0.0 instead"),
    (lambda: F.multi_margin_loss(ng.ones(2, 3), ng.tensor([0, 1]), p=3), "ValueError",
     "only p == 1 and p == 2 supported"),
    (lambda: F.multi_margin_loss(ng.ones(2, 3), ng.tensor([0, 3])), "RuntimeError",
     "target out of range"),
    (lambda: F.multi_margin_loss(ng.ones(2, 3), ng.tensor([0, 1, 1])), "RuntimeError",
     "multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
     "samples (batch size). Expected target size [2], but got [3]. Input has shape [2, 3]."),
    (lambda: F.multilabel_soft_margin_loss(ng.ones(2, 3), ng.ones(2, 3), reduction="x"),
     "ValueError", "x is not valid"),
    (lambda: F.soft_margin_loss(ng.ones(2), ng.ones(2), reduction="x"), "ValueError",
     "x is not a valid value for reduction"),
    (lambda: nn.MultiMarginLoss(weight=ng.ones(2, 2)), "ValueError",
     "MultiMarginLoss: expected weight to be None or 1D tensor, got 2D instead"),
]


@pytest.mark.parametrize("call, kind, message", LOSS_ERRORS)
def test_loss_errors_have_torch_messages(call, kind, message):
    assert first_line(call) == (kind, message)


# ---- pooling, padding, resampling and dropout layers ---------------------------------------------
def test_layers_are_their_functionals():
    x1, x2 = ng.tensor(wave((2, 2, 7))), ng.tensor(wave((1, 2, 3, 4)))
    x3 = ng.tensor(wave((2, 3)))
    pairs = [
        (nn.MaxPool1d(3, 2, 1, ceil_mode=True)(x1), F.max_pool1d(x1, 3, 2, 1, ceil_mode=True)),
        (nn.AvgPool1d(3, 2, 1, count_include_pad=False)(x1),
         F.avg_pool1d(x1, 3, 2, 1, count_include_pad=False)),
        (nn.AdaptiveMaxPool2d((2, None))(x2), F.adaptive_max_pool2d(x2, (2, 4))),
        (nn.AdaptiveAvgPool1d(3)(x1), F.adaptive_avg_pool1d(x1, 3)),
        (nn.ZeroPad2d((1, 2, 0, 1))(x2), F.pad(x2, (1, 2, 0, 1))),
        (nn.ConstantPad1d(2, 3.5)(x3), F.pad(x3, (2, 2), value=3.5)),
        (nn.ConstantPad2d((1, 0, 2, 1), -1.0)(x2), F.pad(x2, (1, 0, 2, 1), value=-1.0)),
        (nn.ReflectionPad1d((2, 1))(x3), F.pad(x3, (2, 1), mode="reflect")),
        (nn.ReflectionPad2d(1)(x2), F.pad(x2, (1, 1, 1, 1), mode="reflect")),
        (nn.ReplicationPad1d(3)(x3), F.pad(x3, (3, 3), mode="replicate")),
        (nn.ReplicationPad2d((0, 1, 2, 3))(x2), F.pad(x2, (0, 1, 2, 3), mode="replicate")),
        (nn.PixelShuffle(2)(ng.tensor(wave((1, 8, 2, 3)))), F.pixel_shuffle(ng.tensor(
            wave((1, 8, 2, 3))), 2)),
        (nn.PixelUnshuffle(2)(ng.tensor(wave((1, 2, 4, 6)))), F.pixel_unshuffle(ng.tensor(
            wave((1, 2, 4, 6))), 2)),
        (nn.Upsample(scale_factor=1.5, mode="bilinear")(x2),
         F.interpolate(x2, scale_factor=1.5, mode="bilinear")),
        (nn.Upsample(size=(4, 3), mode="bilinear", align_corners=True)(x2),
         F.interpolate(x2, (4, 3), mode="bilinear", align_corners=True)),
    ]
    for got, want in pairs:
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    values, indices = nn.AdaptiveMaxPool2d((2, 3), return_indices=True)(ng.tensor(wave((2, 5, 7))))
    assert indices.dtype == ng.int64
    np.testing.assert_array_equal(indices.numpy(), INDICES["adaptive_max_pool2d"])
    values, indices = nn.MaxPool1d(3, 2, 1, return_indices=True, ceil_mode=True)(x1)
    np.testing.assert_array_equal(indices.numpy(), INDICES["max_pool1d"])


def test_conv_transpose2d_module():
    up = nn.ConvTranspose2d(2, 4, (3, 2), 2, 1, 1, groups=2, dilation=2, dtype=ng.float64)
    assert list(up.state_dict()) == ["weight", "bias"] and up.weight.shape == (2, 2, 3, 2)
    bound = 1 / np.sqrt(2 * 3 * 2)                         # torch's fan_in: weight.shape[1] * k
    assert np.abs(up.weight.detach().numpy()).max() <= bound
    assert np.abs(up.bias.detach().numpy()).max() <= bound
    x = ng.tensor(wave((2, 2, 3, 3)))
    want = F.conv_transpose2d(x, up.weight, up.bias, 2, 1, 1, 2, 2)
    np.testing.assert_array_equal(up(x).detach().numpy(), want.detach().numpy())
    unbatched = up(x[0])
    np.testing.assert_allclose(unbatched.detach().numpy(), want[0].detach().numpy())
    # output_size picks output_padding within the stride's range, as torch
    up = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    x = ng.ones(1, 2, 4, 5)
    assert up(x, output_size=[8, 10]).shape == (1, 3, 8, 10)
    assert up(x, output_size=(1, 3, 7, 9)).shape == (1, 3, 7, 9)
    assert first_line(lambda: up(x, output_size=[11, 10])) == (
        "ValueError", "requested an output size of [11, 10], but valid sizes range from [7, 9] to "
        "[8, 10] (for an input of numgrad.Size([4, 5]))")
    assert first_line(lambda: up(x, output_size=[11])) == (
        "ValueError", "ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements (got 1)")


def test_channel_dropout_zeroes_whole_channels():
    x = ng.ones(4, 6, 5)
    out = F.dropout1d(x, 0.5).numpy()
    per_channel = out.reshape(24, 5)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert all(len(set(row)) == 1 for row in per_channel)
    assert 0 < (per_channel[:, 0] == 0).sum() < 24
    images = F.dropout2d(ng.ones(3, 4, 2, 2), 0.25).numpy().reshape(12, 4)
    assert all(len(set(row)) == 1 for row in images)
    assert set(np.unique(images)) <= {0.0, np.float32(4.0 / 3.0)}
    unbatched = F.dropout1d(ng.ones(6, 5), 0.5).numpy()
    assert all(len(set(row)) == 1 for row in unbatched)
    np.testing.assert_array_equal(nn.Dropout2d().eval()(x[None]).numpy(), x[None].numpy())
    ng.manual_seed(3)
    first = nn.Dropout1d()(x).numpy()
    ng.manual_seed(3)
    np.testing.assert_array_equal(nn.Dropout1d()(x).numpy(), first)
    assert F.dropout2d(ng.ones(1, 2, 2, 2), p=1.0).numpy().sum() == 0.0


def test_channel_dropout_gradient_is_the_mask():
    x = ng.ones(2, 3, 4, requires_grad=True)
    out = F.dropout1d(x, 0.5)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), out.detach().numpy())
    with pytest.warns(UserWarning, match="dropout2d: Received a 3D input to dropout2d"):
        F.dropout2d(ng.ones(2, 3, 4))
    with pytest.warns(UserWarning, match="dropout2d: Received a 2-D input to dropout2d"):
        F.dropout2d(ng.ones(2, 3))


def test_alpha_dropout_is_torchs_affine_map():
    p = 0.2
    alpha = 1.7580993408473766
    a = 1 / np.sqrt((alpha ** 2 * p + 1) * (1 - p))
    x = ng.tensor(wave((50, 40)), requires_grad=True)
    out = nn.AlphaDropout(p)(x)
    kept = out.detach().numpy() != np.float64(-alpha * a + alpha * a * p)
    assert 0.7 < kept.mean() < 0.9
    np.testing.assert_allclose(out.detach().numpy()[kept], (a * x.detach().numpy() + alpha * a * p)
                               [kept])
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, a, 0.0))
    np.testing.assert_array_equal(F.alpha_dropout(x, p).detach().numpy(), x.detach().numpy())
    # mean 0 and variance 1 survive, the point of it
    standard = ng.randn(200000, dtype=ng.float64)
    dropped = F.alpha_dropout(standard, 0.3, training=True).numpy()
    assert abs(dropped.mean()) < 0.01 and abs(dropped.var() - 1) < 0.02


LAYER_REPRS = [
    (lambda: nn.MaxPool1d(3), "MaxPool1d(kernel_size=3, stride=3, padding=0, dilation=1, "
                              "ceil_mode=False)"),
    (lambda: nn.MaxPool1d(3, 2, 1, 2, True, True), "MaxPool1d(kernel_size=3, stride=2, padding=1, "
                                                   "dilation=2, ceil_mode=True)"),
    (lambda: nn.AvgPool1d(3), "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"),
    (lambda: nn.AvgPool1d(3, 2, 1, True, False), "AvgPool1d(kernel_size=(3,), stride=(2,), "
                                                 "padding=(1,))"),
    (lambda: nn.AdaptiveMaxPool2d((2, 3)), "AdaptiveMaxPool2d(output_size=(2, 3))"),
    (lambda: nn.AdaptiveMaxPool2d(2, True), "AdaptiveMaxPool2d(output_size=2)"),
    (lambda: nn.AdaptiveAvgPool1d(3), "AdaptiveAvgPool1d(output_size=3)"),
    (lambda: nn.ZeroPad2d(1), "ZeroPad2d((1, 1, 1, 1))"),
    (lambda: nn.ZeroPad2d((1, 2, 3, 4)), "ZeroPad2d((1, 2, 3, 4))"),
    (lambda: nn.ConstantPad1d(2, 3.5), "ConstantPad1d(padding=(2, 2), value=3.5)"),
    (lambda: nn.ConstantPad1d((1, 2), 3), "ConstantPad1d(padding=(1, 2), value=3)"),
    (lambda: nn.ConstantPad2d(1, 0.5), "ConstantPad2d(padding=(1, 1, 1, 1), value=0.5)"),
    (lambda: nn.ReflectionPad1d(2), "ReflectionPad1d((2, 2))"),
    (lambda: nn.ReflectionPad2d((1, 0, 2, 1)), "ReflectionPad2d((1, 0, 2, 1))"),
    (lambda: nn.ReplicationPad1d((1, 2)), "ReplicationPad1d((1, 2))"),
    (lambda: nn.ReplicationPad2d(1), "ReplicationPad2d((1, 1, 1, 1))"),
    (lambda: nn.Dropout1d(), "Dropout1d(p=0.5, inplace=False)"),
    (lambda: nn.Dropout2d(0.3, True), "Dropout2d(p=0.3, inplace=True)"),
    (lambda: nn.AlphaDropout(0.2), "AlphaDropout(p=0.2, inplace=False)"),
    (lambda: nn.PixelShuffle(2), "PixelShuffle(upscale_factor=2)"),
    (lambda: nn.Upsample(scale_factor=2), "Upsample(scale_factor=2.0, mode='nearest')"),
    (lambda: nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True),
     "Upsample(size=(3, 4), mode='bilinear')"),
    (lambda: nn.Upsample(size=5), "Upsample(size=5, mode='nearest')"),
    (lambda: nn.ConvTranspose2d(2, 4, 3),
     "ConvTranspose2d(2, 4, kernel_size=(3, 3), stride=(1, 1))"),
    (lambda: nn.ConvTranspose2d(2, 4, (3, 2), stride=2, padding=1, output_padding=1, groups=2,
                                bias=False, dilation=2),
     "ConvTranspose2d(2, 4, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1), dilation=(2, 2), "
     "output_padding=(1, 1), groups=2, bias=False)"),
]


@pytest.mark.parametrize("make, text", LAYER_REPRS)
def test_layer_reprs_match_torch(make, text):
    assert repr(make()) == text


LAYER_ERRORS = [
    (lambda: F.pad(ng.ones(1, 3), (3, 3), mode="reflect"), "RuntimeError",
     "Argument #4: Padding size should be less than the corresponding input dimension, but got: "
     "padding (3, 3) at dimension 1 of input [1, 3]"),
    (lambda: F.pad(ng.ones(1, 1, 3), (4, 3), mode="circular"), "RuntimeError",
     "Padding value causes wrapping around more than once."),
    (lambda: F.dropout1d(ng.ones(2, 3, 4, 5)), "RuntimeError",
     "dropout1d: Expected 2D or 3D input, but received a 4D input. Note that dropout1d exists to "
     "provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an "
     "optional batch dimension (i.e. 2D or 3D inputs)."),
    (lambda: F.dropout1d(ng.ones(2, 3), 1.5), "ValueError",
     "dropout probability has to be between 0 and 1, but got 1.5"),
    (lambda: F.alpha_dropout(ng.ones(2, 3), 1.5), "ValueError",
     "dropout probability has to be between 0 and 1, but got 1.5"),
    (lambda: F.pixel_shuffle(ng.ones(1, 5, 2, 2), 2), "RuntimeError",
     "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
     "upscale_factor, but input.size(-3)=5 is not divisible by 4"),
    (lambda: F.pixel_shuffle(ng.ones(5, 2), 2), "RuntimeError",
     "pixel_shuffle expects input to have at least 3 dimensions, but got input with 2 "
     "dimension(s)"),
    (lambda: F.interpolate(ng.ones(1, 1, 2, 2)), "ValueError",
     "either size or scale_factor should be defined"),
    (lambda: F.interpolate(ng.ones(1, 1, 2, 2), size=3, scale_factor=2), "ValueError",
     "only one of size or scale_factor should be defined"),
    (lambda: F.interpolate(ng.ones(1, 1, 2, 2), size=3, align_corners=True), "ValueError",
     "align_corners option can only be set with the interpolating modes: linear | bilinear | "
     "bicubic | trilinear"),
    (lambda: F.interpolate(ng.ones(1, 1, 2, 2), size=3, mode="linear"), "NotImplementedError",
     "Got 4D input, but linear mode needs 3D input"),
    (lambda: F.interpolate(ng.ones(1, 1, 2), size=3, mode="bilinear"), "NotImplementedError",
     "Got 3D input, but bilinear mode needs 4D input"),
    (lambda: F.conv_transpose2d(ng.ones(1, 2, 3, 3), ng.ones(2, 1, 3, 3), stride=2,
                                output_padding=2), "RuntimeError",
     "output padding must be smaller than either stride or dilation, but got "
     "output_padding_height: 2 output_padding_width: 2 stride_height: 2 stride_width: 2 "
     "dilation_height: 1 dilation_width: 1"),
    (lambda: nn.ConvTranspose2d(2, 4, 3, padding_mode="reflect"), "ValueError",
     'Only "zeros" padding mode is supported for ConvTranspose2d'),
    (lambda: F.conv_transpose2d(ng.ones(1, 3, 3, 3), ng.ones(2, 1, 3, 3)), "RuntimeError",
     "Given transposed=1, weight of size [2, 1, 3, 3], expected input[1, 3, 3, 3] to have 2 "
     "channels, but got 3 channels instead"),
    (lambda: F.adaptive_max_pool2d(ng.ones(2), 2), "RuntimeError",
     "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [2]"),
]


@pytest.mark.parametrize("call, kind, message", LAYER_ERRORS)
def test_layer_errors_have_torch_messages(call, kind, message):
    assert first_line(call) == (kind, message)


# ---- parameter containers ------------------------------------------------------------------------
class Owner(nn.Module):
    def __init__(self):
        super().__init__()
        self.ps = nn.ParameterList([nn.Parameter(ng.ones(2))])
        self.pd = nn.ParameterDict({"w": nn.Parameter(ng.ones(1))})

    def forward(self, x):
        return x * self.ps[0] * self.pd["w"]


def test_parameter_list():
    params = nn.ParameterList([nn.Parameter(ng.ones(2, 3)), ng.zeros(4)])
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in params)
    assert repr(params) == ("ParameterList(\n    (0): Parameter containing: [numgrad.float32 of "
                            "size 2x3]\n    (1): Parameter containing: [numgrad.float32 of size 4]"
                            "\n)")
    params.append(ng.ones(1))
    params += [ng.ones(2)]
    assert len(params) == 4 and list(params.state_dict()) == ["0", "1", "2", "3"]
    assert [p.shape for p in params[1:3]] == [(4,), (1,)] and params[-1] is params[3]
    params[0] = ng.full((5,), 2.0)
    assert isinstance(params[0], nn.Parameter) and params[0].shape == (5,)
    assert repr(nn.ParameterList()) == "ParameterList()"
    assert first_line(lambda: params[10]) == ("IndexError", "index 10 is out of range")


def test_parameter_dict():
    params = nn.ParameterDict({"a": nn.Parameter(ng.ones(2)), "b": ng.zeros(2, 2,
                                                                          dtype=ng.float64)})
    # torch's ParameterDict names the tensor type (torch.FloatTensor), its ParameterList the dtype
    assert repr(params) == ("ParameterDict(\n    (a): Parameter containing: [numgrad.FloatTensor "
                            "of size 2]\n    (b): Parameter containing: [numgrad.DoubleTensor of "
                            "size 2x2]\n)")
    assert list(params.state_dict()) == ["a", "b"] and list(params.keys()) == ["a", "b"]
    assert isinstance(params["b"], nn.Parameter) and "a" in params and len(params) == 2
    assert params.get("zz") is None and params.copy()["a"] is params["a"]
    assert params.pop("a").shape == (2,) and list(params) == ["b"]
    assert params.setdefault("c", ng.ones(3)).shape == (3,)
    assert [k for k, _ in params.items()] == ["b", "c"]
    assert first_line(lambda: params["zz"]) == ("AttributeError",
                                                "'ParameterDict' object has no attribute 'zz'")
    assert first_line(lambda: nn.ParameterDict({"a.b": ng.ones(1)})) == (
        "KeyError", "'parameter name can\\'t contain \".\"'")
    params.clear()
    assert len(params) == 0 and repr(params) == "ParameterDict()"


def test_parameter_containers_inside_a_module():
    owner = Owner()
    assert list(owner.state_dict()) == ["ps.0", "pd.w"]        # torch's keys
    assert repr(owner) == ("Owner(\n  (ps): ParameterList(  (0): Parameter containing: "
                           "[numgrad.float32 of size 2])\n  (pd): ParameterDict(  (w): Parameter "
                           "containing: [numgrad.FloatTensor of size 1])\n)")
    owner(ng.ones(2)).sum().backward()
    np.testing.assert_array_equal(owner.pd["w"].grad.numpy(), [2.0])
    np.testing.assert_array_equal(owner.ps[0].grad.numpy(), [1.0, 1.0])
    optimizer = ng.optim.SGD(owner.parameters(), lr=0.5)
    optimizer.step()
    np.testing.assert_array_equal(owner.pd["w"].detach().numpy(), [0.0])


# ---- the GPU path (numba-cuda's simulator without a GPU): composites of ops that have it --------
@pytest.mark.skipif(not numgrad.cuda.is_available(), reason="needs numba-cuda or its simulator")
def test_new_layers_on_cuda_match_the_cpu():
    def make():
        ng.manual_seed(0)
        return nn.Sequential(nn.ConvTranspose2d(1, 2, 2, stride=2, dtype=ng.float64),
                             nn.GroupNorm(1, 2, dtype=ng.float64), nn.PReLU(2, dtype=ng.float64),
                             nn.BatchNorm2d(2, dtype=ng.float64),
                             nn.Upsample(scale_factor=0.5, mode="bilinear"),
                             nn.AdaptiveMaxPool2d(1), nn.Flatten())
    results = []
    for model, device in ((make(), "cpu"), (make().cuda(), "cuda")):
        out = model(ng.tensor(wave((2, 1, 2, 2)), device=device))
        out.sum().backward()
        results.append([p.grad.cpu().numpy() for p in model.parameters()]
                       + [model[3].running_var.cpu().numpy()])
    for on_cpu, on_gpu in zip(*results):
        np.testing.assert_allclose(on_gpu, on_cpu, rtol=1e-9, atol=1e-12)


# ---- values computed with torch 2.13 (float64) from the inputs above: forward, then the
# gradients of (out * wave(out.shape, 1.0, 1.1)).sum() with respect to each float input ----------
# BEGIN EXPECTED
INDICES = {"adaptive_max_pool2d": [[[8, 4, 12], [23, 23, 34]], [[14, 10, 6], [21, 25, 25]]],
           "max_pool1d": [[[1, 1, 4, 5], [1, 1, 5, 5]], [[1, 2, 5, 5], [1, 2, 5, 6]]]}
EXPECTED = {
    "kl_div_batchmean": ([-0.7486367403], [[-1.043368088, -0.8588475674, -0.244368134,
        -0.5872332378, -1.113360109, -0.6349179042], [0.5613443096, -0.07238089767, 0.6500993049,
        1.257280189, 0.2039839164, 0.08209417773]]),
    "kl_div_log_target": ([-2.775868051], [[-2.06740218, -1.366430314, -0.3441147075, -0.7427909334,
        -2.419026518, -0.8266868845], [2.585142889, -0.5345679989, 0.3813032555, 1.755487187,
        1.307738472, -0.2025263049]]),
    "kl_div_zero_target": ([0, -1.255871017, 0.1832625506, 0.0398086535, 0, -1.093137344], [[-0,
        -0.1674940751, 0.4887650588, 0.0207723507, -0, 0.1307450859]]),
    "poisson_nll_full": ([1.329687011], [[-0.1481848712, 0.08246606804, 0.005986462602,
        -0.127160831, -0.06321645135, 0.0549568179], [0.1141933887, 0.0009333343961, 0.07869897807,
        0.2121320189, 0.0574614056, 0.01783350087]]),
    "poisson_nll_rate": ([4.537629976], [[-0.2709829376, 0.178262952, 0.3874406423, -0.7237666605,
        -0.107783729, 0.282149213]]),
    "gaussian_nll": ([0.5883541132], [[-0.01543918751, 0.212998559, -0.02207285056, -0.09085233363,
        0.03272839566, 0.2981172181], [0.01543918751, -0.212998559, 0.02207285056, 0.09085233363,
        -0.03272839566, -0.2981172181], [0.03002288423, -0.07616869211, 0.1004826772,
        0.005533844145, 0.0320154939, -0.1794418297]]),
    "gaussian_nll_per_sample_var": ([1.371621426, 1.760274901, 1.361029895, 1.861759464,
        1.012560333, 1.702621798], [[-0.09263512508, 0.1934342042, 0.04384758888, 0.1167651267,
        0.4730215299, -0.223708927], [0.09263512508, -0.1934342042, -0.04384758888, -0.1167651267,
        -0.4730215299, 0.223708927], [-0.008073560682, 0.4957562472]]),
    "gaussian_nll_clamped": ([991.854637], [[-223.1855685, 1239.861024, -0.1926259294],
        [223.1855685, -1239.861024, 0.1926259294], [-27500.64105, -862011.0069, 0.8703902358]]),
    "margin_ranking": ([0.8093894238], [[-0.14853456, 0.14853456, 0.14853456, -0.14853456,
        0.14853456, -0], [0.14853456, -0.14853456, -0.14853456, 0.14853456, -0.14853456, 0]]),
    "hinge_embedding": ([0.5910404133, 0, 2.559672282, -1.545528975, 0.04206191975, 1.169834386],
        [[0.8912073601, 0, 0.9775301177, -0.08308940282, -0.9989413418, -0.1743267812]]),
    "soft_margin": ([6.383481554], [[-0.3176228905, 0.7667925268, 0.2293718983, -0.7345928514,
        0.7229626563, -0.2111135852]]),
    "cosine_embedding": ([0.5438266289], [[-0.05168279709, 0.01831343663, 0.04696362613,
        -0.03041544595, 0.03195296854, -0.04227749445, -0.02105852376, 0.04770404414,
        0.005135736645, -0.04579489797, 0.006665104294, 0.04407737398], [0.04827825501,
        -0.1000401638, -0.02249900639, 0.10583791, 0.006153133652, 0.09869900591, -0.03158678066,
        -0.09055944035, 0.04288390127, 0.07398519455, -0.06194907122, -0.05802160104]]),
    "cosine_embedding_vectors": ([0], [[0, 0, -0, 0], [0, 0, -0, 0]]),
    "triplet_margin_swap": ([2.134060911], [[-0.03782368978, 0.2101226348, -0.01632225848,
        -0.2059162276, 0.0733726015, 0.1988435936, -0.1246120454, -0.166732081, 0.1675108647,
        0.1235005093, -0.1993352255, -0.07213365618], [0.1215460087, -0.405960042, -0.01693527885,
        0.4103233741, -0.09402921137, -0.4109856896, 0.1999349526, 0.3594639084, -0.2964641237,
        -0.2891170816, 0.3709656545, 0.1935225597], [-0.08372231892, 0.1958374072, 0.03325753732,
        -0.2044071465, 0.02065660987, 0.212142096, -0.07532290714, -0.1927318274, 0.128953259,
        0.1656165723, -0.1716304289, -0.1213889035]]),
    "triplet_margin_p1": ([0, 0, 0], [[0, 0, -0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [0, -0, 0, 0, -0, -0,
        0, 0, -0, -0, 0, 0], [-0, 0, 0, -0, 0, 0, -0, -0, 0, 0, -0, -0]]),
    "multi_margin": ([1.008416571], [[-0.07426728001, 0.07426728001, 0, 0, 0.07426728001,
        0.07426728001, 0, -0.14853456, 0.07426728001, -0.14853456, 0, 0.07426728001]]),
    "multi_margin_p2_weight": ([8.455770863], [[1.016233281, 1.546915605, -2.655724876,
        0.09257599009, -0.3295542847, 0.3295542847, 0, 0, 2.60722595, -3.449187222, 0,
        0.8419612713]]),
    "multi_margin_vector": ([1.760780784], [[0.22280184, 0.22280184, -0.66840552, 0.22280184]]),
    "multilabel_soft_margin": ([1.772056747, 1.5790135], [[-0.1425745795, 0.4618578154,
        0.05563208149, -0.1335555022, 0.1219823093, -0.04779663109, -0.06931568326,
        -0.0409168118]]),
    "max_pool1d": ([1.818594854, 1.818594854, 1.45793808, 1.169834386, 1.944015003, 1.944015003,
        1.922305449, 1.922305449, 1.237670044, 1.398480063, 1.852300041, 1.852300041,
        0.001776313611, 1.98309997, 0.9897706351, 1.595904233], [[0, 1.22619551, 0, 0,
        -0.9775301177, -0.08308940282, 0, 0, 0.8246145606, 0, 0, 0, -0.5338522131, 0, 0,
        0.8457468311, -0.6381066823, 0, 0, 0.132359972, 0, 0, 0.4716390031, -0.9352099152, 0, 0,
        -0.2306457059, 0.9946447739]]),
    "avg_pool1d": ([1.204817633, -0.2622021344, 0.3607478303, -0.2947785671, 0.6137782192,
        0.05332448175, 0.07417033539, 0.5635970414, -0.2398719805, 0.3460357167, -0.2441416353,
        1.180832354, -0.9908906966, 0.4906923149, -0.4579953105, 1.292837434], [[0.44560368,
        0.5572663967, 0.1116627167, -0.2141806558, -0.3258433726, -0.367388074, -0.04154470141,
        0.4994706709, 0.4413617438, -0.05810892707, -0.3761153437, -0.3180064166, -0.1079228982,
        0.2100835184, 0.4228734156, 0.2101711881, -0.2127022274, -0.439806816, -0.2271045885,
        0.1797322802, 0.4068368688, 0.2358195015, -0.07591713685, -0.3117366384, -0.3886185404,
        -0.07688190198, 0.420440485, 0.4973223869]]),
    "adaptive_max_pool2d": ([1.944015003, 1.45793808, 1.922305449, 1.98309997, 1.98309997,
        1.999621161, 1.880253255, 1.97150018, 1.547781363, 1.899364838, 1.960829925, 1.960829925],
        [[0, 0, 0, 0, 0.3349881502, 0, 0, 0, 0.8912073601, 0, 0, 0, -0.9775301177, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0.915851939, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.1743267812, 0, 0, 0, 0, 0, 0,
        0.8457468311, 0, 0, 0, 0.4201670368, 0, 0, 0, -0.9540192499, 0, 0, 0, 0, 0, 0,
        -0.6381066823, 0, 0, 0, 0.132359972, 0, 0, 0, 0, 0, 0, 0, 0, 0]]),
    "adaptive_avg_pool1d": ([0.4499876617, -0.3824210589, 0.2894603154, 0.4810212476, -0.4947623794,
        0.4756495007, 0.3062453674, -0.3954149613, 0.4583275724, 0.0004395257178, -0.1268855321,
        0.2449058804], [[0.29706912, 0.29706912, 0.4087318367, 0.1116627167, -0.2141806558,
        -0.3258433726, -0.3258433726, -0.02769646761, -0.02769646761, 0.3052839797, 0.3329804473,
        0.2748715202, -0.05810892707, -0.05810892707, -0.3180064166, -0.3180064166, -0.1779507377,
        0.1400556789, 0.4219712893, 0.2819156104, 0.2819156104, -0.2127022274, -0.2127022274,
        -0.439806816, -0.2271045885, 0.04411999065, 0.2712245792, 0.2712245792]]),
    "pad_reflect_2d": ([-1.75939152, 1.169834386, 1.45793808, 1.169834386, -1.75939152,
        -0.7164585645, -1.75939152, -1.059672282, 1.818594854, 0.5910404133, 1.818594854,
        -1.059672282, -1.545528975, -1.059672282, -1.75939152, 1.169834386, 1.45793808, 1.169834386,
        -1.75939152, -0.7164585645, -1.75939152, -1.999548862, 0.2155073046, 1.944015003,
        0.2155073046, -1.999548862, 0.2997544193, -1.999548862, -1.75939152, 1.169834386,
        1.45793808, 1.169834386, -1.75939152, -0.7164585645, -1.75939152, -1.059672282, 1.818594854,
        0.5910404133, 1.818594854, -1.059672282, -1.545528975, -1.059672282, -0.9866819899,
        -1.598042957, 1.398480063, -1.598042957, -0.9866819899, 1.852300041, -0.9866819899,
        -1.717414005, -0.7951113662, 1.922305449, -0.7951113662, -1.717414005, 1.237670044,
        -1.717414005, -0.9866819899, -1.598042957, 1.398480063, -1.598042957, -0.9866819899,
        1.852300041, -0.9866819899, 0.001776313611, -1.983557707, 0.5093646657, -1.983557707,
        0.001776313611, 1.98309997, 0.001776313611, -0.9866819899, -1.598042957, 1.398480063,
        -1.598042957, -0.9866819899, 1.852300041, -0.9866819899, -1.717414005, -0.7951113662,
        1.922305449, -0.7951113662, -1.717414005, 1.237670044, -1.717414005], [[0.2819193558,
        -0.07264751367, -0.4868379446, 0.4566011909, -0.0377667804, 0.009732083443, -0.6867192175,
        1.347729261, 0.5977603669, -0.1540362644, -1.032254162, 0.9681424484, -0.4703540518,
        0.1212050599, 0.5176539327, -0.2098303199, -1.086916837, 0.2800865003, 1.646913667,
        -1.329346324, -0.9973029688, 0.2569939934, 1.09759404, -0.4449082562]]),
    "pad_replicate_1d": ([0.5910404133, 0.5910404133, 0.5910404133, 1.818594854, -1.059672282,
        -1.059672282, -1.059672282, -1.059672282, -1.545528975, -1.545528975, -1.545528975,
        1.45793808, 1.169834386, 1.169834386, 1.169834386, 1.169834386], [[0.2486653926,
        -0.08308940282, 0.2907623475, -0.4736736168, 0.8136737375, 0.3004281559]]),
    "pad_circular_2d": ([-0.7164585645, 1.45793808, 1.169834386, -1.75939152, -0.7164585645,
        1.45793808, 1.169834386, 0.2997544193, 1.944015003, 0.2155073046, -1.999548862,
        0.2997544193, 1.944015003, 0.2155073046, -1.545528975, 0.5910404133, 1.818594854,
        -1.059672282, -1.545528975, 0.5910404133, 1.818594854, -0.7164585645, 1.45793808,
        1.169834386, -1.75939152, -0.7164585645, 1.45793808, 1.169834386, 0.2997544193, 1.944015003,
        0.2155073046, -1.999548862, 0.2997544193, 1.944015003, 0.2155073046, -1.545528975,
        0.5910404133, 1.818594854, -1.059672282, -1.545528975, 0.5910404133, 1.818594854],
        [[1.388285249, 1.371590736, -0.7179808876, -1.729336558, 1.84677841, -1.210215878,
        -0.95510026, 0.7343214173, 2.057744501, 0.1026465821, -1.064205807, -0.6329046814]]),
    "pixel_shuffle": ([0.5910404133, -1.75939152, 1.818594854, -0.7164585645, -1.059672282,
        1.944015003, 1.922305449, -0.9866819899, -0.7951113662, 1.852300041, -1.717414005,
        0.5093646657, -1.545528975, 0.2155073046, 1.45793808, -1.999548862, 1.169834386,
        0.2997544193, 1.237670044, -1.983557707, 1.398480063, 0.001776313611, -1.598042957,
        1.98309997, -0.5127993393, 1.719231899, -1.850957227, 0.7918503004, 0.9897706351,
        -1.923283002, -1.943177247, 1.056657628, 0.7197742851, -1.820070399, 1.757699339,
        -0.5876455278, 1.595904233, -0.2962414489, -1.401017583, 1.999621161, -1.23487743,
        -0.2190389057, -1.17271405, 1.97150018, -1.455503842, 0.07961164033, 1.547781363,
        -1.992015223], [[0.8912073601, -0.9775301177, 0.9989413418, 0.4716390031, -0.2306457059,
        -0.02566329986, 0.3349881502, -0.08308940282, -0.1743267812, -0.9352099152, 0.9946447739,
        -0.9880316241, -0.9540192499, 0.8457468311, -0.6813137656, 0.2802681698, -0.5162622201,
        0.7179745928, 0.4201670368, -0.6381066823, 0.8136737375, 0.9158096029, -0.7827745136,
        0.5977603669, -0.8720108571, 0.9681424484, -0.9999858814, -0.5071313158, 0.2700507365,
        -0.01503781215, -0.3730527711, 0.1235731227, 0.1341122276, 0.9200260382, -0.9896151394,
        0.993490218, 0.9654266371, -0.8667595743, 0.7105365425, -0.2409736773, 0.4809836435,
        -0.6890545571, -0.3828920413, 0.6062464394, -0.7893438824, -0.9313939548, 0.8074497662,
        -0.6298879943]]),
    "pixel_unshuffle": ([0.5910404133, -1.059672282, 1.45793808, 1.922305449, -1.717414005,
        1.398480063, 1.818594854, -1.545528975, 1.169834386, -0.7951113662, 1.237670044,
        -1.598042957, -1.75939152, 1.944015003, -1.999548862, -0.9866819899, 0.5093646657,
        0.001776313611, -0.7164585645, 0.2155073046, 0.2997544193, 1.852300041, -1.983557707,
        1.98309997, -0.5127993393, 0.9897706351, -1.401017583, -1.943177247, 1.757699339,
        -1.455503842, -1.850957227, 1.595904233, -1.23487743, 0.7197742851, -1.17271405,
        1.547781363, 1.719231899, -1.923283002, 1.999621161, 1.056657628, -0.5876455278,
        0.07961164033, 0.7918503004, -0.2962414489, -0.2190389057, -1.820070399, 1.97150018,
        -1.992015223], [[0.8912073601, -0.9540192499, 0.3349881502, 0.4201670368, -0.9775301177,
        0.8457468311, 0.4716390031, 0.2802681698, -0.9352099152, 0.9158096029, -0.2306457059,
        -0.5162622201, -0.08308940282, -0.6381066823, 0.9989413418, -0.6813137656, -0.1743267812,
        0.8136737375, 0.9946447739, -0.7827745136, -0.02566329986, 0.7179745928, -0.9880316241,
        0.5977603669, -0.8720108571, 0.9654266371, -0.3730527711, -0.3828920413, 0.9681424484,
        -0.8667595743, -0.5071313158, -0.2409736773, 0.9200260382, -0.9313939548, 0.2700507365,
        0.4809836435, 0.1235731227, 0.6062464394, -0.9999858814, 0.7105365425, 0.1341122276,
        -0.7893438824, -0.9896151394, 0.8074497662, -0.01503781215, -0.6890545571, 0.993490218,
        -0.6298879943]]),
    "interpolate_nearest": ([0.5910404133, 0.5910404133, 1.818594854, 1.818594854, -1.059672282,
        -1.059672282, -1.545528975, 0.5910404133, 0.5910404133, 1.818594854, 1.818594854,
        -1.059672282, -1.059672282, -1.545528975, 1.45793808, 1.45793808, 1.169834386, 1.169834386,
        -1.75939152, -1.75939152, -0.7164585645, 1.45793808, 1.45793808, 1.169834386, 1.169834386,
        -1.75939152, -1.75939152, -0.7164585645, 1.944015003, 1.944015003, 0.2155073046,
        0.2155073046, -1.999548862, -1.999548862, 0.2997544193, 1.922305449, 1.922305449,
        -0.7951113662, -0.7951113662, -1.717414005, -1.717414005, 1.237670044, 1.922305449,
        1.922305449, -0.7951113662, -0.7951113662, -1.717414005, -1.717414005, 1.237670044,
        1.398480063, 1.398480063, -1.598042957, -1.598042957, -0.9866819899, -0.9866819899,
        1.852300041, 1.398480063, 1.398480063, -1.598042957, -1.598042957, -0.9866819899,
        -0.9866819899, 1.852300041, 0.5093646657, 0.5093646657, -1.983557707, -1.983557707,
        0.001776313611, 0.001776313611, 1.98309997], [[2.492109378, -2.380039968, 2.109927301,
        -1.889229165, 0.6991991472, -1.287945414, 1.79116745, -0.3926890973, -0.8658736538,
        0.5825345958, -0.2605131349, 0.7105365425, -2.46884283, 2.478510184, -2.323595503,
        1.844859975, -0.2336969975, 0.8606458425, -1.430444692, 0.03597434275, 1.038660093,
        -0.7960229876, 0.5005270778, -0.8307873755]]),
    "interpolate_nearest_scale": ([0.5910404133, 0.5910404133, 1.818594854, 1.818594854,
        -1.059672282, -1.545528975, -1.545528975, 1.45793808, 1.45793808, 1.169834386],
        [[1.22619551, -1.06061952, 0.9989413418, -1.128346031, 1.265913868, -0.6381066823]]),
    "interpolate_bilinear": ([0.5910404133, 1.204817633, 1.338883664, -0.5799610926, -1.302600628,
        -1.545528975, 1.024489247, 1.259351933, 1.010256866, -0.9255741474, -1.270262835,
        -1.13099377, 1.538950901, 1.274865386, 0.5424136029, -1.331051474, -1.173253739,
        -0.5470897338, 1.863002182, 1.118782, -0.01445225797, -1.570508562, -0.9145685249,
        0.1303855887, 1.922305449, 0.5635970414, -0.9488284727, -1.563696899, -0.2398719805,
        1.237670044, 1.660392756, 0.2319077972, -1.222488968, -1.326136192, 0.09646852262,
        1.544985043, 1.250294164, -0.2060006259, -1.522236003, -0.961998352, 0.5260805451,
        1.87410003, 0.6575505653, -0.6308773417, -1.626582163, -0.4556898223, 0.8991666226,
        1.961299982], [[0.6867335694, -0.2567018748, -0.09841950748, 0.5616523171, -0.2455773326,
        -0.02456496001, 0.2190429633, -0.4380863571, 0.6158164836, -0.1679860424, -0.186540744,
        0.6304791737, -0.6715469345, 0.2345022123, 0.1223485905, -0.5829185186, 0.2299466186,
        0.0386968539, -0.2298993453, 0.4422024089, -0.5967452617, 0.1447679793, 0.2092279339,
        -0.6476841754]]),
    "interpolate_bilinear_corners": ([0.5910404133, 0.3794612859, -1.545528975, 1.168972191,
        -0.07003194941, -0.992815368, 1.619963721, -0.4938593043, -0.3777209032, 1.944015003,
        -0.8920207788, 0.2997544193, 1.922305449, -1.256262686, 1.237670044, 1.573088525,
        -1.280329211, 1.647423376, 1.102108264, -1.191871881, 1.895900018, 0.5093646657,
        -0.9908906966, 1.98309997], [[0.8635108925, 0.3339842987, 0.3339842987, -1.035639045,
        -0.6914057685, 0.4730361262, 0.4730361262, 0.4476133666, -0.956113099, -0.2706290433,
        -0.2706290433, 1.095589348, 0.8031872611, -0.4718821742, -0.4718821742, -0.5599895806,
        0.8499419624, 0.2967154343, 0.2967154343, -1.002862563, -0.6893517903, 0.5116222302,
        0.5116222302, 0.4256729602]]),
    "interpolate_linear": ([0.5910404133, 0.7137958574, 1.204817633, 1.69583941, 0.955114713,
        -0.1961921412, -1.108257951, -1.302600628, -1.496943306, -1.545528975, 1.45793808,
        1.429127711, 1.313886233, 1.198644755, 0.2910666141, -0.8806237482, -1.655098224,
        -1.237925042, -0.82075186, -0.7164585645], [[0.6956226961, 0.1169141986, -0.3863054677,
        0.2377470591, 0.1932911082, -0.3875606104, 0.137971665, 0.6714688137]]),
    "conv_transpose2d": ([0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268,
        0.9092974268, 0.9092974268, -0.3626620054, 0.9092974268, 3.19387907, 0.9092974268,
        1.602293663, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268,
        0.9092974268, 0.9092974268, 0.2201787634, 0.9092974268, -0.3346669554, 0.9092974268,
        1.606665924, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268,
        0.9092974268, 0.9092974268, 3.48353865, 0.9092974268, 0.2484452656, 0.9092974268,
        0.4672564207, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268,
        0.9092974268, 0.9092974268, 0.3261027391, 0.9092974268, 2.904323335, 0.9092974268,
        0.7632025212, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409,
        -0.5298361409, -0.5298361409, -1.166106698, -0.5298361409, -3.160930855, -0.5298361409,
        0.4446072421, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409,
        -0.5298361409, -0.5298361409, 0.8410531766, -0.5298361409, -0.2722344645, -0.5298361409,
        -1.34247117, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409,
        -0.5298361409, -0.5298361409, -2.445555901, -0.5298361409, 1.826689449, -0.5298361409,
        -0.7354817039, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409,
        -0.5298361409, -0.5298361409, -1.31409679, -0.5298361409, -2.528237826, -0.5298361409,
        0.9312338542, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876,
        -0.7727644876, -0.7727644876, -2.072533956, -0.7727644876, -3.074315298, -0.7727644876,
        1.058209617, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876,
        -0.7727644876, -0.7727644876, 0.67733839, -0.7727644876, -1.114209226, -0.7727644876,
        -1.323482449, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876,
        -0.7727644876, -0.7727644876, -1.99589732, -0.7727644876, 1.785194846, -0.7727644876,
        -0.622990722, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876,
        -0.7727644876, -0.7727644876, -1.904713131, -0.7727644876, -2.287819254, -0.7727644876,
        0.8228734641, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401,
        0.7289690401, 0.7289690401, 3.087112183, 0.7289690401, 1.211461132, 0.7289690401,
        -1.156946962, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401,
        0.7289690401, 0.7289690401, -0.2578927878, 0.7289690401, 2.01493169, 0.7289690401,
        0.8553108705, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401,
        0.7289690401, 0.7289690401, -0.1262826228, 0.7289690401, -1.406987686, 0.7289690401,
        0.913983735, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401,
        0.7289690401, 0.7289690401, 2.466033902, 0.7289690401, 0.6421018825, 0.7289690401,
        -0.3494031205, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268,
        0.9092974268, 0.9092974268, -1.519856611, 0.9092974268, 1.756645586, 0.9092974268,
        1.664047312, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268,
        0.9092974268, 0.9092974268, 1.416002138, 0.9092974268, -0.5669265288, 0.9092974268,
        0.9327797001, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268,
        0.9092974268, 0.9092974268, 2.914925285, 0.9092974268, 2.284682428, 0.9092974268,
        0.5799661445, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268, 0.9092974268,
        0.9092974268, 0.9092974268, -0.9004261502, 0.9092974268, 2.036727818, 0.9092974268,
        0.8349150546, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409,
        -0.5298361409, -0.5298361409, 1.026901935, -0.5298361409, -3.048967008, -0.5298361409,
        -0.1646736989, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409,
        -0.5298361409, -0.5298361409, 0.09055192971, -0.5298361409, 0.677943488, -0.5298361409,
        -0.9295600585, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409,
        -0.5298361409, -0.5298361409, -3.392010721, -0.5298361409, -0.09921498618, -0.5298361409,
        0.4082653259, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409, -0.5298361409,
        -0.5298361409, -0.5298361409, 0.4748027803, -0.5298361409, -2.66427151, -0.5298361409,
        0.2140491557, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876,
        -0.7727644876, -0.7727644876, 0.1500934904, -0.7727644876, -3.522236376, -0.7727644876,
        -0.2604524885, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876,
        -0.7727644876, -0.7727644876, 0.3343932257, -0.7727644876, 0.02604303068, -0.7727644876,
        -1.227246557, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876,
        -0.7727644876, -0.7727644876, -3.373874717, -0.7727644876, 0.3236335214, -0.7727644876,
        0.9331066058, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876, -0.7727644876,
        -0.7727644876, -0.7727644876, -0.3284661165, -0.7727644876, -2.785643302, -0.7727644876,
        -0.5540552287, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401,
        0.7289690401, 0.7289690401, 1.767211354, 0.7289690401, 2.837245465, 0.7289690401,
        -0.06218481994, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401,
        0.7289690401, 0.7289690401, -0.7983493268, 0.7289690401, 1.006965537, 0.7289690401,
        1.304749146, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401,
        0.7289690401, 0.7289690401, 1.792715339, 0.7289690401, -1.564877269, 0.7289690401,
        -0.384668002, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401, 0.7289690401,
        0.7289690401, 0.7289690401, 1.818612097, 0.7289690401, 1.937071908, 0.7289690401,
        0.5811598358], [[0.3726828659, -0.01603376665, -0.1861191562, -0.6034684719, 0.343782083,
        -0.148188182, 0.2918524207, -0.713598473, 0.781486185, -0.1984958822, 0.6672552456,
        -0.3496477779, 0.1871971618, -0.9187934716, 0.9032827332, 0.279083306, -0.07736494888,
        -0.1596394205, 0.6422282493, -0.2675995492, 0.06900062892, -0.6690706053, 0.5562896839,
        -0.3914236191, 0.0815179114, -0.5614476516, 0.6879113004, -0.2685716684, 1.002066803,
        -0.7434182696, 0.0892780436, -0.8517365011, 0.9127759939, 0.3224983427, -0.3667888318,
        0.1388198821], [-5.796986041, 2.474139, 1.907194531, -6.848382918, 9.676283181,
        -6.483429145, -5.823962057, 2.844351044, 1.117005376, -6.309701859, 9.783343223,
        -7.008244763, 5.959564179, -5.045098303, 2.136670439, 3.287770937, -8.239743335,
        9.164584772, 5.746638515, -5.228922318, 2.80331809, 2.536914156, -8.025027286, 9.386476978],
        [-0.004966550007, 0.00373333435, 0.01240848998, 0.02100145469]]),
    "conv_transpose2d_plain": ([-0.934183771, 0.1451834805, 2.691226396, 0.1770847492, 1.11069589,
        -0.9392940551, -2.392055554, 0.02027725215, -1.015767638, -2.475107051, 1.476490721,
        1.928322997, 1.535423179, 1.991168684, -2.068802676, -1.5080767, -1.213453786, 1.671032109,
        1.934043577, -0.2162927706, 1.235633965, -2.291807591, -1.347604115, 0.3979456673,
        -1.953121072, -1.375009518, 2.523738654, 0.9876886583, 2.241124665, 0.66754475,
        -2.811089263, -0.4017145196], [[0.2720530707, 0.1977211937, -0.3230036451, 0.3408819145,
        -0.1565988715, -0.3005281096, 0.00147605618, 0.4164571597, -0.1087924805, 0.3617315957,
        0.1653353829, -0.4043367033, -0.270542463, 0.228484389, 0.2116645519, 0.02931708897,
        0.3258044226, -0.1132733011], [-0.8626616724, -0.5469295691, -1.077894499, -0.01055151149,
        -0.1725931533, 1.087885278, 0.3809244424, 0.9619610837, -2.454357717, 1.418163281,
        -1.584756243, 2.364827304, 2.14609855, 1.338679399, 2.670608943, 0.008573765863,
        4.368788502, -1.478961072, 3.341768401, -3.36767832, -2.893175807, -3.000230706,
        -4.195972919, -0.9742089766]]),
}
# END EXPECTED
