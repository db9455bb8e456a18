"""Ops no gradient flows through (integer and bool arithmetic, reductions, indices, predicates):
values and dtypes by hand on the CPU, and the same on the GPU (numba-cuda's simulator without one),
where NumPy runs on a host copy (numgrad/ops/untracked.py)."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.cuda
import numgrad.nn.functional as F

needs_cuda = pytest.mark.skipif(not numgrad.cuda.is_available(),
                                reason="needs numba-cuda and a GPU or its simulator")

X = [7, -7, 5, 0]
Y = [2, 2, -3, 4]
F32 = [[1.0, 3.0], [4.0, float("nan")]]

# name -> (program on a device, expected value as an ndarray with its dtype)
CASES = {
    "floor divide": (lambda d: ng.tensor(X, device=d) // ng.tensor(Y, device=d),
                     np.array([3, -4, -2, 0])),
    "remainder": (lambda d: ng.tensor(X, device=d) % ng.tensor(Y, device=d),
                  np.array([1, 1, -1, 0])),
    "fmod": (lambda d: ng.fmod(ng.tensor(X, device=d), ng.tensor(Y, device=d)),
             np.array([1, -1, 2, 0])),
    "scalar remainder": (lambda d: ng.tensor(X, device=d) % 3, np.array([1, 2, 2, 0])),
    "trunc divide": (lambda d: ng.div(ng.tensor(X, device=d), ng.tensor(Y, device=d),
                                      rounding_mode="trunc"), np.array([3, -3, -1, 0])),
    "int power": (lambda d: ng.tensor(X, device=d) ** 2, np.array([49, 49, 25, 0])),
    "int clamp": (lambda d: ng.tensor(X, device=d).clamp(-1, 3), np.array([3, -1, 3, 0])),
    "int clamp by tensors": (lambda d: ng.tensor(X, device=d).clamp(ng.tensor(Y, device=d), 6),
                             np.array([6, 2, 5, 4])),
    "int where": (lambda d: ng.where(ng.tensor(X, device=d) > 0, ng.tensor(X, device=d),
                                     ng.tensor(Y, device=d)), np.array([7, 2, 5, 4])),
    "int matmul": (lambda d: ng.tensor([[1, 2], [3, 4]], device=d) @ ng.tensor([[0, 1], [1, 0]],
                                                                              device=d),
                   np.array([[2, 1], [4, 3]])),
    "int sum": (lambda d: ng.tensor(X, device=d).sum(), np.array(5)),
    "bool sum by dim": (lambda d: (ng.tensor([[1, -1], [2, 3]], device=d) > 0).sum(1),
                        np.array([1, 2])),
    "int prod": (lambda d: ng.tensor([2, -3, 4], device=d).prod(), np.array(-24)),
    "int max": (lambda d: ng.tensor(X, device=d).max(), np.array(7)),
    "int amin by dim": (lambda d: ng.tensor([[3, 1], [0, 5]], device=d).amin(0), np.array([0, 1])),
    "argmax": (lambda d: ng.tensor([[1.0, 3.0], [4.0, 2.0]], device=d).argmax(1), np.array([1, 0])),
    "argmin keepdim": (lambda d: ng.tensor([[1.0, 3.0], [4.0, 0.5]], device=d).argmin(keepdim=True),
                       np.array([[3]])),
    "accuracy": (lambda d: (ng.tensor([[1.0, 3.0], [4.0, 2.0]], device=d).argmax(1)
                            == ng.tensor([1, 1], device=d)).float().mean(),
                 np.array(0.5, np.float32)),
    "int cumsum": (lambda d: ng.tensor(X, device=d).cumsum(0), np.array([7, 0, 5, 5])),
    "one_hot": (lambda d: F.one_hot(ng.tensor([0, 2], device=d), 3),
                np.array([[1, 0, 0], [0, 0, 1]])),
    "float where": (lambda d: ng.where(ng.tensor([1.0, -2.0], device=d) > 0,
                                       ng.tensor([1.0, -2.0], device=d), 0.0),
                    np.array([1.0, 0.0], np.float32)),
    "masked_fill": (lambda d: ng.tensor([1.0, -2.0], device=d).masked_fill(
        ng.tensor([1.0, -2.0], device=d) < 0, 9.0), np.array([1.0, 9.0], np.float32)),
    "gather by a device index": (lambda d: ng.tensor([[1.0, 2.0], [3.0, 4.0]], device=d).gather(
        1, ng.tensor([[1], [0]], device=d)), np.array([[2.0], [3.0]], np.float32)),
    "isnan": (lambda d: ng.isnan(ng.tensor(F32, device=d)),
              np.array([[False, False], [False, True]])),
    "isinf": (lambda d: ng.isinf(ng.tensor([1.0, -float("inf")], device=d)),
              np.array([False, True])),
    "isfinite": (lambda d: ng.isfinite(ng.tensor(F32, device=d)),
                 np.array([[True, True], [True, False]])),
    "any": (lambda d: ng.isnan(ng.tensor(F32, device=d)).any(), np.array(True)),
    "all by dim": (lambda d: ng.tensor([[1, 0], [2, 3]], device=d).all(1, keepdim=True),
                   np.array([[False], [True]])),
    "count_nonzero": (lambda d: ng.count_nonzero(ng.tensor([[0.0, 1.0], [2.0, 0.0]], device=d), 0),
                      np.array([1, 1])),
    "nonzero": (lambda d: ng.tensor([[0.0, 1.0], [2.0, 3.0]], device=d).nonzero(),
                np.array([[0, 1], [1, 0], [1, 1]])),
}


def _check(result, expected):
    value = result.cpu().numpy() if result.device.type == "cuda" else result.numpy()
    assert value.dtype == expected.dtype and value.shape == expected.shape
    np.testing.assert_array_equal(value, expected)


@pytest.mark.parametrize("name", CASES)
def test_on_the_cpu(name):
    program, expected = CASES[name]
    result = program("cpu")
    assert not result.requires_grad
    _check(result, expected)


@needs_cuda
@pytest.mark.parametrize("name", CASES)
def test_on_the_gpu_as_on_the_cpu(name):
    program, expected = CASES[name]
    result = program("cuda")
    assert result.device.type == "cuda" and not result.requires_grad
    _check(result, expected)


def test_nonzero_as_tuple_and_of_a_scalar():
    rows, cols = ng.tensor([[0.0, 1.0], [2.0, 3.0]]).nonzero(as_tuple=True)
    np.testing.assert_array_equal(rows.numpy(), [0, 1, 1])
    np.testing.assert_array_equal(cols.numpy(), [1, 0, 1])
    (only,) = ng.tensor(3.0).nonzero(as_tuple=True)
    np.testing.assert_array_equal(only.numpy(), [0])
    assert ng.tensor(0.0).nonzero().shape == (0, 0)


@needs_cuda
def test_integer_division_by_zero_and_mixed_devices_raise_on_the_gpu():
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        ng.tensor(X, device="cuda") % ng.tensor([1, 0, 1, 1], device="cuda")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        ng.tensor(X, device="cuda") // ng.tensor(Y)
