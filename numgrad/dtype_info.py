"""Questions about dtypes, as torch answers them: finfo/iinfo (limits), promote_types and
result_type (torch's promotion rules, not NumPy's), can_cast."""
import builtins
import numbers

import numpy as np

from . import dtypes
from .tensor import Tensor

# categories in promotion order: a lower category never wins over a higher one
_CATEGORY = {dtypes.bool_: 0, dtypes.int32: 1, dtypes.int64: 1, dtypes.float32: 2,
             dtypes.float64: 2}


def _short(value):
    return f"{value:.6g}"


class finfo:
    """The limits of a float dtype (the default dtype when none is given)."""

    def __init__(self, type=None):
        dtype = dtypes.get_default_dtype() if type is None else np.dtype(type)
        if not dtypes.is_floating(dtype):
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo "
                            "to handle 'torch.finfo'")
        info = np.finfo(dtype)
        self.bits = info.bits
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = float(info.resolution)
        self.dtype = dtype.name

    def __repr__(self):
        return (f"finfo(resolution={_short(self.resolution)}, min={_short(self.min)}, "
                f"max={_short(self.max)}, eps={_short(self.eps)}, "
                f"smallest_normal={_short(self.smallest_normal)}, tiny={_short(self.tiny)}, "
                f"dtype={self.dtype})")


class iinfo:
    """The limits of an integer dtype."""

    def __init__(self, type):
        dtype = np.dtype(type)
        if dtype == dtypes.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if dtype.kind not in "iu":
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        info = np.iinfo(dtype)
        self.bits, self.max, self.min, self.dtype = info.bits, int(info.max), int(info.min), \
            dtype.name

    def __repr__(self):
        return f"iinfo(min={_short(self.min)}, max={_short(self.max)}, dtype={self.dtype})"


def promote_types(type1, type2):
    """The smallest dtype both can be cast to without losing their category."""
    return dtypes.promote(np.dtype(type1), np.dtype(type2))


def _scalar_dtype(value):
    if isinstance(value, (builtins.bool, np.bool_)):
        return dtypes.bool_
    if isinstance(value, numbers.Integral):
        return dtypes.int64
    return dtypes.get_default_dtype()


def _combine_categories(higher, lower):
    """ATen's combine_categories: the dtype of the higher-ranked group (tensors with dims over
    0-d tensors over Python numbers), unless the lower group is of a higher category."""
    if higher is None:
        return lower
    if lower is None or dtypes.is_floating(higher):
        return higher
    if higher == dtypes.bool_ or dtypes.is_floating(lower):
        return dtypes.promote(higher, lower)
    return higher


def result_type(tensor1, tensor2):
    """The dtype of an arithmetic op on the two, by torch's rules (int tensor + 0-d float64
    tensor is float64, float32 tensor + 0-d float64 tensor is float32)."""
    groups = [None, None, None]       # tensors with dims, 0-d tensors, Python numbers
    for operand in (tensor1, tensor2):
        if isinstance(operand, Tensor):
            group, dtype = (0 if operand.ndim else 1), operand.dtype
        else:
            group, dtype = 2, _scalar_dtype(operand)
        groups[group] = dtype if groups[group] is None else dtypes.promote(groups[group], dtype)
    return _combine_categories(groups[0], _combine_categories(groups[1], groups[2]))


def can_cast(from_, to):
    """Whether torch's casting rules allow from_ to to: never to a lower category (float to int,
    int to bool)."""
    return _CATEGORY[np.dtype(from_)] <= _CATEGORY[np.dtype(to)]
