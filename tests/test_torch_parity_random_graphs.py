"""Autograd semantics on random programs: cases a differential fuzzer (the same random program of
ops, views, in-place ops, hooks and backward calls run in numgrad and torch 2.13) found different,
pinned to torch's values; and a seeded random-program check numgrad can make on its own
(gradients against finite differences).

Expected values and names are torch 2.13's."""
import random

import numpy as np
import pytest

import numgrad as ng


def names(node):
    return [None if n is None else n.name() for n, _ in node.next_functions]


# ---- fill_ and zero_ write one number: torch's fill kernel takes an expanded tensor -------------

def test_zero_and_fill_write_into_an_expanded_tensor():
    z = ng.zeros(3, 1).expand(3, 2)
    z.fill_(1.5)
    # torch 2.13: tensor([[1.5, 1.5], [1.5, 1.5], [1.5, 1.5]]), version 1, then 2 after zero_()
    assert z.tolist() == [[1.5, 1.5]] * 3 and z._version == 1
    z.zero_()
    assert z.tolist() == [[0.0, 0.0]] * 3 and z._version == 2


@pytest.mark.parametrize("write", [lambda y: y.fill_(ng.tensor(2.0)), lambda y: y.mul_(2),
                                   lambda y: y.copy_(ng.ones(2)), lambda y: y.__setitem__(0, 1.0)])
def test_other_writes_into_an_expanded_tensor_are_refused(write):
    y = ng.zeros(3, 1).expand(3, 2)
    with pytest.raises(RuntimeError) as err:
        write(y)
    # torch 2.13 (fill_ of a tensor value goes through copy_)
    assert str(err.value) == ("unsupported operation: more than one element of the written-to "
                              "tensor refers to a single memory location. Please clone() the tensor "
                              "before performing the operation.")
    assert y._version == 0


def test_zero_through_an_expanded_view_is_copy_slices_of_the_bases_node():
    x = ng.tensor(2.0, dtype=ng.float64, requires_grad=True)
    b = x - x
    y = b.expand(2)
    y.zero_()
    # torch 2.13: CopySlices ['SubBackward0'], the view AsStridedBackward0, versions 1
    assert b.grad_fn.name() == "torch::autograd::CopySlices"
    assert names(b.grad_fn) == ["SubBackward0"]
    assert y.grad_fn.name() == "AsStridedBackward0"
    assert (b._version, y._version) == (1, 1)
    x2 = ng.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b2 = x2 * 1
    b2.unsqueeze(1).expand(3, 2).zero_()
    (b2 * ng.tensor([1.0, 2.0, 3.0])).sum().backward()
    # torch 2.13: tensor([0., 0., 0.])
    assert x2.grad.tolist() == [0.0, 0.0, 0.0]


def test_an_in_place_write_through_an_overlapping_view_shows_torchs_copy_slices():
    x = ng.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    w = ng.tensor(3.0, requires_grad=True)
    b = x * 1
    b.unfold(0, 2, 1).mul_(w)
    # torch 2.13: CopySlices ['MulBackward0', 'torch::autograd::AccumulateGrad']
    assert b.grad_fn.name() == "torch::autograd::CopySlices"
    assert names(b.grad_fn) == ["MulBackward0", "torch::autograd::AccumulateGrad"]


# ---- an in-place view op on a view changes the version its base's other views see --------------

def test_an_in_place_view_op_on_a_view_regenerates_its_siblings():
    x = ng.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = x * 1
    v, u, w = b.view(4), b[0], b[1]
    u.transpose_(0, 0)
    # torch 2.13: versions 1 1 1; v and w AsStridedBackward0, u TransposeBackward1, b MulBackward0
    assert (v._version, b._version, u._version) == (1, 1, 1)
    assert [t.grad_fn.name() for t in (v, u, b, w)] == \
        ["AsStridedBackward0", "TransposeBackward1", "MulBackward0", "AsStridedBackward0"]
    u.unsqueeze_(0)
    assert [t.grad_fn.name() for t in (v, u, b)] == \
        ["AsStridedBackward0", "UnsqueezeBackward1", "MulBackward0"]
    (v * ng.arange(4.0)).sum().backward(retain_graph=True)
    (u * ng.arange(2.0)).sum().backward(retain_graph=True)
    (w * ng.arange(2.0)).sum().backward()
    # torch 2.13: tensor([[0., 2.], [2., 4.]])
    assert x.grad.tolist() == [[0.0, 2.0], [2.0, 4.0]]
    b.t_()
    # torch 2.13: AsStridedBackward0 AsStridedBackward0 TBackward1
    assert [t.grad_fn.name() for t in (v, u, b)] == \
        ["AsStridedBackward0", "AsStridedBackward0", "TBackward1"]


# ---- a view that requires grad of a base that is a leaf -----------------------------------------

_VIEW_OF_LEAF = "a view of a leaf Variable that requires grad is being used in an in-place operation."


def _view_of_detached_base():
    b = ng.tensor([1.0, 2.0], requires_grad=True) * 2
    u = b.unsqueeze(0)
    b.detach_()
    return u


@pytest.mark.parametrize("write", [lambda u: u.mul_(2), lambda u: u.unsqueeze_(0),
                                   lambda u: u.copy_(ng.ones(1, 2, requires_grad=True))])
def test_a_view_of_a_base_detached_in_place_is_refused_as_a_view_of_a_leaf(write):
    u = _view_of_detached_base()
    with pytest.raises(RuntimeError) as err:
        write(u)
    # torch 2.13: the view still requires grad and its base is a leaf now
    assert str(err.value) == _VIEW_OF_LEAF
    assert u._version == 0 and u.shape == (1, 2)


def test_a_view_made_to_require_grad_is_refused_as_a_view_of_a_leaf():
    v = ng.ones(3)[0:2]
    v.requires_grad_()
    with pytest.raises(RuntimeError) as err:
        v.mul_(2)
    assert str(err.value) == _VIEW_OF_LEAF       # torch 2.13 (not the plain leaf message)
    a = ng.zeros(3)
    a[0:2].copy_(ng.ones(2, requires_grad=True))         # a view that does not require grad
    assert a.grad_fn.name() == "torch::autograd::CopySlices"


# ---- topk's outputs are contiguous -------------------------------------------------------------

@pytest.mark.parametrize("k, dim, strides", [(2, 0, (12, 4, 1)), (2, 1, (8, 4, 1)),
                                             (1, 0, (12, 4, 1)), (1, 1, (4, 4, 1))])
def test_topk_along_an_inner_dim_gives_contiguous_outputs(k, dim, strides):
    x = ng.tensor(np.arange(24.0).reshape(2, 3, 4), requires_grad=True)
    values, indices = x.topk(k, dim)
    # torch 2.13: the strides above for both; a reshape of values views them (ViewBackward0)
    assert values.stride() == strides and indices.stride() == strides
    assert values.reshape(-1).grad_fn.name() == "ViewBackward0"


# ---- one AccumulateGrad per leaf ---------------------------------------------------------------

def test_graphs_recorded_after_a_backward_share_the_leafs_accumulate_grad():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    first = y.grad_fn.next_functions[0][0]
    ng.autograd.grad(y, [x], ng.ones(2), create_graph=True)
    z = ng.stack([x, x])
    # torch 2.13: True True True (the leaf keeps its AccumulateGrad while a graph holds it)
    assert z.grad_fn.next_functions[0][0] is first
    assert z.grad_fn.next_functions[1][0] is first
    assert first.variable is x


# ---- a retained gradient survives detach_ ------------------------------------------------------

def test_a_tensor_detached_in_place_still_gets_its_retained_gradient():
    # torch 2.13: the retains_grad hook stays on the node, so m.grad is -exp(-1.5) = -0.2231
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    m = x.mean()
    m.retain_grad()
    e = (-m).exp()
    m.detach_()
    e.backward()
    assert m.is_leaf and not m.requires_grad
    np.testing.assert_allclose(m.grad.numpy(), -np.exp(-1.5), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), [-np.exp(-1.5) / 2] * 2, rtol=1e-6)


# ---- random programs: gradients against finite differences -------------------------------------

_UNARY = [lambda a: a.tanh(), lambda a: a.sin(), lambda a: a * a, lambda a: a.exp() * 0.1,
          lambda a: a.sigmoid()]


def _random_program(seed):
    """A random function of two (3, 3) leaves: elementwise, broadcasting, reductions, matmul,
    views, a tensor reused, split outputs and in-place ops on non-leaves and their views."""
    rng = random.Random(seed)
    steps = [rng.randrange(9) for _ in range(8)]
    picks = [(rng.random(), rng.random(), rng.randrange(5)) for _ in steps]

    def f(x, y):
        vals = [x, y]
        for step, (p, q, k) in zip(steps, picks):
            a = vals[int(p * len(vals))]
            b = vals[int(q * len(vals))]
            if step == 0:
                out = _UNARY[k](a)
            elif step == 1:
                out = a + b * 0.5
            elif step == 2:
                out = a * b
            elif step == 3:
                out = (a @ b) * 0.3
            elif step == 4:
                out = a - a.sum(k % 2, keepdim=True) / 3
            elif step == 5:
                first, rest = a.split([1, 2], dim=k % 2)
                out = rest.sum() * first + a
            elif step == 6:
                out = a * 1
                out.t().add_(b * 0.1)           # in place through a view of a non-leaf
            elif step == 7:
                out = a.tanh() * 1              # (tanh saved its result)
                out[1:].mul_(2)
            else:
                out = a.t().tanh() * a
            vals.append(out)
        return sum(v.sum() * (j + 1) for j, v in enumerate(vals[2:]))
    return f


@pytest.mark.parametrize("seed", range(12))
def test_random_programs_gradients_match_finite_differences(seed):
    f = _random_program(seed)
    rng = np.random.default_rng(seed)
    x0, y0 = rng.standard_normal((3, 3)) * 0.5, rng.standard_normal((3, 3)) * 0.5
    x = ng.tensor(x0, requires_grad=True)
    y = ng.tensor(y0, requires_grad=True)
    f(x, y).backward()

    def value(a, b):
        with ng.no_grad():
            return f(ng.tensor(a), ng.tensor(b)).item()
    eps = 1e-6
    for leaf, grad in enumerate((x.grad, y.grad)):
        grad = np.zeros((3, 3)) if grad is None else grad.numpy()   # None: the program ignores it
        numeric = np.zeros((3, 3))
        for i in np.ndindex(3, 3):
            args = [x0.copy(), y0.copy()]
            args[leaf][i] += eps
            up = value(*args)
            args[leaf][i] -= 2 * eps
            numeric[i] = (up - value(*args)) / (2 * eps)
        np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-6)
