"""Ops against torch 2.13, session 18: empty dim lists, linalg nodes, double-backward graphs
and argument errors. torch is not imported: its results are written out as it gives them."""
import warnings

import numpy as np
import pytest

import numgrad as ng

X = np.array([[0.5, -1.0, 2.0, 0.25], [1.5, -0.5, 0.0, 3.0], [-2.0, 1.0, 0.75, -0.25]])


# ---- var / std over an empty dim list -----------------------------------------------------------
@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
def test_var_over_empty_dim_list_reduces_all_but_its_backward_counts_one_element(name):
    # torch 2.13: the value is over all 12 elements, but var_backward scales by
    # 2 / (1 - correction): inf with Bessel's correction, 2 with correction=0
    x = ng.tensor(X, requires_grad=True)
    out = getattr(ng, name)(x, dim=())
    out = out[0] if isinstance(out, tuple) else out
    assert out.shape == ()
    np.testing.assert_allclose(out.item(), np.var(X, ddof=1) ** (0.5 if "std" in name else 1))
    out.backward()
    centred = X - X.mean()
    np.testing.assert_array_equal(x.grad.numpy(), np.sign(centred) * np.inf)
    x = ng.tensor(X, requires_grad=True)
    out = getattr(ng, name)(x, dim=[], correction=0, keepdim=True)
    out = out[0] if isinstance(out, tuple) else out
    assert out.shape == (1, 1)
    out.backward()
    want = 2 * centred if name.startswith("var") else centred / np.sqrt(np.var(X))
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-14)
