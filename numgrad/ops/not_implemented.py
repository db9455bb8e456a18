"""Ops that torch records without a derivative: their node is torch's NotImplemented, whose
backward raises (x // y, a number % x, heaviside). Recording it keeps the graph torch's: the result
requires grad, and a backward that reaches it fails as torch's does instead of giving zeros."""
from ..autograd.function import Function


class NotImplemented_(Function):
    @staticmethod
    def forward(ctx, op_name, compute, *args):
        ctx.node_name = "NotImplemented"      # its name() is torch::autograd::NotImplemented
        ctx.op_name = op_name
        return compute(*args)

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(f"derivative for aten::{ctx.op_name} is not implemented")


def without_derivative(op_name, compute, *args):
    """compute(*args) (numgrad ops, run without recording), recorded as torch records the aten op
    `op_name`, which has no derivative formula."""
    return NotImplemented_.apply(op_name, compute, *args)
