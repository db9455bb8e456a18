"""The order-statistics family (numgrad/ops/order_stats.py): cummax/cummin, kthvalue, mode,
quantile/nanquantile, msort, argwhere, Tensor.unfold, diag_embed, matrix_power, sum_to_size,
is_same_size and is_nonzero. Values against NumPy or by hand, gradients by hand and by gradcheck
in float64, float32 against float64, return types, errors in torch's wording, and the GPU path
(numba-cuda's simulator without a GPU)."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.cuda
from numgrad.autograd import gradcheck, gradgradcheck

needs_cuda = pytest.mark.skipif(not numgrad.cuda.is_available(),
                                reason="needs numba-cuda and a GPU or its simulator")
NAN = float("nan")


def f64(data):
    return ng.tensor(np.asarray(data, np.float64), requires_grad=True)


def distinct(*shape, seed=0):
    """float64 values with no ties (gradcheck's steps must not reorder them)."""
    rng = np.random.default_rng(seed)
    return rng.permutation(np.arange(int(np.prod(shape)), dtype=np.float64)).reshape(shape) / 3


# ---- cummax / cummin -----------------------------------------------------------------------------
def test_cummax_values_indices_and_ties_take_the_later_index():
    out = ng.cummax(ng.tensor([1.0, 3.0, 3.0, 2.0, NAN, 5.0]), 0)
    assert type(out) is ng.return_types.cummax
    assert repr(out).startswith("numgrad.return_types.cummax(")
    assert np.array_equal(out.values.numpy(), [1, 3, 3, 3, NAN, NAN], equal_nan=True)
    assert np.array_equal(out.indices.numpy(), [0, 1, 2, 2, 4, 4])   # NaN sticks, at its index
    assert out.indices.dtype == ng.int64
    low = ng.tensor([3.0, 1.0, 1.0, 2.0]).cummin(0)
    assert np.array_equal(low.values.numpy(), [3, 1, 1, 1])
    assert np.array_equal(low.indices.numpy(), [0, 1, 2, 2])


def test_cummax_matches_numpy_along_each_dim_and_dtypes():
    data = np.random.default_rng(1).integers(0, 4, (3, 5, 4))
    for dim in (0, 1, -1):
        for fn, acc in ((ng.cummax, np.maximum), (ng.cummin, np.minimum)):
            values, indices = fn(ng.tensor(data), dim)
            assert values.dtype == ng.int64
            assert np.array_equal(values.numpy(), acc.accumulate(data, axis=dim))
            # the index points at an element equal to the running extreme, never a later one
            picked = np.take_along_axis(data, indices.numpy(), axis=dim)
            assert np.array_equal(picked, values.numpy())
            shape = [1] * 3
            shape[dim] = -1
            assert (indices.numpy() <= np.arange(data.shape[dim]).reshape(shape)).all()
    flags = ng.cummax(ng.tensor([True, False, True]), 0)
    assert flags.values.dtype == ng.bool and np.array_equal(flags.indices.numpy(), [0, 0, 2])
    scalar = ng.cummin(ng.tensor(2.5), 0)
    assert scalar.values.shape == () and scalar.indices.shape == () and scalar.indices.item() == 0
    empty = ng.cummax(ng.zeros(0), 0)
    assert empty.values.shape == (0,) and empty.indices.dtype == ng.int64


def test_cummax_gradient_goes_to_the_indices():
    x = f64([1.0, 3.0, 2.0, 3.0, 0.0])
    values, _ = ng.cummax(x, 0)
    (values * ng.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=ng.float64)).sum().backward()
    assert np.array_equal(x.grad.numpy(), [1, 5, 0, 9, 0])      # index 1 gets 2+3; index 3 4+5
    assert values.grad_fn is not None
    for fn in (ng.cummax, ng.cummin):
        assert gradcheck(lambda t: fn(t, 1).values, (f64(distinct(3, 4)),))


def test_cummax_errors():
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                                         r"\[-2, 1\], but got 2\)"):
        ng.cummax(ng.zeros(2, 3), 2)


# ---- kthvalue / mode -----------------------------------------------------------------------------
def test_kthvalue_values_against_numpy_sort():
    data = distinct(4, 6, seed=2)
    for k in (1, 3, 6):
        out = ng.kthvalue(ng.tensor(data), k, 1)
        assert type(out) is ng.return_types.kthvalue
        assert np.array_equal(out.values.numpy(), np.sort(data, 1)[:, k - 1])
        assert np.array_equal(out.indices.numpy(), np.argsort(data, 1)[:, k - 1])
    kept = ng.tensor(data).kthvalue(2, 0, keepdim=True)
    assert kept.values.shape == (1, 6) and kept.indices.shape == (1, 6)
    assert np.array_equal(kept.values.numpy()[0], np.sort(data, 0)[1])
    nan = ng.kthvalue(ng.tensor([1.0, NAN, 0.0]), 3)           # NaN is the largest
    assert np.isnan(nan.values.item()) and nan.indices.item() == 1
    scalar = ng.kthvalue(ng.tensor(3.0), 1)
    assert scalar.values.item() == 3.0 and scalar.indices.shape == ()


def test_kthvalue_gradient_and_errors():
    x = f64([[3.0, 1.0, 4.0], [1.5, 9.0, 2.0]])
    out = ng.kthvalue(x, 2)
    out.values.sum().backward()
    assert np.array_equal(x.grad.numpy(), [[1, 0, 0], [0, 0, 1]])
    assert gradcheck(lambda t: ng.kthvalue(t, 2, 0).values, (f64(distinct(3, 4)),))
    with pytest.raises(RuntimeError, match=r"^kthvalue\(\): selected number k out of range for "
                                           r"dimension 1$"):
        ng.kthvalue(x, 4, 1)
    with pytest.raises(RuntimeError, match="selected number k out of range"):
        ng.kthvalue(x, 0)
    with pytest.raises(IndexError, match=r"kthvalue\(\): Expected reduction dim 0 to have non-zero "
                                         "size."):
        ng.kthvalue(ng.zeros(0), 1)


def test_topk_with_ties_takes_torchs_indices():
    # torch's values and indices: among ties, those its std::nth_element leaves (kernels/selection.py)
    x = ng.tensor([[2.0, 1.0, 2.0, 1.0, 0.5, 2.0], [1.0, 1.0, 1.0, 0.0, 0.0, 3.0]],
                  requires_grad=True)
    values, indices = x.topk(2)
    assert values.tolist() == [[2.0, 2.0], [3.0, 1.0]] and indices.tolist() == [[2, 0], [5, 1]]
    smallest = x.topk(2, largest=False)
    assert smallest.values.tolist() == [[0.5, 1.0], [0.0, 0.0]]
    assert smallest.indices.tolist() == [[4, 1], [4, 3]]
    (values * ng.tensor([0.0, 1.0])).sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0, 0.0]]


def test_mode_picks_the_smallest_most_frequent_value_at_its_last_index():
    out = ng.mode(ng.tensor([[1, 2, 2, 1, 3], [4, 4, 1, 1, 1]]))
    assert type(out) is ng.return_types.mode
    assert np.array_equal(out.values.numpy(), [1, 1]) and out.values.dtype == ng.int64
    assert np.array_equal(out.indices.numpy(), [3, 4])
    # NaNs never equal each other: each counts once
    odd = ng.tensor([2.0, NAN, NAN, 1.0]).mode()
    assert odd.values.item() == 1.0 and odd.indices.item() == 3
    kept = ng.mode(ng.tensor([[5.0, 7.0], [5.0, 8.0], [6.0, 8.0]]), 0, keepdim=True)
    assert np.array_equal(kept.values.numpy(), [[5, 8]]) and np.array_equal(kept.indices.numpy(),
                                                                              [[1, 2]])
    assert ng.mode(ng.tensor(3.0)).values.shape == ()
    with pytest.raises(IndexError, match=r"mode\(\): Expected reduction dim 1 to have non-zero "
                                         "size."):
        ng.mode(ng.zeros(2, 0), 1)


def test_mode_gradient_goes_to_the_index():
    x = f64([[3.0, 1.0, 3.0, 2.0], [1.0, 1.0, 2.0, 2.0]])
    values, indices = ng.mode(x, 1)
    (values * ng.tensor([2.0, 5.0], dtype=ng.float64)).sum().backward()
    assert np.array_equal(indices.numpy(), [2, 1])
    assert np.array_equal(x.grad.numpy(), [[0, 0, 2, 0], [0, 5, 0, 0]])


# ---- quantile / nanquantile ---------------------------------------------------------------------
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_matches_numpy(interpolation):
    data = np.random.default_rng(3).normal(size=(4, 7))
    q = np.array([0.0, 0.1, 0.25, 0.5, 0.9, 1.0])
    cases = [(None, False), (1, False), (0, True), (-1, True)]
    for dim, keepdim in cases:
        got = ng.quantile(ng.tensor(data), ng.tensor(q), dim, keepdim,
                          interpolation=interpolation)
        want = np.quantile(data, q, axis=dim, keepdims=keepdim, method=interpolation)
        assert got.shape == want.shape and got.dtype == ng.float64
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
        scalar = ng.quantile(ng.tensor(data), 0.3, dim, keepdim, interpolation=interpolation)
        want = np.quantile(data, 0.3, axis=dim, keepdims=keepdim, method=interpolation)
        assert scalar.shape == want.shape
        np.testing.assert_allclose(scalar.numpy(), want, rtol=1e-12, atol=1e-12)


def test_quantile_nan_rows_and_nanquantile():
    data = np.array([[1.0, NAN, 3.0, 2.0], [4.0, 0.0, 8.0, 6.0], [NAN, NAN, NAN, NAN]])
    got = ng.quantile(ng.tensor(data), 0.5, 1).numpy()
    assert np.isnan(got[0]) and got[1] == 5.0 and np.isnan(got[2])
    q = np.array([0.2, 0.5, 1.0])
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = np.nanquantile(data, q, axis=1)
    np.testing.assert_allclose(ng.nanquantile(ng.tensor(data), ng.tensor(q), 1).numpy(), want)
    assert ng.nanquantile(ng.tensor([1.0, NAN, 3.0, 2.0]), 0.5).item() == 2.0


def test_quantile_float32_matches_float64():
    data = np.random.default_rng(4).normal(size=(5, 6))
    for interpolation in ("linear", "midpoint", "nearest"):
        got = ng.quantile(ng.tensor(data, dtype=ng.float32), ng.tensor([0.3, 0.7]), 0,
                          interpolation=interpolation)
        assert got.dtype == ng.float32
        want = ng.quantile(ng.tensor(data), ng.tensor([0.3, 0.7], dtype=ng.float64), 0,
                           interpolation=interpolation)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_quantile_gradient_splits_between_neighbours():
    # 8 elements: q=0.4 is rank 2.8 of the sorted 1, 2, 3, 4, ...: 0.2 to the 3rd, 0.8 to the 4th
    x = f64([[3.0, 1.0, 4.0, 2.0], [8.0, 5.0, 7.0, 6.0]])
    ng.quantile(x, 0.4).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.2, 0, 0.8, 0], [0, 0, 0, 0]], atol=1e-12)
    x.grad = None
    ng.quantile(x, 0.5, interpolation="midpoint").backward()     # ranks 3 and 4: halves
    assert np.array_equal(x.grad.numpy(), [[0, 0, 0.5, 0], [0, 0.5, 0, 0]])
    x.grad = None
    ng.quantile(x, 0.4, interpolation="higher").backward()
    assert np.array_equal(x.grad.numpy(), [[0, 0, 1, 0], [0, 0, 0, 0]])
    data = distinct(3, 5, seed=5)
    for interpolation in ("linear", "midpoint", "lower"):
        assert gradcheck(lambda t: ng.quantile(t, ng.tensor([0.3, 0.55], dtype=ng.float64), 1,
                                               interpolation=interpolation), (f64(data),))
    assert gradcheck(lambda t: ng.nanquantile(t, 0.35, 0, keepdim=True), (f64(data),))
    assert gradgradcheck(lambda t: ng.quantile(t, 0.3, 1) ** 2, (f64(data),))


def test_quantile_errors():
    x = ng.tensor([[3.0, 1.0], [4.0, 2.0]])
    cases = [
        (lambda: ng.quantile(x, 1.5),
         r"^quantile\(\) q must be in the range \[0, 1\] but got 1.5$"),
        (lambda: ng.quantile(x, ng.tensor([0.5, 1.5])),
         r"^quantile\(\) q values must be in the range \[0, 1\]$"),
        (lambda: ng.quantile(x, ng.tensor([[0.5]])), r"^quantile\(\) q must be a scalar or 1D "
                                                     "tensor$"),
        (lambda: ng.quantile(x, ng.tensor([0.5], dtype=ng.float64)),
         r"^quantile\(\) q tensor must be same dtype as the input tensor$"),
        (lambda: ng.quantile(x, 0.5, interpolation="foo"),
         r"^quantile\(\) interpolation must be one of linear, lower, higher, midpoint or nearest, "
         "but got foo$"),
        (lambda: ng.quantile(ng.tensor([1, 2]), 0.5),
         r"^quantile\(\) input tensor must be either float or double dtype$"),
        (lambda: ng.nanquantile(ng.zeros(0), 0.5),
         r"^nanquantile\(\) input tensor must be non-empty$"),
    ]
    for call, message in cases:
        with pytest.raises(RuntimeError, match=message):
            call()
    with pytest.raises(IndexError, match="Dimension out of range"):
        ng.quantile(x, 0.5, 2)


# ---- msort, argwhere ----------------------------------------------------------------------------
def test_msort_and_argwhere():
    m = f64([[3.0, 1.0], [1.0, 2.0], [2.0, 0.0]])
    out = ng.msort(m)
    assert np.array_equal(out.detach().numpy(), [[1, 0], [2, 1], [3, 2]])
    assert out.grad_fn.name() == "SortBackward0"
    (out * ng.tensor([[1.0], [2.0], [3.0]], dtype=ng.float64)).sum().backward()
    assert np.array_equal(m.grad.numpy(), [[3, 2], [1, 3], [2, 1]])
    assert m.msort().shape == (3, 2)
    found = ng.argwhere(ng.tensor([[1, 0], [0, 3]]))
    assert found.dtype == ng.int64 and np.array_equal(found.numpy(), [[0, 0], [1, 1]])
    assert ng.tensor(1.0).argwhere().shape == (1, 0) and ng.argwhere(ng.tensor(0.0)).shape == (0, 0)


# ---- unfold --------------------------------------------------------------------------------------
def test_unfold_windows_match_numpy():
    data = np.arange(60.0).reshape(3, 4, 5)
    for dim, size, step in ((0, 2, 1), (1, 3, 2), (-1, 2, 2), (2, 5, 3), (1, 0, 1)):
        got = ng.tensor(data).unfold(dim, size, step)
        axis = dim % data.ndim
        windows = np.lib.stride_tricks.sliding_window_view(data, size, axis=axis)
        want = np.take(windows, np.arange(0, windows.shape[axis], step), axis=axis)
        assert got.shape == want.shape and np.array_equal(got.numpy(), want)
    # a non-contiguous input (a transpose) and a 0-d one
    t = ng.tensor(data).transpose(0, 2)
    want = np.lib.stride_tricks.sliding_window_view(data.transpose(2, 1, 0), 2, axis=1)
    assert np.array_equal(t.unfold(1, 2, 1).numpy(), want)
    assert np.array_equal(ng.tensor(5.0).unfold(0, 1, 1).numpy(), [5.0])


def test_unfold_gradient_accumulates_over_overlapping_windows():
    x = ng.arange(7.0).requires_grad_()
    u = x.unfold(0, 3, 2)
    assert np.array_equal(u.detach().numpy(), [[0, 1, 2], [2, 3, 4], [4, 5, 6]])
    u.sum().backward()
    assert np.array_equal(x.grad.numpy(), [1, 1, 2, 1, 2, 1, 1])
    x.grad = None
    x.unfold(0, 2, 3).sum().backward()                # windows 0-1 and 3-4; 2, 5, 6 unused
    assert np.array_equal(x.grad.numpy(), [1, 1, 0, 1, 1, 0, 0])
    for step in (1, 2, 3):
        assert gradcheck(lambda t: t.unfold(1, 2, step), (f64(distinct(2, 5)),))


def test_unfold_without_overlap_is_a_view():
    x = ng.arange(6.0)
    u = x.unfold(0, 2, 2)
    x.add_(10.0)
    assert np.array_equal(u.numpy(), [[10, 11], [12, 13], [14, 15]])


def test_unfold_errors():
    x = ng.arange(7.0)
    cases = [((0, 8, 1), "maximum size for tensor at dimension 0 is 7 but size is 8"),
             ((0, 3, 0), "step is 0 but must be > 0"), ((0, -1, 1), "size is -1 but must be >= 0")]
    for args, message in cases:
        with pytest.raises(RuntimeError, match=f"^{message}$"):
            x.unfold(*args)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.unfold(1, 2, 1)


# ---- diag_embed, matrix_power --------------------------------------------------------------------
def test_diag_embed_values_gradient_and_errors():
    data = np.arange(1.0, 7.0).reshape(2, 3)
    out = ng.diag_embed(ng.tensor(data))
    assert out.shape == (2, 3, 3)
    assert np.array_equal(out.numpy(), np.stack([np.diag(r) for r in data]))
    assert np.array_equal(ng.diag_embed(ng.tensor(data), 1).numpy()[1], np.diag(data[1], 1))
    assert np.array_equal(ng.tensor(data).diag_embed(-2).numpy()[0], np.diag(data[0], -2))
    moved = ng.diag_embed(ng.tensor(data), dim1=0, dim2=2)      # the rows' dim in the middle
    assert moved.shape == (3, 2, 3)
    assert np.array_equal(moved.numpy(), np.stack([np.diag(r) for r in data]).transpose(1, 0, 2))
    assert ng.diag_embed(ng.tensor([1, 2])).dtype == ng.int64
    assert gradcheck(lambda t: ng.diag_embed(t, -1, 0, 2), (f64(distinct(2, 3)),))
    with pytest.raises(RuntimeError, match="^diagonal dimensions cannot be identical 0, 0$"):
        ng.diag_embed(ng.tensor([1.0, 2.0]), 0, 0, 0)
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got -2"):
        ng.diag_embed(ng.tensor(1.0))


def test_matrix_power_values_and_gradients():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    x = f64(a)
    assert np.array_equal(ng.matrix_power(x, 3).detach().numpy(), a @ a @ a)
    batch = np.random.default_rng(6).normal(size=(2, 3, 3))
    for n in range(6):
        assert np.allclose(ng.tensor(batch).matrix_power(n).numpy(),
                           np.linalg.matrix_power(batch, n))
    eye = ng.matrix_power(x, 0)
    assert np.array_equal(eye.detach().numpy(), np.eye(2)) and eye.requires_grad
    eye.sum().backward()
    assert np.array_equal(x.grad.numpy(), np.zeros((2, 2)))
    x.grad = None
    ng.matrix_power(x, 2).sum().backward()           # d sum(A A) = 1 A^T + A^T 1
    ones = np.ones((2, 2))
    assert np.allclose(x.grad.numpy(), ones @ a.T + a.T @ ones)
    for n in (1, 4, 5):
        assert gradcheck(lambda t: ng.matrix_power(t, n), (f64(batch / 2),))
    assert np.array_equal(ng.matrix_power(ng.ones(2, 2, dtype=ng.int64), 3).numpy(),
                          [[4, 4], [4, 4]])


def test_matrix_power_errors():
    with pytest.raises(RuntimeError, match="^linalg.matrix_power: The input tensor A must have at "
                                           "least 2 dimensions.$"):
        ng.matrix_power(ng.ones(3), 2)
    with pytest.raises(RuntimeError, match="^linalg.matrix_power: A must be batches of square "
                                           "matrices, but they are 2 by 3 matrices$"):
        ng.matrix_power(ng.ones(2, 3), 2)
    # a negative power inverts first, as torch: its error for a singular matrix
    with pytest.raises(RuntimeError, match="^linalg.inv: The diagonal element 2 is zero"):
        ng.matrix_power(ng.ones(2, 2), -1)


# ---- sum_to_size, is_same_size, is_nonzero -------------------------------------------------------
def test_sum_to_size():
    x = f64(np.arange(6.0).reshape(2, 3))
    assert np.array_equal(x.sum_to_size(1, 3).detach().numpy(), [[3, 5, 7]])
    assert np.array_equal(x.sum_to_size((2, 1)).detach().numpy(), [[3], [12]])
    assert x.sum_to_size(3).shape == (3,) and x.sum_to_size(2, 3) is x
    x.sum_to_size(1, 3).sum().backward()
    assert np.array_equal(x.grad.numpy(), np.ones((2, 3)))
    for size in ((2,), (3, 2, 3), (4, 3)):
        with pytest.raises(RuntimeError, match=rf"^size {{\[{', '.join(map(str, size))}\]}} is "
                                               r"not expandable to size {\[2, 3\]}.$"):
            x.sum_to_size(*size)


def test_is_same_size_and_is_nonzero():
    x = ng.ones(2, 3)
    assert x.is_same_size(ng.zeros(2, 3)) is True and x.is_same_size(ng.ones(3, 2)) is False
    assert ng.tensor([2.0]).is_nonzero() is True and ng.tensor([[0]]).is_nonzero() is False
    assert ng.tensor(NAN).is_nonzero() and not ng.tensor(-0.0).is_nonzero()
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with no values is ambiguous$"):
        ng.zeros(0).is_nonzero()
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is "
                                           "ambiguous$"):
        ng.zeros(2).is_nonzero()


# ---- the GPU path --------------------------------------------------------------------------------
@needs_cuda
def test_order_stats_on_cuda_match_the_cpu():
    data = distinct(3, 4, seed=7)
    calls = [lambda t: tuple(ng.cummax(t, 1)), lambda t: tuple(ng.kthvalue(t, 2, 0)),
             lambda t: tuple(ng.mode(t, 1, True)),
             lambda t: ng.quantile(t, ng.tensor([0.3, 0.9], dtype=ng.float64, device=t.device), 1),
             lambda t: ng.nanquantile(t, 0.3, interpolation="midpoint"),
             lambda t: t.unfold(1, 2, 1), lambda t: t.unfold(1, 2, 2),
             lambda t: ng.diag_embed(t, 1), lambda t: ng.matrix_power(t[:, :3], 3),
             lambda t: t.sum_to_size(1, 4), lambda t: ng.msort(t)]

    def run(fn, device):
        x = ng.tensor(data, device=device, requires_grad=True)
        outs = fn(x)
        outs = outs if isinstance(outs, tuple) else (outs,)
        assert all(o.device.type == device for o in outs)
        (outs[0] * outs[0]).sum().backward()
        return [o.detach().cpu().numpy() for o in outs], x.grad.cpu().numpy()

    for fn in calls:
        (cpu_values, cpu_grad), (gpu_values, gpu_grad) = run(fn, "cpu"), run(fn, "cuda")
        for a, b in zip(cpu_values, gpu_values):
            np.testing.assert_allclose(b, a, rtol=1e-12)
        np.testing.assert_allclose(gpu_grad, cpu_grad, rtol=1e-12)
    assert ng.tensor([0.0, 3.0], device="cuda").argwhere().is_cuda
    assert ng.tensor([3.0], device="cuda").is_nonzero()
