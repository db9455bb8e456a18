"""The 3-D convolutions and poolings and nn.Buffer: forwards against NumPy references written here
(and a few of torch 2.13's values), float64 gradchecks, float32 against float64, torch's node
names, layers and their state, and torch's error messages."""
import itertools

import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F
from numgrad.autograd import gradcheck


def t64(array, grad=True):
    return ng.tensor(np.asarray(array, np.float64), requires_grad=grad)


@pytest.fixture
def rng():
    return np.random.default_rng(3)


# ---- NumPy references -------------------------------------------------------------------------
def np_conv3d(x, w, b=None, stride=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1), groups=1):
    x = np.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in padding))
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    og = o // groups
    out_size = [(s - d * (k - 1) - 1) // st + 1
                for s, k, st, d in zip(x.shape[2:], w.shape[2:], stride, dilation)]
    out = np.zeros((n, o, *out_size))
    for g in range(groups):
        for taps in itertools.product(*[range(k) for k in w.shape[2:]]):
            window = tuple(slice(t * d, t * d + (size - 1) * st + 1, st)
                           for t, d, size, st in zip(taps, dilation, out_size, stride))
            xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + window]
            out[:, g * og:(g + 1) * og] += np.einsum("ncdhw,oc->nodhw", xs,
                                                     w[(slice(g * og, (g + 1) * og), slice(None))
                                                       + taps])
    if b is not None:
        out += b.reshape(1, -1, 1, 1, 1)
    return out


def np_conv_transpose3d(x, w, b=None, stride=(1, 1, 1), padding=(0, 0, 0),
                        output_padding=(0, 0, 0), groups=1, dilation=(1, 1, 1)):
    n, cin = x.shape[:2]
    cg, og = cin // groups, w.shape[1]
    full = [(s - 1) * st + d * (k - 1) + 1 + op for s, st, d, k, op in
            zip(x.shape[2:], stride, dilation, w.shape[2:], output_padding)]
    out = np.zeros((n, og * groups, *full))
    for g in range(groups):
        xg = x[:, g * cg:(g + 1) * cg]
        for taps in itertools.product(*[range(k) for k in w.shape[2:]]):
            window = tuple(slice(t * d, t * d + (s - 1) * st + 1, st)
                           for t, d, s, st in zip(taps, dilation, x.shape[2:], stride))
            out[(slice(None), slice(g * og, (g + 1) * og)) + window] += np.einsum(
                "ncdhw,co->nodhw", xg, w[(slice(g * cg, (g + 1) * cg), slice(None)) + taps])
    sizes = [f - 2 * p for f, p in zip(full, padding)]
    out = out[(slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in zip(padding, sizes))]
    if b is not None:
        out = out + b.reshape(1, -1, 1, 1, 1)
    return out


def _pool_out(size, k, s, p, d, ceil_mode):
    span = size + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def np_windows(x, kernel, stride, padding, dilation, ceil_mode, fill):
    """(values (N, C, od, oh, ow, taps) with `fill` outside the input, inside-the-padding mask,
    inside-the-input mask, flat positions within each volume)."""
    sizes = x.shape[2:]
    out = [_pool_out(*args, ceil_mode) for args in zip(sizes, kernel, stride, padding, dilation)]
    starts = [np.arange(o) * s - p for o, s, p in zip(out, stride, padding)]
    values, in_pad, inside, where = [], [], [], []
    for taps in itertools.product(*[range(k) for k in kernel]):
        coords = [st + t * d for st, t, d in zip(starts, taps, dilation)]
        grids = np.meshgrid(*coords, indexing="ij")
        ok = np.ones(out, bool)
        ok_pad = np.ones(out, bool)
        for grid, size, p in zip(grids, sizes, padding):
            ok &= (grid >= 0) & (grid < size)
            ok_pad &= grid < size + p
        clipped = [np.clip(grid, 0, size - 1) for grid, size in zip(grids, sizes)]
        values.append(np.where(ok, x[(slice(None), slice(None)) + tuple(clipped)], fill))
        in_pad.append(np.broadcast_to(ok_pad, values[-1].shape))
        inside.append(np.broadcast_to(ok, values[-1].shape))
        where.append(np.broadcast_to(np.ravel_multi_index(clipped, sizes), values[-1].shape))
    return (np.stack(values, -1), np.stack(in_pad, -1), np.stack(inside, -1),
            np.stack(where, -1))


def np_max_pool3d(x, kernel, stride, padding=(0, 0, 0), dilation=(1, 1, 1), ceil_mode=False):
    values, _, _, where = np_windows(x, kernel, stride, padding, dilation, ceil_mode, -np.inf)
    best = values.argmax(-1)[..., None]
    return (np.take_along_axis(values, best, -1)[..., 0],
            np.take_along_axis(where, best, -1)[..., 0])


def np_avg_pool3d(x, kernel, stride, padding=(0, 0, 0), ceil_mode=False, count_include_pad=True,
                  divisor_override=None):
    values, in_pad, inside, _ = np_windows(x, kernel, stride, padding, (1, 1, 1), ceil_mode, 0.0)
    if divisor_override:
        divisor = divisor_override
    else:
        divisor = (in_pad if count_include_pad else inside).sum(-1)
    return values.sum(-1) / divisor


def _adaptive_bounds(size, out):
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def np_adaptive_pool3d(x, out, reduce):
    result = np.empty(x.shape[:2] + tuple(out))
    for i, (d0, d1) in enumerate(_adaptive_bounds(x.shape[2], out[0])):
        for j, (h0, h1) in enumerate(_adaptive_bounds(x.shape[3], out[1])):
            for k, (w0, w1) in enumerate(_adaptive_bounds(x.shape[4], out[2])):
                result[:, :, i, j, k] = reduce(x[:, :, d0:d1, h0:h1, w0:w1], axis=(2, 3, 4))
    return result


# ---- conv3d -----------------------------------------------------------------------------------
CONV_CASES = [
    dict(),
    dict(stride=2),
    dict(stride=(2, 1, 3), padding=(1, 0, 2), dilation=(1, 2, 1)),
    dict(groups=2, padding=1),
]


@pytest.mark.parametrize("kw", CONV_CASES)
def test_conv3d_against_numpy(rng, kw):
    groups = kw.get("groups", 1)
    x, b = rng.standard_normal((2, 4, 5, 6, 7)), rng.standard_normal(6)
    w = rng.standard_normal((6, 4 // groups, 3, 2, 3))
    got = F.conv3d(t64(x, False), t64(w, False), t64(b, False), **kw)
    as3 = {k: (v,) * 3 if isinstance(v, int) and k != "groups" else v for k, v in kw.items()}
    np.testing.assert_allclose(got.numpy(), np_conv3d(x, w, b, **as3), rtol=1e-10, atol=1e-12)


def test_conv3d_torch_values():
    # torch 2.13: F.conv3d(x, w, b, padding=(1, 0, 0), stride=(2, 1, 1))
    x = ng.arange(54, dtype=ng.float64).reshape(1, 2, 3, 3, 3) / 10
    w = (ng.arange(48, dtype=ng.float64).reshape(3, 2, 2, 2, 2) - 20) / 7
    b = ng.tensor([0.5, -1.0, 2.0], dtype=ng.float64)
    want = [-11.728571428571428, -12.928571428571429, -15.328571428571427, -16.52857142857143,
            -67.55714285714285, -70.41428571428571, -76.12857142857142, -78.98571428571428,
            15.114285714285716, 15.742857142857144, 17.0, 17.62857142857143, 37.0, 37.8, 39.4,
            40.2, 46.457142857142856, 48.91428571428571, 53.82857142857143, 56.285714285714285,
            146.05714285714288, 150.51428571428573, 159.42857142857142, 163.8857142857143]
    got = F.conv3d(x, w, b, padding=(1, 0, 0), stride=(2, 1, 1))
    assert got.shape == (1, 3, 2, 2, 2)
    np.testing.assert_allclose(got.numpy().ravel(), want, rtol=1e-12)


@pytest.mark.parametrize("dilation", [1, 2])
def test_conv3d_same_and_valid_padding(rng, dilation):
    x, w = rng.standard_normal((1, 2, 5, 4, 6)), rng.standard_normal((3, 2, 2, 3, 4))
    got = F.conv3d(t64(x, False), t64(w, False), padding="same", dilation=dilation)
    assert got.shape == (1, 3, 5, 4, 6)
    # torch puts the odd padding on the right
    sides = [(dilation * (k - 1) // 2, dilation * (k - 1) - dilation * (k - 1) // 2)
             for k in w.shape[2:]]
    padded = np.pad(x, ((0, 0), (0, 0), *sides))
    np.testing.assert_allclose(got.numpy(), np_conv3d(padded, w, dilation=(dilation,) * 3),
                               rtol=1e-10, atol=1e-12)
    valid = F.conv3d(t64(x, False), t64(w, False), padding="valid")
    np.testing.assert_allclose(valid.numpy(), np_conv3d(x, w), rtol=1e-10, atol=1e-12)


def test_conv3d_unbatched_and_node_names(rng):
    x, w = t64(rng.standard_normal((2, 3, 3, 3))), t64(rng.standard_normal((4, 2, 2, 2, 2)))
    out = F.conv3d(x, w)
    assert out.shape == (4, 2, 2, 2)
    assert out.grad_fn.name() == "SqueezeBackward1"          # as torch's
    assert F.conv3d(x.unsqueeze(0), w).grad_fn.name() == "ConvolutionBackward0"
    assert F.conv_transpose3d(x.unsqueeze(0), w.transpose(0, 1)).grad_fn.name() == \
        "ConvolutionBackward0"


@pytest.mark.parametrize("kw", [dict(), dict(stride=2), dict(groups=2, padding=1, dilation=2),
                                dict(stride=(2, 1, 2), padding=1)])
def test_conv3d_gradcheck(rng, kw):
    groups = kw.get("groups", 1)
    x = t64(rng.standard_normal((1, 2, 3, 4, 5)))
    w = t64(rng.standard_normal((2, 2 // groups, 2, 2, 2)))
    b = t64(rng.standard_normal(2))
    assert gradcheck(lambda x, w, b: F.conv3d(x, w, b, **kw), (x, w, b))
    if groups == 1:
        assert gradcheck(lambda x: F.conv3d(x, w, padding="same"), (x[0],))


CONVT_CASES = [
    dict(),
    dict(stride=2),
    dict(stride=(2, 1, 3), padding=(1, 0, 2), dilation=(1, 2, 1), output_padding=(1, 0, 2)),
    dict(groups=2, stride=2, padding=1, output_padding=1),
]


@pytest.mark.parametrize("kw", CONVT_CASES)
def test_conv_transpose3d_against_numpy(rng, kw):
    groups = kw.get("groups", 1)
    x, w, b = rng.standard_normal((2, 4, 3, 4, 2)), rng.standard_normal((4, 3, 3, 2, 3)), \
        rng.standard_normal(3 * groups)
    got = F.conv_transpose3d(t64(x, False), t64(w, False), t64(b, False), **kw)
    as3 = {k: (v,) * 3 if isinstance(v, int) and k != "groups" else v for k, v in kw.items()}
    np.testing.assert_allclose(got.numpy(), np_conv_transpose3d(x, w, b, **as3), rtol=1e-10,
                               atol=1e-12)


def test_conv_transpose3d_torch_values():
    x = (ng.arange(54, dtype=ng.float64).reshape(1, 2, 3, 3, 3) / 10)[:, :, :2, :2, :2]
    w = ((ng.arange(48, dtype=ng.float64).reshape(3, 2, 2, 2, 2) - 20) / 7).transpose(0, 1)
    got = F.conv_transpose3d(x, w.contiguous(), stride=2)
    assert got.shape == (1, 3, 4, 4, 4)
    want = [-4.628571428571429, -3.8571428571428577, -5.999999999999999, -5.057142857142857,
            -3.085714285714286, -2.3142857142857145, -4.114285714285714, -3.1714285714285713,
            -8.742857142857142, -7.457142857142857, -10.114285714285714, -8.657142857142857,
            -6.171428571428571, -4.885714285714285, -7.199999999999999, -5.742857142857142]
    np.testing.assert_allclose(got.numpy()[0, 0, :, :, 0].ravel(), want, rtol=1e-12)


@pytest.mark.parametrize("kw", [dict(stride=2, output_padding=1),
                                dict(groups=2, padding=1, dilation=2)])
def test_conv_transpose3d_gradcheck(rng, kw):
    x = t64(rng.standard_normal((1, 4, 3, 2, 3)))
    w = t64(rng.standard_normal((4, 2, 2, 3, 2)))
    b = t64(rng.standard_normal(2 * kw.get("groups", 1)))
    assert gradcheck(lambda x, w, b: F.conv_transpose3d(x, w, b, **kw), (x, w, b))
    assert gradcheck(lambda x: F.conv_transpose3d(x, w, None, **kw), (x[0],))


def test_conv3d_float32_close_to_float64(rng):
    x, w, b = rng.standard_normal((2, 3, 4, 5, 6)), rng.standard_normal((4, 3, 3, 3, 3)), \
        rng.standard_normal(4)
    out = {}
    for dtype in (np.float32, np.float64):
        xs, ws, bs = (ng.tensor(a.astype(dtype), requires_grad=True) for a in (x, w, b))
        y = F.conv3d(xs, ws, bs, padding=1) + F.conv_transpose3d(xs, ws.transpose(0, 1), None,
                                                                 padding=1)
        (y * y).sum().backward()
        assert y.dtype == ws.grad.dtype == xs.dtype
        out[dtype] = [y.detach().numpy(), xs.grad.numpy(), ws.grad.numpy(), bs.grad.numpy()]
    for lo, hi in zip(out[np.float32], out[np.float64]):
        np.testing.assert_allclose(lo, hi, rtol=2e-4, atol=2e-3 * np.abs(hi).max())


# ---- pooling ----------------------------------------------------------------------------------
POOL_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=(2, 3, 2), stride=(1, 2, 3), padding=(1, 1, 0)),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
]


def _triples(kw):
    kernel = kw["kernel_size"]
    kernel = (kernel,) * 3 if isinstance(kernel, int) else kernel
    stride = kw.get("stride", kernel)
    stride = (stride,) * 3 if isinstance(stride, int) else stride
    padding = kw.get("padding", 0)
    padding = (padding,) * 3 if isinstance(padding, int) else padding
    return kernel, stride, padding


@pytest.mark.parametrize("kw", POOL_CASES + [dict(kernel_size=(2, 3, 2), stride=2,
                                                  dilation=(2, 1, 2), ceil_mode=True)])
def test_max_pool3d_against_numpy(rng, kw):
    x = np.round(rng.standard_normal((2, 3, 7, 6, 5)) * 2)        # ties: the first one wins
    kernel, stride, padding = _triples(kw)
    dilation = kw.get("dilation", (1, 1, 1))
    values, indices = F.max_pool3d(t64(x, False), return_indices=True, **kw)
    want_values, want_indices = np_max_pool3d(x, kernel, stride, padding, dilation,
                                              kw.get("ceil_mode", False))
    np.testing.assert_array_equal(values.numpy(), want_values)
    np.testing.assert_array_equal(indices.numpy(), want_indices)
    assert indices.dtype == ng.int64
    same = F.max_pool3d_with_indices(t64(x[0], False), **kw)
    np.testing.assert_array_equal(same[1].numpy(), want_indices[0])


def test_max_pool3d_padding_never_wins():
    x = ng.full((1, 1, 2, 2, 2), -np.inf, dtype=ng.float64)
    values, indices = F.max_pool3d(x, 3, stride=2, padding=1, return_indices=True)
    assert values.item() == -np.inf and indices.item() == 0


@pytest.mark.parametrize("kw", POOL_CASES)
@pytest.mark.parametrize("extra", [dict(), dict(count_include_pad=False),
                                   dict(divisor_override=5)])
def test_avg_pool3d_against_numpy(rng, kw, extra):
    x = rng.standard_normal((2, 3, 7, 6, 5))
    kernel, stride, padding = _triples(kw)
    got = F.avg_pool3d(t64(x, False), **kw, **extra)
    want = np_avg_pool3d(x, kernel, stride, padding, kw.get("ceil_mode", False), **extra)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(F.avg_pool3d(t64(x[1], False), **kw, **extra).numpy(), want[1],
                               rtol=1e-12)


@pytest.mark.parametrize("size", [2, (3, None, 4), (5, 3, 2), 1])
def test_adaptive_pools_3d_against_numpy(rng, size):
    x = rng.standard_normal((2, 3, 7, 6, 5))
    out = (size,) * 3 if isinstance(size, int) else tuple(x.shape[2 + i] if s is None else s
                                                          for i, s in enumerate(size))
    got = F.adaptive_avg_pool3d(t64(x, False), size)
    np.testing.assert_allclose(got.numpy(), np_adaptive_pool3d(x, out, np.mean), rtol=1e-12)
    values, indices = F.adaptive_max_pool3d(t64(x[0], False), size, return_indices=True)
    np.testing.assert_array_equal(values.numpy(), np_adaptive_pool3d(x[:1], out, np.max)[0])
    flat = x[0].reshape(3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, indices.numpy().reshape(3, -1), 1),
                                  values.numpy().reshape(3, -1))


def test_lp_pool3d_and_max_unpool3d_against_numpy(rng):
    x = np.abs(rng.standard_normal((2, 2, 4, 5, 6))) + 0.1
    got = F.lp_pool3d(t64(x, False), 3, (2, 2, 3))
    want = np_avg_pool3d(x ** 3, (2, 2, 3), (2, 2, 3)) * 12
    np.testing.assert_allclose(got.numpy(), want ** (1 / 3), rtol=1e-12)
    np.testing.assert_allclose(F.lp_pool3d(t64(x, False), 2, 2, stride=1).numpy(),
                               np.sqrt(np_avg_pool3d(x ** 2, (2,) * 3, (1,) * 3) * 8), rtol=1e-12)
    values, indices = F.max_pool3d(t64(x, False), 2, return_indices=True)
    unpooled = F.max_unpool3d(values, indices, 2, output_size=x.shape[2:])
    want = np.zeros(x.shape)
    np.put_along_axis(want.reshape(2, 2, -1), indices.numpy().reshape(2, 2, -1),
                      values.numpy().reshape(2, 2, -1), -1)
    np.testing.assert_array_equal(unpooled.numpy(), want)
    values, indices = F.max_pool3d(t64(x[:, :, :, :4], False), 2, return_indices=True)
    assert F.max_unpool3d(values, indices, 2).shape == (2, 2, 4, 4, 6)


POOL_FUNCTIONS = {
    "max_pool3d": lambda x: F.max_pool3d(x, (2, 3, 2), (1, 2, 1), (1, 1, 0), dilation=(1, 1, 2),
                                         ceil_mode=True),
    "avg_pool3d": lambda x: F.avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    "adaptive_avg_pool3d": lambda x: F.adaptive_avg_pool3d(x, (2, 3, 4)),
    "adaptive_max_pool3d": lambda x: F.adaptive_max_pool3d(x, (3, 2, 2)),
    "lp_pool3d": lambda x: F.lp_pool3d(x, 2, 2, stride=(1, 2, 2)),
    "max_unpool3d": lambda x: F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2,
                                             output_size=x.shape[-3:]),
}


@pytest.mark.parametrize("name", POOL_FUNCTIONS)
def test_pools_3d_gradcheck(rng, name):
    x = t64(rng.standard_normal((2, 2, 4, 5, 4)))
    if name == "lp_pool3d":
        x = t64(np.abs(x.detach().numpy()) + 0.5)
    assert gradcheck(POOL_FUNCTIONS[name], (x,))
    assert gradcheck(POOL_FUNCTIONS[name], (t64(x.detach().numpy()[0]),))


@pytest.mark.parametrize("name", POOL_FUNCTIONS)
def test_pools_3d_float32_close_to_float64(rng, name):
    x = np.abs(rng.standard_normal((2, 3, 6, 5, 4))) + 0.5
    results = {}
    for dtype in (np.float32, np.float64):
        xs = ng.tensor(x.astype(dtype), requires_grad=True)
        y = POOL_FUNCTIONS[name](xs)
        (y * y).sum().backward()
        assert y.dtype == xs.grad.dtype == xs.dtype
        results[dtype] = (y.detach().numpy(), xs.grad.numpy())
    for lo, hi in zip(results[np.float32], results[np.float64]):
        np.testing.assert_allclose(lo, hi, rtol=1e-5, atol=1e-5)


def test_pool_node_names_are_torchs():
    x = ng.randn(1, 2, 4, 4, 4, requires_grad=True)
    values, indices = F.max_pool3d(x, 2, return_indices=True)
    assert values.grad_fn.name() == "MaxPool3DWithIndicesBackward0"
    assert F.max_pool3d(x[0], 2).grad_fn.name() == "MaxPool3DWithIndicesBackward0"
    assert F.avg_pool3d(x, 2).grad_fn.name() == "AvgPool3DBackward0"
    assert F.avg_pool3d(x[0], 2).grad_fn.name() == "AvgPool3DBackward0"
    assert F.adaptive_avg_pool3d(x, 2).grad_fn.name() == "AdaptiveAvgPool3DBackward0"
    assert F.adaptive_avg_pool3d(x, 1).grad_fn.name() == "MeanBackward1"
    assert F.adaptive_max_pool3d(x, 2).grad_fn.name() == "AdaptiveMaxPool3DBackward0"
    assert F.lp_pool3d(x, 2, 2).grad_fn.name() == "PowBackward0"
    assert F.max_unpool3d(values, indices, 2).grad_fn.name() == "MaxUnpool3DBackward0"


# ---- layers -----------------------------------------------------------------------------------
def test_conv3d_layers(rng):
    conv = ng.nn.Conv3d(4, 6, (3, 2, 3), stride=2, padding=1, groups=2, bias=False)
    assert repr(conv) == ("Conv3d(4, 6, kernel_size=(3, 2, 3), stride=(2, 2, 2), "
                          "padding=(1, 1, 1), groups=2, bias=False)")
    assert conv.weight.shape == (6, 2, 3, 2, 3) and conv.bias is None
    assert list(conv.state_dict()) == ["weight"]
    x = rng.standard_normal((2, 4, 5, 6, 7))
    got = conv(t64(x, False).float())
    assert got.shape == (2, 6, 3, 4, 4) and got.dtype == ng.float32
    up = ng.nn.ConvTranspose3d(4, 2, 3, stride=2, padding=1, output_padding=1)
    assert repr(up) == ("ConvTranspose3d(4, 2, kernel_size=(3, 3, 3), stride=(2, 2, 2), "
                        "padding=(1, 1, 1), output_padding=(1, 1, 1))")
    assert up.weight.shape == (4, 2, 3, 3, 3) and list(up.state_dict()) == ["weight", "bias"]
    assert up(ng.ones(1, 4, 3, 3, 3)).shape == (1, 2, 6, 6, 6)
    assert up(ng.ones(4, 3, 3, 3), output_size=(5, 6, 5)).shape == (2, 5, 6, 5)
    assert len(list(up.parameters())) == 2


@pytest.mark.parametrize("mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"),
                                          ("circular", "wrap")])
def test_conv3d_padding_modes(rng, mode, np_mode):
    conv = ng.nn.Conv3d(2, 3, 3, padding=(1, 2, 1), padding_mode=mode).double()
    x = rng.standard_normal((1, 2, 4, 5, 6))
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2), (1, 1)), mode=np_mode)
    want = np_conv3d(padded, conv.weight.detach().numpy(), conv.bias.detach().numpy())
    np.testing.assert_allclose(conv(t64(x, False)).detach().numpy(), want, rtol=1e-10)


@pytest.mark.parametrize("dilation", [1, 2])
def test_conv3d_same_padding_with_a_padding_mode(rng, dilation):
    # torch pads dilation*(k-1) per dim in that mode, the odd one on the right
    conv = ng.nn.Conv3d(2, 3, (2, 3, 4), padding="same", padding_mode="replicate",
                        dilation=dilation).double()
    x = rng.standard_normal((1, 2, 5, 6, 7))
    sides = [(dilation * (k - 1) // 2, dilation * (k - 1) - dilation * (k - 1) // 2)
             for k in (2, 3, 4)]
    padded = np.pad(x, ((0, 0), (0, 0), *sides), mode="edge")
    want = np_conv3d(padded, conv.weight.detach().numpy(), conv.bias.detach().numpy(),
                     dilation=(dilation,) * 3)
    got = conv(t64(x, False))
    assert got.shape == (1, 3, 5, 6, 7)
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-10)


def test_lazy_conv3d_layers():
    lazy = ng.nn.LazyConv3d(4, 3, padding=1)
    assert lazy(ng.ones(2, 5, 3, 3, 3)).shape == (2, 4, 3, 3, 3)
    assert type(lazy) is ng.nn.Conv3d and lazy.weight.shape == (4, 5, 3, 3, 3)
    lazy_t = ng.nn.LazyConvTranspose3d(2, 2, stride=2)
    assert lazy_t(ng.ones(3, 2, 2, 2)).shape == (2, 4, 4, 4)
    assert type(lazy_t) is ng.nn.ConvTranspose3d and lazy_t.in_channels == 3


def test_pooling_3d_layers():
    x = ng.randn(2, 3, 4, 6, 6)
    assert repr(ng.nn.MaxPool3d(2)) == ("MaxPool3d(kernel_size=2, stride=2, padding=0, "
                                        "dilation=1, ceil_mode=False)")
    assert repr(ng.nn.AvgPool3d(2)) == "AvgPool3d(kernel_size=2, stride=2, padding=0)"
    assert repr(ng.nn.AdaptiveAvgPool3d(2)) == "AdaptiveAvgPool3d(output_size=2)"
    assert repr(ng.nn.LPPool3d(2, 2)) == ("LPPool3d(norm_type=2, kernel_size=2, stride=None, "
                                          "ceil_mode=False)")
    assert repr(ng.nn.MaxUnpool3d(2)) == ("MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), "
                                          "padding=(0, 0, 0))")
    values, indices = ng.nn.MaxPool3d(2, return_indices=True)(x)
    assert values.shape == (2, 3, 2, 3, 3)
    assert ng.nn.MaxUnpool3d(2)(values, indices).shape == x.shape
    assert ng.nn.AvgPool3d(2, stride=1)(x).shape == (2, 3, 3, 5, 5)
    assert ng.nn.AdaptiveAvgPool3d((1, None, 2))(x).shape == (2, 3, 1, 6, 2)
    assert ng.nn.AdaptiveMaxPool3d(2, return_indices=True)(x)[1].shape == (2, 3, 2, 2, 2)
    assert ng.nn.LPPool3d(2, 2)(x.abs()).shape == (2, 3, 2, 3, 3)


# ---- nn.Buffer --------------------------------------------------------------------------------
def test_buffer_registers_on_assignment():
    class Counter(ng.nn.Module):
        def __init__(self):
            super().__init__()
            self.steps = ng.nn.Buffer(ng.zeros(2))
            self.scratch = ng.nn.Buffer(ng.ones(3, requires_grad=True), persistent=False)
            self.plain = ng.ones(1)

    m = Counter()
    assert [name for name, _ in m.named_buffers()] == ["steps", "scratch"]
    assert list(m.state_dict()) == ["steps"]
    assert isinstance(m.steps, ng.nn.Buffer) and isinstance(m.steps, ng.Tensor)
    assert m.scratch.requires_grad and m.scratch.is_leaf
    m.steps = ng.nn.Buffer(ng.ones(2), persistent=False)       # re-registered, now not persistent
    assert list(m.state_dict()) == []
    m.steps = ng.zeros(2)                                       # a plain tensor keeps that
    assert list(m.state_dict()) == [] and list(m.buffers())[0] is m.steps
    base = ng.zeros(2)
    shared = ng.nn.Buffer(base)
    base.add_(1.0)
    assert shared.tolist() == [1.0, 1.0]
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        m.plain = ng.nn.Buffer(ng.ones(1))


# ---- torch's errors ---------------------------------------------------------------------------
def _raises(fn, kind, message):
    with pytest.raises(kind) as info:
        fn()
    assert str(info.value) == message


def test_conv3d_errors():
    x = ng.randn(1, 2, 4, 4, 4)
    _raises(lambda: F.conv3d(ng.randn(2, 4, 4), ng.randn(1, 2, 1, 1, 1)), RuntimeError,
            "Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: "
            "[2, 4, 4]")
    _raises(lambda: F.conv3d(x, ng.randn(1, 3, 1, 1, 1)), RuntimeError,
            "Given groups=1, weight of size [1, 3, 1, 1, 1], expected input[1, 2, 4, 4, 4] to have "
            "3 channels, but got 2 channels instead")
    _raises(lambda: F.conv3d(x, ng.randn(1, 2, 5, 1, 1)), RuntimeError,
            "Calculated padded input size per channel: (4 x 4 x 4). Kernel size: (5 x 1 x 1). "
            "Kernel size can't be greater than actual input size")
    _raises(lambda: F.conv3d(x, ng.randn(1, 2, 1, 1, 1), stride=2, padding="same"),
            RuntimeError, "padding='same' is not supported for strided convolutions")
    _raises(lambda: F.conv3d(x, ng.randn(1, 2, 1, 1, 1), dilation=0), RuntimeError,
            "dilation should be greater than zero, but got [0, 0, 0]")
    _raises(lambda: F.conv3d(x, ng.randn(1, 2, 1, 1, 1), stride=0), RuntimeError,
            "non-positive stride is not supported")
    _raises(lambda: F.conv3d(x, ng.randn(1, 2, 1, 1, 1), padding=-1), RuntimeError,
            "negative padding is not supported")
    _raises(lambda: F.conv_transpose3d(x, ng.randn(3, 2, 1, 1, 1)), RuntimeError,
            "Given transposed=1, weight of size [3, 2, 1, 1, 1], expected input[1, 2, 4, 4, 4] "
            "to have 3 channels, but got 2 channels instead")
    _raises(lambda: F.conv_transpose3d(x, ng.randn(2, 2, 1, 1, 1), stride=2, output_padding=2),
            RuntimeError, "output padding must be smaller than either stride or dilation, but "
            "got output_padding_depth: 2 output_padding_height: 2 output_padding_width: 2 "
            "stride_depth: 2 stride_height: 2 stride_width: 2 dilation_depth: 1 "
            "dilation_height: 1 dilation_width: 1")
    _raises(lambda: ng.nn.ConvTranspose3d(2, 3, 2, padding_mode="reflect"), ValueError,
            'Only "zeros" padding mode is supported for ConvTranspose3d')


def test_pool3d_errors():
    x = ng.arange(128.0).reshape(1, 2, 4, 4, 4)
    _raises(lambda: F.max_pool3d(x, 2, padding=2), RuntimeError,
            "pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 "
            "and dilation=1")
    _raises(lambda: F.max_pool3d(x, 5), RuntimeError,
            "Given input size: (2x4x4x4). Calculated output size: (2x0x0x0). Output size is too "
            "small")
    _raises(lambda: F.max_pool3d(x, 2, stride=0), RuntimeError, "stride should not be zero")
    _raises(lambda: F.max_pool3d(x, 2, dilation=0), RuntimeError,
            "dilation should be greater than zero, but got dilationT: 0 dilationH: 0 dilationW: 0")
    for pool in (F.max_pool3d, F.avg_pool3d):
        _raises(lambda: pool(ng.randn(2, 4, 4), 2), RuntimeError,
                "non-empty 4D or 5D (batch mode) tensor expected for input")
    _raises(lambda: F.avg_pool3d(x, 5), RuntimeError,
            "input image (T: 4 H: 4 W: 4) smaller than kernel size (kT: 5 kH: 5 kW: 5)")
    _raises(lambda: F.adaptive_avg_pool3d(ng.randn(4, 4), 2), RuntimeError,
            "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [4, 4]")
    _raises(lambda: F.adaptive_max_pool3d(ng.randn(4, 4), 2), RuntimeError,
            "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: [4, 4]")
    values, indices = F.max_pool3d(x, 2, return_indices=True)
    wrong = indices.clone()
    wrong[0, 1, 1, 0, 1] = 100
    _raises(lambda: F.max_unpool3d(values, wrong, 2), RuntimeError,
            "Found an invalid max index: 100 (output volumes are of size 4x4x4)")
    _raises(lambda: F.max_unpool3d(values, indices, 2, output_size=[9, 9, 9]), ValueError,
            'invalid output_size "[9, 9, 9]" (dim 0 must be between 2 and 6)')


@pytest.mark.parametrize("call,message", [
    (lambda x: F.max_pool3d(x, (2, 2)),
     "max_pool3d: kernel_size must either be a single int, or a tuple of three ints"),
    (lambda x: F.max_pool3d(x, 2, stride=(2, 2)),
     "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints"),
    (lambda x: F.max_pool3d(x, 2, padding=(1, 1)),
     "max_pool3d: padding must either be a single int, or a tuple of three ints"),
    (lambda x: F.max_pool3d(x, 2, dilation=(1, 1)),
     "max_pool3d: dilation must be either a single int, or a tuple of three ints"),
    (lambda x: F.avg_pool3d(x, (2, 2)),
     "avg_pool3d: kernel_size must be a single int, or a tuple of three ints"),
    (lambda x: F.avg_pool3d(x, 2, stride=(2, 2)),
     "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints"),
    (lambda x: F.avg_pool3d(x, 2, padding=(1, 1)),
     "avg_pool3d: padding must be a single int, or a tuple of three ints"),
    (lambda x: F.avg_pool3d(x, 2, divisor_override=0), "divisor must be not zero"),
    (lambda x: F.conv3d(x, ng.randn(1, 2, 1, 1, 1), stride=(1, 1)),
     "expected stride to be a single integer value or a list of 3 values to match the "
     "convolution dimensions, but got stride=[1, 1]"),
    (lambda x: F.conv3d(x, ng.randn(1, 2, 1, 1, 1), padding=(1, 1)),
     "expected padding to be a single integer value or a list of 3 values to match the "
     "convolution dimensions, but got padding=[1, 1]"),
    (lambda x: F.adaptive_avg_pool3d(x, (2, 2)), "adaptive_avg_pool3d: output_size must be 3"),
    (lambda x: F.adaptive_max_pool3d(x, (2, 2)),
     "adaptive_max_pool3d(): internal error: output_size.size() must be 3"),
])
def test_settings_of_the_wrong_length(call, message):
    _raises(lambda: call(ng.randn(1, 2, 4, 4, 4)), RuntimeError, message)


def test_empty_batches_pool():
    x = ng.randn(0, 2, 4, 4, 4)
    assert F.max_pool3d(x, 2).shape == F.avg_pool3d(x, 2).shape == (0, 2, 2, 2, 2)
    assert F.max_pool3d(x, (2,), stride=(1,)).shape == (0, 2, 3, 3, 3)


def test_conv_output_plane_of_the_input_size_but_not_its_shape(rng):
    # a 5x4 image padded (0, 1) by a 2x2 kernel gives a 4x5 plane: as many positions as pixels,
    # which the columns' whole-plane copy once took for the same shape (and read garbage)
    x, w = rng.standard_normal((1, 2, 5, 4)), rng.standard_normal((3, 2, 2, 2))
    got = F.conv2d(t64(x, False), t64(w, False), padding=(0, 1))
    want = np_conv3d(x[:, :, None], w[:, :, None], padding=(0, 0, 1))[:, :, 0]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    x3, w3 = rng.standard_normal((1, 4, 4, 5, 4)), rng.standard_normal((4, 2, 2, 2, 2))
    got = F.conv3d(t64(x3, False), t64(w3, False), stride=(3, 1, 1), padding=(1, 0, 1), groups=2)
    want = np_conv3d(x3, w3, stride=(3, 1, 1), padding=(1, 0, 1), groups=2)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10)
    assert gradcheck(lambda x: F.conv2d(x, t64(w), padding=(0, 1)), (t64(x),))


def test_second_derivatives(rng):
    from numgrad.autograd import gradgradcheck
    x, w, b = t64(rng.standard_normal((1, 2, 3, 3, 3))), \
        t64(rng.standard_normal((2, 2, 2, 2, 2))), t64(rng.standard_normal(2))
    assert gradgradcheck(lambda x, w, b: F.conv3d(x, w, b, padding=1, stride=(2, 1, 1)),
                         (x, w, b))
    assert gradgradcheck(lambda x, w: F.conv_transpose3d(x, w, stride=2), (x, w))
    assert gradgradcheck(lambda x: F.avg_pool3d(x, 2, 1, 1, count_include_pad=False), (x,))
    assert gradgradcheck(lambda x: F.max_pool3d(x, 2, 1), (x,))
