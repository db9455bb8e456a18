"""dtypes: the supported types, the default float type and torch's promotion rules."""
import builtins

import numpy as np

float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
bool_ = np.dtype(np.bool_)
# torch spells these too
float = float32
double = float64
long = int64
int = int32
bool = bool_

FLOATS = (float32, float64)
SUPPORTED = (float32, float64, int32, int64, bool_)
# torch's legacy tensor type names (x.type(), torch.typename, the version error's
# "[torch.FloatTensor [3]]"), without the "torch." prefix
LEGACY_TYPE_NAMES = {float32: "FloatTensor", float64: "DoubleTensor", int64: "LongTensor",
                     int32: "IntTensor", bool_: "BoolTensor"}
# The compiled code sees a dtype as a small integer: its column in the kernel table.
DTYPE_CODE = {float32: 0, float64: 1}

_default = [float32]


def set_default_dtype(dtype):
    """Set the dtype that Python floats become (float32 unless changed), like torch."""
    if dtype is None:       # NumPy would read it as float64
        raise TypeError("invalid dtype object: only floating-point types are supported as the "
                        "default type")
    dtype = np.dtype(dtype)
    if dtype not in FLOATS:
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = dtype


def get_default_dtype():
    return _default[0]


def qualified_name(dtype):
    """A dtype as torch prints one in messages (torch.float32): numgrad.float32, numgrad.bool."""
    dtype = np.dtype(dtype)
    return f"numgrad.{'bool' if dtype == bool_ else dtype.name}"


def is_floating(dtype):
    return dtype == float32 or dtype == float64


def canonical(dtype):
    """The numgrad dtype for a NumPy dtype; other integer and float widths map to the nearest supported one."""
    dtype = np.dtype(dtype)
    if dtype in SUPPORTED:
        return dtype
    if dtype.kind == "f":
        return float64 if dtype.itemsize > 4 else float32
    if dtype.kind in "iu":
        return int64
    if dtype.kind == "b":
        return bool_
    raise TypeError(f"numgrad does not support dtype {dtype}")


_RANK = {bool_: 0, int32: 1, int64: 2, float32: 3, float64: 4}


def promote(a, b):
    """torch.result_type for two tensor dtypes."""
    return a if _RANK[a] >= _RANK[b] else b


def promote_scalar(dtype, value):
    """The result dtype of `tensor(dtype) op python_scalar`: a scalar never upcasts within its category."""
    if isinstance(value, (builtins.bool, np.bool_)):
        return dtype
    if isinstance(value, (builtins.int, np.integer)):
        return dtype if dtype != bool_ else int64
    # a float scalar: floats stay, ints and bools become the default float type
    return dtype if is_floating(dtype) else get_default_dtype()


_SCALAR_TYPE_NAMES = {float32: "Float", float64: "Double", int32: "Int", int64: "Long", bool_: "Bool"}


# torch's C++ names of the integer types, in its overflow messages ("value cannot be converted to
# type int64_t without overflow")
C_INT_NAMES = {int32: "int", int64: "int64_t"}


def scalar_type_name(dtype):
    """torch's name of a dtype in its messages ("Float did not match Double", "... for 'Long'")."""
    dtype = np.dtype(dtype)
    return _SCALAR_TYPE_NAMES.get(dtype, dtype.name)


def tensor_type_name(data):
    """torch's name of an array's tensor type where an op prints its arguments
    ("expand(torch.FloatTensor{[2, 3]}, size=[3])"): the legacy name, an older one for bool."""
    on_cpu = builtins.type(data) is np.ndarray
    if data.dtype == bool_:
        return "CPUBoolType" if on_cpu else "CUDABoolType"
    return f"torch.{'' if on_cpu else 'cuda.'}{LEGACY_TYPE_NAMES[np.dtype(data.dtype)]}"


_C_TYPE_NAMES = {float32: "float", float64: "double", int32: "int", int64: "long int", bool_: "bool"}


def c_type_name(dtype):
    """torch's other name of a dtype in messages, the C++ type's ("float != double", "the
    desired output type long int")."""
    dtype = np.dtype(dtype)
    return _C_TYPE_NAMES.get(dtype, dtype.name)


def name(dtype):
    return "numgrad." + {float32: "float32", float64: "float64", int32: "int32", int64: "int64",
                         bool_: "bool"}[dtype]
