"""The losses, pooling, padding, resampling and container layers that follow torch's: forward
values and gradients against numbers computed with torch 2.13 in float64 (EXPECTED at the end),
float64 gradcheck, float32 within tolerance, reprs, state_dict keys and torch's error messages.
The helpers are test_nn_layers_more's."""
import warnings

import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F
from numgrad import nn

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
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_and_gradients_match_torch(name, dtype):
    check_against_torch(CASES[name], EXPECTED[name], dtype)


@pytest.mark.parametrize("name", sorted(n for n, case in CASES.items()
                                        if case[2:] == () or case[2]["gradcheck"]))
def test_gradcheck_float64(name):
    check_gradcheck(CASES[name])


# ---- loss modules ---------------------------------------------------------------------------------
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


# ---- values computed with torch 2.13 (float64) from the inputs above: forward, then the
# gradients of (out * wave(out.shape, 1.0, 1.1)).sum() with respect to each float input ----------
# BEGIN EXPECTED
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
}
# END EXPECTED
