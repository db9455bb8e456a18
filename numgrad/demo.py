"""python -m numgrad.demo: the seed's shared-intermediate example seen from inside the engine,
then a small model learning.

u = x*x feeds both 2*u and 3*u: the engine must sum both contributions into u's input buffer
before it runs the square's backward once, with 5.
"""
import time

import numpy as np

import numgrad as ng
from numgrad.autograd import api
from numgrad.node import node_name


def _capture():
    seen = {}

    def observer(graph, read):
        seen["graph"], seen["read"] = graph, read
    api.observers.append(observer)
    return seen, observer


def shared_intermediate():
    print("== The seed's example: u = x*x feeds 2*u and 3*u ==")
    x = ng.tensor(2.0, requires_grad=True)
    u = x * x
    u.retain_grad()
    a, b = 2 * u, 3 * u
    loss = a + b
    seen, observer = _capture()
    try:
        loss.backward()
    finally:
        api.observers.remove(observer)
    print("values:", u.item(), a.item(), b.item(), loss.item())
    print("gradients:", u.grad.item(), x.grad.item())
    graph, read = seen["graph"], seen["read"]
    names = [node_name(*graph.locate(i)) for i in range(graph.n)]
    print("\nThe lowered graph (flat arrays handed to the compiled scheduler):")
    print(f"  {'pos':>3}  {'node':<16} {'edges (destination, input_nr)':<32} pending")
    for i in range(graph.n):
        edges = [(int(graph.e_node[e]), int(graph.e_slot[e]))
                 for e in range(graph.in_ptr[i], graph.in_ptr[i + 1])]
        text = " ".join(f"({d},{s})" if d >= 0 else "(none)" for d, s in edges) or "-"
        print(f"  {i:>3}  {names[i]:<16} {text:<32} {int(graph.pending[i])}")
    print("  (x*x has two edges to x's AccumulateGrad: its pending count is 2, one per edge)")
    print("\nThe scheduler's run: each node once, with its summed input buffer:")
    events = list(zip(*(e[:graph.n_events].tolist() for e in graph.events)))
    for i in graph.order[:graph.n_order].tolist():
        g = read(i, 0)
        print(f"  run {names[i]:<16} input = {g.item():g}")
        for src, dst, slot, pending in events:
            if src == i:
                print(f"      -> {names[dst]} (position {dst}) slot {slot}: pending now {pending}")
    print(f"x.grad={x.grad.item():g}\n")


def train_tiny_model(steps=600):
    print("== A small MLP (1-32-32-1, tanh, plain SGD) learning y = sin(3x) ==")
    ng.manual_seed(0)
    rng = np.random.default_rng(0)
    xs = rng.uniform(-1, 1, (256, 1)).astype(np.float32)
    x, y = ng.tensor(xs), ng.tensor(np.sin(3 * xs))
    sizes = [1, 32, 32, 1]
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(fan_in)
        params.append(ng.tensor(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32),
                                requires_grad=True))
        params.append(ng.zeros(fan_out, requires_grad=True))
    start = time.perf_counter()
    for step in range(steps + 1):
        h = x
        for k in range(0, len(params) - 2, 2):
            h = (h @ params[k] + params[k + 1]).tanh()
        loss = ((h @ params[-2] + params[-1] - y) ** 2).mean()
        loss.backward()
        with ng.no_grad():
            for p in params:
                p -= 0.1 * p.grad
                p.grad = None
        if step % 100 == 0:
            print(f"  step {step:4d}  loss {loss.item():.5f}  ({time.perf_counter() - start:.2f} s)")


def main():
    shared_intermediate()
    train_tiny_model()


if __name__ == "__main__":
    main()
