"""Grad modes (no_grad, enable_grad, set_grad_enabled, inference_mode) as context managers and
decorators, thread-local; detach, detach_, requires_grad_."""
import threading

import numpy as np
import pytest

import numgrad as ng


def leaf():
    return ng.tensor([1., 2.], requires_grad=True)


def test_no_grad_and_enable_grad_as_context_managers():
    x = leaf()
    with ng.no_grad():
        assert not ng.is_grad_enabled()
        y = x * 2
        with ng.enable_grad():
            assert ng.is_grad_enabled()
            z = x * 2
        assert not ng.is_grad_enabled()
    assert ng.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf
    assert z.requires_grad and z.grad_fn is not None


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
def test_with_as_binds_none_as_torch():
    """torch's grad-mode, anomaly and saved-tensor-hook blocks give None to `with ... as`."""
    x = ng.ones(2, requires_grad=True)
    blocks = [ng.no_grad(), ng.enable_grad(), ng.set_grad_enabled(True), ng.inference_mode(False),
              ng.autograd.set_detect_anomaly(False), ng.autograd.detect_anomaly(),
              ng.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t),
              ng.autograd.graph.save_on_cpu(),
              ng.autograd.graph.disable_saved_tensors_hooks("no hooks here"),
              ng.autograd.set_multithreading_enabled(True)]
    for block in blocks:
        with block as bound:
            assert bound is None, type(block).__name__
    assert ng.is_grad_enabled() and (x * 2).requires_grad


@pytest.mark.parametrize("parentheses", [True, False])
def test_modes_as_decorators_with_and_without_parentheses(parentheses):
    x = leaf()

    def double(t):
        return t * 2, ng.is_grad_enabled()

    no_grad = ng.no_grad()(double) if parentheses else ng.no_grad(double)
    enable_grad = ng.enable_grad()(double) if parentheses else ng.enable_grad(double)
    inference = ng.inference_mode()(double) if parentheses else ng.inference_mode(double)
    y, enabled = no_grad(x)
    assert not y.requires_grad and not enabled
    with ng.no_grad():
        y, enabled = enable_grad(x)
    assert y.requires_grad and enabled
    y, enabled = inference(x)
    assert not y.requires_grad and not enabled and y.is_inference()
    assert ng.is_grad_enabled() and not ng.is_inference_mode_enabled()


def test_set_grad_enabled_as_call_context_manager_and_decorator():
    x = leaf()
    ng.set_grad_enabled(False)
    try:
        assert not ng.is_grad_enabled()
        assert not (x * 2).requires_grad
    finally:
        ng.set_grad_enabled(True)
    assert ng.is_grad_enabled()
    with ng.set_grad_enabled(False):
        assert not ng.is_grad_enabled()
        with ng.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not ng.is_grad_enabled()
    assert ng.is_grad_enabled()

    @ng.set_grad_enabled(False)
    def double(t):
        return t * 2

    assert ng.is_grad_enabled()          # decorating switches nothing for the caller
    assert not double(x).requires_grad
    assert ng.is_grad_enabled()


def test_decorated_generator_runs_in_the_mode_across_yields():
    x = leaf()

    @ng.no_grad()
    def steps():
        yield x * 2
        yield ng.is_grad_enabled()

    outputs = []
    for value in steps():
        outputs.append(value)
        assert ng.is_grad_enabled()      # the caller's code between steps is not in the mode
    assert not outputs[0].requires_grad and outputs[1] is False


def test_modes_are_restored_when_the_block_raises():
    with pytest.raises(ValueError):
        with ng.no_grad():
            raise ValueError
    assert ng.is_grad_enabled()
    with pytest.raises(ValueError):
        with ng.inference_mode():
            raise ValueError
    assert ng.is_grad_enabled() and not ng.is_inference_mode_enabled()


def test_grad_mode_is_thread_local():
    x = leaf()
    seen = {}
    inside = threading.Event()
    release = threading.Event()

    def worker():
        seen["start"] = ng.is_grad_enabled()      # a new thread starts with grad mode on
        with ng.no_grad():
            inside.set()
            release.wait(5)                       # while the main thread enables grad
            seen["worker"] = (x * 2).requires_grad

    with ng.no_grad():
        thread = threading.Thread(target=worker)
        thread.start()
        inside.wait(5)
        with ng.enable_grad():
            main_result = (x * 2).requires_grad
            release.set()
            thread.join()
    assert seen == {"start": True, "worker": False}
    assert main_result


def test_inference_mode_makes_inference_tensors():
    x = leaf()
    with ng.inference_mode():
        assert ng.is_inference_mode_enabled() and not ng.is_grad_enabled()
        a = ng.ones(2)
        y = x * 2
        with ng.enable_grad():                    # inference mode wins, as in torch
            assert ng.is_grad_enabled()
            z = x * 2
        with ng.inference_mode(False):
            assert not ng.is_inference_mode_enabled() and ng.is_grad_enabled()
            w = x * 2
    assert a.is_inference() and y.is_inference() and not y.requires_grad
    assert z.is_inference() and not z.requires_grad
    assert w.requires_grad and not w.is_inference()
    assert not x.is_inference() and not a.clone().is_inference()


def test_a_refused_inference_operand_leaves_the_tape_as_it_was():
    x = ng.tensor([1., 2.], requires_grad=True)
    h = x * 3.0                      # the graph being recorded when the refusal comes
    with ng.inference_mode():
        frozen = ng.tensor([5., 7.])
    seg = h._seg
    edges, nodes = len(seg.e_node), len(seg)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        h * frozen                   # h's edge would be appended before frozen is refused
    assert len(seg.e_node) - edges == len(seg) - nodes == 0
    (h * ng.tensor([10., 100.])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [30., 300.])


def test_inference_tensors_refuse_autograd_and_in_place_outside():
    x = leaf()
    with ng.inference_mode():
        a = ng.ones(2)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        x * a
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside "
                                           "InferenceMode is not allowed"):
        a.add_(1)
    np.testing.assert_array_equal(a.numpy(), [1., 1.])
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor "
                                           "outside InferenceMode is not allowed"):
        a.requires_grad_()
    assert not a.requires_grad
    (x * a.clone()).sum().backward()             # the workaround torch suggests
    np.testing.assert_array_equal(x.grad.numpy(), [1., 1.])
    with ng.inference_mode():
        a.add_(1)                                 # allowed inside
    np.testing.assert_array_equal(a.numpy(), [2., 2.])


def test_detach_shares_data_and_version_counter():
    x = leaf()
    h = x * 3
    d = h.detach()
    assert d.is_leaf and not d.requires_grad and d.grad_fn is None
    assert d._version == h._version == 0
    d.add_(1)                                     # seen by h: same memory, same counter
    assert h._version == 1
    np.testing.assert_array_equal(h.detach().numpy(), [4., 7.])
    y = x.sin()
    x.detach().mul_(2)                            # a detached alias of a leaf: sin saved x
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_detach_in_place():
    x = leaf()
    h = x * 2
    assert h.detach_() is h
    assert h.is_leaf and not h.requires_grad and h.grad_fn is None
    v = (x * 2)[0]
    with pytest.raises(RuntimeError, match="Can't detach views in-place. Use detach"):
        v.detach_()
    assert v.requires_grad and v.grad_fn is not None


def test_requires_grad_rules():
    t = ng.tensor([1., 2.])
    assert t.requires_grad_() is t and t.requires_grad
    t.requires_grad = False
    assert not t.requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require "
                                           "gradients"):
        ng.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype"):
        ng.tensor([1, 2], requires_grad=True)
    h = leaf() * 2
    assert h.requires_grad_(True) is h
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf "
                                           "variables"):
        h.requires_grad_(False)
    assert h.requires_grad and h.grad_fn is not None


def test_a_view_of_an_inference_tensor_is_one_and_inference_tensors_have_no_version():
    with ng.inference_mode():
        z = ng.ones(2, 3)
    assert z[0].is_inference() and z.t().is_inference()      # made outside inference mode
    assert not z.clone().is_inference()
    with pytest.raises(RuntimeError, match="Inference tensors do not track version counter."):
        z._version
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside "
                                           "InferenceMode is not allowed"):
        z[0].add_(1)
    assert z.tolist() == [[1., 1., 1.]] * 2


def test_a_normal_tensors_view_made_in_inference_mode_is_normal_but_not_to_be_changed_recorded():
    base, weight = ng.ones(2), ng.ones(2, requires_grad=True)
    with ng.inference_mode():
        view, weight_view = base[0:1], weight[0:1]
    assert not view.is_inference() and not weight_view.is_inference()
    assert view._base is base and weight_view.requires_grad and weight_view.grad_fn is None
    view.add_(1)                # nothing to record: allowed, as in torch
    assert base.tolist() == [2.0, 1.0]
    (weight_view * weight).sum().backward()         # used, it is a leaf-like alias
    assert weight.grad.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match=(
            "A view was created in inference mode and is being modified inplace in normal mode. "
            "Given that this use case is ambiguous and error-prone, it is forbidden. You can "
            "clarify your code by moving both the view and the inplace either both inside the "
            "inference_mode block")):
        view.mul_(weight[0:1])
    assert base.tolist() == [2.0, 1.0]


@pytest.mark.parametrize("value, kind", [("a", "str"), (1, "int"), (None, "NoneType"),
                                         (np.bool_(True), "numpy.bool")])
def test_set_grad_enabled_takes_only_a_bool_as_torch(value, kind):
    with pytest.raises(TypeError, match=f"set_grad_enabled\\(\\): argument 'enabled' \\(position "
                                        f"1\\) must be bool, not {kind}"):
        ng.set_grad_enabled(value)
    assert ng.is_grad_enabled()
