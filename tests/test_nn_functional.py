"""numgrad.nn.functional: forwards against NumPy references written here, gradients by float64
gradcheck, and torch's special cases (reductions, weights, ignore_index, padding modes)."""
import math

import numpy as np
import pytest
from scipy import special

import numgrad as ng
import numgrad.nn.functional as F
from numgrad.autograd import gradcheck, gradgradcheck
from numgrad.nn.pooling import AdaptiveAvgPool2d

from nn_samples import conv2d as np_conv2d
from nn_samples import cross_entropy as np_cross_entropy
from nn_samples import im2col as np_windows
from nn_samples import log_softmax as np_log_softmax


def t64(array, grad=True):
    return ng.tensor(np.asarray(array, np.float64), requires_grad=grad)


@pytest.fixture
def rng():
    return np.random.default_rng(7)


# ---- losses -----------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_class_indices_against_numpy(rng, reduction):
    x = rng.standard_normal((6, 4))
    target = np.array([0, 3, -1, 1, 3, 2])
    weight = rng.uniform(0.5, 2.0, 4)
    got = F.cross_entropy(t64(x, False), ng.tensor(target), ng.tensor(weight), ignore_index=-1,
                          reduction=reduction, label_smoothing=0.25)
    want = np_cross_entropy(x, target, weight, ignore_index=-1, eps=0.25, reduction=reduction)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_cross_entropy_k_dims_and_probabilities(rng):
    x = rng.standard_normal((2, 3, 2, 2))
    target = rng.integers(0, 3, (2, 2, 2))
    rows = x.transpose(0, 2, 3, 1).reshape(-1, 3)
    got = F.cross_entropy(t64(x, False), ng.tensor(target), reduction="none")
    np.testing.assert_allclose(got.numpy(), np_cross_entropy(rows, target.reshape(-1),
                                                             reduction="none").reshape(2, 2, 2))
    probs = rng.dirichlet(np.ones(3), 4)
    logits = rng.standard_normal((4, 3))
    smoothed = probs * 0.9 + 0.1 / 3
    want = -(np_log_softmax(logits, 1) * smoothed).sum() / 4
    got = F.cross_entropy(t64(logits, False), t64(probs, False), label_smoothing=0.1)
    np.testing.assert_allclose(got.item(), want)
    assert gradcheck(lambda a, p: F.cross_entropy(a, p, label_smoothing=0.1),
                     (t64(logits), t64(probs)))


def test_cross_entropy_edge_cases():
    x = ng.zeros(2, 3, requires_grad=True)
    all_ignored = F.cross_entropy(x, ng.tensor([-100, -100]))
    assert math.isnan(all_ignored.item())          # torch: 0 / 0
    with pytest.raises(IndexError, match="Target 3 is out of bounds"):
        F.cross_entropy(x, ng.tensor([0, 3]))
    single = F.cross_entropy(ng.tensor([1.0, 2.0, 3.0]), ng.tensor(2))
    np.testing.assert_allclose(single.item(), -np_log_softmax(np.array([1.0, 2, 3]), 0)[2],
                               rtol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss(rng, reduction):
    logp = np_log_softmax(rng.standard_normal((5, 4)), 1)
    target = np.array([0, 3, 3, -100, 2])
    weight = np.array([0.5, 1.0, 1.5, 2.0])
    got = F.nll_loss(t64(logp, False), ng.tensor(target), ng.tensor(weight), reduction=reduction)
    kept = target != -100
    losses = np.where(kept, -logp[np.arange(5), np.where(kept, target, 0)]
                      * weight[np.where(kept, target, 0)], 0)
    want = {"none": losses, "sum": losses.sum(),
            "mean": losses.sum() / weight[target[kept]].sum()}[reduction]
    np.testing.assert_allclose(got.numpy(), want)
    assert gradcheck(lambda a: F.nll_loss(a, ng.tensor(target), ng.tensor(weight),
                                          reduction=reduction), (t64(logp),))


def test_regression_losses(rng):
    a, b = rng.standard_normal((3, 4)) * 2, rng.standard_normal((3, 4))
    d = a - b
    cases = {
        "mse_loss": (F.mse_loss, {}, d ** 2),
        "l1_loss": (F.l1_loss, {}, np.abs(d)),
        "smooth_l1_loss": (F.smooth_l1_loss, {"beta": 0.5},
                           np.where(np.abs(d) < 0.5, 0.5 * d ** 2 / 0.5, np.abs(d) - 0.25)),
        "huber_loss": (F.huber_loss, {"delta": 0.5},
                       np.where(np.abs(d) < 0.5, 0.5 * d ** 2, 0.5 * (np.abs(d) - 0.25))),
    }
    for name, (fn, kw, elementwise) in cases.items():
        for reduction, reduce in (("none", lambda v: v), ("sum", np.sum), ("mean", np.mean)):
            got = fn(t64(a, False), t64(b, False), reduction=reduction, **kw)
            np.testing.assert_allclose(got.numpy(), reduce(elementwise), err_msg=name)
        assert gradcheck(lambda x, y: fn(x, y, **kw), (t64(a), t64(b))), name
    np.testing.assert_allclose(F.smooth_l1_loss(t64(a, False), t64(b, False), beta=0.0).item(),
                               np.abs(d).mean())


def test_binary_cross_entropy(rng):
    p = rng.uniform(0.05, 0.95, (3, 4))
    y = rng.uniform(0, 1, (3, 4))
    w = rng.uniform(0.5, 2, (3, 4))
    want = -(y * np.log(p) + (1 - y) * np.log(1 - p)) * w
    got = F.binary_cross_entropy(t64(p, False), t64(y, False), t64(w, False), reduction="none")
    np.testing.assert_allclose(got.numpy(), want)
    assert gradcheck(F.binary_cross_entropy, (t64(p), t64(y)))
    # torch clamps the logs at -100: exact 0 and 1 give finite losses and gradients
    edge = t64([0.0, 1.0, 0.5])
    loss = F.binary_cross_entropy(edge, t64([1.0, 0.0, 1.0], False), reduction="sum")
    np.testing.assert_allclose(loss.item(), 200 + math.log(2))
    loss.backward()
    assert np.isfinite(edge.grad.numpy()).all()
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(t64([1.5], False), t64([1.0], False))


def test_binary_cross_entropy_with_logits(rng):
    x = rng.standard_normal((3, 4)) * 30          # large logits: no overflow
    y = rng.uniform(0, 1, (3, 4))
    pos_weight = np.array([0.5, 1.0, 2.0, 3.0])
    log_sig = -np.logaddexp(0, -x)
    log_one_minus = -np.logaddexp(0, x)
    want = -(pos_weight * y * log_sig + (1 - y) * log_one_minus)
    got = F.binary_cross_entropy_with_logits(t64(x, False), t64(y, False), reduction="none",
                                             pos_weight=ng.tensor(pos_weight))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    small = rng.standard_normal((3, 4))
    assert gradcheck(lambda a, b: F.binary_cross_entropy_with_logits(
        a, b, pos_weight=ng.tensor(pos_weight)), (t64(small), t64(y)))
    # the gradient at 0 is sigmoid(0) - y, from softplus's own derivative
    zero = t64([0.0])
    F.binary_cross_entropy_with_logits(zero, t64([1.0], False)).backward()
    np.testing.assert_allclose(zero.grad.numpy(), [-0.5])


# ---- activations, softmax, linear -------------------------------------------------------------
def test_activations_against_numpy():
    x = np.linspace(-6, 6, 25)
    cases = [
        (F.relu, np.maximum(x, 0)),
        (lambda v: F.leaky_relu(v, 0.2), np.where(x > 0, x, 0.2 * x)),
        (lambda v: F.elu(v, 1.5), np.where(x > 0, x, 1.5 * np.expm1(x))),
        (F.gelu, 0.5 * x * (1 + special.erf(x / math.sqrt(2)))),
        (F.silu, x * special.expit(x)),
        (F.softplus, np.log1p(np.exp(x))),
        (lambda v: F.softplus(v, beta=2, threshold=4), np.where(2 * x > 4, x,
                                                                 np.log1p(np.exp(2 * x)) / 2)),
        (F.sigmoid, special.expit(x)),
        (F.tanh, np.tanh(x)),
    ]
    for fn, want in cases:
        np.testing.assert_allclose(fn(t64(x, False)).numpy(), want, rtol=1e-12, atol=1e-15)


def test_piecewise_activations_have_torchs_gradient_at_their_bounds():
    x = t64([-4.0, -3.0, -1.0, 0.0, 1.0, 3.0, 6.0, 7.0])
    # torch 2.x: hardtanh/relu6/hardsigmoid are flat at their bounds; hardswish is 0 at -3, 1 at 3
    cases = {F.hardtanh: [0, 0, 0, 1, 0, 0, 0, 0], F.relu6: [0, 0, 0, 0, 1, 1, 0, 0],
             F.hardsigmoid: [0, 0, 1 / 6, 1 / 6, 1 / 6, 0, 0, 0],
             F.hardswish: [0, 0, 1 / 6, 0.5, 5 / 6, 1, 1, 1]}
    for fn, want in cases.items():
        np.testing.assert_allclose(ng.autograd.grad(fn(x).sum(), x)[0].numpy(), want)
    np.testing.assert_allclose(F.hardswish(x).detach().numpy(),
                               x.detach().numpy() * np.clip(x.detach().numpy() + 3, 0, 6) / 6)
    np.testing.assert_allclose(F.logsigmoid(t64([-800.0, 0.0, 800.0])).detach().numpy(),
                               [-800.0, -math.log(2), 0.0])
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is "
                                           "size 3"):
        F.glu(ng.ones(2, 3))


def test_cosine_similarity_clamps_each_norm():
    # torch divides by max(||x||, eps) per input: tiny vectors keep their cosine
    x, y = t64([[1e-5, 0.0]]), t64([[1e-5, 1e-5]])
    np.testing.assert_allclose(F.cosine_similarity(x, y).detach().numpy(), [math.sqrt(0.5)])
    np.testing.assert_allclose(F.cosine_similarity(x * 0.0, y).detach().numpy(), [0.0])
    np.testing.assert_allclose(F.normalize(t64([[0.0, 0.0]])).detach().numpy(), [[0.0, 0.0]])


def test_inplace_activations_bump_the_version_and_keep_gradients():
    x = t64([-1.0, 2.0])
    h = x * 1.0
    out = F.leaky_relu(h, 0.5, inplace=True)
    assert out is h and h._version == 1
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.5, 1.0])


def test_softmax_dims_and_implicit_dim(rng):
    x = rng.standard_normal((2, 3, 4))
    for dim in (0, 1, -1):
        got = F.softmax(t64(x, False), dim=dim).numpy()
        np.testing.assert_allclose(got, np.exp(np_log_softmax(x, dim)))
        np.testing.assert_allclose(F.log_softmax(t64(x, False), dim).numpy(), np_log_softmax(x, dim))
    with pytest.warns(UserWarning, match="Implicit dimension"):
        implicit = F.softmax(t64(x, False))
    np.testing.assert_allclose(implicit.numpy(), np.exp(np_log_softmax(x, 0)))
    big = F.softmax(ng.tensor([1000.0, 0.0]), 0)       # shifted by the max: no overflow
    np.testing.assert_allclose(big.numpy(), [1.0, 0.0])


def test_linear_and_bilinear(rng):
    x, w, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((5, 4)), rng.standard_normal(5)
    np.testing.assert_allclose(F.linear(t64(x, False), t64(w, False), t64(b, False)).numpy(),
                               x @ w.T + b)
    assert gradcheck(F.linear, (t64(x), t64(w), t64(b)))
    x2, wb = rng.standard_normal((3, 3)), rng.standard_normal((5, 4, 3))
    got = F.bilinear(t64(x[0], False), t64(x2, False), t64(wb, False), t64(b, False))
    np.testing.assert_allclose(got.numpy(), np.einsum("ni,kij,nj->nk", x[0], wb, x2) + b)
    assert gradcheck(F.bilinear, (t64(x[0]), t64(x2), t64(wb), t64(b)))


# ---- dropout, normalisation, embedding, one_hot, pad --------------------------------------------
def test_dropout_is_seeded_scaled_and_off_in_eval():
    x = ng.ones(2000)
    ng.manual_seed(3)
    a = F.dropout(x, 0.25)
    ng.manual_seed(3)
    b = F.dropout(x, 0.25)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert set(np.unique(a.numpy())) <= {0.0, np.float32(1 / 0.75)}
    assert abs((a.numpy() == 0).mean() - 0.25) < 0.05
    assert F.dropout(x, 0.25, training=False) is x
    assert (F.dropout(x, 1.0).numpy() == 0).all()
    x64 = t64(np.ones(5))
    F.dropout(x64, 0.5).sum().backward()
    assert set(np.unique(x64.grad.numpy())) <= {0.0, 2.0}


def test_layer_norm(rng):
    x, w, b = rng.standard_normal((3, 2, 4)), rng.standard_normal((2, 4)), rng.standard_normal((2, 4))
    mean = x.mean((1, 2), keepdims=True)
    var = x.var((1, 2), keepdims=True)
    want = (x - mean) / np.sqrt(var + 1e-5) * w + b
    got = F.layer_norm(t64(x, False), (2, 4), t64(w, False), t64(b, False))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    assert gradcheck(lambda a, c, d: F.layer_norm(a, (4,), c, d), (t64(x), t64(w[0]), t64(b[0])))


def test_batch_norm_training_updates_running_stats(rng):
    x = rng.standard_normal((6, 3, 2))
    running_mean, running_var = ng.zeros(3, dtype=ng.float64), ng.ones(3, dtype=ng.float64)
    out = F.batch_norm(t64(x, False), running_mean, running_var, training=True, momentum=0.2)
    mean, var = x.mean((0, 2)), x.var((0, 2))
    np.testing.assert_allclose(out.numpy(), (x - mean[:, None]) / np.sqrt(var[:, None] + 1e-5),
                               rtol=1e-10)
    np.testing.assert_allclose(running_mean.numpy(), 0.2 * mean)
    np.testing.assert_allclose(running_var.numpy(), 0.8 + 0.2 * var * 12 / 11)
    # in place, but as torch's kernel writes them: no version bump (torch 2.13 gives 0)
    assert running_mean._version == 0
    evaluated = F.batch_norm(t64(x, False), running_mean, running_var, training=False)
    np.testing.assert_allclose(evaluated.numpy(), (x - 0.2 * mean[:, None])
                               / np.sqrt(running_var.numpy()[:, None] + 1e-5))
    assert gradcheck(lambda a: F.batch_norm(a, None, None, training=True), (t64(x[:3, :, 0]),))


def test_embedding_and_padding_idx(rng):
    table = rng.standard_normal((5, 3))
    index = np.array([[0, 2], [4, 2]])
    weight = t64(table)
    out = F.embedding(ng.tensor(index), weight, padding_idx=2)
    np.testing.assert_array_equal(out.detach().numpy(), table[index])
    out.sum().backward()
    np.testing.assert_array_equal(weight.grad.numpy()[:, 0], [1, 0, 0, 0, 1])
    with pytest.raises(IndexError):
        F.embedding(ng.tensor([5]), weight)
    renormed = t64(table * 10, False)
    F.embedding(ng.tensor([1]), renormed, max_norm=1.0)
    assert np.linalg.norm(renormed.numpy()[1]) <= 1.0 + 1e-6


def test_one_hot():
    out = F.one_hot(ng.tensor([[0, 2], [1, 0]]))
    assert out.dtype == ng.int64 and out.shape == (2, 2, 3)
    np.testing.assert_array_equal(out.numpy()[0], [[1, 0, 0], [0, 0, 1]])
    assert F.one_hot(ng.tensor([1]), 4).tolist() == [[0, 1, 0, 0]]
    with pytest.raises(RuntimeError):
        F.one_hot(ng.tensor([3]), 2)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_modes(rng, mode):
    x = rng.standard_normal((1, 2, 3, 4))
    widths = ((0, 0), (0, 0), (2, 1), (1, 2))
    np_mode = {"replicate": "edge", "circular": "wrap"}.get(mode, mode)
    got = F.pad(t64(x, False), (1, 2, 2, 1), mode=mode)
    np.testing.assert_allclose(got.numpy(), np.pad(x, widths, mode=np_mode))
    assert gradcheck(lambda a: F.pad(a, (1, 2, 2, 1), mode=mode), (t64(x),))


# ---- convolution and pooling ----------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(padding="same", dilation=2),
                                dict(stride=(1, 2), padding=(2, 0), groups=2)])
def test_conv2d_against_direct_loops(rng, kw):
    x = rng.standard_normal((2, 4, 7, 6))
    groups = kw.get("groups", 1)
    w, b = rng.standard_normal((6, 4 // groups, 3, 2)), rng.standard_normal(6)
    got = F.conv2d(t64(x, False), t64(w, False), t64(b, False), **kw)
    stride = kw.get("stride", 1)
    stride = (stride, stride) if isinstance(stride, int) else stride
    dilation = (kw.get("dilation", 1),) * 2
    padding = kw.get("padding", 0)
    xp = x
    if padding == "same":      # torch: total d * (k - 1), the odd one on the right
        xp = np.pad(x, ((0, 0), (0, 0), (2, 2), (1, 1)))
        padding = (0, 0)
    padding = (padding, padding) if isinstance(padding, int) else padding
    parts = [np_conv2d(xp[:, g * 4 // groups:(g + 1) * 4 // groups],
                       w[g * 6 // groups:(g + 1) * 6 // groups], None, stride, padding, dilation)
             for g in range(groups)]
    np.testing.assert_allclose(got.numpy(), np.concatenate(parts, 1) + b[None, :, None, None],
                               rtol=1e-10)


def test_conv1d_and_gradients(rng):
    x, w, b = rng.standard_normal((2, 3, 9)), rng.standard_normal((4, 3, 3)), rng.standard_normal(4)
    got = F.conv1d(t64(x, False), t64(w, False), t64(b, False), stride=2, padding=1)
    want = np_conv2d(x[:, :, None], w[:, :, None], b, (1, 2), (0, 1))[:, :, 0]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    assert gradcheck(lambda a, c, d: F.conv2d(a, c, d, groups=2, padding=1),
                     (t64(x[:1, :2, :4].reshape(1, 2, 2, 2)), t64(w[:2, :1, :2].reshape(2, 1, 2, 1)),
                      t64(b[:2])))


def _np_max_pool(x, k, s, p, d):
    padded = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    win = np_windows(padded, (k, k), (s, s), (0, 0), (d, d), 1)
    return win.max(axis=(-2, -1))


@pytest.mark.parametrize("k, s, p, d", [(2, 2, 0, 1), (3, 2, 1, 1), (3, 1, 1, 2)])
def test_max_pool2d(rng, k, s, p, d):
    x = rng.permutation(2 * 3 * 7 * 7).reshape(2, 3, 7, 7) * 0.1     # distinct values: no ties
    got, indices = F.max_pool2d(t64(x, False), k, s, p, d, return_indices=True)
    np.testing.assert_array_equal(got.numpy(), _np_max_pool(x, k, s, p, d))
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, indices.numpy().reshape(2, 3, -1), 2),
                                  got.numpy().reshape(2, 3, -1))
    assert gradcheck(lambda a: F.max_pool2d(a, k, s, p, d), (t64(x[:1, :1]),))


def test_max_pool2d_ceil_mode_and_nan():
    x = np.arange(25.0).reshape(1, 1, 5, 5)
    out = F.max_pool2d(t64(x, False), 2, ceil_mode=True)
    np.testing.assert_array_equal(out.numpy()[0, 0], [[6, 8, 9], [16, 18, 19], [21, 23, 24]])
    x[0, 0, 0, 0] = np.nan
    assert np.isnan(F.max_pool2d(t64(x, False), 2).numpy()[0, 0, 0, 0])


def test_avg_pool2d(rng):
    x = rng.standard_normal((2, 3, 6, 5))
    win = np_windows(x, (3, 3), (2, 2), (1, 1), (1, 1), 1)
    got = F.avg_pool2d(t64(x, False), 3, 2, 1)
    np.testing.assert_allclose(got.numpy(), win.mean(axis=(-2, -1)))
    counted = np_windows(np.ones_like(x), (3, 3), (2, 2), (1, 1), (1, 1), 1).sum(axis=(-2, -1))
    exclusive = F.avg_pool2d(t64(x, False), 3, 2, 1, count_include_pad=False)
    np.testing.assert_allclose(exclusive.numpy(), win.sum(axis=(-2, -1)) / counted)
    assert gradcheck(lambda a: F.avg_pool2d(a, 2), (t64(x[:1, :1, :4, :4]),))


def _np_avg_pool(x, k, s, p, ceil_mode, count_include_pad):
    """torch's average pooling by loops over the output: a window is clipped to the padded input
    for its divisor (count_include_pad) or to the input (not); with ceil_mode the output has one
    more window where the last one starts inside the input or its left padding."""
    h, w = x.shape[-2:]

    def size(n):
        span = n + 2 * p - k
        out = -(-span // s) + 1 if ceil_mode else span // s + 1
        return out - 1 if ceil_mode and (out - 1) * s >= n + p else out
    out = np.zeros(x.shape[:-2] + (size(h), size(w)))
    for i, j in np.ndindex(out.shape[-2:]):
        r0, c0 = i * s - p, j * s - p
        r1, c1 = min(r0 + k, h + p), min(c0 + k, w + p)
        block = x[..., max(r0, 0):min(r1, h), max(c0, 0):min(c1, w)]
        divisor = (r1 - r0) * (c1 - c0) if count_include_pad else block.shape[-2] * block.shape[-1]
        out[..., i, j] = block.sum((-2, -1)) / divisor
    return out


def test_avg_pool2d_ceil_mode_by_hand():
    x = np.arange(25.0).reshape(1, 1, 5, 5)
    out = F.avg_pool2d(t64(x, False), 2, ceil_mode=True)
    # the last row and column of windows hold 2, 2 and 1 elements, and divide by that
    np.testing.assert_allclose(out.numpy()[0, 0], [[3, 5, 6.5], [13, 15, 16.5], [20.5, 22.5, 24]])
    # 6 + 2 * 1 - 3 = 5 rows to step over by 2: ceil gives a 4th window, starting at row 5; it
    # counts the right padding (divisor 2 per dim) but not beyond it, or (exclusive) only row 5
    ones = ng.ones(1, 1, 6, 6, dtype=ng.float64)
    counted = F.avg_pool2d(ones, 3, 2, 1, ceil_mode=True)
    np.testing.assert_allclose(counted.numpy()[0, 0, 0], [4 / 9, 6 / 9, 6 / 9, 2 / 6])
    np.testing.assert_allclose(counted.numpy()[0, 0, 3, 3], 1 / 4)
    exclusive = F.avg_pool2d(ones, 3, 2, 1, ceil_mode=True, count_include_pad=False)
    np.testing.assert_allclose(exclusive.numpy(), np.ones((1, 1, 4, 4)))
    # a window that would start in the right padding is dropped: 2 outputs, not 3
    assert F.avg_pool2d(ng.ones(1, 1, 5, 5), 3, 3, 1, ceil_mode=True).shape == (1, 1, 2, 2)
    assert F.max_pool2d(ng.ones(1, 1, 5, 5), 3, 3, 1, ceil_mode=True).shape == (1, 1, 2, 2)


@pytest.mark.parametrize("k, s, p", [(2, 2, 0), (3, 2, 1), (3, 3, 1), (2, 1, 1), (3, 2, 0)])
@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool2d_ceil_mode(rng, k, s, p, count_include_pad):
    x = rng.standard_normal((2, 2, 6, 5))
    got = F.avg_pool2d(t64(x, False), k, s, p, ceil_mode=True, count_include_pad=count_include_pad)
    np.testing.assert_allclose(got.numpy(), _np_avg_pool(x, k, s, p, True, count_include_pad))
    floor = F.avg_pool2d(t64(x, False), k, s, p, count_include_pad=count_include_pad)
    np.testing.assert_allclose(floor.numpy(), _np_avg_pool(x, k, s, p, False, count_include_pad))
    assert gradcheck(lambda a: F.avg_pool2d(a, k, s, p, True, count_include_pad),
                     (t64(x[:1, :1]),))


def test_pooling_modules_pass_their_options():
    x = ng.tensor(np.arange(25.0).reshape(1, 1, 5, 5))
    avg = ng.nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False)
    np.testing.assert_allclose(avg(x).numpy(), _np_avg_pool(x.numpy(), 3, 2, 1, True, False))
    out, indices = ng.nn.MaxPool2d(2, ceil_mode=True, return_indices=True)(x)
    np.testing.assert_array_equal(indices.numpy()[0, 0], [[6, 8, 9], [16, 18, 19], [21, 23, 24]])


@pytest.mark.parametrize("call, message", [
    (lambda x: F.avg_pool2d(x, 2, padding=2), "pad should be at most half of effective kernel "
                                              "size, but got pad=2, kernel_size=2 and dilation=1"),
    (lambda x: F.max_pool2d(x, 3, padding=2, dilation=2), "pad should be smaller than or equal "
                                                          "to half of kernel size"),
    (lambda x: F.avg_pool2d(x[0], 6), r"Given input size: \(2x5x5\). Calculated output size: "
                                      r"\(2x0x0\). Output size is too small"),
    (lambda x: F.max_pool2d(x, 2, stride=0), "stride should not be zero")])
def test_pooling_errors_in_torch_words(call, message):
    with pytest.raises(RuntimeError, match=message):
        call(ng.ones(1, 2, 5, 5))


@pytest.mark.parametrize("shape, size", [((2, 3, 5, 7), (2, 3)), ((1, 2, 4, 4), 2),
                                         ((1, 7, 5), (3, None)), ((1, 1, 3, 3), 5)])
def test_adaptive_avg_pool2d(rng, shape, size):
    x = rng.standard_normal(shape)
    oh, ow = (size, size) if isinstance(size, int) else size
    oh, ow = oh or shape[-2], ow or shape[-1]
    want = np.zeros(shape[:-2] + (oh, ow))
    h, w = shape[-2:]
    for i, j in np.ndindex(oh, ow):       # torch's windows: floor(i*h/oh) to ceil((i+1)*h/oh)
        rows = slice(i * h // oh, -(-(i + 1) * h // oh))
        cols = slice(j * w // ow, -(-(j + 1) * w // ow))
        want[..., i, j] = x[..., rows, cols].mean((-2, -1))
    np.testing.assert_allclose(F.adaptive_avg_pool2d(t64(x, False), size).numpy(), want)
    assert AdaptiveAvgPool2d(size)(t64(x, False)).shape == want.shape
    assert gradcheck(lambda a: F.adaptive_avg_pool2d(a, size), (t64(x[:1] if len(shape) == 4
                                                                     else x),))


def test_double_backward_through_a_small_network(rng):
    """create_graph through conv, pooling, activations and cross entropy."""
    x = t64(rng.standard_normal((2, 1, 4, 4)))
    w = t64(rng.standard_normal((2, 1, 2, 2)))
    target = ng.tensor([1, 0])

    def loss(x, w):
        h = F.max_pool2d(F.gelu(F.conv2d(x, w, padding=1)), 2)
        return F.cross_entropy(h.flatten(1)[:, :3], target)
    assert gradgradcheck(loss, (x, w), fast_mode=True)


@pytest.mark.parametrize("loss, value", [(F.mse_loss, 0.5), (F.l1_loss, 0.5), (F.smooth_l1_loss, 0.25)])
def test_elementwise_losses_promote_a_wider_target_as_torch(loss, value):
    """float32 input, float64 target: torch computes and returns float64; the input's gradient
    stays float32."""
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    out = loss(x, ng.tensor([1.0, 3.0], dtype=ng.float64))
    assert out.dtype == ng.float64 and out.item() == value
    out.backward()
    assert x.grad.dtype == ng.float32


@pytest.mark.parametrize("fn, kernel", [
    (F.elu, "elu_cpu"), (F.selu, "elu_cpu"), (F.celu, "elu_cpu"), (F.leaky_relu, "leaky_relu_cpu"),
    (F.rrelu, "leaky_relu_cpu"), (F.gelu, "GeluKernelImpl"), (F.silu, "silu_cpu"),
    (F.softplus, "softplus_cpu"), (F.logsigmoid, "log_sigmoid_cpu"), (F.mish, "mish_cpu"),
    (F.hardsigmoid, "hardsigmoid_cpu"), (F.hardswish, "hardswish_cpu"),
    (lambda x: F.glu(x, 0), "glu_cpu"), (F.hardshrink, "hardshrink_cpu"),
    (F.softshrink, "softshrink_check"), (lambda x: F.layer_norm(x, (2,)), "LayerNormKernelImpl"),
])
@pytest.mark.parametrize("dtype, name", [(ng.int64, "Long"), (ng.int32, "Int"), (ng.bool, "Bool")])
def test_float_only_activations_refuse_integer_and_bool_inputs_as_torch(fn, kernel, dtype, name):
    # they used to compute: gelu of an int tensor gave ints, elu float64
    with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for '{name}'$"):
        fn(ng.tensor([1, 0], dtype=dtype))


def test_hardtanh_and_threshold_refuse_bool_inputs_as_torch():
    with pytest.raises(RuntimeError, match="^Bool inputs not supported for hardtanh$"):
        F.relu6(ng.tensor([True]))
    with pytest.raises(NotImplementedError, match="\"threshold_cpu\" not implemented for 'Bool'"):
        F.threshold(ng.tensor([True]), 0.5, 0.0)
    assert F.hardtanh(ng.tensor([-3, 0, 4]), -1, 2).tolist() == [-1, 0, 2]     # ints clamp


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_shrinks_pass_nan_and_keep_torchs_signed_zero(dtype):
    x = ng.tensor([float("nan"), -1.0, -0.5, 0.2, 0.7], dtype=dtype, requires_grad=True)
    hard, soft = F.hardshrink(x, 0.5), F.softshrink(x, 0.5)
    np.testing.assert_array_equal(hard.detach().numpy(), np.array([np.nan, -1.0, 0, 0, 0.7], dtype))
    lambd, top = np.array([0.5, 0.7], dtype)                # computed in the input's type
    np.testing.assert_array_equal(soft.detach().numpy(),
                                  np.array([np.nan, -0.5, 0, 0, top - lambd], dtype))
    assert np.signbit(soft.detach().numpy()[2])             # -0.5 * 0: torch's -0.0
    (hard + soft).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.array([2, 2, 0, 0, 2], dtype))   # NaN passes
