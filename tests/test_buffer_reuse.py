"""Note [buffer reuse] in kernels/plan.py: large gradient buffers are shared once their node has
run, and `x + y` passes its gradient on in the same buffer. Each test checks the plan shares what
it may and that every gradient still comes out as derived by hand."""
import numpy as np
import pytest

import numgrad as ng
from numgrad.autograd.api import plan_backward
from numgrad.kernels.plan import REUSE_MIN_NUMEL

N = 2 * REUSE_MIN_NUMEL      # large enough to share


def _data(seed=0, n=N, dtype=np.float64):
    return np.random.default_rng(seed).uniform(0.5, 1.5, n).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_long_chain_runs_in_a_few_buffers(dtype):
    x = ng.tensor(_data(dtype=dtype), requires_grad=True)
    h = x
    for _ in range(10):
        h = (h * 0.5 + 0.25).tanh()
    loss = h.sum()
    graph = plan_backward([loss])
    kind = 0 if dtype == np.float32 else 1
    # 30 slots of N values laid end to end would take 30 N; shared, the live ones take 2 N
    assert graph.totals[kind] <= 2 * N + 1
    loss.backward()
    expected = np.ones(N)
    values = [_data(dtype=dtype).astype(np.float64)]
    for _ in range(10):
        values.append(np.tanh(values[-1] * 0.5 + 0.25))
    for k in range(10, 0, -1):
        expected = expected * (1 - values[k] ** 2) * 0.5
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=tol)


def test_addition_passes_its_gradient_on_in_the_same_buffer():
    x = ng.tensor(_data(), requires_grad=True)
    a = x * 3.0
    b = a + 1.0            # b's gradient buffer becomes a's
    loss = (b * b).sum()
    graph = plan_backward([loss])
    slot_a = int(graph.out_ptr[graph.index_of([a._node])[0]])
    slot_b = int(graph.out_ptr[graph.index_of([b._node])[0]])
    assert graph.buf_off[slot_a] == graph.buf_off[slot_b]
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (3 * _data() + 1) * 3, rtol=1e-12)


def test_sum_of_two_large_branches_adds_into_one_slot():
    # u feeds two branches: its slot takes two contributions and is never handed on in place
    x = ng.tensor(_data(), requires_grad=True)
    y = ng.tensor(_data(1), requires_grad=True)
    u = x * y
    v = u + u.tanh()
    loss = (v + y).sum()
    loss.backward()
    xv, yv = _data(), _data(1)
    du = 1 + (1 - np.tanh(xv * yv) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), du * yv, rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), du * xv + 1, rtol=1e-12)


def test_both_inputs_of_an_addition_get_the_gradient():
    x = ng.tensor(_data(), requires_grad=True)
    y = ng.tensor(_data(1), requires_grad=True)
    a, b = x * 2.0, y * 5.0
    (a + b).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full(N, 2.0))
    np.testing.assert_array_equal(y.grad.numpy(), np.full(N, 5.0))


def test_retained_and_requested_gradients_are_not_overwritten():
    # after a's and b's nodes run, the slots nearer x take freed buffers: theirs must not be
    xv = _data()
    x = ng.tensor(xv, requires_grad=True)
    q = x.tanh()
    p = q.sigmoid()
    a = p * 2.0
    a.retain_grad()
    b = a.tanh()
    c = b.sigmoid()
    loss = (c * 3.0).sum()
    gb, = ng.autograd.grad(loss, [b], retain_graph=True)
    loss.backward()
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    qv = np.tanh(xv)
    pv = sig(qv)
    av = 2 * pv
    bv = np.tanh(av)
    db = 3 * sig(bv) * (1 - sig(bv))
    da = db * (1 - bv ** 2)
    dx = da * 2 * pv * (1 - pv) * (1 - qv ** 2)
    np.testing.assert_allclose(gb.numpy(), db, rtol=1e-12)
    np.testing.assert_allclose(a.grad.numpy(), da, rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), dx, rtol=1e-12)


def test_hook_sees_and_changes_a_shared_buffer():
    x = ng.tensor(_data(), requires_grad=True)
    a = x * 2.0
    b = a + 1.0
    seen = []
    b.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 10.0)
    (b * 4.0).sum().backward()
    np.testing.assert_array_equal(seen[0], np.full(N, 4.0))
    np.testing.assert_array_equal(x.grad.numpy(), np.full(N, 80.0))


def test_multi_output_op_slots():
    x = ng.tensor(_data(n=2 * N), requires_grad=True)
    h = x * 1.5
    first, second = h.split(N)
    loss = (first.tanh() + second * 2.0).sum()
    loss.backward()
    xv = _data(n=2 * N)
    expected = np.concatenate([(1 - np.tanh(1.5 * xv[:N]) ** 2) * 1.5, np.full(N, 3.0)])
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


def test_a_second_backward_through_a_retained_graph_gives_the_same_gradient():
    x = ng.tensor(_data(), requires_grad=True)
    loss = ((x * 2.0 + 1.0).sigmoid() + x).sum()
    loss.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    x.grad = None
    loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), first)
    s = 1 / (1 + np.exp(-(2 * _data() + 1)))
    np.testing.assert_allclose(first, 2 * s * (1 - s) + 1, rtol=1e-12)


def _same_buffer(graph, a, b):
    slot_a = int(graph.out_ptr[graph.index_of([a._node])[0]])
    slot_b = int(graph.out_ptr[graph.index_of([b._node])[0]])
    return graph.buf_off[slot_a] == graph.buf_off[slot_b]


def test_broadcasting_addition_passes_its_buffer_to_the_full_size_input():
    # x + bias runs the general broadcasting kernel, which zeroes a gradient it writes before
    # adding into it: given the output's own buffer, x's must be left alone, and the bias still
    # sums the gradient it reads there
    xv = _data(n=16 * 512).reshape(16, 1, 512)
    bv = _data(1, n=512)
    w = np.linspace(0.5, 1.5, xv.size).reshape(xv.shape)
    x = ng.tensor(xv, requires_grad=True)
    b = ng.tensor(bv, requires_grad=True)
    x2 = x * 2.0
    y = x2 + b
    loss = (y * ng.tensor(w)).sum()
    assert _same_buffer(plan_backward([loss]), x2, y)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * w, rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), w.sum(axis=(0, 1)), rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_views_and_named_composites_pass_their_gradient_on(dtype):
    """reshape, unsqueeze and the node that names layer_norm's composite copy nothing: each
    input takes its output's buffer."""
    n = 64 * 128
    x = ng.tensor(_data(n=n, dtype=dtype), requires_grad=True)
    a = x * 3.0
    v = a.reshape(64, 128)
    u = v.unsqueeze(0)
    e = ng.nn.functional.layer_norm(u, (128,))     # named LayerNorm node over its primitives
    w = np.linspace(-1.0, 1.0, n).reshape(1, 64, 128)
    loss = (e * ng.tensor(w, dtype=dtype)).sum()
    graph = plan_backward([loss])
    assert _same_buffer(graph, a, v) and _same_buffer(graph, v, u)
    named = graph.index_of([e._node])[0]
    edge = int(graph.in_ptr[named])
    inner = int(graph.out_ptr[graph.e_node[edge]]) + int(graph.e_slot[edge])
    assert graph.buf_off[inner] == graph.buf_off[int(graph.out_ptr[named])]
    loss.backward()
    # layer_norm's gradient, by hand: (w - mean(w) - z mean(w z)) / std, per row of z
    av = 3.0 * _data(n=n, dtype=dtype).astype(np.float64).reshape(64, 128)
    std = np.sqrt(av.var(axis=1, keepdims=True) + 1e-5)
    z = (av - av.mean(axis=1, keepdims=True)) / std
    w2 = w.reshape(64, 128)
    gv = (w2 - w2.mean(axis=1, keepdims=True) - z * (w2 * z).mean(axis=1, keepdims=True)) / std
    tol = 2e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(x.grad.numpy(), 3.0 * gv.reshape(-1), rtol=tol, atol=tol)
