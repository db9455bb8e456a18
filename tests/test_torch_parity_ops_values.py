"""Math ops against torch 2.13, found by a differential probe (random graphs of elementwise ops,
reductions and linear algebra, first and second derivatives): the values, dtypes and nodes here
are torch's, hard-coded."""
import numpy as np
import pytest

import numgrad as ng

X = [0.3, -1.2, 2.0]
Y = [1.1, 0.4, -0.5]


def _leaves(dtype=ng.float64):
    return (ng.tensor(X, dtype=dtype, requires_grad=True),
            ng.tensor(Y, dtype=dtype, requires_grad=True))


def _names(node):
    return [None if n is None else n.name() for n, _ in node.next_functions]


# ---- add, sub and rsub with alpha ---------------------------------------------------------------
# torch 2.13: one node keeping alpha, whose next_functions are the operands' own producers, and
# under create_graph the second operand's gradient is a Scalar multiply (MulBackward1)
@pytest.mark.parametrize("fn, node, value, gx, gy, hx, hy", [
    ("add", "AddBackward0", [3.05, -0.2, 0.75], [3.685, -0.56, -1.375], [1.74, -0.96, -1.0],
     [26.3065, -0.544, -1.0625], [16.1415, 3.744, -15.25]),
    ("sub", "SubBackward0", [-2.45, -2.2, 3.25], [-2.365, -1.36, -2.625], [-1.56, 3.84, 9.0],
     [8.1565, 9.056, -26.0625], [11.1915, -25.056, 84.75]),
    ("rsub", "RsubBackward0", [0.35, 3.4, -5.5], [-0.44, 2.56, 5.25], [0.435, -4.56, -12.0],
     [-2.7005, 26.528, -87.75], [0.0405, -37.152, 153.0]),
])
def test_alpha_is_kept_by_the_one_node(fn, node, value, gx, gy, hx, hy):
    x, y = _leaves()
    z = getattr(ng, fn)(x, y, alpha=2.5)
    assert z.grad_fn.name() == node
    assert z.grad_fn._saved_alpha == 2.5
    assert [n.variable for n, _ in z.grad_fn.next_functions] == [x, y]
    np.testing.assert_allclose(z.detach().numpy(), value, rtol=1e-12)
    first = ng.autograd.grad((z * x * y).sum(), [x, y], create_graph=True)
    np.testing.assert_allclose(first[0].detach().numpy(), gx, rtol=1e-12)
    np.testing.assert_allclose(first[1].detach().numpy(), gy, rtol=1e-12)
    second = ng.autograd.grad((first[0] * first[1]).sum(), [x, y])
    np.testing.assert_allclose(second[0].numpy(), hx, rtol=1e-12)
    np.testing.assert_allclose(second[1].numpy(), hy, rtol=1e-12)


@pytest.mark.parametrize("fn, scaled_operand, below", [
    ("add", 1, ["MulBackward0"]),       # torch: grad * alpha
    ("sub", 1, ["NegBackward0"]),       # torch: (-grad) * alpha
    ("rsub", 0, ["NegBackward0"]),
])
def test_the_recorded_gradient_scales_through_the_scalar_overload(fn, scaled_operand, below):
    x, y = _leaves()
    weight = ng.tensor([1.0, 2.0, 3.0], dtype=ng.float64, requires_grad=True)
    z = getattr(ng, fn)(x, y, alpha=2.5)
    grads = ng.autograd.grad((z * weight).sum(), [x, y], create_graph=True)
    scaled = grads[scaled_operand].grad_fn
    assert scaled.name() == "MulBackward1"
    assert _names(scaled) == below


def test_alpha_one_scales_nothing():
    # torch: rsub(x, y) is RsubBackward0 with _saved_alpha 1; x's gradient is -grad (NegBackward0)
    x, y = _leaves()
    z = ng.rsub(x, y)
    assert (z.grad_fn.name(), z.grad_fn._saved_alpha) == ("RsubBackward0", 1)
    gx, = ng.autograd.grad((z * x).sum(), [x], create_graph=True)
    np.testing.assert_allclose(gx.detach().numpy(), [0.5, 2.8, -4.5], rtol=1e-12)


def test_scalar_operands_with_alpha():
    x, _ = _leaves()
    z = ng.add(x, 3, alpha=2)
    # torch: AddBackward0, the number an input that needs no gradient
    assert _names(z.grad_fn) == ["torch::autograd::AccumulateGrad", None]
    assert z.grad_fn._saved_alpha == 2
    np.testing.assert_allclose(z.detach().numpy(), [6.3, 4.8, 8.0], rtol=1e-12)
    z = ng.rsub(x, 3.0, alpha=2)
    assert z.grad_fn.name() == "RsubBackward1" and z.grad_fn._saved_alpha == 2
    np.testing.assert_allclose(z.detach().numpy(), [2.4, 5.4, -1.0], rtol=1e-12)
    gx, = ng.autograd.grad((z * x).sum(), [x])
    np.testing.assert_allclose(gx.numpy(), [1.8, 7.8, -5.0], rtol=1e-12)


def test_alpha_times_other_is_rounded_once_as_torchs_fused_kernel():
    # torch 2.13's float32 add(a, b, alpha=3.3) rounds a + 3.3 * b once: elements 0, 3 and 4
    # differ from rounding the product first
    a = ng.tensor([1.5409960746765137, -0.293428897857666, -2.1787893772125244,
                   0.5684312582015991, -1.0845223665237427, -1.3985954523086548])
    b = ng.tensor([0.40334683656692505, 0.8380263447761536, -0.7192575931549072,
                   -0.40334352850914, -0.5966353416442871, 0.18203648924827576])
    torch_result = np.array([2.8720405101776123, 2.472058057785034, -4.552339553833008,
                             -0.7626023888587952, -3.0534188747406006, -0.7978750467300415],
                            np.float32)
    np.testing.assert_array_equal(ng.add(a, b, alpha=3.3).numpy(), torch_result)
    np.testing.assert_array_equal(ng.sub(a, b, alpha=-3.3).numpy(), torch_result)


def test_alpha_with_integers_and_bools():
    # torch: int64 + 3 * bool stays int64; bool + False * bool is the first operand
    assert ng.add(ng.tensor([1, 2]), ng.tensor([True, False]), alpha=3).tolist() == [4, 2]
    assert ng.add(ng.tensor([True, False]), ng.tensor([True, True]),
                  alpha=False).tolist() == [True, False]
    with pytest.raises(RuntimeError, match="^For integral input tensors, argument alpha must not "
                                           "be a floating point number.$"):
        ng.rsub(ng.tensor([1]), 2, alpha=0.5)
    with pytest.raises(RuntimeError, match="^Boolean alpha only supported for Boolean results.$"):
        ng.sub(ng.tensor([1.0]), ng.tensor([1.0]), alpha=True)


def test_in_place_add_with_alpha_is_one_node():
    x, y = _leaves()
    z = x * 1
    z.add_(y, alpha=-2)
    assert z.grad_fn.name() == "AddBackward0" and _names(z.grad_fn) == [
        "MulBackward0", "torch::autograd::AccumulateGrad"]
    z.sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [-2.0, -2.0, -2.0])


# ---- linear algebra and norms -------------------------------------------------------------------
def test_negative_matrix_power_inverts_first():
    A = ng.tensor([[2.0, 1.0], [0.5, 3.0]], dtype=ng.float64, requires_grad=True)
    z = ng.linalg.matrix_power(A, -2)
    # torch 2.13: matmul of linalg.inv's result with itself
    assert z.grad_fn.name() == "MmBackward0"
    assert _names(z.grad_fn) == ["LinalgInvExBackward0", "LinalgInvExBackward0"]
    np.testing.assert_allclose(z.detach().numpy(), [[0.31404958677685946, -0.1652892561983471],
                                                    [-0.08264462809917356, 0.1487603305785124]],
                               rtol=1e-12)
    z.sum().backward()
    np.testing.assert_allclose(A.grad.numpy(), [[-0.15176558978211868, -0.09316303531179561],
                                                [-0.02103681442524416, -0.007513148009015785]],
                               rtol=1e-12)
    assert ng.linalg.matrix_power(A, -1).grad_fn.name() == "LinalgInvExBackward0"


@pytest.mark.parametrize("create_graph", [False, True])
def test_infinity_norm_counts_a_nan_as_the_maximum(create_graph):
    # torch 2.13: the mask is |x| == norm or NaN, and sgn(NaN) is 0: no 0 / 0
    x = ng.tensor([[1.0, np.nan, -3.0], [0.5, -2.0, 2.0]], dtype=ng.float64, requires_grad=True)
    g, = ng.autograd.grad(x.norm(p=float("inf"), dim=1).sum(), x, create_graph=create_graph)
    np.testing.assert_array_equal(g.detach().numpy(), [[0.0, 0.0, 0.0], [0.0, -0.5, 0.5]])
    g, = ng.autograd.grad(x.norm(p=float("inf")), x, create_graph=create_graph)
    np.testing.assert_array_equal(g.detach().numpy(), np.zeros((2, 3)))


def test_renorm_passes_the_gradient_of_rows_it_leaves():
    # torch 2.13: a row whose norm is NaN is not rescaled, and takes g as it is
    x = ng.tensor([[1.0, np.nan], [3.0, 4.0], [0.1, 0.2]], dtype=ng.float64, requires_grad=True)
    z = ng.renorm(x, 2, 0, 1.0)
    np.testing.assert_allclose(z.detach().numpy(), [[1.0, np.nan], [0.5999999880000002,
                               0.7999999840000003], [0.1, 0.2]], rtol=1e-12)
    (z * ng.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=ng.float64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1.0, 2.0], [1.1999999509434673e-08,
                               1.5999999405124792e-08], [5.0, 6.0]], rtol=1e-7)


# ---- torch.special ------------------------------------------------------------------------------
def test_entr_gradient_is_torchs_formula():
    x = ng.tensor([-1.0, 0.0, 0.5, 2.0, np.nan], dtype=ng.float64, requires_grad=True)
    z = ng.special.entr(x)
    assert z.grad_fn.name() == "SpecialEntrBackward0"
    np.testing.assert_allclose(z.detach().numpy(), [-np.inf, 0.0, 0.34657359027997264,
                                                    -1.3862943611198906, np.nan])
    g, = ng.autograd.grad(z.sum(), x, create_graph=True)
    # torch 2.13: -(1 + log x): NaN below 0, inf at 0
    np.testing.assert_allclose(g.detach().numpy(), [np.nan, np.inf, -0.3068528194400547,
                                                    -1.6931471805599454, np.nan])
    assert g.grad_fn.name() == "MulBackward0"


def test_log_ndtr_and_ndtri_are_single_nodes():
    x = ng.tensor([-40.0, -3.0, 0.0, 2.0, 10.0], dtype=ng.float64, requires_grad=True)
    z = ng.special.log_ndtr(x)
    assert z.grad_fn.name() == "SpecialLogNdtrBackward0" and _names(z.grad_fn) == [
        "torch::autograd::AccumulateGrad"]
    np.testing.assert_allclose(z.detach().numpy(), [-804.6084420137539, -6.60772622151035,
                                                    -0.6931471805599453, -0.02301290932896348,
                                                    -7.619853024160498e-24], rtol=1e-12)
    g, = ng.autograd.grad(z.sum(), x)
    np.testing.assert_allclose(g.numpy(), [40.024968847212364, 3.2830986549304386,
                                           0.7978845608028654, 0.05524786267898997,
                                           7.69459862670642e-23], rtol=1e-10)
    p = ng.tensor([1e-30, 0.025, 0.5, 0.975], dtype=ng.float64, requires_grad=True)
    z = ng.special.ndtri(p)
    assert z.grad_fn.name() == "SpecialNdtriBackward0"
    np.testing.assert_allclose(z.detach().numpy(), [-11.464024688443613, -1.9599639845400545,
                                                    0.0, 1.959963984540054], rtol=1e-12, atol=0)
    g, = ng.autograd.grad(z.sum(), p)
    np.testing.assert_allclose(g.numpy(), [8.658027783341037e+28, 17.110083080332725,
                                           2.5066282746310002, 17.110083080332707], rtol=1e-10)


def test_ndtr_is_torchs_composite():
    x = ng.tensor([-40.0, -3.0, 0.0, 2.0, 10.0], dtype=ng.float64, requires_grad=True)
    z = ng.special.ndtr(x)
    # torch 2.13: (1 + erf(x * sqrt(1/2))) * 0.5 through the Scalar overloads
    chain, node = [], z.grad_fn
    while node.name() != "torch::autograd::AccumulateGrad":
        chain.append(node.name())
        node = node.next_functions[0][0]
    assert chain == ["MulBackward1", "AddBackward1", "ErfBackward0", "MulBackward1"]
    np.testing.assert_allclose(z.detach().numpy(), [0.0, 0.0013498980316301035, 0.5,
                                                    0.9772498680518208, 1.0], rtol=1e-12, atol=0)
    g, = ng.autograd.grad(z.sum(), x)
    np.testing.assert_allclose(g.numpy(), [0.0, 0.004431848411938004, 0.3989422804014327,
                                           0.05399096651318802, 7.694598626706365e-23], rtol=1e-10)


# ---- reductions: first derivatives recorded as torch records them --------------------------------
def test_prod_and_cumprod_of_one_element_pass_the_gradient_on():
    # torch 2.13: prod_backward returns g for a 0-d input, cumprod_backward for <= 1 element, so
    # the recorded gradient does not depend on the input
    x = ng.tensor(0.7, dtype=ng.float64, requires_grad=True)
    g, = ng.autograd.grad(x.prod(), x, create_graph=True)
    assert g.item() == 1.0 and not g.requires_grad
    y = ng.tensor([0.7], dtype=ng.float64, requires_grad=True)
    g, = ng.autograd.grad(y.cumprod(0).sum(), y, create_graph=True)
    assert g.tolist() == [1.0] and not g.requires_grad
    g, = ng.autograd.grad(x.prod() * x, x, create_graph=True)
    assert g.item() == pytest.approx(1.4) and g.grad_fn.name() == "AddBackward0"


def test_second_derivative_of_a_zero_two_norm_is_nan():
    # torch 2.13: g * (x / norm).masked_fill_(norm == 0, 0); differentiated again, the division
    # of the masked zero by the zero norm gives NaN
    x = ng.tensor([[0.0, 0.0], [1.0, 2.0]], dtype=ng.float64, requires_grad=True)
    weight = ng.tensor([1.0, 2.0], dtype=ng.float64)
    g, = ng.autograd.grad((x.norm(dim=1) * weight).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [[0.0, 0.0],
                                                    [0.8944271909999159, 1.7888543819998317]])
    h, = ng.autograd.grad((g * g).sum(), x)
    assert np.isnan(h.numpy()[0]).all()
    np.testing.assert_allclose(h.numpy()[1], [2.220446049250313e-16, 4.440892098500626e-16],
                               atol=1e-15)


def test_copysign_second_derivative_is_nan_only_where_x_is_zero():
    # torch 2.13: grad * (out / x).masked_fill_(x == 0, 0); the matmul mixes the rows, so a NaN
    # in the gradient's own factor would spread to the whole column
    x = ng.tensor([[-0.14, 0.5], [-1.0, 0.3], [0.0, 0.2]], dtype=ng.float64, requires_grad=True)
    z = ng.tensor([-1.0, 1.0], dtype=ng.float64, requires_grad=True)
    c = ng.copysign(x, z)
    g, = ng.autograd.grad((c @ c.T).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [[-2.28, 2.0], [-2.28, 2.0], [0.0, 2.0]])
    h, = ng.autograd.grad((g * g).sum(), x)
    np.testing.assert_allclose(h.numpy(), [[-18.24, 24.0], [-18.24, 24.0], [np.nan, 24.0]])


def test_outer_is_a_view_times_the_other_vector():
    x, y = _leaves()
    z = ng.outer(x, y[:2])
    # torch 2.13: self.reshape({n, 1}) * vec2
    assert z.grad_fn.name() == "MulBackward0"
    assert _names(z.grad_fn) == ["ViewBackward0", "SliceBackward0"]


def test_slogdet_sign_is_an_output_of_the_node():
    A = ng.tensor([[2.0, 1.0], [0.5, -3.0]], dtype=ng.float64, requires_grad=True)
    sign, logabsdet = ng.linalg.slogdet(A)
    # torch 2.13: both outputs on LinalgSlogdetBackward0; sign's gradient is dropped (real input)
    assert sign.requires_grad and sign.grad_fn.name() == "LinalgSlogdetBackward0"
    assert sign.item() == -1.0
    assert ng.autograd.grad(sign.sum(), A, allow_unused=True) == (None,)


@pytest.mark.parametrize("create_graph", [False, True])
def test_max_without_dim_writes_the_gradient_into_zeros(create_graph):
    # torch 2.13's evenly_distribute_backward: g / count put into the ties of a zero tensor, so
    # the other elements get 0 even when g is NaN or infinite (amax gives them NaN)
    x = ng.tensor([0.3, -1.2, 0.8, 0.8], dtype=ng.float64, requires_grad=True)
    g, = ng.autograd.grad(x.max() * float("nan"), x, create_graph=create_graph)
    np.testing.assert_array_equal(g.detach().numpy(), [0.0, 0.0, np.nan, np.nan])
    g, = ng.autograd.grad(x.min() * float("inf"), x, create_graph=create_graph)
    np.testing.assert_array_equal(g.detach().numpy(), [0.0, np.inf, 0.0, 0.0])
    g, = ng.autograd.grad(x.amax() * float("nan"), x, create_graph=create_graph)
    assert np.isnan(g.detach().numpy()).all()


# ---- ops torch records without a derivative ----------------------------------------------------
@pytest.mark.parametrize("expr, op, inputs", [
    (lambda x, y: x // 2, "floor_divide", 1), (lambda x, y: 2 // x, "floor_divide", 1),
    (lambda x, y: x // y, "floor_divide", 2),
    (lambda x, y: ng.floor_divide(x, y), "floor_divide", 2),
    (lambda x, y: 2 % x, "remainder", 1),
    (lambda x, y: ng.heaviside(x, y), "heaviside", 2),
])
def test_no_derivative_is_a_not_implemented_node(expr, op, inputs):
    # torch 2.13: the result requires grad through a NotImplemented node, whose backward raises
    x, y = _leaves()
    z = expr(x, y)
    assert z.requires_grad and z.grad_fn.name() == "torch::autograd::NotImplemented"
    assert len(z.grad_fn.next_functions) == inputs
    assert repr(z).endswith("grad_fn=<NotImplemented>)")
    with pytest.raises(RuntimeError, match=f"^derivative for aten::{op} is not implemented$"):
        (z * x).sum().backward()
    with ng.no_grad():
        assert not expr(x, y).requires_grad


def test_div_with_a_rounding_mode_keeps_its_zero_gradient():
    x, y = _leaves()
    z = ng.div(x, y, rounding_mode="floor")
    assert z.grad_fn.name() == "DivBackward2"
    assert (x % 2).grad_fn.name() == "RemainderBackward0"
    gx, = ng.autograd.grad((z * x).sum(), x)
    np.testing.assert_array_equal(gx.numpy(), z.detach().numpy())


def test_solve_for_vectors_is_one_node():
    A = ng.tensor([[[3.0, 1.0], [0.5, 2.0]], [[1.0, -1.0], [2.0, 4.0]]], dtype=ng.float64,
                  requires_grad=True)
    b = ng.tensor([1.0, -2.0], dtype=ng.float64, requires_grad=True)
    x = ng.linalg.solve(A, b)
    # torch 2.13: LinalgSolveExBackward0 over A and b themselves, batch dims broadcast
    assert x.shape == (2, 2) and x.grad_fn.name() == "LinalgSolveExBackward0"
    assert [n.variable for n, _ in x.grad_fn.next_functions] == [A, b]
    np.testing.assert_allclose(x.detach().numpy(), [[0.7272727272727272, -1.1818181818181819],
                                                    [0.33333333333333326, -0.6666666666666666]])
    gA, gb = ng.autograd.grad((x * x).sum(), [A, b])
    np.testing.assert_allclose(gb.numpy(), [1.6326905417814506, -1.6648301193755741])
    np.testing.assert_allclose(gA.numpy().sum(), -0.10888499318251399)


def test_matrix_one_and_inf_norms_are_amax_of_a_vector_norm():
    A = ng.tensor([[1.0, -2.0, 3.0], [-4.0, 5.0, 0.5]], dtype=ng.float64, requires_grad=True)
    for ord, value in ((1, 7.0), (float("inf"), 9.5), (-1, 3.5), (-float("inf"), 6.0)):
        z = ng.linalg.matrix_norm(A, ord)
        # torch 2.13: amax / amin over linalg.vector_norm(A, 1) along the other dim
        assert z.grad_fn.name() == ("AmaxBackward0" if ord > 0 else "AminBackward0")
        assert _names(z.grad_fn) == ["LinalgVectorNormBackward0"]
        assert z.item() == value
    z = ng.linalg.matrix_norm(A, 1, dim=(1, 0), keepdim=True)
    assert z.shape == (1, 1) and z.item() == 9.5


def test_cummax_of_a_scalar_names_the_dims_it_takes():
    # torch 2.13's own check, before the usual dim wrapping
    with pytest.raises(IndexError, match=r"^cummax\(\): Expected reduction dim -1 or 0 for scalar "
                                         r"but got 1$"):
        ng.cummax(ng.tensor(1.5), 1)
    with pytest.raises(IndexError, match=r"^cummin\(\): Expected reduction dim -1 or 0 for scalar "
                                         r"but got -2$"):
        ng.cummin(ng.tensor(1.5), -2)
    assert ng.cummax(ng.tensor(1.5), -1).indices.item() == 0


@pytest.mark.parametrize("create_graph", [False, True])
def test_pow_by_a_scalar_is_torchs_kernel(create_graph):
    # torch 2.13 computes x ** 0.5 as sqrt and x ** -0.5 as 1 / sqrt (so the signs of zeros and
    # infinities are sqrt's), also inside pow's own derivative (x ** 1.5 differentiates through
    # x ** 0.5)
    x = ng.tensor([-0.0, 0.0, -np.inf, 4.0], dtype=ng.float64, requires_grad=True)
    weight = ng.tensor([-1.0, -1.0, 1.0, 1.0], dtype=ng.float64)
    assert np.signbit((x ** 0.5).detach().numpy()[:2]).tolist() == [True, False]
    np.testing.assert_array_equal((x ** 0.5).detach().numpy(), [0.0, 0.0, np.nan, 2.0])
    np.testing.assert_array_equal((x ** -0.5).detach().numpy(), [-np.inf, np.inf, np.nan, 0.5])
    g, = ng.autograd.grad((x ** 0.5 * weight).sum(), x, create_graph=create_graph)
    np.testing.assert_array_equal(g.detach().numpy(), [np.inf, -np.inf, np.nan, 0.25])
    g, = ng.autograd.grad((x ** 1.5 * weight).sum(), x, create_graph=create_graph)
    assert np.signbit(g.detach().numpy()[:2]).tolist() == [False, True]
    np.testing.assert_array_equal(g.detach().numpy(), [0.0, 0.0, np.nan, 3.0])


def _chain(node):
    if node is None or node.name() == "torch::autograd::AccumulateGrad":
        return "L"
    inner = ",".join(_chain(n) for n, _ in node.next_functions)
    return f"{node.name().replace('Backward0', '')}({inner})"


def test_tensordot_contracting_everything_is_a_dot():
    # torch 2.13: dot of the flattened operands, reshaped to the 0-d result
    x = ng.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    v = ng.tensor([1.0, -2.0, 0.5], dtype=ng.float64, requires_grad=True)
    assert _chain(ng.tensordot(x, x, 2).grad_fn) == "View(Dot(View(Permute(L)),View(Permute(L))))"
    assert _chain(ng.tensordot(v, v, 1).grad_fn) == "View(Dot(Permute(L),Permute(L)))"
    assert _chain(ng.inner(x, v).grad_fn) == "View(Mm(View(Permute(L)),View(Permute(L))))"
    assert ng.tensordot(x, x, 2).item() == 55.0


def test_angle_of_reals_is_one_node():
    x = ng.tensor([-1.5, -0.0, np.inf, -np.inf, np.nan, 2.0], dtype=ng.float64,
                  requires_grad=True)
    z = ng.angle(x)
    # torch 2.13: pi below 0, 0 elsewhere (-0.0 and inf included), NaN kept; a zero gradient
    assert z.grad_fn.name() == "AngleBackward0"
    np.testing.assert_array_equal(z.detach().numpy(), [np.pi, 0.0, 0.0, np.pi, np.nan, 0.0])
    assert not np.signbit(z.detach().numpy()[1])
    g, = ng.autograd.grad(z.sum(), x)
    assert not g.numpy().any()
