"""Sample inputs for every differentiable op in the registry (OpInfo-style).

Each `Sample` names the registry op it exercises, calls the public API on tensors made from its
argument specs, and gives a NumPy reference for the forward. tests/test_ops_table.py runs every
sample through the forward, gradcheck, float32-vs-float64, compiled-kernel-vs-VJP and gradgradcheck
tests, and fails when a registered op has no sample.

Argument specs: a shape tuple is a random normal tensor that requires grad; `Pos(shape)` a
positive one, `Away(shape)` one with |x| >= 0.3 (kinks at 0 stay out of the finite differences);
`Const(value)` is passed unchanged (indices, masks, scalars). Shapes are small on purpose: gradcheck
runs one backward per output element.
"""
import math

import numpy as np
from scipy import special

import numgrad as ng
from numgrad.ops.elementwise import reads
from numgrad.ops.named import named


class Pos:
    def __init__(self, shape):
        self.shape = shape

    def make(self, rng):
        return rng.uniform(0.5, 2.0, self.shape)


class Away:
    def __init__(self, shape):
        self.shape = shape

    def make(self, rng):
        x = rng.uniform(0.3, 1.5, self.shape)
        return x * rng.choice([-1.0, 1.0], self.shape)


class Distinct:
    """Values at least 0.1 apart (max, sort, topk, maximum: no ties within finite differences)."""

    def __init__(self, shape):
        self.shape = shape

    def make(self, rng):
        n = int(np.prod(self.shape, dtype=np.int64))
        return (rng.permutation(n) * 0.25 - n * 0.1).reshape(self.shape)


class Const:
    def __init__(self, value):
        self.value = value


class Sample:
    def __init__(self, op, fn, args, ref, *, fast=False, eps=1e-6, atol=1e-5):
        self.op = op            # the registry name of the op this sample must record
        self.fn = fn            # (*inputs) -> Tensor or tuple of Tensors
        self.args = args
        self.ref = ref          # (*arrays) -> ndarray or tuple: the forward, in NumPy
        self.fast = fast        # gradgradcheck in fast mode (big second-order graphs)
        self.eps = eps          # gradcheck's finite-difference step and tolerance
        self.atol = atol

    def arrays(self, seed):
        """The arguments as float64 arrays (and constants), the same for a given seed."""
        rng = np.random.default_rng(seed)
        out = []
        for spec in self.args:
            if isinstance(spec, Const):
                out.append(spec.value)
            elif isinstance(spec, tuple):
                out.append(rng.standard_normal(spec))
            else:
                out.append(spec.make(rng))
        return out

    def tensors(self, seed, dtype=np.float64):
        return [a if isinstance(spec, Const) else ng.tensor(np.asarray(a, dtype), requires_grad=True)
                for spec, a in zip(self.args, self.arrays(seed))]

    def __repr__(self):
        shapes = [spec.shape if hasattr(spec, "shape") else spec if isinstance(spec, tuple)
                  else "c" for spec in self.args]
        return f"{self.op}{shapes}"


S = Sample
IDX = Const(np.array([[0, 2, 1, 0], [2, 2, 0, 1]]))


def _written(op, index, shapes):
    """The sample of y = x * 1, then y[index] = v: the value and the old y outside the region get
    the gradient (in-place ops through views: tests/test_views_inplace.py)."""
    def fn(x, v):
        y = x * 1.0
        y[index] = v
        return y

    def ref(x, v):
        y = x.copy()
        y[index] = v
        return y
    return Sample(op, fn, shapes, ref)


def _np_where(c, a, b):
    return np.where(c, a, b)


def _clamp_tensor_ref(x, lo, hi):
    return np.minimum(np.maximum(x, lo), hi)


def _lse(x, axis, keepdims=False):
    return special.logsumexp(x, axis=axis, keepdims=keepdims)


def _norm(x, p, axis=None, keepdims=False):
    a = np.abs(x)
    if p == math.inf:
        return np.amax(a, axis=axis, keepdims=keepdims)
    return np.sum(a ** p, axis=axis, keepdims=keepdims) ** (1 / p)


def _scatter_add_ref(x, dim, idx, src):
    out = x.copy()
    for pos in np.ndindex(idx.shape):
        target = list(pos)
        target[dim] = idx[pos]
        out[tuple(target)] += src[pos]
    return out


def _take_along(x, idx, dim):
    return np.take_along_axis(x, idx, dim)


def _topk_ref(x, k, dim, largest):
    order = np.argsort(-x if largest else x, axis=dim, kind="stable")
    idx = np.take(order, range(k), axis=dim)
    return np.take_along_axis(x, idx, dim), idx


SAMPLES = [
    # ---- elementwise, broadcasting and 0-d ----
    S("add", lambda x, y: x + y, [(3, 4), (4,)], np.add),
    S("add_alpha", lambda x, y: ng.add(x, y, alpha=2.0), [(), (2, 3)], lambda x, y: x + 2 * y),
    S("sub_alpha", lambda x, y: ng.sub(x, y, alpha=-1.5), [(2, 3), (3,)],
      lambda x, y: x + 1.5 * y),
    S("add", lambda x: x + 1.5, [(2, 3)], lambda x: x + 1.5),
    S("sub", lambda x, y: x - y, [(3, 1), (1, 4)], np.subtract),
    S("mul", lambda x, y: x * y, [(2, 3), (2, 1)], np.multiply),
    S("mul", lambda x: x * x, [(3,)], lambda x: x * x),
    S("div", lambda x, y: x / y, [(3, 4), Pos((4,))], np.divide),
    # scalar / tensor is reciprocal(x) * scalar, as torch computes it
    S("mul", lambda x: 2.0 / x, [Pos((3,))], lambda x: 2.0 / x),
    # rounded division: zero gradients (x / y stays away from integers within gradcheck's step)
    # (x // y is floor_divide, which torch records without a derivative)
    S("div_floor", lambda x, y: ng.div(x, y, rounding_mode="floor"), [(3, 4), Away((4,))],
      np.floor_divide),
    S("div_floor", lambda x: ng.div(7.0, x, rounding_mode="floor"), [Away((3,))],
      lambda x: np.floor_divide(7.0, x)),
    S("div_trunc", lambda x, y: ng.div(x, y, rounding_mode="trunc"), [(2, 3), Away((2, 1))],
      lambda x, y: np.trunc(x / y)),
    S("remainder", lambda x, y: x % y, [(3, 4), Away((4,))], lambda x, y: x - y * np.floor(x / y)),
    S("remainder", lambda x: ng.remainder(ng.tensor(1.5, dtype=x.dtype), x), [Away((3,))],
      lambda x: np.mod(1.5, x)),
    S("remainder_scalar", lambda x: x.remainder(-0.7), [(2, 3)], lambda x: np.mod(x, -0.7)),
    S("fmod", lambda x, y: x.fmod(y), [(3, 4), Away((3, 1))], np.fmod),
    S("fmod_scalar", lambda x: x.fmod(0.6), [(2, 3)], lambda x: np.fmod(x, 0.6)),
    S("pow", lambda x, y: x ** y, [Pos((2, 3)), (3,)], np.power),
    S("pow_scalar", lambda x: x ** 3, [(2, 3)], lambda x: x ** 3),
    S("pow_scalar", lambda x: x ** 0.5, [Pos((4,))], np.sqrt),
    S("pow_base", lambda x: 2.5 ** x, [(2, 3)], lambda x: 2.5 ** x),
    S("rsub", lambda x: 1.0 - x, [(2, 3)], lambda x: 1.0 - x),
    S("rsub_alpha", lambda x: ng.rsub(x, 1.0, alpha=3), [(2, 3)], lambda x: 1.0 - 3 * x),
    S("rsub_tensor", lambda x, y: ng.rsub(x, y, alpha=0.5), [(2, 1), (3,)],
      lambda x, y: y - 0.5 * x),
    S("rsub_tensor", lambda x, y: ng.rsub(x, y), [(3,), (2, 3)], lambda x, y: y - x),
    S("add_scalar", lambda x: ng.ops.elementwise.add_scalar(x, 1.5), [(2, 3)], lambda x: x + 1.5),
    # torch's backward ops of tanh and sigmoid (Note [backward ops of their own])
    S("tanh_backward", lambda g, y: ng.ops.apply.apply(ng.ops.elementwise.TANH_BACKWARD, (g, y)),
      [(2, 3), (2, 3)], lambda g, y: g * (1 - y * y)),
    S("sigmoid_backward",
      lambda g, y: ng.ops.apply.apply(ng.ops.elementwise.SIGMOID_BACKWARD, (g, y)),
      [(2, 3), (2, 3)], lambda g, y: g * (1 - y) * y),
    S("sub_scalar", lambda x: ng.ops.elementwise.sub_scalar(x, 0.5), [(2, 3)], lambda x: x - 0.5),
    S("mul_scalar", lambda x: ng.ops.elementwise.mul_scalar(x, -2.5), [(2, 3)], lambda x: x * -2.5),
    S("div_scalar", lambda x: ng.ops.elementwise.div_scalar(x, 0.4), [(2, 3)], lambda x: x / 0.4),
    S("atan2", ng.atan2, [(2, 3), Pos((3,))], np.arctan2),
    S("maximum", ng.maximum, [Distinct((2, 3)), Distinct((3,))], np.maximum),
    S("minimum", ng.minimum, [Distinct((2, 3)), Distinct((2, 1))], np.minimum),
    S("where", lambda c, x, y: ng.where(ng.tensor(c), x, y),
      [Const(np.array([[True, False, True], [False, False, True]])), (2, 3), (3,)], _np_where),
    S("masked_fill", lambda x, m: x.masked_fill(ng.tensor(m), 0.5),
      [(2, 3), Const(np.array([True, False, True]))], lambda x, m: np.where(m, 0.5, x)),
    S("masked_fill_tensor", lambda x, m, v: x.masked_fill(ng.tensor(m), v),
      [(2, 3), Const(np.array([True, False, True])), ()], lambda x, m, v: np.where(m, v, x)),
    S("clamp", lambda x: x.clamp(-0.5, 0.5), [Away((3, 4))], lambda x: np.clip(x, -0.5, 0.5)),
    S("clamp", lambda x: ng.clamp(x, min=0.2), [Away((5,))], lambda x: np.maximum(x, 0.2)),
    S("clamp_tensor", lambda x, lo, hi: x.clamp(lo, hi), [Distinct((3, 4)), (4,), Pos((4,))],
      _clamp_tensor_ref),
    S("clamp_tensor", lambda x, lo: x.clamp(min=lo), [Distinct((2, 3)), Distinct((3,))],
      np.maximum),
    S("neg", lambda x: -x, [(2, 3)], np.negative),
    S("exp", ng.exp, [(2, 3)], np.exp),
    S("exp", lambda x: x.exp(), [()], np.exp),
    S("expm1", ng.expm1, [(4,)], np.expm1),
    S("log", ng.log, [Pos((2, 3))], np.log),
    S("log1p", ng.log1p, [Pos((4,))], np.log1p),
    S("log2", ng.log2, [Pos((4,))], np.log2),
    S("sqrt", ng.sqrt, [Pos((2, 3))], np.sqrt),
    S("rsqrt", ng.rsqrt, [Pos((4,))], lambda x: 1 / np.sqrt(x)),
    S("sin", ng.sin, [(2, 3)], np.sin),
    S("cos", ng.cos, [(2, 3)], np.cos),
    S("tan", ng.tan, [Away((4,))], np.tan),
    S("tanh", ng.tanh, [(2, 3)], np.tanh),
    S("sigmoid", ng.sigmoid, [(2, 3)], special.expit),
    S("relu", ng.relu, [Away((2, 3))], lambda x: np.maximum(x, 0)),
    S("abs", ng.abs, [Away((2, 3))], np.abs),
    S("atan", ng.atan, [(4,)], np.arctan),
    S("erf", ng.erf, [(4,)], special.erf),
    S("reciprocal", ng.reciprocal, [Away((4,))], np.reciprocal),
    S("square", ng.square, [(2, 3)], np.square),
    S("sign", lambda x: ng.sign(x) * x, [Away((4,))], lambda x: np.sign(x) * x),
    # a float32 round trip: finite differences need a step float32 can resolve
    S("cast", lambda x: x.float().double() * x, [(3,)],
      lambda x: x.astype(np.float32).astype(np.float64) * x, eps=1e-3, atol=1e-3),
    # float32 * float64: the float32 operand promoted on its way into the product
    S("promote", lambda x: x.float() * x, [(3,)],
      lambda x: x.astype(np.float32).astype(np.float64) * x, eps=1e-3, atol=1e-3),
    # ---- shapes ----
    S("view", lambda x: x.reshape(3, 2), [(2, 3)], lambda x: x.reshape(3, 2)),
    S("view", lambda x: x.flatten(), [(2, 1, 2)], lambda x: x.reshape(-1)),
    S("unsafe_view", lambda x: x.t().reshape(6), [(2, 3)], lambda x: x.T.reshape(6)),
    S("reshape_alias", lambda x: x.t().reshape(1, 3, 2), [(2, 3)], lambda x: x.T.reshape(1, 3, 2)),
    S("unsqueeze", lambda x: x.unsqueeze(1), [(2, 3)], lambda x: x[:, None]),
    S("squeeze", lambda x: x.squeeze(), [(2, 1, 3)], np.squeeze),
    S("squeeze_dim", lambda x: x.squeeze(1), [(2, 1, 3)], lambda x: x.squeeze(1)),
    S("squeeze_dims", lambda x: x.squeeze((0, 2)), [(1, 3, 1)], lambda x: x.reshape(3)),
    S("clone", lambda x: x.clone(), [(2, 3)], np.copy),
    # a composite's named node: its result passed on, saving up to two inputs (ops/named.py)
    S("named_0", lambda x: named(x * 2.0, "NamedBackward0"), [(2, 3)], lambda x: x * 2),
    S("named_1", lambda x: named(x * 2.0, "NamedBackward0", x), [(2, 3)], lambda x: x * 2),
    S("named_2", lambda x, y: named(x * y, "NamedBackward0", x, y), [(2, 3), (2, 3)],
      lambda x, y: x * y),
    # a backward op's value with a zero-derivative edge to what it read (ops/elementwise.py)
    S("reads", lambda x, y: reads(x * 2.0, y, "ThresholdBackwardBackward0"), [(2, 3), (3,)],
      lambda x, y: np.broadcast_to(x * 2, (2, 3))),
    S("permute", lambda x: x.permute(2, 0, 1), [(2, 3, 2)], lambda x: x.transpose(2, 0, 1)),
    S("transpose", lambda x: x.transpose(0, 1) * 1.0, [(2, 3)], np.transpose),
    S("t", lambda x: x.t(), [(2, 3)], np.transpose),
    S("strided", lambda x: x[1:, ::2], [(3, 4)], lambda x: x[1:, ::2]),
    S("strided", lambda x: x[None, ..., 1:3], [(2, 4)], lambda x: x[None, ..., 1:3]),
    S("select", lambda x: x[1, -1], [(3, 4)], lambda x: x[1, -1]),
    S("alias", lambda x: x[..., :] * 1.0, [(3, 4)], lambda x: x),
    S("unfold", lambda x: x.unfold(1, 2, 1), [(2, 4)],
      lambda x: np.lib.stride_tricks.sliding_window_view(x, 2, axis=1).copy()),
    S("t_", lambda x: (x * 1.0).t_(), [(2, 3)], np.transpose),
    S("transpose_", lambda x: (x * 1.0).transpose_(0, 1), [(2, 3)], np.transpose),
    S("squeeze_", lambda x: (x * 1.0).squeeze_(), [(2, 1, 3)], np.squeeze),
    S("squeeze_dim_", lambda x: (x * 1.0).squeeze_(1), [(2, 1, 3)], lambda x: x.squeeze(1)),
    S("squeeze_dims_", lambda x: (x * 1.0).squeeze_((0, 2)), [(1, 3, 1)], lambda x: x.reshape(3)),
    S("unsqueeze_", lambda x: (x * 1.0).unsqueeze_(1), [(2, 3)], lambda x: x[:, None]),
    S("strided_scatter", lambda x: x[::2].sum(), [(4, 2)], lambda x: x[::2].sum(), fast=True),
    S("stack", lambda x, y: ng.stack([x, y, x], 1), [(2, 3), (2, 3)],
      lambda x, y: np.stack([x, y, x], 1)),
    S("cat", lambda x, y: ng.cat([x, y], -1), [(2, 3), (2, 1)], lambda x, y: np.concatenate([x, y], -1)),
    S("flip", lambda x: x.flip(0, 2), [(2, 3, 2)], lambda x: np.flip(x, (0, 2))),
    S("flip", lambda x: x.flip(0), [()], lambda x: x),
    S("repeat", lambda x: x.repeat(2, 1, 3), [(2, 2)], lambda x: np.tile(x, (2, 1, 3))),
    S("pad", lambda x: ng.pad(x, (1, 2, 0, 1), value=0.5), [(2, 3)],
      lambda x: np.pad(x, ((0, 1), (1, 2)), constant_values=0.5)),
    S("pad", lambda x: ng.pad(x, (-1, 1)), [(2, 3)], lambda x: np.pad(x[:, 1:], ((0, 0), (0, 1)))),
    S("split", lambda x: x.split(2, 1), [(2, 5)], lambda x: tuple(np.split(x, [2, 4], 1))),
    S("split", lambda x: x.chunk(2)[1] * 2.0, [(3, 2)], lambda x: x[2:] * 2),
    S("split_with_sizes", lambda x: ng.split(x, [1, 3], -1), [(2, 4)],
      lambda x: (x[:, :1], x[:, 1:])),
    S("unbind", lambda x: x.unbind(1), [(2, 3)], lambda x: tuple(x[:, i] for i in range(3))),
    S("unbind", lambda x: x.unbind(0)[1] * x[0], [(2, 3)], lambda x: x[1] * x[0]),
    S("unbind", lambda x: x.unbind(0), [(1, 3)], lambda x: (x[0],)),
    S("unsafe_split", lambda x: ng.unsafe_split(x, 2, 1), [(2, 3)],
      lambda x: (x[:, :2], x[:, 2:])),
    S("unsafe_split", lambda x: x.unsafe_chunk(2)[1] * 2.0, [(3, 2)],
      lambda x: x[2:] * 2),
    S("unsafe_split_with_sizes", lambda x: ng.unsafe_split_with_sizes(x, [1, 2]), [(3,)],
      lambda x: (x[:1], x[1:])),
    # ---- indexing ----
    S("take_rows", lambda x: x[[0, 2, 0]], [(3, 2)], lambda x: x[[0, 2, 0]]),
    S("take_rows", lambda x: x[ng.tensor([[1, -1], [0, 1]])], [(3, 2, 2)],
      lambda x: x[[[1, -1], [0, 1]]]),
    S("take", lambda x: x[[0, 2, 0], 1], [(3, 2)], lambda x: x[[0, 2, 0], 1]),
    S("as_strided", lambda x: x.as_strided((2, 2), (1, 2), 1), [(2, 3)],
      lambda x: np.lib.stride_tricks.as_strided(x.reshape(-1)[1:], (2, 2), (x.itemsize, 2 * x.itemsize))),
    S("take", lambda x: x[x > 0.0], [Away((3, 2))], lambda x: x[x > 0]),
    S("gather", lambda x, i: x.gather(0, ng.tensor(i)), [(3, 4), IDX],
      lambda x, i: _take_along(x, i, 0)),
    S("index_select", lambda x: x.index_select(1, ng.tensor([2, 0, 2])), [(2, 3)],
      lambda x: x[:, [2, 0, 2]]),
    S("index_select_rows", lambda x: x.index_select(0, ng.tensor([2, 0, 2])), [(3, 2)],
      lambda x: x[[2, 0, 2]]),
    S("put_add", lambda x, v: ng.ops.index.put_add(v, np.array([0, 3, 0]), (2, 2)) + x,
      [(2, 2), (3,)], lambda x, v: x + np.bincount([0, 3, 0], v, 4).reshape(2, 2)),
    S("scatter_add", lambda x, i, s: x.scatter_add(0, ng.tensor(i), s), [(3, 4), IDX, (2, 4)],
      lambda x, i, s: _scatter_add_ref(x, 0, i, s)),
    _written("copy_slices", (slice(0, 2),), [(3, 2), (2, 2)]),
    S("zero", lambda x: (x * 1.0).zero_(), [(2, 3)], np.zeros_like),
    S("fill_scalar", lambda x: (x * 1.0).fill_(2.5), [(2, 3)], lambda x: np.full_like(x, 2.5)),
    S("fill_tensor", lambda x, v: (x * 1.0).fill_(v), [(2, 3), ()], lambda x, v: np.full_like(x, v)),
    S("copy", lambda x, y: (x * 1.0).copy_(y), [(2, 3), (3,)],
      lambda x, y: np.broadcast_to(y, x.shape).copy()),
    _written("index_put", ([0, 2],), [(3, 2), (2, 2)]),
    S("index_add", lambda x, s: x.index_add(0, ng.tensor([0, 2, 0]), s), [(3, 2), (3, 2)],
      lambda x, s: x + np.array([s[0] + s[2], np.zeros(2), s[1]])),
    # ---- composites of the above: positions ----
    S("where", lambda x: x.tril(-1), [(3, 4)], lambda x: np.tril(x, -1)),
    S("where", lambda x: ng.ops.triu(x, 1), [(2, 3, 3)], lambda x: np.triu(x, 1)),
    S("diagonal", lambda x: x.diagonal(1), [(3, 4)], lambda x: np.diagonal(x, 1).copy()),
    S("diagonal_copy", lambda x: x.diag(-1), [(3, 4)], lambda x: np.diagonal(x, -1).copy()),
    S("diagonal", lambda x: ng.ops.diagonal(x, -1, 0, 2), [(3, 2, 3)],
      lambda x: np.diagonal(x, -1, 0, 2).copy()),
    S("diag_embed", lambda x: x.diag(1), [(3,)], lambda x: np.diag(x, 1)),
    S("take", lambda x: x.roll((1, -1), (0, 1)), [(3, 4)], lambda x: np.roll(x, (1, -1), (0, 1))),
    S("take", lambda x: x.masked_select(ng.tensor([True, False, True])), [(2, 3)],
      lambda x: x[:, [0, 2]].reshape(-1)),
        # ---- products ----
    S("mm", ng.mm, [(2, 3), (3, 4)], np.matmul),
    S("mm", lambda x, y: x @ y, [(3,), (3, 2)], np.matmul),
    S("bmm", ng.bmm, [(2, 2, 3), (2, 3, 2)], np.matmul),
    S("bmm", lambda x, y: x @ y, [(2, 1, 2, 3), (2, 3, 2)], np.matmul),
    S("dot", ng.dot, [(4,), (4,)], np.dot),
    S("mm", lambda b, x, y: ng.ops.addmm(b, x, y, beta=0.5, alpha=2.0), [(4,), (2, 3), (3, 4)],
      lambda b, x, y: 0.5 * b + 2.0 * x @ y),
    S("bmm", lambda b, x, y: ng.ops.baddbmm(b, x, y), [(2, 2, 2), (2, 2, 3), (2, 3, 2)],
      lambda b, x, y: b + x @ y),
    S("mv", ng.mv, [(2, 3), (3,)], np.matmul),
    S("bmm", lambda x, y: ng.einsum("bij,bjk->bik", x, y), [(2, 2, 3), (2, 3, 2)], np.matmul),
    S("bmm", lambda x, y: ng.einsum("ii,ij->j", x, y), [(3, 3), (3, 2)],
      lambda x, y: np.einsum("ii,ij->j", x, y)),
    S("bmm", lambda x, y: ng.einsum("i...,j->...ij", x, y), [(2, 3), (2,)],
      lambda x, y: np.einsum("i...,j->...ij", x, y)),
    # ---- reductions ----
    S("sum", lambda x: x.sum(), [(2, 3)], np.sum),
    S("sum_dim", lambda x: x.sum((0, 2), keepdim=True), [(2, 3, 2)],
      lambda x: x.sum((0, 2), keepdims=True)),
    S("mean", lambda x: x.mean(), [(2, 3)], np.mean),
    S("mean_dim", lambda x: x.mean(-1), [(2, 3)], lambda x: x.mean(-1)),
    S("expand", lambda x: x.expand(2, 3, 2), [(3, 1)], lambda x: np.broadcast_to(x, (2, 3, 2))),
    S("prod", lambda x: x.prod(), [Away((2, 3))], np.prod),
    S("prod", lambda x: (x * ng.tensor([1.0, 0.0, 1.0])).prod(), [(2, 3)],
      lambda x: np.prod(x * [1, 0, 1])),
    S("prod_dim", lambda x: x.prod(1), [Away((3, 4))], lambda x: x.prod(1)),
    S("prod_dim", lambda x: (x * ng.tensor([[0.0, 1, 1], [0, 1, 0]])).prod(1, keepdim=True),
      [(2, 3)], lambda x: np.prod(x * [[0, 1, 1], [0, 1, 0]], 1, keepdims=True)),
    S("var", lambda x: x.var(1), [(3, 4)], lambda x: x.var(1, ddof=1)),
    S("var", lambda x: ng.var(x, correction=0), [()], lambda x: np.var(x)),
    S("std", lambda x: x.std((0, 2), keepdim=True), [(2, 2, 3)],
      lambda x: x.std((0, 2), ddof=1, keepdims=True)),
    S("std", lambda x: x.std(0, correction=0), [(3,)], lambda x: x.std()),
    S("var", lambda x: ng.ops.var_mean(x, 1, keepdim=True), [(2, 3)],
      lambda x: (x.var(1, ddof=1, keepdims=True), x.mean(1, keepdims=True))),
    S("std", lambda x: ng.ops.std_mean(x, correction=0), [(2, 3)], lambda x: (x.std(), x.mean())),
    S("logsumexp", lambda x: x.logsumexp(1), [(3, 4)], lambda x: _lse(x, 1)),
    S("logsumexp", lambda x: ng.logsumexp(x, (0, 1), keepdim=True), [(2, 3)],
      lambda x: _lse(x, (0, 1), True)),
    S("norm", lambda x: x.norm(), [(2, 3)], lambda x: _norm(x, 2)),
    S("norm", lambda x: x.norm(p=1, dim=1), [Away((2, 3))], lambda x: _norm(x, 1, 1)),
    S("norm", lambda x: ng.norm(x, p=math.inf, dim=0, keepdim=True), [Distinct((3, 2))],
      lambda x: _norm(x, math.inf, 0, True)),
    S("norm", lambda x: x.norm(p=3, dim=-1), [Away((2, 3))], lambda x: _norm(x, 3, -1)),
    S("norm", lambda x: x.norm(p=math.inf), [Away((3,))], lambda x: _norm(x, math.inf)),
    S("norm", lambda x: x.norm(), [()], np.abs),
    S("cumsum", lambda x: x.cumsum(1), [(2, 3)], lambda x: np.cumsum(x, 1)),
    S("cumprod", lambda x: x.cumprod(0), [(3, 2)], lambda x: np.cumprod(x, 0)),
    S("cumprod", lambda x: (x * ng.tensor([1.0, 0.0, 1.0, 1.0])).cumprod(-1), [(2, 4)],
      lambda x: np.cumprod(x * [1, 0, 1, 1], -1)),
    S("amax", lambda x: x.amax(1), [Distinct((3, 4))], lambda x: x.max(1)),
    S("amin", lambda x: ng.amin(x, (0, 1)), [Distinct((2, 3))], np.min),
    S("amax", lambda x: x.amax(), [()], lambda x: x),
    S("max_all", lambda x: x.max(), [Distinct((2, 3))], np.max),
    S("min_all", lambda x: ng.min(x), [Distinct((4,))], np.min),
    S("max_dim", lambda x: x.max(1), [Distinct((3, 4))],
      lambda x: (x.max(1), x.argmax(1))),
    S("min_dim", lambda x: ng.min(x, 0, keepdim=True), [Distinct((3, 2))],
      lambda x: (x.min(0, keepdims=True), x.argmin(0)[None])),
    S("sort", lambda x: x.sort(1, descending=True), [Distinct((2, 3))],
      lambda x: (-np.sort(-x, 1), np.argsort(-x, 1))),
    S("topk", lambda x: x.topk(2, dim=0, largest=False), [Distinct((4, 2))],
      lambda x: _topk_ref(x, 2, 0, False)),
]


class Unit(Pos):
    """Values in (-0.9, 0.9): inside the domain of asin, acos and atanh."""

    def make(self, rng):
        return rng.uniform(-0.9, 0.9, self.shape)


class Prob(Pos):
    """Values in (0.05, 0.95): probabilities, for logit."""

    def make(self, rng):
        return rng.uniform(0.05, 0.95, self.shape)


def _logit_ref(x, eps):
    z = np.clip(x, eps, 1 - eps)
    return np.log(z / (1 - z))


_NON_FINITE = np.array([0.0, math.inf, -math.inf, math.nan])


def _lerp_ref(x, y, w):
    return np.where(np.abs(w) < 0.5, x + w * (y - x), y - (y - x) * (1 - w))


SAMPLES += [
    # ---- elementwise_more.py: rounding has zero derivatives (times x, to see a gradient) ----
    S("floor", lambda x: ng.floor(x) * x, [(2, 3)], lambda x: np.floor(x) * x),
    S("ceil", lambda x: x.ceil() * x, [(2, 3)], lambda x: np.ceil(x) * x),
    S("round", lambda x: ng.round(x * 2.0) * x, [(2, 3)], lambda x: np.round(x * 2) * x),
    S("round_decimals", lambda x: ng.round(x, decimals=1) * x, [(2, 3)],
      lambda x: np.round(x * 10) / 10 * x),
    S("round_decimals", lambda x: x.round(decimals=-1) * x, [(2, 3)],
      lambda x: np.round(x / 10) * 10 * x),
    S("trunc", lambda x: x.trunc() * x, [(2, 3)], lambda x: np.trunc(x) * x),
    S("frac", lambda x: ng.frac(x * 3.0), [(2, 3)], lambda x: x * 3 - np.trunc(x * 3)),
    S("sgn", lambda x: x.sgn() * x, [Away((4,))], lambda x: np.sign(x) * x),
    S("angle", lambda x: ng.angle(x) * x, [Away((4,))], lambda x: np.angle(x) * x),
    S("log10", ng.log10, [Pos((2, 3))], np.log10),
    S("exp2", lambda x: x.exp2(), [(2, 3)], np.exp2),
    S("sinh", ng.sinh, [(2, 3)], np.sinh),
    S("cosh", lambda x: x.cosh(), [(2, 3)], np.cosh),
    S("asin", ng.asin, [Unit((2, 3))], np.arcsin),
    S("acos", lambda x: x.acos(), [Unit((4,))], np.arccos),
    S("asinh", ng.asinh, [(2, 3)], np.arcsinh),
    S("acosh", lambda x: ng.acosh(x + 1.0), [Pos((4,))], lambda x: np.arccosh(x + 1)),
    S("atanh", lambda x: x.atanh(), [Unit((2, 3))], np.arctanh),
    S("logit", ng.logit, [Prob((2, 3))], lambda x: np.log(x / (1 - x))),
    S("logit", lambda x: x.logit(eps=0.2), [Prob((2, 4))], lambda x: _logit_ref(x, 0.2)),
    S("hypot", ng.hypot, [(2, 3), (3,)], np.hypot),
    S("logaddexp", lambda x, y: x.logaddexp(y), [(2, 3), (2, 1)], np.logaddexp),
    S("lerp", lambda x, y: ng.lerp(x, y, 0.3), [(2, 3), (3,)], lambda x, y: x + 0.3 * (y - x)),
    S("lerp", lambda x, y: x.lerp(y, 0.8), [(3,), (2, 3)], lambda x, y: y - (y - x) * 0.2),
    S("lerp_tensor", ng.lerp, [(2, 3), (3,), (2, 3)], _lerp_ref),
    S("addcmul", lambda x, y, z: ng.addcmul(x, y, z, value=0.5), [(2, 3), (3,), (2, 1)],
      lambda x, y, z: x + 0.5 * y * z),
    S("addcdiv", lambda x, y, z: x.addcdiv(y, z, value=-2.0), [(2, 3), (3,), Away((2, 3))],
      lambda x, y, z: x - 2.0 * y / z),
    S("clamp_min", lambda x: ng.clamp_min(x, 0.1), [(2, 3)], lambda x: np.maximum(x, 0.1)),
    S("clamp_max", lambda x: x.clamp_max(-0.1), [(2, 3)], lambda x: np.minimum(x, -0.1)),
    S("clamp_min_tensor", ng.clamp_min, [Distinct((2, 3)), Distinct((3,))], np.maximum),
    S("clamp_max_tensor", lambda x, y: x.clamp_max(y), [Distinct((2, 3)), Distinct((2, 1))],
      np.minimum),
    # the non-finite entries are replaced, with a zero gradient
    S("nan_to_num", lambda x: (x + ng.tensor(_NON_FINITE)).nan_to_num(1.5, 2.5, -3.5), [(2, 4)],
      lambda x: np.nan_to_num(x + _NON_FINITE, nan=1.5, posinf=2.5, neginf=-3.5)),
]

SAMPLES += [
    # ---- elementwise_special.py ----
    S("sinc", ng.sinc, [(2, 3)], np.sinc),
    S("xlogy", ng.xlogy, [(2, 3), Pos((3,))], lambda x, y: x * np.log(y)),
    S("xlogy_scalar_self", lambda y: ng.xlogy(1.5, y), [Pos((4,))], lambda y: 1.5 * np.log(y)),
    S("xlogy_scalar_other", lambda x: x.xlogy(2.5), [(2, 3)], lambda x: x * np.log(2.5)),
    S("logaddexp2", lambda x, y: x.logaddexp2(y), [(2, 3), (2, 1)], np.logaddexp2),
    S("copysign", ng.copysign, [Away((2, 3)), Away((3,))], np.copysign),
    S("ldexp", ng.ldexp, [(2, 3), (3,)], lambda x, y: x * np.exp2(y)),
    S("copysign_scalar", lambda x: x.copysign(-2.0), [Away((4,))], lambda x: -np.abs(x)),
    S("fmax", ng.fmax, [Distinct((2, 3)), Distinct((3,))], np.fmax),
    S("fmin", lambda x, y: x.fmin(y), [Distinct((2, 3)), Distinct((2, 1))], np.fmin),
    S("deg2rad", ng.deg2rad, [(2, 3)], np.deg2rad),
    S("rad2deg", lambda x: x.rad2deg(), [(4,)], np.rad2deg),
    S("erfc", ng.erfc, [(2, 3)], special.erfc),
    S("erfinv", lambda x: x.erfinv(), [Unit((2, 3))], special.erfinv),
    S("special_entr", lambda x: ng.special.entr(x), [Pos((2, 3))], special.entr),
    S("special_log_ndtr", lambda x: ng.special.log_ndtr(x), [(2, 3)], special.log_ndtr),
    S("special_ndtri", lambda x: ng.special.ndtri(x), [Prob((2, 3))], special.ndtri),
    S("nextafter", ng.nextafter, [(2, 3), (3,)], np.nextafter),
    # float_power is pow in float64: torch's pow nodes
    S("pow", lambda x, y: ng.float_power(x, y), [Pos((2, 3)), (3,)], np.power),
    S("pow_scalar", lambda x: x.float_power(3), [(4,)], lambda x: x ** 3),
]

SAMPLES += [
    # ---- elementwise_gamma.py ----
    S("lgamma", ng.lgamma, [Pos((2, 3))], special.gammaln),
    S("digamma", lambda x: x.digamma(), [Pos((2, 3))], special.digamma),
    S("polygamma", lambda x: ng.polygamma(2, x), [Pos((2, 3))], lambda x: special.polygamma(2, x)),
    S("polygamma", lambda x: x.polygamma(0), [Pos((4,))], special.digamma),
    # mvlgamma is a composite of lgamma
    S("lgamma", lambda x: ng.mvlgamma(x + 1.0, 3), [Pos((2, 3))],
      lambda x: special.multigammaln(x + 1.0, 3)),
]
