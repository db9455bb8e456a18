"""torch's exception type and message for the forward errors a PyTorch user commonly meets: shapes
that do not fit, indices out of range, wrong index dtypes, nn.functional and nn.Module misuse.
Each expected message is torch 2.x's (torch's own name in it is kept where numgrad keeps it), so
that a message learned from torch, or searched for, reads the same here."""
import re

import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F


def r(*shape):
    """A float32 tensor 0, 1, ... of shape."""
    return ng.arange(float(np.prod(shape))).reshape(*shape)


def long(values):
    return ng.tensor(values, dtype=ng.int64)


def exactly(message):
    return "^" + re.escape(message) + "$"


# (what, call, torch's exception type, torch's message)
CASES = [
    # ---- matmul's forms: the error of the kernel torch reaches
    ("matmul 3d @ 1d folds into mv", lambda: ng.matmul(r(2, 2, 3), r(4)), RuntimeError,
     "size mismatch, got input (4), mat (4x3), vec (4)"),
    ("matmul 2d @ 3d goes to bmm", lambda: ng.matmul(r(2, 3), r(2, 4, 5)), RuntimeError,
     "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."),
    ("matmul 1d @ 4d", lambda: ng.matmul(r(3), r(2, 2, 4, 5)), RuntimeError,
     "Expected size for first two dimensions of batch2 tensor to be: [4, 3] but got: [4, 4]."),
    ("matmul batched, broadcast batch", lambda: ng.matmul(r(2, 1, 2, 3), r(3, 4, 5)), RuntimeError,
     "Expected size for first two dimensions of batch2 tensor to be: [6, 3] but got: [6, 4]."),
    ("matmul batch dims clash", lambda: ng.matmul(r(5, 2, 2, 3), r(3, 3, 4)), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"),
    ("matmul batch clash before inner sizes", lambda: ng.matmul(r(2, 2, 3), r(3, 4, 5)),
     RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    ("matmul 2d requiring grad @ 3d folds, transposed",
     lambda: ng.matmul(r(2, 3).requires_grad_(), r(2, 4, 5)), RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (10x4 and 3x2)"),
    ("matmul 1d requiring grad @ 3d folds into mv",
     lambda: ng.matmul(r(3).requires_grad_(), r(2, 4, 5)), RuntimeError,
     "size mismatch, got input (10), mat (10x4), vec (3)"),
    ("outer of a matrix", lambda: ng.outer(r(3, 1), r(3)), RuntimeError,
     "outer: Expected 1-D argument self, but got 2-D"),
    ("ger of a matrix", lambda: ng.ger(r(3), r(3, 2)), RuntimeError,
     "outer: Expected 1-D argument vec2, but got 2-D"),
    # ---- view and reshape: torch's infer_size, its checks in its order
    ("view with -2", lambda: r(2, 3).view(-2, 3), RuntimeError,
     "invalid shape dimension -2 at index 0 of shape [-2, 3]"),
    ("view -1 then -2", lambda: r(2, 3).view(-1, -2), RuntimeError,
     "invalid shape dimension -2 at index 1 of shape [-1, -2]"),
    ("reshape with two -1", lambda: r(2, 3).reshape(-1, -1), RuntimeError,
     "only one dimension can be inferred"),
    ("reshape of 0 elements with -1 and 0", lambda: r(0, 3).reshape(-1, 0), RuntimeError,
     "cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified dimension "
     "size -1 can be any value and is ambiguous"),
    ("view -1 with a 0 size", lambda: r(2, 3).view(-1, 0), RuntimeError,
     "shape '[-1, 0]' is invalid for input of size 6"),
    ("flatten start after end", lambda: r(2, 3, 4).flatten(2, 1), RuntimeError,
     "flatten() has invalid args: start_dim cannot come after end_dim"),
    # ---- cat and stack
    ("cat of nothing", lambda: ng.cat([]), ValueError,
     "torch.cat(): expected a non-empty list of Tensors"),
    ("stack of nothing", lambda: ng.stack([]), RuntimeError, "stack expects a non-empty TensorList"),
    ("cat of a tensor", lambda: ng.cat(r(2, 3)), TypeError,
     "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    ("stack of a tensor", lambda: ng.stack(r(2, 3)), TypeError,
     "stack(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"),
    ("cat of an iterator", lambda: ng.cat(iter([r(2)])), TypeError,
     "cat(): argument 'tensors' (position 1) must be tuple of Tensors, not list_iterator"),
    ("cat with a list in it", lambda: ng.cat([r(2), [1, 2]]), TypeError,
     "expected Tensor as element 1 in argument 0, but got list"),
    ("stack with a float in it", lambda: ng.stack([r(2), 1.0]), TypeError,
     "expected Tensor as element 1 in argument 0, but got float"),
    # ---- split, repeat, roll
    ("split with a negative size", lambda: r(6).split([7, -1]), RuntimeError,
     "split_with_sizes expects split_sizes have only non-negative entries, but got "
     "split_sizes=[7, -1]"),
    ("split sizes with a negative, summing wrong", lambda: r(6).split([2, 2, -1]), RuntimeError,
     "split_with_sizes expects split_sizes have only non-negative entries, but got "
     "split_sizes=[2, 2, -1]"),
    ("repeat by a negative count", lambda: r(2, 3).repeat(2, -1), RuntimeError,
     "Trying to create tensor with negative dimension -3: [4, -3]"),
    ("repeat, new dims negative", lambda: r(2, 3).repeat(-2, -1, 2), RuntimeError,
     "Trying to create tensor with negative dimension -2: [-2, -2, 6]"),
    ("tile by a negative count", lambda: ng.tile(r(3), (-1,)), RuntimeError,
     "Trying to create tensor with negative dimension -3: [-3]"),
    ("repeat_interleave by a negative int", lambda: ng.repeat_interleave(r(3), -1), RuntimeError,
     "Repeats must be non-negative"),
    ("repeat_interleave by a negative count", lambda: ng.repeat_interleave(r(3), long([1, -1, 1])),
     RuntimeError, "repeats can not be negative"),
    ("roll, more shifts than dims", lambda: ng.roll(r(2, 3), (1, 2), dims=(0,)), RuntimeError,
     "shifts and dimensions must align. shifts: 2, dims:1"),
    ("roll, shifts without dims", lambda: ng.roll(r(2, 3), (1, 2)), RuntimeError,
     "shifts and dimensions must align. shifts: 2, dims:0"),
    ("roll, dim out of range", lambda: ng.roll(r(2, 3), 1, dims=2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ("roll, no shifts", lambda: ng.roll(r(2, 3), (), dims=()), RuntimeError, "`shifts` required"),
    # ---- scatter, index_add, index_copy, index_select, masked ops
    ("scatter index larger than src", lambda: r(2, 3).scatter(1, long([[0, 1, 2]]), r(1, 2)),
     RuntimeError, "Expected index [1, 3] to be no larger than self [2, 3] apart from dimension 1 "
                   "and to be no larger size than src [1, 2]"),
    ("scatter value, index larger than self",
     lambda: r(2, 3).scatter(1, long([[0, 1, 2]] * 3), 1.0), RuntimeError,
     "Expected index [3, 3] to be no larger than self [2, 3] apart from dimension 1"),
    ("scatter shape checked before bounds", lambda: r(2, 3).scatter(1, long([[0, 5, 1, 1]]), r(1, 1)),
     RuntimeError, "Expected index [1, 4] to be no larger than self [2, 3] apart from dimension 1 "
                   "and to be no larger size than src [1, 1]"),
    ("scatter src of other ndim", lambda: r(2, 3).scatter(1, long([[0, 1]]), r(2, 2, 2)),
     RuntimeError, "Index tensor must have the same number of dimensions as src tensor"),
    ("scatter_add index larger than src", lambda: r(2, 3).scatter_add(1, long([[0, 1, 2]]), r(1, 2)),
     RuntimeError, "Expected index [1, 3] to be no larger than self [2, 3] apart from dimension 1 "
                   "and to be no larger size than src [1, 2]"),
    ("index_add slices of other shape", lambda: r(2, 3).index_add(0, long([0]), r(1, 2)),
     RuntimeError, "source tensor shape must match self tensor shape, excluding the specified "
                   "dimension. Got self.shape = [2, 3] source.shape = [1, 2]"),
    ("index_add source of other ndim", lambda: r(2, 3).index_add(0, long([0]), r(1, 3, 1)),
     RuntimeError, "source tensor shape must match self tensor shape, excluding the specified "
                   "dimension. Got self.shape = [2, 3] source.shape = [1, 3, 1]"),
    ("index_add dtype checked before the count",
     lambda: r(2, 3).index_add(0, long([0, 1]), ng.ones(1, 3, dtype=ng.float64)), RuntimeError,
     "index_add_(): self (Float) and source (Double) must have the same scalar type"),
    ("index_add dim beyond source", lambda: r(2, 3).index_add(1, long([0]), r(3)), RuntimeError,
     "index_add_(): Indexing dim 1 is out of bounds of the source tensor with dim 1"),
    ("index_copy slices of other shape", lambda: r(2, 3).index_copy(0, long([0]), r(1, 2)),
     RuntimeError, "index_copy_(): Source/destination tensor must have same slice shapes. "
                   "Destination slice shape: 3 at dimension 0 and source slice shape: 2 at "
                   "dimension 0."),
    ("index_copy 3d slices", lambda: r(2, 3, 4).index_copy(0, long([0]), r(1, 3, 2)),
     RuntimeError, "index_copy_(): Source/destination tensor must have same slice shapes. "
                   "Destination slice shape: 3 4 at dimension 0 and source slice shape: 3 2 at "
                   "dimension 0."),
    ("index_copy shape checked before bounds", lambda: r(2, 3).index_copy(0, long([5]), r(1, 2)),
     RuntimeError, "index_copy_(): Source/destination tensor must have same slice shapes. "
                   "Destination slice shape: 3 at dimension 0 and source slice shape: 2 at "
                   "dimension 0."),
    ("index_copy source of other ndim", lambda: r(2, 3).index_copy(0, long([0]), r(1, 3, 2)),
     IndexError, "index_copy_(): When source and destination are not scalars, their "
                 "dimensionality must match. Source dimensionality (3), destination "
                 "dimensionality (2)"),
    ("index_copy scalar source, two indices", lambda: r(3).index_copy(0, long([0, 1]), ng.tensor(1.)),
     IndexError, "index_copy_(): When source is scalar, index should have one element (got 2)"),
    ("index_select out of range along dim 1", lambda: r(2, 3).index_select(1, long([0, 3])),
     RuntimeError, "INDICES element is out of DATA bounds, id=3 axis_dim=3"),
    ("index_select first bad index along dim 1", lambda: r(2, 3).index_select(-1, long([1, 5, -7])),
     RuntimeError, "INDICES element is out of DATA bounds, id=5 axis_dim=3"),
    ("index_select out of range along dim 2", lambda: r(2, 3, 4).index_select(2, long([5])),
     IndexError, "index out of range in self"),
    ("masked_fill with a float mask", lambda: r(2, 3).masked_fill(ng.ones(2, 3), 1.0), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype float"),
    ("masked_fill with a long mask",
     lambda: r(2, 3).masked_fill(ng.ones(2, 3, dtype=ng.int64), 1.0), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype long int"),
    ("masked_select mask not broadcastable",
     lambda: ng.masked_select(r(2, 3), ng.ones(2, 2, dtype=ng.bool)), RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"),
    # ---- embedding and one_hot
    ("embedding with a negative index", lambda: F.embedding(long([-1]), r(3, 2)), IndexError,
     "index out of range in self"),
    ("embedding with float indices", lambda: F.embedding(ng.tensor([0., 1.]), r(3, 2)),
     RuntimeError, "Expected tensor for argument #1 'indices' to have one of the following scalar "
                   "types: Long, Int; but got torch.FloatTensor instead (while checking arguments "
                   "for embedding)".replace("torch.", "numgrad.")),
    ("embedding with bool indices", lambda: F.embedding(ng.tensor([True]), r(3, 2)), RuntimeError,
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
     "Int; but got CPUBoolType instead (while checking arguments for embedding)"),
    ("embedding of a 1-d weight", lambda: F.embedding(long([0]), r(3)), RuntimeError,
     "'weight' must be 2-D"),
    ("embedding padding_idx out of range", lambda: F.embedding(long([0]), r(3, 2), padding_idx=3),
     AssertionError, "Padding_idx must be within num_embeddings"),
    ("embedding negative padding_idx out of range",
     lambda: F.embedding(long([0]), r(3, 2), padding_idx=-4), AssertionError,
     "Padding_idx must be within num_embeddings"),
    ("one_hot of int32", lambda: F.one_hot(ng.tensor([1, 2], dtype=ng.int32)), RuntimeError,
     "one_hot is only applicable to index tensor of type LongTensor."),
    ("one_hot of nothing, classes inferred", lambda: F.one_hot(long([])), RuntimeError,
     "Can not infer total number of classes from empty tensor."),
]


@pytest.mark.parametrize("call, error, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_torch_error(call, error, message):
    with pytest.raises(error, match=exactly(message)):
        call()


def test_inplace_errors_change_nothing():
    """An in-place op that refuses leaves its tensor, version and .grad as they were."""
    x = r(2, 3).requires_grad_()
    y = x * 1
    version = y._version
    before = y.detach().numpy().copy()
    with pytest.raises(RuntimeError, match="source tensor shape must match"):
        y.index_add_(0, long([0]), r(1, 2))
    with pytest.raises(RuntimeError, match="no larger size than src"):
        y.scatter_(1, long([[0, 1, 2]]), r(1, 2))
    with pytest.raises(RuntimeError, match="only supports boolean masks"):
        y.masked_fill_(ng.ones(2, 3), 1.0)
    assert y._version == version
    np.testing.assert_array_equal(y.detach().numpy(), before)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 3)))


def test_cat_of_legacy_empty_tensors_only():
    """torch skips 1-d empty tensors in cat; when there is nothing else, the result is empty."""
    assert tuple(ng.cat([ng.ones(0), ng.ones(0)]).shape) == (0,)
