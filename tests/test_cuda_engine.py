"""CUDA tensors and the GPU backward: devices, transfers and their errors, the level-batched engine
(atomics where contributions meet, one launch per level and op kind), accumulation, hooks, custom
Functions, double backward, and a small network trained on both devices. Runs in numba-cuda's
simulator without a GPU (conftest.py); skipped without numba-cuda."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.cuda
import numgrad.nn as nn
import numgrad.nn.functional as F
from numgrad.autograd import Function

pytestmark = pytest.mark.skipif(not numgrad.cuda.is_available(),
                                reason="needs numba-cuda and a GPU or its simulator")


def cuda(data, **kw):
    return ng.tensor(data, device="cuda", **kw)


def host(t):
    return t.detach().cpu().numpy()


# ---- tensors on the device ---------------------------------------------------------------------
def test_device_transfers_and_conversions():
    x = cuda([1.5, 2.0], requires_grad=True)
    assert x.device == ng.device("cuda", 0) and str(x.device) == "cuda:0" and x.is_cuda
    assert x.is_leaf and x.requires_grad and x.dtype == np.float32
    assert repr(x) == "tensor([1.5000, 2.0000], device='cuda:0', requires_grad=True)"
    assert x.tolist() == [1.5, 2.0] and x[1].item() == 2.0
    back = x.detach().cpu()
    assert back.device == ng.device("cpu") and np.array_equal(back.numpy(), [1.5, 2.0])
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        x.detach().numpy()
    with pytest.raises(TypeError, match="Tensor.cpu"):
        np.asarray(x.detach())
    assert np.array_equal(x.numpy(force=True), [1.5, 2.0])
    y = x.to("cuda", ng.float64)           # same device: a recorded cast, as in torch
    assert y.dtype == np.float64 and y.is_cuda and y.grad_fn.name() == "ToCopyBackward0"
    z = x.detach().cpu().requires_grad_().to("cuda", ng.float64)     # a new leaf (see to_device)
    assert z.dtype == np.float64 and z.is_cuda and z.requires_grad and z.is_leaf
    assert x.cuda() is x and x.cuda(0) is x   # already there: no copy, as in torch
    assert ng.tensor([1, 2]).cuda().dtype == np.int64


def test_creation_functions_take_a_device():
    for t in (ng.zeros(2, 3, device="cuda"), ng.ones(4, device="cuda"),
              ng.full((2,), 7.0, device="cuda"), ng.arange(5, device="cuda"),
              ng.randn(3, device="cuda"), ng.eye(2, device="cuda")):
        assert t.is_cuda
    t = ng.randn(2, 2, device="cuda", requires_grad=True)
    assert t.is_leaf and t.requires_grad
    assert ng.zeros_like(t).is_cuda and ng.ones_like(t, device="cpu").device.type == "cpu"
    assert np.array_equal(host(ng.full_like(t, 3.0)), np.full((2, 2), 3.0))


def test_mixing_devices_raises_torchs_error():
    x = cuda([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, but "
                                           "found at least two devices, cuda:0 and cpu!"):
        x + ng.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="same device"):
        ng.tensor([[1.0, 2.0]]) @ cuda([[1.0], [2.0]])
    # Python scalars and 0-d CPU tensors are fine, as in torch
    assert np.allclose(host(x * 2.0 + ng.tensor(1.0)), [3.0, 5.0])


def test_a_tensor_in_a_graph_does_not_move():
    x = cuda([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    with pytest.raises(NotImplementedError, match="not differentiable"):
        y.cpu()
    assert np.array_equal(y.detach().cpu().numpy(), [2.0, 4.0])
    with ng.no_grad():
        assert y.cpu().device.type == "cpu"


def test_no_grad_records_nothing():
    x = cuda([1.0, 2.0], requires_grad=True)
    with ng.no_grad():
        y = (x * x).sum()
    assert not y.requires_grad and y.grad_fn is None and y.is_cuda


# ---- the engine ------------------------------------------------------------------------------------
def _both(fn, *arrays):
    """fn's gradients on the CPU and on the GPU, as host arrays."""
    out = []
    for device in ("cpu", "cuda"):
        leaves = [ng.tensor(a, device=device, requires_grad=True) for a in arrays]
        fn(*leaves).backward()
        out.append([host(t.grad) for t in leaves])
    return out


def test_contributions_meeting_in_one_level_add_atomically():
    # x * x: two edges of one node into x's accumulator; x + x and x*x*x likewise
    a = np.array([0.5, -1.5, 2.0])
    cpu, gpu = _both(lambda x: (x * x).sum() + (x + x).sum() + (x * x * x).mean(), a)
    np.testing.assert_allclose(gpu[0], cpu[0], rtol=1e-6)


def test_a_wide_level_runs_as_one_launch(monkeypatch):
    from numgrad.cuda import engine
    launches = []
    original = engine._kernel_of
    monkeypatch.setattr(engine, "_kernel_of", lambda code: launches.append(code) or original(code))
    x = cuda(np.arange(4.0), requires_grad=True)
    ng.stack([x * float(k) for k in range(20)]).sum().backward()
    assert np.allclose(host(x.grad), sum(range(20)))
    assert len(launches) == 3          # sum, stack, and the 20 products as one batch


def test_gradients_accumulate_across_backwards_and_reset():
    x = cuda([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    (x * x).sum().backward()
    assert x.grad.is_cuda and np.allclose(host(x.grad), [4.0, 8.0])
    x.grad = None
    (3.0 * x).sum().backward()
    assert np.allclose(host(x.grad), [3.0, 3.0])


def test_grad_retain_grad_and_freed_graph():
    x = cuda([1.0, 2.0, 3.0], requires_grad=True)
    h = x.exp()
    h.retain_grad()
    y = (h * x).sum()
    (g,) = ng.autograd.grad(y, x, retain_graph=True)
    assert g.is_cuda and x.grad is None
    np.testing.assert_allclose(host(g), np.exp([1.0, 2.0, 3.0]) * (1 + np.array([1.0, 2.0, 3.0])),
                               rtol=1e-6)
    assert np.allclose(host(h.grad), [1.0, 2.0, 3.0])       # retained by grad() too, as on the CPU
    y.backward()
    assert np.allclose(host(h.grad), [2.0, 4.0, 6.0])
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_undefined_gradients_stay_undefined():
    x = cuda([1.0, 2.0, 3.0], requires_grad=True)
    w = cuda([1.0], requires_grad=True)
    first, rest = x.split([1, 2])
    rest * w                               # a branch no gradient reaches
    (first * 2.0).sum().backward()
    assert np.allclose(host(x.grad), [2.0, 0.0, 0.0]) and w.grad is None


def test_hooks_and_custom_functions_run_between_launches():
    class Cube(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 3.0 * a * a * g

    x = cuda([1.0, 2.0], requires_grad=True)
    t = x * 2.0
    t.register_hook(lambda g: g * 10.0)
    x.register_hook(lambda g: g + 1.0)
    (Cube.apply(t).sum() + t.sum()).backward()
    expected = (3.0 * (2 * np.array([1.0, 2.0])) ** 2 + 1.0) * 10.0 * 2.0 + 1.0
    assert np.allclose(host(x.grad), expected)


def test_double_backward_records_on_the_device():
    x = cuda([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = ng.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert g.is_cuda and g.requires_grad
    (h,) = ng.autograd.grad(g.sum(), x)
    assert np.allclose(host(h), [6.0, 12.0, 18.0])


def test_a_network_trains_the_same_on_both_devices():
    def train(device):
        ng.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3)).to(device)
        rng = np.random.default_rng(0)
        x = ng.tensor(rng.standard_normal((16, 4)), dtype=ng.float32, device=device)
        y = ng.tensor(rng.integers(0, 3, 16), device=device)
        losses = []
        for _ in range(3):
            for p in model.parameters():
                p.grad = None
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            with ng.no_grad():
                for p in model.parameters():
                    p.sub_(p.grad * 0.5)
            losses.append(loss.item())
        return losses, [host(p) for p in model.parameters()]

    (cpu_losses, cpu_params), (gpu_losses, gpu_params) = train("cpu"), train("cuda")
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-5)
    for c, g in zip(cpu_params, gpu_params):
        np.testing.assert_allclose(g, c, rtol=1e-4, atol=1e-6)


def test_a_backward_whose_root_is_a_custom_function_output():
    """No kernel node runs, only the Function's Python backward and the leaf's accumulation."""
    class SumOfSquares(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return (x * x).sum()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = cuda([1.0, 2.0], requires_grad=True)
    SumOfSquares.apply(x).backward()
    np.testing.assert_array_equal(host(x.grad), [2.0, 4.0])
