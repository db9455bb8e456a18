"""Matrix products inside kernels, as one BLAS gemm call with no checks around it.

Numba's np.dot checks shapes and layouts at run time and compiles an error message for each
failure, with the machinery to format shapes into strings: compiling matmul's backward took 5 s
cold, 4 of them for messages no kernel can reach (the kernels' shapes come from the tape, checked
when the forward ran). `gemm` calls the BLAS that np.dot calls (SciPy's, through Numba's
`numba_xxgemm` helper) directly. The helper imports SciPy's BLAS on its first call, so importing
numgrad does not (0.1 s of every start).
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .abi import address_of


@intrinsic
def _xxgemm(typingctx, kind, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc):
    """numba_xxgemm(kind, transa, transb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc), column
    major as BLAS; pointers as int64 addresses."""
    def codegen(context, builder, signature, args):
        byte, word, pointer = ir.IntType(8), ir.IntType(64), ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.IntType(32), [byte, byte, byte, word, word, word, pointer,
                                                pointer, word, pointer, word, pointer, pointer,
                                                word])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "numba_xxgemm")
        chars = [builder.trunc(v, byte) for v in args[:3]]
        addresses = {6, 7, 9, 11, 12}
        rest = [builder.inttoptr(v, pointer) if i in addresses else v
                for i, v in enumerate(args) if i >= 3]
        return builder.call(fn, chars + rest)
    return types.int32(*([types.int64] * 14)), codegen


_S, _D, _T, _N = ord("s"), ord("d"), ord("t"), ord("n")     # BLAS's kind and transpose letters


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
    scalars = np.empty(2, c.dtype)
    scalars[0] = 1.0                        # alpha
    scalars[1] = 1.0 if accumulate else 0.0  # beta
    # Row-major c = op(x) op(y) is column-major c^T = op(y)^T op(x)^T: BLAS gets y first.
    _xxgemm(_S if c.itemsize == 4 else _D, _T if y_transposed else _N,
            _T if x_transposed else _N, n, m, k, address_of(scalars), address_of(y),
            k if y_transposed else n, address_of(x), m if x_transposed else k,
            address_of(scalars) + c.itemsize, address_of(c), n)
