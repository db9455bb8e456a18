"""Every op on the GPU against the CPU: the samples of op_table.py run once with CPU tensors and once
with CUDA ones; forwards and gradients (of random output weights) must agree. Also: every op has a
CUDA forward and backward twin. Without a GPU this runs in numba-cuda's simulator (conftest.py);
without numba-cuda it is skipped."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.cuda
import numgrad.nn.functional as F
from numgrad.ops import nn_ops as N, registry
from numgrad.ops.apply import apply

from op_table import SAMPLES, Const, Pos, Sample as S

pytestmark = pytest.mark.skipif(not numgrad.cuda.is_available(),
                                reason="needs numba-cuda and a GPU or its simulator")
SEED = 4321


class Prob(Pos):
    def make(self, rng):
        return rng.uniform(0.05, 0.95, self.shape)


_WINDOWS = {"kernel": (2, 2), "stride": (2, 1), "padding": (1, 0), "dilation": (1, 2)}
# The nn primitives (their CPU references are the CPU runs; `ref` is unused here).
NN_SAMPLES = [
    S("softmax", lambda x: N.softmax(x, 1), [(3, 4, 2)], None),
    S("log_softmax", lambda x: N.log_softmax(x, 0), [(3, 4)], None),
    S("cross_entropy", lambda x: F.cross_entropy(x, np.array([0, 2, 1]), label_smoothing=0.1),
      [(3, 4)], None),
    # class weights take no gradient (torch refuses one that requires grad)
    S("cross_entropy", lambda x, w: F.cross_entropy(x, np.array([3, -100, 1, 3]),
                                                    weight=w.detach(), reduction="none"),
      [(4, 5), Pos((5,))], None),
    S("cross_entropy", lambda x: F.cross_entropy(x, np.array([1, 0]), reduction="sum"),
      [(2, 3)], None),
    S("batch_norm_stats", lambda x: sum(o.sum() * (k + 1) for k, o in
                                        enumerate(N.batch_norm_stats(x, 1e-3))),
      [(3, 2, 4)], None),
    S("batch_norm", lambda x, w, b: sum(o.sum() * (k + 1) for k, o in
                                        enumerate(N.batch_norm(x, w, b, 1e-3))),
      [(3, 2, 4), (2,), (2,)], None),
    S("layer_norm", lambda x, w, b: N.layer_norm(x, w, b, 1e-3), [(3, 2, 4), (4,), (4,)], None),
    S("avg_pool2d", lambda x: N.avg_pool2d(x, (3, 2), (2, 1), (1, 1), False, None, (3, 5)),
      [(2, 3, 5, 4)], None),
    S("group_norm", lambda x, w, b: sum(o.sum() * (k + 1) for k, o in
                                        enumerate(N.group_norm(x, w, b, 2, 1e-3))),
      [(3, 4, 5), (4,), (4,)], None),
    S("linear", F.linear, [(3, 4), (2, 4), (2,)], None),
    S("linear_no_bias", F.linear, [(3, 4), (5, 4)], None),
    # torch's inner nodes of the fused kernels (Note [torch's inner nodes] in ops/nn_ops.py)
    S("linear_weight", lambda x, w: F.linear(x, w) * 1.0, [(2, 3), (4, 3)], None),
    S("cross_entropy_logits", lambda x: F.cross_entropy(x * 1.0, np.array([1, 0, 2])),
      [(3, 4)], None),
    S("im2col", lambda x: N.im2col(x, layout=N.CONV, **_WINDOWS), [(2, 2, 3, 4)], None),
    S("im2col", lambda x: N.im2col(x, layout=N.POOL, **_WINDOWS), [(1, 2, 3, 3)], None),
    S("col2im", lambda c: apply(N.COL2IM, (c,), dict(_WINDOWS, layout=N.CONV,
                                                     in_shape=(2, 2, 3, 4))), [(2, 2, 2, 2, 2, 2)],
      None),
    S("conv2d", lambda x, w, b: N.conv2d(x, w, b, stride=(2, 1), padding=(1, 1), dilation=(1, 2)),
      [(2, 3, 5, 4), (4, 3, 3, 2), (4,)], None),
    S("conv2d_no_bias", lambda x, w: N.conv2d(x, w), [(1, 2, 3, 3), (3, 2, 2, 2)], None),
    S("gelu", N.gelu, [(2, 3)], None),
    S("gelu_tanh", lambda x: N.gelu(x, approximate="tanh"), [(2, 3)], None),
    S("silu", N.silu, [(2, 3)], None),
    S("softplus", lambda x: N.softplus(x * 10.0, beta=0.5, threshold=3.0), [(2, 3)], None),
    S("leaky_relu", lambda x: N.leaky_relu(x, 0.2), [(2, 3)], None),
    S("hardtanh", lambda x: N.hardtanh(x, -0.5, 0.8), [(2, 3)], None),
    S("threshold", lambda x: N.threshold(x, 0.1, -2.0), [(2, 3)], None),
    S("hardshrink", lambda x: N.hardshrink(x, 0.3), [(2, 3)], None),
    S("softshrink", lambda x: N.softshrink(x, 0.3), [(2, 3)], None),
    S("elu", lambda x: N.elu(x, 1.5), [(2, 3)], None),
    S("elu", lambda x: N.celu(x, 1.3), [(2, 3)], None),
    S("hardswish", lambda x: N.hardswish(x * 4.0), [(2, 3)], None),
    S("affine", N.affine, [(2, 3, 4), (3, 1), (4,)], None),
    S("read_by_backward", lambda x: F.pad(x, (2, 1), mode="reflect"), [(2, 3)], None),
    S("binary_cross_entropy", N.binary_cross_entropy, [Prob((2, 3)), Prob((2, 3))], None),
]
ALL = SAMPLES + NN_SAMPLES
IDS = [f"{s.op}-{k}" for k, s in enumerate(ALL)]
_tensor = ng.tensor


def _float_constants_on_cuda(data, dtype=None, device=None, requires_grad=False):
    """ng.tensor inside a sample's fn: float constants go where the inputs are (torch would need
    them there); index and mask tensors stay on the host, where numgrad computes positions."""
    t = _tensor(data, dtype=dtype, requires_grad=requires_grad)
    return t.cuda() if t.is_floating_point() else t


def _outputs(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _run(sample, device, dtype):
    """(forward values, input gradients) as float64 host arrays."""
    inputs = [a if isinstance(spec, Const) else
              ng.tensor(np.asarray(a, dtype), device=device, requires_grad=True)
              for spec, a in zip(sample.args, sample.arrays(SEED))]
    outs = _outputs(sample.fn(*inputs))
    values = [o.detach().cpu().numpy().astype(np.float64) for o in outs]
    wanted = [o for o in outs if o.requires_grad]
    rng = np.random.default_rng(SEED + 1)
    weights = [ng.tensor(rng.uniform(0.5, 1.5, o.shape).astype(dtype), device=device)
               for o in wanted]
    leaves = [t for spec, t in zip(sample.args, inputs) if not isinstance(spec, Const)]
    grads = ng.autograd.grad(wanted, leaves, weights, allow_unused=True) if wanted else []
    return values, [None if g is None else g.cpu().numpy().astype(np.float64) for g in grads]


@pytest.mark.parametrize("sample", ALL, ids=IDS)
def test_forward_and_gradients_match_the_cpu(sample, monkeypatch):
    cpu_values, cpu_grads = _run(sample, "cpu", np.float64)
    monkeypatch.setattr(ng, "tensor", _float_constants_on_cuda)
    gpu_values, gpu_grads = _run(sample, "cuda", np.float64)
    for c, g in zip(cpu_values, gpu_values):
        np.testing.assert_allclose(g, c, rtol=1e-10, atol=1e-12)
    for c, g in zip(cpu_grads, gpu_grads):
        assert (c is None) == (g is None)
        if c is not None:
            np.testing.assert_allclose(g, c, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("sample", ALL[::6], ids=IDS[::6])
def test_float32_matches_the_cpu(sample, monkeypatch):
    cpu_values, cpu_grads = _run(sample, "cpu", np.float32)
    monkeypatch.setattr(ng, "tensor", _float_constants_on_cuda)
    gpu_values, gpu_grads = _run(sample, "cuda", np.float32)
    for c, g in zip(cpu_values + [v for v in cpu_grads if v is not None],
                    gpu_values + [v for v in gpu_grads if v is not None]):
        np.testing.assert_allclose(g, c, rtol=2e-5, atol=1e-5)


def _ops():
    return [op for op in registry.OPS
            if op is not registry.ACCUMULATE_GRAD and not op.python_backward]


def test_every_op_is_exercised():
    covered = {s.op for s in ALL}
    missing = [op.name for op in _ops() if op.differentiable and op.name not in covered]
    assert not missing, f"ops without a sample in op_table.py or NN_SAMPLES: {missing}"


def test_every_op_has_a_cuda_forward():
    from numgrad.cuda.dispatch import TWINS
    missing = [op.name for op in _ops() if op.name not in TWINS]
    assert not missing, f"ops without a CUDA forward in numgrad/cuda/dispatch.py: {missing}"


def test_every_backward_kernel_has_a_cuda_twin():
    from numgrad.cuda.generate import kernels as generated
    from numgrad.kernels import cpu, cuda
    for op in _ops():
        if op.differentiable and op.elementwise:
            assert hasattr(generated(), f"{op.name}_bwd"), op.name
        elif op.differentiable:
            assert hasattr(cuda, op.kernel), f"kernels/cuda.py lacks {op.kernel} ({op.name})"
    cpu_kernels = {n for n in vars(cpu) if n.endswith("_bwd")}
    cuda_kernels = {n for n in vars(cuda) if n.endswith("_bwd")}
    assert cpu_kernels == cuda_kernels
