"""torch's other names and forms of ops numgrad has: arctan2, ger (outer), fill (fill_ out of
place), Tensor.absolute / less_equal, and in-place forms under their alias names (greater_,
not_equal_, logical_and_, bitwise_or_, ...). Each is the op itself, so gradients are the same."""
import numpy as np

from ..tensor import Tensor
from .elementwise import (abs, absolute, atan, atan2, bitwise_and, bitwise_not, bitwise_or,
                          bitwise_xor, less_equal, logical_and, logical_or, logical_xor)
from .index import masked_fill
from .linalg import outer
from .stacking import INPLACE as _COMPARISONS
from .tensor_operands import tensor_operand

_ALL = Tensor._make(np.ones((), np.bool_), False)


@tensor_operand()
def arctan2(input, other):
    return atan2(input, other)


def ger(input, vec2):
    """outer, under its deprecated name."""
    return outer(input, vec2)


def fill(input, value):
    """A tensor of input's shape and dtype filled with value: input gets a zero gradient, a
    tensor value the sum of it, as fill_'s."""
    return masked_fill(input, _ALL, value)


PUBLIC = ("arctan2", "ger", "fill")
METHODS = ("arctan2", "ger", "absolute", "less_equal")
# in-place forms under torch's alias names, saving self as the forms they alias do
INPLACE = {"absolute_": (abs, True), "arctan_": (atan, True), "arctan2_": (atan2, True),
           "greater_": _COMPARISONS["gt_"], "greater_equal_": _COMPARISONS["ge_"],
           "less_": _COMPARISONS["lt_"], "less_equal_": _COMPARISONS["le_"],
           "not_equal_": _COMPARISONS["ne_"],
           "logical_and_": (logical_and, False), "logical_or_": (logical_or, False),
           "logical_xor_": (logical_xor, False), "bitwise_and_": (bitwise_and, False),
           "bitwise_or_": (bitwise_or, False), "bitwise_xor_": (bitwise_xor, False),
           "bitwise_not_": (bitwise_not, False)}
