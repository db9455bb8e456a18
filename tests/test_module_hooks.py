"""nn.utils' parameter vectors and gradient clipping, and the anomaly-mode queries. Expected
values were computed with torch 2.13 in float64 on the same values and pasted here."""
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
