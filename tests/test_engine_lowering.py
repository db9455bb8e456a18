"""The lowered arrays of small graphs, exactly: nodes, edges (destination, input_nr), pending
counts per edge, which nodes are needed; and the scheduler's run order."""
import numpy as np
import pytest

import numgrad as ng
from numgrad import tape
from numgrad.autograd import api
from numgrad.lower import LoweredGraph, segments_of
from numgrad.node import node_name


@pytest.fixture(autouse=True)
def fresh_segment():
    """Positions below count from a segment's start: record each graph into a new segment, not
    after what an earlier test left alive in the current one."""
    seg = tape._recorder.current() if tape._recorder.current is not None else None
    if seg is not None:
        tape.close_segment(seg)


def lowered(*roots, inputs=()):
    segs = segments_of({id(r._seg): r._seg for r in roots}.values())
    graph = LoweredGraph(segs)
    targets = []
    for t in inputs:
        if t._node >= 0:
            targets.append(t._node)
        else:
            targets.extend(seg.acc_of[id(t)] for seg in segs if id(t) in seg.acc_of)
    graph.plan(graph.index_of([r._node for r in roots]), graph.index_of(targets))
    return graph


def names(graph):
    return [node_name(*graph.locate(i)) for i in range(graph.n)]


def edges(graph, i):
    return [(int(graph.e_node[e]), int(graph.e_slot[e])) for e in range(graph.in_ptr[i], graph.in_ptr[i + 1])]


def test_square_has_two_edges_to_one_accumulator():
    x = ng.tensor(2.0, requires_grad=True)
    y = x * x
    g = lowered(y)
    assert names(g) == ["AccumulateGrad", "MulBackward0"]
    assert edges(g, 1) == [(0, 0), (0, 0)]
    assert g.pending.tolist() == [2, 0]          # Note [pending counts]: edges, not producers


def test_seed_shared_intermediate():
    x = ng.tensor(2.0, requires_grad=True)
    u = x * x
    loss = 2 * u + 3 * u
    g = lowered(loss)
    assert names(g) == ["AccumulateGrad", "MulBackward0", "MulBackward0", "MulBackward0", "AddBackward0"]
    assert edges(g, 2) == [(1, 0), (-1, 0)]       # the constant 2 has no edge
    assert edges(g, 4) == [(2, 0), (3, 0)]
    assert g.pending.tolist() == [2, 2, 1, 1, 0]
    assert g.needed.all()


def test_diamond_and_fan_out():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    a = x.exp()
    b, c = a.sin(), a.cos()
    d = b * c
    g = lowered(d.sum())
    assert names(g) == ["AccumulateGrad", "ExpBackward0", "SinBackward0", "CosBackward0",
                        "MulBackward0", "SumBackward0"]
    assert g.pending.tolist() == [1, 2, 1, 1, 1, 0]


def test_unused_branch_is_not_needed_and_never_runs():
    x = ng.tensor(1.5, requires_grad=True)
    w = ng.tensor(0.5, requires_grad=True)
    used = x * 2
    unused = (w * 3).exp()
    g = lowered(used)
    assert names(g)[:2] == ["AccumulateGrad", "MulBackward0"]
    assert g.needed.tolist() == [True, True, False, False, False]
    del unused
    seen = []
    api.observers.append(lambda graph, read: seen.append(graph.order[:graph.n_order].tolist()))
    try:
        used.backward()
    finally:
        api.observers.clear()
    assert seen == [[1, 0]]
    assert w.grad is None and x.grad.item() == 2.0


def test_two_roots_share_a_leaf():
    x = ng.tensor(3.0, requires_grad=True)
    y1, y2 = x * 2, x.exp()
    g = lowered(y1, y2)
    assert g.pending.tolist() == [2, 0, 0]
    ng.autograd.backward([y1, y2])
    assert np.isclose(x.grad.item(), 2 + np.exp(3.0))


def test_pruning_to_inputs():
    x = ng.tensor(1.0, requires_grad=True)
    w = ng.tensor(2.0, requires_grad=True)
    y = (x * w).tanh() + w.exp()
    g = lowered(y, inputs=[x])
    # w.exp() leads only to w: pruned; the product leads to x: kept
    assert [n for n, need in zip(names(g), g.needed) if need] == \
        ["AccumulateGrad", "MulBackward0", "TanhBackward0", "AddBackward0"]
    (gx,) = ng.autograd.grad(y, x)
    assert np.isclose(gx.item(), 2.0 * (1 - np.tanh(2.0) ** 2))


def _random_dag(leaves, seed=3):
    rng = np.random.default_rng(seed)
    values = list(leaves)
    for _ in range(200):
        a, b = (values[int(i)] for i in rng.integers(0, len(values), 2))
        values.append((a * b).tanh() if rng.random() < 0.5 else a + b * 0.5)
    return values[-1] + values[-2] + values[-7]


def test_every_node_runs_once_in_a_random_dag():
    start = np.random.default_rng(4).uniform(0.5, 1.5, 4)
    leaves = [ng.tensor(float(v), dtype=ng.float64, requires_grad=True) for v in start]
    root = _random_dag(leaves)
    seen = []
    api.observers.append(lambda graph, read: seen.append(graph.order[:graph.n_order].copy()))
    try:
        root.backward()
    finally:
        api.observers.clear()
    order = seen[0]
    assert len(order) == len(set(order.tolist()))
    # and the gradients are right: central differences on the same DAG in float64
    eps = 1e-6
    for k in range(len(leaves)):
        plus, minus = start.copy(), start.copy()
        plus[k] += eps
        minus[k] -= eps
        f = [_random_dag([ng.tensor(v, dtype=ng.float64) for v in p]).item() for p in (plus, minus)]
        analytical = 0.0 if leaves[k].grad is None else leaves[k].grad.item()
        assert np.isclose(analytical, (f[0] - f[1]) / (2 * eps), rtol=1e-5, atol=1e-7)
