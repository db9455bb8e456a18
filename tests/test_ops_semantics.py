"""What the op table cannot see: torch's node names and edges, multi-output nodes, return types,
dtype promotion, error messages, and gradients at the awkward points (zeros, ties) compared with
values torch 2.x gives."""
import math
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import numgrad as ng


def leaf(data, dtype=ng.float64):
    return ng.tensor(data, dtype=dtype, requires_grad=True)


def name(t):
    return t.grad_fn.name()


# ---- node names, as torch prints them -----------------------------------------------------------
def test_node_names_match_torch():
    x = leaf(np.arange(12.0).reshape(3, 4) + 1)
    v = leaf([1.0, 2.0, 3.0, 4.0])
    cases = {
        "ProdBackward0": x.prod(), "ProdBackward1": x.prod(1), "AmaxBackward0": x.amax(1),
        "AminBackward0": x.amin(), "MaxBackward1": x.max(), "MaxBackward0": x.max(1).values,
        "MinBackward1": x.min(), "MinBackward0": x.min(0)[0], "VarBackward0": x.var(1),
        "StdBackward0": x.std(), "LogsumexpBackward0": x.logsumexp(1),
        "LinalgVectorNormBackward0": x.norm(p=1), "CumsumBackward0": x.cumsum(1),
        "CumprodBackward0": x.cumprod(0), "SplitBackward0": x.split(2, 1)[0],
        "SplitWithSizesBackward0": x.split([1, 3], 1)[1], "UnbindBackward0": x.unbind(0)[2],
        "FlipBackward0": x.flip(0), "RepeatBackward0": x.repeat(2, 1),
        "ConstantPadNdBackward0": ng.pad(x, (1, 2)), "SortBackward0": x.sort().values,
        "TopkBackward0": x.topk(2).values, "DotBackward0": ng.dot(v, v), "MvBackward0": x @ v,
        "GatherBackward0": x.gather(0, ng.tensor([[0, 1, 2, 0]])),
        "IndexSelectBackward0": x.index_select(1, ng.tensor([0])),
        "ScatterAddBackward0": x.scatter_add(0, ng.tensor([[0, 1, 2, 0]]), x[:1] * 0 + 1),
        "IndexAddBackward0": x.index_add(0, ng.tensor([1]), x[:1] * 0 + 1),
        "MaskedFillBackward0": x.masked_fill(x > 2, 0.0), "SelectBackward0": x[1],
        "SliceBackward0": x[1:], "TBackward0": x.t(), "SqueezeBackward1": x[None].squeeze(0),
        "RsubBackward1": 1 - x, "PowBackward2": 2 ** x, "SignBackward0": x.sign(),
        "ClampBackward0": x.clamp(min=v), "ClampBackward1": x.clamp(min=0.5),
    }
    assert {k: name(t) for k, t in cases.items()} == {k: k for k in cases}


@pytest.mark.parametrize("expr, want", [
    # indexing is named after the step torch applies last (a full slice in a tuple is skipped)
    (lambda x: x[..., 0], "SelectBackward0"), (lambda x: x[1:3, 1], "SelectBackward0"),
    (lambda x: x[0, :], "SelectBackward0"), (lambda x: x[0, 1:], "SliceBackward0"),
    (lambda x: x[:], "SliceBackward0"), (lambda x: x[:, :3], "SliceBackward0"),
    (lambda x: x[None], "UnsqueezeBackward0"), (lambda x: x[:, None], "UnsqueezeBackward0"),
    (lambda x: x[1:, None], "UnsqueezeBackward0"), (lambda x: x[None, 1:], "SliceBackward0"),
    (lambda x: x[None, 0], "SelectBackward0"), (lambda x: x[[0, 2]], "IndexBackward0"),
    (lambda x: x[x > 3], "IndexBackward0"),
    # reshape copies where strides allow no view, as torch's _unsafe_view
    (lambda x: x.reshape(4, 3), "ViewBackward0"), (lambda x: x.t().reshape(12), "UnsafeViewBackward0"),
    (lambda x: x[:, 1:3].reshape(6), "UnsafeViewBackward0"),
    (lambda x: x[:, 1:3].view(3, 2, 1), "ViewBackward0"), (lambda x: x.t().flatten(), "UnsafeViewBackward0"),
    # matmul's forms
    (lambda x: x @ ng.ones(4, 2, dtype=ng.float64), "MmBackward0"),
    (lambda x: x.expand(2, 3, 4) @ ng.ones(4, 2, dtype=ng.float64), "UnsafeViewBackward0"),
    (lambda x: x.expand(2, 3, 4) @ ng.ones(4, dtype=ng.float64), "UnsafeViewBackward0"),
    (lambda x: ng.bmm(x.expand(2, 3, 4), ng.ones(2, 4, 1, dtype=ng.float64)), "BmmBackward0"),
    # arithmetic and nn
    (lambda x: 2 / x, "MulBackward0"), (lambda x: x / 2, "DivBackward0"),
    # floor_divide has no derivative in torch (a NotImplemented node), div's rounding modes do
    (lambda x: x // 2, "torch::autograd::NotImplemented"),
    (lambda x: x.div(2, rounding_mode="floor"), "DivBackward2"),
    (lambda x: x.div(x, rounding_mode="trunc"), "DivBackward2"),
    (lambda x: x % x, "RemainderBackward1"), (lambda x: x % 2, "RemainderBackward0"),
    (lambda x: x.fmod(x), "FmodBackward1"), (lambda x: x.fmod(2.0), "FmodBackward0"),
    (lambda x: ng.nn.functional.leaky_relu(x), "LeakyReluBackward0"),
    (lambda x: ng.nn.functional.cross_entropy(x, ng.tensor([0, 1, 3])), "NllLossBackward0"),
    (lambda x: ng.nn.functional.binary_cross_entropy(x.sigmoid(), ng.zeros(3, 4, dtype=ng.float64),
                                                     reduction="none"),
     "BinaryCrossEntropyBackward0"),
])
def test_more_node_names_match_torch(expr, want):
    assert name(expr(leaf(np.arange(12.0).reshape(3, 4) + 1))) == want


def test_flatten_of_one_dim_is_the_tensor_itself():
    x = leaf(np.ones((2, 3)))
    assert x.flatten(1) is x and x.flatten(0, 0) is x


def test_indexing_that_unsqueezes_is_still_a_view():
    x = ng.tensor(np.arange(12.0).reshape(3, 4))
    x[::2, None][1, 0, 3] = 100.0
    assert x[2, 3].item() == 100.0
    y = leaf(np.arange(12.0).reshape(3, 4))
    y[1:, None, 2].sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [[0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 1, 0]])


def test_rounded_division_remainder_and_fmod_as_torch():
    x = leaf([5.5, -3.2, 7.0, -7.5, -0.0, 6.0, 1.0])
    y = leaf([2.0, 1.5, -2.5, -2.0, 3.0, -3.0, 0.1])
    # values torch 2.x gives (1 // 0.1 is 9: floor rounds from fmod, as Python; trunc gives 10)
    np.testing.assert_array_equal((x // y).detach().numpy(), [2, -3, -3, 3, -0.0, -2, 9])
    np.testing.assert_array_equal(ng.div(x, y, rounding_mode="trunc").detach().numpy(),
                                  [2, -2, -2, 3, -0.0, -2, 10])
    rem = x % y
    assert np.signbit(rem.detach().numpy()[4])         # -0.0 % 3 is -0.0 in torch
    np.testing.assert_allclose(rem.detach().numpy(), [1.5, 1.3, -0.5, -1.5, 0, 0, 0.1],
                               atol=1e-12)
    np.testing.assert_allclose(x.fmod(y).detach().numpy(), [1.5, -0.2, 2, -1.5, 0, 0, 0.1],
                               atol=1e-12)
    # derivatives: zero for div's rounded division (torch's floor_divide has none: it raises);
    # 1 and -floor(x / y) (or -trunc) for remainder, fmod
    gx, gy = ng.autograd.grad(ng.div(x, y, rounding_mode="floor").sum(), (x, y))
    assert not gx.numpy().any() and not gy.numpy().any()
    with pytest.raises(RuntimeError, match="^derivative for aten::floor_divide is not "):
        ng.autograd.grad((x // y).sum(), (x, y))
    gx, gy = ng.autograd.grad(rem.sum(), (x, y))
    np.testing.assert_array_equal(gx.numpy(), np.ones(7))
    np.testing.assert_array_equal(gy.numpy(), [-2, 3, 3, -3, 0, 2, -9])
    gy = ng.autograd.grad(x.fmod(y).sum(), y)[0]
    np.testing.assert_array_equal(gy.numpy(), [-2, 2, 2, -3, 0, 2, -10])


def test_integer_rounded_division_and_remainder():
    i, j = ng.tensor([5, -3, 7, -7]), ng.tensor([2, 2, -2, 3])
    assert (i // j).tolist() == [2, -2, -4, -3] and (i // j).dtype == ng.int64
    assert ng.div(i, j, rounding_mode="trunc").tolist() == [2, -1, -3, -2]
    assert (i % j).tolist() == [1, 1, -1, 2] and i.fmod(j).tolist() == [1, -1, 1, -1]
    assert (i // 2.5).dtype == ng.float32 and (7 // i).tolist() == [1, -3, 1, -1]
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        i // ng.tensor([0, 1, 1, 1])


def test_in_place_rounded_division_and_remainder():
    x = leaf([5.5, -3.0]).clone()
    x //= 2     # torch 2.13: floor_divide_ has no derivative either
    assert name(x) == "torch::autograd::NotImplemented" and x.tolist() == [2.0, -2.0]
    y = leaf([5.5, -3.0]).clone()
    y %= 2
    assert name(y) == "RemainderBackward0" and y.tolist() == [1.5, 1.0]


def test_pieces_are_one_node_and_edges_carry_the_output_index():
    x = leaf(np.ones((2, 6)))
    pieces = x.split(2, 1)
    nodes = [p.grad_fn for p in pieces]            # held: the same node object while referenced
    assert all(node is nodes[0] for node in nodes)
    y = pieces[2] * 2
    node, input_nr = y.grad_fn.next_functions[0]
    assert node.name() == "SplitBackward0" and input_nr == 2
    z = x.unbind(0)[1] * 3
    assert z.grad_fn.next_functions[0][1] == 1


def test_unused_pieces_get_zero_gradient():
    x = leaf(np.arange(6.0).reshape(2, 3))
    a, b, c = x.unbind(1)
    (b * 5).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 5, 0], [0, 5, 0]])


# ---- (values, indices) ----------------------------------------------------------------------------
def test_max_with_dim_returns_values_and_indices():
    w = leaf([[1.0, 5, 2], [7, 0, 3]])
    result = w.max(1)
    values, indices = result
    assert result.values is values and result.indices is indices
    assert indices.dtype == ng.int64 and not indices.requires_grad
    assert indices.tolist() == [1, 0]
    assert repr(result).startswith("numgrad.return_types.max(\nvalues=tensor([5., 7.]")
    assert isinstance(result, ng.return_types.max)
    (values * ng.tensor([1.0, 10.0], dtype=ng.float64)).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[0, 1, 0], [10, 0, 0]])


def test_ties_pick_the_first_index_like_torch():
    x = ng.tensor([[1.0, 3, 3, 0], [2, 2, 2, 2]])
    assert x.max(1).indices.tolist() == [1, 0]
    assert x.min(1).indices.tolist() == [3, 0]
    assert x.argmax(1).tolist() == [1, 0]
    assert x.sort(1).indices.tolist() == [[3, 0, 1, 2], [0, 1, 2, 3]]
    assert x.sort(1, descending=True).indices.tolist() == [[1, 2, 0, 3], [0, 1, 2, 3]]
    assert ng.argsort(x, 1, descending=True).tolist() == [[1, 2, 0, 3], [0, 1, 2, 3]]


def test_nan_is_the_largest_value():
    a = ng.tensor([1.0, math.nan, 3.0, 3.0, -math.inf])
    assert a.sort(descending=True).indices.tolist() == [1, 2, 3, 0, 4]
    assert a.argsort().tolist() == [4, 0, 2, 3, 1]
    assert a.topk(2).indices.tolist() == [1, 2]
    assert math.isnan(a.max().item()) and a.max(0).indices.item() == 1


def test_ties_share_the_gradient_evenly_without_an_index():
    x = leaf([[1.0, 3, 3, 0], [2, 2, 2, 2]])
    x.amax(1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.5, 0.5, 0], [0.25] * 4])
    y = leaf([[1.0, -3, 3, 0], [2, 2, -2, 2]])
    y.norm(p=math.inf, dim=1).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [[0, -0.5, 0.5, 0], [0.25, 0.25, -0.25, 0.25]])


def test_sort_gradient_follows_the_permutation():
    z = leaf([3.0, 1, 2])
    s = z.sort()
    assert s.indices.tolist() == [1, 2, 0]
    (s.values * ng.tensor([1.0, 10, 100], dtype=ng.float64)).sum().backward()
    np.testing.assert_array_equal(z.grad.numpy(), [100, 1, 10])


def test_changing_saved_indices_in_place_is_caught():
    x = leaf([[1.0, 5, 2]])
    values, indices = x.max(1)
    indices.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        values.sum().backward()


# ---- gradients at zeros, torch's values ----------------------------------------------------------
def test_prod_and_cumprod_with_zeros():
    p = leaf([[2.0, 0, 3], [0, 0, 1], [1, 2, 3]])
    p.prod(1).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), [[0, 6, 0], [0, 0, 0], [6, 3, 2]])
    p.grad = None
    p.cumprod(1).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), [[1, 8, 0], [1, 0, 0], [9, 4, 2]])


def test_norm_and_std_are_zero_where_the_result_is_zero():
    z = leaf([0.0, 0.0, 0.0])
    z.norm().backward()
    np.testing.assert_array_equal(z.grad.numpy(), [0, 0, 0])
    z.grad = None
    z.std().backward()
    np.testing.assert_array_equal(z.grad.numpy(), [0, 0, 0])


def test_second_derivative_of_prod_through_a_zero():
    x = leaf([0.0, 2.0, 3.0])
    (g,) = ng.autograd.grad(x.prod(), [x], create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [6, 0, 0])
    (h,) = ng.autograd.grad(g[0], [x])
    np.testing.assert_array_equal(h.numpy(), [0, 3, 2])


def test_var_signatures():
    y = ng.tensor([[1.0, 2, 3], [4, 5, 6]])
    np.testing.assert_allclose(y.var(1).numpy(), [1, 1])
    np.testing.assert_allclose(y.var(1, unbiased=False).numpy(), [2 / 3, 2 / 3])
    np.testing.assert_allclose(ng.var(y, 1, True, True).numpy(), [[1], [1]])
    np.testing.assert_allclose(y.std(1, correction=0).numpy(), [0.8164966] * 2, rtol=1e-6)
    assert y.var(False).shape == ()
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        assert math.isnan(ng.tensor([1.0]).var().item())


def test_logsumexp_does_not_overflow():
    assert ng.tensor([[0.0, 1000.0]]).logsumexp(1).tolist() == [1000.0]
    assert ng.tensor([-math.inf, -math.inf]).logsumexp(0).item() == -math.inf


# ---- dtypes -------------------------------------------------------------------------------------
@pytest.mark.parametrize("a, b, want", [
    (ng.ones(3), ng.ones(3, dtype=ng.float64), ng.float64),
    (ng.ones(3), ng.tensor(1.0, dtype=ng.float64), ng.float32),       # 0-d: like a scalar
    (ng.ones(3, dtype=ng.int32), ng.tensor(1.0, dtype=ng.float64), ng.float64),
    (ng.ones(3, dtype=ng.int32), ng.tensor(2), ng.int32),
    (ng.ones(3, dtype=ng.int64), ng.ones(3), ng.float32),
    (ng.ones(3), 2.5, ng.float32),
    (ng.ones(3, dtype=ng.float64), 2.5, ng.float64),
    (ng.ones(3, dtype=ng.int64), 2.5, ng.float32),
    (ng.ones(3, dtype=ng.int32), 2, ng.int32),
    (ng.ones(3, dtype=ng.bool), 1, ng.int64),
])
def test_promotion_follows_torch(a, b, want):
    assert (a * b).dtype == want
    assert (b * a).dtype == want


def test_gradients_flow_through_promotions():
    x = leaf(np.ones(3), ng.float32)
    y = leaf(2.0)
    (x * y).sum().backward()
    assert x.grad.dtype == ng.float32 and y.grad.dtype == ng.float64
    np.testing.assert_array_equal(x.grad.numpy(), [2, 2, 2])
    assert y.grad.item() == 3.0


def test_changing_a_promoted_operand_in_place_is_caught_at_backward():
    """torch promotes inside the op and saves the float32 tensor itself, so changing it after the
    op is a version error, as when no promotion happens."""
    x = leaf(0.5, ng.float32)
    y = leaf(0.25)                                  # float64
    h = x * 1.0
    z = ng.maximum(h, y)                            # h promoted to float64 and saved
    h.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()


def test_inplace_op_that_computes_in_a_wider_dtype_keeps_gradients_right():
    """float32 t.add_(float64 y) computes in float64 and writes float32: the gradients reaching
    t come in float32, and must reach both leaves (they were uninitialised memory once)."""
    for shape in ((), (3,)):
        x = ng.full(shape, 0.68, requires_grad=True)
        y = ng.full(shape, -0.7, dtype=ng.float64, requires_grad=True)
        t = x.clone()
        t.add_(y)
        assert t.dtype == ng.float32
        (t * 0.5).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.full(shape, 0.5, np.float32))
        np.testing.assert_array_equal(y.grad.numpy(), np.full(shape, 0.5))
        assert y.grad.dtype == ng.float64


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_atan2_gradient_at_the_origin_is_zero(dtype):
    """torch masks 1 / (x^2 + y^2) to 0 where it is inf (atan2_backward): no nan at (0, 0)."""
    x = ng.tensor([0.0, -0.0, 1.0], dtype=dtype, requires_grad=True)
    y = ng.tensor([0.0, 0.0, -2.0], dtype=dtype, requires_grad=True)
    ng.atan2(x, y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0, -0.4], rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), [0.0, 0.0, -0.2], rtol=1e-6)
    assert np.signbit(y.grad.numpy()[0])            # -x * 0 with x = +0: torch's -0.


def test_integer_inputs():
    i = ng.tensor([[1, 2], [3, 4]])
    assert i.prod().item() == 24 and i.prod().dtype == ng.int64
    assert i.cumsum(1).tolist() == [[1, 3], [3, 7]]
    assert i.max().item() == 4 and i.amax(0).tolist() == [3, 4]
    assert i.clamp(0.5, 3.5).dtype == ng.float32
    assert i.flip(0).tolist() == [[3, 4], [1, 2]]
    assert ng.logsumexp(i, 1).dtype == ng.float32
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        i.var()


# ---- shapes and results -----------------------------------------------------------------------------
def test_split_chunk_unbind_shapes():
    x = ng.arange(10.0).reshape(2, 5)
    assert [p.shape for p in x.split(2, 1)] == [(2, 2), (2, 2), (2, 1)]
    assert [p.shape for p in x.chunk(3, 1)] == [(2, 2), (2, 2), (2, 1)]
    assert [p.shape for p in ng.chunk(ng.ones(5), 4)] == [(2,), (2,), (1,)]
    assert [p.shape for p in x.unbind(1)] == [(2,)] * 5
    assert len(list(x)) == 2


def test_einsum_forms():
    a, b = ng.randn(2, 3, 4), ng.randn(2, 4, 5)
    np.testing.assert_allclose(ng.einsum("bij,bjk->bik", a, b).numpy(),
                               np.einsum("bij,bjk->bik", a.numpy(), b.numpy()), rtol=1e-5)
    np.testing.assert_allclose(ng.einsum("bij,bjk", a, b).numpy(),
                               np.einsum("bij,bjk", a.numpy(), b.numpy()), rtol=1e-5)
    m = ng.randn(3, 3)
    np.testing.assert_allclose(ng.einsum("ii", m).numpy(), np.trace(m.numpy()), rtol=1e-5)
    np.testing.assert_allclose(ng.einsum("...ij->...ji", a).numpy(),
                               a.numpy().transpose(0, 2, 1))
    np.testing.assert_allclose(ng.einsum(" i j , j k -> i k ", [m, m]).numpy(),
                               m.numpy() @ m.numpy(), rtol=1e-5)


def test_pad_is_shared_with_nn():
    from numgrad.ops.shape import pad
    assert ng.pad is pad
    x = leaf(np.arange(6.0).reshape(2, 3))
    (ng.pad(x, (1, 1)) * ng.arange(10.0, dtype=ng.float64).reshape(2, 5)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1, 2, 3], [6, 7, 8]])


def test_repeat_gradient_sums_the_copies():
    x = leaf(np.arange(6.0).reshape(2, 3))
    (x.repeat(2, 2) * ng.arange(24.0, dtype=ng.float64).reshape(4, 6)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[30, 34, 38], [54, 58, 62]])


def test_zero_dim_inputs():
    c = leaf(3.0)
    assert c.max(0).values.item() == 3.0 and c.max(0).indices.item() == 0
    assert c.cumsum(0).item() == 3.0 and c.flip(0).item() == 3.0
    assert c.sort().values.item() == 3.0 and c.topk(1).values.item() == 3.0
    assert c.logsumexp(0).item() == 3.0 and c.prod(0).item() == 3.0 and c.amax(0).item() == 3.0


# ---- torch's error messages -------------------------------------------------------------------------
X = ng.ones(3, 4)


@pytest.mark.parametrize("call, error, message", [
    (lambda: X.sum(2), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: X.amax((0, 0)), RuntimeError, "dim 0 appears multiple times in the list of dims"),
    (lambda: X.flip(0, 0), RuntimeError, "dim 0 appears multiple times in the list of dims"),
    (lambda: X.split(0, 1), RuntimeError, "split_size can only be 0 if dimension size is 0, but got dimension size of 4"),
    (lambda: X.split([1, 2], 1), RuntimeError, "split_with_sizes expects split_sizes to sum exactly to 4 (input tensor's size at dimension 1), but got split_sizes=[1, 2]"),
    (lambda: X.chunk(0), RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0"),
    (lambda: X.repeat(2), RuntimeError, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"),
    (lambda: ng.pad(X, (1, 2, 3)), RuntimeError, "Padding length must be divisible by 2"),
    (lambda: ng.pad(X, (1, 2) * 3), RuntimeError, "Padding length should be less than or equal to two times the input dimension but got padding length 6 and input of dimension 2"),
    (lambda: X.topk(5), RuntimeError, "selected index k out of range"),
    (lambda: ng.ones(0).max(), RuntimeError, "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."),
    (lambda: ng.ones(0, 3).max(0), IndexError, "max(): Expected reduction dim 0 to have non-zero size."),
    (lambda: ng.ones(0, 3).argmax(), IndexError, "argmax(): Expected reduction dim to be specified for input.numel() == 0."),
    (lambda: ng.einsum("ij,jk->ik", X, X), RuntimeError, "einsum(): subscript j has size 3 for operand 1 which does not broadcast with previously seen size 4"),
    (lambda: ng.einsum("ij,jk->ik", X), RuntimeError, "einsum(): fewer operands were provided than specified in the equation"),
    (lambda: ng.einsum("ij->iz", X), RuntimeError, "einsum(): output subscript z does not appear in the equation for any input operand"),
    (lambda: ng.einsum("ijk->i", X), RuntimeError, "einsum(): the number of subscripts in the equation (3) does not match the number of dimensions (2) for operand 0 and no ellipsis was given"),
    (lambda: ng.stack([X, X[:2]]), RuntimeError, "stack expects each tensor to be equal size, but got [3, 4] at entry 0 and [2, 4] at entry 1"),
    (lambda: ng.cat([X, ng.ones(2, 3)]), RuntimeError, "Sizes of tensors must match except in dimension 0. Expected size 4 but got size 3 for tensor number 1 in the list."),
    (lambda: X.mm(X), RuntimeError, "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x4)"),
    (lambda: X @ ng.ones(3), RuntimeError, "size mismatch, got input (3), mat (3x4), vec (3)"),
    (lambda: ng.dot(ng.ones(3), ng.ones(4)), RuntimeError, "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 elements respectively"),
    (lambda: X.expand(3, 5), RuntimeError, "The expanded size of the tensor (5) must match the existing size (4) at non-singleton dimension 1.  Target sizes: [3, 5].  Tensor sizes: [3, 4]"),
    (lambda: X.expand(-1, 3, 4), RuntimeError, "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"),
    (lambda: X.permute(0, 0), RuntimeError, "permute(): duplicate dims are not allowed."),
    (lambda: ng.div(X, 2, rounding_mode="round"), RuntimeError, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'"),
    (lambda: X.gather(0, ng.tensor([[5]])), RuntimeError, "index 5 is out of bounds for dimension 0 with size 3"),
    (lambda: X.t().view(12), RuntimeError, "view size is not compatible with input tensor's size and stride"),
])
def test_errors_match_torch(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


NAN, INF = float("nan"), float("inf")
# Where a derivative is zero by a mask (or everywhere), torch gives zero even for an infinite or nan
# upstream gradient (where(mask, g, 0), not g * 0). Each: the function of x = [-1, 2], and x's
# gradient for the upstream gradient [nan, inf].
MASKED_ZERO_CASES = {
    "relu": (lambda x: x.relu(), [0.0, INF]),
    "maximum": (lambda x: ng.maximum(x, ng.zeros(2, dtype=x.dtype)), [0.0, INF]),
    "clamp": (lambda x: x.clamp(-0.5, 1.0), [0.0, 0.0]),
    "where": (lambda x: ng.where(x > 0, x, 0.0), [0.0, INF]),
    "power 0": (lambda x: x ** 0, [0.0, 0.0]),
    "tensor power 0": (lambda x: x ** ng.zeros(2, dtype=x.dtype), [0.0, 0.0]),
    "floor division": (lambda x: ng.div(x, 2, rounding_mode="floor"), [0.0, 0.0]),
    "zero_": (lambda x: (x * 1).zero_(), [0.0, 0.0]),
}


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
@pytest.mark.parametrize("create_graph", [False, True], ids=["kernel", "vjp"])
@pytest.mark.parametrize("name", MASKED_ZERO_CASES)
def test_a_masked_zero_derivative_stops_inf_and_nan_as_torch(name, create_graph, dtype):
    fn, expected = MASKED_ZERO_CASES[name]
    x = ng.tensor([-1.0, 2.0], dtype=dtype, requires_grad=True)
    (grad,) = ng.autograd.grad(fn(x), x, ng.tensor([NAN, INF], dtype=dtype),
                               create_graph=create_graph)
    assert grad.dtype == dtype
    np.testing.assert_array_equal(grad.detach().numpy(), expected)


def test_operators_with_what_is_not_a_tensor_number_or_array_follow_python_as_torch():
    x = ng.tensor([1.0, 2.0])
    # comparisons are not elementwise: == is identity, ordering raises
    assert (x == None) is False and (x != "a") is True and (x == [1.0, 2.0]) is False  # noqa: E711
    assert x in [x] and None != x  # noqa: E711
    with pytest.raises(TypeError, match="'<' not supported between instances of 'Tensor' and 'str'"):
        x < "a"
    for other in (None, "a", object(), [1.0, 2.0], (1.0, 2.0)):
        with pytest.raises(TypeError, match="unsupported operand type"):
            x + other
        with pytest.raises(TypeError, match="unsupported operand type"):
            x * other
        # torch's maximum has no Scalar overload: its binding refuses any non-Tensor
        with pytest.raises(TypeError, match=r"maximum\(\): argument 'other' \(position 2\) "
                                            r"must be Tensor, not"):
            ng.maximum(x, other)
    for other in (None, "a", object()):
        with pytest.raises(TypeError, match="unsupported operand type"):
            other * x
    with pytest.raises(TypeError):          # torch takes no list for a tensor operand
        ng.eq(x, [1.0, 3.0])
    # numbers, arrays and tensors are elementwise
    np.testing.assert_array_equal((x == 2).numpy(), [False, True])
    np.testing.assert_array_equal((x == np.array([1.0, 3.0])).numpy(), [True, False])


def test_bitwise_operators_are_bitwise_on_integers_logical_on_bools_and_refused_on_floats():
    i, b = ng.tensor([3, -2]), ng.tensor([True, False])
    np.testing.assert_array_equal((i & ng.tensor([1, 6])).numpy(), [1, 6])
    np.testing.assert_array_equal((i | 4).numpy(), [7, -2])
    np.testing.assert_array_equal((5 ^ i).numpy(), [6, -5])
    np.testing.assert_array_equal((~i).numpy(), [-4, 1])
    assert (i & True).dtype == ng.int64 and (True & b).dtype == ng.bool
    np.testing.assert_array_equal((b ^ ng.tensor([True, True])).numpy(), [False, True])
    np.testing.assert_array_equal((~b).numpy(), [False, True])
    with pytest.raises(NotImplementedError, match="\"bitwise_and_cpu\" not implemented for 'Float'"):
        ng.tensor([1.5]) & ng.tensor([2.5])
    with pytest.raises(TypeError, match="only implemented on integer and Boolean-type tensors"):
        ~ng.tensor([1.5])


def test_integer_powers_and_bool_arithmetic_as_torch():
    np.testing.assert_array_equal((ng.tensor([1, -1, -1, 2, 0]) ** ng.tensor([-3, -3, -2, -1, 2])).numpy(),
                                  [1, -1, 1, 0, 0])
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        ng.tensor([2, 3]) ** -1
    b = ng.tensor([True, False])
    assert (b ** True).dtype == ng.bool and (b ** 2).dtype == ng.int64
    with pytest.raises(NotImplementedError, match="\"pow\" not implemented for 'Bool'"):
        b ** b
    with pytest.raises(RuntimeError, match="with two bool tensors is not supported"):
        b - b
    for other in (1, 2.5, ng.tensor([1.0, 2.0])):
        with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
            b - other
        with pytest.raises(RuntimeError, match="with a bool tensor is not supported"):
            other - b
    with pytest.raises(NotImplementedError, match="\"remainder_cpu\" not implemented for 'Bool'"):
        b % b
    with pytest.raises(NotImplementedError, match="\"div_floor_cpu\" not implemented for 'Bool'"):
        b // b
    with pytest.raises(NotImplementedError, match="\"abs_cpu\" not implemented for 'Bool'"):
        b.abs()
    with pytest.raises(RuntimeError, match="argmax\\(\\): does not support bool input"):
        b.argmax()
    np.testing.assert_array_equal(b.sign().numpy(), [True, False])


def test_negative_zero_scalar_keeps_its_sign():
    # constants are shared between ops, and 0.0 == -0.0 as a dictionary key
    x = ng.tensor([1.0, -2.0])
    assert np.signbit((x * 0.0).numpy()).tolist() == [False, True]
    assert np.signbit((x * -0.0).numpy()).tolist() == [True, False]
    assert np.signbit((x * 0.0).numpy()).tolist() == [False, True]


def test_inf_and_nan_results_are_silent_as_in_torch():
    # run as a script would, with warnings as errors: NumPy's RuntimeWarnings from numgrad's own
    # forwards are filtered, the user's own NumPy calls still warn
    script = ("import numpy as np, numgrad as ng\n"
              "x = ng.tensor([0.0, 1.0, -1.0])\n"
              "print((ng.log(x) + x / 0.0 + ng.sqrt(x)).isnan().sum().item())\n"
              "try:\n"
              "    np.log(np.zeros(1))\n"
              "except RuntimeWarning:\n"
              "    print('numpy warns')\n")
    out = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", script],
                         capture_output=True, text=True, check=True).stdout
    assert out.split() == ["2", "numpy", "warns"]


# ---- gradients where an input is NaN, as torch 2.x gives them (CPU, float32 and float64) ------
_NAN = math.nan


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
@pytest.mark.parametrize("op, x, y, want_x, want_y", [
    # only a strictly beaten side gets 0: where a NaN is involved both sides get all of g
    ("maximum", [_NAN, 1.0, 2.0, _NAN, 3.0], [1.0, _NAN, 2.0, _NAN, 3.0],
     [1.0, 1.0, 0.5, 1.0, 0.5], [1.0, 1.0, 0.5, 1.0, 0.5]),
    ("minimum", [_NAN, 1.0, 2.0, _NAN, 3.0], [1.0, _NAN, 2.0, _NAN, 3.0],
     [1.0, 1.0, 0.5, 1.0, 0.5], [1.0, 1.0, 0.5, 1.0, 0.5]),
    ("maximum", [1.0, _NAN, 2.0], [1.0, _NAN, 3.0], [0.5, 1.0, 0.0], [0.5, 1.0, 1.0]),
    ("minimum", [1.0, _NAN, 2.0], [1.0, _NAN, 3.0], [0.5, 1.0, 1.0], [0.5, 1.0, 0.0]),
    # fmax/fmin: the side that is the result, x at ties and where both are NaN
    ("fmax", [_NAN, 1.0, 2.0, _NAN, 3.0], [1.0, _NAN, 2.0, _NAN, 3.0],
     [0.0, 1.0, 1.0, 1.0, 1.0], [1.0, 0.0, 0.0, 0.0, 0.0]),
    ("fmin", [_NAN, 1.0, 2.0, _NAN, 3.0], [1.0, _NAN, 2.0, _NAN, 3.0],
     [0.0, 1.0, 1.0, 1.0, 1.0], [1.0, 0.0, 0.0, 0.0, 0.0]),
    ("clamp_min", [_NAN, 1.0, 2.0, _NAN, 3.0], [1.0, _NAN, 2.0, _NAN, 3.0],
     [0.0, 0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0]),
])
def test_binary_gradients_at_nan_match_torch(op, x, y, want_x, want_y, dtype, create_graph):
    a, b = leaf(x, dtype), leaf(y, dtype)
    ga, gb = ng.autograd.grad(getattr(ng, op)(a, b).sum(), (a, b), create_graph=create_graph)
    assert ga.dtype == gb.dtype == dtype
    assert ga.tolist() == want_x and gb.tolist() == want_y


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_unary_gradients_at_nan_match_torch(dtype, create_graph):
    values = [_NAN, -1.0, 0.0, 2.0, -0.0]
    want = {
        "relu": [1.0, 0.0, 0.0, 1.0, 0.0],           # threshold_backward: NaN <= 0 is false
        "abs": [0.0, -1.0, 0.0, 1.0, 0.0],           # g * sgn(x), and sgn(NaN) = sgn(-0.0) = 0
        "clamp": [0.0, 0.0, 1.0, 0.0, 1.0],          # clamp(0, 1): NaN is not inside the bounds
    }
    for op, expected in want.items():
        x = leaf(values, dtype)
        f = (lambda t: t.clamp(0.0, 1.0)) if op == "clamp" else getattr(ng, op)
        (gx,) = ng.autograd.grad(f(x).sum(), (x,), create_graph=create_graph)
        assert gx.tolist() == expected, op
        zeros = gx.detach().numpy()[np.array(expected) == 0]
        assert not np.signbit(zeros).any(), op
    x = leaf(values, dtype)
    (gx,) = ng.autograd.grad(ng.maximum(x, x).sum(), (x,), create_graph=create_graph)
    assert gx.tolist() == [2.0, 1.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_sign_of_nan_and_negative_zero_is_zero_as_torch(dtype):
    x = ng.tensor([_NAN, -1.0, 0.0, 2.0, -0.0], dtype=dtype)
    for result in (x.sign(), x.sgn()):
        assert result.dtype == dtype
        assert result.tolist() == [0.0, -1.0, 0.0, 1.0, 0.0]
        assert not np.signbit(result.numpy()[[0, 2, 4]]).any()
    assert ng.tensor([-3, 0, 4]).sign().tolist() == [-1, 0, 1]


def test_nan_rules_leave_ordinary_gradients_right():
    x = leaf([0.3, -1.2, 2.0, 0.5, -0.7])
    y = leaf([0.1, -0.4, 2.5, 0.2, -0.9])
    for op in (ng.maximum, ng.minimum):
        assert ng.autograd.gradcheck(op, (x, y))
        assert ng.autograd.gradgradcheck(op, (x, y))
    for op in (ng.relu, ng.abs):
        assert ng.autograd.gradcheck(op, (x,))


# ---- matrix products never promote: torch's messages, per kernel --------------------------------
@pytest.mark.parametrize("fn, a, b, dtypes_, error, message", [
    (ng.matmul, (2, 3), (3, 2), ("float32", "float64"), RuntimeError,
     "expected m1 and m2 to have the same dtype, but got: float != double"),
    (ng.mm, (2, 3), (3, 2), ("int64", "float32"), RuntimeError,
     "expected m1 and m2 to have the same dtype, but got: long int != float"),
    (ng.matmul, (3,), (3, 2), ("int32", "int64"), RuntimeError,
     "expected m1 and m2 to have the same dtype, but got: int != long int"),
    (ng.matmul, (2, 2, 3), (3, 2), ("float64", "float32"), RuntimeError,
     "expected m1 and m2 to have the same dtype, but got: double != float"),
    (ng.dot, (3,), (3,), ("float32", "float64"), RuntimeError,
     "dot : expected both vectors to have same dtype, but found Float and Double"),
    (ng.matmul, (3,), (2,), ("bool", "float32"), RuntimeError,      # dtypes before sizes
     "dot : expected both vectors to have same dtype, but found Bool and Float"),
    (ng.mv, (2, 3), (3,), ("float32", "float64"), RuntimeError,
     "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    (ng.matmul, (2, 2, 3), (3,), ("float32", "int64"), RuntimeError,
     "addmv input tensors must have the same dtype, but got Long, Float, and Long"),
    (ng.bmm, (2, 2, 3), (2, 3, 2), ("float32", "float64"), RuntimeError,
     "expected scalar type Float but found Double"),
    (ng.matmul, (2, 3), (2, 3, 2), ("int64", "float32"), RuntimeError,
     "expected scalar type Long but found Float"),
    (ng.mm, (2, 3), (2, 2), ("float32", "float64"), RuntimeError,    # sizes before dtypes
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x2)"),
    (ng.mm, (2, 3), (3, 2), ("bool", "bool"), NotImplementedError,
     "\"addmm_impl_cpu_\" not implemented for 'Bool'"),
    (ng.matmul, (2, 3), (3,), ("bool", "bool"), NotImplementedError,
     "\"addmv_impl_cpu\" not implemented for 'Bool'"),
    (ng.dot, (3,), (3,), ("bool", "bool"), NotImplementedError,
     "\"dot\" not implemented for 'Bool'"),
    (ng.bmm, (2, 2, 3), (2, 3, 2), ("bool", "float32"), NotImplementedError,
     "\"bmm\" not implemented for 'Bool'"),
    (ng.mm, (3,), (3, 2), ("float32", "float32"), RuntimeError, "self must be a matrix"),
    (ng.bmm, (2, 2, 3), (3, 2), ("float32", "float32"), RuntimeError,
     "batch2 must be a 3D tensor"),
])
def test_matrix_products_of_two_dtypes_raise_as_torch(fn, a, b, dtypes_, error, message):
    x, y = (ng.ones(shape, dtype=getattr(ng, d)) for shape, d in zip((a, b), dtypes_))
    with pytest.raises(error, match=re.escape(message)):
        fn(x, y)


def test_addmm_and_baddbmm_of_two_dtypes_raise_as_torch():
    f32, f64 = ng.float32, ng.float64
    with pytest.raises(RuntimeError, match="self and mat2 must have the same dtype, but got "
                                           "Float and Double"):
        ng.addmm(ng.ones(2, 2), ng.ones(2, 3), ng.ones(3, 2, dtype=f64))
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype, but got "
                                           "Double and Float"):
        ng.addmm(ng.ones(2, 2), ng.ones(2, 3, dtype=f64), ng.ones(3, 2))
    with pytest.raises(RuntimeError, match="Input dtypes must be the same, got: input double, "
                                           "batch1: float, batch2: float"):
        ng.baddbmm(ng.ones(1, 2, 2, dtype=f64), ng.ones(1, 2, 3), ng.ones(1, 3, 2))
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        ng.baddbmm(ng.ones(1, 2, 2), ng.ones(1, 2, 3, dtype=f32), ng.ones(1, 3, 2, dtype=f64))


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64, ng.int64, ng.int32])
def test_matrix_products_of_one_dtype_keep_it(dtype):
    x = ng.tensor([[1, 2], [3, 4]], dtype=dtype)
    v = ng.tensor([1, -1], dtype=dtype)
    for result, want in ((x @ x, [[7, 10], [15, 22]]), (x @ v, [-1, -1]), (v @ x, [-2, -2]),
                         (ng.dot(v, v), 2), (ng.bmm(x[None], x[None]), [[[7, 10], [15, 22]]])):
        assert result.dtype == dtype and result.tolist() == want


# ---- integer and bool tensors keep their dtype where torch keeps it ----------------------------
def test_tril_and_triu_keep_integer_and_bool_dtypes():
    i = ng.tensor([[1, 2], [3, 4]])
    assert i.tril().dtype == ng.int64 and i.tril(-1).tolist() == [[0, 0], [3, 0]]
    assert i.int().triu().dtype == ng.int32 and i.int().triu().tolist() == [[1, 2], [0, 4]]
    mask = (i > 1).triu(1)
    assert mask.dtype == ng.bool and mask.tolist() == [[False, True], [False, False]]


@pytest.mark.parametrize("clamp, dtype, want", [
    (lambda i: i.clamp(min=ng.tensor(2)), ng.int64, [2, 5, 9]),
    (lambda i: i.clamp(max=ng.tensor([2, 3, 4])), ng.int64, [1, 3, 4]),
    (lambda i: i.clamp(ng.tensor(2), ng.tensor(6)), ng.int64, [2, 5, 6]),
    (lambda i: i.int().clamp(min=ng.tensor([2, 3, 4])), ng.int64, [2, 5, 9]),
    (lambda i: i.int().clamp(min=ng.tensor(2)), ng.int32, [2, 5, 9]),    # a 0-d bound
    (lambda i: i.clamp(min=ng.tensor([2.0, 3.0, 4.0])), ng.float32, [2.0, 5.0, 9.0]),
    (lambda i: i.clamp(ng.tensor(2), 2.5), ng.float32, [2.0, 2.5, 2.5]),
    (lambda i: (i > 4).clamp(min=ng.tensor(True)), ng.bool, [True, True, True]),
])
def test_clamp_with_tensor_bounds_promotes_only_what_it_is_given(clamp, dtype, want):
    result = clamp(ng.tensor([1, 5, 9]))
    assert result.dtype == dtype and result.tolist() == want


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_clamp_with_one_tensor_bound_has_torchs_gradients(dtype):
    for bounds, want in (((True, False), [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
                         ((False, True), [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])):
        x = leaf([1.0, 2.0, _NAN], dtype)
        lo, hi = leaf([1.5, 1.0, 0.0], dtype), leaf([3.0, 1.5, 1.0], dtype)
        given = [t if use else None for t, use in zip((lo, hi), bounds)]
        result = ng.clamp(x, *given)
        assert result.dtype == dtype and name(result) == "ClampBackward0"
        grads = ng.autograd.grad(result.sum(), [x] + [t for t in given if t is not None])
        assert [g.tolist() for g in grads] == want


@pytest.mark.parametrize("condition, dtype_name", [
    (ng.tensor([1, 0]), "Long"), (ng.tensor([1, 0], dtype=ng.int32), "Int"),
    (ng.tensor([1.0, 0.0]), "Float"), (ng.tensor([1.0, 0.0], dtype=ng.float64), "Double"),
])
def test_where_refuses_a_condition_that_is_not_bool(condition, dtype_name):
    message = ("where expected condition to be a boolean tensor, but got a tensor with dtype "
               + dtype_name)
    for call in (lambda: ng.where(condition, ng.ones(2), ng.zeros(2)),
                 lambda: ng.where(condition, ng.tensor([1, 2]), ng.tensor([3, 4])),
                 lambda: ng.where(condition, 1.0, 0.0),
                 lambda: ng.ones(2).where(condition, 0.0)):
        with pytest.raises(RuntimeError, match=message):
            call()
    assert ng.where(condition > 0, ng.ones(2), ng.zeros(2)).tolist() == [1.0, 0.0]


def test_relu_refuses_bool_and_sgn_of_bool_is_itself_as_torch():
    b = ng.tensor([True, False])
    for call in (lambda: ng.relu(b), lambda: b.relu(), lambda: ng.nn.functional.relu(b),
                 lambda: b.clone().relu_()):
        with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu"):
            call()
    assert ng.relu(ng.tensor([-1, 2])).tolist() == [0, 2]
    assert b.sgn().dtype == ng.bool and b.sgn().tolist() == [True, False]
    with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor is not supported"):
        ng.positive(b)


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_maximum_minimum_and_relu_give_x_at_signed_zero_ties_as_torch(dtype):
    # torch returns x where x and the other side compare equal, NumPy returns the other side
    x = ng.tensor([-0.0, 0.0, -1.0, _NAN, -math.inf], dtype=dtype)

    def signs(t):
        return [math.copysign(1.0, v) if v == 0 else v for v in t.tolist()]

    zeros, negative_zeros = ng.zeros(5, dtype=dtype), ng.full((5,), -0.0, dtype=dtype)
    want_max_0 = [-1.0, 1.0, 1.0, _NAN, 1.0]
    want_max_neg0 = [-1.0, 1.0, -1.0, _NAN, -1.0]
    want_min = [-1.0, 1.0, -1.0, _NAN, -math.inf]
    for result, want in ((ng.relu(x), want_max_0), (ng.clamp_min(x, 0.0), want_max_0),
                         (ng.maximum(x, zeros), want_max_0), (x.clamp(min=zeros), want_max_0),
                         (ng.clamp_min(x, negative_zeros), want_max_neg0),
                         (ng.maximum(x, negative_zeros), want_max_neg0),
                         (ng.clamp_max(x, -0.0), want_min), (ng.minimum(x, zeros), want_min),
                         (ng.clamp_max(x, zeros), want_min), (x.clamp(max=negative_zeros), want_min)):
        assert result.dtype == dtype
        np.testing.assert_array_equal(signs(result), want)


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
@pytest.mark.parametrize("fn, values, want", [
    (lambda x: x.max(), [math.nan, 1.0, math.nan, 2.0], [0.5, 0.0, 0.5, 0.0]),
    (lambda x: x.min(), [math.nan, 1.0, math.nan, 2.0], [0.5, 0.0, 0.5, 0.0]),
    (lambda x: x.max(), [1.0, 3.0, 3.0, 2.0], [0.0, 0.5, 0.5, 0.0]),
    (lambda x: x.reshape(2, 2).amax(1).sum(), [math.nan, 1.0, 3.0, 2.0], [math.nan, math.nan, 1.0, 0.0]),
])
def test_max_and_amax_gradients_at_nan_follow_torch(fn, values, want, dtype):
    """max()/min() share a NaN result among the NaNs (torch's evenly_distribute_backward);
    amax/amin give NaN to a whole group whose result is NaN (scale_grad_by_count). Values from
    torch 2.13; the compiled kernel and create_graph's ops agree."""
    x = ng.tensor(values, dtype=dtype, requires_grad=True)
    fn(x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.array(want, x.grad.numpy().dtype))
    (grad,) = ng.autograd.grad(fn(x), x, create_graph=True)
    np.testing.assert_array_equal(grad.detach().numpy(), x.grad.numpy())


def test_forwards_give_inf_and_nan_silently_as_torch():
    # Note [quiet forwards]: NumPy would warn (or raise, under warnings-as-errors) for each
    x = ng.tensor([-1.0, 0.0, 1e30], dtype=ng.float32)
    cases = [(ng.log, [math.nan, -math.inf, 69.07755]), (ng.sqrt, [math.nan, 0.0, 1e15]),
             (ng.reciprocal, [-1.0, math.inf, 1e-30]), (lambda t: t * t, [1.0, 0.0, math.inf]),
             (ng.exp, [0.36787945, 1.0, math.inf]), (lambda t: t / 0.0, [-math.inf, math.nan, math.inf])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fn, expected in cases:
            np.testing.assert_allclose(fn(x).numpy(), np.array(expected, np.float32), rtol=1e-6)
    with pytest.warns(RuntimeWarning):
        np.log(np.zeros(1))         # NumPy's own settings are the caller's, untouched


def test_comparisons_of_shapes_that_do_not_broadcast_raise_torchs_error():
    for fn in (lambda a, b: a == b, lambda a, b: a < b, ng.logical_and, ng.logical_xor):
        with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of "
                                               r"tensor b \(4\) at non-singleton dimension 1$"):
            fn(ng.ones(2, 3), ng.ones(4))


def test_scatter_takes_a_0d_src_as_one_element_and_names_torchs_nodes():
    s = ng.tensor(2.7, requires_grad=True)
    x = ng.zeros(3, requires_grad=True)
    y = x.scatter(0, ng.tensor([1]), s)
    assert y.grad_fn.name() == "ScatterBackward0"
    assert x.scatter(0, ng.tensor([1]), 2.0).grad_fn.name() == "ScatterBackward1"
    (y * ng.tensor([1.0, 3.0, 5.0])).sum().backward()
    assert s.grad.item() == pytest.approx(3.0) and x.grad.tolist() == [1.0, 0.0, 5.0]
    np.testing.assert_allclose(y.detach().numpy(), [0.0, 2.7, 0.0], rtol=1e-6)
    with pytest.raises(RuntimeError, match="same number of dimensions as src"):
        ng.zeros(2, 3).scatter(1, ng.tensor([[1], [0]]), s)


@pytest.mark.parametrize("dtype, c_name", [(ng.int64, "long int"), (ng.int32, "int"),
                                           (ng.bool, "bool")])
def test_clamp_in_place_by_a_float_names_the_c_type_as_torch(dtype, c_name):
    t = ng.tensor([1, 0], dtype=dtype)
    for call in (lambda: t.clamp_(0.5), lambda: t.clip_(max=0.5), lambda: t.clamp_(0.5, 1.5)):
        with pytest.raises(RuntimeError, match=f"^result type Float can't be cast to the desired "
                                               f"output type {c_name}$"):
            call()
    assert t.tolist() == ([1, 0] if dtype != ng.bool else [True, False])      # unchanged
    assert ng.tensor([1, 5]).clamp_(2, 3).tolist() == [2, 3]


def test_bitwise_not_of_floats_and_nanmedian_of_bools_are_refused_as_torch():
    with pytest.raises(NotImplementedError, match="\"bitwise_not_cpu\" not implemented for 'Float'"):
        ng.bitwise_not(ng.tensor([1.0]))
    with pytest.raises(TypeError, match=r"~ \(operator.invert\) is only implemented"):
        ~ng.tensor([1.0])
    assert (~ng.tensor([1, -2])).tolist() == [-2, 1]
    with pytest.raises(NotImplementedError, match="\"median_cpu\" not implemented for 'Bool'"):
        ng.tensor([True, False]).nanmedian()
    with pytest.raises(NotImplementedError, match="\"median_out\" not implemented for 'Bool'"):
        ng.tensor([True, False]).nanmedian(0)
