"""torch's argument parser on a bool argument of its builtin ops (avg_pool2d's ceil_mode,
dropout's train, ...): only True or False; 0, 1, None, floats and NumPy's bools are refused
before the op looks at anything else.

>>> check_bool(1, "avg_pool2d", "ceil_mode")
Traceback (most recent call last):
TypeError: avg_pool2d(): argument 'ceil_mode' must be bool, not int
"""
from ..tensor import Tensor


def check_bool(value, op, name, position=None):
    """Refuse a non-bool value of argument `name` of builtin `op` in torch's words. `position`
    (1-based), where torch's Python wrapper passes the argument by position, is part of them."""
    if isinstance(value, bool):
        return
    where = f" (position {position})" if position else ""
    raise TypeError(f"{op}(): argument '{name}'{where} must be bool, not {_type_name(value)}")


def check_bool_of_overloads(value, op, args, overloads):
    """Refuse a non-bool `value` (one of `args`, the builtin op's positional arguments) of a
    builtin op with several signatures in the words of torch's argument parser, which names every
    signature: `overloads` holds (signature, marked) pairs, `marked` saying which arguments it
    shows between exclamation marks (None where torch shows no such line)."""
    if isinstance(value, bool):
        return
    got = ", ".join(_type_name(a) for a in args)
    lines = [f"{op}() received an invalid combination of arguments - got ({got}), but expected "
             "one of:"]
    for signature, marked in overloads:
        lines.append(f" * ({signature})")
        if marked is not None:
            shown = (f"!{_described(a)}!" if m else _described(a) for a, m in zip(args, marked))
            lines.append("      didn't match because some of the arguments have invalid types: "
                         f"({', '.join(shown)})")
    raise TypeError("\n".join(lines) + "\n")


def _type_name(value):
    """A value's type as torch's parser names it: numpy.bool, numpy.int64, ... for NumPy's."""
    if isinstance(value, Tensor):
        return "Tensor"
    cls = type(value)
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"


def _described(value):
    """An argument as torch's parser describes a mismatch: sequences with their items' types."""
    if isinstance(value, list):
        return f"list of [{', '.join(_type_name(v) for v in value)}]"
    if isinstance(value, tuple):
        names = [_type_name(v) for v in value]
        return f"tuple of ({', '.join(names)}{',' if len(names) == 1 else ''})"
    return _type_name(value)

