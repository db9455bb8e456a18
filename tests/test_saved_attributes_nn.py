"""grad_fn._saved_<name> for the non-tensor arguments of elementwise ops with scalars and of the nn
functions: what torch 2.13's nodes show (its values written here as literals). torch keeps a
Scalar argument's Python type (pow(2) shows 2, pow(2.5) 2.5), a float argument as float, None for
an absent optional one, and int64 arguments (dim, ignore_index, padding_idx) as uint64, so that
-1 reads 2**64 - 1."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F

MINUS_ONE = 2 ** 64 - 1          # an int64 -1 as torch's node reads it back
MINUS_HUNDRED = 2 ** 64 - 100    # cross_entropy's and nll_loss's default ignore_index


def leaf():
    return ng.tensor([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]], requires_grad=True)


def shown(fn, *names):
    """The node's attributes `names`, as torch's types keep them (2 is not 2.0)."""
    return tuple((type(v), v) for v in (getattr(fn, "_saved_" + n) for n in names))


def typed(*values):
    return tuple((type(v), v) for v in values)


# ---- pow ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("make, exponent", [
    (lambda x: x.pow(2), 2), (lambda x: x ** 2.5, 2.5), (lambda x: x ** -1, -1),
    (lambda x: x ** 0.5, 0.5), (lambda x: x.square(), 2), (lambda x: ng.pow(x, 3), 3),
    (lambda x: x ** True, True), (lambda x: x ** np.float64(2.0), 2.0),
    (lambda x: (x * 1).pow_(2), 2), (lambda x: (x * 1).square_(), 2),
    (lambda x: ng.float_power(x, 2), 2.0), (lambda x: ng.float_power(x, True), 1.0),
])
def test_pow_shows_the_exponent_as_given(make, exponent):
    y = make(leaf())
    assert y.grad_fn.name() == "PowBackward0"
    assert shown(y.grad_fn, "exponent") == typed(exponent)


def test_a_scalar_base_is_shown_as_self():
    x = leaf()
    for y, base in ((2 ** x, 2), (2.5 ** x, 2.5), (ng.pow(3, x), 3), (ng.float_power(2, x), 2.0)):
        assert y.grad_fn.name() == "PowBackward2"
        assert shown(y.grad_fn, "self") == typed(base)


def test_a_zero_dim_power_on_the_scalar_path_shows_it_too():
    a = ng.tensor(2.0, requires_grad=True)
    assert shown((a ** 3).grad_fn, "exponent") == typed(3)


# ---- clamp --------------------------------------------------------------------------------------
@pytest.mark.parametrize("make, bounds", [
    (lambda x: x.clamp(0, 3), (0, 3)), (lambda x: x.clamp(0.0, 3.0), (0.0, 3.0)),
    (lambda x: x.clamp(min=1), (1, None)), (lambda x: x.clamp(max=2.5), (None, 2.5)),
    (lambda x: x.clip(-1, -0.5), (-1, -0.5)), (lambda x: x.clip(min=1.0), (1.0, None)),
    (lambda x: x.clamp(True, 3), (True, 3)), (lambda x: (x * 1).clamp_(0, 3), (0, 3)),
    (lambda x: x.clamp(np.float32(1.0)), (1.0, None)),
])
def test_clamp_shows_its_bounds_none_where_not_given(make, bounds):
    y = make(leaf())
    assert y.grad_fn.name() == "ClampBackward1"
    assert shown(y.grad_fn, "min", "max") == typed(*bounds)


def test_clamp_min_and_clamp_max_show_their_one_bound():
    x = leaf()
    assert x.clamp_min(1).grad_fn.name() == "ClampMinBackward0"
    assert shown(x.clamp_min(1).grad_fn, "min") == typed(1)
    assert shown((x * 1).clamp_min_(0.5).grad_fn, "min") == typed(0.5)
    assert shown(x.clamp_max(2).grad_fn, "max") == typed(2)
    with pytest.raises(AttributeError):
        x.clamp_min(1).grad_fn._saved_max


# ---- softmax ------------------------------------------------------------------------------------
@pytest.mark.parametrize("make, name, dim", [
    (lambda x: x.softmax(1), "SoftmaxBackward0", 1),
    (lambda x: x.softmax(-1), "SoftmaxBackward0", MINUS_ONE),
    (lambda x: x.log_softmax(-1), "LogSoftmaxBackward0", MINUS_ONE),
    (lambda x: F.softmax(x, dim=0), "SoftmaxBackward0", 0),
    (lambda x: F.log_softmax(x, 0, dtype=ng.float64), "LogSoftmaxBackward0", 0),
    (lambda x: F.softmin(x, 1), "SoftmaxBackward0", 1),
    (lambda x: ng.softmax(x, -2), "SoftmaxBackward0", 2 ** 64 - 2),
])
def test_softmax_shows_the_dim_as_given(make, name, dim):
    y = make(leaf())
    assert y.grad_fn.name() == name
    assert shown(y.grad_fn, "dim") == typed(dim)


def test_softmax_without_a_dim_shows_the_one_torch_chose():
    with pytest.warns(UserWarning, match="Implicit dimension"):
        y = F.log_softmax(leaf())
    assert shown(y.grad_fn, "dim") == typed(1)


# ---- activations --------------------------------------------------------------------------------
SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805


@pytest.mark.parametrize("make, name, attributes", [
    (lambda x: F.leaky_relu(x), "LeakyReluBackward0", {"negative_slope": 0.01}),
    (lambda x: F.leaky_relu(x, 1), "LeakyReluBackward0", {"negative_slope": 1}),
    (lambda x: F.leaky_relu(x * 1, 0.2, inplace=True), "LeakyReluBackward1",
     {"negative_slope": 0.2}),
    (lambda x: F.elu(x, 0.5), "EluBackward0", {"alpha": 0.5, "scale": 1, "input_scale": 1}),
    (lambda x: F.elu(x, 2), "EluBackward0", {"alpha": 2, "scale": 1, "input_scale": 1}),
    (lambda x: F.elu(x * 1, inplace=True), "EluBackward1",
     {"alpha": 1.0, "scale": 1, "input_scale": 1}),
    (lambda x: F.selu(x), "EluBackward0",
     {"alpha": SELU_ALPHA, "scale": SELU_SCALE, "input_scale": 1}),
    (lambda x: F.selu(x * 1, inplace=True), "EluBackward1",
     {"alpha": SELU_ALPHA, "scale": SELU_SCALE, "input_scale": 1}),
    (lambda x: F.celu(x), "CeluBackward0", {"alpha": 1.0}),
    (lambda x: F.celu(x * 1, 0.5, inplace=True), "CeluBackward1", {"alpha": 0.5}),
    (lambda x: F.hardtanh(x), "HardtanhBackward0", {"min_val": -1.0, "max_val": 1.0}),
    (lambda x: F.hardtanh(x, -1, 2), "HardtanhBackward0", {"min_val": -1, "max_val": 2}),
    (lambda x: F.relu6(x), "HardtanhBackward0", {"min_val": 0, "max_val": 6}),
    (lambda x: F.relu6(x * 1, inplace=True), "HardtanhBackward0", {"min_val": 0, "max_val": 6}),
    (lambda x: ng.nn.ReLU6()(x), "HardtanhBackward0", {"min_val": 0.0, "max_val": 6.0}),
    (lambda x: F.softplus(x), "SoftplusBackward0", {"beta": 1, "threshold": 20}),
    (lambda x: F.softplus(x, 2.0, 10.0), "SoftplusBackward0", {"beta": 2.0, "threshold": 10.0}),
    (lambda x: F.softplus(x, beta=0.5), "SoftplusBackward0", {"beta": 0.5, "threshold": 20}),
    (lambda x: ng.nn.Softplus()(x), "SoftplusBackward0", {"beta": 1.0, "threshold": 20.0}),
    (lambda x: F.threshold(x, 1.5, 0.0), "ThresholdBackward0", {"threshold": 1.5}),
    (lambda x: F.threshold(x * 1, 1, 0, inplace=True), "ThresholdBackward1", {"threshold": 1}),
    (lambda x: F.gelu(x), "GeluBackward0", {"approximate": "none"}),
    (lambda x: F.gelu(x, approximate="tanh"), "GeluBackward0", {"approximate": "tanh"}),
    (lambda x: F.glu(x[:, :2], 1), "GluBackward0", {"dim": 1}),
    (lambda x: F.glu(x[:, :2]), "GluBackward0", {"dim": MINUS_ONE}),
    (lambda x: F.glu(x[:, :2], -1), "GluBackward0", {"dim": MINUS_ONE}),
    (lambda x: F.glu(x[:2], 0), "GluBackward0", {"dim": 0}),
    (lambda x: F.softshrink(x), "SoftshrinkBackward0", {"lambd": 0.5}),
    (lambda x: F.hardshrink(x, 1), "HardshrinkBackward0", {"lambd": 1}),
    (lambda x: F.rrelu(x, training=False), "RreluWithNoiseBackward0",
     {"lower": 0.125, "upper": 1.0 / 3, "training": False}),
    (lambda x: F.rrelu(x, 0, 1, training=True), "RreluWithNoiseBackward0",
     {"lower": 0, "upper": 1, "training": True}),
    (lambda x: F.rrelu(x * 1, 0.1, 0.2, inplace=True), "RreluWithNoiseBackward1",
     {"lower": 0.1, "upper": 0.2, "training": False}),
])
def test_activations_show_their_arguments(make, name, attributes):
    y = make(leaf())
    assert y.grad_fn.name() == name
    assert shown(y.grad_fn, *attributes) == typed(*attributes.values())


def test_rrelu_in_place_shows_none_of_leaky_relus_arguments():
    y = F.rrelu(leaf() * 1, training=False, inplace=True)
    with pytest.raises(AttributeError):
        y.grad_fn._saved_negative_slope


# ---- other elementwise ops with scalar arguments -------------------------------------------------
@pytest.mark.parametrize("make, name, attributes", [
    (lambda x: ng.lerp(x, x * 2, 0.3), "LerpBackward0", {"weight": 0.3}),
    (lambda x: ng.lerp(x, x * 2, 1), "LerpBackward0", {"weight": 1}),
    (lambda x: (x * 1).lerp_(x, np.float64(0.5)), "LerpBackward0", {"weight": 0.5}),
    (lambda x: ng.addcmul(x, x, x), "AddcmulBackward0", {"value": 1}),
    (lambda x: ng.addcmul(x, x, x, value=0.5), "AddcmulBackward0", {"value": 0.5}),
    (lambda x: ng.addcdiv(x, x, x, value=2), "AddcdivBackward0", {"value": 2}),
    (lambda x: (x / 10).logit(), "LogitBackward0", {"eps": None}),
    (lambda x: (x / 10).logit(1e-6), "LogitBackward0", {"eps": 1e-6}),
    (lambda x: (x / 10).logit(0), "LogitBackward0", {"eps": 0.0}),
    (lambda x: ng.polygamma(1, x), "PolygammaBackward0", {"n": 1}),
    (lambda x: x.polygamma(0), "PolygammaBackward0", {"n": 0}),
    (lambda x: ng.mvlgamma(x + 2, 3), "MvlgammaBackward0", {"p": 3}),
])
def test_elementwise_ops_show_their_scalar_arguments(make, name, attributes):
    y = make(leaf())
    assert y.grad_fn.name() == name
    assert shown(y.grad_fn, *attributes) == typed(*attributes.values())


# ---- losses -------------------------------------------------------------------------------------
def test_the_reduction_is_torchs_int():
    x = leaf()
    target = x.detach() * 2
    for reduction, code in (("none", 0), ("mean", 1), ("sum", 2)):
        assert shown(F.mse_loss(x, target, reduction=reduction).grad_fn, "reduction") == \
            typed(code)
    with pytest.warns(UserWarning):
        legacy = F.mse_loss(x, target, size_average=False)
    assert shown(legacy.grad_fn, "reduction") == typed(2)


def test_smooth_l1_and_huber_show_float_beta_and_delta():
    x = leaf()
    target = x.detach() * 2
    for beta, expected in ((0.5, 0.5), (1, 1.0)):
        y = F.smooth_l1_loss(x, target, beta=beta)
        assert y.grad_fn.name() == "SmoothL1LossBackward0"
        assert shown(y.grad_fn, "beta", "reduction") == typed(expected, 1)
    y = F.huber_loss(x, target, delta=2)
    assert shown(y.grad_fn, "delta", "reduction") == typed(2.0, 1)
    y = F.huber_loss(x, target, reduction="sum")
    assert shown(y.grad_fn, "delta", "reduction") == typed(1.0, 2)
    with pytest.raises(ValueError, match="bad is not a valid value for reduction"):
        F.huber_loss(x, target, reduction="bad")


@pytest.mark.parametrize("loss", [F.nll_loss, F.cross_entropy])
def test_nll_and_cross_entropy_show_ignore_index_reduction_and_no_weight(loss):
    x = leaf()
    target = ng.tensor([0, 2])
    y = loss(x, target)
    assert y.grad_fn.name() == "NllLossBackward0"
    assert shown(y.grad_fn, "ignore_index", "reduction", "weight") == \
        typed(MINUS_HUNDRED, 1, None)
    y = loss(x, target, ignore_index=1, reduction="sum")
    assert shown(y.grad_fn, "ignore_index", "reduction") == typed(1, 2)
    y = loss(x, target, reduction="none")
    assert y.grad_fn.name() == "NllLossBackward0"
    assert shown(y.grad_fn, "ignore_index", "reduction") == typed(MINUS_HUNDRED, 0)


def test_cross_entropys_log_softmax_shows_the_class_dim():
    x = leaf()
    y = F.cross_entropy(x, ng.tensor([0, 2]))
    log_softmax = y.grad_fn.next_functions[0][0]
    assert log_softmax.name() == "LogSoftmaxBackward0"
    assert shown(log_softmax, "dim") == typed(1)
    spatial = F.cross_entropy(x[None].permute(1, 2, 0), ng.tensor([[0], [2]]))
    assert spatial.grad_fn.name() == "NllLoss2DBackward0"
    assert shown(spatial.grad_fn, "ignore_index", "reduction", "weight") == \
        typed(MINUS_HUNDRED, 1, None)


def test_binary_cross_entropies_show_reduction_and_absent_weights():
    x = leaf()
    p, t = x.sigmoid(), x.detach().sigmoid()
    y = F.binary_cross_entropy(p, t)
    assert shown(y.grad_fn, "reduction", "weight") == typed(1, None)
    y = F.binary_cross_entropy(p, t, reduction="none")
    assert shown(y.grad_fn, "reduction") == typed(0)
    y = F.binary_cross_entropy_with_logits(x, t)
    assert shown(y.grad_fn, "reduction", "weight", "pos_weight") == typed(1, None, None)
    y = F.binary_cross_entropy_with_logits(x, t, pos_weight=ng.ones(3), reduction="sum")
    assert shown(y.grad_fn, "reduction", "weight") == typed(2, None)


# ---- layer_norm, embedding ----------------------------------------------------------------------
def test_layer_norm_shows_the_normalized_shape_and_absent_parameters():
    x = leaf()
    y = F.layer_norm(x, (3,))
    assert y.grad_fn.name() == "NativeLayerNormBackward0"
    assert shown(y.grad_fn, "normalized_shape", "weight", "bias") == typed((3,), None, None)
    assert shown(F.layer_norm(x, [2, 3]).grad_fn, "normalized_shape") == typed((2, 3))
    y = F.layer_norm(x, (3,), None, ng.zeros(3))
    assert shown(y.grad_fn, "weight") == typed(None)


@pytest.mark.parametrize("kwargs, padding_idx, scale", [
    ({}, MINUS_ONE, False), ({"padding_idx": 1}, 1, False), ({"padding_idx": -1}, 1, False),
    ({"scale_grad_by_freq": True}, MINUS_ONE, True), ({"max_norm": 1.0}, MINUS_ONE, False),
])
def test_embedding_shows_its_arguments(kwargs, padding_idx, scale):
    weight = leaf() * 1
    y = F.embedding(ng.tensor([0, 1]), weight, **kwargs)
    assert y.grad_fn.name() == "EmbeddingBackward0"
    assert shown(y.grad_fn, "padding_idx", "scale_grad_by_freq", "sparse",
                 "weight_sym_argsize_0") == typed(padding_idx, scale, False, 2)


# ---- after backward -----------------------------------------------------------------------------
def test_the_arguments_stay_readable_after_backward():
    x = leaf()
    outputs = [x.pow(2), x.clamp(min=1), x.softmax(-1), F.leaky_relu(x, 0.1), F.glu(x[:, 1:]),
               F.mse_loss(x, x.detach() * 2), F.cross_entropy(x, ng.tensor([0, 2])),
               F.layer_norm(x, (3,)), F.embedding(ng.tensor([0, 1]), x, padding_idx=0)]
    sum(y.sum() for y in outputs).backward()
    fns = [y.grad_fn for y in outputs]
    assert shown(fns[0], "exponent") == typed(2)
    assert shown(fns[1], "min", "max") == typed(1, None)
    assert shown(fns[2], "dim") == typed(MINUS_ONE)
    assert shown(fns[3], "negative_slope") == typed(0.1)
    assert shown(fns[4], "dim") == typed(MINUS_ONE)
    assert shown(fns[5], "reduction") == typed(1)
    assert shown(fns[6], "ignore_index", "weight") == typed(MINUS_HUNDRED, None)
    assert shown(fns[7], "normalized_shape", "bias") == typed((3,), None)
    assert shown(fns[8], "padding_idx") == typed(0)
