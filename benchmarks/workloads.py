"""The benchmark workloads, each written once per library that can run it.

A workload has `prepare(lib)` (untimed: inputs, parameters, a recorded graph when only the
backward is measured) and `run(lib, state)` (the timed part). Libraries: numgrad, torch, jax and
micrograd, each used only when importable. compare.py and the asv suites share these.
"""
import importlib
import random

import numpy as np


def available(lib):
    try:
        importlib.import_module(lib)
        return True
    except ImportError:
        return False


def _torch():
    import torch
    torch.set_num_threads(1)
    return torch


class ScalarChain:
    """h <- tanh(h * w + 0.1), 3 nodes per step: the per-node cost of engine and recording.
    part: "backward" (incl. lowering; the graph is recorded untimed), "forward" (recording only)
    or "both"."""

    def __init__(self, steps, part):
        self.steps, self.part = steps, part
        title = {"backward": "backward incl. lowering", "forward": "forward (recording)",
                 "both": "forward + backward"}[part]
        self.name = f"scalar chain, {3 * steps // 1000}k nodes: {title}"
        self.libs = ("numgrad", "torch")     # micrograd's released Value has no tanh

    def prepare(self, lib):
        if self.part == "backward":
            return self._forward(lib)
        return {}

    def _forward(self, lib):
        if lib == "torch":
            torch = _torch()
            w = torch.tensor(0.5, requires_grad=True)
            h = torch.tensor(0.1, requires_grad=True)
            for _ in range(self.steps):
                h = torch.tanh(h * w + 0.1)
            return h
        import numgrad as ng
        w = ng.tensor(0.5, requires_grad=True)
        h = ng.tensor(0.1, requires_grad=True)
        for _ in range(self.steps):
            h = (h * w + 0.1).tanh()
        return h

    def run(self, lib, state):
        if self.part == "forward":
            state["root"] = self._forward(lib)     # the graph is freed after the timing
            return
        root = state if self.part == "backward" else self._forward(lib)
        root.backward()


class RandomScalarDAG:
    """A random DAG of scalar ops over 64 leaves, each node reusing two earlier values."""

    def __init__(self, nodes):
        self.nodes = nodes
        self.name = f"random scalar DAG, {nodes // 1000}k nodes: forward + backward"
        self.libs = ("numgrad", "torch")

    def prepare(self, lib):
        rnd = random.Random(0)
        picks = [(rnd.randrange(64 + i), rnd.randrange(64 + i), rnd.random() < 0.5)
                 for i in range(self.nodes // 2)]
        return picks

    def run(self, lib, picks):
        if lib == "torch":
            torch = _torch()
            values = [torch.tensor(0.5 + 0.01 * i, requires_grad=True) for i in range(64)]
            tanh = torch.tanh
        else:
            import numgrad as ng
            values = [ng.tensor(0.5 + 0.01 * i, requires_grad=True) for i in range(64)]
            tanh = ng.tanh
        for a, b, use_tanh in picks:
            values.append(tanh(values[a] * values[b]) if use_tanh else values[a] + values[b])
        total = values[-1]
        for v in values[-32:-1]:
            total = total + v
        total.backward()


class FanOut:
    """One shared intermediate feeding 1000 branches: 1000 contributions summed into one slot."""

    name = "fan-out of one intermediate to 1000 branches: forward + backward"
    libs = ("numgrad", "torch", "micrograd")

    def prepare(self, lib):
        return None

    def run(self, lib, state):
        if lib == "micrograd":
            from micrograd.engine import Value
            x = Value(0.3)
        elif lib == "torch":
            x = _torch().tensor(0.3, requires_grad=True)
        else:
            import numgrad as ng
            x = ng.tensor(0.3, requires_grad=True)
        u = x * x
        total = u * 0.0
        for k in range(1000):
            total = total + u * (0.001 * k)
        total.backward()


class ScalarMLP:
    """micrograd's classic: a 2-16-16-1 MLP of scalar values on 32 samples, hinge loss."""

    name = "micrograd-style scalar MLP (2-16-16-1, 32 samples): forward + backward"
    libs = ("numgrad", "torch", "micrograd")

    def prepare(self, lib):
        rng = np.random.default_rng(0)
        sizes = [2, 16, 16, 1]
        weights = [rng.uniform(-1, 1, (o, i + 1)).tolist() for i, o in zip(sizes[:-1], sizes[1:])]
        data = rng.uniform(-1, 1, (32, 2)).tolist()
        labels = [1.0 if a * b > 0 else -1.0 for a, b in data]
        if lib == "micrograd":
            from micrograd.engine import Value
            make = Value
        elif lib == "torch":
            torch = _torch()
            make = lambda v: torch.tensor(v, requires_grad=True)  # noqa: E731
        else:
            import numgrad as ng
            make = lambda v: ng.tensor(v, requires_grad=True)  # noqa: E731
        params = [[[make(v) for v in row] for row in layer] for layer in weights]
        return params, data, labels

    def run(self, lib, state):
        params, data, labels = state
        relu = (lambda v: v.relu()) if lib != "torch" else _torch().relu
        total = None
        for (a, b), y in zip(data, labels):
            acts = [a, b]
            for depth, layer in enumerate(params):
                outs = []
                for row in layer:
                    s = row[-1]
                    for w, v in zip(row, acts):
                        s = s + w * v
                    outs.append(relu(s) if depth < len(params) - 1 else s)
                acts = outs
            loss = relu(1 + -y * acts[0])
            total = loss if total is None else total + loss
        total.backward()


class TensorMLPStep:
    """An MLP training step: 784-256-256-10, batch 128, float32, ReLU, cross-entropy, SGD.

    "numpy" is the same step written by hand in NumPy, without autograd: the floor for a library
    that runs its ops with NumPy and the same BLAS, which no recording or backward engine beats.
    """

    name = "tensor MLP step (784-256-256-10, batch 128, float32)"
    libs = ("numgrad", "torch", "numpy")

    def prepare(self, lib):
        rng = np.random.default_rng(0)
        x = rng.standard_normal((128, 784)).astype(np.float32)
        y = rng.integers(0, 10, 128)
        sizes = [784, 256, 256, 10]
        ws = [(rng.standard_normal((i, o)) / np.sqrt(i)).astype(np.float32) for i, o in zip(sizes[:-1], sizes[1:])]
        bs = [np.zeros(o, np.float32) for o in sizes[1:]]
        if lib == "numpy":
            return ws, bs, x, y
        if lib == "torch":
            torch = _torch()
            tensor = torch.tensor
            params = [tensor(p, requires_grad=True) for p in ws + bs]
            return torch, params, tensor(x), tensor(y)
        import numgrad as ng
        params = [ng.tensor(p, requires_grad=True) for p in ws + bs]
        return ng, params, ng.tensor(x), ng.tensor(y)

    def run(self, lib, state):
        if lib == "numpy":
            return _numpy_mlp_step(*state)
        mod, params, x, y = state
        h = x
        for k in range(3):
            h = h @ params[k] + params[3 + k]
            if k < 2:
                h = h.relu()
        loss = _cross_entropy(mod, h, y)
        loss.backward()
        with mod.no_grad():
            for p in params:
                p -= 0.01 * p.grad
                p.grad = None


def _numpy_mlp_step(ws, bs, x, y):
    """TensorMLPStep's step by hand: the forward with its pre-activations kept, the backward's
    products and masks, and the same SGD update, in NumPy's fewest passes."""
    pre, h = [], x
    for k in range(3):
        a = h @ ws[k]
        a += bs[k]
        pre.append((h, a))
        h = np.maximum(a, 0) if k < 2 else a
    probs = np.exp(h - h.max(1, keepdims=True))
    probs /= probs.sum(1, keepdims=True)
    probs[np.arange(len(y)), y] -= 1
    g = probs / len(y)                        # d loss / d logits, loss = mean cross-entropy
    grads = [None] * 6
    for k in (2, 1, 0):
        inputs, a = pre[k]
        if k < 2:
            g *= a > 0
        grads[k], grads[3 + k] = inputs.T @ g, g.sum(0)
        if k:
            g = g @ ws[k].T
    for p, grad in zip(ws + bs, grads):
        p -= 0.01 * grad


def _cross_entropy(mod, logits, target):
    functional = getattr(getattr(mod, "nn", None), "functional", None)
    if functional is not None and hasattr(functional, "cross_entropy"):
        return functional.cross_entropy(logits, target)
    shifted = logits - logits.max(1, keepdim=True)[0]
    log_probs = shifted - shifted.exp().sum(1, keepdim=True).log()
    return -log_probs[mod.arange(logits.shape[0]), target].mean()


class ConvNetStep:
    """A small conv net's training step: conv-relu-pool, conv-batchnorm-relu-pool, linear,
    cross-entropy, Adam; batch 64 of 1x28x28, float32. Both libraries start from the same
    weights (numgrad's initialisation, copied)."""

    name = "conv net step (2 convs, batch norm, Adam; batch 64, 28x28, float32)"
    libs = ("numgrad", "torch")

    def prepare(self, lib):
        import numgrad as ng
        ng.manual_seed(0)
        model, mod = self._model(ng), ng
        if lib == "torch":
            mod = _torch()
            weights = {k: mod.tensor(v.numpy()) for k, v in model.state_dict().items()}
            model = self._model(mod)
            model.load_state_dict(weights)
        rng = np.random.default_rng(0)
        x = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
        y = rng.integers(0, 10, 64)
        return mod, model, mod.optim.Adam(model.parameters(), 1e-3), mod.tensor(x), mod.tensor(y)

    @staticmethod
    def _model(mod):
        nn = mod.nn
        return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                             nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 7 * 7, 10))

    def run(self, lib, state):
        mod, model, optimizer, x, y = state
        optimizer.zero_grad()
        mod.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()


class ElementwiseChain:
    """30 elementwise ops on 10^6 float32 values, forward + backward."""

    name = "elementwise chain, 30 ops on 10^6 float32: forward + backward"
    libs = ("numgrad", "torch")

    def prepare(self, lib):
        data = np.random.default_rng(0).uniform(0.5, 1.5, 1_000_000).astype(np.float32)
        if lib == "torch":
            return _torch().tensor(data, requires_grad=True)
        import numgrad as ng
        return ng.tensor(data, requires_grad=True)

    def run(self, lib, x):
        h = x
        for _ in range(6):
            h = ((h * 0.9 + 0.1).tanh() * 0.5 + 0.5).sigmoid()
        h.sum().backward()
        x.grad = None


class MatmulBackward:
    """Backward of a square matmul (size n), float32."""

    def __init__(self, n):
        self.n = n
        self.name = f"matmul backward, {n}x{n} float32"
        self.libs = ("numgrad", "torch")

    def prepare(self, lib):
        rng = np.random.default_rng(0)
        a = rng.standard_normal((self.n, self.n)).astype(np.float32)
        b = rng.standard_normal((self.n, self.n)).astype(np.float32)
        mod = _torch() if lib == "torch" else importlib.import_module("numgrad")
        x, y = mod.tensor(a, requires_grad=True), mod.tensor(b, requires_grad=True)
        return x, y, (x @ y).sum()

    def run(self, lib, state):
        x, y, out = state
        out.backward(retain_graph=True)
        x.grad = y.grad = None


class DeepChain:
    """A chain of 10^6 scalar multiplications: forward + backward (and teardown)."""

    name = "deep chain of 10^6 nodes: forward + backward"
    libs = ("numgrad", "torch")

    def prepare(self, lib):
        return None

    def run(self, lib, state):
        mod = _torch() if lib == "torch" else importlib.import_module("numgrad")
        x = mod.tensor(0.5, requires_grad=True)
        h = x
        for _ in range(1_000_000):
            h = h * 1.0000001
        h.backward()


ALL = {
    "chain_backward": ScalarChain(100_000, "backward"),
    "chain_forward": ScalarChain(100_000, "forward"),
    "chain_full": ScalarChain(100_000, "both"),
    "random_dag": RandomScalarDAG(75_000),
    "fan_out": FanOut(),
    "scalar_mlp": ScalarMLP(),
    "tensor_mlp": TensorMLPStep(),
    "conv_net": ConvNetStep(),
    "elementwise": ElementwiseChain(),
    "matmul_512": MatmulBackward(512),
    "matmul_2048": MatmulBackward(2048),
    "deep_chain": DeepChain(),
}
