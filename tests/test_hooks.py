"""Tensor hooks, post-accumulate hooks, removable handles, and retain_grad's place among them."""
import numpy as np
import pytest

import numgrad as ng
from numgrad import autograd


def t64(values, requires_grad=True):
    return ng.tensor(values, dtype=ng.float64, requires_grad=requires_grad)


def close(tensor, expected):
    np.testing.assert_allclose(tensor.detach().numpy(), expected, rtol=1e-12, atol=1e-12)


def test_hooks_on_leaves_and_non_leaves_replace_the_gradient_in_order():
    x = t64([1., 2.])
    calls = []
    x.register_hook(lambda g: calls.append(("x1", g.tolist())) or g * 2)
    x.register_hook(lambda g: calls.append(("x2", g.tolist())))
    y = x * 3
    y.retain_grad()
    y.register_hook(lambda g: calls.append(("y", g.tolist())) or g + 1)
    (y * y + y).sum().backward()
    # dz/dy = 2y + 1 = [7, 13], the hook adds 1; dz/dx = 3 (2y + 2) = [24, 42], then doubled
    assert calls == [("y", [7., 13.]), ("x1", [24., 42.]), ("x2", [48., 84.])]
    close(x.grad, [48., 84.])
    close(y.grad, [8., 14.])        # retain_grad sees the hooked value: it runs last


def test_retain_grad_runs_after_hooks_registered_later():
    x = t64([1.])
    y = x * 2
    y.retain_grad()                 # registered before the hook, still captured after it
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    close(y.grad, [10.])
    close(x.grad, [20.])


def test_a_hook_sees_the_summed_gradient_once():
    x = t64(2.)
    seen = []
    x.register_hook(lambda g: seen.append(g.item()))
    y = x * 3
    y.register_hook(lambda g: seen.append(g.item()))
    (y * y + x * 5).backward()
    # dz/dy = 2y = 12 once; dz/dx = 3 * 12 + 5 = 41 once
    assert seen == [12., 41.]
    close(x.grad, 41.)


def test_handle_remove_is_idempotent_and_context_manager():
    x = t64([1., 2.])
    handle = x.register_hook(lambda g: g * 100)
    handle.remove()
    handle.remove()
    (x * 1).sum().backward()
    close(x.grad, [1., 1.])
    y = x * 2
    with y.register_hook(lambda g: g * 0):
        pass
    y.sum().backward()
    close(x.grad, [3., 3.])


def test_non_leaf_hook_removed_before_backward_does_not_run():
    x = t64([1.])
    y = x * 2
    calls = []
    handle = y.register_hook(lambda g: calls.append(1))
    handle.remove()
    (y * 3).sum().backward()
    assert calls == []
    close(x.grad, [6.])


def test_leaf_hook_applies_to_autograd_grad_results():
    x = t64(2.)
    x.register_hook(lambda g: g * 10)
    (g,) = autograd.grad(x * x, x)
    close(g, 40.)
    assert x.grad is None


def test_non_leaf_hook_applies_when_it_is_the_requested_input():
    x = t64(2.)
    h = x * 3
    h.register_hook(lambda g: g * 100)
    (g,) = autograd.grad(h * h, h)
    close(g, 1200.)


def test_hooks_on_two_outputs_of_one_node():
    class Split(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1, x * 1

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + g2

    x = t64([1.])
    first, second = Split.apply(x)
    first.register_hook(lambda g: g * 2)
    second.register_hook(lambda g: g * 3)
    (first * 5 + second * 7).sum().backward()
    close(x.grad, [5 * 2 + 7 * 3])


def test_hooks_in_a_create_graph_backward_are_recorded():
    x = t64(3.)
    y = x * x
    y.register_hook(lambda g: g * y)          # the hook itself depends on x
    (g,) = autograd.grad(y, x, create_graph=True)
    close(g, 2 * 3. * 9.)                       # y * 2x = 2 x^3
    (gg,) = autograd.grad(g, x)
    # g = 2 x y: directly 2y = 18; through y, dg/dy = 2x = 6 meets y's hook again (times y = 9),
    # then dy/dx = 2x: 6 * 9 * 6 = 324. In all 342, as torch gives.
    close(gg, 342.)


def test_post_accumulate_grad_hook_sees_the_accumulated_grad():
    p = t64([1., 2.])
    seen = []
    handle = p.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (p * p).sum().backward()
    (p * 3).sum().backward()
    assert seen == [[2., 4.], [5., 7.]]
    handle.remove()
    p.sum().backward()
    assert len(seen) == 2


@pytest.mark.parametrize("hook, error, message", [
    (lambda g: ng.ones(3, dtype=ng.float64), RuntimeError, "hook '<lambda>' has changed the size"),
    (lambda g: g.float(), RuntimeError, r"hook '<lambda>' has changed the type of value \(was "
                                        r"numgrad.DoubleTensor got numgrad.FloatTensor\)"),
    (lambda g: 3, TypeError, "expected Variable, but hook returned 'int'"),
])
@pytest.mark.parametrize("on_leaf", [True, False])
def test_a_hook_returning_a_wrong_value_raises_and_changes_nothing(hook, error, message, on_leaf):
    x = t64([1., 2.])
    x.grad = t64([5., 5.], False)
    target = x if on_leaf else x * 1
    handle = target.register_hook(hook)
    y = (target * 2).sum()
    with pytest.raises(error, match=message):
        y.backward(retain_graph=True)
    close(x.grad, [5., 5.])
    handle.remove()
    y.backward()                    # the graph was left as it was
    close(x.grad, [7., 7.])


def test_a_raising_hook_leaves_grad_untouched():
    x = t64([1., 2.])
    x.grad = t64([1., 1.], False)

    def boom(g):
        raise ValueError("boom")

    handle = x.register_hook(boom)
    with pytest.raises(ValueError, match="boom"):
        (x * 2).sum().backward()
    close(x.grad, [1., 1.])
    handle.remove()
    (x * 2).sum().backward()
    close(x.grad, [3., 3.])


def test_registration_errors():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't "
                                           "require gradient"):
        ng.ones(2).register_hook(lambda g: g)
    x = t64([1.])
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on "
                                           "non-leaf tensors"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)
    with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has "
                                           "requires_grad=False"):
        ng.ones(2).retain_grad()


def test_retain_grad_on_a_leaf_is_a_no_op_and_non_leaf_grads_need_it():
    x = t64([1.])
    x.retain_grad()
    assert not x.retains_grad
    y = x * 2
    z = y * 3
    y.retain_grad()
    z.sum().backward()
    close(y.grad, [3.])
    with pytest.warns(UserWarning, match="not a leaf Tensor is being accessed") as caught:
        assert z.grad is None
    assert str(caught[0].message).endswith(
        "See github.com/pytorch/pytorch/pull/30531 for more information.")
    assert y.retains_grad and not z.retains_grad


def test_a_hook_that_records_under_enable_grad_does_not_disturb_the_backward():
    x = t64([1., 2.])
    side = []

    def records(g):
        with ng.enable_grad():
            side.append((x * g).sum())          # recorded while the backward runs
        return g

    y = x * 3
    y.register_hook(records)
    (y * y).sum().backward()
    close(x.grad, 18 * np.array([1., 2.]))
    side[0].backward()                          # the recorded graph works on its own
    close(x.grad, 18 * np.array([1., 2.]) + 6 * np.array([1., 2.]))


def test_retain_grad_follows_an_in_place_change():
    """torch moves retain_grad's hook to the new history: .grad is the gradient of the modified
    tensor. y = 3 * (2x), loss = sum(y^2): dloss/dy = 2y = [12, 24]."""
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.mul_(3)
    (y * y).sum().backward()
    assert y.grad.tolist() == [12.0, 24.0]
    assert x.grad.tolist() == [72.0, 144.0]


def test_a_post_accumulate_grad_hook_must_return_none():
    x = ng.ones(2, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: t.grad * 2)
    with pytest.raises(RuntimeError, match="Tensor post accumulate grad hooks should return None."):
        (x * 1).sum().backward()


def test_retains_grad_stays_when_detach_makes_a_leaf():
    y = ng.ones(2, requires_grad=True) * 1
    y.retain_grad()
    y.detach_()
    assert y.retains_grad and y.is_leaf
