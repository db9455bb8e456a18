"""torch's argument parser on a bool argument of its builtin ops (avg_pool2d's ceil_mode,
dropout's train, ...): only True or False (NumPy's bools too); 0, 1, None and floats are refused
before the op looks at anything else.

>>> check_bool(1, "avg_pool2d", "ceil_mode")
Traceback (most recent call last):
TypeError: avg_pool2d(): argument 'ceil_mode' must be bool, not int
"""
import numpy as np


def check_bool(value, op, name, position=None):
    """Refuse a non-bool value of argument `name` of builtin `op` in torch's words. `position`
    (1-based), where torch's Python wrapper passes the argument by position, is part of them."""
    if isinstance(value, (bool, np.bool_)):
        return
    where = f" (position {position})" if position else ""
    raise TypeError(f"{op}(): argument '{name}'{where} must be bool, not {type(value).__name__}")
