"""Module and optimizer infrastructure as torch 2.13 behaves, on cases a differential probe against
torch found to differ: optimizer load_state_dict's groups and state, module backward hooks, dtype
moves of modules. The expected numbers and messages were printed by torch; torch is not
imported."""
import numpy as np
import pytest

import numgrad as ng
from numgrad import nn, optim


def _params():
    return [nn.Parameter(ng.ones(2, dtype=ng.float64)), nn.Parameter(ng.ones(3, dtype=ng.float64))]


def _options(opt):
    return [{k: v for k, v in g.items() if k not in ("params", "param_names")}
            for g in opt.param_groups]


def test_load_state_dict_takes_the_saved_groups_whole():
    # torch 2.13: the loaded groups are the saved ones; an option only the loading optimizer had
    # ("mine", its dampening and weight_decay) is gone
    saved = optim.SGD([{"params": [_params()[0]], "momentum": 0.9},
                       {"params": [_params()[1]], "lr": 0.5, "extra": 7}], lr=0.1).state_dict()
    a, b = _params()
    opt = optim.SGD([{"params": [a], "dampening": 0.3, "mine": 1}, {"params": [b]}], lr=0.2,
                    weight_decay=0.1)
    opt.load_state_dict(saved)
    assert _options(opt) == [
        {"lr": 0.1, "momentum": 0.9, "dampening": 0, "weight_decay": 0, "nesterov": False,
         "maximize": False, "foreach": None, "differentiable": False, "fused": None},
        {"lr": 0.5, "extra": 7, "momentum": 0, "dampening": 0, "weight_decay": 0,
         "nesterov": False, "maximize": False, "foreach": None, "differentiable": False,
         "fused": None}]
    assert opt.param_groups[0]["params"][0] is a and opt.param_groups[1]["params"][0] is b


def test_load_state_dict_fills_only_the_options_torchs_setstate_fills():
    # torch 2.13: SGD's __setstate__ fills nesterov, maximize, foreach (None), differentiable and
    # fused (False, where a new SGD has None); a missing momentum stays missing
    saved = optim.SGD(_params(), lr=0.1, momentum=0.5).state_dict()
    for key in ("nesterov", "maximize", "foreach", "momentum", "fused"):
        del saved["param_groups"][0][key]
    opt = optim.SGD(_params(), lr=0.3, momentum=0.9)
    opt.load_state_dict(saved)
    assert _options(opt) == [{"lr": 0.1, "dampening": 0, "weight_decay": 0,
                              "differentiable": False, "nesterov": False, "maximize": False,
                              "foreach": None, "fused": False}]
    # AdamW's makes every loaded group decoupled, Adam's keeps the saved flag
    saved = optim.Adam([{"params": _params(), "betas": [0.5, 0.6]}], lr=0.1).state_dict()
    adamw = optim.AdamW(_params())
    adamw.load_state_dict(saved)
    assert adamw.param_groups[0]["decoupled_weight_decay"] is True
    assert adamw.param_groups[0]["betas"] == [0.5, 0.6]       # as saved: a group's list stays one
    saved = optim.AdamW(_params()).state_dict()
    adam = optim.Adam(_params())
    adam.load_state_dict(saved)
    assert adam.param_groups[0]["decoupled_weight_decay"] is True
    assert adam.param_groups[0]["weight_decay"] == 0.01


def test_state_under_a_saved_id_of_no_parameter_is_kept_under_that_id():
    # torch 2.13: opt.state has the key 5 beside the parameter's, and state_dict gives it back
    saved = {"state": {0: {"momentum_buffer": ng.zeros(2, dtype=ng.float64)}, 5: {"foo": 1}},
             "param_groups": [{"lr": 0.1, "params": [0, 1], "momentum": 0, "dampening": 0,
                               "weight_decay": 0, "nesterov": False}]}
    a, b = _params()
    opt = optim.SGD([a, b], lr=0.1)
    opt.load_state_dict(saved)
    assert opt.state[5] == {"foo": 1} and len(opt.state) == 2
    assert sorted(opt.state_dict()["state"]) == [0, 5]
    # the saved ids need not be numbers
    saved = {"state": {"a": {"momentum_buffer": ng.zeros(2, dtype=ng.float64)}},
             "param_groups": [{"lr": 0.1, "params": ["a", "b"], "momentum": 0.5, "dampening": 0,
                               "weight_decay": 0, "nesterov": False}]}
    opt = optim.SGD([a, b], lr=0.1)
    opt.load_state_dict(saved)
    assert list(opt.state) == [a]


def test_load_state_dict_casts_nested_and_integer_state_to_the_parameters_dtype():
    # torch 2.13: a float64 parameter's int64 buffer, a list's and a dict's float32 tensors all
    # become float64; the step counter keeps its float32
    a, b = _params()
    opt = optim.SGD([a, b], lr=0.1)
    opt.load_state_dict({
        "state": {0: {"momentum_buffer": ng.tensor([1, 2]), "listed": [ng.ones(2)],
                      "named": {"x": ng.ones(1)}, "step": ng.tensor(3.0)}},
        "param_groups": [{"lr": 0.1, "params": [0, 1], "momentum": 0.9, "dampening": 0,
                          "weight_decay": 0, "nesterov": False}]})
    state = opt.state[a]
    assert state["momentum_buffer"].dtype == ng.float64
    assert type(state["listed"]) is list and state["listed"][0].dtype == ng.float64
    assert state["named"]["x"].dtype == ng.float64
    assert state["step"].dtype == ng.float32


def test_load_state_dict_refuses_mismatched_groups_in_torchs_words():
    saved = optim.SGD([{"params": [_params()[0]]}, {"params": [_params()[1]]}], lr=0.1).state_dict()
    with pytest.raises(ValueError, match="^loaded state dict has a different number of parameter "
                                         "groups$"):
        optim.SGD(_params(), lr=0.1).load_state_dict(saved)
    a, b = _params()
    opt = optim.SGD([{"params": [a, b]}, {"params": [nn.Parameter(ng.ones(1))]}], lr=0.1)
    with pytest.raises(ValueError, match="^loaded state dict contains a parameter group that "
                                         "doesn't match the size of optimizer's group$"):
        opt.load_state_dict(saved)
    assert opt.param_groups[0]["params"] == [a, b] and not opt.state


def test_register_backward_hook_sees_the_output_nodes_gradients():
    # torch 2.13: the hook runs on TanhBackward0's gradients: grad_input is the gradient of
    # tanh's input, grad_output that of its output; a returned tuple replaces grad_input
    seen = []
    m = nn.Tanh()
    m.register_backward_hook(lambda module, gi, go: seen.append((module, gi[0].tolist(),
                                                                 go[0].tolist())))
    x = ng.tensor([0.5, -1.0], dtype=ng.float64, requires_grad=True)
    m(x * 2).sum().backward()
    assert seen == [(m, [0.41997434161402614, 0.07065082485316443], [1.0, 1.0])]
    assert x.grad.tolist() == [0.8399486832280523, 0.14130164970632886]
    tripled = nn.Tanh()
    tripled.register_backward_hook(lambda module, gi, go: (gi[0] * 3,))
    x.grad = None
    tripled(x * 2).sum().backward()
    assert x.grad.tolist() == [2.5198460496841566, 0.4239049491189866]


def test_register_backward_hook_warns_where_torch_warns():
    m = nn.Tanh()
    m.register_backward_hook(lambda module, gi, go: None)
    x = ng.tensor([0.5, -1.0], requires_grad=True)
    with pytest.warns(FutureWarning, match="^Using a non-full backward hook when the forward "
                                           "contains multiple autograd Nodes is deprecated"):
        m(x)        # a leaf's input has no grad_fn, tanh's node has an AccumulateGrad
    with pytest.warns(FutureWarning, match="when outputs are generated by different autograd "
                                           "Nodes"):
        two = nn.Module()
        two.forward = lambda a: (a * 2, a * 3)
        two.register_backward_hook(lambda module, gi, go: None)
        two(x * 1)
    with pytest.warns(FutureWarning, match="does not take as input a single Tensor or a tuple of "
                                           "Tensors"):
        scaled = nn.Module()
        scaled.forward = lambda a, k: a * k
        scaled.register_backward_hook(lambda module, gi, go: None)
        scaled(x, 2.0)


def test_full_and_regular_backward_hooks_do_not_mix_as_torch():
    message = ("^Cannot use both regular backward hooks and full backward hooks on a single "
               "Module. Please use only one of them.$")
    m = nn.Tanh()
    m.register_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match=message):
        m.register_full_backward_hook(lambda *a: None)
    m = nn.Tanh()
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match=message):
        m.register_backward_hook(lambda *a: None)
    assert len(m._backward_hooks) == 1


def test_to_empty_keeps_each_tensor_and_its_shape_dtype_and_grad():
    lin = nn.Linear(2, 3).double()
    lin.weight.grad = ng.ones(3, 2, dtype=ng.float64)
    weight = lin.weight
    assert lin.to_empty(device="cpu") is lin
    assert lin.weight is weight and lin.weight.shape == (3, 2)
    assert lin.weight.dtype == ng.float64 and lin.weight.grad.shape == (3, 2)
    with pytest.raises(TypeError):
        lin.to_empty("cpu")           # device is keyword-only, as in torch


def test_skip_init_refuses_what_torch_refuses():
    lin = nn.utils.skip_init(nn.Linear, 2, 3, dtype=ng.float64)
    assert lin.weight.shape == (3, 2) and lin.weight.dtype == ng.float64
    assert lin.weight.requires_grad
    with pytest.raises(RuntimeError, match="^Expected a Module; got <class 'int'>$"):
        nn.utils.skip_init(int)
    with pytest.raises(RuntimeError, match="^Module must support a 'device' arg to skip "
                                           "initialization$"):
        nn.utils.skip_init(nn.ReLU)


def test_half_and_bfloat16_are_refused_where_numgrad_has_no_such_dtype():
    lin = nn.Linear(2, 3)
    with pytest.raises(TypeError, match="numgrad has no float16"):
        lin.half()
    with pytest.raises(TypeError, match="numgrad has no bfloat16"):
        lin.bfloat16()
    assert lin.weight.dtype == ng.float32


def test_sparse_adam_checks_its_options_and_refuses_dense_gradients_as_torch():
    w = nn.Parameter(ng.ones(2))
    opt = optim.SparseAdam([w])
    assert opt.step(lambda: 3.0) == 3.0          # no gradient yet: nothing to refuse
    w.sum().backward()
    with pytest.raises(RuntimeError, match="^SparseAdam does not support dense gradients, please "
                                           "consider Adam instead$"):
        opt.step()
    assert not opt.state and w.tolist() == [1.0, 1.0]
    for options, message in [({"lr": 0.0}, "Invalid learning rate: 0.0"),
                             ({"eps": 0.0}, "Invalid epsilon value: 0.0"),
                             ({"betas": (1.0, 0.5)}, "Invalid beta parameter at index 0: 1.0"),
                             ({"betas": (0.5, -0.1)}, "Invalid beta parameter at index 1: -0.1")]:
        with pytest.raises(ValueError, match=f"^{message}$"):
            optim.SparseAdam([w], **options)


@pytest.mark.parametrize("shape, dim, name", [
    ((3, 4), 0, "WeightNormInterfaceBackward0"), ((2, 3, 4), 2, "WeightNormInterfaceBackward0"),
    ((2, 3, 4), 1, "MulBackward0"), ((3, 4), None, "MulBackward0")])
def test_weight_norm_ends_in_torchs_fused_node_along_the_first_or_last_dim(shape, dim, name):
    # torch 2.13: torch._weight_norm is one op along dim 0 or the last, a composite elsewhere
    layer = nn.Module()
    layer.weight = nn.Parameter(ng.ones(*shape, dtype=ng.float64))
    layer.forward = lambda: layer.weight
    with pytest.warns(FutureWarning):       # torch's deprecation of nn.utils.weight_norm
        nn.utils.weight_norm(layer, dim=dim)
    weight = layer()        # the forward pre-hook recomputes weight
    assert weight.grad_fn.name() == name
    if name.startswith("WeightNorm"):
        assert weight.grad_fn._saved_dim == dim
        assert [n.name() for n, _ in weight.grad_fn.next_functions] == [
            "torch::autograd::AccumulateGrad"] * 2
    weight.sum().backward()
    assert layer.weight_v.grad.shape == shape


@pytest.mark.parametrize("register, change", [
    ("register_full_backward_hook", lambda module, grads, _: (grads[0][0].float(),)),
    ("register_full_backward_pre_hook", lambda module, grads: (grads[0][0].float(),))])
def test_a_module_hook_changing_a_gradients_type_is_refused_naming_both_types(register, change):
    # torch 2.13 checks the type before the size: "... (was torch.DoubleTensor got
    # torch.FloatTensor)"
    m = nn.Tanh()
    getattr(m, register)(change)
    x = ng.tensor([[0.5, -1.0]], dtype=ng.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^hook 'hook' has changed the type of value \(was "
                                           r"numgrad.DoubleTensor got numgrad.FloatTensor\)$"):
        m(x).sum().backward()


def test_init_keeps_torchs_private_fan_helper_that_libraries_import():
    from numgrad.nn.init import _calculate_correct_fan
    assert _calculate_correct_fan(ng.empty(3, 4, 5), "fan_out") == 15      # torch 2.13 gives 15
    with pytest.raises(ValueError, match=r"^Mode fan_x not supported, please use one of "
                                         r"\['fan_in', 'fan_out'\]$"):
        _calculate_correct_fan(ng.empty(3, 4, 5), "fan_x")


def test_share_memory_returns_the_module_as_torch():
    lin = nn.Linear(2, 3)
    assert lin.share_memory() is lin


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
@pytest.mark.parametrize("zero_grad", [
    lambda p: optim.SGD([p], lr=0.1).zero_grad(set_to_none=False),
    lambda p: nn.ParameterList([p]).zero_grad(set_to_none=False)])
def test_zero_grad_in_place_zeroes_a_gradient_that_is_a_view(zero_grad):
    # torch 2.13: a .grad without history is zeroed where it is, view or not (only one with
    # history is detached in place, which a view would refuse)
    p = nn.Parameter(ng.tensor([1.0, 2.0]))
    base = ng.ones(4)
    p.grad = base[:2]
    zero_grad(p)
    assert base.tolist() == [0.0, 0.0, 1.0, 1.0]
    (p ** 3).sum().backward(create_graph=True)     # a gradient with history: cut from it
    assert p.grad.grad_fn is not None
    zero_grad(p)
    assert p.grad.grad_fn is None and p.grad.tolist() == [0.0, 0.0]


def _nested():
    return nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 1), nn.BatchNorm1d(1)),
                         nn.Linear(1, 1))


def test_load_state_dict_lists_unexpected_keys_module_by_module_as_torch():
    net = _nested()
    saved = net.state_dict()
    for key in ("0.bias", "1.0.weight", "2.weight"):
        del saved[key]
    for key in ("1.zzz", "aaa", "1.1.q", "0.weight.x"):
        saved[key] = ng.ones(1)
    result = net.load_state_dict(saved, strict=False)
    # torch 2.13: each module reports the keys under its prefix, parents before children
    assert result.missing_keys == ["0.bias", "1.0.weight", "2.weight"]
    assert result.unexpected_keys == ["aaa", "0.weight.x", "1.zzz", "1.1.q"]


def test_load_state_dict_hooks_run_module_by_module_on_each_modules_keys():
    net = _nested()
    saved = net.state_dict()
    del saved["1.0.weight"]
    log = []
    for name, module in net.named_modules():
        module.register_load_state_dict_pre_hook(
            lambda m, state_dict, prefix, *rest, name=name: log.append((name, len(state_dict))))
        module.register_load_state_dict_post_hook(
            lambda m, incompatible, name=name: log.append((name, "post")))
    net.load_state_dict(saved, strict=False)
    # torch 2.13: a module's pre-hook sees the keys under its prefix; its post-hook runs once
    # its children are loaded
    assert log == [("", 10), ("0", 2), ("0", "post"), ("1", 6), ("1.0", 1), ("1.0", "post"),
                   ("1.1", 5), ("1.1", "post"), ("1", "post"), ("2", 2), ("2", "post"),
                   ("", "post")]


def test_a_modules_own_load_from_state_dict_reads_older_checkpoints():
    class Renamed(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(ng.zeros(2))

        def _load_from_state_dict(self, state_dict, prefix, *rest):
            if prefix + "old_w" in state_dict:
                state_dict[prefix + "w"] = state_dict.pop(prefix + "old_w")
            super()._load_from_state_dict(state_dict, prefix, *rest)

    net = nn.Sequential(Renamed())
    assert repr(net.load_state_dict({"0.old_w": ng.ones(2)})) == "<All keys matched successfully>"
    assert net[0].w.tolist() == [1.0, 1.0]


def test_apply_converts_parameters_in_place_and_replaces_buffers_as_torch():
    net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    weight, running_mean = net[0].weight, net[1].running_mean
    weight.grad = ng.ones(2, 2)
    assert net._apply(lambda t: t.double()) is net
    # torch 2.13: the same Parameter (and .grad) in float64, a new float64 buffer (the
    # integer count too: fn decides)
    assert net[0].weight is weight and weight.dtype == ng.float64
    assert weight.grad.dtype == ng.float64 and weight.requires_grad
    assert net[1].running_mean is not running_mean
    assert net[1].running_mean.dtype == ng.float64
    assert net[1].num_batches_tracked.dtype == ng.float64
    net._apply(lambda t: t.float(), recurse=False)       # the Sequential has none of its own
    assert weight.dtype == ng.float64


@pytest.mark.parametrize("make", [optim.Adam, optim.AdamW])
def test_adam_refuses_the_hyperparameters_torchs_adam_refuses(make):
    w = nn.Parameter(ng.ones(2))
    for options, message in [
            ({"betas": (0, 0.99)}, "betas must be either both floats or both Tensors"),
            ({"betas": (ng.tensor(0.9), 0.99)}, "betas must be either both floats or both Tensors"),
            ({"betas": (ng.tensor(0.9), ng.tensor(0.99)), "foreach": True},
             r"betas\[0\] as a Tensor is not supported for capturable=False and foreach=True"),
            ({"lr": ng.tensor(0.1), "foreach": True},
             "lr as a Tensor is not supported for capturable=False and foreach=True")]:
        with pytest.raises(ValueError, match=f"^{message}$"):
            make([w], **options)
    make([w], lr=ng.tensor(0.1), foreach=True, capturable=True)     # as torch: accepted


def test_clip_grad_value_of_parameters_without_gradients_raises_as_torch():
    # torch 2.13 groups the gradients by device and dtype first, which refuses an empty list
    w = nn.Parameter(ng.ones(2))
    for parameters in ([w], []):
        with pytest.raises(RuntimeError, match=r"^Expected !nested_tensorlist\[0\]\.empty\(\) to "
                                               r"be true, but got false\."):
            nn.utils.clip_grad_value_(parameters, 0.1)
    assert float(nn.utils.clip_grad_norm_([w], 0.1)) == 0.0     # the norm's clipping returns 0


@pytest.mark.parametrize("make, foreach, message", [
    (optim.Adam, None, "params and state_steps must be on supported devices: ['cuda', 'xpu', "
                       "'hpu', 'privateuseone', 'xla']."),
    (optim.Adam, True, "params and state_steps must be on supported devices: ['cuda', 'xpu', "
                       "'hpu', 'privateuseone']."),
    (optim.NAdam, True, "params, mu_products, and state_steps must be on supported devices: "
                        "['cuda', 'xpu', 'hpu', 'privateuseone']."),
    (optim.ASGD, None, "params, mus, etas, and state_steps must be on supported devices: "
                       "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']."),
    (optim.Adadelta, None, "params and state_steps must be on supported devices: ['cuda', "
                           "'xpu', 'hpu', 'privateuseone']."),
    (optim.RMSprop, True, "params and state_steps must be on supported devices: ['cuda', 'xpu', "
                          "'hpu', 'privateuseone', 'xla'].")])
def test_a_capturable_update_refuses_host_parameters_in_torchs_words(make, foreach, message):
    first, second = nn.Parameter(ng.ones(2)), nn.Parameter(ng.ones(2))
    opt = make([{"params": [first], "capturable": False}, {"params": [second]}], lr=0.1,
               capturable=True, foreach=foreach)
    first.grad, second.grad = ng.ones(2), ng.ones(2)
    with pytest.raises(AssertionError) as error:
        opt.step()
    assert str(error.value) == "If capturable=True, " + message
    # torch 2.13: the groups before it were updated, this one not
    assert first.tolist() != [1.0, 1.0] and second.tolist() == [1.0, 1.0]


def test_module_to_a_dtype_numgrad_lacks_is_refused_naming_it():
    lin = nn.Linear(2, 3)
    with pytest.raises(TypeError, match="^nn.Module.to: numgrad has no float16 dtype"):
        lin.to(np.float16)
    # torch 2.13's words for a dtype that is not floating
    with pytest.raises(TypeError, match="^nn.Module.to only accepts floating point dtypes, but "
                                        "got desired dtype=numgrad.int8$"):
        lin.to(np.int8)
    assert lin.weight.dtype == ng.float32
