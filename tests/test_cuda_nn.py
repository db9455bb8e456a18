"""nn and optim unchanged on the GPU: Module.to/cuda/cpu move parameters in place, and a training
loop (layers, losses, every optimizer, gradient clipping, a scheduler, checkpoints) run on cuda
tensors ends where the same loop on the CPU does. Tiny sizes: the simulator runs each thread in
Python."""
import copy
import io

import numpy as np
import pytest

import numgrad as ng
import numgrad.cuda
import numgrad.nn as nn
import numgrad.nn.functional as F
from numgrad import optim

pytestmark = pytest.mark.skipif(not numgrad.cuda.is_available(),
                                reason="needs numba-cuda and a GPU or its simulator")

# float64 runs agree to rounding (reductions add in another order); float32 to its precision
TOLERANCE = {ng.float64: dict(rtol=1e-9, atol=1e-12), ng.float32: dict(rtol=2e-4, atol=2e-5)}


def host(t):
    return t.detach().cpu().numpy()


def mlp():
    return nn.Sequential(nn.Linear(4, 5), nn.LayerNorm(5), nn.GELU(), nn.Dropout(0.25),
                         nn.Linear(5, 3), nn.Tanh())


def small():
    return nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 3))


def pair(make, dtype):
    """The same model twice, on the CPU and on the GPU, with equal parameters: the GPU one gets
    the CPU one's state dict (loaded across devices)."""
    ng.manual_seed(0)
    cpu = make().to(dtype)
    gpu = make().to("cuda", dtype)
    gpu.load_state_dict(cpu.state_dict())
    return cpu, gpu


def assert_same_parameters(cpu, gpu, dtype):
    for (name, c), (_, g) in zip(cpu.named_parameters(), gpu.named_parameters()):
        assert g.is_cuda and g.dtype == dtype, name
        np.testing.assert_allclose(host(g), host(c), err_msg=name, **TOLERANCE[dtype])


def train(model, opt, device, steps=2, clip=None, scheduler=False):
    """steps of a classification loop on fixed data; the dropout masks come from numgrad's
    generator, seeded here, so both devices draw the same ones. Returns the losses."""
    rng = np.random.default_rng(0)
    dtype = next(model.parameters()).dtype
    x = ng.tensor(rng.standard_normal((8, 4)), dtype=dtype, device=device)
    y = ng.tensor(rng.integers(0, 3, 8), device=device)
    sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5) if scheduler else None
    ng.manual_seed(1)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        if clip is not None:
            nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        if sched is not None:
            sched.step()
        losses.append(loss.item())
    return losses


OPTIMIZERS = {
    "sgd": lambda ps: optim.SGD(ps, lr=0.1),
    "sgd-momentum-decay": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
    "sgd-nesterov": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.8, nesterov=True),
    "adam": lambda ps: optim.Adam(ps, lr=0.01, weight_decay=0.01),
    "adam-amsgrad": lambda ps: optim.Adam(ps, lr=0.01, amsgrad=True),
    "adamw": lambda ps: optim.AdamW(ps, lr=0.01),
    "rmsprop": lambda ps: optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True),
    "adagrad": lambda ps: optim.Adagrad(ps, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1),
}


# ---- Module.to / cuda / cpu --------------------------------------------------------------------
def test_to_cuda_moves_in_place_keeping_parameters_and_grads():
    model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    params = list(model.parameters())
    model(ng.randn(4, 3)).sum().backward()
    grads = [p.grad for p in params]
    expected = [host(p) for p in params]
    assert model.to("cuda") is model
    assert list(model.parameters()) == params and all(a is b for a, b in zip(model.parameters(),
                                                                                params))
    for p, g, value in zip(params, grads, expected):
        assert p.is_cuda and p.requires_grad and p.is_leaf and isinstance(p, nn.Parameter)
        assert p.grad is g and g.is_cuda           # the grad tensor moves too, keeping itself
        np.testing.assert_array_equal(host(p), value)
    bn = model[1]
    assert bn.running_mean.is_cuda and bn.num_batches_tracked.is_cuda
    assert bn.num_batches_tracked.dtype == ng.int64      # only floating tensors change dtype
    clone = copy.deepcopy(model)                         # new device memory, not shared
    clone[0].weight.data.zero_()
    assert clone[0].weight.is_cuda and np.array_equal(host(params[0]), expected[0])
    assert model.cpu() is model and all(not p.is_cuda for p in params)
    assert params[0].grad.device == ng.device("cpu")
    np.testing.assert_array_equal(host(params[0]), expected[0])


@pytest.mark.parametrize("move", [lambda m: m.cuda(), lambda m: m.cuda(0),
                                  lambda m: m.to(device="cuda:0"),
                                  lambda m: m.to(ng.device("cuda")),
                                  lambda m: m.to(ng.zeros(1, device="cuda"))])
def test_every_spelling_of_cuda(move):
    model = nn.Linear(2, 2)
    assert move(model) is model and model.weight.is_cuda and model.weight.dtype == ng.float32


def test_device_and_dtype_at_once():
    model = nn.Linear(2, 2)
    model.to("cuda", ng.float64)
    assert model.weight.is_cuda and model.weight.dtype == ng.float64
    model.to(ng.zeros(1, dtype=ng.float32))            # a tensor gives both: CPU, float32
    assert not model.weight.is_cuda and model.weight.dtype == ng.float32
    model.to(device="cuda", dtype=ng.float64).float()   # float() keeps the device
    assert model.bias.is_cuda and model.bias.dtype == ng.float32
    with pytest.raises(TypeError, match="floating point"):
        model.to("cuda", ng.int64)


def test_an_optimizer_made_before_the_move_updates_the_moved_parameters():
    ng.manual_seed(0)
    model = nn.Linear(3, 1)
    opt = optim.Adagrad(model.parameters(), lr=0.1)      # its state is made now, on the CPU
    before = host(model.weight)
    model.cuda()
    model(ng.ones(2, 3, device="cuda")).sum().backward()
    opt.step()
    assert model.weight.is_cuda and opt.state[model.weight]["sum"].is_cuda
    np.testing.assert_allclose(host(model.weight), before - 0.1, rtol=1e-5)


def test_a_cpu_input_to_a_cuda_module_raises_torchs_error():
    model = nn.Linear(2, 1).cuda()
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, but "
                                           "found at least two devices, cuda:0 and cpu!"):
        model(ng.ones(1, 2))


def test_a_grad_on_another_device_is_refused_like_torch():
    p = nn.Linear(2, 1).cuda().weight
    with pytest.raises(RuntimeError, match="attempting to assign a gradient located on device with "
                                           "index '-1' to a tensor located on device with index '0'"):
        p.grad = ng.ones(1, 2)
    assert p.grad is None


# ---- optimizers ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [ng.float64, ng.float32])
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_optimizer_steps_match_the_cpu_in_the_cuda_twins(name, dtype, monkeypatch):
    """Three steps on the same gradients (made on the host, so no forward runs in the simulator),
    with a scheduler: parameters and state agree, and the GPU's went through the CUDA twin."""
    from numgrad.cuda import optim as twins
    kernel = name.split("-")[0].rstrip("w") + "_update"   # adamw runs adam's kernel
    real, calls = getattr(twins, kernel), []
    monkeypatch.setattr(twins, kernel, lambda *args: calls.append(args) or real(*args))
    rng = np.random.default_rng(0)
    start = [rng.standard_normal((3, 2)).T, rng.standard_normal(4)]   # one not contiguous
    grads = [[rng.standard_normal(a.shape) for a in start] for _ in range(3)]
    runs = []
    for device in ("cpu", "cuda"):
        params = [nn.Parameter(ng.tensor(a, dtype=dtype, device=device)) for a in start]
        opt = OPTIMIZERS[name](params)
        sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        for step in grads:
            for p, g in zip(params, step):
                p.grad = ng.tensor(g, dtype=dtype, device=device)
            opt.step()
            sched.step()
        runs.append((params, opt))
    (cpu_params, cpu_opt), (gpu_params, gpu_opt) = runs
    assert len(calls) == 3 * len(start)
    for c, g in zip(cpu_params, gpu_params):
        assert g.is_cuda and g.dtype == dtype
        np.testing.assert_allclose(host(g), host(c), **TOLERANCE[dtype])
        for key, value in cpu_opt.state[c].items():
            moved = gpu_opt.state[g][key]
            assert moved.is_cuda == (key != "step"), key    # the step counter stays on the CPU
            np.testing.assert_allclose(host(moved), host(value), err_msg=key, **TOLERANCE[dtype])


# ---- training ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [ng.float64, ng.float32])
def test_training_steps_match_the_cpu(dtype):
    """Linear, LayerNorm, GELU, Dropout in training, Tanh, cross_entropy; SGD with Nesterov
    momentum and weight decay, gradient clipping and a scheduler."""
    cpu, gpu = pair(mlp, dtype)
    def make(params):
        return optim.SGD(params, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)
    cpu_losses = train(cpu, make(cpu.parameters()), "cpu", steps=2, clip=0.5, scheduler=True)
    gpu_losses = train(gpu, make(gpu.parameters()), "cuda", steps=2, clip=0.5, scheduler=True)
    np.testing.assert_allclose(gpu_losses, cpu_losses, **TOLERANCE[dtype])
    assert_same_parameters(cpu, gpu, dtype)


def test_clip_grad_on_the_device():
    w = nn.Parameter(ng.tensor([3.0, 4.0], device="cuda"))
    (w * w).sum().backward()
    norm = nn.utils.clip_grad_norm_([w], 1.0)
    assert norm.is_cuda and norm.item() == pytest.approx(10.0)
    np.testing.assert_allclose(host(w.grad), [0.6, 0.8], rtol=1e-5)
    assert nn.utils.clip_grad_norm_([w], 1.0, norm_type="inf").item() == pytest.approx(0.8)
    nn.utils.clip_grad_value_([w], 0.7)
    np.testing.assert_allclose(host(w.grad), [0.6, 0.7], rtol=1e-6)


class ConvNet(nn.Module):
    """Conv2d, MaxPool2d and an Embedding feeding one logit per example."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.embed = nn.Embedding(4, 8)
        self.head = nn.Linear(8, 1)

    def forward(self, image, token):
        features = self.pool(self.conv(image).relu()).flatten(1) + self.embed(token)
        return self.head(features).squeeze(1)


def test_conv_pool_embedding_and_two_losses_match_the_cpu():
    cpu, gpu = pair(ConvNet, ng.float64)
    rng = np.random.default_rng(0)
    image, token = rng.standard_normal((2, 1, 4, 4)), rng.integers(0, 4, 2)
    target = rng.integers(0, 2, 2)
    bce = nn.BCEWithLogitsLoss()
    for model, device in ((cpu, "cpu"), (gpu, "cuda")):
        opt = optim.SGD(model.parameters(), lr=0.5)
        inputs = (ng.tensor(image, device=device), ng.tensor(token, device=device))
        labels = ng.tensor(target, dtype=ng.float64, device=device)
        opt.zero_grad()
        logits = model(*inputs)
        loss = bce(logits, labels) + F.mse_loss(logits.sigmoid(), labels)
        loss.backward()
        opt.step()
    assert_same_parameters(cpu, gpu, ng.float64)


def test_dropout_draws_the_cpu_mask_in_training_and_is_identity_in_eval():
    drop = nn.Dropout(0.5)
    x = ng.ones(6, 5, dtype=ng.float64)
    ng.manual_seed(3)
    on_cpu = drop(x)
    ng.manual_seed(3)
    on_gpu = drop(x.cuda())
    assert on_gpu.is_cuda
    np.testing.assert_array_equal(host(on_gpu), host(on_cpu))
    drop.eval()
    np.testing.assert_array_equal(host(drop(x.cuda())), np.ones((6, 5)))


# ---- state dicts and checkpoints -------------------------------------------------------------------
def test_state_dict_save_and_load_across_devices():
    ng.manual_seed(0)
    model = mlp().cuda()
    state = model.state_dict()
    assert all(v.is_cuda for v in state.values())
    buffer = io.BytesIO()
    ng.save(state, buffer)
    buffer.seek(0)
    loaded = ng.load(buffer)                      # saved from the host: back on the CPU
    assert all(not v.is_cuda for v in loaded.values())
    for key, value in state.items():
        np.testing.assert_array_equal(loaded[key].numpy(), host(value))
    buffer.seek(0)
    assert all(v.is_cuda for v in ng.load(buffer, map_location="cuda").values())
    copy = mlp()
    copy.load_state_dict(state)                    # a GPU state dict into a CPU module
    assert not copy[0].weight.is_cuda
    np.testing.assert_array_equal(host(copy[0].weight), host(model[0].weight))


def test_optimizer_state_dict_round_trip_continues_the_run():
    """A step on the GPU, a checkpoint of model and optimizer through ng.save, another step in a
    fresh model and optimizer: they end where the CPU's two steps do."""
    cpu, gpu = pair(small, ng.float64)
    make = OPTIMIZERS["adam"]
    cpu_opt, gpu_opt = make(cpu.parameters()), make(gpu.parameters())
    for _ in range(2):
        train(cpu, cpu_opt, "cpu", steps=1)
    train(gpu, gpu_opt, "cuda", steps=1)
    buffer = io.BytesIO()
    ng.save({"model": gpu.state_dict(), "optimizer": gpu_opt.state_dict()}, buffer)
    buffer.seek(0)
    checkpoint = ng.load(buffer)                   # CPU tensors
    resumed = small().to("cuda", ng.float64)
    resumed.load_state_dict(checkpoint["model"])
    resumed_opt = make(resumed.parameters())
    resumed_opt.load_state_dict(checkpoint["optimizer"])
    for p in resumed.parameters():                 # state goes to its parameter's device
        assert resumed_opt.state[p]["exp_avg"].is_cuda
        assert not resumed_opt.state[p]["step"].is_cuda
    train(resumed, resumed_opt, "cuda", steps=1)
    assert_same_parameters(cpu, resumed, ng.float64)
    assert resumed_opt.state_dict()["param_groups"] == cpu_opt.state_dict()["param_groups"]


def test_a_gpu_optimizer_state_loads_into_cpu_parameters():
    model = nn.Linear(2, 1).cuda()
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(ng.ones(1, 2, device="cuda")).sum().backward()
    opt.step()
    cpu_model = nn.Linear(2, 1)
    cpu_opt = optim.SGD(cpu_model.parameters(), lr=0.1, momentum=0.9)
    cpu_opt.load_state_dict(opt.state_dict())
    buf = cpu_opt.state[cpu_model.weight]["momentum_buffer"]
    assert not buf.is_cuda
    np.testing.assert_array_equal(buf.numpy(), host(opt.state[model.weight]["momentum_buffer"]))


def test_batchnorm_training_with_nll_loss_matches_the_cpu_running_stats_included():
    """BatchNorm1d counts its batches in a 0-d int64 buffer (0-d op Python scalar stays 0-d on the
    GPU) and nll_loss weighs rows by a host array; both ran on the CPU only before."""
    make = lambda: nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.LogSoftmax(dim=1))  # noqa: E731
    cpu, gpu = pair(make, ng.float64)
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((5, 3)), rng.integers(0, 4, 5)
    for model, device in ((cpu, "cpu"), (gpu, "cuda")):
        opt = optim.SGD(model.parameters(), lr=0.3)
        for _ in range(2):
            opt.zero_grad()
            F.nll_loss(model(ng.tensor(x, device=device)), ng.tensor(y, device=device),
                       weight=ng.tensor([1.0, 2.0, 0.5, 1.0], dtype=ng.float64,
                                        device=device)).backward()
            opt.step()
    assert_same_parameters(cpu, gpu, ng.float64)
    for (name, c), (_, g) in zip(cpu.named_buffers(), gpu.named_buffers()):
        assert g.is_cuda and tuple(g.shape) == tuple(c.shape), name
        np.testing.assert_allclose(host(g), host(c), err_msg=name, **TOLERANCE[ng.float64])
    assert int(gpu[1].num_batches_tracked.item()) == 2


def test_a_zero_dim_tensor_with_a_python_scalar_stays_zero_dim():
    for value in (ng.tensor(3.0, device="cuda"), ng.tensor(3, device="cuda")):
        for result in (value + 1, 2 * value, value ** 2, value > 1):
            assert tuple(result.shape) == ()
    kept = ng.masked_select(ng.tensor([1.0, 2.0, 3.0], device="cuda"),
                            ng.tensor([True, False, True], device="cuda"))
    np.testing.assert_array_equal(host(kept), [1.0, 3.0])
