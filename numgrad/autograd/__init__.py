"""numgrad.autograd: backward, grad, custom Functions."""
from .api import backward, grad
from .function import Function, FunctionCtx, once_differentiable

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable"]
