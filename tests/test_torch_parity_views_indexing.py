"""Shape ops, indexing and writes into tensors checked against torch 2.13: the nodes torch records
(one per view its indexing applies), what they keep, the views it takes of a written value, and
its messages. Every expected value below is what torch 2.13 gives for the same code."""
import numpy as np
import pytest

import numgrad as ng

DTYPES = [ng.float32, ng.float64]


def chain(t, stop="MulBackward0"):
    """The names of the nodes from t's grad_fn down its first edges, until `stop`."""
    names, node = [], t.grad_fn
    while node is not None and node.name() != stop:
        names.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return names


def edges(t):
    return [None if n is None else n.name() for n, _ in t.grad_fn.next_functions]


def nonleaf(shape, dtype=ng.float64):
    x = ng.tensor(np.arange(np.prod(shape), dtype=np.float64).reshape(shape) / 4 - 1,
                  dtype=dtype, requires_grad=True)
    return x, x * 1


# ---- indexing: one node per view torch's indexing applies ---------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_each_int_and_slice_of_an_index_is_a_node_of_its_own(dtype):
    x, y = nonleaf((3, 4), dtype)
    z = y[0, 1]
    # torch 2.13: SelectBackward0 -> SelectBackward0 -> MulBackward0
    assert chain(z) == ["SelectBackward0", "SelectBackward0"]
    assert z.grad_fn._saved_self_sym_sizes == (4,) and z.grad_fn._saved_index == 1
    inner = z.grad_fn.next_functions[0][0]
    assert inner._saved_self_sym_sizes == (3, 4) and inner._saved_dim == 0
    z.backward()
    expected = np.zeros((3, 4))
    expected[0, 1] = 1
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_a_slice_that_starts_below_zero_is_applied_even_where_it_takes_the_whole_dim():
    _, y = nonleaf((3, 4))
    z = y[-3:, 0]
    # torch 2.13: SelectBackward0 -> SliceBackward0 (start shown as uint64, as torch shows -3)
    assert chain(z) == ["SelectBackward0", "SliceBackward0"]
    inner = z.grad_fn.next_functions[0][0]
    assert inner._saved_start == 18446744073709551613 and inner._saved_end == 2 ** 63 - 1
    assert chain(y[0:3:1, 0]) == chain(y[:100, 1]) == ["SelectBackward0"]
    assert chain(y[:]) == ["SliceBackward0"]            # one slice alone is never skipped
    assert chain(y[:, :]) == ["AliasBackward0"]


def test_nones_and_bools_unsqueeze_before_the_index_op():
    _, y = nonleaf((3, 4))
    assert chain(y[1:, None]) == ["UnsqueezeBackward0", "SliceBackward0"]
    z = y[False, 1]
    # torch 2.13: IndexBackward0 -> SelectBackward0 -> UnsqueezeBackward0
    assert chain(z) == ["IndexBackward0", "SelectBackward0", "UnsqueezeBackward0"]
    assert z.shape == (0, 4) and z.grad_fn._saved_self_sym_sizes == (1, 4)
    t = y[True]
    assert chain(t) == ["IndexBackward0", "UnsqueezeBackward0"]
    assert t.grad_fn._saved_self_sym_sizes == (1, 3, 4)
    assert t.grad_fn._saved_indices[0].tolist() == [0]


def test_index_arrays_apply_after_the_views_and_the_node_keeps_them():
    x, y = nonleaf((3, 4, 5))
    z = y[1:, [0, 2, 2], ::2]
    # torch 2.13: IndexBackward0 -> SliceBackward0 -> SliceBackward0
    assert chain(z) == ["IndexBackward0", "SliceBackward0", "SliceBackward0"]
    assert z.grad_fn._saved_self_sym_sizes == (2, 4, 3)
    indices = z.grad_fn._saved_indices
    assert indices[0] is None and indices[1].tolist() == [0, 2, 2] and len(indices) == 2
    z.sum().backward()
    expected = np.zeros((3, 4, 5))
    expected[1:, 0, ::2] = 1
    expected[1:, 2, ::2] = 2                            # the repeated index accumulates
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_a_string_index_is_refused_as_torch_refuses_to_make_a_tensor_of_it():
    _, y = nonleaf((3, 4))
    raises(TypeError, "new(): invalid data type 'str'", lambda: y[0, "a"])
    raises(TypeError, "new(): invalid data type 'bytes'", lambda: y.__setitem__(b"a", 1.0))


def test_an_ellipsis_of_no_dims_between_arrays_keeps_them_adjacent():
    x = ng.tensor(np.arange(32.0).reshape(4, 4, 2), requires_grad=True)
    z = x[1:3:2, ng.tensor([[3], [3]]), ..., ng.tensor([[-1], [0]])]
    # torch 2.13: shape (1, 2, 1): the arrays' dims stay where the arrays are
    assert z.shape == (1, 2, 1)
    np.testing.assert_array_equal(z.detach().numpy(), [[[15.0], [14.0]]])


# ---- writing a value: the views torch takes of it ------------------------------------------------
@pytest.mark.parametrize("index, value_shape, expected", [
    (slice(1, None), (4,), ["ExpandBackward0", "ViewBackward0"]),
    (slice(1, None), (1, 1), ["ExpandBackward0", "ViewBackward0"]),
    (slice(1, None), (1, 2, 4), ["ViewBackward0"]),
    (slice(1, None), (2, 4), []),
    (slice(1, None), (), []),
    (0, (1, 4), ["ViewBackward0"]),
    ((0, 1), (1,), ["ViewBackward0"]),
    (([0, 2],), (1, 2, 4), ["ViewBackward0"]),
    (([0, 2],), (4,), []),
])
def test_setitem_views_and_expands_the_value_as_torch(index, value_shape, expected):
    x, y = nonleaf((3, 4))
    v = ng.ones(value_shape, dtype=ng.float64, requires_grad=True)
    y[index] = v
    node = y.grad_fn.next_functions[1][0]
    names = []
    while node.name() != "torch::autograd::AccumulateGrad":
        names.append(node.name())
        node = node.next_functions[0][0]
    assert names == expected and node.variable is v
    y.sum().backward()
    assert v.grad.shape == value_shape


def test_setitem_through_a_slice_that_starts_below_zero_writes_through_a_view():
    _, y = nonleaf((3, 4))
    y[-3:] = 2.0
    assert y.grad_fn.name() == "torch::autograd::CopySlices"    # torch 2.13
    _, y = nonleaf((3, 4))
    y[0:100] = 2.0
    assert y.grad_fn.name() == "FillBackward3"


def test_index_add_with_alpha_lists_the_source_itself():
    x, y = nonleaf((3, 4))
    s = ng.ones(3, 2, dtype=ng.float64, requires_grad=True)
    out = y.index_add(1, ng.tensor([1, 1]), s, alpha=2)
    # torch 2.13: next_functions (MulBackward0, AccumulateGrad of s)
    assert edges(out) == ["MulBackward0", "torch::autograd::AccumulateGrad"]
    out.sum().backward()
    np.testing.assert_array_equal(s.grad.numpy(), np.full((3, 2), 2.0))


# ---- shape ops -----------------------------------------------------------------------------------
def test_expand_to_fewer_dims_names_the_tensor_as_torch():
    with pytest.raises(RuntimeError) as e:
        ng.zeros(2, 3, 2).expand(3, 2)
    assert str(e.value) == ("expand(torch.FloatTensor{[2, 3, 2]}, size=[3, 2]): the number of "
                            "sizes provided (2) must be greater or equal to the number of "
                            "dimensions in the tensor (3)")
    with pytest.raises(RuntimeError, match=r"^expand\(CPUBoolType\{\[2, 3\]\}, size=\[3\]\)"):
        ng.zeros(2, 3, dtype=ng.bool).expand(3)


def test_ravel_of_a_non_contiguous_tensor_views_its_copy():
    _, y = nonleaf((2, 3))
    # torch 2.13: ViewBackward0 -> CloneBackward0 (reshape would end in UnsafeViewBackward0)
    assert chain(y.t().ravel()) == ["ViewBackward0", "CloneBackward0", "TBackward0"]
    assert chain(y.t().reshape(-1)) == ["UnsafeViewBackward0", "CloneBackward0", "TBackward0"]


def test_unsafe_split_pieces_are_no_views():
    x, y = nonleaf((5, 4))
    a, b, c = ng.unsafe_split(y, 2)
    assert a.grad_fn.name() == "UnsafeSplitBackward0"
    assert ng.unsafe_split_with_sizes(y, [2, 3])[0].grad_fn.name() == \
        "UnsafeSplitWithSizesBackward0"
    assert y.unsafe_chunk(2)[0].grad_fn.name() == "UnsafeSplitBackward0"
    a.mul_(2)                       # torch 2.13: versions y 0, a 1, b 0; no error at backward
    assert (y._version, a._version, b._version) == (0, 1, 0)
    (a.sum() + b.sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy()[:, 0], [2, 2, 1, 1, 0])


def test_cat_keeps_a_legacy_empty_input_as_an_input_of_its_node():
    a = ng.ones(2, 3, requires_grad=True)
    b = ng.zeros(0, dtype=ng.float64, requires_grad=True)
    out = ng.cat([a, b], 1)
    # torch 2.13: float64, both AccumulateGrads listed, b's gradient an empty tensor
    assert out.dtype == ng.float64 and out.shape == (2, 3)
    assert edges(out) == ["torch::autograd::AccumulateGrad"] * 2
    out.sum().backward()
    assert b.grad.shape == (0,) and a.grad.shape == (2, 3)
    out = ng.cat([a, ng.tensor([])])
    assert edges(out) == ["torch::autograd::AccumulateGrad", None]


# ---- setitem's refusals: torch views self first, and that view names the refusal -----------------
_MULTI = ("is a view and is being modified inplace. This view is the output of a function that "
          "returns multiple views.")


@pytest.mark.parametrize("write, op", [
    (lambda piece, w: piece.__setitem__(0, 2.0), "Select"),
    (lambda piece, w: piece.__setitem__((None, 1), 2.0), "Select"),
    (lambda piece, w: piece.__setitem__(slice(0, 1), w[0]), "Slice"),
    (lambda piece, w: piece.__setitem__(slice(None), 2.0), "Unbind"),   # no view: the piece's own
    (lambda piece, w: piece.__setitem__([0, 1], 2.0), "Unbind"),
])
def test_setitem_into_a_piece_of_unbind_names_the_view_its_index_takes(write, op):
    _, y = nonleaf((3, 4))
    w = ng.ones(4, dtype=ng.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match=f"^Output 0 of {op} {_MULTI}"):
        write(y.unbind()[0], w)
    assert y._version == 0


def test_setitem_into_a_piece_whose_base_changed_refuses_the_stale_piece():
    _, y = nonleaf((3, 4))
    piece = y.unbind()[0]
    y.exp_()
    with pytest.raises(RuntimeError, match="^Output 0 of Unbind is a view and its base or another "
                                           "view of its base has been modified inplace"):
        piece[0] = 2.0


def test_setitem_into_a_view_made_without_grad_names_the_new_view():
    _, y = nonleaf((3, 4))
    with ng.no_grad():
        v = y[0:2]
    with pytest.raises(RuntimeError, match="^Output 0 of Select is a view of a view which was "
                                           "created in no_grad mode and is being modified inplace "
                                           "with grad mode enabled"):
        v[0] = 2.0
    # a value that does not fit is refused first, by the expand torch's copy_to takes
    with pytest.raises(RuntimeError, match=r"^expand\(torch.DoubleTensor\{\[4\]\}, size=\[\]\)"):
        v[1][0] = ng.ones(4, dtype=ng.float64, requires_grad=True)


def test_a_lone_bool_index_writes_through_an_unsqueeze_or_not_at_all():
    _, y = nonleaf((3, 4))
    y[False] = 2.0                                  # torch 2.13: nothing written, version 0
    assert y.grad_fn.name() == "MulBackward0" and y._version == 0
    y[True] = 2.0
    assert y.grad_fn.name() == "torch::autograd::CopySlices" and y._version == 1
    assert y.tolist() == [[2.0] * 4] * 3


def test_a_view_of_an_inference_tensor_is_refused_as_the_inference_tensor():
    with ng.inference_mode():
        v = ng.ones(3, 4)[0:2]
    w = ng.ones(4, requires_grad=True)
    with pytest.raises(RuntimeError, match="^Inplace update to inference tensor outside "
                                           "InferenceMode is not allowed"):
        v.mul_(w[0])


# ---- what the writing and gathering nodes keep ----------------------------------------------------
def test_scatter_and_index_nodes_keep_torchs_arguments():
    _, y = nonleaf((3, 4))
    s = ng.ones(2, 4, dtype=ng.float64, requires_grad=True)
    i = ng.tensor([[0, 1, 2, 0], [2, 0, 0, 1]])
    j = ng.tensor([2, 0])
    node = ng.scatter(y, -1, i[:, :2], s[:, :2]).grad_fn
    # torch 2.13 shows a negative dim as its uint64 bits
    assert node._saved_dim == 2 ** 64 - 1 and node._saved_index.tolist() == [[0, 1], [2, 0]]
    node = ng.scatter_reduce(y, 0, i, s, "amax", include_self=False).grad_fn
    assert (node._saved_dim, node._saved_reduce, node._saved_include_self) == (0, "amax", False)
    node = ng.index_add(y, 0, j, s, alpha=2).grad_fn
    assert (node._saved_dim, node._saved_alpha, node._saved_source_dim) == (0, 2, 2)
    assert node._saved_index.tolist() == [2, 0]
    node = ng.index_copy(y, 0, j, s).grad_fn
    assert (node._saved_dim, node._saved_source_dim) == (0, 2)
    assert y.index_fill(1, j, 1.0).grad_fn._saved_index.tolist() == [2, 0]
    assert y.gather(0, i).grad_fn._saved_index.tolist() == i.tolist()
    assert y.index_select(1, j).grad_fn._saved_index.tolist() == [2, 0]
    node = y.put(j, s[0, :2], accumulate=True).grad_fn
    assert node._saved_accumulate is True and node._saved_index.tolist() == [2, 0]
    mask = ng.tensor([True, False, True, True])
    node = y.masked_scatter(mask, ng.ones(12, dtype=ng.float64)).grad_fn
    assert node._saved_source_sym_sizes == (12,) and node._saved_mask.shape == (4,)
    assert y.masked_select(mask).grad_fn._saved_mask.tolist() == [True, False, True, True]


def test_setitem_with_index_arrays_keeps_them_on_index_put():
    _, y = nonleaf((3, 4))
    y[:, [0, 2]] = 1.0
    node = y.grad_fn
    assert node.name() == "IndexPutBackward0" and node._saved_accumulate is False
    assert node._saved_indices[0] is None and node._saved_indices[1].tolist() == [0, 2]


def test_a_view_regenerated_after_its_base_changed_keeps_its_geometry():
    _, y = nonleaf((3, 4))
    v = y[1:]
    y.mul_(2)
    node = v.grad_fn
    # torch 2.13: AsStridedBackward0 with size (2, 4), stride (4, 1), storage_offset 4
    assert node.name() == "AsStridedBackward0"
    assert (node._saved_size, node._saved_stride, node._saved_storage_offset) == ((2, 4), (4, 1), 4)


# ---- shape ops' checks, in torch's order -----------------------------------------------------------
def raises(error, message, fn):
    with pytest.raises(error) as e:
        fn()
    assert str(e.value).split("\nException raised from")[0] == message


def test_a_0_d_tensor_has_dims_minus_1_and_0():
    _, y = nonleaf(())
    out_of_range = "Dimension out of range (expected to be in range of [-1, 0], but got {})"
    raises(IndexError, out_of_range.format(1), lambda: y.flatten(1))
    raises(IndexError, out_of_range.format(-2), lambda: y.squeeze(-2))
    raises(IndexError, out_of_range.format(1), lambda: y.transpose(1, 0))
    raises(IndexError, out_of_range.format(-2), lambda: y.unbind(-2))
    raises(IndexError, "Dimension specified as 0 but tensor has no dimensions", lambda: y.unbind(-1))
    raises(IndexError, "Dimension specified as 0 but tensor has no dimensions",
           lambda: ng.roll(y, 1, 0))
    raises(RuntimeError, "unflatten got an unexpected error:\nDimension specified as 0 but tensor "
                         "has no dimensions", lambda: y.unflatten(0, (1,)))
    # torch 2.13 records a node for these, none of which changes anything
    assert y.transpose(0, -1).grad_fn.name() == "TransposeBackward0"
    assert ng.movedim(y, 0, -1).grad_fn.name() == "AliasBackward0"
    assert y.flatten(-1).grad_fn.name() == "ViewBackward0"


def test_narrow_split_chunk_and_expand_check_in_torchs_order():
    _, y = nonleaf((3, 2))
    raises(RuntimeError, "narrow(): length must be non-negative.", lambda: y.narrow(5, 0, -1))
    raises(RuntimeError, "start (2) + length (2) exceeds dimension size (2).",
           lambda: y.narrow(1, 2, 2))
    assert y.narrow(1, 2, 0).shape == (3, 0)          # start == size: an empty piece at the end
    raises(RuntimeError, "split expects split_size be non-negative, but got split_size=-1",
           lambda: y.split(-1, 5))
    raises(RuntimeError, "chunk expects at least a 1-dimensional tensor",
           lambda: nonleaf(())[1].chunk(-1))
    # the dims from the last one back
    raises(RuntimeError, "The expanded size of the tensor (2) must match the existing size (3) at "
                         "non-singleton dimension 2.  Target sizes: [2, 1, 2].  Tensor sizes: [2, 3]",
           lambda: nonleaf((2, 3))[1].expand(2, 1, 2))
    raises(RuntimeError, "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 0 "
                         "(3) in the input tensor", lambda: y.unflatten(-2, (2, 2)))


def test_numpy_integers_in_a_shape_are_shown_as_ints():
    _, y = nonleaf((3, 3))
    raises(RuntimeError, "shape '[9, 1, 2]' is invalid for input of size 9",
           lambda: y.reshape(np.int64(9), np.int64(1), 2))


# ---- gathering and adding by index: 0-d and empty cases ------------------------------------------
def test_a_0_d_index_gathers_a_0_d_result():
    x, y = nonleaf((3,))
    out = ng.take(y, ng.tensor(1))
    assert out.shape == () and out.grad_fn.name() == "TakeBackward0"    # torch 2.13: shape ()
    out.backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]
    s, z = nonleaf(())
    assert ng.gather(z, 0, ng.tensor(0)).shape == ()
    assert ng.gather(y, 0, ng.tensor(2)).tolist() == y[2].tolist()   # a 0-d index of a vector
    assert z.index_select(0, ng.tensor([0])).shape == ()


def test_gather_of_an_empty_index_checks_nothing_else():
    _, y = nonleaf((2, 2, 2))
    # torch 2.13: neither the dims nor the sizes of an empty index are checked
    assert ng.gather(y, 0, ng.tensor([], dtype=ng.int64)).shape == (0,)
    assert ng.gather(y, 0, ng.zeros(0, 3, 0, dtype=ng.int64)).shape == (0, 3, 0)


def test_index_select_and_index_add_of_a_0_d_tensor():
    s, z = nonleaf(())
    raises(RuntimeError, "index_select(): Index to scalar can have only 1 value, got 2 value(s)",
           lambda: z.index_select(0, ng.tensor([0, 0])))
    src = ng.tensor(2.0, dtype=ng.float64, requires_grad=True)
    out = z.index_add(0, ng.tensor([0]), src)
    out.backward()
    assert out.shape == () and src.grad.item() == 1.0
    raises(IndexError, "Dimension specified as 0 but tensor has no dimensions",
           lambda: z.index_add(0, ng.tensor([0, 0]), src))
    raises(IndexError, "index out of range in self", lambda: z.index_add(0, ng.tensor([1]), src))
    raises(RuntimeError, "source tensor shape must match self tensor shape, excluding the specified "
                         "dimension. Got self.shape = [3] source.shape = []",
           lambda: nonleaf((3,))[1].index_add(0, ng.tensor([1]), src))
    raises(IndexError, "index out of range in self",
           lambda: nonleaf((3,))[1].index_add(0, ng.tensor([5]), ng.ones(1, dtype=ng.float64)))


def test_scatter_add_checks_the_index_against_self_first():
    raises(RuntimeError, "Index tensor must have the same number of dimensions as self tensor",
           lambda: ng.scatter_add(ng.zeros(3, 3, 1), 0, ng.zeros(2, 2, dtype=ng.int64),
                                  ng.ones(2, 2, 2)))


def test_a_crop_by_negative_padding_is_one_node_over_the_input():
    x, y = nonleaf((2, 3))
    out = ng.nn.functional.pad(y, (-1, 1))
    # torch 2.13: ConstantPadNdBackward0 -> MulBackward0, pad kept as given (-1 as its uint64 bits)
    assert edges(out) == ["MulBackward0"] and out.grad_fn._saved_pad == (2 ** 64 - 1, 1)
    out.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]]
