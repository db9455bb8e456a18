"""The in-place methods of numgrad/ops/inplace_more.py: in-place view ops (t_, transpose_,
swapdims_, squeeze_, unsqueeze_), in-place forms (addmm_, tril_, cumprod_, logical_not_, ...) and
writes into places (fill_diagonal_, index_put(_), put(_), masked_scatter(_)). Values, gradients,
node names, version counters and errors are torch 2.x's, checked against torch by hand."""
import math

import numpy as np
import pytest

import numgrad as ng
import numgrad.cuda
from numgrad.autograd import gradcheck

F64 = ng.float64


def _np(t):
    return t.detach().cpu().numpy()


def _weights(*shape):
    """A fixed upstream gradient: 0.5 * k - 1 in row-major order."""
    return ng.tensor(np.arange(np.prod(shape), dtype=np.float64).reshape(shape) * 0.5 - 1)


def _raises_unchanged(t, error, match, fn):
    """fn() raises, and t's values, shape and version are as before."""
    def version():      # an inference tensor has none, as in torch
        return None if t.is_inference() else t._version
    before, shape, version_before = _np(t).copy(), tuple(t.shape), version()
    with pytest.raises(error, match=match):
        fn()
    assert tuple(t.shape) == shape and version() == version_before
    np.testing.assert_array_equal(_np(t), before)


# ---- in-place view ops ---------------------------------------------------------------------------
def test_t_changes_the_layout_and_records_the_transpose():
    x = ng.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = x * 2
    assert y.t_() is y
    assert tuple(y.shape) == (3, 2) and not y.is_contiguous() and y._version == 1
    assert y.grad_fn.name() == "TBackward1"
    np.testing.assert_array_equal(_np(y), np.arange(6.0).reshape(2, 3).T * 2)
    (y * _weights(3, 2)).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), 2 * _np(_weights(3, 2)).T)


def test_transpose_swapdims_swapaxes_compose():
    x = ng.tensor(np.arange(24.0).reshape(2, 3, 4), requires_grad=True)
    y = x * 2
    y.transpose_(0, 2)
    assert y.grad_fn.name() == "TransposeBackward1"
    y.swapdims_(1, 0)
    y.swapaxes_(-1, 1)
    expected = np.arange(24.0).reshape(2, 3, 4).swapaxes(0, 2).swapaxes(1, 0).swapaxes(-1, 1)
    assert tuple(y.shape) == (3, 2, 4) and y._version == 3
    np.testing.assert_array_equal(_np(y), 2 * expected)
    (y * _weights(3, 2, 4)).sum().backward()
    # the upstream gradient, swapped back in the reverse order
    back = _np(_weights(3, 2, 4)).swapaxes(-1, 1).swapaxes(1, 0).swapaxes(0, 2)
    np.testing.assert_array_equal(_np(x.grad), 2 * back)
    assert tuple(ng.swapdims(ng.zeros(2, 3, 4), 0, 2).shape) == (4, 3, 2)


def test_squeeze_and_unsqueeze_in_place():
    x = ng.tensor(np.arange(6.0).reshape(2, 1, 3, 1), requires_grad=True)
    y = x * 2
    y.squeeze_(1)
    assert tuple(y.shape) == (2, 3, 1) and y.grad_fn.name() == "SqueezeBackward4"
    y.unsqueeze_(0)
    assert tuple(y.shape) == (1, 2, 3, 1) and y.grad_fn.name() == "UnsqueezeBackward1"
    y.squeeze_()
    assert tuple(y.shape) == (2, 3) and y.grad_fn.name() == "SqueezeBackward3"
    y.unsqueeze_(-1)
    y.squeeze_((0, 2))               # dim 0 has size 2: only dim 2 goes
    assert tuple(y.shape) == (2, 3) and y.grad_fn.name() == "SqueezeBackward5"
    assert y._version == 5
    (y * _weights(2, 3)).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), 2 * _np(_weights(2, 3)).reshape(2, 1, 3, 1))


def test_view_ops_in_place_on_plain_and_small_tensors():
    z = ng.zeros(3)
    z.t_()
    assert tuple(z.shape) == (3,) and z._version == 1
    s = ng.tensor(5.0)
    s.t_()
    s.squeeze_()
    s.squeeze_(0)
    s.unsqueeze_(0)
    assert tuple(s.shape) == (1,) and s._version == 4
    y = ng.zeros(3, requires_grad=True) * 1
    y.t_()                         # a 1-D t_ is recorded and counted all the same
    assert y.grad_fn.name() == "TBackward1" and y._version == 1
    e = ng.zeros(3).expand(2, 3)   # no write: an expanded tensor may be transposed
    e.t_()
    assert tuple(e.shape) == (3, 2) and e._version == 1


def test_view_ops_in_place_gradcheck():
    def f(x):
        y = x * 1
        y.t_()
        y.unsqueeze_(1)
        y = y * y
        y.squeeze_(1)
        y.transpose_(0, 1)
        return y
    assert gradcheck(f, (ng.randn(2, 3, dtype=F64, requires_grad=True),))


def test_view_ops_in_place_errors_leave_the_tensor_unchanged():
    z = ng.arange(24.0).reshape(2, 3, 4)
    _raises_unchanged(z, RuntimeError, r"t_\(\) expects a tensor with <= 2 dimensions, but self "
                      r"is 3D", z.t_)
    _raises_unchanged(z, IndexError, r"Dimension out of range \(expected to be in range of "
                      r"\[-3, 2\], but got 3\)", lambda: z.transpose_(0, 3))
    _raises_unchanged(z, IndexError, r"but got 5\)", lambda: z.squeeze_(5))
    _raises_unchanged(z, IndexError, r"\[-4, 3\], but got -5\)", lambda: z.unsqueeze_(-5))
    ones = ng.zeros(2, 1, 3, 1)
    _raises_unchanged(ones, RuntimeError, "dim 1 appears multiple times in the list of dims",
                      lambda: ones.squeeze_((1, 1)))
    scalar = ng.tensor(0.0)
    _raises_unchanged(scalar, IndexError, r"\[-1, 0\], but got 5\)", lambda: scalar.squeeze_(5))


def test_view_ops_in_place_on_a_leaf():
    x = ng.zeros(2, 3, requires_grad=True)
    for op in (x.t_, x.squeeze_, lambda: x.unsqueeze_(0), lambda: x.transpose_(0, 1)):
        _raises_unchanged(x, RuntimeError, "a leaf Variable that requires grad is being used in "
                          "an in-place operation.", op)
    # the leaf check comes before the op's own
    big = ng.zeros(2, 3, 4, requires_grad=True)
    _raises_unchanged(big, RuntimeError, "a leaf Variable", big.t_)
    # a leaf made by a view op (of a tensor that needs no grad) is a view of a leaf
    made = ng.arange(6.0).reshape(2, 3).requires_grad_()
    _raises_unchanged(made, RuntimeError, "a view of a leaf Variable that requires grad", made.t_)
    with ng.no_grad():
        x.t_()
    assert tuple(x.shape) == (3, 2) and x._version == 1 and x.is_leaf and x.requires_grad
    x.sum().backward()
    np.testing.assert_array_equal(_np(x.grad), np.ones((3, 2)))


def test_view_ops_in_place_through_views_refused_as_torch_does():
    x = ng.zeros(2, 3, requires_grad=True)
    row = x[0]
    _raises_unchanged(row, RuntimeError, "a view of a leaf Variable that requires grad",
                      lambda: row.unsqueeze_(0))
    with ng.no_grad():
        quiet = x[0]
    _raises_unchanged(quiet, RuntimeError, "A view was created in no_grad mode",
                      lambda: quiet.unsqueeze_(0))
    first, _ = (x * 1).split(1)
    _raises_unchanged(first, RuntimeError, "Output 0 of SplitBackward0 is a view|Output 0 of "
                      "Split is a view", first.t_)
    with ng.inference_mode():
        frozen = ng.zeros(2, 3)
    _raises_unchanged(frozen, RuntimeError, "Inplace update to inference tensor outside "
                      "InferenceMode is not allowed.", frozen.t_)
    with ng.no_grad():
        loose = (x * 1)[0]            # its base needs no grad: allowed
    loose.unsqueeze_(0)
    assert tuple(loose.shape) == (1, 3) and loose._version == 1


def test_view_of_a_graph_tensor_stays_a_view():
    x = ng.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = x * 1
    v = y[:, 1:]
    v.t_()
    assert v._base is y and y._version == 1 and v._version == 1 and tuple(v.shape) == (2, 2)
    v.mul_(_weights(2, 2))            # writes y's memory through the transposed view
    np.testing.assert_array_equal(_np(y), [[0.0, -1.0, 0.0], [3.0, -2.0, 2.5]])
    (y * _weights(2, 3)).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), [[-1.0, 0.5, 0.0], [0.5, -0.5, 0.75]])


def test_base_with_views_changes_layout():
    x = ng.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = x * 1
    row = y[0]
    y.t_()
    assert row._version == 1          # the counter is shared; row reads y's new history
    row.mul_(10)
    np.testing.assert_array_equal(_np(y), [[0.0, 3.0], [10.0, 4.0], [20.0, 5.0]])
    assert y.grad_fn.name() == "torch::autograd::CopySlices"
    (y * _weights(3, 2)).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), [[-10.0, 0.0, 10.0], [-0.5, 0.5, 1.5]])


def test_view_op_in_place_bumps_the_version_of_saved_values():
    x = ng.ones(2, 3, requires_grad=True)
    y = x * 1
    w = y * y
    y.t_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        w.sum().backward()


# ---- in-place forms ------------------------------------------------------------------------------
def test_addmm_and_baddbmm_in_place():
    x = ng.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    m1 = ng.tensor(np.arange(8.0).reshape(2, 4) * 0.1, requires_grad=True)
    m2 = ng.tensor(np.arange(12.0).reshape(4, 3) * 0.2)
    y = x * 1
    y.addmm_(m1, m2, beta=2, alpha=3)
    assert y._version == 1
    np.testing.assert_allclose(_np(y), 2 * _np(x) + 3 * _np(m1) @ _np(m2))
    (y * _weights(2, 3)).sum().backward()
    np.testing.assert_allclose(_np(x.grad), 2 * _np(_weights(2, 3)))
    np.testing.assert_allclose(_np(m1.grad), 3 * _np(_weights(2, 3)) @ _np(m2).T)
    small = ng.zeros(1, 3)
    _raises_unchanged(small, RuntimeError, r"Bad in-place call: input tensor size \[1, 3\] and "
                      r"output tensor size \[2, 3\] should match",
                      lambda: small.addmm_(ng.ones(2, 4), ng.ones(4, 3)))
    b = ng.ones(2, 2, 3, dtype=F64)
    b1 = ng.randn(2, 2, 4, dtype=F64)
    b2 = ng.randn(2, 4, 3, dtype=F64)
    b.baddbmm_(b1, b2, alpha=0.5)
    np.testing.assert_allclose(_np(b), 1 + 0.5 * _np(b1) @ _np(b2))
    flat = ng.zeros(2, 3)
    _raises_unchanged(flat, RuntimeError, r"input tensor size \[2, 3\] and output tensor size "
                      r"\[2, 2, 3\]", lambda: flat.baddbmm_(ng.ones(2, 2, 4), ng.ones(2, 4, 3)))
    assert gradcheck(lambda x, a: (x * 1).addmm_(a, a.t(), beta=0.5),
                     (ng.randn(3, 3, dtype=F64, requires_grad=True),
                      ng.randn(3, 2, dtype=F64, requires_grad=True)))


def test_tril_triu_in_place():
    x = ng.tensor(np.arange(12.0).reshape(3, 4) + 1, requires_grad=True)
    lower, upper = x * 1, x * 1
    lower.tril_()
    upper.triu_(1)
    np.testing.assert_array_equal(_np(lower), np.tril(_np(x)))
    np.testing.assert_array_equal(_np(upper), np.triu(_np(x), 1))
    assert lower._version == upper._version == 1
    (lower * _weights(3, 4) + upper).sum().backward()
    expected = np.tril(_np(_weights(3, 4))) + np.triu(np.ones((3, 4)), 1)
    np.testing.assert_array_equal(_np(x.grad), expected)
    z = ng.zeros(3)
    _raises_unchanged(z, RuntimeError, "tril: input tensor must have at least 2 dimensions",
                      z.tril_)


def test_cumprod_in_place():
    data = np.array([[1.0, 2.0, 0.0, 3.0], [2.0, -1.0, 4.0, 0.5]])
    x = ng.tensor(data, requires_grad=True)
    y = x * 1
    y.cumprod_(1)
    assert y.grad_fn.name() == "CumprodBackward0" and y._version == 1
    np.testing.assert_array_equal(_np(y), np.cumprod(data, 1))
    (y * _weights(2, 4)).sum().backward()
    # d/dx_ij of sum_k w_ik prod_{l<=k} x_il, by hand (zeros included)
    np.testing.assert_allclose(_np(x.grad), [[-2.0, -0.5, 3.0, 0.0], [-13.5, 29.0, -6.5, -20.0]])
    assert gradcheck(lambda t: (t * 1).cumprod_(0),
                     (ng.randn(3, 2, dtype=F64, requires_grad=True),))
    ints = ng.tensor(np.arange(1, 7).reshape(2, 3))
    ints.cumprod_(0)
    assert ints.tolist() == [[1, 2, 3], [4, 10, 18]] and ints.dtype == ng.int64
    z = ng.ones(3, 3)
    _raises_unchanged(z, IndexError, r"\[-2, 1\], but got 2\)", lambda: z.cumprod_(2))
    _raises_unchanged(z, RuntimeError, "Bad in-place call: input tensor dtype float and output "
                      "tensor dtype double should match", lambda: z.cumprod_(0, dtype=F64))


def test_logical_not_in_place_keeps_the_dtype_and_the_history():
    z = ng.tensor([0.0, 2.0, -1.0])
    z.logical_not_()
    assert z.tolist() == [1.0, 0.0, 0.0] and z.dtype == ng.float32 and z._version == 1
    ints = ng.tensor([0, 2, -1])
    ints.logical_not_()
    assert ints.tolist() == [1, 0, 0] and ints.dtype == ng.int64
    flags = ng.tensor([True, False])
    flags.logical_not_()
    assert flags.tolist() == [False, True]
    x = ng.tensor([0.0, 2.0], requires_grad=True)
    y = x * 1
    y.logical_not_()                  # not recorded: y keeps its node, as in torch
    assert y.grad_fn.name() == "MulBackward0" and y.requires_grad
    x.logical_not_()                  # nor refused on a leaf that requires grad
    assert _np(x).tolist() == [1.0, 0.0] and x._version == 1 and x.is_leaf
    e = ng.zeros(3).expand(2, 3)
    _raises_unchanged(e, RuntimeError, "more than one element of the written-to tensor",
                      e.logical_not_)


# ---- writes into places --------------------------------------------------------------------------
@pytest.mark.parametrize("shape, wrap, places", [
    ((7, 3), True, [(0, 0), (1, 1), (2, 2), (4, 0), (5, 1), (6, 2)]),
    ((7, 3), False, [(0, 0), (1, 1), (2, 2)]),
    ((3, 7), True, [(0, 0), (1, 1), (2, 2)]),
    ((5, 3), True, [(0, 0), (1, 1), (2, 2), (4, 0)]),
])
def test_fill_diagonal(shape, wrap, places):
    z = ng.zeros(*shape)
    z.fill_diagonal_(5, wrap=wrap)
    expected = np.zeros(shape)
    expected[tuple(np.array(places).T)] = 5
    np.testing.assert_array_equal(_np(z), expected)
    assert z._version == 1


def test_fill_diagonal_cube_gradient_and_errors():
    cube = ng.zeros(3, 3, 3)
    cube.fill_diagonal_(True)
    np.testing.assert_array_equal(np.argwhere(_np(cube)), [[0, 0, 0], [1, 1, 1], [2, 2, 2]])
    x = ng.tensor(np.arange(6.0).reshape(2, 3) + 1, requires_grad=True)
    y = x * 1
    y.fill_diagonal_(ng.tensor(-2.0))
    assert y.grad_fn.name() == "torch::autograd::CopySlices" and y._version == 1
    np.testing.assert_array_equal(_np(y), [[-2.0, 2.0, 3.0], [4.0, -2.0, 6.0]])
    (y * _weights(2, 3)).sum().backward()
    np.testing.assert_array_equal(_np(x.grad), [[0.0, -0.5, 0.0], [0.5, 0.0, 1.5]])
    _raises_unchanged(x, RuntimeError, "a view of a leaf Variable that requires grad",
                      lambda: x.fill_diagonal_(1))
    odd = ng.zeros(3, 3, 2)
    _raises_unchanged(odd, RuntimeError, "all dimensions of input must be of equal length",
                      lambda: odd.fill_diagonal_(1))
    line = ng.zeros(3)
    _raises_unchanged(line, RuntimeError, "dimensions must larger than 1",
                      lambda: line.fill_diagonal_(1))
    square = ng.zeros(2, 2)
    _raises_unchanged(square, TypeError, "must be Number, not Tensor",
                      lambda: square.fill_diagonal_(ng.tensor(1.0, requires_grad=True)))


def test_index_put_values():
    z = ng.zeros(5)
    z.index_put_((ng.tensor([0, 2, 0]),), ng.tensor([1.0, 2.0, 3.0]))
    assert z.tolist() == [3.0, 0.0, 2.0, 0.0, 0.0] and z._version == 1   # the last write wins
    z = ng.zeros(5)
    z.index_put_((ng.tensor([0, 2, 0]),), ng.tensor([1.0, 2.0, 3.0]), accumulate=True)
    assert z.tolist() == [4.0, 0.0, 2.0, 0.0, 0.0]
    z = ng.zeros(2, 3)
    z.index_put_((ng.tensor([0, 1]), ng.tensor([2, 0])), ng.tensor(7.0))
    assert z.tolist() == [[0.0, 0.0, 7.0], [7.0, 0.0, 0.0]]
    z = ng.zeros(2, 3)
    z.index_put_((ng.tensor([True, False]),), ng.tensor(7.0))
    assert z.tolist() == [[7.0, 7.0, 7.0], [0.0, 0.0, 0.0]]
    z = ng.zeros(2, 3)
    z.index_put_([ng.tensor([1])], ng.tensor([1.0, 2.0, 3.0]))
    assert z.tolist() == [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]


def test_index_put_gradients():
    x = ng.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
    vals = ng.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y.index_put_((ng.tensor([0, 3, 1]),), vals)
    assert y.grad_fn.name() == "IndexPutBackward0" and y._version == 1
    assert y.tolist() == [1.0, 3.0, 3.0, 2.0, 5.0]
    (y * _weights(5)).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 0.0, 1.0]
    assert vals.grad.tolist() == [-1.0, 0.5, -0.5]
    x.grad = vals.grad = None
    y = x * 1
    y.index_put_((ng.tensor([0, 2, 0]),), vals, accumulate=True)
    assert y.grad_fn.name() == "IndexPutBackward0" and y.tolist() == [5.0, 2.0, 5.0, 4.0, 5.0]
    (y * _weights(5)).sum().backward()
    assert x.grad.tolist() == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert vals.grad.tolist() == [-1.0, 0.0, -1.0]
    x.grad = vals.grad = None
    y = x * 1
    y.index_put_((ng.tensor([1, 1]),), vals[:2])
    (y * _weights(5)).sum().backward()
    # the value written first and overwritten gets the gradient at its place too, as in torch
    assert vals.grad.tolist() == [-0.5, -0.5, 0.0] and y.tolist()[1] == 2.0
    out = ng.index_put(x, (ng.tensor([1]),), vals[:1])
    assert out.grad_fn.name() == "IndexPutBackward0" and out.tolist() == [1.0, 1.0, 3.0, 4.0, 5.0]
    assert x.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    unique = (ng.tensor([[0, 1], [1, 0]]), ng.tensor([2, 0]))
    assert gradcheck(lambda a, v: ng.index_put(a, unique, v),
                     (ng.randn(2, 3, dtype=F64, requires_grad=True),
                      ng.randn(2, 2, dtype=F64, requires_grad=True)))
    twice = (ng.tensor([1, 1]), ng.tensor([0, 0]))
    assert gradcheck(lambda a, v: (a * 1).index_put_(twice, v, accumulate=True),
                     (ng.randn(2, 3, dtype=F64, requires_grad=True),
                      ng.randn(2, dtype=F64, requires_grad=True)))


def test_index_put_errors():
    z = ng.zeros(5)
    _raises_unchanged(z, IndexError, "index 7 is out of bounds for dimension 0 with size 5",
                      lambda: z.index_put_((ng.tensor([7]),), ng.tensor(1.0)))
    _raises_unchanged(z, IndexError, "tensors used as indices must be long, int, byte or bool",
                      lambda: z.index_put_((ng.tensor([1.0]),), ng.tensor(1.0)))
    _raises_unchanged(z, RuntimeError, r"shape mismatch: value tensor of shape \[3\] cannot be "
                      r"broadcast to indexing result of shape \[2\]",
                      lambda: z.index_put_((ng.tensor([1, 2]),), ng.tensor([1.0, 2.0, 3.0])))
    _raises_unchanged(z, RuntimeError, "Index put requires the source and destination dtypes "
                      "match, got Float for the destination and Double for the source.",
                      lambda: z.index_put_((ng.tensor([1]),), ng.tensor([1.0], dtype=F64)))
    _raises_unchanged(z, TypeError, "must be tuple of Tensors, not Tensor",
                      lambda: z.index_put_(ng.tensor([1]), ng.tensor([1.0])))
    leaf = ng.zeros(3, requires_grad=True)
    _raises_unchanged(leaf, RuntimeError, "a leaf Variable that requires grad",
                      lambda: leaf.index_put_((ng.tensor([0]),), ng.tensor(1.0)))


def test_put():
    z = ng.zeros(2, 3)
    z.put_(ng.tensor([0, -1, 4]), ng.tensor([1.0, 2.0, 3.0]))
    assert z.tolist() == [[1.0, 0.0, 0.0], [0.0, 3.0, 2.0]] and z._version == 1
    z = ng.zeros(2, 3)
    z.put_(ng.tensor([[0, 0]]), ng.tensor([1.0, 2.0]), accumulate=True)
    assert z.tolist() == [[3.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    x = ng.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    src = ng.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y.put_(ng.tensor([0, 4, 5]), src)
    assert y.tolist() == [[1.0, 2.0, 3.0], [4.0, 2.0, 3.0]]
    (y * _weights(2, 3)).sum().backward()
    assert x.grad.tolist() == [[0.0, -0.5, 0.0], [0.5, 0.0, 0.0]]
    assert src.grad.tolist() == [-1.0, 1.0, 1.5]
    assert ng.put(x, ng.tensor([1]), src[:1]).tolist() == [[1.0, 1.0, 3.0], [4.0, 5.0, 6.0]]
    assert x.put(ng.tensor([1]), src[:1], accumulate=True).tolist()[0] == [1.0, 3.0, 3.0]
    assert gradcheck(lambda a, s: (a * 1).put_(ng.tensor([5, 0, 5]), s, accumulate=True),
                     (ng.randn(2, 3, dtype=F64, requires_grad=True),
                      ng.randn(3, dtype=F64, requires_grad=True)))


def test_put_errors():
    z = ng.zeros(2, 3)
    _raises_unchanged(z, IndexError, "out of range: tried to access index 6 on a tensor of 6 "
                      "elements.", lambda: z.put_(ng.tensor([6]), ng.tensor([1.0])))
    _raises_unchanged(z, IndexError, "tried to access index -7",
                      lambda: z.put_(ng.tensor([-7]), ng.tensor([1.0])))
    _raises_unchanged(z, IndexError, r"put_\(\): Expected source and index to have the same "
                      r"number of elements, but got source.numel\(\) = 1, index.numel\(\) = 2",
                      lambda: z.put_(ng.tensor([1, 2]), ng.tensor([1.0])))
    _raises_unchanged(z, RuntimeError, r"put_\(\): self and source expected to have the same "
                      r"dtype, but got self.dtype = Float and source.dtype = Double",
                      lambda: z.put_(ng.tensor([1]), ng.tensor([1.0], dtype=F64)))
    _raises_unchanged(z, RuntimeError, r"put_\(\): Expected a long tensor for index, but got "
                      r"Float", lambda: z.put_(ng.tensor([1.0]), ng.tensor([1.0])))


def test_masked_scatter():
    x = ng.tensor(np.arange(6.0).reshape(2, 3) + 1, requires_grad=True)
    src = ng.tensor(np.arange(1.0, 9.0), requires_grad=True)
    mask = ng.tensor([[True, False, True], [False, True, False]])
    y = x.masked_scatter(mask, src.reshape(2, 4))
    assert y.tolist() == [[1.0, 2.0, 2.0], [4.0, 3.0, 6.0]]
    (y * _weights(2, 3)).sum().backward()
    assert x.grad.tolist() == [[0.0, -0.5, 0.0], [0.5, 0.0, 1.5]]
    assert src.grad.tolist() == [-1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    y = x * 1
    y.masked_scatter_(mask, src)
    assert y.tolist() == [[1.0, 2.0, 2.0], [4.0, 3.0, 6.0]] and y._version == 1
    z = ng.zeros(2, 3)
    z.masked_scatter_(ng.tensor([True, False, True]), ng.arange(5.0))   # mask broadcast to z
    assert z.tolist() == [[0.0, 0.0, 1.0], [2.0, 0.0, 3.0]]
    # out of place, input and mask broadcast together
    assert ng.zeros(3).masked_scatter(mask, ng.arange(5.0)).tolist() == [[0.0, 0.0, 1.0],
                                                                         [0.0, 2.0, 0.0]]
    assert gradcheck(lambda a, s: ng.masked_scatter(a, mask, s),
                     (ng.randn(2, 3, dtype=F64, requires_grad=True),
                      ng.randn(4, dtype=F64, requires_grad=True)))


def test_masked_scatter_errors():
    mask = ng.tensor([[True, False, True], [False, True, False]])
    z = ng.zeros(2, 3)
    # torch writes the first elements before it finds the source short; numgrad writes nothing
    _raises_unchanged(z, RuntimeError, "Number of elements of source < number of ones in mask",
                      lambda: z.masked_scatter_(mask, ng.ones(2)))
    _raises_unchanged(z, RuntimeError, "masked_scatter_ only supports boolean masks, but got "
                      "mask with dtype Float", lambda: z.masked_scatter_(mask.float(), ng.ones(5)))
    _raises_unchanged(z, RuntimeError, "masked_scatter: expected self and source to have same "
                      "dtypes but gotFloat and Double",
                      lambda: z.masked_scatter_(mask, ng.ones(5, dtype=F64)))
    _raises_unchanged(z, RuntimeError, "The expanded size of the tensor",
                      lambda: z.masked_scatter_(ng.tensor([True, False]), ng.ones(5)))
    line = ng.zeros(3)
    _raises_unchanged(line, RuntimeError, r"expand\(CPUBoolType\{\[2, 3\]\}, size=\[3\]\): the "
                      r"number of sizes provided \(1\) must be greater or equal to the number of "
                      r"dimensions in the tensor \(2\)", lambda: line.masked_scatter_(mask,
                                                                                      ng.ones(5)))


# ---- on the GPU (numba-cuda's simulator without one) ---------------------------------------------
def _program(dev):
    """Every kind of method here, through views, on one device; its values and gradients."""
    x = ng.arange(12.0, device=dev).reshape(3, 4).requires_grad_()
    src = ng.arange(1.0, 7.0, device=dev).requires_grad_()
    y = x * 1
    row, block = y[1], y[1:, :3]
    y.t_()                              # the base changes layout under its views
    row.mul_(10)
    block.t_()
    block.unsqueeze_(0)
    block.squeeze_(0)
    block.add_(100)                     # a write through a view that changed layout
    y.index_put_((ng.tensor([0, 3], device=dev), ng.tensor([2, 0], device=dev)), src[:2])
    y.put_(ng.tensor([5, -2], device=dev), src[2:4], accumulate=True)
    y.masked_scatter_(ng.tensor([False, True, False], device=dev), src)
    y.fill_diagonal_(-1.0)
    y.tril_(1)
    y.cumprod_(0)
    out = [y, row, block]
    (y * ng.arange(12.0, device=dev).reshape(4, 3) * 0.01).sum().backward()
    flags = ng.tensor([0.0, 2.0, -1.0], device=dev)
    flags.logical_not_()
    return [_np(t) for t in out + [x.grad, src.grad, flags]] + [y._version, tuple(block.shape)]


@pytest.mark.skipif(not numgrad.cuda.is_available(),
                    reason="needs numba-cuda and a GPU or its simulator")
def test_cuda_matches_the_cpu():
    cpu, gpu = _program("cpu"), _program("cuda")
    for c, g in zip(cpu, gpu):
        np.testing.assert_allclose(g, c, rtol=1e-6, atol=1e-6)
    # torch 2.x's values for this program
    y, row, block, x_grad, src_grad, flags, version, block_shape = cpu
    np.testing.assert_allclose(y, [[-1.0, 1.0, 0.0], [-1.0, -1.0, 0.0], [-2.0, -3.0, 0.0],
                                   [-4.0, -12.0, 0.0]])
    np.testing.assert_allclose(row, [1.0, -1.0, -3.0, -12.0])
    np.testing.assert_allclose(block, [[1.0, 0.0], [-1.0, 0.0], [-3.0, 0.0]])
    np.testing.assert_allclose(x_grad, [[0.0, -0.51, -0.24, 0.0], [0.0] * 4, [0.0] * 4],
                               rtol=1e-6)
    np.testing.assert_allclose(src_grad, [-1.44, -0.18, -0.47, -0.3, 0.0, 0.0], rtol=1e-6)
    assert flags.tolist() == [1.0, 0.0, 0.0] and version == 12 and block_shape == (3, 2)


def test_index_put_over_a_place_written_twice_keeps_the_last_write_even_after_inf():
    """An overridden inf must not leak into the kept write (inf - inf would be NaN)."""
    x = ng.zeros(3)
    assert x.index_put((ng.tensor([0, 0]),), ng.tensor([math.inf, 1.0])).tolist() == [1.0, 0.0, 0.0]
    values = ng.tensor([2.0, 1.0], requires_grad=True)
    ng.zeros(3).index_put((ng.tensor([0, 0]),), values).sum().backward()
    assert values.grad.tolist() == [1.0, 1.0]       # both writes get the gradient at their place


def test_unrecorded_arithmetic_updates_write_in_place_as_the_general_path_does():
    # p -= lr * g and friends are computed straight into p's memory when nothing is recorded:
    # the same values, version bump, views and refusals as the general path
    p = ng.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=ng.float32, requires_grad=True)
    g = ng.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=ng.float32)
    memory, version = p._data, p._version
    with ng.no_grad():
        p -= 0.5 * g
        p.add_(1)
        p.mul_(g)
    assert p._data is memory and p._version == version + 3 and p.dtype == ng.float32
    np.testing.assert_array_equal(p.detach().numpy(),
                                  np.array([[0.875, -3.5], [6.0, 1.21875]], np.float32))
    base = ng.zeros(2, 3)
    view = base.t()[1]
    view.add_(ng.ones(2))                       # no gradient anywhere: not recorded, through a view
    assert base.tolist() == [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]] and base._version == view._version
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ng.zeros(1).expand(3).add_(ng.ones(3))
    x = ng.arange(4.0)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to "
                                           "tensor refer to a single memory location"):
        x[1:].add_(x[:3])
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in "
                                           "an in-place operation"):
        p.add_(1.0)                             # grad mode: recorded, refused as before
    i = ng.tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output "
                                           "type Long"):
        i.mul_(1.5)
