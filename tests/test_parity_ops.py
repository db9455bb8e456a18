"""Differences from torch 2.x found by differential testing, each pinned by torch's own numbers,
node names and messages (torch 2.13, hard-coded: torch is not a test dependency)."""
import numpy as np
import pytest

import numgrad as ng

VERSION_ERROR = ("one of the variables needed for gradient computation has been modified by an "
                 "inplace")
OVERLAP_ERROR = ("unsupported operation: more than one element of the written-to tensor refers "
                 "to a single")


def values(t):
    return np.asarray(t.detach())


# ---- scalar ** tensor ---------------------------------------------------------------------------
def test_scalar_base_power_saves_its_exponent():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    exponent = x * 1
    z = 2.0 ** exponent
    exponent.add_(1)                       # torch saves the exponent: backward must refuse
    with pytest.raises(RuntimeError, match=VERSION_ERROR):
        z.sum().backward()


def test_zero_base_power_is_pow_backward2_with_torchs_gradient():
    x = ng.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    z = 0.0 ** x
    assert z.grad_fn.name() == "PowBackward2"
    z.sum().backward()
    np.testing.assert_array_equal(values(z), [np.inf, 1.0, 0.0])
    # out * log(0) where x < 0; masked to 0 where x >= 0 (where it would be nan)
    np.testing.assert_array_equal(values(x.grad), [-np.inf, 0.0, 0.0])


# ---- expand -------------------------------------------------------------------------------------
def test_expand_to_the_same_shape_is_a_new_view():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    same = y.expand(y.shape)
    assert same is not y and same.grad_fn.name() == "ExpandBackward0" and same._base is y
    y.add_(1)
    assert same._version == 1                           # the base's counter
    assert x.expand(2) is not x and not x.expand(-1).is_leaf


def test_broadcast_tensors_returns_a_tensor_of_the_common_shape_itself():
    x = ng.ones(3, requires_grad=True)
    a, b = ng.broadcast_tensors(x, ng.ones(2, 1))
    assert a is not x and b.shape == (2, 3)
    assert ng.broadcast_tensors(x, x)[0] is x


def test_in_place_through_an_expand_that_repeats_nothing():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    e = y.expand(1, 2)                     # a new leading dim of size 1: no element repeated
    e.add_(3)
    assert e.grad_fn.name() == "AsStridedBackward0" and type(y.grad_fn).__name__ == "CopySlices"
    np.testing.assert_array_equal(values(y), [4.0, 5.0])
    e.sum().backward()
    np.testing.assert_array_equal(values(x.grad), [1.0, 1.0])
    plain = ng.zeros(2)
    view = plain.expand(1, 2)
    view.copy_(ng.ones(1, 2))
    view[0, 1] = 5
    np.testing.assert_array_equal(values(plain), [1.0, 5.0])


def test_in_place_through_an_expand_that_repeats_elements_is_refused():
    y = ng.zeros(2, 1)
    with pytest.raises(RuntimeError, match=OVERLAP_ERROR):
        y.expand(2, 3).add_(1)
    with pytest.raises(RuntimeError, match=OVERLAP_ERROR):
        ng.zeros(2).unsqueeze(0).expand(3, 2).mul_(3)
    np.testing.assert_array_equal(values(y), [[0.0], [0.0]])


# ---- strided views: diagonal, unfold, as_strided -------------------------------------------------
def test_diagonal_and_unfold_of_a_non_contiguous_tensor_are_views_of_its_memory():
    y = ng.zeros(3, 4)
    y.t().diagonal().fill_(1)
    y[:, 1:].unfold(1, 1, 2).fill_(2)
    np.testing.assert_array_equal(values(y), [[1, 2, 0, 2], [0, 2, 0, 2], [0, 2, 1, 2]])
    seen = y.t().diagonal(1)
    y.add_(1)
    np.testing.assert_array_equal(values(seen), [1, 3])


def test_overlapping_unfold_is_a_view_that_reads_its_base_after_an_in_place_op():
    x = ng.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x * 1
    windows = y.unfold(1, 2, 1)
    assert windows._base is y
    y.mul_(2)
    np.testing.assert_array_equal(values(windows), [[[2, 4], [4, 6]], [[8, 10], [10, 12]]])
    assert windows.grad_fn.name() == "AsStridedBackward0"
    windows.sum().backward()
    np.testing.assert_array_equal(values(x.grad), [[2, 4, 2], [2, 4, 2]])   # y = 2x: 2 per window


def test_create_graph_through_an_overlapping_as_strided_sums_the_shared_places():
    x = ng.arange(4.0, requires_grad=True)
    g, = ng.autograd.grad((x.as_strided((3, 2), (1, 1)) ** 2).sum(), x, create_graph=True)
    np.testing.assert_array_equal(values(g), [0.0, 4.0, 8.0, 6.0])
    h, = ng.autograd.grad((g * ng.tensor([1.0, 2.0, 3.0, 4.0])).sum(), x)
    np.testing.assert_array_equal(values(h), [2.0, 8.0, 12.0, 8.0])


def test_in_place_through_an_empty_view_gives_the_base_a_new_history():
    x = ng.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x * 1
    empty = y.narrow(0, 0, 0)
    empty.relu_()
    assert type(y.grad_fn).__name__ == "CopySlices" and empty.grad_fn.name() == "AsStridedBackward0"
    assert y._version == 1
    (y * 2).sum().backward()
    np.testing.assert_array_equal(values(x.grad), np.full((2, 3), 2.0))


# ---- refusals of in-place ops through views: torch's order and wording ---------------------------
NO_GRAD_VIEW = ("A view was created in no_grad mode and is being modified inplace with grad mode "
                "enabled.")
MULTI = "This view is the output of a function that returns multiple views."
AMBIGUOUS = "Given that this use case is ambiguous and error-prone, it is forbidden."


def refusal(write):
    with pytest.raises(RuntimeError) as caught:
        write()
    return str(caught.value)


def test_autograd_refusals_come_before_the_overlap_refusal():
    x = ng.ones(2, 1, requires_grad=True)
    assert refusal(lambda: x.expand(2, 3).add_(1)).startswith("a view of a leaf Variable")
    assert refusal(lambda: x.split(1)[0].mul_(2)).startswith(
        f"Output 0 of Split is a view and is being modified inplace. {MULTI}")
    w = ng.tensor(1.0, requires_grad=True)
    assert refusal(lambda: ng.zeros(2, 1).split(1)[0].expand(1, 3).copy_(w)) \
        .startswith(f"{NO_GRAD_VIEW} {MULTI}")
    assert refusal(lambda: ng.zeros(2, 1).expand(2, 3).add_(1)).startswith(OVERLAP_ERROR)


def test_no_grad_view_refusals_name_the_view_op_and_its_reason():
    w = ng.tensor(2.0, requires_grad=True)
    y = ng.ones(4, requires_grad=True) * 1
    with ng.no_grad():
        made_without_grad = y.split(2)[0]
    # split in no_grad mode is an ambiguous no_grad view, not a multi-output one
    assert refusal(lambda: made_without_grad.mul_(2)) == f"{NO_GRAD_VIEW} {AMBIGUOUS}" + (
        " You can clarify your code by moving both the view and the inplace either both inside "
        "the no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
        "want the inplace to be tracked).")
    # split of a tensor without grad, in grad mode: multi-output, also for a view of it
    piece = ng.ones(4).split(2)[0]
    assert refusal(lambda: piece[1:].mul_(w)).startswith(f"{NO_GRAD_VIEW} {MULTI}")
    # a view made with grad mode on from a no_grad one has a grad_fn, which torch names
    assert refusal(lambda: made_without_grad[1:].mul_(2)).startswith(
        "Output 0 of Slice is a view of a view which was created in no_grad mode and is being "
        f"modified inplace with grad mode enabled. {AMBIGUOUS}")


def test_as_strided_of_a_no_grad_view_is_refused_as_a_view_of_it():
    x = ng.ones(4, requires_grad=True)
    with ng.no_grad():
        broadcast = x.expand(2, 4)
    assert refusal(lambda: broadcast.as_strided((2,), (2,), 0).mul_(2)).startswith(
        "Output 0 of AsStrided is a view of a view which was created in no_grad mode")


def test_refusals_name_a_numbered_node_as_torch_does():
    y = ng.ones(2, 1, 3, requires_grad=True) * 1
    assert refusal(lambda: y.split(1, 0)[0].squeeze(1).mul_(2)).startswith(
        "Output 0 of Squeeze1 is a view and is being modified inplace.")
    assert refusal(lambda: y.split(1, 0)[0].squeeze().mul_(2)).startswith(
        "Output 0 of Squeeze is a view and is being modified inplace.")


# ---- empty tensors -------------------------------------------------------------------------------
def test_softmax_and_log_softmax_of_empty_tensors():
    for shape in ((0, 3), (3, 0)):
        for dim in (0, 1):
            x = ng.zeros(*shape, requires_grad=True)
            (x.softmax(dim).sum() + x.log_softmax(dim).sum()).backward()
            assert x.grad.shape == shape


def test_median_and_mean_of_nothing_are_nan_without_a_warning():
    import warnings
    x = ng.zeros(0, 3, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        median, mean = x.median(), x.mean(0)
    assert np.isnan(median.item()) and median.requires_grad
    np.testing.assert_array_equal(values(mean), [np.nan] * 3)
    median.backward()
    assert x.grad.shape == (0, 3)
    assert ng.zeros(0, dtype=ng.int64).median().item() == -9223372036854775808


# ---- integer and bool inputs ---------------------------------------------------------------------
def test_integer_and_bool_refusals_and_result_dtypes():
    with pytest.raises(NotImplementedError, match="\"frac_cpu\" not implemented for 'Long'"):
        ng.tensor([1, 2]).frac()
    with pytest.raises(NotImplementedError,
                       match="\"lerp_kernel_scalar\" not implemented for 'Long'"):
        ng.tensor([1, 2]).lerp(ng.tensor([2, 3]), 0.5)
    with pytest.raises(RuntimeError, match="expected dtype float for `end` but got dtype long int"):
        ng.tensor([1.0, 2.0]).lerp(ng.tensor([2, 3]), 0.5)
    with pytest.raises(RuntimeError,
                       match="expected dtype float for `weight` but got dtype double"):
        ng.tensor([1.0]).lerp(ng.tensor([2.0]), ng.tensor([0.5], dtype=ng.float64))
    squared = ng.tensor([True, False]).square()
    assert squared.dtype == ng.int64 and squared.tolist() == [1, 0]


def test_where_with_a_condition_alone_is_nonzero_as_tuple():
    rows, cols = ng.where(ng.tensor([[True, False], [False, True]]))
    assert rows.tolist() == [0, 1] and cols.tolist() == [0, 1]


# ---- index families: torch's index checks --------------------------------------------------------
def test_gather_scatter_index_add_take_no_negative_index():
    a = ng.ones(3, 4)
    for write in (lambda: a.gather(1, ng.tensor([[-1]])),
                  lambda: a.scatter(1, ng.tensor([[-1]]), 1.0),
                  lambda: a.scatter_add(1, ng.tensor([[-1]]), a)):
        with pytest.raises(RuntimeError,
                           match="index -1 is out of bounds for dimension 1 with size 4"):
            write()
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 0 with size 3"):
        a.index_add(0, ng.tensor([-1]), a[:1])
    with pytest.raises(IndexError, match="^index out of range in self$"):
        a.index_select(0, ng.tensor([-1]))
    with pytest.raises(IndexError, match=r"index_copy_\(\): index -1 is out of bounds"):
        a.index_copy(0, ng.tensor([-1]), a[:1])
    assert a.index_fill(0, ng.tensor([-1]), 2.0).sum().item() == 16.0     # this one wraps


def test_index_dtype_and_shape_refusals():
    a = ng.ones(3, 4)
    cases = [
        (lambda: a.gather(1, ng.tensor([[0.0]])), RuntimeError,
         "gather(): Expected dtype int32/int64 for index"),
        (lambda: a.index_select(0, ng.tensor([True])), RuntimeError,
         "index_select(): Expected dtype int32 or int64 for index"),
        (lambda: a.index_select(0, ng.tensor([[0]])), IndexError,
         "index_select(): Index is supposed to be a vector"),
        (lambda: a.scatter(1, ng.tensor([[0.0]]), 1.0), RuntimeError,
         "scatter(): Expected dtype int32/int64 for index"),
        (lambda: a.scatter_add(1, ng.tensor([[0]]), ng.ones(1, 1, dtype=ng.float64)), RuntimeError,
         "scatter(): Expected self.dtype to be equal to src.dtype"),
        (lambda: a.index_add(0, ng.tensor([0.0]), a[:1]), RuntimeError,
         "index_add_(): Expected dtype int32/int64 for index but got: Float"),
        (lambda: a.index_add(0, ng.tensor([0, 1]), a[:1]), RuntimeError,
         "index_add_(): Number of indices (2) should be equal to source.size(dim): (1), for dim: "
         "0"),
        (lambda: a.index_add(0, ng.tensor([0]), ng.ones(1, 4, dtype=ng.float64)), RuntimeError,
         "index_add_(): self (Float) and source (Double) must have the same scalar type"),
        (lambda: a.index_fill(0, ng.tensor([0], dtype=ng.int32), 1.0), IndexError,
         "index_fill_(): Expected dtype int64 for index."),
        (lambda: a.index_copy(0, ng.tensor([0.0]), a[:1]), RuntimeError,
         "index_copy_(): Expected a long tensor for index, but got Float"),
        (lambda: a.index_copy(0, ng.tensor([0, 1]), a[:1]), IndexError,
         "index_copy_(): Number of indices (2) should be equal to source.size(dim) (1)"),
        (lambda: a.gather(1, ng.tensor([[0], [1], [2], [0]])), RuntimeError,
         "Size does not match at dimension 0 expected index [4, 1] to be no larger than self "
         "[3, 4] apart from dimension 1"),
    ]
    for call, error, message in cases:
        with pytest.raises(error) as caught:
            call()
        assert str(caught.value) == message


def test_take_along_dim_reads_indices_modulo_the_size():
    a = ng.arange(6.0).reshape(2, 3)
    assert a.take_along_dim(ng.tensor([[-1, 3, -7]]), 1).tolist() == [[2, 0, 2], [5, 3, 5]]


def test_a_list_of_index_lists_is_a_tuple_of_indices():
    a = ng.arange(12.0).reshape(3, 4)
    assert a[[[0, 1], [2, 0]]].tolist() == [2.0, 4.0]
    assert a[[(0, 1), (2, 0)]].tolist() == [2.0, 4.0]
    assert a[[0, 1]].shape == (2, 4)
    y = a.clone()
    y[[[0, 1], [2, 0]]] = -1.0
    assert y[0, 2].item() == -1.0 and y[1, 0].item() == -1.0 and y.sum().item() == 66.0 - 2 - 4 - 2


# ---- setitem: the node torch records -------------------------------------------------------------
def test_setitem_node_is_torchs_copy_fill_copyslices_or_indexput():
    x = ng.ones(3, 4, requires_grad=True)
    cases = {"y[:] = full": "CopyBackwards", "y[...] = full": "CopyBackwards",
             "y[:, 0:4] = 2.0": "FillBackward3", "y[...] = s": "FillBackward3",
             "y[0] = s": "CopySlices", "y[0, idx] = 2.0": "CopySlices",
             "y[None, idx] = 2.0": "CopySlices", "y[idx, 1:] = 2.0": "CopySlices",
             "y[:, idx] = 2.0": "IndexPutBackward0", "y[..., idx] = 2.0": "IndexPutBackward0",
             "y[mask] = 2.0": "IndexPutBackward0"}
    for statement, node in cases.items():
        s = ng.tensor(2.0, requires_grad=True)
        scope = {"y": x * 1, "full": ng.full((3, 4), 2.0), "s": s, "idx": ng.tensor([0, 2]),
                 "mask": ng.ones(3, 4, dtype=ng.bool)}
        exec(statement, scope)
        y = scope["y"]
        assert type(y.grad_fn).__name__ == node, statement
        assert y._version == 1
    y = x * 1
    s = ng.tensor(2.0, requires_grad=True)
    y[...] = s
    (y * ng.arange(12.0).reshape(3, 4)).sum().backward()
    assert s.grad.item() == 66.0
    np.testing.assert_array_equal(values(x.grad), np.zeros((3, 4)))      # overwritten: zeros


def test_indexing_a_0d_tensor_with_an_int_or_a_slice_is_torchs_error():
    t = ng.tensor(1.0)
    with pytest.raises(IndexError, match=r"^invalid index of a 0-dim tensor. Use `tensor.item\(\)` "
                                         r"in Python or `tensor.item<T>\(\)` in C\+\+ to convert a "
                                         r"0-dim tensor to a number$"):
        t[0]
    with pytest.raises(IndexError, match=r"^slice\(\) cannot be applied to a 0-dim tensor.$"):
        t[0:1]
    assert t[None].shape == (1,) and t[...].shape == ()


# ---- create_graph: second derivatives at the kinks and at 0 --------------------------------------
def test_activation_second_derivatives_at_zero_are_torchs():
    expected = {  # (first, second) derivative at x = 0, from torch 2.13
        ("silu", ()): (0.5, 0.5), ("softplus", (("beta", 2.0),)): (0.5, 0.5),
        ("elu", (("alpha", 2.0),)): (2.0, 0.0), ("celu", (("alpha", 2.0),)): (1.0, 0.0),
        ("selu", ()): (1.758099, 0.0), ("gelu", (("approximate", "tanh"),)): (0.5, 0.797885),
    }
    for (name, kw), (first, second) in expected.items():
        x = ng.tensor([0.0, 1.0], dtype=ng.float64, requires_grad=True)
        out = getattr(ng.nn.functional, name)(x, **dict(kw))
        g, = ng.autograd.grad(out.sum(), x, create_graph=True)
        h, = ng.autograd.grad(g.sum(), x)
        np.testing.assert_allclose([g[0].item(), h[0].item()], [first, second], atol=1e-6,
                                   err_msg=name)


def test_setitem_refusals_as_torch_writes_them():
    a = ng.ones(3, 4, requires_grad=True)
    assert refusal(lambda: a.__setitem__(0, 1.0)).startswith("a view of a leaf Variable")
    assert refusal(lambda: a.__setitem__(..., 1.0)).startswith("a leaf Variable")
    assert refusal(lambda: a.__setitem__([0], 1.0)).startswith("a leaf Variable")
    y = a * 1
    partial = "unsupported operation: some elements of the input tensor and the written-to tensor"
    assert refusal(lambda: y.__setitem__(slice(1, None), y[:-1])).startswith(partial)
    assert refusal(lambda: y.__setitem__([1, 2], y[:2])).startswith(partial)
    y[0] = y[0, 0]               # a 0-d value is read once (fill_), as in torch
    y[[1, 2]] = y[:2].clone()
    assert y._version == 2


def test_alpha_scales_within_the_result_dtype_with_torchs_refusals():
    ints, flags = ng.tensor([1, 2]), ng.tensor([True, False])
    assert refusal(lambda: ints.add(ints, alpha=0.5)) == (
        "For integral input tensors, argument alpha must not be a floating point number.")
    assert refusal(lambda: ng.tensor([1.0]).add(ng.tensor([1.0]), alpha=True)) == (
        "Boolean alpha only supported for Boolean results.")
    both = flags.add(flags, alpha=2)
    assert both.dtype == ng.bool and both.tolist() == [True, False]
    small = ng.tensor([1, 2], dtype=ng.int32).add(flags, alpha=2)
    assert small.dtype == ng.int32 and small.tolist() == [3, 2]


def test_writes_through_an_expanded_tensor_where_no_element_repeats():
    y = ng.zeros(1, 3)
    row = y.expand(2, 1, 3)[0][0]            # a view of an expanded tensor, nothing repeated
    row.add_(1)
    y.expand(2, 3)[:1].mul_(2)
    y.expand(2, 3)[:, :0].add_(1)            # empty: nothing written twice
    expanded = y.expand(2, 3)
    expanded[0, 0] = 5                      # the written view repeats nothing
    assert y.tolist() == [[5.0, 2.0, 2.0]]
    assert refusal(lambda: expanded.__setitem__((slice(None), 0), 1.0)).startswith(OVERLAP_ERROR)
    assert refusal(lambda: expanded.add_(1)).startswith(OVERLAP_ERROR)


def test_any_and_all_over_no_dims_reduce_nothing():
    a = ng.tensor([[0.0, 1.0], [2.0, 0.0]])
    assert a.any(dim=()).tolist() == [[False, True], [True, False]]
    assert a.all(dim=(), keepdim=True).tolist() == [[False, True], [True, False]]
    assert a.any(dim=(0, 1)).item() is True
    assert refusal(lambda: ng.tensor([1, 2]).nanmean(0)) == (
        "nanmean(): expected input to have floating point or complex dtype but got Long")


def test_aminmax_of_an_empty_tensor_and_median_of_bools():
    both = ng.zeros(2, 0, 3).aminmax(dim=0)
    assert both.min.shape == (0, 3) and both.max.shape == (0, 3)
    with pytest.raises(IndexError,
                       match="^aminmax: Expected reduction dim 1 to have non-zero size.$"):
        ng.zeros(2, 0, 3).aminmax(dim=1)
    with pytest.raises(NotImplementedError, match="\"median_out\" not implemented for 'Bool'"):
        ng.tensor([True]).median(0)


def test_fill_through_an_overlapping_view_gives_the_base_torchs_gradient():
    x = ng.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    w = ng.tensor(10.0, requires_grad=True)
    y = x * 1
    windows = y.flatten().unfold(0, 2, 1)        # the middle element is in both windows
    windows.fill_(w)
    assert y.tolist() == [[10.0, 10.0, 10.0]]
    (y.sum() + windows.sum()).backward()
    np.testing.assert_array_equal(values(x.grad), [[0.0, 0.0, 0.0]])   # all overwritten
    assert w.grad.item() == 10.0


def test_integer_and_bool_kernels_torch_lacks():
    ints, flags = ng.tensor([3, -1, 2]), ng.tensor([True, False, True])
    cases = [(lambda: ints.hypot(ints), NotImplementedError,
              "\"hypot_cpu\" not implemented for 'Long'"),
             (lambda: flags.logaddexp(flags), NotImplementedError,
              "\"logaddexp_cpu\" not implemented for 'Bool'"),
             (lambda: flags.floor(), NotImplementedError,
              "\"floor_vml_cpu\" not implemented for 'Bool'"),
             (lambda: flags.addcmul(flags, flags), NotImplementedError,
              "\"addcmul_cpu_out\" not implemented for 'Bool'"),
             (lambda: flags.kthvalue(1), NotImplementedError,
              "\"kthvalue_cpu\" not implemented for 'Bool'"),
             (lambda: flags.topk(1), RuntimeError, "topk does not support bool dtypes on CPU"),
             (lambda: ints.bincount(), RuntimeError,
              "bincount only supports 1-d non-negative integral inputs."),
             (lambda: flags.bincount(), NotImplementedError,
              "\"bincount_cpu\" not implemented for 'Bool'")]
    for call, error, message in cases:
        with pytest.raises(error) as caught:
            call()
        assert str(caught.value) == message
    assert ints.floor().tolist() == [3, -1, 2]
    assert refusal(lambda: ints.addcdiv(ints, ints)).endswith(
        "The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
        "tensor2), for all dtypes.")


def test_retain_grad_follows_a_view_read_anew_after_its_base_changed():
    x = ng.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 1
    tail = y[1:]
    tail.retain_grad()
    y.mul_(2)
    (tail * 3).sum().backward()
    np.testing.assert_array_equal(values(tail.grad), [3.0, 3.0])
    np.testing.assert_array_equal(values(x.grad), [0.0, 6.0, 6.0])


def test_a_hook_on_a_view_does_not_see_the_gradient_of_an_in_place_op_through_it():
    x = ng.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 1
    tail = y[1:]
    tail.register_hook(lambda g: g * 10)      # on the view's old history, which torch bypasses
    tail.mul_(2)
    (y * 3).sum().backward()
    np.testing.assert_array_equal(values(x.grad), [3.0, 6.0, 6.0])


def test_scatter_with_reduce_add_or_multiply():
    index, src = ng.tensor([[0, 1, 0]]), ng.tensor([[1.0, 2.0, 3.0]])
    assert ng.zeros(2, 3).scatter(0, index, src, reduce="add").tolist() == [[1, 0, 3], [0, 2, 0]]
    multiplied = ng.full((2, 3), 2.0).scatter(0, index, 3.0, reduce="multiply")
    assert multiplied.tolist() == [[6, 2, 6], [2, 6, 2]]
    assert refusal(lambda: ng.zeros(2, 3).scatter(0, index, src, reduce="mean")) == (
        "reduce argument must be either add or multiply.")
    needs_grad = ng.zeros(2, 3, requires_grad=True)
    assert refusal(lambda: needs_grad.scatter(0, index, src, reduce="add")) == (
        "derivative for aten::scatter is not implemented")


def test_three_operand_ops_promote_all_operands_at_once():
    f32 = ng.tensor([1.5, -2.0], requires_grad=True)
    wide = ng.tensor(2.5, dtype=ng.float64, requires_grad=True)
    out = ng.addcmul(wide, wide, f32)            # 0-d float64 beside a dimensioned float32: float32
    assert out.dtype == ng.float32
    np.testing.assert_allclose(values(out), [6.25, -2.5])
    doubles = ng.tensor([1.5, 2.0], dtype=ng.float64)
    mixed = doubles.lerp(doubles * 2, ng.tensor(3))   # a 0-d weight is read as a number
    assert mixed.dtype == ng.float64 and mixed.tolist() == [6.0, 8.0]
    assert refusal(lambda: doubles.lerp(doubles, ng.tensor([0.5, 0.5]))) == (
        "expected dtype double for `weight` but got dtype float")


def test_addcdiv_refuses_integer_tensor1_and_tensor2_beside_a_float_input():
    floats, ints = ng.tensor([1.0, 2.0]), ng.tensor([1, 2])
    assert refusal(lambda: floats.addcdiv(ints, ints)).startswith("Integer division with addcdiv")
    assert floats.addcdiv(floats, ints).tolist() == [2.0, 3.0]
