"""What a tensor is and where it lives, as torch's Tensor answers: ndimension, nbytes, itemsize,
is_cpu, is_signed, is_complex, data_ptr, storage_offset, get_device, type, typename, is_shared,
is_pinned; the legacy constructors new / new_empty_strided and resize_; the real-tensor answers
of the complex API (conj, resolve_conj, isreal, angle, ...); and apply_ / map_ / map2_, which run
a Python function per element (CPU only, no gradient, as torch's)."""
import builtins

import numpy as np

from .. import creation, dtypes
from ..tensor import Size, Tensor
from .inplace import _check_can_write
from .untracked import untracked

_TYPE_NAMES = dtypes.LEGACY_TYPE_NAMES
_TYPES_BY_NAME = {name: dtype for dtype, name in _TYPE_NAMES.items()}


def ndimension(self):
    return self.ndim


nbytes = property(lambda self: self._data.nbytes)
itemsize = property(lambda self: self._data.itemsize)
is_cpu = property(lambda self: builtins.type(self._data) is np.ndarray)


def is_signed(self):
    """Whether the dtype holds negative numbers (bool does not)."""
    return self._data.dtype != dtypes.bool_


def is_complex(self):
    return False


def _address(data):
    if builtins.type(data) is np.ndarray:
        return data.ctypes.data
    from ..cuda.array import address_of
    return address_of(data)


def data_ptr(self):
    """The address of the first element."""
    return _address(self._data)


const_data_ptr = data_ptr


def dim_order(self):
    """The dims from outermost to innermost in memory (by decreasing stride)."""
    strides = self._data.strides
    return tuple(sorted(range(self._data.ndim), key=lambda d: -strides[d]))


def is_set_to(self, tensor):
    """Whether both are the same memory with the same shape and strides."""
    return (data_ptr(self) == data_ptr(tensor) and self._data.shape == tensor._data.shape
            and self._data.strides == tensor._data.strides)


def storage_offset(self):
    """Where the first element sits in the memory of the tensor this one views, in elements (0
    for a tensor that is no view), from the view's record (on the GPU a view is a copy); for a
    tensor an in-place view op restrided (as_strided_), in the memory it had before."""
    from .views import storage_of
    base, offset = storage_of(self)
    before = self._extra.get("restrided_from") if base is self and self._extra else None
    if isinstance(before, np.ndarray):
        start = self._data.__array_interface__["data"][0]
        offset = (start - before.__array_interface__["data"][0]) // before.itemsize
    return int(offset)


def get_device(self):
    """-1 on the CPU, else the GPU's index."""
    return -1 if self.device.type == "cpu" else (self.device.index or 0)


def typename(obj):
    """torch.typename: 'numgrad.FloatTensor' for tensors, the qualified class name otherwise."""
    if isinstance(obj, Tensor):
        return f"numgrad.{_TYPE_NAMES[obj._data.dtype]}"
    module = builtins.type(obj).__module__
    name = builtins.type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


# (Tensor.type's name hides the builtin in this module: the code above and below says builtins.type)
def type(self, dtype=None, non_blocking=False):
    """The type name ('numgrad.FloatTensor') without dtype; with one (a dtype or a type name,
    torch's or numgrad's spelling), this tensor cast to it."""
    if dtype is None:
        return typename(self)
    if isinstance(dtype, str):
        prefix, _, name = dtype.rpartition(".")
        if prefix not in ("torch", "numgrad") or name not in _TYPES_BY_NAME:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = _TYPES_BY_NAME[name]
    return self.to(dtype)


def new(self, *args):
    """torch's legacy constructor in this tensor's dtype: new() is empty, new(2, 3) or
    new(Size) uninitialised of that shape, new(data) a tensor of the data."""
    if len(args) == 1 and not isinstance(args[0], (int, np.integer, Size)):
        data = args[0]._data if isinstance(args[0], Tensor) else args[0]    # torch: no warning
        return creation.tensor(data, dtype=self.dtype, device=self.device)
    shape = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args or (0,)
    return creation.empty(*shape, dtype=self.dtype, device=self.device)


def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor of size (numgrad's tensors are laid out contiguously: stride is
    not kept)."""
    return creation.empty(*size, dtype=dtype or self.dtype, device=device or self.device,
                          requires_grad=requires_grad)


def _identity(self):
    return self


def _false(self):
    return False


# real tensors: conjugation is the identity, and no tensor carries a lazy conjugate or negation
# (and every tensor is dense)
conj = conj_physical = resolve_conj = resolve_neg = to_dense = _identity
is_conj = is_neg = _false
real = property(_identity)


def isreal(input):
    """True everywhere: every numgrad tensor is real."""
    return untracked(lambda a: np.ones(a.shape, np.bool_), input._data)


def angle(input):
    """The argument of each element as a complex number: pi for negative values, else 0 (NaN
    stays NaN); its gradient is zero, as torch's (one node, elementwise_more's)."""
    from .elementwise_more import angle as real_angle
    return real_angle(input)


# shared memory and pinning are for multiprocessing and GPU copies: numgrad tensors use neither
is_shared = is_pinned = _false
share_memory_ = _identity


def pin_memory(self, device=None):
    raise RuntimeError("Cannot access accelerator device when none is available.")


def resize_(self, *sizes):
    """This tensor's data made sizes, keeping the leading values in order (new ones are
    uninitialised), as torch's resize_; refused for a tensor that requires grad."""
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    _check_can_write(self)
    shape = tuple(sizes[0]) if len(sizes) == 1 and not isinstance(sizes[0], int) else sizes
    old = self._data.reshape(-1)
    resized = np.empty(shape, self._data.dtype)
    kept = min(old.size, resized.size)
    resized.reshape(-1)[:kept] = old[:kept]
    self._data = resized
    self._bump_version()
    return self


def resize_as_(self, other):
    return resize_(self, tuple(other.shape))


def _check_elementwise_write(self, name):
    if builtins.type(self._data) is not np.ndarray:
        raise TypeError(f"{name}() is only implemented on CPU tensors")
    if self._requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use "
                           f"var.detach().{name}() instead.")
    _check_can_write(self)


def apply_(self, callable):
    """Replace each element x by callable(x), in place (slow: a Python call per element)."""
    _check_elementwise_write(self, "apply_")
    flat = self._data.reshape(-1)
    for k, value in enumerate(flat.tolist()):
        flat[k] = callable(value)
    if not self._data.flags.c_contiguous:
        self._data[...] = flat.reshape(self._data.shape)
    self._bump_version()
    return self


def map2_(self, x, y, callable):
    """Replace each element a by callable(a, b, c), b and c the elements of x and y broadcast to
    self."""
    _check_elementwise_write(self, "map2_")
    firsts = np.broadcast_to(x._data, self._data.shape).reshape(-1).tolist()
    seconds = np.broadcast_to(y._data, self._data.shape).reshape(-1).tolist()
    flat = self._data.reshape(-1)
    for k, (value, b, c) in enumerate(zip(flat.tolist(), firsts, seconds)):
        flat[k] = callable(value, b, c)
    if not self._data.flags.c_contiguous:
        self._data[...] = flat.reshape(self._data.shape)
    self._bump_version()
    return self


def map_(self, tensor, callable):
    """Replace each element x by callable(x, y), y the element of tensor broadcast to self."""
    _check_elementwise_write(self, "map_")
    others = np.broadcast_to(tensor._data, self._data.shape).reshape(-1).tolist()
    flat = self._data.reshape(-1)
    for k, (value, other) in enumerate(zip(flat.tolist(), others)):
        flat[k] = callable(value, other)
    if not self._data.flags.c_contiguous:
        self._data[...] = flat.reshape(self._data.shape)
    self._bump_version()
    return self


PUBLIC = ("typename", "conj", "conj_physical", "resolve_conj", "resolve_neg", "is_conj",
          "is_neg", "isreal", "angle")
METHODS = ("ndimension", "nbytes", "itemsize", "is_cpu", "is_signed", "is_complex", "data_ptr",
           "storage_offset", "get_device", "type", "new", "new_empty_strided", "conj",
           "conj_physical", "resolve_conj", "resolve_neg", "is_conj", "is_neg", "real", "isreal",
           "angle", "is_shared", "is_pinned", "share_memory_", "pin_memory", "resize_",
           "const_data_ptr", "dim_order", "is_set_to", "to_dense",
           "resize_as_", "apply_", "map_", "map2_")
INPLACE = {}
