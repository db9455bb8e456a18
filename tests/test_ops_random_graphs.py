"""Random graphs of registry ops: broadcasting, values used several times, multi-output ops whose
pieces are partly unused. Every leaf's gradient must match finite differences, and the compiled
backward must match the differentiable (create_graph) one."""
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import numgrad as ng
from numgrad.autograd import gradcheck

LEAF_SHAPES = [(2, 3), (3,), (1, 3), (2, 1), (), (3, 2)]

# Smooth ops only (no kinks, no ties), bounded on any input.
UNARY = {
    "tanh": ng.tanh,
    "sin": ng.sin,
    "sigmoid": ng.sigmoid,
    "square": lambda x: x.square() * 0.5,
    "neg": lambda x: -x,
    "exp": lambda x: (x.tanh() * 0.5).exp(),
    "log": lambda x: (x * x + 1.0).log(),
    "sqrt": lambda x: (x * x + 1.0).sqrt(),
    "pow": lambda x: (x * x + 1.0) ** 1.5,
    "rsub": lambda x: 1.0 - x,
    "scale": lambda x: 2.0 * x + 0.5,
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (b * b + 1.0),
    "atan2": lambda a, b: ng.atan2(a, b * b + 1.0),
    "where": lambda a, b: ng.where(a.detach() > 0, a, b),
}


def _dims(x):
    return list(range(x.ndim))


def _reductions(x, d):
    ops = {"sum": lambda t: t.sum(d), "mean": lambda t: t.mean(d, keepdim=True),
           "logsumexp": lambda t: t.logsumexp(d), "prod": lambda t: (t.tanh() + 2.0).prod(d),
           "norm": lambda t: (t * t + 1.0).norm(dim=d), "cumsum": lambda t: t.cumsum(d),
           "cumprod": lambda t: t.tanh().cumprod(d), "flip": lambda t: t.flip(d)}
    if x.shape[d] > 1:
        ops["var"] = lambda t: t.var(d)
        ops["std"] = lambda t: t.std(d, correction=0)
    return ops


def _pieces(x, d):
    """Multi-output ops along d: every piece goes back to the pool."""
    ops = {"unbind": lambda t: t.unbind(d)}
    if x.shape[d] > 1:
        ops["split"] = lambda t: t.split(1, d)
        ops["chunk"] = lambda t: t.chunk(2, d)
    return ops


def _reshapes(x):
    ops = {"unsqueeze": lambda t: t.unsqueeze(0), "flatten": lambda t: t.reshape(-1),
           "repeat": lambda t: t.repeat(*([2] + [1] * t.ndim))}
    if x.ndim >= 2:
        ops["transpose"] = lambda t: t.transpose(0, 1)
        ops["slice"] = lambda t: t[:, 1:]
        ops["take"] = lambda t: t[[0, 0, -1]]
        ops["pad"] = lambda t: ng.pad(t, (1, 0, 0, 2), value=0.5)
    return ops


@st.composite
def programs(draw):
    """A list of steps (kind, name, input positions, dim); replayed on fresh leaves by `run`."""
    shapes = [draw(st.sampled_from(LEAF_SHAPES)) for _ in range(draw(st.integers(2, 3)))]
    pool = [np.zeros(s) for s in shapes]          # shapes only: ops are replayed on zeros
    steps = []
    for _ in range(draw(st.integers(2, 7))):
        kind = draw(st.sampled_from(["unary", "binary", "binary", "reduce", "pieces", "reshape",
                                     "matmul", "cat"]))
        i = draw(st.integers(0, len(pool) - 1))
        x = ng.tensor(pool[i])
        step = None
        if kind == "unary":
            step = ("unary", draw(st.sampled_from(sorted(UNARY))), (i,), None)
        elif kind == "binary":
            partners = [j for j, p in enumerate(pool) if _broadcasts(pool[i].shape, p.shape)]
            j = draw(st.sampled_from(partners))
            step = ("binary", draw(st.sampled_from(sorted(BINARY))), (i, j), None)
        elif kind in ("reduce", "pieces") and x.ndim:
            d = draw(st.sampled_from(_dims(x)))
            table = _reductions(x, d) if kind == "reduce" else _pieces(x, d)
            step = (kind, draw(st.sampled_from(sorted(table))), (i,), d)
        elif kind == "reshape":
            step = ("reshape", draw(st.sampled_from(sorted(_reshapes(x)))), (i,), None)
        elif kind == "matmul" and x.ndim in (1, 2):
            partners = [j for j, p in enumerate(pool) if p.ndim in (1, 2) and p.shape[0] == x.shape[-1]]
            if partners:
                step = ("matmul", "matmul", (i, draw(st.sampled_from(partners))), None)
        elif kind == "cat" and x.ndim:
            partners = [j for j, p in enumerate(pool) if p.shape[1:] == x.shape[1:] and p.ndim]
            step = ("cat", "cat", (i, draw(st.sampled_from(partners))), None)
        if step is None:
            continue
        steps.append(step)
        with ng.no_grad():
            pool.extend(o.numpy() for o in _apply(step, [ng.tensor(p) for p in pool]))
    weights = [draw(st.sampled_from([0.0, 1.0, -0.5])) for _ in pool]
    return shapes, steps, weights


def _broadcasts(a, b):
    try:
        np.broadcast_shapes(a, b)
        return True
    except ValueError:
        return False


def _apply(step, pool):
    kind, name, inputs, d = step
    args = [pool[k] for k in inputs]
    if kind == "unary":
        out = UNARY[name](*args)
    elif kind == "binary":
        out = BINARY[name](*args)
    elif kind == "reduce":
        out = _reductions(args[0], d)[name](args[0])
    elif kind == "pieces":
        return list(_pieces(args[0], d)[name](args[0]))
    elif kind == "reshape":
        out = _reshapes(args[0])[name](args[0])
    elif kind == "matmul":
        out = args[0] @ args[1]
    else:
        out = ng.cat(args, 0)
    return [out]


def run(steps, weights, *leaves):
    """The program on these leaves: every value, weighted, summed into one scalar."""
    pool = list(leaves)
    for step in steps:
        pool.extend(_apply(step, pool))
    total = None
    for value, w in zip(pool, weights):
        if w:
            term = (value * w).sum()
            total = term if total is None else total + term
    return total if total is not None else (pool[0] * 0.0).sum()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.integers(0, 2 ** 16))
def test_random_graph_gradients_match_finite_differences(program, seed):
    shapes, steps, weights = program
    rng = np.random.default_rng(seed)
    leaves = [ng.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    fn = lambda *xs: run(steps, weights, *xs)  # noqa: E731
    assert gradcheck(fn, leaves, atol=1e-5, rtol=1e-4)
    compiled = ng.autograd.grad(fn(*leaves), leaves, allow_unused=True)
    recorded = ng.autograd.grad(fn(*leaves), leaves, allow_unused=True, create_graph=True)
    for a, b in zip(compiled, recorded):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
