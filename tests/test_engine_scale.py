"""Big graphs: a 10^6-node chain (no recursion anywhere, teardown included) and bounded memory
over a long training loop."""
import gc
import os

import numpy as np

import numgrad as ng


def rss_mb():
    with open(f"/proc/{os.getpid()}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


def test_million_node_chain_backward_and_teardown():
    x = ng.tensor(0.5, dtype=ng.float64, requires_grad=True)
    h = x
    for _ in range(1_000_000):
        h = h * 1.0000001
    h.backward()
    assert np.isclose(x.grad.item(), 1.0000001 ** 1_000_000, rtol=1e-9)
    del h                              # frees the whole graph by reference counting
    assert x.grad is not None


def test_deep_tanh_chain_matches_closed_form():
    # h <- tanh(h * w + 0.1): dh_n/dh_{n-1} = w * (1 - h_n^2)
    w = ng.tensor(0.9, dtype=ng.float64, requires_grad=True)
    h0 = ng.tensor(0.3, dtype=ng.float64, requires_grad=True)
    h, values = h0, [0.3]
    for _ in range(20_000):
        h = (h * w + 0.1).tanh()
        values.append(h.item())
    h.backward()
    dh0, dw = 1.0, 0.0
    for prev, cur in zip(values[-2::-1], values[:0:-1]):
        local = 1 - cur * cur
        dw += dh0 * local * prev
        dh0 *= w.item() * local
    assert np.isclose(h0.grad.item(), dh0, rtol=1e-9)
    assert np.isclose(w.grad.item(), dw, rtol=1e-9)


def test_training_loop_memory_is_bounded():
    w = ng.randn(16, 16, requires_grad=True)
    b = ng.zeros(16, requires_grad=True)
    x = ng.randn(8, 16)

    def step():
        loss = ((x @ w + b).tanh() ** 2).mean()
        loss.backward()
        with ng.no_grad():
            w.sub_(0.01 * w.grad)
            b.sub_(0.01 * b.grad)
        w.grad = None
        b.grad = None
        return loss

    for _ in range(500):
        step()
    gc.collect()
    before = rss_mb()
    for _ in range(10_000):
        loss = step()
    gc.collect()
    assert rss_mb() - before < 20, "memory grew over 10^4 training iterations"
    assert loss.item() >= 0


def test_forgotten_graphs_are_freed_without_backward():
    # evaluating without no_grad keeps no memory once the outputs are dropped
    w = ng.randn(256, 256, requires_grad=True)
    x = ng.randn(64, 256)
    for _ in range(20):
        out = (x @ w).relu().sum()
    gc.collect()
    before = rss_mb()
    for _ in range(300):
        out = (x @ w).relu().sum()
    gc.collect()
    assert rss_mb() - before < 30
    assert out.requires_grad
