"""Shared test settings: deterministic seeds for numgrad and NumPy in every test."""
import numpy as np
import pytest

import numgrad as ng


@pytest.fixture(autouse=True)
def _seed():
    ng.manual_seed(0)
    np.random.seed(0)
    yield
