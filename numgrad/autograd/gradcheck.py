"""gradcheck and gradgradcheck: analytical gradients against float64 central differences.

The numerical Jacobian perturbs each input element in place by +-eps (and restores it exactly) and
runs `func`; the analytical one runs one backward per output element (or, in fast_mode, one
vector-Jacobian product checked against one finite-difference directional derivative per input:
v^T J u). Comparisons use torch's rule |a - n| <= atol + rtol * |n|.
"""
import warnings

import numpy as np

from ..tensor import Tensor
from .api import grad as _grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck when an analytical gradient disagrees with the numerical one."""


def _as_tuple(x):
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _positions(outputs, differentiable=True):
    """Indices of the outputs to check: those that require grad (or, with differentiable=False,
    every float output)."""
    return [i for i, o in enumerate(outputs) if isinstance(o, Tensor) and o._data.dtype.kind == "f"
            and (o.requires_grad or not differentiable)]


def _values(func, inputs, positions):
    """The chosen outputs of func as float64 arrays. Grad mode stays on: func may differentiate
    inside (gradgradcheck's does)."""
    outputs = _as_tuple(func(*inputs))
    return [outputs[i]._data.astype(np.float64) for i in positions]


def _numerical_jacobians(func, inputs, k, positions, eps):
    """d outputs / d inputs[k] by central differences: one (out numel, in numel) array per chosen
    output. `.flat` writes through non-contiguous inputs too."""
    x = inputs[k]._data
    jacobians = [np.zeros((v.size, x.size)) for v in _values(func, inputs, positions)]
    for i in range(x.size):
        original = x.flat[i]
        x.flat[i] = original + eps
        plus = _values(func, inputs, positions)
        x.flat[i] = original - eps
        minus = _values(func, inputs, positions)
        x.flat[i] = original
        for jac, p, m in zip(jacobians, plus, minus):
            jac[:, i] = ((p - m) / (2 * eps)).reshape(-1)
    return jacobians


def _analytical_jacobian(out, inputs, wrt):
    """{input index: d out / d input} with one backward per element of `out`."""
    rows = {k: np.zeros((out.numel(), inputs[k].numel())) for k in wrt}
    for r in range(out.numel()):
        seed = np.zeros(out._data.size, out._data.dtype)
        seed[r] = 1
        grads = _grad(out, [inputs[k] for k in wrt], Tensor._make(seed.reshape(out.shape), False),
                      retain_graph=True, allow_unused=True)
        for k, g in zip(wrt, grads):
            if g is not None:
                rows[k][r] = g._data.reshape(-1)
    return rows


def _jacobian_text(jacobian):
    """A Jacobian as torch's messages print it: a tensor with a row per input element."""
    return repr(Tensor._make(np.ascontiguousarray(jacobian.T), False))


def _mismatch(o, k, numerical, analytical):
    """torch's message for Jacobians (output element x input element) that differ."""
    return (f"Jacobian mismatch for output {o} with respect to input {k},\n"
            f"numerical:{_jacobian_text(numerical)}\nanalytical:{_jacobian_text(analytical)}\n")


def _fast_mismatch(o, k, numerical, analytical, full, exact):
    """torch's message when fast mode's projections v^T J u differ: they, then the Jacobians."""
    return (f"Jacobian mismatch for output {o} with respect to input {k},\n"
            f"numerical:{numerical!r}\nanalytical:{analytical!r}\n\n"
            "The above quantities relating the numerical and analytical jacobians are computed \n"
            "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more "
            "background \nabout fast mode. Below, we recompute numerical and analytical jacobians "
            "in slow mode:\n\n"
            f"Numerical:\n {_jacobian_text(full)}\nAnalytical:\n{_jacobian_text(exact)}\n\n"
            "The max per-element difference (slow mode) is: "
            f"{float(np.abs(full - exact).max())!r}.\n")


def _fail(message, raise_exception):
    if raise_exception:
        raise GradcheckError(message)
    return False


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, fast_mode=False):
    """Check the gradients of `func` at `inputs` (float64 tensors) against central differences.

    Every output is compared with every input that requires grad; `nondet_tol` bounds how much two
    backward passes with the same input may differ. fast_mode compares one random projection
    v^T J u per (output, input) instead of the whole Jacobian. Returns True, or raises
    GradcheckError with torch's message, naming the output and input and printing both Jacobians
    (False when raise_exception=False). Works on custom autograd.Functions.

    >>> x = numgrad.randn(3, dtype=numgrad.float64, requires_grad=True)
    >>> numgrad.autograd.gradcheck(numgrad.tanh, (x,))
    True
    """
    inputs = _as_tuple(inputs)
    wrt = [k for k, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    for k in wrt:
        if inputs[k].dtype != np.float64:
            warnings.warn(f"Input #{k} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", UserWarning,
                          stacklevel=2)
    all_outputs = _as_tuple(func(*inputs))
    positions = _positions(all_outputs)
    if not positions:
        return _check_no_differentiable_outputs(func, inputs, wrt, all_outputs, eps,
                                                raise_exception)
    outputs = [all_outputs[i] for i in positions]
    if fast_mode:
        return _fast_check(func, inputs, wrt, outputs, positions, eps, atol, rtol, raise_exception)
    numerical = {k: _numerical_jacobians(func, inputs, k, positions, eps) for k in wrt}
    for o, out in enumerate(outputs):
        analytical = _analytical_jacobian(out, inputs, wrt)
        again = _analytical_jacobian(out, inputs, wrt)
        for k in wrt:
            n, a = numerical[k][o], analytical[k]
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                return _fail(_mismatch(o, k, n, a), raise_exception)
            if np.abs(a - again[k]).max(initial=0.0) > nondet_tol:
                return _fail(
                    "Backward is not reentrant, i.e., running backward with same input and "
                    "grad_output multiple times gives different values, although analytical "
                    "gradient matches numerical gradient. The tolerance for nondeterminism was "
                    f"{nondet_tol}. (output {o}, input {k})", raise_exception)
    return True


def _check_no_differentiable_outputs(func, inputs, wrt, outputs, eps, raise_exception):
    positions = _positions(outputs, differentiable=False)
    for k in wrt:
        for o, jac in zip(positions, _numerical_jacobians(func, inputs, k, positions, eps)):
            if np.any(jac != 0):
                return _fail(f"Numerical gradient for function expected to be zero (output {o}, "
                             f"input {k}): no output requires grad", raise_exception)
    return True


def _directional(func, inputs, k, positions, u, eps):
    """The derivative of each chosen output along u (a perturbation of input k only)."""
    x = inputs[k]._data
    original = x.copy()
    x[...] = original + eps * u
    plus = _values(func, inputs, positions)
    x[...] = original - eps * u
    minus = _values(func, inputs, positions)
    x[...] = original
    return [(p - m) / (2 * eps) for p, m in zip(plus, minus)]


def _fast_check(func, inputs, wrt, outputs, positions, eps, atol, rtol, raise_exception):
    rng = np.random.default_rng(0)
    us = {}
    for k in wrt:
        u = rng.standard_normal(inputs[k].shape)
        us[k] = u / max(np.linalg.norm(u), 1e-300)
    jvps = {k: _directional(func, inputs, k, positions, us[k], eps) for k in wrt}
    for o, out in enumerate(outputs):
        v = rng.standard_normal(out.shape)
        v /= max(np.linalg.norm(v), 1e-300)
        grads = _grad(out, [inputs[k] for k in wrt], Tensor._make(v.astype(out._data.dtype), False),
                      retain_graph=True, allow_unused=True)
        for k, g in zip(wrt, grads):
            analytical = float(np.sum(g._data * us[k])) if g is not None else 0.0
            numerical = float(np.sum(v * jvps[k][o]))
            # the elementwise tolerance atol, carried through v^T (.) u
            scaled_atol = atol * np.abs(us[k]).sum() * np.abs(v).sum()
            if abs(analytical - numerical) > scaled_atol + rtol * abs(numerical):
                full = _numerical_jacobians(func, inputs, k, positions, eps)[o]
                exact = _analytical_jacobian(out, inputs, [k])[k]
                return _fail(_fast_mismatch(o, k, numerical, analytical, full, exact),
                             raise_exception)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True, nondet_tol=0.0, fast_mode=False):
    """gradcheck of the first derivative: the vector-Jacobian product of `func` with
    `grad_outputs` (random float64 tensors when None), computed with create_graph=True and
    checked with respect to both the inputs and grad_outputs, as torch does.

    >>> x = numgrad.randn(3, dtype=numgrad.float64, requires_grad=True)
    >>> numgrad.autograd.gradgradcheck(lambda x: (x * x * x).sum(), (x,))
    True
    """
    inputs = _as_tuple(inputs)
    wrt = [k for k, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    outputs = _as_tuple(func(*inputs))
    outputs = [outputs[i] for i in _positions(outputs)]
    if grad_outputs is None:
        rng = np.random.default_rng(1)
        grad_outputs = [Tensor._make(rng.standard_normal(o.shape).astype(o._data.dtype), True)
                        for o in outputs]
    grad_outputs = list(_as_tuple(grad_outputs))
    n = len(inputs)

    def first_derivative(*args):
        xs, gos = args[:n], args[n:]
        outs = _as_tuple(func(*xs))
        outs = [outs[i] for i in _positions(outs)]
        grads = _grad(outs, [xs[k] for k in wrt], list(gos), create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivative, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, fast_mode=fast_mode)
