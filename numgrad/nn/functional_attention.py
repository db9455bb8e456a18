"""scaled_dot_product_attention, torch's math path as a composite of numgrad ops (matmul, masked
fill, softmax, dropout), so gradients, create_graph and the GPU path need nothing new.

>>> import numgrad as ng
>>> from numgrad.nn.functional_attention import scaled_dot_product_attention
>>> q = k = v = ng.ones(2, 3, 4)
>>> scaled_dot_product_attention(q, k, v, is_causal=True).shape
numgrad.Size([2, 3, 4])
"""
import math

import numpy as np

from .. import creation, dtypes
from ..ops import elementwise as _E
from ..ops.linalg import infer_size_error
from ..ops.named import named
from ..tensor import Tensor
from . import functional as F

# torch's names for dtypes in its error messages
_TORCH_DTYPE_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
                      "bool": "bool"}


def _torch_dtype_name(dtype):
    return _TORCH_DTYPE_NAMES.get(np.dtype(dtype).name, np.dtype(dtype).name)


def _host_mask(array, device):
    """A constant bool tensor built on the host and moved to device (no gradient)."""
    return Tensor._make(array, False).to(device)


def _check_inputs(query, key, value, attn_mask, is_causal):
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {_torch_dtype_name(query.dtype)} key.dtype: "
                           f"{_torch_dtype_name(key.dtype)} and value.dtype: "
                           f"{_torch_dtype_name(value.dtype)} instead.")
    if not query.device.type == key.device.type == value.device.type:
        raise RuntimeError(f"Expected query, key, and value to have the same device type, but got "
                           f"query.device: {query.device} key.device: {key.device} and "
                           f"value.device: {value.device} instead.")
    if min(query.ndim, key.ndim, value.ndim) < 2:
        # the doubled space is torch's
        raise RuntimeError(f"Expected query, key, and value to all be  at least 2 dimensional, but "
                           f"got query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: "
                           f"{value.ndim} instead.")
    if attn_mask is not None:
        mask_dtype = attn_mask.dtype
        if mask_dtype not in (dtypes.bool, dtypes.float32, query.dtype):
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query "
                               f"dtype, but got attn_mask.dtype: {_torch_dtype_name(mask_dtype)} "
                               f"and  query.dtype: {_torch_dtype_name(query.dtype)} instead.")
        if is_causal:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                               "set when is_causal=True")


def _check_bmm(batch_shape, expected, got):
    """torch's message when the two products' inner sizes disagree (it names the flattened
    batch as bmm sees it)."""
    if expected != got:
        batch = math.prod(batch_shape)
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{batch}, {expected}] but got: [{batch}, {got}].")


def _check_mask_shape(shape, mask_shape):
    """The mask must broadcast to the scores' shape without growing it (torch adds it in place)."""
    offset = len(shape) - len(mask_shape)
    for dim, size in enumerate(mask_shape):
        if offset + dim >= 0 and size not in (1, shape[offset + dim]):
            raise RuntimeError(f"The size of tensor a ({shape[offset + dim]}) must match the size "
                               f"of tensor b ({size}) at non-singleton dimension {offset + dim}")
    if offset < 0:
        grown = list(mask_shape[:-offset]) + list(shape)
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                           f"{grown}")


def _repeat_heads(query, tensor):
    """Grouped-query attention: each of key's (or value's) heads serves a group of query heads."""
    if query.ndim < 3 or tensor.ndim < 3 or query.shape[-3] % tensor.shape[-3]:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in "
                           "query")
    groups = query.shape[-3] // tensor.shape[-3]
    return tensor if groups == 1 else tensor.repeat_interleave(groups, dim=-3)


def _safe_softmax(scores):
    """softmax over the last dim, with rows masked entirely (all -inf) giving zeros, as torch's
    sdpa does since 2.5. Those rows are zeroed before the softmax too, so that no nan reaches the
    backward (0 * nan would still be nan)."""
    dead = (scores.detach() == -math.inf).all(-1, keepdim=True)
    if not bool(dead.any()):
        weights = F.softmax(scores, -1)
    else:
        weights = _E.where(dead, 0.0, F.softmax(_E.where(dead, 0.0, scores), -1))
    # torch's one node, _safe_softmax's
    return named(weights, "SafeSoftmaxBackward0", inputs=(scores,))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 scale=None, enable_gqa=False):
    """softmax(query @ key^T * scale + mask) @ value over the last two dims; leading dims broadcast.

    query (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev). scale defaults to
    1 / sqrt(E). attn_mask broadcasts to (..., L, S): a bool mask marks with True the positions
    that take part, a float mask is added to the scores. is_causal masks key positions after the
    query's (the top-left aligned lower triangle, as torch). Dropout is applied to the weights
    whenever dropout_p > 0, as in torch (pass 0.0 in eval mode). enable_gqa repeats key and value
    heads (dim -3) to match the query's.

    >>> import numgrad as ng
    >>> q, k, v = ng.zeros(1, 4), ng.zeros(2, 4), ng.tensor([[1.0], [3.0]])
    >>> scaled_dot_product_attention(q, k, v)
    tensor([[2.]])
    """
    _check_inputs(query, key, value, attn_mask, is_causal)
    flash = _flash_on_cpu(query, key, value, dropout_p, enable_gqa)
    given = (query, key, value)
    if enable_gqa:
        key, value = _repeat_heads(query, key), _repeat_heads(query, value)
    length, source = query.shape[-2], key.shape[-2]
    for other in (key, value):
        try:
            np.broadcast_shapes(query.shape[:-2], other.shape[:-2])
        except ValueError:
            infer_size_error(query.shape[:-2], other.shape[:-2])     # torch's words
    batch_shape = np.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    _check_bmm(batch_shape, query.shape[-1], key.shape[-1])
    _check_bmm(batch_shape, source, value.shape[-2])
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    # torch's math kernel scales query and key by sqrt(scale) each (its rounding, its nodes)
    root = math.sqrt(scale)
    scores = _E.mul_scalar(query, root).matmul(_E.mul_scalar(key.transpose(-2, -1), root))
    if is_causal:
        attn_mask = _host_mask(np.tril(np.ones((length, source), bool)), query.device)
    if attn_mask is not None:
        _check_mask_shape(tuple(scores.shape), tuple(attn_mask.shape))
        if attn_mask.dtype == dtypes.bool:
            # torch turns a bool mask into an additive one (-inf where not attended)
            attn_mask = creation.zeros(*attn_mask.shape, dtype=scores.dtype,
                                       device=scores.device).masked_fill(
                                           attn_mask.logical_not(), -math.inf)
        scores = scores + attn_mask
    weights = _safe_softmax(scores)
    if dropout_p > 0.0:
        if dropout_p > 1.0:     # torch's check, a RuntimeError here (F.dropout's is a ValueError)
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got "
                               f"{dropout_p}")
        weights = F.dropout(weights, dropout_p)
    out = weights.matmul(value)
    if flash:
        # torch's one node for its CPU flash kernel, over the tensors given, whose output is
        # laid out as the query is
        out = named(_laid_out_as(out, given[0]), "ScaledDotProductFlashAttentionForCpuBackward0",
                    given[0], given[1], inputs=given, view_of_intermediate=True)
    return out


def _laid_out_as(out, query):
    """out, of query's shape, in the memory order of query's dims when query is dense (torch's
    flash kernel allocates its output with empty_like): MultiheadAttention's permuted query makes
    the output's permute-and-reshape a view, and the product after it an addmm."""
    sizes, strides = query.shape, query.stride()
    order = sorted(range(query.ndim), key=lambda d: (sizes[d] != 1, strides[d]), reverse=True)
    order = [d for d in order if sizes[d] != 1] + [d for d in order if sizes[d] == 1]
    expected = 1
    for d in reversed(order):
        if sizes[d] != 1 and strides[d] != expected:
            return out          # not dense: torch's output is contiguous
        expected *= sizes[d]
    if order == sorted(order):
        return out
    inverse = [order.index(d) for d in range(query.ndim)]
    return out.permute(*order).contiguous().permute(*inverse)


def _flash_on_cpu(query, key, value, dropout_p, enable_gqa):
    """Whether torch's CPU dispatch picks its flash kernel: 4-D inputs of one batch and one head
    size (heads may differ only under enable_gqa), no dropout."""
    if not (query.ndim == key.ndim == value.ndim == 4) or dropout_p > 0.0:
        return False
    if not query.shape[-1] == key.shape[-1] == value.shape[-1]:
        return False
    if not query.shape[0] == key.shape[0] == value.shape[0]:
        return False
    return enable_gqa or query.shape[1] == key.shape[1] == value.shape[1]
