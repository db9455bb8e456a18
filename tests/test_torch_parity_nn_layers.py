"""nn layers and their functional forms against torch 2.13: the differences a differential sweep
found (graph nodes, values, refusals), each pinned to torch's own numbers and words (hard-coded:
torch is no test dependency)."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F
from numgrad.nn.utils.rnn import PackedSequence, pad_packed_sequence


def _weights_as_torch_test(module):
    """The same deterministic weights the torch run used: arange * 0.1 - 0.3 per parameter."""
    for p in module.parameters():
        p.data = ng.arange(p.numel(), dtype=ng.float64).reshape(p.shape) * 0.1 - 0.3


# ---- recurrent layers ---------------------------------------------------------------------------
def test_gru_batch_first_turns_its_output_around_in_place():
    m = ng.nn.GRU(2, 2, batch_first=True).double()
    _weights_as_torch_test(m)
    x = (ng.arange(12, dtype=ng.float64).reshape(2, 3, 2) * 0.1).requires_grad_()
    out, _ = m(x)
    # torch 2.13: TransposeBackward1 (transpose_ in its kernel), not a view, not contiguous
    assert out.grad_fn.name() == "TransposeBackward1"
    assert out._base is None and not out.is_contiguous()
    assert out.grad_fn.next_functions[0][0].name() == "StackBackward0"
    np.testing.assert_allclose(out.detach().numpy()[:, 0], [[0.1049, 0.1693], [0.3451, 0.3291]],
                               atol=1e-4)
    out.pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[1], [[0.2125, 0.2111], [0.0861, 0.0781],
                                                   [0.0292, 0.0240]], atol=1e-4)


def test_lstm_batch_first_output_stays_a_transposed_view():
    out, _ = ng.nn.LSTM(2, 2, batch_first=True).double()(
        ng.zeros(2, 3, 2, dtype=ng.float64, requires_grad=True))
    assert out.grad_fn.name() == "TransposeBackward0" and out._base is not None


def test_recurrent_layers_refuse_4d_input_in_torch_words():
    with pytest.raises(ValueError, match=r"^RNN: Expected input to be 2D or 3D, got 4D tensor "
                                         r"instead$"):
        ng.nn.RNN(2, 2)(ng.zeros(1, 1, 1, 2))
    with pytest.raises(ValueError, match=r"^GRU: Expected input to be 2D or 3D, got 4D instead$"):
        ng.nn.GRU(2, 2)(ng.zeros(1, 1, 1, 2))


def test_pad_packed_sequence_copies_blocks_into_the_filler():
    data = ng.arange(12.).reshape(6, 2).requires_grad_()
    out, lengths = pad_packed_sequence(PackedSequence(data, ng.tensor([3, 2, 1])), total_length=4)
    # torch 2.13: CopySlices over (CopySlices, ViewBackward0): one copy per run of batch sizes
    assert out.grad_fn.name() == "torch::autograd::CopySlices"
    assert [n.name() for n, _ in out.grad_fn.next_functions] == [
        "torch::autograd::CopySlices", "ViewBackward0"]
    assert out[:, :, 0].tolist() == [[0., 2., 4.], [6., 8., 0.], [10., 0., 0.], [0., 0., 0.]]
    assert lengths.tolist() == [3, 2, 1]
    (out * ng.arange(24.).reshape(4, 3, 2)).sum().backward()
    assert data.grad[:, 0].tolist() == [0., 2., 4., 6., 8., 12.]


# ---- interpolate: every torch mode ---------------------------------------------------------------
_GRID_WEIGHTS = ng.arange(1., 1 + 3 * 7, dtype=ng.float64).reshape(1, 1, 3, 7)

# torch 2.13: F.interpolate(arange(20).reshape(1, 1, 4, 5), size=(3, 7), **kw): node, the output's
# first row, and the input gradient's first row under the weights 1..21
_RESIZED = [
    (dict(mode="bicubic", align_corners=False), "UpsampleBicubic2DBackward0",
     [0.5521, 1.106, 1.9602, 2.6308, 3.3013, 4.1556, 4.7095],
     [0.3014, 1.8288, 3.3651, 4.9153, 6.3521]),
    (dict(mode="bicubic", align_corners=True), "UpsampleBicubic2DBackward0",
     [0.0, 0.5741, 1.3704, 2.0, 2.6296, 3.4259, 4.0], [0.3848, 2.3478, 4.5081, 6.7784, 6.7622]),
    (dict(mode="bilinear", antialias=True), "UpsampleBilinear2DAaBackward0",
     [1.5, 2.0714, 2.7857, 3.5, 4.2143, 4.9286, 5.5], [1.3, 2.3, 4.4, 4.9, 6.7]),
    (dict(mode="bicubic", antialias=True), "UpsampleBicubic2DAaBackward0",
     [0.8914, 1.4427, 2.2354, 2.9497, 3.6639, 4.4566, 5.0079],
     [0.8834, 2.2036, 3.6984, 4.9844, 6.5999]),
    (dict(mode="lanczos", antialias=True), "UpsampleLanczos2DAaBackward0",
     [0.7419, 1.2494, 2.1365, 2.797, 3.4574, 4.3445, 4.852],
     [0.8548, 2.2574, 3.7928, 4.933, 6.5715]),
    (dict(mode="nearest-exact"), "UpsampleNearestExact2DBackward0",
     [0.0, 1.0, 1.0, 2.0, 3.0, 3.0, 4.0], [1.0, 5.0, 4.0, 11.0, 7.0]),
]


@pytest.mark.parametrize("kwargs, node, first_row, first_grad_row", _RESIZED)
def test_interpolate_2d_modes_match_torch(kwargs, node, first_row, first_grad_row):
    x = ng.arange(20., dtype=ng.float64).reshape(1, 1, 4, 5).requires_grad_()
    out = F.interpolate(x, size=(3, 7), **kwargs)
    assert out.grad_fn.name() == node
    np.testing.assert_allclose(out.detach().numpy()[0, 0, 0], first_row, atol=1e-4)
    (out * _GRID_WEIGHTS).sum().backward()
    np.testing.assert_allclose(x.grad.numpy()[0, 0, 0], first_grad_row, atol=1e-4)


# torch 2.13: F.interpolate(arange(24).reshape(1, 1, 2, 3, 4), scale_factor=(1.5, 0.7, 1.3)):
# (1, 1, 3, 2, 5); node, first outputs, first gradients of sum(out ** 2)
_RESIZED_3D = [
    ("trilinear", "UpsampleTrilinear3DBackward0", [0.8571, 1.511, 2.2802, 3.0495, 3.8187, 6.5714],
     [9.5994, 11.2318, 14.4094, 15.4768, 15.2232, 15.7039]),
    ("nearest", "UpsampleNearest3DBackward0", [0.0, 0.0, 1.0, 2.0, 3.0, 4.0],
     [0.0, 4.0, 8.0, 12.0, 32.0, 20.0]),
    ("nearest-exact", "UpsampleNearestExact3DBackward0", [0.0, 1.0, 1.0, 2.0, 3.0, 8.0],
     [0.0, 4.0, 4.0, 6.0, 0.0, 0.0]),
    ("area", "AdaptiveAvgPool3DBackward0", [2.0, 2.5, 3.5, 4.5, 5.0, 6.0],
     [9.375, 7.5, 9.0, 15.375, 27.75, 21.0]),
]


@pytest.mark.parametrize("mode, node, first, first_grad", _RESIZED_3D)
def test_interpolate_3d_modes_match_torch(mode, node, first, first_grad):
    x = ng.arange(24., dtype=ng.float64).reshape(1, 1, 2, 3, 4).requires_grad_()
    out = F.interpolate(x, scale_factor=(1.5, 0.7, 1.3), mode=mode)
    assert out.grad_fn.name() == node and tuple(out.shape) == (1, 1, 3, 2, 5)
    np.testing.assert_allclose(out.detach().numpy().ravel()[:6], first, atol=1e-4)
    out.pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy().ravel()[:6], first_grad, atol=1e-4)


def test_nearest_exact_centres_its_picks():
    x = ng.arange(9.).reshape(1, 1, 9)
    # torch 2.13: nearest-exact [1, 4, 7], nearest [0, 3, 6]
    assert F.interpolate(x, scale_factor=1 / 3, mode="nearest-exact").tolist() == [[[1., 4., 7.]]]
    assert F.interpolate(x, scale_factor=1 / 3).tolist() == [[[0., 3., 6.]]]


_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


@pytest.mark.parametrize("shape, kwargs, error, message", [
    ((1, 1, 4), dict(size=3, mode="lanczos"), NotImplementedError,
     f"Input Error: Only 3D, 4D and 5D input Tensors supported (got 3D) for the modes: {_MODES} "
     f"(got lanczos)"),
    ((1, 1, 4), dict(size=3, mode="bicubic"), NotImplementedError,
     f"Input Error: Only 3D, 4D and 5D input Tensors supported (got 3D) for the modes: {_MODES} "
     f"(got bicubic)"),
    ((1, 1, 4), dict(size=3, mode="linear", antialias=True), ValueError,
     "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
     "tensor as input"),
    ((1, 1, 4), dict(size=3, mode="trilinear"), NotImplementedError,
     "Got 3D input, but trilinear mode needs 5D input"),
    ((1, 1, 4), dict(size=(3, 4), mode="linear"), ValueError,
     "Input and output must have the same number of spatial dimensions, but got input with "
     "spatial dimensions of [4] and output size of (3, 4). Please provide input tensor in (N, C, "
     "d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."),
    ((1, 1, 4), dict(scale_factor=(2, 3)), ValueError,
     "Input and scale_factor must have the same number of spatial dimensions, but got input with "
     "spatial dimensions of [4] and scale_factor of shape (2, 3). Please provide input tensor in "
     "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."),
    ((1, 1, 4), dict(size=3, recompute_scale_factor=True), ValueError,
     "recompute_scale_factor is not meaningful with an explicit size."),
    ((1, 1, 4, 4), dict(size=3, mode="lanczos", antialias=True, align_corners=True), ValueError,
     "Lanczos mode does not support align_corners=True"),
    ((1, 1, 4, 4), dict(size=3, mode="lanczos"), ValueError, "Lanczos mode requires antialias=True"),
])
def test_interpolate_refusals_in_torch_words(shape, kwargs, error, message):
    with pytest.raises(error) as caught:
        F.interpolate(ng.zeros(*shape), **kwargs)
    assert str(caught.value) == message


# ---- pooling ------------------------------------------------------------------------------------
# torch 2.13's refusals, each from the check torch makes first for these settings
_POOL_REFUSALS = [
    ("max_pool1d", (1, 3, 4), {"kernel_size": 0}, RuntimeError,
     "max_pool1d() kernel_size must be greater than zero, but got 0"),
    ("max_pool1d", (1, 3, 4), {"kernel_size": 2, "padding": -1}, RuntimeError,
     "max_pool1d() padding must be non-negative, but got -1"),
    ("max_pool1d", (1, 3, 4), {"kernel_size": 2, "stride": -1}, RuntimeError,
     "max_pool1d() stride must be greater than zero, but got -1"),
    ("max_pool1d", (1, 3, 4), {"kernel_size": 2, "padding": 2}, RuntimeError,
     "max_pool1d() padding should be at most half of kernel size, but got padding=2 and "
     "kernel_size=2"),
    ("max_pool1d", (1, 3, 4), {"kernel_size": 2, "dilation": 0}, RuntimeError,
     "max_pool1d() dilation must be greater than zero, but got 0"),
    ("max_pool1d", (1, 3, 4), {"kernel_size": 5}, RuntimeError,
     "max_pool1d() Invalid computed output size: 0"),
    ("max_pool1d", (1, 3, 4), {"kernel_size": 2, "stride": -1, "return_indices": True},
     RuntimeError, "stride should be greater than zero, but got dH: 1 dW: -1"),
    ("max_pool1d", (1, 1, 3, 4), {"kernel_size": 2, "return_indices": True}, RuntimeError,
     "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' (while "
     "checking arguments for max_pool1d)"),
    ("max_pool2d", (1, 3, 4), {"kernel_size": 2, "dilation": 0}, RuntimeError,
     "dilation should be greater than zero, but got dilationH: 0 dilationW: 0"),
    ("max_pool2d", (1, 3, 4), {"kernel_size": 2, "padding": -1}, RuntimeError,
     "pad must be non-negative, but got pad: -1"),
    ("max_pool2d", (1, 3, 4), {"kernel_size": 2, "stride": -1}, RuntimeError,
     "stride should be greater than zero, but got dH: -1 dW: -1"),
    ("max_pool2d", (1, 3, 4), {"kernel_size": -1}, RuntimeError,
     "kernel size should be greater than zero, but got kH: -1 kW: -1"),
    ("avg_pool2d", (1, 3, 4), {"kernel_size": 2, "stride": -1}, RuntimeError,
     "stride should be greater than zero, but got dH: -1 dW: -1"),
    ("avg_pool1d", (1, 3, 4), {"kernel_size": 2, "stride": -1}, RuntimeError,
     "stride should be greater than zero, but got dH: 1 dW: -1"),
    ("max_pool3d", (1, 1, 3, 4, 4), {"kernel_size": 2, "stride": -1}, RuntimeError,
     "stride should be greater than zero, but got dT: -1 dH: -1 dW: -1"),
    ("max_pool3d", (1, 1, 3, 4, 4), {"kernel_size": 0, "stride": 2}, RuntimeError,
     "kernel size should be greater than zero, but got kT: 0 kH: 0 kW: 0"),
    ("max_pool3d", (1, 0, 2, 4, 4), {"kernel_size": 2}, RuntimeError,
     "max_pool3d_with_indices_out_cpu_template(): Expected input's non-batch dimensions to have "
     "positive length, but input has a shape of [1, 0, 2, 4, 4] and non-batch dimension 0 has "
     "length zero!"),
    ("avg_pool3d", (1, 1, 1, 4, 4), {"kernel_size": 2, "padding": 1}, RuntimeError,
     "input image (T: 1 H: 4 W: 4) smaller than kernel size (kT: 2 kH: 2 kW: 2)"),
    ("avg_pool3d", (1, 1, 3, 4, 4), {"kernel_size": 2, "padding": -1}, RuntimeError,
     "pad must be non-negative, but got pad: -1"),
    ("adaptive_avg_pool1d", (2, 3, 4), {"output_size": (2, 2)}, RuntimeError,
     "adaptive_avg_pool1d() argument 'output_size' should contain one int (got 2)"),
    ("adaptive_avg_pool1d", (2, 3, 4), {"output_size": -2}, RuntimeError,
     "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
     "received {1, -2}"),
    ("adaptive_avg_pool1d", (3,), {"output_size": 2}, RuntimeError,
     "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while "
     "checking arguments for adaptive_avg_pool1d)"),
    ("adaptive_max_pool1d", (2, 0, 4), {"output_size": 2}, RuntimeError,
     "adaptive_max_pool1d(): Expected input to have non-zero size for non-batch dimensions, but "
     "input has sizes [2, 0, 4] with dimension 1 being empty"),
    ("adaptive_max_pool1d", (2, 3, 4), {"output_size": -2}, RuntimeError,
     "Trying to create tensor with negative dimension -2: [2, 3, 1, -2]"),
    ("adaptive_avg_pool2d", (2, 3, 4), {"output_size": (2, -1)}, RuntimeError,
     "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
     "received {2, -1}"),
    ("adaptive_avg_pool2d", (3, 4), {"output_size": (2, -1)}, ValueError,
     "Input dimension should be at least 3"),
    ("adaptive_avg_pool2d", (2, 3, 4), {"output_size": (2,)}, RuntimeError,
     "adaptive_avg_pool2d: output_size must be 2"),
    ("adaptive_avg_pool2d", (3, 4), {"output_size": 0}, RuntimeError,
     "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [3, 4]"),
    ("adaptive_avg_pool2d", (2, 3, 0), {"output_size": 2}, RuntimeError,
     "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but "
     "input has sizes [2, 3, 0] with dimension 2 being empty"),
    ("adaptive_max_pool2d", (2, 3, 4), {"output_size": -1}, RuntimeError,
     "Trying to create tensor with negative dimension -1: [2, -1, -1]"),
    ("adaptive_max_pool2d", (2, 3, 4), {"output_size": (2,)}, RuntimeError,
     "adaptive_max_pool2d(): internal error: output_size.size() must be 2"),
    ("adaptive_max_pool2d", (2, 3, 0), {"output_size": 2}, RuntimeError,
     "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but "
     "input has sizes [2, 3, 0] with dimension 2 being empty"),
]


@pytest.mark.parametrize("name, shape, kwargs, error, message", _POOL_REFUSALS)
def test_pooling_refusals_in_torch_order_and_words(name, shape, kwargs, error, message):
    with pytest.raises(error) as caught:
        getattr(F, name)(ng.zeros(*shape), **kwargs)
    assert str(caught.value) == message


def test_adaptive_pool1d_output_size_of_none_is_a_type_error():
    # torch 2.13 (output_size passed by position)
    with pytest.raises(TypeError, match=r"^adaptive_avg_pool1d\(\): argument 'output_size' "
                                        r"\(position 2\) must be tuple of ints, but found element "
                                        r"of type NoneType at pos 0$"):
        F.adaptive_avg_pool1d(ng.zeros(2, 3, 4), (None,))


def test_adaptive_avg_pool1d_is_a_squeezed_2d_pooling():
    x = ng.arange(8.).reshape(2, 4).requires_grad_()
    out = F.adaptive_avg_pool1d(x, 3)
    # torch 2.13: SqueezeBackward1 over AdaptiveAvgPool2DBackward0
    assert out.grad_fn.name() == "SqueezeBackward1"
    assert out.grad_fn.next_functions[0][0].name() == "AdaptiveAvgPool2DBackward0"
    assert out.tolist() == [[0.5, 1.5, 2.5], [4.5, 5.5, 6.5]]
    out.pow(2).sum().backward()
    assert x.grad.tolist() == [[0.5, 2.0, 4.0, 2.5], [4.5, 10.0, 12.0, 6.5]]
    # torch 2.13: to size 1 it is a mean, whatever the rank
    assert F.adaptive_avg_pool2d(ng.zeros(3, 4, requires_grad=True), 1).grad_fn.name() == \
        "MeanBackward1"


def test_max_unpool_nodes_and_output_size_words():
    x = ng.arange(8.).reshape(1, 2, 4).requires_grad_()
    values, indices = F.max_pool1d(x, 2, return_indices=True)
    out = F.max_unpool1d(values, indices, 2, output_size=(5,))
    # torch 2.13: max_unpool1d is max_unpool2d of planes of width 1
    assert out.grad_fn.name() == "SqueezeBackward1"
    assert out.grad_fn.next_functions[0][0].name() == "MaxUnpool2DBackward0"
    assert out.tolist() == [[[0., 1., 0., 3., 0.], [0., 5., 0., 7., 0.]]]
    values, indices = F.max_pool2d(x, 2, return_indices=True)
    out = F.max_unpool2d(values, indices, 2)
    assert out.grad_fn.name() == "MaxUnpool2DBackward0"
    assert out.tolist() == [[[0., 0., 0., 0.], [0., 5., 0., 7.]]]
    with pytest.raises(ValueError) as caught:
        F.max_unpool2d(values, indices, 2, output_size=[9, 9])
    assert str(caught.value) == 'invalid output_size "[9, 9]" (dim 0 must be between 0 and 4)'
    with pytest.raises(ValueError) as caught:
        F.max_unpool2d(values, indices, 2, output_size=[9])
    assert str(caught.value) == ("output_size should be a sequence containing 2 or 4 elements, "
                                 "but it has a length of '1'")


# ---- losses -------------------------------------------------------------------------------------
def test_ctc_loss_gradient_is_torchs_on_raw_log_probs():
    lp = (ng.arange(24, dtype=ng.float64).reshape(3, 2, 4) * 0.37).sin().log_softmax(2)
    lp = lp.detach().requires_grad_()
    losses = F.ctc_loss(lp, ng.tensor([[1, 2], [3, 0]]), ng.tensor([3, 2]), ng.tensor([2, 1]),
                        reduction="none")
    # torch 2.13: CtcLossBackward0; its backward is exp(log_probs) minus the posteriors, zero
    # past each sample's input length
    assert losses.grad_fn.name() == "CtcLossBackward0"
    np.testing.assert_allclose(losses.tolist(), [2.7016823841016686, 1.6737012194970822])
    (losses * ng.tensor([1., 2.], dtype=ng.float64)).sum().backward()
    np.testing.assert_allclose(lp.grad.numpy(), [
        [[-0.02, -0.6243, 0.2866, 0.3577], [-0.3708, 0.5667, 0.4806, -0.6765]],
        [[0.0465, -0.1338, -0.0592, 0.1465], [0.0111, 0.4419, 0.4896, -0.9426]],
        [[0.0547, 0.1965, -0.636, 0.3849], [0.0, 0.0, 0.0, 0.0]]], atol=1e-4)


def test_ctc_loss_zero_infinity_zeroes_impossible_samples():
    lp = ng.zeros(3, 2, 4, dtype=ng.float64).log_softmax(2).detach().requires_grad_()
    losses = F.ctc_loss(lp, ng.tensor([1, 2, 2, 3, 3, 3]), ng.tensor([3, 3]), ng.tensor([3, 3]),
                        reduction="none", zero_infinity=True)
    # torch 2.13: WhereBackward0 over the zeroed losses, and no gradient
    assert losses.grad_fn.name() == "WhereBackward0" and losses.tolist() == [0.0, 0.0]
    losses.sum().backward()
    assert not lp.grad.numpy().any()


def test_triplet_margin_with_distance_loss_clamps_with_clamp_min():
    a, p, n = [(ng.arange(6, dtype=ng.float64).reshape(2, 3) * k).cos().requires_grad_()
               for k in (0.3, 0.7, 1.1)]
    out = F.triplet_margin_with_distance_loss(a, p, n, margin=0.5, swap=True, reduction="none")
    assert out.grad_fn.name() == "ClampMinBackward0"                     # torch 2.13
    np.testing.assert_allclose(out.tolist(), [0.3626459034713677, 0.6680774640044136])


def test_binary_cross_entropy_target_gradient_is_unclamped():
    x = ng.tensor([0., 1., 0.5], requires_grad=True)
    y = ng.tensor([0., 1., 1.], requires_grad=True)
    F.binary_cross_entropy(x, y, reduction="sum").backward()
    # torch 2.13: x [0, 0, -2], y [inf, -inf, -0.0] (-logit(x), unclamped)
    assert x.grad.tolist() == [0.0, 0.0, -2.0]
    assert [str(v) for v in y.grad.tolist()] == ["inf", "-inf", "-0.0"]


# ---- padding, shuffles, fold/unfold, normalisation ----------------------------------------------
def test_non_constant_padding_crops_on_negative_amounts():
    x = ng.arange(10.).reshape(1, 2, 5).requires_grad_()
    weights = ng.arange(12.).reshape(1, 2, 6)
    out = F.pad(x, (-1, 2), mode="reflect")
    # torch 2.13: pads the whole input, then crops
    assert out.tolist() == [[[1., 2., 3., 4., 3., 2.], [6., 7., 8., 9., 8., 7.]]]
    (out * weights).sum().backward()
    assert x.grad.tolist() == [[[0., 0., 6., 6., 3.], [0., 6., 18., 18., 9.]]]
    x.grad = None
    # torch 2.13: circular padding wraps the cropped input
    out = F.pad(x, (2, -1), mode="circular")
    assert out.tolist() == [[[2., 3., 0., 1., 2., 3.], [7., 8., 5., 6., 7., 8.]]]
    (out * weights).sum().backward()
    assert x.grad.tolist() == [[[2., 3., 4., 6., 0.], [8., 9., 16., 18., 0.]]]
    assert F.pad(x, (-1, 5), mode="replicate")[0, 0].tolist() == [1., 2., 3., 4., 4., 4., 4., 4., 4.]


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.pad(ng.zeros(1, 2, 5), (1, 1), mode="reflect", value=2.), RuntimeError,
     'Padding mode "reflect" doesn\'t take in value argument'),
    (lambda: F.pad(ng.zeros(4), (1, 1, 1, 1), mode="replicate"), RuntimeError,
     "Padding length should be less than or equal to two times the input dimension but got "
     "padding length 4 and input of dimension 1"),
    (lambda: F.pad(ng.zeros(1, 2, 5), (1,), mode="replicate"), RuntimeError,
     "Padding length must be divisible by 2"),
    (lambda: ng.nn.CircularPad2d(1)(ng.zeros(4, 4)), ValueError,
     "expected 3D or 4D input (got 2D input)"),
    (lambda: F.channel_shuffle(ng.zeros(3, 3), 2), RuntimeError,
     "channel_shuffle expects input with > 2 dims, but got input with sizes [3, 3]"),
    (lambda: F.unfold(ng.zeros(4, 5), 2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: F.unfold(ng.zeros(1, 1, 4, 5), 6), RuntimeError,
     "Given input with spatial size (4, 5), kernel_size=(6, 6), dilation=(1, 1), padding=(0, 0), "
     "calculated shape of the array of sliding blocks as (-1, 0), but its components must be at "
     "least one."),
    (lambda: F.local_response_norm(ng.zeros(2, 6), 2), ValueError,
     "Expected 3D or higher dimensionality" + " " * 26 + "input (got 2 dimensions)"),
    (lambda: F.batch_norm(ng.zeros(4, 3), None, None, training=False), RuntimeError,
     "running_mean must be defined in evaluation mode"),
    (lambda: F.batch_norm(ng.zeros(4, 3), ng.zeros(3), None, training=False), RuntimeError,
     "running_var must be defined in evaluation mode"),
    (lambda: ng.nn.EmbeddingBag(6, 3, mode="foo")(ng.tensor([0, 2])), ValueError,
     "offsets has to be a 1D Tensor but got None"),
])
def test_layer_refusals_in_torch_words(call, error, message):
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value) == message


def test_channel_shuffle_and_unbatched_fold_show_torchs_nodes():
    y = ng.arange(18.).reshape(1, 6, 3).requires_grad_()
    out = F.channel_shuffle(y, 3)
    assert out.grad_fn.name() == "ChannelShuffleBackward0"             # torch 2.13
    assert out[0, :, 0].tolist() == [0., 6., 12., 3., 9., 15.]
    folded = F.fold(ng.ones(4, 4, requires_grad=True), (3, 3), 2)
    assert folded.grad_fn.name() == "Col2ImBackward0"                  # not a squeeze of it
    assert folded.tolist() == [[[1., 2., 1.], [2., 4., 2.], [1., 2., 1.]]]


# torch 2.13: F.<loss>(x (3, 4), y (4,), reduction, weight=w (3, 4)): node, value, and the first
# rows of x's, y's and w's gradients
_WEIGHTED = [
    ("mse_loss", "mean", "DivBackward0", 0.420928, [-0.0444, -0.0313, 0.0351, 0.1431],
     [0.1256, 0.0776, -0.1703, -0.517], [0.0643, -0.0223, -0.0295, 0.1376]),
    ("mse_loss", "sum", "SumBackward0", 3.788353, [-0.4, -0.2816, 0.3157, 1.2882],
     [1.1306, 0.6983, -1.5327, -4.6531], [1.0, 0.2203, 0.1558, 1.6594]),
    ("l1_loss", "mean", "DivBackward0", 0.489148, [-0.0222, -0.0333, 0.0444, 0.0556],
     [0.2, 0.0778, 0.0, -0.3], [0.0568, -0.0022, -0.0105, 0.0888]),
    ("huber_loss", "mean", "MeanBackward0", 0.151038, [-0.0167, -0.0117, 0.0132, 0.0417],
     [0.0471, 0.0291, -0.0639, -0.1543], [0.0417, 0.0092, 0.0065, 0.0657]),
    ("huber_loss", "sum", "SumBackward0", 1.812456, [-0.2, -0.1408, 0.1579, 0.5],
     [0.5653, 0.3491, -0.7664, -1.8512], [0.5, 0.1101, 0.0779, 0.7882]),
]


@pytest.mark.parametrize("loss, reduction, node, value, x_grad, y_grad, w_grad", _WEIGHTED)
def test_weighted_elementwise_losses_match_torch(loss, reduction, node, value, x_grad, y_grad,
                                                 w_grad):
    x = (ng.arange(12., dtype=ng.float64).reshape(3, 4) * 0.3).sin().requires_grad_()
    y = (ng.arange(4., dtype=ng.float64) * 0.7).cos().requires_grad_()
    w = (ng.arange(12., dtype=ng.float64).reshape(3, 4) * 0.1 + 0.2).requires_grad_()
    with pytest.warns(UserWarning, match="Using a target size"):
        out = getattr(F, loss)(x, y, reduction=reduction, weight=w)
    assert out.grad_fn.name() == node
    assert out.item() == pytest.approx(value, abs=1e-6)
    out.backward()
    for tensor, expected in ((x.grad[0], x_grad), (y.grad, y_grad), (w.grad[0], w_grad)):
        np.testing.assert_allclose(tensor.numpy(), expected, atol=1e-4)


def test_elementwise_losses_broadcast_as_torch():
    x = ng.zeros(3, 4, requires_grad=True)
    with pytest.warns(UserWarning):
        out = F.mse_loss(x, ng.zeros(4, requires_grad=True))
    # torch 2.13: the target reaches MseLossBackward0 through its expansion
    assert [n.name() for n, _ in out.grad_fn.next_functions] == [
        "torch::autograd::AccumulateGrad", "ExpandBackward0"]
    with pytest.raises(ValueError, match=r"^Weights and input must have the same size\.$"):
        F.mse_loss(x, x, weight=ng.ones(4))
    with pytest.raises(ValueError, match=r"^Invalid reduction mode: foo\. Expected one of 'none', "
                                         r"'mean', 'sum'\.$"):
        F.l1_loss(x, x, weight=ng.ones(3, 4), reduction="foo")
    with pytest.raises(RuntimeError, match="must match the size"), pytest.warns(UserWarning):
        F.l1_loss(x, ng.zeros(5), reduction="foo")           # broadcasting fails first


def test_inplace_activations_are_one_node_over_their_input():
    for call, node in ((lambda y: F.celu(y, inplace=True), "CeluBackward1"),
                       (lambda y: F.hardswish(y, True), "HardswishBackward0"),
                       (lambda y: F.mish(y, inplace=True), "MishBackward0")):
        y = ng.tensor([-1., 0.5, 2.], requires_grad=True) * 1
        out = call(y)
        # torch 2.13: the in-place node's one edge leads to the input's own node
        assert out is y and out.grad_fn.name() == node
        assert [n.name() for n, _ in out.grad_fn.next_functions] == ["MulBackward0"]


def test_normalize_divides_by_the_expanded_clamped_norm():
    x = ng.tensor([[3., 4.], [0., 0.]], requires_grad=True)
    out = F.normalize(x, dim=0)
    # torch 2.13: DivBackward0 over (x, ExpandBackward0 over ClampMinBackward0)
    assert [n.name() for n, _ in out.grad_fn.next_functions] == [
        "torch::autograd::AccumulateGrad", "ExpandBackward0"]
    assert out.grad_fn.next_functions[1][0].next_functions[0][0].name() == "ClampMinBackward0"


def test_unbatched_rnn_with_batch_first_runs_as_a_batch_of_one_first():
    out, _ = ng.nn.GRU(2, 3, batch_first=True)(ng.zeros(4, 2, requires_grad=True))
    # torch 2.13: SqueezeBackward1 over the in-place transpose of the batch_first path
    assert out.grad_fn.name() == "SqueezeBackward1" and tuple(out.shape) == (4, 3)
    assert out.grad_fn.next_functions[0][0].name() == "TransposeBackward1"


def _nodes(out):
    return out.grad_fn.name(), [n.name() if n is not None else None
                                for n, _ in out.grad_fn.next_functions]


def test_linear_follows_torchs_dispatch():
    x = ng.zeros(2, 3, 4, requires_grad=True)
    w = ng.zeros(5, 4, requires_grad=True)
    b = ng.zeros(5, requires_grad=True)
    # torch 2.13: matmul without a bias, a folded addmm with a 1-D bias and a contiguous input,
    # matmul and an in-place add otherwise
    assert _nodes(F.linear(x, w)) == ("UnsafeViewBackward0", ["MmBackward0"])
    assert _nodes(F.linear(x, w, b)) == ("ViewBackward0", ["AddmmBackward0"])
    assert _nodes(F.linear(x[0, 0], w)) == ("SqueezeBackward4", ["MmBackward0"])
    assert _nodes(F.linear(x[0, 0], w, b)) == ("ViewBackward0", ["AddmmBackward0"])
    assert _nodes(F.linear(x.transpose(0, 1), w, b)) == (
        "AddBackward0", ["UnsafeViewBackward0", "torch::autograd::AccumulateGrad"])
    with pytest.raises(RuntimeError, match=r"^output with shape \[5\] doesn't match the broadcast "
                                           r"shape \[2, 5\]$"):
        F.linear(x[0, 0], w, ng.zeros(2, 5))


def test_circular_padding_is_torchs_chain_of_slice_copies():
    x = ng.arange(12., dtype=ng.float64).reshape(1, 3, 4).requires_grad_()
    out = F.pad(x, (1, 2, 2, 1), mode="circular")
    # torch 2.13: CopySlices over (CopySlices, SliceBackward0)
    assert _nodes(out) == ("torch::autograd::CopySlices",
                           ["torch::autograd::CopySlices", "SliceBackward0"])
    assert out[0, 0].tolist() == [7., 4., 5., 6., 7., 4., 5.]
    (out * ng.arange(42., dtype=ng.float64).reshape(1, 6, 7)).sum().backward()
    assert x.grad.tolist() == [[[110., 114., 55., 106.], [54., 58., 27., 50.],
                                [82., 86., 41., 78.]]]
    with pytest.raises(RuntimeError, match=r"^Negative padding value is resulting in an empty "
                                           r"dimension$"):
        F.pad(x, (-3, -3), mode="circular")
    # a conv with padding_mode, even with padding='valid', convolves the padded input
    conv = ng.nn.Conv1d(3, 2, 2, padding="valid", padding_mode="replicate").double()
    assert conv(x).grad_fn.next_functions[0][0].name() == "ReplicationPad1DBackward0"


def test_embedding_bag_repr_leaves_include_last_offset_out():
    bag = ng.nn.EmbeddingBag(5, 3, mode="sum", padding_idx=1, include_last_offset=True,
                             max_norm=2.0)
    assert repr(bag) == "EmbeddingBag(5, 3, max_norm=2.0, mode='sum', padding_idx=1)"   # torch


# ---- transformer encoder fast path --------------------------------------------------------------
def _encoder(**kwargs):
    encoder = ng.nn.TransformerEncoder(
        ng.nn.TransformerEncoderLayer(4, 2, 6, 0.0, batch_first=True), 1, **kwargs).double()
    for p in encoder.parameters():
        p.data = (ng.arange(p.numel(), dtype=ng.float64).reshape(p.shape) * 0.37).sin() * 0.5
    return encoder.eval()


def test_transformer_encoder_fast_path_zeroes_padded_positions():
    x = (ng.arange(24, dtype=ng.float64).reshape(2, 3, 4) * 0.21).cos()
    padding = ng.tensor([[False, True, False], [False, False, True]])
    with ng.no_grad():
        # torch 2.13: a padding mask that is not left aligned takes the ordinary path
        np.testing.assert_allclose(_encoder()(x, src_key_padding_mask=padding)[0].numpy(), [
            [0.0, -0.0085, 0.095, 1.1317], [0.0, -0.0168, 0.0865, 1.0976],
            [0.0, 0.0031, 0.0856, 1.1489]], atol=1e-4)
        # without mask_check, the nested tensor holds each row's leading kept count of positions
        out = _encoder(mask_check=False)(x, src_key_padding_mask=padding)
    np.testing.assert_allclose(out.numpy(), [
        [[0.0, -0.0076, 0.0947, 1.1335], [0.0, -0.0217, 0.1121, 1.1134], [0.0, 0.0, 0.0, 0.0]],
        [[0.0, 0.0177, 0.0585, 1.153], [0.0, 0.0193, 0.0555, 1.1533], [0.0, 0.0, 0.0, 0.0]]],
        atol=1e-4)
    # with gradients the padded positions are computed as any other
    out = _encoder()(x.requires_grad_(), src_key_padding_mask=ng.tensor([[False, False, True]] * 2))
    assert out[:, 2].abs().sum().item() > 0


def test_transformer_encoder_warns_when_its_fast_path_cannot_be_taken():
    layer = ng.nn.TransformerEncoderLayer(4, 1, 6, batch_first=True)
    with pytest.warns(UserWarning, match=r"^enable_nested_tensor is True, but "
                                         r"self\.use_nested_tensor is False because "
                                         r"encoder_layer\.self_attn\.num_heads is odd$"):
        encoder = ng.nn.TransformerEncoder(layer, 1)
    assert encoder.use_nested_tensor is False and encoder.enable_nested_tensor is True


def test_packing_and_padding_sequences_show_torchs_nodes():
    from numgrad.nn.utils.rnn import pack_padded_sequence, pad_sequence
    x = ng.arange(24.).reshape(4, 3, 2).requires_grad_()
    packed = pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
    # torch 2.13: one PackPaddedSequenceBackward0 over the sorted input
    assert _nodes(packed.data) == ("PackPaddedSequenceBackward0", ["IndexSelectBackward0"])
    assert packed.data[:, 0].tolist() == [2., 0., 4., 8., 6., 14., 20.]
    seqs = [ng.arange(k * 2.).reshape(k, 2).requires_grad_() for k in (2, 3)]
    padded = pad_sequence(seqs, batch_first=True, padding_value=-1., padding_side="left")
    # torch 2.13: each sequence copied into the filler
    assert _nodes(padded) == ("torch::autograd::CopySlices",
                              ["torch::autograd::CopySlices", "torch::autograd::AccumulateGrad"])
    assert padded[:, :, 0].tolist() == [[-1., 0., 2.], [0., 2., 4.]]


# ---- integer inputs ----------------------------------------------------------------------------
def test_average_pooling_of_int64_truncates_as_torch():
    a = ng.tensor(np.arange(-8, 24).reshape(1, 2, 4, 4))
    # torch 2.13: int64 results, each window's sum divided with C++ integer division
    out = F.avg_pool2d(a, 3, 1, 1)
    assert out.dtype == ng.int64
    assert out[0, 0].tolist() == [[-2, -3, -2, -1], [-2, -3, -2, -1], [0, 1, 2, 1], [1, 2, 2, 2]]
    assert F.avg_pool2d(a, 3, 1, 1, count_include_pad=False)[0, 0].tolist() == [
        [-5, -5, -4, -3], [-3, -3, -2, -1], [0, 1, 2, 2], [2, 3, 4, 4]]
    assert F.avg_pool3d(a, 2).tolist() == [[[[2, 4], [10, 12]]]]
    np.testing.assert_allclose(F.local_response_norm(a, 2)[0, 0, 0].numpy(),
                               [-7.9809, -6.9874, -5.9919, -4.9955], atol=1e-4)
    np.testing.assert_allclose(F.lp_pool2d(a, 2, 2)[0, 0].numpy(),
                               [[11.6619, 8.0], [6.3246, 9.798]], atol=1e-4)


@pytest.mark.parametrize("call, dtype, message", [
    (lambda a: F.avg_pool2d(a, 2), ng.int32, '"avg_pool2d" not implemented for \'Int\''),
    (lambda a: F.avg_pool3d(a, 2), ng.bool, '"avg_pool3d_out_frame" not implemented for \'Bool\''),
    (lambda a: F.max_pool2d(a, 2), ng.bool, '"max_pool2d" not implemented for \'Bool\''),
    (lambda a: F.max_pool1d(a[0], 2), ng.int64, '"max_pool1d_impl" not implemented for \'Long\''),
    (lambda a: F.adaptive_avg_pool2d(a, 3), ng.int64,
     '"adaptive_avg_pool2d" not implemented for \'Long\''),
    (lambda a: F.adaptive_max_pool1d(a[0], 3), ng.int64,
     '"adaptive_max_pool2d" not implemented for \'Long\''),
    (lambda a: F.adaptive_avg_pool3d(a, 2), ng.int64,
     '"adaptive_avg_pool3d_cpu" not implemented for \'Long\''),
    (lambda a: F.interpolate(a, scale_factor=2), ng.int64,
     '"upsample_nearest2d_channels_last" not implemented for \'Long\''),
    (lambda a: F.interpolate(a[0], scale_factor=2, mode="linear"), ng.int64,
     '"compute_indices_weights_linear" not implemented for \'Long\''),
    (lambda a: F.interpolate(a, size=2, mode="bicubic", antialias=True), ng.int64,
     '"compute_index_ranges_weights" not implemented for \'Long\''),
    (lambda a: F.unfold(a, 2), ng.int32, '"im2col_out_cpu" not implemented for \'Int\''),
    (lambda a: F.max_unpool2d(*F.max_pool2d(a, 2, return_indices=True), 2), ng.int64,
     '"max_unpool2d" not implemented for \'Long\''),
    (lambda a: F.local_response_norm(a, 2), ng.int32,
     '"avg_pool3d_out_frame" not implemented for \'Int\''),
])
def test_layers_refuse_dtypes_their_torch_kernels_lack(call, dtype, message):
    a = ng.tensor(np.arange(-8, 24).reshape(1, 2, 4, 4)).to(dtype)
    with pytest.raises(NotImplementedError) as caught:
        call(a)
    assert str(caught.value) == message
    # torch 2.13 takes these
    assert F.unfold(a.to(ng.bool), 2).dtype == ng.bool


@pytest.mark.parametrize("call, error, message", [
    (lambda a: F.conv2d(a.bool(), ng.ones(2, 2, 3, 3, dtype=ng.bool)), NotImplementedError,
     '"slow_conv2d_cpu" not implemented for \'Bool\''),
    (lambda a: F.conv_transpose2d(a.int(), ng.ones(2, 2, 3, 3, dtype=ng.int32)),
     NotImplementedError, '"slow_conv_transpose2d_out_cpu" not implemented for \'Int\''),
    (lambda a: F.group_norm(a, 1), NotImplementedError,
     '"GroupNormKernelImpl" not implemented for \'Long\''),
    (lambda a: F.batch_norm(a, None, None, training=True), NotImplementedError,
     '"batch_norm" not implemented for \'Long\''),
    (lambda a: F.rms_norm(a, (4,)), NotImplementedError, '"rms_norm" not implemented for \'Long\''),
    (lambda a: F.mse_loss(a, a), NotImplementedError, '"mse_cpu" not implemented for \'Long\''),
    (lambda a: F.huber_loss(a, a), NotImplementedError, '"huber_cpu" not implemented for \'Long\''),
    (lambda a: F.binary_cross_entropy(a, a), NotImplementedError,
     '"binary_cross_entropy" not implemented for \'Long\''),
    (lambda a: F.kl_div(a.float(), a, reduction="sum"), RuntimeError,
     "kl_div: Integral inputs not supported."),
    (lambda a: F.cosine_similarity(a, a), RuntimeError,
     "expected common dtype to be floating point, yet common dtype is Long"),
    (lambda a: F.pdist(a[0, 0]), RuntimeError, "pdist only supports floating-point dtypes"),
    (lambda a: F.dropout(a), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    (lambda a: F.feature_alpha_dropout(a.bool(), 0.5, True), RuntimeError,
     "result type Float can't be cast to the desired output type Long"),
    (lambda a: F.conv_transpose1d(a[0, 0], ng.ones(2, 2, 3, dtype=ng.int64)), RuntimeError,
     "Given transposed=1, weight of size [2, 2, 3], expected input[1, 4, 4] to have 2 channels, "
     "but got 4 channels instead"),
])
def test_integer_inputs_meet_torchs_refusals(call, error, message):
    with pytest.raises(error) as caught:
        call(ng.tensor(np.arange(-8, 24).reshape(1, 2, 4, 4)))
    assert str(caught.value) == message


def test_integer_inputs_torch_takes():
    a = ng.tensor(np.arange(-8, 24).reshape(1, 2, 4, 4))
    # torch 2.13: the float eps promotes the difference; a float operand promotes the other
    assert F.pairwise_distance(a, a).dtype == ng.float32
    assert F.cosine_similarity(a, a.double()).dtype == ng.float64
    assert F.dropout(a, 1.0).dtype == ng.int64 and F.dropout(a, training=False) is a


# ---- mixed float dtypes -------------------------------------------------------------------------
def _norm_with(module, weight_dtype, bias_dtype):
    module.weight.data = module.weight.data.to(weight_dtype)
    module.bias.data = module.bias.data.to(bias_dtype)
    return module


@pytest.mark.parametrize("weight, bias, input, message", [
    # torch 2.13: a first parameter of another dtype than the input's is "mixed dtype", whose
    # parameters must be float32 (and the input a reduced float); otherwise the kernel's read of
    # a parameter of another dtype fails
    (ng.float32, ng.float64, ng.float32, "expected scalar type Float but found Double"),
    (ng.float32, ng.float64, ng.float64,
     "mixed dtype (CPU): expect parameter to have scalar type of Float"),
    (ng.float64, ng.float64, ng.float32,
     "mixed dtype (CPU): expect parameter to have scalar type of Float"),
    (ng.float32, ng.float32, ng.float64, "mixed dtype (CPU): all inputs must share same datatype."),
])
def test_normalisations_refuse_mixed_dtypes_in_torch_words(weight, bias, input, message):
    for module in (ng.nn.LayerNorm(4), ng.nn.GroupNorm(2, 4), ng.nn.BatchNorm1d(4)):
        with pytest.raises(RuntimeError) as caught:
            _norm_with(module, weight, bias)(ng.ones(2, 4, dtype=input))
        assert str(caught.value) == message


def test_mixed_dtype_layers_as_torch():
    # torch 2.13: rms_norm keeps the input's dtype (a cast after the weight's product)
    out = ng.nn.RMSNorm(4).double()(ng.ones(2, 4, requires_grad=True))
    assert out.dtype == ng.float32 and out.grad_fn.name() == "ToCopyBackward0"
    with pytest.raises(RuntimeError, match=r"^expected scalar type Float but found Double$"):
        ng.nn.ConvTranspose2d(2, 3, 3).double()(ng.ones(1, 2, 3, 3))
    with pytest.raises(RuntimeError, match=r"^All tensors must have the same dtype, got input1: "
                                           r"float, input2: float, weight: double, bias: double$"):
        bilinear = ng.nn.Bilinear(4, 4, 2).double()
        bilinear(ng.ones(2, 4), ng.ones(2, 4))


_WHERE = "(while checking arguments for ctc_loss_allocate_outputs)"


@pytest.mark.parametrize("call, error, message", [
    (lambda x, lp: F.ctc_loss(lp, ng.tensor([[1, 2]]), ng.tensor([3]), ng.tensor([3])),
     RuntimeError, "Expected tensor to have size at least 3 at dimension 1, but got size 2 for "
     f"argument #2 'targets' {_WHERE}"),
    (lambda x, lp: F.ctc_loss(lp, ng.tensor([[1, 2]]), ng.tensor([4]), ng.tensor([2])),
     RuntimeError, f"Expected input_lengths to have value at most 3, but got value 4 {_WHERE}"),
    (lambda x, lp: F.ctc_loss(lp, ng.tensor([1, 2, 3]), ng.tensor([3]), ng.tensor([2])),
     RuntimeError, "Expected tensor to have size 2 at dimension 0, but got size 3 for argument #2 "
     f"'targets' {_WHERE}"),
    (lambda x, lp: F.cosine_embedding_loss(x, x, ng.ones(3, 1)), RuntimeError,
     "0D or 1D target tensor expected, multi-target not supported"),
    (lambda x, lp: F.cosine_embedding_loss(x[0], x[0], ng.ones(3)), RuntimeError,
     "1D target tensor expects 2D input tensors, but found inputs with sizes [4] and [4]."),
    (lambda x, lp: F.multi_margin_loss(x, ng.tensor([0, 1, 2]), weight=ng.ones(5)), RuntimeError,
     "inconsistent weight size, expected 4 but got [5]"),
    (lambda x, lp: F.soft_margin_loss(x, ng.ones(2, 4)), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
    (lambda x, lp: F.nll_loss(x[0], ng.tensor([1, 2, 0])), ValueError,
     "For 1D input, 1D target must have size 1, but got target size: 3"),
])
def test_loss_refusals_in_torch_words(call, error, message):
    x = ng.tensor(np.arange(12.).reshape(3, 4))
    with pytest.raises(error) as caught:
        call(x, x.log_softmax(1)[:, None])
    assert str(caught.value) == message


def test_attention_weights_path_refuses_a_mask_of_another_dtype():
    attention = ng.nn.MultiheadAttention(4, 2).double()
    x = ng.zeros(3, 2, 4, dtype=ng.float64)
    # torch 2.13: baddbmm adds the float32 mask to float64 scores and promotes nothing
    with pytest.raises(RuntimeError, match=r"^Input dtypes must be the same, got: input float, "
                                           r"batch1: double, batch2: double$"):
        attention(x, x, x, attn_mask=ng.zeros(3, 3))
    # without weights, sdpa takes it
    assert attention(x, x, x, attn_mask=ng.zeros(3, 3), need_weights=False)[0].shape == (3, 2, 4)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: ng.nn.LSTM(3, 4)(x, ng.zeros(1, 2, 4)), IndexError,
     "index 1 is out of bounds for dimension 0 with size 1"),
    (lambda x: ng.nn.LSTM(3, 4)(x, (ng.zeros(1, 2, 4),)), IndexError, "tuple index out of range"),
    (lambda x: ng.nn.LSTMCell(3, 4)(x[0], (ng.zeros(2, 4),)), RuntimeError,
     "lstm_cell expects two hidden states"),
    (lambda x: ng.nn.LSTMCell(3, 4)(x[0], ng.zeros(2, 4)), TypeError,
     "lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not Tensor"),
])
def test_lstm_states_refused_as_torch(call, error, message):
    with pytest.raises(error) as caught:
        call(ng.zeros(5, 2, 3))
    assert str(caught.value) == message      # torch 2.13


# ---- grid_sample: bicubic and volumes -----------------------------------------------------------
def test_grid_sample_bicubic_moves_each_tap_by_the_padding_mode():
    image = ng.arange(12., dtype=ng.float64).reshape(1, 1, 3, 4).requires_grad_()
    grid = (ng.arange(8., dtype=ng.float64).reshape(1, 2, 2, 2) * 0.37 - 1.3).requires_grad_()
    out = F.grid_sample(image, grid, mode="bicubic", padding_mode="border", align_corners=False)
    (out * ng.tensor([1., 2., 3., 4.], dtype=ng.float64).reshape(1, 1, 2, 2)).sum().backward()
    # torch 2.13
    assert out.grad_fn.name() == "GridSampler2DBackward0"
    np.testing.assert_allclose(out.detach().numpy().ravel(), [-0.4337, 2.8092, 9.2863, 11.1229],
                               atol=1e-4)
    np.testing.assert_allclose(image.grad.numpy().ravel(), [
        1.4428, 0.2204, -0.0899, 0.0044, 0.9583, 0.7998, 0.3783, -0.0529, -0.1708, 0.2387,
        2.0109, 4.2598], atol=1e-4)
    np.testing.assert_allclose(grid.grad.numpy().ravel(), [
        0.0, -0.5037, 3.4332, 13.601, 6.8328, 13.9134, -0.0792, -2.1118], atol=1e-4)


def test_grid_sample_reads_volumes_trilinearly():
    volume = ng.arange(24., dtype=ng.float64).reshape(1, 1, 2, 3, 4).requires_grad_()
    grid = (ng.arange(12., dtype=ng.float64).reshape(1, 1, 2, 2, 3) * 0.41 - 1.7).requires_grad_()
    out = F.grid_sample(volume, grid, padding_mode="reflection", align_corners=True)
    out.pow(2).sum().backward()
    # torch 2.13
    assert out.grad_fn.name() == "GridSampler3DBackward0"
    np.testing.assert_allclose(out.detach().numpy().ravel(), [2.93, 12.655, 18.48, 5.055],
                               atol=1e-4)
    np.testing.assert_allclose(volume.grad.numpy().ravel()[:8], [
        0.1012, 5.8828, 2.0804, 0.0, 1.5851, 10.3272, 3.563, 1.1662], atol=1e-4)
    np.testing.assert_allclose(grid.grad.numpy().ravel(), [
        -8.79, -23.44, 35.16, 37.965, 101.24, 151.86, 55.44, -147.84, -221.76, -15.165, -40.44,
        -60.66], atol=1e-3)


@pytest.mark.parametrize("input_shape, grid_shape, mode, message", [
    ((2, 3, 4, 5, 6), (2, 3, 6, 2, 3), "bicubic",
     "grid_sampler(): bicubic interpolation only supports 4D input"),
    ((2, 3, 4, 5, 6), (2, 3, 6, 2, 2), "bilinear",
     "grid_sampler(): expected grid to have size 3 in last dimension, but got grid with sizes "
     "[2, 3, 6, 2, 2]"),
    ((2, 3, 4, 5), (2, 3, 6, 2, 2), "bilinear",
     "grid_sampler(): expected 4D input and grid with same number of dimensions, but got input "
     "with sizes [2, 3, 4, 5] and grid with sizes [2, 3, 6, 2, 2]"),
    ((2, 3, 0, 5), (2, 3, 6, 2), "bilinear",
     "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes "
     "[2, 3, 0, 5] with dimension 2 being empty"),
])
def test_grid_sample_refusals_in_torch_order(input_shape, grid_shape, mode, message):
    with pytest.raises(RuntimeError) as caught:
        F.grid_sample(ng.ones(*input_shape), ng.ones(*grid_shape), mode=mode, align_corners=False)
    assert str(caught.value) == message


def test_affine_grid_is_one_node_over_theta():
    theta = ng.tensor([[[1., 0., 0.], [0., 1., 0.]]], requires_grad=True)
    grid = F.affine_grid(theta, (1, 1, 2, 3), align_corners=False)
    assert _nodes(grid) == ("AffineGridGeneratorBackward0", ["torch::autograd::AccumulateGrad"])


def test_prelu_of_a_vector_uses_the_weight_as_given():
    weight = ng.tensor([0.25], requires_grad=True)
    out = F.prelu(ng.tensor([-1., 2.], requires_grad=True), weight)
    # torch 2.13: no view of the weight for a 1-D input
    assert _nodes(out) == ("PreluKernelBackward0", ["torch::autograd::AccumulateGrad",
                                                    "torch::autograd::AccumulateGrad"])
    assert out.tolist() == [-0.25, 2.0]
