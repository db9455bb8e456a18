"""Check and time numgrad's GPU path in one run: `python benchmarks/gpu_check.py`.

1. Correctness: every op's sample (tests/op_table.py and the nn samples of tests/test_cuda_ops.py)
   on fresh random inputs (a new seed each run; the samples' inputs are never zero), forward and
   gradients on the GPU in float32 and float64 against a float64 CPU reference.
2. Timing (a real GPU only): an elementwise chain forward + backward, a matmul backward and an MLP
   training step (Module.to("cuda"), optim.SGD with momentum), timed with CUDA events (warm-up,
   then the median of many), printed as achieved bandwidth or FLOP rate beside the device's
   measured copy bandwidth.

Under the simulator (NUMBA_ENABLE_CUDASIM=1) only part 1 runs, at the samples' tiny sizes. Needs
numba-cuda and the `test` extra (pytest). `--ops add,mm` checks only those ops.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, ".."))

import numgrad as ng  # noqa: E402
import numgrad.cuda  # noqa: E402


# ---- 1. correctness --------------------------------------------------------------------------------
def _samples(ops):
    from op_table import SAMPLES
    from test_cuda_ops import NN_SAMPLES
    samples = SAMPLES + NN_SAMPLES
    return [s for s in samples if ops is None or s.op in ops]


def _run(sample, arrays, device, dtype):
    """Forward values and input gradients (as float64 host arrays) of one sample."""
    from op_table import Const
    from test_cuda_ops import _float_constants_on_cuda
    inputs = [a if isinstance(spec, Const) else
              ng.tensor(np.asarray(a, dtype), device=device, requires_grad=True)
              for spec, a in zip(sample.args, arrays)]
    make = ng.tensor
    if device == "cuda":
        ng.tensor = _float_constants_on_cuda          # float constants inside fn go to the GPU
    try:
        result = sample.fn(*inputs)
    finally:
        ng.tensor = make
    outs = list(result) if isinstance(result, (tuple, list)) else [result]
    values = [o.detach().cpu().numpy().astype(np.float64) for o in outs]
    wanted = [o for o in outs if o.requires_grad]
    rng = np.random.default_rng(len(values))
    weights = [ng.tensor(rng.uniform(0.5, 1.5, o.shape).astype(dtype), device=device)
               for o in wanted]
    leaves = [t for spec, t in zip(sample.args, inputs) if not isinstance(spec, Const)]
    grads = ng.autograd.grad(wanted, leaves, weights, allow_unused=True) if wanted else []
    return values + [g.cpu().numpy().astype(np.float64) for g in grads if g is not None]


def _error(got, ref):
    """Largest error relative to the reference's scale (1 where it is tiny)."""
    worst = 0.0
    for g, r in zip(got, ref):
        scale = max(1.0, float(np.max(np.abs(r))) if r.size else 1.0)
        finite = np.isfinite(r)
        if g.shape != r.shape or not np.array_equal(np.isfinite(g), finite):
            return np.inf
        if r.size:
            worst = max(worst, float(np.max(np.abs(g - r)[finite], initial=0.0)) / scale)
    return worst


def check_ops(ops=None, seed=None):
    """Returns the number of failures; prints one line per failing (op, dtype)."""
    seed = int(time.time()) if seed is None else seed
    tolerance = {np.float64: 1e-9, np.float32: 2e-4}
    failures, checked = 0, 0
    for k, sample in enumerate(_samples(ops)):
        arrays = sample.arrays(seed + k)
        reference = _run(sample, arrays, "cpu", np.float64)
        for dtype in (np.float64, np.float32):
            try:
                err = _error(_run(sample, arrays, "cuda", dtype), reference)
            except Exception as exc:          # a crash is a failure to report, not to stop on
                err, note = np.inf, f"{type(exc).__name__}: {exc}"
            else:
                note = ""
            checked += 1
            if not err <= tolerance[dtype]:
                failures += 1
                print(f"FAIL {sample!r} {np.dtype(dtype).name}: error {err:.2e} {note}")
    print(f"ops: {checked - failures}/{checked} (sample, dtype) checks pass (seed {seed})")
    return failures


# ---- 2. timing -----------------------------------------------------------------------------------
def _median_ms(fn, warmup=3, repeat=20):
    """Median time of fn() in milliseconds, between CUDA events around each call."""
    from numba import cuda
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start, end = cuda.event(timing=True), cuda.event(timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cuda.event_elapsed_time(start, end))
    return statistics.median(times)


def copy_bandwidth(n=1 << 26):
    """Device-to-device copy of n float32 (read + write counted), GB/s."""
    from numgrad.cuda.array import empty
    src, dst = empty((n,), np.float32), empty((n,), np.float32)
    ms = _median_ms(lambda: dst.copy_to_device(src))
    return 2 * 4 * n / ms / 1e6


def elementwise_chain(n=1 << 24, depth=10):
    """depth unary ops forward and backward on n float32: bytes an ideal kernel per op moves
    (forward: read x, write y; backward: read g and one saved value, write the input grad)."""
    x = ng.randn(n, device="cuda", requires_grad=True)

    def step():
        h = x
        for _ in range(depth // 2):
            h = (h * 0.5).tanh()
        h.sum().backward()
        x.grad = None
    ms = _median_ms(step)
    return ms, depth * (8 + 12) * n / ms / 1e6


def matmul_backward(m=2048):
    """Backward of (m, m) @ (m, m) in float32: two products of 2 m^3 flops each."""
    a = ng.randn(m, m, device="cuda", requires_grad=True)
    b = ng.randn(m, m, device="cuda", requires_grad=True)
    g = ng.ones(m, m, device="cuda")

    def step():
        (a @ b).backward(g)
        a.grad = b.grad = None
    ms = _median_ms(step)
    return ms, 4 * m ** 3 / ms / 1e9


def mlp_step(batch=512, width=1024, depth=3):
    """One training step (zero_grad, forward, backward, SGD update) of an MLP moved by
    Module.to("cuda"): 6 flops per weight per example (forward, and two products in the
    backward)."""
    import numgrad.nn as nn
    import numgrad.nn.functional as F
    layers = [nn.Linear(width, width) for _ in range(depth)]
    model = nn.Sequential(*[m for layer in layers for m in (layer, nn.ReLU())], nn.Linear(width, 10))
    model.to("cuda")
    opt = ng.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    x = ng.randn(batch, width, device="cuda")
    y = ng.randint(0, 10, (batch,), device="cuda")

    def step():
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    ms = _median_ms(step, repeat=10)
    weights = sum(p.numel() for p in model.parameters())
    return ms, 6 * weights * batch / ms / 1e9


def timings():
    peak = copy_bandwidth()
    chain_ms, chain_gbs = elementwise_chain()
    mm_ms, mm_tflops = matmul_backward()
    mlp_ms, mlp_tflops = mlp_step()
    rows = [("device copy (D2D)", "", f"{peak:8.0f} GB/s", "100%"),
            ("elementwise chain fwd+bwd, 2^24 f32", f"{chain_ms:8.2f} ms",
             f"{chain_gbs:8.0f} GB/s", f"{100 * chain_gbs / peak:5.0f}%"),
            ("matmul backward 2048^3 f32", f"{mm_ms:8.2f} ms", f"{mm_tflops:8.2f} TFLOP/s", ""),
            ("MLP step 512x1024 (3 hidden) f32", f"{mlp_ms:8.2f} ms", f"{mlp_tflops:8.2f} TFLOP/s",
             "")]
    print(f"{'workload':38} {'median':>11} {'achieved':>15} {'of copy bw':>10}")
    for row in rows:
        print(f"{row[0]:38} {row[1]:>11} {row[2]:>15} {row[3]:>10}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ops", help="comma-separated op names to check (default: all)")
    parser.add_argument("--seed", type=int, help="input seed (default: the clock)")
    args = parser.parse_args(argv)
    if not numgrad.cuda.is_available():
        print("CUDA is not available (numba-cuda and a GPU, or NUMBA_ENABLE_CUDASIM=1)")
        return 2
    from numba import config, cuda
    simulated = bool(config.ENABLE_CUDASIM)
    print("device:", "numba-cuda simulator" if simulated else cuda.get_current_device().name)
    failures = check_ops(set(args.ops.split(",")) if args.ops else None, args.seed)
    if simulated:
        print("timing skipped under the simulator")
    else:
        timings()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
