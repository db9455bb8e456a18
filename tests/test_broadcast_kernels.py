"""The generated elementwise kernels' broadcasting paths (kernels/table.py): an input of the output's
size, a bias row (the output's last dims, summed row by row), any other broadcast shape (index
maps), each writing or adding to a gradient another edge already wrote. References in NumPy."""
import numpy as np
import pytest

import numgrad as ng

SHAPES = [((4, 3), (3,)),            # bias row
          ((2, 4, 3), (1, 4, 3)),    # bias row with a leading 1
          ((2, 4, 3), (4, 1)),       # a column: index maps
          ((4, 3), (1, 1)),          # one element
          ((3,), (2, 4, 3))]         # the other input is the big one


def _sum_to(a, shape):
    while a.ndim > len(shape):
        a = a.sum(0)
    return a.sum(axis=tuple(d for d, s in enumerate(shape) if s == 1), keepdims=True).reshape(shape)


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
@pytest.mark.parametrize("x_shape, y_shape", SHAPES)
def test_products_and_sums_with_a_broadcast_input_used_twice(x_shape, y_shape, dtype):
    rng = np.random.default_rng(0)
    xv, yv = rng.uniform(0.5, 1.5, x_shape), rng.uniform(0.5, 1.5, y_shape)
    x = ng.tensor(xv, dtype=dtype, requires_grad=True)
    y = ng.tensor(yv, dtype=dtype, requires_grad=True)
    # y reaches the loss through two edges: the second contribution adds to the first
    loss = (x * y).sum() + (x + y).sum() * 2 + (x / y).sum()
    loss.backward()
    out_shape = np.broadcast_shapes(x_shape, y_shape)
    ones = np.ones(out_shape)
    yb, xb = np.broadcast_to(yv, out_shape), np.broadcast_to(xv, out_shape)
    expected_x = _sum_to(yb + 2 * ones + 1 / yb, x_shape)
    expected_y = _sum_to(xb + 2 * ones - xb / yb ** 2, y_shape)
    tol = 1e-5 if dtype == ng.float32 else 1e-12
    np.testing.assert_allclose(x.grad.numpy(), expected_x, rtol=tol)
    np.testing.assert_allclose(y.grad.numpy(), expected_y, rtol=tol)
