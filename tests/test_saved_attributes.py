"""grad_fn._saved_<name> and grad_fn._raw_saved_<name>: a node's saved values under torch's names,
unpacked as a backward unpacks them (freed and version errors), and packed by hooks of their own."""
import tracemalloc

import numpy as np
import pytest

import numgrad as ng


def values(t):
    return t.detach().numpy()


@pytest.fixture(params=[ng.float32, ng.float64], ids=["float32", "float64"])
def dtype(request):
    return request.param


def test_a_saved_leaf_is_the_leaf_and_a_saved_output_a_new_tensor_on_the_node(dtype):
    """The examples of torch's notes on saved tensors."""
    x = ng.tensor([1.0, 2.0], dtype=dtype, requires_grad=True)
    y = x.pow(2)
    assert y.grad_fn._saved_self is x
    e = x.exp()
    saved = e.grad_fn._saved_result
    assert saved is not e and saved.equal(e) and saved.dtype == dtype
    assert saved.grad_fn is e.grad_fn and saved.requires_grad
    np.testing.assert_allclose(values(saved), np.exp([1.0, 2.0]), rtol=1e-6)


def test_a_saved_intermediate_keeps_its_producers_node():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    a = x * 3
    b = a * x
    self_, other = b.grad_fn._saved_self, b.grad_fn._saved_other
    np.testing.assert_array_equal(values(self_), [3.0, 6.0])
    assert self_.grad_fn is a.grad_fn and other is x
    # gradients flow through an unpacked value, as through the tensor it stands for
    g, = ng.autograd.grad(self_.sum(), x)
    np.testing.assert_array_equal(g.numpy(), [3.0, 3.0])


def test_scalars_recorded_on_the_fast_path_are_shown_too(dtype):
    a = ng.tensor(2.0, dtype=dtype, requires_grad=True)
    b = a * a
    assert b.grad_fn._saved_self is a and b.grad_fn._saved_other is a
    t = (a * 0.25).tanh()
    assert t.grad_fn._saved_result.item() == pytest.approx(np.tanh(0.5), rel=1e-6)
    assert t.grad_fn._saved_result.dtype == dtype


def test_torchs_names_for_the_values_of_other_ops():
    m = ng.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    v = ng.tensor([1.0, -1.0], requires_grad=True)
    mm = m @ m.T
    assert mm.grad_fn._saved_self is m
    np.testing.assert_array_equal(values(mm.grad_fn._saved_mat2), [[1, 3], [2, 4]])
    assert (v @ v).grad_fn._saved_tensor is v
    assert (m @ v).grad_fn._saved_vec is v
    indices = m.max(1)[0].grad_fn._saved_indices
    assert indices.dtype == ng.int64 and not indices.requires_grad
    np.testing.assert_array_equal(indices.numpy(), [1, 1])
    condition = ng.where(m > 2, m, 0.0).grad_fn._saved_condition
    assert condition.dtype == ng.bool
    np.testing.assert_array_equal(values(condition), [[False, False], [True, True]])
    p = m ** v
    assert p.grad_fn._saved_self is m and p.grad_fn._saved_exponent is v
    np.testing.assert_allclose(values(p.grad_fn._saved_result), [[1.0, 0.5], [3.0, 0.25]])
    lo, hi = ng.tensor([0.0, 0.0]), ng.tensor([2.0, 3.0])
    clamped = m.clamp(lo, hi).grad_fn
    np.testing.assert_array_equal(values(clamped._saved_min), [0.0, 0.0])
    np.testing.assert_array_equal(values(clamped._saved_max), [2.0, 3.0])
    ac = ng.addcmul(v, m, v, value=2.0).grad_fn
    assert ac._saved_tensor1 is m and ac._saved_tensor2 is v
    lin = ng.nn.functional.linear(m, m, v).grad_fn
    assert lin.name() == "AddmmBackward0" and lin._saved_mat1 is m
    conv = ng.nn.functional.conv2d(m.reshape(1, 1, 2, 2), m.reshape(1, 1, 2, 2)).grad_fn
    np.testing.assert_array_equal(values(conv._saved_weight), [[[[1, 2], [3, 4]]]])


def test_a_value_only_unneeded_derivatives_read_is_not_saved(dtype):
    """torch saves x in `x * c` only when c wants a gradient: else _saved_self is None (before
    and after a backward), its raw value refuses hooks, and a pack hook never sees it."""
    x = ng.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
    c = ng.tensor([2.0, 0.5, -1.0], dtype=dtype)
    m = ng.ones(2, 3, dtype=dtype)
    packed = []
    with ng.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.shape) or t, lambda t: t):
        y = x * c
        z = m @ x
        s = (x * 3).sum()
    assert packed == [(3,), (2, 3)]          # c, and m: what x's two gradients read
    assert y.grad_fn._saved_self is None and y.grad_fn._saved_other.equal(c)
    assert z.grad_fn._saved_vec is None and z.grad_fn._saved_self.equal(m)
    with pytest.raises(RuntimeError, match="with value None is forbidden"):
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    (y.sum() + z.sum() + s).backward()
    np.testing.assert_allclose(values(x.grad), [2.0 + 2 + 3, 0.5 + 2 + 3, -1.0 + 2 + 3])
    assert y.grad_fn._saved_self is None
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn._saved_other


def test_intermediates_scaled_by_constants_are_freed_as_the_forward_goes():
    """(h + 1) * 0.5 saves nothing: twenty steps on 10^6 values hold one 4 MB array at a time
    (the gradient, 0.5^20 everywhere, needs none of them)."""
    x = ng.ones(1_000_000, requires_grad=True)
    tracemalloc.start()
    try:
        h = x
        for _ in range(20):
            h = (h + 1) * 0.5
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held < 10e6, f"{held / 1e6:.0f} MB held: the intermediates were kept"
    h.sum().backward()
    np.testing.assert_array_equal(values(x.grad)[[0, -1]], [0.5 ** 20, 0.5 ** 20])


def test_an_unsaved_value_may_change_in_place():
    """y's gradient needs only the constant 2, so changing a afterwards is no error (torch)."""
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    a = x + 1
    y = a * 2
    a.mul_(3)
    y.sum().backward()
    np.testing.assert_array_equal(values(x.grad), [2.0, 2.0])


@pytest.mark.parametrize("bias", [True, False])
def test_a_linear_layer_keeps_the_input_only_for_the_weights_gradient(bias):
    """torch's addmm keeps mat1 for mat2's gradient and mat2 for mat1's: a layer whose weight is
    frozen keeps no input (and the first layer of a network, whose input needs no gradient,
    keeps no weight)."""
    F = ng.nn.functional
    x = ng.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], requires_grad=True)
    frozen = ng.tensor([[1.0, 0.0, -1.0], [2.0, 1.0, 0.0]])
    b = ng.tensor([0.5, -0.5], requires_grad=True) if bias else None
    packed = []
    with ng.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.shape) or t, lambda t: t):
        h = x * 1
        y = F.linear(h, frozen, b)
    assert packed == [(2, 3)]                # the frozen weight, for h's gradient
    assert (y.grad_fn._saved_mat1 if bias else y.grad_fn._saved_self) is None
    h.mul_(2)                                # h is not saved: no version error
    y.sum().backward()
    np.testing.assert_array_equal(values(x.grad), [[3.0, 1.0, -1.0]] * 2)
    with ng.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.shape) or t, lambda t: t):
        F.linear(x.detach(), frozen.requires_grad_(), b)
    assert packed == [(2, 3), (2, 3)]        # the input, for the weight's gradient


def test_an_unknown_name_is_an_attribute_error():
    y = ng.tensor([1.0], requires_grad=True).exp()
    with pytest.raises(AttributeError, match="'ExpBackward0' object has no attribute "
                                             "'_saved_self'"):
        y.grad_fn._saved_self
    assert not hasattr(y.grad_fn, "_saved_other")
    assert not hasattr((y + y).grad_fn, "_saved_self")     # add saves nothing


def test_reading_a_value_a_backward_freed_raises_torchs_error():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    kept, freed = x.exp(), x.exp()
    kept.sum().backward(retain_graph=True)
    np.testing.assert_allclose(values(kept.grad_fn._saved_result), np.exp([1.0, 2.0]))
    freed.sum().backward()
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second "
                                           r"time \(or directly access saved tensors"):
        freed.grad_fn._saved_result
    with pytest.raises(RuntimeError, match="a second time"):
        freed.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)


def test_reading_a_value_changed_in_place_raises_the_version_error():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    c = x.clone()
    s = c.sin()
    c.add_(1)
    with pytest.raises(RuntimeError) as err:
        s.grad_fn._saved_self
    assert str(err.value) == (
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [numgrad.FloatTensor [2]], which is output 0 of Add, is at version 1; "
        "expected version 0 instead. Hint: enable anomaly detection to find the operation that "
        "failed to compute its gradient, with "
        "numgrad.autograd.set_detect_anomaly(True, check_nan=False).")


def test_raw_saved_hooks_pack_now_and_unpack_at_each_use(dtype):
    calls = []

    def pack(t):
        calls.append(("pack", t.tolist(), t.requires_grad))
        return t * 10          # what the backward will read instead

    def unpack(packed):
        calls.append("unpack")
        return packed

    x = ng.tensor([1.0, 2.0], dtype=dtype, requires_grad=True)
    y = x.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(pack, unpack)
    assert calls == [("pack", [1.0, 2.0], False)]      # torch 2.13 packs the bare data
    np.testing.assert_array_equal(values(y.grad_fn._saved_self), [10.0, 20.0])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [20.0, 40.0])     # 2 * (10 x)
    assert calls[1:] == ["unpack", "unpack"]


def test_a_packed_value_may_change_in_place_and_hooks_are_set_once():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    c = x.clone()
    s = c.sin()
    s.grad_fn._raw_saved_self.register_hooks(lambda t: t.clone(), lambda p: p)
    c.add_(1)                       # the backward reads the packed copy, unchecked, as torch
    s.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([1.0, 2.0]), rtol=1e-6)
    y = x.exp()
    raw = y.grad_fn._raw_saved_result
    raw.register_hooks(lambda t: t, lambda p: p)
    with pytest.raises(RuntimeError, match="^Calling register_hooks on a saved tensor whose "
                                           "hooks have already been set. Hint: only one pair of "
                                           "hooks is allowed at a time.$"):
        raw.register_hooks(lambda t: t, lambda p: p)
    with pytest.raises(TypeError):
        y.grad_fn._raw_saved_result.register_hooks(None, None)


def test_an_output_is_saved_even_when_only_an_unneeded_derivative_reads_it():
    """torch saves an op's result always: x ** c keeps it though only c's derivative reads it, so
    changing the result in place is the version error (torch 2.13's message)."""
    x = ng.tensor([1.0, 2.0], dtype=ng.float64, requires_grad=True)
    c = ng.tensor([2.0, 3.0], dtype=ng.float64)
    packed = []
    with ng.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.shape) or t, lambda t: t):
        x ** c
    assert len(packed) == 3                  # self, exponent and result
    y = x ** c
    assert y.grad_fn._saved_result.equal(y)
    y.add_(1)
    with pytest.raises(RuntimeError, match="which is output 0 of Pow1, is at version 1"):
        y.sum().backward()


def test_dir_lists_the_saved_values_as_torch_does():
    a, b = ng.rand(3, requires_grad=True), ng.rand(3, requires_grad=True)
    saved = lambda node: [name for name in dir(node) if "saved" in name]
    assert saved((a * b).grad_fn) == ["_raw_saved_other", "_raw_saved_self", "_saved_other",
                                      "_saved_self"]
    assert saved(a.exp().grad_fn) == ["_raw_saved_result", "_saved_result"]
    assert saved((a + b).grad_fn) == ["_saved_alpha"]           # its one attribute: no tensor
    assert saved(ng.lerp(a, b, ng.rand(3)).grad_fn) == [
        "_raw_saved_end", "_raw_saved_self", "_raw_saved_weight", "_saved_end", "_saved_self",
        "_saved_weight"]
    assert "name" in dir(a.exp().grad_fn) and "next_functions" in dir(a.exp().grad_fn)


@pytest.mark.parametrize("make, names", [
    (lambda x, t: ng.nn.functional.mse_loss(x, t), ("self", "target")),
    (lambda x, t: ng.nn.functional.huber_loss(x, t), ("self", "target")),
    (lambda x, t: ng.nn.functional.binary_cross_entropy(x / 2, t), ("self", "target")),
    (lambda x, t: ng.dist(x, t), ("self", "other")),
    (lambda x, t: ng.cdist(x, t), ("x1", "x2")),
    (lambda x, t: ng.addmm(t[:, :2], x, t.T), ("mat1", "mat2")),
])
def test_a_composites_node_shows_the_inputs_torchs_node_saves(make, names):
    """A named composite (ops/named.py) saves aliases of its inputs: they read back as the
    tensors themselves, on their own nodes, as torch's saved inputs do."""
    x = ng.tensor([[0.25, 0.5, 0.75], [0.5, 0.125, 1.0]], requires_grad=True)
    t = ng.tensor([[0.0, 1.0, 0.5], [1.0, 0.5, 0.25]])
    node = make(x * 1, t).grad_fn
    first, second = (getattr(node, "_saved_" + name) for name in names)
    assert first.grad_fn.name() in ("MulBackward0", "DivBackward0")   # its producer's node
    np.testing.assert_allclose(first.detach().numpy(), x.detach().numpy() /
                               (2 if first.grad_fn.name() == "DivBackward0" else 1))
    np.testing.assert_array_equal(second.numpy(), (t.T if names[1] == "mat2" else t).numpy())
    assert not second.requires_grad
    assert {"_saved_" + names[0], "_saved_" + names[1]} <= set(dir(node))


def test_a_composites_saved_leaf_is_the_leaf_and_its_change_is_the_version_error():
    x = ng.tensor([1.0, 2.0], requires_grad=True)
    target = ng.tensor([0.0, 0.0])
    node = ng.nn.functional.mse_loss(x, target).grad_fn
    assert node._saved_self is x
    target.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        node._saved_target
