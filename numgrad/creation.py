"""Creating tensors: tensor, as_tensor, from_numpy, zeros/ones/full/empty/eye/arange/linspace,
the *_like forms and seeded random tensors."""
import numpy as np

from . import dtypes, grad_mode
from .device import device as _device
from .tensor import Size, Tensor

_rng = [np.random.default_rng()]


def manual_seed(seed):
    """Seed the generator behind rand/randn/randint/randperm, dropout and nn.init."""
    _rng[0] = np.random.default_rng(seed)


def generator():
    return _rng[0]


def _infer_dtype(data):
    """torch's rules: Python floats give the default float type, ints int64, bools bool."""
    flat = data
    while isinstance(flat, (list, tuple)) and len(flat):
        flat = flat[0]
    array = np.asarray(data)
    if array.dtype.kind == "f" and not isinstance(data, np.ndarray) and not isinstance(flat, np.generic):
        return dtypes.get_default_dtype()
    return dtypes.canonical(array.dtype)


def _as_array(data, dtype=None):
    if isinstance(data, Tensor):
        data = data._data
    if isinstance(data, (list, tuple)) and any(isinstance(v, Tensor) for v in data):
        data = [v._data if isinstance(v, Tensor) else v for v in data]
    dt = np.dtype(dtype) if dtype is not None else _infer_dtype(data)
    return np.array(data, dtype=dt)


def _check_device(device):
    if device is not None and _device(device).type != "cpu":
        from .cuda import require_cuda
        require_cuda()


def _finish(array, requires_grad, device=None):
    t = Tensor._make(array, False, inference=grad_mode.state.inference)
    if requires_grad:
        t.requires_grad_(True, _refusal="Only Tensors of floating point and complex dtype can "
                                        "require gradients")
    if device is not None and _device(device).type != "cpu":
        return t.to(device)
    return t


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new leaf tensor holding a copy of data.

    >>> numgrad.tensor([1., 2.], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    return _finish(_as_array(data, dtype), requires_grad, device)


def as_tensor(data, dtype=None, device=None):
    """data as a tensor, sharing memory with a NumPy array or tensor when the dtype allows."""
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or np.dtype(dtype) == data.dtype) \
            and data.dtype in dtypes.SUPPORTED:
        return _finish(data, False, device)
    return _finish(_as_array(data, dtype), False, device)


def from_numpy(array):
    """A tensor sharing memory with a NumPy array: changes to one show in the other."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    if array.dtype not in dtypes.SUPPORTED:
        raise TypeError(f"can't convert np.ndarray of type {array.dtype}. The only supported types "
                        "are: float64, float32, int64, int32, and bool.")
    return Tensor._make(array, False)


def _shape(size, name):
    """A creation function's size (ints, or one tuple or list of them), checked as torch checks
    it: NumPy would take floats and bools, and say less of a negative dimension."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    dims = []
    for s in size:
        if isinstance(s, Tensor) and s.ndim == 0 and not dtypes.is_floating(s.dtype) \
                and s.dtype != dtypes.bool:
            s = s.item()
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, not "
                            f"{type(s).__name__}")
        dims.append(int(s))
    if any(d < 0 for d in dims):
        negative = next(d for d in dims if d < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {dims}")
    return tuple(dims)


def _float_dtype(dtype):
    return np.dtype(dtype) if dtype is not None else dtypes.get_default_dtype()


def zeros(*size, dtype=None, device=None, requires_grad=False):
    return _finish(np.zeros(_shape(size, "zeros"), _float_dtype(dtype)), requires_grad, device)


def ones(*size, dtype=None, device=None, requires_grad=False):
    return _finish(np.ones(_shape(size, "ones"), _float_dtype(dtype)), requires_grad, device)


def empty(*size, dtype=None, device=None, requires_grad=False):
    return _finish(np.empty(_shape(size, "empty"), _float_dtype(dtype)), requires_grad, device)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    if dtype is None:
        dtype = _infer_dtype(fill_value)
    return _finish(np.full(_shape((size,), "full"), fill_value, np.dtype(dtype)), requires_grad, device)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    for given in (n, m):
        if given is not None and given < 0:
            raise RuntimeError(f"n must be greater or equal to 0, got {given}")
    return _finish(np.eye(n, m, dtype=_float_dtype(dtype)), requires_grad, device)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    if dtype is None:
        is_float = any(isinstance(v, float) for v in (start, end, step))
        dtype = dtypes.get_default_dtype() if is_float else dtypes.int64
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    return _finish(np.arange(start, end, step, dtype=np.dtype(dtype)), requires_grad, device)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return _finish(np.linspace(start, end, steps, dtype=_float_dtype(dtype)), requires_grad, device)


def _like(fn):
    def like(input, dtype=None, device=None, requires_grad=False):
        return fn(*input.shape, dtype=dtype or input.dtype, device=device or input.device,
                  requires_grad=requires_grad)
    like.__name__ = fn.__name__ + "_like"
    like.__doc__ = f"{fn.__name__} with the shape (and by default the dtype) of input."
    return like


zeros_like = _like(zeros)
ones_like = _like(ones)
empty_like = _like(empty)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False):
    return full(input.shape, fill_value, dtype=dtype or input.dtype, device=device or input.device,
                requires_grad=requires_grad)


def rand(*size, dtype=None, device=None, requires_grad=False):
    dt = _float_dtype(dtype)
    return _finish(_rng[0].random(_shape(size, "rand")).astype(dt), requires_grad, device)


def randn(*size, dtype=None, device=None, requires_grad=False):
    dt = _float_dtype(dtype)
    return _finish(_rng[0].standard_normal(_shape(size, "randn")).astype(dt), requires_grad, device)


def randint(low, high=None, size=(), dtype=None, device=None):
    if high is None:
        low, high = 0, low
    return _finish(_rng[0].integers(low, high, _shape((size,), "randint")).astype(dtype or np.int64), False, device)


def randperm(n, dtype=None, device=None):
    return _finish(_rng[0].permutation(n).astype(dtype or np.int64), False, device)


def rand_like(input, dtype=None, device=None, requires_grad=False):
    return rand(*input.shape, dtype=dtype or input.dtype, device=device or input.device,
                requires_grad=requires_grad)


def randn_like(input, dtype=None, device=None, requires_grad=False):
    return randn(*input.shape, dtype=dtype or input.dtype, device=device or input.device,
                 requires_grad=requires_grad)
