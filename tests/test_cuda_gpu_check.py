"""benchmarks/gpu_check.py keeps working: its correctness part on two ops (the timing part needs a
real GPU)."""
import os
import sys

import pytest

import numgrad.cuda

pytestmark = pytest.mark.skipif(not numgrad.cuda.is_available(),
                                reason="needs numba-cuda and a GPU or its simulator")


def test_gpu_check_passes_on_a_few_ops(capsys):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
    import gpu_check
    assert gpu_check.check_ops({"mm", "softmax"}, seed=3) == 0
    assert "checks pass" in capsys.readouterr().out
