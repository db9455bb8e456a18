"""The tensor API around autograd as torch 2.13 answers it: attributes, conversions, membership,
creation from nested data, and the creation functions' argument checks. Each expected value or
message is torch's, found by running the same code on torch 2.13."""
import warnings

import numpy as np
import pytest

import numgrad as ng


@pytest.fixture(autouse=True)
def _default_dtype():
    yield
    ng.set_default_dtype(ng.float32)


# ---- attributes -------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["size", "stride"])
@pytest.mark.parametrize("dim", [0, -1, 3])
def test_size_and_stride_of_a_0d_tensor_name_its_missing_dims(method, dim):
    # torch 2.13: IndexError: Dimension specified as 0 but tensor has no dimensions
    with pytest.raises(IndexError, match=f"^Dimension specified as {dim} but tensor has no "
                                         "dimensions$"):
        getattr(ng.tensor(2.5), method)(dim)


@pytest.mark.parametrize("method", ["size", "stride"])
def test_size_and_stride_take_an_int_dim_only(method):
    x = ng.ones(2, 3)
    # torch 2.13: TypeError: size(): argument 'dim' (position 1) must be int, not bool
    with pytest.raises(TypeError, match=rf"^{method}\(\): argument 'dim' \(position 1\) must be "
                                        "int, not bool$"):
        getattr(x, method)(True)
    with pytest.raises(TypeError, match="must be int, not float$"):
        getattr(x, method)(1.0)
    assert getattr(x, method)(ng.tensor(0)) == (2 if method == "size" else 3)
    assert x.size(np.int64(-1)) == 3


def test_mT_of_a_0d_tensor_is_itself_with_torch_deprecation_warning():
    x = ng.tensor(2.0, requires_grad=True)
    with pytest.warns(UserWarning, match="^Tensor.mT is deprecated on 0-D tensors. This function "
                                         "is the identity in these cases.$"):
        assert x.mT is x
    with pytest.raises(RuntimeError, match="Got 1-D tensor"):
        ng.ones(3).mT


# ---- membership, reversal, NumPy conversion --------------------------------------------------
def test_in_compares_elementwise_as_torch():
    m = ng.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert 1 in m and 4.0 in m and np.float64(3.0) in m and 7 not in m
    assert 2.5 in ng.tensor(2.5) and 1 not in ng.tensor(2.5)     # a 0-d tensor holds its value
    assert ng.tensor([1.0, 2.0]) in m          # a matching row
    assert ng.tensor([1.0, 5.0]) in m          # torch: (element == self).any(), so True
    assert ng.tensor([5.0, 6.0]) not in m
    for bad, name in (("a", "str"), (None, "NoneType"), ([1.0], "list")):
        # torch 2.13: Tensor.__contains__ only supports Tensor or scalar, but you passed in a
        # <class 'str'>.
        with pytest.raises(RuntimeError, match=rf"^Tensor.__contains__ only supports Tensor or "
                                               rf"scalar, but you passed in a <class '{name}'>\.$"):
            bad in m


def test_reversed_flips_the_first_dim():
    x = ng.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    r = reversed(x)
    assert r.tolist() == [[3.0, 4.0], [1.0, 2.0]]
    assert r.grad_fn.name() == "FlipBackward0"
    s = ng.tensor(2.0)
    assert reversed(s) is s


def test_asarray_of_a_detached_tensor_shares_its_memory():
    plain = ng.ones(3)
    shared = np.asarray(plain)
    shared[0] = 5.0
    assert plain.tolist() == [5.0, 1.0, 1.0]
    assert np.asarray(plain, dtype=np.float64).dtype == np.float64


def test_asarray_of_a_tensor_that_requires_grad_raises_as_numpy_does():
    # torch 2.13: __array__ is numpy(), refused for a tensor that requires grad (leaf or not),
    # with or without a dtype; its detached form converts
    leaf = ng.tensor([1.0, 2.0], requires_grad=True)
    message = r"Can't call numpy\(\) on Tensor that requires grad\. Use tensor\.detach\(\)\.numpy\(\) instead\."
    for t in (leaf, leaf * 2):
        with pytest.raises(RuntimeError, match=message):
            np.asarray(t)
        with pytest.raises(RuntimeError, match=message):
            np.asarray(t, dtype=np.float64)
    assert np.asarray((leaf * 2).detach()).tolist() == [2.0, 4.0]
    with ng.no_grad():
        assert np.asarray(leaf * 3).tolist() == [3.0, 6.0]      # no grad: a plain result


# ---- to() -------------------------------------------------------------------------------------
def test_to_with_copy_true_makes_a_new_tensor_that_keeps_the_graph():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    assert x.to(ng.float32) is x and x.to(ng.float32, copy=False) is x
    for y in (x.to(ng.float32, copy=True), x.to(ng.float32, False, True),
              x.to("cpu", ng.float32, False, True), x.to(dtype=ng.float32, copy=True)):
        assert y is not x and y.requires_grad and not y.is_leaf
        y.sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]
    plain = ng.ones(2)
    copied = plain.to(ng.float32, copy=True)
    copied[0] = 3.0
    assert plain.tolist() == [1.0, 1.0]
    assert plain.to(ng.float64, True).dtype == ng.float64      # non_blocking=True, positionally


# ---- tensor() from nested data ---------------------------------------------------------------
@pytest.mark.parametrize("data, default, expected", [
    # torch 2.13 promotes the dtypes of all the items; NumPy scalars keep their own
    ([np.float32(1.5), 2], ng.float32, ng.float32),
    ([np.float32(1.5), 2], ng.float64, ng.float32),
    ([1, np.float64(2.0)], ng.float32, ng.float64),
    ([[1.5], [np.float64(2)]], ng.float32, ng.float64),
    ([np.int32(1), np.int32(2)], ng.float32, ng.int32),
    ([np.int32(1), 2], ng.float32, ng.int64),
    ([np.int32(1), 2.5], ng.float32, ng.float32),
    ([np.int32(1), True], ng.float32, ng.int32),
    ([True, np.float32(2)], ng.float32, ng.float32),
    ((np.float32(1), 2.0), ng.float32, ng.float32),
    ([np.float64(1.5), np.float32(2)], ng.float32, ng.float64),
    ([np.array([1, 2], dtype=np.int32), [3.0, 4.0]], ng.float32, ng.float32),
    ([np.array([1.0, 2.0]), np.array([3.0, 4.0])], ng.float32, ng.float64),
    ([1.0, 2.0], ng.float64, ng.float64),
    ([], ng.float32, ng.float32),
])
def test_tensor_infers_the_promoted_dtype_of_all_items(data, default, expected):
    ng.set_default_dtype(default)
    assert ng.tensor(data).dtype == expected


def test_tensors_in_a_list_are_read_as_numbers():
    a = ng.tensor(1.5, dtype=ng.float64, requires_grad=True)
    t = ng.tensor([a, 2])
    assert t.dtype == ng.float64 and t.tolist() == [1.5, 2.0] and not t.requires_grad
    assert ng.tensor([[ng.tensor([[1.0]]), 2.0]]).tolist() == [[1.0, 2.0]]
    assert ng.tensor([ng.tensor(1, dtype=ng.int32), np.int64(2)]).dtype == ng.int64
    # torch 2.13: ValueError: only one element tensors can be converted to Python scalars
    with pytest.raises(ValueError, match="^only one element tensors can be converted to Python "
                                         "scalars$"):
        ng.tensor([ng.tensor([1.0, 2.0]), ng.tensor([3.0, 4.0])])


@pytest.mark.parametrize("data, dtype, error, message", [
    ([None], None, RuntimeError, "Could not infer dtype of NoneType"),
    ([1, None], None, RuntimeError, "Could not infer dtype of NoneType"),
    (None, None, RuntimeError, "Could not infer dtype of NoneType"),
    ([None], ng.float32, TypeError, "must be real number, not NoneType"),
    ([1, None], ng.float64, TypeError, "must be real number, not NoneType"),
    ([None], ng.int64, TypeError, "'NoneType' object cannot be interpreted as an integer"),
    ([1, "a"], None, TypeError, "new(): invalid data type 'str'"),
    ([2 ** 63], None, ValueError, "Overflow when unpacking long long"),
    ([-2 ** 63 - 1], None, ValueError, "Overflow when unpacking long long"),
    ([True, 2 ** 63], None, ValueError, "Overflow when unpacking long long"),
    ([2 ** 63], ng.int32, ValueError, "Overflow when unpacking long long"),
    ([2 ** 40], ng.int32, RuntimeError, "value cannot be converted to type int32 without overflow"),
    ([2.0 ** 70], ng.int64, RuntimeError, "value cannot be converted to type int64 without overflow"),
    ([float("nan")], ng.int64, RuntimeError,
     "value cannot be converted to type int64 without overflow"),
    ([float("nan")], ng.int32, RuntimeError,
     "value cannot be converted to type int32 without overflow"),
    ([float("inf")], ng.int64, RuntimeError,
     "value cannot be converted to type int64 without overflow"),
])
def test_tensor_refuses_items_in_torch_words(data, dtype, error, message):
    with pytest.raises(error) as caught:
        ng.tensor(data, dtype=dtype)
    assert str(caught.value) == message


def test_big_ints_become_floats_when_asked():
    # torch 2.13: tensor([9.2234e+18]); a float list keeps its int items as floats too
    assert ng.tensor([2 ** 63], dtype=ng.float32).item() == pytest.approx(2.0 ** 63)
    assert ng.tensor([1.5, 2 ** 63]).tolist() == [1.5, pytest.approx(2.0 ** 63)]
    assert ng.tensor([2 ** 63], dtype=ng.bool).tolist() == [True]


def test_from_numpy_refuses_negative_strides():
    # torch 2.13's words, with its two spaces and trailing space
    with pytest.raises(ValueError) as caught:
        ng.from_numpy(np.zeros((2, 3))[:, ::-1])
    assert str(caught.value) == (
        "At least one stride in the given numpy array is negative, and tensors with negative "
        "strides are not currently supported. (You can probably work around this by making a "
        "copy of your array  with array.copy().) ")


# ---- creation functions -----------------------------------------------------------------------
@pytest.mark.parametrize("make", [ng.zeros, ng.ones, ng.empty])
def test_size_can_be_given_by_keyword(make):
    assert make(size=(2, 3)).shape == (2, 3) and make(size=[2]).shape == (2,)
    name = make.__name__
    # torch 2.13: TypeError: zeros(): argument 'size' must be tuple of ints, not int
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'size' must be tuple of ints, "
                                        "not int$"):
        make(size=3)
    with pytest.raises(TypeError, match=rf"^{name}\(\) got multiple values for argument 'size'$"):
        make(2, size=(3,))


@pytest.mark.parametrize("fill, name", [("x", "str"), (None, "NoneType"), ([1], "list"),
                                        (np.array(1.0), "numpy.ndarray")])
def test_full_takes_a_number(fill, name):
    # torch 2.13: TypeError: full(): argument 'fill_value' (position 2) must be Number, not str
    with pytest.raises(TypeError) as caught:
        ng.full((2,), fill)
    assert str(caught.value) == f"full(): argument 'fill_value' (position 2) must be Number, not {name}"


def test_full_refuses_values_an_integer_dtype_cannot_hold():
    for value, dtype, c_name in ((float("nan"), ng.int64, "int64_t"), (float("inf"), ng.int32, "int"),
                                 (2 ** 63, ng.int64, "int64_t")):
        with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {c_name} "
                                               "without overflow$"):
            ng.full((2,), value, dtype=dtype)
    with pytest.raises(OverflowError, match="^int too big to convert$"):
        ng.full((2,), 2 ** 70, dtype=ng.float32)
    assert ng.full((2,), 1.5, dtype=ng.int64).tolist() == [1, 1]


def test_eye_names_the_negative_argument_and_takes_an_int_tensor():
    with pytest.raises(RuntimeError, match="^m must be greater or equal to 0, got -2$"):
        ng.eye(3, -2)
    assert ng.eye(ng.tensor(3)).shape == (3, 3)
    assert ng.eye(np.int64(2), ng.tensor(3)).shape == (2, 3)
    with pytest.raises(TypeError, match=r"^eye\(\): argument 'n' \(position 1\) must be int, "
                                        "not Tensor$"):
        ng.eye(ng.tensor(3.0))


def test_arange_refuses_a_count_past_int64():
    with pytest.raises(RuntimeError, match=r"^invalid size, possible overflow\?$"):
        ng.arange(0, 1e20)


def test_like_functions_keep_a_dense_input_layout():
    x = ng.ones(2, 3).t()
    # torch 2.13's preserve_format: the copies are transposed too
    for made in (ng.zeros_like(x), ng.ones_like(x), ng.empty_like(x), ng.full_like(x, 7),
                 ng.zeros_like(x, dtype=ng.float64)):
        assert made.stride() == (1, 3) and made.shape == (3, 2)
    assert ng.full_like(x, 7).tolist() == [[7.0, 7.0]] * 3
    assert ng.zeros_like(ng.ones(4, 3)[::2]).stride() == (3, 1)     # not dense: contiguous
    # torch 2.13: ones_like(): argument 'input' (position 1) must be Tensor, not numpy.ndarray
    with pytest.raises(TypeError, match=r"must be Tensor, not numpy.ndarray$"):
        ng.ones_like(np.zeros(2))


def test_set_default_dtype_refuses_what_is_not_a_dtype():
    # torch 2.13: TypeError: invalid dtype object: only floating-point types are supported as the
    # default type
    with pytest.raises(TypeError, match="^invalid dtype object: only floating-point types are "
                                        "supported as the default type$"):
        ng.set_default_dtype(None)
    assert ng.get_default_dtype() == ng.float32
    with pytest.raises(TypeError, match="^only floating-point types are supported as the default "
                                        "type$"):
        ng.set_default_dtype(ng.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ng.set_default_dtype(ng.float64)
    assert (ng.arange(3) / 2).dtype == ng.float64 and (ng.tensor(1) + 0.5).dtype == ng.float64


# ---- the legacy constructor and copy construction ---------------------------------------------
def test_legacy_constructor_reads_its_arguments_as_torch():
    # torch 2.13: Tensor([1, 2]) is tensor([1., 2.]) in the default float type
    assert ng.Tensor([1, 2]).dtype == ng.float32 and ng.Tensor([1, 2]).tolist() == [1.0, 2.0]
    assert ng.Tensor([True]).tolist() == [1.0]
    assert ng.Tensor(np.array([1, 2])).dtype == ng.float32
    assert ng.Tensor(np.array(2.5)).shape == ()
    assert ng.Tensor((2, 3)).tolist() == [2.0, 3.0]          # a tuple is data
    assert ng.Tensor(range(3)).tolist() == [0.0, 1.0, 2.0]
    assert ng.Tensor(2, 3).shape == (2, 3) and ng.Tensor(np.int64(3)).shape == (3,)
    assert ng.Tensor(ng.Size([2, 3])).shape == (2, 3) and ng.Tensor(size=(2,)).shape == (2,)
    assert ng.Tensor().shape == (0,) and ng.Tensor(0).shape == (0,)
    source = ng.ones(2, dtype=ng.float64)
    alias = ng.Tensor(source)
    alias[0] = 5.0
    assert source.tolist() == [5.0, 1.0] and alias.dtype == ng.float64
    for bad, name in ((2.5, "float"), (True, "bool"), (None, "NoneType"),
                      (np.float64(2.5), "numpy.float64")):
        # torch 2.13: TypeError: new(): data must be a sequence (got float)
        with pytest.raises(TypeError, match=rf"^new\(\): data must be a sequence \(got {name}\)$"):
            ng.Tensor(bad)
    with pytest.raises(TypeError, match=r"^new\(\): invalid data type 'str'$"):
        ng.Tensor("ab")
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: "
                                           r"\[-1\]$"):
        ng.Tensor(-1)
    ng.set_default_dtype(ng.float64)
    assert ng.Tensor([1, 2]).dtype == ng.float64 and ng.Tensor(2).dtype == ng.float64


def test_tensor_of_a_tensor_warns_as_torch():
    with pytest.warns(UserWarning, match=r"^To copy construct from a tensor, it is recommended to "
                                         r"use sourceTensor.detach\(\).clone\(\) or sourceTensor"
                                         r".detach\(\).clone\(\).requires_grad_\(True\), rather "
                                         r"than numgrad.tensor\(sourceTensor\).$"):
        copied = ng.tensor(ng.ones(2, requires_grad=True))
    assert not copied.requires_grad
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ng.ones(2).new(ng.ones(2))
        ng.as_tensor(ng.ones(2))
    assert not caught
    with pytest.warns(UserWarning, match=r"rather than tensor.new_tensor\(sourceTensor\).$") as got:
        ng.ones(2).new_tensor(ng.ones(2))
    assert len(got) == 1


def test_numel_takes_a_tensor():
    assert ng.numel(ng.ones(2, 3)) == 6
    # torch 2.13: TypeError: numel(): argument 'input' (position 1) must be Tensor, not list
    for bad, name in (([1, 2], "list"), (2.5, "float"), (np.zeros(2), "numpy.ndarray")):
        with pytest.raises(TypeError, match=rf"^numel\(\): argument 'input' \(position 1\) must be "
                                            rf"Tensor, not {name}$"):
            ng.numel(bad)


def test_size_slices_sums_and_repeats_are_sizes():
    shape = ng.ones(2, 3).shape
    # torch 2.13: torch.Size([3]), torch.Size([2, 3, 1]), torch.Size([1, 2, 3]), ...
    assert repr(shape[1:]) == "numgrad.Size([3])"
    assert repr(shape + (1,)) == "numgrad.Size([2, 3, 1])"
    assert repr((1,) + shape) == "numgrad.Size([1, 2, 3])"
    assert repr(shape * 2) == "numgrad.Size([2, 3, 2, 3])" and repr(2 * shape) == repr(shape * 2)
    assert type(shape[0]) is int and shape == (2, 3)
    assert ng.Size([True, np.int64(2), ng.tensor([4])]) == (1, 2, 4)
    with pytest.raises(TypeError, match=r"^can only concatenate tuple \(not list\) to numgrad.Size$"):
        shape + [1]
    # torch 2.13: TypeError: torch.Size() takes an iterable of 'int' (item 0 is 'float')
    with pytest.raises(TypeError, match=r"^numgrad.Size\(\) takes an iterable of 'int' \(item 1 is "
                                        r"'float'\)$"):
        ng.Size([2, 2.0])
    with pytest.raises(TypeError, match="item 0 is 'Tensor'"):
        ng.Size([ng.tensor(2.0)])


def test_requires_grad_takes_a_python_bool_only():
    x = ng.ones(2)
    for value in (1, 0, None, "a", np.bool_(True)):
        # torch 2.13: RuntimeError: requires_grad must be a bool (before the leaf check)
        with pytest.raises(RuntimeError, match="^requires_grad must be a bool$"):
            x.requires_grad = value
        with pytest.raises(RuntimeError, match="^requires_grad must be a bool$"):
            (ng.ones(2, requires_grad=True) * 2).requires_grad = value
    assert not x.requires_grad
    # torch 2.13: requires_grad_(): argument 'requires_grad' (position 1) must be bool, not
    # numpy.bool
    with pytest.raises(TypeError, match=r"^requires_grad_\(\): argument 'requires_grad' \(position "
                                        r"1\) must be bool, not numpy.bool$"):
        x.requires_grad_(np.bool_(True))
    with pytest.raises(TypeError, match="must be bool, not int$"):
        x.requires_grad_(1)
    x.requires_grad = True
    assert x.requires_grad


@pytest.mark.parametrize("dtype, message", [
    (None, "'list' object cannot be interpreted as an integer"),
    (ng.int32, "'list' object cannot be interpreted as an integer"),
    (ng.bool, "'list' object cannot be interpreted as an integer"),
    (ng.float64, "must be real number, not list"),
])
def test_a_sequence_where_a_number_belongs(dtype, message):
    # torch 2.13 reads the shape down the first items, then each item as a number of the dtype
    with pytest.raises(TypeError) as caught:
        ng.tensor([1, [2]], dtype=dtype)
    assert str(caught.value) == message


# ---- ranges, bit for bit ----------------------------------------------------------------------
def test_arange_float_values_are_torchs_bit_for_bit():
    # torch 2.13 fills vectors of 8 float32 lanes from each vector's first item rounded to
    # float32: arange(-3, 10, 0.3)[10] is -2.3842e-08, not 0
    x = ng.arange(-3, 10, 0.3)
    assert x.shape == (44,) and x[10].item() == np.float32(-2.3841858e-08)
    assert x[8:12].tolist() == [-0.6000000238418579, -0.30000001192092896,
                                -2.3841858265427618e-08, 0.29999998211860657]
    assert x[43].item() == 9.899999618530273      # past the last pair of vectors: one by one
    # float64: 4 lanes, each item a fused multiply-add (-3 + 0.3 * i rounded twice gives
    # -0.8999999999999999, 0.2999999999999998 and 3.5999999999999996)
    y = ng.arange(-3.0, 10.0, 0.3, dtype=ng.float64)
    assert [y[i].item() for i in (7, 11, 22, 41)] == [-0.9000000000000001, 0.2999999999999999,
                                                       3.6, 9.299999999999999]


def test_linspace_float_values_are_torchs_bit_for_bit():
    # torch 2.13: the first half counts up from start, the second down from end, fused
    y = ng.linspace(1.0, -6.0, 16, dtype=ng.float64)
    assert y[3].item() == -0.4 and y[10].item() == -3.6666666666666665
    assert ng.linspace(-3, 7.5, 10)[2:5].tolist() == [-0.6666667461395264, 0.49999988079071045,
                                                       1.6666665077209473]
    assert ng.linspace(2.5, 7.0, 1).tolist() == [2.5] and ng.linspace(0, 1, 0).shape == (0,)


def test_integer_arange_checks_the_signs_before_truncating():
    with pytest.raises(RuntimeError, match="^upper bound and lower bound inconsistent with step "
                                           "sign$"):
        ng.arange(10, 5, 0.1, dtype=ng.int64)
    with pytest.raises(ValueError, match="^step must be nonzero$"):
        ng.arange(0, 5, 0.5, dtype=ng.int64)
    assert ng.arange(0, 5.5, 1.5, dtype=ng.int64).tolist() == [0, 1, 2, 3, 4]


def test_random_factories_take_a_generator():
    draws = [(ng.rand(3, generator=g).tolist(), ng.randn(2, generator=g).tolist(),
              ng.randint(0, 9, (4,), generator=g).tolist(), ng.randperm(5, generator=g).tolist())
             for g in (ng.Generator().manual_seed(7), ng.Generator().manual_seed(7))]
    assert draws[0] == draws[1]


def test_an_empty_tensor_has_contiguous_strides():
    # torch 2.13: (3, 3, 1) and (1,); NumPy 2 gives an empty array zero strides
    assert ng.zeros(2, 0, 3).stride() == (3, 3, 1) and ng.tensor([]).stride() == (1,)
    assert ng.empty(0, 4).stride(0) == 4 and ng.zeros(2, 0, 3).is_contiguous()
