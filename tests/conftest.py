"""Shared test settings: deterministic seeds, and a fresh recording segment per test."""
import numpy as np
import pytest

import numgrad as ng


@pytest.fixture(autouse=True)
def _seed():
    ng.manual_seed(0)
    np.random.seed(0)
    yield
