"""Creating tensors: tensor, as_tensor, from_numpy, zeros/ones/full/empty/eye/arange/linspace,
the *_like forms and seeded random tensors."""
import math

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


def _ragged_error(data):
    """torch's error for nested sequences that are not a grid, or None: the shape is read down
    the first elements, and the first sequence whose length differs from it is named."""
    shape = []
    first = data
    while isinstance(first, (list, tuple)):
        shape.append(len(first))
        if not first:
            break
        first = first[0]

    def check(value, dim):
        if dim == len(shape):
            return None
        if not isinstance(value, (list, tuple)):
            return TypeError("not a sequence")
        if len(value) != shape[dim]:
            return ValueError(f"expected sequence of length {shape[dim]} at dim {dim} "
                              f"(got {len(value)})")
        return next((e for e in (check(v, dim + 1) for v in value) if e is not None), None)
    return check(data, 0)


def _as_array(data, dtype=None):
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, Tensor):
        data = data._data
    if isinstance(data, (list, tuple)) and any(isinstance(v, Tensor) for v in data):
        data = [v._data if isinstance(v, Tensor) else v for v in data]
    try:
        dt = np.dtype(dtype) if dtype is not None else _infer_dtype(data)
        return np.array(data, dtype=dt)
    except ValueError:
        error = _ragged_error(data)
        if error is None:
            raise
        raise error from None
    except OverflowError:
        # NumPy's words differ with the value (an int, a float, an infinity); torch has one
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow") \
            from None


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
        if name == "zeros":     # torch's zeros checks sizes itself, in words of its own
            raise RuntimeError("zeros: Dimension size must be non-negative.")
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


def _fill_dtype(value):
    """The dtype torch's full infers from a fill value: a Python bool gives bool, an integer
    int64 and anything else (a NumPy bool or float of any width too) the default float type."""
    if isinstance(value, Tensor):
        return value._data.dtype
    if isinstance(value, bool):
        return dtypes.bool_
    if isinstance(value, (int, np.integer)):
        return dtypes.int64
    return dtypes.get_default_dtype()


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    if not isinstance(size, (tuple, list, Size)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    if isinstance(fill_value, (list, tuple, np.ndarray)):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not "
                        f"{type(fill_value).__name__}")
    if dtype is None:
        dtype = _fill_dtype(fill_value)
    dtype = np.dtype(dtype)
    try:
        values = np.full(_shape((size,), "full"), fill_value, dtype)
    except OverflowError:
        if dtype not in dtypes.C_INT_NAMES:
            raise
        # an integer that does not fit, in torch's words
        raise RuntimeError(f"value cannot be converted to type {dtypes.C_INT_NAMES[dtype]} "
                           "without overflow") from None
    return _finish(values, requires_grad, device)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    for position, (label, given) in enumerate((("n", n), ("m", m)), 1):
        if given is None:
            continue
        if isinstance(given, bool) or not isinstance(given, (int, np.integer)):
            raise TypeError(f"eye(): argument '{label}' (position {position}) must be int, not "
                            f"{type(given).__name__}")
        if given < 0:
            raise RuntimeError(f"n must be greater or equal to 0, got {given}")
    return _finish(np.eye(n, m, dtype=_float_dtype(dtype)), requires_grad, device)


def _is_float_arg(value):
    return isinstance(value, (float, np.floating)) or \
        (isinstance(value, Tensor) and dtypes.is_floating(value._data.dtype))


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    start, end, step = (v.item() if isinstance(v, Tensor) else v for v in (start, end, step))
    if dtype is None:
        is_float = any(_is_float_arg(v) for v in (start, end, step))
        dtype = dtypes.get_default_dtype() if is_float else dtypes.int64
    dtype = np.dtype(dtype)
    if dtype == dtypes.bool_:
        raise NotImplementedError('"arange_cpu" not implemented for \'Bool\'')
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if not (step > 0 or step < 0):       # a NaN step too
        raise RuntimeError("step must be nonzero")
    if dtypes.is_floating(dtype):
        count = _arange_count(start, end, step)
        # computed in float64 and rounded once, as torch's kernel does: NumPy's float32 arange
        # adds a float32 step and drifts (arange(10, 0, -0.1)[-1] off by 4e-5)
        values = start + step * np.arange(count, dtype=np.float64)
    elif dtype == dtypes.int64:
        # torch truncates the bounds and the step to integers first, and counts with them
        start, end, step = int(start), int(end), int(step)
        if step == 0:
            raise ValueError("step must be nonzero")
        count = _arange_count(start, end, step)
        values = start + step * np.arange(count, dtype=np.int64)
    else:
        # other integer types count with the float arguments but step with truncated ones
        count = _arange_count(start, end, step)
        values = int(start) + int(step) * np.arange(count, dtype=np.int64)
    return _finish(values.astype(dtype), requires_grad, device)


def _arange_count(start, end, step):
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if all(isinstance(v, (int, np.integer)) for v in (start, end, step)):
        return -((start - end) // step)       # exact ceil, as torch's int64 count
    return math.ceil((end - start) / step)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = _float_dtype(dtype)
    if dtype == dtypes.bool_:
        raise NotImplementedError('"linspace_cpu" not implemented for \'Bool\'')
    if dtypes.is_floating(dtype):
        return _finish(np.linspace(start, end, steps, dtype=dtype), requires_grad, device)
    # torch's integer kernel: integer bounds, a float step, the first half counted up from start
    # and the second down from end, each value truncated (NumPy's integer linspace floors)
    start, end = int(start), int(end)
    step = (end - start) / (steps - 1) if steps > 1 else 0.0
    index = np.arange(steps, dtype=np.float64)
    # (a single step is start: below steps // 2 = 0 it would count down from end)
    values = np.where((index < steps // 2) | (steps == 1), start + step * index,
                      end - step * (steps - 1 - index))
    return _finish(np.trunc(values).astype(dtype), requires_grad, device)


def _check_like_input(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _like(fn):
    def like(input, dtype=None, device=None, requires_grad=False):
        _check_like_input(like.__name__, input)
        return fn(*input.shape, dtype=dtype or input.dtype, device=device or input.device,
                  requires_grad=requires_grad)
    like.__name__ = fn.__name__ + "_like"
    like.__doc__ = f"{fn.__name__} with the shape (and by default the dtype) of input."
    return like


zeros_like = _like(zeros)
ones_like = _like(ones)
empty_like = _like(empty)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False):
    _check_like_input("full_like", input)
    return full(input.shape, fill_value, dtype=dtype or input.dtype, device=device or input.device,
                requires_grad=requires_grad)


def _random_float_dtype(dtype, kernel):
    """rand's and randn's dtype: floating only, refused as torch's kernels refuse the others."""
    dt = _float_dtype(dtype)
    if not dtypes.is_floating(dt):
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{dtypes.scalar_type_name(dt)}'")
    return dt


def rand(*size, dtype=None, device=None, requires_grad=False):
    dt = _random_float_dtype(dtype, "check_uniform_bounds")
    return _finish(_rng[0].random(_shape(size, "rand")).astype(dt), requires_grad, device)


def randn(*size, dtype=None, device=None, requires_grad=False):
    dt = _random_float_dtype(dtype, "normal_kernel_cpu")
    return _finish(_rng[0].standard_normal(_shape(size, "randn")).astype(dt), requires_grad, device)


_NO_SIZE = object()


def randint(low, high=None, size=_NO_SIZE, dtype=None, device=None, requires_grad=False):
    """randint(high, size) or randint(low, high, size): integers in [low, high)."""
    positions = {"low": 1, "high": 2}
    if size is _NO_SIZE:
        if high is None:
            raise TypeError("randint() missing 1 required positional arguments: \"size\"")
        if not isinstance(high, (tuple, list, Size)):
            raise TypeError(f"randint(): argument 'size' (position 2) must be tuple of ints, not "
                            f"{type(high).__name__}")
        low, high, size = 0, low, high           # torch's randint(high, size)
        positions["high"] = 1
    elif high is None:
        low, high = 0, low
    for label, bound in (("low", low), ("high", high)):
        if isinstance(bound, bool) or not isinstance(bound, (int, np.integer)):
            raise TypeError(f"randint(): argument '{label}' (position {positions[label]}) must "
                            f"be int, not {type(bound).__name__}")
    dt = np.dtype(dtype or np.int64)
    if dt == dtypes.bool_ and not 0 <= low < high <= 2:
        raise RuntimeError("to - 1 is out of bounds for bool")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    values = _rng[0].integers(low, high, _shape((size,), "randint")).astype(dt)
    return _finish(values, requires_grad, device)


def randperm(n, dtype=None, device=None):
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = np.dtype(dtype or np.int64)
    if dt == dtypes.bool_:
        raise NotImplementedError('"randperm" not implemented for \'Bool\'')
    return _finish(_rng[0].permutation(n).astype(dt), False, device)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False):
    """randint_like(input, high) or randint_like(input, low, high): input's shape, and its dtype
    unless dtype says otherwise."""
    if high is None:
        low, high = 0, low
    return randint(low, high, tuple(input.shape), dtype=dtype or input.dtype,
                   device=device or input.device, requires_grad=requires_grad)


def rand_like(input, dtype=None, device=None, requires_grad=False):
    return rand(*input.shape, dtype=dtype or input.dtype, device=device or input.device,
                requires_grad=requires_grad)


def randn_like(input, dtype=None, device=None, requires_grad=False):
    return randn(*input.shape, dtype=dtype or input.dtype, device=device or input.device,
                 requires_grad=requires_grad)
