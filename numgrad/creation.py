"""Creating tensors: tensor, as_tensor, from_numpy, zeros/ones/full/empty/eye/arange/linspace,
the *_like forms and seeded random tensors."""
import itertools
import math
import numbers
import warnings

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


def _none_error(dtype):
    """torch's error for a None among the items, which depends on the type asked for."""
    if dtype is None:
        return RuntimeError("Could not infer dtype of NoneType")
    if dtypes.is_floating(np.dtype(dtype)):
        return TypeError("must be real number, not NoneType")
    return TypeError("'NoneType' object cannot be interpreted as an integer")


_SEQUENCES = {list, tuple}


def _scan(data, dtype=None):
    """What torch reads from the items of nested sequences: the dtype they infer (each item's
    own, promoted over all of them: a Python float is the default float type, an int int64, a
    bool bool, a NumPy scalar or array and a tensor keep theirs) and whether a tensor is among
    them. The items are read level by level (a level of sequences joined into one list) and
    each level once per distinct item type, in C, so nested lists of floats cost a fraction of
    their conversion."""
    inferred, has_tensor = None, False
    pending = [data]
    while pending:
        items = pending.pop()
        kinds = set(map(type, items))
        while kinds and kinds <= _SEQUENCES:
            items = list(itertools.chain.from_iterable(items))
            kinds = set(map(type, items))
        for kind in kinds:
            if kind is list or kind is tuple:
                pending.extend(v for v in items if type(v) is kind)
                continue
            if issubclass(kind, np.generic):
                found = dtypes.canonical(np.dtype(kind))
            elif kind is float:
                found = dtypes.get_default_dtype()
            elif kind is bool:
                found = dtypes.bool_
            elif kind is int:
                found = dtypes.int64
            elif issubclass(kind, (np.ndarray, Tensor)):
                has_tensor = has_tensor or issubclass(kind, Tensor)
                for value in items:
                    if type(value) is kind:
                        found = dtypes.canonical(value.dtype)
                        inferred = found if inferred is None else dtypes.promote(inferred, found)
                continue
            elif kind is type(None):
                raise _none_error(dtype)
            elif issubclass(kind, str):
                raise TypeError(f"new(): invalid data type '{kind.__name__}'")
            else:       # another number type (Fraction, complex): NumPy's reading of one
                found = dtypes.canonical(np.asarray(next(v for v in items if type(v) is kind)).dtype)
            inferred = found if inferred is None else dtypes.promote(inferred, found)
    return (dtypes.get_default_dtype() if inferred is None else inferred), has_tensor


def _tensors_as_scalars(data):
    """Nested sequences with each tensor among the items replaced by its number, as torch reads
    one (a tensor of one element only, of any shape)."""
    if isinstance(data, Tensor):
        if data._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data._data.reshape(()).item()
    if isinstance(data, (list, tuple)):
        return [_tensors_as_scalars(v) for v in data]
    return data


def _infer_dtype(data):
    """torch's rules: Python floats give the default float type, ints int64, bools bool."""
    if isinstance(data, (list, tuple)):
        return _scan(data)[0]
    if isinstance(data, (np.ndarray, np.generic)):
        return dtypes.canonical(data.dtype)
    if isinstance(data, float):
        return dtypes.get_default_dtype()
    if data is None:
        raise _none_error(None)
    return dtypes.canonical(np.asarray(data).dtype)


def _ragged_error(data, dtype):
    """torch's error for nested sequences that are not a grid, or None: the shape is read down
    the first elements, the first sequence whose length differs from it is named, and a
    sequence where the shape has a number is refused as a number of dtype would be."""
    shape = []
    first = data
    while isinstance(first, (list, tuple)):
        shape.append(len(first))
        if not first:
            break
        first = first[0]

    def check(value, dim):
        if dim == len(shape):
            if not isinstance(value, (list, tuple)):
                return None
            if dtypes.is_floating(dtype):
                return TypeError(f"must be real number, not {type(value).__name__}")
            return TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")
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
    if isinstance(data, (list, tuple)):
        inferred, has_tensor = _scan(data, dtype)
        if has_tensor:
            data = _tensors_as_scalars(data)
    else:
        inferred = None if dtype is not None else _infer_dtype(data)
    dt = np.dtype(dtype) if dtype is not None else inferred
    try:
        return np.array(data, dtype=dt)
    except ValueError as error:
        if "NaN" in str(error):      # a float NaN asked to be an integer
            raise _overflow_error(data, dt) from None
        ragged = _ragged_error(data, dt)
        if ragged is None:
            raise
        raise ragged from None
    except OverflowError:
        raise _overflow_error(data, dt) from None


def _overflow_error(data, dtype):
    """torch's error for a value the integer dtype cannot hold: a Python int past int64 fails
    as it is read; anything else (a float, an infinity, a NaN, an int past int32) as it is
    converted, in one wording where NumPy's differ with the value."""
    pending = [data]
    while pending:
        items = pending.pop()
        if isinstance(items, (list, tuple)):
            pending.extend(items)
        elif type(items) is int and not -2 ** 63 <= items < 2 ** 63:
            return ValueError("Overflow when unpacking long long")
    return RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")


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
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()"
                      ".requires_grad_(True), rather than numgrad.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    return _finish(_as_array(data, dtype), requires_grad, device)


def legacy_data(args, size, dtype):
    """What Tensor(*args, size=...) holds, read as torch's legacy constructor reads its
    arguments: an array, or the tensor to share data with."""
    dtype = _float_dtype(dtype)
    if size is not None:
        if args:
            raise TypeError("new() received an invalid combination of arguments")
        return np.empty(_shape((size,), "new"), dtype)
    if not args:
        return np.empty((0,), dtype)
    if len(args) == 1 and isinstance(args[0], (Tensor, list, tuple, range, np.ndarray)):
        data = args[0]
        if isinstance(data, Size):
            return np.empty(_shape((data,), "new"), dtype)
        if isinstance(data, Tensor):
            return data
        return _as_array(data if not isinstance(data, range) else list(data), dtype)
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        return np.empty(_shape(args, "new"), dtype)     # uninitialized, as torch's
    if len(args) == 1:
        if isinstance(args[0], str):
            raise TypeError(f"new(): invalid data type '{type(args[0]).__name__}'")
        raise TypeError(f"new(): data must be a sequence (got {_type_name(args[0])})")
    raise TypeError("new(): argument 'size' must be tuple of ints")


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
    if any(stride < 0 for stride in array.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with "
                         "negative strides are not currently supported. (You can probably work "
                         "around this by making a copy of your array  with array.copy().) ")
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


def _size_argument(name, size, kwargs):
    """The size of zeros/ones/empty, given as ints or size=(...) as torch also takes it."""
    if "size" not in kwargs:
        if kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        return size
    if size:
        raise TypeError(f"{name}() got multiple values for argument 'size'")
    if not isinstance(kwargs["size"], (tuple, list, Size)):
        raise TypeError(f"{name}(): argument 'size' must be tuple of ints, not "
                        f"{type(kwargs['size']).__name__}")
    return (kwargs["size"],)


def _float_dtype(dtype):
    return np.dtype(dtype) if dtype is not None else dtypes.get_default_dtype()


def zeros(*size, dtype=None, device=None, requires_grad=False, **kwargs):
    size = _size_argument("zeros", size, kwargs)
    return _finish(np.zeros(_shape(size, "zeros"), _float_dtype(dtype)), requires_grad, device)


def ones(*size, dtype=None, device=None, requires_grad=False, **kwargs):
    size = _size_argument("ones", size, kwargs)
    return _finish(np.ones(_shape(size, "ones"), _float_dtype(dtype)), requires_grad, device)


def empty(*size, dtype=None, device=None, requires_grad=False, **kwargs):
    size = _size_argument("empty", size, kwargs)
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
    if not isinstance(fill_value, (numbers.Number, np.generic, Tensor)) or \
            isinstance(fill_value, (str, bytes)):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not "
                        f"{_type_name(fill_value)}")
    if dtype is None:
        dtype = _fill_dtype(fill_value)
    dtype = np.dtype(dtype)
    if dtype.kind in "iu" and isinstance(fill_value, (float, np.floating)) and \
            not math.isfinite(fill_value):
        # NumPy would fill with INT64_MIN
        raise RuntimeError(f"value cannot be converted to type {dtypes.C_INT_NAMES[dtype]} "
                           "without overflow")
    if isinstance(fill_value, int) and not -2 ** 63 <= fill_value < 2 ** 64:
        raise OverflowError("int too big to convert")     # torch fails reading it
    try:
        values = np.full(_shape((size,), "full"), fill_value, dtype)
    except OverflowError:
        if dtype not in dtypes.C_INT_NAMES:
            raise
        # an integer that does not fit, in torch's words
        raise RuntimeError(f"value cannot be converted to type {dtypes.C_INT_NAMES[dtype]} "
                           "without overflow") from None
    return _finish(values, requires_grad, device)


def _int_of_tensor(value):
    """An integer tensor of one element where torch takes an int (its __index__), else value."""
    if isinstance(value, Tensor) and value._data.size == 1 and value._data.dtype.kind in "iu":
        return value.item()
    return value


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    n, m = (_int_of_tensor(v) for v in (n, m))
    for position, (label, given) in enumerate((("n", n), ("m", m)), 1):
        if given is None:
            continue
        if isinstance(given, bool) or not isinstance(given, (int, np.integer)):
            raise TypeError(f"eye(): argument '{label}' (position {position}) must be int, not "
                            f"{type(given).__name__}")
        if given < 0:
            raise RuntimeError(f"{label} must be greater or equal to 0, got {given}")
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
        values = _float_arange(float(start), float(step), _arange_count(start, end, step), dtype)
    elif dtype == dtypes.int64:
        # torch checks the signs first, then truncates the bounds and the step to integers and
        # counts with them
        if (end - start) * step < 0:
            raise RuntimeError("upper bound and lower bound inconsistent with step sign")
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


def _fma(scale, counts, offset):
    """scale * counts + offset in float64 rounded once, as the fused multiply-add torch's
    compiled kernels use, for a float scale and integer counts below 2**26: Dekker's split of
    scale makes the product's rounding error exact, Knuth's sum the addition's."""
    product = scale * counts
    high = 134217729.0 * scale          # 2**27 + 1
    high -= high - scale
    product_error = (high * counts - product) + (scale - high) * counts
    total = product + offset
    offset_part = total - product
    sum_error = (product - (total - offset_part)) + (offset - offset_part)
    return total + (sum_error + product_error)


def _is_exact(*values, count):
    """Whether value * i + value for every i below count is exact in float64 (integral values
    well inside 2**53), so plain arithmetic gives the fused result."""
    return all(float(v).is_integer() for v in values) and \
        sum(abs(float(v)) for v in values) * (count + 1) < 2.0 ** 52


# torch's CPU kernels fill 256-bit vectors: 8 float32 or 4 float64 lanes
_LANES = {dtypes.float32: 8, dtypes.float64: 4}


def _float_arange(start, step, count, dtype):
    """torch's float arange, bit for bit: in float64 (fused), each vector of lanes counted on
    from its first item rounded to dtype, the items past the last pair of vectors one by one
    (exact for up to 32768 items, where torch's kernel runs as one task)."""
    index = np.arange(count, dtype=np.float64)
    if _is_exact(start, step, count=count):
        return (start + step * index).astype(dtype)
    lanes = _LANES[dtype]
    fused = _fma(step, index, start)
    values = fused.astype(dtype)
    vectorized = count // (2 * lanes) * 2 * lanes
    firsts = values[:vectorized:lanes].astype(np.float64)
    lane = np.arange(lanes, dtype=np.float64)
    values[:vectorized] = _fma(step, lane, firsts[:, None]).astype(dtype).reshape(-1)
    return values


def _float_linspace(start, end, steps, dtype):
    """torch's float linspace, bit for bit: the step in dtype's arithmetic, the first half
    counted up from start and the second down from end, each item one fused multiply-add."""
    if steps == 1:
        return np.full(1, start, dtype)
    first, last = np.asarray(start, dtype), np.asarray(end, dtype)
    step = float((last - first) / np.asarray(steps - 1, dtype))
    half = steps // 2
    index = np.arange(steps, dtype=np.float64)
    values = np.empty(steps, np.float64)
    # (a float32 product is exact in float64, so float32's fused result is this one rounded)
    values[:half] = _fma(step, index[:half], float(first))
    values[half:] = _fma(-step, steps - 1 - index[half:], float(last))
    return values.astype(dtype)


def _arange_count(start, end, step):
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if all(isinstance(v, (int, np.integer)) for v in (start, end, step)):
        return -((start - end) // step)       # exact ceil, as torch's int64 count
    count = math.ceil((end - start) / step)
    if count > np.iinfo(np.int64).max:
        raise RuntimeError("invalid size, possible overflow?")
    return count


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dtype = _float_dtype(dtype)
    if dtype == dtypes.bool_:
        raise NotImplementedError('"linspace_cpu" not implemented for \'Bool\'')
    if dtypes.is_floating(dtype):
        return _finish(_float_linspace(start, end, steps, dtype), requires_grad, device)
    # torch's integer kernel: integer bounds, a float step, the first half counted up from start
    # and the second down from end, each value truncated (NumPy's integer linspace floors)
    start, end = int(start), int(end)
    step = (end - start) / (steps - 1) if steps > 1 else 0.0
    index = np.arange(steps, dtype=np.float64)
    # (a single step is start: below steps // 2 = 0 it would count down from end)
    values = np.where((index < steps // 2) | (steps == 1), start + step * index,
                      end - step * (steps - 1 - index))
    return _finish(np.trunc(values).astype(dtype), requires_grad, device)


def _type_name(value):
    """A type as torch's argument errors name it: builtins bare, others with their module."""
    kind = type(value)
    return kind.__qualname__ if kind.__module__ == "builtins" else \
        f"{kind.__module__}.{kind.__qualname__}"


def _check_like_input(name, input):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{_type_name(input)}")


def _laid_out_like(input, t):
    """t (just made) with input's strides when input's elements are dense and do not overlap,
    as torch's *_like make them (preserve_format): zeros_like(x.t()) is transposed too."""
    from .ops.shape import keeps_layout
    data = input._data
    if type(data) is np.ndarray and type(t._data) is np.ndarray and \
            not data.flags.c_contiguous and keeps_layout(data):
        laid_out = np.empty_like(data, dtype=t._data.dtype, order="K")
        laid_out[...] = t._data
        t._data = laid_out
    return t


def _like(fn):
    def like(input, dtype=None, device=None, requires_grad=False):
        _check_like_input(like.__name__, input)
        return _laid_out_like(input, fn(*input.shape, dtype=dtype or input.dtype,
                                        device=device or input.device, requires_grad=requires_grad))
    like.__name__ = fn.__name__ + "_like"
    like.__doc__ = f"{fn.__name__} with the shape (and by default the dtype) of input."
    return like


zeros_like = _like(zeros)
ones_like = _like(ones)
empty_like = _like(empty)


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False):
    _check_like_input("full_like", input)
    return _laid_out_like(input, full(input.shape, fill_value, dtype=dtype or input.dtype,
                                      device=device or input.device, requires_grad=requires_grad))


def _random_float_dtype(dtype, kernel):
    """rand's and randn's dtype: floating only, refused as torch's kernels refuse the others."""
    dt = _float_dtype(dtype)
    if not dtypes.is_floating(dt):
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{dtypes.scalar_type_name(dt)}'")
    return dt


def _stream(generator):
    """The NumPy stream to draw from: a Generator's own, else the global one."""
    return _rng[0] if generator is None else generator._rng


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    dt = _random_float_dtype(dtype, "check_uniform_bounds")
    return _finish(_stream(generator).random(_shape(size, "rand")).astype(dt), requires_grad,
                   device)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    dt = _random_float_dtype(dtype, "normal_kernel_cpu")
    return _finish(_stream(generator).standard_normal(_shape(size, "randn")).astype(dt),
                   requires_grad, device)


_NO_SIZE = object()


def randint(low, high=None, size=_NO_SIZE, generator=None, dtype=None, device=None,
            requires_grad=False):
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
    values = _stream(generator).integers(low, high, _shape((size,), "randint")).astype(dt)
    return _finish(values, requires_grad, device)


def randperm(n, generator=None, dtype=None, device=None):
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = np.dtype(dtype or np.int64)
    if dt == dtypes.bool_:
        raise NotImplementedError('"randperm" not implemented for \'Bool\'')
    return _finish(_stream(generator).permutation(n).astype(dt), False, device)


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
