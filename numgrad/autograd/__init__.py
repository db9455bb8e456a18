"""numgrad.autograd: backward, grad, custom Functions, and tools to see inside the engine."""
from .api import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from . import functional, graph  # noqa: I001  (modules: autograd.functional.jacobian, ...)
from .anomaly import (detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled,
                      set_detect_anomaly)
from .trace import trace
from ..grad_mode import (enable_grad, inference_mode, no_grad, set_grad_enabled,
                         set_multithreading_enabled)
from .. import grad_mode  # noqa: I001  (torch.autograd.grad_mode)
from . import anomaly as anomaly_mode  # torch.autograd.anomaly_mode
from . import variable
from .variable import Variable

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "gradcheck",
           "gradgradcheck", "GradcheckError", "functional", "graph", "trace", "detect_anomaly",
           "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "no_grad",
           "enable_grad", "set_grad_enabled", "inference_mode", "set_multithreading_enabled",
           "Variable"]
