"""The kernels that move a gradient between layouts walk rows (Note [row walks] in
numgrad/kernels/cpu.py): permute, basic indexing, cat and stack. Each is checked against the
gradient NumPy gives by placing the incoming gradient through the same view, in both dtypes, with
the gradient written once (the first contribution) and added (a second use of the input)."""
import numpy as np
import pytest

import numgrad as ng


def _leaf(shape, dtype, seed=0):
    data = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return ng.tensor(data, requires_grad=True), data


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("perm", [(1, 0), (0, 2, 1), (2, 0, 1), (3, 1, 0, 2), (0, 1, 2)])
def test_permute_gradient_is_the_inverse_permutation(dtype, perm):
    shape = (3, 4, 5, 2)[:len(perm)]
    x, data = _leaf(shape, dtype)
    out_shape = tuple(shape[d] for d in perm)
    g = np.random.default_rng(1).standard_normal(out_shape).astype(dtype)
    (x.permute(*perm) * ng.tensor(g)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), g.transpose(np.argsort(perm)))
    # added to a gradient already there: x used twice
    x.grad = None
    ((x.permute(*perm) * ng.tensor(g)).sum() + (x * 2.0).sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), g.transpose(np.argsort(perm)) + 2.0, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index", [
    (slice(None), slice(None, None, 2)),
    (slice(1, None, 3), slice(None), slice(0, 5, 2)),
    (0, slice(None), 1),
    (Ellipsis, slice(2, 3)),
    (None, 1, slice(None, None, 2), None),
    (1, 2, 3),
    (slice(2, 2),),
])
def test_basic_indexing_gradient_places_g_in_the_view(dtype, index):
    x, data = _leaf((4, 6, 5), dtype)
    view_shape = data[index].shape
    g = np.random.default_rng(2).standard_normal(view_shape).astype(dtype)
    y = x[index]
    (y * ng.tensor(g)).sum().backward()
    expected = np.zeros_like(data)
    expected[index] = g.reshape(expected[index].shape)
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    x.grad = None
    (x[index] * ng.tensor(g)).sum().add(x.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), expected + 1.0, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_and_stack_gradients_are_the_blocks_of_g(dtype, dim):
    parts = [_leaf((3, w, 4) if dim == 1 else (3, 2, w) if dim == -1 else (w, 2, 4), dtype, w)
             for w in (1, 3, 2)]
    tensors = [t for t, _ in parts]
    out = ng.cat(tensors, dim)
    g = np.random.default_rng(3).standard_normal(tuple(out.shape)).astype(dtype)
    (out * ng.tensor(g)).sum().add(tensors[1].sum()).backward()
    blocks = np.split(g, np.cumsum([d.shape[dim] for _, d in parts])[:-1], axis=dim)
    for (t, _), block, extra in zip(parts, blocks, (0.0, 1.0, 0.0)):
        np.testing.assert_allclose(t.grad.numpy(), block + extra, rtol=1e-6)
    same = [_leaf((3, 2, 4), dtype, k)[0] for k in range(3)]
    stacked = ng.stack(same, dim)
    g = np.random.default_rng(4).standard_normal(tuple(stacked.shape)).astype(dtype)
    (stacked * ng.tensor(g)).sum().backward()
    for k, t in enumerate(same):
        np.testing.assert_array_equal(t.grad.numpy(), np.take(g, k, axis=dim))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_whole_rows_gradient_adds_each_picked_row(dtype):
    """Note [whole rows]: x[idx], index_select on dim 0 and embedding pick rows; repeated rows
    accumulate and negative indices count from the end, as in torch."""
    x, data = _leaf((5, 3), dtype)
    idx = np.array([[4, -1], [0, 4], [2, 2]])
    g = np.random.default_rng(6).standard_normal((3, 2, 3)).astype(dtype)
    y = x[ng.tensor(idx)]
    np.testing.assert_array_equal(y.detach().numpy(), data[idx])
    assert y.grad_fn.name() == "IndexBackward0"
    np.testing.assert_array_equal(y.grad_fn._saved_indices[0].numpy(), idx)
    (y * ng.tensor(g)).sum().backward()
    expected = np.zeros_like(data)
    np.add.at(expected, idx % 5, g)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
    # the first contribution writes, a second one adds
    x.grad = None
    rows = ng.tensor([1, 1, 3])
    (ng.index_select(x, 0, rows).sum() + x[rows].sum() * 2.0).backward()
    expected = np.zeros_like(data)
    expected[1], expected[3] = 6.0, 3.0
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    assert ng.index_select(x, 0, rows).grad_fn.name() == "IndexSelectBackward0"
    x.grad = None
    picked = ng.nn.functional.embedding(ng.tensor([[3, 0, 3]]), x)
    assert picked.grad_fn.name() == "EmbeddingBackward0"
    picked.sum().backward()
    expected = np.zeros_like(data)
    expected[3], expected[0] = 2.0, 1.0
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_whole_rows_refuse_out_of_range_indices_and_leave_no_grad_untracked():
    x = ng.ones(4, 2)
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 0 with size 4"):
        x[ng.tensor([0, 4])]
    np.testing.assert_array_equal(x[np.array([3, -4])].numpy(), np.ones((2, 2)))
    assert x[[1]].grad_fn is None and not x[[1]].requires_grad
    assert x[ng.tensor([], dtype=ng.int64)].shape == (0, 2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_view_that_repeats_elements_sums_their_gradients(dtype):
    """A view with stride 0 along a dim (as_strided, or an in-place write through an expanded
    view) shows one element in several places: it gets the sum of their gradients."""
    g = np.random.default_rng(7).standard_normal((3, 4)).astype(dtype)
    x, _ = _leaf((3,), dtype)
    (x.as_strided((3, 4), (1, 0)) * ng.tensor(g)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), g.sum(1), rtol=1e-6)
    x.grad = None
    (x.as_strided((4, 3), (0, 1)) * ng.tensor(g.T.copy())).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), g.sum(1), rtol=1e-6)
