"""Ops throughput against PyTorch in the same run (not a test): a 30-op elementwise chain on 10^6
float32 values, and an MLP training step (784-256-256-10, batch 128, ReLU, cross-entropy when
numgrad.nn.functional has it, else mean squared error), forward + backward each.

Both libraries run single-threaded by default (numgrad's kernels are; see DESIGN.md on
parallel=True); --torch-threads N gives torch N threads. Times are medians of --repeats runs
after a warm-up that also compiles numgrad's kernels.

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


def _median_time(step, repeats):
    step()                                     # warm-up (numgrad: compile or load kernels)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def chain_numgrad(repeats):
    x = ng.tensor(np.random.default_rng(0).standard_normal(N).astype(np.float32),
                  requires_grad=True)

    def step():
        x.grad = None
        _chain(ng, x).sum().backward()
    return _median_time(step, repeats)


def chain_torch(repeats):
    import torch
    x = torch.tensor(np.random.default_rng(0).standard_normal(N).astype(np.float32),
                     requires_grad=True)

    def step():
        x.grad = None
        _chain(torch, x).sum().backward()
    return _median_time(step, repeats)


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


def mlp_numgrad(repeats):
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
    return kind, _median_time(step, repeats)


def mlp_torch(repeats, kind):
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
    return _median_time(step, repeats)


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

    rows = []
    chain = chain_numgrad(args.repeats)
    rows.append(("30-op elementwise chain, 1e6 float32, fwd+bwd", chain,
                 chain_torch(args.repeats) if torch else None))
    kind, mlp = mlp_numgrad(args.repeats)
    rows.append((f"MLP 784-256-256-10 step, batch 128, ReLU, {kind}", mlp,
                 mlp_torch(args.repeats, kind) if torch else None))

    threads = "no torch" if torch is None else f"torch {torch.__version__}, " \
        f"{torch.get_num_threads()} thread(s)"
    print(f"numgrad vs {threads}; median of {args.repeats} runs")
    print(f"{'workload':56s} {'numgrad ms':>11s} {'torch ms':>9s} {'ratio':>7s}")
    for label, ours, theirs in rows:
        ratio = f"{ours / theirs:6.2f}x" if theirs else "   n/a"
        theirs_ms = f"{theirs * 1e3:9.2f}" if theirs else "      n/a"
        print(f"{label:56s} {ours * 1e3:11.2f} {theirs_ms} {ratio}")
    print("ratio = numgrad time / torch time (below 1: numgrad is faster)")


if __name__ == "__main__":
    main()
