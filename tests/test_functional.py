"""autograd.functional (vjp, jvp, jacobian, hessian, hvp, vhp) and numgrad.func (grad,
grad_and_value) against closed forms, in float64."""
import numpy as np
import pytest

import numgrad as ng
from numgrad import func
from numgrad.autograd import functional as F

RNG = np.random.default_rng(3)
A = RNG.standard_normal((3, 4))
S = A.T @ A                                   # symmetric 4x4
X = RNG.standard_normal(4)
Y = RNG.standard_normal(4)


def t(a, requires_grad=False):
    return ng.tensor(np.asarray(a, np.float64), requires_grad=requires_grad)


def close(tensor, expected):
    np.testing.assert_allclose(np.asarray(tensor.detach().numpy()), expected, rtol=1e-10,
                               atol=1e-12)


def test_jacobian_of_linear_and_elementwise_maps():
    close(F.jacobian(lambda x: t(A) @ x, t(X)), A)
    jx, jy = F.jacobian(lambda x, y: x.sin() * y, (t(X), t(Y)))
    close(jx, np.diag(np.cos(X) * Y))
    close(jy, np.diag(np.sin(X)))


def test_jacobian_shapes_follow_torch():
    a, b = t([1., 2.]), t([3., 4., 5.])
    (j00, j01), (j10, j11) = F.jacobian(lambda a, b: (a.unsqueeze(1) * b, (a * a).sum()), (a, b))
    assert [j00.shape, j01.shape, j10.shape, j11.shape] == [(2, 3, 2), (2, 3, 3), (2,), (3,)]
    # d(a_i b_j)/d a_k = delta_ik b_j
    close(j00, np.einsum("ik,j->ijk", np.eye(2), [3., 4., 5.]))
    close(j10, [2., 4.])
    close(j11, np.zeros(3))                   # independent: zeros, not an error


def test_hessian_closed_forms():
    close(F.hessian(lambda x: 0.5 * (x * (t(S) @ x)).sum(), t(X)), S)
    close(F.hessian(lambda x: (x ** 3).sum(), t(X)), np.diag(6 * X))
    # f = sum(exp(x * y)): d2f/dx dy = diag(exp(xy) (1 + xy)), d2f/dx2 = diag(y^2 exp(xy))
    (hxx, hxy), (hyx, hyy) = F.hessian(lambda x, y: (x * y).exp().sum(), (t(X), t(Y)))
    e = np.exp(X * Y)
    close(hxx, np.diag(Y ** 2 * e))
    close(hxy, np.diag(e * (1 + X * Y)))
    close(hyx, np.diag(e * (1 + X * Y)))
    close(hyy, np.diag(X ** 2 * e))


def test_products_match_the_matrices():
    v = t(Y)
    out, jv = F.jvp(lambda x: t(A) @ x.tanh(), t(X), v)
    close(out, A @ np.tanh(X))
    close(jv, A @ ((1 - np.tanh(X) ** 2) * Y))
    w = t([1., -2., 0.5])
    _, vj = F.vjp(lambda x: t(A) @ x.tanh(), t(X), w)
    close(vj, (A.T @ [1., -2., 0.5]) * (1 - np.tanh(X) ** 2))
    quad = lambda x: 0.5 * (x * (t(S) @ x)).sum() + (x ** 3).sum()   # noqa: E731
    H = S + np.diag(6 * X)
    value, hv = F.hvp(quad, t(X), v)
    close(value, 0.5 * X @ S @ X + (X ** 3).sum())
    close(hv, H @ Y)
    close(F.vhp(quad, t(X), v)[1], Y @ H)


def test_v_may_be_omitted_only_for_single_elements():
    assert F.vjp(lambda x: (x * x).sum(), t(X))[1].shape == (4,)
    close(F.jvp(lambda x: x * x, t(3.0))[1], 6.0)
    with pytest.raises(RuntimeError, match="v can only be None"):
        F.vjp(lambda x: x * x, t(X))
    with pytest.raises(RuntimeError, match="v has invalid size"):
        F.jvp(lambda x: x * x, t(X), t([1.0]))


def test_create_graph_and_strict():
    x = t(X, requires_grad=True)
    _, g = F.vjp(lambda x: (x ** 3).sum(), x, create_graph=True)
    assert g.requires_grad
    g.sum().backward()                        # through the vjp, back to x: d/dx sum(3x^2) = 6x
    close(x.grad, 6 * X)
    assert not F.vjp(lambda x: (x ** 3).sum(), x)[1].requires_grad
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function is independent "
                                           "of input 1. This is not allowed in strict mode."):
        F.jacobian(lambda a, b: a * 2, (t(X), t(Y)), strict=True)
    with pytest.raises(RuntimeError, match="does not require gradients"):
        F.vjp(lambda x: t(Y), t(X), t(Y), strict=True)
    close(F.vjp(lambda x: t(Y), t(X), t(Y))[1], np.zeros(4))
    with pytest.raises(NotImplementedError):
        F.jacobian(lambda x: x, t(X), strategy="forward-mode")


def test_func_grad_and_value():
    f = lambda x: (x ** 3).sum()              # noqa: E731
    close(func.grad(f)(t(X)), 3 * X ** 2)
    g, value = func.grad_and_value(f)(t(X))
    close(value, (X ** 3).sum())
    assert not g.requires_grad and not value.requires_grad
    gx, gy = func.grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(t(X), t(Y))
    close(gx, Y)
    close(gy, X)
    g, aux = func.grad(lambda x: ((x * 2).sum(), x + 1), has_aux=True)(t(X))
    close(g, np.full(4, 2.0))
    close(aux, X + 1)
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
        func.grad(lambda x: x * 2)(t(X))


def test_func_grad_composes():
    cube = lambda x: x ** 3                   # noqa: E731
    close(func.grad(func.grad(cube))(t(2.0)), 12.0)
    close(func.grad(func.grad(func.grad(cube)))(t(2.0)), 6.0)
    w = t(3.0, requires_grad=True)
    g = func.grad(lambda x: x * x * w)(t(2.0))   # 2 x w, still differentiable in w
    g.backward()
    close(g, 12.0)
    close(w.grad, 4.0)


def test_batched_grad_gives_one_vjp_per_seed_row():
    # y = [x0^2, x0*x1]: J = [[2 x0, 0], [x1, x0]]; rows of seeds give rows of v^T J
    x = ng.tensor([2.0, 3.0], dtype=ng.float64, requires_grad=True)
    y = ng.stack([x[0] ** 2, x[0] * x[1]])
    seeds = ng.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 4.0]], dtype=ng.float64)
    (g,) = ng.autograd.grad(y, x, seeds, is_grads_batched=True)
    assert g.shape == (3, 2)
    np.testing.assert_allclose(g.numpy(), [[4.0, 0.0], [3.0, 2.0], [16.0, 8.0]])
    assert x.grad is None


def test_jacobian_of_many_rows_in_batches():
    # 600 outputs: three batches of rows; d(sin(A x))/dx = diag(cos(A x)) A
    rng = np.random.default_rng(5)
    a = rng.standard_normal((600, 4))
    x = rng.standard_normal(4)
    jac = ng.autograd.functional.jacobian(lambda v: (ng.tensor(a) @ v).sin(), ng.tensor(x))
    np.testing.assert_allclose(jac.numpy(), np.cos(a @ x)[:, None] * a, rtol=1e-10, atol=1e-12)
