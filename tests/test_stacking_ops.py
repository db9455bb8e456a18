"""The stacking family (numgrad/ops/stacking.py): select, tile, h/v/dsplit, atleast_nd,
column_stack/row_stack, block_diag, cartesian_prod, tril/triu_indices, trapezoid and
cumulative_trapezoid, cov/corrcoef, vander, Tensor.stride/output_nr and the in-place comparisons.
Values against NumPy or torch (pasted literals), views where torch returns views, gradients by
gradcheck in float64, dtypes and torch's errors."""
import numpy as np
import pytest

import numgrad as ng
from numgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)


def f64(data):
    return ng.tensor(np.asarray(data, np.float64), requires_grad=True)


# ---- views and layout ----------------------------------------------------------------------------
def test_select_is_a_view_with_torch_errors():
    x = ng.tensor(np.arange(12.).reshape(3, 4))
    row = x.select(1, -1)
    assert row._base is x and row.tolist() == [3., 7., 11.]
    assert ng.select(x, 0, 1).tolist() == [4., 5., 6., 7.]
    assert ng.select(f64(np.ones((2, 3))), 1, 2).grad_fn.name() == "SelectBackward0"
    with pytest.raises(IndexError, match=r"^select\(\): index 5 out of range for tensor of size "
                                         r"\[3, 4\] at dimension 1$"):
        x.select(1, 5)
    with pytest.raises(IndexError, match=r"^select\(\) cannot be applied to a 0-dim tensor.$"):
        ng.tensor(1.).select(0, 0)
    assert gradcheck(lambda t: t.select(0, 1), (f64(RNG.standard_normal((3, 2))),))


def test_stride_and_output_nr():
    x = ng.ones(2, 3)
    assert x.stride() == (3, 1) and x.stride(0) == 3 and x.stride(-1) == 1
    assert x.t().contiguous().stride() == (2, 1)
    assert x[:, ::2].stride() == (3, 2)
    assert ng.ones(2, 1, 3).stride() == (3, 3, 1)
    y = f64(np.ones((3, 2)))
    assert y.output_nr == 0
    assert [p.output_nr for p in ng.unbind(y * 2)] == [0, 1, 2]


def test_tile_pads_dims_in_front():
    t = ng.tensor([1, 2])
    assert ng.tile(t, (2, 2)).tolist() == [[1, 2, 1, 2], [1, 2, 1, 2]]
    assert tuple(ng.ones(2, 3).tile((2,)).shape) == (2, 6)
    assert gradgradcheck(lambda v: ng.tile(v, (2, 1, 2)), (f64(RNG.standard_normal((2, 3))),))


def test_hsplit_vsplit_dsplit_are_views():
    x = ng.tensor(np.arange(24.).reshape(2, 4, 3))
    pieces = ng.hsplit(x, 2)
    assert all(p._base is x for p in pieces) and tuple(pieces[0].shape) == (2, 2, 3)
    assert [tuple(p.shape) for p in x.vsplit([1])] == [(1, 4, 3), (1, 4, 3)]
    assert [tuple(p.shape) for p in ng.dsplit(x, 3)] == [(2, 4, 1)] * 3
    assert [p.tolist() for p in ng.hsplit(ng.arange(4), 2)] == [[0, 1], [2, 3]]
    with pytest.raises(RuntimeError, match="^torch.hsplit attempted to split along dimension 1, but "
                                           "the size of the dimension 4 is not divisible by the "
                                           "split_size 3!$"):
        ng.hsplit(x, 3)
    with pytest.raises(RuntimeError, match="^torch.dsplit requires a tensor with at least 3 "
                                           "dimension, but got a tensor with 2 dimensions!$"):
        ng.dsplit(ng.ones(2, 2), 2)
    with pytest.raises(RuntimeError, match="^torch.hsplit requires a tensor with at least 1 "):
        ng.hsplit(ng.tensor(1.), 2)


# ---- stacking ------------------------------------------------------------------------------------
def test_atleast_nd_shapes_as_torch():
    inputs = (ng.tensor(1.), ng.ones(2), ng.ones(2, 3))
    expected = {ng.atleast_1d: [(1,), (2,), (2, 3)], ng.atleast_2d: [(1, 1), (1, 2), (2, 3)],
                ng.atleast_3d: [(1, 1, 1), (1, 2, 1), (2, 3, 1)]}
    for fn, shapes in expected.items():
        assert [tuple(fn(t).shape) for t in inputs] == shapes
        assert [tuple(t.shape) for t in fn(*inputs)] == shapes
        assert [tuple(t.shape) for t in fn(list(inputs))] == shapes
    x = ng.ones(2, 3)
    assert ng.atleast_2d(x) is x


def test_column_stack_row_stack():
    out = ng.column_stack([ng.tensor(1.), ng.ones(1), ng.ones(1, 2)])
    assert out.tolist() == [[1., 1., 1., 1.]]
    assert ng.column_stack([ng.tensor([1, 2]), ng.tensor([3, 4])]).tolist() == [[1, 3], [2, 4]]
    assert ng.row_stack([ng.tensor([1, 2]), ng.tensor([3, 4])]).tolist() == [[1, 2], [3, 4]]
    a, b = f64(RNG.standard_normal(3)), f64(RNG.standard_normal((3, 2)))
    assert gradcheck(lambda u, v: ng.column_stack([u, v]), (a, b))


def test_block_diag_and_cartesian_prod():
    out = ng.block_diag(ng.tensor(1), ng.tensor([2., 3]), ng.ones(2, 1))
    assert out.dtype == ng.float32
    assert out.tolist() == [[1, 0, 0, 0], [0, 2, 3, 0], [0, 0, 0, 1], [0, 0, 0, 1]]
    assert tuple(ng.block_diag().shape) == (1, 0)
    with pytest.raises(RuntimeError, match="^torch.block_diag: Input tensors must have 2 or fewer "
                                           "dimensions. Input 0 has 3 dimensions$"):
        ng.block_diag(ng.ones(1, 1, 1))
    assert gradgradcheck(lambda u, v: ng.block_diag(u, v),
                         (f64(RNG.standard_normal((2, 2))), f64(RNG.standard_normal(3))))
    prod = ng.cartesian_prod(ng.tensor([1, 2]), ng.tensor([3, 4, 5]))
    assert prod.tolist() == [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]]
    with pytest.raises(RuntimeError, match=r"^Expect a 1D vector, but got shape \[2, 2\]$"):
        ng.cartesian_prod(ng.ones(2, 2))
    assert gradcheck(ng.cartesian_prod, (f64([1., 2.]), f64([3., 4., 5.])))


def test_tril_triu_indices():
    assert ng.tril_indices(3, 3).tolist() == [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    assert ng.triu_indices(3, 4, 1).tolist() == [[0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]]
    assert ng.tril_indices(2, 3, -1, dtype=ng.int32).dtype == ng.int32
    with pytest.raises(NotImplementedError, match="^\"tril_indices\" not implemented for 'Float'$"):
        ng.tril_indices(3, 3, dtype=ng.float32)


# ---- numerics ------------------------------------------------------------------------------------
def test_trapezoid_and_cumulative_trapezoid():
    y = ng.tensor([[1., 2, 3], [4, 5, 7]], dtype=ng.float64)
    assert ng.trapezoid(y).tolist() == [4.0, 10.5]
    assert ng.trapezoid(y, ng.tensor([0., 1, 3], dtype=ng.float64)).tolist() == [6.5, 16.5]
    assert ng.trapz(y, dx=2.).tolist() == [8.0, 21.0]
    assert ng.cumulative_trapezoid(y, dim=0).tolist() == [[2.5, 3.5, 5.0]]
    assert ng.cumulative_trapezoid(ng.tensor([1., 2, 3]), dx=2.).tolist() == [3., 8.]
    with pytest.raises(RuntimeError, match="^trapezoid: There must be one `x` value for each "):
        ng.trapezoid(ng.ones(3), ng.ones(4))
    with pytest.raises(IndexError, match="^Dimension specified as -1 but tensor has no dimensions$"):
        ng.trapezoid(ng.tensor(1.))
    ys, xs = f64(RNG.standard_normal((2, 4))), f64(np.cumsum(RNG.random(4)))
    assert gradgradcheck(ng.trapezoid, (ys, xs))
    assert gradcheck(lambda a, b: ng.cumulative_trapezoid(a, b), (ys, xs))


def test_cov_corrcoef_match_torch():
    x = ng.tensor([[1., 2, 3], [4, 5, 7]], dtype=ng.float64)
    assert np.allclose(ng.cov(x).numpy(), [[1.0, 1.5], [1.5, 2.3333333333]])
    assert np.allclose(x.corrcoef().numpy(), [[1.0, 0.9819805061], [0.9819805061, 1.0]])
    weighted = ng.cov(x, fweights=ng.tensor([1, 2, 1]),
                      aweights=ng.tensor([0.5, 1., 2.], dtype=ng.float64))
    assert np.allclose(weighted.numpy(), [[0.6428571429, 1.0714285714],
                                          [1.0714285714, 1.8571428571]])
    assert np.allclose(weighted.numpy(), np.cov(x.numpy(), fweights=[1, 2, 1],
                                                aweights=[0.5, 1., 2.]))
    assert np.allclose(ng.cov(x, correction=0).numpy(), np.cov(x.numpy(), bias=True))
    assert tuple(ng.cov(ng.randn(5)).shape) == () and ng.cov(ng.arange(5)).dtype == ng.float32
    with pytest.raises(RuntimeError, match="^cov\\(\\): expected input to have two or fewer "
                                           "dimensions but got an input with 3 dimensions$"):
        ng.cov(ng.ones(2, 2, 2))
    data = f64(RNG.standard_normal((2, 5)))
    assert gradgradcheck(ng.cov, (data,))
    assert gradcheck(ng.corrcoef, (data,))
    assert gradcheck(lambda d, w: ng.cov(d, aweights=w), (data, f64(RNG.random(5) + 0.5)))


def test_vander():
    out = ng.vander(ng.tensor([1., 2, 3]), N=4, increasing=True)
    assert out.tolist() == [[1, 1, 1, 1], [1, 2, 4, 8], [1, 3, 9, 27]]
    assert ng.vander(ng.tensor([1, 2], dtype=ng.int32)).dtype == ng.int64
    assert ng.vander(ng.tensor([0., 2.])).tolist() == [[0., 1.], [2., 1.]]
    with pytest.raises(RuntimeError, match="^x must be a one-dimensional tensor.$"):
        ng.vander(ng.ones(2, 2))
    # x = 0 included: the cumulative product keeps its gradients finite
    assert gradgradcheck(lambda v: ng.vander(v, 4), (f64([0., 0.5, -1.5]),))


def test_inplace_comparisons():
    a = ng.tensor([1., 5., 3.])
    assert a.lt_(ng.tensor([2., 2, 4])) is a
    assert a.tolist() == [1., 0., 1.] and a.dtype == ng.float32
    b = ng.tensor([1, 5, 3])
    b.ge_(3)
    assert b.tolist() == [0, 1, 1] and b.dtype == ng.int64
    for op, expected in (("le_", [1, 1, 0]), ("gt_", [0, 0, 1]), ("eq_", [0, 1, 0]),
                         ("ne_", [1, 0, 1])):
        c = ng.tensor([1., 2., 3.])
        version = c._version
        getattr(c, op)(2.)
        assert c.tolist() == expected and c._version == version + 1, op


@pytest.mark.parametrize("method, node", [("lt_", "LtBackward0"), ("ge_", "GeBackward0"),
                                          ("greater_", "GtBackward0")])
def test_an_in_place_comparison_keeps_a_non_leaf_in_the_graph_with_a_zero_gradient(method, node):
    # torch 2.13: b = a * 1; b.lt_(2) writes 0/1 into b, whose LtBackward0 gives a zero gradient
    a = ng.ones(3, requires_grad=True)
    b = a * 1
    getattr(b, method)(2)
    assert b.grad_fn.name() == node and b.dtype == ng.float32
    b.sum().backward()
    assert a.grad.tolist() == [0.0, 0.0, 0.0]
