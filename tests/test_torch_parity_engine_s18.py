"""Engine semantics compared with torch 2.13 (session 18): saved-tensor hooks around in-place ops,
the order unpack hooks run in, custom Functions returning views. torch's values and messages are
written out; torch is not imported."""
import numpy as np
import pytest

import numgrad as ng


def _logging_hooks(log):
    def pack(t):
        log.append(("pack", tuple(t.shape)))
        return t

    def unpack(t):
        log.append(("unpack", tuple(t.shape)))
        return t
    return ng.autograd.graph.saved_tensors_hooks(pack, unpack)


def test_a_pack_hook_keeping_an_in_place_ops_output_gives_back_the_tensor_as_changed_since():
    # exp_ saves its output: the tensor it changed. An identity pack hook keeps that tensor, and
    # a packed value is not version-checked, so the backward reads it as the later mul_ and
    # sin_ left it (torch 2.13 gives these gradients; they are not exp's)
    x = ng.tensor([[1., -2., 3.], [0.5, 2., -1.]], dtype=ng.float64, requires_grad=True)
    u = ng.tensor([2., 3.], dtype=ng.float64, requires_grad=True)
    log = []
    with _logging_hooks(log):
        a = x * 1
        a.exp_()
        a.mul_(u.view(2, 1))
        a[0].sin_()
    a.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[-0.9925127312110943, 0.5152858303072292,
                                                 -0.9733152965411741],
                                                [14.838491436301155, 66.50150489037586,
                                                 3.310914970542981]], rtol=1e-12)
    np.testing.assert_allclose(u.grad.numpy(), [-13.816767624272648, 9.40565681080222],
                               rtol=1e-12)
    # torch's nodes run newest first, each unpacking as it runs: sin_'s input, mul_'s operands,
    # then exp_'s output
    assert log == [("pack", (2, 3)), ("pack", (2, 1)), ("pack", (2, 3)), ("pack", (3,)),
                   ("unpack", (3,)), ("unpack", (2, 1)), ("unpack", (2, 3)), ("unpack", (2, 3))]


def test_unpack_hooks_run_in_the_order_torchs_nodes_run():
    x = ng.tensor([[1., -2., 3.], [0.5, 2., -1.]], dtype=ng.float64, requires_grad=True)
    u = ng.tensor([2., 3.], dtype=ng.float64, requires_grad=True)
    log = []
    with _logging_hooks(log):
        a = x * u.view(2, 1)
        b = a.sum(1).exp()
        c = (b[0] * b).sum()
    c.backward()
    # torch 2.13 gives this log
    assert log == [("pack", (2, 1)), ("pack", (2, 3)), ("pack", (2,)), ("pack", (2,)),
                   ("pack", ()), ("unpack", (2,)), ("unpack", ()), ("unpack", (2,)),
                   ("unpack", (2, 1)), ("unpack", (2, 3))]


def test_a_saved_tensors_pack_hook_registered_on_a_node_gets_a_tensor_without_history():
    x = ng.tensor([1., 2.], requires_grad=True)
    a = x * 2
    c = a * x
    e = a.exp()
    seen = []

    def pack(t):
        seen.append((t.requires_grad, t.grad_fn, t.is_leaf))
        return t
    for saved in (c.grad_fn._raw_saved_self, c.grad_fn._raw_saved_other,
                  e.grad_fn._raw_saved_result):
        saved.register_hooks(pack, lambda t: t)
    # torch 2.13: a non-leaf input, a leaf and an output alike
    assert seen == [(False, None, True)] * 3
    (c.sum() + e.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), [4 + 2 * np.exp(2.), 8 + 2 * np.exp(4.)],
                               rtol=1e-6)


def test_disabling_saved_tensors_hooks_inside_hooks_raises_its_message():
    with ng.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        with pytest.raises(RuntimeError, match="^not here$"):
            with ng.autograd.graph.disable_saved_tensors_hooks("not here"):
                pass
    # nothing was left disabled
    with ng.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        pass


def _returning(outputs):
    class F(ng.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return outputs(ctx, a, b)

        @staticmethod
        def backward(ctx, *grads):
            return None, None
    return F


_CUSTOM = ("Output 0 of F is a view and is being modified inplace. This view was created inside a "
           "custom Function (or because an input was returned as-is) and the autograd logic to "
           "handle view+inplace would override the custom backward associated with the custom "
           "Function, leading to incorrect gradients. This behavior is forbidden. You can fix "
           "this by cloning the output of the custom Function.")
_MULTI = ("Output 0 of F is a view and is being modified inplace. This view is the output of a "
          "function that returns multiple views. Such functions do not allow the output views to "
          "be modified inplace. You should replace the inplace operation by an out-of-place one.")


def _non_differentiable(ctx, a, b):
    r = a * 2
    ctx.mark_non_differentiable(r)
    return a[1:], r


@pytest.mark.parametrize("outputs, message", [
    (lambda ctx, a, b: (a.view(3), a[1:]), _MULTI),
    (lambda ctx, a, b: (a[1:], a * 2), _MULTI),
    (lambda ctx, a, b: (a[1:], b), _MULTI),
    (lambda ctx, a, b: (a[1:], b[1:]), _MULTI),
    (_non_differentiable, _CUSTOM),
    (lambda ctx, a, b: (a[1:], a.long()), _CUSTOM),
    (lambda ctx, a, b: (a[1:], None), _CUSTOM),
    (lambda ctx, a, b: a[1:], _CUSTOM),
])
def test_a_custom_functions_view_output_names_torchs_reason_for_refusing_a_change(outputs,
                                                                                   message):
    # torch 2.13: with more than one differentiable output, a view output is a multi-output
    # node's
    x = ng.tensor([1., 2., 3.], requires_grad=True)
    b = ng.tensor([1., 2., 3.], requires_grad=True)
    result = _returning(outputs).apply(x * 1, b * 1)
    view = result[0] if isinstance(result, tuple) else result
    with pytest.raises(RuntimeError) as error:
        view.mul_(2)
    assert str(error.value) == message
    assert view._version == 0
