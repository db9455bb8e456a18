"""Muon: momentum SGD for 2-D parameters whose update is orthogonalised by a Newton-Schulz
iteration (Jordan et al., 2024; torch.optim.Muon)."""
import math

import numpy as np

from .. import as_tensor, zeros_like
from ..ops.untracked import to_host
from .optimizer import Optimizer, plain

_ADJUST_LR_FNS = (None, "original", "match_rms_adamw")


class Muon(Optimizer):
    """torch's Muon: the momentum buffer (Nesterov by default) is orthogonalised by ns_steps
    Newton-Schulz steps with the quintic coefficients ns_coefficients, in bfloat16 as torch's
    (each of its roundings emulated on the host; on large matrices torch's summation order can
    round a value the other way), then applied with the lr scaled for the parameter's shape,
    after decoupled weight decay. Other parameters (biases, embeddings) belong in another
    optimizer.

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.tensor([[3.0, 0.0], [0.0, 1.0]]))
    >>> opt = ng.optim.Muon([w], lr=0.1, weight_decay=0.0)
    >>> w.grad = ng.tensor([[2.0, 0.0], [0.0, 1.0]])
    >>> opt.step()
    >>> w
    Parameter containing:
    tensor([[2.9309, 0.0000],
            [0.0000, 0.8883]], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.7750, 2.0315), eps=1e-7, ns_steps=5,
                 adjust_lr_fn=None):
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in _ADJUST_LR_FNS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:     # torch checks the constructor's groups only
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _step_parameter(self, p, state, group):
        param, grad = plain(p)
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = zeros_like(grad)
        buffer, momentum = state["momentum_buffer"], group["momentum"]
        buffer.lerp_(grad, 1 - momentum)
        update = grad.lerp(buffer, momentum) if group["nesterov"] else buffer
        orthogonal = _newton_schulz(to_host(update._data), group["ns_coefficients"],
                                    group["ns_steps"], group["eps"])
        lr = float(group["lr"])
        param.mul_(1 - lr * group["weight_decay"])
        param.add_(as_tensor(orthogonal, dtype=param.dtype, device=param.device),
                   alpha=-lr * _lr_ratio(group["adjust_lr_fn"], param.shape))
        return param._version   # its in-place writes, which step counts on p


def _lr_ratio(adjust_lr_fn, shape):
    """torch's scaling of the lr for a (rows, columns) parameter."""
    rows, columns = shape[:2]
    if adjust_lr_fn in (None, "original"):
        return math.sqrt(max(1, rows / columns))
    return 0.2 * math.sqrt(max(rows, columns))


def _newton_schulz(grad, coefficients, steps, eps):
    """torch's _zeropower_via_newtonschulz on a host array: X <- a X + (b G + c G^2) X with
    G = X X^T, from X = grad / |grad| (the wide orientation), every result rounded to bfloat16 as
    torch's bfloat16 ops round theirs. The arithmetic runs in float64 (exact for products of
    bfloat16 values), closer to torch's fused float32 kernels than float32 steps. Returns
    float32 values."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    tall = grad.shape[0] > grad.shape[1]
    x = _bfloat16(grad.T if tall else grad).astype(np.float64)
    norm = _bfloat16(np.sqrt(np.sum(x * x)))
    x = _bfloat16(x / max(norm, _bfloat16(eps))).astype(np.float64)
    for _ in range(steps):
        gram = _bfloat16(x @ x.T).astype(np.float64)
        update = _bfloat16(b * gram + c * (gram @ gram)).astype(np.float64)
        x = _bfloat16(a * x + update @ x).astype(np.float64)
    return (x.T if tall else x).astype(np.float32)


def _bfloat16(values):
    """values rounded to the nearest bfloat16 (ties to even), as float32: the 16 bits below
    bfloat16's mantissa rounded away. Float64 values go through float32 first, as torch's
    conversion does (two roundings)."""
    values = np.asarray(values, dtype=np.float32)
    bits = values.view(np.uint32).astype(np.uint64)
    bits = (bits + ((bits >> 16) & 1) + 0x7FFF) >> 16 << 16
    rounded = bits.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(values), np.float32(np.nan), rounded)   # NaN's bits may carry
