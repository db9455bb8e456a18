"""DeviceArray: what a CUDA tensor's `_data` holds. A numba.cuda device array that also answers the
few ndarray manners shared code uses (`flags.c_contiguous`, `itemsize`, `copy`, `astype`, `item`,
`tolist`, `+=`, `np.copyto`, `np.zeros_like` and kin), and refuses the rest loudly: NumPy functions
and ufuncs raise TypeError on it instead of computing on the host, so a CPU-only code path fails
where it stands. Only an explicit `np.asarray` copies to the host, as numba's own arrays do (index
and target arrays go through NumPy that way).

Under the simulator numba's device arrays are NumPy arrays that answer any NumPy attribute; the
simulator twin here answers only what a real device array does, so simulator tests fail where a GPU
would.
"""
import numpy as np
from numba import config, cuda

SIM = bool(config.ENABLE_CUDASIM)
class _Flags:
    __slots__ = ("c_contiguous", "f_contiguous")
    writeable = True

    def __init__(self, c, f):
        self.c_contiguous = c
        self.f_contiguous = f

    def __getitem__(self, key):
        return {"C_CONTIGUOUS": self.c_contiguous, "F_CONTIGUOUS": self.f_contiguous,
                "WRITEABLE": True}[key]


class _Manners:
    __array_ufunc__ = None          # ndarray (op) DeviceArray and np.ufunc(DeviceArray) raise

    def __array__(self, dtype=None, copy=None):
        host = self.copy_to_host()
        return host if dtype is None else host.astype(dtype)

    def __array_function__(self, func, types, args, kwargs):
        impl = _FUNCTIONS.get(func)
        return NotImplemented if impl is None else impl(*args, **kwargs)

    @property
    def flags(self):
        return _Flags(self.is_c_contiguous(), self.is_f_contiguous())

    @property
    def itemsize(self):
        return self.dtype.itemsize

    def copy(self):
        return astype(self, self.dtype)

    def __deepcopy__(self, memo):
        # copy.deepcopy of a module or an optimizer's state: new device memory, not the handle's
        return self.copy()

    def astype(self, dtype, copy=True):
        if not copy and np.dtype(dtype) == self.dtype:
            return self
        return astype(self, dtype)

    def item(self):
        return self.copy_to_host().item()

    def tolist(self):
        return self.copy_to_host().tolist()

    def __iadd__(self, other):
        from .basic import add_into
        add_into(self, other)
        return self


if SIM:
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

    # What a real DeviceNDArray has beyond the methods defined below.
    _REAL_ATTRIBUTES = frozenset(("strides", "dtype", "size", "ndim", "alloc_size", "nbytes",
                                  "split", "squeeze", "view", "copy_to_host", "copy_to_device",
                                  "is_c_contiguous", "is_f_contiguous", "bind", "stream"))

    class DeviceArray(_Manners, FakeCUDAArray):
        @property
        def shape(self):
            return self._ary.shape         # a real one's is a plain tuple outside kernels too

        def __getattr__(self, name):
            if name in _REAL_ATTRIBUTES:
                return getattr(self._ary, name)
            raise AttributeError(f"a device array has no attribute {name!r} (the simulator's "
                                 "would have answered with NumPy's)")

        def __getitem__(self, index):
            out = self._ary[index]
            return DeviceArray(out) if isinstance(out, np.ndarray) else out

        def reshape(self, *shape, order="C"):
            return DeviceArray(self._ary.reshape(*shape, order=order))

        def ravel(self, order="C"):
            return DeviceArray(self._ary.ravel(order=order))

        def transpose(self, axes=None):
            return DeviceArray(self._ary.transpose(axes))

    def empty(shape, dtype):
        return DeviceArray(np.empty(shape, dtype))

    def zeros(shape, dtype):
        return DeviceArray(np.zeros(shape, dtype))

    def to_device(host):
        return DeviceArray(np.array(host, order="C"))

    def wrap(array):
        """Any device array (a kernel's argument, a slice) as a DeviceArray sharing its memory."""
        return array if isinstance(array, DeviceArray) else DeviceArray(array._ary)

    def address_of(array):
        return array._ary.ctypes.data
else:
    from numba.cuda.api_util import prepare_shape_strides_dtype
    from numba.cuda.cudadrv.devicearray import DeviceNDArray
    from numba.cuda.cudadrv.driver import device_memset

    class DeviceArray(_Manners, DeviceNDArray):
        pass

    def empty(shape, dtype):
        shape, strides, dtype = prepare_shape_strides_dtype(shape, None, dtype, "C")
        return DeviceArray(shape=shape, strides=strides, dtype=dtype)

    def zeros(shape, dtype):
        out = empty(shape, dtype)
        if out.alloc_size:
            device_memset(out, 0, out.alloc_size)
        return out

    def to_device(host):
        host = np.asarray(host, order="C")      # (np.ascontiguousarray would make a 0-d array 1-d)
        out = empty(host.shape, host.dtype)
        if host.size:
            out.copy_to_device(host)
        return out

    def wrap(array):
        if isinstance(array, DeviceArray):
            return array
        return DeviceArray(shape=array.shape, strides=array.strides, dtype=array.dtype,
                           gpu_data=array.gpu_data)

    def address_of(array):
        return array.__cuda_array_interface__["data"][0] if array.size else 0


def is_device_array(value):
    if SIM:
        return isinstance(value, FakeCUDAArray)
    return cuda.is_cuda_array(value)


def contiguous(array):
    """array itself when C-contiguous, else a contiguous copy (kernels read flat memory)."""
    return array if array.is_c_contiguous() else astype(array, array.dtype)


def astype(array, dtype):
    """A new contiguous DeviceArray with array's values converted to dtype."""
    from .basic import copy_into
    out = empty(array.shape, np.dtype(dtype))
    copy_into(out, array)
    return out


def _copyto(dst, src, casting="same_kind", where=True):
    from .basic import copy_into
    if where is not True:
        raise TypeError("np.copyto with `where` is not supported on device arrays")
    if isinstance(dst, np.ndarray):           # into host memory: an explicit download
        np.copyto(dst, src.copy_to_host(), casting=casting)
        return
    if isinstance(src, np.ndarray) or not is_device_array(src):
        src = to_device(np.asarray(src, dst.dtype))
    copy_into(dst, src)


def _zeros_like(a, dtype=None, **_):
    return zeros(a.shape, dtype or a.dtype)


def _full_like(a, fill_value, dtype=None, **_):
    from .basic import fill
    out = empty(a.shape, dtype or a.dtype)
    fill(out, fill_value)
    return out


def _ones_like(a, dtype=None, **_):
    return _full_like(a, 1, dtype)


def _empty_like(a, dtype=None, **_):
    return empty(a.shape, dtype or a.dtype)


_FUNCTIONS = {np.copyto: _copyto, np.zeros_like: _zeros_like, np.ones_like: _ones_like,
              np.full_like: _full_like, np.empty_like: _empty_like}
