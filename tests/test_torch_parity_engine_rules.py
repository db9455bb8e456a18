"""Engine rules compared with torch 2.13: roots that lead to none of the inputs asked for, saved
inputs detached in place, and the version error after an in-place view op. The expected values
and messages are torch's, written out (torch is not a test dependency)."""
import numpy as np
import pytest

import numgrad as ng

DETACHED = ("Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
            "This is not supported, please use out-of-place `.detach()` instead")


def _hooked_leaf(log, name="x", values=(1.0, 2.0)):
    x = ng.tensor(list(values), requires_grad=True)
    x.register_hook(lambda g: log.append((name, g.tolist())))
    return x


# ---- roots that lead nowhere: Note [roots that lead nowhere] in kernels/plan.py --------------------
def test_a_lone_leaf_root_runs_its_hooks_but_accumulates_nothing_when_inputs_exclude_it():
    log = []
    x = _hooked_leaf(log)
    y = ng.tensor([3.0], requires_grad=True)
    x.backward(ng.ones(2), inputs=[y])
    # torch 2.13: ([('hook', [1.0, 1.0])], None, None)
    assert log == [("x", [1.0, 1.0])]
    assert x.grad is None and y.grad is None


def test_a_lone_leaf_root_runs_its_hooks_in_grad_too():
    log = []
    x = _hooked_leaf(log)
    y = ng.tensor([3.0], requires_grad=True)
    assert ng.autograd.grad(x, [y], ng.ones(2), allow_unused=True) == (None,)
    assert log == [("x", [1.0, 1.0])] and x.grad is None


@pytest.mark.parametrize("accumulate", [True, False])
def test_a_leaf_root_beside_others_sees_nothing_when_it_leads_to_no_input(accumulate):
    log = []
    x = _hooked_leaf(log)
    y = ng.tensor([3.0], requires_grad=True)
    z = (y * 2).sum()
    if accumulate:
        ng.autograd.backward([x, z], [ng.ones(2), ng.tensor(1.0)], inputs=[y])
        assert y.grad.tolist() == [2.0]
    else:
        (g,) = ng.autograd.grad([x, z], [y], [ng.ones(2), ng.tensor(1.0)])
        assert g.tolist() == [2.0]
    # torch 2.13: the hook never runs, x.grad stays None
    assert log == [] and x.grad is None


def test_several_roots_of_which_none_leads_to_the_inputs_run_no_hooks():
    log = []
    a = ng.tensor([1.0, 2.0], requires_grad=True)
    b = ng.tensor([3.0, 4.0], requires_grad=True)
    c = ng.tensor([5.0], requires_grad=True)
    r1, r2 = a * 2, b * 3
    r1.register_hook(lambda g: log.append("r1"))
    r2.register_hook(lambda g: log.append("r2"))
    r1.retain_grad()
    result = ng.autograd.grad([r1, r2], [c], [ng.ones(2), ng.ones(2)], allow_unused=True)
    assert result == (None,)
    assert log == [] and r1.grad is None         # torch 2.13: ([], (None,)), r1.grad None


def test_a_lone_root_that_leads_nowhere_runs_its_tensor_hooks_not_its_node():
    log = []
    a = ng.tensor([1.0, 2.0], requires_grad=True)
    c = ng.tensor([5.0], requires_grad=True)
    r1 = a * 2
    r1.register_hook(lambda g: log.append(("r1", g.tolist())))
    r1.grad_fn.register_prehook(lambda g: log.append("pre"))
    r1.grad_fn.register_hook(lambda gi, go: log.append("post"))
    r1.retain_grad()
    assert ng.autograd.grad([r1], [c], [ng.ones(2)], allow_unused=True) == (None,)
    # torch 2.13: ([('r1', [1.0, 1.0])], (None,), tensor([1., 1.]))
    assert log == [("r1", [1.0, 1.0])]
    assert r1.grad.tolist() == [1.0, 1.0] and a.grad is None


def test_only_the_roots_that_lead_to_an_input_see_their_seed():
    log = []
    a = ng.tensor([1.0, 2.0], requires_grad=True)
    c = ng.tensor([5.0], requires_grad=True)
    r1, r2 = a * 2, c * 3
    r1.register_hook(lambda g: log.append(("r1", g.tolist())))
    r2.register_hook(lambda g: log.append(("r2", g.tolist())))
    (g,) = ng.autograd.grad([r1, r2], [c], [ng.ones(2), ng.ones(1)])
    assert g.tolist() == [3.0]
    assert log == [("r2", [1.0])]                # torch 2.13: r1's hook does not run


def test_a_root_left_out_keeps_its_graph_for_a_later_backward():
    a = ng.tensor([1.0, 2.0], requires_grad=True)
    c = ng.tensor([5.0], requires_grad=True)
    r1, r2 = (a * a).sum(), (c * 3).sum()
    ng.autograd.backward([r1, r2], inputs=[c])
    assert c.grad.tolist() == [3.0] and a.grad is None
    r1.backward()           # a*a's node did not run, so its saved values are still there
    assert a.grad.tolist() == [2.0, 4.0]


# ---- saved inputs detached in place: Note [saved inputs detached in place] in tape.py -----------
@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_a_saved_input_detached_in_place_is_refused_and_nothing_changes(dtype):
    a = ng.tensor([1.0, 2.0], dtype=dtype, requires_grad=True)
    h = a * 1
    y = h.sin()
    s = y.sum()
    h.detach_()
    with pytest.raises(RuntimeError) as info:
        s.backward()
    assert str(info.value) == DETACHED
    assert a.grad is None
    (a * 3).sum().backward()            # the engine is unharmed: torch 2.13 gives [3., 3.]
    assert a.grad.tolist() == [3.0, 3.0]


def test_a_saved_input_used_twice_and_detached_in_place_is_refused():
    a = ng.tensor([1.0, 2.0], requires_grad=True)
    h = a * 1
    s = (h * h).sum()
    h.detach_()
    with pytest.raises(RuntimeError, match=r"detached in-place, i\.e\. with \.detach_\(\)"):
        ng.autograd.grad(s, a)


def test_a_saved_output_detached_in_place_is_still_used():
    a = ng.tensor([1.0, 2.0], requires_grad=True)
    y = (a * 1).exp()                   # exp saves its result
    s = y.sum()
    y.detach_()
    assert y._version == 0              # detach_ is no in-place change of the data
    s.backward()
    np.testing.assert_allclose(a.grad.numpy(), np.exp([1.0, 2.0]), rtol=1e-6)


def test_a_saved_view_of_a_base_detached_in_place_is_still_used():
    a = ng.tensor([1.0, 2.0], requires_grad=True)
    h = a * 1
    y = h[:1].sin()
    h.detach_()
    y.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [np.cos(1.0), 0.0], rtol=1e-6)   # torch 2.13


def test_a_tensor_detached_in_place_on_no_path_of_the_backward_is_no_error():
    a = ng.tensor([1.0, 2.0], requires_grad=True)
    h = a * 1
    y = h.sin()
    h.detach_()
    (g,) = ng.autograd.grad((y * 3).sum(), y)    # sin's node does not run
    assert g.tolist() == [3.0, 3.0]


def test_the_first_error_met_is_raised_a_changed_value_before_a_freed_one():
    a = ng.ones(3, requires_grad=True)
    h = a * a
    y = h.exp()
    h.sum().backward()                  # frees a * a's saved values; exp's are left
    y.t_()
    with pytest.raises(RuntimeError) as info:
        (y.sum() * 1).backward()
    # torch 2.13 runs exp's node first and meets its result changed, not the freed values
    assert ("[numgrad.FloatTensor [3]], which is output 0 of Exp, is at version 1; expected "
            "version 0 instead.") in str(info.value)


# ---- the version error after an in-place view op ---------------------------------------------------
@pytest.mark.parametrize("op, args, shape, message", [
    ("t_", (), (2, 3), "[3, 2]], which is output 0 of T1, is at version 1"),
    ("transpose_", (0, 1), (2, 3), "[3, 2]], which is output 0 of Transpose1, is at version 1"),
    ("unsqueeze_", (0,), (3,), "[1, 3]], which is output 0 of Unsqueeze1, is at version 1"),
    ("squeeze_", (), (1, 3), "[3]], which is output 0 of Squeeze3, is at version 1"),
    ("squeeze_", (0,), (1, 3), "[3]], which is output 0 of Squeeze4, is at version 1"),
])
def test_the_version_error_names_the_tensor_as_an_in_place_view_op_left_it(op, args, shape, message):
    a = ng.ones(shape, requires_grad=True)
    h = a * 1
    y = h.sin()
    getattr(h, op)(*args)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert f"[numgrad.FloatTensor {message}; expected version 0 instead." in str(info.value)


def test_the_version_error_after_an_in_place_view_op_then_an_in_place_op():
    a = ng.ones(3, requires_grad=True)
    h = a * 1
    y = h.sin()
    h.unsqueeze_(0)
    h.mul_(2)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    # torch 2.13: "[torch.FloatTensor [1, 3]], which is output 0 of Mul, is at version 2"
    assert "[numgrad.FloatTensor [1, 3]], which is output 0 of Mul, is at version 2;" \
        in str(info.value)


def test_a_freed_graph_whose_input_changed_since_raises_the_freed_error():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with ng.no_grad():
        x.add_(1)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()                    # torch 2.13: the freed values are met first
    assert x.grad.tolist() == [2.0, 4.0]


@pytest.mark.parametrize("replacement, message", [
    (lambda g: ng.ones(3, dtype=ng.float64), "has changed the type of value (was "
     "numgrad.FloatTensor got numgrad.DoubleTensor)"),
    (lambda g: ng.ones(2, dtype=ng.float64), "has changed the type of value (was "
     "numgrad.FloatTensor got numgrad.DoubleTensor)"),
    (lambda g: ng.ones(3), "has changed the size of value"),
])
def test_a_tensor_hook_replacing_the_gradient_is_checked_for_type_then_size(replacement, message):
    x = ng.ones(2, requires_grad=True)
    y = x * 2
    y.register_hook(replacement)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert str(info.value) == f"hook '<lambda>' {message}"    # torch 2.13's order and words
    assert x.grad is None


# ---- node hooks see torch's layout: Note [hooks see torch's layout] in engine.py ----------------
def _shapes(grads):
    return [None if g is None else tuple(g.shape) for g in grads]


@pytest.mark.parametrize("bias, name", [(True, "AddmmBackward0"), (False, "MmBackward0")])
def test_linear_node_hooks_see_the_gradient_of_the_transposed_weight(bias, name):
    lin = ng.nn.Linear(4, 3, bias=bias)
    y = lin(ng.ones(2, 4, requires_grad=True))
    log = []
    y.grad_fn.register_hook(lambda gi, go: log.append(("post", _shapes(gi), _shapes(go))))
    (t_node, _), = [(n, k) for n, k in y.grad_fn.next_functions if n and n.name() == "TBackward0"]
    t_node.register_prehook(lambda go: log.append(("T pre", _shapes(go))))
    t_node.register_hook(lambda gi, go: log.append(("T post", _shapes(gi), _shapes(go))))
    y.sum().backward()
    assert y.grad_fn.name() == name
    # torch 2.13
    first = [(3,), (2, 4), (4, 3)] if bias else [(2, 4), (4, 3)]
    assert log == [("post", first, [(2, 3)]), ("T pre", [(4, 3)]), ("T post", [(3, 4)], [(4, 3)])]
    assert lin.weight.grad.shape == (3, 4)


def test_a_linear_node_hook_replaces_the_transposed_weight_gradient():
    lin = ng.nn.Linear(4, 3)
    y = lin(ng.ones(2, 4))
    y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[1], ng.arange(12.0).reshape(4, 3)))
    y.sum().backward()
    # torch 2.13: the hook's (4, 3) gradient of w.t(), transposed into w's
    assert lin.weight.grad.tolist() == [[0.0, 3.0, 6.0, 9.0], [1.0, 4.0, 7.0, 10.0],
                                        [2.0, 5.0, 8.0, 11.0]]
    assert lin.bias.grad.tolist() == [2.0, 2.0, 2.0]


# ---- kernels round as torch's -------------------------------------------------------------------
@pytest.mark.parametrize("reduce", [lambda x: x.mean(1), lambda x: x.mean()])
def test_a_means_gradient_is_divided_by_the_count_as_torch_divides(reduce):
    g_value = 0.10380761523046092
    x = ng.zeros(2, 3, dtype=ng.float64, requires_grad=True)
    y = reduce(x)
    y.backward(ng.full(tuple(y.shape), g_value, dtype=ng.float64))
    count = 3 if y.ndim else 6
    assert g_value / count != g_value * (1 / count)           # a value where the two differ
    assert x.grad.tolist() == [[g_value / count] * 3] * 2     # torch 2.13: exactly g / count
