"""median, nanmean, nansum, aminmax (values, gradients), unique, bincount, searchsorted and
bucketize (values and dtypes), checked by hand or against NumPy."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.cuda
from numgrad.autograd import gradcheck

needs_cuda = pytest.mark.skipif(not numgrad.cuda.is_available(),
                                reason="needs numba-cuda and a GPU or its simulator")
NAN = float("nan")


def f64(*shape):
    return ng.tensor(np.random.rand(*shape), dtype=ng.float64, requires_grad=True)


def test_median_of_all_is_the_lower_median():
    assert ng.tensor([4.0, 1.0, 3.0, 2.0]).median().item() == 2.0
    assert ng.median(ng.tensor([[5, 1, 3]])).item() == 3
    assert np.isnan(ng.tensor([1.0, NAN, 0.0]).median().item())
    x = ng.tensor([4.0, 1.0, 3.0, 2.0], requires_grad=True)
    x.median().backward()
    assert np.array_equal(x.grad.numpy(), [0, 0, 0, 1])


def test_median_of_all_shares_the_gradient_among_ties_as_torch():
    # torch's evenly_distribute_backward: every element equal to the median (every NaN, for a NaN
    # median) gets an even share; values from torch 2.x
    inf = float("inf")
    for values, dtype, median, grad in [
            ([3.0, 1.0, 1.0, 2.0], ng.float64, 1.0, [0.0, 0.5, 0.5, 0.0]),
            ([2.0, 2.0, 2.0], ng.float32, 2.0, [0.3333333432674408] * 3),
            ([0.1, 0.1, 0.1, 0.3, 0.1], ng.float32, 0.10000000149011612,
             [0.25, 0.25, 0.25, 0.0, 0.25]),
            ([1.0, inf, inf, 0.0], ng.float64, 1.0, [1.0, 0.0, 0.0, 0.0]),
            ([1.0, NAN, 3.0, NAN], ng.float64, NAN, [0.0, 0.5, 0.0, 0.5])]:
        x = ng.tensor(values, dtype=dtype, requires_grad=True)
        m = x.median()
        m.backward()
        assert m.shape == () and (m.item() == median or np.isnan(median) and np.isnan(m.item()))
        assert x.grad.tolist() == grad
    assert gradcheck(ng.median, (f64(3, 4),))


def test_median_of_all_is_a_new_tensor_not_a_view():
    x = ng.tensor([3.0, 1.0, 2.0])
    m = x.median()
    x.mul_(10)
    assert m.item() == 2.0
    y = ng.tensor([3.0, 1.0, 2.0])
    y.median().add_(100)
    assert y.tolist() == [3.0, 1.0, 2.0] and y._version == 0
    assert ng.tensor([[1, 2], [2, 3]]).median().shape == () and ng.tensor(4.0).median().shape == ()


def test_median_along_dim():
    x = ng.tensor([[3.0, 1.0, 2.0, 9.0], [NAN, 5.0, 4.0, 0.0]])
    values, indices = ng.median(x, 1)
    assert values.numpy()[0] == 2.0 and np.isnan(values.numpy()[1])
    assert np.array_equal(indices.numpy(), [2, 0]) and indices.dtype == ng.int64
    out = x.median(dim=0, keepdim=True)
    assert out.values.shape == (1, 4) and np.array_equal(out.indices.numpy(), [[1, 0, 0, 1]])
    assert repr(out).startswith("numgrad.return_types.median(")
    data = np.random.rand(4, 7)
    assert np.array_equal(ng.tensor(data).median(1).values.numpy(),
                          np.sort(data, 1)[:, 3])


def test_median_gradcheck():
    assert gradcheck(lambda a: a.median(), (f64(3, 4),))
    assert gradcheck(lambda a: a.median(1).values, (f64(3, 4),))
    assert gradcheck(lambda a: ng.median(a, 0, keepdim=True)[0] * a, (f64(5, 2),))


def test_median_errors():
    assert np.isnan(ng.zeros(0).median().item())        # torch: the median of nothing is NaN
    with pytest.raises(IndexError, match="non-zero size"):
        ng.zeros(2, 0).median(1)


def test_nansum_and_nanmean():
    data = np.array([[1.0, NAN, 3.0], [NAN, NAN, NAN]])
    x = ng.tensor(data, dtype=ng.float64, requires_grad=True)
    assert ng.nansum(x).item() == 4.0
    assert np.array_equal(x.nansum(1).detach().numpy(), [4, 0])
    mean = x.nanmean(1)
    assert mean.detach().numpy()[0] == 2.0 and np.isnan(mean.detach().numpy()[1])
    x.nanmean().backward()
    assert np.array_equal(x.grad.numpy(), [[0.5, 0, 0.5], [0, 0, 0]])
    assert ng.tensor([1, 2, 3]).nansum().item() == 6
    with pytest.raises(RuntimeError, match="floating point"):
        ng.tensor([1, 2]).nanmean()


def test_nan_reductions_gradcheck():
    x = f64(3, 4)
    assert gradcheck(lambda a: ng.nanmean(a, 0), (x,))
    assert gradcheck(lambda a: ng.nansum(a, (0, 1), keepdim=True), (x,))


def test_aminmax():
    x = ng.tensor([[1.0, 5.0, 3.0], [4.0, 0.0, 6.0]])
    lo, hi = ng.aminmax(x)
    assert lo.item() == 0.0 and hi.item() == 6.0
    out = x.aminmax(dim=1, keepdim=True)
    assert np.array_equal(out.min.numpy(), [[1], [0]]) and np.array_equal(out.max.numpy(), [[5], [6]])
    assert ng.aminmax(x, keepdim=True).min.shape == (1, 1)
    assert gradcheck(lambda a: ng.aminmax(a, dim=0), (f64(3, 4),))
    with pytest.raises(RuntimeError, match="empty"):
        ng.aminmax(ng.zeros(0))


def test_unique():
    x = ng.tensor([[3, 1], [2, 3]])
    values, inverse, counts = ng.unique(x, return_inverse=True, return_counts=True)
    assert np.array_equal(values.numpy(), [1, 2, 3])
    assert np.array_equal(inverse.numpy(), [[2, 0], [1, 2]]) and inverse.dtype == ng.int64
    assert np.array_equal(counts.numpy(), [1, 1, 2]) and counts.dtype == ng.int64
    assert np.array_equal(x.unique().numpy(), [1, 2, 3])
    rows, row_counts = ng.unique(ng.tensor([[1, 2], [0, 1], [1, 2]]), dim=0, return_counts=True)
    assert np.array_equal(rows.numpy(), [[0, 1], [1, 2]]) and np.array_equal(row_counts.numpy(), [1, 2])
    assert not ng.unique(ng.tensor([1.0, 1.0], requires_grad=True)).requires_grad


def test_bincount():
    x = ng.tensor([0, 3, 3, 1])
    counts = x.bincount()
    assert np.array_equal(counts.numpy(), [1, 1, 0, 2]) and counts.dtype == ng.int64
    assert np.array_equal(ng.bincount(x, minlength=6).numpy(), [1, 1, 0, 2, 0, 0])
    weighted = ng.bincount(x, ng.tensor([0.5, 1.0, 2.0, 4.0]))
    assert np.array_equal(weighted.numpy(), [0.5, 4.0, 0.0, 3.0]) and weighted.dtype == ng.float32
    with pytest.raises(RuntimeError, match="1-d non-negative integral"):
        ng.bincount(ng.tensor([-1]))
    with pytest.raises(NotImplementedError, match="\"bincount_cpu\" not implemented for 'Float'"):
        ng.bincount(ng.tensor([1.0]))
    with pytest.raises(RuntimeError, match="same length"):
        ng.bincount(x, ng.ones(3))


def test_searchsorted_and_bucketize():
    seq = ng.tensor([1, 3, 5, 7, 9])
    values = ng.tensor([[3, 6, 9], [3, 6, 10]])
    left = ng.searchsorted(seq, values)
    assert np.array_equal(left.numpy(), [[1, 3, 4], [1, 3, 5]]) and left.dtype == ng.int64
    assert np.array_equal(ng.searchsorted(seq, values, right=True).numpy(), [[2, 3, 5], [2, 3, 5]])
    assert np.array_equal(ng.searchsorted(seq, values, side="right").numpy(),
                          ng.searchsorted(seq, values, right=True).numpy())
    assert ng.searchsorted(seq, 4).item() == 2
    rows = ng.tensor([[1, 3, 5], [2, 4, 6]])
    assert np.array_equal(ng.searchsorted(rows, ng.tensor([[3, 6], [3, 6]])).numpy(), [[1, 3], [1, 2]])
    assert np.array_equal(ng.bucketize(values, seq).numpy(), left.numpy())
    assert np.array_equal(ng.bucketize(values, seq, right=True).numpy(), [[2, 3, 5], [2, 3, 5]])
    with pytest.raises(RuntimeError, match="opposites"):
        ng.searchsorted(seq, values, right=True, side="left")
    with pytest.raises(RuntimeError, match="1 dimension"):
        ng.bucketize(values, rows)
    with pytest.raises(RuntimeError, match="first N-1 dimensions"):
        ng.searchsorted(rows, ng.tensor([[1], [2], [3]]))


@needs_cuda
def test_statistics_on_cuda():
    x = ng.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], device="cuda", requires_grad=True)
    values, indices = x.median(1)
    assert values.is_cuda and indices.is_cuda
    assert np.array_equal(indices.cpu().numpy(), [2, 2])
    (values.sum() + x.nanmean()).backward()
    assert np.allclose(x.grad.cpu().numpy(), np.full((2, 3), 1 / 6) + [[0, 0, 1], [0, 0, 1]])
    assert np.array_equal(ng.bincount(ng.tensor([0, 2], device="cuda")).cpu().numpy(), [1, 0, 1])
    assert np.array_equal(ng.unique(ng.tensor([2, 2, 1], device="cuda")).cpu().numpy(), [1, 2])
    found = ng.searchsorted(ng.tensor([1, 3], device="cuda"), ng.tensor([2], device="cuda"))
    assert found.is_cuda and found.cpu().item() == 1
