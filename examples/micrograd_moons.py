"""Two moons, micrograd style: every weight and every activation is a 0-d tensor.

The network below is Karpathy's micrograd MLP (neurons summing w_i * x_i one scalar at a time,
a max-margin loss, L2 regularisation), written with numgrad scalars instead of micrograd's Value.
Each training step records one scalar node per multiply, add and relu - tens of thousands of
them - and backward walks that graph in compiled code.

    python examples/micrograd_moons.py           # full run: 100 points, 2-8-8-1, 60 steps
    python examples/micrograd_moons.py --quick   # the small setting the tests use

Prints step, loss, accuracy and time; with matplotlib installed it also saves moons_loss.png
and moons_boundary.png (in --plot-dir).
"""
import argparse
import time

import numpy as np

import numgrad as ng

FULL = dict(points=100, hidden=8, steps=60)
QUICK = dict(points=40, hidden=8, steps=40)


def make_moons(points, noise=0.1, seed=0):
    """Two interleaved half circles: x (points, 2) and labels -1 / +1, as sklearn's make_moons."""
    rng = np.random.default_rng(seed)
    outer = points // 2
    inner = points - outer
    a = np.linspace(0, np.pi, outer)
    b = np.linspace(0, np.pi, inner)
    x = np.concatenate([np.stack([np.cos(a), np.sin(a)], 1),
                        np.stack([1 - np.cos(b), 0.5 - np.sin(b)], 1)])
    x += rng.normal(0, noise, x.shape)
    y = np.concatenate([-np.ones(outer), np.ones(inner)])
    return x, y


class Neuron:
    """sum_i w_i x_i + b, one scalar tensor per weight (micrograd's Neuron)."""

    def __init__(self, inputs, rng, relu=True):
        self.w = [ng.tensor(rng.uniform(-1, 1), dtype=ng.float64, requires_grad=True)
                  for _ in range(inputs)]
        self.b = ng.tensor(0.0, dtype=ng.float64, requires_grad=True)
        self.relu = relu

    def __call__(self, x):
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi
        return act.relu() if self.relu else act

    def parameters(self):
        return self.w + [self.b]


class MLP:
    """Layers of neurons; the last layer is linear."""

    def __init__(self, sizes, rng):
        self.layers = [[Neuron(sizes[i], rng, relu=i < len(sizes) - 2) for _ in range(sizes[i + 1])]
                       for i in range(len(sizes) - 1)]

    def __call__(self, x):
        for layer in self.layers:
            x = [neuron(x) for neuron in layer]
        return x[0] if len(x) == 1 else x

    def parameters(self):
        return [p for layer in self.layers for neuron in layer for p in neuron.parameters()]


def loss_and_accuracy(model, x, y, alpha=1e-4):
    """micrograd's max-margin loss: mean(relu(1 - y * score)) + alpha * sum(p^2)."""
    scores = [model([float(a), float(b)]) for a, b in x]
    margins = [(1 - float(yi) * score).relu() for yi, score in zip(y, scores)]
    data_loss = sum(margins[1:], margins[0]) * (1.0 / len(margins))
    params = model.parameters()
    reg = sum((p * p for p in params[1:]), params[0] * params[0]) * alpha
    correct = sum((float(yi) > 0) == (score.item() > 0) for yi, score in zip(y, scores))
    return data_loss + reg, correct / len(y)


def run(points, hidden, steps, seed=0, verbose=True):
    x, y = make_moons(points, seed=seed)
    model = MLP([2, hidden, hidden, 1], np.random.default_rng(seed))
    optimizer = ng.optim.SGD(model.parameters(), lr=1.0)
    # micrograd's schedule: lr = 1 - 0.9 * step / 100
    schedule = ng.optim.lr_scheduler.LambdaLR(optimizer, lambda k: 1.0 - 0.9 * k / 100)
    history = []
    start = time.perf_counter()
    for step in range(1, steps + 1):
        loss, acc = loss_and_accuracy(model, x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        history.append(loss.item())
        if verbose and (step % 10 == 0 or step == 1):
            print(f"step {step:3d}  loss {loss.item():.4f}  accuracy {acc:.3f}  "
                  f"time {time.perf_counter() - start:.2f}s")
    with ng.no_grad():
        _, acc = loss_and_accuracy(model, x, y)
    return model, history, acc, (x, y)


def save_plots(model, history, data, plot_dir):
    """Loss curve and decision regions, if matplotlib is installed (skipped quietly if not)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    import os
    x, y = data
    fig, ax = plt.subplots()
    ax.plot(range(1, len(history) + 1), history)
    ax.set(xlabel="step", ylabel="loss", title="two moons: training loss")
    loss_path = os.path.join(plot_dir, "moons_loss.png")
    fig.savefig(loss_path)
    plt.close(fig)
    gx, gy = np.meshgrid(np.linspace(-1.5, 2.5, 40), np.linspace(-1.0, 1.5, 40))
    with ng.no_grad():
        scores = np.array([float(model([a, b])) for a, b in zip(gx.ravel(), gy.ravel())])
    fig, ax = plt.subplots()
    ax.contourf(gx, gy, (scores > 0).reshape(gx.shape), alpha=0.3)
    ax.scatter(x[:, 0], x[:, 1], c=y, s=12)
    ax.set(title="two moons: decision boundary")
    boundary_path = os.path.join(plot_dir, "moons_boundary.png")
    fig.savefig(boundary_path)
    plt.close(fig)
    return [loss_path, boundary_path]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small setting (used by the tests)")
    parser.add_argument("--steps", type=int)
    parser.add_argument("--plot-dir", default=".")
    args = parser.parse_args(argv)
    config = dict(QUICK if args.quick else FULL)
    if args.steps:
        config["steps"] = args.steps
    start = time.perf_counter()
    model, history, acc, data = run(**config)
    print(f"final accuracy {acc:.3f} in {time.perf_counter() - start:.1f}s")
    for path in save_plots(model, history, data, args.plot_dir):
        print(f"saved {path}")
    return {"accuracy": acc, "history": history}


if __name__ == "__main__":
    main()
