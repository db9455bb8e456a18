"""Composites carry torch's node: the name torch's single op has, and the version checks of the
inputs torch saves (Note [named composites] in ops/named.py). Names and checked inputs are
torch 2.13's for the same calls."""
import numpy as np
import pytest

import numgrad as ng
from numgrad.autograd import gradcheck, gradgradcheck

F = ng.nn.functional
A = np.random.default_rng(0).uniform(0.2, 0.9, (3, 4))
B = np.random.default_rng(1).uniform(0.2, 0.9, (3, 4))
TARGET = [0, 1, 2]

# call, torch's node name, per tensor argument: does changing it in place make backward raise
CASES = {
    "mse_loss": (lambda x, y: F.mse_loss(x, y), "MseLossBackward0", [True, True]),
    "smooth_l1_loss": (lambda x, y: F.smooth_l1_loss(x, y), "SmoothL1LossBackward0", [True, True]),
    "huber_loss": (lambda x, y: F.huber_loss(x, y), "HuberLossBackward0", [True, True]),
    "binary_cross_entropy": (lambda x, y: F.binary_cross_entropy(x, y),
                             "BinaryCrossEntropyBackward0", [True, True]),
    "binary_cross_entropy_with_logits": (lambda x, y: F.binary_cross_entropy_with_logits(x, y),
                                         "BinaryCrossEntropyWithLogitsBackward0", [True, True]),
    "soft_margin_loss": (lambda x, y: F.soft_margin_loss(x, y.detach()),
                         "SoftMarginLossBackward0", [True, True]),
    "nll_loss": (lambda x, y: F.nll_loss(x, ng.tensor(TARGET)), "NllLossBackward0", [True]),
    "multi_margin_loss": (lambda x, y: F.multi_margin_loss(x, ng.tensor(TARGET)),
                          "MultiMarginLossBackward0", [True]),
    "layer_norm": (lambda x, y: F.layer_norm(x, (4,), y[0], y[1]), "NativeLayerNormBackward0",
                   [True, True]),
    "group_norm": (lambda x, y: F.group_norm(x, 2), "NativeGroupNormBackward0", [True]),
    "batch_norm": (lambda x, y: F.batch_norm(x, None, None, training=True),
                   "NativeBatchNormBackward0", [True]),
    "hardtanh": (lambda x, y: F.hardtanh(x), "HardtanhBackward0", [True]),
    "relu6": (lambda x, y: F.relu6(x), "HardtanhBackward0", [True]),
    "logsigmoid": (lambda x, y: F.logsigmoid(x), "LogSigmoidBackward0", [True]),
    "mish": (lambda x, y: F.mish(x), "MishBackward0", [True]),
    "hardswish": (lambda x, y: F.hardswish(x), "HardswishBackward0", [True]),
    "hardsigmoid": (lambda x, y: F.hardsigmoid(x), "HardsigmoidBackward0", [True]),
    "glu": (lambda x, y: F.glu(x), "GluBackward0", [True]),
    "selu": (lambda x, y: F.selu(x), "EluBackward0", [True]),
    "celu": (lambda x, y: F.celu(x), "CeluBackward0", [True]),
    "softshrink": (lambda x, y: F.softshrink(x, 0.5), "SoftshrinkBackward0", [True]),
    "hardshrink": (lambda x, y: F.hardshrink(x, 0.5), "HardshrinkBackward0", [True]),
    "threshold": (lambda x, y: F.threshold(x, 0.5, 0.), "ThresholdBackward0", [True]),
    "prelu": (lambda x, y: F.prelu(x, y[0, :1]), "PreluKernelBackward0", [True, True]),
    "interpolate": (lambda x, y: F.interpolate(x[None], scale_factor=2),
                    "UpsampleNearest1DBackward0", None),
    "pixel_shuffle": (lambda x, y: F.pixel_shuffle(x.reshape(1, 4, 3, 1), 2),
                      "PixelShuffleBackward0", [False]),
    "addmm": (lambda x, y: ng.addmm(x[:, :3], x, y.T), "AddmmBackward0", [True, True]),
    "baddbmm": (lambda x, y: ng.baddbmm(x[None, :, :3], x[None], y.T[None]), "BaddbmmBackward0",
                [True, True]),
    "trace": (lambda x, y: x[:, :3].trace(), "TraceBackward0", [False]),
    "tril": (lambda x, y: x.tril(), "TrilBackward0", [False]),
    "roll": (lambda x, y: x.roll(1, 0), "RollBackward0", [False]),
    "dist": (lambda x, y: ng.dist(x, y), "DistBackward0", [True, True]),
    "cdist": (lambda x, y: ng.cdist(x, y), "CdistBackward0", [True, True]),
    "masked_select": (lambda x, y: x.masked_select(y.detach() > 0.5), "MaskedSelectBackward0",
                      [True]),
    "take": (lambda x, y: x.take(ng.tensor([0, 5])), "TakeBackward0", [True]),
    "index_copy": (lambda x, y: x.index_copy(0, ng.tensor([0, 2]), y[:2]), "IndexCopyBackward0",
                   [False, True]),
    "nansum": (lambda x, y: x.nansum(), "NansumBackward0", [True]),
    "mvlgamma": (lambda x, y: ng.mvlgamma(x + 2, 2), "MvlgammaBackward0", [False]),
    "embedding": (lambda x, y: F.embedding(ng.tensor([0, 2]), x), "EmbeddingBackward0", [False]),
    "pad_reflect": (lambda x, y: F.pad(x, (1, 1), mode="reflect"), "ReflectionPad1DBackward0",
                    [True]),
    "pad_replicate": (lambda x, y: F.pad(x[None], (1, 1, 1, 1), mode="replicate"),
                      "ReplicationPad2DBackward0", [True]),
    "conv1d": (lambda x, y: F.conv1d(x[None], y[:, None, :2].expand(3, 3, 2).contiguous()),
               "ConvolutionBackward0", [True, False]),
    "conv_transpose2d": (lambda x, y: F.conv_transpose2d(x[None, None], y[None, None, :2, :2]),
                         "ConvolutionBackward0", None),
    "max_pool2d": (lambda x, y: F.max_pool2d(x[None], 2), "MaxPool2DWithIndicesBackward0", None),
    "avg_pool2d": (lambda x, y: F.avg_pool2d(x[None], 2), "AvgPool2DBackward0", None),
    "adaptive_avg_pool2d": (lambda x, y: F.adaptive_avg_pool2d(x[None], 2),
                            "AdaptiveAvgPool2DBackward0", None),
    "adaptive_max_pool2d": (lambda x, y: F.adaptive_max_pool2d(x[None], 2),
                            "AdaptiveMaxPool2DBackward0", None),
    "unfold": (lambda x, y: F.unfold(x[None], 2), "Im2ColBackward0", None),
}

# What torch's node lists in next_functions for the same calls: its op's differentiable inputs
# (None where one is absent or needs no gradient), not the primitives numgrad computes with.
NEXT_FUNCTIONS = {
    "mse_loss": ("AccumulateGrad", "AccumulateGrad"),
    "smooth_l1_loss": ("AccumulateGrad", "AccumulateGrad"),
    "huber_loss": ("AccumulateGrad", "AccumulateGrad"),
    "binary_cross_entropy": ("AccumulateGrad", "AccumulateGrad"),
    "binary_cross_entropy_with_logits": ("AccumulateGrad", "AccumulateGrad"),
    "soft_margin_loss": ("AccumulateGrad",),
    "nll_loss": ("AccumulateGrad",),
    "multi_margin_loss": ("AccumulateGrad",),
    "layer_norm": ("AccumulateGrad", "SelectBackward0", "SelectBackward0"),
    "group_norm": ("AccumulateGrad", None, None),
    "batch_norm": ("AccumulateGrad", None, None),
    "hardtanh": ("AccumulateGrad",),
    "prelu": ("AccumulateGrad", "ViewBackward0"),
    "interpolate": ("UnsqueezeBackward0",),
    "pixel_shuffle": ("ViewBackward0",),
    "addmm": ("SliceBackward0", "AccumulateGrad", "PermuteBackward0"),
    "baddbmm": ("SliceBackward0", "UnsqueezeBackward0", "UnsqueezeBackward0"),
    "trace": ("SliceBackward0",),
    "tril": ("AccumulateGrad",),
    "roll": ("AccumulateGrad",),
    "dist": ("AccumulateGrad", "AccumulateGrad"),
    "take": ("AccumulateGrad",),
    "index_copy": ("AccumulateGrad", "SliceBackward0"),
    "mvlgamma": ("AddBackward0",),
    "embedding": ("AccumulateGrad",),
    "pad_reflect": ("AccumulateGrad",),
    "pad_replicate": ("UnsqueezeBackward0",),
    "conv1d": ("UnsqueezeBackward0", "CloneBackward0", None),
    "conv_transpose2d": ("UnsqueezeBackward0", "SliceBackward0", None),
    "max_pool2d": ("UnsqueezeBackward0",),
    "avg_pool2d": ("UnsqueezeBackward0",),
    "adaptive_avg_pool2d": ("UnsqueezeBackward0",),
    "adaptive_max_pool2d": ("UnsqueezeBackward0",),
    "unfold": ("UnsqueezeBackward0",),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_torchs_node_name(name):
    call, node, _ = CASES[name]
    x = ng.tensor(A, requires_grad=True)
    y = ng.tensor(B, requires_grad=True)
    assert call(x, y).grad_fn.name() == node


@pytest.mark.parametrize("name", sorted(NEXT_FUNCTIONS))
def test_next_functions_lists_the_inputs_of_torchs_op(name):
    x = ng.tensor(A, requires_grad=True)
    y = ng.tensor(B, requires_grad=True)
    node = CASES[name][0](x, y).grad_fn
    shown = tuple(None if f is None else f.name().replace("torch::autograd::", "")
                  for f, _ in node.next_functions)
    assert shown == NEXT_FUNCTIONS[name]
    leaves = [f.variable for f, _ in node.next_functions
              if f is not None and f.name().endswith("AccumulateGrad")]
    assert all(leaf is x or leaf is y for leaf in leaves)


def test_a_hook_on_a_convolution_without_bias_sees_torchs_three_inputs():
    x = ng.tensor(A.reshape(1, 1, 3, 4), requires_grad=True)
    w = ng.tensor(B[:2, :2].reshape(1, 1, 2, 2), requires_grad=True)
    seen = []
    out = F.conv2d(x, w)
    out.grad_fn.register_hook(lambda grad_inputs, grad_outputs: seen.append(
        [None if g is None else tuple(g.shape) for g in grad_inputs]))
    out.sum().backward()
    assert seen == [[(1, 1, 3, 4), (1, 1, 2, 2), None]]
    np.testing.assert_allclose(w.grad.numpy().ravel(),
                               [A[:2, :3].sum(), A[:2, 1:].sum(), A[1:, :3].sum(), A[1:, 1:].sum()],
                               rtol=1e-6)


@pytest.mark.parametrize("name", sorted(n for n in CASES if CASES[n][2] is not None))
def test_changing_a_saved_input_in_place_is_the_version_error_where_torchs_is(name):
    call, _, checked = CASES[name]
    for k, expected in enumerate(checked):
        x = ng.tensor(A, requires_grad=True) * 1
        y = ng.tensor(B, requires_grad=True) * 1
        result = call(x, y)
        with ng.no_grad():
            (x, y)[k].mul_(1.0)
        if expected:
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                result.sum().backward()
        else:
            result.sum().backward()


def test_the_named_node_passes_the_gradient_through_unchanged():
    x = ng.tensor(A, dtype=ng.float64, requires_grad=True)
    y = ng.tensor(B, dtype=ng.float64)
    assert gradcheck(lambda a: F.mse_loss(a, y), (x,))
    assert gradgradcheck(lambda a: F.layer_norm(a, (4,)), (x,))
    loss = F.mse_loss(x, y)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (A - B) / A.size, rtol=1e-12)


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_named_results_keep_dtype_and_need_no_grad_without_inputs_that_do(dtype):
    x = ng.tensor(A, dtype=dtype)
    out = F.mse_loss(x, ng.tensor(B, dtype=dtype))
    assert out.grad_fn is None and out.dtype == dtype
    with ng.no_grad():
        assert F.hardtanh(ng.tensor(A, dtype=dtype, requires_grad=True)).grad_fn is None


def test_non_constant_padding_takes_torchs_combinations_of_size_and_dims():
    with pytest.raises(NotImplementedError, match="Padding size 2 is not supported for 4D input "
                                                  "tensor"):
        F.pad(ng.ones(1, 2, 4, 4), (1, 1), mode="reflect")
