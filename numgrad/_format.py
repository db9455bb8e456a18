"""Tensor printing in torch's style: tensor(7.), tensor([0.5000, 2.0000], requires_grad=True)."""
import numpy as np

from . import dtypes


def _float_formatter(values):
    """torch's choice of notation, made from the nonzero finite values: integral ("7."), fixed
    ("0.5000") or scientific ("1.0000e-05") when they span more than 1000x, pass 1e8, or (not
    integral) go below 1e-4."""
    shown = np.abs(values[np.isfinite(values) & (values != 0)])
    integral = bool(np.all(shown == np.ceil(shown)))
    scientific = shown.size > 0 and (shown.max() / shown.min() > 1000.0 or shown.max() > 1.0e8
                                     or (not integral and shown.min() < 1.0e-4))
    if scientific:
        def fmt(v):
            return _special(v) or f"{v:.4e}"
    elif integral:
        def fmt(v):
            return _special(v) or f"{v:.0f}."
    else:
        def fmt(v):
            return _special(v) or f"{v:.4f}"
    return fmt


def _special(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _formatter(array):
    if array.dtype.kind == "f":
        return _float_formatter(array.ravel().astype(np.float64))
    if array.dtype.kind == "b":
        return lambda v: "True" if v else "False"
    return lambda v: str(int(v))


def format_array(array, indent):
    if array.size == 0:
        return "[]" if array.ndim <= 1 else "[]"
    fmt = _formatter(array)
    width = max(len(fmt(v)) for v in array.ravel())

    def rec(a, depth):
        if a.ndim == 0:
            return fmt(a.item()).rjust(width)
        if a.ndim == 1:
            items = [fmt(v).rjust(width) for v in a.tolist()]
            if len(items) > 1000:
                items = items[:3] + ["..."] + items[-3:]
            return "[" + ", ".join(items) + "]"
        sep = "," + "\n" * (a.ndim - 1) + " " * (indent + depth + 1)
        return "[" + sep.join(rec(sub, depth + 1) for sub in a) + "]"

    return rec(array, 0)


def tensor_repr(t):
    array = t._data
    extras = []
    if type(array) is not np.ndarray:       # a device array: print a host copy, and the device
        array = array.copy_to_host()
        extras.append(f"device='{t.device}'")
    body = format_array(array, len("tensor("))
    default_ok = {np.dtype(np.int64), np.dtype(np.bool_), dtypes.get_default_dtype()}
    if array.dtype not in default_ok:
        extras.append("dtype=" + dtypes.name(array.dtype))
    if array.size == 0 and array.ndim > 1:
        extras.append(f"size={tuple(array.shape)}")
    if t._node >= 0:
        extras.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        extras.append("requires_grad=True")
    return "tensor(" + ", ".join([body] + extras) + ")"
