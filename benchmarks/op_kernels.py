"""Single ops' forward and backward against PyTorch, alternated in one run, best of N, one thread:
the kernels the whole-workload comparison (compare.py) hides inside its steps.

    python -m benchmarks.op_kernels              # 15 rounds
    python -m benchmarks.op_kernels --rounds 30
    python -m benchmarks.op_kernels gelu softmax  # only the ops whose names contain these
"""
import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from benchmarks.workloads import _torch, available  # noqa: E402


def _cases(rng):
    """(name, fn(module, *tensors), arrays, which arrays require grad)."""
    def arr(*shape):
        return rng.standard_normal(shape).astype(np.float32)
    images = arr(64, 32, 14, 14)
    tokens = arr(64, 128, 256)
    return [
        ("x * m, x (64,32,14,14), m (1,32,1,1)", lambda M, x, m: x * m,
         [images, arr(1, 32, 1, 1)], (True, True)),
        ("batch_norm, training, (64,32,14,14)",
         lambda M, x, w, b: M.nn.functional.batch_norm(x, None, None, w, b, training=True),
         [images, arr(32), arr(32)], (True, True, True)),
        ("layer_norm over 256 of (64,128,256)",
         lambda M, x, w, b: M.nn.functional.layer_norm(x, (256,), w, b),
         [tokens, arr(256), arr(256)], (True, True, True)),
        ("group_norm, 8 groups of (16,64,32,32)",
         lambda M, x, w, b: M.nn.functional.group_norm(x, 8, w, b),
         [arr(16, 64, 32, 32), arr(64), arr(64)], (True, True, True)),
        ("softmax (16,8,128,128) over the last dim", lambda M, x: M.softmax(x, -1),
         [arr(16, 8, 128, 128)], (True,)),
        ("softmax (64,10,32,32) over dim 1", lambda M, x: M.softmax(x, 1),
         [arr(64, 10, 32, 32)], (True,)),
        ("log_softmax (256,8192) over the last dim", lambda M, x: M.log_softmax(x, -1),
         [arr(256, 8192)], (True,)),
        ("conv2d 1->16 channels, 3x3, 64 28x28 images",
         lambda M, x, w, b: M.nn.functional.conv2d(x, w, b, padding=1),
         [arr(64, 1, 28, 28), arr(16, 1, 3, 3), arr(16)], (False, True, True)),
        ("gelu (64,128,256)", lambda M, x: M.nn.functional.gelu(x), [tokens], (True,)),
        ("silu (64,128,256)", lambda M, x: M.nn.functional.silu(x), [tokens], (True,)),
        ("sigmoid (64,128,256)", lambda M, x: M.sigmoid(x), [tokens], (True,)),
        ("tanh (64,128,256)", lambda M, x: M.tanh(x), [tokens], (True,)),
        ("embedding 50000x256, indices (64,128)",
         lambda M, w, i: M.nn.functional.embedding(i, w),
         [arr(50000, 256), rng.integers(0, 50000, (64, 128))], (True, False)),
        ("bmm (64,128,64) @ (64,64,128)", lambda M, a, b: M.bmm(a, b),
         [arr(64, 128, 64), arr(64, 64, 128)], (True, True)),
        ("avg_pool2d 2x2, (64,32,28,28)", lambda M, x: M.nn.functional.avg_pool2d(x, 2),
         [arr(64, 32, 28, 28)], (True,)),
        ("cat of 4 (64,128,64) on the last dim", lambda M, a, b, c, d: M.cat((a, b, c, d), -1),
         [arr(64, 128, 64) for _ in range(4)], (True, True, True, True)),
        ("x[:, ::2] of (64,128,256)", lambda M, x: x[:, ::2], [tokens], (True,)),
        ("cross_entropy (512,1000)", lambda M, x, t: M.nn.functional.cross_entropy(x, t),
         [arr(512, 1000), rng.integers(0, 1000, 512)], (True, False)),
    ]


def run(rounds, only):
    import numgrad as ng
    torch = _torch()
    print("| op (float32) | numgrad forward | torch forward | numgrad backward | torch backward |")
    print("|---|---|---|---|---|")
    for name, fn, arrays, wants in _cases(np.random.default_rng(0)):
        if only and not any(word in name for word in only):
            continue
        states, best = {}, {}
        for lib, module in (("numgrad", ng), ("torch", torch)):
            tensors = [module.tensor(a, requires_grad=w) for a, w in zip(arrays, wants)]
            grad = module.tensor(np.ones(tuple(fn(module, *tensors).shape), np.float32))
            states[lib] = (module, tensors, grad)
            best[lib] = [float("inf"), float("inf")]
        for _ in range(rounds):
            for lib, (module, tensors, grad) in states.items():
                start = time.perf_counter()
                out = fn(module, *tensors)
                middle = time.perf_counter()
                out.backward(grad)
                end = time.perf_counter()
                for t in tensors:
                    t.grad = None
                best[lib] = [min(best[lib][0], middle - start), min(best[lib][1], end - middle)]
        (nf, nb), (tf, tb) = best["numgrad"], best["torch"]
        print(f"| {name} | {nf * 1e3:.3f} ms | {tf * 1e3:.3f} ms | {nb * 1e3:.3f} ms | "
              f"{tb * 1e3:.3f} ms |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("only", nargs="*", help="run only the ops whose names contain one of these")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args(argv)
    if not available("torch"):
        parser.exit(1, "PyTorch is not installed: nothing to compare against\n")
    run(args.rounds, args.only)


if __name__ == "__main__":
    main()
