"""Tensor printing as torch prints (torch/_tensor_str.py): the notation is chosen from the nonzero
finite values."""
import math

import pytest

import numgrad as ng


@pytest.mark.parametrize("values, printed", [
    ([0.5, 2.0], "tensor([0.5000, 2.0000])"),
    ([7.0], "tensor([7.])"),
    ([1e-5, 1.0], "tensor([1.0000e-05, 1.0000e+00])"),
    ([123456.0, 1.0], "tensor([1.2346e+05, 1.0000e+00])"),     # integral, but spans > 1000x
    ([1000.0, 1.0], "tensor([1000.,    1.])"),
    ([1e9], "tensor([1.0000e+09])"),
    ([0.0, 1e-31], "tensor([0.0000e+00, 1.0000e-31])"),        # zeros do not decide
    ([0.0, -0.4, 0.0, 1.1111e-31], "tensor([ 0.0000e+00, -4.0000e-01,  0.0000e+00,  1.1111e-31])"),
    ([0.0, 0.0], "tensor([0., 0.])"),
    ([math.inf, 1.5], "tensor([   inf, 1.5000])"),
])
def test_notation_follows_torch(values, printed):
    assert repr(ng.tensor(values)) == printed
