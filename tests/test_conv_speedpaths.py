"""conv2d's column loops (kernels/cpu.py, Note [conv columns]) take a whole-plane path when the
output has the input's size at stride 1 and a row-by-row path otherwise; both, forward and every
gradient, against a direct NumPy convolution in float64 (conv2d is linear in each operand, so its
gradients are exact sums over the same windows), including gradients that add into a buffer
already written. (torch is not a test dependency.)"""
import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F

# (N, C, H, W), (O, kh, kw), stride, padding, dilation
GEOMETRIES = [
    ((3, 1, 16, 16), (8, 3, 3), 1, 1, 1),          # the example's first layer: whole planes
    ((2, 8, 8, 8), (16, 3, 3), 1, 1, 1),           # its second
    ((2, 2, 7, 6), (3, 2, 2), 1, 1, 2),            # whole planes, dilated
    ((1, 2, 5, 5), (2, 5, 5), 1, 2, 1),            # whole planes, taps that see no row at all
    ((2, 3, 6, 5), (4, 3, 3), 1, 0, 1),            # no padding: rows
    ((1, 2, 7, 7), (3, 3, 3), 2, 1, 1),            # strided
    ((2, 2, 5, 6), (3, 2, 3), (1, 2), (1, 0), 1),  # strided one way, padded the other
    ((1, 1, 6, 6), (1, 3, 3), 1, 2, 1),            # padding wider than the kernel's reach
    ((2, 1, 4, 4), (2, 1, 1), 1, 0, 1),            # 1x1
]


def _pair(v):
    return (v, v) if isinstance(v, int) else v


def _reference(x, w, b, stride, padding, dilation, g):
    """conv2d's value and its gradients for the upstream gradient g, by windows, in float64."""
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    x, w, b, g = (v.astype(np.float64) for v in (x, w, b, g))
    padded = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    _, _, kh, kw = w.shape
    oh, ow = g.shape[2:]
    out = np.broadcast_to(b[:, None, None], g.shape[1:]) + np.zeros_like(g)
    grad_padded = np.zeros_like(padded)
    grad_w = np.zeros_like(w)
    for p in range(kh):
        for q in range(kw):
            rows = slice(p * dh, p * dh + sh * (oh - 1) + 1, sh)
            cols = slice(q * dw, q * dw + sw * (ow - 1) + 1, sw)
            window = padded[:, :, rows, cols]                       # (N, C, oh, ow)
            out += np.einsum("ncij,oc->noij", window, w[:, :, p, q])
            grad_w[:, :, p, q] = np.einsum("ncij,noij->oc", window, g)
            grad_padded[:, :, rows, cols] += np.einsum("noij,oc->ncij", g, w[:, :, p, q])
    grad_x = grad_padded[:, :, ph:ph + x.shape[2], pw:pw + x.shape[3]]
    return out, grad_x, grad_w, g.sum(axis=(0, 2, 3))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape,kernel,stride,padding,dilation", GEOMETRIES)
def test_conv2d_matches_a_direct_convolution(shape, kernel, stride, padding, dilation, dtype):
    rng = np.random.default_rng(0)
    out_channels, kh, kw = kernel
    x = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal((out_channels, shape[1], kh, kw)).astype(dtype)
    b = rng.standard_normal(out_channels).astype(dtype)
    xs, ws, bs = (ng.tensor(v, requires_grad=True) for v in (x, w, b))
    # each input twice: the second contribution adds into the gradient the first one wrote
    out = F.conv2d(xs, ws, bs, stride, padding, dilation)
    out = out * 2.0 + F.conv2d(xs, ws, bs, stride, padding, dilation)
    g = rng.standard_normal(out.shape).astype(dtype)
    out.backward(ng.tensor(g))
    ref_out, *ref_grads = _reference(x, w, b, stride, padding, dilation, g)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(out.detach().numpy(), 3 * ref_out, **tol)
    for mine, theirs in zip((xs, ws, bs), ref_grads):
        assert mine.grad.dtype == mine.dtype
        np.testing.assert_allclose(mine.grad.numpy(), 3 * theirs, **tol)


def test_input_gradient_not_computed_when_not_required():
    x = ng.tensor(np.ones((2, 1, 5, 5), np.float32))
    w = ng.tensor(np.ones((2, 1, 3, 3), np.float32), requires_grad=True)
    F.conv2d(x, w, padding=1).sum().backward()
    assert x.grad is None
    np.testing.assert_allclose(w.grad.numpy()[0, 0], [[32, 40, 32], [40, 50, 40], [32, 40, 32]])
