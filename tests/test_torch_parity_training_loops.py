"""Training loops as torch 2.13 runs them, checked on cases a differential probe (whole training
steps of random small models, losses, optimizers and schedulers against torch) found to differ.
The expected values and messages were printed by torch; torch is not imported."""
import re

import numpy as np
import pytest

import numgrad as ng
from numgrad import nn, optim


def test_module_to_replaces_the_buffers_it_converts_and_keeps_the_parameters():
    # torch 2.13: after bn.double(), bn.running_mean is a new float64 tensor at version 0 (the
    # old one stays float32); num_batches_tracked (int64) and the parameters stay themselves
    bn = nn.BatchNorm1d(3)
    bn(ng.randn(4, 3)).sum().backward()
    mean, count, weight, grad = bn.running_mean, bn.num_batches_tracked, bn.weight, bn.weight.grad
    bn.double()
    assert bn.running_mean is not mean and mean.dtype == ng.float32
    assert bn.running_mean.dtype == ng.float64 and bn.running_mean._version == 0
    assert bn.num_batches_tracked is count
    assert bn.weight is weight and bn.weight.grad is grad and weight.dtype == ng.float64
    mean = bn.running_mean
    bn.to(ng.float64)
    bn.cpu()
    assert bn.running_mean is mean      # nothing to convert: torch's to() returns the tensor


def test_lazy_layers_hold_uninitialized_placeholders_until_their_first_input():
    # torch 2.13: the placeholders print as <UninitializedParameter>, refuse their shape, and
    # are saved as they are; the first forward materialises the same objects
    layer = nn.LazyLinear(3)
    assert repr(layer) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    assert repr(layer.weight) == "<UninitializedParameter>" and layer.has_uninitialized_params()
    assert type(layer.bias) is nn.UninitializedParameter and nn.parameter.is_lazy(layer.bias)
    with pytest.raises(RuntimeError, match=r"^Can't access the shape of an uninitialized "
                                           r"parameter or buffer\. This error usually happens in "
                                           r"`load_state_dict`"):
        layer.weight.shape
    assert layer.weight.size() == (0,) and layer.weight.requires_grad
    assert [type(v).__name__ for v in layer.state_dict().values()] == [
        "UninitializedParameter", "UninitializedParameter"]
    weight = layer.weight
    optimizer = optim.SGD(layer.parameters(), lr=0.1)
    assert len(layer._forward_pre_hooks) == 1     # torch's _infer_parameters
    layer(ng.ones(2, 4)).sum().backward()
    assert type(layer) is nn.Linear and type(weight) is nn.Parameter and layer.weight is weight
    assert weight.shape == (3, 4) and len(layer._forward_pre_hooks) == 0
    assert repr(layer) == "Linear(in_features=4, out_features=3, bias=True)"
    before = weight.detach().clone()
    optimizer.step()
    np.testing.assert_allclose((weight - before).detach().numpy(), np.full((3, 4), -0.2),
                               rtol=1e-6)
    with pytest.raises(RuntimeError, match="^Can't share memory on an uninitialized parameter"):
        nn.LazyLinear(2).share_memory()


def test_lazy_norm_layers_hold_uninitialized_buffers_and_register_absent_ones_as_none():
    # torch 2.13: LazyBatchNorm1d().double() keeps its placeholders placeholders, of float64;
    # num_batches_tracked is a tensor from the start; affine=False registers weight/bias None
    bn = nn.LazyBatchNorm1d().double()
    assert repr(bn.running_mean) == "<UninitializedBuffer>" and bn.running_mean.dtype == ng.float64
    assert repr(bn.num_batches_tracked) == "tensor(0)"
    bn(ng.ones(4, 3, dtype=ng.float64))
    assert type(bn) is nn.BatchNorm1d and type(bn.running_mean) is ng.Tensor
    assert bn.running_var.shape == (3,) and bn.weight.dtype == ng.float64
    plain = nn.LazyBatchNorm2d(affine=False)
    assert plain._parameters == {"weight": None, "bias": None} and plain.has_uninitialized_params()
    stateless = nn.LazyInstanceNorm1d(affine=False, track_running_stats=False)
    assert stateless._buffers == dict.fromkeys(["running_mean", "running_var",
                                                "num_batches_tracked"])
    assert not stateless.has_uninitialized_params()
    assert list(nn.Linear(2, 2, bias=False)._parameters) == ["weight", "bias"]


def test_lazy_layers_size_themselves_from_the_first_input_as_torch():
    # torch 2.13: the instance norms take dim 1 too (an unbatched (3, 5) gives num_features 5,
    # which the forward then refuses); a conv checks the input's rank and the groups
    norm = nn.LazyInstanceNorm1d()
    with pytest.raises(ValueError, match=r"^expected input's size at dim=0 to match "
                                         r"num_features \(5\), but got: 3\.$"):
        norm(ng.randn(3, 5))
    conv = nn.LazyConv2d(4, 3)
    with pytest.raises(RuntimeError, match=r"^Expected 3D \(unbatched\) or 4D \(batched\) input "
                                           r"to LazyConv2d, but got input of size: "):
        conv(ng.ones(3, 5))
    grouped = nn.LazyConv2d(4, 3, groups=2)
    with pytest.raises(ValueError, match="^in_channels must be divisible by groups$"):
        grouped(ng.ones(1, 3, 5, 5))
    assert repr(grouped) == "LazyConv2d(3, 4, kernel_size=(3, 3), stride=(1, 1), groups=2)"
    transposed = nn.LazyConvTranspose2d(4, 3, groups=2)
    transposed(ng.ones(2, 5, 5))             # unbatched: the channels lead
    assert transposed.weight.shape == (2, 2, 3, 3) and transposed.bias.shape == (4,)


def test_lazy_layers_load_checkpoints_as_torch():
    # torch 2.13: an initialised checkpoint sizes the placeholders (the layer stays lazy until
    # its forward, which takes in_features from the weight); a lazy checkpoint loads into a
    # lazy layer and is refused by an initialised one through the placeholder's shape
    source = nn.Linear(3, 2)
    layer = nn.LazyLinear(2)
    layer.load_state_dict(source.state_dict())
    assert type(layer) is nn.LazyLinear and type(layer.weight) is nn.Parameter
    np.testing.assert_array_equal(layer.weight.detach().numpy(), source.weight.detach().numpy())
    layer(ng.ones(1, 3))
    assert repr(layer) == "Linear(in_features=3, out_features=2, bias=True)"
    lazy = nn.LazyLinear(2)
    lazy.load_state_dict(nn.LazyLinear(2).state_dict())
    assert type(lazy.weight) is nn.UninitializedParameter
    with pytest.raises(RuntimeError, match="^Can't access the shape of an uninitialized"):
        nn.Linear(3, 2).load_state_dict(nn.LazyLinear(2).state_dict())
    import copy
    twin = copy.deepcopy(nn.LazyLinear(2))
    twin(ng.ones(2, 5))
    assert type(twin) is nn.Linear and twin.weight.shape == (2, 5)


def _three_steps(make_optimizer):
    w = nn.Parameter(ng.tensor([1.0, -2.0, 0.5], dtype=ng.float64))
    opt = make_optimizer([w])
    for g in ([0.5, 0.25, -1.0], [-0.3, 0.7, 0.2], [0.1, -0.4, 0.9]):
        w.grad = ng.tensor(g, dtype=ng.float64)
        opt.step()
    return w.detach().numpy()


@pytest.mark.parametrize("make_optimizer, expected", [
    (lambda p: optim.AdamW(p, lr=ng.tensor(0.013), weight_decay=0.1),
     [0.9773511280622107, -2.0214569577468975, 0.5160040593388809]),
    (lambda p: optim.AdamW(p, lr=0.013, weight_decay=0.1),
     [0.9773510606291692, -2.0214568203887633, 0.5160040246134439]),
    (lambda p: optim.Adamax(p, lr=ng.tensor(0.013)),
     [0.9826861857706769, -2.0250082102755376, 0.5164964704218864]),
    (lambda p: optim.NAdam(p, lr=ng.tensor(0.013), weight_decay=0.1,
                           decoupled_weight_decay=True),
     [0.9859642319572016, -2.013048296663037, 0.5006679477061232]),
    (lambda p: optim.NAdam(p, lr=ng.tensor(0.013), weight_decay=0.1,
                           decoupled_weight_decay=True, foreach=True),
     [0.9859642312940936, -2.013048295714428, 0.500667947285394]),
    (lambda p: optim.ASGD(p, lr=ng.tensor(0.013), t0=1),
     [0.9960961106406411, -2.0071421814682497, 0.4986980446101719]),
])
def test_a_float32_tensor_lr_rounds_the_steps_scalars_in_float32_as_torch(make_optimizer,
                                                                            expected):
    # torch 2.13, float64 parameters: the single-tensor rules compute lr / bias_correction,
    # 1 - lr * weight_decay and ASGD's eta on the 0-d float32 lr; NAdam's multi-tensor rule
    # reads lr.item() for its step sizes (its decay factor stays float32)
    np.testing.assert_allclose(_three_steps(make_optimizer), expected, rtol=2e-16, atol=0)


def test_multi_tensor_asgd_takes_torchs_multi_tensor_update_and_eta():
    # torch 2.13: ASGD(foreach=True) moves the parameter by one addcmul_ of grad + lambd * p
    # and computes the new eta on the float32 step tensor (lr / t being t.reciprocal() * lr)
    w = nn.Parameter(ng.tensor([1.0, -2.0], dtype=ng.float64))
    opt = optim.ASGD([w], lr=0.01, foreach=True, t0=1, lambd=0.01)
    schedule = optim.lr_scheduler.PolynomialLR(opt, total_iters=10, power=2.0)
    for g in ([0.5, -0.25], [0.3, 0.1], [-0.2, 0.4]):
        w.grad = ng.tensor(g, dtype=ng.float64)
        opt.step()
        schedule.step()
    state = opt.state[w]
    np.testing.assert_allclose(w.detach().numpy(), [0.9933402197951657, -2.001177990268064],
                               rtol=2e-16, atol=0)
    assert state["ax"].tolist() == w.tolist()
    assert state["eta"].item() == 0.006399078294634819 and state["mu"].item() == 0.5


def test_adam_with_float64_tensor_betas_divides_a_float_lr_as_torch():
    # torch 2.13: lr / (1 - beta1 ** step) with a tensor beta1 is Tensor.__rtruediv__ (the
    # reciprocal times lr), and beta ** 3 a product of three
    w = nn.Parameter(ng.tensor([1.0, -2.0], dtype=ng.float64))
    betas = (ng.tensor(0.9, dtype=ng.float64), ng.tensor(0.999, dtype=ng.float64))
    opt = optim.Adam([w], lr=0.01, betas=betas)
    for g in ([0.5, -0.25], [0.3, 0.1], [-0.2, 0.4]):
        w.grad = ng.tensor(g, dtype=ng.float64)
        opt.step()
    assert w.tolist() == [0.9754988852763581, -1.9903539561030512]


@pytest.mark.parametrize("call, message", [
    (lambda F: F.avg_pool2d(ng.ones(1, 4, 4), 2, ceil_mode=1),
     "avg_pool2d(): argument 'ceil_mode' must be bool, not int"),
    (lambda F: F.avg_pool1d(ng.ones(3), 2, count_include_pad=None),
     "avg_pool1d(): argument 'count_include_pad' must be bool, not NoneType"),
    (lambda F: F.lp_pool3d(ng.ones(1, 1, 4, 4, 4), 2, 2, ceil_mode=0),
     "avg_pool3d(): argument 'ceil_mode' must be bool, not int"),
    (lambda F: F.max_pool1d(ng.ones(1, 3, 4), 2, ceil_mode=1.0),
     "max_pool1d(): argument 'ceil_mode' (position 6) must be bool, not float"),
    (lambda F: F.max_pool2d(ng.ones(1, 1, 4, 4), 2, ceil_mode=1, return_indices=True),
     "max_pool2d_with_indices(): argument 'ceil_mode' (position 6) must be bool, not int"),
    (lambda F: F.max_pool3d(ng.ones(1, 1, 4, 4, 4), 2, ceil_mode=1),
     "max_pool3d(): argument 'ceil_mode' (position 6) must be bool, not int"),
    (lambda F: F.dropout(ng.ones(4), 0.0, training=1),
     "dropout(): argument 'train' (position 3) must be bool, not int"),
    (lambda F: F.dropout1d(ng.ones(1, 2, 3), 0.0, training=None),
     "feature_dropout(): argument 'train' (position 3) must be bool, not NoneType"),
    (lambda F: F.feature_alpha_dropout(ng.ones(1, 2, 3), 0.0, training=0),
     "feature_alpha_dropout(): argument 'train' (position 3) must be bool, not int"),
    (lambda F: F.batch_norm(ng.ones(2, 3), ng.zeros(3), ng.ones(3), training=0),
     "batch_norm(): argument 'training' (position 6) must be bool, not int"),
    (lambda F: F.instance_norm(ng.randn(1, 2, 4), use_input_stats=1),
     "instance_norm(): argument 'use_input_stats' (position 6) must be bool, not int"),
    (lambda F: F.embedding(ng.tensor([0]), ng.ones(2, 2), scale_grad_by_freq=1),
     "embedding(): argument 'scale_grad_by_freq' (position 4) must be bool, not int"),
    (lambda F: F.embedding(ng.tensor([0]), ng.ones(2, 2), sparse=1),
     "embedding(): argument 'sparse' (position 5) must be bool, not int"),
    (lambda F: F.pairwise_distance(ng.ones(2, 3), ng.zeros(2, 3), keepdim=1),
     "pairwise_distance(): argument 'keepdim' must be bool, not int"),
    (lambda F: F.rrelu(ng.ones(3), training=1),
     "rrelu(): argument 'training' (position 4) must be bool, not int"),
    (lambda F: F.poisson_nll_loss(ng.ones(3), ng.ones(3), full=1),
     "poisson_nll_loss(): argument 'full' (position 4) must be bool, not int"),
    (lambda F: F.triplet_margin_loss(ng.ones(2, 3), ng.zeros(2, 3), ng.ones(2, 3), swap=1),
     "triplet_margin_loss(): argument 'swap' (position 7) must be bool, not int"),
    (lambda F: F.grid_sample(ng.ones(1, 1, 3, 3), ng.zeros(1, 2, 2, 2), align_corners=1),
     "grid_sampler(): argument 'align_corners' (position 5) must be bool, not int"),
])
def test_bool_arguments_refuse_other_types_as_torchs_argument_parser(call, message):
    # torch 2.13's words (its builtins take only True or False; NumPy's bools are refused too,
    # tests/test_torch_parity_training_s18.py)
    with pytest.raises(TypeError, match="^" + re.escape(message) + "$"):
        call(nn.functional)


@pytest.mark.parametrize("pool, size, shown", [
    (lambda F, x, size: F.adaptive_avg_pool2d(x, size), (0, 2),
     "adaptive_avg_pool2d_backward(): Expected grad_output to have non-zero size for non-batch "
     "dimensions, but grad_output has sizes [1, 2, 0, 2] with dimension 2 being empty"),
    (lambda F, x, size: F.adaptive_max_pool2d(x, size), (2, 0),
     "adaptive_max_pool2d_backward(): Expected grad_output to have non-zero size for non-batch "
     "dimensions, but grad_output has sizes [1, 2, 2, 0] with dimension 3 being empty"),
    (lambda F, x, size: F.adaptive_avg_pool1d(x[..., 0], size), 0,
     "adaptive_avg_pool2d_backward(): Expected grad_output to have non-zero size for non-batch "
     "dimensions, but grad_output has sizes [1, 2, 1, 0] with dimension 3 being empty"),
])
def test_adaptive_pooling_to_an_empty_output_refuses_its_backward_as_torch(pool, size, shown):
    # torch 2.13: the forward gives the empty result; the backward raises, leaving the input's
    # .grad None
    x = ng.ones(1, 2, 4, 4, requires_grad=True)
    y = pool(nn.functional, x, size)
    assert y.numel() == 0
    with pytest.raises(RuntimeError, match="^" + re.escape(shown) + "$"):
        y.sum().backward()
    assert x.grad is None
