"""Ops round as torch's CPU kernels do, bit for bit, in float32 and float64: fused multiply-adds
(add/sub with alpha, addcmul, lerp), the grouping of derivative formulas, reductions' accumulation.
Expected values are torch 2.13's, hard-coded."""
from fractions import Fraction

import numpy as np
import pytest

import numgrad as ng
from numgrad.ops.fused import fma

X = [0.034, 1.36, 1.225, -0.51, -0.298, -0.527]
Y = [0.57, -0.056, 0.747, -1.847, 1.567, -0.096]
Z = [0.68, -0.137, -0.379, 0.463, 0.825, -0.203]

# torch 2.13 gives, for the inputs above in each dtype:
FUSED = {
    np.float32: {
        "addcmul": [0.15027999877929688, 1.3623015880584717, 1.140066146850586,
                    -0.7665483355522156, 0.08983249962329865, -0.5211536288261414],
        "addcmul_neg": [-0.6249200105667114, 1.3469575643539429, 1.7062921524047852,
                        0.9437738060951233, -2.4957175254821777, -0.5601295828819275],
        "lerp_small": [0.1948000192642212, 0.9351999759674072, 1.0815999507904053,
                       -0.9111000299453735, 0.2615000307559967, -0.3977000117301941],
        "lerp_large": [0.409199982881546, 0.36880001425743103, 0.8903999924659729,
                       -1.4458999633789062, 1.0075000524520874, -0.22529999911785126],
        "lerp_tensor": [0.5807200074195862, 1.0690120458602905, 0.9532569646835327,
                        -1.4385464191436768, 2.0099375247955322, -0.39576050639152527],
        "add_alpha": [0.20500001311302185, 1.3431999683380127, 1.4491000175476074,
                      -1.0641000270843506, 0.1721000224351883, -0.5558000206947327],
        "sub_alpha": [0.7749999761581421, 1.2871999740600586, 2.1960999965667725,
                      -2.911099910736084, 1.7390999794006348, -0.6517999768257141],
    },
    np.float64: {
        "addcmul": [0.15028, 1.3623016000000001, 1.1400661, -0.7665483, 0.08983249999999995,
                    -0.5211536],
        "addcmul_neg": [-0.6249199999999999, 1.3469576, 1.7062921000000002, 0.9437737,
                        -2.4957175, -0.5601296],
        "lerp_small": [0.19479999999999997, 0.9352, 1.0816000000000001, -0.9111, 0.2615,
                       -0.3977],
        "lerp_large": [0.40919999999999995, 0.3688000000000001, 0.8904000000000001, -1.4459,
                       1.0074999999999998, -0.22530000000000003],
        "lerp_tensor": [0.58072, 1.069012, 0.953257, -1.4385465, 2.0099374999999995,
                        -0.3957605],
        "add_alpha": [0.205, 1.3432000000000002, 1.4491, -1.0641, 0.17209999999999998,
                      -0.5558000000000001],
        "sub_alpha": [0.7749999999999999, 1.2872000000000001, 2.1961, -2.9111000000000002,
                      1.7391, -0.6518],
    },
}


def _inputs(dtype, requires_grad=False):
    return [ng.tensor(np.array(v, dtype), requires_grad=requires_grad) for v in (X, Y, Z)]


def _fused_results(x, y, z):
    return {
        "addcmul": ng.addcmul(x, y, z, value=0.3),
        "addcmul_neg": x.clone().addcmul_(y, z, value=-1.7),
        "lerp_small": ng.lerp(x, y, 0.3),
        "lerp_large": x.clone().lerp_(y, 0.7),
        "lerp_tensor": ng.lerp(x, y, z.abs() * 1.5),
        "add_alpha": ng.add(x, y, alpha=0.3),
        "sub_alpha": x.sub(y, alpha=-1.3),
    }


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_multiply_adds_round_once_as_torch(dtype):
    for name, result in _fused_results(*_inputs(dtype)).items():
        assert result.dtype == ng.tensor(np.zeros(1, dtype)).dtype
        np.testing.assert_array_equal(result.numpy(), np.array(FUSED[dtype][name], dtype),
                                      err_msg=name)


# torch 2.13: addcmul(x, y, z, value=-1.7) and addcdiv(...) backward with gradient 3 * x
GRADS = {
    np.float32: {
        "addcmul": ([-0.11791200935840607, 0.9502319693565369, 2.367802858352661,
                     1.2042629718780518, 1.2538350820541382, -0.5456030964851379],
                    [-0.09883800894021988, 0.38841599225997925, -4.666882514953613,
                     -4.804047107696533, 2.3815269470214844, -0.25801923871040344]),
        "addcdiv": ([-0.2550000250339508, 50.62773895263672, 16.484169006347656,
                     5.617710590362549, 1.8421820402145386, -13.239903450012207],
                    [0.21375000476837158, -20.694551467895508, 32.48990249633789,
                     22.41017723083496, -3.4990293979644775, 6.261235237121582]),
    },
    np.float64: {
        "addcmul": ([-0.11791200000000002, 0.9502320000000001, 2.3678025000000003, 1.204263,
                     1.2538349999999998, -0.5456031],
                    [-0.098838, 0.388416, -4.666882500000001, -4.804047, 2.3815265999999995,
                     -0.2580192]),
        "addcdiv": ([-0.25499999999999995, 50.62773722627737, 16.484168865435358,
                     5.617710583153348, 1.842181818181818, -13.239901477832511],
                    [0.21374999999999994, -20.69454952314987, 32.48990538912985,
                     22.41017591162901, -3.499028980716253, 6.261234196413405]),
    },
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_addcmul_addcdiv_gradients_group_as_torch(dtype, op):
    x, y, z = _inputs(dtype, requires_grad=True)
    getattr(ng, op)(x, y, z, value=-1.7).backward(x.detach() * 3)
    expected_y, expected_z = GRADS[dtype][op]
    np.testing.assert_array_equal(y.grad.numpy(), np.array(expected_y, dtype))
    np.testing.assert_array_equal(z.grad.numpy(), np.array(expected_z, dtype))


def _exact_fma(a, b, c, dtype):
    """a * b + c rounded to nearest (ties to even) in dtype, from the exact rational value."""
    exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    guess = dtype(float(exact))      # at most one rounding off for float32: try its neighbours
    near = [np.nextafter(guess, dtype(-np.inf)), guess, np.nextafter(guess, dtype(np.inf))]
    bits = np.uint32 if dtype == np.float32 else np.uint64
    return min(near, key=lambda v: (abs(Fraction(float(v)) - exact),
                                    int(np.array(v).view(bits)) & 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fma_rounds_the_exact_value_once(dtype):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(600).astype(dtype) for _ in range(2))
    # cancelling sums, where rounding the product first loses the most
    near = (a.astype(np.float64) * b).astype(dtype)
    c = np.where(np.arange(600) % 2 == 0, -near * (1 + rng.integers(-2, 3, 600)
                                                    * np.finfo(dtype).eps),
                 rng.standard_normal(600)).astype(dtype)
    expected = np.array([_exact_fma(*v, dtype) for v in zip(a, b, c)], dtype)
    np.testing.assert_array_equal(fma(a, b, c), expected)


def test_fma_at_infinities_zeros_and_huge_factors():
    # a product overflowing beside an infinite c gives c; zeros keep C's signs; inf * 0 is NaN
    out = fma(np.array([1e308, 2.0, -0.0, np.inf]), np.array([1e308, 0.0, 0.0, 0.0]),
              np.array([-np.inf, -0.0, -0.0, 1.0]))
    assert out[0] == -np.inf and np.isnan(out[3])
    assert not np.signbit(out[1]) and np.signbit(out[2])
    # factors past Veltkamp's split limit, and a tiny one beside a huge one
    a = np.array([1e300, 3e305, 7e-310, 1.5e299])
    b = np.array([1.0000000000000002e-300, 1.0000000000000004e-300, 3e300, -7e-290])
    c = np.array([1e-17, -3.0000000000000013e5, 0.1, 3e9])
    expected = [_exact_fma(*v, np.float64) for v in zip(a, b, c)]
    np.testing.assert_array_equal(fma(a, b, c), expected)


def _names(node, depth=3):
    """node's name and its next_functions' names, nested as torch prints them."""
    if node is None:
        return None
    if depth == 0:
        return node.name()
    return node.name(), [_names(n, depth - 1) for n, _ in node.next_functions]


@pytest.mark.parametrize("write", ["copy_", "setitem_all", "fill_", "copy_view"])
def test_writes_across_dtypes_convert_inside_their_node(write):
    # torch 2.13: float32 x.copy_(float64 y) is CopyBackwards -> y's node, with no ToCopyBackward0;
    # the gradient reaches y in float64
    src = ng.tensor([1.5, 2.25, -3.0], dtype=ng.float64, requires_grad=True)
    leaf = ng.tensor([0.0, 1.0, 2.0], requires_grad=True)
    x = leaf * 1
    value = src * 2
    if write == "copy_":
        x.copy_(value)
    elif write == "setitem_all":
        x[...] = value
    elif write == "fill_":
        x.fill_(value[1])
    else:
        x[:2].copy_(value[:2])
    expected = {
        "copy_": ("torch::autograd::CopyBackwards", [
            ("MulBackward0", [("torch::autograd::AccumulateGrad", []), None]),
            ("MulBackward0", [("torch::autograd::AccumulateGrad", []), None])]),
        "fill_": ("FillBackward3", [
            ("MulBackward0", [("torch::autograd::AccumulateGrad", []), None]),
            ("SelectBackward0", [("MulBackward0", ["torch::autograd::AccumulateGrad", None])])]),
        "copy_view": ("torch::autograd::CopySlices", [
            ("MulBackward0", [("torch::autograd::AccumulateGrad", []), None]),
            ("SliceBackward0", [("MulBackward0", ["torch::autograd::AccumulateGrad", None])])]),
    }
    expected["setitem_all"] = expected["copy_"]
    assert _names(x.grad_fn) == expected[write]
    (x * ng.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert src.grad.dtype == ng.float64
    grads = {"copy_": [2.0, 4.0, 6.0], "setitem_all": [2.0, 4.0, 6.0], "fill_": [0.0, 12.0, 0.0],
             "copy_view": [2.0, 4.0, 0.0]}
    assert src.grad.tolist() == grads[write]


# torch 2.13: the first gradient of op(x).sum() under create_graph, two levels down
DOUBLE_BACKWARD = {
    "cos": ("MulBackward0", [None, ("NegBackward0", ["SinBackward0"])]),
    "sqrt": ("DivBackward0", [None, ("MulBackward1", ["SqrtBackward0"])]),
    "rsqrt": ("MulBackward0", [None, ("PowBackward0", ["RsqrtBackward0"])]),
    "square": ("MulBackward0", [None, ("MulBackward1", ["PowBackward0"])]),
    "exp2": ("MulBackward1", [("MulBackward0", [None, "Exp2Backward0"])]),
    "log2": ("DivBackward0", [None, ("MulBackward1", ["torch::autograd::AccumulateGrad"])]),
    "log10": ("DivBackward0", [None, ("MulBackward1", ["torch::autograd::AccumulateGrad"])]),
    "erf": ("MulBackward0", [("MulBackward1", ["ExpBackward0"]), None]),
    "erfc": ("MulBackward0", [("MulBackward1", ["ExpBackward0"]), None]),
    "sinc": ("WhereBackward0", [None, ("MulBackward0", [None, "DivBackward0"])]),
}


@pytest.mark.parametrize("op", sorted(DOUBLE_BACKWARD))
def test_double_backward_nodes_are_torchs(op):
    x = ng.tensor([0.5, 1.25, 2.0], dtype=ng.float64, requires_grad=True)
    g, = ng.autograd.grad(getattr(ng, op)(x).sum(), x, create_graph=True)
    assert _names(g.grad_fn, 2) == DOUBLE_BACKWARD[op]


# torch 2.13's gradients for gradient [1.5, -0.75, 2.25, 0.3, -1.1, 0.6] at these points
POINTS = [0.3, 0.7, 1.9, 2.6, -0.45, 3.3]
UPSTREAM = [1.5, -0.75, 2.25, 0.3, -1.1, 0.6]
GRADIENTS = {
    (np.float32, "erfc"): [-1.546891450881958, 0.518456220626831, -0.06868067383766174,
                           -0.00039241532795131207, 1.0136853456497192, -1.2622334907064214e-05],
    (np.float32, "sinc"): [-1.3530426025390625, 1.0239301919937134, 1.1875578165054321,
                           -0.04909055307507515, -1.3254075050354004, -0.09268166869878769],
    (np.float64, "erfc"): [-1.5468913644284448, 0.518456145307904, -0.06868066597975762,
                           -0.00039241501491698417, 1.0136852143134423, -1.26223262661482e-05],
    (np.float64, "sinc"): [-1.3530421952083334, 1.0239302816402651, 1.1875578190735627,
                           -0.04909060104280142, -1.3254074045084967, -0.09268172039476148],
    # torch's ln 10 is 2.3025850929940456 as written in derivatives.yaml
    (np.float64, "log10"): [2.1714724095162596, -0.46531551632491275, 0.514296096990693,
                            0.05011090175806752, 1.0616087335412825, 0.07896263307331852],
}


@pytest.mark.parametrize("dtype, op", sorted(GRADIENTS, key=str))
def test_derivative_formulas_round_as_torchs(dtype, op):
    x = ng.tensor(np.array(POINTS, dtype), requires_grad=True)
    y = ng.log10(x.abs()) if op == "log10" else getattr(ng, op)(x)
    y.backward(ng.tensor(np.array(UPSTREAM, dtype)))
    np.testing.assert_array_equal(x.grad.numpy(), np.array(GRADIENTS[dtype, op], dtype))


# torch 2.13: the gradient of (view * view).sum() under create_graph (leaf * 1's MulBackward0), its
# first input two levels down: views
# are undone by torch's backward ops (select_backward, ...), t and transpose by themselves,
# unsqueeze by squeeze(dim), squeeze by unsqueeze, mm through t(), sum and mean by unsqueezing and
# expanding (a mean then divided by its count)
VIEW_DOUBLE_BACKWARD = {
    "select": ("x[1]",
        ('SelectBackwardBackward0', [('AddBackward0', ['MulBackward0', 'MulBackward0'])])),
    "slice": ("x[::2]",
        ('SliceBackwardBackward0', [('AddBackward0', ['MulBackward0', 'MulBackward0'])])),
    "diagonal": ("x.diagonal()",
        ('DiagonalBackwardBackward0', [('AddBackward0', ['MulBackward0', 'MulBackward0'])])),
    "unfold": ("x.unfold(0, 2, 1)",
        ('UnfoldBackwardBackward0', [('AddBackward0', ['MulBackward0', 'MulBackward0'])])),
    "alias": ("x[...]",
        ('AddBackward0',
         [('MulBackward0', [None, 'AliasBackward0']),
          ('MulBackward0', [None, 'AliasBackward0'])])),
    "diag": ("x.diag()",
        ('DiagonalBackwardBackward0', [('AddBackward0', ['MulBackward0', 'MulBackward0'])])),
    "t": ("x.t()",
        ('TBackward0', [('AddBackward0', ['MulBackward0', 'MulBackward0'])])),
    "transpose": ("x.transpose(0, 1)",
        ('TransposeBackward0', [('AddBackward0', ['MulBackward0', 'MulBackward0'])])),
    "mm": ("x.mm(x * 2)",
        ('AddBackward0',
         [('MmBackward0', ['AddBackward0', 'TBackward0']),
          ('MulBackward0', ['MmBackward0', None])])),
    "bmm": ("x[None].bmm(x[None] * 2)",
        ('AddBackward0',
         [('SqueezeBackward1', ['MulBackward0']), ('SqueezeBackward1', ['BmmBackward0'])])),
    "squeeze": ("x[None].squeeze(0)",
        ('SqueezeBackward1', [('UnsqueezeBackward0', ['AddBackward0'])])),
    "unsqueeze": ("x.unsqueeze(1)",
        ('SqueezeBackward1', [('AddBackward0', ['MulBackward0', 'MulBackward0'])])),
    "squeeze_all": ("x[None, :, None].squeeze()",
        ('SqueezeBackward1', [('SqueezeBackward1', ['UnsqueezeBackward0'])])),
    "sum_dim": ("x.sum(0)", ('ExpandBackward0', [('UnsqueezeBackward0', ['AddBackward0'])])),
    "sum_dims": ("x[None].sum((0, 2))",
        ('SqueezeBackward1', [('ExpandBackward0', ['UnsqueezeBackward0'])])),
    "sum_keepdim": ("x.sum(0, keepdim=True)",
        ('ExpandBackward0', [('AddBackward0', ['MulBackward0', 'MulBackward0'])])),
    "mean_dim": ("x.mean(1)", ('DivBackward1', [('ExpandBackward0', ['UnsqueezeBackward0'])])),
    "mean": ("x.mean()", ('DivBackward1', [('ExpandBackward0', ['AddBackward0'])])),
}


@pytest.mark.parametrize("view", sorted(VIEW_DOUBLE_BACKWARD))
def test_views_are_undone_by_torchs_backward_ops(view):
    expression, expected = VIEW_DOUBLE_BACKWARD[view]
    leaf = ng.tensor(np.arange(9.0).reshape(3, 3) / 7, requires_grad=True)
    x = leaf * 1
    y = eval(expression, {"x": x})
    g, = ng.autograd.grad((y * y).sum(), leaf, create_graph=True)
    assert _names(g.grad_fn, 3) == ("MulBackward0", [expected, None])


# torch 2.13: d/dleaf of (g * g).sum() for the gradients above
SECOND = {
    "select": [[0.0, 0.0, 0.0], [3.4285714285714284, 4.571428571428571, 5.714285714285714],
               [0.0, 0.0, 0.0]],
    "unfold": [[0.0, 1.1428571428571428, 2.2857142857142856],
               [13.714285714285714, 18.285714285714285, 22.857142857142858],
               [6.857142857142857, 8.0, 9.142857142857142]],
    "mm": [[4496.412209198547, 7618.676979829832, 10740.941750461117],
           [7414.693401558874, 13234.805497709287, 19054.917593859704],
           [10332.9745939192, 18850.93401558874, 27368.893437258284]],
}


@pytest.mark.parametrize("view", sorted(SECOND))
def test_second_derivatives_through_views(view):
    leaf = ng.tensor(np.arange(9.0).reshape(3, 3) / 7, requires_grad=True)
    y = eval(VIEW_DOUBLE_BACKWARD[view][0], {"x": leaf * 1})
    g, = ng.autograd.grad((y * y).sum(), leaf, create_graph=True)
    second, = ng.autograd.grad((g * g).sum(), leaf)
    np.testing.assert_allclose(second.numpy(), SECOND[view], rtol=1e-13)


NORM_INPUT = [[0.3, -1.7, 2.25, 0.0, 4.5], [1.1, -0.2, 0.9, -3.3, 0.05]]
# torch 2.13: vector_norm(x, 3), its rows' (dim=1), x.norm(0.5): |x| ** p added one element after
# another in the input's type, with C's pow
P_NORMS = {
    np.float32: (5.259146690368652, [4.754188537597656, 3.3621268272399902], 99.15751647949219),
    np.float64: (5.259146565022369, [4.754188364872711, 3.3621265414429806], 99.15750469116851),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_p_norms_accumulate_as_torch(dtype):
    x = ng.tensor(np.array(NORM_INPUT, dtype))
    whole, rows, half = P_NORMS[dtype]
    assert ng.linalg.vector_norm(x, 3).item() == whole
    assert ng.linalg.vector_norm(x, 3, dim=1).tolist() == rows
    assert x.norm(0.5).item() == half
    # one element is its magnitude, however p would round it
    assert ng.linalg.vector_norm(x[:, :1], 0.5, dim=1).tolist() == [abs(v) for v in
                                                                    np.array([0.3, 1.1], dtype)]


def test_long_p_norm_splits_between_torchs_threads():
    # torch 2.13 with 2 threads: 39.80500030517578 (one sequential sum gives 39.804931640625)
    big = np.random.default_rng(7).standard_normal(40000).astype(np.float32)
    threads = ng.get_num_threads()
    ng.set_num_threads(2)
    try:
        assert ng.linalg.vector_norm(ng.tensor(big), 3).item() == 39.80500030517578
    finally:
        ng.set_num_threads(threads)


@pytest.mark.parametrize("p, dim, message", [
    (-1.0, 0, "linalg.vector_norm cannot compute the -1 norm on the dimension 0because this "
              "dimension is empty and the operation does not have an identity"),
    (float("inf"), (1, 0), "linalg.vector_norm cannot compute the inf norm on the dimension "
                           "0because this dimension is empty and the operation does not have an "
                           "identity"),
    (-0.5, None, "linalg.vector_norm cannot compute the -0.5 norm on an empty tensor because the "
                 "operation does not have an identity"),
])
def test_norms_without_identity_refuse_empty_dims(p, dim, message):
    x = ng.zeros(0, 3, requires_grad=True)
    with pytest.raises(RuntimeError) as error:
        ng.linalg.vector_norm(x, p, dim=dim)
    assert str(error.value) == message
    assert ng.linalg.vector_norm(x, p, dim=1).shape == (0,)     # dim 1 has elements


def test_one_norm_adds_magnitudes_in_order():
    # torch 2.13's NormOneOps: |x| added one element after another (NumPy's sum is pairwise)
    x = np.random.default_rng(5).standard_normal((4, 40))
    expected = {
        np.float32: [29.214906692504883, 30.71729278564453, 28.102079391479492,
                     31.059120178222656],
        np.float64: [29.2149028741647, 30.717291732009382, 28.10207616053502,
                     31.059120927432023],
    }
    for dtype, rows in expected.items():
        assert ng.linalg.vector_norm(ng.tensor(x.astype(dtype)), 1, dim=1).tolist() == rows


def test_adafactor_mean_squares_are_torchs_squared_norms():
    # torch's _single_tensor_adafactor: row_mean = norm(grad, dim=-1).square_().div_(size), not
    # (grad * grad).mean(-1); at step 1 (1 - beta2_t = 1) the factor is that mean itself
    grad = np.random.default_rng(3).standard_normal((6, 33)).astype(np.float32)
    w = ng.nn.Parameter(ng.zeros(6, 33))
    w.grad = ng.tensor(grad)
    opt = ng.optim.Adafactor([w])
    opt.step()
    g = ng.tensor(grad)
    np.testing.assert_array_equal(opt.state[w]["row_var"].numpy(),
                                  (g.norm(dim=-1, keepdim=True) ** 2 / 33).numpy())
    np.testing.assert_array_equal(opt.state[w]["col_var"].numpy(),
                                  (g.norm(dim=-2, keepdim=True) ** 2 / 6).numpy())


# torch 2.13: ops without a Scalar overload refuse a number, naming the argument's position (the
# method's self not counted)
NUMBER_REFUSALS = [
    ("maximum", "other"), ("minimum", "other"), ("atan2", "other"), ("arctan2", "other"),
    ("hypot", "other"), ("logaddexp", "other"), ("logaddexp2", "other"), ("ldexp", "other"),
    ("nextafter", "other"), ("fmax", "other"), ("fmin", "other"), ("heaviside", "values"),
    ("logical_and", "other"), ("logical_xor", "other"), ("dist", "other"), ("gcd", "other"),
    ("isclose", "other"), ("allclose", "other"), ("equal", "other"), ("dot", "tensor"),
    ("outer", "vec2"), ("kron", "other"), ("cross", "other"),
]


@pytest.mark.parametrize("op, argument", NUMBER_REFUSALS)
def test_ops_without_scalar_overloads_refuse_numbers(op, argument):
    x = ng.tensor([1.5, 2.0])
    with pytest.raises(TypeError) as error:
        getattr(ng, op)(x, 2)
    assert str(error.value) == f"{op}(): argument '{argument}' (position 2) must be Tensor, not int"
    with pytest.raises(TypeError) as error:
        getattr(x, op)(2.5)
    assert str(error.value) == (f"{op}(): argument '{argument}' (position 1) must be Tensor, not "
                                f"float")


def test_addcmul_names_the_operand_that_is_no_tensor():
    x = ng.ones(2)
    with pytest.raises(TypeError) as error:
        x.addcmul(x, 2)
    assert str(error.value) == "addcmul(): argument 'tensor2' (position 2) must be Tensor, not int"
    with pytest.raises(TypeError) as error:
        ng.addcdiv(x, 2, x)
    assert str(error.value) == "addcdiv(): argument 'tensor1' (position 2) must be Tensor, not int"
    # the operators of bool tensors still take numbers, as torch's
    assert (ng.tensor([True, False]) & True).tolist() == [True, False]


def test_ldexp_promotes_as_torchs_product():
    # torch 2.13: input * pow(2.0, other), an int32 input times a 0-d float64 power is float64
    out = ng.ldexp(ng.tensor([3, -2], dtype=ng.int32), ng.tensor(0.5, dtype=ng.float64))
    assert out.dtype == ng.float64
    assert out.tolist() == [4.242640687119286, -2.8284271247461903]


def test_xlogy_of_a_number_takes_its_correctly_rounded_log():
    # torch 2.13: log(7) in float32 is 1.9459101 (C's logf; NumPy's float32 log gives 1.9459102)
    x = ng.tensor([0.75, -2.5, 3.125, 1.0, 0.0, -0.3])
    expected = [1.459432601928711, -4.86477518081665, 6.080968856811523, 1.945910096168518, 0.0,
                -0.5837730765342712]
    assert x.xlogy(7).tolist() == expected
    assert x.xlogy(ng.tensor(7.0)).tolist() == expected


def test_addcmul_double_backward_scales_through_the_scalar_overload():
    # torch 2.13: grad * (tensor2 * value), the scaling a MulBackward1
    x, y, z = (ng.tensor(v, requires_grad=True) for v in ([0.5, 1.5], [2.0, -1.0], [1.0, 3.0]))
    g, = ng.autograd.grad(ng.addcmul(x, y, z, value=0.3).sum(), y, create_graph=True)
    assert _names(g.grad_fn, 2) == ("MulBackward0", [None, ("MulBackward1",
                                                            ["torch::autograd::AccumulateGrad"])])


@pytest.mark.parametrize("op, shapes, dim, names", [
    ("cat", [(2, 3), (4, 3)], 0, ["SliceBackward0", "SliceBackward0"]),
    ("cat", [(2, 3), (0,), (1, 3)], 0, ["SliceBackward0", None, "SliceBackward0"]),
    ("stack", [(2, 3), (2, 3)], 1, ["SelectBackward0", "SelectBackward0"]),
])
def test_cat_and_stack_are_undone_by_slices_and_selects(op, shapes, dim, names):
    # torch 2.13 under create_graph: each input's gradient is g.slice (cat) or g.select (stack)
    # along dim; an empty (0,) input's is zeros with no history
    xs = [ng.tensor(np.arange(np.prod(s), dtype=float).reshape(s) + k, requires_grad=True)
          for k, s in enumerate(shapes)]
    y = getattr(ng, op)(xs, dim)
    weights = ng.tensor(np.arange(y.numel(), dtype=float).reshape(y.shape))
    grads = ng.autograd.grad((y * y * weights).sum(), xs, create_graph=True)
    assert [None if g.grad_fn is None else g.grad_fn.name() for g in grads] == names
    for x, g in zip(xs, grads):
        assert g.shape == x.shape


def test_stack_gradient_along_an_inner_dim():
    a, b = (ng.tensor(np.arange(6.0).reshape(2, 3) + k, requires_grad=True) for k in (0, 10))
    y = ng.stack([a, b], 1)
    weights = ng.tensor(np.arange(12.0).reshape(2, 2, 3))
    ga, gb = ng.autograd.grad((y * weights).sum(), (a, b), create_graph=True)
    # torch 2.13: a's is weights[:, 0], b's weights[:, 1]
    assert ga.tolist() == [[0.0, 1.0, 2.0], [6.0, 7.0, 8.0]]
    assert gb.tolist() == [[3.0, 4.0, 5.0], [9.0, 10.0, 11.0]]


@pytest.mark.parametrize("repeats, names", [
    ((2, 1), ("SumBackward1", [("ViewBackward0", ["AddBackward0"])])),
    ((2, 2, 3), ("SumBackward1", [("ViewBackward0", ["SumBackward1"])])),
    ((2, 0), None),
])
def test_repeat_gradient_is_torchs_repeat_backward(repeats, names):
    # torch 2.13: new leading dims summed one at a time, then one reshape and one sum over the
    # copies; a zero count gives zeros with no history
    x = ng.tensor(np.arange(6.0).reshape(2, 3) / 7, requires_grad=True)
    y = x.repeat(*repeats)
    g, = ng.autograd.grad((y * y).sum(), x, create_graph=True)
    assert (None if g.grad_fn is None else _names(g.grad_fn, 2)) == names
    assert g.shape == (2, 3)


def test_in_place_forms_refuse_numbers_under_their_own_names():
    x = ng.ones(2)
    for call, message in [
            (lambda: x.addcmul_(x, 2), "addcmul_(): argument 'tensor2' (position 2) must be "
                                       "Tensor, not int"),
            (lambda: x.atan2_(2), "atan2_(): argument 'other' (position 1) must be Tensor, not "
                                  "int"),
            (lambda: x.hypot_(2.0), "hypot_(): argument 'other' (position 1) must be Tensor, not "
                                    "float")]:
        with pytest.raises(TypeError) as error:
            call()
        assert str(error.value) == message
    assert x._version == 0 and x.tolist() == [1.0, 1.0]
