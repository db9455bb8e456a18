"""One custom Function among 10^5 compiled nodes: the compiled scheduler hands that node to Python
and resumes after it. Its backward should cost about one Python call, not a slower engine: the
target is within 2x of the same graph without the Function.

    python -m benchmarks.bench_python_node      # prints both times and their ratio

The asv suite below times the two backwards (lowering included, the forward untimed).
"""
import statistics
import time

import numgrad as ng

NODES = 100_000
STEPS = NODES // 3          # each step records mul, add and tanh


class Halve(ng.autograd.Function):
    """h / 2, its backward in Python."""

    @staticmethod
    def forward(ctx, h):
        return h * 0.5

    @staticmethod
    def backward(ctx, g):
        return g * 0.5


def chain(with_function):
    """The tanh chain h <- tanh(h * w + 0.1); with_function puts one Halve in its middle."""
    w = ng.tensor(0.5, requires_grad=True)
    h = ng.tensor(0.1, requires_grad=True)
    for step in range(STEPS):
        h = (h * w + 0.1).tanh()
        if with_function and step == STEPS // 2:
            h = Halve.apply(h)
    return h


def measure_backward(with_function, repeats):
    """Median seconds of a backward over fresh graphs."""
    times = []
    for _ in range(repeats):
        root = chain(with_function)
        start = time.perf_counter()
        root.backward()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


class PythonNodeAmongCompiled:
    params = [False, True]
    param_names = ["with_function"]
    number = 1
    repeat = (5, 20, 20.0)

    def setup(self, with_function):
        chain(with_function).backward()          # compile and warm
        self.root = chain(with_function)

    def time_backward(self, with_function):
        self.root.backward()

    def teardown(self, with_function):
        self.root = None


def main():
    chain(True).backward()                       # compile and warm both graphs' kernels
    chain(False).backward()
    plain = measure_backward(False, 9)
    mixed = measure_backward(True, 9)
    print(f"backward of {NODES} compiled nodes:             {plain * 1e3:7.2f} ms")
    print(f"the same with one custom Function (Python):  {mixed * 1e3:7.2f} ms")
    print(f"ratio: {mixed / plain:.2f}x (target: within 2x)")


if __name__ == "__main__":
    main()
