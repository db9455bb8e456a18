"""Calling a grad_fn runs that one node's backward (autograd/node_call.py), as torch's nodes do:
the input gradients torch's node lists, differentiable when grad mode is on, no hooks."""
import numpy as np
import pytest

import numgrad as ng


def test_a_binary_node_gives_one_gradient_per_input_and_none_for_a_constant():
    x = ng.tensor([1., 2.], requires_grad=True)
    w = ng.tensor([3., 4.])
    gx, gw = (x * w).grad_fn(ng.tensor([1., 10.]))
    np.testing.assert_array_equal(gx.numpy(), [3., 40.])      # g * w
    assert gw is None


def test_with_grad_mode_on_the_gradients_have_a_graph():
    x = ng.tensor([0., 1.], requires_grad=True)
    y = x.exp()
    g = y.grad_fn(ng.ones(2))                   # one input: the gradient itself
    np.testing.assert_allclose(g.detach().numpy(), np.exp([0., 1.]), rtol=1e-6)
    assert g.requires_grad and g.grad_fn.name() == "MulBackward0"
    with ng.no_grad():
        assert not y.grad_fn(ng.ones(2)).requires_grad
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0., 1.]), rtol=1e-6)    # d/dx exp(x)


def test_the_inputs_torchs_node_lists():
    x = ng.tensor([1., 2.], requires_grad=True)
    other = ng.tensor([5., 6.])
    picked, rest = ng.where(x > 1, x, other).grad_fn(ng.ones(2))     # the condition is no input
    np.testing.assert_array_equal(picked.numpy(), [0., 1.])
    assert rest is None
    both = ng.cat([x, other]).grad_fn(ng.arange(4.))       # cat computes every piece
    np.testing.assert_array_equal(both[0].numpy(), [0., 1.])
    np.testing.assert_array_equal(both[1].numpy(), [2., 3.])


def test_a_node_of_several_outputs_takes_a_gradient_or_none_for_each():
    x = ng.tensor([1., 2., 3.], requires_grad=True)
    first = x.split(2)[0]
    np.testing.assert_array_equal(first.grad_fn(ng.ones(2), None).numpy(), [1., 1., 0.])
    with pytest.raises(TypeError, match="^expected 2 arguments, got 1 instead$"):
        first.grad_fn(ng.ones(2))
    # max(dim)'s indices are no output of torch's node
    np.testing.assert_array_equal(x.max(0)[0].grad_fn(ng.tensor(4.)).numpy(), [0., 0., 4.])


def test_no_hook_runs():
    x = ng.tensor([1., 2.], requires_grad=True)
    y = x * 3
    seen = []
    y.register_hook(lambda g: seen.append("tensor"))
    y.grad_fn.register_hook(lambda gi, go: seen.append("post"))
    y.grad_fn.register_prehook(lambda go: seen.append("pre"))
    np.testing.assert_array_equal(y.grad_fn(ng.ones(2))[0].numpy(), [3., 3.])
    assert seen == []


def test_calling_accumulate_grad_adds_to_the_leaf():
    x = ng.tensor([1., 2.], requires_grad=True)
    accumulate = (x * 2).grad_fn.next_functions[0][0]
    assert accumulate(ng.tensor([1., 1.])) == ()
    assert accumulate(ng.tensor([0.5, 2.])) == ()
    np.testing.assert_array_equal(x.grad.numpy(), [1.5, 3.])


def test_torchs_errors_for_freed_or_changed_saved_values():
    x = ng.tensor([1., 2.], requires_grad=True)
    y = x.exp()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.grad_fn(ng.ones(2))
    a = x * 1
    b = a.sin()
    a.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.grad_fn(ng.ones(2))
    c = a * 1                       # changed values elsewhere in the graph do not matter here
    np.testing.assert_array_equal(c.grad_fn(ng.ones(2))[0].numpy(), [1., 1.])


def test_a_composites_node_refuses_with_a_clear_error():
    x = ng.tensor([1., 2.], requires_grad=True)
    loss = ng.nn.functional.mse_loss(x, ng.zeros(2))
    with pytest.raises(NotImplementedError, match="calling MseLossBackward0"):
        loss.grad_fn(ng.tensor(1.))


def test_a_broadcast_inputs_gradient_keeps_the_outputs_shape_as_torchs_node_gives_it():
    a = ng.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    v = ng.tensor([10., 20.], requires_grad=True)
    ga, gv = (a * v).grad_fn(ng.ones(2, 2))
    np.testing.assert_array_equal(ga.detach().numpy(), [[10., 20.], [10., 20.]])
    np.testing.assert_array_equal(gv.detach().numpy(), [[1., 2.], [3., 4.]])   # not summed
