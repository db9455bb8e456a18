"""In-place ops through views (Note [views] in numgrad/ops/views.py): the base's history takes the
change (torch's CopySlices), every live view of the base reads the new history, torch's refusals
raise and change nothing. Expected gradients are derived by hand in the comments."""
import copy

import numpy as np
import pytest

import numgrad as ng
from numgrad.autograd import gradcheck, gradgradcheck

DTYPES = [ng.float32, ng.float64]


def close(t, expected):
    tol = 1e-5 if t.dtype == ng.float32 else 1e-12
    np.testing.assert_allclose(np.asarray(t.detach()), expected, rtol=tol, atol=tol)


def leaf(values, dtype=ng.float64):
    return ng.tensor(np.asarray(values, np.float64), dtype=dtype, requires_grad=True)


NAN = float("nan")
W23 = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]


@pytest.mark.parametrize("dtype", DTYPES)
def test_in_place_through_a_view_of_a_base_without_grad_gives_the_base_a_history(dtype):
    w = leaf([1.0, 2.0, 3.0], dtype)
    x = ng.ones(2, 3, dtype=dtype)
    x[1].mul_(w)                                    # x[1] = w
    assert x.requires_grad and not x.is_leaf
    close(x, [[1, 1, 1], [1, 2, 3]])
    (x * x).sum().backward()                        # d/dw sum(w^2) = 2w
    close(w.grad, [2, 4, 6])


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_live_view_reads_the_base_after_an_in_place_op_on_it(dtype):
    w = leaf(W23, dtype)
    y = w * 1
    row, col = y[0], y[:, 1]
    y.mul_(2)
    close(row, 2 * np.array(W23[0]))
    (row.sum() + 10 * col.sum()).backward()         # row = 2 w[0], col = 2 w[:, 1]
    close(w.grad, [[2, 22, 2], [0, 20, 0]])


@pytest.mark.parametrize("dtype", DTYPES)
def test_in_place_through_a_view_of_a_view_changes_the_base_and_its_views(dtype):
    w = leaf(W23, dtype)
    y = w * 1
    v = y.t()
    other = y[1]                                    # a view made before the change
    v[1].zero_()                                    # column 1 of y
    assert v[1]._base is y
    close(y, [[0.5, 0, 2], [1.5, 0, -0.75]])
    (3 * y.sum() + other.sum()).backward()          # 3 everywhere, +1 on row 1, 0 in column 1
    close(w.grad, [[3, 0, 3], [4, 0, 4]])


def test_the_modified_view_and_the_base_both_carry_the_op():
    w = leaf([0.5, 1.0, 2.0, 3.0])
    h = w * w
    v = h[1:3]
    v.mul_(w[:2])                                   # h = [w0^2, w1^2 w0, w2^2 w1, w3^2]
    close(h, [0.25, 0.5, 4.0, 9.0])
    (h.sum() + 10 * v.sum()).backward()
    # d/dw of 11 (w1^2 w0 + w2^2 w1) + w0^2 + w3^2
    close(w.grad, [2 * 0.5 + 11 * 1.0, 11 * (2 * 1.0 * 0.5 + 4.0), 11 * 2 * 2.0, 6.0])


def test_setitem_through_a_view_and_augmented_assignment_of_a_region():
    w = leaf([1.0, 2.0, 3.0, 4.0])
    y = w * 1
    y.view(2, 2)[0, 0] = w[3]                       # y = [w3, w1, w2, w3]
    y[2:] += w[:2] * 10                             # y = [w3, w1, w2 + 10 w0, w3 + 10 w1]
    close(y, [4, 2, 13, 24])
    (y * y).sum().backward()
    # d/dw0 = 20 (w2 + 10 w0); d/dw1 = 2 w1 + 20 (w3 + 10 w1); d/dw2 = 2 (w2 + 10 w0);
    # d/dw3 = 2 w3 + 2 (w3 + 10 w1)
    close(w.grad, [260, 4 + 480, 26, 8 + 48])


def test_gradients_through_views_and_in_place_ops_match_finite_differences():
    def fn(w):
        h = w * w
        h[1:3].mul_(w[:2])
        x = ng.zeros(2, 2, dtype=w.dtype)
        x[0].copy_(w[2:] ** 2)
        x.t()[1].add_(w[1:3].sin())
        return (h ** 2).sum() + (x * w.view(2, 2)).sum()
    w = leaf([0.5, -1.2, 0.8, 1.7])
    assert gradcheck(fn, (w,))
    assert gradgradcheck(fn, (w,))


def test_a_value_only_a_needless_derivative_reads_may_change_in_place():
    w = leaf([1.0, 2.0, 3.0])
    x = w * 2
    y = x * 3              # x is read only by the derivative for 3, which needs none (as torch)
    x.add_(1)
    y.sum().backward()
    close(w.grad, [6, 6, 6])
    z = w * 2
    out = z * w            # z is read by w's derivative: the change is caught
    z.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_select_of_a_one_dimensional_tensor_is_a_view():
    w = leaf([1.0, 2.0, 3.0])
    y = w * 1
    y[1].mul_(5)
    close(y, [1, 10, 3])
    y.sum().backward()
    close(w.grad, [1, 5, 1])


def test_base_and_is_view():
    w = leaf(W23)
    y = w * 1
    v = y.t()[1:]
    assert v._base is y and y._base is None and v._is_view() and not y._is_view()
    assert v.as_strided((2,), (1,))._base is y       # as torch: strides over the base's memory
    close(v.as_strided((2,), (1,)), [-1.0, 2.0])      # from v's own offset, 1
    assert y.t().reshape(-1)._base is None          # a reshape that copies is no view
    assert y.reshape(-1)._base is y
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        v.detach_()


def _unchanged(y, before, version):
    np.testing.assert_array_equal(np.asarray(y.detach()), before)
    assert y._version == version


def test_a_view_made_in_no_grad_mode_refuses_a_recorded_in_place_op():
    w = leaf(W23)
    y = w * 1
    with ng.no_grad():
        v = y[0]
    before, version = np.asarray(y.detach()).copy(), y._version
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being "
                                           "modified inplace with grad mode enabled. Given that"):
        v.mul_(w[1])
    _unchanged(y, before, version)
    with ng.no_grad():
        v.mul_(2)                                   # both in no_grad: allowed
    close(y[0], 2 * np.array(W23[0]))


def test_outputs_of_a_multi_view_op_refuse_in_place_ops():
    w = leaf(W23)
    y = w * 1
    before, version = np.asarray(y.detach()).copy(), y._version
    for piece, name, k in ((y.split(1)[1], "Split", 1), (y.unbind(1)[2], "Unbind", 2),
                           (y.chunk(2)[1], "Split", 1)):
        with pytest.raises(RuntimeError, match=f"Output {k} of {name} is a view and is being "
                                               "modified inplace. This view is the output of a "
                                               "function that returns multiple views."):
            piece.mul_(2)
        _unchanged(y, before, version)
    y.sum().backward()                              # the graph still works
    close(w.grad, np.ones((2, 3)))


def test_a_view_of_a_leaf_refuses_in_place_ops_in_grad_mode():
    w = leaf(W23)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        w[0].mul_(2)
    with ng.no_grad():
        w.t()[0].mul_(2)                            # an update step through a view
    close(w, [[1.0, -1.0, 2.0], [3.0, 0.25, -0.75]])


def test_a_base_viewed_in_every_step_keeps_a_short_list_of_views():
    w = leaf(np.ones(8))
    y = w * 1
    for _ in range(10_000):
        y[1:3].sum()
    assert len(y._extra["views"].refs) < 64


def test_nodes_of_writes_into_a_region_are_named_as_torch_names_them():
    w = leaf([1.0, 2.0, 3.0, 4.0])
    x = ng.zeros(4, dtype=ng.float64)
    x[1:3] = w[:2]
    assert type(x.grad_fn).__name__ == "CopySlices" and x.grad_fn.name() == "torch::autograd::CopySlices"
    y = ng.zeros(4, dtype=ng.float64)
    y[ng.tensor([0, 2])] = w[:2]
    assert y.grad_fn.name() == "IndexPutBackward0"
    z = ng.zeros(2, 2, dtype=ng.float64)
    z[0].mul_(w[:2])                                # through a view: the base's node
    assert z.grad_fn.name() == "torch::autograd::CopySlices"
    assert repr(x.grad_fn).startswith("<CopySlices object at 0x")
    acc, _ = (w * 2).grad_fn.next_functions[0]
    assert type(acc).__name__ == "AccumulateGrad" and acc.name() == "torch::autograd::AccumulateGrad"
    (x.sum() + 2 * y.sum() + 3 * z.sum()).backward()
    close(w.grad, [1 + 2, 1 + 2, 0, 0])            # z[0] = 0 * w[:2]: no gradient through it


def test_a_position_written_twice_holds_the_last_value():
    w = leaf([1.0, 2.0])
    x = ng.zeros(3, dtype=ng.float64)
    x[ng.tensor([0, 0])] = w * 1
    close(x, [2.0, 0.0, 0.0])
    x.sum().backward()
    close(w.grad, [1.0, 1.0])                       # as torch: each value gets g at its position


def test_whole_tensor_overwrites_record_torchs_nodes_and_gradients():
    w = leaf([1.0, 2.0, 3.0])
    names = []
    for write in (lambda x: x.zero_(), lambda x: x.fill_(2.0), lambda x: x.fill_(w[0]),
                  lambda x: x.copy_(w * 2)):
        x = w * 1
        write(x)
        names.append(x.grad_fn.name())
        (x * ng.tensor([1.0, 10.0, 100.0], dtype=ng.float64)).sum().backward()
    assert names == ["ZeroBackward0", "FillBackward2", "FillBackward3",
                     "torch::autograd::CopyBackwards"]
    # the old values get nothing; w[0] gets all of its fill; the copy gets 2 * the weights
    close(w.grad, [111.0 + 2.0, 20.0, 200.0])
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(4\) at non-singleton dimension 0"):
        (w * 1).copy_(ng.ones(4, dtype=ng.float64))
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
        (w * 1).fill_(w)


def test_a_tensor_with_views_pickles_and_copies():
    import copy
    import pickle
    y = ng.arange(6.0, dtype=ng.float64).reshape(2, 3)
    row = y[1]
    for clone in (pickle.loads(pickle.dumps(y)), copy.deepcopy(y)):
        close(clone, np.arange(6.0).reshape(2, 3))
        clone.mul_(2)                               # no view of the clone: nothing else changes
    close(row, [3.0, 4.0, 5.0])
    close(pickle.loads(pickle.dumps(row)), [3.0, 4.0, 5.0])


def test_in_place_through_a_view_of_a_base_laid_out_in_fortran_order():
    w = leaf(W23)
    y = w.t() * 1.0                                 # NumPy keeps the transposed layout
    assert not y._data.flags.c_contiguous
    y[1].mul_(5)                                    # the region is found by positions, not strides
    close(y, [[0.5, 1.5], [-5.0, 1.25], [2.0, -0.75]])
    (y * y).sum().backward()                        # 2 w, times 25 where y was scaled by 5
    close(w.grad, [[1.0, -50.0, 4.0], [3.0, 12.5, -1.5]])


# ---- indexing as torch indexes (values and messages from torch 2.x) ------------------------------
def test_an_empty_list_index_selects_nothing():
    x = ng.zeros(2, 3)
    assert x[[]].shape == (0, 3) and x[:, []].shape == (2, 0) and x[[], []].shape == (0,)
    assert (x * 1).requires_grad_()[[]].shape == (0, 3)
    x[[]] = 1.0
    assert x.tolist() == [[0.0] * 3] * 2


def test_ints_among_index_arrays_are_applied_first_as_in_torch():
    # NumPy counts the ints among the arrays, which moves the result's dims
    x = ng.arange(24.0, dtype=ng.float64).reshape(2, 3, 4)
    assert x[:, 0, [1, 3]].tolist() == [[1.0, 3.0], [13.0, 15.0]]
    assert x[0, :, [[1], [2]]].tolist() == [[[1.0], [2.0]], [[5.0], [6.0]], [[9.0], [10.0]]]
    assert ng.zeros(2, 3, 4, 5)[:, 0, :, [0]].shape == (2, 4, 1)
    x = leaf(np.arange(24.0).reshape(2, 3, 4))
    value = leaf([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    y = x * 1
    y[1, :, [0, 2]] = value                         # the place is (3, 2) in torch, (2, 3) in NumPy
    assert y[1].tolist() == [[1.0, 13.0, 2.0, 15.0], [3.0, 17.0, 4.0, 19.0], [5.0, 21.0, 6.0, 23.0]]
    (y * ng.arange(24.0, dtype=ng.float64).reshape(2, 3, 4)).sum().backward()
    assert value.grad.tolist() == [[12.0, 14.0], [16.0, 18.0], [20.0, 22.0]]
    assert x.grad[1].tolist() == [[0.0, 13.0, 0.0, 15.0], [0.0, 17.0, 0.0, 19.0],
                                  [0.0, 21.0, 0.0, 23.0]]
    z = ng.zeros(2, 3, 4, dtype=ng.float64)          # index_put_ does not cast
    z[1, :, [0, 2]] = value.detach()
    assert z[1].tolist() == [[1.0, 0.0, 2.0, 0.0], [3.0, 0.0, 4.0, 0.0], [5.0, 0.0, 6.0, 0.0]]


@pytest.mark.parametrize("requires_grad", [False, True])
def test_index_errors_are_torchs(requires_grad):
    value = ng.ones((), requires_grad=requires_grad)
    x = ng.zeros(2, 3)
    y = ng.zeros(2, 3, 4)
    for error, message, index in [
            (ValueError, "step must be greater than zero", slice(None, None, -1)),
            (ValueError, "step must be greater than zero", ([0], slice(None, None, -1))),
            (IndexError, "index 5 is out of bounds for dimension 0 with size 2", 5),
            (IndexError, "index -3 is out of bounds for dimension 0 with size 2", -3),
            (IndexError, "index 3 is out of bounds for dimension 1 with size 3", (slice(None), 3)),
            (IndexError, "index 5 is out of bounds for dimension 0 with size 2", [5]),
            (IndexError, "index 7 is out of bounds for dimension 1 with size 3", ([0], [7])),
            # an index array's dimension counts the index arrays before it
            (IndexError, "index 9 is out of bounds for dimension 0 with size 3",
             (slice(None), [9])),
            (IndexError, "too many indices for tensor of dimension 2", (0, 0, 0)),
            (IndexError, "too many indices for tensor of dimension 2", ([0], 0, 0)),
            (IndexError, "tensors used as indices must be long, int, byte or bool tensors",
             ng.tensor([1.0])),
            (IndexError, r"The shape of the mask \[3\] at index 0 does not match the shape of the "
                         r"indexed tensor \[2, 3\] at index 0", ng.tensor([True, False, True])),
            (IndexError, r"shape mismatch: indexing tensors could not be broadcast together with "
                         r"shapes \[2\], \[3\]", ([0, 1], [0, 1, 2]))]:
        with pytest.raises(error, match=message):
            x[index] = value
        if not isinstance(index, slice):
            with pytest.raises(error, match=message):
                x[index]
    assert x.tolist() == [[0.0] * 3] * 2 and x._version == 0
    for message, index in [
            ("index 9 is out of bounds for dimension 0 with size 4", (0, slice(None), [9])),
            ("index 9 is out of bounds for dimension 1 with size 4", ([0], 0, [9])),
            ("index 7 is out of bounds for dimension 1 with size 3", ([0], 7, [1])),
            ("index 9 is out of bounds for dimension 2 with size 4",
             (ng.ones(2, 3, dtype=ng.bool), [9])),
            (r"The shape of the mask \[3, 5\] at index 1 does not match the shape of the indexed "
             r"tensor \[2, 3, 4\] at index 2", (slice(None), ng.ones(3, 5, dtype=ng.bool))),
            (r"The shape of the mask \[2\] at index 0 does not match the shape of the indexed "
             r"tensor \[1, 2, 3, 4\] at index 2", (None, slice(None), ng.ones(2, dtype=ng.bool)))]:
        with pytest.raises(IndexError, match=message):
            y[index]
        with pytest.raises(IndexError, match=message):
            y[index] = value


# ---- writes into places: the new value replaces the old one --------------------------------------
def test_setitem_over_inf_and_nan_writes_the_new_value():
    # y[~y.isfinite()] = 0: the old inf must not leak in (as old * 0 + new would, NaN)
    a = leaf([1.0, 0.0, 2.0])
    y = 1 / a
    y[~y.isfinite()] = 0.0
    assert y.tolist() == [1.0, 0.0, 0.5] and y.grad_fn.name() == "IndexPutBackward0"
    y.sum().backward()
    assert a.grad[0].item() == -1.0 and a.grad[2].item() == -0.25   # torch: NaN at 0 (1/a's own)
    x = leaf([float("inf"), 1.0, float("nan"), 3.0])
    value = leaf([5.0, 6.0])
    t = x * 2
    t[ng.tensor([0, 2])] = value
    assert t.tolist() == [5.0, 2.0, 6.0, 6.0]
    (t * ng.tensor([1.0, 2.0, 3.0, 4.0], dtype=ng.float64)).sum().backward()
    assert x.grad.tolist() == [0.0, 4.0, 0.0, 8.0] and value.grad.tolist() == [1.0, 3.0]
    x = leaf([[float("inf"), 1.0], [float("nan"), -float("inf")]])
    t = x * 1
    t[:, 0] = leaf([7.0, 8.0])
    assert t.tolist() == [[7.0, 1.0], [8.0, -float("inf")]]
    assert t.grad_fn.name() == "torch::autograd::CopySlices"
    t.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [0.0, 1.0]]
    x = ng.tensor([float("inf"), 1.0, -float("inf")])
    scalar = ng.tensor(3.0, requires_grad=True)
    x[x.isinf()] = scalar
    assert x.tolist() == [3.0, 1.0, 3.0]
    x.sum().backward()
    assert scalar.grad.item() == 2.0
    w = ng.tensor([float("nan"), 2.0])
    w[0] = ng.tensor(5.0, requires_grad=True)
    assert w.tolist() == [5.0, 2.0]


def test_an_overridden_inf_written_twice_does_not_leak_into_the_last_write():
    # values from torch 2.x: the last write to a place holds, the earlier inf / NaN leave no NaN
    inf = float("inf")
    value = leaf([inf, 1.0, NAN, 2.0])
    index = ng.tensor([0, 0, 1, 1])
    x = ng.zeros(3, dtype=ng.float64)
    x[index] = value
    assert x.tolist() == [1.0, 2.0, 0.0]
    x.sum().backward()
    # torch gives every write the gradient at its place, [1, 1, 1, 1]; an overridden inf or NaN
    # gets none here (it is zeroed outright, since subtracting it from itself gives NaN)
    assert value.grad.tolist() == [0.0, 1.0, 0.0, 1.0]
    zeros = ng.zeros(3, dtype=ng.float64)
    assert zeros.scatter(0, index, value).tolist() == [1.0, 2.0, 0.0]
    assert zeros.index_copy(0, index, value).tolist() == [1.0, 2.0, 0.0]
    finite = leaf([3.0, 1.0, 4.0, 2.0])
    y = ng.zeros(3, dtype=ng.float64)
    y[index] = finite
    assert y.tolist() == [1.0, 2.0, 0.0]
    y.sum().backward()
    assert finite.grad.tolist() == [1.0, 1.0, 1.0, 1.0]


def test_setitem_drops_the_values_leading_size_one_dims():
    for requires_grad in (False, True):
        for index, shape, want in [(slice(0, 2), (1, 2), [1.0, 1.0, 0.0]),
                                   (slice(0, 2), (1, 1, 2), [1.0, 1.0, 0.0]),
                                   ([0, 2], (1, 2), [1.0, 0.0, 1.0]),
                                   (ng.tensor([True, False, True]), (1, 1, 2), [1.0, 0.0, 1.0]),
                                   (1, (1, 1), [0.0, 1.0, 0.0])]:
            t = ng.zeros(3)
            value = ng.ones(*shape, requires_grad=requires_grad)
            t[index] = value
            assert t.tolist() == want
            if requires_grad:
                t.sum().backward()
                assert value.grad.shape == shape and (value.grad == 1).all()
        for index, shape, message in [
                (slice(0, 2), (2, 2), r"expand\(torch.FloatTensor\{\[2, 2\]\}, size=\[2\]\): the "
                                      r"number of sizes provided \(1\) must be greater or equal "
                                      r"to the number of dimensions in the tensor \(2\)"),
                (slice(0, 2), (1, 3), r"The expanded size of the tensor \(2\) must match the "
                                      r"existing size \(3\) at non-singleton dimension 0.  Target "
                                      r"sizes: \[2\].  Tensor sizes: \[3\]"),
                ([0, 2], (2, 2), r"shape mismatch: value tensor of shape \[2, 2\] cannot be "
                                 r"broadcast to indexing result of shape \[2\]")]:
            with pytest.raises(RuntimeError, match=message):
                ng.zeros(3)[index] = ng.ones(*shape, requires_grad=requires_grad)

    def write(t, v):
        out = t * 1
        out[0:2] = v
        out[ng.tensor([2, 0])] = v * 3
        return out
    assert gradcheck(write, (leaf([1.0, 2.0, 3.0]), leaf([[4.0, 5.0]])))


@pytest.mark.parametrize("make, message", [
    (lambda y: y.split(2)[0], r"^Output 0 of Split is a view and its base or another view of its "
                              r"base has been modified inplace\. This view is the output of a "
                              r"function that returns multiple views\."),
    (lambda y: y.unbind()[1], r"^Output 1 of Unbind is a view and its base"),
])
def test_a_multi_output_view_is_unusable_in_grad_mode_after_its_base_changed(make, message):
    # torch 2.13: the view gets no new history; its next use in grad mode raises
    x = ng.ones(4, requires_grad=True)
    y = x * 1
    v = make(y)
    y.mul_(2)
    with pytest.raises(RuntimeError, match=message):
        v * 1
    with pytest.raises(RuntimeError, match=message):
        v.grad_fn
    assert repr(v).endswith("grad_fn=<Invalid>)")
    with ng.no_grad():
        assert (v * 1).reshape(-1).tolist() == [2.0] * v.numel()
    (y * 1).sum().backward()                     # the base itself is fine
    assert x.grad.tolist() == [2.0] * 4


def test_a_no_grad_view_is_unusable_in_grad_mode_after_a_recorded_change_of_its_base():
    x = ng.ones(4, requires_grad=True)
    y = x * 1
    with ng.no_grad():
        w = y[0:2]
    y.mul_(2)
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode and its base or "
                                           "another view of its base has been modified inplace "
                                           "with grad mode enabled. Given that"):
        w * 1


def test_a_view_made_in_no_grad_mode_requires_grad_through_its_base_and_gets_no_gradient():
    # torch: requires_grad is True (its base's), it is a leaf without AccumulateGrad, and the
    # gradients that reach it are dropped
    x = leaf([1.0, 2.0, 3.0])
    with ng.no_grad():
        v = x[:2]
        plain = ng.ones(3)[:2]
    assert v.requires_grad and v.is_leaf and v.grad_fn is None
    assert not plain.requires_grad
    assert repr(v) == "tensor([1., 2.], dtype=numgrad.float64, requires_grad=True)"
    y = (v * x[1:]).sum()
    assert y.requires_grad and y.grad_fn.name() == "SumBackward0"
    y.backward()
    assert v.grad is None
    close(x.grad, [0.0, 1.0, 2.0])                  # only through x[1:], made in grad mode
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and "
                                           "does not have a grad_fn$"):
        v.backward(ng.ones(2))
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 0 appears to not "
                                           "have been used in the graph"):
        ng.autograd.grad((v * 2).sum(), v)
    v.requires_grad_(False)                         # its base's flag wins, as in torch
    assert v.requires_grad
    v.requires_grad_()                              # now a leaf of its own
    (v * 3).sum().backward()
    close(v.grad, [3.0, 3.0])


def test_a_view_made_in_no_grad_mode_is_unusable_once_its_base_changed_in_any_mode():
    x = leaf([1.0, 2.0, 3.0])
    with ng.no_grad():
        v = x[:2]
        x.mul_(2)                                   # not recorded, but the version moves
        assert (v * 1).tolist() == [2.0, 4.0]       # fine without grad
    message = "^A view was created in no_grad mode and its base or another view of its base"
    with pytest.raises(RuntimeError, match=message):
        v * 1
    with pytest.raises(RuntimeError, match=message):
        v.is_leaf
    with pytest.raises(RuntimeError, match=message):
        copy.deepcopy(v)
    (x * 1).sum().backward()                        # the base itself is fine
    close(x.grad, [1.0, 1.0, 1.0])
