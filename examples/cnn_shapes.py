"""Shapes: a small CNN learns to tell bars, crosses and circles apart in noisy 16x16 images.

    python examples/cnn_shapes.py           # full run: 3000 images, 10 epochs (~98%)
    python examples/cnn_shapes.py --quick   # the small setting the tests use (~97%)

Prints epoch, loss, accuracy on held-out images and time; with matplotlib installed it also
saves shapes_loss.png and shapes_examples.png (in --plot-dir).
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

CLASSES = ("bar", "cross", "circle")
SIZE = 16
FULL = dict(images=3000, epochs=10, batch_size=32, lr=3e-3)
QUICK = dict(images=2000, epochs=6, batch_size=32, lr=5e-3)


def _draw(kind, rng):
    image = np.zeros((SIZE, SIZE), np.float32)
    cy, cx = rng.integers(4, SIZE - 4, 2)
    if kind == 0:                                   # a bar, horizontal or vertical
        half = rng.integers(3, 7)
        lo, hi = max(cx - half, 0), min(cx + half + 1, SIZE)
        if rng.random() < 0.5:
            image[cy, lo:hi] = 1
        else:
            image[lo:hi, cy] = 1
    elif kind == 1:                                 # a plus sign
        arm = rng.integers(2, 4)
        image[cy, cx - arm:cx + arm + 1] = 1
        image[cy - arm:cy + arm + 1, cx] = 1
    else:                                           # a ring
        radius = rng.uniform(2.5, 4.5)
        yy, xx = np.mgrid[:SIZE, :SIZE]
        image[np.abs(np.hypot(yy - cy, xx - cx) - radius) < 0.6] = 1
    return image * rng.uniform(0.6, 1.0)


def make_shapes(images, noise=0.15, seed=0):
    """Noisy images (images, 1, 16, 16) float32 and their class (int64)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CLASSES), images)
    x = np.stack([_draw(k, rng) for k in labels])[:, None]
    x += rng.normal(0, noise, x.shape).astype(np.float32)
    return x.astype(np.float32), labels.astype(np.int64)


def make_model():
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),      # 8 x 8 x 8
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),     # 16 x 4 x 4
        nn.Flatten(), nn.Linear(16 * 4 * 4, len(CLASSES)))


def train_epoch(model, loader, optimizer):
    """One pass over the data; returns the mean loss."""
    model.train()
    total, batches = 0.0, 0
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        total += loss.item()
        batches += 1
    return total / batches


def accuracy(model, x, y):
    model.eval()
    with ng.no_grad():
        return float((model(x).argmax(1) == y).float().mean())


def run(images, epochs, batch_size, lr, seed=0, verbose=True):
    """Train on fresh images, test on as many again; returns the model, the loss history and
    the test accuracy."""
    ng.manual_seed(seed)
    x_np, y_np = make_shapes(2 * images, seed=seed)
    x_train, y_train = ng.tensor(x_np[:images]), ng.tensor(y_np[:images])
    x_test, y_test = ng.tensor(x_np[images:]), ng.tensor(y_np[images:])
    model = make_model()
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=batch_size, shuffle=True)
    optimizer = ng.optim.Adam(model.parameters(), lr=lr)
    history = []
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        history.append(train_epoch(model, loader, optimizer))
        if verbose:
            print(f"epoch {epoch:2d}  loss {history[-1]:.4f}  test accuracy "
                  f"{accuracy(model, x_test, y_test):.3f}  time {time.perf_counter() - start:.2f}s")
    return model, history, accuracy(model, x_test, y_test), (x_np[images:], y_np[images:])


def save_plots(model, history, data, plot_dir):
    """Loss curve and a grid of test images with predictions, if matplotlib is installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    fig, ax = plt.subplots()
    ax.plot(range(1, len(history) + 1), history)
    ax.set(xlabel="epoch", ylabel="cross entropy", title="shapes: training loss")
    loss_path = os.path.join(plot_dir, "shapes_loss.png")
    fig.savefig(loss_path)
    plt.close(fig)
    x, y = data
    with ng.no_grad():
        predicted = model(ng.tensor(x[:16])).argmax(1).numpy()
    fig, axes = plt.subplots(4, 4, figsize=(6, 6))
    for k, ax in enumerate(axes.ravel()):
        ax.imshow(x[k, 0], cmap="gray")
        ax.set_title(f"{CLASSES[predicted[k]]}", color="black" if predicted[k] == y[k] else "red",
                     fontsize=8)
        ax.axis("off")
    examples_path = os.path.join(plot_dir, "shapes_examples.png")
    fig.savefig(examples_path)
    plt.close(fig)
    return [loss_path, examples_path]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small setting (used by the tests)")
    parser.add_argument("--epochs", type=int)
    parser.add_argument("--plot-dir", default=".")
    args = parser.parse_args(argv)
    config = dict(QUICK if args.quick else FULL)
    if args.epochs:
        config["epochs"] = args.epochs
    start = time.perf_counter()
    model, history, acc, data = run(**config)
    print(f"test accuracy {acc:.3f} in {time.perf_counter() - start:.1f}s")
    for path in save_plots(model, history, data, args.plot_dir):
        print(f"saved {path}")
    return {"accuracy": acc, "history": history}


if __name__ == "__main__":
    main()
