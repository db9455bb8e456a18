"""numgrad: reverse-mode autograd for NumPy with PyTorch's semantics; the backward pass runs in
compiled code (Numba).

>>> import numgrad as ng
>>> x = ng.tensor(2.0, requires_grad=True)
>>> y = x * x + 3 * x
>>> y.backward()
>>> x.grad
tensor(7.)
"""
import math
import warnings

import numpy as np

# torch computes log(0) = -inf, 0/0 = nan and exp(1000) = inf without a word; NumPy warns each
# time. Ops run with NumPy's errors off (Note [quiet forwards] in ops/apply.py); this filter
# silences the NumPy calls made outside ops (a composite's own arithmetic), for free when nothing
# is raised, and leaves the user's NumPy settings alone (a warnings-as-errors filter put in front
# of it wins, though).
warnings.filterwarnings("ignore", r"(divide by zero|invalid value|overflow|underflow) encountered",
                        RuntimeWarning, r"numgrad\.")

from .tensor import Size, Tensor  # noqa: E402,I001  (first: the ops attach their methods to it)
from . import autograd, dtypes
from .autograd.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled
from .creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like,
                       linspace, manual_seed, ones, ones_like, rand, rand_like, randint,
                       randint_like, randn, randn_like, randperm, tensor, zeros, zeros_like)
from .creation_more import asarray, empty_strided, frombuffer, range, scalar_tensor
from .dtype_info import can_cast, finfo, iinfo, promote_types, result_type
from .generator import Generator, default_generator
from .random_state import get_rng_state, initial_seed, seed, set_rng_state
from .settings_more import (are_deterministic_algorithms_enabled, get_default_device,
                            get_deterministic_debug_mode, get_float32_matmul_precision,
                            init_num_threads, is_deterministic_algorithms_warn_only_enabled,
                            is_storage, is_warn_always_enabled, set_anomaly_enabled,
                            set_default_device, set_default_tensor_type,
                            set_deterministic_debug_mode, set_float32_matmul_precision,
                            set_flush_denormal, set_warn_always, use_deterministic_algorithms)
from .threads import get_num_interop_threads, get_num_threads, set_num_interop_threads, \
    set_num_threads
from .windows import bartlett_window, blackman_window, hamming_window, hann_window, kaiser_window
from .device import device
from .dtypes import (bool_ as bool, double, float, float32, float64, get_default_dtype, int32,
                     int64, long, set_default_dtype)
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .ops import (abs, absolute, add, addmm, all, amax, amin, any, arctan, argmax, argmin, argsort,
                  as_strided, atan,
                  atan2, baddbmm, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, bmm,
                  count_nonzero, isfinite, isinf, isnan, nonzero,
                  broadcast_to, cat, chunk, clamp, clip, clone, cos, cumprod, cumsum, diag,
                  diagonal, div, dot, einsum, eq, erf, exp, expand, expm1, flatten, flip,
                  floor_divide, fmod, gather, ge, greater, gt, index_add, index_select, le, less,
                  less_equal, log, log1p, log2,
                  logical_and, logical_not, logical_or, logical_xor, logsumexp, lt, masked_fill,
                  masked_select, matmul, max, maximum, mean, min, minimum, mm, mul, mv, ne, neg,
                  negative,
                  norm, outer, pad, permute, pow, prod, reciprocal, relu, remainder, repeat,
                  reshape, return_types, roll, rsqrt, rsub, scatter_add, sigmoid, sign, sin, sort,
                  split,
                  sqrt, square, squeeze, stack, std, std_mean, sub, sum, t, tan, tanh, topk,
                  transpose, tril, triu, unbind, unsqueeze, var, var_mean, where)
from .ops import FAMILIES as _FAMILIES
from .serialization import load, save
from ._format import set_printoptions
from . import linalg  # noqa: E402  (torch.linalg's functions, on the ops above)
# torch.linalg's functions that numgrad.ops holds (linalg.py imports the ops, not the other way);
# attached before nn, whose parametrizations use them
from .ops import linalg_more as _linalg_more  # noqa: E402
linalg.matrix_exp = _linalg_more.matrix_exp
linalg.solve_triangular = _linalg_more.solve_triangular
from . import linalg_extras  # noqa: E402  (more of torch.linalg, on the functions above)
for _name in linalg_extras.PUBLIC:
    setattr(linalg, _name, getattr(linalg_extras, _name))
from . import nn, optim, utils  # noqa: E402  (nn needs the ops above)
from . import func, viz  # noqa: E402  (function transforms; drawing the backward graph)
from . import special  # noqa: E402  (torch.special's names for the ops)
from . import cuda, distributed  # noqa: E402  (GPU and MPI: their heavy imports wait for first use)
from . import testing  # noqa: E402  (assert_close)

for _family in _FAMILIES:
    globals().update({name: getattr(_family, name) for name in _family.PUBLIC})
# torch's top-level forms of nn functions (torch.conv2d, torch.batch_norm, ...)
globals().update({name: getattr(nn.aten_forms, name) for name in nn.aten_forms.PUBLIC})
Tensor.hardshrink = nn.aten_forms.hardshrink
Tensor.i0 = i0 = special.i0
Tensor.prelu = nn.aten_forms.prelu
# functions torch has at top level that are Tensor methods with the tensor first: torch.exp_(x),
# torch.detach(x), ...
_TENSOR_FIRST = (
    "abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_",
    "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_", "detach_", "erf_", "erfc_", "exp2_",
    "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "index_put_", "log10_", "log1p_",
    "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_", "rad2deg_", "reciprocal_",
    "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_", "tan_",
    "tanh_", "trunc_", "xlogy_", "zero_", "detach", "is_floating_point", "is_inference",
    "is_nonzero", "is_same_size", "is_signed", "is_complex", "get_device", "addmv_", "gcd_",
    "lcm_", "ldexp_", "resize_as_")
globals().update({name: getattr(Tensor, name) for name in _TENSOR_FIRST})
# torch's out= keyword, on the functions of these namespaces that take it in torch
from . import out_argument as _out_argument  # noqa: E402
_out_argument.install(globals(), _out_argument.TOP_LEVEL)
_out_argument.install(vars(linalg), _out_argument.LINALG)
_out_argument.install(vars(special), _out_argument.SPECIAL)

# torch's constants
e, pi, inf, nan, newaxis = math.e, math.pi, math.inf, math.nan, None
# torch.int is int32, and torch.dtype the class of the dtypes (here NumPy's). Last, since `int`
# shadows the builtin in this module from here on.
int, dtype = int32, np.dtype
vmap = func.vmap

__version__ = "0.1.0"


def __getattr__(name):
    # numgrad.distributions loads on first use (a dozen modules numgrad's own code never needs)
    if name == "distributions":
        import importlib
        return importlib.import_module(".distributions", __name__)
    raise AttributeError(f"module 'numgrad' has no attribute '{name}'")
