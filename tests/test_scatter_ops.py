"""scatter, index_fill, index_copy (and in-place forms), repeat_interleave: values by hand,
gradients against central differences, torch's errors."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.cuda
from numgrad.autograd import gradcheck

needs_cuda = pytest.mark.skipif(not numgrad.cuda.is_available(),
                                reason="needs numba-cuda and a GPU or its simulator")


def f64(*shape):
    return ng.tensor(np.random.rand(*shape), dtype=ng.float64, requires_grad=True)


def test_scatter_values_by_hand():
    x = ng.zeros(2, 3)
    src = ng.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    out = x.scatter(0, ng.tensor([[1, 0, 1]]), src)
    assert np.array_equal(out.numpy(), [[0, 2, 0], [1, 0, 3]])
    out = ng.scatter(x, 1, ng.tensor([[2, 0], [1, 1]]), src)
    assert np.array_equal(out.numpy(), [[2, 0, 1], [0, 5, 0]])


def test_scatter_value_and_int_tensor():
    out = ng.tensor([1, 2, 3]).scatter(0, ng.tensor([0, 2]), value=9)
    assert np.array_equal(out.numpy(), [9, 2, 9]) and out.dtype == ng.int64
    assert np.array_equal(ng.tensor([1.0, 2.0]).scatter(0, ng.tensor([1]), 7.0).numpy(), [1, 7])


def test_scatter_duplicate_index_keeps_last_write_and_grads_every_src():
    x = ng.zeros(3, dtype=ng.float64, requires_grad=True)
    src = ng.tensor([1.0, 2.0, 3.0], dtype=ng.float64, requires_grad=True)
    out = x.scatter(0, ng.tensor([0, 0, 2]), src)
    assert np.array_equal(out.detach().numpy(), [2, 0, 3])
    out.backward(ng.tensor([10.0, 20.0, 30.0], dtype=ng.float64))
    assert np.array_equal(x.grad.numpy(), [0, 20, 0])
    assert np.array_equal(src.grad.numpy(), [10, 10, 30])     # torch: grad gathered at index


def test_scatter_gradcheck():
    # no place written twice: there the value is not differentiable in the earlier writes' src
    rows = ng.tensor([[0, 2, 1, 1], [2, 0, 0, 2]])
    cols = ng.tensor([[0, 2, 1, 3], [3, 0, 2, 1]])
    assert gradcheck(lambda a, b: a.scatter(0, rows, b), (f64(3, 4), f64(3, 5)))
    assert gradcheck(lambda a, b: ng.scatter(a, 1, cols, b) * a, (f64(2, 4), f64(2, 4)))
    assert gradcheck(lambda a: a.scatter(1, rows, value=2.5), (f64(2, 4),))


def test_scatter_create_graph():
    x = f64(3)
    src = f64(2)
    out = (x.scatter(0, ng.tensor([2, 0]), src * src) ** 2).sum()
    (g,) = ng.autograd.grad(out, src, create_graph=True)
    expected = 4 * src.detach().numpy() ** 3
    assert np.allclose(g.detach().numpy(), expected)
    g.sum().backward()
    assert np.allclose(src.grad.numpy(), 12 * src.detach().numpy() ** 2)


def test_scatter_inplace_bumps_version_and_refuses_leaf():
    x = ng.zeros(3)
    x.scatter_(0, ng.tensor([1]), ng.tensor([4.0]))
    assert np.array_equal(x.numpy(), [0, 4, 0]) and x._version == 1
    leaf = ng.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        leaf.scatter_(0, ng.tensor([1]), value=1.0)
    y = leaf * 1
    y.scatter_(0, ng.tensor([1]), value=5.0)
    y.sum().backward()
    assert np.array_equal(leaf.grad.numpy(), [1, 0, 1])


def test_scatter_errors():
    x = ng.zeros(2, 3)
    with pytest.raises(RuntimeError, match="out of bounds"):
        x.scatter(0, ng.tensor([[2, 0, 0]]), ng.ones(1, 3))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        x.scatter(0, ng.tensor([0]), ng.ones(1, 3))
    with pytest.raises(RuntimeError, match="no larger size than src"):
        x.scatter(0, ng.tensor([[0, 1, 0]]), ng.ones(1, 2))
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply."):
        x.scatter(0, ng.tensor([[0, 1, 0]]), ng.ones(1, 3), reduce="mean")


def test_index_fill_and_copy_by_hand():
    x = ng.arange(6).reshape(2, 3)
    assert np.array_equal(x.index_fill(1, ng.tensor([0, 2]), -1).numpy(), [[-1, 1, -1], [-1, 4, -1]])
    out = ng.index_copy(x, 1, ng.tensor([2, 0]), ng.tensor([[10, 11], [12, 13]]))
    assert np.array_equal(out.numpy(), [[11, 1, 10], [13, 4, 12]])
    y = ng.zeros(3, 2)
    y.index_copy_(0, ng.tensor([2]), ng.ones(1, 2))
    y.index_fill_(0, ng.tensor([0]), 3.0)
    assert np.array_equal(y.numpy(), [[3, 3], [0, 0], [1, 1]]) and y._version == 2


def test_index_fill_and_copy_gradcheck():
    idx = ng.tensor([2, 0])
    assert gradcheck(lambda a: a.index_fill(1, idx, 1.5), (f64(2, 3),))
    assert gradcheck(lambda a, s: a.index_copy(0, idx, s), (f64(3, 2), f64(2, 2)))
    value = ng.tensor(2.0, dtype=ng.float64, requires_grad=True)
    assert gradcheck(lambda a, v: a.index_fill(0, idx, v), (f64(3), value))


def test_index_copy_errors():
    with pytest.raises(RuntimeError, match="same slice shapes"):
        ng.zeros(3, 2).index_copy(0, ng.tensor([0, 1]), ng.ones(2, 3))
    with pytest.raises(RuntimeError, match="Index has to be a vector/scalar"):
        ng.zeros(3).index_fill(0, ng.tensor([[0]]), 1.0)


def test_repeat_interleave():
    x = ng.tensor([[1, 2], [3, 4]])
    assert np.array_equal(ng.repeat_interleave(x, 2).numpy(), [1, 1, 2, 2, 3, 3, 4, 4])
    assert np.array_equal(x.repeat_interleave(ng.tensor([1, 2]), dim=0).numpy(),
                          [[1, 2], [3, 4], [3, 4]])
    assert np.array_equal(x.repeat_interleave(3, dim=-1).numpy(),
                          np.repeat(x.numpy(), 3, axis=-1))
    assert np.array_equal(ng.repeat_interleave(ng.tensor([2, 0, 1])).numpy(), [0, 0, 2])
    a = f64(2, 3)
    assert gradcheck(lambda t: t.repeat_interleave(ng.tensor([0, 2, 1]), dim=1), (a,))
    assert gradcheck(lambda t: t.repeat_interleave(2, dim=0), (a,))
    # torch's nodes: an int count copies an expanded view, a tensor of counts gathers
    out = a.repeat_interleave(2)
    assert type(out.grad_fn).__name__ == "ViewBackward0"
    assert type(out.grad_fn.next_functions[0][0]).__name__ == "CloneBackward0"
    assert type(a.repeat_interleave(ng.tensor(2), dim=1).grad_fn).__name__ == "IndexSelectBackward0"
    weights = ng.tensor(np.arange(12.0))
    g, = ng.autograd.grad((out * weights).sum(), a)
    np.testing.assert_array_equal(g.numpy(), [[1, 5, 9], [13, 17, 21]])    # 2k + 2k + 1
    with pytest.raises(RuntimeError, match="same size"):
        x.repeat_interleave(ng.tensor([1, 2, 3]), dim=0)
    with pytest.raises(RuntimeError, match="negative"):
        x.repeat_interleave(-1)


@needs_cuda
def test_scatter_family_on_cuda():
    x = ng.zeros(2, 3, device="cuda", requires_grad=True)
    src = ng.tensor([[1.0, 2.0, 3.0]], device="cuda", requires_grad=True)
    out = x.scatter(0, ng.tensor([[1, 0, 1]], device="cuda"), src).index_fill(1, ng.tensor([1]), 5.0)
    assert out.is_cuda
    assert np.array_equal(out.detach().cpu().numpy(), [[0, 5, 0], [1, 5, 3]])
    out.sum().backward()
    assert np.array_equal(x.grad.cpu().numpy(), [[1, 0, 1], [0, 0, 0]])
    assert np.array_equal(src.grad.cpu().numpy(), [[1, 0, 1]])
    repeated = x.detach().repeat_interleave(2, dim=0)
    assert repeated.is_cuda and np.array_equal(repeated.cpu().numpy(), np.zeros((4, 3)))
