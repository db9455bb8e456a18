"""Parity with torch 2.13 of the training API around the ops: nn.Module registration and
containers, nn.init, nn.utils, optimizers and schedulers. Each expected value or message is
torch's, hard-coded (torch is not a test dependency)."""
import numpy as np
import pytest

import numgrad as ng
from numgrad import nn


def raised(call):
    with pytest.raises(Exception) as info:
        call()
    return type(info.value).__name__, str(info.value)


# ---- nn.Module registration ----------------------------------------------------------------------
def test_a_shared_parameter_keeps_its_place_in_the_state_dict():
    first, second = nn.Linear(2, 2), nn.Linear(2, 2)
    second.weight = first.weight
    # torch 2.13 gives ['0.weight', '0.bias', '1.weight', '1.bias']: reassigning a parameter
    # replaces it where it was
    assert list(nn.Sequential(first, second).state_dict()) == ["0.weight", "0.bias", "1.weight",
                                                               "1.bias"]


def test_a_reassigned_child_module_keeps_its_place():
    net = nn.Sequential(nn.ReLU(), nn.Tanh())
    setattr(net, "0", nn.Sigmoid())
    assert list(net._modules) == ["0", "1"] and isinstance(net[0], nn.Sigmoid)


@pytest.mark.parametrize("register", [lambda m: m.register_buffer("weight", ng.ones(1)),
                                      lambda m: m.add_module("weight", nn.ReLU()),
                                      lambda m: m.register_parameter("running", None)])
def test_a_name_taken_by_another_kind_is_refused_as_torch(register):
    layer = nn.Linear(2, 2)
    layer.register_buffer("running", ng.zeros(1))
    before = (list(layer._parameters), list(layer._buffers), list(layer._modules))
    # torch 2.13: KeyError "attribute 'weight' already exists" (a buffer may not shadow a
    # parameter, nor a module, nor a parameter a buffer)
    kind, message = raised(lambda: register(layer))
    assert kind == "KeyError" and message.endswith("already exists\"")
    assert (list(layer._parameters), list(layer._buffers), list(layer._modules)) == before


def test_assigning_a_non_tensor_to_a_buffer_names_buffers_and_tensors():
    layer = nn.BatchNorm1d(2)
    # torch 2.13: "cannot assign 'int' as buffer 'running_mean' (torch.nn.Buffer, torch.Tensor or
    # None expected)"
    assert raised(lambda: setattr(layer, "running_mean", 3)) == (
        "TypeError", "cannot assign 'int' as buffer 'running_mean' (numgrad.nn.Buffer, "
                     "numgrad.Tensor or None expected)")


def test_named_modules_skips_the_modules_in_a_callers_memo():
    shared = nn.Linear(1, 1)
    net = nn.Sequential(nn.Sequential(shared), nn.ReLU())
    # torch 2.13's memo is a set of modules
    assert [name for name, _ in net.named_modules(memo={shared})] == ["", "0", "1"]
    assert [name for name, _ in net.named_modules()] == ["", "0", "0.0", "1"]


def test_get_submodule_names_a_non_module_on_the_path_as_torch():
    net = nn.Sequential(nn.Sequential(nn.Linear(1, 1)))
    # torch 2.13 looks up any attribute, then refuses what is not a module
    assert raised(lambda: net.get_submodule("0.0.weight")) == (
        "AttributeError", "`weight` is not an nn.Module")
    assert raised(lambda: net.get_submodule("0.1")) == (
        "AttributeError", "Sequential has no attribute `1`")
    assert isinstance(net.get_submodule("0.0"), nn.Linear) and net.get_submodule("") is net


# ---- containers ----------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda: nn.Sequential(nn.ReLU()),
                                  lambda: nn.ModuleList([nn.ReLU()])])
def test_containers_read_their_index_as_torch(make):
    container = make()
    # torch 2.13 reads the index with operator.index
    assert raised(lambda: container["a"]) == ("TypeError",
                                              "'str' object cannot be interpreted as an integer")
    assert raised(lambda: container[1.0]) == ("TypeError",
                                              "'float' object cannot be interpreted as an integer")
    assert raised(lambda: container[3]) == ("IndexError", "index 3 is out of range")


def test_parameter_lists_read_their_index_as_torch():
    params = nn.ParameterList([ng.ones(1), ng.zeros(2)])
    # torch 2.13 reads the index with operator.index (a slice only when getting)
    assert raised(lambda: params["a"]) == ("TypeError",
                                           "'str' object cannot be interpreted as an integer")
    assert raised(lambda: params.__setitem__(slice(0, 1), [ng.ones(1)])) == (
        "TypeError", "'slice' object cannot be interpreted as an integer")
    assert len(params[::-1]) == 2 and params[-1].shape == (2,)


def test_module_lists_add_into_a_new_list_of_the_same_modules():
    relu, tanh = nn.ReLU(), nn.Tanh()
    left = nn.ModuleList([relu])
    joined = left + [tanh, relu]
    assert type(joined) is nn.ModuleList and list(joined._modules) == ["0", "1", "2"]
    assert joined[0] is relu and joined[1] is tanh and len(left) == 1
    # torch 2.13 prints runs of one module once
    assert repr(nn.ModuleList([tanh]) + nn.ModuleList([relu, relu])) == (
        "ModuleList(\n  (0): Tanh()\n  (1-2): 2 x ReLU()\n)")


def test_list_containers_refuse_what_torch_refuses():
    modules = nn.ModuleList([nn.ReLU()])
    # torch 2.13's messages
    assert raised(lambda: modules.extend(3)) == (
        "TypeError", "ModuleList.extend should be called with an iterable, but got int")
    assert raised(lambda: nn.ModuleList(3)) == (
        "TypeError", "ModuleList.extend should be called with an iterable, but got int")
    assert raised(lambda: modules + 3) == ("TypeError", "'int' object is not iterable")
    assert raised(lambda: nn.ParameterList().extend(ng.ones(2))) == (
        "TypeError", "ParameterList.extend should be called with an iterable, but got Tensor")
    for container in (modules, nn.Sequential(nn.ReLU())):
        assert raised(lambda: container.__setitem__(0, 3)) == (
            "TypeError", "cannot assign 'int' as child module '0' (numgrad.nn.Module or None "
                         "expected)")
    assert len(modules) == 1 and isinstance(modules[0], nn.ReLU)


def test_module_dict_update_refuses_what_torch_refuses():
    heads = nn.ModuleDict({"a": nn.ReLU()})
    # torch 2.13's messages
    assert raised(lambda: heads.update(3)) == (
        "TypeError", "ModuleDict.update should be called with an iterable of key/value pairs, "
                     "but got int")
    assert raised(lambda: heads.update([("b",)])) == (
        "ValueError", "ModuleDict update sequence element #0 has length 1; 2 is required")
    assert raised(lambda: heads.update([1])) == (
        "TypeError", "ModuleDict update sequence element #0 should be Iterable; isint")
    assert list(heads) == ["a"]
    heads.update([("c", nn.Tanh()), ("b", nn.ELU())])
    assert list(heads) == ["a", "c", "b"]


def test_parameter_dict_prints_tensor_types_and_parameter_list_dtypes():
    # torch 2.13: ParameterDict says [torch.FloatTensor of size 1], ParameterList
    # [torch.float32 of size 1]
    values = {"x": ng.ones(1), "y": ng.zeros(2, 3, dtype=ng.float64)}
    assert repr(nn.ParameterDict(values)) == (
        "ParameterDict(\n    (x): Parameter containing: [numgrad.FloatTensor of size 1]\n"
        "    (y): Parameter containing: [numgrad.DoubleTensor of size 2x3]\n)")
    assert repr(nn.ParameterList(values.values())) == (
        "ParameterList(\n    (0): Parameter containing: [numgrad.float32 of size 1]\n"
        "    (1): Parameter containing: [numgrad.float64 of size 2x3]\n)")


# ---- nn.init -------------------------------------------------------------------------------------
@pytest.mark.parametrize("fill, kernel", [
    (nn.init.uniform_, "check_uniform_bounds"), (nn.init.kaiming_uniform_, "check_uniform_bounds"),
    (nn.init.trunc_normal_, "check_uniform_bounds"), (nn.init.normal_, "normal_kernel_cpu"),
    (nn.init.xavier_normal_, "normal_kernel_cpu"), (nn.init.orthogonal_, "normal_kernel_cpu"),
    (lambda t: nn.init.sparse_(t, 0.5), "normal_kernel_cpu")])
def test_random_fills_refuse_integer_tensors_as_torch(fill, kernel):
    tensor = ng.zeros(3, 3, dtype=ng.int64)
    # torch 2.13: NotImplementedError "\"normal_kernel_cpu\" not implemented for 'Long'"
    assert raised(lambda: fill(tensor)) == ("NotImplementedError",
                                            f"\"{kernel}\" not implemented for 'Long'")
    assert tensor._version == 0 and tensor.tolist() == [[0] * 3] * 3
    assert raised(lambda: nn.init.normal_(ng.zeros(2, dtype=ng.bool))) == (
        "NotImplementedError", "\"normal_kernel_cpu\" not implemented for 'Bool'")


def test_random_fills_check_their_bounds_as_torch():
    tensor = ng.zeros(3)
    # torch 2.13 prints the bounds as C++ doubles
    assert raised(lambda: nn.init.uniform_(tensor, 2.0, 1.5)) == (
        "RuntimeError", "uniform_ expects to return a [from, to) range, but found from=2 > to=1.5")
    assert raised(lambda: nn.init.trunc_normal_(tensor, 0.0, 1.0, 2.0, 1.0)) == (
        "RuntimeError", "uniform_ expects to return a [from, to) range, but found from=2 > to=1")
    assert raised(lambda: nn.init.normal_(tensor, 0.0, -1.0)) == (
        "RuntimeError", "normal expects std >= 0.0, but found std -1")
    assert raised(lambda: nn.init.sparse_(ng.zeros(2, 2), 0.5, std=-1.5)) == (
        "RuntimeError", "normal expects std >= 0.0, but found std -1.5")
    assert tensor._version == 0


def test_trunc_normal_reads_a_negative_std_as_its_square():
    # torch 2.13 accepts std=-1 (its rejection sampler reads std squared: std of the values 0.54),
    # warning as its check reads std as given
    ng.manual_seed(0)
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        values = nn.init.trunc_normal_(ng.zeros(4000), 0.0, -1.0, -1.0, 1.0).numpy()
    assert values.min() >= -1 and values.max() <= 1 and abs(values.std() - 0.54) < 0.03


def test_the_deprecated_init_names_warn_and_fill():
    tensor = ng.zeros(2, 2)
    # torch 2.13: FutureWarning "`nn.init.eye` is now deprecated in favor of `nn.init.eye_`."
    with pytest.warns(FutureWarning, match=r"^`nn.init.eye` is now deprecated in favor of "
                                           r"`nn.init.eye_`.$"):
        assert nn.init.eye(tensor) is tensor
    assert tensor.tolist() == [[1, 0], [0, 1]]
    names = ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
             "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"]
    assert all(callable(getattr(nn.init, name)) for name in names)


# ---- swa_utils -----------------------------------------------------------------------------------
def test_swalr_keeps_its_strategys_name_in_its_state_as_torch():
    optimizer = ng.optim.SGD([nn.Parameter(ng.ones(1))], lr=0.5)
    scheduler = ng.optim.swa_utils.SWALR(optimizer, 0.05, anneal_epochs=4, anneal_strategy="linear")
    optimizer.step()
    scheduler.step()
    state = scheduler.state_dict()
    # torch 2.13's keys: the strategy by name, no function
    assert sorted(state) == ["_anneal_strategy", "_get_lr_called_within_step", "_is_initial",
                             "_last_lr", "_step_count", "anneal_epochs", "base_lrs", "last_epoch"]
    resumed_optimizer = ng.optim.SGD([nn.Parameter(ng.ones(1))], lr=0.5)
    resumed = ng.optim.swa_utils.SWALR(resumed_optimizer, 0.05)          # cos until loaded
    resumed.load_state_dict(state)
    resumed_optimizer.param_groups[0]["lr"] = optimizer.param_groups[0]["lr"]
    rates = []
    for _ in range(4):
        resumed_optimizer.step()
        resumed.step()
        rates.append(resumed.get_last_lr()[0])
    # torch 2.13 gives 0.275, 0.1625, 0.05, 0.05 (linear from 0.3875 after one step)
    np.testing.assert_allclose(rates, [0.275, 0.1625, 0.05, 0.05], atol=1e-12)


def test_swalr_refusals_read_as_torch():
    optimizer = ng.optim.SGD([nn.Parameter(ng.ones(1))], lr=0.5)
    # torch 2.13's messages
    assert raised(lambda: ng.optim.swa_utils.SWALR(optimizer, [0.1, 0.2])) == (
        "ValueError", "swa_lr must have the same length as optimizer.param_groups. swa_lr has 2 "
                      "values, param_groups has 1.")
    assert raised(lambda: ng.optim.swa_utils.SWALR(optimizer, 0.1, anneal_strategy="x")) == (
        "ValueError", "anneal_strategy must be one of 'cos' or 'linear', instead got x")


# ---- optimizer hooks -----------------------------------------------------------------------------
def test_step_hooks_see_the_optimizer_among_steps_arguments_as_torch():
    weight = nn.Parameter(ng.ones(2))
    optimizer = ng.optim.Adam([weight], lr=0.1)
    seen = []
    optimizer.register_step_pre_hook(lambda opt, args, kwargs: seen.append(
        ("pre", args[0] is opt, len(args), sorted(kwargs))))
    optimizer.register_step_post_hook(lambda opt, args, kwargs: seen.append(("post", len(args))))
    weight.grad = ng.ones(2)
    optimizer.step()
    optimizer.step(closure=None)
    # torch 2.13's wrapper passes step's own args, self first
    assert seen == [("pre", True, 1, []), ("post", 1), ("pre", True, 1, ["closure"]), ("post", 1)]


def test_global_step_hooks_wrap_every_optimizers_own():
    from numgrad.optim import optimizer as optimizer_module
    weight = nn.Parameter(ng.ones(2))
    optimizer = ng.optim.SGD([weight], lr=0.1)
    order = []
    optimizer.register_step_pre_hook(lambda *_: order.append("pre"))
    optimizer.register_step_post_hook(lambda *_: order.append("post"))
    handles = [optimizer_module.register_optimizer_step_pre_hook(
                   lambda opt, args, kwargs: order.append(("global pre", type(opt).__name__))),
               optimizer_module.register_optimizer_step_post_hook(
                   lambda *_: order.append("global post"))]
    weight.grad = ng.ones(2)
    try:
        optimizer.step()
    finally:
        for handle in handles:
            handle.remove()
    optimizer.step()
    # torch 2.13's order: global pre hooks first, global post hooks last
    assert order == [("global pre", "SGD"), "pre", "post", "global post", "pre", "post"]


# ---- nn.Module state and conversion --------------------------------------------------------------
def test_load_state_dict_with_assign_takes_the_checkpoints_tensors():
    layer = nn.BatchNorm1d(2)
    weight = layer.weight
    state = {key: value.clone() for key, value in layer.state_dict().items()}
    state["bias"] = ng.zeros(2, dtype=ng.float64)
    layer.requires_grad_(False)
    layer.load_state_dict(state, assign=True)
    # torch 2.13: new Parameters over the checkpoint's memory, in its dtype, with the
    # requires_grad of the parameters they replace
    assert layer.weight is not weight and type(layer.weight) is nn.Parameter
    assert layer.bias.dtype == ng.float64 and not layer.bias.requires_grad
    with ng.no_grad():
        state["weight"][0] = 7.0
        state["running_mean"][1] = 3.0
    assert layer.weight.tolist() == [7.0, 1.0] and layer.running_mean.tolist() == [0.0, 3.0]
    assert list(layer.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                        "num_batches_tracked"]


def test_a_one_element_vector_loads_into_a_0d_parameter_as_torch():
    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(ng.tensor(1.0))
    module = Scaled()
    # torch 2.13 takes element 0 of a 1-d entry for a 0-d parameter (older checkpoints)...
    assert repr(module.load_state_dict({"scale": ng.tensor([5.0])})) == (
        "<All keys matched successfully>")
    assert module.scale.tolist() == 5.0 and module.scale.shape == ()
    # ...and only of a one-element 1-d one
    for shape in ([1, 1], [2]):
        assert raised(lambda: module.load_state_dict({"scale": ng.ones(shape)})) == (
            "RuntimeError", "Error(s) in loading state_dict for Scaled:\n\tsize mismatch for "
                            f"scale: copying a param with shape numgrad.Size({shape}) from "
                            "checkpoint, the shape in current model is numgrad.Size([]).")


def test_module_to_skips_non_blocking_and_type_casts_every_tensor():
    net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    # torch 2.13: to(device, dtype, non_blocking) with the flag positional
    assert net.to("cpu", ng.float64, False) is net and net[0].weight.dtype == ng.float64
    # Module.type casts integer buffers too
    assert net.type(ng.float32) is net
    assert net[1].num_batches_tracked.dtype == ng.float32 and net[0].bias.dtype == ng.float32


def test_non_persistent_buffers_are_kept_under_torchs_attribute_name():
    layer = nn.Linear(1, 1)
    layer.register_buffer("scratch", ng.zeros(1), persistent=False)
    assert layer._non_persistent_buffers_set == {"scratch"}
    assert "scratch" not in layer.state_dict()


def test_global_module_hooks_run_around_every_modules_own():
    from numgrad.nn import module as module_api
    log = []
    handles = [
        module_api.register_module_forward_pre_hook(
            lambda m, args: log.append(("pre", m._get_name()))),
        module_api.register_module_forward_hook(
            lambda m, args, kwargs, out: log.append(("fwd", m._get_name())), with_kwargs=True),
        module_api.register_module_full_backward_pre_hook(
            lambda m, grad_output: log.append(("bpre", m._get_name()))),
        module_api.register_module_full_backward_hook(
            lambda m, grad_input, grad_output: log.append(("bwd", m._get_name()))),
        module_api.register_module_parameter_registration_hook(
            lambda m, name, param: log.append(("param", name))),
        module_api.register_module_module_registration_hook(
            lambda m, name, child: log.append(("child", name))),
        module_api.register_module_buffer_registration_hook(
            lambda m, name, buffer: ng.full((1,), 5.0))]
    try:
        net = nn.Sequential(nn.Linear(1, 1), nn.ReLU())
        net[0].register_forward_pre_hook(lambda *_: log.append("own pre"))
        net[0].register_forward_hook(lambda *_: log.append("own fwd"))
        net[0].register_full_backward_hook(lambda *_: log.append("own bwd"))
        net.register_buffer("count", ng.zeros(1))
        net(ng.ones(1, 1, requires_grad=True)).sum().backward()
    finally:
        for handle in handles:
            handle.remove()
    net(ng.ones(1, 1))
    # torch 2.13's order: the global hooks before the module's own, forward and backward
    assert log == [("param", "weight"), ("param", "bias"), ("child", "0"), ("child", "1"),
                   ("pre", "Sequential"), ("pre", "Linear"), "own pre", ("fwd", "Linear"),
                   "own fwd", ("pre", "ReLU"), ("fwd", "ReLU"), ("fwd", "Sequential"),
                   ("bpre", "Sequential"), ("bpre", "ReLU"), ("bwd", "ReLU"), ("bpre", "Linear"),
                   ("bwd", "Linear"), "own bwd", ("bwd", "Sequential"), "own pre", "own fwd"]
    assert net.count.tolist() == [5.0]       # a registration hook's tensor replaces the buffer


def test_a_global_always_call_forward_hook_runs_when_forward_raises():
    from numgrad.nn import module as module_api
    seen = []
    handle = module_api.register_module_forward_hook(
        lambda m, args, out: seen.append((args, out)), always_call=True)

    class Failing(nn.Module):
        def forward(self, x):
            raise ValueError("no")
    try:
        with pytest.raises(ValueError, match="no"):
            Failing()(1)
    finally:
        handle.remove()
    assert seen == [((1,), None)]


# ---- module backward hooks ------------------------------------------------------------------------
def test_the_output_of_a_module_with_backward_hooks_refuses_in_place_ops_as_torch():
    layer = nn.Linear(2, 2)
    layer.register_full_backward_hook(lambda *_: None)
    output = layer(ng.ones(1, 2))
    # torch 2.13: the hook's identity Function returns its inputs as-is, views that an in-place
    # op may not change (nn.ReLU(inplace=True) after a hooked layer fails so)
    assert output.grad_fn.name() == "BackwardHookFunctionBackward"
    assert raised(lambda: nn.ReLU(inplace=True)(output)) == (
        "RuntimeError", "Output 0 of BackwardHookFunction is a view and is being modified "
                        "inplace. This view was created inside a custom Function (or because an "
                        "input was returned as-is) and the autograd logic to handle view+inplace "
                        "would override the custom backward associated with the custom Function, "
                        "leading to incorrect gradients. This behavior is forbidden. You can fix "
                        "this by cloning the output of the custom Function.")
    assert output._version == 0
    with ng.no_grad():
        assert not layer(ng.ones(1, 2)).add_(1).requires_grad     # no hook Function there


# ---- state_dict metadata and the older hook forms -------------------------------------------------
def test_state_dict_records_each_modules_version_as_torch():
    net = nn.Sequential(nn.BatchNorm1d(2), nn.Linear(1, 1))
    state = net.state_dict()
    # torch 2.13: {'': {'version': 1}, '0': {'version': 2}, '1': {'version': 1}}
    assert state._metadata == {"": {"version": 1}, "0": {"version": 2}, "1": {"version": 1}}
    del state["0.num_batches_tracked"]
    # torch 2.13: a current (version 2) batch norm entry needs its count...
    assert raised(lambda: net.load_state_dict(state)) == (
        "RuntimeError", "Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in "
                        "state_dict: \"0.num_batches_tracked\". ")
    # ...which a plain dict (no version) or a version 1 checkpoint is given
    assert repr(net.load_state_dict(dict(state))) == "<All keys matched successfully>"
    state._metadata["0"]["version"] = 1
    assert repr(net.load_state_dict(state)) == "<All keys matched successfully>"


def test_state_dict_hooks_see_the_modules_metadata():
    layer = nn.Linear(1, 1)
    seen = []
    layer.register_state_dict_post_hook(
        lambda module, state, prefix, local_metadata: seen.append(("post", local_metadata)))
    layer.register_load_state_dict_pre_hook(
        lambda module, state, prefix, local_metadata, *rest: seen.append(("load", local_metadata)))
    layer.load_state_dict(layer.state_dict())
    assert seen == [("post", {"version": 1}), ("load", {"version": 1})]


def test_the_older_private_hook_forms_libraries_use():
    layer = nn.Linear(1, 1)
    # torch's _register_state_dict_hook may replace the state dict; the public one may not
    layer._register_state_dict_hook(lambda module, state, prefix, local_metadata: {"only": 1})
    assert layer.state_dict() == {"only": 1}
    strict_layer = nn.Linear(1, 1)
    strict_layer.register_state_dict_post_hook(lambda *_: {})
    assert raised(strict_layer.state_dict) == ("RuntimeError",
                                               "state_dict post-hook must return None")
    seen = []
    target = nn.Linear(1, 1)
    target._register_load_state_dict_pre_hook(
        lambda state, prefix, local_metadata, strict, *rest: seen.append((prefix, strict)))
    target._register_load_state_dict_pre_hook(
        lambda module, state, *rest: seen.append(type(module).__name__), with_module=True)
    target.load_state_dict(nn.Linear(1, 1).state_dict())
    assert seen == [("", True), "Linear"]


# ---- lr_scheduler ---------------------------------------------------------------------------------
def test_schedulers_written_for_torchs_old_base_class_run():
    class Halving(ng.optim.lr_scheduler._LRScheduler):
        def get_lr(self):
            return [base * 0.5 ** self.last_epoch for base in self.base_lrs]
    optimizer = ng.optim.SGD([nn.Parameter(ng.zeros(1))], lr=0.8)
    scheduler = Halving(optimizer)
    rates = []
    for _ in range(3):
        optimizer.step()
        scheduler.step()
        rates.append(scheduler.get_last_lr()[0])
    # torch 2.13 gives 0.4, 0.2, 0.1
    assert rates == [0.4, 0.2, 0.1] and Halving.__mro__[1].__name__ == "_LRScheduler"
    assert isinstance(scheduler, ng.optim.lr_scheduler.LRScheduler)


# ---- Muon -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("options, weight, buffer", [
    # torch 2.13's parameter and momentum buffer after three steps (its Newton-Schulz in bfloat16)
    (dict(lr=0.05),
     [[0.39146653013722493, -1.0317992020664417], [1.5259597173082393, 0.08506529905401991],
      [-0.6550532968538908, 2.065853108310409]],
     [[0.15465106712954776, -0.003722348352427765], [-0.125540863527757, 0.0937885707929116],
      [-0.1045516446475859, -0.012791334632558578]]),
    (dict(lr=0.05, nesterov=False, adjust_lr_fn="match_rms_adamw"),
     [[0.46482847179526693, -0.994178241845581], [1.4919954053340727, 0.20351379049719948],
      [-0.7146118607707255, 2.0003242655031976]],
     [[0.15651916943268163, -0.006667550166560594], [-0.12445629027360558, 0.10690154242183468],
      [-0.09951673824056521, -0.02452522669210257]])])
def test_muon_steps_as_torchs(options, weight, buffer):
    w = nn.Parameter(ng.tensor([[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0]], dtype=ng.float64))
    optimizer = ng.optim.Muon([w], **options)
    for k in range(3):
        w.grad = (w.detach() * 3).sin() + 0.1 * k
        optimizer.step()
    np.testing.assert_allclose(w.detach().numpy(), weight, rtol=0, atol=1e-12)
    np.testing.assert_allclose(optimizer.state[w]["momentum_buffer"].numpy(), buffer, rtol=0,
                               atol=1e-12)
    assert sorted(optimizer.state_dict()["param_groups"][0]) == [
        "adjust_lr_fn", "eps", "lr", "momentum", "nesterov", "ns_coefficients", "ns_steps",
        "params", "weight_decay"]


def test_muon_refuses_what_torch_refuses():
    # torch 2.13's messages
    assert raised(lambda: ng.optim.Muon([nn.Parameter(ng.zeros(3))])) == (
        "ValueError", "Muon only supports 2D parameters whereas we found a parameter with size: "
                      "numgrad.Size([3])")
    assert raised(lambda: ng.optim.Muon([nn.Parameter(ng.zeros(2, 2))], adjust_lr_fn="x")) == (
        "ValueError", "Adjust learning rate function x is not supported")
    w = nn.Parameter(ng.zeros(2, 2))
    optimizer = ng.optim.Muon([w], ns_steps=100)
    w.grad = ng.ones(2, 2)
    assert raised(optimizer.step) == (
        "ValueError", "Number of steps must be less than 100 for computational efficiency")


# ---- nn.utils.rnn ---------------------------------------------------------------------------------
def test_packed_sequences_answer_is_pinned_as_torch():
    packed = nn.utils.rnn.pack_sequence([ng.ones(3, 2), ng.ones(2, 2)])
    # torch 2.13: False for a CPU tensor's data
    assert packed.is_pinned() is False and packed.is_cuda is False


# ---- nn.utils fusion ------------------------------------------------------------------------------
def _eval_batch_norm():
    norm = nn.BatchNorm1d(2, dtype=ng.float64)
    with ng.no_grad():
        norm.running_mean.copy_(ng.tensor([0.25, 1.0]))
        norm.running_var.copy_(ng.tensor([4.0, 0.5]))
        norm.weight.copy_(ng.tensor([2.0, -1.0]))
        norm.bias.copy_(ng.tensor([0.1, 0.2]))
    return norm.eval()


def test_fusing_a_batch_norm_into_the_layer_before_it_gives_torchs_weights():
    linear = nn.Linear(2, 2, dtype=ng.float64)
    with ng.no_grad():
        linear.weight.copy_(ng.tensor([[1.0, 2.0], [3.0, -1.0]]))
        linear.bias.copy_(ng.tensor([0.5, -0.5]))
    fused = nn.utils.fuse_linear_bn_eval(linear.eval(), _eval_batch_norm())
    # torch 2.13's fused parameters
    np.testing.assert_allclose(fused.weight.detach().numpy(), [
        [0.9999987500023437, 1.9999975000046875], [-4.2425982613488, 1.4141994204496]],
        rtol=0, atol=1e-15)
    np.testing.assert_allclose(fused.bias.detach().numpy(),
                               [0.34999968899070205, 2.321299133654632], rtol=0, atol=1e-15)
    assert fused is not linear and linear.weight.tolist() == [[1.0, 2.0], [3.0, -1.0]]
    conv = nn.ConvTranspose1d(2, 2, 1, bias=False, dtype=ng.float64)
    with ng.no_grad():
        conv.weight.copy_(ng.tensor([[[1.0], [2.0]], [[3.0], [-1.0]]]))
    fused = nn.utils.fuse_conv_bn_eval(conv.eval(), _eval_batch_norm(), transpose=True)
    np.testing.assert_allclose(fused.weight.detach().numpy(), [
        [[0.9999987500023437], [-2.8283988408992]], [[2.9999962500070314], [1.4141994204496]]],
        rtol=0, atol=1e-15)
    np.testing.assert_allclose(fused.bias.detach().numpy(),
                               [-0.1499996860104698, 1.6141994234298322], rtol=0, atol=1e-15)
    assert type(fused.bias) is nn.Parameter and not fused.bias.requires_grad   # a made-up bias
    assert raised(lambda: nn.utils.fuse_conv_bn_eval(conv.train(), _eval_batch_norm())) == (
        "AssertionError", "Fusion only for eval!")


# ---- float32 optimizer state ----------------------------------------------------------------------
@pytest.mark.parametrize("make, key, expected", [
    # torch 2.13's float32 state after two steps: its addcmul_ fuses the product into the sum
    (lambda p: ng.optim.Adam([p], lr=0.01), "exp_avg_sq",
     [0.002024914836511016, 0.0005680215544998646, 0.0011932776542380452, 0.001931457780301571]),
    (lambda p: ng.optim.RMSprop([p], lr=0.01), "square_avg",
     [0.02024863287806511, 0.005676538683474064, 0.011889406479895115, 0.01926281303167343]),
    (lambda p: ng.optim.Adagrad([p], lr=0.01), "sum",
     [2.0249204635620117, 0.5680623650550842, 1.1937594413757324, 1.9320327043533325])])
def test_float32_second_moments_round_once_as_torchs_fused_addcmul(make, key, expected):
    p = nn.Parameter(ng.zeros(4))
    optimizer = make(p)
    for grad in ([-0.0757015272974968, 0.20211438834667206, 0.6941719651222229,
                  -0.7583697438240051],
                 [1.420982003211975, 0.7260937690734863, 0.8437326550483704, 1.16486394405365]):
        p.grad = ng.tensor(grad, dtype=ng.float32)
        optimizer.step()
    assert optimizer.state[p][key].tolist() == expected       # bit for bit


def test_averaged_model_runs_torchs_cpu_mean_and_averages_integer_buffers():
    swa_utils = ng.optim.swa_utils
    layer = nn.Linear(1, 3, bias=False)
    averaged = swa_utils.AveragedModel(layer)
    for weights in ([0.1, 0.7, 1.3], [0.2, 0.3, 0.9], [0.35, 0.15, 0.05]):
        with ng.no_grad():
            layer.weight.copy_(ng.tensor(weights).reshape(3, 1))
        averaged.update_parameters(layer)
    # torch 2.13 on the CPU: averaged + (current - averaged) / (n + 1), in float32
    assert averaged.module.weight.detach().reshape(-1).tolist() == [
        0.21666666865348816, 0.38333332538604736, 0.7499998807907104]
    norm = nn.BatchNorm1d(2)
    ema = swa_utils.AveragedModel(norm, use_buffers=True,
                                  multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.5))
    counts = []
    for k in range(4):
        norm(ng.tensor([[1.0, 2.0], [3.0, 5.0 + k]]))
        ema.update_parameters(norm)
        counts.append(ema.module.num_batches_tracked.item())
    # torch 2.13 averages the integer counter too (truncated)
    assert counts == [1, 1, 2, 3]
    assert raised(lambda: swa_utils.get_ema_multi_avg_fn(1.5)) == (
        "ValueError", "Invalid decay value 1.5 provided. Please provide a value in [0,1] range.")


@pytest.mark.parametrize("fill, shape, version", [
    # torch 2.13's version after the fill: its count of in-place writes
    (lambda t: nn.init.dirac_(t), (4, 3, 3), 4), (lambda t: nn.init.dirac_(t, 2), (6, 2, 3, 3), 5),
    (nn.init.orthogonal_, (4, 3), 2), (nn.init.orthogonal_, (0, 3), 0),
    (lambda t: nn.init.sparse_(t, 0.5), (5, 4), 5), (nn.init.xavier_uniform_, (4, 3), 1)])
def test_init_fills_bump_the_version_as_torchs_writes(fill, shape, version):
    tensor = ng.empty(*shape)
    fill(tensor)
    assert tensor._version == version


# ---- gradient clipping ----------------------------------------------------------------------------
@pytest.mark.parametrize("max_norm", [100.0, 0.1])
def test_clip_grad_norm_scales_every_gradient_as_torch(max_norm):
    weight = nn.Parameter(ng.ones(3))
    weight.grad = ng.ones(3)
    before = weight.grad._version
    norm = nn.utils.clip_grad_norm_([weight], max_norm)
    # torch 2.13 multiplies by min(coef, 1): within the bound too, so the version moves on
    assert weight.grad._version == before + 1
    expected = 1.0 if max_norm == 100.0 else float(np.float32(0.1) / np.float32(3 ** 0.5 + 1e-6))
    np.testing.assert_allclose(weight.grad.numpy(), [expected] * 3, rtol=1e-6)
    assert abs(norm.item() - 3 ** 0.5) < 1e-6
