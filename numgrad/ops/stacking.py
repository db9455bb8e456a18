"""Stacking, splitting and small numeric utilities torch users reach for: select, tile, the
h/v/dsplit and atleast_nd families, column_stack/row_stack, block_diag, cartesian_prod,
trapezoid/cumulative_trapezoid, cov/corrcoef, vander, tril/triu_indices, Tensor.stride and
output_nr, and the in-place comparisons lt_ ... ne_.

All are composites of existing ops (indexing, reshape, cat, pad, sums, cumprod): gradients,
create_graph and views come from those. Views are returned where torch returns them (select and
the split pieces are slices of their input).
"""
import functools

import numpy as np

from .. import creation, dtypes
from ..tensor import Tensor, _wrap_dim, shape_dim
from .composite import _at_least, _nonempty, hstack, meshgrid, tensor_split, vstack
from .elementwise import eq, ge, gt, le, lt, ne
from .reduce import mean, sum as sum_
from .scan import cumprod, cumsum
from .named import named
from .shape import cat, pad, repeat, reshape, select_along, stack

PUBLIC = ("select", "tile", "hsplit", "vsplit", "dsplit", "atleast_1d", "atleast_2d",
          "atleast_3d", "column_stack", "row_stack", "trapezoid", "trapz", "cumulative_trapezoid",
          "block_diag", "cartesian_prod", "tril_indices", "triu_indices", "cov", "corrcoef",
          "vander")
METHODS = ("select", "tile", "hsplit", "vsplit", "dsplit", "stride", "output_nr", "cov",
           "corrcoef")


def _recorded_comparison(compare, node_name):
    """The out-of-place form of torch's lt_ ... ne_: 0/1 in self's dtype, whose node (LtBackward0,
    ...) gives self a zero gradient, so that a tensor compared in place stays in the graph."""
    def fn(self, other):
        values = compare(self, other).to(self.dtype)
        if not self.requires_grad:
            return values
        return named(values + self * 0.0, node_name, inputs=(self,))
    fn.__name__ = compare.__name__
    return fn


INPLACE = {name + "_": (_recorded_comparison(fn, name.capitalize() + "Backward0"), False)
           for name, fn in (("lt", lt), ("le", le), ("gt", gt), ("ge", ge), ("eq", eq),
                            ("ne", ne))}


# ---- views and layout ----------------------------------------------------------------------------
def select(input, dim, index):
    """The slice at `index` along dim, that dim removed: a view (SelectBackward0)."""
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {d}")
    return select_along(input, dim, int(index))


def stride(self, dim=None):
    """Steps in elements between neighbours along each dim (one dim's when dim is given)."""
    if self._data.size:
        steps = tuple(s // self._data.dtype.itemsize for s in self._data.strides)
    else:       # NumPy 2 gives an empty array zero strides; torch's are a contiguous tensor's
        steps, step = [], 1
        for n in reversed(self._data.shape):
            steps.insert(0, step)
            step *= max(n, 1)
        steps = tuple(steps)
    return steps if dim is None else steps[shape_dim("stride", dim, self.ndim)]


# torch's output_nr: which output of its grad_fn a tensor is (0 for leaves)
output_nr = property(lambda self: self._slot if self._node >= 0 else 0)


def tile(input, dims):
    """input repeated dims[k] times along dim k; dims shorter than input.ndim is padded with ones
    in front, as torch (and NumPy) do."""
    dims = (int(dims),) if isinstance(dims, (int, np.integer)) else tuple(int(d) for d in dims)
    return repeat(input, (1,) * (input.ndim - len(dims)) + dims)


def _split_along(name, input, indices_or_sections, dim, min_ndim):
    if input.ndim < min_ndim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_ndim} dimension, "
                           f"but got a tensor with {input.ndim} dimensions!")
    sections = indices_or_sections
    if isinstance(sections, (int, np.integer)) and not isinstance(sections, bool):
        size = input.shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the "
                               f"size of the dimension {size} is not divisible by the split_size "
                               f"{sections}!")
    return tensor_split(input, sections, dim)


def hsplit(input, indices_or_sections):
    """Views cut along dim 1 (dim 0 of a 1-d tensor) into equal sections or at indices."""
    return _split_along("hsplit", input, indices_or_sections, 1 if input.ndim > 1 else 0, 1)


def vsplit(input, indices_or_sections):
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def _atleast(ndim, tensors):
    single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    results = tuple(_at_least(t, ndim) for t in tensors)
    return results[0] if single else results


def atleast_1d(*tensors):
    """Each tensor with at least 1 dim (a 0-d one reshaped to (1,)); a tensor with enough dims is
    returned as it is. One tensor gives one tensor, several (or a list) a tuple."""
    return _atleast(1, tensors)


def atleast_2d(*tensors):
    return _atleast(2, tensors)


def atleast_3d(*tensors):
    return _atleast(3, tensors)


def column_stack(tensors):
    """Tensors joined as columns: 0-d and 1-d ones become (n, 1) columns, then hstack."""
    return hstack([reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t
                   for t in _nonempty(tensors, "column_stack")])


def row_stack(tensors):
    return vstack(tensors)


# ---- block_diag, cartesian_prod, index grids -----------------------------------------------------
def block_diag(*tensors):
    """The tensors (0-d, 1-d or 2-d) as blocks on the diagonal of one matrix, zeros elsewhere, in
    their promoted dtype."""
    blocks = []
    for k, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {k} has {t.ndim} dimensions")
        blocks.append(reshape(t, (1, -1) if t.ndim == 1 else (1, 1)) if t.ndim < 2 else t)
    if not blocks:
        return creation.zeros(1, 0)
    dtype = functools.reduce(dtypes.promote, [b._data.dtype for b in blocks])
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        b = b.to(dtype)
        # each block padded with zeros to the full width: rows of the result, joined by cat
        rows.append(pad(b, (left, width - left - b.shape[1])))
        left += b.shape[1]
    return cat(rows, 0)


def cartesian_prod(*tensors):
    """Every combination of one element from each 1-d tensor, one per row (a single tensor is
    returned as it is)."""
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([reshape(g, -1) for g in grids], 1)


def _triangle_indices(row, col, offset, dtype, device, lower):
    if dtype not in (dtypes.int64, dtypes.int32):
        raise NotImplementedError(f"\"{'tril' if lower else 'triu'}_indices\" not implemented for "
                           f"'{dtypes.scalar_type_name(np.dtype(dtype))}'")
    rows, cols = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
    return creation.tensor(np.stack([rows, cols]).astype(dtype).reshape(2, -1), device=device)


def tril_indices(row, col, offset=0, *, dtype=dtypes.int64, device="cpu"):
    """The (row, col) indices of the lower triangle of a row x col matrix, as a 2 x N tensor."""
    return _triangle_indices(row, col, offset, dtype, device, True)


def triu_indices(row, col, offset=0, *, dtype=dtypes.int64, device="cpu"):
    return _triangle_indices(row, col, offset, dtype, device, False)


# ---- trapezoid -----------------------------------------------------------------------------------
def _trapezoid_terms(name, y, x, dx, dim):
    """The area of each interval along dim, by the trapezoid rule."""
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = _wrap_dim(dim, y.ndim)
    n = y.shape[d]
    ends = (slice(None),) * d
    pairs = y[ends + (slice(1, None),)] + y[ends + (slice(0, max(n - 1, 0)),)]
    if x is None:
        return pairs * ((1.0 if dx is None else dx) / 2), d
    if x.ndim == 1:
        if x.shape[0] != n:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        steps = x[1:] - x[:-1]
        steps = reshape(steps, (-1,) + (1,) * (y.ndim - d - 1))
    else:
        xd = _wrap_dim(dim, x.ndim)
        xe = (slice(None),) * xd
        steps = x[xe + (slice(1, None),)] - x[xe + (slice(0, max(x.shape[xd] - 1, 0)),)]
    return pairs * steps / 2, d


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of y along dim by the trapezoid rule, at points x (spacing dx, 1 by
    default)."""
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments - got both x "
                        "and dx")
    if isinstance(x, (int, float)):
        x, dx = None, x
    terms, d = _trapezoid_terms("trapezoid", y, x, dx, dim)
    return sum_(terms, d)


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running integral of y along dim (one element fewer than y there)."""
    if isinstance(x, (int, float)):
        x, dx = None, x
    terms, d = _trapezoid_terms("cumulative_trapezoid", y, x, dx, dim)
    return cumsum(terms, d)


# ---- cov / corrcoef ------------------------------------------------------------------------------
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in input's rows (observations in columns; a 1-d
    input is one variable), with frequency and analytic weights as numpy.cov."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                         f"input with {input.ndim} dimensions")
    obs = reshape(input, (1, -1)) if input.ndim < 2 else input
    if not dtypes.is_floating(obs._data.dtype):
        obs = obs.to(dtypes.get_default_dtype())
    weights = None
    for name, w in (("fweights", fweights), ("aweights", aweights)):
        if w is None:
            continue
        if name == "fweights" and dtypes.is_floating(w._data.dtype):
            raise RuntimeError("cov(): expected fweights to have integral dtype but got fweights "
                               f"with {dtypes.scalar_type_name(w._data.dtype)} dtype")
        if w.ndim > 1:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                             f"{name} with {w.ndim} dimensions")
        if w.numel() != obs.shape[1]:
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                             f"observations in the input but got {w.numel()} != {obs.shape[1]}")
        weights = w if weights is None else weights * w
    if weights is None:
        total = obs.shape[1]
        centred = obs - mean(obs, 1, keepdim=True)
        norm_factor = total - correction
        product = centred @ centred.t()
    else:
        weights = weights.to(obs.dtype)
        total = sum_(weights)
        centred = obs - sum_(obs * weights, 1, keepdim=True) / total
        if correction == 0:
            norm_factor = total
        elif aweights is None:
            norm_factor = total - correction
        else:
            norm_factor = total - correction * sum_(weights * aweights.to(obs.dtype)) / total
        product = (centred * weights) @ centred.t()
    if isinstance(norm_factor, Tensor):
        norm_factor = norm_factor * (norm_factor > 0)      # torch clamps it at zero
    else:
        norm_factor = max(norm_factor, 0)
    result = product / norm_factor
    return reshape(result, ()) if obs.shape[0] == 1 else result


def corrcoef(input):
    """Pearson correlation coefficients of the variables in input's rows, clipped to [-1, 1]."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    spread = d.sqrt()
    return (c / spread.unsqueeze(1) / spread.unsqueeze(0)).clamp(-1, 1)


# ---- vander ---------------------------------------------------------------------------------------
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-d x: columns x**(N-1) ... x**0 (rising if increasing). Built
    from a cumulative product as torch does, so x = 0 has finite gradients."""
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if not dtypes.is_floating(x._data.dtype):
        x = x.to(dtypes.int64)
    columns = [creation.ones(x.shape[0], 1, dtype=x.dtype, device=x.device)]
    if n > 1:
        columns.append(cumprod(repeat(x.unsqueeze(1), (1, n - 1)), 1))
    result = cat(columns, 1)[:, :n]
    return result if increasing else result.flip(1)
