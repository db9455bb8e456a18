"""More products and norms: addr, addbmm, renorm, and the conjugate transposes adjoint / H / mH,
which for real tensors are transposes (views). Composites of matmul, norms and where, so
gradients and higher derivatives are those ops'."""
import numpy as np

from ..tensor import Tensor
from .elementwise import where
from .index import masked_fill
from .inplace_more import _same_shape
from .linalg import matmul, outer
from .reduce import norm as vector_norm
from .shape import permute, reshape, transpose


def _scaled_sum(input, product, beta, alpha):
    """beta * input + alpha * product; beta = 0 ignores input's values (NaNs too) and gives it a
    zero gradient, as torch's."""
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return masked_fill(input, _ALL, 0) + product
    return (input if beta == 1 else input * beta) + product


_ALL = Tensor._make(np.ones((), np.bool_), False)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2)."""
    for name, vec in (("vec1", vec1), ("vec2", vec2)):
        if vec.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {vec.ndim}-D")
    return _scaled_sum(input, outer(vec1, vec2), beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * sum over b of batch1[b] @ batch2[b]: one matrix product of the
    batches laid side by side, (n, b*m) @ (b*m, p)."""
    for name, batch in (("batch1", batch1), ("batch2", batch2)):
        if batch.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    count, rows, inner = batch1.shape
    side_by_side = reshape(permute(batch1, (1, 0, 2)), (rows, count * inner))
    return _scaled_sum(input, matmul(side_by_side, reshape(batch2, (count * inner, -1))), beta,
                       alpha)


def renorm(input, p, dim, maxnorm):
    """Each slice along dim whose p-norm exceeds maxnorm scaled down to norm maxnorm (divided by
    norm + 1e-7, as torch's); the others unchanged. Differentiable through the norm, as torch's."""
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} "
                           "dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = dim % input.ndim
    others = tuple(k for k in range(input.ndim) if k != d)
    norm = vector_norm(input, p, others, keepdim=True)
    factor = where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return input * factor


def adjoint(input):
    """The conjugate transpose of the last two dims: for real tensors, their transpose (a view)."""
    return transpose(input, -2, -1)


def _h(self):
    if self.ndim > 2:
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor. For batches of matrices, consider using "
                           "tensor.mH")
    return self.T


def _mh(self):
    if self.ndim < 2:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. Got "
                           f"{self.ndim}-D tensor.")
    return adjoint(self)


H = property(_h)
mH = property(_mh)


PUBLIC = ("addr", "addbmm", "renorm", "adjoint")
METHODS = PUBLIC + ("H", "mH")
INPLACE = {"addr_": (_same_shape(addr), False), "addbmm_": (_same_shape(addbmm), False),
           "renorm_": (renorm, True)}
