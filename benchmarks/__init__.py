"""numgrad's benchmarks: asv suites (bench_*.py) and a side-by-side comparison (compare.py), all
built on the workloads defined once in workloads.py."""
