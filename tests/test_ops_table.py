"""Every differentiable op in the registry, from its samples in op_table.py: forward against NumPy,
float64 gradcheck, float32 against float64, compiled kernel against differentiable VJP, and
gradgradcheck. Adding an op to the registry without a sample (here, or in nn_samples.py for nn's
ops) fails test_every_op_has_a_sample."""
import numpy as np
import pytest

import numgrad as ng
from numgrad import tape
from numgrad.autograd import gradcheck, gradgradcheck
from numgrad.ops import registry

from nn_samples import NN_SAMPLES
from op_table import SAMPLES, Const

SEED = 1234
IDS = [f"{s.op}-{k}" for k, s in enumerate(SAMPLES)]
# the numeric checks run over nn's fused ops too (their samples live beside nn)
ALL = SAMPLES + NN_SAMPLES
ALL_IDS = IDS + [f"{s.op}-nn{k}" for k, s in enumerate(NN_SAMPLES)]


def _differentiable_ops():
    return [op for op in registry.OPS if op.differentiable and not op.python_backward
            and op is not registry.ACCUMULATE_GRAD]


def test_every_op_has_a_sample():
    # nn's ops keep their samples beside nn (tests/nn_samples.py)
    covered = {s.op for s in SAMPLES + NN_SAMPLES}
    missing = [op.name for op in _differentiable_ops() if op.name not in covered]
    assert not missing, f"registered ops without a sample in tests/op_table.py: {missing}"


def _outputs(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def _recorded_ops(outputs):
    """Op names of every node the tape recorded behind the outputs: its edges, which go on below
    a named composite's node, where next_functions shows torch's inputs instead."""
    seen, stack, names = set(), [(o._seg, o._node) for o in outputs if o._node >= 0], set()
    while stack:
        seg, node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        local = node & 0xFFFFFFFF
        names.add(registry.OPS[seg.op_of(local)].name)
        start, end = seg.inputs_of(local)
        stack.extend((tape.segment_holding(seg, seg.e_node[e]), seg.e_node[e])
                     for e in range(start, end) if seg.e_node[e] >= 0)
    return names


def _wrt(sample, inputs):
    return [t for spec, t in zip(sample.args, inputs) if not isinstance(spec, Const)]


def _grads(sample, dtype, create_graph=False):
    """Gradients of sum(w * output) over the differentiable outputs, w fixed per sample."""
    inputs = sample.tensors(SEED, dtype)
    outs = [o for o in _outputs(sample.fn(*inputs)) if o.requires_grad]
    rng = np.random.default_rng(SEED + 1)
    weights = [ng.tensor(rng.standard_normal(o.shape).astype(dtype)) for o in outs]
    grads = ng.autograd.grad(outs, _wrt(sample, inputs), weights, create_graph=create_graph,
                             allow_unused=True)
    return [None if g is None else g.detach().numpy().astype(np.float64) for g in grads]


@pytest.mark.parametrize("sample", SAMPLES, ids=IDS)
def test_records_its_op(sample):
    """The sample exercises its op, in the forward or (ops that only gradients use, such as
    sum_to) in the recorded first derivative."""
    inputs = sample.tensors(SEED)
    outputs = [o for o in _outputs(sample.fn(*inputs)) if o.requires_grad]
    names = _recorded_ops(outputs)
    if sample.op not in names:
        seeds = [ng.ones_like(o).requires_grad_() for o in outputs]
        grads = ng.autograd.grad(outputs, _wrt(sample, inputs), seeds, create_graph=True,
                                 allow_unused=True)
        names |= _recorded_ops([g for g in grads if g is not None and g.requires_grad])
    assert sample.op in names


@pytest.mark.parametrize("sample", ALL, ids=ALL_IDS)
def test_forward_matches_numpy(sample):
    with ng.no_grad():
        got = _outputs(sample.fn(*sample.tensors(SEED)))
    want = sample.ref(*sample.arrays(SEED))
    want = list(want) if isinstance(want, tuple) else [want]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = np.asarray(w)
        assert g.shape == w.shape
        if w.dtype.kind in "iu":
            assert g.dtype == ng.int64
            np.testing.assert_array_equal(g.detach().numpy(), w)
        else:
            # a view of an input made in no_grad mode requires grad through it, as in torch
            assert g.dtype == ng.float64
            np.testing.assert_allclose(g.detach().numpy(), w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("sample", ALL, ids=ALL_IDS)
def test_gradcheck(sample):
    assert gradcheck(sample.fn, sample.tensors(SEED), eps=sample.eps, atol=sample.atol)


@pytest.mark.parametrize("sample", ALL, ids=ALL_IDS)
def test_float32_close_to_float64(sample):
    for g32, g64 in zip(_grads(sample, np.float32), _grads(sample, np.float64)):
        assert (g32 is None) == (g64 is None)
        if g64 is not None:
            scale = max(1.0, float(np.abs(g64).max(initial=0.0)))
            np.testing.assert_allclose(g32, g64, rtol=1e-3, atol=1e-4 * scale)


@pytest.mark.parametrize("sample", ALL, ids=ALL_IDS)
def test_kernel_matches_vjp(sample):
    compiled = _grads(sample, np.float64)
    differentiable = _grads(sample, np.float64, create_graph=True)
    for a, b in zip(compiled, differentiable):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("sample", ALL, ids=ALL_IDS)
def test_gradgradcheck(sample):
    assert gradgradcheck(sample.fn, sample.tensors(SEED), eps=sample.eps, atol=sample.atol,
                         fast_mode=sample.fast)
