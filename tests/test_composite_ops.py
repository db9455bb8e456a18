"""The composite ops (ops/composite.py): values from NumPy or worked by hand, gradients by
gradcheck in float64, the dtype and device of new_* results, and torch's errors."""
import warnings

import numpy as np
import pytest

import numgrad as ng
from numgrad.autograd import gradcheck, gradgradcheck

rng = np.random.default_rng(7)


def leaf(*shape):
    return ng.tensor(rng.standard_normal(shape), dtype=ng.float64, requires_grad=True)


def values(t):
    return t.detach().numpy()


# ---- softmax -----------------------------------------------------------------------------------
def test_softmax_and_log_softmax_as_functions_and_methods():
    x = ng.tensor([[0.0, np.log(3.0)], [1.0, 1.0]])
    np.testing.assert_allclose(values(ng.softmax(x, 1)), [[0.25, 0.75], [0.5, 0.5]], rtol=1e-6)
    np.testing.assert_allclose(values(x.log_softmax(1)), np.log([[0.25, 0.75], [0.5, 0.5]]),
                               rtol=1e-6)
    assert x.softmax(0, dtype=ng.float64).dtype == ng.float64
    assert ng.log_softmax(x, -1, ng.float64).dtype == ng.float64
    assert gradcheck(lambda t: ng.softmax(t, 0), (leaf(3, 2),))


# ---- new tensors like self -----------------------------------------------------------------------
def test_new_tensors_take_self_dtype_unless_given():
    x = ng.ones(2, dtype=ng.float64)
    assert x.new_zeros(2, 3).dtype == ng.float64 and values(x.new_zeros((2, 3))).sum() == 0
    assert x.new_ones(4).tolist() == [1.0] * 4
    assert x.new_empty(0, 2).shape == (0, 2)
    assert x.new_full((2,), 7).tolist() == [7.0, 7.0] and x.new_full((2,), 7).dtype == ng.float64
    assert x.new_tensor([1, 2]).dtype == ng.float64
    assert x.new_zeros(1, dtype=ng.int64).dtype == ng.int64
    assert x.new_ones(2, requires_grad=True).requires_grad
    ints = ng.ones(2, dtype=ng.int32)
    assert ints.new_tensor([1.5]).tolist() == [1] and ints.new_tensor([1.5]).dtype == ng.int32
    assert ints.new_full((1,), 2.7).tolist() == [2]
    for made in (x.new_zeros(1), x.new_ones(1), x.new_empty(1), x.new_full((1,), 0.0),
                 x.new_tensor([0.0])):
        assert made.device == x.device and made.is_leaf


def test_new_tensor_from_a_tensor_copies_and_warns():
    x = ng.ones(2)
    source = ng.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        copy = x.new_tensor(source)
    assert copy.tolist() == [1.0, 2.0] and not copy.requires_grad


def test_new_full_wants_a_size_sequence():
    with pytest.raises(TypeError, match="must be tuple of ints, not int"):
        ng.ones(2).new_full(3, 1.0)


def test_counts_and_is_tensor():
    x = ng.ones(2, 3)
    assert x.nelement() == 6 and ng.numel(x) == 6
    assert ng.is_tensor(x) and not ng.is_tensor(np.ones(2))


# ---- views and rearrangements --------------------------------------------------------------------
def test_narrow_is_a_view_and_wraps_a_negative_start():
    x = ng.tensor(np.arange(12.0).reshape(3, 4))
    part = ng.narrow(x, 1, -3, 2)
    assert part.tolist() == [[1.0, 2.0], [5.0, 6.0], [9.0, 10.0]]
    assert part._base is x
    assert gradcheck(lambda t: t.narrow(0, 1, 2), (leaf(3, 4),))
    with pytest.raises(IndexError, match=r"start out of range \(expected to be in range of "
                                         r"\[-4, 4\], but got 5\)"):
        x.narrow(1, 5, 1)
    with pytest.raises(RuntimeError, match=r"start \(1\) \+ length \(4\) exceeds dimension size "
                                           r"\(4\)\."):
        x.narrow(1, 1, 4)


def test_movedim_moveaxis_swapaxes_ravel():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = ng.tensor(a)
    np.testing.assert_array_equal(values(ng.movedim(x, (0, 2), (2, 0))),
                                  np.moveaxis(a, (0, 2), (2, 0)))
    np.testing.assert_array_equal(values(x.moveaxis(-1, 0)), np.moveaxis(a, -1, 0))
    np.testing.assert_array_equal(values(x.swapaxes(0, 2)), np.swapaxes(a, 0, 2))
    np.testing.assert_array_equal(values(ng.swapdims(x, 1, 0)), np.swapaxes(a, 1, 0))
    np.testing.assert_array_equal(values(x.swapaxes(0, 2).ravel()), np.swapaxes(a, 0, 2).ravel())
    assert gradcheck(lambda t: t.movedim((0, 1), (2, 0)).ravel(), (leaf(2, 3, 4),))
    with pytest.raises(RuntimeError, match=r"movedim: repeated dim in `source` \(\[0, 0\]\)"):
        x.movedim((0, 0), (0, 1))
    with pytest.raises(RuntimeError, match="should contain the same number of dims"):
        x.movedim((0, 1), 0)


def test_unflatten_infers_one_size():
    x = ng.arange(12.0).reshape(2, 6)
    assert x.unflatten(1, (3, -1)).shape == (2, 3, 2)
    assert ng.unflatten(x, -1, (2, 3)).tolist() == np.arange(12.0).reshape(2, 2, 3).tolist()
    with pytest.raises(RuntimeError, match=r"Provided sizes \[4, 2\] don't multiply up to the "
                                           r"size of dim 1 \(6\)"):
        x.unflatten(1, (4, 2))
    with pytest.raises(RuntimeError, match="sizes must be non-empty"):
        x.unflatten(1, ())


def test_flips_and_rot90_match_numpy():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = ng.tensor(a)
    np.testing.assert_array_equal(values(ng.fliplr(x)), np.fliplr(a))
    np.testing.assert_array_equal(values(x.flipud()), np.flipud(a))
    for k in range(-5, 6):
        np.testing.assert_array_equal(values(ng.rot90(x, k, (2, 0))), np.rot90(a, k, (2, 0)))
    assert gradcheck(lambda t: t.rot90(3, [1, 2]), (leaf(2, 3, 4),))
    with pytest.raises(RuntimeError, match="Input must be >= 2-d."):
        ng.fliplr(ng.ones(3))
    with pytest.raises(RuntimeError, match="expected total rotation dims == 2, but got dims = 3"):
        ng.rot90(x, 1, (0, 1, 2))
    with pytest.raises(RuntimeError, match="expected rotation dims to be different, but got "
                                           "dim0 = 0 and dim1 = -3"):
        ng.rot90(x, 1, (0, -3))


def test_tensor_split_by_sections_and_indices():
    a = np.arange(14.0).reshape(2, 7)
    x = ng.tensor(a)
    for got, want in zip(ng.tensor_split(x, 3, 1), np.array_split(a, 3, 1)):
        np.testing.assert_array_equal(values(got), want)
    pieces = x.tensor_split([1, 5, 3, 9], dim=1)
    assert [p.shape[1] for p in pieces] == [1, 4, 0, 4, 0]   # 5 then 3: one empty piece
    assert [p.shape[1] for p in x.tensor_split(ng.tensor([2, 4]), 1)] == [2, 2, 3]
    assert [p.shape[0] for p in ng.tensor_split(ng.ones(2), 4)] == [1, 1, 0, 0]
    assert gradcheck(lambda t: t.tensor_split(3, 1), (leaf(2, 7),))
    with pytest.raises(RuntimeError, match="number of sections must be larger than 0, got 0"):
        x.tensor_split(0)


def test_diff_matches_numpy_with_prepend_and_append():
    a, before, after = rng.standard_normal((3, 4)), rng.standard_normal((1, 4)), np.ones((2, 4))
    got = ng.diff(ng.tensor(a), 2, 0, prepend=ng.tensor(before), append=ng.tensor(after))
    np.testing.assert_allclose(values(got), np.diff(a, 2, 0, prepend=before, append=after))
    assert ng.diff(ng.tensor([True, False, False])).tolist() == [True, False]
    ints = ng.diff(ng.tensor([1, 3, 7], dtype=ng.int32))
    assert ints.tolist() == [2, 4] and ints.dtype == ng.int32
    assert ng.ones(3).diff(n=5).shape == (0,)
    assert gradcheck(lambda t, p: t.diff(2, prepend=p), (leaf(3, 4), leaf(3, 1)))
    with pytest.raises(RuntimeError, match="order must be non-negative but got -1"):
        ng.diff(ng.ones(3), -1)
    with pytest.raises(RuntimeError, match="diff expects prepend or append to be the same "
                                           "dimension as input"):
        ng.diff(ng.ones(2, 3), prepend=ng.ones(3))


# ---- products ------------------------------------------------------------------------------------
def test_trace():
    assert ng.trace(ng.arange(6.0).reshape(2, 3)).item() == 0.0 + 4.0
    assert ng.arange(6, dtype=ng.int32).reshape(2, 3).trace().dtype == ng.int64
    assert gradcheck(ng.trace, (leaf(3, 4),))
    with pytest.raises(RuntimeError, match="trace: expected a matrix, but got tensor with dim 1"):
        ng.trace(ng.ones(3))


def test_cross_matches_numpy_and_broadcasts():
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((1, 3, 4))
    np.testing.assert_allclose(values(ng.cross(ng.tensor(a), ng.tensor(b), dim=1)),
                               np.cross(a, b, axis=1))
    assert gradcheck(lambda s, t: s.cross(t, dim=-1), (leaf(2, 3), leaf(1, 3)))
    with pytest.warns(UserWarning, match="without specifying the dim arg is deprecated"):
        default = ng.cross(ng.tensor(a[0].T), ng.tensor(b[0].T))   # first dim of size 3: dim 1
    np.testing.assert_allclose(values(default), np.cross(a[0].T, b[0].T))
    with pytest.raises(RuntimeError, match="inputs dimension 0 must have length 3. Got 2 and 2"):
        ng.cross(ng.ones(2, 3), ng.ones(2, 3), dim=0)
    with pytest.raises(RuntimeError, match="must have the same number of dimensions"):
        ng.cross(ng.ones(3, 3), ng.ones(3), dim=0)


def test_tensordot_matches_numpy():
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((5, 4, 2))
    np.testing.assert_allclose(values(ng.tensordot(ng.tensor(a), ng.tensor(b), ([0, 2], [2, 1]))),
                               np.tensordot(a, b, ([0, 2], [2, 1])))
    c = rng.standard_normal((3, 4, 6))
    np.testing.assert_allclose(values(ng.tensordot(ng.tensor(a), ng.tensor(c))),
                               np.tensordot(a, c))
    np.testing.assert_allclose(values(ng.tensor(a).tensordot(ng.tensor(b[0, 0]), 0)),
                               np.tensordot(a, b[0, 0], 0))
    assert ng.tensordot(ng.ones(2, 0), ng.ones(0, 3), 1).tolist() == [[0.0] * 3] * 2
    assert gradcheck(lambda s, t: ng.tensordot(s, t, ([1], [0])), (leaf(2, 3), leaf(3, 4)))
    with pytest.raises(RuntimeError, match="contracted dimensions need to match, but first has "
                                           "size 3 in dim -1 and second has size 4 in dim 0"):
        ng.tensordot(ng.ones(2, 3), ng.ones(4, 2), 1)
    with pytest.raises(RuntimeError, match="both dimension lists should have same length"):
        ng.tensordot(ng.ones(2, 3), ng.ones(3, 2), ([0, 1], [1]))
    with pytest.raises(RuntimeError, match="tensordot expects dims >= 0, but got dims=-1"):
        ng.tensordot(ng.ones(2, 3), ng.ones(3, 2), -1)


def test_inner_kron_vdot():
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((4, 5, 3))
    np.testing.assert_allclose(values(ng.inner(ng.tensor(a), ng.tensor(b))), np.inner(a, b))
    assert ng.inner(ng.tensor([1.0, 2.0]), ng.tensor(3.0)).tolist() == [3.0, 6.0]
    c = rng.standard_normal((4, 2, 2))
    np.testing.assert_allclose(values(ng.tensor(a).kron(ng.tensor(c))), np.kron(a, c))
    assert ng.vdot(ng.tensor([1.0, 2.0]), ng.tensor([3.0, 4.0])).item() == 11.0
    assert gradcheck(ng.inner, (leaf(2, 3), leaf(4, 3)))
    assert gradcheck(ng.kron, (leaf(2, 3), leaf(2)))
    assert gradcheck(ng.vdot, (leaf(3), leaf(3)))
    with pytest.raises(RuntimeError, match=r"inner\(\) the last dimension must match on both "
                                           r"input tensors but got shapes \[2, 3\] and \[2, 4\]"):
        ng.inner(ng.ones(2, 3), ng.ones(2, 4))
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 1D tensors"):
        ng.vdot(ng.ones(2, 3), ng.ones(3))


def test_addmv_scales_and_ignores_input_when_beta_is_zero():
    mat, vec = ng.tensor([[1.0, 2.0], [3.0, 4.0]]), ng.tensor([1.0, 1.0])
    assert ng.addmv(ng.tensor([1.0, 1.0]), mat, vec, beta=0.5, alpha=2).tolist() == [6.5, 14.5]
    ignored = ng.tensor([np.nan, np.inf], requires_grad=True)
    out = ng.addmv(ignored, mat, vec, beta=0)
    assert out.tolist() == [3.0, 7.0]
    out.sum().backward()
    assert ignored.grad.tolist() == [0.0, 0.0]         # as in torch: zero, not None
    assert gradcheck(lambda i, m, v: i.addmv(m, v, beta=0.5, alpha=3), (leaf(2), leaf(2, 3),
                                                                       leaf(3)))
    with pytest.raises(RuntimeError, match=r"size mismatch, got input \(2\), mat \(2x3\), vec "
                                           r"\(4\)"):
        ng.addmv(ng.ones(2), ng.ones(2, 3), ng.ones(4))


# ---- picking elements ----------------------------------------------------------------------------
def test_take_uses_flat_indices():
    x = ng.arange(6.0).reshape(2, 3)
    assert ng.take(x, ng.tensor([[0, -1], [5, 2]])).tolist() == [[0.0, 5.0], [5.0, 2.0]]
    t = leaf(2, 3)
    assert gradcheck(lambda s: s.take(ng.tensor([0, 4, 4, -1])), (t,))   # repeats accumulate
    with pytest.raises(IndexError, match="out of range: tried to access index 6 on a tensor of 6 "
                                         "elements."):
        ng.take(x, ng.tensor([6]))
    with pytest.raises(RuntimeError, match="Expected a long tensor for index, but got Float"):
        ng.take(x, ng.tensor([1.0]))


def test_take_along_dim_matches_numpy():
    a = rng.standard_normal((3, 4))
    order = np.argsort(a, axis=1)
    got = ng.take_along_dim(ng.tensor(a), ng.tensor(order), 1)
    np.testing.assert_array_equal(values(got), np.take_along_axis(a, order, 1))
    picked = ng.tensor(a).take_along_dim(ng.tensor([[0, 2]]), 1)     # indices broadcast over rows
    np.testing.assert_array_equal(values(picked), a[:, [0, 2]])
    assert ng.take_along_dim(ng.tensor(a), ng.tensor([5, 0])).tolist() == [a.flat[5], a.flat[0]]
    assert gradcheck(lambda s: ng.take_along_dim(s, ng.tensor([[1], [0], [1]]), 1), (leaf(3, 2),))
    with pytest.raises(RuntimeError, match="should have the same number of dimensions, but got 2 "
                                           "dimensions for input, and 1 dimensions for indices"):
        ng.take_along_dim(ng.ones(2, 3), ng.tensor([0]), 1)
    with pytest.raises(RuntimeError, match="dtype of indices should be Long but got Float"):
        ng.take_along_dim(ng.ones(2, 3), ng.ones(2, 3), 1)


# ---- joining and broadcasting --------------------------------------------------------------------
def test_stacks_match_numpy():
    a, b = np.arange(3.0), np.arange(3.0, 6.0)
    m = np.arange(6.0).reshape(2, 3)
    cases = [(ng.hstack, np.hstack, [a, b]), (ng.hstack, np.hstack, [m, m]),
             (ng.vstack, np.vstack, [a, m]), (ng.dstack, np.dstack, [a, b]),
             (ng.dstack, np.dstack, [m, m]), (ng.dstack, np.dstack, [np.float64(1), np.float64(2)])]
    for ours, numpy_fn, arrays in cases:
        np.testing.assert_array_equal(values(ours([ng.tensor(t) for t in arrays])),
                                      numpy_fn(arrays))
    np.testing.assert_array_equal(values(ng.concat([ng.tensor(m), ng.tensor(m)], dim=1)),
                                  np.concatenate([m, m], 1))
    np.testing.assert_array_equal(values(ng.concatenate([ng.tensor(m)] * 2, axis=0)),
                                  np.concatenate([m, m]))
    assert gradcheck(lambda s, t: ng.dstack([s, t]), (leaf(3), leaf(1, 3)))
    with pytest.raises(RuntimeError, match="hstack expects a non-empty TensorList"):
        ng.hstack([])


def test_meshgrid_ij_and_xy_match_numpy():
    x, y, z = np.arange(2.0), np.arange(3.0), np.arange(4.0)
    for indexing in ("ij", "xy"):
        grids = ng.meshgrid(ng.tensor(x), ng.tensor(y), ng.tensor(z), indexing=indexing)
        for got, want in zip(grids, np.meshgrid(x, y, z, indexing=indexing)):
            np.testing.assert_array_equal(values(got), want)
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument"):
        ng.meshgrid([ng.tensor(x), ng.tensor(y)])
    assert gradcheck(lambda s, t: ng.meshgrid(s, t, indexing="xy"), (leaf(2), leaf(3)))
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij", but received: '
                                           'foo'):
        ng.meshgrid(ng.ones(2), indexing="foo")
    with pytest.raises(RuntimeError, match="meshgrid expects all tensors to have the same dtype"):
        ng.meshgrid(ng.ones(2), ng.ones(2, dtype=ng.float64), indexing="ij")


def test_broadcast_tensors_and_shapes():
    a, b = ng.broadcast_tensors(ng.ones(2, 1), ng.arange(3.0))
    assert a.shape == b.shape == (2, 3) and b.tolist() == [[0.0, 1.0, 2.0]] * 2
    assert gradcheck(ng.broadcast_tensors, (leaf(2, 1), leaf(3)))
    shape = ng.broadcast_shapes((2, 1), 3, (0, 1, 1))
    assert shape == (0, 2, 3) and isinstance(shape, ng.Size)
    with pytest.raises(RuntimeError, match="The size of tensor a \\(2\\) must match the size of "
                                           "tensor b \\(3\\) at non-singleton dimension 0"):
        ng.broadcast_tensors(ng.ones(2), ng.ones(3))
    with pytest.raises(RuntimeError, match=r"Attempting to broadcast a dimension of length 4 at "
                                           r"-1! Mismatching argument at index 2 had \(4,\); but "
                                           r"expected shape should be broadcastable to \[3, 2\]"):
        ng.broadcast_shapes((2,), (3, 1), 4)


# ---- comparisons ---------------------------------------------------------------------------------
def test_isclose_allclose_equal():
    a = ng.tensor([1.0, np.nan, np.inf, 1e-9, 2.0])
    b = ng.tensor([1.0 + 1e-6, np.nan, np.inf, 0.0, 2.1])
    assert ng.isclose(a, b).tolist() == [True, False, True, True, False]
    assert a.isclose(b, equal_nan=True, atol=0.2).tolist() == [True] * 5
    assert not ng.allclose(a, b) and a[:1].allclose(b[:1])
    assert ng.isclose(ng.tensor([1, 2]), ng.tensor([1, 3])).tolist() == [True, False]
    assert ng.equal(a[2:], a[2:]) and not a.equal(a)                  # nan equals nothing
    assert not ng.equal(ng.ones(2), ng.ones(1, 2))
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        ng.isclose(ng.ones(2), ng.ones(2, dtype=ng.float64))
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero, but got "
                                           "-1"):
        ng.isclose(ng.ones(2), ng.ones(2), rtol=-1)


# ---- creation and reductions ---------------------------------------------------------------------
def test_logspace():
    np.testing.assert_allclose(values(ng.logspace(0, 2, 3)), [1.0, 10.0, 100.0])
    assert ng.logspace(0, 2, 3).dtype == ng.get_default_dtype()
    powers = ng.logspace(0, 3, 4, base=2, dtype=ng.int64)
    assert powers.tolist() == [1, 2, 4, 8] and powers.dtype == ng.int64
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        ng.logspace(0, 1, -1)


def test_logcumsumexp_is_exact_for_far_apart_values():
    a = rng.standard_normal((5, 3))
    want = np.log(np.cumsum(np.exp(a), axis=0))
    np.testing.assert_allclose(values(ng.logcumsumexp(ng.tensor(a), 0)), want, rtol=1e-12)
    # a running log(cumsum(exp(x - max))) would give -inf at the first element here
    far = ng.tensor([-1000.0, 1000.0, 0.0, -np.inf], dtype=ng.float64)
    assert ng.logcumsumexp(far, 0).tolist() == [-1000.0, 1000.0, 1000.0, 1000.0]
    assert gradcheck(lambda t: t.logcumsumexp(-1), (leaf(2, 4),))
    assert gradgradcheck(lambda t: t.logcumsumexp(0), (leaf(3),))
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        ng.logcumsumexp(ng.tensor([1, 2]), 0)


def test_cdist_euclidean_and_other_p():
    x1, x2 = rng.standard_normal((2, 4, 3)), rng.standard_normal((5, 3))
    gaps = x1[:, :, None, :] - x2[None, None, :, :]
    np.testing.assert_allclose(values(ng.cdist(ng.tensor(x1), ng.tensor(x2))),
                               np.sqrt((gaps ** 2).sum(-1)))
    np.testing.assert_allclose(values(ng.cdist(ng.tensor(x1), ng.tensor(x2), p=1)),
                               np.abs(gaps).sum(-1))
    assert ng.cdist(ng.tensor([[0.0, 0.0]]), ng.tensor([[3.0, 4.0]])).item() == 5.0
    assert gradcheck(ng.cdist, (leaf(3, 2), leaf(4, 2)))
    same = ng.tensor([[1.0, 2.0]], dtype=ng.float64, requires_grad=True)
    ng.cdist(same, same.detach()).sum().backward()
    assert same.grad.tolist() == [[0.0, 0.0]]         # zero distance: zero gradient, as in torch
    with pytest.raises(RuntimeError, match="cdist only supports at least 2D tensors, X1 got: 1D"):
        ng.cdist(ng.ones(3), ng.ones(3))
    with pytest.raises(RuntimeError, match="X1 and X2 must have the same number of columns. "
                                           "X1: 3 X2: 4"):
        ng.cdist(ng.ones(2, 3), ng.ones(2, 4))


def test_composites_need_no_warning_when_used_plainly():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ng.cross(ng.ones(3), ng.ones(3), dim=0)
        ng.meshgrid(ng.ones(2), indexing="ij")
