"""create_graph=True: higher derivatives, Hessian-vector products, double backward, and loops
that differentiate gradients in bounded memory. Expected values are derived by hand."""
import gc
import weakref

import numpy as np
import pytest

import numgrad as ng
from numgrad import autograd


def t64(values, requires_grad=True):
    return ng.tensor(values, dtype=ng.float64, requires_grad=requires_grad)


def close(tensor, expected):
    np.testing.assert_allclose(tensor.detach().numpy(), expected, rtol=1e-10, atol=1e-12)


def test_second_and_third_derivatives_of_a_cubic():
    x = t64(2.)
    (g,) = autograd.grad(x ** 3, x, create_graph=True)
    (h,) = autograd.grad(g, x, create_graph=True)
    (t,) = autograd.grad(h, x)
    close(g, 12.)          # 3x^2
    close(h, 12.)          # 6x
    close(t, 6.)           # 6
    assert g.requires_grad and h.requires_grad and not t.requires_grad


def test_derivatives_of_sin_cycle():
    xv = np.array([0.3, 1.1, -2.])
    x = t64(xv)
    g = x.sin().sum()
    expected = [np.cos(xv), -np.sin(xv), -np.cos(xv), np.sin(xv)]
    for k in range(4):
        (g,) = autograd.grad(g.sum() if k else g, x, create_graph=True)
        close(g, expected[k])


def test_mixed_partial_derivatives():
    x, y = t64(1.5), t64(-2.)
    f = x ** 2 * y ** 3
    gx, gy = autograd.grad(f, [x, y], create_graph=True)
    close(gx, 2 * 1.5 * (-2.) ** 3)
    close(gy, 3 * 1.5 ** 2 * (-2.) ** 2)
    (gxy,) = autograd.grad(gx, y, retain_graph=True)
    (gyx,) = autograd.grad(gy, x)
    close(gxy, 6 * 1.5 * (-2.) ** 2)      # d2f/dxdy = 6 x y^2, equal both ways
    close(gyx, 6 * 1.5 * (-2.) ** 2)


def test_hessian_vector_product_of_a_quadratic_plus_sin():
    a = np.array([[2., 1., 0.], [1., 3., -1.], [0., -1., 4.]])
    xv, vv = np.array([.5, -1., 2.]), np.array([1., -2., .5])
    x = t64(xv)
    f = 0.5 * (x @ (t64(a, False) @ x)) + x.sin().sum()
    (g,) = autograd.grad(f, x, create_graph=True)
    close(g, a @ xv + np.cos(xv))
    (hv,) = autograd.grad(g, x, grad_outputs=t64(vv, False))
    close(hv, a @ vv - np.sin(xv) * vv)     # H = A - diag(sin x)
    x2 = t64(xv)
    f2 = 0.5 * (x2 @ (t64(a, False) @ x2)) + x2.sin().sum()
    (g2,) = autograd.grad(f2, x2, create_graph=True)
    (hv2,) = autograd.grad((g2 * t64(vv, False)).sum(), x2)   # the same product through a dot
    close(hv2, a @ vv - np.sin(xv) * vv)


def test_double_backward_through_grad_attribute():
    x = t64([1., 2.])
    with pytest.warns(UserWarning, match="reference cycle"):
        (x ** 3).sum().backward(create_graph=True)
    close(x.grad, [3., 12.])
    assert x.grad.requires_grad and x.grad.grad_fn is not None
    (gg,) = autograd.grad(x.grad.sum(), x)
    close(gg, [6., 12.])                   # d(3x^2)/dx
    x.grad = None


def test_plain_backward_after_create_graph_adds_in_place_like_torch():
    x = t64([1., 2.])
    with pytest.warns(UserWarning):
        (x ** 3).sum().backward(create_graph=True)
    first = x.grad
    version = first._version
    (x * x).sum().backward()
    assert x.grad is first and first._version == version + 1
    close(x.grad, [3. + 2., 12. + 4.])
    (x * x).sum().backward(create_graph=True)       # (warned once already)
    assert x.grad is not first              # out of place under create_graph
    close(x.grad, [5. + 2., 16. + 4.])
    x.grad = None


def test_create_graph_without_retain_graph_frees_the_forward():
    x = t64(3.)
    y = x.sin()
    (g,) = autograd.grad(y, x, create_graph=True, retain_graph=False)
    close(g, np.cos(3.))
    (gg,) = autograd.grad(g, x)            # cos(x) was recorded as a graph of its own
    close(gg, -np.sin(3.))
    with pytest.raises(RuntimeError, match="second time"):
        autograd.grad(y, x)
    # exp's derivative reuses exp's output, so its second derivative runs ExpBackward0 again:
    # freed, as in torch
    z = x.exp()
    (gz,) = autograd.grad(z, x, create_graph=True, retain_graph=False)
    with pytest.raises(RuntimeError, match="second time"):
        autograd.grad(gz, x)


def test_gradient_penalty_through_a_matmul_layer():
    # f(w) = sum(tanh(X w)); penalty = |df/dX|^2 = sum_i sum_j (1 - tanh^2(X w)_i)^2 w_j^2
    xv = np.array([[.1, -.2], [.3, .4], [-.5, .6]])
    wv = np.array([.7, -.8])
    X, w = t64(xv), t64(wv)
    f = (X @ w).tanh().sum()
    (gX,) = autograd.grad(f, X, create_graph=True)
    sech2 = 1 - np.tanh(xv @ wv) ** 2
    close(gX, np.outer(sech2, wv))
    penalty = (gX * gX).sum()
    (gw,) = autograd.grad(penalty, w)
    # d/dw [sum_i s_i^2 |w|^2] = 2 w sum_i s_i^2 + |w|^2 sum_i 2 s_i ds_i/dw,
    # ds_i/dw = -2 t_i s_i X_i  (t = tanh(Xw))
    t = np.tanh(xv @ wv)
    expected = 2 * wv * (sech2 ** 2).sum() + (wv @ wv) * (2 * sech2 * (-2 * t * sech2)) @ xv
    close(gw, expected)


def test_grad_of_grad_with_unused_second_order_input():
    x, y = t64(2.), t64(5.)
    (gx,) = autograd.grad(x * y, x, create_graph=True)     # = y: x is no longer in the graph
    gxx, gxy = autograd.grad(gx, [x, y], allow_unused=True)
    assert gxx is None
    close(gxy, 1.)


def test_create_graph_loop_runs_in_bounded_memory():
    """A training loop with a gradient penalty (backward(create_graph=True), .grad reset to
    None each step) frees each step's graphs by reference counting alone."""
    x = t64(np.linspace(0., 1., 2000))
    segments = []
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for step in range(60):
            loss = (x.sin() * x).sum()
            loss.backward(create_graph=True)
            penalty = (x.grad * x.grad).sum()
            segments.append(weakref.ref(x.grad._seg))
            x.grad = None
            penalty.backward()
            with ng.no_grad():
                x -= 1e-3 * x.grad
            x.grad = None
            del loss, penalty
        alive = sum(ref() is not None for ref in segments)
    finally:
        if was_enabled:
            gc.enable()
    assert alive <= 1, f"{alive} of {len(segments)} steps' graphs are still alive"


def test_jacobian_vector_product_by_the_double_backward_trick():
    # g(v) = J^T v is linear in v; differentiating it with respect to v gives J u
    xv, uv = np.array([1., 2., 3.]), np.array([1., 1., 2.])
    x = t64(xv)
    v = ng.zeros(3, dtype=ng.float64, requires_grad=True)
    (g,) = autograd.grad(x ** 2, x, v, create_graph=True)
    (jvp,) = autograd.grad(g, v, t64(uv, False))
    close(jvp, 2 * xv * uv)                # J = diag(2x)


F = ng.nn.functional


@pytest.mark.parametrize("fn, backward_name, first", [
    (ng.relu, "ThresholdBackwardBackward0", [0.0, 1.0, 1.0]),
    (lambda x: F.threshold(x, 0.5, -7.0), "ThresholdBackwardBackward0", [0.0, 0.0, 1.0]),
    (lambda x: F.leaky_relu(x, 0.1), "LeakyReluBackwardBackward0", [0.1, 1.0, 1.0]),
    (F.hardtanh, "HardtanhBackwardBackward0", [0.0, 1.0, 0.0]),
    (F.relu6, "HardtanhBackwardBackward0", [0.0, 1.0, 1.0]),
    (lambda x: F.hardshrink(x, 0.25), "HardshrinkBackwardBackward0", [1.0, 0.0, 1.0]),
    (lambda x: F.softshrink(x, 0.5), "SoftshrinkBackwardBackward0", [1.0, 0.0, 1.0]),
])
@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_piecewise_linear_activations_differentiate_twice_to_zeros(fn, backward_name, first,
                                                                  dtype):
    # torch's backward ops of these read their input with derivative zero: the gradient
    # requires grad when the input does, and its own gradient is zeros, not an error
    x = ng.tensor([-2.0, 0.25, 3.0], dtype=dtype, requires_grad=True)
    g, = autograd.grad(fn(x).sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn.name() == backward_name
    np.testing.assert_array_equal(g.detach().numpy(), np.array(first, dtype))
    g2, = autograd.grad((g * x).sum(), x)
    np.testing.assert_array_equal(g2.numpy(), np.array(first, dtype))   # d/dx (g . x) = g + 0
    assert g2.dtype == dtype


X4 = np.array([[[[0.3, -1.2, 0.5, 2.0], [1.1, 0.4, -0.3, 0.9], [-0.6, 0.8, 1.5, -2.2],
                 [0.2, -0.1, 0.7, 1.3]]]])


@pytest.mark.parametrize("fn, backward_name", [
    (lambda x: F.max_pool2d(x, 2), "MaxPool2DWithIndicesBackwardBackward0"),
    (lambda x: F.avg_pool2d(x, 2), "AvgPool2DBackwardBackward0"),
    (lambda x: F.adaptive_avg_pool2d(x, 3), "AdaptiveAvgPool2DBackwardBackward0"),
    (lambda x: F.adaptive_max_pool2d(x, 3), "AdaptiveMaxPool2DBackwardBackward0"),
    (lambda x: F.pad(x, (1, 1, 1, 1), mode="reflect"), "ReflectionPad2DBackwardBackward0"),
    (lambda x: F.pad(x, (1, 1, 1, 1), mode="replicate"), "ReplicationPad2DBackwardBackward0"),
    # the reshape's node comes last, as in torch
    (lambda x: F.nll_loss(x.reshape(4, 4), ng.tensor([0, 3, 1, 1])), "ViewBackward0"),
    (lambda x: F.prelu(x, ng.tensor([0.25], dtype=x.dtype)), "PreluKernelBackwardBackward0"),
    (lambda x: F.max_pool3d(x, (1, 2, 2)), "MaxPool3DWithIndicesBackwardBackward0"),
])
@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_composites_whose_torch_backward_reads_the_input_differentiate_twice_to_zeros(
        fn, backward_name, dtype):
    # torch's backward of these ops takes the input: the gradient is linked to it under
    # create_graph, and its gradient is zeros (the first gradient is constant in x)
    x = ng.tensor(X4, dtype=dtype, requires_grad=True)
    g, = autograd.grad(fn(x).sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn.name() == backward_name
    g2, = autograd.grad((g * g).sum(), x)
    np.testing.assert_array_equal(g2.numpy(), np.zeros_like(X4))
    assert g2.dtype == dtype
    assert autograd.gradgradcheck(fn, (ng.tensor(X4, requires_grad=True),))


def test_max_pool_routes_each_window_gradient_to_its_maximum_also_under_create_graph():
    x = ng.tensor(X4, requires_grad=True)
    g, = autograd.grad(F.max_pool2d(x, 2).sum(), x, create_graph=True)
    expected = np.zeros_like(X4)
    expected[0, 0, 1, 0] = expected[0, 0, 0, 3] = expected[0, 0, 2, 1] = expected[0, 0, 2, 2] = 1
    np.testing.assert_array_equal(g.detach().numpy(), expected)


def test_hessian_of_a_relu_network_is_defined():
    # a ReLU MLP is piecewise linear in x: its Hessian in x is zero, and torch computes it
    ng.manual_seed(0)
    net = ng.nn.Sequential(ng.nn.Linear(3, 5), ng.nn.ReLU(), ng.nn.Linear(5, 1))
    x = ng.tensor([[0.3, -0.2, 0.5]], requires_grad=True)
    g, = autograd.grad(net(x).sum(), x, create_graph=True)
    h, = autograd.grad(g[0, 0], x)
    np.testing.assert_array_equal(h.numpy(), np.zeros((1, 3)))


def test_the_create_graph_backward_warning_comes_once_per_process_as_torchs():
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            x = t64([1., 2.])
            (x * x).sum().backward(create_graph=True)
            close(x.grad, [2., 4.])
    assert [str(w.message)[:45] for w in caught] == ["Using backward() with create_graph=True will "]


def test_backward_with_create_graph_stores_grad_as_torchs_copy():
    """torch's AccumulateGrad under create_graph copies the first gradient into a fresh tensor
    (CopyBackwards, on the gradient's graph) and adds the next ones (AddBackward0)."""
    x = ng.tensor([1.0, 2.0], dtype=ng.float64, requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    first = x.grad.grad_fn
    assert first.name() == "torch::autograd::CopyBackwards"
    assert first.next_functions[0] == (None, 0) and first.next_functions[1][0] is not None
    (x ** 2).sum().backward(create_graph=True)
    assert x.grad.grad_fn.name() == "AddBackward0"
    assert x.grad.grad_fn.next_functions[0][0] is first
    np.testing.assert_array_equal(x.grad.detach().numpy(), [5.0, 16.0])     # 3x^2 + 2x
    (second,) = ng.autograd.grad(x.grad.sum(), x)
    np.testing.assert_array_equal(second.numpy(), [8.0, 14.0])              # 6x + 2
    x.grad = None
    z = ng.tensor([1.0, 2.0], requires_grad=True)
    (z * 2).sum().backward(create_graph=True)        # a gradient with no graph: no copy node
    assert z.grad.grad_fn is None and not z.grad.requires_grad
