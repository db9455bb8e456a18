"""The matrix products of backward kernels (Note [one BLAS] in numgrad/kernels/blas.py): they run
in NumPy's own BLAS where NumPy's wheel bundles one, else through the adapter onto SciPy's, and
both give the products NumPy gives for every layout the kernels use."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from llvmlite import binding

import numgrad as ng
from numgrad.kernels import blas


def _products_match_numpy():
    """Backward of matmul (both operands transposed in turn), of linear (with accumulation into
    one .grad from two uses) and of a batched matmul, in both float dtypes, against NumPy."""
    rng = np.random.default_rng(0)
    for dtype, tol in ((np.float32, 1e-5), (np.float64, 1e-12)):
        a = rng.standard_normal((6, 9)).astype(dtype)
        b = rng.standard_normal((9, 4)).astype(dtype)
        g = rng.standard_normal((6, 4)).astype(dtype)
        x, w = ng.tensor(a, requires_grad=True), ng.tensor(b, requires_grad=True)
        (x @ w).backward(ng.tensor(g))
        np.testing.assert_allclose(x.grad.numpy(), g @ b.T, rtol=tol, atol=tol)
        np.testing.assert_allclose(w.grad.numpy(), a.T @ g, rtol=tol, atol=tol)

        weight = ng.tensor(b.T.copy(), requires_grad=True)        # (out, in), as nn.Linear
        x.grad = None
        (ng.nn.functional.linear(x, weight).sum() * 2 + (x @ w).sum()).backward()
        ones = np.ones((6, 4), dtype)
        np.testing.assert_allclose(x.grad.numpy(), 3 * ones @ b.T, rtol=tol, atol=tol)
        np.testing.assert_allclose(weight.grad.numpy(), 2 * (ones.T @ a), rtol=tol, atol=tol)

        batch = rng.standard_normal((3, 6, 9)).astype(dtype)
        xb = ng.tensor(batch, requires_grad=True)
        (xb @ w).backward(ng.tensor(np.broadcast_to(g, (3, 6, 4)).copy()))
        np.testing.assert_allclose(xb.grad.numpy(), np.broadcast_to(g @ b.T, (3, 6, 9)),
                                   rtol=tol, atol=tol)


def test_products_match_numpy():
    _products_match_numpy()


def test_an_empty_inner_dimension_gives_zeros():
    x = ng.zeros((3, 0), requires_grad=True)
    w = ng.zeros((0, 2), requires_grad=True)
    (x @ w).sum().backward()
    assert x.grad.shape == (3, 0) and w.grad.shape == (0, 2)


@pytest.mark.skipif(blas.numpy_gemm_addresses() is None,
                    reason="this NumPy bundles no OpenBLAS of its own")
def test_kernels_call_numpys_own_gemm():
    """One thread pool: the names the kernels call resolve to NumPy's cblas_sgemm and _dgemm."""
    expected = blas.numpy_gemm_addresses()
    linked = tuple(binding.address_of_symbol(name) for name in ("numgrad_cblas_sgemm",
                                                                "numgrad_cblas_dgemm"))
    assert linked == expected


def test_products_through_the_scipy_adapter():
    """Where NumPy brings no OpenBLAS, the adapters onto Numba's helper give the same products.
    A fresh process: symbols are resolved when a kernel is loaded."""
    script = textwrap.dedent("""
        import numpy as np
        from numgrad.kernels import blas
        blas.link((blas._adapter(np.float32), blas._adapter(np.float64)))
        from llvmlite import binding
        assert binding.address_of_symbol("numgrad_cblas_sgemm") != (blas.numpy_gemm_addresses() or (0,))[0]
        import test_blas
        test_blas._products_match_numpy()
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=__file__.rsplit("/", 1)[0], timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
