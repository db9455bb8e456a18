"""The fused nn primitives (numgrad/ops/nn_ops.py) beyond the generated checks that
test_ops_table.py runs on their samples (tests/nn_samples.py)."""
import numpy as np

import numgrad as ng
from numgrad.ops import nn_ops


def test_kernels_accumulate_when_an_input_is_used_twice():
    """linear(x, x) and conv2d sharing a tensor: the second contribution adds (Note [write then
    add] in abi.py), in the compiled kernels as in the VJPs."""
    x = ng.randn(3, 3, dtype=ng.float64, requires_grad=True)
    for create_graph in (False, True):
        (g,) = ng.autograd.grad(nn_ops.linear(x, x, x[0]).sum(), [x], create_graph=create_graph)
        ones = np.ones((3, 3))
        want = ones @ x.detach().numpy() + ones.T @ x.detach().numpy()
        want[0] += 3                        # the bias x[0] collects the column sums of g
        np.testing.assert_allclose(g.detach().numpy(), want)
