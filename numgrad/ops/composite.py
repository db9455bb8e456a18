"""Composite ops: torch functions and Tensor methods written as compositions of other numgrad ops
(views, flips, products, reductions, gather). They have no kernels or derivatives of their own:
gradients, create_graph and the GPU come from the ops they are made of. Comparisons (isclose,
allclose, equal) and creation (logspace, new_*) are not differentiable and record nothing.
"""
import builtins
import functools
import warnings

import numpy as np

from .. import creation, dtypes
from ..tensor import Size, Tensor, _wrap_dim
from .dim_argument import int_dim
from .elementwise import logical_xor, sub, where
from .index import gather, take as take_flat
from .layout import diagonal, roll
from .linalg import dot, mm, mv
from .named import named
from .reduce import expand, logsumexp, norm, sum as sum_
from .shape import UNSAFE_VIEW, cat, flip, permute, reshape, slice_along, transpose
from .tensor_operands import tensor_operand
from .untracked import to_host, untracked

PUBLIC = ("softmax", "log_softmax", "narrow", "movedim", "moveaxis", "swapaxes", "swapdims",
          "ravel", "unflatten", "fliplr", "flipud", "rot90", "tensor_split", "diff", "trace",
          "cross", "inner", "kron", "vdot", "addmv", "tensordot", "take", "take_along_dim",
          "hstack", "vstack", "dstack", "concat", "concatenate", "meshgrid", "broadcast_tensors",
          "broadcast_shapes", "allclose", "isclose", "equal", "is_tensor", "numel", "logspace",
          "logcumsumexp", "cdist")
METHODS = ("softmax", "log_softmax", "new_zeros", "new_ones", "new_full", "new_empty",
           "new_tensor", "nelement", "narrow", "movedim", "moveaxis", "swapaxes", "swapdims",
           "ravel", "unflatten", "fliplr", "flipud", "rot90", "tensor_split", "diff", "trace",
           "cross", "inner", "kron", "vdot", "addmv", "tensordot", "take", "take_along_dim",
           "allclose", "isclose", "equal", "logcumsumexp")
INPLACE = {}

_FALSE = Tensor._make(np.zeros((), np.bool_), False)



def _ints(dims):
    return [int(dims)] if isinstance(dims, (int, np.integer)) else [int(d) for d in dims]


# ---- softmax: the fused nn.functional ops, as torch.softmax and Tensor.softmax ------------------
def softmax(input, dim, dtype=None):
    from ..nn import functional   # nn imports the ops: importing it here at load would be a cycle
    return functional.softmax(input, dim, dtype)


def log_softmax(input, dim, dtype=None):
    from ..nn import functional
    return functional.log_softmax(input, dim, dtype)


# ---- new tensors like self: its dtype and device unless given -----------------------------------
def _like_self(self, make, args, dtype, device, requires_grad):
    return make(*args, dtype=self.dtype if dtype is None else dtype,
                device=self.device if device is None else device, requires_grad=requires_grad)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    return _like_self(self, creation.zeros, size, dtype, device, requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return _like_self(self, creation.ones, size, dtype, device, requires_grad)


def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    return _like_self(self, creation.empty, size, dtype, device, requires_grad)


def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    return _like_self(self, creation.full, (size, fill_value), dtype, device, requires_grad)


def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()"
                      ".requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        data = data.detach().cpu().numpy()    # built on the host, then moved to device
    return _like_self(self, creation.tensor, (data,), dtype, device, requires_grad)


def nelement(self):
    return self.numel()


def numel(input):
    if not isinstance(input, Tensor):
        raise TypeError(f"numel(): argument 'input' (position 1) must be Tensor, not "
                        f"{creation._type_name(input)}")
    return input.numel()


def is_tensor(obj):
    return isinstance(obj, Tensor)


# ---- views and rearrangements --------------------------------------------------------------------
def narrow(input, dim, start, length):
    """The elements start .. start + length - 1 along dim: a view."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d]
    start = int(start)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but "
                         f"got {start})")
    if start < 0:
        start += size       # (start == size is an empty piece at the end)
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return slice_along(input, dim, start, start + length)


def movedim(input, source, destination):
    """input with its dims source moved to positions destination, the others keeping their order."""
    src, dst = _ints(source), _ints(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    nd = input.ndim
    wrapped_src = [_wrap_dim(d, nd) for d in src]
    wrapped_dst = [_wrap_dim(d, nd) for d in dst]
    if len(set(wrapped_src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
    if len(set(wrapped_dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
    if nd == 0:
        return input[...]       # torch's alias (AliasBackward0)
    order = [None] * nd
    for s, d in zip(wrapped_src, wrapped_dst):
        order[d] = s
    others = iter(d for d in range(nd) if d not in wrapped_src)
    return permute(input, [d if d is not None else next(others) for d in order])


moveaxis = movedim


def swapaxes(input, axis0, axis1):
    return transpose(input, axis0, axis1)


def swapdims(input, dim0, dim1):
    return transpose(input, dim0, dim1)


def ravel(input):
    # torch's ravel is contiguous().view(-1): a ViewBackward0 node even after the copy
    return input.contiguous().view(-1)


def unflatten(input, dim, sizes):
    """input with dim split into sizes (one of them may be -1)."""
    sizes = _ints(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    d = _wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        # torch's own words (followed by its C++ stack)
        raise RuntimeError(f"unflatten got an unexpected error:\nDimension specified as {dim} but "
                           f"tensor has no dimensions")
    size = input.shape[d]
    if sizes.count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be inferred")
    known = int(np.prod([s for s in sizes if s != -1]))
    if -1 in sizes and known and size % known == 0:
        sizes[sizes.index(-1)] = size // known
    if int(np.prod(sizes)) != size:
        raise RuntimeError(f"unflatten: Provided sizes {sizes} don't multiply up to the size of "
                           f"dim {d} ({size}) in the input tensor")
    shape = tuple(input.shape)
    return reshape(input, shape[:d] + tuple(sizes) + shape[d + 1:])


def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


def rot90(input, k=1, dims=(0, 1)):
    """input rotated k quarter turns in the plane of dims, from the first towards the second."""
    dims = _ints(dims)
    nd = input.ndim
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if nd < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {nd}")
    d0, d1 = _wrap_dim(dims[0], nd), _wrap_dim(dims[1], nd)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and "
                           f"dim1 = {dims[1]}")
    turns = k % 4
    if turns == 1:
        rotated = transpose(flip(input, d1), d0, d1)
    elif turns == 2:
        rotated = flip(input, d0, d1)
    elif turns == 3:
        rotated = transpose(flip(input, d0), d0, d1)
    else:
        rotated = input.clone()
    return named(rotated, "Rot90Backward0", inputs=(input,), view_of_intermediate=True,
                 attributes={"dims": tuple(dims), "k": k})


def tensor_split(input, indices_or_sections, dim=0):
    """Views of input cut along dim: into `sections` near-equal parts (the first size % sections
    one longer), or at the given indices."""
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    cuts = indices_or_sections
    if isinstance(cuts, Tensor):
        cuts = cuts.item() if cuts.ndim == 0 else to_host(cuts._data).tolist()
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if isinstance(cuts, (int, np.integer)) and not isinstance(cuts, bool):
        if cuts <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {cuts}")
        base, longer = divmod(size, int(cuts))
        lengths = [base + 1] * longer + [base] * (int(cuts) - longer)
        bounds = np.concatenate([[0], np.cumsum(lengths)]).tolist()
    elif isinstance(cuts, (list, tuple)):
        bounds = [0] + [int(c) for c in cuts] + [size]
    else:
        raise TypeError(f"tensor_split(): argument 'indices_or_sections' must be an int, a "
                        f"sequence of ints or a tensor, not {type(cuts).__name__}")
    return tuple(slice_along(input, d, start, stop) for start, stop in zip(bounds, bounds[1:]))


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim (logical xor for bool), after joining prepend and
    append."""
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    for extra in (prepend, append):
        if extra is not None and extra.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    d = _wrap_dim(dim, input.ndim)
    parts = [t for t in (prepend, input, append) if t is not None]
    out = cat(parts, d) if len(parts) > 1 else input
    difference = logical_xor if out.dtype == dtypes.bool_ else sub
    for _ in range(n):
        length = out.shape[d]
        out = difference(slice_along(out, d, 1, length), slice_along(out, d, 0, length - 1))
    return out


# ---- products ------------------------------------------------------------------------------------
def trace(input):
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return named(sum_(diagonal(input)), "TraceBackward0", inputs=(input,))


@tensor_operand()
def cross(input, other, dim=None):
    """The cross product of 3-vectors along dim (by default, as torch.cross: the first dim of size
    3, with torch's deprecation warning)."""
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {dtypes.scalar_type_name(input.dtype)} but found "
                           f"{dtypes.scalar_type_name(other.dtype)}")
    if dim is None:
        shape = broadcast_tensors(input, other)[0].shape
        if 3 not in shape:
            raise RuntimeError("no dimension of size 3 in input")
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease "
                      "either pass the dim explicitly or simply use torch.linalg.cross.\nThe "
                      "default value of dim will change to agree with that of linalg.cross in a "
                      "future release.", UserWarning, stacklevel=2)
        dim = shape.index(3)
    d = _wrap_dim(dim, input.ndim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    a, b = broadcast_tensors(input, other)
    # component i is a[i+1] b[i+2] - a[i+2] b[i+1]; rolling by -1 brings element i+1 to i
    return named((roll(a, -1, d) * roll(b, -2, d)) - (roll(a, -2, d) * roll(b, -1, d)),
                 "LinalgCrossBackward0", inputs=(input, other))


def tensordot(a, b, dims=2):
    """Sum of products over a's dims dims[0] and b's dims dims[1] (an int n: a's last n dims and
    b's first n); the result has a's remaining dims, then b's."""
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if isinstance(dims, (int, np.integer)):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > builtins.min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    else:
        if isinstance(dims, Tensor):
            dims = to_host(dims._data).tolist()
        dims_a, dims_b = _ints(dims[0]), _ints(dims[1])
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    for da, db in zip(dims_a, dims_b):
        size_a, size_b = a.shape[_wrap_dim(da, a.ndim)], b.shape[_wrap_dim(db, b.ndim)]
        if size_a != size_b:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {size_a} "
                               f"in dim {da} and second has size {size_b} in dim {db}")
    summed_a = [_wrap_dim(d, a.ndim) for d in dims_a]
    summed_b = [_wrap_dim(d, b.ndim) for d in dims_b]
    free_a = [d for d in range(a.ndim) if d not in summed_a]
    free_b = [d for d in range(b.ndim) if d not in summed_b]
    free_shape_a = tuple(a.shape[d] for d in free_a)
    free_shape_b = tuple(b.shape[d] for d in free_b)
    inner_size = int(np.prod([a.shape[d] for d in summed_a]))
    if not free_a and not free_b:
        # everything contracted: torch's dot of the flattened operands (a 1-d one as it is)
        flat = [t if t.ndim == 1 else reshape(t, inner_size)
                for t in (permute(a, summed_a), permute(b, summed_b))]
        return reshape(dot(*flat), ())
    # explicit sizes, not -1: reshape cannot infer a dim beside a zero-sized one
    rows = reshape(permute(a, free_a + summed_a), int(np.prod(free_shape_a)), inner_size)
    cols = reshape(permute(b, summed_b + free_b), inner_size, int(np.prod(free_shape_b)))
    out_shape = free_shape_a + free_shape_b
    return reshape(mm(rows, cols), out_shape)


def inner(input, other):
    """Sum of products over the last dims; a 0-d operand multiplies."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got "
                           f"shapes {list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


@tensor_operand()
def kron(input, other):
    """The Kronecker product: block (i, j, ...) is input[i, j, ...] * other."""
    nd = builtins.max(input.ndim, other.ndim)
    shape_a = (1,) * (nd - input.ndim) + tuple(input.shape)
    shape_b = (1,) * (nd - other.ndim) + tuple(other.shape)
    # input's dims interleaved with other's, so that the product's reshape puts blocks together
    # (torch reshapes with _unsafe_view: UnsafeViewBackward0 nodes)
    spread_a = reshape(input, [s for n in shape_a for s in (n, 1)], op=UNSAFE_VIEW,
                       self_sym_sizes=input._data.shape)
    spread_b = reshape(other, [s for n in shape_b for s in (1, n)], op=UNSAFE_VIEW,
                       self_sym_sizes=other._data.shape)
    product = spread_a * spread_b
    return reshape(product, tuple(m * n for m, n in zip(shape_a, shape_b)), op=UNSAFE_VIEW,
                   self_sym_sizes=product._data.shape)


def vdot(input, other):
    """dot of the conjugate of input with other: numgrad's tensors are real, so dot."""
    return named(dot(input, other), "VdotBackward0", input, other,
                 saved_names=("self", "other"))


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta * input + alpha * (mat @ vec); beta=0 ignores input (nan and inf included)."""
    if mat.ndim != 2 or vec.ndim != 1 or mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.ndim else 1}), "
                           f"mat ({'x'.join(str(s) for s in mat.shape)}), vec "
                           f"({vec.shape[0] if vec.ndim else 1})")
    product = mv(mat, vec)
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        # input's values are ignored (nan and inf too) but, as in torch, it gets a zero gradient
        result = product + where(_FALSE, input, 0.0)
    else:
        result = product + (input if beta == 1 else input * beta)
    return named(result, "AddmvBackward0", mat, vec, inputs=(input, mat, vec),
                 saved_names=("mat", "vec"))


# ---- picking elements ----------------------------------------------------------------------------
def take(input, index):
    """input's elements at flat (row-major) positions index, negative ones counting from the end."""
    if index.dtype != dtypes.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{dtypes.scalar_type_name(index.dtype)}")
    positions = to_host(index._data)
    count = input.numel()
    bad = (positions < -count) | (positions >= count)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(positions[bad].flat[0])} on a "
                         f"tensor of {count} elements.")
    return named(take_flat(input, positions % builtins.max(count, 1)), "TakeBackward0", input,
                 index, saved_names=("self", "index"))


def take_along_dim(input, indices, dim=None):
    """gather along dim after broadcasting input and indices in the other dims; dim None: take of
    the flattened input."""
    if indices.dtype != dtypes.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{dtypes.scalar_type_name(indices.dtype)}")
    if dim is None:
        return gather(reshape(input, -1), 0, reshape(indices, -1))
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number "
                           f"of dimensions, but got {input.ndim} dimensions for input, and "
                           f"{indices.ndim} dimensions for indices")
    d = _wrap_dim(dim, input.ndim)
    sizes = list(input.shape)
    sizes[d] = indices.shape[d]
    shape = list(broadcast_shapes(sizes, indices.shape))
    index_array = np.broadcast_to(to_host(indices._data), shape)
    # torch's take_along_dim reads each index modulo the size along dim (gather takes none out of
    # range): -1 is the last, and so is -4 or 5 for a size of 3
    index_array = index_array % builtins.max(input.shape[d], 1)
    shape[d] = input.shape[d]
    return gather(expand(input, shape), d, index_array)


# ---- joining -------------------------------------------------------------------------------------
def _nonempty(tensors, name):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return tensors


def _at_least(t, ndim):
    """t with size-1 dims added as torch.atleast_1d/2d/3d add them."""
    if t.ndim >= ndim:
        return t
    if t.ndim == 0:
        return reshape(t, (1,) * ndim)
    if t.ndim == 1:
        t = t.unsqueeze(0)
    # torch's atleast_3d puts a 1-d tensor's values in the middle: (1, n, 1)
    return t.unsqueeze(-1) if ndim == 3 else t


def hstack(tensors):
    tensors = [_at_least(t, 1) for t in _nonempty(tensors, "hstack")]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors):
    return cat([_at_least(t, 2) for t in _nonempty(tensors, "vstack")], 0)


def dstack(tensors):
    return cat([_at_least(t, 3) for t in _nonempty(tensors, "dstack")], 2)


def concat(tensors, dim=0):
    return cat(tensors, dim)


def concatenate(tensors, axis=0):
    return cat(tensors, axis)


# ---- broadcasting --------------------------------------------------------------------------------
def broadcast_shapes(*shapes):
    """The shape all the given shapes broadcast to (an int is a 1-d shape)."""
    result = []
    for i, shape in enumerate(shapes):
        shape = _ints(shape)
        if any(s < 0 for s in shape):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
        result = [1] * (len(shape) - len(result)) + result
        for k in range(1, len(shape) + 1):
            size, have = shape[-k], result[-k]
            if size != 1 and have != 1 and size != have:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at {-k}! "
                                   f"Mismatching argument at index {i} had {tuple(shape)}; but "
                                   f"expected shape should be broadcastable to {result}")
            if have == 1:
                result[-k] = size
    return Size(result)


def broadcast_tensors(*tensors):
    """The tensors expanded to their common shape (views)."""
    shape = ()
    for t in tensors:
        nd = builtins.max(len(shape), t.ndim)
        a = (1,) * (nd - len(shape)) + tuple(shape)
        b = (1,) * (nd - t.ndim) + tuple(t.shape)
        for k in range(nd - 1, -1, -1):          # torch names the clash nearest the last dim
            if a[k] != b[k] and a[k] != 1 and b[k] != 1:
                raise RuntimeError(f"The size of tensor a ({a[k]}) must match the size of tensor b "
                                   f"({b[k]}) at non-singleton dimension {k}")
        shape = tuple(builtins.max(m, n) if m and n else 0 for m, n in zip(a, b))
    # a tensor that has the shape already is returned itself, as torch does
    return tuple(t if tuple(t.shape) == shape else expand(t, shape) for t in tensors)


def meshgrid(*tensors, indexing=None):
    """Grids from 1-d tensors: output k varies along dim k ('ij'), or with the first two dims
    swapped ('xy', Cartesian)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f'{indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        order[0], order[1] = 1, 0
    shape = [0] * len(tensors)
    for position, k in enumerate(order):
        shape[position] = tensors[k].numel()
    grids = []
    for position, k in enumerate(order):
        along = [1] * len(tensors)
        along[position] = shape[position]
        grids.append((k, expand(reshape(tensors[k], along), shape)))
    return tuple(grid for _, grid in sorted(grids, key=lambda pair: pair[0]))


# ---- comparisons: no gradient --------------------------------------------------------------------
def _isclose(a, b, rtol, atol, equal_nan):
    if a.dtype == np.bool_:
        return a == b
    return np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


@tensor_operand()
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise (a bool tensor)."""
    if input.dtype != other.dtype:
        raise RuntimeError(f"{dtypes.scalar_type_name(input.dtype)} did not match "
                           f"{dtypes.scalar_type_name(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    try:
        return untracked(_isclose, input._data, other._data, rtol, atol, equal_nan)
    except ValueError:
        from .linalg import infer_size_error
        infer_size_error(input.shape, other.shape)


@tensor_operand()
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return builtins.bool(isclose(input, other, rtol, atol, equal_nan).all())


@tensor_operand()
def equal(input, other):
    """Whether both have the same shape and the same values (nan equals nothing)."""
    if input.shape != other.shape:
        return False
    return builtins.bool(untracked(np.array_equal, input._data, other._data))


# ---- creation ------------------------------------------------------------------------------------
def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False):
    """base ** (steps points evenly spaced from start to end)."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    values = np.power(float(base), np.linspace(float(start), float(end), int(steps)))
    dtype = dtypes.get_default_dtype() if dtype is None else dtype
    return creation.tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)


# ---- reductions built on others -----------------------------------------------------------------
@int_dim()
def logcumsumexp(input, dim):
    """log(cumsum(exp(input))) along dim, without overflow: output i is logsumexp of elements
    0..i, accumulated as torch's (log_add_exp step by step). Its derivative is torch's
    logcumsumexp_backward, written in numgrad ops (so differentiable again): the positive and
    negative parts of the gradient each go through a reversed logcumsumexp, and a gradient that
    is neither (NaN) contributes nothing, as in torch."""
    if not dtypes.is_floating(input.dtype):
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for '
                                  f"'{dtypes.scalar_type_name(input.dtype)}'")
    if input.ndim == 0:
        _wrap_dim(dim, 0)
        return input.clone()
    d = _wrap_dim(dim, input.ndim)
    return named(_logcumsumexp_function().apply(input, d), "LogcumsumexpBackward0",
                 inputs=(input,), attributes={"dim": dim})


@functools.cache
def _logcumsumexp_function():
    """The Function computing logcumsumexp (made on first use: autograd imports the ops)."""
    from ..autograd import Function

    class Logcumsumexp(Function):
        @staticmethod
        def forward(ctx, input, d):
            out = untracked(lambda x: np.logaddexp.accumulate(x, axis=d), input._data)
            ctx.save_for_backward(input, out)
            ctx.d = d
            return out

        @staticmethod
        def backward(ctx, grad):
            input, out = ctx.saved_tensors
            if grad.numel() == 0:
                return grad, None
            lowest = float(np.finfo(grad._data.dtype).min)
            log_abs = grad.abs().log()

            def part(log_grad):
                reversed_ = flip(logcumsumexp(flip(log_grad - out, (ctx.d,)), ctx.d), (ctx.d,))
                return (reversed_ + input).exp()
            return (part(where(grad > 0, log_abs, lowest))
                    - part(where(grad < 0, log_abs, lowest))), None
    return Logcumsumexp


@tensor_operand("x2")
def cdist(x1, x2, p=2.0, compute_mode=None):
    """The p-norm distance between each row of x1 (..., P, M) and each of x2 (..., R, M):
    (..., P, R), batch dims broadcast. The gradient at zero distance is zero, as in torch."""
    for name, t in (("X1", x1), ("X2", x2)):
        if t.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {t.ndim}D")
        if not dtypes.is_floating(t.dtype):
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{dtypes.scalar_type_name(t.dtype)}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} "
                           f"X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {dtypes.scalar_type_name(x1.dtype)} but found "
                           f"{dtypes.scalar_type_name(x2.dtype)}")
    return named(norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, dim=-1), "CdistBackward0", x1, x2,
                 saved_names=("x1", "x2"))
