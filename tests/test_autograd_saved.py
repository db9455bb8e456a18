"""Saved values and in-place ops: release after backward, version counters shared by views and
detached aliases, torch's messages, history moving to in-place nodes, and in-place through views
(Note [views] in ops/views.py). Expected gradients are derived by hand."""
import re

import numpy as np
import pytest

import numgrad as ng
from numgrad import autograd


def t64(values, requires_grad=True):
    return ng.tensor(values, dtype=ng.float64, requires_grad=requires_grad)


def close(tensor, expected):
    np.testing.assert_allclose(tensor.detach().numpy(), expected, rtol=1e-12, atol=1e-12)


X = [[1., 2., 3.], [4., 5., 6.]]
FREED = "Trying to backward through the graph a second time"


def test_second_backward_raises_only_when_a_node_that_saved_values_runs_again():
    x = t64([1., 2.])
    y = (x * x).sum()                             # mul saves x
    y.backward()
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()
    close(x.grad, [2., 4.])                        # the failed call changed nothing
    z = (x + 1).sum()                             # add and sum save nothing: torch runs it again
    z.backward()
    z.backward()
    close(x.grad, [4., 6.])


def test_retain_graph_keeps_saved_values_until_a_backward_without_it():
    x = t64(2.)
    y = x.exp()
    for _ in range(3):
        y.backward(retain_graph=True)
    y.backward()
    close(x.grad, 4 * np.exp(2.))
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()


def test_only_the_nodes_that_ran_are_released():
    x = t64(2.)
    shared = x.exp()
    a, b = shared * 2, shared * 3
    a.backward()                                  # frees exp and a's mul, not b's mul
    with pytest.raises(RuntimeError, match=FREED):
        b.backward()                              # reaches the freed exp
    w = t64(1.)
    c = w.sin()
    d = c * c
    autograd.grad(d, c)                           # d's node ran; c's sin did not
    c.backward()
    close(w.grad, np.cos(1.))


@pytest.mark.parametrize("under_no_grad", [True, False])
def test_every_in_place_op_bumps_the_version(under_no_grad):
    t = ng.zeros(3, dtype=ng.float64)
    ops = [lambda: t.add_(1), lambda: t.mul_(2), lambda: t.zero_(), lambda: t.fill_(3.),
           lambda: t.copy_(ng.ones(3, dtype=ng.float64)), lambda: t.__setitem__(0, 5.),
           lambda: t.clamp_(0., 1.), lambda: t.sub_(1), lambda: t.div_(2)]
    for k, op in enumerate(ops):
        if under_no_grad:
            with ng.no_grad():
                op()
        else:
            op()
        assert t._version == k + 1


def test_views_and_detached_aliases_share_the_version_counter():
    h = t64(X) * 1
    aliases = [h[0], h[:, 1:], h.view(6), h.reshape(3, 2), h.t(), h.unsqueeze(0), h.detach(),
               h.transpose(0, 1), h.split(1)[1], h.unbind(1)[2]]
    for k, alias in enumerate(aliases):
        with ng.no_grad():
            alias.mul_(1)
        assert h._version == k + 1
        assert all(a._version == k + 1 for a in aliases)


def test_in_place_on_an_expanded_tensor_is_refused_like_torch():
    h = t64([[1., 2., 3.]]) * 1
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers "
                                           "to a single memory location"):
        h.expand(2, 3).mul_(2)
    assert h._version == 0


def test_version_check_names_shape_op_and_versions_like_torch():
    x = t64(X)
    h = x * 2
    y = h.sin()                                   # sin saves its input, the output of Mul
    with ng.no_grad():
        h[0, 0] = 7.
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    message = str(info.value)
    assert message.startswith(
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [numgrad.DoubleTensor [2, 3]], which is output 0 of Mul")
    assert "is at version 1; expected version 0 instead." in message
    assert x.grad is None


def test_version_check_reports_a_leaf_without_an_op():
    x = ng.tensor([1., 2.], requires_grad=True)
    y = x.sin()
    with ng.no_grad():
        x.add_(1)
        x.add_(1)
    with pytest.raises(RuntimeError, match=r"\[numgrad.FloatTensor \[2\]\] is at version 2; "
                                           r"expected version 0 instead"):
        y.sum().backward()


def test_a_modified_value_that_was_not_saved_is_fine():
    # exp saves its output, not its input: changing the input afterwards is harmless (torch too)
    x = t64([1., 2.])
    h = x * 1
    y = h.exp()
    with ng.no_grad():
        h.mul_(2)
    y.sum().backward()
    close(x.grad, np.exp([1., 2.]))


def test_in_place_on_a_non_leaf_moves_its_history():
    x = t64([1., 2.])
    h = x * 2
    assert h.grad_fn.name() == "MulBackward0"
    h.mul_(3)
    assert h.grad_fn.name() == "MulBackward0" and h._version == 1
    h.add_(x)                                     # h = 6x + x
    assert h.grad_fn.name() == "AddBackward0"
    h.exp_()
    h.sum().backward()
    close(x.grad, 7 * np.exp(7 * np.array([1., 2.])))


def test_in_place_with_an_operand_that_requires_grad_gives_history():
    w = t64([1., 2.])
    buf = ng.zeros(2, dtype=ng.float64)
    buf.add_(w * w)
    assert buf.requires_grad and buf.grad_fn is not None
    buf.sum().backward()
    close(w.grad, [2., 4.])


def test_setitem_is_differentiable_for_base_and_value():
    x, v = t64(X), t64([10., 20.])
    h = x * 1
    h[:, 1] = v * v
    (h * h).sum().backward()
    xv = np.array(X)
    expected = 2 * xv
    expected[:, 1] = 0                              # overwritten: no gradient to x there
    close(x.grad, expected)
    close(v.grad, 4 * np.array([10., 20.]) ** 3)   # d (v^2)^2 / dv


def test_in_place_through_a_view_of_a_leaf_raises_like_torch():
    x = t64(X)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being "
                                           "used in an in-place operation."):
        x[0].mul_(2)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        x[:, 0] += 1
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        x.view(6)[1:].zero_()
    assert x._version == 0
    close(x, X)
    with ng.no_grad():
        x[0].mul_(2)                                # an update step through a view
    close(x, [[2., 4., 6.], [4., 5., 6.]])


def test_index_augmented_assignment_on_a_non_leaf_is_right():
    x = t64(X)
    h = x * 1
    h[:, 0] *= 2
    h[1] += x[0] * 10
    loss = (h * h).sum()
    loss.backward()
    xv = np.array(X)
    hv = xv.copy()
    hv[:, 0] *= 2
    hv[1] += xv[0] * 10
    # dloss/dh = 2h; h[0] = x[0] * [2,1,1]; h[1] = x[1] * [2,1,1] + 10 x[0]
    scale = np.array([2., 1., 1.])
    expected = np.stack([2 * hv[0] * scale + 2 * hv[1] * 10, 2 * hv[1] * scale])
    close(x.grad, expected)


def test_a_modified_view_used_afterwards_is_right():
    x = t64(X)
    h = x * 1
    v = h[0]
    v.mul_(3)
    (v * v).sum().backward()                        # v = 3 x[0]: d(9 x0^2) = 18 x0
    close(x.grad, [[18., 36., 54.], [0., 0., 0.]])


@pytest.mark.parametrize("modify, expected", [
    # through a view, then the base is used: the base's history now includes the change
    (lambda h: h[0].mul_(3), [[6., 6., 6.], [2., 2., 2.]]),
    (lambda h: h.view(6).add_(1), [[2., 2., 2.], [2., 2., 2.]]),
    (lambda h: h.t()[0].zero_(), [[0., 2., 2.], [0., 2., 2.]]),   # through a view of a view
])
def test_base_used_after_an_in_place_op_through_its_view_is_right(modify, expected):
    x = t64(X)
    h = x * 1
    modify(h)
    (h * 2).sum().backward()
    close(x.grad, expected)


def test_view_used_after_an_in_place_op_on_its_base_is_right():
    x = t64(X)
    h = x * 1
    row = h[1]
    h.mul_(2)
    row.sum().backward()                            # row is now 2 x[1]
    close(x.grad, [[0., 0., 0.], [2., 2., 2.]])
    # used before the change, it saw the old values
    x2 = t64(X)
    h2 = x2 * 1
    early = h2[1].sum() * 1
    h2.mul_(2)
    early.backward()
    close(x2.grad, [[0., 0., 0.], [1., 1., 1.]])


def test_a_view_made_after_the_change_of_its_base_is_right():
    x = t64(X)
    h = x * 1
    h.mul_(2)
    h[1].sum().backward()
    close(x.grad, [[0., 0., 0.], [2., 2., 2.]])


@pytest.mark.parametrize("op", ["exp_", "sigmoid_", "tanh_", "sqrt_", "relu_"])
def test_an_in_place_op_saves_the_tensor_it_changed(op):
    """torch saves the changed tensor itself as the op's output: its backward works, and after a
    second in-place change it is torch's version error naming the op."""
    x = ng.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    getattr(y, op)()
    y.sum().backward()
    reference = ng.tensor([1.0, 2.0, 3.0], requires_grad=True)
    getattr(ng, op[:-1])(reference).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), reference.grad.numpy(), rtol=1e-6)
    y = x * 1
    getattr(y, op)()
    y.add_(1)
    name = {"exp_": "Exp", "sigmoid_": "Sigmoid", "tanh_": "Tanh", "sqrt_": "Sqrt", "relu_": "Relu"}[op]
    with pytest.raises(RuntimeError, match=f"which is output 0 of {name}, is at version 2; "
                                           f"expected version 1 instead"):
        y.sum().backward()


def _changed_in_place(case):
    """Programs whose backward meets a saved tensor changed in place (torch 2.13's messages)."""
    w = ng.ones(3, requires_grad=True)
    if case == "itself":
        x = ng.ones(3, requires_grad=True).clone()
        c = x * w
        x.add_(1)
    elif case == "twice":
        x = ng.ones(3, requires_grad=True).clone()
        c = x * w
        x.add_(1)
        x.mul_(3)
    elif case == "through a view of it":
        x = ng.ones(3, requires_grad=True).clone()
        c = x * w
        x[0:2].mul_(2)
    elif case == "its base":
        x = ng.ones(2, 3, requires_grad=True).clone()
        c = x[0] * w
        x[1].add_(1)
    elif case == "a detached alias":
        x = ng.ones(3, requires_grad=True).clone()
        c = x * w
        x.detach().add_(1)
    elif case == "a leaf under no_grad":
        x = ng.ones(3, requires_grad=True)
        c = x * w
        with ng.no_grad():
            x.add_(1)
    elif case == "a scalar":
        x = ng.tensor(2., requires_grad=True).clone()
        c = x * ng.tensor(3., requires_grad=True)
        x.add_(1)
    elif case == "a scalar view of it":
        x = ng.ones(3, requires_grad=True).clone()
        v = x[0]
        c = v * v
        v.mul_(2)
    elif case == "the base of a scalar view":
        x = ng.ones(3, requires_grad=True).clone()
        c = x[1] * x[1]
        x.add_(1)
    elif case == "the base of a split's output":
        x = ng.ones(4, requires_grad=True).clone()
        first, _ = x.split(2)
        c = first * w[:2]
        x.add_(1)
    elif case == "the base of a view needing no gradient":
        base = ng.ones(1, 3)
        c = w * base.t()
        base.add_(1)
    elif case == "a float64 scalar the op cast to float32":
        d = ng.tensor(2., dtype=ng.float64)
        c = w * d
        d.add_(1)
    elif case == "an int tensor the op cast to float":
        i = ng.tensor([1, 2, 3])
        c = w * i
        i.add_(1)
    return c.sum()


@pytest.mark.parametrize("case, owner", [
    ("itself", ", which is output 0 of Add, is at version 1"),
    ("twice", ", which is output 0 of Mul, is at version 2"),
    ("through a view of it", ", which is output 0 of torch::autograd::CopySlices, is at version 1"),
    ("its base", ", which is output 0 of AsStrided, is at version 1"),
    ("a detached alias", ", which is output 0 of Clone, is at version 1"),
    ("a leaf under no_grad", "[3]] is at version 1"),
    ("a scalar", "[]], which is output 0 of Add, is at version 1"),
    ("a scalar view of it", "[]], which is output 0 of AsStrided, is at version 1"),
    ("the base of a scalar view", "[]], which is output 0 of AsStrided, is at version 1"),
    # torch cannot give a multi-output view a new node: it refuses to unpack it
    ("the base of a split's output", "Output 0 of Split is a view and its base or another view "
                                     "of its base has been modified inplace."),
    ("the base of a view needing no gradient", "[numgrad.FloatTensor [3, 1]] is at version 1"),
    # torch saves the operand it promoted, and names it: not a copy in the op's dtype
    ("a float64 scalar the op cast to float32", "[numgrad.DoubleTensor []] is at version 1"),
    ("an int tensor the op cast to float", "[numgrad.LongTensor [3]] is at version 1"),
])
def test_the_version_error_names_the_saved_tensors_node_as_it_is_now(case, owner):
    # torch names the node the saved tensor has at the check, not the one it had when saved
    with pytest.raises(RuntimeError) as info:
        _changed_in_place(case).backward()
    assert owner in str(info.value)


@pytest.mark.parametrize("product", [lambda x, w: x @ w, lambda x, w: ng.bmm(x[None], w[None]),
                                     lambda x, w: ng.mv(w.t(), x[0]),
                                     lambda x, w: ng.dot(x[0], w[:, 0])])
def test_a_product_checks_each_operand_only_for_the_other_ones_gradient(product):
    # torch saves x for w's gradient and w for x's: an operand changed in place is an error only
    # when the other operand wants a gradient
    x, w = ng.ones(2, 3, requires_grad=True), ng.ones(3, 3)
    y = product(x, w)
    with ng.no_grad():
        x.add_(1)
    y.sum().backward()
    assert x.grad is not None
    x, w = ng.ones(2, 3), ng.ones(3, 3, requires_grad=True)
    y = product(x, w)
    x.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_the_version_error_is_that_of_the_first_node_the_backward_would_run():
    """torch raises at the first node it runs whose saved value changed: the later one. Here
    exp saved its result and mul_ saved v, both changed by mul_ itself: torch names Mul."""
    x = ng.tensor([1.0, 2.0], dtype=ng.float64, requires_grad=True)
    v = x.exp()
    v.mul_(v)
    with pytest.raises(RuntimeError, match=r"\[2\]\], which is output 0 of Mul, is at version 1"):
        v.sum().backward()
    e = x.exp()
    e.mul_(2)           # exp's saved result alone changed: torch names the node that saved it
    with pytest.raises(RuntimeError, match=r"\[2\]\], which is output 0 of Exp, is at version 1"):
        e.sum().backward()


def _unpack_order(f, shapes, output_saved):
    """Which saved values a node checks first: input k (the output: len(shapes)) is changed in
    place k + 1 times, so the version in the error tells which it names; that one is left
    unchanged in the next round, until the backward runs."""
    remaining = list(range(len(shapes) + output_saved))
    order = []
    while remaining:
        xs = [(ng.rand(*shape, dtype=ng.float64, requires_grad=True) * 0.4 + 0.1) * 1
              for shape in shapes]
        out = f(*xs)
        loss = (out * 1).sum()
        for k in remaining:
            for _ in range(k + 1):
                (out if k == len(shapes) else xs[k]).add_(0.0)
        try:
            loss.backward()
            return order
        except RuntimeError as error:
            k = int(re.search(r"is at version (\d+)", str(error)).group(1)) - 1
            order.append(k)
            remaining.remove(k)
    return order


@pytest.mark.parametrize("f, shapes, output_saved, order", [
    # torch 2.13's nodes unpack their saved inputs by name (other before self, mat2 before
    # self), then their outputs
    (lambda x, y: x * y, [(2, 3), (3,)], False, [1, 0]),
    (lambda x, y: x / y, [(2, 3), (3,)], False, [1, 0]),
    (lambda x, y: x ** y, [(2, 3), (3,)], True, [1, 0, 2]),
    (lambda x, lo, hi: ng.clamp(x, lo, hi), [(2, 3), (3,), (1, 3)], False, [2, 1, 0]),
    (lambda x, end, w: ng.lerp(x, end, w), [(2, 3), (3,), (1, 3)], False, [1, 0, 2]),
    (lambda x, y: x @ y, [(2, 3), (3, 4)], False, [1, 0]),
    (lambda x, y: ng.dot(x, y), [(3,), (3,)], False, [0, 1]),
    (lambda x, y: ng.mv(x, y), [(2, 3), (3,)], False, [0, 1]),
    # linear is addmm(b, x, w.t()) (mat1 before mat2), without a bias mm(x, w.t())
    (lambda x, w, b: ng.nn.functional.linear(x, w, b), [(2, 3), (4, 3), (4,)], False, [0, 1]),
    (lambda x, w: ng.nn.functional.linear(x, w), [(2, 3), (4, 3)], False, [1, 0]),
])
def test_of_several_changed_saved_values_the_error_names_the_one_torch_unpacks_first(
        f, shapes, output_saved, order):
    assert _unpack_order(f, shapes, output_saved) == order
