"""Integer and binary-exponent arithmetic: gcd, lcm, the bit shifts (and the << >> operators),
frexp and ldexp. The integer ones carry no gradient (NumPy computes them, untracked.py); frexp's
mantissa and ldexp are products with powers of two, differentiable as such."""
import collections
import math

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from . import fmath as F
from .apply import apply
from .elementwise import _tensor_result_type, cast, operands
from .registry import OpDef
from .select import return_types
from .tensor_operands import tensor_operand
from .untracked import untracked


def _frexp_type():
    cls = collections.namedtuple("frexp", ("mantissa", "exponent"))
    cls.__module__ = "numgrad.return_types"
    cls.__repr__ = lambda self: (f"numgrad.return_types.frexp(\nmantissa={self.mantissa!r},\n"
                                 f"exponent={self.exponent!r})")
    return cls


return_types.frexp = _frexp_type()


def _integer_op(name, numpy_fn, kernel):
    def fn(input, other):
        a, b = operands(input, other)
        dtype = (a if isinstance(a, np.ndarray) else a._data).dtype
        if dtype.kind not in "iu":
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{dtypes.scalar_type_name(dtype)}'")
        return untracked(numpy_fn, *[v if isinstance(v, np.ndarray) else v._data for v in (a, b)])
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name} of integer tensors (not differentiable)."
    return fn


gcd = tensor_operand()(_integer_op("gcd", np.gcd, "gcd_cpu"))
lcm = tensor_operand()(_integer_op("lcm", np.lcm, "lcm_cpu"))
bitwise_left_shift = _integer_op("bitwise_left_shift", np.left_shift, "lshift_cpu")
bitwise_right_shift = _integer_op("bitwise_right_shift", np.right_shift, "rshift_cpu")


def _rlshift(self, other):
    return bitwise_left_shift(other, self)


def _rrshift(self, other):
    return bitwise_right_shift(other, self)


def frexp(input):
    """(mantissa, exponent) with input = mantissa * 2**exponent and 0.5 <= |mantissa| < 1
    (mantissa 0 for 0); exponent is int32. The mantissa's gradient is 2**-exponent."""
    if not dtypes.is_floating(input.dtype):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    exponent = untracked(lambda a: np.frexp(a)[1].astype(np.int32), input._data)
    # 2**-exponent in two halves: one factor would overflow for subnormal inputs
    halves = [untracked(lambda e, k=k: np.ldexp(np.ones(e.shape, input.dtype),
                                                  -(e // 2 if k == 0 else e - e // 2)),
                        exponent._data) for k in (0, 1)]
    return return_types.frexp(input * halves[0] * halves[1], exponent)


@tensor_operand()
def ldexp(input, other):
    """input * 2**other, in a float dtype (the default one for integer input)."""
    exponent = other._data if isinstance(other, Tensor) else np.asarray(other)
    if not isinstance(input, Tensor):
        input = cast(Tensor._make(np.asarray(input), False), dtypes.get_default_dtype())
    elif dtypes.is_floating(input.dtype) and exponent.dtype == np.bool_:
        # torch's float kernel has no bool exponent (an integer input goes another way)
        raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")
    # torch's input * pow(2.0, other), the power of other's float dtype (the default one for
    # integers and bools), written into a result of input's and other's promoted dtype (a float
    # one: the default for two integer tensors), so a 0-d float64 input with an integer
    # exponent stays float64
    exponent_operand = other if isinstance(other, Tensor) else Tensor._make(exponent, False)
    result_dtype = _tensor_result_type(input.dtype, input.ndim, exponent.dtype, exponent.ndim)
    if not dtypes.is_floating(result_dtype):
        result_dtype = dtypes.get_default_dtype()
    power_dtype = exponent.dtype if dtypes.is_floating(exponent.dtype) else \
        dtypes.get_default_dtype()
    other = exponent_operand if exponent.dtype == power_dtype else cast(exponent_operand,
                                                                        power_dtype)
    input = input if input.dtype == result_dtype else cast(input, result_dtype)
    other = other if other.dtype == result_dtype else cast(other, result_dtype)
    return apply(LDEXP, (input, other))


# torch's LdexpBackward0: input's gradient g * 2**other, other's g * result * ln 2
def d_ldexp_x(g, y): return g * F.pow(2.0, y)
def d_ldexp_y(g, out): return g * out * _LN2


_LN2 = math.log(2.0)
LDEXP = OpDef("ldexp", lambda x, y: x * np.exp2(y), n_in=2, grads=(d_ldexp_x, d_ldexp_y))


PUBLIC = ("gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift", "frexp", "ldexp")
METHODS = PUBLIC
INPLACE = {"gcd_": (gcd, False), "lcm_": (lcm, False),
           "bitwise_left_shift_": (bitwise_left_shift, False),
           "bitwise_right_shift_": (bitwise_right_shift, False), "ldexp_": (ldexp, False)}
