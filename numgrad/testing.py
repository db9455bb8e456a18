"""numgrad.testing.assert_close: torch.testing.assert_close, with its default tolerances, its
checks and its messages.

Tensors (and NumPy arrays, and Python numbers) are compared pairwise, through sequences and
mappings: first their shape, device and dtype, then their values, |actual - expected| <=
atol + rtol * |expected|; integers and bools must be equal.
"""
from collections.abc import Mapping, Sequence
import numbers

import numpy as np

from . import dtypes
from .tensor import Tensor

__all__ = ["assert_close"]

# torch's defaults, (rtol, atol) by dtype; a Python float is a float64
_TOLERANCES = {np.dtype(np.float32): (1.3e-6, 1e-5), np.dtype(np.float64): (1e-7, 1e-7)}


class _Mismatch(AssertionError):
    def __init__(self, message, path=()):
        super().__init__(message)
        self.message, self.path = message, path


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise AssertionError unless `actual` and `expected` are close.

    >>> import numgrad as ng
    >>> ng.testing.assert_close(ng.tensor([1.0, 2.0]), ng.tensor([1.0, 2.000001]))
    """
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{missing}.")
    try:
        _compare(actual, expected, (), rtol, atol, equal_nan, check_device, check_dtype)
    except _Mismatch as mismatch:
        message = mismatch.message
        if mismatch.path:
            message += f"\n\nThe failure occurred for item {''.join(mismatch.path)}"
        if msg is not None:
            message = msg(message) if callable(msg) else msg
        raise AssertionError(message) from None


def _compare(actual, expected, path, rtol, atol, equal_nan, check_device, check_dtype):
    if isinstance(actual, (Tensor, np.ndarray)) or isinstance(expected, (Tensor, np.ndarray)):
        if type(actual) is not type(expected) and not (isinstance(actual, Tensor)
                                                       and isinstance(expected, Tensor)):
            raise TypeError(f"No comparison pair was able to handle inputs of type "
                            f"{type(actual)} and {type(expected)}.")
        try:
            _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype)
        except _Mismatch as mismatch:
            raise _Mismatch(mismatch.message, path) from None
    elif _is_number(actual) and _is_number(expected):
        try:
            _compare_numbers(actual, expected, rtol, atol, equal_nan)
        except _Mismatch as mismatch:
            raise _Mismatch(mismatch.message, path) from None
    elif isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if set(actual) != set(expected):
            raise _Mismatch(
                f"The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(set(expected) - set(actual), key=repr)}\n"
                f"Additional keys in the actual mapping: "
                f"{sorted(set(actual) - set(expected), key=repr)}", path)
        for key in expected:
            _compare(actual[key], expected[key], path + (f"[{key!r}]",), rtol, atol, equal_nan,
                     check_device, check_dtype)
    elif _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(f"The length of the sequences mismatch: {len(actual)} != "
                            f"{len(expected)}", path)
        for k, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, path + (f"[{k}]",), rtol, atol, equal_nan, check_device, check_dtype)
    else:
        raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} "
                        f"and {type(expected)}.")


def _is_number(value):
    return isinstance(value, numbers.Number) and not isinstance(value, np.ndarray)


def _is_sequence(value):
    return isinstance(value, Sequence) and not isinstance(value, str)


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype):
    a = _host_array(actual)
    e = _host_array(expected)
    if a.shape != e.shape:
        shapes = (actual.shape, expected.shape) if isinstance(actual, Tensor) else (a.shape, e.shape)
        raise _Mismatch(f"The values for attribute 'shape' do not match: {shapes[0]!r} != "
                        f"{shapes[1]!r}.")
    if check_device and isinstance(actual, Tensor) and actual.device != expected.device:
        raise _Mismatch(f"The values for attribute 'device' do not match: {actual.device} != "
                        f"{expected.device}.")
    if a.dtype != e.dtype:
        if check_dtype:
            raise _Mismatch(f"The values for attribute 'dtype' do not match: "
                            f"{dtypes.qualified_name(a.dtype)} != "
                            f"{dtypes.qualified_name(e.dtype)}.")
        common = np.result_type(a, e)
        a, e = a.astype(common), e.astype(common)
    exact = a.dtype.kind not in "fc"
    if rtol is None:
        rtol, atol = (0.0, 0.0) if exact else _TOLERANCES.get(a.dtype, _TOLERANCES[np.dtype(np.float64)])
    if exact and rtol == 0 and atol == 0:
        mismatched = a != e
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            mismatched = ~np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if not mismatched.any():
        return
    if a.ndim == 0:             # compared as Python numbers, as torch compares a 0-d tensor
        actual_value, expected_value = a.item(), e.item()
        difference = abs(actual_value - expected_value)
        relative = difference / abs(expected_value) if expected_value else float("inf")
        raise _Mismatch(_scalar_message(actual_value, expected_value, difference, relative,
                                        rtol, atol, exact))
    abs_diff, rel_diff = _differences(a, e)
    abs_diff = np.where(mismatched, abs_diff, 0)
    rel_diff = np.where(mismatched, rel_diff, 0)
    count, total = int(mismatched.sum()), a.size
    lines = [f"Tensor-likes are not {'equal' if exact else 'close'}!", "",
             f"Mismatched elements: {count} / {total} ({100 * count / total:.1f}%)"]
    for label, diff, limit in (("absolute", abs_diff, atol), ("relative", rel_diff, rtol)):
        at = _greatest(diff)
        index = tuple(int(i) for i in np.unravel_index(at, diff.shape))
        line = f"Greatest {label} difference: {diff.flat[at].item()} at index {index}"
        lines.append(line if exact else f"{line} (up to {limit} allowed)")
    raise _Mismatch("\n".join(lines))


def _host_array(value):
    if isinstance(value, Tensor):
        return np.asarray(value.detach().cpu().numpy())
    return np.asarray(value)


def _differences(a, e):
    """|a - e| in the values' dtype (integers: exactly; bools: as integers) and relative to |e|,
    in the default float type for integers, as torch computes them."""
    if a.dtype == np.bool_:
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        if a.dtype.kind in "fc":
            rel_diff = abs_diff / np.abs(e)
        else:
            rel_diff = abs_diff.astype(np.float32) / np.abs(e).astype(np.float32)
    return abs_diff, rel_diff


def _greatest(diff):
    """The flat position of the greatest difference; a NaN counts as the greatest, as in torch."""
    nans = np.flatnonzero(np.isnan(diff)) if diff.dtype.kind == "f" else ()
    return int(nans[0]) if len(nans) else int(np.argmax(diff))


def _compare_numbers(actual, expected, rtol, atol, equal_nan):
    exact = not isinstance(actual, (float, complex)) and not isinstance(expected, (float, complex))
    if rtol is None:
        rtol, atol = (0.0, 0.0) if exact else _TOLERANCES[np.dtype(np.float64)]
    if actual == expected or (equal_nan and actual != actual and expected != expected):
        return
    difference = abs(actual - expected)
    if not exact and difference <= atol + rtol * abs(expected):
        return
    relative = difference / abs(expected) if expected else float("inf")
    raise _Mismatch(_scalar_message(actual, expected, difference, relative, rtol, atol, exact))


def _scalar_message(actual, expected, difference, relative, rtol, atol, exact):
    if exact:
        return (f"Scalars are not equal!\n\nExpected {expected} but got {actual}.\n"
                f"Absolute difference: {difference}\nRelative difference: {relative}")
    return (f"Scalars are not close!\n\nExpected {expected} but got {actual}.\n"
            f"Absolute difference: {difference} (up to {atol} allowed)\n"
            f"Relative difference: {relative} (up to {rtol} allowed)")
