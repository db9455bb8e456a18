"""The generated elementwise kernels' broadcasting paths (kernels/table.py): an input of the output's
size, a single element, and general broadcasting walked in rows (Note [broadcast rows] in
kernels/abi.py), each writing or adding to a gradient another edge already wrote; and the rows of
the sum/mean and expand backward kernels. References in NumPy."""
import numpy as np
import pytest

import numgrad as ng

SHAPES = [((4, 3), (3,)),            # bias row
          ((2, 4, 3), (1, 4, 3)),    # bias row with a leading 1
          ((2, 4, 3), (4, 1)),       # a column: constant along each row
          ((4, 3), (1, 1)),          # one element
          ((3,), (2, 4, 3)),         # the other input is the big one
          ((3, 4, 2, 5), (1, 4, 1, 1)),   # a batch norm's per-channel statistics
          ((4, 1, 3), (1, 5, 1)),    # both broadcast: neither has the output's size
          ((2, 1, 4, 3), (5, 1, 1)),  # size-1 dims between merged ones
          ((2, 0, 3), (1, 1, 3))]    # an empty output


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


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_a_three_input_op_with_every_input_broadcast_differently(dtype):
    # addcmul(x, y, z, value=0.5) = x + 0.5 * y * z: d/dx = g, d/dy = 0.5 * g * z, d/dz = 0.5 * g * y
    rng = np.random.default_rng(1)
    shapes = [(3, 1, 4), (1, 5, 1), (5, 4)]
    values = [rng.uniform(0.5, 1.5, s) for s in shapes]
    x, y, z = (ng.tensor(v, dtype=dtype, requires_grad=True) for v in values)
    out = ng.addcmul(x, y, z, value=0.5)
    weights = rng.uniform(-1, 1, out.shape)
    (out * ng.tensor(weights, dtype=dtype)).sum().backward()
    full = (3, 5, 4)
    xv, yv, zv = (np.broadcast_to(v, full) for v in values)
    tol = 1e-5 if dtype == ng.float32 else 1e-12
    np.testing.assert_allclose(x.grad.numpy(), _sum_to(weights, shapes[0]), rtol=tol, atol=tol)
    np.testing.assert_allclose(y.grad.numpy(), _sum_to(0.5 * weights * zv, shapes[1]), rtol=tol,
                               atol=tol)
    np.testing.assert_allclose(z.grad.numpy(), _sum_to(0.5 * weights * yv, shapes[2]), rtol=tol,
                               atol=tol)


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
@pytest.mark.parametrize("dims", [(0, 2, 3), (1,), (0, 3), (1, 2)])
def test_mean_over_some_dims_spreads_each_gradient_over_its_group(dims, dtype):
    rng = np.random.default_rng(2)
    xv = rng.standard_normal((3, 4, 2, 5))
    x = ng.tensor(xv, dtype=dtype, requires_grad=True)
    out = x.mean(dims, keepdim=True)
    weights = rng.uniform(-1, 1, out.shape)
    (out * ng.tensor(weights, dtype=dtype)).sum().backward()
    count = np.prod([xv.shape[d] for d in dims])
    tol = 1e-6 if dtype == ng.float32 else 1e-14
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(weights / count, xv.shape),
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
@pytest.mark.parametrize("shape, size", [((4, 1, 3), (2, 4, 5, 3)), ((1, 3, 1), (3, 3, 4)),
                                         ((5,), (2, 3, 5))])
def test_expand_sums_the_gradient_over_the_repeated_dims(shape, size, dtype):
    rng = np.random.default_rng(3)
    x = ng.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)
    weights = rng.uniform(-1, 1, size)
    (x.expand(*size) * ng.tensor(weights, dtype=dtype)).sum().backward()
    tol = 1e-5 if dtype == ng.float32 else 1e-12
    np.testing.assert_allclose(x.grad.numpy(), _sum_to(weights, shape), rtol=tol, atol=tol)


def test_every_generated_kernel_module_is_valid_python():
    # each op's kernels are generated source (one loop per case of the broadcast rows); a case
    # list that generates a bad branch would surface only when a graph first needs that kernel
    from numgrad.kernels import table
    from numgrad.ops import registry
    for op in registry.OPS:
        if op.elementwise:
            compile(table._module_source(op), f"<kernels of {op.name}>", "exec")
