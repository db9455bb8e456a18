"""Ops throughput against PyTorch in the same run (not a test): a 30-op elementwise chain on 10^6
float32 values, and an MLP training step (784-256-256-10, batch 128, ReLU, cross-entropy when
numgrad.nn.functional has it, else mean squared error), forward + backward each.

Both libraries run single-threaded by default (numgrad's kernels are; see DESIGN.md on
parallel=True); --torch-threads N gives torch N threads. The two libraries' steps alternate, so
machine noise hits both alike; the table gives the median and the best of --repeats runs, after a
warm-up that also compiles numgrad's kernels.

    python -m benchmarks.bench_ops
    python -m benchmarks.bench_ops --repeats 20 --torch-threads 2
"""
import argparse
import os
import statistics
import sys
import time

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import numgrad as ng  # noqa: E402

N = 1_000_000
SIZES = (784, 256, 256, 10)
BATCH = 128


def _chain(lib, x):
    """30 elementwise ops, values kept in a tame range so no op overflows."""
    for _ in range(5):
        x = lib.sin(x)
        x = x * 1.5
        x = lib.tanh(x)
        x = x + 0.25
        x = lib.sigmoid(x)
        x = x - 0.5
    return x


def _interleaved(ours, theirs, repeats):
    """Median and best time of each step, the two alternating so that machine noise hits both
    alike. The first call of each is a warm-up (numgrad: compile or load its kernels)."""
    steps = [s for s in (ours, theirs) if s is not None]
    times = [[] for _ in steps]
    for step in steps:
        step()
    for _ in range(repeats):
        for step, record in zip(steps, times):
            start = time.perf_counter()
            step()
            record.append(time.perf_counter() - start)
    return [(statistics.median(t), min(t)) for t in times]


def chain_numgrad():
    x = ng.tensor(np.random.default_rng(0).standard_normal(N).astype(np.float32),
                  requires_grad=True)

    def step():
        x.grad = None
        _chain(ng, x).sum().backward()
    return step


def chain_torch():
    import torch
    x = torch.tensor(np.random.default_rng(0).standard_normal(N).astype(np.float32),
                     requires_grad=True)

    def step():
        x.grad = None
        _chain(torch, x).sum().backward()
    return step


def _mlp_data():
    rng = np.random.default_rng(0)
    weights = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        weights.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32))
        weights.append(np.zeros(fan_out, np.float32))
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    labels = rng.integers(0, SIZES[-1], BATCH)
    return weights, x, labels


def _numgrad_loss():
    try:
        from numgrad.nn.functional import cross_entropy
        return "cross-entropy", cross_entropy
    except (ImportError, AttributeError):
        return "mse", None


def mlp_numgrad():
    weights, x_np, labels = _mlp_data()
    params = [ng.tensor(w, requires_grad=True) for w in weights]
    x = ng.tensor(x_np)
    kind, cross_entropy = _numgrad_loss()
    target = ng.tensor(labels) if cross_entropy else ng.tensor(np.eye(SIZES[-1], dtype=np.float32)[labels])

    def step():
        h = x
        for k in range(0, len(params), 2):
            h = h @ params[k] + params[k + 1]
            if k + 2 < len(params):
                h = ng.relu(h)
        loss = cross_entropy(h, target) if cross_entropy else ((h - target) ** 2).mean()
        for p in params:
            p.grad = None
        loss.backward()
        with ng.no_grad():
            for p in params:
                p.sub_(p.grad * 0.01)
    return kind, step


def mlp_torch(kind):
    import torch
    import torch.nn.functional as F
    weights, x_np, labels = _mlp_data()
    params = [torch.tensor(w, requires_grad=True) for w in weights]
    x = torch.tensor(x_np)
    target = torch.tensor(labels) if kind == "cross-entropy" else \
        torch.tensor(np.eye(SIZES[-1], dtype=np.float32)[labels])

    def step():
        h = x
        for k in range(0, len(params), 2):
            h = h @ params[k] + params[k + 1]
            if k + 2 < len(params):
                h = torch.relu(h)
        loss = F.cross_entropy(h, target) if kind == "cross-entropy" else ((h - target) ** 2).mean()
        for p in params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params:
                p.sub_(p.grad * 0.01)
    return step


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--torch-threads", type=int, default=1, help="torch's intra-op threads")
    args = parser.parse_args()
    try:
        import torch
        torch.set_num_threads(args.torch_threads)
    except ImportError:
        torch = None

    kind, mlp = mlp_numgrad()
    workloads = [("30-op elementwise chain, 1e6 float32, fwd+bwd", chain_numgrad(),
                  chain_torch() if torch else None),
                 (f"MLP 784-256-256-10 step, batch 128, ReLU, {kind}", mlp,
                  mlp_torch(kind) if torch else None)]
    threads = "no torch" if torch is None else f"torch {torch.__version__}, " \
        f"{torch.get_num_threads()} thread(s)"
    print(f"numgrad vs {threads}; {args.repeats} interleaved runs, median (best) in ms")
    print(f"{'workload':56s} {'numgrad':>15s} {'torch':>15s} {'ratio':>13s}")
    for label, ours, theirs in workloads:
        results = _interleaved(ours, theirs, args.repeats)
        (med, best), other = results[0], results[1:]
        line = f"{label:56s} {med * 1e3:7.2f} ({best * 1e3:5.2f})"
        if other:
            (tmed, tbest), = other
            line += f" {tmed * 1e3:7.2f} ({tbest * 1e3:5.2f}) {med / tmed:5.2f}x ({best / tbest:4.2f}x)"
        print(line)
    print("ratio = numgrad time / torch time (below 1: numgrad is faster)")


if __name__ == "__main__":
    main()
