"""Import cost is start-up time every user pays: `import numgrad` loads no module it does not need
before the first op that uses it."""
import subprocess
import sys

# each costs 0.1-0.25 s of import; they load on first use (special functions, the GPU target)
DEFERRED = ("scipy.special", "numba.cuda", "matplotlib", "mpi4py")


def test_import_numgrad_defers_heavy_modules():
    script = ("import sys, numgrad\n"
              f"print(','.join(m for m in {DEFERRED!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_a_first_backward_does_not_import_scipys_linear_algebra():
    """Note [numba's BLAS check]: Numba's check for a BLAS would import scipy.linalg (0.17 s) on
    the first compile or cache load. It finds the module's file instead, and a program's own
    np.dot in Numba and scipy.linalg still work afterwards."""
    script = ("import sys, numpy as np, numba, numgrad as ng\n"
              "x = ng.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)\n"
              "(x @ x).sum().backward()\n"
              "print('scipy.linalg' in sys.modules, x.grad.tolist())\n"
              "dot = numba.njit(lambda a, b: np.dot(a, b))\n"
              "product = dot(np.eye(2), np.full((2, 2), 3.0)).tolist()\n"
              "import scipy.linalg\n"
              "print(product, scipy.linalg.cython_blas.__name__,\n"
              "      scipy.linalg.solve(2 * np.eye(2), [1.0, 1.0]).tolist())\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    lines = out.stdout.strip().splitlines()
    # d/dx sum(x @ x) = 1 x^T + x^T 1: row sums of x^T plus column sums of x^T
    assert lines[0] == "False [[7.0, 11.0], [9.0, 13.0]]"
    assert lines[1] == "[[3.0, 3.0], [3.0, 3.0]] scipy.linalg.cython_blas [0.5, 0.5]"
