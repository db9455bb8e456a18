"""Ops against torch 2.13, session 18: empty dim lists, linalg nodes, double-backward graphs
and argument errors. torch is not imported: its results are written out as it gives them."""
import warnings

import numpy as np
import pytest

import numgrad as ng

X = np.array([[0.5, -1.0, 2.0, 0.25], [1.5, -0.5, 0.0, 3.0], [-2.0, 1.0, 0.75, -0.25]])


# ---- var / std over an empty dim list -----------------------------------------------------------
@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
def test_var_over_empty_dim_list_reduces_all_but_its_backward_counts_one_element(name):
    # torch 2.13: the value is over all 12 elements, but var_backward scales by
    # 2 / (1 - correction): inf with Bessel's correction, 2 with correction=0
    x = ng.tensor(X, requires_grad=True)
    out = getattr(ng, name)(x, dim=())
    out = out[0] if isinstance(out, tuple) else out
    assert out.shape == ()
    np.testing.assert_allclose(out.item(), np.var(X, ddof=1) ** (0.5 if "std" in name else 1))
    out.backward()
    centred = X - X.mean()
    np.testing.assert_array_equal(x.grad.numpy(), np.sign(centred) * np.inf)
    x = ng.tensor(X, requires_grad=True)
    out = getattr(ng, name)(x, dim=[], correction=0, keepdim=True)
    out = out[0] if isinstance(out, tuple) else out
    assert out.shape == (1, 1)
    out.backward()
    want = 2 * centred if name.startswith("var") else centred / np.sqrt(np.var(X))
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-14)


# ---- double backward: torch's backward ops as nodes ----------------------------------------------
def _names(fn):
    return None if fn is None else fn.name()


def _next_names(fn):
    return [_names(f) for f, _ in fn.next_functions]


def test_relu_double_backward_lists_the_gradient_and_the_result():
    # torch 2.13: threshold_backward(grad, result, 0)'s node lists grad's producer, not a mask
    x = ng.tensor([1.0, -2.0, 3.0], requires_grad=True)
    (g,) = ng.autograd.grad((ng.relu(x) * x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "AddBackward0"
    node = g.grad_fn.next_functions[1][0]
    assert node.name() == "ThresholdBackwardBackward0"
    assert _next_names(node) == ["MulBackward0", "ReluBackward0"]
    y = ng.nn.functional.hardtanh(x)
    (g,) = ng.autograd.grad((y * y).sum(), x, create_graph=True)
    assert _next_names(g.grad_fn) == ["AddBackward0", "torch::autograd::AccumulateGrad"]
    (g,) = ng.autograd.grad(ng.nn.functional.leaky_relu(x).sum(), x, create_graph=True)
    assert _next_names(g.grad_fn) == [None, "torch::autograd::AccumulateGrad"]
    np.testing.assert_array_equal(ng.autograd.grad(g.sum(), x)[0].numpy(), [0.0, 0.0, 0.0])


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_double_backward_is_one_backward_data_node(name):
    x = ng.tensor([[1.0, 2.0, 0.5], [3.0, 5.0, -1.0]], dtype=ng.float64, requires_grad=True)
    y = getattr(ng, name)(x, 1)
    (g,) = ng.autograd.grad((y * y * x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "AddBackward0"      # of the gradients through y and through x
    (node,) = [f for f, _ in g.grad_fn.next_functions if "Data" in f.name()]
    prefix = "Softmax" if name == "softmax" else "LogSoftmax"
    assert node.name() == prefix + "BackwardDataBackward0"
    assert _next_names(node) == ["AddBackward0", prefix + "Backward0"]
    assert node._saved_dim == 1 and node._saved_output.shape == (2, 3)
    (gg,) = ng.autograd.grad(g.sum(), x)
    # torch 2.13
    want = {"softmax": [[-0.10958218555, 0.201565872616, -0.091983687066],
                        [-0.158821565117, 0.162239232401, -0.003417667283]],
            "log_softmax": [[-1.128379118932, 3.965144089185, -2.836764970253],
                            [-2.262986254683, 14.484660131535, -12.221673876853]]}[name]
    np.testing.assert_allclose(gg.numpy(), want, rtol=1e-10)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_double_backward_is_torchs_two_backward_nodes(reduction):
    x = ng.tensor(X, requires_grad=True)
    loss = ng.nn.functional.cross_entropy(x, ng.tensor([1, 0, 3]), reduction=reduction,
                                          weight=ng.tensor([1.0, 2.0, 0.5, 1.0],
                                                           dtype=ng.float64), ignore_index=0)
    (g,) = ng.autograd.grad(loss.sum(), x, create_graph=True)
    assert g.grad_fn.name() == "LogSoftmaxBackwardDataBackward0"
    assert _next_names(g.grad_fn) == ["NllLossBackwardBackward0", "LogSoftmaxBackward0"]
    assert _next_names(g.grad_fn.next_functions[0][0]) == [None, "LogSoftmaxBackward0"]
    (gg,) = ng.autograd.grad((g * g * ng.tensor(X)).sum(), x)
    # torch 2.13, row 0 (the row of an ignored target gets zeros)
    want = {"mean": [-0.1271194908, -0.0011854058, 0.2323333084, -0.1040284118]}.get(
        reduction, [-1.1440754176, -0.0106686525, 2.0909997759, -0.9362557059])
    np.testing.assert_allclose(gg.numpy()[0], want, rtol=1e-6)
    np.testing.assert_array_equal(gg.numpy()[1], 0.0)


# ---- linalg: torch's one node per decomposition --------------------------------------------------
A3 = np.array([[3.0, 1.0, 0.5], [0.2, 2.0, -1.0], [1.0, 0.0, 4.0]])


def test_solve_on_the_right_is_one_node():
    a = ng.tensor(A3, requires_grad=True)
    b = ng.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], dtype=ng.float64, requires_grad=True)
    x = ng.linalg.solve(a, b, left=False)
    assert x.grad_fn.name() == "LinalgSolveExBackward0"
    (x * ng.arange(6.0, dtype=ng.float64).reshape(2, 3)).sum().backward()
    # torch 2.13
    np.testing.assert_allclose(x.detach().numpy(), [[-0.075471698113, 1.037735849057,
                                                     1.018867924528],
                                                    [-0.608490566038, 0.554245283019,
                                                     0.714622641509]], rtol=1e-11)
    np.testing.assert_allclose(a.grad.numpy(), [[-0.085884656461, 1.673215557138, 0.819820220719],
                                                [0.443885724457, -2.33307004272, -1.322645959416],
                                                [0.451895692417, -2.741711908152,
                                                 -1.515686187255]], rtol=1e-10)
    np.testing.assert_allclose(b.grad.numpy(), [[-0.377358490566, 0.834905660377, 0.594339622642],
                                                [-0.094339622642, 2.646226415094, 1.27358490566]],
                               rtol=1e-10)
    assert ng.autograd.gradgradcheck(lambda a, b: ng.linalg.solve(a, b, left=False),
                                     (a.detach().requires_grad_(), b.detach().requires_grad_()))
    with pytest.raises(RuntimeError, match=r"^linalg.solve: Incompatible shapes of A and B for the "
                                           r"equation XA = B \(3x3 and 3x1\)$"):
        ng.linalg.solve(a, ng.ones(3, dtype=ng.float64), left=False)


def test_qr_of_a_wide_matrix_and_mode_r_are_one_node():
    w = ng.tensor([[1.0, 2.0, 0.5, -1.0], [0.0, 1.0, 3.0, 2.0]], dtype=ng.float64,
                  requires_grad=True)
    q, r = ng.linalg.qr(w)
    assert q.grad_fn.name() == r.grad_fn.name() == "LinalgQrBackward0"
    assert q.grad_fn is r.grad_fn
    ((q * ng.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=ng.float64)).sum()
     + (r * ng.arange(8.0, dtype=ng.float64).reshape(2, 4)).sum()).backward()
    np.testing.assert_allclose(w.grad.numpy(), [[0.0, 1.0, 2.0, 3.0], [8.0, 5.0, 6.0, 7.0]],
                               atol=1e-14)     # torch 2.13
    # (LAPACK leaves w's first column, a multiple of e1, unreflected: a generic one here)
    wide = ng.tensor(np.random.default_rng(0).standard_normal((3, 5)), requires_grad=True)
    assert ng.autograd.gradgradcheck(lambda a: ng.linalg.qr(a)[1], (wide,))
    # mode='r': torch's Q is an empty output of the same node
    q, r = ng.linalg.qr(w, mode="r")
    assert q.shape == (0,) and q.requires_grad and q.grad_fn.name() == "LinalgQrBackward0"
    with pytest.raises(RuntimeError, match="depends on Q, which is not computed when mode='r'"):
        r.sum().backward()


def test_upper_cholesky_is_one_node_and_the_deprecated_cholesky_has_its_own_name():
    s = ng.tensor([[4.0, 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]], dtype=ng.float64,
                  requires_grad=True)
    u = ng.linalg.cholesky(s, upper=True)
    assert u.grad_fn.name() == "LinalgCholeskyExBackward0"
    np.testing.assert_allclose(u.detach().numpy(), np.linalg.cholesky(s.detach().numpy()).T)
    (u * ng.arange(9.0, dtype=ng.float64).reshape(3, 3)).sum().backward()
    np.testing.assert_allclose(s.grad.numpy(), [[0.082188225433, -0.220409956085, -0.216685891297],
                                                [-0.220409956085, 1.167068775655, 1.429142097371],
                                                [-0.216685891297, 1.429142097371,
                                                 2.875202935636]], rtol=1e-10)   # torch 2.13
    assert ng.cholesky(s).grad_fn.name() == "CholeskyBackward0"



# ---- argument errors -----------------------------------------------------------------------------
@pytest.mark.parametrize("call, message", [
    # torch 2.13's Python binding: the position where given positionally, counted without self in
    # a method
    (lambda x: ng.cumsum(x, (0,)), "cumsum(): argument 'dim' (position 2) must be int, not tuple"),
    (lambda x: x.cumsum((0,)), "cumsum(): argument 'dim' (position 1) must be int, not tuple"),
    (lambda x: x.cumsum(dim=None), "cumsum(): argument 'dim' must be int, not NoneType"),
    (lambda x: ng.cumprod(x, 1.0), "cumprod(): argument 'dim' (position 2) must be int, not float"),
    (lambda x: ng.cumsum(x, True), "cumsum(): argument 'dim' (position 2) must be int, not bool"),
    (lambda x: x.kthvalue(1, (0,)), "kthvalue(): argument 'dim' (position 2) must be int, not "
                                    "tuple"),
    (lambda x: ng.mode(x, None), "mode(): argument 'dim' (position 2) must be int, not NoneType"),
    (lambda x: ng.topk(x, 1, (0,)), "topk(): argument 'dim' (position 3) must be int, not tuple"),
    (lambda x: ng.logcumsumexp(x, [0]), "logcumsumexp(): argument 'dim' (position 2) must be int, "
                                        "not list"),
    (lambda x: ng.cummax(x, dim=(0,)), "cummax(): argument 'dim' must be int, not tuple"),
    (lambda x: x.median((0,)), "median(): argument 'dim' (position 1) must be int, not tuple"),
    (lambda x: ng.nanmedian(x, dim=None), "nanmedian(): argument 'dim' must be int, not "
                                          "NoneType"),
    (lambda x: ng.argmax(x, (0, 1)), "argmax(): argument 'dim' (position 2) must be int, not "
                                     "tuple"),
    (lambda x: ng.aminmax(x, dim=()), "aminmax(): argument 'dim' must be int, not tuple"),
])
def test_ops_along_one_dim_refuse_other_dims_as_torchs_binding(call, message):
    x = ng.tensor(X, requires_grad=True)
    with pytest.raises(TypeError) as error:
        call(x)
    assert str(error.value) == message


def test_one_dim_ops_take_int_like_dims_and_none_where_torch_does():
    x = ng.tensor(X)
    assert ng.cumsum(x, np.int64(1)).shape == (3, 4)
    assert ng.cumsum(x, ng.tensor(1)).shape == (3, 4)
    assert ng.argmax(x, dim=None).item() == 7
    assert ng.aminmax(x, dim=None).max.item() == 3.0
    assert ng.median(x).item() == 0.25


def test_lstsq_solution_is_one_node_over_A_and_B():
    rng = np.random.default_rng(1)
    a = ng.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    b = ng.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    for rhs in (b, b[:, 0]):
        solution = ng.linalg.lstsq(a, rhs).solution
        node = solution.grad_fn
        assert node.name() == "LinalgLstsqBackward0"     # torch 2.13
        assert [f.name() for f, _ in node.next_functions][0] == "torch::autograd::AccumulateGrad"
        assert node._saved_self is not None and node._saved_b is not None
    assert ng.autograd.gradcheck(lambda a, b: ng.linalg.lstsq(a, b).solution, (a, b))


# ---- ldexp's result dtype ------------------------------------------------------------------------
def test_ldexp_result_dtype_is_input_and_exponent_promoted():
    f64 = ng.float64
    assert ng.ldexp(ng.tensor(2.5, dtype=f64), ng.tensor([3, -2, 0])).dtype == f64
    assert ng.ldexp(ng.tensor(1.0), ng.tensor([3, -2])).dtype == ng.float32
    assert ng.ldexp(ng.tensor([1, 2]), ng.tensor(2.0, dtype=f64)).dtype == f64
    assert ng.ldexp(ng.tensor([1.0, 2.0]), ng.tensor(2.0, dtype=f64)).dtype == ng.float32
    assert ng.ldexp(ng.tensor([1, 2]), ng.tensor([1, 2])).dtype == ng.float32
    assert ng.ldexp(ng.tensor([1.0, 2.0]), ng.tensor([1.0, 2.0], dtype=f64)).dtype == f64


def _walk(tensor):
    """The names of the graph below tensor, breadth first, each node once."""
    seen, names, queue = [], [], [tensor.grad_fn]
    while queue:
        node = queue.pop(0)
        if node is None or any(node == s for s in seen):
            continue
        seen.append(node)
        names.append(node.name())
        queue += [f for f, _ in node.next_functions]
    return names


def test_norm_and_logsumexp_double_backward_unsqueeze_as_torch():
    # torch 2.13 restores reduced dims with unsqueeze and broadcasts: no expand or view
    x = ng.tensor(X, requires_grad=True)
    (g,) = ng.autograd.grad(x.norm(), x, create_graph=True)
    assert _walk(g) == ["MulBackward0", "MaskedFillBackward0", "DivBackward0",
                        "torch::autograd::AccumulateGrad", "LinalgVectorNormBackward0"]
    (g,) = ng.autograd.grad(ng.logsumexp(x, 1).sum(), x, create_graph=True)
    assert _walk(g) == ["MulBackward0", "ExpBackward0", "SubBackward0",
                        "torch::autograd::AccumulateGrad", "UnsqueezeBackward0",
                        "LogsumexpBackward0"]
    (gg,) = ng.autograd.grad((g * g).sum(), x)
    # torch 2.13, row 0
    np.testing.assert_allclose(gg.numpy()[0], [-0.111964829287, -0.033229833426, 0.240589014212,
                                               -0.095394351498], rtol=1e-10)


def test_full_svd_is_one_node_and_drops_the_extra_columns_gradients():
    rng = np.random.default_rng(2)
    for shape in ((4, 2), (2, 4)):
        a = ng.tensor(rng.standard_normal(shape), requires_grad=True)
        u, s, vh = ng.linalg.svd(a)
        assert u.shape == (shape[0],) * 2 and vh.shape == (shape[1],) * 2
        assert u.grad_fn.name() == "LinalgSvdBackward0" and u.grad_fn is vh.grad_fn
        # a loss of sign-invariant products of the first k columns, and one of the extra ones
        # (torch's svd_backward narrows U and Vh to k: that one adds nothing)
        k = min(shape)
        loss = ((u[:, :k] * s) @ vh[:k]).pow(2).sum() + u[:, k:].sum() + vh[k:].sum()
        loss.backward()
        np.testing.assert_allclose(a.grad.numpy(), 2 * a.detach().numpy(), rtol=1e-12)
    assert ng.autograd.gradgradcheck(lambda a: ng.linalg.svd(a)[1], (a,))


def test_amax_and_max_double_backward_are_torchs_formulas():
    ties = np.array([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 0.0, 5.0], [2.0, 2.0, 2.0, 2.0]])
    x = ng.tensor(ties, requires_grad=True)
    # torch 2.13: scale_grad_by_count(restore_reduced_dims(g)) = (g.view / count) * mask
    (g,) = ng.autograd.grad((ng.amax(x, 1) ** 2).sum(), x, create_graph=True)
    assert _walk(g)[:3] == ["MulBackward0", "DivBackward0", "ViewBackward0"]
    np.testing.assert_allclose(g.detach().numpy(), [[0, 3, 3, 0], [10 / 3, 10 / 3, 0, 10 / 3],
                                                    [1, 1, 1, 1]])
    # evenly_distribute_backward: zeros.masked_fill_(mask, g / count)
    (g,) = ng.autograd.grad(x.max() ** 2, x, create_graph=True)
    assert _walk(g)[:2] == ["MaskedFillBackward1", "DivBackward0"]
    (gg,) = ng.autograd.grad((g * g).sum(), x)
    np.testing.assert_allclose(gg.numpy(), [[0, 0, 0, 0], [40 / 9] * 2 + [0, 40 / 9], [0] * 4])
