"""avg_pool2d as one node (Note [average pooling] in ops/nn_ops.py): torch's window sums, divisors,
rounding, gradient and node attributes."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F

X = np.random.default_rng(5).standard_normal((2, 3, 7, 6))


def _windows(h, w, kernel, stride, padding, ceil_mode, count_include_pad):
    """Per output (i, j): the rows and columns of its window inside the input, and torch's
    divisor, written out from torch's definition."""
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, padding
    def size(n, k, s, p):
        span = n + 2 * p - k
        out = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (out - 1) * s >= n + p:
            out -= 1            # the last window must start inside the input or left padding
        return out
    result = {}
    for i in range(size(h, kh, sh, ph)):
        for j in range(size(w, kw, sw, pw)):
            top, left = i * sh - ph, j * sw - pw
            bottom, right = min(top + kh, h + ph), min(left + kw, w + pw)
            rows = range(max(top, 0), min(bottom, h))
            cols = range(max(left, 0), min(right, w))
            divisor = (bottom - top) * (right - left) if count_include_pad else len(rows) * len(cols)
            result[i, j] = rows, cols, divisor
    return result


CASES = [dict(kernel=(2, 2), stride=(2, 2), padding=(0, 0), ceil_mode=False, count_include_pad=True),
         dict(kernel=(3, 3), stride=(1, 1), padding=(1, 1), ceil_mode=False, count_include_pad=True),
         dict(kernel=(3, 3), stride=(2, 2), padding=(1, 1), ceil_mode=True, count_include_pad=False),
         dict(kernel=(3, 2), stride=(2, 3), padding=(1, 0), ceil_mode=True, count_include_pad=True)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES)
def test_each_window_sum_is_divided_by_its_divisor_as_torch(case, dtype):
    x = ng.tensor(X.astype(dtype), requires_grad=True)
    y = F.avg_pool2d(x, case["kernel"], case["stride"], case["padding"], case["ceil_mode"],
                     case["count_include_pad"])
    g = np.random.default_rng(1).standard_normal(y.shape).astype(dtype)
    y.backward(ng.tensor(g))
    windows = _windows(7, 6, **case)
    assert y.shape == (2, 3) + tuple(np.add(max(windows), 1))
    expected_gx = np.zeros_like(X, dtype=dtype)
    for (i, j), (rows, cols, divisor) in windows.items():
        total = np.zeros((2, 3), dtype)
        for r in rows:               # torch's order: rows, then columns, in the dtype
            for c in cols:
                total += X[:, :, r, c].astype(dtype)
        # divided, not multiplied by 1 / divisor (an ulp off for 3x3 windows)
        np.testing.assert_array_equal(y.detach().numpy()[:, :, i, j], total / dtype(divisor))
        share = g[:, :, i, j] / dtype(divisor)
        for r in rows:
            for c in cols:
                expected_gx[:, :, r, c] += share
    np.testing.assert_array_equal(x.grad.numpy(), expected_gx)


def test_divisor_override_and_an_unbatched_input():
    x = ng.tensor(X[0], requires_grad=True)
    y = F.avg_pool2d(x, 2, divisor_override=3)
    y.sum().backward()
    np.testing.assert_allclose(y.detach().numpy(),
                               X[0][:, :6].reshape(3, 3, 2, 3, 2).sum((2, 4)) / 3, rtol=1e-14)
    np.testing.assert_array_equal(x.grad.numpy()[:, :6], np.full((3, 6, 6), 1 / 3))
    assert x.grad.numpy()[:, 6].tolist() == [[0.0] * 6] * 3      # the row no window reads


def test_the_node_is_torchs_avg_pool2d():
    x = ng.tensor(X, requires_grad=True)
    y = F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)
    node = y.grad_fn
    assert node.name() == "AvgPool2DBackward0"
    # torch 2.13's attributes; the stride is kept as given, () when it defaulted
    assert node._saved_self is x
    assert (node._saved_kernel_size, node._saved_stride, node._saved_padding) == ((3, 3), (2, 2),
                                                                                  (1, 1))
    assert node._saved_ceil_mode is True and node._saved_count_include_pad is False
    assert node._saved_divisor_override is None
    assert F.avg_pool2d(x, 2).grad_fn._saved_stride == ()
    # under create_graph the gradient reads the input through torch's backward node, and
    # differentiating it again gives zeros
    g, = ng.autograd.grad(y.sum(), x, create_graph=True)
    assert g.grad_fn.name() == "AvgPool2DBackwardBackward0"
    g2, = ng.autograd.grad((g * g).sum(), x)
    assert not g2.numpy().any()
