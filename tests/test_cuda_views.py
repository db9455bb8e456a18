"""In-place ops through views on the GPU (Note [device views] in numgrad/ops/views.py): each
program runs once on CPU tensors and once on CUDA tensors, and every value, gradient, node name,
version and error must agree. Without a GPU this runs in numba-cuda's simulator."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.cuda

pytestmark = pytest.mark.skipif(not numgrad.cuda.is_available(),
                                reason="needs numba-cuda and a GPU or its simulator")


def _host(t):
    return t.detach().cpu().numpy()


def _write_through_row(dev):
    x = ng.zeros(2, 3, device=dev)
    row = x[0]
    row.add_(1.5)
    return [x, row]


def _write_through_chain_of_views(dev):
    x = ng.arange(12.0, device=dev).reshape(3, 4)
    flat = x.view(-1)
    flat[2:7].mul_(-1)
    col = x[:, 1]
    col.fill_(9)
    return [x, flat, col]


def _write_base_then_read_views(dev):
    x = ng.arange(6.0, device=dev).reshape(2, 3)
    t, row, last = x.t(), x[1], x.view(-1)[-2:]
    x.mul_(10)
    x[0, 0] = -3
    return [x, t, row, last]


def _setitem_and_copy_through_views(dev):
    x = ng.zeros(4, 4, device=dev)
    block = x[1:3, 1:3]
    block[0] = ng.tensor([1.0, 2.0], device=dev)
    block.t()[1].copy_(ng.tensor([7.0, 8.0], device=dev))
    parts = x.split(2)
    return [x, block, parts[0]]


@pytest.mark.parametrize("program", [_write_through_row, _write_through_chain_of_views,
                                     _write_base_then_read_views, _setitem_and_copy_through_views])
def test_device_views_see_every_write_as_host_views_do(program):
    for host, device in zip(program("cpu"), program("cuda")):
        np.testing.assert_array_equal(_host(device), _host(host))
        assert device._version == host._version


def _recorded(dev):
    a = ng.tensor([[1.0, 2.0], [3.0, 4.0]], device=dev, requires_grad=True)
    w = ng.tensor(3.0, device=dev, requires_grad=True)
    b = a * 1
    view = b[0]
    view.mul_(w)
    col = b[:, 1]
    (b.sum() + (col * col).sum()).backward()
    return b, view, col, a.grad, w.grad


def test_recorded_inplace_through_a_device_view_matches_the_host():
    host, device = _recorded("cpu"), _recorded("cuda")
    for h, d in zip(host, device):
        np.testing.assert_allclose(_host(d), _host(h), rtol=1e-6)
    assert device[0].grad_fn.name() == host[0].grad_fn.name() == "torch::autograd::CopySlices"
    assert device[1].grad_fn.name() == host[1].grad_fn.name() == "AsStridedBackward0"
    # loss = sum(b) + b01^2 + b11^2 with b0 = a0 * w: by hand
    np.testing.assert_allclose(_host(device[3]), [[3.0, 3.0 * (1 + 2 * 6.0)], [1.0, 1 + 2 * 4.0]])
    np.testing.assert_allclose(_host(device[4]), 1.0 + 2.0 * (1 + 2 * 6.0))


def test_device_view_refusals_match_the_host():
    for dev in ("cpu", "cuda"):
        leaf = ng.ones(3, device=dev, requires_grad=True)
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
            leaf[1:].mul_(2)
        x = ng.zeros(1, 3, device=dev)
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            x.expand(4, 3).add_(1)
        np.testing.assert_array_equal(_host(x), np.zeros((1, 3)))
        x.expand(4, 3).fill_(2.0)           # torch's fill kernel writes one number: allowed
        np.testing.assert_array_equal(_host(x), np.full((1, 3), 2.0))
        np.testing.assert_array_equal(_host(leaf), np.ones(3))
