"""Module hooks (forward, forward pre, full backward, full backward pre), nn.utils' parameter
vectors and gradient clipping, and the anomaly-mode queries. Expected values were computed with
torch 2.13 in float64 on the same models and pasted here."""
import warnings

import numpy as np
import pytest

import numgrad as ng
from numgrad import nn


@pytest.fixture(autouse=True)
def float64():
    previous = ng.get_default_dtype()
    ng.set_default_dtype(ng.float64)
    yield
    ng.set_default_dtype(previous)


def close(tensor, expected):
    np.testing.assert_allclose(tensor.detach().numpy(), expected, rtol=1e-12, atol=1e-14)


def linear():
    lin = nn.Linear(3, 2)
    with ng.no_grad():
        lin.weight.copy_(ng.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]]))
        lin.bias.copy_(ng.tensor([0.1, -0.2]))
    return lin


def inputs():
    return ng.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], requires_grad=True)


# torch: loss (y * y).sum() of linear()(inputs())
GRAD_Y = [[9.2, 0.6], [6.2, -5.15]]
GRAD_X = [[5.5, -9.05, 18.1], [-4.625, -7.4875, 14.975]]
GRAD_W = [[3.0, 21.5, 40.0], [5.75, -1.375, -8.5]]


def test_full_backward_hook_sees_grad_input_and_grad_output():
    lin, x = linear(), inputs()
    seen = []
    lin.register_full_backward_hook(lambda m, grad_input, grad_output:
                                    seen.append((m, grad_input, grad_output)))
    y = lin(x)
    assert seen == []
    (y * y).sum().backward()
    [(module, grad_input, grad_output)] = seen
    assert module is lin and len(grad_input) == 1 and len(grad_output) == 1
    close(grad_output[0], GRAD_Y)
    close(grad_input[0], GRAD_X)
    close(x.grad, GRAD_X)
    close(lin.weight.grad, GRAD_W)


def test_a_returned_grad_input_replaces_the_gradient_of_the_input_only():
    lin, x = linear(), inputs()
    lin.register_full_backward_hook(lambda m, grad_input, grad_output: (grad_input[0] * 10,))
    y = lin(x)
    (y * y).sum().backward()
    close(x.grad, np.array(GRAD_X) * 10)
    close(lin.weight.grad, GRAD_W)          # the parameters are inside: their grads are as before


def test_pre_hook_replaces_grad_output_before_the_module_backward_runs():
    lin, x = linear(), inputs()
    seen = []
    lin.register_full_backward_pre_hook(lambda m, grad_output: (ng.ones_like(grad_output[0]),))
    lin.register_full_backward_hook(lambda m, grad_input, grad_output:
                                    seen.append((grad_input[0], grad_output[0])))
    y = lin(x)
    (y * y).sum().backward()
    # torch: the full hook sees the replaced grad_output, and everything below it follows
    close(seen[0][1], [[1., 1.], [1., 1.]])
    close(seen[0][0], [[2., -0.75, 1.5], [2., -0.75, 1.5]])
    close(x.grad, [[2., -0.75, 1.5], [2., -0.75, 1.5]])
    close(lin.weight.grad, [[0., 2.5, 5.], [0., 2.5, 5.]])


def test_hooks_in_a_sequential_run_outside_in_and_prepend_comes_first():
    lin, x = linear(), inputs()
    seq = nn.Sequential(lin, nn.Tanh())
    log, grads = [], {}

    def keep(name):
        def hook(module, grad_input, grad_output):
            log.append(name)
            grads[name] = (grad_input[0], grad_output[0])
        return hook

    lin.register_full_backward_hook(keep("linear"))
    seq[1].register_full_backward_hook(keep("tanh"))
    seq.register_full_backward_hook(lambda m, gi, go: log.append("seq"))
    seq.register_full_backward_hook(lambda m, gi, go: log.append("seq first"), prepend=True)
    seq.register_full_backward_pre_hook(lambda m, go: log.append("seq pre"))
    seq(x).sum().backward()
    assert log == ["seq pre", "tanh", "linear", "seq first", "seq"]
    tanh_grad = [[0.0004040759480389272, 0.9151369618266292],
                 [0.008084873865486397, 0.02293087680039273]]
    x_grad = [[1.3729074807139632, 0.22838016450861837, -0.45676032901723673],
              [0.038438752133332296, -0.0023521546653882145, 0.004704309330776429]]
    close(grads["tanh"][1], [[1., 1.], [1., 1.]])
    close(grads["tanh"][0], tanh_grad)
    close(grads["linear"][1], tanh_grad)
    close(grads["linear"][0], x_grad)
    close(x.grad, x_grad)


def test_replacing_a_gradient_between_two_modules_changes_the_parameters_below():
    lin, x = linear(), inputs()
    seq = nn.Sequential(lin, nn.Tanh())
    seq[1].register_full_backward_hook(lambda m, grad_input, grad_output: (grad_input[0] * 2,))
    seq(x).sum().backward()
    close(x.grad, [[2.7458149614279264, 0.45676032901723673, -0.9135206580344735],
                   [0.07687750426666459, -0.004704309330776429, 0.009408618661552858]])
    close(lin.weight.grad, [[-0.01536159583489494, 0.009701177657642106, 0.034763951150179155],
                            [1.7844121700524729, 3.6834787241069096, 5.582545278161345]])
    close(lin.bias.grad, [0.01697789962705065, 1.8761356772540438])


class Three(nn.Module):
    def forward(self, a, b, scale, c):
        return a * b * scale, a + c, c * 2


def test_several_inputs_and_outputs_non_tensors_and_tensors_without_grad():
    module = Three()
    seen = []
    module.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go)))
    a = ng.tensor([1.0, 2.0], requires_grad=True)
    b = ng.tensor([3.0, -1.0], requires_grad=True)
    c = ng.tensor([0.5, 0.5])
    p, q, r = module(a, b, 2.0, c)
    assert q.requires_grad and not r.requires_grad and r.grad_fn is None
    (p * p).sum().backward()
    [(grad_input, grad_output)] = seen
    # torch: None for the float and for outputs that got no gradient; zeros for c
    assert grad_input[2] is None and grad_output[1] is None and grad_output[2] is None
    close(grad_input[0], [72., 16.])
    close(grad_input[1], [24., -32.])
    close(grad_input[3], [0., 0.])
    close(grad_output[0], [12., -8.])
    close(a.grad, [72., 16.])
    close(b.grad, [24., -32.])

    seen.clear()
    a.grad = b.grad = None
    p, q, r = module(a, b, 2.0, c)
    (p.sum() + (q * q).sum()).backward()
    [(grad_input, grad_output)] = seen
    close(grad_output[0], [1., 1.])
    close(grad_output[1], [3., 5.])
    close(grad_input[0], [9., 3.])
    close(grad_input[1], [2., 4.])


def test_no_input_requiring_grad_fires_from_the_outputs_with_a_warning():
    lin, x = linear(), inputs()
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go)))
    y = lin(x.detach())
    with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are "
                                         "computed with respect to module outputs since no inputs "
                                         "require gradients"):
        (y * y).sum().backward()
    [(grad_input, grad_output)] = seen
    assert grad_input == (None,)
    close(grad_output[0], GRAD_Y)
    close(lin.weight.grad, GRAD_W)

    lin = linear()
    lin.register_full_backward_hook(lambda m, gi, go: 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="Backward hook for Modules where no input requires "
                                               "gradient should always return None or None for "
                                               "all gradients."):
            lin(x.detach()).sum().backward()


def test_hooks_fire_once_per_call_and_per_backward_and_only_when_the_input_grad_is_needed():
    lin, x = linear(), inputs()
    sums = []
    lin.register_full_backward_hook(lambda m, gi, go: sums.append(gi[0].sum().item()))
    y = lin(lin(x) @ ng.ones(2, 3))
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    # torch: the outer call's hook first, then the inner one's, in each backward
    assert sums == [5.5, 15.125, 5.5, 15.125]
    sums.clear()
    ng.autograd.grad(lin(x).sum(), [lin.weight])
    assert sums == []


def test_removal_and_hooks_of_a_call_are_those_registered_at_its_forward():
    lin, x = linear(), inputs()
    calls = []
    handle = lin.register_full_backward_hook(lambda m, gi, go: calls.append("full"))
    pre = lin.register_full_backward_pre_hook(lambda m, go: calls.append("pre"))
    y = lin(x)
    handle.remove()
    pre.remove()
    y.sum().backward()
    assert calls == ["pre", "full"]         # torch takes the hooks when forward runs
    lin(x).sum().backward()
    assert calls == ["pre", "full"]
    assert not lin._backward_hooks and not lin._backward_pre_hooks


def test_hook_results_are_checked_as_torch_does():
    x = inputs()
    cases = [(lambda m, gi, go: (gi[0], gi[0]), None, RuntimeError,
              "Backward hook returned an invalid number of grad_input, got 2, but expected 1"),
             (None, lambda m, go: (go[0], go[0]), RuntimeError,
              "Backward pre hook returned an invalid number of grad_output, got 2, but expected 1"),
             (lambda m, gi, go: (gi[0][:1],), None, RuntimeError,
              "hook 'hook' has changed the size of value"),
             (lambda m, gi, go: (gi[0].float(),), None, RuntimeError,
              "hook 'hook' has changed the type of value"),
             (lambda m, gi, go: (1,), None, TypeError,
              "expected Variable, but hook returned 'int'")]
    for hook, pre_hook, error, message in cases:
        lin = linear()
        if hook is not None:
            lin.register_full_backward_hook(hook)
        if pre_hook is not None:
            lin.register_full_backward_pre_hook(pre_hook)
        with pytest.raises(error, match=message):
            lin(x).sum().backward()


def test_an_in_place_write_to_an_input_inside_forward_is_refused():
    relu = nn.ReLU(inplace=True)
    relu.register_full_backward_hook(lambda m, gi, go: None)
    x = ng.tensor([1.0, -2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Output 0 of BackwardHookFunction is a view and is "
                                           r"being modified inplace\. This view was created "
                                           r"inside a custom Function"):
        relu(x * 1)


def test_no_hooks_and_no_grad_leave_the_outputs_alone():
    lin, x = linear(), inputs()
    lin.register_full_backward_hook(lambda m, gi, go: None)
    with ng.no_grad():
        assert lin(x).grad_fn is None
    assert lin(x).grad_fn.name() == "BackwardHookFunctionBackward"
    bare = linear()
    assert bare(x).grad_fn.name() == "AddmmBackward0"


class Scale(nn.Module):
    def forward(self, x, factor=1.0):
        if factor == 0:
            raise ValueError("zero factor")
        return x * factor


def test_forward_hooks_with_kwargs_prepend_and_always_call():
    module = Scale()
    log = []
    module.register_forward_pre_hook(lambda m, args: log.append("pre"))
    module.register_forward_pre_hook(
        lambda m, args, kwargs: log.append(("pre kwargs", kwargs)) or (args, {"factor": 3.0}),
        with_kwargs=True)
    module.register_forward_pre_hook(lambda m, args: log.append("pre first"), prepend=True)
    module.register_forward_hook(lambda m, args, out: log.append(("hook", out.tolist())))
    module.register_forward_hook(
        lambda m, args, kwargs, out: log.append(("hook kwargs", kwargs)) or out + 1,
        with_kwargs=True)
    module.register_forward_hook(lambda m, args, out: log.append("always"), always_call=True,
                                 prepend=True)
    out = module(ng.tensor([1.0, 2.0]), factor=2.0)
    # torch 2.13 gives the same output and log
    close(out, [4., 7.])
    assert log == ["pre first", "pre", ("pre kwargs", {"factor": 2.0}), "always",
                   ("hook", [3., 6.]), ("hook kwargs", {"factor": 3.0})]


def test_always_call_hooks_run_when_forward_raises():
    module = Scale()
    log = []
    handle = module.register_forward_hook(lambda m, args, out: log.append(("always", out)),
                                          always_call=True)
    module.register_forward_hook(lambda m, args, out: log.append("normal"))
    with pytest.raises(ValueError, match="zero factor"):
        module(ng.tensor([1.0]), factor=0)
    assert log == [("always", None)]
    handle.remove()
    assert not module._forward_hooks_always_called
    with pytest.raises(ValueError):
        module(ng.tensor([1.0]), factor=0)
    assert log == [("always", None)]


def test_a_kwargs_pre_hook_must_return_args_and_kwargs():
    module = Scale()
    module.register_forward_pre_hook(lambda m, args, kwargs: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match=r"forward pre-hook must return None or a tuple of "
                                           r"\(new_args, new_kwargs\), but got 5\."):
        module(ng.tensor([1.0]))


# ---- nn.utils ------------------------------------------------------------------------------------
def two_parameters():
    a = nn.Parameter(ng.tensor([[1.0, -2.0], [3.0, 0.5]]))
    b = nn.Parameter(ng.tensor([4.0, -1.5, 2.5]))
    return a, b


def set_grads(a, b):
    a.grad = ng.tensor([[3.0, -4.0], [1.0, 2.0]])
    b.grad = ng.tensor([0.5, -6.0, 2.0])


def test_parameters_to_vector_is_differentiable_and_vector_to_parameters_shares_memory():
    a, b = two_parameters()
    vec = nn.utils.parameters_to_vector([a, b])
    close(vec, [1.0, -2.0, 3.0, 0.5, 4.0, -1.5, 2.5])
    assert vec.grad_fn.name() == "CatBackward0"
    (vec * ng.arange(7.0)).sum().backward()
    close(a.grad, [[0., 1.], [2., 3.]])
    close(b.grad, [4., 5., 6.])

    source = ng.arange(7.0)
    nn.utils.vector_to_parameters(source, [a, b])
    close(a, [[0., 1.], [2., 3.]])
    close(b, [4., 5., 6.])
    source[0] = 100.0
    assert a[0, 0].item() == 100.0          # as torch: the parameters are views of the vector
    with pytest.raises(TypeError, match="expected numgrad.Tensor, but got: list"):
        nn.utils.vector_to_parameters([1.0], [a])


def test_get_total_norm_and_clipping_with_a_given_norm():
    a, b = two_parameters()
    set_grads(a, b)
    for norm_type, expected in [(2.0, 8.381527307120106), (1.0, 18.5), ("inf", 6.0),
                                (3.0, 6.869168608917909)]:
        total = nn.utils.get_total_norm([a.grad, b.grad], norm_type)
        assert total.item() == pytest.approx(expected, rel=1e-14)
    nn.utils.clip_grads_with_norm_([a, b], 1.0, ng.tensor(4.0))
    scale = 1.0 / (4.0 + 1e-6)
    close(a.grad, np.array([[3.0, -4.0], [1.0, 2.0]]) * scale)
    close(b.grad, np.array([0.5, -6.0, 2.0]) * scale)


def test_clip_grad_norm_and_value_as_torch():
    a, b = two_parameters()
    set_grads(a, b)
    close(nn.utils.clip_grad_norm_([a, b], 2.0), 8.381527307120106)
    scale = 2.0 / (8.381527307120106 + 1e-6)
    close(a.grad, np.array([[3.0, -4.0], [1.0, 2.0]]) * scale)
    close(b.grad, np.array([0.5, -6.0, 2.0]) * scale)

    set_grads(a, b)
    close(nn.utils.clip_grad_norm_(iter([a, b]), 5.0, norm_type="inf", foreach=True), 6.0)
    scale = 5.0 / (6.0 + 1e-6)
    close(b.grad, np.array([0.5, -6.0, 2.0]) * scale)

    set_grads(a, b)
    nn.utils.clip_grad_value_([a, b], 0.3)
    close(a.grad, [[0.3, -0.3], [0.3, 0.3]])
    close(b.grad, [0.3, -0.3, 0.3])


def test_clip_grad_norm_of_non_finite_gradients_and_of_nothing():
    a, b = two_parameters()
    set_grads(a, b)
    b.grad = ng.tensor([float("nan"), 1.0, 2.0])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from "
                                           "`parameters` is non-finite, so it cannot be clipped"):
        nn.utils.clip_grad_norm_([a, b], 1.0, error_if_nonfinite=True)
    close(b.grad, [np.nan, 1.0, 2.0])                   # the error changed nothing
    # torch scales by the NaN norm when not told to raise
    assert np.isnan(nn.utils.clip_grad_norm_([a, b], 1.0).item())
    assert np.isnan(a.grad.numpy()).all()
    with pytest.warns(UserWarning, match="`parameters` is an empty generator, no gradient "
                                         "clipping will occur."):
        total = nn.utils.clip_grad_norm_((p for p in []), 1.0)
    assert total.item() == 0.0 and total.dtype == ng.float64
    with pytest.warns(FutureWarning, match="clip_grad_norm` is now deprecated"):
        set_grads(a, b)
        close(nn.utils.clip_grad_norm([a, b], 100.0), 8.381527307120106)


# ---- anomaly mode queries ------------------------------------------------------------------------
def test_anomaly_mode_queries():
    assert not ng.is_anomaly_enabled() and not ng.autograd.is_anomaly_enabled()
    with ng.autograd.set_detect_anomaly(True, check_nan=False):
        assert ng.is_anomaly_enabled() and ng.autograd.is_anomaly_enabled()
        assert not ng.is_anomaly_check_nan_enabled()
        assert not ng.autograd.is_anomaly_check_nan_enabled()
    assert not ng.is_anomaly_enabled() and ng.is_anomaly_check_nan_enabled()
    ng.autograd.set_detect_anomaly(True)
    try:
        assert ng.is_anomaly_enabled()
    finally:
        ng.autograd.set_detect_anomaly(False)
    assert not ng.is_anomaly_enabled()
