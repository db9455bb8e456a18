"""Shared test settings: deterministic seeds for numgrad and NumPy in every test."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.cuda

# Without a GPU, the CUDA tests run in numba-cuda's simulator (chosen before numba.cuda loads).
numgrad.cuda.use_simulator_without_gpu()


@pytest.fixture(autouse=True)
def _seed():
    ng.manual_seed(0)
    np.random.seed(0)
    yield


@pytest.fixture(autouse=True)
def _fresh_warnings():
    """Warnings torch gives once per process are given again in each test, as in a fresh one."""
    ng.autograd.api.cycle_warning["given"] = False
    yield
