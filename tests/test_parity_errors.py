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
    # ---- nn.functional: linear, bilinear, convolution, pooling
    ("linear bias of another size", lambda: F.linear(r(2, 3), r(4, 3), r(5)), RuntimeError,
     "The expanded size of the tensor (4) must match the existing size (5) at non-singleton "
     "dimension 1.  Target sizes: [2, 4].  Tensor sizes: [5]"),
    ("linear of a batch of matrices, bias wrong", lambda: F.linear(r(2, 2, 3), r(4, 3), r(5)),
     RuntimeError, "The expanded size of the tensor (4) must match the existing size (5) at "
                   "non-singleton dimension 1.  Target sizes: [4, 4].  Tensor sizes: [5]"),
    ("linear 2-d bias of another batch", lambda: F.linear(r(2, 3), r(4, 3), r(3, 4)), RuntimeError,
     "The expanded size of the tensor (2) must match the existing size (3) at non-singleton "
     "dimension 0.  Target sizes: [2, 4].  Tensor sizes: [3, 4]"),
    ("bilinear input2 of another size", lambda: F.bilinear(r(2, 3), r(2, 4), r(5, 3, 3)),
     RuntimeError, "bilinear(): input2 size does not match weight size: got 4 but expected 3"),
    ("bilinear batches differ", lambda: F.bilinear(r(2, 3), r(3, 4), r(5, 3, 4)), RuntimeError,
     "bilinear(): input batch dimensions do not match at dim 0: got 2 and 3"),
    ("bilinear inputs of other ranks", lambda: F.bilinear(r(2, 3), r(2, 1, 4), r(5, 3, 4)),
     RuntimeError, "bilinear(): input dimensions do not match: got 2 and 3"),
    ("bilinear bias of another size", lambda: F.bilinear(r(2, 3), r(2, 4), r(5, 3, 4), r(4)),
     RuntimeError, "bilinear(): bias size does not match weight size: got 4 but expected 5"),
    ("conv2d with a 3-d weight", lambda: F.conv2d(r(1, 3, 5, 5), r(2, 3, 3)), RuntimeError,
     "expected stride to be a single integer value or a list of 1 values to match the "
     "convolution dimensions, but got stride=[1, 1]"),
    ("conv2d with three strides", lambda: F.conv2d(r(1, 3, 5, 5), r(2, 3, 3, 3), stride=(1, 1, 1)),
     RuntimeError, "expected stride to be a single integer value or a list of 2 values to match "
                   "the convolution dimensions, but got stride=[1, 1, 1]"),
    ("conv2d bias of another size", lambda: F.conv2d(r(1, 3, 5, 5), r(2, 3, 3, 3), r(3)),
     RuntimeError, "Given weight of size [2, 3, 3, 3], expected bias to be 1-dimensional with 2 "
                   "elements, but got bias of size [3] instead"),
    ("conv2d channels checked before dtypes",
     lambda: F.conv2d(r(1, 4, 5, 5), ng.ones(2, 3, 3, 3, dtype=ng.float64)), RuntimeError,
     "Given groups=1, weight of size [2, 3, 3, 3], expected input[1, 4, 5, 5] to have 3 channels, "
     "but got 4 channels instead"),
    ("conv2d channels checked before the kernel's fit", lambda: F.conv2d(r(1, 4, 2, 2), r(2, 3, 3, 3)),
     RuntimeError, "Given groups=1, weight of size [2, 3, 3, 3], expected input[1, 4, 2, 2] to "
                   "have 3 channels, but got 4 channels instead"),
    ("conv2d out channels not divisible by groups",
     lambda: F.conv2d(r(1, 4, 5, 5), r(3, 2, 3, 3), groups=2), RuntimeError,
     "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size "
     "[[3, 2, 3, 3]] instead"),
    ("conv2d fewer out channels than groups",
     lambda: F.conv2d(r(1, 3, 5, 5), r(1, 3, 3, 3), groups=2), RuntimeError,
     "Given groups=2, expected weight to be at least 2 at dimension 0, but got weight of size "
     "[1, 3, 3, 3] instead"),
    ("conv2d zero groups", lambda: F.conv2d(r(1, 4, 5, 5), r(4, 2, 3, 3), groups=0), RuntimeError,
     "non-positive groups is not supported"),
    ("conv2d unknown padding string", lambda: F.conv2d(r(1, 3, 5, 5), r(2, 3, 3, 3), padding="foo"),
     RuntimeError, "Invalid padding string: 'foo'"),
    ("conv1d channels, in 1-d shapes", lambda: F.conv1d(r(1, 4, 5), r(2, 3, 3)), RuntimeError,
     "Given groups=1, weight of size [2, 3, 3], expected input[1, 4, 5] to have 3 channels, but "
     "got 4 channels instead"),
    ("conv1d with a 4-d weight", lambda: F.conv1d(r(1, 3, 5), r(2, 3, 3, 3)), RuntimeError,
     "Expected 4-dimensional input for 4-dimensional weight [2, 3, 3, 3], but got 3-dimensional "
     "input of size [1, 3, 5] instead"),
    ("conv1d with a 2-d weight", lambda: F.conv1d(r(1, 3, 5), r(2, 3)), RuntimeError,
     "weight should have at least three dimensions"),
    ("Conv1d module, channels", lambda: ng.nn.Conv1d(3, 2, 3)(r(1, 4, 5)), RuntimeError,
     "Given groups=1, weight of size [2, 3, 3], expected input[1, 4, 5] to have 3 channels, but "
     "got 4 channels instead"),
    ("max_pool2d of a matrix", lambda: F.max_pool2d(r(4, 4), 2), RuntimeError,
     "non-empty 3D or 4D (batch mode) tensor expected for input"),
    ("max_pool2d without channels", lambda: F.max_pool2d(r(1, 0, 4, 4), 2), RuntimeError,
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
     "got:[1, 0, 4, 4]"),
    ("avg_pool2d of a matrix", lambda: F.avg_pool2d(r(4, 4), 2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    ("avg_pool2d of a 5-d tensor", lambda: F.avg_pool2d(r(1, 1, 1, 4, 4), 2), RuntimeError,
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
     "got:[1, 1, 1, 4, 4]"),
    ("max_pool1d of a vector", lambda: F.max_pool1d(r(4), 2), RuntimeError,
     "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, "
     "but got:[4]"),
    ("avg_pool1d of a vector", lambda: F.avg_pool1d(r(4), 2), RuntimeError,
     "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self' (while "
     "checking arguments for avg_pool1d)"),
    # ---- losses: torch's checks in its order
    ("cross_entropy target of another batch", lambda: F.cross_entropy(r(2, 3), long([[0, 1]])),
     ValueError, "Expected input batch_size (2) to match target batch_size (1)."),
    ("nll_loss 2-d target", lambda: F.nll_loss(r(2, 3), long([[0], [1]])), RuntimeError,
     "0D or 1D target tensor expected, multi-target not supported"),
    ("cross_entropy of a 0-d input, probabilities expected",
     lambda: F.cross_entropy(ng.tensor(1.), long(0)), RuntimeError,
     "Expected floating point type for target with class probabilities, got Long"),
    ("nll_loss of a 0-d input", lambda: F.nll_loss(ng.tensor(1.), long(0)), ValueError,
     "Expected 1 or more dimensions (got 0)"),
    ("cross_entropy weight of another size", lambda: F.cross_entropy(r(2, 3), long([0, 1]),
                                                                     weight=ng.ones(4)),
     RuntimeError, "weight tensor should be defined either for all 3 classes or no classes but "
                   "got weight tensor of shape: [4]"),
    ("nll_loss weight shape checked before its dtype",
     lambda: F.nll_loss(r(2, 3), long([0, 1]), weight=ng.ones(4, dtype=ng.float64)), RuntimeError,
     "weight tensor should be defined either for all 3 classes or no classes but got weight "
     "tensor of shape: [4]"),
    ("cross_entropy label_smoothing above 1", lambda: F.cross_entropy(r(2, 3), long([0, 1]),
                                                                      label_smoothing=1.5),
     RuntimeError, "label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
    ("cross_entropy of integer logits", lambda: F.cross_entropy(long([[1, 2]]), long([0])),
     NotImplementedError, "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    ("cross_entropy of 3-d integer logits",
     lambda: F.cross_entropy(ng.ones(2, 3, 4, dtype=ng.int64), ng.ones(2, 4, dtype=ng.int64)),
     NotImplementedError, "\"log_softmax_kernel_impl\" not implemented for 'Long'"),
    ("nll_loss of integer input", lambda: F.nll_loss(long([[1, 2]]), long([0])),
     NotImplementedError, "\"nll_loss_out_frame\" not implemented for 'Long'"),
    ("nll_loss float target checked before integer input",
     lambda: F.nll_loss(ng.ones(2, 3, dtype=ng.int64), ng.ones(2)), RuntimeError,
     "expected target dtype to be Long or Byte, but got Float"),
    ("cross_entropy probabilities with ignore_index 0",
     lambda: F.cross_entropy(r(2, 3), r(2, 3), ignore_index=0), RuntimeError,
     "ignore_index is not supported for floating point target"),
    # ---- normalization, softmax, padding, resampling, distances
    ("layer_norm weight of another shape", lambda: F.layer_norm(r(2, 3), (3,), ng.ones(4)),
     RuntimeError, "Expected weight to be of same shape as normalized_shape, but got weight of "
                   "shape [4] and normalized_shape = [3]"),
    ("layer_norm bias of another shape",
     lambda: F.layer_norm(r(2, 3), (3,), ng.ones(3), ng.ones(2)), RuntimeError,
     "Expected bias to be of same shape as normalized_shape, but got bias of shape [2] and "
     "normalized_shape = [3]"),
    ("layer_norm of no dims", lambda: F.layer_norm(r(2, 3), ()), RuntimeError,
     "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
     "element, but got normalized_shape = []"),
    ("rms_norm weight of another shape", lambda: F.rms_norm(r(2, 3), (3,), ng.ones(4)),
     RuntimeError, "Expected weight to be of same shape as normalized_shape, but got weight of "
                   "shape [4] and normalized_shape = [3]"),
    ("instance_norm of one spatial element", lambda: F.instance_norm(r(2, 3, 1)), ValueError,
     "Expected more than 1 spatial element when training, got input size "
     "torch.Size([2, 3, 1])".replace("torch.", "numgrad.")),
    ("pad in an unknown mode", lambda: F.pad(r(1, 1, 3), (1, 1), mode="foo"), NotImplementedError,
     "Unrecognised padding mode foo"),
    ("interpolate in an unknown mode", lambda: F.interpolate(r(1, 1, 3, 3), size=4, mode="foo"),
     NotImplementedError, "Input Error: Only 3D, 4D and 5D input Tensors supported (got 4D) for "
                          "the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos "
                          "| area | nearest-exact (got foo)"),
    ("gelu with an unknown approximation", lambda: F.gelu(r(3), approximate="foo"), RuntimeError,
     "approximate argument must be either none or tanh."),
    ("fold channels not divisible", lambda: F.fold(r(1, 5, 4), (3, 3), 2), RuntimeError,
     "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
     "input.size(1)=5 and kernel_size=(2, 2)."),
    ("cosine_similarity of unbroadcastable inputs",
     lambda: F.cosine_similarity(r(2, 3), r(2, 4)), RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    # ---- nn.Module and optimizer misuse
    ("load_state_dict of a list", lambda: ng.nn.Linear(3, 4).load_state_dict([1, 2]), TypeError,
     "Expected state_dict to be dict-like, got <class 'list'>."),
    ("load_state_dict of a non-tensor value",
     lambda: ng.nn.Linear(3, 4).load_state_dict({"weight": ng.ones(4, 3), "bias": [1, 2, 3, 4]}),
     RuntimeError, "Error(s) in loading state_dict for Linear:\n\tWhile copying the parameter named "
                   "\"bias\", expected torch.Tensor or Tensor-like object from checkpoint but "
                   "received <class 'list'>".replace("torch.", "numgrad.")),
    ("register_parameter of a tensor", lambda: ng.nn.Module().register_parameter("a", ng.ones(3)),
     TypeError, "cannot assign 'torch.FloatTensor' object to parameter 'a' (torch.nn.Parameter or "
                "None required)".replace("torch.", "numgrad.")),
    ("assigning a tensor to a parameter",
     lambda: setattr(ng.nn.Linear(2, 2), "weight", ng.ones(2, 2, dtype=ng.int64)), TypeError,
     "cannot assign 'torch.LongTensor' as parameter 'weight' (torch.nn.Parameter or None "
     "expected)".replace("torch.", "numgrad.")),
    ("add_module of a tensor", lambda: ng.nn.Module().add_module("a", ng.ones(2)), TypeError,
     "torch.FloatTensor is not a Module subclass".replace("torch.", "numgrad.")),
    ("optimizer groups mixing a dict and a tensor",
     lambda: ng.optim.SGD([{"params": [ng.nn.Parameter(ng.ones(3))]},
                           ng.nn.Parameter(ng.ones(3))], lr=0.1), TypeError,
     "param_group must be a dict, but got <class 'torch.nn.parameter.Parameter'>"
     .replace("torch.", "numgrad.")),
    # ---- basic indexing: the dim is numbered by the item's place in the index
    ("index after None", lambda: r(2, 3, 4)[None, 5], IndexError,
     "index 5 is out of bounds for dimension 1 with size 2"),
    ("index after None and an int", lambda: r(2, 3, 4)[None, 0, 5], IndexError,
     "index 5 is out of bounds for dimension 2 with size 3"),
    ("index after an ellipsis", lambda: r(2, 3, 4)[..., 9], IndexError,
     "index 9 is out of bounds for dimension 1 with size 4"),
    ("index after an int and None", lambda: r(2, 3, 4)[0, None, 5], IndexError,
     "index 5 is out of bounds for dimension 2 with size 3"),
    ("index after None, a tensor and an ellipsis", lambda: r(2, 3, 4)[None, long([0]), ..., 9],
     IndexError, "index 9 is out of bounds for dimension 3 with size 4"),
    ("clip_grad_norm_ with a string norm type and no gradients",
     lambda: ng.nn.utils.clip_grad_norm_([ng.nn.Parameter(ng.ones(2))], 1.0, norm_type="fro"),
     ValueError, "could not convert string to float: 'fro'"),
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


@pytest.mark.parametrize("call, name", [
    (lambda: F.softmax(r(2, 3)), "softmax"),
    (lambda: F.softmax(ng.tensor(1.0)), "softmax"),
    (lambda: F.log_softmax(r(2, 3)), "log_softmax"),
    (lambda: F.softmin(r(2, 3)), "softmin"),
])
def test_implicit_softmax_dim_warns_in_torchs_words(call, name):
    with pytest.warns(UserWarning, match=exactly(f"Implicit dimension choice for {name} has been "
                                                 f"deprecated. Change the call to include dim=X as "
                                                 f"an argument.")):
        call()


def test_elementwise_loss_of_another_shape_warns_and_broadcasts():
    with pytest.warns(UserWarning, match=exactly(
            "Using a target size (torch.Size([3])) that is different to the input size "
            "(torch.Size([2, 3])). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.".replace("torch.", "numgrad."))):
        loss = F.mse_loss(r(2, 3), r(3))
    assert loss.item() == pytest.approx(float(((r(2, 3) - r(3)) ** 2).mean()))


def test_load_state_dict_keys_strict_and_not():
    """strict: torch's message, missing keys first; not strict: the lists, and the values that fit
    are loaded."""
    lin = ng.nn.Linear(3, 4)
    state = {"weight": ng.zeros(4, 3), "foo": ng.ones(1)}
    with pytest.raises(RuntimeError, match=exactly(
            'Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "bias". '
            '\n\tUnexpected key(s) in state_dict: "foo". ')):
        lin.load_state_dict(state)
    result = lin.load_state_dict(state, strict=False)
    assert (result.missing_keys, result.unexpected_keys) == (["bias"], ["foo"])
    assert not lin.weight.detach().numpy().any()


def test_cat_of_legacy_empty_tensors_only():
    """torch skips 1-d empty tensors in cat; when there is nothing else, the result is empty."""
    assert tuple(ng.cat([ng.ones(0), ng.ones(0)]).shape) == (0,)


def test_max_unpool_names_the_last_invalid_index_as_torch():
    values = ng.ones(2, 1, 2, 2)
    indices = ng.tensor([[[[0, 17], [1, 1]]], [[[0, 19], [1, 1]]]])
    with pytest.raises(RuntimeError, match=r"^Found an invalid max index: 19 \(output volumes are "
                                           r"of size 4x4\)$"):
        ng.nn.functional.max_unpool2d(values, indices, 2)


def test_isclose_and_broadcast_tensors_name_the_clash_nearest_the_last_dim():
    message = (r"^The size of tensor a \(3\) must match the size of tensor b \(4\) at "
               r"non-singleton dimension 2$")
    for fn in (ng.isclose, ng.allclose, ng.broadcast_tensors):
        with pytest.raises(RuntimeError, match=message):
            fn(ng.ones(5, 2, 3), ng.ones(4, 2, 4))


def test_device_strings_and_requires_grad_flags_are_checked_as_torch():
    x = ng.ones(2)
    for text in ("float99", "cuda:x", "cuda:01", "cuda:1:2"):
        with pytest.raises(RuntimeError, match=f"^Invalid device string: '{text}'$"):
            x.to(text)
    with pytest.raises(RuntimeError, match="^Expected one of cpu, cuda device type at start of "
                                           "device string: gpu$"):
        ng.device("gpu")
    assert ng.device("cuda:1") == ng.device("cuda", 1) and str(ng.device("cpu:0")) == "cpu:0"
    for flag in ("x", 1):
        with pytest.raises(TypeError, match=r"^requires_grad_\(\): argument 'requires_grad' "
                                            rf"\(position 1\) must be bool, not {type(flag).__name__}$"):
            x.requires_grad_(flag)
    assert not x.requires_grad


def test_fill_refuses_a_value_with_dimensions_recorded_or_not():
    for x in (ng.zeros(3), ng.zeros(3, requires_grad=True) * 1):
        with pytest.raises(RuntimeError, match="^fill_ only supports 0-dimension value tensor but "
                                               "got tensor with 1 dimensions.$"):
            x.fill_(ng.ones(3))
        assert x.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
def test_the_degrees_of_freedom_warning_names_the_function_called(name):
    with pytest.warns(UserWarning, match=f"^{name}\\(\\): degrees of freedom is <= 0. Correction "
                                         "should be strictly less than the reduction factor"):
        getattr(ng, name)(ng.ones(1))


def test_creation_and_small_op_errors_are_torchs():
    cases = [
        (lambda: ng.tensor("a"), TypeError, "new(): invalid data type 'str'"),
        (lambda: ng.tensor([[1, 2], [3]]), ValueError, "expected sequence of length 2 at dim 1 (got 1)"),
        (lambda: ng.tensor([[[1], [2]], [[3, 3], [4, 3]]]), ValueError,
         "expected sequence of length 1 at dim 2 (got 2)"),
        (lambda: ng.tensor([[1, 2], 3]), TypeError, "not a sequence"),
        (lambda: ng.zeros_like([1, 2]), TypeError,
         "zeros_like(): argument 'input' (position 1) must be Tensor, not list"),
        (lambda: ng.full_like(np.ones(2), 1.0), TypeError,
         "full_like(): argument 'input' (position 1) must be Tensor, not numpy.ndarray"),
        (lambda: ng.full((2,), [1, 2]), TypeError,
         "full(): argument 'fill_value' (position 2) must be Number, not list"),
        (lambda: ng.randperm(-1), RuntimeError,
         "Trying to create tensor with negative dimension -1: [-1]"),
        (lambda: ng.tensor([1, 2], dtype=ng.int32).masked_fill(ng.tensor([True, False]), 2**31),
         RuntimeError, "value cannot be converted to type int without overflow"),
        (lambda: ng.tensordot(ng.ones(2, 2), ng.ones(2, 2, dtype=ng.float64), 1), RuntimeError,
         "both inputs should have same dtype"),
        (lambda: ng.inner(ng.ones(2), ng.ones(2, dtype=ng.float64)), RuntimeError,
         "both inputs should have same dtype"),
        (lambda: ng.cross(ng.ones(3), ng.ones(3, dtype=ng.float64), dim=0), RuntimeError,
         "expected scalar type Float but found Double"),
        (lambda: bool(ng.tensor([])), RuntimeError,
         "Boolean value of Tensor with no values is ambiguous"),
    ]
    for fn, error, message in cases:
        with pytest.raises(error, match="^" + re.escape(message) + "$"):
            fn()
    assert ng.tensor([[1.0, 2.0], [3.0, 4.0]]).shape == (2, 2)


def test_setting_data_and_seeding_backward_check_types_as_torch():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="data set to a tensor that requires gradients must be "
                                           "floating point or complex dtype"):
        x.data = ng.tensor([1, 2])
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        x.data = [1.0, 2.0]
    assert x.dtype == ng.float32 and x.tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="gradients can be either Tensors or None, but got float"):
        (x * 2).backward([1.0, 1.0])
    assert x.grad is None
    (x * 2).sum().backward()
    x.data = ng.tensor([5.0, 6.0, 7.0])      # a new shape: its next gradient cannot be added
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of "
                                           r"tensor b \(3\) at non-singleton dimension 0"):
        (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
