"""The calling convention between the scheduler and the kernels: raw addresses in int64 blocks.

Every backward kernel is a C function `void kernel(int64 args)`: `args` is the address of an int64
block laid out as

    [0] n_out   [1] n_in   [2] n_saved   [3] meta address   [4] meta length   [5] fmeta address
    then n_out   addresses of the output gradients (0: undefined, no gradient reached it)
    then n_in    addresses of the input gradient buffers to fill (0: not wanted)
    then n_in    modes: WRITE the buffer (first contribution) or ADD to it
    then n_saved addresses of the saved values, in the op's `saves` order

The meta block holds each input's and each output's shape as (ndim, dims...), then the op's
integer attributes; fmeta holds its float attributes. Kernels fill input gradients in input order
(Note [write then add]): the scheduler decides WRITE or ADD per edge before the call, so when one
value feeds two inputs (x*x) the first edge writes and the second adds.
"""
import numpy as np
from llvmlite import ir
from numba import carray, njit, types
from numba.extending import intrinsic

HEADER = 6
WRITE = 0
ADD = 1


@njit(cache=True)
def address_of(array):
    """The address of an array's first element (a compiled call costs less than `.ctypes.data`)."""
    return array.ctypes.data


@intrinsic
def voidptr(typingctx, addr):
    """An int64 address as void*, for numba.carray."""
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], ir.IntType(8).as_pointer())
    return types.voidptr(types.int64), codegen


@intrinsic
def call_kernel(typingctx, fn, args):
    """Call the C function at address fn with one int64 argument."""
    def codegen(context, builder, signature, llargs):
        fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(64)])
        builder.call(builder.inttoptr(llargs[0], fnty.as_pointer()), [llargs[1]])
        return context.get_dummy_value()
    return types.void(types.int64, types.int64), codegen


@njit(inline="always")
def view(addr, n, dtype):
    return carray(voidptr(addr), n, dtype)


@njit(inline="always")
def args_block(addr):
    head = carray(voidptr(addr), HEADER, np.int64)
    return carray(voidptr(addr), HEADER + head[0] + 2 * head[1] + head[2], np.int64)


@njit(inline="always")
def gout(a, j):
    return a[HEADER + j]


@njit(inline="always")
def gin(a, k):
    return a[HEADER + a[0] + k]


@njit(inline="always")
def mode(a, k):
    return a[HEADER + a[0] + a[1] + k]


@njit(inline="always")
def saved(a, s):
    return a[HEADER + a[0] + 2 * a[1] + s]


@njit(inline="always")
def meta(a):
    return carray(voidptr(a[3]), a[4], np.int64)


@njit(inline="always")
def fmeta(a, n):
    return carray(voidptr(a[5]), n, np.float64)


@njit(inline="always")
def shape_pos(m, k):
    """Position in meta of shape number k (inputs first, then outputs): m[pos] is its ndim."""
    pos = 0
    for _ in range(k):
        pos += 1 + m[pos]
    return pos


@njit(inline="always")
def numel_at(m, pos):
    n = 1
    for d in range(m[pos]):
        n *= m[pos + 1 + d]
    return n


# Note [broadcast rows]
# A kernel over a broadcast walks the output in rows: the output's dims with size-1 dims dropped
# and neighbours merged wherever every operand steps through them as through one dim, the last
# merged dim being the row. Along a row each operand advances by 1, or by 0 where it is broadcast
# (its innermost dim of size > 1 is the row's, or it is broadcast along the row), and the
# operands' offsets move from row to row by a counter over the outer dims: a (64, 32, 14, 14)
# output with a (1, 32, 1, 1) operand is 64 x 32 rows of 196 elements, in which the operand stays
# put. An index map per element (broadcast_index) costs 8 bytes an element and a gather per read;
# a batch norm's backward spent most of its time on them.

@njit(cache=True)
def broadcast_rows(m, pins, pout):
    """How the operands whose shapes are at meta positions `pins` are read along the output shape
    at `pout`: (dims, strides, inner, rows), dims the merged output dims (at least one; the last
    is the row), strides[q, d] operand q's step along merged dim d (0 where it is broadcast),
    inner the row's length and rows how many rows there are (none for an empty output)."""
    nd_out = m[pout]
    k = len(pins)
    full = np.zeros((k, max(nd_out, 1)), np.int64)
    for q in range(k):
        pin = pins[q]
        nd_in = m[pin]
        stride = 1
        for d in range(nd_in - 1, -1, -1):
            size = m[pin + 1 + d]
            if size != 1:
                full[q, d + nd_out - nd_in] = stride
            stride *= size
    width = max(nd_out, 1)
    dims = np.ones(width, np.int64)
    strides = np.zeros((k, width), np.int64)
    pos = width - 1          # merged dims fill from the right
    started = False
    for d in range(nd_out - 1, -1, -1):
        size = m[pout + 1 + d]
        if size == 1:
            continue
        if started:
            merges = True
            for q in range(k):
                if full[q, d] != strides[q, pos] * dims[pos]:
                    merges = False
            if merges:
                dims[pos] *= size
                continue
            pos -= 1
        dims[pos] = size
        for q in range(k):
            strides[q, pos] = full[q, d]
        started = True
    inner = dims[width - 1]
    rows = 0
    if inner:
        rows = 1
        for d in range(pos, width - 1):
            rows *= dims[d]
    return dims[pos:], strides[:, pos:], inner, rows


@njit(inline="always")
def next_row(dims, strides, counter, base):
    """Move the operands' offsets `base` from one row of broadcast_rows' walk to the next;
    `counter` (zeros at the start, one per merged dim) is where the walk is in the outer dims."""
    d = len(dims) - 2
    while d >= 0:
        counter[d] += 1
        for q in range(len(base)):
            base[q] += strides[q, d]
        if counter[d] < dims[d]:
            return
        for q in range(len(base)):
            base[q] -= strides[q, d] * counter[d]
        counter[d] = 0
        d -= 1


@njit(cache=True)
def broadcast_index(m, pin, pout):
    """For each element of the output shape (C order), the flat index of the input element that
    broadcasting maps to it. Shapes align from the right; size-1 and missing dims repeat."""
    nd_out = m[pout]
    nd_in = m[pin]
    n = numel_at(m, pout)
    strides = np.zeros(nd_out, np.int64)
    stride = 1
    for d in range(nd_in - 1, -1, -1):
        size = m[pin + 1 + d]
        od = d + nd_out - nd_in
        if size != 1:
            strides[od] = stride
        stride *= size
    index = np.empty(n, np.int64)
    counter = np.zeros(nd_out, np.int64)
    offset = 0
    for i in range(n):
        index[i] = offset
        d = nd_out - 1
        while d >= 0:
            counter[d] += 1
            offset += strides[d]
            if counter[d] < m[pout + 1 + d]:
                break
            offset -= strides[d] * counter[d]
            counter[d] = 0
            d -= 1
    return index
