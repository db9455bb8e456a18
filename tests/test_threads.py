"""Backward of independent graphs from several threads at once: recording is per thread
(tape._Recorder is thread-local), and so are grad modes."""
import sys
import threading

import numpy as np
import pytest

import numgrad as ng
from numgrad import autograd


@pytest.fixture(autouse=True)
def _frequent_switches():
    """Switch threads every 10 us instead of 5 ms, so that recordings and backwards interleave."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(interval)


class Square(autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


def _loss_and_expected(seed):
    """A graph mixing compiled ops, a custom Function, a hook and retain_grad, with its gradient
    derived by hand: loss = sum(sin(a x)^2 * w) + sum(x^2) (the hook doubles the first term)."""
    rng = np.random.default_rng(seed)
    xv, wv, a = rng.normal(size=7), rng.normal(size=7), 1.0 + seed % 3

    def build():
        x = ng.tensor(xv, dtype=ng.float64, requires_grad=True)
        w = ng.tensor(wv, dtype=ng.float64, requires_grad=True)
        s = (x * a).sin()
        s.retain_grad()
        t = Square.apply(s) * w
        t.register_hook(lambda g: g * 2)
        return x, w, s, t.sum() + (x * x).sum()

    sv = np.sin(a * xv)
    expected_x = 2 * (2 * sv * wv) * np.cos(a * xv) * a + 2 * xv
    expected_w = 2 * sv ** 2
    return build, expected_x, expected_w, 2 * 2 * sv * wv


def test_backward_of_independent_graphs_in_several_threads():
    n_threads, rounds = 6, 25
    cases = [_loss_and_expected(seed) for seed in range(n_threads)]
    cases[0][0]()[3].backward()                  # compile the kernels once, before racing
    start = threading.Barrier(n_threads)
    failures = []

    def work(k):
        build, expected_x, expected_w, expected_s = cases[k]
        try:
            start.wait(10)
            for r in range(rounds):
                x, w, s, loss = build()
                if r % 2:
                    gx, gw = autograd.grad(loss, [x, w])
                else:
                    loss.backward()
                    gx, gw = x.grad, w.grad
                    np.testing.assert_allclose(s.grad.numpy(), expected_s, rtol=1e-12)
                np.testing.assert_allclose(gx.numpy(), expected_x, rtol=1e-12)
                np.testing.assert_allclose(gw.numpy(), expected_w, rtol=1e-12)
        except BaseException as error:           # reported by the main thread
            failures.append((k, error))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n_threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_create_graph_in_several_threads():
    failures = []

    def work(k):
        try:
            for _ in range(10):
                x = ng.tensor(1.0 + k, dtype=ng.float64, requires_grad=True)
                (g,) = autograd.grad(x ** 4, x, create_graph=True)
                (h,) = autograd.grad(g, x)
                assert g.item() == 4 * (1.0 + k) ** 3
                assert h.item() == 12 * (1.0 + k) ** 2
        except BaseException as error:
            failures.append((k, error))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_each_thread_records_into_its_own_segment():
    segments = {}
    ready = threading.Barrier(2)

    def work(k):
        x = ng.tensor([1.0], requires_grad=True)
        ready.wait(10)
        y = x * 2
        ready.wait(10)
        z = y * 3
        segments[k] = (y._seg, z._seg)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    (y0, z0), (y1, z1) = segments[0], segments[1]
    assert y0 is z0 and y1 is z1 and y0 is not y1
