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


# ---- Note [views read anew unseen] ---------------------------------------------------------
def _tree(fn):
    if fn is None:
        return None
    return fn.name(), [None if f is None else f.name() for f, _ in fn.next_functions]


def test_a_view_not_used_since_its_base_changed_follows_the_base_detached_in_place():
    x = ng.tensor([1., -2., 3., 0.5, 2., -1.], requires_grad=True)
    b = x * 1
    v = b[:3]
    w = v[1:]
    b.mul_(2)
    assert _tree(w.grad_fn) == ("AsStridedBackward0", ["MulBackward0"])    # w is read anew now
    b.detach_()
    # torch 2.13 reads v anew only now: its edge to the detached base is None; w keeps its own
    assert _tree(v.grad_fn) == ("AsStridedBackward0", [None])
    assert v.requires_grad
    assert _tree(w.grad_fn) == ("AsStridedBackward0", ["MulBackward0"])
    (v.sum() + w.sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 2, 2, 0, 0, 0])


def test_a_view_that_had_no_history_gets_none_if_its_base_is_detached_before_it_is_used():
    x = ng.tensor([1., -2., 3.], requires_grad=True)
    b = x.detach().clone()
    v = b[:2]
    b.mul_(x)
    b.detach_()
    # torch 2.13: v never had a grad_fn, and its base requires no grad
    assert (v.grad_fn, v.requires_grad, v.is_leaf) == (None, False, True)


def test_a_view_not_used_since_reads_a_base_that_requires_grad_again():
    x = ng.tensor([1., -2., 3.], requires_grad=True)
    b = x * 1
    v = b[:2]
    b.mul_(2)
    b.detach_()
    b.requires_grad_()
    assert _tree(v.grad_fn) == ("AsStridedBackward0", ["torch::autograd::AccumulateGrad"])    # torch 2.13
    v.sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), [1, 1, 0])
    assert x.grad is None


def test_changing_a_view_in_place_reads_it_anew_but_writing_into_a_part_of_it_does_not():
    x = ng.tensor([1., -2., 3., 0.5], requires_grad=True)
    b = x * 1
    v = b[:2]
    w = b[2:]
    v.add_(1)           # v is read anew at once, as torch's rebase_history does
    b.detach_()
    assert _tree(v.grad_fn) == ("AsStridedBackward0", ["torch::autograd::CopySlices"])
    b = x * 1
    v = b[:2]
    w = b[2:]
    v.add_(1)
    w[0] = 5.           # torch writes into a view of w: the other views, v too, are unseen
    b.detach_()
    assert _tree(v.grad_fn) == ("AsStridedBackward0", [None])      # torch 2.13
    assert _tree(w.grad_fn) == ("AsStridedBackward0", [None])


def test_retain_grad_asked_again_does_not_read_the_view_anew():
    x = ng.tensor([1., -2., 3.], requires_grad=True)
    b = x * 1
    v = b[:2]
    v.retain_grad()
    b.mul_(2)
    v.retain_grad()     # torch returns before asking for the grad_fn
    b.detach_()
    assert _tree(v.grad_fn) == ("AsStridedBackward0", [None])      # torch 2.13


def test_an_in_place_view_op_reads_a_view_changed_unrecorded_anew_first():
    x = ng.tensor([1., -2., 3., 0.5, 2., -1.], requires_grad=True)
    b = x * 1
    q = b.view(2, 3)
    with ng.no_grad():
        b.mul_(3)
    q.t_()
    # torch 2.13: TBackward1 over the AsStridedBackward0 q's change made it
    assert _tree(q.grad_fn) == ("TBackward1", ["AsStridedBackward0"])
    assert _tree(q.grad_fn.next_functions[0][0]) == ("AsStridedBackward0", ["MulBackward0"])


def test_a_refused_write_through_a_view_has_read_the_view_anew_first():
    x = ng.tensor([1., -2., 3., 0.5, 2., -1.], requires_grad=True)
    b = x * 1
    v = b[:3]
    b[4] = x[0]
    b.detach_()
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is "
                                           "being used in an in-place operation.$"):
        v[0] = 5.       # torch's select records v (asking for its grad_fn), then copy_ refuses
    b.requires_grad_()
    assert _tree(v.grad_fn) == ("AsStridedBackward0", [None])      # torch 2.13


def test_the_version_error_names_no_node_for_a_leaf_an_op_of_mixed_types_cast():
    a0 = ng.tensor([1., 2.], dtype=ng.float64, requires_grad=True)
    a1 = ng.tensor([3., 4.], requires_grad=True)
    t2 = a1 * (a1 + a0)         # saves a1 as float64 for a0's gradient
    with ng.no_grad():
        a1.neg_()
    # torch 2.13 saved a1 itself, a leaf: no "which is output 0 of ToCopy"
    with pytest.raises(RuntimeError, match=r"^one of the variables needed for gradient "
                                           r"computation has been modified by an inplace "
                                           r"operation: \[numgrad.FloatTensor \[2\]\] is at "
                                           r"version 1; expected version 0 instead\."):
        t2.sum().backward()


def test_storage_offset_after_as_strided_in_place_on_a_tensor_that_is_no_view():
    x = ng.arange(12.).reshape(3, 4).clone()
    x.as_strided_((2, 2), (4, 1), 3)
    # torch 2.13: the offset in the memory x had
    assert (x.storage_offset(), x.stride(), x.tolist()) == (3, (4, 1), [[3., 4.], [7., 8.]])
    x.t_()
    assert (x.storage_offset(), x.stride()) == (3, (1, 4))


class _Double_(ng.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        a.mul_(2)
        ctx.mark_dirty(a)
        return a

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_a_dirty_input_that_requires_grad_comes_back_detached_under_no_grad():
    x = ng.ones(3, requires_grad=True)
    with ng.no_grad():
        out = _Double_.apply(x)
    # torch 2.13: a detached alias, sharing x's memory and version counter
    assert out is not x and out._base is None
    assert (out.requires_grad, out.grad_fn, out.is_leaf) == (False, None, True)
    assert (x._version, out._version) == (2, 2)      # mul_, then mark_dirty
    out.add_(1)
    assert x.tolist() == [3., 3., 3.] and x._version == 3
    y = ng.ones(3)
    with ng.no_grad():
        assert _Double_.apply(y) is y        # nothing to detach from


def test_data_set_to_an_inference_tensor_makes_an_inference_tensor_saved_only_where_read():
    x = ng.ones(3, requires_grad=True)
    with ng.inference_mode():
        i = ng.ones(3)
    x.data = i
    assert (x.is_inference(), x.requires_grad) == (True, True)       # torch 2.13
    # x * 2 saves no x (only the constant's gradient would read it): torch runs it
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2., 2., 2.]
    y = ng.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^Inference tensors cannot be saved for backward"):
        i * y
    assert (y + i).grad_fn.name() == "AddBackward0"


def test_as_strided_of_a_view_reads_the_view_and_drops_what_lies_outside_it():
    a = ng.arange(12., dtype=ng.float64, requires_grad=True)
    b = a * 1
    x = b[2:]
    y = x.as_strided((2, 2), (1, 2))
    # torch 2.13: the node's edge is the view's, and its attributes are as given
    assert _tree(y.grad_fn) == ("AsStridedBackward0", ["SliceBackward0"])
    assert (y.grad_fn._saved_size, y.grad_fn._saved_stride,
            y.grad_fn._saved_storage_offset) == ((2, 2), (1, 2), None)
    assert (y._base is b, y.storage_offset(), y.tolist()) == (True, 2, [[2., 4.], [3., 5.]])
    z = (b * 1).view(3, 4)
    w = z[:, :2]
    v = w.as_strided((3,), (2,), 3)     # storage elements 3, 5, 7: 3 and 7 lie outside w
    assert v.grad_fn._saved_storage_offset == 3
    (v * ng.tensor([1., 2., 3.], dtype=ng.float64)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0])


def test_a_no_grad_view_requires_grad_again_when_its_detached_base_does():
    a = ng.tensor([[1., 2.], [3., 4.]], dtype=ng.float64, requires_grad=True)
    with ng.no_grad():
        v = a.t()[:, 1:]
    a.detach_()
    assert v.requires_grad is False
    a.requires_grad_()
    assert (v.requires_grad, v.grad_fn, v.is_leaf) == (True, None, True)      # torch 2.13
    with pytest.raises(RuntimeError, match="^Output 0 of Select is a view of a view which was "
                                           "created in no_grad mode and is being modified "
                                           "inplace with grad mode enabled"):
        v[0] = v[-1] * 2


def test_a_view_of_a_base_that_starts_requiring_grad_requires_grad_through_it():
    b = ng.ones(4)
    v = b[:2]
    b.requires_grad_()
    # torch 2.13: it requires grad through its base, without a grad_fn; its gradient goes nowhere
    assert (v.requires_grad, v.grad_fn, v.is_leaf) == (True, None, True)
    (v * 2).sum().backward()
    assert (b.grad, v.grad) == (None, None)
    v.retain_grad()             # torch's leaf test: nothing to retain
    assert not v.retains_grad
    with ng.no_grad():
        b.mul_(2)
    # the base changed: torch reads the view anew out of it
    assert _tree(v.grad_fn) == ("AsStridedBackward0", ["torch::autograd::AccumulateGrad"])
    (v * 2).sum().backward()
    np.testing.assert_array_equal(b.grad.numpy(), [2, 2, 0, 0])


def test_retain_grad_of_a_stale_no_grad_view_does_nothing():
    b = ng.ones(3, requires_grad=True) * 1
    with ng.no_grad():
        v = b[:2]
        b.mul_(2)
    v.retain_grad()             # torch 2.13: its leaf test comes first, and asks no grad_fn
    assert not v.retains_grad


def test_a_recorded_write_keeps_the_sign_of_zeros_kept_and_written():
    x = ng.tensor([0., 1., 2.], requires_grad=True)
    b = x * -1
    b[1] = 2.
    assert [str(v) for v in b.tolist()] == ["-0.0", "2.0", "-2.0"]       # torch 2.13
    b = x * 1
    b[[0, 2]] = ng.tensor([-0., 5.])
    assert [str(v) for v in b.tolist()] == ["-0.0", "1.0", "5.0"]
    b = (x * -1).view(3, 1)
    b[:2][0] = ng.tensor([-0.])
    assert [str(v) for v in b.view(-1).tolist()] == ["-0.0", "-1.0", "-2.0"]
    b.sum().backward()
    assert [str(v) for v in x.grad.tolist()] == ["-0.0", "-1.0", "-1.0"]
