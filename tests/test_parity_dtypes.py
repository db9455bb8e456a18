"""dtype semantics as torch has them, found by differential testing: creation's dtype inference
and integer rules, promotion, reductions' dtypes and the refusals, each pinned by torch's own
values, dtypes and messages (torch 2.13, hard-coded: torch is not a test dependency)."""
import math
import re

import numpy as np
import pytest

import numgrad as ng


def check(t, dtype, expected):
    assert t.dtype == dtype
    np.testing.assert_array_equal(np.asarray(t.detach()), np.asarray(expected, dtype))


# ---- creation -----------------------------------------------------------------------------------
@pytest.mark.parametrize("fill, dtype", [
    (1.5, ng.float32), (1, ng.int64), (True, ng.bool),
    # NumPy scalars: torch reads any integer as int64, any float (and a NumPy bool) as the default
    (np.float64(1.5), ng.float32), (np.int32(2), ng.int64), (np.bool_(True), ng.float32),
])
def test_full_infers_the_dtype_of_its_fill_value_as_torch(fill, dtype):
    assert ng.full((2,), fill).dtype == dtype


def test_full_wants_a_tuple_size():
    with pytest.raises(TypeError, match=r"^full\(\): argument 'size' \(position 1\) must be tuple "
                                        "of ints, not int$"):
        ng.full(2, 1.5)


def test_negative_sizes_are_refused_in_each_factorys_words():
    with pytest.raises(RuntimeError, match="^zeros: Dimension size must be non-negative.$"):
        ng.zeros(2, -3)
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -3: "
                                           r"\[2, -3\]$"):
        ng.ones(2, -3)


def test_integer_overflow_at_creation_is_torchs_runtime_error():
    for value in (2 ** 40, 1e40, math.inf):
        with pytest.raises(RuntimeError, match="^value cannot be converted to type int32 without "
                                               "overflow$"):
            ng.tensor(value, dtype=ng.int32)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int64 without "
                                           "overflow$"):
        ng.tensor([1, -1e20], dtype=ng.int64)


def test_eye_wants_integer_sizes():
    with pytest.raises(TypeError, match=r"^eye\(\): argument 'n' \(position 1\) must be int, not "
                                        "float$"):
        ng.eye(2.0)


@pytest.mark.parametrize("args, expected", [
    ((np.float32(2.5),), [0.0, 1.0, 2.0]),          # a NumPy float is a float
    ((ng.tensor(2.5),), [0.0, 1.0, 2.0]),           # and so is a float tensor
    ((0, 5, np.float32(1.5)), [0.0, 1.5, 3.0, 4.5]),
])
def test_arange_of_numpy_and_tensor_floats_is_float(args, expected):
    check(ng.arange(*args), ng.float32, expected)


def test_arange_of_numpy_integers_is_int64():
    check(ng.arange(np.int32(3)), ng.int64, [0, 1, 2])


def test_float_arange_does_not_drift():
    # NumPy's float32 arange adds a float32 step: its last value here is 4e-5 away from torch's
    values = np.asarray(ng.arange(10, 0, -0.1))
    assert values.shape == (100,)
    np.testing.assert_allclose(values, (10 - 0.1 * np.arange(100)).astype(np.float32), rtol=0,
                               atol=1e-6)


@pytest.mark.parametrize("args, dtype, expected", [
    # int64: bounds and step truncated first, the count from them
    ((0, 5, 1.5), ng.int64, [0, 1, 2, 3, 4]),
    ((-0.5, 3), ng.int64, [0, 1, 2]),
    ((5, 0.5, -1.5), ng.int64, [5, 4, 3, 2, 1]),
    ((0.3,), ng.int64, []),
    # int32: the count from the float arguments, the values from truncated start and step
    ((5, 0.5, -1.5), ng.int32, [5, 4, 3]),
    ((-3, 3, 1.5), ng.int32, [-3, -2, -1, 0]),
    ((1, 0, -0.3), ng.int32, [1, 1, 1, 1]),
    ((0, 2.5, 0.5), ng.int32, [0, 0, 0, 0, 0]),
])
def test_integer_arange_of_float_arguments_as_torch(args, dtype, expected):
    check(ng.arange(*args, dtype=dtype), dtype, expected)


def test_arange_refusals():
    with pytest.raises(ValueError, match="^step must be nonzero$"):
        ng.arange(0, 2.5, 0.5, dtype=ng.int64)           # the step truncates to 0
    with pytest.raises(RuntimeError, match="^step must be nonzero$"):
        ng.arange(0, 5, math.nan)
    with pytest.raises(RuntimeError, match="^unsupported range: 0 -> inf$"):
        ng.arange(math.inf)
    with pytest.raises(RuntimeError, match="^unsupported range: nan -> 5$"):
        ng.arange(math.nan, 5)
    with pytest.raises(NotImplementedError, match="^\"arange_cpu\" not implemented for 'Bool'$"):
        ng.arange(3, dtype=ng.bool)


@pytest.mark.parametrize("args, expected", [
    ((-5, 5, 4), [-5, -1, 1, 5]),       # NumPy floors: -2 for -1.67
    ((-5, 5, 5), [-5, -2, 0, 2, 5]),
    ((0, 1, 3), [0, 0, 1]),
    ((10, 0, 4), [10, 6, 3, 0]),
    ((0.5, 3.7, 3), [0, 1, 3]),         # the bounds truncated first
    ((0.9, 9.9, 4), [0, 3, 6, 9]),
    ((0.5, 3.7, 1), [0]),
])
def test_integer_linspace_as_torch(args, expected):
    check(ng.linspace(*args, dtype=ng.int64), ng.int64, expected)


def test_linspace_refuses_bool():
    with pytest.raises(NotImplementedError, match="^\"linspace_cpu\" not implemented for "
                                                  "'Bool'$"):
        ng.linspace(0, 1, 5, dtype=ng.bool)


def test_random_floats_refuse_other_dtypes():
    with pytest.raises(NotImplementedError, match="^\"check_uniform_bounds\" not implemented for "
                                                  "'Long'$"):
        ng.rand(2, dtype=ng.int64)
    with pytest.raises(NotImplementedError, match="^\"check_uniform_bounds\" not implemented for "
                                                  "'Int'$"):
        ng.rand_like(ng.zeros(2, dtype=ng.int32))
    with pytest.raises(NotImplementedError, match="^\"normal_kernel_cpu\" not implemented for "
                                                  "'Bool'$"):
        ng.randn(2, dtype=ng.bool)
    with pytest.raises(NotImplementedError, match="^\"randperm\" not implemented for 'Bool'$"):
        ng.randperm(3, dtype=ng.bool)


def test_randint_takes_high_and_size_as_torch():
    values = ng.randint(5, (200,))
    assert values.dtype == ng.int64 and values.shape == (200,)
    assert 0 <= int(values.min()) and int(values.max()) <= 4
    assert ng.randint(5, (2,), dtype=ng.int32).dtype == ng.int32
    assert ng.randint(5, size=(2,)).shape == (2,)
    assert ng.randint(3, 5, (2,)).dtype == ng.int64
    assert ng.randint(0, 2, (2,), dtype=ng.bool).dtype == ng.bool


def test_randint_refusals():
    with pytest.raises(TypeError, match='^randint\\(\\) missing 1 required positional arguments: '
                                        '"size"$'):
        ng.randint(5)
    with pytest.raises(TypeError, match=r"^randint\(\): argument 'size' \(position 2\) must be "
                                        "tuple of ints, not int$"):
        ng.randint(5, 2)
    with pytest.raises(TypeError, match=r"^randint\(\): argument 'high' \(position 1\) must be "
                                        "int, not float$"):
        ng.randint(2.5, (2,))
    with pytest.raises(RuntimeError, match="^to - 1 is out of bounds for bool$"):
        ng.randint(5, (2,), dtype=ng.bool)
    with pytest.raises(RuntimeError, match="^random_ expects 'from' to be less than 'to', but got "
                                           "from=5 >= to=0$"):
        ng.randint(5, 0, (2,))
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can "
                                           "require gradients$"):
        ng.randint(0, 5, (2,), requires_grad=True)


# ---- reductions ---------------------------------------------------------------------------------
INTS = [[1, 2], [3, 4]]


def test_integer_sums_and_products_are_int64_unless_dtype_says():
    check(ng.tensor(INTS, dtype=ng.int32).sum(), ng.int64, 10)
    check(ng.tensor(INTS, dtype=ng.int32).prod(), ng.int64, 24)
    check(ng.tensor(INTS).sum(dtype=ng.int32), ng.int32, 10)
    check(ng.tensor(INTS).prod(dtype=ng.int32), ng.int32, 24)
    check(ng.tensor([3000000000]).sum(dtype=ng.int32), ng.int32, -1294967296)   # wraps around
    check(ng.tensor([[1.5, 0.5]]).sum(1, dtype=ng.int64), ng.int64, [1])    # cast, then summed
    check(ng.tensor([[1.5, 0.5]]).prod(1, dtype=ng.int64), ng.int64, [0])
    check(ng.tensor(INTS).nansum(dtype=ng.int32), ng.int32, 10)


def test_bool_sums_are_any_and_bool_products_all():
    mask = ng.tensor([[True, False], [True, True]])
    check(mask.sum(0), ng.int64, [2, 1])
    check(mask.sum(0, dtype=ng.bool), ng.bool, [True, True])
    check(ng.tensor(INTS).sum(0, dtype=ng.bool), ng.bool, [True, True])
    check(mask.prod(dtype=ng.bool), ng.bool, False)
    check(ng.tensor(INTS).nansum(dtype=ng.bool), ng.bool, True)


def test_integer_scans_keep_an_asked_dtype():
    check(ng.tensor(INTS, dtype=ng.int32).cumsum(0), ng.int64, [[1, 2], [4, 6]])
    check(ng.tensor(INTS).cumsum(0, dtype=ng.int32), ng.int32, [[1, 2], [4, 6]])
    check(ng.tensor([1.7, 1.7]).cumsum(0, dtype=ng.int64), ng.int64, [1, 2])
    check(ng.tensor(INTS).cumsum(0, dtype=ng.float64), ng.float64, [[1, 2], [4, 6]])
    with pytest.raises(NotImplementedError, match="^\"cumsum_out_cpu\" not implemented for "
                                                  "'Bool'$"):
        ng.tensor(INTS).cumsum(0, dtype=ng.bool)
    with pytest.raises(NotImplementedError, match="^\"cumprod_out_cpu\" not implemented for "
                                                  "'Bool'$"):
        ng.tensor([True]).cumprod(0, dtype=ng.bool)


def test_an_integer_dtype_is_refused_where_a_gradient_is_needed():
    x = ng.tensor([1.5], requires_grad=True)
    for reduce in (lambda: x.sum(dtype=ng.int64), lambda: x.prod(dtype=ng.int64),
                   lambda: x.cumsum(0, dtype=ng.int64), lambda: x.nansum(dtype=ng.int64)):
        with pytest.raises(RuntimeError, match="^Autograd not support dtype: Long$"):
            reduce()
    with pytest.raises(RuntimeError, match="^Autograd not support dtype: Bool$"):
        x.sum(0, dtype=ng.bool)
    with ng.no_grad():
        check(x.sum(dtype=ng.int64), ng.int64, 1)
    assert x.sum(dtype=ng.float64).requires_grad


def test_mean_names_an_integer_dtype_argument():
    for x in (ng.tensor(INTS), ng.tensor([1.5], requires_grad=True)):
        with pytest.raises(RuntimeError, match="^mean\\(\\): could not infer output dtype. "
                                               "Optional dtype must be either a floating point or "
                                               "complex dtype. Got: Long$"):
            x.mean(dtype=ng.int64)
    with pytest.raises(RuntimeError, match="^mean\\(\\): could not infer output dtype. Input dtype "
                                           "must be either a floating point or complex dtype. "
                                           "Got: Long$"):
        ng.tensor(INTS).mean()
    check(ng.tensor([[True, False], [True, True]]).mean(dtype=ng.float64), ng.float64, 0.75)


def test_kernels_refuse_dtypes_in_torchs_words():
    with pytest.raises(NotImplementedError, match="^\"bincount_cpu\" not implemented for "
                                                  "'Float'$"):
        ng.tensor([[1.0, 2.0]]).bincount()
    with pytest.raises(NotImplementedError, match="^\"linspace_cpu\" not implemented for 'Bool'$"):
        ng.tensor([True]).histc()
    with pytest.raises(NotImplementedError, match="^\"histogram_cpu\" not implemented for "
                                                  "'Long'$"):
        ng.tensor([1]).histc()


# ---- elementwise --------------------------------------------------------------------------------
def test_bool_clamp_promotes_with_number_bounds_and_refuses_bool_ones():
    mask = ng.tensor([True, False, True])
    check(ng.clamp(mask, -1, 2), ng.int64, [1, 0, 1])
    check(ng.clamp(mask, 2, -1), ng.int64, [-1, -1, -1])
    check(ng.clamp(mask, 1.5), ng.float32, [1.5, 1.5, 1.5])
    check(ng.clamp_min(mask, 2), ng.int64, [2, 2, 2])
    for clamp, kernel in ((lambda: ng.clamp(mask, True), "clamp_min_scalar_cpu"),
                          (lambda: ng.clamp(mask, None, True), "clamp_max_scalar_cpu"),
                          (lambda: ng.clamp(mask, True, True), "clamp_scalar_cpu"),
                          (lambda: ng.clamp_min(mask, True), "clamp_min_scalar_cpu"),
                          (lambda: ng.clamp_max(mask, False), "clamp_max_scalar_cpu")):
        with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for "
                                                      "'Bool'$"):
            clamp()
    # tensor bounds clamp a bool tensor as bool
    check(ng.clamp(mask, ng.tensor(True)), ng.bool, [True, True, True])


def test_ldexp_promotes_with_its_exponents_float_type():
    check(ng.ldexp(ng.tensor([1.0, 2.0]), ng.tensor([1.0, 2.0], dtype=ng.float64)), ng.float64,
          [2.0, 8.0])
    check(ng.ldexp(ng.tensor([1, 2]), ng.tensor([1.0, 2.0], dtype=ng.float64)), ng.float64,
          [2.0, 8.0])
    # a 0-d exponent does not promote a dimensioned input
    check(ng.ldexp(ng.tensor([1.0, 2.0]), ng.tensor(3.0, dtype=ng.float64)), ng.float32,
          [8.0, 16.0])
    check(ng.ldexp(ng.tensor([1, 2]), ng.tensor([True, False])), ng.float32, [2.0, 2.0])
    with pytest.raises(NotImplementedError, match="^\"ldexp_cpu_exp\" not implemented for "
                                                  "'Bool'$"):
        ng.ldexp(ng.tensor([1.0]), ng.tensor([True]))


def test_augmented_power_and_bitwise_assignments_are_in_place():
    t = ng.tensor([2, 3])
    alias = t
    t **= 2
    assert t is alias
    check(alias, ng.int64, [4, 9])
    t = ng.tensor([2.0, 3.0])
    t **= ng.tensor([2.0, 1.0], dtype=ng.float64)       # float64 written into float32
    check(t, ng.float32, [4.0, 3.0])
    mask = ng.tensor([True, False, True])
    alias = mask
    mask &= ng.tensor([False, False, True])
    mask |= ng.tensor([False, True, False])
    mask ^= ng.tensor([True, False, False])
    assert mask is alias
    check(alias, ng.bool, [True, True, True])
    x = ng.tensor([1.0, 2.0], requires_grad=True).clone()
    x **= 2
    assert x.grad_fn.name() == "PowBackward0"


@pytest.mark.parametrize("dtype, exponent, result", [
    (ng.int64, 1.5, "Float"), (ng.int32, ng.tensor([1.5, 2.0]), "Float"),
    (ng.int64, ng.tensor(2.5, dtype=ng.float64), "Double"), (ng.bool, 1, "Long"),
    (ng.bool, ng.tensor([1, 2], dtype=ng.int32), "Int"),
])
def test_augmented_power_refuses_a_downcast(dtype, exponent, result):
    t = ng.tensor([2, 3], dtype=dtype)
    name = {ng.int64: "Long", ng.int32: "Int", ng.bool: "Bool"}[dtype]
    with pytest.raises(RuntimeError, match=f"^result type {result} can't be cast to the desired "
                                           f"output type {name}$"):
        t **= exponent


def test_integer_addcmul_truncates_a_float_value():
    i = ng.tensor([2, -3, 0])
    check(ng.addcmul(i, i, i, value=1.5), ng.int64, [6, 6, 0])
    check(ng.addcmul(i, i, i, value=-1.5), ng.int64, [-2, -12, 0])
    check(ng.addcmul(i, i, i, value=0.5), ng.int64, [2, -3, 0])
    # a float operand makes the whole product float, value kept
    check(ng.addcmul(i, i, ng.tensor([1.5]), value=0.5), ng.float32, [3.5, -5.25, 0.0])


def test_search_results_can_be_int32():
    check(ng.searchsorted(ng.tensor([0, 1, 2]), ng.tensor([2, -3, 0]), out_int32=True), ng.int32,
          [2, 0, 0])
    check(ng.searchsorted(ng.tensor([0.0, 1.0, 2.0]), 1, out_int32=True), ng.int32, 1)
    check(ng.bucketize(ng.tensor([0.5, -1.5, 0.0]), ng.tensor([0.0, 1.0]), right=True,
                       out_int32=True), ng.int32, [1, 0, 1])
    check(ng.searchsorted(ng.tensor([0, 1, 2]), ng.tensor([1.5])), ng.int64, [2])


def test_isin_refuses_bool():
    pairs = ((ng.tensor([2, 0]), ng.tensor([True])), (ng.tensor([True]), ng.tensor([True])),
             (ng.tensor([2, 0]), True))
    for elements, test in pairs:
        with pytest.raises(RuntimeError, match="^Unsupported input type encountered for "
                                               "isin\\(\\): Bool$"):
            ng.isin(elements, test)
    check(ng.isin(ng.tensor([2, -3]), ng.tensor([2.0])), ng.bool, [True, False])


def test_integer_scalars_too_large_for_the_tensor_wrap_around():
    check(ng.tensor([1], dtype=ng.int32) + 2 ** 32, ng.int32, [1])
    check(ng.tensor([1], dtype=ng.int32) * 2 ** 33, ng.int32, [0])
    check(2 ** 31 + ng.tensor([3, -4], dtype=ng.int32), ng.int32, [-2147483645, 2147483644])
    check(ng.tensor([-2 ** 31], dtype=ng.int32) == 2 ** 31, ng.bool, [True])
    check(ng.tensor([1]) + 2 ** 63, ng.int64, [-9223372036854775807])
    check(ng.tensor([True]) + 2 ** 40, ng.int64, [2 ** 40 + 1])
    with pytest.raises(OverflowError, match="^int too big to convert$"):
        ng.tensor([1], dtype=ng.int32) + 2 ** 64


def test_numpy_scalar_clamp_bounds_count_as_python_numbers():
    check(ng.clamp(ng.tensor([3, -4]), np.float32(2.5)), ng.float32, [3.0, 2.5])
    check(ng.clamp(ng.tensor([True, False]), np.int32(2)), ng.int64, [2, 2])
    check(ng.clamp(ng.tensor([3, -4], dtype=ng.int32), np.int64(2)), ng.int32, [3, 2])
    check(ng.clamp_min(ng.tensor([3, -4]), np.float32(2.5)), ng.float32, [3.0, 2.5])


def test_where_refuses_an_integer_that_does_not_fit():
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t without "
                                           "overflow$"):
        ng.where(ng.tensor([True]), ng.tensor([1]), 2 ** 63)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int without "
                                           "overflow$"):
        ng.where(ng.tensor([True]), ng.tensor([1], dtype=ng.int32), -2 ** 31 - 1)
    check(ng.where(ng.tensor([False]), ng.tensor([1], dtype=ng.int32), 2 ** 31 - 1), ng.int32,
          [2 ** 31 - 1])
    check(ng.where(ng.tensor([True]), ng.tensor([True]), 2 ** 40), ng.int64, [1])


def test_true_division_by_a_large_integer_is_float():
    # the tensor becomes float before the int joins it (in int32 the divisor would wrap to 0)
    np.testing.assert_allclose(np.asarray(ng.tensor([3, -4], dtype=ng.int32) / 2 ** 62),
                               [6.5052130e-19, -8.6736174e-19], rtol=1e-6)
    check(ng.tensor([1, 2]) / ng.tensor(2, dtype=ng.float64), ng.float64, [0.5, 1.0])
    check(2 / ng.tensor([4, 8], dtype=ng.int32), ng.float32, [0.5, 0.25])


def test_filling_with_an_integer_that_does_not_fit_is_refused():
    for fill in (lambda: ng.full_like(ng.tensor([1], dtype=ng.int32), 2 ** 31),
                 lambda: ng.tensor([1], dtype=ng.int32).fill_(2 ** 31)):
        with pytest.raises(RuntimeError, match="^value cannot be converted to type int without "
                                               "overflow$"):
            fill()
    for fill in (lambda: ng.full((1,), 2 ** 63), lambda: ng.tensor([1]).fill_(2 ** 63)):
        with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t "
                                               "without overflow$"):
            fill()
    check(ng.tensor([1], dtype=ng.int32).fill_(2 ** 31 - 1), ng.int32, [2 ** 31 - 1])


# ---- already as torch: pinned so they stay so --------------------------------------------------
@pytest.mark.parametrize("make, dtype, expected", [
    (lambda: ng.tensor([7, -7]) / 2, ng.float32, [3.5, -3.5]),
    (lambda: ng.tensor([7, -7]) // 2, ng.int64, [3, -4]),
    (lambda: ng.tensor([7, -7]) % -3, ng.int64, [-2, -1]),
    (lambda: ng.tensor([1, 2]) * 1.5, ng.float32, [1.5, 3.0]),
    (lambda: ng.tensor([True, False]) * 2, ng.int64, [2, 0]),
    (lambda: ng.tensor([True]) + ng.tensor([True]), ng.bool, [True]),
    (lambda: ng.tensor([-3, 4]).abs(), ng.int64, [3, 4]),
    (lambda: ng.clamp(ng.tensor([1, 5]), 1.5, 3.5), ng.float32, [1.5, 3.5]),
    # 0-d tensors count only when of a higher category
    (lambda: ng.tensor(2) + ng.tensor([1.5, 2.5]), ng.float32, [3.5, 4.5]),
    (lambda: ng.tensor([1, 2], dtype=ng.int32) + ng.tensor(5), ng.int32, [6, 7]),
    (lambda: ng.tensor([1, 2], dtype=ng.int32) + ng.tensor(1.5, dtype=ng.float64), ng.float64,
     [2.5, 3.5]),
    (lambda: ng.tensor([1.0, 2.0]) + ng.tensor(1.5, dtype=ng.float64), ng.float32, [2.5, 3.5]),
    (lambda: ng.tensor([True]) + ng.tensor(2, dtype=ng.int32), ng.int32, [3]),
    (lambda: ng.where(ng.tensor([True, False]), ng.tensor([1, 2], dtype=ng.int32), 2.5),
     ng.float32, [1.0, 2.5]),
    (lambda: ng.where(ng.tensor([True, False]), ng.tensor([1.0, 2.0]),
                      ng.tensor(3, dtype=ng.float64)), ng.float32, [1.0, 3.0]),
    (lambda: ng.where(ng.tensor([True, False]), ng.tensor([1, 2]), True), ng.int64, [1, 1]),
    (lambda: ng.cat([ng.tensor([1]), ng.tensor([True]), ng.tensor([1.0], dtype=ng.float64),
                     ng.tensor([2.0])]), ng.float64, [1.0, 1.0, 1.0, 2.0]),
    (lambda: ng.stack([ng.tensor([1], dtype=ng.int32), ng.tensor([True])]), ng.int32,
     [[1], [1]]),
    (lambda: ng.tensor([1, 2, 3]).masked_fill(ng.tensor([True, False, True]), -2.7), ng.int64,
     [-2, 2, -2]),
    (lambda: ng.tensor([True, False]).sum(), ng.int64, 1),
    (lambda: ng.tensor([True, False]).max(), ng.bool, True),
    (lambda: ng.tensor([3, 1]).argmax(), ng.int64, 0),
    (lambda: ng.tensor([1.5, 0.0]).all(), ng.bool, False),
])
def test_promotion_as_torch(make, dtype, expected):
    check(make(), dtype, expected)


@pytest.mark.parametrize("make, error, message", [
    (lambda: ng.ones(2, 2) @ ng.ones(2, 2, dtype=ng.float64), RuntimeError,
     "expected m1 and m2 to have the same dtype, but got: float != double"),
    (lambda: ng.mm(ng.ones(2, 2), ng.ones(2, 2, dtype=ng.int64)), RuntimeError,
     "expected m1 and m2 to have the same dtype, but got: float != long int"),
    (lambda: ng.tensor([1, 2], requires_grad=True), RuntimeError,
     "Only Tensors of floating point and complex dtype can require gradients"),
    (lambda: ng.tensor([1, 2]).requires_grad_(), RuntimeError,
     "only Tensors of floating point dtype can require gradients"),
    (lambda: ng.tensor([2, 3]) ** -1, RuntimeError,
     "Integers to negative integer powers are not allowed."),
    (lambda: ng.tensor([1, 2]).mean(), RuntimeError,
     "mean(): could not infer output dtype. Input dtype must be either a floating point or "
     "complex dtype. Got: Long"),
    (lambda: ng.tensor([1, 2]).std(), RuntimeError,
     "std and var only support floating point and complex dtypes"),
    (lambda: ng.tensor([1, 2]).norm(), RuntimeError,
     "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
])
def test_refusals_as_torch(make, error, message):
    with pytest.raises(error, match="^" + re.escape(message) + "$"):
        make()


def test_integer_in_place_ops_refuse_a_float_result():
    t = ng.tensor([1, 2])
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output "
                                           "type Long$"):
        t += 1.5
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output "
                                           "type Int$"):
        ng.tensor([1], dtype=ng.int32).div_(2)


def test_integer_results_of_float_tensors_do_not_require_grad():
    x = ng.tensor([1.5, -2.0, 3.0], requires_grad=True)
    for result in (x.argmax(), x > 0, x.long(), x.sort()[1], x.max(0)[1], x.isnan(), x.bool()):
        assert not result.requires_grad
    assert x.double().requires_grad and x.to(ng.float64).grad_fn.name() == "ToCopyBackward0"


def test_python_scalars_out_of_tensors_are_torchs_types():
    for t, value in ((ng.tensor(2.5), 2.5), (ng.tensor(3), 3), (ng.tensor(True), True)):
        assert type(t.item()) is type(value) and t.item() == value
        assert type(t.reshape(1).tolist()[0]) is type(value)
    assert int(ng.tensor(-2.7)) == -2 and float(ng.tensor(3)) == 3.0


def test_index_put_refuses_another_dtype_where_a_basic_index_casts():
    x = ng.zeros(3)
    for index in (ng.tensor([0, 1]), ng.tensor([True, False, True])):
        for value in (ng.ones(2, dtype=ng.float64), ng.tensor(5)):
            with pytest.raises(RuntimeError, match="^Index put requires the source and destination "
                                                   "dtypes match, got Float for the destination "
                                                   f"and {'Double' if value.ndim else 'Long'} for "
                                                   "the source.$"):
                x[index] = value
    assert x.tolist() == [0.0, 0.0, 0.0]
    x[0:2] = ng.ones(2, dtype=ng.float64)          # copy_ casts
    x[ng.tensor([2])] = 7.0                         # a Python number takes x's dtype
    assert x.tolist() == [1.0, 1.0, 7.0]


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e", "erfcx", "modified_bessel_i0"])
def test_special_functions_of_integers_and_bools_are_floats(name):
    fn = getattr(ng.special, name)
    assert fn(ng.tensor([1, 2])).dtype == ng.float32
    assert fn(ng.tensor([True, False])).dtype == ng.float32
    assert fn(ng.tensor([1.0], dtype=ng.float64)).dtype == ng.float64
    np.testing.assert_allclose(ng.special.i0(ng.tensor([1, 2])).numpy(), [1.2660659, 2.2795853],
                               rtol=1e-6)
