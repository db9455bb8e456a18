"""python -m numgrad.demo: the seed's shared-intermediate example seen from inside the engine,
then a small model learning.

u = x*x feeds both 2*u and 3*u: the engine must sum both contributions into u's input buffer
before it runs the square's backward once, with 5.
"""
import time

import numpy as np

import numgrad as ng
from numgrad import tape


def shared_intermediate():
    print("== The seed's example: u = x*x feeds 2*u and 3*u ==")
    # record into a fresh tape segment, so its nodes are numbered from 0 as in the seed (a graph
    # still alive elsewhere in the process would otherwise share the segment)
    tape.close_segment(tape.recording_segment())
    x = ng.tensor(2.0, requires_grad=True)
    u = x * x
    u.retain_grad()
    a, b = 2 * u, 3 * u
    loss = a + b
    names = {"x": x, "u": u, "2*u": a, "3*u": b, "loss": loss}
    print("\nThe lowered graph, the flat arrays the compiled scheduler runs on (x*x has two edges")
    print("to x's AccumulateGrad, so x waits for two contributions: pending 2):")
    print(ng.autograd.graph.lower(loss, names=names))
    print("\nThe scheduler's run: each node once, after the contributions to it are summed.")
    print("First in the seed's order (a first-in first-out queue):")
    with ng.autograd.trace(names=names, order="fifo") as run:
        loss.backward(retain_graph=True)
    print(run)
    print("\nthen in torch's (the newest ready node first), numgrad's own, for a second backward:")
    x.grad = u.grad = None
    with ng.autograd.trace(names=names) as run:
        loss.backward()
    print(run)
    print("\nvalues:", u.item(), a.item(), b.item(), loss.item())
    print("gradients:", u.grad.item(), x.grad.item(), "\n")


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
