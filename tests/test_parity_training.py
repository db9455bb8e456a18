"""Training code written for torch 2.13 runs unchanged on numgrad and gives torch's numbers:
optimizer options and state dicts, modules and losses in training steps. The expected values
were printed by torch in scratch scripts and pasted here; torch is not imported."""
import warnings

import numpy as np
import pytest

import numgrad as ng
from numgrad import nn, optim


def test_torch_performance_flags_are_accepted_and_kept_in_the_groups():
    w = nn.Parameter(ng.ones(2))
    # torch's param_groups, keys in its order (parameters printed from torch)
    expected = {
        optim.SGD: ["params", "lr", "momentum", "dampening", "weight_decay", "nesterov",
                    "maximize", "foreach", "differentiable", "fused"],
        optim.Adam: ["params", "lr", "betas", "eps", "weight_decay", "amsgrad", "maximize",
                     "foreach", "capturable", "differentiable", "fused", "decoupled_weight_decay"],
        optim.RMSprop: ["params", "lr", "momentum", "alpha", "eps", "centered", "weight_decay",
                        "capturable", "foreach", "maximize", "differentiable"],
        optim.Adagrad: ["params", "lr", "lr_decay", "eps", "weight_decay",
                        "initial_accumulator_value", "foreach", "maximize", "differentiable",
                        "fused"],
    }
    for cls, keys in expected.items():
        assert list(cls([w], foreach=False).param_groups[0]) == keys
    assert optim.AdamW([w], fused=True).param_groups[0]["decoupled_weight_decay"] is True
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
        optim.Adam([w], foreach=True, fused=True)
    with pytest.raises(RuntimeError, match="`fused` does not support `differentiable`"):
        optim.SGD([w], differentiable=True, fused=True)


def test_adam_with_decoupled_weight_decay_is_adamw():
    w = nn.Parameter(ng.tensor([1.0, -2.0], dtype=ng.float64))
    opt = optim.Adam([w], lr=0.1, weight_decay=0.5, decoupled_weight_decay=True)
    for _ in range(2):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    # torch.optim.Adam(..., decoupled_weight_decay=True) and torch's AdamW both give these
    np.testing.assert_allclose(w.detach().numpy(), [0.7082484433597452, -1.6104122281697426],
                               rtol=1e-12)


def test_state_keys_come_in_torch_order_and_step_follows_the_default_dtype():
    w = nn.Parameter(ng.ones(2))
    for cls, keys in [(optim.Adam, ["step", "exp_avg", "exp_avg_sq"]),
                      (lambda p: optim.RMSprop(p, centered=True, momentum=0.9),
                       ["step", "square_avg", "momentum_buffer", "grad_avg"])]:
        opt = cls([w])
        w.grad = ng.ones(2)
        opt.step()
        assert list(opt.state_dict()["state"][0]) == keys
    previous = ng.get_default_dtype()
    ng.set_default_dtype(ng.float64)
    try:
        for cls in (optim.Adam, optim.RMSprop, optim.Adagrad):
            opt = cls([w])
            opt.step()
            assert opt.state[w]["step"].dtype == ng.float64
    finally:
        ng.set_default_dtype(previous)


def test_named_parameters_give_param_names():
    model = nn.Linear(3, 2)
    opt = optim.SGD(model.named_parameters(), lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    packed = opt.state_dict()["param_groups"][0]
    assert list(packed)[0] == "param_names" and packed["params"] == [0, 1]
    with pytest.raises(ValueError, match="Some param names are missing"):
        optim.SGD([("weight", model.weight), model.bias], lr=0.1)
    with pytest.raises(ValueError, match="cannot add param group without names to the optimizer"):
        opt.add_param_group({"params": [nn.Parameter(ng.ones(1))]})


def test_optimizer_construction_errors_and_warnings_are_torchs():
    model = nn.Linear(3, 2)
    with pytest.raises(TypeError, match="iterable of Tensors or dicts, but got torch.FloatTensor"):
        optim.SGD(model.weight, lr=0.1)
    for cls in (optim.SGD, optim.Adam, optim.RMSprop, optim.Adagrad):
        with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
            cls(model.parameters(), lr=ng.tensor([0.1, 0.2]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        optim.SGD([model.weight, model.weight], lr=0.1)
    assert "duplicate parameters" in str(caught[0].message)


def test_optimizer_repr_separates_groups_with_a_blank_line():
    model = nn.Linear(3, 2)
    opt = optim.SGD([model.weight], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": model.bias, "lr": 0.01})
    group = ("    dampening: 0\n    differentiable: False\n    foreach: None\n    fused: None\n"
             "    lr: {}\n    maximize: False\n    momentum: 0.9\n    nesterov: False\n"
             "    weight_decay: 0\n")
    assert repr(opt) == ("SGD (\nParameter Group 0\n" + group.format(0.1) + "\nParameter Group 1\n"
                         + group.format(0.01) + ")")


def test_norm_layers_print_their_bias_flag_as_torch():
    assert repr(nn.BatchNorm2d(4, bias=False)) == ("BatchNorm2d(4, eps=1e-05, momentum=0.1, "
                                                   "affine=True, bias=False, "
                                                   "track_running_stats=True)")
    assert nn.BatchNorm2d(4, bias=False).bias is None
    assert repr(nn.LayerNorm(3)) == "LayerNorm((3,), eps=1e-05, elementwise_affine=True, bias=True)"
    assert repr(nn.GroupNorm(1, 3, affine=False)) == "GroupNorm(1, 3, eps=1e-05, affine=False, bias=False)"
    assert repr(nn.InstanceNorm2d(3, affine=True, bias=False)) == (
        "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=False, "
        "track_running_stats=False)")


def test_batch_norm_loads_a_checkpoint_without_num_batches_tracked():
    bn = nn.BatchNorm1d(3)
    bn(ng.ones(4, 3))
    saved = {"weight": ng.ones(3), "bias": ng.zeros(3), "running_mean": ng.full((3,), 2.0),
             "running_var": ng.full((3,), 4.0)}
    assert repr(bn.load_state_dict(saved)) == "<All keys matched successfully>"
    assert "num_batches_tracked" not in saved
    assert bn.num_batches_tracked.item() == 1
    assert bn.running_mean.tolist() == [2.0, 2.0, 2.0]


def test_batch_norm_refuses_statistics_of_the_wrong_size():
    with pytest.raises(RuntimeError, match="^running_mean should contain 4 elements not 3$"):
        nn.BatchNorm1d(3)(ng.ones(2, 4))
    with pytest.raises(RuntimeError, match="^bias should contain 4 elements not 3$"):
        nn.functional.batch_norm(ng.ones(2, 4), ng.ones(4), ng.ones(4), ng.ones(4), ng.ones(3),
                                 True)


def test_load_state_dict_result_and_module_lookups_are_torchs():
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3))
    result = nn.Sequential(nn.Linear(2, 3)).load_state_dict({"0.weight": ng.ones(3, 2)},
                                                            strict=False)
    assert repr(result) == "_IncompatibleKeys(missing_keys=['0.bias'], unexpected_keys=[])"
    assert model.get_parameter("0.bias") is model[0].bias
    assert model.get_buffer("1.running_var") is model[1].running_var
    with pytest.raises(AttributeError, match="^`running_var` is not an nn.Parameter$"):
        model.get_parameter("1.running_var")
    with pytest.raises(AttributeError, match="^`weight` is not a buffer$"):
        model.get_buffer("1.weight")
    with pytest.raises(AttributeError, match="^BatchNorm1d has no attribute `nope`$"):
        model.get_buffer("1.nope")
    with pytest.raises(KeyError, match='contain ".", got: a.b'):
        model.add_module("a.b", nn.ReLU())


def test_named_parameters_can_keep_duplicates():
    model = nn.Module()
    model.first = nn.Linear(2, 2)
    model.second = model.first
    assert [n for n, _ in model.named_parameters()] == ["first.weight", "first.bias"]
    assert [n for n, _ in model.named_parameters(remove_duplicate=False)] == [
        "first.weight", "first.bias", "second.weight", "second.bias"]


def test_sequential_insert_pop_add_and_repeat():
    relu, tanh, gelu = nn.ReLU(), nn.Tanh(), nn.GELU()
    seq = nn.Sequential(relu, tanh)
    assert list(seq.insert(-1, gelu)) == [relu, gelu, tanh]
    assert list(seq._modules) == ["0", "1", "2"]
    assert seq.pop(0) is relu and list(seq) == [gelu, tanh]
    assert list(seq + nn.Sequential(relu)) == [gelu, tanh, relu]
    assert list(2 * seq) == [gelu, tanh, gelu, tanh]
    seq *= 2
    assert list(seq._modules) == ["0", "1", "2", "3"]
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
        seq + nn.ReLU()
    with pytest.raises(ValueError, match="Non-positive multiplication factor 0"):
        seq * 0
    with pytest.raises(IndexError, match="Index out of range: 9"):
        seq.insert(9, relu)


def test_conv_errors_are_torchs():
    with pytest.raises(ValueError, match="^in_channels must be divisible by groups$"):
        nn.Conv2d(3, 2, 3, groups=2)
    with pytest.raises(ValueError, match="^out_channels must be divisible by groups$"):
        nn.Conv2d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="^groups must be a positive integer$"):
        nn.Conv2d(3, 3, 3, groups=0)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided"):
        nn.Conv2d(3, 2, 3, padding="same", stride=2)
    with pytest.raises(ValueError, match="^Invalid padding string 'full', should be one of"):
        nn.Conv1d(3, 2, 3, padding="full")
    with pytest.raises(RuntimeError, match=r"^Calculated padded input size per channel: \(4 x 4\)\. "
                                           r"Kernel size: \(7 x 7\)\. Kernel size can't be "
                                           r"greater than actual input size$"):
        nn.Conv2d(3, 2, 3, dilation=3)(ng.ones(1, 3, 4, 4))
    with pytest.raises(RuntimeError, match=r"input size per channel: \(4\)\. Kernel size: \(5\)\."):
        nn.Conv1d(3, 2, 5, padding=1)(ng.ones(1, 3, 2))


def test_losses_take_torchs_positional_and_legacy_arguments():
    logits = ng.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 0.3]])
    target = ng.tensor([1, 2])
    # CrossEntropyLoss(weight, size_average, ignore_index): class 2 ignored
    assert nn.CrossEntropyLoss(None, None, 2).ignore_index == 2
    with pytest.warns(UserWarning, match="^size_average and reduce args will be deprecated, "
                                         "please use reduction='sum' instead.$"):
        loss = nn.CrossEntropyLoss(size_average=False)
    assert loss.reduction == "sum"
    # torch: 0.4643687903881073 + 0.7377679944038391
    np.testing.assert_allclose(loss(logits, target).item(), 1.202136754989624, rtol=1e-6)
    with pytest.warns(UserWarning):
        assert nn.MSELoss(reduce=False).reduction == "none"
    assert nn.BCEWithLogitsLoss(None, None, None, "sum").reduction == "sum"


def test_clip_grad_norm_scales_in_float32_as_torch():
    w, b = nn.Parameter(ng.ones(2, 2)), nn.Parameter(ng.ones(2))
    w.grad = ng.tensor([[0.3, -1.7], [2.2, 0.9]])
    b.grad = ng.tensor([0.1, -0.4])
    assert nn.utils.clip_grad_norm_([w, b], 1.0).item() == 2.966479539871216
    # torch's values, bit for bit: the scale is reciprocal(norm + 1e-6) * max_norm in float32
    assert w.grad.tolist() == [[0.10112994909286499, -0.57306969165802],
                               [0.7416196465492249, 0.3033898174762726]]
    assert b.grad.tolist() == [0.03370998427271843, -0.13483993709087372]
    w.grad = ng.ones(2, 2)
    b.grad = ng.ones(2)
    nn.utils.clip_grad_norm_([w, b], 0.5)
    assert w.grad[0, 0].item() == 0.2041240632534027


def test_layers_take_torchs_device_argument():
    modules = [nn.Linear(2, 3, device="cpu"), nn.Bilinear(2, 2, 3, device="cpu"),
               nn.Conv1d(2, 3, 3, device="cpu"), nn.Conv2d(2, 3, 3, device="cpu"),
               nn.ConvTranspose2d(2, 3, 3, device="cpu"), nn.Embedding(4, 2, device="cpu"),
               nn.LayerNorm(3, device="cpu"), nn.MultiheadAttention(4, 2, device="cpu"),
               nn.LSTM(2, 3, device="cpu"), nn.GRUCell(2, 3, device="cpu"),
               # RNN(input, hidden, num_layers, nonlinearity, bias, batch_first, dropout,
               # bidirectional, device, dtype): torch's positional order
               nn.RNN(2, 3, 1, "relu", True, False, 0.0, False, "cpu", ng.float64),
               nn.TransformerEncoderLayer(4, 2, 8, device="cpu"),
               nn.TransformerDecoderLayer(4, 2, 8, device="cpu")]
    for module in modules:
        assert all(p.device.type == "cpu" for p in module.parameters())
    assert modules[-3].weight_ih_l0.dtype == ng.float64


def test_embedding_from_pretrained_and_scale_grad_by_freq():
    table = ng.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    frozen = nn.Embedding.from_pretrained(table, padding_idx=0, norm_type=1.0,
                                          scale_grad_by_freq=True)
    assert repr(frozen) == "Embedding(3, 2, padding_idx=0, norm_type=1.0, scale_grad_by_freq=True)"
    assert not frozen.weight.requires_grad and frozen.weight[0].tolist() == [1.0, 2.0]
    assert nn.Embedding.from_pretrained(table, freeze=False).weight.requires_grad
    with pytest.raises(AssertionError, match="Shape of weight does not match"):
        nn.Embedding(2, 2, _weight=table)

    embedding = nn.Embedding(5, 3, padding_idx=1, scale_grad_by_freq=True)
    with ng.no_grad():
        embedding.weight.copy_(ng.arange(15.0).reshape(5, 3) / 10)
    out = embedding(ng.tensor([[1, 0, 3, 3], [4, 0, 0, 1]]))
    (out * ng.arange(24.0).reshape(2, 4, 3)).sum().backward()
    # torch: each row's gradient divided by its count in the batch (row 0 thrice, row 3 twice)
    np.testing.assert_allclose(embedding.weight.grad.numpy(),
                               [[12.0, 13.000000953674316, 14.0], [0.0, 0.0, 0.0],
                                [0.0, 0.0, 0.0], [7.5, 8.5, 9.5], [12.0, 13.0, 14.0]],
                               rtol=1e-6)


def test_init_has_torchs_remaining_schemes():
    init = nn.init
    assert init.eye_(ng.empty(2, 3)).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    # torch.nn.init.dirac_(torch.empty(4, 2, 3)): channel d of the first two outputs at the centre
    assert init.dirac_(ng.empty(4, 2, 3)).tolist() == [
        [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]]
    assert init.dirac_(ng.empty(4, 2, 3, 3), groups=2).sum().item() == 4.0
    wide = init.orthogonal_(ng.empty(3, 5, dtype=ng.float64), gain=2.0)
    np.testing.assert_allclose((wide @ wide.T).numpy(), 4 * np.eye(3), atol=1e-12)
    tall = init.orthogonal_(ng.empty(5, 3, dtype=ng.float64))
    np.testing.assert_allclose((tall.T @ tall).numpy(), np.eye(3), atol=1e-12)
    assert int((init.sparse_(ng.empty(6, 4), 0.5) == 0).sum()) == 12
    bounded = init.trunc_normal_(ng.empty(2000, dtype=ng.float64), mean=0.5, std=2.0, a=-1.0,
                                 b=1.0)
    assert -1.0 <= bounded.min().item() and bounded.max().item() <= 1.0
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        init.trunc_normal_(ng.empty(3), mean=5.0, std=1.0)
    with pytest.raises(ValueError, match="^Only tensors with 2 dimensions are supported$"):
        init.eye_(ng.empty(2, 3, 4))
    with pytest.raises(ValueError, match=r"please use one of \['fan_in', 'fan_out'\]"):
        init.kaiming_uniform_(ng.empty(2, 3), mode="fan")
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_normal_(ng.empty(0, 3))
    seeded = [init.normal_(ng.empty(3), generator=np.random.default_rng(7)).tolist()
              for _ in range(2)]
    assert seeded[0] == seeded[1]


def test_class_losses_check_targets_as_torch():
    F = nn.functional
    with pytest.raises(ValueError, match=r"^Expected input batch_size \(2\) to match target "
                                         r"batch_size \(3\)\.$"):
        F.cross_entropy(ng.ones(2, 3), ng.tensor([1, 2, 0]))
    with pytest.raises(ValueError, match="batch_size"):
        nn.NLLLoss()(ng.ones(2, 3), ng.tensor([1, 2, 0]))
    with pytest.raises(RuntimeError, match=r"^Expected target size \[2, 4\], got \[2, 5\]$"):
        F.cross_entropy(ng.ones(2, 3, 4), ng.zeros(2, 5, dtype=ng.int64))
    with pytest.raises(RuntimeError, match=r"^size mismatch \(got input: \[2, 3, 4, 5\] , "
                                           r"target: \[2, 4, 6\]$"):
        F.nll_loss(ng.ones(2, 3, 4, 5), ng.zeros(2, 4, 6, dtype=ng.int64))
    with pytest.raises(RuntimeError, match="^expected target dtype to be Long or Byte, but got "
                                          "Int$"):
        F.cross_entropy(ng.ones(2, 3), ng.tensor([1, 2], dtype=ng.int32))
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point"):
        F.cross_entropy(ng.ones(2, 3), ng.ones(2, 3) / 3, ignore_index=0)
    # torch: an unbatched input with a one-element target is one sample, log(3)
    np.testing.assert_allclose(F.cross_entropy(ng.ones(3), ng.tensor([1])).item(),
                               1.0986123085021973, rtol=1e-6)


def test_small_module_behaviours_training_code_relies_on():
    nn.LSTM(3, 4).flatten_parameters()
    with pytest.raises(RuntimeError, match="^both arguments to linear need to be at least 1D, "
                                           "but they are 0D and 2D$"):
        nn.Linear(1, 3)(ng.tensor(1.0))
    with pytest.raises(RuntimeError, match=r"Provided sizes \[2, 2\] don't multiply up to the "
                                           r"size of dim 1 \(3\)"):
        nn.Unflatten(1, (2, 2))(ng.ones(2, 3))
    assert nn.Unflatten(-1, (2, -1))(ng.ones(2, 6)).shape == (2, 2, 3)
    with pytest.raises(RuntimeError, match=r"^adaptive_avg_pool2d\(\): Expected 3D or 4D tensor, "
                                           r"but got \[2\]$"):
        nn.AdaptiveAvgPool2d(2)(ng.ones(2))


def test_optimizer_hooks_run_around_step_and_state_dicts():
    w = nn.Parameter(ng.ones(2))
    opt = optim.Adam([w], lr=0.1)
    calls = []
    first = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append("pre"))
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append("post"))
    opt.step()
    first.remove()
    opt.step()
    assert calls == ["pre", "post", "post"]
    opt.register_state_dict_post_hook(lambda o, sd: dict(sd, extra=1))
    assert opt.state_dict()["extra"] == 1
    loaded = []
    fresh = optim.Adam([w], lr=0.1)
    fresh.register_load_state_dict_pre_hook(lambda o, sd: loaded.append("pre"))
    fresh.register_load_state_dict_post_hook(lambda o: loaded.append("post"), prepend=True)
    fresh.load_state_dict(opt.state_dict())
    assert loaded == ["pre", "post"]


def test_a_scheduler_stepped_before_its_optimizer_warns_as_torch():
    opt = optim.SGD([nn.Parameter(ng.ones(1))], lr=0.1)
    sched = optim.lr_scheduler.StepLR(opt, 1)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before "
                                         r"`optimizer.step\(\)`"):
        sched.step()
    opt = optim.SGD([nn.Parameter(ng.ones(1))], lr=0.1)
    sched = optim.lr_scheduler.ExponentialLR(opt, 0.5)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()


def test_adam_loads_a_checkpoint_whose_step_is_a_number():
    # torch before 1.12 saved "step" as an int; torch 2.13 loads it and steps on from it
    w = nn.Parameter(ng.ones(2))
    opt = optim.Adam([w], lr=0.1)
    opt.load_state_dict({"state": {0: {"step": 3, "exp_avg": ng.ones(2), "exp_avg_sq": ng.ones(2)}},
                         "param_groups": [{"lr": 0.2, "betas": (0.9, 0.999), "eps": 1e-8,
                                           "weight_decay": 0, "amsgrad": False, "params": [0]}]})
    (w * w).sum().backward()
    opt.step()
    assert opt.state[w]["step"].item() == 4.0
    np.testing.assert_allclose(w.detach().numpy(), [0.959631, 0.959631], atol=1e-6)


def test_layers_refuse_inputs_of_another_dtype_as_torch():
    # float64 data into a float32 model: torch refuses in each kernel's words, nothing promotes
    x64 = ng.ones(2, 2, dtype=ng.float64)
    cases = [
        (lambda: nn.Linear(2, 2)(x64), "^mat1 and mat2 must have the same dtype, but got Double "
                                       "and Float$"),
        (lambda: nn.Linear(2, 2, bias=False)(x64), "^expected m1 and m2 to have the same dtype, "
                                                   "but got: double != float$"),
        (lambda: nn.functional.linear(ng.ones(1, 2), ng.ones(2, 2), x64[0]),
         "^self and mat2 must have the same dtype, but got Double and Float$"),
        (lambda: nn.Conv2d(2, 2, 1)(ng.ones(1, 2, 3, 3, dtype=ng.float64)),
         r"^Input type \(double\) and bias type \(float\) should be the same$"),
        (lambda: nn.Conv1d(2, 2, 1, bias=False)(ng.ones(1, 2, 3, dtype=ng.float64)),
         "^expected scalar type Double but found Float$"),
        (lambda: nn.LayerNorm(2)(x64), r"^mixed dtype \(CPU\): all inputs must share same "
                                       r"datatype\.$"),
        (lambda: nn.BatchNorm1d(2)(x64), "mixed dtype"),
        (lambda: nn.functional.nll_loss(x64, ng.tensor([0, 1]), weight=ng.ones(2)),
         "^expected scalar type Double but found Float$"),
        (lambda: nn.functional.binary_cross_entropy(ng.ones(2) / 2, x64[0]),
         "^Found dtype Double but expected Float$"),
        (lambda: nn.PReLU()(x64), "^prelu: Type promoting not supported. Got Double and Float$"),
        (lambda: nn.Bilinear(2, 2, 1)(x64, ng.ones(2, 2)),
         "^All tensors must have the same dtype, got input1: double, input2: float, "
         "weight: float, bias: float$"),             # torch 2.13 names the bias too
        (lambda: nn.functional.group_norm(ng.ones(2, 6), 2, ng.ones(4)),
         r"^Expected weight to be a vector of size equal to the number of channels in input, "
         r"but got weight of shape \[4\] and input of shape \[2, 6\]$"),
    ]
    for call, message in cases:
        with pytest.raises(RuntimeError, match=message):
            call()


def test_sgd_float32_steps_are_torchs_bit_for_bit():
    start = [2.040919065475464, -2.5556650161743164, 0.4180988371372223, -0.5677695870399475,
             -0.4526492953300476, -0.21559716761112213]
    grads = [[-2.019986152648926, -0.2319323718547821, -0.8652130961418152, 3.3229994773864746,
              0.22578661143779755, -0.3526307940483093],
             [-0.28128743171691895, -0.6680463552474976, -1.0551505088806152,
              -0.39080098271369934, 0.4819453954696655, -0.23855361342430115],
             [0.9577587246894836, -0.19980213046073914, 0.02425956539809704, 1.5458208322525024,
              0.545105516910553, -0.5052287578582764]]
    w = nn.Parameter(ng.tensor(start))
    opt = optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.01, dampening=0.1)
    for grad in grads:
        w.grad = ng.tensor(grad)
        opt.step()
    assert w.tolist() == [2.5386743545532227, -2.3471412658691406, 0.8282151222229004,
                          -1.536476731300354, -0.6427872180938721, -0.03276480734348297]
    # torch's add_(grad, alpha=-lr): float32(lr), then one rounding of p - lr g (checked against
    # torch on 10^5 values)
    rng = np.random.default_rng(0)
    p, g = rng.standard_normal((2, 10_000)).astype(np.float32)
    w = nn.Parameter(ng.tensor(p))
    w.grad = ng.tensor(g)
    optim.SGD([w], lr=0.1).step()
    lr = np.float64(np.float32(0.1))
    np.testing.assert_array_equal(w.detach().numpy(), (p - lr * g).astype(np.float32))


def test_container_and_module_methods_torch_code_calls():
    layers = nn.ModuleList([nn.ReLU(), nn.Tanh(), nn.GELU()])
    assert isinstance(layers.pop(1), nn.Tanh) and list(layers._modules) == ["0", "1"]
    table = nn.ParameterDict({"a": nn.Parameter(ng.ones(1)), "b": nn.Parameter(ng.zeros(2))})
    key, value = table.popitem()
    assert key == "b" and value.shape == (2,) and list(table.keys()) == ["a"]
    shared = nn.Parameter(ng.ones(3))
    made = table.fromkeys(["x", "y"], shared)
    assert list(made.keys()) == ["x", "y"] and made["x"] is made["y"]

    model = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU()))
    model.set_submodule("1.0", nn.Tanh())
    assert isinstance(model[1][0], nn.Tanh)
    with pytest.raises(AttributeError, match="^Sequential has no attribute `x`$"):
        model.set_submodule("1.x", nn.ReLU(), strict=True)
    with pytest.raises(AttributeError, match="^`weight` is not an nn.Module$"):
        model.set_submodule("0.weight", nn.ReLU())


def test_load_state_dict_post_hooks_can_forgive_missing_keys():
    linear = nn.Linear(2, 2)
    outer = nn.Sequential(linear)
    seen = []

    def forgive(module, incompatible_keys):
        seen.append(list(incompatible_keys.missing_keys))
        incompatible_keys.missing_keys.clear()

    handle = linear.register_load_state_dict_post_hook(forgive)
    assert repr(outer.load_state_dict({"0.weight": ng.ones(2, 2)})) == \
        "<All keys matched successfully>"
    assert seen == [["0.bias"]]
    handle.remove()
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "0.bias"'):
        outer.load_state_dict({"0.weight": ng.ones(2, 2)})
    linear.register_load_state_dict_post_hook(lambda module, keys: keys)
    with pytest.raises(AssertionError, match="not expected to return new values"):
        outer.load_state_dict(outer.state_dict())


def test_adagrad_steps_a_group_added_after_construction():
    first, added = nn.Parameter(ng.ones(2)), nn.Parameter(ng.ones(2))
    opt = optim.Adagrad([first], lr=0.1, initial_accumulator_value=0.5)
    opt.add_param_group({"params": [added], "lr": 0.2, "initial_accumulator_value": 3.0})
    first.grad, added.grad = ng.ones(2), ng.ones(2)
    opt.step()
    # torch: the added group's sum starts lazily from the constructor's value, 0.5
    assert first.tolist() == [0.918350338935852, 0.918350338935852]
    assert added.tolist() == [0.8367006778717041, 0.8367006778717041]


def test_modules_with_extra_state_save_and_load_it():
    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(1, 1)
            self.count = 3

        def get_extra_state(self):
            return {"count": self.count}

        def set_extra_state(self, state):
            self.count = state["count"]

    saved = nn.Sequential(Counter()).state_dict()
    # torch's keys: a module's extra state after its own tensors, before its children's
    assert list(saved) == ["0._extra_state", "0.linear.weight", "0.linear.bias"]
    target = nn.Sequential(Counter())
    target[0].count = 0
    assert repr(target.load_state_dict(saved)) == "<All keys matched successfully>"
    assert target[0].count == 3
    del saved["0._extra_state"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "0._extra_state"'):
        target.load_state_dict(saved)


def test_conv_argument_and_padding_errors_are_torchs():
    F = nn.functional
    with pytest.raises(RuntimeError, match=r"^Expected 3D \(unbatched\) or 4D \(batched\) input "
                                           r"to conv2d, but got input of size: \[4, 5\]$"):
        nn.Conv2d(4, 2, 3)(ng.ones(4, 5))
    with pytest.raises(RuntimeError, match=r"^Expected 2D \(unbatched\) or 3D \(batched\) input "
                                           r"to conv1d, but got input of size: \[1, 1, 4, 5\]$"):
        nn.Conv1d(4, 2, 3)(ng.ones(1, 1, 4, 5))
    with pytest.raises(RuntimeError, match="^non-positive stride is not supported$"):
        F.conv_transpose2d(ng.ones(1, 4, 5, 5), ng.ones(4, 2, 3, 3), stride=0)
    with pytest.raises(RuntimeError, match="^negative padding is not supported$"):
        F.conv2d(ng.ones(1, 4, 5, 5), ng.ones(2, 4, 3, 3), padding=(0, -1))
    # conv1d runs as a conv2d of height 1 in torch too, hence the pair
    with pytest.raises(RuntimeError, match=r"^dilation should be greater than zero, but got "
                                           r"\[1, 0\]$"):
        F.conv1d(ng.ones(1, 4, 5), ng.ones(2, 4, 3), dilation=0)
    # torch checks the last dim's padding first (argument #4), then the one before (#6)
    with pytest.raises(RuntimeError, match=r"^Argument #6: Padding size should be less than the "
                                           r"corresponding input dimension, but got: padding "
                                           r"\(3, 3\) at dimension 2 of input \[1, 4, 3, 5\]$"):
        F.pad(ng.ones(1, 4, 3, 5), (1, 1, 3, 3), mode="reflect")


def test_recurrent_layers_refuse_what_torch_refuses():
    for cls in (nn.RNN, nn.GRU):
        with pytest.raises(ValueError, match="^proj_size argument is only supported for LSTM, not "
                                             "RNN or GRU$"):
            cls(3, 4, proj_size=0)
    with pytest.raises(RuntimeError, match="^Expected sequence length to be larger than 0 in "
                                           "RNN$"):
        nn.LSTM(3, 4)(ng.ones(0, 2, 3))


def test_state_dict_hooks_rename_keys_for_saving_and_loading():
    model = nn.Sequential(nn.Linear(1, 1), nn.Linear(1, 1))
    calls = []
    model[0].register_state_dict_pre_hook(lambda module, prefix, keep_vars:
                                          calls.append((prefix, keep_vars)))

    def rename_on_save(module, state_dict, prefix, local_metadata):
        state_dict[prefix + "renamed"] = state_dict.pop(prefix + "bias")

    def rename_on_load(module, state_dict, prefix, local_metadata, strict, missing_keys,
                       unexpected_keys, error_msgs):
        state_dict[prefix + "bias"] = state_dict.pop(prefix + "renamed")

    model[1].register_state_dict_post_hook(rename_on_save)
    saved = model.state_dict()
    assert list(saved) == ["0.weight", "0.bias", "1.weight", "1.renamed"]
    assert calls == [("0.", False)]
    model[1].register_load_state_dict_pre_hook(rename_on_load)
    assert repr(model.load_state_dict(saved)) == "<All keys matched successfully>"
    assert "1.renamed" in saved   # the caller's dict is left as it was
    model[1].register_state_dict_post_hook(lambda *args: 1)
    with pytest.raises(RuntimeError, match="^state_dict post-hook must return None$"):
        model.state_dict()


def test_hardsigmoid_gradient_is_torchs_float32_sixth_in_float64_too():
    x = ng.tensor([-3.0, 3.0, 0.0, 2.9, 3.5, 1.234567], dtype=ng.float64, requires_grad=True)
    y = nn.Hardsigmoid()(x)
    y.sum().backward()
    # torch's kernel multiplies by 1.0f / 6.0f in every dtype
    assert x.grad.tolist() == [0.0, 0.0, 0.1666666716337204, 0.1666666716337204, 0.0,
                               0.1666666716337204]
    assert y.tolist() == [0.0, 1.0, 0.5, 0.9833333333333334, 1.0, 0.7057611666666667]


def test_adaptive_float32_steps_round_as_torchs():
    start = [-1.7382663488388062, -1.3366427421569824, -1.3611067533493042, -0.35161712765693665,
             -2.3125815391540527, -0.18889719247817993, -0.9572292566299438, 0.8936001658439636]
    grads = [[0.9568472504615784, 1.3922582864761353, 0.767470121383667, -0.053029779344797134,
              0.8597939610481262, 1.5054811239242554, -0.6535945534706116, 0.6103511452674866],
             [-0.04267382621765137, 1.440016746520996, -0.8368950486183167, -0.3015466034412384,
              0.3623386025428772, 0.25811025500297546, -1.6394479274749756, 0.36015522480010986],
             [-0.11849769949913025, -0.23974785208702087, -0.15530166029930115,
              0.21897169947624207, -1.81639564037323, 1.5524665117263794, -0.8614416718482971,
              -2.241367816925049]]
    expected = {
        "RMSprop": [-1.7220791578292847, -1.2828848361968994, -1.3560677766799927,
                    -0.38789102435112, -2.293262243270874, -0.13457553088665009,
                    -1.0315765142440796, 0.9198623895645142],
        "Adagrad": [-1.7769345045089722, -1.486968755722046, -1.3539445400238037,
                    -0.2065291702747345, -2.337688446044922, -0.3737186789512634,
                    -0.7226590514183044, 0.8325429558753967],
        "Adam": [-1.753800630569458, -1.3629298210144043, -1.3649944067001343, -0.3296680152416229,
                 -2.326417922973633, -0.2154705822467804, -0.9283127784729004, 0.8772178292274475],
        "AdamW": [-1.75819993019104, -1.3631671667099, -1.3681384325027466, -0.3314063549041748,
                  -2.3284664154052734, -0.21551601588726044, -0.9282242655754089,
                  0.8776488304138184]}
    options = {"Adam": dict(lr=0.01, amsgrad=True, weight_decay=0.1), "AdamW": dict(lr=0.01),
               "RMSprop": dict(lr=0.01, alpha=0.3, centered=True, maximize=True),
               "Adagrad": dict(lr=0.1, lr_decay=0.01, weight_decay=0.1)}
    for name, values in expected.items():
        w = nn.Parameter(ng.tensor(start))
        opt = getattr(optim, name)([w], **options[name])
        for grad in grads:
            w.grad = ng.tensor(grad)
            opt.step()
        # torch's bits on this small tensor (a large one may differ by an ulp: torch's float32
        # sqrt of many values is not correctly rounded)
        assert w.tolist() == values


def test_an_integer_parameter_is_refused_in_torchs_words():
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can "
                                           "require gradients$"):
        nn.Parameter(ng.tensor([1, 2]))
    assert not nn.Parameter(ng.tensor([1, 2]), requires_grad=False).requires_grad


def test_logsigmoid_derivatives_at_zero_are_torchs():
    # torch 2.13: first derivative 0.5, second -0.25 at x = 0 (0 counts as positive)
    a = ng.tensor([0.0], dtype=ng.float64, requires_grad=True)
    (g,) = ng.autograd.grad(ng.nn.functional.logsigmoid(a).sum(), a, create_graph=True)
    (gg,) = ng.autograd.grad(g.sum(), a)
    assert g.item() == 0.5 and gg.item() == -0.25
