"""Differences from torch 2.13 left by the first parity pass, each checked against torch's own
values and messages (hard-coded here: torch is no test dependency)."""
import math

import numpy as np
import pytest

import numgrad as ng


def _bits(t):
    """Values with their signs of zero, as strings (-0.0 is not 0.0 here)."""
    return [str(v) for v in np.asarray(t.detach().numpy()).ravel()]


# ---- mm with inner size 1 -----------------------------------------------------------------------
def test_mm_with_inner_size_one_keeps_negative_zeros():
    # torch 2.13: [[-0., -0.], [-0.5, -1.]]: (m, 1) @ (1, n) with m, n > 1 is an outer product
    out = ng.tensor([[0.], [1.]]) @ ng.tensor([[-0.5, -1.]])
    assert _bits(out) == ["-0.0", "-0.0", "-0.5", "-1.0"]
    # torch 2.13: one row or one column goes through BLAS, whose sums start at +0.0
    assert _bits(ng.mm(-ng.zeros(1, 1), ng.ones(1, 3))) == ["0.0"] * 3
    assert _bits(ng.mm(-ng.zeros(3, 1), ng.ones(1, 1))) == ["0.0"] * 3
    assert _bits(ng.bmm(-ng.zeros(2, 3, 1), ng.ones(2, 1, 3))) == ["0.0"] * 18


def test_mm_with_inner_size_one_differentiates_as_before():
    x = ng.tensor([[1.], [2.]], requires_grad=True)
    y = ng.tensor([[3., 4., 5.]], requires_grad=True)
    (x @ y).sum().backward()
    assert x.grad.tolist() == [[12.], [12.]] and y.grad.tolist() == [[3., 3., 3.]]


# ---- gather keeps self --------------------------------------------------------------------------
def test_gather_keeps_self_for_the_version_check():
    x = ng.tensor([1., 2., 3.], requires_grad=True)
    y = x * 1
    z = y.gather(0, ng.tensor([0, 2]))
    assert z.grad_fn._saved_self.tolist() == [1., 2., 3.]     # torch 2.13 shows the input
    with ng.no_grad():
        y.add_(1)
    # torch 2.13: RuntimeError ... [torch.FloatTensor [3]], which is output 0 of Mul, is at
    # version 1; expected version 0 instead
    with pytest.raises(RuntimeError, match=r"output 0 of Mul, is at version 1; expected version 0"):
        z.sum().backward()


# ---- kthvalue's index among ties ----------------------------------------------------------------
@pytest.mark.parametrize("values, k, index", [
    ([0., 0., 2., 1.5], 2, 0),                           # torch 2.13 values, indices
    ([0., 0., 2., 1.5], 1, 1),
    ([2., 1., 1., 1., 0., 1.], 3, 5),
    ([1., float("nan"), float("nan"), 0.], 3, 2),
    ([1., float("nan"), float("nan"), 0.], 4, 1),
    ([3, 1, 1, 2], 2, 1),
])
def test_kthvalue_picks_torchs_tie(values, k, index):
    assert int(ng.tensor(values).kthvalue(k).indices) == index


def test_kthvalue_ties_along_a_dim():
    x = ng.tensor([[1., 1., 0., 1.], [2., 0., 0., 0.]], requires_grad=True)
    values, indices = x.kthvalue(2, 1, keepdim=True)
    # torch 2.13: indices [[1], [3]]
    assert indices.tolist() == [[1], [3]] and values.tolist() == [[1.], [0.]]
    values.sum().backward()
    assert x.grad.tolist() == [[0., 1., 0., 0.], [0., 0., 0., 1.]]


# ---- more than one Ellipsis ---------------------------------------------------------------------
@pytest.mark.parametrize("index, shape, first", [      # torch 2.13's shape and first values
    ((..., 1, ...), (2, 3), [1., 5., 9.]),
    ((1, ..., ...), (3, 4), [12., 13., 14.]),
    ((..., None, ...), (2, 3, 4, 1), [0., 1., 2.]),
    ((1, ..., 2, ...), (3,), [14., 18., 22.]),
    ((0, ..., 1, ..., 0), (), [4.]),
])
def test_later_ellipses_index_as_torch(index, shape, first):
    x = ng.arange(24.).reshape(2, 3, 4).requires_grad_()
    out = x[index]
    assert tuple(out.shape) == shape and out.reshape(-1)[:3].tolist() == first
    out.sum().backward()
    assert x.grad.sum().item() == out.numel()


def test_later_ellipses_index_arrays_and_write():
    x = ng.arange(24.).reshape(2, 3, 4)
    assert tuple(x[..., ng.tensor([0, 1]), ...].shape) == (2, 3, 2)
    y = ng.zeros(2, 3)
    y[..., 1, ...] = 5
    assert y.tolist() == [[0., 5., 0.], [0., 5., 0.]]


@pytest.mark.parametrize("index, message", [                # torch 2.13's words
    ((..., 1, ..., 0), "index 0 is out of bounds for dimension 3 with size 0"),
    ((..., ..., 1), "index 1 is out of bounds for dimension 2 with size 0"),
    ((..., 1, ..., None), r"Dimension out of range \(expected to be in range of \[-3, 2\], but "
                          r"got 4\)"),
])
def test_an_item_after_a_later_ellipsis_is_past_the_last_dim(index, message):
    with pytest.raises(IndexError, match=message):
        ng.arange(24.).reshape(2, 3, 4)[index]


# ---- i1 / i1e derivatives: torch's formula off the tiny and NaN inputs --------------------------
@pytest.mark.parametrize("name, grads", [      # torch 2.13, float64
    ("i1", [0.5, 0.5, 0.5, 0.700906773759523]),
    ("i1e", [0.5, 0.5, 0.5, 0.049938776894223436]),
])
def test_i1_derivatives_are_one_half_at_nan_and_tiny_inputs(name, grads):
    x = ng.tensor([float("nan"), 0.0, 1e-17, 1.0], dtype=ng.float64, requires_grad=True)
    g, = ng.autograd.grad(getattr(ng.special, name)(x).sum(), x)
    assert np.allclose(g.tolist(), grads, rtol=1e-12)


# ---- softmax of a 0-d tensor --------------------------------------------------------------------
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_of_a_0d_tensor_is_one_node_and_checks_its_dim(name):
    x = ng.tensor(1., requires_grad=True)
    y = getattr(ng, name)(x, -1)
    # torch 2.13: SoftmaxBackward0 / LogSoftmaxBackward0 straight on the leaf, dim shown as given
    assert y.grad_fn.name() == name.title().replace("_", "") + "Backward0"
    assert y.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    assert y.shape == () and y.item() == (1.0 if name == "softmax" else 0.0)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                                         r"\[-1, 0\], but got 1\)"):
        getattr(ng, name)(x, 1)


# ---- expand needs its sizes ---------------------------------------------------------------------
def test_expand_without_sizes_is_a_type_error():
    # torch 2.13: TypeError: expand() missing 1 required positional arguments: "size"
    for x in (ng.tensor(1.), ng.ones(2)):
        with pytest.raises(TypeError, match=r'expand\(\) missing 1 required positional arguments: '
                                            r'"size"'):
            x.expand()
    assert ng.tensor(1.).expand(()).shape == () and ng.tensor(1.).expand([]).shape == ()
    assert ng.ones(1).expand(size=(2,)).tolist() == [1., 1.]


# ---- cat refuses a 0-d tensor wherever it is ----------------------------------------------------
@pytest.mark.parametrize("make, position", [               # torch 2.13's positions
    (lambda: [ng.tensor([1.]), ng.tensor(2.)], 1),
    (lambda: [ng.tensor([1.]), ng.tensor([[1.]]), ng.tensor(2.)], 2),
    (lambda: [ng.tensor([]), ng.tensor(2.)], 1),
    (lambda: [ng.tensor(2.), ng.tensor([])], 0),
])
def test_cat_names_the_0d_tensors_position(make, position):
    with pytest.raises(RuntimeError, match=fr"^zero-dimensional tensor \(at position {position}\) "
                                           r"cannot be concatenated$"):
        ng.cat(make())


# ---- topk's picks among ties --------------------------------------------------------------------
@pytest.mark.parametrize("values, k, largest, sorted_, indices", [     # torch 2.13's indices
    ([1., 2., 2., 0., 2.], 2, True, True, [2, 4]),
    ([0., 0., 2., 1.5], 2, False, True, [1, 0]),
    ([1.] * 4, 1, True, True, [2]),
    ([1.] * 8, 3, True, True, [6, 5, 4]),
    ([1.] * 200, 3, True, True, [0, 1, 2]),                 # std::partial_sort: k * 64 <= n
    ([3., 1., 2., 5., 4.], 3, True, False, [4, 3, 0]),      # unsorted: nth_element's order
    ([1., float("nan"), 1., float("nan")], 2, True, True, [1, 3]),
    ([2, 1, 2, 1, 2], 2, False, True, [1, 3]),
])
def test_topk_picks_torchs_ties(values, k, largest, sorted_, indices):
    assert ng.tensor(values).topk(k, largest=largest, sorted=sorted_).indices.tolist() == indices


def test_topk_ties_along_a_dim_send_the_gradient_to_torchs_picks():
    x = ng.tensor([[1., 2., 2., 0., 2.], [0., 1., 2., 3., 4.]], requires_grad=True)
    values, indices = x.topk(2, dim=1)
    assert indices.tolist() == [[2, 4], [4, 3]]              # torch 2.13
    values.sum().backward()
    assert x.grad.tolist() == [[0., 0., 1., 0., 1.], [0., 0., 0., 1., 1.]]


# ---- var_mean's mean is Welford's ---------------------------------------------------------------
@pytest.mark.parametrize("row, expected", [            # torch 2.13's mean
    ([0.5, -math.inf, 2.], math.nan),
    ([1., 2., math.inf], math.inf),                    # the only infinity, last: it stays
    ([math.inf, 1.], math.nan),
    ([math.inf, math.inf], math.nan),
    ([-math.inf], -math.inf),
])
@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
def test_var_mean_mean_with_infinities(name, row, expected):
    x = ng.tensor([row], dtype=ng.float64, requires_grad=True)
    _, m = getattr(ng, name)(x, 1)
    assert np.array_equal(m.tolist(), [expected], equal_nan=True)
    assert m.grad_fn.name() == ("VarMeanBackward0" if name == "var_mean" else "StdMeanBackward0")
    m.sum().backward()
    assert np.allclose(x.grad.tolist(), [[1 / len(row)] * len(row)])   # torch's g / N


def test_var_mean_mean_over_several_dims_takes_the_groups_last_element():
    x = ng.ones(2, 3, 4)
    x[1, 2, 3] = math.inf
    assert ng.var_mean(x, (1, 2))[1].tolist() == [1.0, math.inf]     # torch 2.13
    x = ng.ones(2, 3, 4)
    x[1, 0, 3] = math.inf
    assert np.array_equal(ng.var_mean(x, (1, 2))[1].tolist(), [1.0, math.nan], equal_nan=True)


# ---- logcumsumexp differentiates with torch's formula -------------------------------------------
def test_logcumsumexp_gradient_ignores_a_nan_upstream_gradient():
    x = ng.tensor([[1.], [2.]], requires_grad=True)
    g, = ng.autograd.grad(ng.logcumsumexp(x, 0), x, ng.tensor([[math.nan], [1.]]))
    assert np.allclose(g.tolist(), [[0.26894140243530273], [0.7310585379600525]])   # torch 2.13


def test_logcumsumexp_gradient_at_extremes():
    nan, inf = math.nan, math.inf
    x = ng.tensor([[1., 1e300], [2., 0.5], [inf, -1e300]], dtype=ng.float64, requires_grad=True)
    g, = ng.autograd.grad(ng.logcumsumexp(x, 0), x,
                          ng.tensor([[nan, 1.], [1., -2.], [0.5, inf]], dtype=ng.float64))
    # torch 2.13
    assert np.allclose(g.tolist(), [[0.26894142136999505, inf], [0.7310585786300048, inf],
                                    [nan, inf]], equal_nan=True, rtol=1e-12)


def test_logcumsumexp_keeps_its_node_and_second_derivative():
    x = ng.tensor([[1., 2.], [3., 4.]], dtype=ng.float64, requires_grad=True)
    y = ng.logcumsumexp(x, 0)
    assert y.grad_fn.name() == "LogcumsumexpBackward0" and y.grad_fn._saved_dim == 0
    assert y.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    assert ng.autograd.gradgradcheck(lambda t: ng.logcumsumexp(t, 1), (x,))
