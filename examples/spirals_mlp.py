"""Spirals: a tensor MLP learns to tell three interleaved spirals apart.

    python examples/spirals_mlp.py           # full run: 3 x 1000 points, 40 epochs (100%)
    python examples/spirals_mlp.py --quick   # the small setting the tests use

Prints epoch, loss, accuracy and time; with matplotlib installed it also saves
spirals_loss.png and spirals_boundary.png (in --plot-dir).
"""
import argparse
import os
import time

# Small matrix products run fastest on one BLAS thread; OpenBLAS's threads made this example's
# convolutions up to 20x slower on a busy 2-core machine. (Read when NumPy loads, so set first.)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import numgrad as ng  # noqa: E402
from numgrad import nn  # noqa: E402
from numgrad.nn import functional as F  # noqa: E402
from numgrad.utils.data import DataLoader, TensorDataset  # noqa: E402

FULL = dict(points=1000, epochs=40, batch_size=128, hidden=64, lr=0.01)
QUICK = dict(points=300, epochs=25, batch_size=64, hidden=48, lr=0.02)


def make_spirals(points_per_class, classes=3, noise=0.15, seed=0):
    """Points on `classes` spiral arms (float32 (N, 2)) and their arm index (int64 (N,))."""
    rng = np.random.default_rng(seed)
    radius = np.tile(np.linspace(0.05, 1.0, points_per_class), classes)
    arm = np.repeat(np.arange(classes), points_per_class)
    angle = arm * (2 * np.pi / classes) + radius * 4.0 + rng.normal(0, noise, radius.shape)
    x = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    return x.astype(np.float32), arm.astype(np.int64)


def make_model(hidden, classes=3):
    return nn.Sequential(nn.Linear(2, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                         nn.Linear(hidden, classes))


def train_epoch(model, loader, optimizer, scheduler):
    """One pass over the data; returns the mean loss."""
    total, batches = 0.0, 0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        scheduler.step()
        total += loss.item()
        batches += 1
    return total / batches


def accuracy(model, x, y):
    with ng.no_grad():
        return float((model(x).argmax(1) == y).float().mean())


def run(points, epochs, batch_size, hidden, lr, seed=0, verbose=True, device="cpu"):
    """Train on fresh spirals; returns the model, the loss history and the final accuracy."""
    ng.manual_seed(seed)
    x_np, y_np = make_spirals(points, seed=seed)
    x, y = ng.tensor(x_np, device=device), ng.tensor(y_np, device=device)
    model = make_model(hidden).to(device)
    loader = DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=True)
    optimizer = ng.optim.Adam(model.parameters(), lr=lr)
    scheduler = ng.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, epochs=epochs,
                                                 steps_per_epoch=len(loader))
    history = []
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        loss = train_epoch(model, loader, optimizer, scheduler)
        history.append(loss)
        if verbose and (epoch % 5 == 0 or epoch == 1 or epoch == epochs):
            print(f"epoch {epoch:3d}  loss {loss:.4f}  accuracy {accuracy(model, x, y):.3f}  "
                  f"time {time.perf_counter() - start:.2f}s")
    return model, history, accuracy(model, x, y), (x_np, y_np)


def save_plots(model, history, data, plot_dir):
    """Loss curve and decision regions, if matplotlib is installed (skipped quietly if not)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    x, y = data
    fig, ax = plt.subplots()
    ax.plot(range(1, len(history) + 1), history)
    ax.set(xlabel="epoch", ylabel="cross entropy", yscale="log", title="spirals: training loss")
    loss_path = os.path.join(plot_dir, "spirals_loss.png")
    fig.savefig(loss_path)
    plt.close(fig)
    grid = np.linspace(-1.2, 1.2, 200, dtype=np.float32)
    gx, gy = np.meshgrid(grid, grid)
    with ng.no_grad():
        points = ng.tensor(np.stack([gx.ravel(), gy.ravel()], 1), device=model[0].weight.device)
        regions = model(points).argmax(1).cpu().numpy()
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.contourf(gx, gy, regions.reshape(gx.shape), alpha=0.3, levels=[-0.5, 0.5, 1.5, 2.5])
    ax.scatter(x[:, 0], x[:, 1], c=y, s=4)
    ax.set(title="spirals: decision regions")
    boundary_path = os.path.join(plot_dir, "spirals_boundary.png")
    fig.savefig(boundary_path)
    plt.close(fig)
    return [loss_path, boundary_path]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small setting (used by the tests)")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--plot-dir", default=".")
    parser.add_argument("--device", default="cpu", help="cpu or cuda (needs numba-cuda and a GPU)")
    args = parser.parse_args(argv)
    config = dict(QUICK if args.quick else FULL, device=args.device)
    if args.epochs:
        config["epochs"] = args.epochs
    start = time.perf_counter()
    model, history, acc, data = run(**config)
    print(f"final accuracy {acc:.3f} in {time.perf_counter() - start:.1f}s")
    for path in save_plots(model, history, data, args.plot_dir):
        print(f"saved {path}")
    return {"accuracy": acc, "history": history}


if __name__ == "__main__":
    main()
