"""The fused nn primitives (numgrad/ops/nn_ops.py), from their samples in nn_samples.py, through
test_ops_table.py's checks: forward against NumPy, float64 gradcheck, float32 against float64,
compiled kernel against differentiable VJP (backward without and with create_graph), and
gradgradcheck."""
import numpy as np
import pytest

import numgrad as ng
from numgrad.autograd import gradcheck, gradgradcheck
from numgrad.ops import nn_ops, registry

from nn_samples import NN_SAMPLES
from op_table import Const

SEED = 4321
IDS = [f"{s.op}-{k}" for k, s in enumerate(NN_SAMPLES)]


def _outputs(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _wrt(sample, inputs):
    return [t for spec, t in zip(sample.args, inputs) if not isinstance(spec, Const)]


def _grads(sample, dtype, create_graph=False):
    inputs = sample.tensors(SEED, dtype)
    outs = [o for o in _outputs(sample.fn(*inputs)) if o.requires_grad]
    rng = np.random.default_rng(SEED + 1)
    weights = [ng.tensor(rng.standard_normal(o.shape).astype(dtype)) for o in outs]
    grads = ng.autograd.grad(outs, _wrt(sample, inputs), weights, create_graph=create_graph,
                             allow_unused=True)
    return [None if g is None else g.detach().numpy().astype(np.float64) for g in grads]


def test_every_nn_op_has_a_sample():
    ours = [op.name for op in registry.OPS if op.forward is not None
            and op.forward.__module__ == nn_ops.__name__]
    covered = {s.op for s in NN_SAMPLES}
    assert ours and not [name for name in ours if name not in covered]


@pytest.mark.parametrize("sample", NN_SAMPLES, ids=IDS)
def test_forward_matches_numpy(sample):
    with ng.no_grad():
        got = _outputs(sample.fn(*sample.tensors(SEED)))
    want = _outputs(sample.ref(*sample.arrays(SEED)))
    for g, w in zip(got, want):
        assert g.dtype == ng.float64 and g.shape == np.shape(w)
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("sample", NN_SAMPLES, ids=IDS)
def test_gradcheck(sample):
    assert gradcheck(sample.fn, sample.tensors(SEED), eps=sample.eps, atol=sample.atol)


@pytest.mark.parametrize("sample", NN_SAMPLES, ids=IDS)
def test_float32_close_to_float64(sample):
    for g32, g64 in zip(_grads(sample, np.float32), _grads(sample, np.float64)):
        assert (g32 is None) == (g64 is None)
        if g64 is not None:
            scale = max(1.0, float(np.abs(g64).max(initial=0.0)))
            np.testing.assert_allclose(g32, g64, rtol=1e-3, atol=1e-4 * scale)


@pytest.mark.parametrize("sample", NN_SAMPLES, ids=IDS)
def test_kernel_matches_vjp(sample):
    compiled = _grads(sample, np.float64)
    differentiable = _grads(sample, np.float64, create_graph=True)
    for a, b in zip(compiled, differentiable):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("sample", NN_SAMPLES, ids=IDS)
def test_gradgradcheck(sample):
    assert gradgradcheck(sample.fn, sample.tensors(SEED), eps=sample.eps, atol=sample.atol,
                         fast_mode=sample.fast)


def test_kernels_accumulate_when_an_input_is_used_twice():
    """linear(x, x) and conv2d sharing a tensor: the second contribution adds (Note [write then
    add] in abi.py), in the compiled kernels as in the VJPs."""
    x = ng.randn(3, 3, dtype=ng.float64, requires_grad=True)
    for create_graph in (False, True):
        (g,) = ng.autograd.grad(nn_ops.linear(x, x, x[0]).sum(), [x], create_graph=create_graph)
        ones = np.ones((3, 3))
        want = ones @ x.detach().numpy() + ones.T @ x.detach().numpy()
        want[0] += 3                        # the bias x[0] collects the column sums of g
        np.testing.assert_allclose(g.detach().numpy(), want)
