"""Numba's BLAS check, made cheap.

Note [numba's BLAS check]
The first time a process compiles a Numba function or loads one from the cache, Numba imports
its NumPy implementations. One of them, numba.np.arraymath, checks once that a BLAS exists by
importing scipy.linalg.cython_blas (the BLAS Numba's np.dot calls), and importing that runs
scipy.linalg's __init__, which imports most of SciPy's linear algebra: 0.17 s, a fifth of a warm
start (import numgrad and a first small backward), for a module numgrad's kernels never call
(they call NumPy's own gemm: kernels/blas.py).

So numgrad imports numba.np.arraymath itself (8 ms), while Numba's check function is one that
looks for that module's file instead of importing it. Numba's real check is back in place
afterwards: it runs, and imports SciPy's linear algebra, when a program compiles np.dot or
np.linalg code of its own.
"""
import importlib.machinery
import importlib.util
import os
import sys


def _cython_blas_exists():
    """Whether scipy.linalg.cython_blas is there to import: its file, found without importing
    scipy.linalg (whose __init__ is the slow part)."""
    scipy = importlib.util.find_spec("scipy")
    if scipy is None or not scipy.submodule_search_locations:
        return False
    folder = os.path.join(list(scipy.submodule_search_locations)[0], "linalg")
    return any(os.path.isfile(os.path.join(folder, "cython_blas" + suffix))
               for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def _look_for_cython_blas():
    if not _cython_blas_exists():
        raise ImportError("scipy 0.16+ is required for linear algebra")


def import_numba_numpy_support():
    """Import numba.np.arraymath with its BLAS check looking for the file (Note [numba's BLAS
    check]); nothing when it is imported already."""
    if "numba.np.arraymath" in sys.modules:
        return
    from numba.np import linalg
    check = linalg.ensure_blas
    linalg.ensure_blas = _look_for_cython_blas
    try:
        from numba.np import arraymath
    finally:
        linalg.ensure_blas = check
    if getattr(arraymath, "ensure_blas", None) is _look_for_cython_blas:
        arraymath.ensure_blas = check
