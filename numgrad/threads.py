"""get_num_threads / set_num_threads: the threads numgrad's work may use, as torch's intra-op
setting. That work runs in two pools: NumPy's OpenBLAS (every matrix product, forward and
backward: Note [one BLAS] in kernels/blas.py) and Numba's (the opt-in parallel kernels). Both are
set together, so that one number means what torch's does."""
import ctypes
import glob
import os

import numpy as np

_interop_threads = [1]


def _openblas_threads_functions():
    """(set, get) of the OpenBLAS in NumPy's wheel, or None (a NumPy on another BLAS)."""
    root = os.path.dirname(np.__file__)
    for path in (glob.glob(os.path.join(root, os.pardir, "numpy.libs", "*openblas*"))
                 + glob.glob(os.path.join(root, ".dylibs", "*openblas*"))):
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in ("scipy_openblas", "openblas"):
            setter = getattr(library, f"{prefix}_set_num_threads64_", None)
            getter = getattr(library, f"{prefix}_get_num_threads64_", None)
            if setter is not None and getter is not None:
                setter.argtypes, getter.restype = [ctypes.c_int], ctypes.c_int
                return setter, getter
    return None


_openblas = []


def _blas():
    if not _openblas:
        _openblas.append(_openblas_threads_functions())
    return _openblas[0]


def get_num_threads():
    """The number of threads numgrad's matrix products and parallel kernels use."""
    import numba
    return numba.get_num_threads()


def set_num_threads(int):
    """Use `int` threads (at most the cores Numba found) for matrix products and parallel
    kernels."""
    import numba
    if int <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    count = min(int, numba.config.NUMBA_NUM_THREADS)
    numba.set_num_threads(count)
    blas = _blas()
    if blas is not None:
        blas[0](count)


def get_num_interop_threads():
    """numgrad runs independent ops one at a time: kept only for torch's API."""
    return _interop_threads[0]


def set_num_interop_threads(int):
    if int <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _interop_threads[0] = int
