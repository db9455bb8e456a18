"""numgrad.testing.assert_close against torch.testing.assert_close: its default tolerances, checks
and messages (torch 2.13's, hard-coded); and the small top-level names test code reaches for
(ng.int, ng.dtype, randint_like)."""
import re

import numpy as np
import pytest

import numgrad as ng
from numgrad.testing import assert_close


def _fails(actual, expected, message, error=AssertionError, **kwargs):
    with pytest.raises(error, match="^" + re.escape(message) + "$"):
        assert_close(actual, expected, **kwargs)


def test_values_within_the_default_tolerances_of_their_dtype_pass():
    assert_close(ng.tensor([1.0, 2.0]), ng.tensor([1.0, 2.0 + 2e-6]))            # float32
    assert_close(ng.tensor([1.0], dtype=ng.float64), ng.tensor([1.0 + 1e-8], dtype=ng.float64))
    assert_close(ng.tensor([1.0, float("nan")]), ng.tensor([1.0, float("nan")]), equal_nan=True)
    assert_close(ng.tensor([1.0]), ng.tensor([1.0001]), rtol=1e-3, atol=0)
    assert_close(ng.tensor([1.0]), ng.tensor([1.0], dtype=ng.float64), check_dtype=False)
    assert_close(ng.tensor([1.0], requires_grad=True), ng.tensor([1.0]))
    assert_close({"w": [ng.tensor(1.0), 2]}, {"w": [ng.tensor(1.0), 2]})
    assert_close(ng.tensor([float("inf")]), ng.tensor([float("inf")]))


def test_mismatches_have_torchs_messages():
    _fails(ng.tensor([1.0, 2.0, 3.0]), ng.tensor([1.0, 2.5, 3.0]),
           "Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n"
           "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
           "Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)")
    _fails(ng.tensor([[1.0, 2.0], [3.0, 4.0]]), ng.tensor([[1.0, 2.0], [3.0, 4.1]]),
           "Tensor-likes are not close!\n\nMismatched elements: 1 / 4 (25.0%)\n"
           "Greatest absolute difference: 0.09999990463256836 at index (1, 1) (up to 1e-05 allowed)\n"
           "Greatest relative difference: 0.024390220642089844 at index (1, 1) "
           "(up to 1.3e-06 allowed)")
    _fails(ng.tensor([1, 2]), ng.tensor([1, 3]),
           "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
           "Greatest absolute difference: 1 at index (1,)\n"
           "Greatest relative difference: 0.3333333432674408 at index (1,)")
    _fails(ng.tensor([1.0, float("nan")]), ng.tensor([1.0, float("nan")]),
           "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
           "Greatest absolute difference: nan at index (1,) (up to 1e-05 allowed)\n"
           "Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)")
    _fails(ng.tensor(1), ng.tensor(2), "Scalars are not equal!\n\nExpected 2 but got 1.\n"
                                       "Absolute difference: 1\nRelative difference: 0.5")
    _fails(1.0, 1.1, "Scalars are not close!\n\nExpected 1.1 but got 1.0.\n"
                     "Absolute difference: 0.10000000000000009 (up to 1e-07 allowed)\n"
                     "Relative difference: 0.09090909090909098 (up to 1e-07 allowed)")
    _fails([ng.tensor(1.0)], [ng.tensor(1.5)],
           "Scalars are not close!\n\nExpected 1.5 but got 1.0.\n"
           "Absolute difference: 0.5 (up to 1e-05 allowed)\n"
           "Relative difference: 0.3333333333333333 (up to 1.3e-06 allowed)\n\n"
           "The failure occurred for item [0]")
    _fails({"a": ng.tensor(1.0)}, {"a": ng.tensor(2.0)},
           "Scalars are not close!\n\nExpected 2.0 but got 1.0.\n"
           "Absolute difference: 1.0 (up to 1e-05 allowed)\n"
           "Relative difference: 0.5 (up to 1.3e-06 allowed)\n\nThe failure occurred for item ['a']")
    _fails(ng.tensor([1.0, 2.0]), ng.tensor([1.0, 2.0, 3.0]),
           "The values for attribute 'shape' do not match: numgrad.Size([2]) != numgrad.Size([3]).")
    _fails(ng.tensor([1.0]), ng.tensor([1.0], dtype=ng.float64),
           "The values for attribute 'dtype' do not match: numgrad.float32 != numgrad.float64.")
    _fails((ng.tensor([1.0]),), (ng.tensor([1.0]), ng.tensor([1.5])),
           "The length of the sequences mismatch: 1 != 2")
    _fails(ng.tensor([1.0]), ng.tensor([2.0]), "custom", msg="custom")
    _fails(ng.tensor([1.0]), ng.tensor([1.0001]),
           "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol.",
           ValueError, rtol=1e-3)
    _fails(ng.tensor(1.0), 1.0, "No comparison pair was able to handle inputs of type "
                                "<class 'numgrad.tensor.Tensor'> and <class 'float'>.", TypeError)
    _fails(np.array([1.0]), np.array([1.5]),
           "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
           "Greatest absolute difference: 0.5 at index (0,) (up to 1e-07 allowed)\n"
           "Greatest relative difference: 0.3333333333333333 at index (0,) (up to 1e-07 allowed)")


def test_torchs_int_and_dtype_names():
    assert ng.int == ng.int32 and isinstance(ng.float32, ng.dtype)
    assert ng.arange(3, dtype=ng.int).dtype == ng.int32


def test_randint_like_takes_the_shape_and_dtype_of_its_input():
    x = ng.ones(2, 3, dtype=ng.float64)
    r = ng.randint_like(x, 10)
    assert r.dtype == ng.float64 and r.shape == (2, 3)
    assert bool((r >= 0).all() and (r < 10).all()) and bool((r == r.round()).all())
    assert ng.randint_like(x, 2, 5, dtype=ng.int64).dtype == ng.int64
