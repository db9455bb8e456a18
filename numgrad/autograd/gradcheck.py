"""gradcheck and gradgradcheck: analytical gradients against float64 central differences."""
import numpy as np

from ..tensor import Tensor
from .api import grad as _grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck when an analytical gradient disagrees with the numerical one."""


def _as_tuple(x):
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _differentiable_outputs(fn, inputs):
    outputs = _as_tuple(fn(*inputs))
    return [o for o in outputs if isinstance(o, Tensor) and o.requires_grad]


def _numerical_jacobian(fn, inputs, wrt, output_index, eps):
    """d output / d inputs[wrt] by central differences, as (output numel, input numel)."""
    x = inputs[wrt]
    flat = x._data.reshape(-1)
    out0 = _as_tuple(fn(*inputs))[output_index]._data
    jac = np.zeros((out0.size, flat.size))
    for i in range(flat.size):
        original = flat[i]
        flat[i] = original + eps
        plus = _as_tuple(fn(*inputs))[output_index]._data.astype(np.float64).reshape(-1)
        flat[i] = original - eps
        minus = _as_tuple(fn(*inputs))[output_index]._data.astype(np.float64).reshape(-1)
        flat[i] = original
        jac[:, i] = (plus - minus) / (2 * eps)
    return jac


def _analytical_jacobian(outputs, inputs, wrt_indices, output_index):
    out = outputs[output_index]
    rows = {k: np.zeros((out.numel(), inputs[k].numel())) for k in wrt_indices}
    for r in range(out.numel()):
        seed = np.zeros(out._data.size, out._data.dtype)
        seed[r] = 1
        grads = _grad(out, [inputs[k] for k in wrt_indices],
                      Tensor._make(seed.reshape(out._data.shape), False), retain_graph=True,
                      allow_unused=True)
        for k, g in zip(wrt_indices, grads):
            if g is not None:
                rows[k][r] = g._data.reshape(-1)
    return rows


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              fast_mode=False, nondet_tol=0.0):
    """Compare the gradients of func at inputs (float64 tensors) with central differences.

    fast_mode checks one random projection v^T J u instead of the whole Jacobian.

    >>> x = numgrad.randn(3, dtype=numgrad.float64, requires_grad=True)
    >>> numgrad.autograd.gradcheck(numgrad.tanh, (x,))
    True
    """
    inputs = _as_tuple(inputs)
    wrt = [k for k, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    for k in wrt:
        if inputs[k].dtype != np.float64:
            import warnings
            warnings.warn(f"Input #{k} requires gradient and is not a double precision floating "
                          "point. This check will likely fail if all the inputs are not of double "
                          "precision floating point.", UserWarning, stacklevel=2)
    outputs = _differentiable_outputs(func, inputs)
    if fast_mode:
        return _fast_check(func, inputs, wrt, outputs, eps, atol, rtol, raise_exception)
    for o in range(len(outputs)):
        analytical = _analytical_jacobian(outputs, inputs, wrt, o)
        for k in wrt:
            numerical = _numerical_jacobian(func, inputs, k, o, eps)
            if not np.allclose(analytical[k], numerical, rtol=rtol, atol=atol):
                if raise_exception:
                    raise GradcheckError(
                        f"Jacobian mismatch for output {o} with respect to input {k},\n"
                        f"numerical:{numerical}\nanalytical:{analytical[k]}\n")
                return False
    return True


def _fast_check(func, inputs, wrt, outputs, eps, atol, rtol, raise_exception):
    rng = np.random.default_rng(0)
    for o, out in enumerate(outputs):
        v = rng.standard_normal(out._data.shape)
        grads = _grad(out, [inputs[k] for k in wrt], Tensor._make(v.astype(out._data.dtype), False),
                      retain_graph=True, allow_unused=True)
        for k, g in zip(wrt, grads):
            x = inputs[k]
            u = rng.standard_normal(x._data.shape)
            analytical = float(np.sum((g._data if g is not None else 0.0) * u))
            original = x._data.copy()
            x._data[...] = original + eps * u
            plus = _as_tuple(func(*inputs))[o]._data
            x._data[...] = original - eps * u
            minus = _as_tuple(func(*inputs))[o]._data
            x._data[...] = original
            numerical = float(np.sum(v * (plus - minus) / (2 * eps)))
            if not np.isclose(analytical, numerical, rtol=rtol, atol=atol):
                if raise_exception:
                    raise GradcheckError(f"Jacobian mismatch for output {o} with respect to input "
                                         f"{k} (fast mode): numerical {numerical}, analytical "
                                         f"{analytical}")
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True, fast_mode=False):
    """gradcheck of the first derivative (computed with create_graph=True)."""
    inputs = _as_tuple(inputs)
    wrt = [k for k, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    outputs = _differentiable_outputs(func, inputs)
    rng = np.random.default_rng(1)
    if grad_outputs is None:
        grad_outputs = [Tensor._make(rng.standard_normal(o._data.shape).astype(o._data.dtype), False)
                        for o in outputs]
    grad_outputs = list(_as_tuple(grad_outputs))

    def first_derivative(*xs):
        outs = _differentiable_outputs(func, xs)
        grads = _grad(outs, [xs[k] for k in wrt], grad_outputs, create_graph=True,
                      allow_unused=True)
        return tuple(g for g in grads if g is not None and g.requires_grad)

    return gradcheck(first_derivative, inputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, fast_mode=fast_mode)
