"""Data-parallel scaling: examples/ddp_mlp.py on 2 processes (mpiexec -n 2) against 1 process.

    python benchmarks/bench_ddp.py               # the example's MLP and a wider one
    python benchmarks/bench_ddp.py --epochs 8

Not an asv suite (it defines no time_* benchmarks): it launches processes. Both runs train on
the same global batches, so this is strong scaling: speedup = t1 / t2 and scaling efficiency =
t1 / (2 t2), from the median seconds per epoch after the first (which compiles). BLAS and Numba
are held to one thread per process, so the single process uses one core and the pair two.
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "ddp_mlp.py"
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                     "NUMBA_NUM_THREADS")}
SETTINGS = {   # name: example arguments
    "example MLP (hidden 64, global batch 64)": ["--hidden", "64", "--global-batch", "64"],
    "wide MLP (hidden 512, global batch 256)": ["--hidden", "512", "--global-batch", "256"],
}


def seconds_per_epoch(ranks, args, epochs):
    """Median seconds per epoch after the first, from the example's --timings file."""
    with tempfile.TemporaryDirectory() as tmp:
        timings = pathlib.Path(tmp) / "timings.json"
        mpiexec = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or "mpiexec"
        launcher = [mpiexec, "-n", str(ranks)] if ranks > 1 else []
        subprocess.run(launcher + [sys.executable, str(EXAMPLE), *args, "--epochs", str(epochs),
                                   "--timings", str(timings)],
                       check=True, env={**os.environ, **ONE_THREAD}, stdout=subprocess.DEVNULL,
                       timeout=1800)
        return statistics.median(json.loads(timings.read_text())["epoch_seconds"][1:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=6)
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} at start")
    print(f"{'setting':44s} {'1 process':>10s} {'2 processes':>12s} {'speedup':>8s} "
          f"{'efficiency':>10s}")
    for name, example_args in SETTINGS.items():
        one = seconds_per_epoch(1, example_args, args.epochs)
        two = seconds_per_epoch(2, example_args, args.epochs)
        print(f"{name:44s} {one:9.3f}s {two:11.3f}s {one / two:7.2f}x {one / (2 * two):9.0%}",
              flush=True)


if __name__ == "__main__":
    main()
