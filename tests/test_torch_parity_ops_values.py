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
    assert _names(z.grad_fn) == ["torch::autograd::AccumulateGrad", None] and z.grad_fn._saved_alpha == 2
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
