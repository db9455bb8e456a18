"""torch's out= keyword (numgrad/out_argument.py): the result written in place into the given
tensors, its refusals in torch's words, and nothing changed by a refused call."""
import warnings

import numpy as np
import pytest

import numgrad as ng


def test_the_result_is_written_into_out_and_out_is_returned():
    a, b = ng.tensor([1., 2., 3.]), ng.tensor([10., 20., 30.])
    out = ng.empty(3)
    view = out[1:]
    result = ng.add(a, b, alpha=2, out=out)
    assert result is out
    np.testing.assert_array_equal(out.numpy(), [21., 42., 63.])
    np.testing.assert_array_equal(view.numpy(), [42., 63.])     # views share the write
    assert out._version == 1


def test_out_may_be_an_input():
    a = ng.tensor([1., 2., 3.])
    ng.mul(a, a, out=a)
    np.testing.assert_array_equal(a.numpy(), [1., 4., 9.])


def test_an_out_of_another_shape_is_resized_with_torchs_warning_unless_empty():
    a = ng.tensor([[1., 2.], [3., 4.]])
    out = ng.empty(3)
    with pytest.warns(UserWarning, match=r"An output with one or more elements was resized since "
                                         r"it had shape \[3\], which does not match the required "
                                         r"output shape \[2, 2\]"):
        ng.exp(a, out=out)
    assert out.shape == (2, 2)
    np.testing.assert_allclose(out.numpy(), np.exp(a.numpy()))
    assert out._version == 1
    empty = ng.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ng.cat([a, a], out=empty)
    np.testing.assert_array_equal(empty.numpy(), np.concatenate([a.numpy(), a.numpy()]))


@pytest.mark.parametrize("requires_grad", ["input", "list input", "out"])
def test_recording_refuses_an_argument_that_requires_grad_and_changes_nothing(requires_grad):
    a = ng.tensor([1., 2.], requires_grad=requires_grad == "input")
    b = ng.tensor([3., 4.], requires_grad=requires_grad == "list input")
    out = ng.tensor([7., 7., 7., 7.], requires_grad=requires_grad == "out")
    with pytest.raises(RuntimeError, match=r"^cat\(\): functions with out=\.\.\. arguments don't "
                                           r"support automatic differentiation, but one of the "
                                           r"arguments requires grad\.$"):
        ng.cat([a, b], out=out)
    np.testing.assert_array_equal(out.detach().numpy(), [7., 7., 7., 7.])
    assert out._version == 0
    with ng.no_grad():          # without recording, as in torch, even into a leaf
        ng.cat([a, b], out=out)
    np.testing.assert_array_equal(out.detach().numpy(), [1., 2., 3., 4.])
    assert out.requires_grad is (requires_grad == "out")


def test_elementwise_results_cast_up_but_not_down():
    a = ng.tensor([1., 2.])
    wide = ng.empty(2, dtype=ng.float64)
    ng.mul(a, 3, out=wide)
    assert wide.dtype == ng.float64
    np.testing.assert_array_equal(wide.numpy(), [3., 6.])
    flags = ng.empty(2)
    ng.gt(a, 1.5, out=flags)                  # bool into float
    np.testing.assert_array_equal(flags.numpy(), [0., 1.])
    ints = ng.zeros(2, dtype=ng.int64)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output "
                                           "type Long$"):
        ng.mul(a, 3, out=ints)
    np.testing.assert_array_equal(ints.numpy(), [0, 0])
    with pytest.raises(TypeError, match="^torch.cat\\(\\): input types can't be cast to the "
                                        "desired output type Long$"):
        ng.cat([a, a], out=ints)


def test_matrix_products_and_indexing_want_the_results_own_type():
    m = ng.tensor([[1., 2.], [3., 4.]])
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got "
                                           "double instead$"):
        ng.mm(m, m, out=ng.empty(2, 2, dtype=ng.float64))
    with pytest.raises(RuntimeError, match="^Expected the dtype for input and out to match, but "
                                           "got Float for input's dtype and Double for out's "
                                           "dtype.$"):
        ng.amax(m, 0, out=ng.empty(2, dtype=ng.float64))
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        ng.clamp(m, 0, out=ng.empty(2, 2, dtype=ng.float64))
    out = ng.empty(2, 2)
    ng.matmul(m, m, out=out)
    np.testing.assert_array_equal(out.numpy(), [[7., 10.], [15., 22.]])


def test_several_results_go_into_a_tuple_of_outs_and_come_back_named():
    m = ng.tensor([[1., 5., 2.], [3., 0., 4.]])
    values, indices = ng.empty(2), ng.empty(2, dtype=ng.int64)
    result = ng.max(m, 1, out=(values, indices))
    assert result.values is values and result.indices is indices
    np.testing.assert_array_equal(values.numpy(), [5., 4.])
    np.testing.assert_array_equal(indices.numpy(), [1, 2])
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype long int, but got "
                                           "float instead$"):
        ng.sort(m, out=(ng.empty(2, 3), ng.empty(2, 3)))
    with pytest.raises(TypeError, match="must be a tuple of 2 Tensors"):
        ng.sort(m, out=(ng.empty(2, 3),))


def test_accumulating_functions_compute_in_outs_type():
    a = ng.tensor([0.5, 0.75, 1.25])
    total = ng.empty((), dtype=ng.int64)
    ng.sum(a, 0, out=total)
    assert total.item() == 1           # each value cast to int first, as dtype= would: 0 + 0 + 1
    running = ng.empty(3, dtype=ng.float64)
    ng.cumsum(a, 0, out=running)
    np.testing.assert_array_equal(running.numpy(), [0.5, 1.25, 2.5])


def test_creation_functions_make_outs_type():
    ints = ng.empty(4, dtype=ng.int64)
    ng.arange(4, out=ints)
    np.testing.assert_array_equal(ints.numpy(), [0, 1, 2, 3])
    assert ints.dtype == ng.int64
    floats = ng.empty(3, dtype=ng.float64)
    ng.ones(3, out=floats)
    assert floats.dtype == ng.float64
    with pytest.raises(RuntimeError, match=r"^dtype Float does not match dtype of out parameter "
                                           r"\(Long\)$"):
        ng.zeros(4, dtype=ng.float32, out=ints)


def test_linalg_and_special_take_out_too():
    m = ng.tensor([[2., 0.], [0., 4.]])
    inverse = ng.empty(2, 2)
    ng.linalg.inv(m, out=inverse)
    np.testing.assert_allclose(inverse.numpy(), [[0.5, 0.], [0., 0.25]])
    probabilities = ng.empty(1)
    ng.special.expit(ng.tensor([0.]), out=probabilities)
    assert probabilities.item() == 0.5


def test_out_must_be_a_tensor():
    with pytest.raises(TypeError, match=r"^add\(\): argument 'out' must be Tensor, not ndarray$"):
        ng.add(ng.ones(2), 1, out=np.empty(2))


def test_a_refused_write_into_one_of_several_outs_writes_none():
    m = ng.tensor([[1., 5.], [3., 0.]])
    values = ng.zeros(2)
    with ng.inference_mode():
        indices = ng.zeros(3, dtype=ng.int64)      # an inference tensor: not writable outside
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside "
                                           "InferenceMode is not allowed"):
        ng.max(m, 1, out=(values, indices))
    np.testing.assert_array_equal(values.numpy(), [0., 0.])
    assert values._version == 0 and indices.shape == (3,)


def test_each_kind_of_function_casts_as_torchs_does():
    a = ng.tensor([[1.5, -2.5], [0.5, 3.0]])
    with pytest.raises(RuntimeError, match="^Found dtype Double but expected Float$"):
        ng.abs(a, out=ng.empty(2, 2, dtype=ng.float64))      # keeps its input's type
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype long int, but got "
                                           "float instead$"):
        ng.argmax(a, 1, out=ng.empty(2))
    with pytest.raises(RuntimeError, match="^all only supports bool tensor for result, got: "
                                           "Float$"):
        ng.all(a > 0, 1, out=ng.empty(2))
    with pytest.raises(RuntimeError, match=r"^index_select\(\): self and result must have the "
                                           r"same scalar type$"):
        ng.index_select(a, 0, ng.tensor([1]), out=ng.empty(1, 2, dtype=ng.float64))
    wide = ng.empty(2, 2, dtype=ng.float64)
    ng.outer(a[0], a[1], out=wide)                             # a product: cast like mul
    np.testing.assert_array_equal(wide.numpy(), [[0.75, 4.5], [-1.25, -7.5]])
    means = ng.empty(2, dtype=ng.float64)
    ng.mean(a, 0, out=means)                                   # computed in float32, cast up
    np.testing.assert_array_equal(means.numpy(), [1.0, 0.25])
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired "
                                           "output type Long$"):
        ng.mean(a, 0, out=ng.empty(2, dtype=ng.int64))
