"""Matrix products: one batched primitive, and torch's matmul forms built on it with shape ops."""
import numpy as np

from .. import dtypes
from ..tensor import Tensor
from .apply import apply
from .named import named
from .registry import OpDef
from .untracked import untracked
from .shape import UNSAFE_VIEW
from .tensor_operands import tensor_operand


def _mm_vjp(ctx, g):
    """torch's mm_mat1_backward and mm_mat2_backward, through t() (TBackward0): for an operand
    that was laid out column-major (y.t(), a Linear's weight.t()) the transposed product,
    transposed, as torch's (its layout, bits of ctx.ints[0], is the node's: _layout)."""
    x, y = ctx.saved
    layout = int(ctx.ints[0])
    gx = gy = None
    if ctx.needs_input_grad[0]:
        gx = y.mm(g.t()).t() if layout & 1 else g.mm(y.t())
    if ctx.needs_input_grad[1]:
        gy = g.t().mm(x).t() if layout & 2 else x.t().mm(g)
    return gx, gy


def _column_major(a):
    """torch's test of a matrix's layout in mm's backward: strides (1, rows)."""
    rows = a.shape[0]
    return a.strides[0] == a.itemsize and a.strides[1] == rows * a.itemsize


def _layout(x, y):
    return int(_column_major(x._data)) | int(_column_major(y._data)) << 1


def _mm(x, y):
    return apply(MM, (x, y), {"layout": _layout(x, y)})


def _bmm_vjp(ctx, g):
    x, y = ctx.saved
    gx = g.bmm(y.transpose(1, 2)) if ctx.needs_input_grad[0] else None
    gy = x.transpose(1, 2).bmm(g) if ctx.needs_input_grad[1] else None
    return gx, gy


# A product's gradient for one operand reads the other: as torch, x is checked for in-place
# changes only when y wants a gradient, and y only when x does.
_CROSSED = ((1,), (0,))
def _mm_forward(x, y, layout=0):
    """(m, k) @ (k, n). With k == 1 and both m, n above 1 torch's mm is the outer product of
    exact products, whose -0.0 stays -0.0 (BLAS adds each product to a +0.0 accumulator)."""
    if x.shape[1] == 1 and x.shape[0] > 1 and y.shape[1] > 1:
        return np.multiply(x, y)
    return np.matmul(x, y)


# (m, k) @ (k, n) or (B, m, k) @ (B, k, n): every other form is reshaped onto these.
MM = OpDef("mm", _mm_forward, node_name="MmBackward0", n_in=2, saves=("x", "y"),
           kernel="matmul_bwd", vjp=_mm_vjp, readers=_CROSSED, saved_names=("self", "mat2"),
           meta=lambda layout: ((layout,), ()))
BMM = OpDef("bmm", np.matmul, node_name="BmmBackward0", n_in=2, saves=("x", "y"),
            kernel="matmul_bwd", vjp=_bmm_vjp, readers=_CROSSED, saved_names=("self", "mat2"))


def _dot_vjp(ctx, g):
    x, y = ctx.saved
    return (g * y if ctx.needs_input_grad[0] else None, g * x if ctx.needs_input_grad[1] else None)


def _mv_vjp(ctx, g):
    x, y = ctx.saved
    return (outer(g, y) if ctx.needs_input_grad[0] else None,
            mv(x.t(), g) if ctx.needs_input_grad[1] else None)


# Vector forms torch names on their own (DotBackward0, MvBackward0).
DOT = OpDef("dot", np.dot, node_name="DotBackward0", n_in=2, saves=("x", "y"), kernel="dot_bwd",
            vjp=_dot_vjp, readers=_CROSSED, saved_names=("self", "tensor"))
MV = OpDef("mv", np.matmul, node_name="MvBackward0", n_in=2, saves=("x", "y"), kernel="mv_bwd",
           vjp=_mv_vjp, readers=_CROSSED, saved_names=("self", "vec"))


def _check(x, y):
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        raise TypeError("matmul expects Tensors")
    if x._data.ndim == 0 or y._data.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{x._data.ndim}D and {y._data.ndim}D")



# the kernel torch names when it has no bool version of a product
_BOOL_KERNELS = {"mm": "addmm_impl_cpu_", "bmm": "bmm", "dot": "dot", "mv": "addmv_impl_cpu"}


def _form(x, y):
    """Which of torch's kernels computes x @ y: its dtype messages differ (a batched x with a
    matrix y is folded into one mm, as torch does)."""
    xd, yd = x._data.ndim, y._data.ndim
    if xd == 1 and yd == 1:
        return "dot"
    if yd == 1:
        return "mv"
    return "mm" if yd == 2 else "bmm"


def _check_dtypes(form, x, y):
    """torch multiplies only tensors of one dtype (it never promotes here), and no bools."""
    dx, dy = x._data.dtype, y._data.dtype
    if dx == np.bool_ and (dy == np.bool_ or form == "bmm"):     # bmm looks at x's dtype first
        raise NotImplementedError(f'"{_BOOL_KERNELS[form]}" not implemented for \'Bool\'')
    if dx != dy:
        sx, sy = dtypes.scalar_type_name(dx), dtypes.scalar_type_name(dy)
        raise RuntimeError({
            "mm": f"expected m1 and m2 to have the same dtype, but got: {dtypes.c_type_name(dx)} != "
                  f"{dtypes.c_type_name(dy)}",
            "bmm": f"expected scalar type {sx} but found {sy}",
            "dot": f"dot : expected both vectors to have same dtype, but found {sx} and {sy}",
            # addmv(result, mat, vec): the result takes the vector's dtype
            "mv": f"addmv input tensors must have the same dtype, but got {sy}, {sx}, and {sy}",
        }[form])


def _shape_error(x, y):
    raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                       f"({_rows(x)}x{x._data.shape[-1]} and {y._data.shape[0] if y._data.ndim else 1}x"
                       f"{y._data.shape[-1]})")


def _rows(x):
    return int(np.prod(x._data.shape[:-1])) if x._data.ndim > 1 else 1


def mm(x, y):
    """(m, k) @ (k, n)."""
    for name, t in (("self", x), ("mat2", y)):
        if t._data.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix")
    if x._data.shape[1] != y._data.shape[0]:
        _shape_error(x, y)
    _check_dtypes("mm", x, y)
    return _mm(x, y)


def bmm(x, y):
    """(B, m, k) @ (B, k, n)."""
    for name, t in (("batch1", x), ("batch2", y)):
        if t._data.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if x._data.shape[0] != y._data.shape[0] or x._data.shape[2] != y._data.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{x._data.shape[0]}, {x._data.shape[2]}] but got: "
                           f"[{y._data.shape[0]}, {y._data.shape[1]}].")
    _check_dtypes("bmm", x, y)
    return apply(BMM, (x, y))


def matmul(x, y):
    """torch.matmul: dot, matrix-vector, matrix-matrix and broadcast batched products."""
    _check(x, y)
    xd, yd = x._data.ndim, y._data.ndim
    form = _form(x, y)
    if form == "dot" and x._data.dtype != y._data.dtype:
        _check_dtypes(form, x, y)          # torch's dot compares dtypes before sizes
    if x._data.shape[-1] != y._data.shape[-2 if yd > 1 else 0]:
        _matmul_size_error(x, y)
    _check_dtypes(form, x, y)
    if not dtypes.is_floating(x._data.dtype):
        return untracked(np.matmul, x._data, y._data)
    if xd == 1 and yd == 1:
        return apply(DOT, (x, y))
    if xd == 2 and yd == 1:
        return apply(MV, (x, y))
    if xd == 1 and yd == 2:
        # torch's unsqueeze(0).mm(y).squeeze_(0): the result is no view
        return _mm(x.unsqueeze(0), y).squeeze_(0)
    if xd == 2 and yd == 2:
        return _mm(x, y)
    if _should_fold(x, y):
        return _folded(x, y)
    a = x.unsqueeze(0) if xd == 1 else x
    b = y.unsqueeze(1) if yd == 1 else y
    try:
        batch = np.broadcast_shapes(a._data.shape[:-2], b._data.shape[:-2])
    except ValueError:
        infer_size_error(a._data.shape[:-2], b._data.shape[:-2])
    m, k = a._data.shape[-2:]
    n = b._data.shape[-1]
    count = int(np.prod(batch)) if batch else 1
    a3 = a.expand(*batch, m, k).reshape(count, m, k)
    b3 = b.expand(*batch, k, n).reshape(count, k, n)
    out = apply(BMM, (a3, b3))
    # torch's batched matmul ends in _unsafe_view to the result's shape (UnsafeViewBackward0)
    final = batch + ((m,) if xd > 1 else ()) + ((n,) if yd > 1 else ())
    return apply(UNSAFE_VIEW, (out,), {"shape": final})


def _should_fold(x, y):
    """torch's should_fold: a batched operand times a vector or matrix becomes one mm or mv of the
    batched one folded into a matrix, when that folding copies nothing or the smaller operand
    requires grad (its gradient is then one product, not a batch of them summed)."""
    x_larger = x._data.ndim >= y._data.ndim
    big, small = (x, y) if x_larger else (y, x)
    if not (big._data.ndim >= 3 and small._data.ndim <= 2):
        return False
    if small._requires_grad:
        return True
    if x._data.ndim == 2:
        return False
    data = big._data if x_larger else np.swapaxes(big._data, -1, -2)
    if data.size == 0:
        return True
    shape, strides = data.shape, data.strides
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(data.ndim - 2))


def _folded(x, y):
    """x @ y as torch's folded matmul: the batched operand (y transposed, when it is the one)
    reshaped to a matrix, one mm or mv, and the result viewed back (_unsafe_view)."""
    transpose = y._data.ndim > x._data.ndim
    big = y.mT if transpose else x
    small = (x.t() if x._data.ndim == 2 else x) if transpose else y
    output_shape = tuple(big._data.shape[:-1])
    rows = int(np.prod(output_shape))
    folded = big.reshape(rows, big._data.shape[-1])
    if small._data.ndim == 1:
        return apply(UNSAFE_VIEW, (apply(MV, (folded, small)),), {"shape": output_shape})
    output_shape += (small._data.shape[1],)
    out = apply(UNSAFE_VIEW, (_mm(folded, small),), {"shape": output_shape})
    return out.mT.contiguous() if transpose else out


def _matmul_size_error(x, y):
    """torch's error for x @ y whose inner sizes differ: that of the kernel torch reaches. A batched
    x with a vector or matrix y is folded into one mv or mm; so is a batched y with a vector or
    matrix x that requires grad (transposed: y.mT folded, times x.t()). Other batched products
    broadcast their batch dims first, then go to bmm."""
    xd, yd = x._data.ndim, y._data.ndim
    if xd == 1 and yd == 1:
        _dot_error(x, y)
    if yd <= 2:
        if yd == 1:
            _mv_error(_rows(x), x._data.shape[-1], y._data.shape[0])
        _shape_error(x, y)
    ys = y._data.shape
    if xd <= 2 and x.requires_grad:
        rows = int(np.prod(ys[:-2])) * ys[-1]
        if xd == 1:
            _mv_error(rows, ys[-2], x._data.shape[0])
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{ys[-2]} and "
                           f"{x._data.shape[1]}x{x._data.shape[0]})")
    xs = x._data.shape if xd > 1 else (1,) + x._data.shape
    try:
        batch = np.broadcast_shapes(xs[:-2], ys[:-2])
    except ValueError:
        infer_size_error(xs[:-2], ys[:-2])
    count = int(np.prod(batch))
    raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                       f"[{count}, {xs[-1]}] but got: [{count}, {ys[-2]}].")


def infer_size_error(a, b):
    """torch's infer_size error for shapes a and b that do not broadcast (matmul's batch shapes,
    masked_select's mask and input): the first clash from the last dim, numbered in the broadcast
    shape."""
    nd = max(len(a), len(b))
    a, b = (1,) * (nd - len(a)) + tuple(a), (1,) * (nd - len(b)) + tuple(b)
    i = next(i for i in range(nd - 1, -1, -1) if a[i] != b[i] and 1 not in (a[i], b[i]))
    raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) "
                       f"at non-singleton dimension {i}")


def _dot_error(x, y):
    n, m = x._data.shape[0], y._data.shape[0]
    raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the "
                       f"same number of elements, but got {n} and {m} elements respectively")


def _mv_error(rows, cols, n):
    raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{cols}), vec ({n})")


@tensor_operand("tensor")
def dot(x, y):
    if x._data.ndim != 1 or y._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {x._data.ndim}D and {y._data.ndim}D tensors")
    return matmul(x, y)


def mv(x, y):
    if x._data.ndim != 2 or y._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {x._data.ndim}, "
                           f"{y._data.ndim}")
    return matmul(x, y)


@tensor_operand("vec2")
def outer(x, y):
    for name, t in (("self", x), ("vec2", y)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    return x.reshape(x._data.shape[0], 1) * y       # torch's: a view of x times y, broadcast


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2); beta=0 ignores input (nan and inf included)."""
    # torch compares dtypes first (before shapes), input with mat2 before mat1 with mat2
    for first, name in ((input, "self"), (mat1, "mat1")):
        if first.dtype != mat2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{dtypes.scalar_type_name(first._data.dtype)} and "
                               f"{dtypes.scalar_type_name(mat2._data.dtype)}")
    return named(_scaled_sum(input, mm(mat1, mat2), beta, alpha), "AddmmBackward0", mat1, mat2,
                 inputs=(input, mat1, mat2), saved_names=("mat1", "mat2"))


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * (batch1 @ batch2), batch by batch."""
    if input.dtype != batch1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input "
                           f"{dtypes.c_type_name(input._data.dtype)}, batch1: "
                           f"{dtypes.c_type_name(batch1._data.dtype)}, batch2: "
                           f"{dtypes.c_type_name(batch2._data.dtype)}")
    if input._data.dtype == np.bool_:
        raise NotImplementedError('"baddbmm" not implemented for \'Bool\'')
    return named(_scaled_sum(input, bmm(batch1, batch2), beta, alpha), "BaddbmmBackward0", batch1,
                 batch2, inputs=(input, batch1, batch2), saved_names=("batch1", "batch2"))


def _scaled_sum(input, product, beta, alpha):
    """The result has the product's shape: input must expand to it (torch's expand error), it
    never widens the product."""
    if tuple(input.shape) != tuple(product.shape):
        input = input.expand(tuple(product.shape))
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product          # torch ignores input then, its nan and inf too
    return product + (input if beta == 1 else input * beta)
