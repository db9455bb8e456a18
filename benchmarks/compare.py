"""Side-by-side timings: the same workloads in numgrad, PyTorch, JAX and micrograd (whichever are
installed), and for the tensor MLP step a hand-written NumPy step (the floor of any NumPy-based
library), interleaved in one run so machine noise hits all alike. Prints medians and the ratio
of each library's time to torch's (below 1: faster than torch).

    python -m benchmarks.compare                 # every workload, 5 rounds
    python -m benchmarks.compare chain_full scalar_mlp --rounds 9
    python -m benchmarks.compare --json results.json
"""
import argparse
import gc
import json
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")   # single-threaded, like the targets
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from benchmarks.workloads import ALL, available  # noqa: E402


def measure(workload, lib, rounds):
    """Median and all timings of `rounds` runs (after one warm-up run)."""
    times = []
    for k in range(rounds + 1):
        state = workload.prepare(lib)
        gc.collect()
        start = time.perf_counter()
        workload.run(lib, state)
        elapsed = time.perf_counter() - start
        del state
        if k:
            times.append(elapsed)
    return times


def compare(names, rounds, libs):
    results = {}
    for name in names:
        workload = ALL[name]
        present = [lib for lib in workload.libs if lib in libs and available(lib)]
        timings = {lib: [] for lib in present}
        failed = {}
        for _ in range(rounds):               # interleave: one round of each library at a time
            for lib in present:
                if lib in failed:
                    continue
                try:
                    timings[lib].extend(measure(workload, lib, 1))
                except RecursionError as error:   # micrograd's recursive topological sort
                    failed[lib] = f"{type(error).__name__}"
                    del timings[lib]
        results[name] = {"title": workload.name,
                         "median_s": {lib: statistics.median(t) for lib, t in timings.items()},
                         "runs_s": timings, "failed": failed}
        print(_row(results[name]), flush=True)
    return results


def _row(result):
    medians = result["median_s"]
    torch = medians.get("torch")
    parts = []
    for lib, t in medians.items():
        ratio = f" ({t / torch:.2f}x torch)" if torch and lib != "torch" else ""
        parts.append(f"{lib} {t * 1e3:.1f} ms{ratio}")
    parts += [f"{lib} failed ({why})" for lib, why in result.get("failed", {}).items()]
    return f"{result['title']}: " + ", ".join(parts)


def table(results):
    libs = []
    for r in results.values():
        libs += [lib for lib in list(r["median_s"]) + list(r.get("failed", {})) if lib not in libs]
    head = "| workload | " + " | ".join(f"{lib} (ms)" for lib in libs) + " | numgrad / torch |"
    lines = [head, "|" + "---|" * (len(libs) + 2)]
    for r in results.values():
        m = r["median_s"]
        failed = r.get("failed", {})
        cells = [f"{m[lib] * 1e3:.1f}" if lib in m else ("fails" if lib in failed else "-")
                 for lib in libs]
        ratio = f"{m['numgrad'] / m['torch']:.3f}" if "numgrad" in m and "torch" in m else "-"
        lines.append(f"| {r['title']} | " + " | ".join(cells) + f" | {ratio} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("workloads", nargs="*", help=f"some of: {', '.join(ALL)}")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--libs", default="numgrad,torch,jax,micrograd,numpy")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args(argv)
    names = args.workloads or list(ALL)
    unknown = [n for n in names if n not in ALL]
    if unknown:
        parser.error(f"unknown workloads: {unknown}")
    results = compare(names, args.rounds, args.libs.split(","))
    print()
    print(table(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"python": sys.version, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
