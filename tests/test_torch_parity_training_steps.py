"""Training steps as torch 2.13 takes them, checked on cases a differential probe against torch
found to differ: optimizer state of another dtype than its parameter, loss functions' arguments
that take no gradient, and the graph nodes losses end in. The expected numbers and messages were
printed by torch; torch is not imported."""
import sys

import numpy as np
import pytest

import numgrad as ng
from numgrad import nn, optim


def _stepped(make_optimizer, dtype=ng.float32):
    w = nn.Parameter(ng.tensor([1.0, -2.0, 0.5], dtype=dtype))
    opt = make_optimizer([w])
    w.grad = ng.tensor([0.5, 0.25, -1.0], dtype=dtype)
    opt.step()
    return w, opt


@pytest.mark.parametrize("make_optimizer, key", [
    (lambda p: optim.Adam(p, lr=0.1, amsgrad=True), "exp_avg"),
    (lambda p: optim.AdamW(p, lr=0.1), "exp_avg"),
    (lambda p: optim.RMSprop(p, lr=0.1, centered=True), "grad_avg"),
])
def test_an_average_torch_lerps_refuses_a_state_of_another_dtype(make_optimizer, key):
    # torch 2.13: opt.state[w]["exp_avg"] = opt.state[w]["exp_avg"].double(); opt.step() raises
    # from exp_avg.lerp_(grad, 1 - beta1), the step counted
    w, opt = _stepped(make_optimizer)
    opt.state[w][key] = opt.state[w][key].double()
    with pytest.raises(RuntimeError, match="^expected dtype double for `end` but got dtype float$"):
        opt.step()
    assert float(opt.state[w]["step"]) == 2.0
    w, opt = _stepped(make_optimizer, ng.float64)
    opt.state[w][key] = opt.state[w][key].float()
    with pytest.raises(RuntimeError, match="^expected dtype float for `end` but got dtype double$"):
        opt.step()


def test_adam_refusing_its_average_leaves_the_rest_of_its_state_as_torch_does():
    # torch 2.13, after the refused step: step 2, the parameter and both squares as after one step
    w, opt = _stepped(lambda p: optim.Adam(p, lr=0.1, amsgrad=True))
    opt.state[w]["exp_avg"] = opt.state[w]["exp_avg"].double()
    with pytest.raises(RuntimeError):
        opt.step()
    assert w.detach().tolist() == [0.9000000357627869, -2.0999999046325684, 0.5999999642372131]
    assert opt.state[w]["exp_avg_sq"].tolist() == [0.0002500000118743628, 6.25000029685907e-05,
                                                   0.0010000000474974513]
    assert opt.state[w]["exp_avg"].tolist() == [0.05000000074505806, 0.02500000037252903,
                                                -0.10000000149011612]


def test_load_state_dict_casts_a_float64_average_to_the_parameters_dtype():
    # torch 2.13: load_state_dict casts the state to float32, so the step runs (step keeps its
    # float64) and gives the same numbers as without the round trip
    w, opt = _stepped(lambda p: optim.Adam(p, lr=0.1))
    saved = opt.state_dict()
    saved["state"][0]["exp_avg"] = saved["state"][0]["exp_avg"].double()
    saved["state"][0]["step"] = saved["state"][0]["step"].double()
    opt.load_state_dict(saved)
    assert opt.state[w]["exp_avg"].dtype == ng.float32 and opt.state[w]["step"].dtype == ng.float64
    w.grad = ng.tensor([0.5, 0.25, -1.0])
    opt.step()
    assert w.detach().tolist() == [0.800000011920929, -2.1999998092651367, 0.699999988079071]


F = nn.functional
_X = [[0.1, 0.5, -0.3], [0.2, 0.0, 1.0], [1.0, 2.0, 3.0]]


def _weight():
    return ng.tensor([0.3, 1.0, 2.0], dtype=ng.float64, requires_grad=True)


@pytest.mark.parametrize("kernel, argument, call", [
    ("nll_loss_forward", "weight", lambda w: F.nll_loss(ng.zeros(2, 3), ng.tensor([0, 2]), w)),
    # torch's nll_loss_nd views 3-d and deeper inputs as 4-d for nll_loss2d
    ("nll_loss2d_forward", "weight",
     lambda w: F.nll_loss(ng.zeros(2, 3, 2), ng.zeros(2, 2, dtype=ng.int64), w)),
    ("nll_loss_forward", "weight",
     lambda w: F.cross_entropy(ng.zeros(2, 3, requires_grad=True), ng.tensor([0, 2]), w,
                               label_smoothing=0.1)),
    ("nll_loss_forward", "weight",
     lambda w: nn.CrossEntropyLoss(w)(ng.zeros(2, 3), ng.tensor([0, 1]))),
    ("binary_cross_entropy", "weight",
     lambda w: F.binary_cross_entropy(ng.full((2, 3), 0.5), ng.ones(2, 3), w)),
    ("binary_cross_entropy_with_logits", "weight",
     lambda w: F.binary_cross_entropy_with_logits(ng.zeros(2, 3), ng.ones(2, 3), w)),
    ("binary_cross_entropy_with_logits", "pos_weight",
     lambda w: F.binary_cross_entropy_with_logits(ng.zeros(2, 3), ng.ones(2, 3), pos_weight=w)),
    ("multi_margin_loss", "weight", lambda w: F.multi_margin_loss(ng.zeros(2, 3), ng.tensor([0, 2]),
                                                                  weight=w)),
    ("soft_margin_loss", "target", lambda w: F.soft_margin_loss(ng.zeros(3), w)),
])
def test_losses_refuse_a_weight_that_requires_grad_as_torch(kernel, argument, call):
    # torch 2.13 has no derivative for these arguments and refuses them, unless grad is off
    weight = _weight().float()
    with pytest.raises(RuntimeError, match=f"^The function '{kernel}' is not differentiable with "
                                           f"respect to argument '{argument}'. This input cannot "
                                           f"have requires_grad True.$"):
        call(weight)
    with ng.no_grad():
        call(weight)


def test_cross_entropy_with_label_smoothing_is_torchs_composite():
    x = ng.tensor(_X, dtype=ng.float64, requires_grad=True)
    loss = F.cross_entropy(x, ng.tensor([0, 2, 1]), weight=_weight().detach(), label_smoothing=0.2,
                           ignore_index=1)
    # torch 2.13: AddBackward0 over (1 - s) * nll_loss and s / C * (sum of the smoothing / weights)
    assert loss.grad_fn.name() == "AddBackward0"
    assert [(f.name(), [g.name() for g, _ in f.next_functions])
            for f, _ in loss.grad_fn.next_functions] == [("MulBackward1", ["NllLossBackward0"]),
                                                         ("MulBackward1", ["DivBackward0"])]
    loss.backward()
    assert loss.item() == pytest.approx(0.7504335929532331, rel=1e-14)
    np.testing.assert_allclose(x.grad.numpy(), [
        [-0.04979526661593328, 0.06536973696718136, -0.015574470351248062],
        [0.18696487959303595, 0.1312077872748157, -0.3181726668678517], [0.0, 0.0, 0.0]],
        rtol=1e-13)
    x.grad = None
    losses = F.cross_entropy(x, ng.tensor([0, 2, 1]), label_smoothing=0.3, reduction="none")
    assert [f.name() for f, _ in losses.grad_fn.next_functions] == ["MulBackward1", "MulBackward1"]
    losses.sum().backward()
    np.testing.assert_allclose(losses.detach().numpy(),
                               [1.151250513728494, 0.7773014802988986, 1.4076059644443804],
                               rtol=1e-14)
    np.testing.assert_allclose(x.grad.numpy()[2], [-0.009969426829619567, -0.5552715289452023,
                                                   0.5652409557748217], rtol=1e-13)


def test_cross_entropy_with_class_probabilities_differentiates_its_weight():
    x = ng.tensor(_X, dtype=ng.float64, requires_grad=True)
    weight = _weight()
    loss = F.cross_entropy(x, ng.softmax(x.detach() * 2, 1), weight=weight)
    loss.backward()
    # torch 2.13 gives these
    assert loss.item() == pytest.approx(0.9766032421483181, rel=1e-14)
    np.testing.assert_allclose(weight.grad.numpy(), [0.18748872059601215, 0.26058268934716583,
                                                     0.32988696831117426], rtol=1e-13)


def test_multilabel_soft_margin_loss_divides_by_the_labels_as_torch():
    x = ng.tensor(_X, dtype=ng.float64, requires_grad=True)
    target = ng.tensor([[0.0, 1, 1], [1, 0, 0], [1, 1, 0]], dtype=ng.float64)
    losses = F.multilabel_soft_margin_loss(x, target, reduction="none")
    assert losses.grad_fn.name() == "DivBackward0"     # torch 2.13's
    np.testing.assert_allclose(losses.detach().numpy(),
                               [0.6909429629074015, 0.8681825791532534, 1.1629256833783124],
                               rtol=1e-14)


def test_clip_grad_norm_of_float32_and_float64_gradients_is_float64():
    grads = [ng.tensor([[0.5, -1.5], [2.0, 0.1]]), ng.tensor([3.0, -0.2, 0.7], dtype=ng.float64)]
    params = [ng.zeros_like(g, requires_grad=True) for g in grads]
    for p, g in zip(params, grads):
        p.grad = g.clone()
    total = nn.utils.clip_grad_norm_(params, 1.0)
    # torch 2.13 stacks each gradient's norm (the float32 one rounded to float32) and gives these
    assert total.dtype == ng.float64 and total.item() == 4.004996952328398
    assert params[0].grad.tolist() == [[0.1248440071940422, -0.374532014131546],
                                       [0.4993760287761688, 0.02496880106627941]]
    np.testing.assert_allclose(params[1].grad.numpy(), [0.7490640533925569, -0.049937603559503795,
                                                        0.17478161245826326], rtol=1e-15)


@pytest.mark.parametrize("make_optimizer, versions", [
    # torch 2.13, after two steps: each in-place op of its update bumps a version
    (lambda p: optim.SGD(p, lr=0.1, momentum=0.9), {"param": 2, "momentum_buffer": 2}),
    (lambda p: optim.Adam(p, amsgrad=True),
     {"param": 2, "step": 2, "exp_avg": 2, "exp_avg_sq": 4, "max_exp_avg_sq": 2}),
    (lambda p: optim.AdamW(p), {"param": 4, "step": 2, "exp_avg": 2, "exp_avg_sq": 4}),
    (lambda p: optim.RMSprop(p, momentum=0.9, centered=True),
     {"param": 2, "step": 2, "square_avg": 4, "momentum_buffer": 4, "grad_avg": 2}),
    (lambda p: optim.Adagrad(p), {"param": 2, "step": 2, "sum": 2}),
    (lambda p: optim.NAdam(p, weight_decay=0.1, decoupled_weight_decay=True),
     {"param": 6, "step": 2, "exp_avg": 2, "exp_avg_sq": 4}),
    (lambda p: optim.RAdam(p, weight_decay=0.1, decoupled_weight_decay=True), {"param": 4}),
    (lambda p: optim.ASGD(p), {"param": 4, "ax": 2}),
])
def test_steps_bump_versions_as_torchs_in_place_ops(make_optimizer, versions):
    w = nn.Parameter(ng.tensor([1.0, -2.0]))
    opt = make_optimizer([w])
    for _ in range(2):
        w.grad = ng.tensor([0.5, 0.25])
        opt.step()
    found = {key: opt.state[w][key]._version for key in versions if key != "param"}
    assert {"param": w._version, **found} == versions


def test_a_graph_stepped_through_reports_torchs_version():
    w = nn.Parameter(ng.tensor([1.0, -2.0]))
    opt = optim.AdamW([w], lr=0.1)
    loss = (w * w).sum()
    loss.backward(retain_graph=True)
    opt.step()
    # torch 2.13: AdamW's param.mul_ and param.addcdiv_
    with pytest.raises(RuntimeError, match=r"\[numgrad.FloatTensor \[2\]\] is at version 2; "
                                           r"expected version 0 instead"):
        loss.backward()


def test_lbfgs_reads_its_closures_loss_without_warning(monkeypatch, recwarn):
    # torch 2.13 reads float(closure()) under no_grad, where float() does not warn (torch warns
    # once a process: the warning is armed again here)
    tensor_module = sys.modules["numgrad.tensor"]      # (numgrad.tensor is the function)
    monkeypatch.setitem(tensor_module._scalar_warning, "given", False)
    w = nn.Parameter(ng.tensor([1.0, 2.0]))
    opt = optim.LBFGS([w], max_iter=2)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    opt.step(closure)
    assert not [w for w in recwarn if "to a scalar" in str(w.message)]


def test_layers_start_at_torchs_versions():
    # torch 2.13 makes these parameters and statistics empty and fills them in place
    layers = {nn.LayerNorm(3): [1, 1], nn.GroupNorm(1, 3): [1, 1], nn.RMSNorm(3): [1],
              nn.PReLU(): [1], nn.Embedding(4, 2, padding_idx=1): [2],
              nn.EmbeddingBag(4, 2, padding_idx=0): [2],
              nn.BatchNorm1d(3): [1, 1, 1, 1, 1]}
    for layer, versions in layers.items():
        tensors = list(layer.parameters()) + list(layer.buffers())
        assert [t._version for t in tensors] == versions, layer


def test_batch_norm_updates_its_statistics_without_bumping_their_versions():
    bn = nn.BatchNorm1d(3)
    x = ng.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 5.0]])
    bn(x)
    bn(x)
    # torch 2.13: its kernel writes running_mean/var; only num_batches_tracked.add_(1) counts
    assert [bn.running_mean._version, bn.running_var._version,
            bn.num_batches_tracked._version] == [1, 1, 3]
    np.testing.assert_allclose(bn.running_mean.numpy(), [0.095, 0.095, 0.76], rtol=1e-6)


def test_clip_grad_value_clamps_twice_as_torchs_foreach_ops():
    w = nn.Parameter(ng.ones(3))
    w.grad = ng.tensor([5.0, -5.0, 0.5])
    nn.utils.clip_grad_value_([w], 1.0)
    assert w.grad.tolist() == [1.0, -1.0, 0.5] and w.grad._version == 2    # torch 2.13's


def test_parameter_dict_sorts_a_plain_dict_as_torch():
    # torch 2.13: a plain mapping's keys are sorted, an OrderedDict's or pairs' order is kept
    params = nn.ParameterDict({"b": ng.ones(1), "a": ng.ones(2)})
    assert list(params.keys()) == ["a", "b"]
    holder = nn.Module()
    holder.pd = params
    assert [name for name, _ in holder.named_parameters()] == ["pd.a", "pd.b"]
    assert params.update([("z", ng.ones(1)), ("c", ng.ones(1))]) is None
    assert list(params.keys()) == ["a", "b", "z", "c"]
    with pytest.raises(ValueError, match="^ParameterDict update sequence element #0 has length 3; "
                                         "2 is required$"):
        params.update([("x", 1, 2)])


def test_nll_loss_of_a_3d_input_is_torchs_nll_loss2d_on_a_view():
    x = ng.tensor([[[0.1, 0.5], [-0.3, 0.2], [1.0, -1.0]]], dtype=ng.float64, requires_grad=True)
    losses = F.nll_loss(ng.log_softmax(x, 1), ng.tensor([[2, 0]]), reduction="none")
    # torch 2.13: ViewBackward0 over NllLoss2DBackward0 over a ViewBackward0 of the input
    assert losses.grad_fn.name() == "ViewBackward0"
    inner = losses.grad_fn.next_functions[0][0]
    assert inner.name() == "NllLoss2DBackward0"
    assert inner.next_functions[0][0].name() == "ViewBackward0"
    np.testing.assert_allclose(losses.detach().numpy(), [[0.5182588007932105, 0.6749569269138377]],
                               rtol=1e-14)
    losses.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[[0.24213525577550285, -0.49082164798175254],
                                                 [0.16230811579828638, 0.3772086007518075],
                                                 [-0.4044433715737893, 0.11361304722994514]]],
                               rtol=1e-13)


def test_a_mean_over_only_ignored_targets_is_nan_with_a_zero_gradient():
    x = ng.tensor([[0.1, 0.2, -0.3, 0.5], [0.3, 0.2, 0.1, 0.0]], requires_grad=True)
    # torch 2.13: nan, and no gradient reaches ignored rows (their weight 0 reaches them as nan)
    for loss in (F.nll_loss(x, ng.tensor([1, 1]), ignore_index=1),
                 F.cross_entropy(x, ng.tensor([1, 1]), ignore_index=1, label_smoothing=0.2)):
        x.grad = None
        loss.backward()
        assert np.isnan(loss.item()) and x.grad.tolist() == [[0.0] * 4] * 2
    x.grad = None
    F.nll_loss(x, ng.tensor([0, 1]), ng.tensor([0.0, 1, 1, 1]), ignore_index=1).backward()
    assert np.isnan(x.grad[0, 0].item()) and x.grad.numpy()[0, 1:].tolist() == [0.0] * 3


def test_poisson_nll_loss_full_masks_the_stirling_term_as_torch():
    x = ng.tensor([0.5, -0.2, 1.0, 0.3], dtype=ng.float64, requires_grad=True)
    target = ng.tensor([0.0, 3.0, 1.0, 0.5], dtype=ng.float64, requires_grad=True)
    loss = F.poisson_nll_loss(x, target, full=True, reduction="sum")
    # torch 2.13: loss + stirling.masked_fill(target <= 1, 0), whose gradient at target 0 is nan
    assert [f.name() for f, _ in loss.grad_fn.next_functions[0][0].next_functions] == \
        ["SubBackward0", "MaskedFillBackward0"]
    loss.backward()
    assert loss.item() == pytest.approx(7.749674203356214, rel=1e-14)
    assert np.isnan(target.grad[0].item())
    np.testing.assert_allclose(target.grad.numpy()[1:], [1.4652789553347765, -1.0, -0.3],
                               rtol=1e-14)


def test_grouped_and_transposed_1d_convolutions_are_one_torch_node():
    # torch 2.13: ConvolutionBackward0 over (input, weight, bias), whatever the groups
    x = ng.ones(2, 4, 5, 5, requires_grad=True)
    out = F.conv2d(x, ng.ones(6, 2, 3, 3, requires_grad=True), ng.zeros(6, requires_grad=True),
                   groups=2)
    assert out.grad_fn.name() == "ConvolutionBackward0"
    leaf = "torch::autograd::AccumulateGrad"
    assert [f.name() for f, _ in out.grad_fn.next_functions] == [leaf] * 3
    y = F.conv_transpose1d(ng.ones(2, 4, 5, requires_grad=True),
                           ng.ones(4, 2, 3, requires_grad=True), groups=2)
    assert y.grad_fn.name() == "ConvolutionBackward0"
    y.sum().backward()
    assert y.sum().item() == 240.0


def test_gru_cell_is_torchs_formula_and_graph():
    cell = nn.GRUCell(3, 2)
    with ng.no_grad():
        cell.weight_ih.copy_(ng.linspace(-1, 1, 18).reshape(6, 3))
        cell.weight_hh.copy_(ng.linspace(0.5, -0.7, 12).reshape(6, 2))
        cell.bias_ih.copy_(ng.linspace(-0.3, 0.2, 6))
        cell.bias_hh.copy_(ng.linspace(0.1, -0.4, 6))
    h = cell(ng.tensor([[1.0, -0.5, 0.25]]), ng.tensor([[0.5, -0.25]]))
    # torch 2.13, float32: h' = (h - n) * z + n over unsafe_chunk'ed gates
    assert h.tolist() == [[0.37358957529067993, 0.17155474424362183]]
    add = h.grad_fn
    assert [f.name() for f, _ in add.next_functions] == ["MulBackward0", "TanhBackward0"]
    mul = add.next_functions[0][0]
    assert [f.name() for f, _ in mul.next_functions] == ["SubBackward0", "SigmoidBackward0"]
    gate_sum = mul.next_functions[1][0].next_functions[0][0]
    assert [f.name() for f, _ in gate_sum.next_functions] == ["UnsafeSplitBackward0"] * 2


def test_bilinear_is_torchs_trilinear_viewed_back_plus_bias():
    layer = nn.Bilinear(3, 2, 4)
    out = layer(ng.ones(5, 3, requires_grad=True), ng.ones(5, 2, requires_grad=True))
    # torch 2.13: AddBackward0(ViewBackward0(TrilinearBackward0(view, weight, view)), bias)
    assert out.grad_fn.name() == "AddBackward0"
    trilinear = out.grad_fn.next_functions[0][0].next_functions[0][0]
    assert trilinear.name() == "TrilinearBackward0"
    assert [f.name() for f, _ in trilinear.next_functions] == \
        ["ViewBackward0", "torch::autograd::AccumulateGrad", "ViewBackward0"]


def test_embedding_bag_flattens_the_weights_of_2d_bags_as_torch():
    weights = ng.ones(2, 3, requires_grad=True)
    out = F.embedding_bag(ng.tensor([[0, 1, 2], [3, 4, 0]]), ng.ones(5, 3, requires_grad=True),
                          mode="sum", per_sample_weights=weights)
    # torch 2.13: EmbeddingBagBackward0 reaches the weights through a ViewBackward0
    assert [f.name() for f, _ in out.grad_fn.next_functions] == \
        ["torch::autograd::AccumulateGrad", "ViewBackward0"]
    out.sum().backward()
    assert weights.grad.tolist() == [[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]]


def test_channel_dropout_of_an_unbatched_input_batches_it_as_torch():
    x = ng.ones(3, 4, requires_grad=True) * 1
    # torch 2.13: unsqueeze(0), feature dropout, squeeze(0), in eval mode too
    for out in (F.dropout1d(x, 0.3, training=False), nn.Dropout1d(0.2).eval()(x)):
        assert out is not x and out.shape == (3, 4)
        assert out.grad_fn.name() == "SqueezeBackward1"
        assert out.grad_fn.next_functions[0][0].name() == "UnsqueezeBackward0"
