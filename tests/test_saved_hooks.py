"""autograd.graph.saved_tensors_hooks: what the graph keeps of saved tensors, chosen by the user.

Expected values are torch 2.13's for the same programs."""
import numpy as np
import pytest

import numgrad as ng
from numgrad.autograd.graph import (allow_mutation_on_saved_tensors, disable_saved_tensors_hooks,
                                    save_on_cpu, saved_tensors_hooks)


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_pack_runs_per_saved_tensor_and_unpack_per_backward(dtype):
    log = []

    def pack(t):
        log.append(("pack", tuple(t.shape), t.grad_fn.name() if t.grad_fn else None))
        return t * 2            # what the graph keeps; recorded, not packed again

    def unpack(p):
        log.append(("unpack", tuple(p.shape)))
        return p

    x = ng.tensor([1., 2., 3.], dtype=dtype, requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        w = (x * x).exp().sum()      # mul saves x twice, exp its result
    assert log == [("pack", (3,), None), ("pack", (3,), None), ("pack", (3,), "ExpBackward0")]
    log.clear()
    w.backward(retain_graph=True)
    assert log == [("unpack", (3,))] * 3
    # d/dx with every saved value doubled: 8 x exp(x^2)
    expected = np.array([2.1746e+01, 8.7357e+02, 1.9447e+05])
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-4)
    assert x.grad.dtype == dtype
    w.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * expected, rtol=1e-4)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        w.backward()


def test_packed_values_replace_what_the_tape_keeps_for_scalars_too():
    x = ng.tensor(2., requires_grad=True)
    with saved_tensors_hooks(lambda t: t.item(), lambda v: ng.tensor(v)):
        y = (x * x).sin()
    y.backward()
    np.testing.assert_allclose(x.grad.item(), -2.6146, rtol=1e-4)     # 2 x cos(x^2)


def test_an_unpacked_value_takes_the_saved_tensors_place_under_create_graph():
    x = ng.tensor([1., 2., 3.], dtype=ng.float64, requires_grad=True)
    with saved_tensors_hooks(lambda t: t * 2, lambda t: t):
        y = (x * x).exp().sum()
    (g,) = ng.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [2.1746e+01, 8.7357e+02, 1.9447e+05], rtol=1e-4)
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [9.7858e+01, 7.2070e+03, 2.3661e+06], rtol=1e-4)


@pytest.mark.parametrize("hooks", [(lambda t: t, lambda t: t),
                                   (lambda t: t.detach().clone(), lambda t: t),
                                   (lambda t: t.tolist(), lambda v: ng.tensor(v, dtype=ng.float64))])
def test_hooks_that_keep_the_values_change_no_derivative(hooks):
    x = ng.tensor([1., 2., 3.], dtype=ng.float64, requires_grad=True)
    with saved_tensors_hooks(*hooks):
        y = (x * x).exp().sum() + (x.sin() * x).sum()
    (g,) = ng.autograd.grad(y, x, create_graph=True)
    g.sum().backward()
    np.testing.assert_allclose(g.detach().numpy(), [6.818336947594126, 218.46960388630833,
                                                    48615.67470797057], rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), [16.548824597682653, 980.1158120698506,
                                                307914.7859028473], rtol=1e-12)


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_where_and_masked_fill_pack_their_mask_as_a_bool_tensor(dtype):
    """torch saves where's condition and masked_fill's mask, as the bool tensors they are; a
    composite's own masks (tril's triangle) are not torch's to save."""
    x = ng.tensor([1.0, -2.0, 3.0], dtype=dtype, requires_grad=True)
    mask = x.detach() > 0
    packed = []

    def pack(t):
        packed.append((tuple(t.shape), t.dtype))
        return ~t if t.dtype == ng.bool else t      # the backward reads what unpack gives

    with saved_tensors_hooks(pack, lambda t: t):
        y = ng.where(mask, x * 3, -x).sum() + x.masked_fill(mask, 0.0).sum()
        ng.tril(x.view(3, 1) * 1).sum()
    assert packed == [((3,), ng.bool), ((3,), ng.bool)]
    (g,) = ng.autograd.grad(y, x, create_graph=True)
    # the masks came back inverted: where takes 3x at 1 and -x elsewhere, masked_fill zeroes 1
    np.testing.assert_array_equal(g.detach().numpy(), [0.0, 3.0 + 0.0, 0.0])
    assert g.dtype == dtype


def test_custom_function_saved_tensors_are_packed():
    log = []

    class Twice(ng.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a, a * 1.0)
            return a * a

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return a * g + b * g

    x = ng.tensor([1., 2.], requires_grad=True)
    with saved_tensors_hooks(lambda t: log.append("pack") or t.tolist(),
                             lambda v: log.append("unpack") or ng.tensor(v) * 10):
        z = Twice.apply(x)
    z.sum().backward()
    assert log == ["pack", "pack", "unpack", "unpack"]
    np.testing.assert_array_equal(x.grad.numpy(), [20., 40.])


def test_errors_and_disabling():
    with saved_tensors_hooks(lambda t: t, lambda t: 5):
        x = ng.tensor([1., 2.], requires_grad=True)
        y = (x * x).sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got result of "
                                        "type int"):
        y.backward()
    assert x.grad is None
    with disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):       # usable again after the block
        y = (x * x).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2., 4.])


def test_save_on_cpu_keeps_host_values():
    x = ng.tensor([1., 2.], requires_grad=True)
    with save_on_cpu():
        y = (x * x * x).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3., 12.])


@pytest.mark.parametrize("dtype", [ng.float32, ng.float64])
def test_allow_mutation_on_saved_tensors_reads_values_as_saved(dtype):
    """torch's examples: inside the block, changing a saved tensor in place is no error and the
    backward reads it as it was; an unchanged one still carries gradients (double backward)."""
    with allow_mutation_on_saved_tensors() as ctx:
        assert ctx is not None
        a = ng.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()                                    # without the block: the version error
        out.backward()
        np.testing.assert_allclose(a.grad.numpy(), [2.0, 4.0, 6.0])     # 2 b, b as saved
        w = ng.tensor([1.0, -2.0], dtype=dtype, requires_grad=True)
        loss = (w * w * w).sum()
        with ng.no_grad():
            w.mul_(10.0)                            # a leaf, changed after it was saved
        loss.backward()
        np.testing.assert_allclose(w.grad.numpy(), [3.0, 12.0])        # 3 w^2 of the old w
        x = ng.tensor([0.5, 1.5], dtype=dtype, requires_grad=True)
        g, = ng.autograd.grad((x * x * x).sum(), x, create_graph=True)
        gg, = ng.autograd.grad(g.sum(), x)
        np.testing.assert_allclose(gg.numpy(), [3.0, 9.0])              # 6 x
        assert g.dtype == gg.dtype == dtype


def test_allow_mutation_on_saved_tensors_errors():
    with allow_mutation_on_saved_tensors():
        x = ng.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
    with pytest.raises(RuntimeError, match="backward outside of the 'allow_mutation_on_saved"):
        y.backward()
    assert x.grad is None
    with allow_mutation_on_saved_tensors():
        with pytest.raises(RuntimeError, match="contexts cannot be nested"):
            with allow_mutation_on_saved_tensors():
                pass
        z = (x * x).sum()
        z.backward()                                 # the outer block still works
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])
    c = x.detach().clone().requires_grad_()
    d = (c * c).sum()
    with ng.no_grad():
        c.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        d.backward()                                # outside any block: torch's version error
