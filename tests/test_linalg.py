"""numgrad.linalg and the top-level aliases (det, logdet, slogdet, inverse, cholesky, pinverse,
dist): values against NumPy and against torch (pasted literals), gradients by gradcheck and
gradgradcheck in float64 on small well-conditioned batches, float32 against float64, and torch's
errors. Eigen- and singular vectors are compared with their signs fixed, as they are defined only
up to sign."""
import math

import numpy as np
import pytest

import numgrad as ng
from numgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(0)
A3 = np.array([[4., 1., 2.], [1., 3., 0.], [2., 0., 5.]])      # symmetric positive-definite
M32 = np.array([[1., 2.], [3., 4.], [5., 7.]])


def f64(data):
    return ng.tensor(np.asarray(data, np.float64), requires_grad=True)


def general(*shape, seed=1):
    """Well-conditioned square matrices: random plus a multiple of the identity."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) + 3 * np.eye(shape[-1])


def spd(*shape, seed=2):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])


def rect(*shape, seed=3):
    """Matrices with well-separated singular values."""
    rng = np.random.default_rng(seed)
    u = np.linalg.qr(rng.standard_normal(shape[:-2] + (shape[-2], shape[-2])))[0]
    v = np.linalg.qr(rng.standard_normal(shape[:-2] + (shape[-1], shape[-1])))[0]
    k = min(shape[-2:])
    s = np.zeros(shape)
    s[..., range(k), range(k)] = np.arange(k, 0, -1) + 1.0
    return u @ s @ v


def check_grads(fn, *inputs, second=True):
    assert gradcheck(fn, inputs)
    if second:
        assert gradgradcheck(fn, inputs)


def sign_fixed(vectors):
    """Columns with their first entry made positive (a smooth choice near the test points)."""
    return vectors * vectors[..., :1, :].sign()


# ---- values --------------------------------------------------------------------------------------
def test_values_match_numpy_on_batches():
    a, s = general(2, 3, 3), spd(2, 3, 3)
    b = RNG.standard_normal((2, 3, 2))
    A, S, B = ng.tensor(a), ng.tensor(s), ng.tensor(b)
    assert np.allclose(ng.linalg.det(A).numpy(), np.linalg.det(a))
    assert np.allclose(ng.linalg.inv(A).numpy(), np.linalg.inv(a))
    assert np.allclose(ng.linalg.solve(A, B).numpy(), np.linalg.solve(a, b))
    assert np.allclose(ng.linalg.solve(A, B[..., 0]).numpy(), np.linalg.solve(a, b[..., :1])[..., 0])
    assert np.allclose(ng.linalg.solve(A, B.mT, left=False).numpy(),
                       np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), b), -1, -2))
    sign, logabs = ng.linalg.slogdet(A)
    assert np.allclose(sign.numpy(), np.linalg.slogdet(a)[0])
    assert np.allclose(logabs.numpy(), np.linalg.slogdet(a)[1])
    L = ng.linalg.cholesky(S)
    assert np.allclose(L.numpy(), np.linalg.cholesky(s))
    assert np.allclose(ng.linalg.cholesky(S, upper=True).numpy(), np.swapaxes(L.numpy(), -1, -2))
    assert np.allclose(ng.linalg.eigvalsh(S).numpy(), np.linalg.eigvalsh(s))
    assert np.allclose(ng.linalg.svdvals(B).numpy(), np.linalg.svd(b, compute_uv=False))
    assert np.allclose(ng.linalg.pinv(B).numpy(), np.linalg.pinv(b))
    assert ng.linalg.det(ng.tensor(a.astype(np.float32))).dtype == ng.float32


def test_values_match_torch_literals():
    A, M = ng.tensor(A3), ng.tensor(M32)
    assert ng.det(A).item() == pytest.approx(43.0)
    Q, R = ng.linalg.qr(M)      # LAPACK's signs, as torch
    assert np.allclose(Q.numpy(), [[-0.16903085095, 0.94868329805], [-0.50709255284, -0.31622776602],
                                   [-0.84515425473, 0.0]])
    assert np.allclose(R.numpy(), [[-5.9160797831, -8.2825116963], [0.0, 0.6324555320]])
    w, V = ng.linalg.eigh(A)
    assert np.allclose(w.numpy(), [1.8548973088, 3.4760236029, 6.6690790883])
    assert np.allclose(np.abs(V.numpy()), np.abs([[-0.6793130620, -0.3743619548, -0.6311789688],
                                                  [0.5932333119, -0.7864356988, -0.1720265368],
                                                  [0.4319814828, 0.4912962635, -0.7563200249]]))
    U, S, Vh = ng.linalg.svd(M, full_matrices=False)
    assert np.allclose(S.numpy(), [10.1914282571, 0.3671376859])
    assert np.allclose(np.abs(U.numpy()), np.abs([[-0.2167838957, 0.9389228782],
                                                  [-0.4904541353, -0.3414639049],
                                                  [-0.8440731507, -0.0427344183]]))
    assert np.allclose(ng.linalg.pinv(M).numpy(), [[-2.0714285714, 0.78571428571, 0.14285714286],
                                                   [1.5, -0.5, 0.0]])
    assert ng.linalg.matrix_norm(M, 2).item() == pytest.approx(10.1914282571)
    assert ng.linalg.norm(M, -1).item() == 9.0
    assert ng.linalg.vector_norm(M, 0).item() == 6.0


def test_gradients_match_torch_literals():
    A = f64(A3)
    ng.linalg.cholesky(A).sum().backward()
    assert np.allclose(A.grad.numpy(), [[0.2353886406, -0.0149185963, 0.0366820169],
                                        [-0.0149185963, 0.3646915980, 0.3474913936],
                                        [0.0366820169, 0.3474913936, 0.2528902694]])
    M = f64(M32)
    ng.linalg.matrix_norm(M, "nuc").backward()
    assert np.allclose(M.grad.numpy(), [[-0.6393459161, 0.7209772730], [0.5625644328, 0.2016534554],
                                        [0.5241736912, 0.6629688196]])
    M = f64(M32)
    ng.linalg.matrix_norm(M, 1).backward()
    assert np.array_equal(M.grad.numpy(), [[0, 1], [0, 1], [0, 1]])
    zero = f64(np.zeros((2, 3)))
    ng.linalg.vector_norm(zero).backward()       # torch: zero gradient where the norm is zero
    assert np.array_equal(zero.grad.numpy(), np.zeros((2, 3)))


def test_return_types_and_node_names():
    A = f64(A3)
    out = ng.linalg.slogdet(A)
    assert repr(out).startswith("numgrad.return_types.linalg_slogdet(")
    assert repr(ng.slogdet(A)).startswith("numgrad.return_types.slogdet(")
    # torch 2.13: sign is an output of the node too (its gradient dropped for real inputs)
    assert out.sign.grad_fn.name() == "LinalgSlogdetBackward0" and out.logabsdet.requires_grad
    assert ng.linalg.eigh(A)._fields == ("eigenvalues", "eigenvectors")
    assert ng.linalg.svd(A)._fields == ("U", "S", "Vh")
    assert ng.linalg.qr(A)._fields == ("Q", "R")
    assert ng.linalg.inv(A).grad_fn.name() == "LinalgInvExBackward0"
    assert ng.linalg.det(A).grad_fn.name() == "LinalgDetBackward0"
    assert ng.linalg.cholesky(A).grad_fn.name() == "LinalgCholeskyExBackward0"
    assert ng.linalg.matrix_rank(ng.tensor(np.ones((2, 3, 3)))).tolist() == [1, 1]
    assert ng.linalg.matrix_rank(ng.tensor(A3)).dtype == ng.int64


# ---- gradients -----------------------------------------------------------------------------------
def test_inv_det_slogdet_logdet_gradients():
    A = f64(general(2, 3, 3))
    check_grads(ng.linalg.inv, A)
    check_grads(ng.linalg.det, A)
    check_grads(lambda a: ng.linalg.slogdet(a).logabsdet, A)
    check_grads(ng.logdet, f64(spd(2, 2)))
    check_grads(ng.inverse, f64(general(2, 2)))


def test_det_gradient_of_singular_matrices_is_the_adjugate():
    # torch's create_graph value; its first-order fast path gives zeros for exactly singular A
    A = f64([[1., 2.], [2., 4.]])
    ng.det(A).backward()
    assert np.allclose(A.grad.numpy(), [[4., -2.], [-2., 1.]])
    check_grads(ng.linalg.det, f64([[[1., 2, 3], [4, 5, 6], [7, 8, 9]], [[2., 0, 0], [0, 1, 0],
                                                                          [0, 0, 3]]]))


def test_solve_gradients_with_broadcast_and_vectors():
    A, B = f64(general(2, 3, 3)), f64(RNG.standard_normal((3, 2)))
    check_grads(ng.linalg.solve, A, B)
    check_grads(ng.linalg.solve, A, f64(RNG.standard_normal((2, 3))))
    check_grads(lambda a, b: ng.linalg.solve(a, b, left=False), f64(general(2, 2)),
                f64(RNG.standard_normal((3, 2))), second=False)


def test_cholesky_gradients():
    # the input is symmetrized: cholesky reads one triangle, its gradient is symmetric as torch's
    def chol(x, upper=False):
        return ng.linalg.cholesky(x + x.mT, upper=upper)
    X = f64(spd(2, 3, 3) / 2)
    check_grads(chol, X)
    check_grads(lambda x: chol(x, upper=True), X, second=False)
    check_grads(lambda x: ng.cholesky(x + x.mT), f64(spd(2, 2) / 2), second=False)


def test_qr_gradients_tall_square_and_wide():
    check_grads(lambda a: tuple(ng.linalg.qr(a)), f64(rect(2, 4, 3)))
    wide = rect(2, 3, 5)
    Q, R = ng.linalg.qr(ng.tensor(wide))
    assert np.allclose(Q.numpy(), np.linalg.qr(wide)[0]) and np.allclose(R.numpy(), np.linalg.qr(wide)[1])
    check_grads(lambda a: tuple(ng.linalg.qr(a)), f64(wide), second=False)
    check_grads(lambda a: ng.linalg.qr(a).R, f64(general(3, 3)), second=False)
    check_grads(lambda a: tuple(ng.linalg.qr(a, "complete")), f64(general(3, 3)), second=False)


def test_eigh_gradients():
    def eigh(x):
        w, V = ng.linalg.eigh(x + x.mT)
        return w, sign_fixed(V)
    X = f64(np.diag([1.0, 2.5, 4.0]) + 0.1 * RNG.standard_normal((2, 3, 3)))
    check_grads(eigh, X)
    check_grads(lambda x: ng.linalg.eigvalsh(x + x.mT), X, second=False)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 3), (3, 4)])
def test_svd_gradients(shape):
    def svd(x):
        U, S, Vh = ng.linalg.svd(x, full_matrices=False)
        signs = U[..., :1, :].sign()
        return U * signs, S, Vh * signs.mT
    A = f64(rect(*shape))
    check_grads(svd, A, second=len(shape) == 2)
    check_grads(ng.linalg.svdvals, A, second=False)
    check_grads(ng.linalg.pinv, A, second=len(shape) == 2)


def test_svd_full_matrices_pads_u_and_vh():
    U, S, Vh = ng.linalg.svd(ng.tensor(M32))
    assert tuple(U.shape) == (3, 3) and tuple(Vh.shape) == (2, 2)
    assert np.allclose(U.numpy().T @ U.numpy(), np.eye(3))
    assert np.allclose((U[:, :2] * S) @ Vh, M32)


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf])
def test_matrix_norms_values_and_gradients(ord):
    a = rect(2, 3, 4)
    assert np.allclose(ng.linalg.matrix_norm(ng.tensor(a), ord).numpy(),
                       np.linalg.norm(a, ord, axis=(-2, -1)))
    assert tuple(ng.linalg.matrix_norm(ng.tensor(a), ord, dim=(0, 2), keepdim=True).shape) == (1, 3, 1)
    check_grads(lambda x: ng.linalg.matrix_norm(x, ord), f64(a), second=ord in ("fro", "nuc"))


def test_norm_dispatch_vector_norm_and_dist():
    a = RNG.standard_normal((2, 3))
    A = f64(a)
    assert np.isclose(ng.linalg.norm(A).item(), np.linalg.norm(a))
    assert np.allclose(ng.linalg.norm(A, 3, dim=1).detach().numpy(),
                       np.sum(np.abs(a) ** 3, 1) ** (1 / 3))
    assert np.isclose(ng.linalg.norm(A, "nuc").item(), np.linalg.norm(a, "nuc"))
    assert np.isclose(ng.linalg.vector_norm(A, math.inf).item(), np.abs(a).max())
    check_grads(lambda x: ng.linalg.vector_norm(x, 3, dim=(0, 1)), A)
    check_grads(lambda x, y: ng.dist(x, y, 1.5), A, f64(a[::-1].copy()))


def test_products_cross_diagonal_lstsq():
    a, b, c = (f64(RNG.standard_normal(s)) for s in ((3,), (3, 4), (4,)))
    assert np.isclose(ng.linalg.multi_dot([a, b, c]).item(),
                      a.detach().numpy() @ b.detach().numpy() @ c.detach().numpy())
    check_grads(lambda x, y, z: ng.linalg.multi_dot([x, y, z]), a, b, c)
    x, y = f64(RNG.standard_normal((2, 3))), f64(RNG.standard_normal((2, 3)))
    assert np.allclose(ng.linalg.vecdot(x, y).detach().numpy(), np.sum(x.detach().numpy() *
                                                                       y.detach().numpy(), -1))
    assert np.allclose(ng.linalg.cross(x, y).detach().numpy(),
                       np.cross(x.detach().numpy(), y.detach().numpy()))
    check_grads(ng.linalg.vecdot, x, y)
    check_grads(ng.linalg.cross, x, y)
    m = ng.tensor(general(2, 3, 3))
    assert ng.linalg.diagonal(m, offset=1)._base is m
    assert np.allclose(ng.linalg.matmul(m, m).numpy(), m.numpy() @ m.numpy())
    A, B = f64(rect(4, 2)), f64(RNG.standard_normal((4, 2)))
    result = ng.linalg.lstsq(A, B)
    assert np.allclose(result.solution.detach().numpy(),
                       np.linalg.lstsq(rect(4, 2), B.detach().numpy(), rcond=None)[0])
    assert result.rank.item() == 2
    check_grads(lambda a, b: ng.linalg.lstsq(a, b).solution, A, B, second=False)


def test_float32_matches_float64():
    a = general(2, 3, 3)
    grads = []
    for dtype in (np.float32, np.float64):
        A = ng.tensor(a.astype(dtype), requires_grad=True)
        (ng.linalg.det(A).sum() + ng.linalg.inv(A).sum() + ng.linalg.svdvals(A).sum()).backward()
        assert A.grad.dtype == A.dtype
        grads.append(A.grad.numpy())
    assert np.allclose(grads[0], grads[1], rtol=1e-4, atol=1e-4)


# ---- errors --------------------------------------------------------------------------------------
def test_torch_errors():
    with pytest.raises(RuntimeError, match=r"^linalg.det: A must be batches of square matrices, "
                                           r"but they are 2 by 3 matrices$"):
        ng.linalg.det(ng.ones(2, 3))
    with pytest.raises(RuntimeError, match="^linalg.inv: The input tensor A must have at least 2 "):
        ng.linalg.inv(ng.ones(3))
    with pytest.raises(RuntimeError, match="^linalg.cholesky: Expected a floating point or complex "
                                           "tensor as input. Got Long$"):
        ng.linalg.cholesky(ng.ones(2, 2, dtype=ng.int64))
    singular = ng.stack([ng.eye(3), ng.tensor([[1., 2, 0], [2, 4, 0], [0, 0, 1]])])
    with pytest.raises(ng.linalg.LinAlgError, match=r"^linalg.inv: \(Batch element 1\): The "
                                                    "diagonal element 2 is zero, the inversion"):
        ng.linalg.inv(singular)
    with pytest.raises(RuntimeError, match=r"^linalg.cholesky: The factorization could not be "
                                           r"completed because the input is not positive-definite "
                                           r"\(the leading minor of order 2 is not"):
        ng.linalg.cholesky(ng.tensor([[1., 2], [2, 1]]))
    with pytest.raises(RuntimeError, match=r"^torch.linalg.solve: \(Batch element 1\): The solver "
                                           "failed because the input matrix is singular.$"):
        ng.linalg.solve(ng.stack([ng.eye(2), ng.ones(2, 2)]), ng.ones(2, 2))
    with pytest.raises(RuntimeError, match=r"^linalg.solve: Incompatible shapes of A and B for the "
                                           r"equation AX = B \(2x2 and 3x1\)$"):
        ng.linalg.solve(ng.eye(2), ng.ones(3))
    with pytest.raises(RuntimeError, match="^linalg.solve: Expected A and B to have the same dtype"):
        ng.linalg.solve(ng.eye(2), ng.ones(2, dtype=ng.float64))
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm: Order 3 not supported.$"):
        ng.linalg.matrix_norm(ng.ones(2, 2), 3)
    with pytest.raises(RuntimeError, match="^linalg.norm: If dim is not specified but ord is, the "
                                           "input must be 1D or 2D. Got 3D.$"):
        ng.linalg.norm(ng.ones(2, 2, 2), 2)
    with pytest.raises(RuntimeError, match="^multi_dot\\(\\): tensor 1 must be 2D but got 3D$"):
        ng.linalg.multi_dot([ng.ones(3), ng.ones(2, 3, 4), ng.ones(4)])
    with pytest.raises(RuntimeError, match="^Expected UPLO argument to be 'L' or 'U', but got X$"):
        ng.linalg.eigh(ng.eye(2), UPLO="X")
    with pytest.raises(RuntimeError, match="^linalg.pinv\\(Float\\{\\[3\\]\\}\\): expected a tensor"):
        ng.linalg.pinv(ng.ones(3))
    Q, R = ng.linalg.qr(f64(rect(4, 3)), mode="complete")
    with pytest.raises(RuntimeError, match="^The QR decomposition is not differentiable when "
                                           "mode='complete' and nrows > ncols.$"):
        Q.sum().backward()


def test_module_docstring_example():
    import doctest
    import numgrad.linalg
    result = doctest.testmod(numgrad.linalg, extraglobs={"ng": ng})
    assert result.attempted and not result.failed
