"""numgrad.utils.checkpoint: activation checkpointing, both variants, against torch 2.13.

Expected values and messages are torch 2.13's for the same programs; checkpointed gradients must
equal the plain ones exactly (the same ops run again, from the same random state)."""
import warnings

import numpy as np
import pytest

import numgrad as ng
from numgrad.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
Y = [1.0, -2.0, 0.5]
VARIANTS = [True, False]


def _xy():
    return (ng.tensor(X, dtype=ng.float64, requires_grad=True),
            ng.tensor(Y, dtype=ng.float64, requires_grad=True))


def _f(a, b, scale=1.0):
    return (a * b).sin().exp() * scale


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_gradients_match_torch_with_kwargs(use_reentrant):
    x, y = _xy()
    if use_reentrant:
        out = checkpoint(lambda a, b: _f(a, b, 2.0), x, y, use_reentrant=True)
    else:
        out = checkpoint(_f, x, y, scale=2.0, use_reentrant=False)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[2.8348484493187827, 4.132467471983339,
                                                  1.253380767493447],
                                                 [0.3836051591318624, -2.1733822225851633,
                                                  0.645133800658248]], rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), [1.992831963357185, 2.337906513814815,
                                                4.045822368986416], rtol=1e-12)


def test_use_reentrant_must_be_passed_or_it_warns_and_defaults_to_reentrant():
    x, _ = _xy()
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed "
                                         "explicitly. Starting in PyTorch 2.9"):
        out = checkpoint(lambda a: a.sin(), x)
    assert out.grad_fn.name() == "CheckpointFunctionBackward"
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant parameter"):
        checkpoint_sequential([lambda a: a.sin(), lambda a: a.cos()], 2, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(lambda a: a.sin(), x, use_reentrant=False)


def _model(p):
    ng.manual_seed(0)
    return ng.nn.Sequential(ng.nn.Linear(4, 6), ng.nn.Tanh(), ng.nn.Dropout(p), ng.nn.Linear(6, 3),
                            ng.nn.ReLU(), ng.nn.Linear(3, 2))


def _grads(run, p=0.3, dtype=ng.float32):
    net = _model(p).to(dtype)
    ng.manual_seed(7)
    x = ng.randn(5, 4, dtype=dtype, requires_grad=True)
    out = run(net, x)
    (out ** 2).sum().backward()
    return [out.detach().numpy(), x.grad.numpy()] + [q.grad.numpy() for q in net.parameters()]


@pytest.mark.parametrize("use_reentrant", VARIANTS)
@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_sequential_model_with_dropout_gets_exactly_the_plain_gradients(use_reentrant, dtype):
    plain = _grads(lambda net, x: net(x), dtype=dtype)
    for run in (lambda net, x: checkpoint(net, x, use_reentrant=use_reentrant),
                lambda net, x: checkpoint_sequential(net, 3, x, use_reentrant=use_reentrant),
                lambda net, x: checkpoint_sequential(list(net), 2, x,
                                                     use_reentrant=use_reentrant)):
        for a, b in zip(plain, _grads(run, dtype=dtype)):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_without_preserved_rng_state_the_rerun_draws_other_masks(use_reentrant):
    plain = _grads(lambda net, x: net(x), p=0.5)
    other = _grads(lambda net, x: checkpoint(net, x, use_reentrant=use_reentrant,
                                             preserve_rng_state=False), p=0.5)
    np.testing.assert_array_equal(plain[0], other[0])      # the forward itself is the same
    assert not all(np.array_equal(a, b) for a, b in zip(plain[1:], other[1:]))


def test_the_rerun_leaves_the_callers_random_state_alone():
    x, _ = _xy()
    out = checkpoint(lambda a: ng.nn.functional.dropout(a, 0.5), x, use_reentrant=False)
    state = ng.get_rng_state()
    out.sum().backward()
    np.testing.assert_array_equal(ng.get_rng_state().numpy(), state.numpy())


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_non_tensor_arguments_and_outputs_pass_through(use_reentrant):
    x, _ = _xy()
    out, tag, n = checkpoint(lambda a, k, s: (a.pow(k) * 3, s, k), x, 3, "s",
                             use_reentrant=use_reentrant)
    assert (tag, n) == ("s", 3)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 9 * np.array(X) ** 2)


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_one_of_two_outputs_used(use_reentrant):
    x, _ = _xy()
    a, b = checkpoint(lambda t: (t.sin(), t.exp()), x, use_reentrant=use_reentrant)
    a.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(X), rtol=1e-12)


def test_reentrant_refuses_autograd_grad_and_backward_inputs():
    message = ("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
               "passing an `inputs` parameter to .backward(). To resolve this error, you can "
               "either set use_reentrant=False, or call .backward() without passing the `inputs` "
               "argument.")
    x, y = _xy()
    out = checkpoint(_f, x, y, use_reentrant=True)
    with pytest.raises(RuntimeError) as err:
        ng.autograd.grad(out.sum(), x)
    assert str(err.value) == message
    with pytest.raises(RuntimeError) as err:
        checkpoint(_f, x, y, use_reentrant=True).sum().backward(inputs=[x])
    assert str(err.value) == message


def test_non_reentrant_works_with_autograd_grad_inputs_and_create_graph():
    x, y = _xy()
    out = checkpoint(_f, x, y, use_reentrant=False)
    gx, = ng.autograd.grad(out.sum(), x)
    plain, = ng.autograd.grad(_f(x, y).sum(), x)
    np.testing.assert_array_equal(gx.numpy(), plain.numpy())
    checkpoint(_f, x, y, use_reentrant=False).sum().backward(inputs=[x])
    assert y.grad is None
    np.testing.assert_array_equal(x.grad.numpy(), plain.numpy())
    x.grad = None
    g, = ng.autograd.grad(checkpoint(lambda a: a.sin().exp() * a, x, use_reentrant=False).sum(),
                          x, create_graph=True)
    g2, = ng.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), [[2.3238584087717795, 0.19816462050747838,
                                                     0.4163439920233314],
                                                    [2.999184887031056, 1.590917009735984,
                                                     0.22822816397732187]], rtol=1e-12)
    np.testing.assert_allclose(g2.numpy(), [[3.06963064895165, -0.022757773176957388,
                                             -5.721180183149327],
                                            [-3.6530765563564453, 2.7031295244525526,
                                             0.2784978063256089]], rtol=1e-12)


def test_reentrant_backward_with_create_graph_gives_a_grad_without_graph():
    x, _ = _xy()
    with pytest.warns(UserWarning, match="reference cycle"):
        checkpoint(lambda a: a.sin(), x, use_reentrant=True).sum().backward(create_graph=True)
    assert not x.grad.requires_grad          # torch: the inner backward records nothing
    x.grad = None
    checkpoint(lambda a: a.sin(), x, use_reentrant=False).sum().backward(create_graph=True)
    assert x.grad.requires_grad


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_retain_graph_reruns_per_backward_and_a_third_backward_fails(use_reentrant):
    calls = []

    def f(a):
        calls.append(1)
        return a.sin().exp()

    x, _ = _xy()
    out = checkpoint(f, x, use_reentrant=use_reentrant).sum()
    out.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * first)
    assert len(calls) == 3                   # the forward and one rerun per backward
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.backward()


@pytest.mark.parametrize("use_reentrant", VARIANTS)
def test_under_no_grad_or_without_inputs_needing_grad(use_reentrant):
    x, _ = _xy()
    with ng.no_grad():
        assert not checkpoint(lambda a: a.sin(), x, use_reentrant=use_reentrant).requires_grad
    plain = ng.tensor(X)
    if use_reentrant:
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True. "
                                             "Gradients will be None"):
            out = checkpoint(lambda a: a.sin(), plain, use_reentrant=True)
    else:
        out = checkpoint(lambda a: a.sin(), plain, use_reentrant=False)
    assert not out.requires_grad


def test_an_input_changed_in_place_before_backward_is_an_error():
    for use_reentrant in VARIANTS:
        x, _ = _xy()
        y = x * 1
        out = checkpoint(lambda a: a.sin().exp(), y, use_reentrant=use_reentrant)
        with ng.no_grad():
            y.mul_(2)
        with pytest.raises(RuntimeError, match=r"modified by an inplace operation: "
                                               r"\[numgrad.DoubleTensor \[2, 3\]\], which is "
                                               r"output 0 of Mul, is at version 1; expected "
                                               r"version 0 instead"):
            out.sum().backward()


def test_non_reentrant_determinism_checks():
    def changing():
        state = {"n": 0}

        def f(a):
            state["n"] += 1
            return a.sin() if state["n"] == 1 else a[:1].sin()
        return f

    x, _ = _xy()
    out = checkpoint(changing(), x, use_reentrant=False)
    with pytest.raises(CheckpointError) as err:
        out.sum().backward()
    assert str(err.value).startswith(
        "torch.utils.checkpoint: Recomputed values for the following tensors have different "
        "metadata than during the forward pass.\ntensor at position 0:\nsaved metadata: "
        "{'shape': numgrad.Size([2, 3]), 'dtype': numgrad.float64, 'device': device(type='cpu')}"
        "\nrecomputed metadata: {'shape': numgrad.Size([1, 3]), 'dtype': numgrad.float64, "
        "'device': device(type='cpu')}\n.\n\nTip: To see a more detailed error message")
    out = checkpoint(lambda a: a.sin(), x, use_reentrant=False, determinism_check="none")
    out.sum().backward()
    with pytest.raises(ValueError, match=r"determinism_check should be one of \['default', "
                                         r"'none'\], but got x"):
        checkpoint(lambda a: a.sin(), x, use_reentrant=False, determinism_check="x")

    def fewer():
        state = {"n": 0}

        def f(a):
            state["n"] += 1
            return a.sin().exp() if state["n"] == 1 else a + 1
        return f

    with pytest.raises(CheckpointError, match="A different number of tensors was saved during the "
                                              "original forward and recomputation.\nNumber of "
                                              "tensors saved during forward: 2\nNumber of tensors "
                                              "saved during recomputation: 0."):
        checkpoint(fewer(), x, use_reentrant=False).sum().backward()

    def more():         # the rerun stops once it has what the forward saved (early stop)
        state = {"n": 0}

        def f(a):
            state["n"] += 1
            return a.sin() if state["n"] == 1 else a.sin().exp().sum()
        return f

    checkpoint(more(), x, use_reentrant=False).sum().backward()


def test_argument_errors():
    x, _ = _xy()
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: foo$"):
        checkpoint(lambda a: a, x, use_reentrant=True, foo=1)
    with pytest.raises(ValueError, match="Passing `context_fn` or `debug` is only supported when "
                                         "use_reentrant=False."):
        checkpoint(lambda a: a, x, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: foo$"):
        checkpoint_sequential([lambda a: a], 1, x, use_reentrant=False, foo=2)


def test_context_fn_runs_the_forward_and_the_rerun_in_their_contexts():
    import contextlib
    log = []

    @contextlib.contextmanager
    def ctx(name):
        log.append(name)
        yield

    x, _ = _xy()
    out = checkpoint(lambda a: a.sin(), x, use_reentrant=False,
                     context_fn=lambda: (ctx("forward"), ctx("recompute")))
    out.sum().backward()
    assert log == ["forward", "recompute"]


def test_nested_non_reentrant_checkpoints():
    x, y = _xy()
    out = checkpoint(lambda a, b: checkpoint(_f, a, b, use_reentrant=False).cos(), x, y,
                     use_reentrant=False)
    out.sum().backward()
    plain_x, plain_y = ng.autograd.grad(_f(x, y).cos().sum(), (x, y))
    np.testing.assert_array_equal(x.grad.numpy(), plain_x.numpy())
    np.testing.assert_array_equal(y.grad.numpy(), plain_y.numpy())


def test_the_region_keeps_no_activations():
    # the recorded nodes of the region hold holders, not arrays: the tape keeps only x
    x = ng.randn(1000, dtype=ng.float64, requires_grad=True)
    out = checkpoint(lambda a: a.sin().exp().tanh(), x, use_reentrant=False)
    assert out.grad_fn._seg.saved_bytes == 0
    out.sum().backward()
    np.testing.assert_allclose(
        x.grad.numpy(), ng.autograd.grad(x.sin().exp().tanh().sum(), x)[0].numpy())


def test_hook_handle_is_torch_utils_hooks_removable_handle():
    from numgrad.utils.hooks import RemovableHandle
    x, _ = _xy()
    handle = x.register_hook(lambda g: g * 2)
    assert isinstance(handle, RemovableHandle)
    handle.remove()
