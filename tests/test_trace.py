"""autograd.trace: the scheduler's run as events, checked against the seed's C++ model.

Seed 000 prints, for u = x*x feeding 2*u and 3*u at x = 2:
    run loss: 1 / run 2*u: 1 / u buffer=2, pending=1 / run 3*u: 1 / u buffer=5, pending=0 /
    run u=x*x: 5 / run x: 20 / x.grad=20
Its queue is first in, first out; numgrad's scheduler runs that order under trace(order="fifo"),
and torch's (the newest ready node first) otherwise. The trace also shows every delivery.
"""
import threading

import numpy as np
import pytest

import numgrad as ng
from numgrad import tape
from numgrad.autograd import Function, trace
from numgrad.autograd.graph import lower
from numgrad.autograd.trace import Delivery, LeafGrad, Run, Seed


@pytest.fixture(autouse=True)
def fresh_segment():
    tape.close_segment(tape.current_segment())


def seed_example(x0=2.0):
    x = ng.tensor(x0, requires_grad=True)
    u = x * x
    a, b = 2 * u, 3 * u
    loss = a + b
    return x, u, a, b, loss


def test_seed_example_prints_like_the_cpp_model():
    x, u, a, b, loss = seed_example()
    with trace(names={"x": x, "u=x*x": u, "2*u": a, "3*u": b, "loss": loss}, order="fifo") as t:
        loss.backward()
    assert str(t) == """\
seed loss: 1
run loss: 1
2*u buffer=1, pending=0
3*u buffer=1, pending=0
run 2*u: 1
u=x*x buffer=2, pending=1
run 3*u: 1
u=x*x buffer=5, pending=0
run u=x*x: 5
x buffer=10, pending=1
x buffer=20, pending=0
run x: 20
x.grad=20"""
    assert x.grad.item() == 20.0


def test_torch_order_runs_the_newest_ready_node_first():
    x, u, a, b, loss = seed_example()
    with trace(names={"x": x, "u": u, "2*u": a, "3*u": b, "loss": loss}) as t:
        loss.backward()
    runs = [str(e) for e in t.events if isinstance(e, Run)]
    assert runs == ["run loss: 1", "run 3*u: 1", "run 2*u: 1", "run u: 5", "run x: 20"]
    assert x.grad.item() == 20.0


def test_an_unknown_order_is_refused():
    with pytest.raises(ValueError, match="order must be 'torch' or 'fifo', got 'lifo'"):
        trace(order="lifo")


def test_run_order_rules_hold_in_the_event_data():
    x, u, a, b, loss = seed_example(3.0)
    plan = lower(loss)
    with trace() as t:
        loss.backward()
    events = t.events
    runs = [e for e in events if isinstance(e, Run)]
    # every needed node runs exactly once, and only after its last delivery (pending 0)
    assert sorted(t.order) == sorted(i for i, _ in plan.nodes)
    for run in runs:
        deliveries = [k for k, e in enumerate(events)
                      if isinstance(e, Delivery) and e.dst == run.node]
        assert len(deliveries) == plan.pending[run.node]
        if deliveries:
            assert events[deliveries[-1]].pending == 0
            assert deliveries[-1] < events.index(run)
    # the shared square runs once with the sum 3 + 2 (3*u, made last, runs first), never with 3
    # and then 2
    (square,) = [r for r in runs if r.node == u._node & 0xFFFFFFFF]
    assert square.grads[0] == 5.0
    contributions = [float(e.contribution) for e in events
                     if isinstance(e, Delivery) and e.dst == square.node]
    assert contributions == [3.0, 2.0]
    # each of the square's two edges to the leaf carries 5 * x = 15: 30 in total
    leaf = [e for e in events if isinstance(e, Delivery) and e.src == square.node]
    assert [float(e.contribution) for e in leaf] == [15.0, 15.0]
    assert [e.pending for e in leaf] == [1, 0]
    assert isinstance(events[0], Seed) and float(events[0].value) == 1.0
    assert isinstance(events[-1], LeafGrad) and float(events[-1].grad) == 30.0


def test_leaf_accumulation_and_autograd_grad():
    x = ng.tensor(2., requires_grad=True)
    x.grad = ng.tensor(1.)
    with trace(names={"x": x}) as t:
        (x * 3).backward()
        ng.autograd.grad(x * 5, x)
    lines = str(t).splitlines()
    assert lines[4] == "x.grad=4"            # 1 already there, plus 3
    assert lines[-1] == "x gradient=5 (returned, .grad untouched)"


def test_vectors_and_the_seeds_of_two_roots():
    x = ng.tensor([1., 2.], requires_grad=True)
    u = x * 2
    v = u * u
    with trace(names={"x": x, "u": u, "v": v}) as t:
        ng.autograd.backward([v, u], [ng.tensor([1., 1.]), ng.tensor([10., 20.])])
    text = str(t)
    # u = [2, 4] starts with its own seed, then receives 1 * u from each of v's two edges
    assert text.splitlines()[:6] == ["seed v: [1., 1.]", "seed u: [10., 20.]", "run v: [1., 1.]",
                                     "u buffer=[12., 24.], pending=1",
                                     "u buffer=[14., 28.], pending=0", "run u: [14., 28.]"]
    np.testing.assert_allclose(x.grad.numpy(), [28., 56.])


def test_create_graph_path_is_traced_with_the_plan_counts():
    x = ng.tensor(3., requires_grad=True)
    with trace(names={"x": x}) as t:
        (g,) = ng.autograd.grad(x * x, x, create_graph=True)
    assert str(t).splitlines()[2:5] == ["x buffer=3, pending=1", "x buffer=6, pending=0",
                                        "run x: 6"]
    assert g.requires_grad


class Double(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_custom_function_and_hooks_show_what_the_engine_ran_with():
    x = ng.tensor(1.5, requires_grad=True)
    y = Double.apply(x)
    y.register_hook(lambda g: g * 10)
    with trace(names={"x": x, "y": y}) as t:
        (y + y).backward()
    # y's buffer sums 1 + 1, the hook makes it 20 before Double runs
    assert [str(e) for e in t.events][2:6] == ["y buffer=1, pending=1", "y buffer=2, pending=0",
                                               "run y: 20", "x buffer=40, pending=0"]
    assert x.grad.item() == 40.0


def test_only_this_threads_backwards_are_recorded():
    x = ng.tensor(2., requires_grad=True)
    with trace() as t:
        other = threading.Thread(target=lambda: (x * 2).backward())
        other.start()
        other.join()
    assert t.events == []
    assert x.grad.item() == 2.0


def test_slots_of_a_multi_output_node_and_undefined_gradients():
    x = ng.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    rows = ng.unbind(x)
    with trace(names={"x": x}) as t:
        (rows[1] * 3).sum().backward()
    lines = str(t).splitlines()
    # only output 1 of unbind receives a gradient; output 0 stays undefined, not zeros
    assert "UnbindBackward0#1[1] buffer=[3., 3.], pending=0" in lines
    assert "run UnbindBackward0#1: (undefined, [3., 3.])" in lines
    assert lines[-1] == "x.grad=[[0., 0.], [3., 3.]]"
