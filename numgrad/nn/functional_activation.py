"""Activations for numgrad.nn.functional: elementwise nonlinearities, softmax and its relatives.

Composites of numgrad ops where that is exact, with torch's gradients at the kinks (a mask on the
strict inequality where torch uses one); one fused node (numgrad.ops.nn_ops) where the composite
would cost several.

>>> import numgrad as ng
>>> import numgrad.nn.functional as F
>>> F.softmax(ng.tensor([[1.0, 2.0, 3.0]]), dim=1)
tensor([[0.0900, 0.2447, 0.6652]])
"""
import functools
import warnings

import numpy as np

from .. import dtypes, grad_mode
from ..ops import elementwise as _E
from ..ops import nn_ops as _N
from ..ops.named import named, read_by_backward, rename
from ..tensor import _wrap_dim

# selu's constants, from Klambauer et al. (2017), as torch spells them
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_TORCH_DTYPE_NAMES = {np.dtype(np.float32): "Float", np.dtype(np.float64): "Double"}


def _maybe_inplace(fn, input, inplace, node_name=None, inplace_name=None, attributes=None):
    """fn(input); inplace=True writes it into input (bumping its version), like torch. Out of
    place, node_name is the torch node the composite stands for (Note [named composites]); in
    place, the node is inplace_name (torch's in-place forms that save their result are
    ...Backward1), else node_name. A named node shows `attributes` (a dict of torch's
    non-tensor arguments), in place or not."""
    if not inplace:
        if node_name:
            return named(fn(input), node_name, input, attributes=attributes)
        return fn(input)
    from ..ops.inplace import apply_inplace
    name = inplace_name or node_name
    if not name:
        return apply_inplace(input, fn)
    # one node over the input, as torch's in-place op (the composite's inner nodes hidden)
    return apply_inplace(input, lambda x: rename(fn(x), name, inputs=(x,), attributes=attributes))


def float_kernel(kernel):
    """torch runs these activations on floating kernels only: an integer or bool input raises its
    NotImplementedError, naming the kernel, before anything else is checked."""
    def wrap(fn):
        @functools.wraps(fn)
        def checked(input, *args, **kwargs):
            dtype = getattr(input, "dtype", None)
            if dtype is not None and not dtypes.is_floating(dtype):
                raise NotImplementedError(f'"{kernel}" not implemented for '
                                          f"'{dtypes.scalar_type_name(dtype)}'")
            return fn(input, *args, **kwargs)
        return checked
    return wrap


# ---- activations ---------------------------------------------------------------------------------
def relu(input, inplace=False):
    """max(x, 0).

    >>> F.relu(ng.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """
    return input.relu_() if inplace else _E.relu(input)


@float_kernel("leaky_relu_cpu")
def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x where x > 0, else negative_slope * x."""
    return _maybe_inplace(lambda x: _N.leaky_relu(x, negative_slope), input, inplace,
                          inplace_name="LeakyReluBackward1")


@float_kernel("elu_cpu")
def elu(input, alpha=1.0, inplace=False):
    """x where x > 0, else alpha * (exp(x) - 1)."""
    return _maybe_inplace(lambda x: _N.elu(x, alpha), input, inplace, inplace_name="EluBackward1")


@float_kernel("GeluKernelImpl")
def gelu(input, approximate="none"):
    """x * Phi(x) (exact, with erf) or its tanh approximation (approximate="tanh").

    >>> F.gelu(ng.tensor([1.0]))
    tensor([0.8413])
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _N.gelu(input, approximate)


@float_kernel("silu_cpu")
def silu(input, inplace=False):
    """x * sigmoid(x)."""
    return _maybe_inplace(_N.silu, input, inplace)


# torch's defaults are the ints 1 and 20, as its node shows them
@float_kernel("softplus_cpu")
def softplus(input, beta=1, threshold=20):
    """log(1 + exp(beta x)) / beta, and x itself where beta x > threshold."""
    return _N.softplus(input, beta, threshold)


def sigmoid(input):
    return _E.sigmoid(input)


@float_kernel("log_sigmoid_cpu")
def logsigmoid(input):
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), exact at both tails. Both pieces are
    selects on x < 0, as torch's derivative is: 0 counts as positive (there min(x, 0) has slope 0
    and -|x| slope -1), so the first derivative at 0 is 1/2 and the second -1/4 (with abs, whose
    slope at 0 is 0, the second was 0)."""
    negative = input < 0.0
    magnitude = _E.where(negative, -input, input)
    return named(_E.where(negative, input, 0.0) - _E.log1p(_E.exp(-magnitude)),
                 "LogSigmoidBackward0", input)


def _piecewise(x, lo, hi, inner, below, above):
    """inner(x) strictly between lo and hi, below (x <= lo) and above (x >= hi) outside, each a
    constant or a function of x: torch's gradient is zero at the bounds themselves, where
    clamp's would not be. As torch's kernels, NaN takes the `above` branch (their else) and a
    constant branch keeps it NaN; inner sees x only where it is chosen, so that its gradient
    elsewhere stays zero at infinite x (not 0 * inf)."""
    with grad_mode.composite_masks():
        seen = x.detach()
        nan = seen != seen

        def branch(value):
            return value(x) if callable(value) else _E.where(nan, seen, float(value))
        middle = (x > lo) & (x < hi)
        inside = inner(_E.where(middle, x, 0.5 * (lo + hi)))
        return _E.where(x < hi, _E.where(middle, inside, branch(below)), branch(above))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """x clamped to [min_val, max_val].

    >>> F.hardtanh(ng.tensor([-2.0, 0.5, 2.0]))
    tensor([-1.0000,  0.5000,  1.0000])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input.dtype == np.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    return _maybe_inplace(lambda x: _N.hardtanh(x, min_val, max_val), input, inplace)


def relu6(input, inplace=False):
    """min(max(x, 0), 6): torch's hardtanh(x, 0, 6), with int bounds."""
    return hardtanh(input, 0, 6, inplace)


def softsign(input):
    """x / (1 + |x|)."""
    return input / (_E.abs(input) + 1.0)


@float_kernel("mish_cpu")
def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    return _maybe_inplace(lambda x: x * _E.tanh(_N.softplus(x)), input, inplace, "MishBackward0")


# torch's hardsigmoid gradient is the float32 1/6 in every dtype (its kernel's constant is
# 1.0f / 6.0f): float64 gradients differ from 1/6 in the 8th digit
_HARDSIGMOID_SLOPE = float(np.float32(1.0) / np.float32(6.0))


def _hardsigmoid_inside(v):
    """(v + 3) / 6, exactly, with torch's slope as its gradient (slope v - (slope v).detach()
    is zero)."""
    sloped = v * _HARDSIGMOID_SLOPE
    return ((v + 3.0) / 6.0).detach() + (sloped - sloped.detach())


@float_kernel("hardsigmoid_cpu")
def hardsigmoid(input, inplace=False):
    """min(max(x + 3, 0), 6) / 6."""
    return _maybe_inplace(lambda x: _piecewise(x, -3.0, 3.0, _hardsigmoid_inside, 0.0, 1.0),
                          input, inplace, "HardsigmoidBackward0")


@float_kernel("hardswish_cpu")
def hardswish(input, inplace=False):
    """x * min(max(x + 3, 0), 6) / 6 (gradient 1 from x = 3 on, as torch's)."""
    return _maybe_inplace(_N.hardswish, input, inplace, inplace_name="HardswishBackward0")


@float_kernel("glu_cpu")
def glu(input, dim=-1):
    """a * sigmoid(b), where a and b are the two halves of input along dim."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _wrap_dim(dim, input.ndim)
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{input.shape[d]}")
    a, b = input.chunk(2, d)
    return named(a * _E.sigmoid(b), "GluBackward0", input, attributes={"dim": dim})


def tanh(input):
    return _E.tanh(input)


def _implicit_dim(name, ndim):
    """torch's legacy rule for a softmax called without dim, with its warning naming the function
    (stacklevel 4: the caller of softmax, through _rowwise)."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  "include dim=X as an argument.", UserWarning, stacklevel=4)
    return 0 if ndim in (0, 1, 3) else 1


def _rowwise(op, name, input, dim, dtype):
    if dim is None:
        dim = _implicit_dim(name, input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    if not input.is_floating_point():
        # torch has no integer softmax: its kernel's refusal, named by the dim it would run along
        last = _wrap_dim(dim, input.ndim) == input.ndim - 1
        where = "lastdim_kernel_impl" if last else "kernel_impl"
        raise NotImplementedError(f'"{op.__name__}_{where}" not implemented for '
                                  f"'{dtypes.scalar_type_name(input.dtype)}'")
    # the dim as given: torch's node shows it so (-1 unwrapped)
    return op(input, dim)


def softmax(input, dim=None, dtype=None):
    """exp(x) / sum(exp(x)) along dim, one fused node.

    >>> F.softmax(ng.tensor([0.0, 0.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    return _rowwise(_N.softmax, "softmax", input, dim, dtype)


def log_softmax(input, dim=None, dtype=None):
    """x - logsumexp(x) along dim, one fused node.

    >>> F.log_softmax(ng.tensor([0.0, 0.0]), dim=0)
    tensor([-0.6931, -0.6931])
    """
    return _rowwise(_N.log_softmax, "log_softmax", input, dim, dtype)



def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along dim.

    >>> F.softmin(ng.tensor([0.0, 0.0]), dim=0)
    tensor([0.5000, 0.5000])
    """
    return _rowwise(_N.softmax, "softmin", -input, dim, dtype)


@float_kernel("prelu_cpu")
def prelu(input, weight):
    """x where x > 0, else weight * x, with one weight for all channels or one per channel (dim 1).

    >>> F.prelu(ng.tensor([[-1.0, 2.0]]), ng.tensor([0.25]))
    tensor([[-0.2500,  2.0000]])
    """
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = "
                           f"{weight.ndim}")
    if weight.dtype != input.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{dtypes.scalar_type_name(input.dtype)} and "
                           f"{dtypes.scalar_type_name(weight.dtype)}")
    count = weight.numel()
    if count != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim >= 2 else 1
        if count != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {count} and channel size = {channels}.")
    if input.ndim >= 2:
        weight = weight.reshape((1, count) + (1,) * (input.ndim - 2))
    elif weight.ndim and input.ndim == 0:
        # a 1-D input broadcasts against the weight as given, as in torch (no view of it)
        weight = weight.reshape(())
    # the gradient at x = 0 is weight's, as torch's
    x = read_by_backward(input, "PreluKernelBackward0")
    return named(_E.where(x > 0.0, x, weight * x), "PreluKernelBackward0", input, weight)


@float_kernel("elu_cpu")
def selu(input, inplace=False):
    """scale * elu(x, alpha) with Klambauer et al.'s constants.

    >>> F.selu(ng.tensor([1.0]))
    tensor([1.0507])
    """
    return _maybe_inplace(lambda x: _N.elu(x, _SELU_ALPHA, _SELU_SCALE), input, inplace,
                          inplace_name="EluBackward1")


@float_kernel("elu_cpu")
def celu(input, alpha=1.0, inplace=False):
    """x where x > 0, else alpha * (exp(x / alpha) - 1): alpha * elu(x / alpha).

    >>> F.celu(ng.tensor([-1.0]), alpha=2.0)
    tensor([-0.7869])
    """
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _maybe_inplace(lambda x: _N.celu(x, alpha), input, inplace,
                          inplace_name="CeluBackward1", attributes={"alpha": alpha})


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else value.

    >>> F.threshold(ng.tensor([0.5, 2.0]), 1.0, -1.0)
    tensor([-1.,  2.])
    """
    if input.dtype == np.bool_:
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    return _maybe_inplace(lambda x: _N.threshold(x, threshold, value), input, inplace,
                          inplace_name="ThresholdBackward1")


def tanhshrink(input):
    """x - tanh(x)."""
    return input - _E.tanh(input)


@float_kernel("hardshrink_cpu")
def hardshrink(input, lambd=0.5):
    """x where |x| > lambd, else 0.

    >>> F.hardshrink(ng.tensor([-1.0, 0.25, 0.75]))
    tensor([-1.0000,  0.0000,  0.7500])
    """
    return _N.hardshrink(input, lambd)


@float_kernel("softshrink_check")
def softshrink(input, lambd=0.5):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0.

    >>> F.softshrink(ng.tensor([-1.0, 0.25, 0.75]))
    tensor([-0.5000,  0.0000,  0.2500])
    """
    limit = float(np.finfo(input.dtype).max)
    if not 0 <= lambd <= limit:
        raise RuntimeError(f"lambda must be in range [0, {limit:g}] for input dtype "
                           f"{_TORCH_DTYPE_NAMES[input.dtype]}, but found {lambd:g}")
    return _N.softshrink(input, lambd)
