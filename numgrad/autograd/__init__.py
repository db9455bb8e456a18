"""numgrad.autograd: backward, grad, custom Functions."""
from .api import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "gradcheck",
           "gradgradcheck", "GradcheckError"]
