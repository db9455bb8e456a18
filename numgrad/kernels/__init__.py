"""Compiled code: the scheduler, the lowering plan and the backward kernels (Numba).

`cache` is imported first so every function compiled here is cached under the stamped directory
(Note [cache stamp] in cache.py); Numba's NumPy support is imported before anything compiles,
without SciPy's linear algebra (Note [numba's BLAS check] in blas_check.py).
"""
from . import cache  # noqa: F401
from .blas_check import import_numba_numpy_support

import_numba_numpy_support()
