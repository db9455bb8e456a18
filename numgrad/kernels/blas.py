"""Matrix products inside kernels, as one BLAS gemm call with no checks around it, in NumPy's BLAS.

Numba's np.dot checks shapes and layouts at run time and compiles an error message for each
failure, with the machinery to format shapes into strings: compiling matmul's backward took 5 s
cold, 4 of them for messages no kernel can reach (the kernels' shapes come from the tape, checked
when the forward ran). `gemm` calls cblas_?gemm directly instead.

Note [one BLAS]
The forward's matrix products run in NumPy, which calls the OpenBLAS bundled in its wheel.
Numba's (np.dot, its numba_xxgemm helper) call SciPy's, a second OpenBLAS with a thread pool of
its own. When the two alternate, as forward and backward do, each pool's threads spin-wait after
their work while the other pool's threads try to run: on a 2-core machine an MLP training step
took 19.6 ms instead of 2.2. So the kernels call the gemm of NumPy's own OpenBLAS, found in its
wheel at import, and one pool does all the work. It is registered with LLVM under a fixed name
(`numgrad_cblas_sgemm`, `..._dgemm`), so kernels cached on disk link to it by name in the next
process. Where NumPy brings no OpenBLAS of its own (a conda build on MKL, a system BLAS), the same
names point at a small compiled adapter onto Numba's helper, SciPy's BLAS, which is then loaded
on the first product.
"""
import ctypes
import glob
import os

import numpy as np
from llvmlite import binding, ir
from numba import cfunc, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .abi import address_of

_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112          # CBLAS's order and transpose codes
_SYMBOLS = {4: "numgrad_cblas_sgemm", 8: "numgrad_cblas_dgemm"}


@intrinsic
def _cblas_gemm(typingctx, order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
    """cblas_?gemm(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) with
    64-bit integers (NumPy's OpenBLAS is ILP64); the float type of alpha picks s or d, pointers
    come as int64 addresses."""
    real = alpha

    def codegen(context, builder, signature, args):
        code, word, pointer = ir.IntType(32), ir.IntType(64), ir.IntType(8).as_pointer()
        scalar = context.get_value_type(real)
        fnty = ir.FunctionType(ir.VoidType(), [code, code, code, word, word, word, scalar, pointer,
                                               word, pointer, word, scalar, pointer, word])
        fn = cgutils.get_or_insert_function(builder.module, fnty, _SYMBOLS[real.bitwidth // 8])
        addresses = {7, 9, 12}
        values = [builder.trunc(v, code) if i < 3 else
                  builder.inttoptr(v, pointer) if i in addresses else v
                  for i, v in enumerate(args)]
        builder.call(fn, values)
        return context.get_dummy_value()
    return types.void(*([types.int64] * 6), real, types.int64, types.int64, types.int64,
                      types.int64, real, types.int64, types.int64), codegen


@njit(cache=True)
def gemm(c, x, x_transposed, y, y_transposed, m, n, k, accumulate):
    """c (m, n) = op(x) @ op(y), or c += when accumulate; all three C-contiguous buffers of one
    float dtype. x holds (m, k), or (k, m) read transposed; y holds (k, n), or (n, k) transposed."""
    if m == 0 or n == 0:
        return
    if k == 0:
        if not accumulate:
            c[:] = 0
        return
    one = c.dtype.type(1.0)
    beta = c.dtype.type(1.0 if accumulate else 0.0)
    _cblas_gemm(_ROW_MAJOR, _TRANS if x_transposed else _NO_TRANS,
                _TRANS if y_transposed else _NO_TRANS, m, n, k, one, address_of(x),
                m if x_transposed else k, address_of(y), k if y_transposed else n, beta,
                address_of(c), n)


def numpy_gemm_addresses():
    """The addresses of cblas_sgemm and cblas_dgemm in the ILP64 OpenBLAS that NumPy's wheels
    bundle (numpy.libs/ on Linux and Windows, numpy/.dylibs/ on macOS), or None. dlopen of a
    library NumPy has loaded already returns NumPy's own copy."""
    root = os.path.dirname(np.__file__)
    found = (glob.glob(os.path.join(root, os.pardir, "numpy.libs", "*openblas*"))
             + glob.glob(os.path.join(root, ".dylibs", "*openblas*")))
    for path in found:
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        # scipy-openblas64 (NumPy >= 2.0), then openblas64_ (NumPy 1.22 to 1.26)
        for prefix, suffix in (("scipy_cblas_", "64_"), ("cblas_", "64_")):
            try:
                pair = [getattr(library, f"{prefix}{kind}gemm{suffix}") for kind in "sd"]
            except AttributeError:
                continue
            return tuple(ctypes.cast(fn, ctypes.c_void_p).value for fn in pair)
    return None


# ---- the fallback: the same calls through Numba's helper, SciPy's BLAS ---------------------------
@intrinsic
def _xxgemm(typingctx, kind, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
    """numba_xxgemm(kind, transa, transb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc), column
    major as BLAS; arrays as int64 addresses. alpha and beta live on this call's stack: in a heap
    array whose last use was taking its address, they could be freed before the helper reads them,
    and its first call imports SciPy's BLAS, which reuses that memory."""
    def codegen(context, builder, signature, args):
        byte, word, pointer = ir.IntType(8), ir.IntType(64), ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.IntType(32), [byte, byte, byte, word, word, word, pointer,
                                                pointer, word, pointer, word, pointer, pointer,
                                                word])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "numba_xxgemm")
        chars = [builder.trunc(v, byte) for v in args[:3]]
        on_stack = {6, 11}
        addresses = {7, 9, 12}
        rest = []
        for i, v in enumerate(args):
            if i in on_stack:
                v = builder.bitcast(cgutils.alloca_once_value(builder, v), pointer)
            elif i in addresses:
                v = builder.inttoptr(v, pointer)
            if i >= 3:
                rest.append(v)
        return builder.call(fn, chars + rest)
    return types.int32(*([types.int64] * 6), alpha, *([types.int64] * 4), beta,
                       types.int64, types.int64), codegen


def _adapter(dtype):
    """A C function with cblas_?gemm's signature (row major only, as `gemm` calls it) that calls
    numba_xxgemm: row-major c = op(a) op(b) is column-major c^T = op(b)^T op(a)^T."""
    real = types.float32 if dtype == np.float32 else types.float64
    kind = ord("s" if dtype == np.float32 else "d")
    no_trans, trans = ord("n"), ord("t")            # BLAS's transpose letters
    signature = types.void(types.int32, types.int32, types.int32, types.int64, types.int64,
                           types.int64, real, types.int64, types.int64, types.int64, types.int64,
                           real, types.int64, types.int64)

    @cfunc(signature, cache=True)
    def adapter(order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
        _xxgemm(kind, trans if transb == _TRANS else no_trans,
                trans if transa == _TRANS else no_trans, n, m, k, alpha, b, ldb, a, lda, beta,
                c, ldc)
    return adapter.address


def link(addresses=None):
    """Point the names the kernels call at NumPy's gemm, or at the adapters when NumPy brings no
    OpenBLAS of its own. Runs at import, before any kernel is compiled or loaded."""
    addresses = addresses or numpy_gemm_addresses() or (_adapter(np.float32),
                                                         _adapter(np.float64))
    for itemsize, address in zip((4, 8), addresses):
        binding.add_symbol(_SYMBOLS[itemsize], address)


link()
