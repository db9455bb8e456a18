"""Neural-network primitives, each one node where the composite would be several: softmax,
log_softmax, cross_entropy (class indices), linear, conv2d, im2col/col2im (pooling, and conv2d's
double backward), a normalisation's scale and shift, and activations given as one derivative
formula each.

The forwards are NumPy. The backwards of the non-elementwise ops are the kernels in the "nn"
section of kernels/cpu.py; beside each op sits its VJP in numgrad ops, used by create_graph. The
activations follow elementwise.py: one formula is both the compiled kernel and the VJP.
"""
import math

import numpy as np

from .. import dtypes, grad_mode
from ..kernels import cpu as _cpu
from ..tensor import _wrap_dim
from . import fmath as F
from .apply import apply, show_attributes
from .elementwise import reads
from .elementwise import reads
from .named import pass_through_vjp, rename
from .registry import OpDef

# ---- softmax and log_softmax over one dim ---------------------------------------------------------
# The kernels see the input as (outer, n, inner) with the reduced dim in the middle.


def _rows_meta(dim, rows):
    return (*rows, dim), ()


# The forwards work on x as (outer, n, inner) rows, so a 0-d x is one row of one element.
def _softmax_forward(x, dim, rows):
    return _cpu.softmax_forward(np.ascontiguousarray(x).reshape(rows), False).reshape(x.shape)


def _log_softmax_forward(x, dim, rows):
    return _cpu.softmax_forward(np.ascontiguousarray(x).reshape(rows), True).reshape(x.shape)


# Under create_graph torch records its backward op, _softmax_backward_data(grad_output, output,
# dim): one node, listing the gradient and the output, where the composite below records four
def _softmax_vjp(ctx, g):
    (y,) = ctx.saved
    dim = int(ctx.ints[3])
    return (_backward_data("SoftmaxBackwardDataBackward0", y * (g - (g * y).sum(dim, keepdim=True)),
                           g, y, dim),)


def _log_softmax_vjp(ctx, g):
    (y,) = ctx.saved
    dim = int(ctx.ints[3])
    return (_backward_data("LogSoftmaxBackwardDataBackward0",
                           g - y.exp() * g.sum(dim, keepdim=True), g, y, dim),)


def _backward_data(node_name, result, g, y, dim):
    from .named import named
    return named(result, node_name, g, y, saved_names=("grad_output", "output"),
                 attributes={"dim": dim})


SOFTMAX = OpDef("softmax", _softmax_forward, node_name="SoftmaxBackward0", saves=("out",),
                kernel="softmax_bwd", vjp=_softmax_vjp, meta=_rows_meta)
LOG_SOFTMAX = OpDef("log_softmax", _log_softmax_forward, node_name="LogSoftmaxBackward0",
                    saves=("out",), kernel="log_softmax_bwd", vjp=_log_softmax_vjp, meta=_rows_meta)


# Note [batch norm's normalisation]
# A training-mode batch norm normalises each channel by its batch statistics. Composed of numgrad
# ops (a mean, a difference, a mean of squares, rsqrt, a product) its backward was nine nodes
# and eight passes over the input's size; as one node the kernel makes three: the per-channel
# sums of g and g * x_hat, then the gradient. The node has the statistics as two more outputs,
# the biased variance and the mean (for the running statistics), and saves x_hat and the variance;
# their gradients are used where a graph differentiates the statistics (a second backward).
def _batch_norm_forward(x, eps, rows):
    lines = x.reshape(rows)
    mean = np.mean(lines, axis=(0, 2), keepdims=True)
    centred = lines - mean
    var = np.mean(centred * centred, axis=(0, 2), keepdims=True)
    x_hat = centred * np.reciprocal(np.sqrt(var + x.dtype.type(eps)))
    return x_hat.reshape(x.shape), mean.reshape(-1), var.reshape(-1)


def _batch_norm_vjp(ctx, g, g_mean, g_var):
    x_hat, var = ctx.saved
    outer, channels, inner = (int(v) for v in ctx.ints[:3])
    eps, count = float(ctx.floats[0]), outer * inner
    shape = (1, channels) + (1,) * (x_hat.ndim - 2)
    dims = (0,) + tuple(range(2, x_hat.ndim))
    invstd = (var + eps).rsqrt().reshape(shape)
    gx = invstd * (g - g.mean(dims, keepdim=True) - x_hat * (g * x_hat).mean(dims, keepdim=True))
    # d mean / dx = 1 / count; d var / dx = 2 (x - mean) / count = 2 x_hat / (invstd count)
    return (gx + g_mean.reshape(shape) / count + g_var.reshape(shape) * 2 * x_hat / (invstd * count),)


BATCH_NORM_STATS = OpDef("batch_norm_stats", _batch_norm_forward, node_name="NativeBatchNormBackward0",
                         n_out=3, saves=("out", "out2"), kernel="batch_norm_bwd",
                         vjp=_batch_norm_vjp, meta=lambda eps, rows: (rows, (eps,)),
                         saved_names=(None, None))


# With a weight and a bias (BatchNorm's affine=True) the node also scales and shifts, as torch's
# native_batch_norm: it saves x, w and the statistics, and its kernel makes two passes over the
# data (the sums of g and (x - mean) g, then the gradient) where the stats node, an affine node
# and the named node around them made six.
def _batch_norm_affine_forward(x, w, b, eps, rows):
    out, mean, var = _cpu.batch_norm_forward(np.ascontiguousarray(x).reshape(rows), w, b, eps)
    return out.reshape(x.shape), mean, var


def _batch_norm_affine_vjp(ctx, g, g_mean, g_var):
    x, w, mean, var = ctx.saved
    outer, channels, inner = (int(v) for v in ctx.ints[:3])
    eps, count = float(ctx.floats[0]), outer * inner
    shape = (1, channels) + (1,) * (x.ndim - 2)
    dims = (0,) + tuple(range(2, x.ndim))
    invstd = (var + eps).rsqrt().reshape(shape)
    centred = x - mean.reshape(shape)
    x_hat = centred * invstd
    needs = ctx.needs_input_grad
    gx = gw = gb = None
    if needs[0]:
        gxh = g * w.reshape(shape)
        gx = invstd * (gxh - gxh.mean(dims, keepdim=True)
                       - x_hat * (gxh * x_hat).mean(dims, keepdim=True))
        gx = gx + g_mean.reshape(shape) / count + g_var.reshape(shape) * 2 * centred / count
    if needs[1]:
        gw = (g * x_hat).sum(dims)
    if needs[2]:
        gb = g.sum(dims)
    return gx, gw, gb


BATCH_NORM = OpDef("batch_norm", _batch_norm_affine_forward, node_name="NativeBatchNormBackward0",
                   n_in=3, n_out=3, grad_outputs=1, saves=("x", "y", "out1", "out2"),
                   kernel="batch_norm_affine_bwd",
                   vjp=_batch_norm_affine_vjp, meta=lambda eps, rows: (rows, (eps,)),
                   readers=((0, 1), (0,), (), ()), saved_names=("input", "weight", "result1", None))


def batch_norm(x, w, b, eps):
    """(out, mean, biased variance) of a training-mode batch norm of an (N, C, *) host tensor
    with weight w and bias b, in one node (Note [batch norm's normalisation])."""
    shape = x._data.shape
    rows = (shape[0], shape[1], math.prod(shape[2:]))
    return apply(BATCH_NORM, (x, w, b), {"eps": float(eps), "rows": rows})


# Note [layer norm's rows]
# A layer norm with a weight and a bias is one node, as torch's native_layer_norm: each row of the
# normalised dims (`inner` elements, contiguous) is normalised by its own mean and rstd =
# 1 / sqrt(var + eps), then scaled and shifted elementwise. Like torch's, the node has the rows'
# mean and rstd as two more outputs, shaped as the input with the normalised dims kept as 1
# (grad_fn._saved_result1, _saved_result2), which no gradient flows into. It saves x, w and them;
# its kernel reads the statistics instead of recomputing them (two passes over each row fewer),
# sums each row in cache, and sums the parameters' gradients over the rows in float64.
# Composed of numgrad ops it was a dozen nodes. The VJP (create_graph) recomputes the statistics
# from x, so that a second backward differentiates them.
def _layer_norm_forward(x, w, b, eps, rows, stat_shape):
    if not w.size:
        # rows of no element: torch's mean is 0 and its rstd NaN
        return x.copy(), np.zeros(stat_shape, x.dtype), np.full(stat_shape, np.nan, x.dtype)
    out, mean, rstd = _cpu.layer_norm_forward(np.ascontiguousarray(x).reshape(rows),
                                              w.reshape(-1), b.reshape(-1), eps)
    return out.reshape(x.shape), mean.reshape(stat_shape), rstd.reshape(stat_shape)


def _layer_norm_vjp(ctx, g, g_mean, g_rstd):
    x, w = ctx.saved[:2]
    rows, inner = (int(v) for v in ctx.ints[:2])
    eps = float(ctx.floats[0])
    x_rows, g_rows = x.reshape(rows, inner), g.reshape(rows, inner)
    centred = x_rows - x_rows.mean(1, keepdim=True)
    rstd = ((centred * centred).mean(1, keepdim=True) + eps).rsqrt()
    x_hat = centred * rstd
    needs = ctx.needs_input_grad
    gx = gw = gb = None
    if needs[0]:
        gxh = g_rows * w.reshape(inner)
        gx = (rstd * (gxh - gxh.mean(1, keepdim=True)
                      - x_hat * (gxh * x_hat).mean(1, keepdim=True))).reshape(x.shape)
    if needs[1]:
        gw = (g_rows * x_hat).sum(0).reshape(w.shape)
    if needs[2]:
        gb = g_rows.sum(0).reshape(w.shape)
    return gx, gw, gb


LAYER_NORM = OpDef("layer_norm", _layer_norm_forward, node_name="NativeLayerNormBackward0", n_in=3,
                   n_out=3, grad_outputs=1, saves=("x", "y", "out1", "out2"),
                   kernel="layer_norm_bwd", vjp=_layer_norm_vjp,
                   meta=lambda eps, rows, stat_shape: (rows, (eps,)),
                   readers=((0, 1), (0,), (), ()),
                   saved_names=("input", "weight", "result1", "result2"))


def layer_norm(x, w, b, eps):
    """A layer norm of a host tensor over w's dims, the last ones of x (Note [layer norm's
    rows]); returns the output only."""
    inner = w._data.size
    rows = (x._data.size // inner if inner else 0, inner)
    stat_shape = x._data.shape[:x._data.ndim - w._data.ndim] + (1,) * w._data.ndim
    return apply(LAYER_NORM, (x, w, b), {"eps": float(eps), "rows": rows,
                                         "stat_shape": stat_shape})[0]


# Note [group norm's groups]
# A group norm with a weight and a bias is one node, as torch's native_group_norm: each sample's
# channels are split into `groups` groups, and each group's D = channels / groups * inner elements
# (contiguous) are normalised by their own mean and rstd = 1 / sqrt(var + eps), then each channel
# scaled and shifted. The node has the (N, groups) means and rstds as two more outputs, as
# torch's, which it saves with x and w; gradients reaching them are part of the node's. The kernel
# follows torch's formulation (kernels/cpu.py group_norm_bwd): two passes over the data, the
# channel rows' sums then the gradient. Composed of numgrad ops it was a dozen nodes and 4-8x
# torch's time.
def _group_norm_forward(x, w, b, eps, dims):
    n, channels, inner, groups = dims
    if not channels * inner:
        # groups of no element: torch's mean is 0 and its rstd NaN
        stats = (n, groups)
        return x.copy(), np.zeros(stats, x.dtype), np.full(stats, np.nan, x.dtype)
    out, mean, rstd = _cpu.group_norm_forward(np.ascontiguousarray(x).reshape(n, channels, inner),
                                              w, b, groups, eps)
    return out.reshape(x.shape), mean, rstd


def _group_norm_vjp(ctx, g, g_mean, g_rstd):
    x, w = ctx.saved[:2]
    n, channels, inner, groups = (int(v) for v in ctx.ints[:4])
    eps = float(ctx.floats[0])
    count = channels // groups * inner
    x_groups = x.reshape(n, groups, count)
    mean = x_groups.mean(2, keepdim=True)
    centred = x_groups - mean
    rstd = ((centred * centred).mean(2, keepdim=True) + eps).rsqrt()
    x_hat = centred * rstd
    g_rows = g.reshape(n, channels, inner)
    needs = ctx.needs_input_grad
    gx = gw = gb = None
    if needs[0]:
        gxh = (g_rows * w.reshape(1, channels, 1)).reshape(n, groups, count)
        gx = rstd * (gxh - gxh.mean(2, keepdim=True) - x_hat * (gxh * x_hat).mean(2, keepdim=True))
        # d mean / dx = 1 / D; d rstd / dx = -rstd^3 (x - mean) / D
        gx = gx + g_mean.reshape(n, groups, 1) / count \
            - g_rstd.reshape(n, groups, 1) * rstd * rstd * rstd * centred / count
        gx = gx.reshape(x.shape)
    if needs[1]:
        gw = (g_rows * x_hat.reshape(n, channels, inner)).sum((0, 2))
    if needs[2]:
        gb = g_rows.sum((0, 2))
    return gx, gw, gb


GROUP_NORM = OpDef("group_norm", _group_norm_forward, node_name="NativeGroupNormBackward0", n_in=3,
                   n_out=3, saves=("x", "y", "out1", "out2"), kernel="group_norm_bwd",
                   vjp=_group_norm_vjp, meta=lambda eps, dims: (dims, (eps,)),
                   readers=((0, 1), (0,), (), ()),
                   saved_names=("input", "weight", "result1", "result2"))


def group_norm(x, w, b, groups, eps):
    """(out, mean, rstd) of a group norm of an (N, C, *) host tensor with weight w and bias b
    (Note [group norm's groups])."""
    shape = x._data.shape
    dims = (shape[0], shape[1], math.prod(shape[2:]), groups)
    return apply(GROUP_NORM, (x, w, b), {"eps": float(eps), "dims": dims})


def batch_norm_stats(x, eps):
    """(x_hat, mean, biased variance) of an (N, C, *) host tensor, per channel over the batch and
    the further dims, in one node (Note [batch norm's normalisation])."""
    shape = x._data.shape
    rows = (shape[0], shape[1], math.prod(shape[2:]))
    return apply(BATCH_NORM_STATS, (x,), {"eps": float(eps), "rows": rows})


def _rows_attrs(x, dim):
    """The wrapped dim and the (outer, n, inner) rows along it; a 0-d x has a dim 0 (or -1) of
    one element, as in torch."""
    dim = _wrap_dim(dim, x._data.ndim)
    shape = x._data.shape or (1,)
    return {"dim": dim, "rows": (math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1:]))}


def softmax(x, dim):
    """exp(x) / exp(x).sum(dim), shifted by the max so it never overflows (SoftmaxBackward0)."""
    return show_attributes(apply(SOFTMAX, (x,), _rows_attrs(x, dim)), dim=dim)


def log_softmax(x, dim):
    """x - logsumexp(x, dim), computed stably (LogSoftmaxBackward0)."""
    return show_attributes(apply(LOG_SOFTMAX, (x,), _rows_attrs(x, dim)), dim=dim)


# ---- cross entropy with class indices ---------------------------------------------------------------
# Note [cross entropy coefficients]
# Row i's loss is -sum_c a[i, c] * log_softmax(x)[i, c] with
#     a[i, c] = w[t_i] * [c == t_i]      (0 for an ignored row),
# torch's nll_loss over log_softmax with class weights. Its gradient is
# g_i * scale * (p[i, c] * A_i - a[i, c]) with p = softmax(x) and A_i = sum_c a[i, c] = w[t_i].
# `scale` is 1 / sum of w[t_i] over kept rows for the mean, else 1. Label smoothing is torch's
# composite around this node (nn/functional_losses.py), not a coefficient here.
NONE, MEAN, SUM = 0, 1, 2


def ce_coefficients(target, weight, ignore_index):
    """The matrix a of Note [cross entropy coefficients], as a NumPy array."""
    classes = weight.shape[0]
    kept = target != ignore_index
    safe = np.where(kept, target, 0)
    a = np.zeros((target.shape[0], classes), weight.dtype)
    a[np.arange(target.shape[0]), safe] = weight[safe]
    a[~kept] = 0
    return a


def _ce_forward(x, target, weight, ignore_index, reduction, scale):
    loss = _cpu.cross_entropy_rows(np.ascontiguousarray(x), target, weight, ignore_index)
    if reduction == NONE:
        return loss
    return np.asarray(loss.sum() * scale, x.dtype)


def _ce_vjp(ctx, g):
    x, target, weight = ctx.saved
    ignore_index, reduction = int(ctx.ints[0]), int(ctx.ints[1])
    scale = float(ctx.floats[0])
    a = ce_coefficients(target._data, weight._data, ignore_index) * weight._data.dtype.type(scale)
    # torch's two backward ops, each a node under create_graph: nll_loss_backward gives the
    # log-probabilities' gradient -a g (reading them with derivative zero), and
    # _softmax_backward_data's log form turns it into the logits' (x is the node torch shows as
    # its log_softmax: Note [torch's inner nodes])
    nll_grad = reads((g.unsqueeze(1) if reduction == NONE else g) * -a, x,
                       "NllLossBackwardBackward0", g)
    gx = nll_grad - softmax(x, 1) * nll_grad.sum(1, keepdim=True)
    return (_backward_data("LogSoftmaxBackwardDataBackward0", gx, nll_grad, x, 1), None, None)


# one fused node; named as the last of torch's (nll_loss over log_softmax) for class indices
CROSS_ENTROPY = OpDef("cross_entropy", _ce_forward, node_name="NllLossBackward0", n_in=3, listed=(0,),
                      saves=("x", "y", "z"), kernel="cross_entropy_bwd", vjp=_ce_vjp,
                      meta=lambda ignore_index, reduction, scale:
                      ((ignore_index, reduction), (scale,)), saved_names=(None, None, None))


def cross_entropy(x, target, weight, ignore_index, reduction):
    """Cross entropy of logits x (M, C) against class indices target (M,): an int64 array.
    weight: (C,) array of x's dtype. reduction: NONE, MEAN or SUM."""
    total, bad = _cpu.class_weight_total(target, weight, ignore_index)
    if bad != ignore_index:
        raise IndexError(f"Target {bad} is out of bounds.")
    scale = 1.0
    if reduction == MEAN:
        scale = 1.0 / total if total else math.nan
    attrs = {"ignore_index": ignore_index, "reduction": reduction, "scale": scale}
    return apply(CROSS_ENTROPY, (x, target, weight), attrs)


# ---- linear: x @ w.T + b -------------------------------------------------------------------------
def _linear_forward(x, w, b=None):
    out = np.dot(x, w.T)     # np.matmul takes a slow non-BLAS loop for the transposed w
    if b is not None:
        out += b
    return out


def _addmm_forward(b, x, w):
    return _linear_forward(x, w, b)


def _linear_vjp(ctx, g):
    """torch's addmm/mm backward with mat2 = w.t() (column-major): x's gradient g.mm(mat2.t()),
    w.t()'s g.t().mm(x).t(), which w.t()'s own node transposes. Here w comes through its
    TBackward0 carrier, which passes gradients on (Note [torch's inner nodes]), so each t() of
    mat2 is that carrier's identity op again: the same nodes, and w's values and shape."""
    x, w = ctx.saved
    needs = ctx.needs_input_grad
    first = len(needs) - 2          # LINEAR's inputs are (b, x, w)
    gx = g.matmul(through(w, LINEAR_WEIGHT)) if needs[first] else None
    gw = None
    if needs[first + 1]:
        gw = through(through(g.t().matmul(x), LINEAR_WEIGHT), LINEAR_WEIGHT)
    if not first:
        return gx, gw
    return g.sum(0) if needs[0] else None, gx, gw


# The bias comes first, as in torch's addmm(b, x, w.T): the backward then delivers to the bias's
# AccumulateGrad first, so the hooks of a layer's parameters run in torch's order (bias, then
# weight: Note [ready order] in kernels/ready_queue.py), and next_functions lists them as torch.
# torch's mat2 is weight.t(), which numgrad does not save: not shown. As in torch, x is kept only
# for the weight's gradient and the weight only for x's (Note [values not saved] in apply.py).
LINEAR = OpDef("linear", _addmm_forward, node_name="AddmmBackward0", n_in=3, saves=("y", "z"),
               kernel="linear_bwd", vjp=_linear_vjp, saved_names=("mat1", None),
               readers=((2,), (1,)))
LINEAR_NO_BIAS = OpDef("linear_no_bias", _linear_forward, node_name="MmBackward0", n_in=2,
                       saves=("x", "y"), kernel="linear_bwd", vjp=_linear_vjp,
                       saved_names=("self", None), readers=((1,), (0,)),
                       unpack_order=(1, 0))      # torch's mat2, w.t(), before self


# Note [torch's inner nodes]
# torch's linear is addmm(b, x, w.t()), and its cross_entropy nll_loss(log_softmax(x)): their
# nodes reach w through TBackward0 and x through LogSoftmaxBackward0, which next_functions shows
# and whose hooks run in the backward. numgrad's fused kernels read w and x themselves (a
# transpose of w's gradient would cost half its matrix product again; the fused cross entropy is
# one pass), so it records those nodes as the identity on w and x: the kernel writes the
# gradient of w (of the logits), and the node passes it on (copy_bwd: in the same buffer where
# the plan allows). Only the fused node consumes such a node; a hook registered on it sees the
# gradient of w (of the logits), not of w.t() (of the log-probabilities).
LINEAR_WEIGHT = OpDef("linear_weight", lambda w: w, node_name="TBackward0", kernel="copy_bwd",
                      vjp=pass_through_vjp)
CROSS_ENTROPY_LOGITS = OpDef("cross_entropy_logits", lambda x: x, node_name="LogSoftmaxBackward0",
                             kernel="copy_bwd", vjp=pass_through_vjp)


def through(t, op):
    """t as a fused node takes it, reached through the identity node `op` torch would have
    between them (Note [torch's inner nodes]): t's values and version counter on that node."""
    if not (t._requires_grad and grad_mode.state.grad_enabled):
        return t
    carrier = apply(op, (t,))
    carrier._vc = t._shared_vc()
    return carrier


def _check_one_dtype(message, x, *others):
    """A node's kernel computes in one float type: operands of another would be read as it (and
    past their ends), so they are refused here, whoever calls."""
    for t in others:
        if t is not None and t._data.dtype != x._data.dtype:
            raise RuntimeError(message.format(dtypes.scalar_type_name(x._data.dtype),
                                              dtypes.scalar_type_name(t._data.dtype)))


def linear(x, w, b=None):
    """x (M, in) @ w (out, in).T + b (out,), one node."""
    _check_one_dtype("mat1 and mat2 must have the same dtype, but got {} and {}", x, w, b)
    in_features = x._data.shape[-1] if x._data.ndim else 1
    if w._data.ndim == 2 and in_features != w._data.shape[1]:
        rows = x._data.size // in_features if in_features else 0
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{in_features} and "
                           f"{w._data.shape[1]}x{w._data.shape[0]})")
    if b is None:
        return apply(LINEAR_NO_BIAS, (x, through(w, LINEAR_WEIGHT)))
    return apply(LINEAR, (b, x, through(w, LINEAR_WEIGHT)))


# ---- im2col: the sliding windows of an image as rows -------------------------------------------------
# x (N, C, H, W) becomes, for layout CONV, (N, oh, ow, C, kh, kw): reshaped to (N*oh*ow, C*kh*kw) a
# convolution is one matrix product. Layout POOL gives (N, C, oh, ow, kh, kw) for pooling.
# Padding reads as zeros. col2im is its adjoint (scatter-add back); each is the other's VJP.
CONV, POOL = 0, 1


def _windows_meta(kernel, stride, padding, dilation, layout, in_shape=None):
    return (*kernel, *stride, *padding, *dilation, layout), ()


def out_size(size, k, s, p, d):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def window_geometry(shape, kernel, stride, padding, dilation, layout):
    """The int64 array the window kernels read: n, c, h, w, oh, ow, then the attributes."""
    n, c, h, w = shape
    oh = out_size(h, kernel[0], stride[0], padding[0], dilation[0])
    ow = out_size(w, kernel[1], stride[1], padding[1], dilation[1])
    return np.array([n, c, h, w, oh, ow, *kernel, *stride, *padding, *dilation, layout], np.int64)


def _im2col_forward(x, kernel, stride, padding, dilation, layout):
    geometry = window_geometry(x.shape, kernel, stride, padding, dilation, layout)
    return _cpu.im2col_forward(np.ascontiguousarray(x), geometry)


def _col2im_forward(cols, kernel, stride, padding, dilation, layout, in_shape):
    geometry = window_geometry(in_shape, kernel, stride, padding, dilation, layout)
    return _cpu.col2im_forward(np.ascontiguousarray(cols), geometry)


def max_pool_positions(x, geometry):
    """Flat positions in the array x of each pooling window's maximum (padding never wins); a
    max pool is then `take` at these positions."""
    return _cpu.max_pool_positions(np.ascontiguousarray(x), geometry)


def _window_attrs(ints):
    values = [int(v) for v in ints]
    return {"kernel": tuple(values[0:2]), "stride": tuple(values[2:4]),
            "padding": tuple(values[4:6]), "dilation": tuple(values[6:8]), "layout": values[8]}


def _im2col_vjp(ctx, g):
    return (apply(COL2IM, (g,), dict(_window_attrs(ctx.ints), in_shape=tuple(ctx.in_shapes[0]))),)


def _col2im_vjp(ctx, g):
    return (apply(IM2COL, (g,), _window_attrs(ctx.ints)),)


IM2COL = OpDef("im2col", _im2col_forward, node_name="Im2ColBackward0", kernel="im2col_bwd",
               vjp=_im2col_vjp, meta=_windows_meta)
COL2IM = OpDef("col2im", _col2im_forward, node_name="Col2ImBackward0", kernel="col2im_bwd",
               vjp=_col2im_vjp, meta=_windows_meta)


def im2col(x, kernel, stride=(1, 1), padding=(0, 0), dilation=(1, 1), layout=CONV):
    """The sliding windows of x (N, C, H, W); see the layouts above."""
    attrs = {"kernel": tuple(kernel), "stride": tuple(stride), "padding": tuple(padding),
             "dilation": tuple(dilation), "layout": layout}
    return apply(IM2COL, (x,), attrs)


# ---- avg_pool2d: one node ----------------------------------------------------------------------------
# Note [average pooling]
# An average pool is one node, as torch's avg_pool2d: its forward sums each window in the
# input's dtype, rows then columns, and divides by the window's divisor (the window clipped to
# the padded input, or to the input without count_include_pad, or divisor_override), and its
# kernel adds each output's gradient over its divisor back over the window, both in torch's order
# (kernels/cpu.py avg_pool2d_forward, avg_pool2d_bwd). As im2col, a sum and a product it was four
# nodes, 5-8x torch's time, and multiplied by 1 / divisor (an ulp off for 3x3 windows). The
# VJP spreads the same shares with col2im; as torch's node it saves the input, which the
# gradient reads under create_graph (Note [backward ops that read their input] in named.py).
def _avg_pool2d_meta(kernel, stride, padding, count_include_pad, divisor, out_hw):
    return (*kernel, *stride, *padding, int(count_include_pad), divisor), ()


def _pool_geometry(h, w, kernel, stride, padding, count_include_pad, divisor):
    return np.array([h, w, *kernel, *stride, *padding, int(count_include_pad), divisor], np.int64)


def _avg_pool2d_forward(x, kernel, stride, padding, count_include_pad, divisor, out_hw):
    h, w = x.shape[-2:]
    planes = np.ascontiguousarray(x).reshape(-1, h, w)
    geometry = _pool_geometry(h, w, kernel, stride, padding, count_include_pad, divisor)
    return _cpu.avg_pool2d_forward(planes, *out_hw, geometry).reshape(x.shape[:-2] + out_hw)


def _avg_pool2d_vjp(ctx, g):
    (x,) = ctx.saved
    kh, kw, sh, sw, ph, pw, count_include_pad, divisor = (int(v) for v in ctx.ints[:8])
    h, w = x.shape[-2:]
    oh, ow = g.shape[-2:]
    geometry = _pool_geometry(h, w, (kh, kw), (sh, sw), (ph, pw), count_include_pad, divisor)
    divisors = _cpu.pool_divisors(oh, ow, geometry).astype(g.dtype)
    shares = (g.reshape(-1, 1, oh, ow) / divisors).reshape(-1, 1, oh, ow, 1, 1)
    planes = shares.shape[0]
    # a ceil_mode's last window may run past the padding: col2im sees an input that long
    high, wide = max(h, (oh - 1) * sh + kh - 2 * ph), max(w, (ow - 1) * sw + kw - 2 * pw)
    attrs = {"kernel": (kh, kw), "stride": (sh, sw), "padding": (ph, pw), "dilation": (1, 1),
             "layout": POOL, "in_shape": (planes, 1, high, wide)}
    gx = apply(COL2IM, (shares.expand(planes, 1, oh, ow, kh, kw),), attrs)
    gx = gx[:, :, :h, :w].reshape(x.shape)
    return (reads(gx, x, "AvgPool2DBackwardBackward0"),)


AVG_POOL2D = OpDef("avg_pool2d", _avg_pool2d_forward, node_name="AvgPool2DBackward0",
                   kernel="avg_pool2d_bwd", vjp=_avg_pool2d_vjp, saves=("x",),
                   meta=_avg_pool2d_meta, saved_names=("self",))


def avg_pool2d(x, kernel, stride, padding, count_include_pad, divisor_override, out_hw):
    """The average of each window of x (*, H, W) (Note [average pooling]); divisor_override
    None or 0: the window's own divisor."""
    attrs = {"kernel": tuple(kernel), "stride": tuple(stride), "padding": tuple(padding),
             "count_include_pad": bool(count_include_pad), "divisor": int(divisor_override or 0),
             "out_hw": tuple(out_hw)}
    return apply(AVG_POOL2D, (x,), attrs)


# ---- conv2d: columns and one matrix product per image, as one node ----------------------------------
# out[n] (O, oh*ow) = w (O, C*kh*kw) @ columns(x[n]) + b: the columns of kernels/cpu.py's Note [conv
# columns], so the product comes out in NCHW. The backward kernel recomputes the columns instead of
# saving them (they are kh*kw times the input).
def _conv2d_forward(x, w, b=None, *, stride, padding, dilation):
    geometry = window_geometry(x.shape, w.shape[2:], stride, padding, dilation, CONV)
    n, oh, ow, out_channels = x.shape[0], geometry[4], geometry[5], w.shape[0]
    x, weights = np.ascontiguousarray(x), w.reshape(out_channels, -1)
    out = np.empty((n, out_channels, oh * ow), x.dtype)
    # a few MB of columns at a time, not all of them (kh*kw times the input): writing that many
    # fresh pages cost twice the products (3x slower forward, measured on 112 32x32 images)
    step = max(1, (1 << 22) // max(1, weights.shape[1] * oh * ow * x.itemsize))
    for i in range(0, n, step):
        out[i:i + step] = np.matmul(weights, _cpu.conv_columns(x[i:i + step], geometry))
    if b is not None:
        out += b[:, None]
    return out.reshape(n, out_channels, oh, ow)


def _conv2d_vjp(ctx, g):
    x, w = ctx.saved
    needs = ctx.needs_input_grad
    attrs = [int(v) for v in ctx.ints]
    stride, padding, dilation = tuple(attrs[0:2]), tuple(attrs[2:4]), tuple(attrs[4:6])
    n, out_channels, oh, ow = ctx.out_shapes[0]
    g_rows = g.reshape(n, out_channels, oh * ow).permute(0, 2, 1).reshape(n * oh * ow, out_channels)
    gx = gw = None
    if needs[0]:
        cols = g_rows.matmul(w.reshape(out_channels, -1))
        gx = apply(COL2IM, (cols.reshape(n, oh, ow, *w.shape[1:]),),
                   {"kernel": tuple(w.shape[2:]), "stride": stride, "padding": padding,
                    "dilation": dilation, "layout": CONV, "in_shape": tuple(ctx.in_shapes[0])})
    if needs[1]:
        cols = im2col(x, tuple(w.shape[2:]), stride, padding, dilation, CONV)
        gw = g_rows.t().matmul(cols.reshape(n * oh * ow, -1)).reshape(w.shape)
    if len(needs) == 2:
        return gx, gw
    return gx, gw, g_rows.sum(0) if needs[2] else None


def _conv2d_meta(stride, padding, dilation):
    return (*stride, *padding, *dilation), ()


CONV2D = OpDef("conv2d", _conv2d_forward, node_name="ConvolutionBackward0", n_in=3,
               saves=("x", "y"), kernel="conv2d_bwd", vjp=_conv2d_vjp, meta=_conv2d_meta,
               saved_names=("input", "weight"))
# listed: torch's node has a bias input, absent here (None)
CONV2D_NO_BIAS = OpDef("conv2d_no_bias", _conv2d_forward, node_name="ConvolutionBackward0", n_in=2,
                       saves=("x", "y"), kernel="conv2d_bwd", vjp=_conv2d_vjp, meta=_conv2d_meta,
                       saved_names=("input", "weight"), listed=(0, 1, None))


def conv2d(x, w, b=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1)):
    """Cross-correlation of x (N, C, H, W) with w (O, C, kh, kw), plus b (O,): one node."""
    _check_one_dtype("expected scalar type {} but found {}", x, w, b)
    attrs = {"stride": tuple(stride), "padding": tuple(padding), "dilation": tuple(dilation)}
    if b is None:
        return apply(CONV2D_NO_BIAS, (x, w), attrs)
    return apply(CONV2D, (x, w, b), attrs)


# ---- activations: forward and one derivative formula -------------------------------------------------
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_C = 0.044715


def d_gelu(g, x):
    return g * (0.5 * (1.0 + F.erf(x * _INV_SQRT2)) + x * _INV_SQRT_2PI * F.exp(-0.5 * x * x))


def d_gelu_tanh(g, x):
    u = _SQRT_2_OVER_PI * (x + _GELU_C * x * x * x)
    e = F.exp(-2.0 * F.select(u >= 0.0, u, -u))
    t = (1.0 - e) / (1.0 + e)
    th = F.select(u >= 0.0, t, -t)                  # tanh(u) without overflow
    inner = _SQRT_2_OVER_PI * (1.0 + 3.0 * _GELU_C * x * x)
    return g * (0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * inner)


# Formulas are compiled by Numba as they stand, so they call only fmath, never a helper of ours.
# sigmoid(v) is written as e / (1 + e) or 1 / (1 + e) with e = exp(-|v|): it never overflows.
# |v| is select(v >= 0, v, -v), not v * sign(v): evaluated on tensors (create_graph), sign's zero
# derivative would make the second derivative at v = 0 lose sigmoid's slope there.
def d_silu(g, x):
    e = F.exp(-F.select(x >= 0.0, x, -x))
    s = F.select(x >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))
    return g * s * (1.0 + x * (1.0 - s))


def d_softplus(g, x, beta, threshold):
    z = x * beta
    e = F.exp(-F.select(z >= 0.0, z, -z))
    return F.select(z > threshold, g, g * F.select(z >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e)))


def d_leaky_relu(g, x, slope):
    return F.leaky_relu_backward(g, x, slope)


# zero at the bounds themselves, where clamp's derivative is g
def d_hardtanh(g, x, lo, hi):
    return F.hardtanh_backward(g, x, lo, hi)


def d_threshold(g, x, threshold, value):
    return F.threshold_backward(g, x, threshold)


def d_hardshrink(g, x, lambd):
    return F.hardshrink_backward(g, x, lambd)


def d_softshrink(g, x, lambd):
    return F.softshrink_backward(g, x, lambd)


# torch's elu(x, alpha, scale, input_scale) and its elu_backward: g * scale for x > 0, else
# g * input_scale * (alpha * scale) * exp(x * input_scale), in that order; the coefficient
# alpha * scale rounds in the kernel's type, as torch's negcoef. A NaN x takes the first branch, as
# in torch's kernel for a small tensor (its vectorised loop, which a large one's bulk goes through,
# gives NaN). At x = 0 the slope is the exp branch's, and its derivative 0: torch's double
# backward masks it to x < 0. `grad_input_scale` is the input scale the derivative reads: celu's
# differs from its forward's (derivatives.yaml takes 1 / alpha with alpha rounded to float32).
def d_elu(g, x, alpha, scale, grad_input_scale):
    inside = F.select(x < 0.0, x, 0.0) * grad_input_scale
    return F.select(x <= 0.0, g * grad_input_scale * (alpha * scale) * F.exp(inside), g * scale)


# torch's hardswish_backward: 0 up to -3, g * (x / 3 + 1/2) below 3, else g (NaN too, as elu's)
def d_hardswish(g, x):
    return F.select(x <= -3.0, 0.0, F.select(x < 3.0, g * (x / 3.0 + 0.5), g))


# Binary cross entropy of probabilities x against targets y, logs clamped at -100 as torch does.
# The x derivative is torch's (x - y) / max(x (1 - x), 1e-12): finite at x = 0 and x = 1.
def d_bce_x(g, x, y):
    v = x * (1.0 - x)
    return g * (x - y) / F.select(v > 1e-12, v, 1e-12)


# The y derivative is torch's -logit(x), unclamped: infinite at x = 0 and x = 1, -0.0 at 1/2.
def d_bce_y(g, x):
    return g * -F.log(x / (1.0 - x))


# A normalisation's scale and shift, x * y + z, as one node with inputs (x, weight, bias): torch's
# native layer, batch and group norms hand out their gradients in that order, so the weight's
# AccumulateGrad (and its hooks) runs before the bias's (Note [ready order]).
def d_affine_x(g, y):
    return g * y


def d_affine_weight(g, x):
    return g * x


def d_affine_bias(g):
    return g


def _affine_forward(x, y, z):
    return x * y + z

def _bce_forward(x, y):
    with np.errstate(divide="ignore"):
        lo, hi = np.maximum(np.log(x), -100), np.maximum(np.log1p(-x), -100)
    return -(y * lo + (1 - y) * hi)


def _compiled_map(kernel, x):
    """A compiled elementwise forward over x's values (kernel takes and returns a flat
    C-contiguous array), its result laid out as a NumPy ufunc's or torch's: in x's order of
    dims by stride."""
    order = sorted(range(x.ndim), key=lambda d: -abs(x.strides[d]))
    by_stride = x.transpose(order)
    out = kernel(np.ascontiguousarray(by_stride).reshape(-1)).reshape(by_stride.shape)
    return out.transpose(np.argsort(order))


def _gelu_forward(x):
    return _compiled_map(_cpu.gelu_forward, x)


def _gelu_tanh_forward(x):
    c = x.dtype.type
    return c(0.5) * x * (c(1.0) + np.tanh(c(_SQRT_2_OVER_PI) * (x + c(_GELU_C) * x * x * x)))


def _silu_forward(x):
    return _compiled_map(_cpu.silu_forward, x)


def _softplus_forward(x, beta, threshold):
    z = x * x.dtype.type(beta)
    return np.where(z > threshold, x, np.logaddexp(x.dtype.type(0), z) / x.dtype.type(beta))


def _leaky_relu_forward(x, slope):
    return np.where(x > 0, x, x * x.dtype.type(slope))


def _hardtanh_forward(x, lo, hi):
    return np.clip(x, x.dtype.type(lo), x.dtype.type(hi))      # NaN passes, as torch's clamp


def _threshold_forward(x, threshold, value):
    return np.where(x <= threshold, x.dtype.type(value), x)    # NaN passes: not <= threshold


# torch's: lambd in the input's type, and a NaN passes both (no comparison holds for it)
def _hardshrink_forward(x, lambd):
    lambd = x.dtype.type(lambd)
    return np.where((x >= -lambd) & (x <= lambd), x.dtype.type(0), x)


def _softshrink_forward(x, lambd):
    lambd = x.dtype.type(lambd)
    return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, x * x.dtype.type(0)))


def _elu_forward(x, alpha, scale, input_scale, grad_input_scale):
    """torch's: x * scale for x > 0, else expm1(x * input_scale) * (alpha * scale), each number
    in x's type (NaN stays NaN)."""
    c = x.dtype.type
    negative = np.expm1(np.minimum(x, c(0)) * c(input_scale)) * (c(alpha) * c(scale))
    return np.where(x > 0, x * c(scale), negative)


def _hardswish_forward(x):
    c = x.dtype.type
    return x * np.minimum(np.maximum(x + c(3), c(0)), c(6)) / c(6)


GELU = OpDef("gelu", _gelu_forward, grads=(d_gelu,), attributes={"approximate": "none"})
GELU_TANH = OpDef("gelu_tanh", _gelu_tanh_forward, grads=(d_gelu_tanh,), node_name="GeluBackward0",
                  attributes={"approximate": "tanh"})
SILU = OpDef("silu", _silu_forward, grads=(d_silu,))
SOFTPLUS = OpDef("softplus", _softplus_forward, grads=(d_softplus,),
                 meta=lambda beta, threshold: ((), (beta, threshold)))
LEAKY_RELU = OpDef("leaky_relu", _leaky_relu_forward, grads=(d_leaky_relu,),
                   node_name="LeakyReluBackward0", meta=lambda slope: ((), (slope,)))
HARDTANH = OpDef("hardtanh", _hardtanh_forward, grads=(d_hardtanh,), node_name="HardtanhBackward0",
                 meta=lambda lo, hi: ((), (lo, hi)))
THRESHOLD = OpDef("threshold", _threshold_forward, grads=(d_threshold,),
                  meta=lambda threshold, value: ((), (threshold, value)))
HARDSHRINK = OpDef("hardshrink", _hardshrink_forward, grads=(d_hardshrink,),
                   meta=lambda lambd: ((), (lambd,)))
SOFTSHRINK = OpDef("softshrink", _softshrink_forward, grads=(d_softshrink,),
                   meta=lambda lambd: ((), (lambd,)))
# torch's elu(x, alpha, scale, input_scale): elu, selu and celu are its calls
ELU = OpDef("elu", _elu_forward, grads=(d_elu,),
            meta=lambda alpha, scale, input_scale, grad_input_scale: (
                (), (alpha, scale, grad_input_scale)))
HARDSWISH = OpDef("hardswish", _hardswish_forward, grads=(d_hardswish,))
AFFINE = OpDef("affine", _affine_forward, n_in=3,
               grads=(d_affine_x, d_affine_weight, d_affine_bias), saved_names=(None, None))
BINARY_CROSS_ENTROPY = OpDef("binary_cross_entropy", _bce_forward, n_in=2, grads=(d_bce_x, d_bce_y),
                             node_name="BinaryCrossEntropyBackward0",
                             saved_names=("self", "target"))


def gelu(x, approximate="none"):
    return apply(GELU_TANH if approximate == "tanh" else GELU, (x,))


def silu(x):
    return apply(SILU, (x,))


# The scalar arguments below are shown as given: torch keeps a Scalar's Python type (2 or 2.0)
def softplus(x, beta=1.0, threshold=20.0):
    return show_attributes(apply(SOFTPLUS, (x,), {"beta": float(beta),
                                                  "threshold": float(threshold)}),
                           beta=beta, threshold=threshold)


def leaky_relu(x, negative_slope=0.01):
    return show_attributes(apply(LEAKY_RELU, (x,), {"slope": float(negative_slope)}),
                           negative_slope=negative_slope)


def hardtanh(x, lo, hi):
    return show_attributes(apply(HARDTANH, (x,), {"lo": float(lo), "hi": float(hi)}),
                           min_val=lo, max_val=hi)


def threshold(x, threshold, value):
    return show_attributes(apply(THRESHOLD, (x,), {"threshold": float(threshold),
                                                   "value": float(value)}),
                           threshold=threshold)


def hardshrink(x, lambd):
    return show_attributes(apply(HARDSHRINK, (x,), {"lambd": float(lambd)}), lambd=lambd)


def softshrink(x, lambd):
    return show_attributes(apply(SOFTSHRINK, (x,), {"lambd": float(lambd)}), lambd=lambd)


def elu(x, alpha=1.0, scale=1, input_scale=1):
    """torch's elu with its scales (selu's are its constants), shown on the node as given."""
    attrs = {"alpha": float(alpha), "scale": float(scale), "input_scale": float(input_scale),
             "grad_input_scale": float(input_scale)}
    return show_attributes(apply(ELU, (x,), attrs), alpha=alpha, scale=scale,
                           input_scale=input_scale)


def celu(x, alpha):
    """torch's celu: elu(x, alpha, 1, 1 / alpha) on a node of its own (CeluBackward0, showing
    alpha), whose derivative takes 1 / alpha from alpha rounded to float32, as torch's formula."""
    attrs = {"alpha": float(alpha), "scale": 1.0, "input_scale": 1.0 / alpha,
             "grad_input_scale": 1.0 / float(np.float32(alpha))}
    return rename(apply(ELU, (x,), attrs), "CeluBackward0", attributes={"alpha": alpha})


def hardswish(x):
    return apply(HARDSWISH, (x,))


def affine(x, weight, bias):
    """x * weight + bias (broadcasting), one node differentiating x, weight and bias in turn."""
    return apply(AFFINE, (x, weight, bias))


def binary_cross_entropy(x, y):
    """Elementwise -(y log x + (1 - y) log(1 - x)), x and y of one dtype and shape."""
    return apply(BINARY_CROSS_ENTROPY, (x, y))
