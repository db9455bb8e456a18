"""The examples, run as a user runs them (in a subprocess, --quick), reach their stated accuracy."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# example, the accuracy its quick run must reach
EXAMPLES = [("micrograd_moons.py", 0.95), ("spirals_mlp.py", 0.95), ("cnn_shapes.py", 0.93)]


@pytest.mark.parametrize("script, wanted", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_quick_run_reaches_its_accuracy(script, wanted, tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, os.path.join(ROOT, "examples", script), "--quick",
                          "--plot-dir", str(tmp_path)], capture_output=True, text=True, env=env,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert re.match(r"(step|epoch) +1 ", run.stdout)           # progress is printed
    final = re.findall(r"accuracy ([0-9.]+) in ", run.stdout)  # the closing summary line
    assert final and float(final[-1]) >= wanted, run.stdout


@pytest.mark.skipif(not __import__("numgrad.cuda").cuda.is_available(),
                    reason="needs numba-cuda and a GPU or its simulator")
def test_spirals_trains_on_the_gpu_as_on_the_cpu():
    """`--device cuda` moves data and model; a tiny run (the simulator runs every GPU thread in
    Python) follows the CPU run's losses."""
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import spirals_mlp
    finally:
        sys.path.pop(0)
    tiny = dict(points=8, epochs=1, batch_size=24, hidden=4, lr=0.05, verbose=False)
    cpu = spirals_mlp.run(**tiny)
    gpu = spirals_mlp.run(**tiny, device="cuda")
    assert next(gpu[0].parameters()).is_cuda
    assert gpu[1] == pytest.approx(cpu[1], rel=1e-4) and gpu[2] == pytest.approx(cpu[2])
