"""numgrad: reverse-mode autograd for NumPy with PyTorch's semantics; the backward pass runs in
compiled code (Numba).

>>> import numgrad as ng
>>> x = ng.tensor(2.0, requires_grad=True)
>>> y = x * x + 3 * x
>>> y.backward()
>>> x.grad
tensor(7.)
"""
from .tensor import Size, Tensor  # noqa: I001  (first: the ops attach their methods to it)
from . import autograd, dtypes
from .creation import (arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like,
                       linspace, manual_seed, ones, ones_like, rand, rand_like, randint, randn,
                       randn_like, randperm, tensor, zeros, zeros_like)
from .device import device
from .dtypes import (bool_ as bool, double, float, float32, float64, get_default_dtype, int32,
                     int64, long, set_default_dtype)
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .ops import (abs, add, atan, atan2, bmm, broadcast_to, cat, clamp, clip, clone, cos, div, dot,
                  eq, erf, exp, expand, expm1, flatten, gather, ge, gt, index_add, index_select, le,
                  log, log1p, log2, logical_and, logical_not, logical_or, logical_xor, lt,
                  masked_fill, matmul, maximum, mean, minimum, mm, mul, mv, ne, neg, outer, permute,
                  pow, reciprocal, relu, reshape, rsqrt, scatter_add, sigmoid, sign, sin, sqrt,
                  square, squeeze, stack, sub, sum, t, tan, tanh, transpose, unbind, unsqueeze,
                  where)
from . import func, viz  # noqa: E402  (function transforms; drawing the backward graph)

__version__ = "0.1.0"
