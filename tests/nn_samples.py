"""Samples for the ops of numgrad/ops/nn_ops.py, in op_table.py's format (and references in
plain NumPy loops where the ops are about indexing). tests/test_nn_ops.py runs them through the
same checks as test_ops_table.py; `op_table.SAMPLES += NN_SAMPLES` would add them there."""
import math

import numpy as np
from scipy import special

import numgrad as ng
from numgrad.nn import functional as F
from numgrad.ops import nn_ops as N

from op_table import Away, Const, Sample as S

TARGET = Const(np.array([0, 3, 1, 3, 2]))
WEIGHT = Const(np.array([0.5, 1.0, 1.5, 2.0]))


def log_softmax(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def cross_entropy(x, target, weight=None, ignore_index=-100, eps=0.0, reduction="mean"):
    """torch's definition, row by row: (1 - eps) * nll + eps * the mean over classes."""
    classes = x.shape[1]
    weight = np.ones(classes) if weight is None else weight
    logp = log_softmax(x, 1)
    losses, total = [], 0.0
    for row, t in zip(logp, target):
        if t == ignore_index:
            losses.append(0.0)
            continue
        losses.append(-(1 - eps) * weight[t] * row[t] - eps / classes * (weight * row).sum())
        total += weight[t]
    losses = np.array(losses)
    if reduction == "none":
        return losses
    return losses.sum() / (total if reduction == "mean" else 1.0)


def im2col(x, kernel, stride, padding, dilation, layout):
    """Windows by explicit loops: (N, oh, ow, C, kh, kw) for layout 0, (N, C, oh, ow, kh, kw)."""
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, c, oh, ow, kh, kw))
    for i, j, y, z, ky, kx in np.ndindex(out.shape):
        iy, ix = y * sh - ph + ky * dh, z * sw - pw + kx * dw
        if 0 <= iy < h and 0 <= ix < w:
            out[i, j, y, z, ky, kx] = x[i, j, iy, ix]
    return out.transpose(0, 2, 3, 1, 4, 5) if layout == N.CONV else out


def col2im(cols, in_shape, kernel, stride, padding, dilation, layout):
    """The adjoint of im2col: every window entry added back where it was read."""
    win = cols.transpose(0, 3, 1, 2, 4, 5) if layout == N.CONV else cols
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    out = np.zeros(in_shape)
    for i, j, y, z, ky, kx in np.ndindex(win.shape):
        iy, ix = y * sh - ph + ky * dh, z * sw - pw + kx * dw
        if 0 <= iy < in_shape[2] and 0 <= ix < in_shape[3]:
            out[i, j, iy, ix] += win[i, j, y, z, ky, kx]
    return out


def conv2d(x, w, b=None, stride=(1, 1), padding=(0, 0), dilation=(1, 1)):
    """Direct cross-correlation by loops over the output."""
    win = im2col(x, w.shape[2:], stride, padding, dilation, 1)      # (N, C, oh, ow, kh, kw)
    out = np.einsum("ncyxij,ocij->noyx", win, w)
    return out if b is None else out + b[None, :, None, None]


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


def batch_norm_stats(x, eps):
    """Per channel (dim 1) over the other dims: x_hat, the mean, the biased variance."""
    dims = (0,) + tuple(range(2, x.ndim))
    mean = x.mean(axis=dims, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=dims, keepdims=True)
    return (x - mean) / np.sqrt(var + eps), mean.reshape(-1), var.reshape(-1)


def group_norm(x, groups, eps):
    """x of (N, C, *) normalised over each sample's groups of channels (biased variance)."""
    rows = x.reshape(x.shape[0], groups, -1)
    centred = rows - rows.mean(2, keepdims=True)
    return (centred / np.sqrt((centred ** 2).mean(2, keepdims=True) + eps)).reshape(x.shape)


def avg_pool2d_3x3(x):
    """3x3 windows, stride 2, padding 1, ceil mode, padding not counted: each window's mean of
    the elements it covers."""
    h, w = x.shape[-2:]
    oh, ow = -(-(h + 2 - 3) // 2) + 1, -(-(w + 2 - 3) // 2) + 1
    out = np.empty(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            rows = slice(max(2 * i - 1, 0), min(2 * i + 2, h))
            cols = slice(max(2 * j - 1, 0), min(2 * j + 2, w))
            out[..., i, j] = x[..., rows, cols].mean((-2, -1))
    return out


WINDOWS = dict(kernel=(3, 2), stride=(2, 1), padding=(1, 1), dilation=(1, 2))

NN_SAMPLES = [
    S("softmax", lambda x: N.softmax(x, 1), [(2, 4, 3)],
      lambda x: np.exp(log_softmax(x, 1))),
    S("log_softmax", lambda x: N.log_softmax(x, -1), [(3, 4)], lambda x: log_softmax(x, -1)),
    # class weights in the input's dtype: torch refuses float64 weights for float32 logits
    S("cross_entropy", lambda x, t, w: F.cross_entropy(x, ng.tensor(t), ng.tensor(w, x.dtype)),
      [(5, 4), TARGET, WEIGHT], lambda x, t, w: cross_entropy(x, t, w)),
    S("cross_entropy", lambda x, t, w: F.cross_entropy(x, ng.tensor(t), ng.tensor(w, x.dtype),
                                                       ignore_index=3, label_smoothing=0.2,
                                                       reduction="none"),
      [(5, 4), TARGET, WEIGHT],
      lambda x, t, w: cross_entropy(x, t, w, ignore_index=3, eps=0.2, reduction="none")),
    S("cross_entropy", lambda x, t: F.cross_entropy(x, ng.tensor(t), reduction="sum",
                                                    label_smoothing=0.1),
      [(5, 4), TARGET], lambda x, t: cross_entropy(x, t, eps=0.1, reduction="sum")),
    # the logits reach the fused node through torch's LogSoftmaxBackward0
    S("cross_entropy_logits", lambda x, t: F.cross_entropy(x * 1.0, ng.tensor(t)),
      [(5, 4), TARGET], lambda x, t: cross_entropy(x, t)),
    # x_hat, and the statistics through a later use (a second derivative reaches them so)
    S("batch_norm_stats", lambda x: N.batch_norm_stats(x, 1e-5)[0], [(4, 3, 2)],
      lambda x: batch_norm_stats(x, 1e-5)[0]),
    S("batch_norm_stats", lambda x: sum(o.sum() * (k + 1) for k, o in
                                        enumerate(N.batch_norm_stats(x, 0.1))),
      [(3, 2, 2, 2)], lambda x: sum(o.sum() * (k + 1) for k, o in
                                    enumerate(batch_norm_stats(x, 0.1)))),
    S("linear", N.linear, [(3, 4), (2, 4), (2,)], lambda x, w, b: x @ w.T + b),
    S("linear_no_bias", N.linear, [(3, 4), (2, 4)], lambda x, w: x @ w.T),
    # the weight reaches linear's node through torch's TBackward0 (Note [torch's inner nodes])
    S("linear_weight", lambda x, w: N.linear(x, w) * 1.0, [(2, 3), (4, 3)], lambda x, w: x @ w.T),
    S("im2col", lambda x: N.im2col(x, layout=N.CONV, **WINDOWS), [(2, 2, 4, 3)],
      lambda x: im2col(x, layout=N.CONV, **WINDOWS)),
    S("im2col", lambda x: N.im2col(x, (2, 2), (2, 2), layout=N.POOL), [(1, 2, 4, 4)],
      lambda x: im2col(x, (2, 2), (2, 2), (0, 0), (1, 1), N.POOL)),
    S("col2im", lambda x: N.im2col(x, layout=N.CONV, **WINDOWS).sum(), [(2, 2, 4, 3)],
      lambda x: im2col(x, layout=N.CONV, **WINDOWS).sum(), fast=True),
    S("conv2d", lambda x, w, b: N.conv2d(x, w, b, (2, 1), (1, 1), (1, 2)),
      [(2, 2, 5, 4), (3, 2, 2, 2), (3,)],
      lambda x, w, b: conv2d(x, w, b, (2, 1), (1, 1), (1, 2))),
    S("conv2d_no_bias", lambda x, w: N.conv2d(x, w, None, (1, 1), (0, 1)),
      [(1, 2, 4, 3), (2, 2, 3, 2)], lambda x, w: conv2d(x, w, None, (1, 1), (0, 1))),
    S("gelu", N.gelu, [(3, 4)], lambda x: 0.5 * x * (1 + special.erf(x / math.sqrt(2)))),
    S("gelu_tanh", lambda x: N.gelu(x, "tanh"), [(3, 4)], gelu_tanh),
    S("silu", N.silu, [(3, 4)], lambda x: x * special.expit(x)),
    S("softplus", N.softplus, [(3, 4)], softplus),
    S("softplus", lambda x: N.softplus(x * 8, 2.0, 5.0), [Away((3, 4))],
      lambda x: softplus(x * 8, 2.0, 5.0)),
    S("leaky_relu", lambda x: N.leaky_relu(x, 0.1), [Away((3, 4))],
      lambda x: np.where(x > 0, x, 0.1 * x)),
    S("hardtanh", lambda x: N.hardtanh(x, -1.0, 1.0), [Away((3, 4))],
      lambda x: np.clip(x, -1.0, 1.0)),
    S("threshold", lambda x: N.threshold(x, 0.2, -3.0), [Away((3, 4))],
      lambda x: np.where(x <= 0.2, -3.0, x)),
    S("hardshrink", lambda x: N.hardshrink(x, 0.9), [Away((3, 4))],
      lambda x: np.where(np.abs(x) > 0.9, x, 0.0)),
    S("softshrink", lambda x: N.softshrink(x, 0.9), [Away((3, 4))],
      lambda x: np.where(x > 0.9, x - 0.9, np.where(x < -0.9, x + 0.9, 0.0))),
    S("elu", lambda x: N.elu(x, 0.7), [Away((3, 4))],
      lambda x: np.where(x > 0, x, 0.7 * np.expm1(x))),
    S("elu", lambda x: N.elu(x, 1.5, 1.2, 0.5), [Away((3, 4))],
      lambda x: np.where(x > 0, 1.2 * x, 1.5 * 1.2 * np.expm1(0.5 * x))),
    S("elu", lambda x: N.celu(x, 1.3), [Away((3, 4))],
      lambda x: np.where(x > 0, x, 1.3 * np.expm1(x / 1.3))),
    S("hardswish", lambda x: N.hardswish(x * 4), [Away((3, 4))],
      lambda x: x * 4 * np.clip(x * 4 + 3, 0, 6) / 6),
    # composites of registry ops (away from their kinks)
    S("softplus", lambda x: F.mish(x), [(3, 4)], lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    S("log1p", F.logsigmoid, [Away((3, 4))], lambda x: -np.log1p(np.exp(-x))),
    S("where", lambda x: F.hardtanh(x * 2, -1.0, 1.5), [Away((3, 4))],
      lambda x: np.clip(x * 2, -1.0, 1.5)),
    S("where", lambda x: F.relu6(x * 4), [Away((3, 4))], lambda x: np.clip(x * 4, 0, 6)),
    S("where", lambda x: F.hardswish(x * 4), [Away((3, 4))],
      lambda x: x * 4 * np.clip(x * 4 + 3, 0, 6) / 6),
    S("where", lambda x: F.hardsigmoid(x * 4), [Away((3, 4))], lambda x: np.clip(x * 4 + 3, 0, 6) / 6),
    S("abs", F.softsign, [Away((3, 4))], lambda x: x / (1 + np.abs(x))),
    S("sigmoid", lambda x: F.glu(x, 1), [(2, 4)], lambda x: x[:, :2] * special.expit(x[:, 2:])),
    S("norm", lambda x: F.normalize(x, dim=-1), [(3, 4)],
      lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True)),
    S("norm", lambda x, y: F.cosine_similarity(x, y), [(3, 4), (1, 4)],
      lambda x, y: (x * y).sum(1) / np.linalg.norm(x, axis=1) / np.linalg.norm(y, axis=1)),
    S("norm", lambda x, y: F.pairwise_distance(x, y, p=3.0), [(3, 4), (3, 4)],
      lambda x, y: (np.abs(x - y + 1e-6) ** 3).sum(-1) ** (1 / 3)),
    S("affine", N.affine, [(2, 3, 4), (3, 1), (4,)], lambda x, w, b: x * w + b),
    S("batch_norm", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
      [(3, 2, 4), (2,), (2,)],
      lambda x, w, b: ((x - x.mean((0, 2), keepdims=True))
                       / np.sqrt(x.var((0, 2), keepdims=True) + 1e-5) * w[:, None] + b[:, None])),
    # the statistics too, through a later use (a second derivative reaches them so)
    S("batch_norm", lambda x, w, b: sum(o.sum() * (k + 1) for k, o in
                                        enumerate(N.batch_norm(x, w, b, 0.1))),
      [(3, 2, 2, 2), (2,), (2,)],
      lambda x, w, b: sum(o.sum() * (k + 1) for k, o in enumerate(
          (batch_norm_stats(x, 0.1)[0] * w[:, None, None] + b[:, None, None],)
          + batch_norm_stats(x, 0.1)[1:]))),
    S("layer_norm", lambda x, w, b: F.layer_norm(x, (2, 3), w, b), [(4, 2, 3), (2, 3), (2, 3)],
      lambda x, w, b: ((x - x.mean((1, 2), keepdims=True))
                       / np.sqrt(x.var((1, 2), keepdims=True) + 1e-5) * w + b)),
    S("group_norm", lambda x, w, b: F.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)],
      lambda x, w, b: group_norm(x, 2, 1e-5) * w[:, None] + b[:, None]),
    # the statistics too, through a later use (a second derivative reaches them so)
    S("group_norm", lambda x, w, b: sum(o.sum() * (k + 1) for k, o in
                                        enumerate(N.group_norm(x, w, b, 2, 0.1))),
      [(2, 4, 2, 2), (4,), (4,)],
      lambda x, w, b: (group_norm(x, 2, 0.1) * w[:, None, None] + b[:, None, None]).sum()
      + 2 * x.reshape(2, 2, -1).mean(2).sum()
      + 3 * (1 / np.sqrt(x.reshape(2, 2, -1).var(2) + 0.1)).sum()),
    S("avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
      [(2, 3, 5, 6)], lambda x: avg_pool2d_3x3(x)),
    S("read_by_backward", lambda x: F.max_pool2d(x, 2), [(1, 2, 4, 4)],
      lambda x: x.reshape(1, 2, 2, 2, 2, 2).max((3, 5))),
    S("binary_cross_entropy", lambda x, y: N.binary_cross_entropy(x.sigmoid(), y.sigmoid()),
      [(3, 4), (3, 4)],
      lambda x, y: -(special.expit(y) * np.log(special.expit(x))
                     + (1 - special.expit(y)) * np.log(1 - special.expit(x)))),
]
