"""Dropout for numgrad.nn.functional: elementwise, channel-wise (dropout1d, dropout2d) and alpha
dropout. Masks are drawn on the host by numgrad's seeded generator (numgrad.manual_seed makes
them reproducible, the same on every device) and multiply the input: the gradient is the mask's.

>>> import numgrad as ng
>>> import numgrad.nn.functional as F
>>> F.dropout(ng.ones(4), p=0.5, training=False)
tensor([1., 1., 1., 1.])
"""
import math
import warnings

import numpy as np

from .. import creation, dtypes
from ..tensor import Tensor
from .bool_argument import check_bool

# alpha dropout's dropped value: -scale * alpha of selu, so the self-normalising mean and variance
# survive (Klambauer et al. 2017), as torch's constant
_ALPHA_PRIME = 1.7580993408473766


def _check_p(p):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep(shape, p):
    """A float64 host array: 1 where an element (or channel) is kept, with probability 1 - p."""
    if p == 1.0:
        return np.zeros(shape)
    return (creation.generator().random(shape, dtype=np.float64) >= p).astype(np.float64)


def _check_float_result(input, alpha=False):
    """torch scales the input by a float mask into the input's dtype: an integer or bool input
    fails that cast (alpha dropout's arithmetic has made a bool one Long by then)."""
    if not dtypes.is_floating(input.dtype):
        name = "Long" if alpha and input.dtype == dtypes.bool else \
            dtypes.scalar_type_name(input.dtype)
        raise RuntimeError(f"result type Float can't be cast to the desired output type {name}")


def _apply(input, factor, inplace, offset=None):
    factor = Tensor._make(factor.astype(input.dtype), False).to(input.device)
    if offset is not None:
        offset = Tensor._make(offset.astype(input.dtype), False).to(input.device)
    if inplace:
        input.mul_(factor)
        return input if offset is None else input.add_(offset)
    out = input * factor
    return out if offset is None else out + offset


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1 / (1 - p), in training.

    >>> F.dropout(ng.ones(4), p=0.0)
    tensor([1., 1., 1., 1.])
    """
    _check_p(p)
    check_bool(training, "dropout_" if inplace else "dropout", "train", 3)
    if not training or p == 0.0:
        return input
    if p != 1.0:
        _check_float_result(input)
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    return _apply(input, _keep(input.shape, p) * scale, inplace)


def _feature_dropout(input, p, training, inplace, batched=True):
    """Whole channels (dim 1 of (N, C, *), dim 0 when not batched) zeroed with probability p, the
    rest scaled by 1 / (1 - p)."""
    check_bool(training, "feature_dropout_" if inplace else "feature_dropout", "train", 3)
    if not batched and not inplace:
        # torch batches an unbatched input as a view, and views the result back (in eval too)
        return _feature_dropout(input.unsqueeze(0), p, training, False).squeeze(0)
    if not training or p == 0.0:
        return input
    if p != 1.0:
        _check_float_result(input)
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    lead = 2 if batched else 1
    shape = tuple(input.shape[:lead]) + (1,) * (input.ndim - lead)
    return _apply(input, np.broadcast_to(_keep(shape, p) * scale, input.shape), inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L) inputs with probability p, scaling the rest.

    >>> F.dropout1d(ng.ones(2, 3), training=False).shape
    numgrad.Size([2, 3])
    """
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout on "
                           "inputs with 1 spatial dimension, a channel dimension, and an optional "
                           "batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, batched=input.ndim == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, H, W) inputs with probability p, scaling the rest. As torch,
    a 3-D input is read as (N, C, L) (with its warning), not as an unbatched (C, H, W).

    >>> F.dropout2d(ng.ones(1, 2, 2, 2), p=1.0).sum()
    tensor(0.)
    """
    _check_p(p)
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is "
                      "deprecated and will result in an error in a future release. To retain the "
                      "behavior and silence this warning, please use dropout instead. Note that "
                      "dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D "
                      "or 4D inputs).", UserWarning, stacklevel=2)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                      "1D dropout behavior is desired - input is interpreted as shape (N, C, L), "
                      "where C is the channel dim. This behavior will change in a future release "
                      "to interpret the input as one without a batch dimension, i.e. shape (C, H, "
                      "W). To maintain the 1D channel-wise dropout behavior, please switch to "
                      "using dropout1d instead.", UserWarning, stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for selu networks: dropped elements take selu's negative saturation value and an
    affine map a * x + b restores zero mean and unit variance (torch's a and b).

    >>> F.alpha_dropout(ng.ones(3), 0.5)
    tensor([1., 1., 1.])
    """
    _check_p(p)
    check_bool(training, "alpha_dropout_" if inplace else "alpha_dropout", "train", 3)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return _apply(input, np.zeros(input.shape), inplace)
    _check_float_result(input, alpha=True)
    keep = _keep(input.shape, p)
    a = 1.0 / math.sqrt((_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    offset = (keep - 1.0) * (_ALPHA_PRIME * a) + _ALPHA_PRIME * a * p
    return _apply(input, keep * a, inplace, offset)
