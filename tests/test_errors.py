"""torch's errors, each raised before anything changes: .grad, versions and the graph are as they
were, and the next correct call works (DESIGN.md section 5, invariant 10). A wrong custom backward
and a wrong hook are in test_function.py and test_hooks.py."""
import numpy as np
import pytest

import numgrad as ng
from numgrad import autograd


def t64(values, requires_grad=True):
    return ng.tensor(values, dtype=ng.float64, requires_grad=requires_grad)


class Counted(autograd.Function):
    calls = 0

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        Counted.calls += 1
        (x,) = ctx.saved_tensors
        return 2 * x * g


class State:
    """.grad values and versions of some tensors, to compare after a failed call."""

    def __init__(self, *tensors):
        self.tensors = tensors
        self.before = self._read()

    def _read(self):
        return [(None if t._grad is None else t._grad._data.copy(), t._version,
                 t._data.copy()) for t in self.tensors]

    def assert_unchanged(self):
        for (grad0, version0, data0), (grad1, version1, data1) in zip(self.before, self._read()):
            assert (grad0 is None) == (grad1 is None)
            if grad0 is not None:
                np.testing.assert_array_equal(grad0, grad1)
            assert version0 == version1
            np.testing.assert_array_equal(data0, data1)


@pytest.fixture
def graph():
    """x (with a .grad already), a Counted node, a hook: y = sum(x^2 * 3)."""
    Counted.calls = 0
    x = t64([1., 2.])
    x.grad = t64([10., 10.], False)
    hooked = []
    h = Counted.apply(x)
    h.register_hook(lambda g: hooked.append(1))
    y = (h * 3).sum()
    return x, h, y, hooked


def assert_graph_usable(x, y, hooked):
    """Nothing ran; a correct backward through the same graph still works."""
    assert Counted.calls == 0 and hooked == []
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [10. + 6., 10. + 12.])
    assert Counted.calls == 1 and hooked == [1]


def test_backward_of_a_tensor_that_does_not_require_grad(graph):
    x, h, y, hooked = graph
    state = State(x)
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does "
                                           "not have a grad_fn"):
        y.detach().backward()
    with pytest.raises(RuntimeError, match="element 1 of tensors does not require grad"):
        autograd.backward([y, ng.ones(())])
    state.assert_unchanged()
    assert_graph_usable(x, y, hooked)


def test_non_scalar_backward_without_gradient(graph):
    x, h, y, hooked = graph
    state = State(x)
    scalar_only = "grad can be implicitly created only for scalar outputs"
    with pytest.raises(RuntimeError, match=scalar_only):
        h.backward()
    with pytest.raises(RuntimeError, match=scalar_only):
        autograd.grad(h, x)
    state.assert_unchanged()
    assert_graph_usable(x, y, hooked)


def test_gradient_of_the_wrong_shape(graph):
    x, h, y, hooked = graph
    state = State(x)
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of "
                                           r"numgrad.Size\(\[3\]\) and output\[0\] has a shape of "
                                           r"numgrad.Size\(\[2\]\)."):
        h.backward(ng.ones(3, dtype=ng.float64))
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[1\]"):
        autograd.grad([y, h], x, [None, ng.ones(1, dtype=ng.float64)])
    state.assert_unchanged()
    assert_graph_usable(x, y, hooked)


def test_wrong_number_of_gradients(graph):
    x, h, y, hooked = graph
    state = State(x)
    with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
        autograd.backward([y, y], [None])
    state.assert_unchanged()
    assert_graph_usable(x, y, hooked)


def test_extra_gradients_are_ignored_as_torch_does():
    # torch pairs outputs with gradients and ignores the rest; too few is the error above
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3.0).sum()
    gx, = autograd.grad(y, x, [None, ng.tensor(5.0)], retain_graph=True)
    assert gx.tolist() == [3.0, 3.0]
    autograd.backward([y], [ng.tensor(2.0), None])
    assert x.grad.tolist() == [6.0, 6.0]


def test_unused_input_raises_before_anything_runs(graph):
    x, h, y, hooked = graph
    unused = t64(1.)
    state = State(x, unused)
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 1 appears to not "
                                           "have been used in the graph. Set allow_unused=True if "
                                           "this is the desired behavior."):
        autograd.grad(y, [x, unused])
    state.assert_unchanged()
    assert Counted.calls == 0 and hooked == []
    gx, gu = autograd.grad(y, [x, unused], allow_unused=True, retain_graph=True)
    np.testing.assert_array_equal(gx.numpy(), [6., 12.])
    assert gu is None
    Counted.calls, hooked[:] = 0, []
    assert_graph_usable(x, y, hooked)


def test_bad_inputs_argument(graph):
    x, h, y, hooked = graph
    state = State(x)
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require "
                                           "grad"):
        autograd.grad(y, [x, ng.ones(2)])
    with pytest.raises(RuntimeError, match="`inputs` argument to `grad\\(\\)` cannot be empty."):
        autograd.grad(y, [])
    with pytest.raises(RuntimeError, match="`inputs` argument to `backward\\(\\)` cannot be "
                                           "empty."):
        y.backward(inputs=[])
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has "
                                           "requires_grad=False"):
        y.backward(inputs=[ng.ones(2)])
    state.assert_unchanged()
    assert_graph_usable(x, y, hooked)


def test_backward_twice_through_freed_saved_values(graph):
    x, h, y, hooked = graph
    y.backward()
    state = State(x)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()
    state.assert_unchanged()
    assert Counted.calls == 1 and hooked == [1]
    z = (Counted.apply(x) * 3).sum()          # the next correct call: a fresh forward
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [10. + 12., 10. + 24.])


def test_saved_value_modified_in_place(graph):
    x, h, y, hooked = graph
    with ng.no_grad():
        x.mul_(1)
    state = State(x)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    state.assert_unchanged()
    assert Counted.calls == 0 and hooked == []


def test_in_place_on_a_leaf_that_requires_grad(graph):
    x, h, y, hooked = graph
    state = State(x)
    for op in (lambda: x.add_(1), lambda: x.mul_(x), lambda: x.__setitem__(0, 3.),
               lambda: x.zero_(), lambda: x.copy_(ng.ones(2, dtype=ng.float64))):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                               "in an in-place operation."):
            op()
    state.assert_unchanged()
    assert x.is_leaf and x.requires_grad
    assert_graph_usable(x, y, hooked)


def test_requires_grad_on_an_integer_tensor():
    t = ng.tensor([1, 2])
    # torch's words differ with the way in: the method, the attribute, a factory
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require "
                                           "gradients$"):
        t.requires_grad_()
    with pytest.raises(RuntimeError, match="^only Tensors of floating point and complex dtype"):
        t.requires_grad = True
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype"):
        ng.tensor([1, 2], requires_grad=True)
    assert not t.requires_grad and t._version == 0
    f = t.double().requires_grad_()
    (f * f).sum().backward()
    np.testing.assert_array_equal(f.grad.numpy(), [2., 4.])


def test_numpy_of_a_tensor_that_requires_grad(graph):
    x, h, y, hooked = graph
    state = State(x)
    for t in (x, h):
        with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires "
                                               r"grad. Use tensor.detach\(\).numpy\(\) instead."):
            t.numpy()
    state.assert_unchanged()
    np.testing.assert_array_equal(h.detach().numpy(), [1., 4.])
    assert np.shares_memory(x.detach().numpy(), x.numpy(force=True))
    assert_graph_usable(x, y, hooked)


def test_a_failing_custom_backward_leaves_grad_and_graph(graph):
    class Fails(autograd.Function):
        @staticmethod
        def forward(ctx, v):
            return v * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("backward failed")

    x, h, y, hooked = graph
    state = State(x)
    z = Fails.apply(h).sum() + y
    with pytest.raises(ValueError, match="backward failed"):
        z.backward()
    state.assert_unchanged()
    Counted.calls, hooked[:] = 0, []
    assert_graph_usable(x, y, hooked)        # nothing was released: y's part still works


def test_assigning_a_grad_of_another_dtype_or_size():
    x = ng.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient with dtype 'double' to "
                                           "a tensor with grad_dtype 'Float'"):
        x.grad = ng.ones(3, dtype=ng.float64)
    with pytest.raises(RuntimeError, match=r"attempting to assign a gradient of size '\[4\]' to a "
                                           r"tensor of size '\[3\]'"):
        x.grad = ng.ones(4)
    with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None"):
        x.grad = np.ones(3)
    assert x.grad is None
    x.grad = ng.full((3,), 2.0)
    (x * x).sum().backward()                        # accumulates into the assigned grad: 2 + 2x
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 4.0, 4.0])


@pytest.mark.parametrize("op", [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a.add_(b),
                                lambda a, b: ng.where(a > 0, a, b), lambda a, b: ng.maximum(a, b)])
def test_shapes_that_do_not_broadcast(op):
    """torch's message, naming the first clash from the last dimension; nothing is recorded."""
    a = ng.ones((2, 3), requires_grad=True) * 1.0
    b = ng.ones((3, 2))
    version = a._version
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(2\) at non-singleton dimension 1$"):
        op(a, b)
    assert a._version == version
    (a + ng.ones(3)).sum().backward()


def test_copy_from_a_shape_that_does_not_broadcast():
    target = ng.ones((1, 3))
    with pytest.raises(RuntimeError, match=r"output with shape \[1, 3\] doesn't match the "
                                           r"broadcast shape \[2, 3\]"):
        target.copy_(ng.ones((2, 3)))
    assert target.tolist() == [[1.0, 1.0, 1.0]] and target._version == 0


@pytest.mark.parametrize("tensor, op, message", [
    (ng.tensor([1, 2, 3]), lambda t: t.add_(0.5), "result type Float can't be cast to the desired output type Long"),
    (ng.tensor([1, 2, 3]), lambda t: t.mul_(ng.ones(3)), "result type Float can't be cast to the desired output type Long"),
    (ng.tensor([1, 2, 3]), lambda t: t.exp_(), "result type Float can't be cast to the desired output type Long"),
    (ng.tensor([1, 2, 3], dtype=ng.int32), lambda t: t.div_(2), "result type Float can't be cast to the desired output type Int"),
    (ng.tensor([True, False]), lambda t: t.add_(1), "result type Long can't be cast to the desired output type Bool"),
])
def test_in_place_results_of_a_higher_category_are_refused(tensor, op, message):
    """float into an integer tensor (or an integer into a bool one) is torch's error, with nothing
    written; within a category the result is cast (float64 into float32)."""
    before = tensor.tolist()
    with pytest.raises(RuntimeError, match=message):
        op(tensor)
    assert tensor.tolist() == before and tensor._version == 0
    floats = ng.tensor([1.0, 2.0])
    floats.add_(ng.tensor([0.5, 0.25], dtype=ng.float64))
    assert floats.dtype == ng.float32 and floats.tolist() == [1.5, 2.25]


@pytest.mark.parametrize("shape, rows", [((2, 5), 2), ((2, 2, 5), 4), ((5,), 1)])
def test_linear_with_the_wrong_input_width(shape, rows):
    layer = ng.nn.Linear(3, 4)
    with pytest.raises(RuntimeError, match=rf"^mat1 and mat2 shapes cannot be multiplied "
                                           rf"\({rows}x5 and 3x4\)$"):
        layer(ng.ones(shape))


def test_addmm_input_must_expand_to_the_products_shape():
    """torch never widens the product to the input's shape."""
    with pytest.raises(RuntimeError, match=r"^The expanded size of the tensor \(1\) must match the "
                                           r"existing size \(3\) at non-singleton dimension 1"):
        ng.addmm(ng.ones(2, 3), ng.ones(2, 2), ng.ones(2, 1))
    bias = ng.ones(3, requires_grad=True)
    out = ng.addmm(bias, ng.ones(2, 2), ng.ones(2, 3))
    assert out.shape == (2, 3) and out.sum().item() == 18.0
    out.sum().backward()
    assert bias.grad.tolist() == [2.0, 2.0, 2.0]


def test_unary_plus_refuses_bool():
    with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor is not supported"):
        +ng.tensor([True])
    x = ng.ones(2)
    assert +x is x


def test_negating_a_bool_tensor():
    with pytest.raises(RuntimeError, match="^Negation, the `-` operator, on a bool tensor is not "
                                           "supported"):
        -ng.tensor([True])
    assert (-ng.tensor([1, 2])).tolist() == [-1, -2]


def test_cross_entropy_target_rules_follow_torch():
    """Class probabilities exactly when the target has the input's shape; otherwise class
    indices, with torch's checks on their rank and dtype."""
    logits = ng.ones((2, 3))
    with pytest.raises(RuntimeError, match="^0D or 1D target tensor expected, multi-target not "
                                           "supported$"):
        ng.nn.functional.cross_entropy(logits, ng.ones((2, 4)))
    with pytest.raises(RuntimeError, match="^expected target dtype to be Long or Byte, but got "
                                           "Float$"):
        ng.nn.functional.cross_entropy(logits, ng.ones(2))
    assert abs(ng.nn.functional.cross_entropy(ng.ones(3), ng.tensor([1])).item() - 1.0986123) < 1e-6


@pytest.mark.parametrize("write", [lambda x: x[1:].add_(x[:2]), lambda x: x[1:].copy_(x[:2]),
                                   lambda x: x.reshape(2, 2).add_(x.reshape(2, 2).t())])
def test_an_operand_overlapping_the_written_memory_in_part(write):
    x = ng.arange(4.0)
    with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input "
                                           "tensor and the written-to tensor refer to a single "
                                           "memory location"):
        write(x)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]
    x.add_(x)                                   # the very same elements are fine
    x[::2].add_(x[1::2])                        # and so is the same memory without overlap
    assert x.tolist() == [2.0, 2.0, 10.0, 6.0]


@pytest.mark.parametrize("fn, x, dim, message", [
    (ng.softmax, ng.ones((2, 3), dtype=ng.int64), 0, '"softmax_kernel_impl" not implemented for \'Long\''),
    (ng.softmax, ng.ones((2, 3), dtype=ng.int64), 1, '"softmax_lastdim_kernel_impl" not implemented for \'Long\''),
    (ng.nn.functional.log_softmax, ng.tensor([True]), 0,
     '"log_softmax_lastdim_kernel_impl" not implemented for \'Bool\''),
])
def test_softmax_of_an_integer_tensor(fn, x, dim, message):
    """torch has no integer softmax; dtype= converts first, as torch."""
    with pytest.raises(NotImplementedError, match=message):
        fn(x, dim)
    np.testing.assert_allclose(ng.softmax(ng.tensor([1, 2]), 0, dtype=ng.float32).numpy(),
                               [0.26894142, 0.73105858], rtol=1e-6)


@pytest.mark.parametrize("make, error, message", [
    (lambda: ng.zeros((2, 2.5)), TypeError,
     r"zeros\(\): argument 'size' \(position 1\) must be tuple of ints, not float"),
    (lambda: ng.ones(True), TypeError, "must be tuple of ints, not bool"),
    (lambda: ng.randn("a"), TypeError, r"randn\(\): argument 'size'"),
    (lambda: ng.ones(2, -3), RuntimeError,
     r"Trying to create tensor with negative dimension -3: \[2, -3\]"),
    (lambda: ng.arange(0, 5, 0), RuntimeError, "step must be nonzero"),
    (lambda: ng.arange(5, 0), RuntimeError, "upper bound and lower bound inconsistent with step sign"),
    (lambda: ng.linspace(0, 1, -1), RuntimeError, "number of steps must be non-negative"),
    (lambda: ng.eye(-1), RuntimeError, "n must be greater or equal to 0, got -1"),
    (lambda: float(ng.ones(2, 3)), ValueError,
     "only one element tensors can be converted to Python scalars"),
    (lambda: int(ng.ones(2)), ValueError, "only one element tensors"),
])
def test_creation_and_conversion_errors_are_torchs(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_sizes_torch_accepts():
    assert ng.zeros(ng.tensor(3)).shape == (3,)
    assert ng.zeros([2, ng.tensor(3)]).shape == (2, 3)
    assert ng.zeros(ng.ones(2, 3).shape).shape == (2, 3)
    assert ng.rand(2, 0).shape == (2, 0)
    assert ng.arange(3, 0, -1).tolist() == [3, 2, 1]


def test_the_requires_grad_attribute_of_a_non_leaf_refuses_what_the_method_lets_pass():
    h = ng.ones(2, requires_grad=True) * 2
    assert h.requires_grad_() is h
    with pytest.raises(RuntimeError, match=r"^you can only change requires_grad flags of leaf "
                                           r"variables\.$"):
        h.requires_grad = True
    with pytest.raises(RuntimeError, match="var_no_grad = var.detach()"):
        h.requires_grad = False
    assert h.requires_grad


def test_deepcopy_copies_leaves_with_their_grad_and_refuses_graph_outputs():
    import copy
    x = ng.tensor([1., 2.], requires_grad=True)
    x.grad = ng.tensor([3., 4.])
    c = copy.deepcopy(x)
    assert c is not x and c.is_leaf and c.requires_grad
    assert c.grad.tolist() == [3., 4.] and c.grad is not x.grad
    c.detach().add_(1)
    assert x.tolist() == [1., 2.]                  # the data was copied
    with pytest.raises(RuntimeError, match=r"Only Tensors created explicitly by the user \(graph "
                                           r"leaves\) support the deepcopy protocol"):
        copy.deepcopy(x * 2)
    p = copy.deepcopy(ng.nn.Parameter(ng.ones(2)))
    assert type(p) is ng.nn.Parameter and p.requires_grad


def test_T_of_more_than_two_dims_reverses_them_with_torchs_deprecation_warning():
    x = ng.ones(2, 3, 4)
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        assert x.T.shape == (4, 3, 2)


def test_operands_of_two_float_types_are_refused_by_the_ops_themselves():
    # called below the public functions' promotion, a float64 input of a float32 node was read
    # as float32 past its end (heap corruption); the ops refuse it with torch's words
    from numgrad.ops import nn_ops
    x64 = ng.randn(6, 4, dtype=ng.float64, requires_grad=True)
    w32 = ng.randn(8, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype, but got "
                                           "Double and Float"):
        nn_ops.linear(x64, w32)
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
        nn_ops.conv2d(ng.randn(1, 2, 5, 5, dtype=ng.float64), ng.randn(3, 2, 3, 3,
                                                                       requires_grad=True))
    from numgrad.ops.apply import apply
    with pytest.raises(RuntimeError, match="linear_no_bias: expected every float operand"):
        apply(nn_ops.LINEAR_NO_BIAS, (x64, w32))
    assert x64.grad is None and w32.grad is None
