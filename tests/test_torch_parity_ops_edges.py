"""Ops at edge values, small dtypes and odd layouts against torch 2.13: forward values, gradients,
result dtypes and errors. torch is not imported: its results are written out as it gives them."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F

NAN, INF = float("nan"), float("inf")
EDGES = [-4.0, -3.0, -2.5, -1e-8, 0.0, 0.5, 2.9, 3.0, NAN, INF, -INF]


def _value_and_grad(fn, values, dtype):
    x = ng.tensor(np.array(values, dtype), requires_grad=True)
    y = fn(x)
    (g,) = ng.autograd.grad(y.sum(), x)
    return y.detach().numpy(), g.numpy()


# ---- elu, selu, celu: torch's one elu(x, alpha, scale, input_scale) ------------------------------
# torch 2.13 gives (float64; at NaN the gradient of a small tensor is g * scale)
ACTIVATIONS = {
    "elu": (lambda x: F.elu(x, 0.5),
            [-0.4908421805556329, -0.475106465816068, -0.45895750068805063,
             -4.9999999750000005e-09, 0.0, 0.5, 2.9, 3.0, NAN, INF, -0.5],
            [0.00915781944436709, 0.024893534183931972, 0.0410424993119494,
             0.49999999500000003, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0]),
    # selu rounds alpha * scale once (EluBackward0's negcoef), not expm1(x) * alpha then * scale
    "selu": (F.selu,
             [-1.7258986281898945, -1.6705687287671118, -1.6137857588732425,
              -1.7580993320568802e-08, 0.0, 0.5253504936777402, 3.047032863330893,
              3.1521029620664414, NAN, INF, -1.7580993408473766],
             [0.03220071265748214, 0.08753061208026487, 0.1443135819741343, 1.7580993232663833,
              1.7580993408473766, 1.0507009873554805, 1.0507009873554805, 1.0507009873554805,
              1.0507009873554805, 1.0507009873554805, 0.0]),
    # celu's positive side is x itself, and its derivative takes 1 / float32(alpha)
    "celu": (lambda x: F.celu(x, 1.3),
             [-1.2400688462131502, -1.170662245356684, -1.1099964758069947,
              -9.999999961538462e-09, 0.0, 0.5, 2.9, 3.0, NAN, INF, -1.3],
             [0.04610088401633039, 0.09949057572270627, 0.14615655212293557,
              1.0000000289874746, 1.0000000366797828, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0]),
    # hardswish_backward: 0 up to -3, g * (x / 3 + 1/2) below 3, g from 3 on and at NaN
    "hardswish": (F.hardswish,
                  [-0.0, -0.0, -0.20833333333333334, -4.999999983333334e-09, 0.0,
                   0.2916666666666667, 2.8516666666666666, 3.0, NAN, INF, NAN],
                  [0.0, 0.0, -0.33333333333333337, 0.49999999666666667, 0.5, 0.6666666666666666,
                   1.4666666666666668, 1.0, 1.0, 1.0, 0.0]),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_elu_family_and_hardswish_float64(name):
    fn, want_y, want_g = ACTIVATIONS[name]
    y, g = _value_and_grad(fn, EDGES, np.float64)
    np.testing.assert_allclose(y, want_y, rtol=3e-16, atol=0)
    np.testing.assert_allclose(g, want_g, rtol=3e-16, atol=0)
    if name == "hardswish":
        assert np.signbit(y[:2]).all()      # x * 0 below -3: -0.0


def test_elu_family_float32_rounds_its_coefficients_in_float32():
    # torch 2.13, float32
    y, g = _value_and_grad(F.selu, EDGES, np.float32)
    np.testing.assert_array_equal(g[3:], np.float32([1.7580993175506592, 1.7580993175506592]
                                                    + [1.0507010221481323] * 5 + [0.0]))
    np.testing.assert_array_equal(y[4:8], np.float32([0.0, 0.5253505110740662,
                                                      3.0470330715179443, 3.1521029472351074]))
    y, g = _value_and_grad(F.hardswish, EDGES, np.float32)
    np.testing.assert_array_equal(g, np.float32([0.0, 0.0, -0.3333333134651184, 0.5, 0.5,
                                                 0.6666666865348816, 1.4666666984558105, 1.0,
                                                 1.0, 1.0, 0.0]))
    _, g = _value_and_grad(lambda x: F.celu(x, 1.3), EDGES, np.float32)
    np.testing.assert_array_equal(g[4:], np.float32([1.0] * 6 + [0.0]))


# ---- unary ops at their edges --------------------------------------------------------------------
def test_logit_gradient_at_zero_and_one_is_g_times_inf():
    x = ng.tensor(np.array([-0.0, 0.0, 1.0, 0.5, -0.0, 1e-310]), requires_grad=True)
    (g,) = ng.autograd.grad(ng.logit(x), x, ng.tensor(np.array([1.0, -1.0, -1.0, -1.0, 0.0, 1.0])))
    # torch 2.13: tensor([inf, -inf, -inf, -4., nan, inf]) (-0.0 gives +inf, not 1 / -0.0)
    np.testing.assert_array_equal(g.numpy(), [INF, -INF, -INF, -4.0, NAN, INF])


def test_lgamma_of_subnormals_is_minus_log():
    x = ng.tensor(np.array([1e-310, -1e-310, 0.0, -0.0, -INF]))
    # torch 2.13: [713.8013788281542, 713.8013788281542, inf, inf, inf] (scipy's gammaln: inf)
    np.testing.assert_array_equal(ng.lgamma(x).numpy(),
                                  [713.8013788281542, 713.8013788281542, INF, INF, INF])


# ---- reductions ----------------------------------------------------------------------------------
def test_amax_names_the_empty_dim_as_given():
    x = ng.zeros(0, 0, 3)
    for dim, shown in (((1, 0), 1), ((-2, 0), -2), (-3, -3), ((0, -1, 1), 0)):
        with pytest.raises(IndexError, match=rf"^amin\(\): Expected reduction dim {shown} to have "
                                             r"non-zero size\.$"):
            x.amin(dim)
    with pytest.raises(IndexError, match=r"^amax\(\): Expected reduction dim -1 to have"):
        ng.zeros(3, 0).amax(-1)
    # max(dim) names it wrapped, as torch's
    with pytest.raises(IndexError, match=r"^max\(\): Expected reduction dim 1 to have"):
        ng.zeros(3, 0).max(-1)


def test_nanmedian_of_everything_is_its_own_node():
    x = ng.tensor([1.0, 3.0, 2.0, NAN], requires_grad=True)
    y = ng.nanmedian(x)
    assert y.grad_fn.name() == "NanmedianBackward0"
    assert [n.name() for n, _ in y.grad_fn.next_functions] == ["torch::autograd::AccumulateGrad"]
    np.testing.assert_array_equal(ng.autograd.grad(y, x)[0].numpy(), [0.0, 0.0, 1.0, 0.0])
    # torch 2.13: an empty input gives NaN that still requires grad, with an empty gradient
    e = ng.zeros(0, requires_grad=True)
    y = ng.nanmedian(e)
    assert y.requires_grad and y.grad_fn.name() == "NanmedianBackward0"
    assert ng.autograd.grad(y, e)[0].shape == (0,)
    assert ng.nanmedian(ng.zeros(0, dtype=ng.int64)).item() == np.iinfo(np.int64).min


# ---- binary ops ----------------------------------------------------------------------------------
def test_ldexp_is_its_own_node_and_differentiates_the_exponent():
    x = ng.tensor([1.5, -2.0, 3.3], dtype=ng.float64, requires_grad=True)
    other = ng.tensor([2.0, -1.0, 0.7], dtype=ng.float64, requires_grad=True)
    y = ng.ldexp(x, other)
    y.backward(ng.ones(3, dtype=ng.float64))
    # torch 2.13: LdexpBackward0; input's gradient 2**other, other's result * ln 2
    assert y.grad_fn.name() == "LdexpBackward0"
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 0.5, 1.624504792712471])
    np.testing.assert_array_equal(other.grad.numpy(),
                                  [4.1588830833596715, -0.6931471805599453, 3.7158690256867333])
    # an integer exponent: float32's node with no edge for it; an integer input: no node
    y = ng.ldexp(ng.ones(3, requires_grad=True), ng.tensor([1, 2, 3], dtype=ng.int32))
    assert y.dtype == ng.float32 and y.grad_fn.name() == "LdexpBackward0"
    assert y.grad_fn.next_functions[1][0] is None
    assert ng.ldexp(ng.ones(3, dtype=ng.int64), ng.tensor(2.0, dtype=ng.float64)).dtype == ng.float64


# ---- double backward -----------------------------------------------------------------------------
def _names(node, depth):
    if node is None:
        return None
    if depth == 0:
        return node.name()
    return (node.name(), tuple(_names(n, depth - 1) for n, _ in node.next_functions))


ACC = "torch::autograd::AccumulateGrad"


@pytest.mark.parametrize("name, first, second, second_values, third_values", [
    # torch 2.13's graphs and values
    ("tanh", "TanhBackwardBackward0",
     ("TanhBackwardBackward0", (("MulBackward0", (None, ("MulBackward0", (
         ("MulBackward1", ("TanhBackward0",)), (ACC, ()))))), ("TanhBackward0", ((ACC, ()),)))),
     [-0.373227314741018, 0.6611314451797554], [-0.9550142742707866, 0.860413835204858]),
    ("sigmoid", "SigmoidBackwardBackward0",
     ("SigmoidBackwardBackward0", (("MulBackward0", (("MulBackward0", (None, (ACC, ()))), (
         "AddBackward1", (("MulBackward1", ("SigmoidBackward0",)),)))),
         ("SigmoidBackward0", ((ACC, ()),)))),
     [-0.025477328768903386, 0.12419957201694211], [-0.0798706196661753, -0.015579396860863624]),
])
def test_tanh_and_sigmoid_differentiate_through_their_backward_ops(name, first, second,
                                                                    second_values, third_values):
    x = ng.tensor([0.3, -1.2], dtype=ng.float64, requires_grad=True)
    v = ng.tensor([0.7, 1.3], dtype=ng.float64, requires_grad=True)
    (g,) = ng.autograd.grad(getattr(ng, name)(x), x, v, create_graph=True)
    assert _names(g.grad_fn, 2) == (first, ((ACC, ()), (f"{name.capitalize()}Backward0", (ACC,))))
    (gg,) = ng.autograd.grad(g.sum(), x, create_graph=True)
    assert _names(gg.grad_fn, 4) == second
    np.testing.assert_allclose(gg.detach().numpy(), second_values, rtol=1e-15)
    (ggg,) = ng.autograd.grad(gg.sum(), x)
    np.testing.assert_allclose(ggg.numpy(), third_values, rtol=1e-15)


MM_T = ("MmBackward0", (None, ("TBackward0", (("TBackward0", (ACC,)),))))
MM_T_W = ("TBackward0", (("TBackward0", (("MmBackward0", (None, (ACC, ()))),)),))


@pytest.mark.parametrize("product, x_graph, w_graph", [
    # torch 2.13: w.t() is column-major, so mm's backward transposes its products for it
    (lambda x, w, b: x @ w.t(), MM_T, MM_T_W),
    (lambda x, w, b: F.linear(x, w, b), MM_T, MM_T_W),
    (lambda x, w, b: F.linear(x, w), MM_T, MM_T_W),
    (lambda x, w, b: x @ w, ("MmBackward0", (None, ("TBackward0", ((ACC, ()),)))),
     ("MmBackward0", (("TBackward0", ((ACC, ()),)), None))),
])
def test_matrix_products_double_backward_as_torch(product, x_graph, w_graph):
    x = ng.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=ng.float64, requires_grad=True)
    w = ng.tensor([[0.5, -1.0], [2.0, 1.0]], dtype=ng.float64, requires_grad=True)
    b = ng.tensor([0.1, 0.2], dtype=ng.float64, requires_grad=True)
    y = product(x, w, b)
    gx, gw = ng.autograd.grad(y, (x, w), ng.ones(3, 2, dtype=ng.float64), create_graph=True)
    assert _names(gx.grad_fn, 3) == x_graph
    assert _names(gw.grad_fn, 4 if w_graph[0] == "TBackward0" else 3) == w_graph
    wt = w.detach().numpy().T if w_graph is MM_T_W else w.detach().numpy()
    np.testing.assert_array_equal(gx.detach().numpy(), np.ones((3, 2)) @ wt.T)


def test_norm_masks_its_gradient_with_masked_fill():
    x = ng.tensor([[3.0, 4.0], [0.0, 0.0]], dtype=ng.float64, requires_grad=True)
    (g,) = ng.autograd.grad(x.norm(dim=1), x, ng.ones(2, dtype=ng.float64), create_graph=True)
    # torch 2.13: g * (x / norm).masked_fill_(norm == 0, 0), and NaN second derivatives there
    assert _names(g.grad_fn, 2) == ("MulBackward0", (None, ("MaskedFillBackward0",
                                                            ("DivBackward0",))))
    np.testing.assert_array_equal(g.detach().numpy(), [[0.6, 0.8], [0.0, 0.0]])
    (gg,) = ng.autograd.grad(g.sum(), x)
    assert np.isnan(gg.numpy()[1]).all()


@pytest.mark.parametrize("name, graph, values, second", [
    # torch 2.13: var_backward's Scalar scale (MulBackward1) times g unsqueezed, not expanded
    ("std", ("MulBackward0", (("MulBackward1", (("UnsqueezeBackward0", ("MaskedFillBackward0",)),)),
                              ("SubBackward0", ((ACC, ()), ("MeanBackward1", (ACC,)))))),
     [[-0.6546536707079773, -0.16366341767699438, 0.8183170883849715], [0.0, 0.0, 0.0]],
     [[0.0, 2.7755575615628914e-17, 0.0], [0.0, 0.0, 0.0]]),
    ("var", ("MulBackward0", (None, ("SubBackward0", ((ACC, ()), ("MeanBackward1", (ACC,)))))),
     [[-2.0, -0.5000000000000002, 2.5], [0.0, 0.0, 0.0]],
     [[-6.0, -1.5000000000000004, 7.5], [0.0, 0.0, 0.0]]),
])
def test_std_and_var_double_backward_as_torch(name, graph, values, second):
    x = ng.tensor([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]], dtype=ng.float64, requires_grad=True)
    (g,) = ng.autograd.grad(getattr(x, name)(1), x, ng.tensor([1.5, 2.0], dtype=ng.float64),
                            create_graph=True)
    assert _names(g.grad_fn, 3) == graph
    np.testing.assert_array_equal(g.detach().numpy(), values)
    np.testing.assert_array_equal(ng.autograd.grad((g * g).sum(), x)[0].numpy(), second)
