"""CrossMapLRN2d: Lua torch's local response normalisation across channels, as torch keeps it.

torch runs it as a Python autograd.Function (its node is CrossMapLRN2dBackward) with a forward
and a backward written by hand, and both have quirks that users see, so they are copied here
step for step rather than derived:
- the forward's running window sum adds channel c + pre_pad - 1 and removes channel c - pre_pad
  only for c > pre_pad: channel 0 never leaves the sum once the window has passed it;
- the backward sums the ratios grad * output / scale over a window shifted from the forward's,
  so it is not the exact gradient of the forward;
- the backward writes into `out=` buffers, which torch refuses under create_graph.

>>> import numgrad as ng
>>> ng.nn.CrossMapLRN2d(3, alpha=1.0, beta=1.0, k=1.0)(ng.ones(1, 2, 1, 1))
tensor([[[[0.6000]],
<BLANKLINE>
         [[0.6000]]]])
"""
import numpy as np

from .. import grad_mode
from ..autograd.function import Function
from ..ops.untracked import to_host
from ..tensor import Tensor
from .module import Module


def _scale(square, size, alpha, k):
    """k + alpha / size * (each channel's window sum of squares), torch's running sum."""
    channels = square.shape[1]
    pre_pad = int((size - 1) / 2 + 1)
    scale = np.zeros_like(square)
    for c in range(min(pre_pad, channels)):
        scale[:, 0] += square[:, c]
    for c in range(1, channels):
        scale[:, c] = scale[:, c - 1]
        if c < channels - pre_pad + 1:
            scale[:, c] += square[:, c + pre_pad - 1]
        if c > pre_pad:
            scale[:, c] -= square[:, c - pre_pad]
    return scale * square.dtype.type(alpha / size) + square.dtype.type(k)


class _CrossMapLRN2dFunction(Function):
    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             f"instead.")
        if input.shape[1] == 0:
            raise IndexError(f"select(): index 0 out of range for tensor of size "
                             f"{list(input.shape)} at dimension 1")
        data = to_host(input._data)
        if not np.issubdtype(data.dtype, np.floating):
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{input.type().split('.')[-1].replace('Tensor', '')}")
        scale = _scale(data * data, size, alpha, k)
        output = Tensor._make(scale ** data.dtype.type(-beta) * data, False)
        ctx.size, ctx.alpha, ctx.beta, ctx.k, ctx.scale = size, alpha, beta, k, scale
        ctx.save_for_backward(input, output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        if grad_mode.is_grad_enabled():
            # torch's backward multiplies into out= buffers, which autograd cannot record
            raise RuntimeError("mul(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        input, output = (to_host(t._data) for t in ctx.saved_tensors)
        grad = to_host(grad_output._data)
        size, scale = ctx.size, ctx.scale
        channels = input.shape[1]
        kind = input.dtype.type
        # the ratios sit at offset size - (size - 1) / 2 of a zero-padded channel axis, and
        # channel c reads the `size` of them from c on
        offset = int(size - (size - 1) / 2)
        if offset > size - 1:
            # size 1: torch's narrow of the padded axis runs past its end
            raise RuntimeError(f"start ({offset}) + length ({channels}) exceeds dimension size "
                               f"({channels + size - 1}).")
        padded = np.zeros((input.shape[0], channels + size - 1) + input.shape[2:], input.dtype)
        padded[:, offset:offset + channels] = grad * output / scale
        accum = padded[:, :size - 1].sum(1)
        grad_input = scale ** kind(-ctx.beta) * grad
        factor = kind(2 * ctx.alpha * ctx.beta / size)
        for c in range(channels):
            accum += padded[:, c + size - 1]
            grad_input[:, c] -= factor * input[:, c] * accum
            accum -= padded[:, c]
        return Tensor._make(grad_input, False), None, None, None, None


# torch's Function class is itself called CrossMapLRN2d, which names the node
_CrossMapLRN2dFunction.__name__ = "CrossMapLRN2d"


class CrossMapLRN2d(Module):
    """Local response normalisation of (N, C, H, W) inputs across `size` neighbouring channels:
    x / (k + alpha / size * sum of x^2) ** beta, with torch's own forward and backward."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
