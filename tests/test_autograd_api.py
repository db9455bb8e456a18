"""autograd.grad, autograd.backward and Tensor.backward: several roots, grad_outputs, `inputs=`
pruning, and where the results go. Expected values are derived by hand in the comments."""
import contextlib
import warnings

import numpy as np
import pytest

import numgrad as ng
from numgrad import autograd
from numgrad.autograd import api
from numgrad.node import node_name


class CountedIdentity(autograd.Function):
    """Identity whose backward counts its calls: proves whether a branch ran."""

    calls = 0

    @staticmethod
    def forward(ctx, x):
        return x * 1.0

    @staticmethod
    def backward(ctx, g):
        CountedIdentity.calls += 1
        return g


@pytest.fixture
def counted():
    CountedIdentity.calls = 0
    return CountedIdentity.apply


@contextlib.contextmanager
def nodes_run():
    """The names of the nodes each backward inside the block ran, in order."""
    runs = []

    def observe(graph, read):
        names = []
        for index in graph.order[:graph.n_order]:
            seg, node = graph.locate(int(index))
            names.append(node_name(seg, node))
        runs.append(names)

    api.observers.append(observe)
    try:
        yield runs
    finally:
        api.observers.remove(observe)


def t64(values, requires_grad=True):
    return ng.tensor(values, dtype=ng.float64, requires_grad=requires_grad)


def close(tensor, expected):
    np.testing.assert_allclose(tensor.detach().numpy(), expected, rtol=1e-12, atol=1e-12)


def test_grad_with_several_roots_and_grad_outputs():
    xv, wv, v = np.array([1., 2., 3.]), np.array([.5, -1., 2.]), np.array([1., 2., 3.])
    x, w = t64(xv), t64(wv)
    y = x * w
    z = y.sin()
    gx, gw = autograd.grad([z, y], [x, w], [ng.ones(3, dtype=ng.float64), t64(v, False)])
    # d/dx [sum(sin(xw)) + v.(xw)] = w cos(xw) + v w, and symmetrically for w
    close(gx, wv * np.cos(xv * wv) + v * wv)
    close(gw, xv * np.cos(xv * wv) + v * xv)


def test_grad_leaves_grad_untouched():
    x = t64([1., 2.])
    x.grad = t64([10., 20.], False)
    before = x.grad
    (g,) = autograd.grad((x * x).sum(), x)
    close(g, [2., 4.])
    assert x.grad is before
    close(x.grad, [10., 20.])
    w = t64([3.])
    autograd.grad((w * w).sum(), w)
    assert w.grad is None


def test_grad_result_is_not_aliased_to_later_grad_calls():
    x = t64([1., 2.])
    (g1,) = autograd.grad((x * x).sum(), x)
    (g2,) = autograd.grad((x * 3).sum(), x)
    close(g1, [2., 4.])
    close(g2, [3., 3.])


def test_backward_of_several_roots_accumulates_their_sum():
    x = t64([1., 2.])
    a, b = x * x, (x * 3).sum()
    autograd.backward([a, b], [t64([1., 10.], False), None])
    close(x.grad, [2. * 1. + 3., 2. * 2. * 10. + 3.])


def test_grad_outputs_none_for_scalar_roots():
    x = t64([1., 2.])
    (g,) = autograd.grad([(x * x).sum(), x.sum()], x, [None, None])
    close(g, [3., 5.])


def test_non_scalar_root_with_gradient_is_a_vector_jacobian_product():
    x = t64([2., 3.])
    y = ng.stack((x[0] ** 2, x[0] * x[1]))
    (g,) = autograd.grad(y, x, grad_outputs=t64([1., 4.], False))
    # J = [[2 x0, 0], [x1, x0]]; J^T v = [2*2 + 4*3, 4*2]
    close(g, [16., 8.])
    y2 = x * x
    y2.backward(t64([1., -1.], False))
    close(x.grad, [4., -6.])


def test_gradient_of_another_float_dtype_is_cast_like_torch():
    x = ng.tensor([1., 2.], requires_grad=True)
    (x * 2).backward(ng.ones(2, dtype=ng.float64))
    assert x.grad.dtype == ng.float32
    np.testing.assert_allclose(x.grad.numpy(), [2., 2.])
    (g,) = autograd.grad((x * 2).sum(), x, ng.tensor(5, dtype=ng.int64))
    assert g.dtype == ng.float32
    np.testing.assert_allclose(g.numpy(), [10., 10.])


def test_grad_of_a_tensor_with_respect_to_itself_is_ones():
    x = t64([1., 2.])
    (g,) = autograd.grad(x, x, t64([1., 1.], False))
    close(g, [1., 1.])
    y = x * x
    gy, gx = autograd.grad(y.sum(), [y, x])
    close(gy, [1., 1.])
    close(gx, [2., 4.])


def test_the_same_input_twice_gets_the_same_gradient():
    x = t64([1., 2.])
    g1, g2 = autograd.grad((x * x).sum(), [x, x])
    close(g1, [2., 4.])
    close(g2, [2., 4.])


def test_grad_prunes_branches_that_do_not_lead_to_inputs(counted):
    x, w = t64(2.), t64(5.)
    y = x * x + counted(w) * 3
    with nodes_run() as runs:
        (g,) = autograd.grad(y, x)
    close(g, 4.)
    assert CountedIdentity.calls == 0
    assert "CountedIdentityBackward" not in runs[0]
    assert runs[0].count("AccumulateGrad") == 1
    (gw,) = autograd.grad(counted(w) * 3, w)
    close(gw, 3.)
    assert CountedIdentity.calls == 1


def test_grad_with_respect_to_a_non_leaf_stops_there(counted):
    x = t64(2.)
    h = counted(x) * 3           # everything below h must not run
    z = h * h
    with nodes_run() as runs:
        (g,) = autograd.grad(z, h)
    close(g, 2. * 6.)
    assert CountedIdentity.calls == 0
    # h's own node is reached (its gradient is read there) but nothing below it
    assert set(runs[0]) == {"MulBackward0"}
    assert x.grad is None


def test_backward_inputs_accumulates_only_into_inputs(counted):
    a, b = t64(2.), t64(3.)
    y = a * counted(b)
    with nodes_run() as runs:
        y.backward(inputs=[a])
    close(a.grad, 3.)
    assert b.grad is None
    assert CountedIdentity.calls == 0
    assert "CountedIdentityBackward" not in runs[0]
    z = a * counted(b)
    z.backward(inputs=b)       # a single tensor is accepted too
    close(b.grad, 2.)
    close(a.grad, 3.)
    assert CountedIdentity.calls == 1


def test_backward_inputs_with_a_non_leaf_fills_its_grad_like_torch():
    x = t64([1., 2.])
    y = x * 3
    (y * y).sum().backward(inputs=[y])
    close(y.grad, [6., 12.])      # torch retains the grad of a non-leaf named in inputs
    assert y.retains_grad
    assert x.grad is None


def test_leaf_used_in_two_recording_segments():
    # a backward that frees its graph makes recording move on to a new segment: x then has an
    # AccumulateGrad in each, and both contributions must reach it
    x = t64(3.)
    a = x * 2
    (x * 3).backward()
    x.grad = None
    b = a * x
    (g,) = autograd.grad(b, x, retain_graph=True)
    close(g, 4. * 3.)             # d(2x * x)/dx = 4x
    b.backward()
    close(x.grad, 12.)


def test_allow_unused_and_materialize_grads():
    x, unused = t64([1., 2.]), t64(7.)
    gx, gu = autograd.grad((x * x).sum(), [x, unused], allow_unused=True)
    close(gx, [2., 4.])
    assert gu is None
    gx, gu = autograd.grad((x * x).sum(), [x, unused], materialize_grads=True)
    close(gu, 0.)
    assert gu.shape == unused.shape and gu.dtype == unused.dtype
    with pytest.raises(ValueError, match="materialize_grads"):
        autograd.grad((x * x).sum(), [x, unused], allow_unused=False, materialize_grads=True)


def test_retain_graph_allows_a_second_pass():
    x = t64(2.)
    y = x.exp()
    (g1,) = autograd.grad(y, x, retain_graph=True)
    (g2,) = autograd.grad(y, x)
    close(g1, np.exp(2.))
    close(g2, np.exp(2.))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        autograd.grad(y, x)


def test_graph_without_saved_values_can_run_twice_like_torch():
    # torch raises only when a node that saved values runs again: x + 1 saves nothing
    x = t64([1., 2.])
    y = (x + 1).sum()
    y.backward()
    y.backward()
    close(x.grad, [2., 2.])


def test_tensor_backward_defaults_and_keywords():
    x = t64(3.)
    y = x ** 2
    y.backward(gradient=t64(2., False), retain_graph=True)
    close(x.grad, 12.)
    y.backward()
    close(x.grad, 18.)


def test_nodes_that_do_not_run_keep_their_saved_values():
    # torch frees only what ran: the requested non-leaf's own node, and a root leading to no
    # requested input, stay usable without retain_graph
    x, u = t64(2.), t64(1.)
    h = x.exp()
    z = h * h
    (g,) = autograd.grad(z, h)
    close(g, 2. * np.exp(2.))
    h.backward()
    close(x.grad, np.exp(2.))
    a, b = x.exp(), u.exp()
    (gu,) = autograd.grad([a, b], u)
    close(gu, np.exp(1.))
    a.backward()
    close(x.grad, 2. * np.exp(2.))
    y = x.exp()
    assert autograd.grad(y, u, allow_unused=True) == (None,)
    y.backward()
    close(x.grad, 3. * np.exp(2.))


def test_grad_fills_retained_grads_like_torch():
    x = t64(2.)
    h = x * 3
    h.retain_grad()
    y = h * h
    (g,) = autograd.grad(y, x)
    close(g, 36.)                 # d(9x^2)/dx = 18x
    close(h.grad, 12.)            # torch's retains_grad also fills during autograd.grad
    assert x.grad is None


def test_updates_through_data_are_invisible_to_version_checks():
    """torch's .data shares the memory but not the version counter: `p.data.mul_(2)` after a
    forward that saved p does not fail the backward (which then reads the new values)."""
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    x.data.mul_(2)
    assert x._version == 0
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_a_leaf_that_stopped_requiring_grad_gets_no_grad():
    """AccumulateGrad checks requires_grad when it runs, as torch's does."""
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    w = ng.tensor([3.0, 4.0], requires_grad=True)
    y = (x * w).sum()
    x.requires_grad_(False)
    y.backward()
    assert x.grad is None and w.grad.tolist() == [1.0, 2.0]


def test_grad_checks_the_outputs_before_the_inputs():
    x = ng.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does "
                                           "not have a grad_fn$"):
        ng.autograd.grad(x.sum(), x)


@pytest.mark.parametrize("shape", [(), (3,)])
def test_t_of_a_vector_is_a_new_view(shape):
    """Below 2-D, t() is still a view with its own node, as in torch."""
    w = ng.ones(shape, requires_grad=True)
    t = w.t()
    assert t is not w and not t.is_leaf and t.grad_fn.name() == "TBackward0" and t._base is w
    (t * 2).sum().backward()
    assert w.grad.tolist() == np.full(shape, 2.0).tolist()


@pytest.mark.parametrize("make_base", [lambda: ng.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1,
                                       lambda: ng.tensor([1.0, 2.0, 3.0], requires_grad=True)])
def test_a_view_made_in_no_grad_mode_cannot_be_changed_in_place_in_grad_mode(make_base):
    """torch refuses it whether the base is a leaf or not, and even though the view itself
    records nothing; under no_grad the same change is allowed."""
    base = make_base()
    with ng.no_grad():
        view = base[1:]
    with pytest.raises(RuntimeError, match="^A view was created in no_grad mode and is being "
                                           "modified inplace with grad mode enabled"):
        view.mul_(2)
    assert base.tolist() == [1.0, 2.0, 3.0]
    with ng.no_grad():
        view.mul_(2)
    assert base.tolist() == [1.0, 4.0, 6.0]


def test_grad_attribute_setter_and_getter_follow_torch():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="^can't assign Variable as its own grad$"):
        x.grad = x
    with pytest.raises(RuntimeError, match="assign a gradient with dtype 'long int' to a tensor "
                                           "with grad_dtype 'Float'"):
        x.grad = ng.tensor([1, 2])
    h = x * 2
    h.grad = ng.ones(2)             # a non-leaf's assigned .grad is read without a warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert h.grad.tolist() == [1.0, 1.0]
