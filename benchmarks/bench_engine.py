"""asv suites: the engine's workloads (see workloads.py), numgrad only; compare.py puts them
beside torch. Each timed call builds what it consumes, so `number = 1`."""
import os
import subprocess
import sys
import tempfile

from benchmarks.workloads import ALL


class _Workload:
    number = 1
    repeat = (3, 10, 20.0)
    workload = None

    def setup(self, *params):
        self.state = ALL[self.workload].prepare("numgrad")
        ALL[self.workload].run("numgrad", ALL[self.workload].prepare("numgrad"))   # compile, warm

    def _run(self):
        ALL[self.workload].run("numgrad", self.state)


def _suite(key):
    cls = type(key, (_Workload,), {"workload": key})
    cls.time_run = lambda self: self._run()
    return cls


ScalarChainBackward = _suite("chain_backward")
ScalarChainForward = _suite("chain_forward")
ScalarChainForwardBackward = _suite("chain_full")
RandomScalarDAG = _suite("random_dag")
FanOut = _suite("fan_out")
ScalarMLP = _suite("scalar_mlp")
TensorMLPStep = _suite("tensor_mlp")
ConvNetStep = _suite("conv_net")
ElementwiseChain = _suite("elementwise")
MatmulBackward512 = _suite("matmul_512")
MatmulBackward2048 = _suite("matmul_2048")


class ScalarChainSizes:
    """Backward (incl. lowering) of the tanh chain at 10^3..10^5 steps."""
    params = [1_000, 10_000, 100_000]
    param_names = ["steps"]
    number = 1
    repeat = (3, 10, 20.0)

    def setup(self, steps):
        from benchmarks.workloads import ScalarChain
        self.workload = ScalarChain(steps, "backward")
        self.workload.run("numgrad", self.workload.prepare("numgrad"))
        self.root = self.workload.prepare("numgrad")

    def time_backward(self, steps):
        self.root.backward()


class DeepChain:
    """10^6 nodes: time and peak memory of forward + backward."""
    number = 1
    repeat = (1, 3, 60.0)
    timeout = 300

    def setup(self):
        ALL["scalar_mlp"].run("numgrad", ALL["scalar_mlp"].prepare("numgrad"))

    def time_forward_backward(self):
        ALL["deep_chain"].run("numgrad", None)

    def peakmem_forward_backward(self):
        ALL["deep_chain"].run("numgrad", None)


class Recording:
    """Forward recording per op (10^4 scalar ops) and lowering per node (3*10^4 nodes)."""
    number = 1
    repeat = (5, 20, 10.0)

    def setup(self):
        import numgrad as ng
        from numgrad.lower import LoweredGraph, segments_of
        self.ng, self.LoweredGraph, self.segments_of = ng, LoweredGraph, segments_of
        self.w = ng.tensor(0.5, requires_grad=True)
        h = ng.tensor(0.1, requires_grad=True)
        for _ in range(10_000):
            h = (h * self.w + 0.1).tanh()
        self.root = h

    def time_record_10k_steps(self):
        h = self.ng.tensor(0.1, requires_grad=True)
        for _ in range(10_000):
            h = (h * self.w + 0.1).tanh()

    def time_lower_30k_nodes(self):
        graph = self.LoweredGraph(self.segments_of([self.root._seg]))
        graph.plan(graph.index_of([self.root._node]), graph.index_of([]))


_STARTUP = "import numgrad as ng; x = ng.tensor(2.0, requires_grad=True); (x * x + 3 * x).backward()"


class Startup:
    """Whole-process start: import + first small backward, with a warm and an empty kernel cache."""
    number = 1
    repeat = (3, 5, 60.0)
    timeout = 300

    def setup(self):
        subprocess.run([sys.executable, "-c", _STARTUP], check=True)   # fill the warm cache

    def time_warm_start(self):
        subprocess.run([sys.executable, "-c", _STARTUP], check=True)

    def time_cold_start(self):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMGRAD_CACHE_DIR=cache)
            subprocess.run([sys.executable, "-c", _STARTUP], check=True, env=env)
