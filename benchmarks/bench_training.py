"""The examples' training loops against the same models in PyTorch (CPU, one thread): time per
epoch and peak memory.

Each (example, library) pair runs in its own subprocess, so peak RSS is its own (counted over
the timed epochs, after a warm-up epoch that compiles); rounds alternate the libraries so machine
noise hits both alike. Both libraries start from the same
weights (copied from the numgrad model), see the same batches in the same order and use the same
optimizer and schedule. numgrad runs the example's own code; the torch side indexes its tensors
per batch (torch's DataLoader would collate sample by sample and be slower).

    python -m benchmarks.bench_training                      # all examples, 3 rounds
    python -m benchmarks.bench_training spirals --rounds 5 --epochs 8
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")      # single-threaded, both libraries

import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "examples")]

TASKS = ("spirals", "cnn", "moons")
EPOCHS = {"spirals": 8, "cnn": 3, "moons": 4}


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _reset_peak_rss():
    """Start the peak-RSS count afresh (Linux: clear_refs 5), so compilation in the warm-up epoch
    does not count; returns False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _peak_rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ---- spirals and cnn: the example's model and loop, and a torch twin ----------------------------
def _tensor_task(name):
    if name == "spirals":
        import spirals_mlp as example
        cfg = example.FULL
        x, y = example.make_spirals(cfg["points"])
        build = lambda: example.make_model(cfg["hidden"])  # noqa: E731
    else:
        import cnn_shapes as example
        cfg = example.FULL
        x, y = example.make_shapes(cfg["images"])
        build = example.make_model
    return example, cfg, x, y, build


def _copy_weights(numgrad_model, torch_model):
    import torch
    state = {k: torch.from_numpy(np.array(v.numpy())) for k, v in numgrad_model.state_dict().items()}
    torch_model.load_state_dict(state)


def _torch_twin(name, numgrad_model):
    import torch.nn as tnn
    if name == "spirals":
        hidden = numgrad_model[0].out_features
        model = tnn.Sequential(tnn.Linear(2, hidden), tnn.ReLU(), tnn.Linear(hidden, hidden),
                               tnn.ReLU(), tnn.Linear(hidden, 3))
    else:
        model = tnn.Sequential(tnn.Conv2d(1, 8, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
                               tnn.Conv2d(8, 16, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
                               tnn.Flatten(), tnn.Linear(16 * 4 * 4, 3))
    _copy_weights(numgrad_model, model)
    return model


def run_tensor_task(name, lib, epochs):
    import numgrad as ng
    example, cfg, x, y, build = _tensor_task(name)
    ng.manual_seed(0)
    model = build()
    steps = -(-len(x) // cfg["batch_size"])
    total_epochs = epochs + 1                     # the first is a warm-up (compilation)
    if lib == "numgrad":
        from numgrad.utils.data import DataLoader, TensorDataset
        loader = DataLoader(TensorDataset(ng.tensor(x), ng.tensor(y)), batch_size=cfg["batch_size"],
                            shuffle=True)
        optimizer = ng.optim.Adam(model.parameters(), lr=cfg["lr"])
        scheduler = (ng.optim.lr_scheduler.OneCycleLR(optimizer, cfg["lr"], epochs=total_epochs,
                                                      steps_per_epoch=steps)
                     if name == "spirals" else None)

        def epoch():
            if scheduler is not None:
                return example.train_epoch(model, loader, optimizer, scheduler)
            return example.train_epoch(model, loader, optimizer)
    else:
        import torch
        torch.set_num_threads(1)
        model = _torch_twin(name, model)
        xt, yt = torch.from_numpy(x), torch.from_numpy(y)
        optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
        scheduler = (torch.optim.lr_scheduler.OneCycleLR(optimizer, cfg["lr"], epochs=total_epochs,
                                                         steps_per_epoch=steps)
                     if name == "spirals" else None)
        rng = np.random.default_rng(0)
        F = torch.nn.functional

        def epoch():
            model.train()
            total = 0.0
            order = torch.from_numpy(rng.permutation(len(x)))
            for start in range(0, len(x), cfg["batch_size"]):
                index = order[start:start + cfg["batch_size"]]
                optimizer.zero_grad()
                loss = F.cross_entropy(model(xt[index]), yt[index])
                loss.backward()
                optimizer.step()
                if scheduler is not None:
                    scheduler.step()
                total += loss.item()
            return total / steps
    return _timed(epoch, epochs)


# ---- moons: micrograd's scalar MLP, 0-d tensors everywhere ----------------------------------------
def run_moons(lib, epochs):
    import micrograd_moons as example
    cfg = example.FULL
    x, y = example.make_moons(cfg["points"])
    model = example.MLP([2, cfg["hidden"], cfg["hidden"], 1], np.random.default_rng(0))
    if lib == "numgrad":
        import numgrad as ng
        optimizer = ng.optim.SGD(model.parameters(), lr=0.5)

        def epoch():
            loss, _ = example.loss_and_accuracy(model, x, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            return float(loss)
    else:
        import torch
        torch.set_num_threads(1)
        # the same network with torch scalars: swap every weight for a torch 0-d tensor
        for neuron in (n for layer in model.layers for n in layer):
            neuron.w = [torch.tensor(float(w), dtype=torch.float64, requires_grad=True)
                        for w in neuron.w]
            neuron.b = torch.tensor(float(neuron.b), dtype=torch.float64, requires_grad=True)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.5)

        def epoch():
            loss, _ = example.loss_and_accuracy(model, x, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            return float(loss)
    return _timed(epoch, epochs)


def _timed(epoch, epochs):
    epoch()                                        # warm-up: compiles numgrad's kernels
    _reset_peak_rss()
    rss_start = _rss_mb()
    times, losses = [], []
    for _ in range(epochs):
        start = time.perf_counter()
        losses.append(epoch())
        times.append(time.perf_counter() - start)
    return {"epoch_s": times, "loss": losses[-1], "rss_start_mb": rss_start,
            "peak_rss_mb": _peak_rss_mb()}


def worker(task, lib, epochs):
    if lib == "torch":
        import torch  # noqa: F401  (imported before measuring, like numgrad below)
    import numgrad  # noqa: F401
    result = run_moons(lib, epochs) if task == "moons" else run_tensor_task(task, lib, epochs)
    print(json.dumps(result))


def _spawn(task, lib, epochs):
    out = subprocess.run([sys.executable, "-m", "benchmarks.bench_training", "--worker", lib,
                          task, "--epochs", str(epochs)], cwd=ROOT, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tasks", nargs="*", help=f"any of {', '.join(TASKS)} (default: all)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--epochs", type=int, help="timed epochs per run (default per example)")
    parser.add_argument("--worker", choices=("numgrad", "torch"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    tasks = args.tasks or list(TASKS)
    unknown = [t for t in tasks if t not in TASKS]
    if unknown:
        parser.error(f"unknown example(s) {unknown}; choose from {list(TASKS)}")
    if args.worker:
        worker(tasks[0], args.worker, args.epochs or EPOCHS[tasks[0]])
        return
    rows = []
    for task in tasks:
        epochs = args.epochs or EPOCHS[task]
        runs = {"numgrad": [], "torch": []}
        for _ in range(args.rounds):
            for lib in runs:
                runs[lib].append(_spawn(task, lib, epochs))
        summary = {}
        for lib, results in runs.items():
            times = [t for r in results for t in r["epoch_s"]]
            summary[lib] = {"median_s": statistics.median(times), "min_s": min(times),
                            "peak_rss_mb": max(r["peak_rss_mb"] for r in results),
                            "train_rss_mb": max(r["peak_rss_mb"] - r["rss_start_mb"]
                                                for r in results),   # above the settled RSS
                            "loss": results[-1]["loss"]}
        rows.append((task, summary))
        ng, th = summary["numgrad"], summary["torch"]
        print(f"{task}: numgrad {ng['median_s'] * 1e3:.1f} ms/epoch (min {ng['min_s'] * 1e3:.1f}), "
              f"torch {th['median_s'] * 1e3:.1f} ms/epoch (min {th['min_s'] * 1e3:.1f}), "
              f"ratio {ng['median_s'] / th['median_s']:.2f}x; peak RSS numgrad "
              f"{ng['peak_rss_mb']:.0f} MB (+{ng['train_rss_mb']:.0f} in training), torch "
              f"{th['peak_rss_mb']:.0f} MB (+{th['train_rss_mb']:.0f}); final loss "
              f"{ng['loss']:.4f} vs {th['loss']:.4f}", flush=True)
    print()
    print("| example | numgrad ms/epoch | torch ms/epoch | numgrad / torch | peak RSS numgrad (MB) "
          "| peak RSS torch (MB) |")
    print("|---|---|---|---|---|---|")
    for task, s in rows:
        print(f"| {task} | {s['numgrad']['median_s'] * 1e3:.1f} | {s['torch']['median_s'] * 1e3:.1f}"
              f" | {s['numgrad']['median_s'] / s['torch']['median_s']:.2f} | "
              f"{s['numgrad']['peak_rss_mb']:.0f} (+{s['numgrad']['train_rss_mb']:.0f}) | "
              f"{s['torch']['peak_rss_mb']:.0f} (+{s['torch']['train_rss_mb']:.0f}) |")


if __name__ == "__main__":
    main()
