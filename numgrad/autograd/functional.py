"""Higher-level derivatives of functions, with torch.autograd.functional's signatures: vjp, jvp,
jacobian, hessian, hvp, vhp.

numgrad is reverse mode only, so forward-mode products use the double-vjp trick: the vjp
g -> J^T g is linear in g, so differentiating it with respect to a dummy g (zeros that require
grad) in the direction v gives J v. Jacobians take one backward per output element, each seeded
with a one-hot gradient (no vmap: `vectorize` is accepted and changes nothing). Tensors returned
are detached unless create_graph=True; strict=True raises where an output is independent of an
input instead of returning zeros.
"""
import numpy as np

from ..creation import zeros_like
from ..grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from ..ops import cat
from ..tensor import Tensor
from .api import grad as _grad


def _as_tuple(x, arg_name, fn_name):
    """(was it a tuple, the tuple) after checking it holds Tensors; as torch, a list is not a
    tuple of Tensors."""
    is_tuple = isinstance(x, tuple)
    x = x if is_tuple else (x,)
    for i, t in enumerate(x):
        if not isinstance(t, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple "
                            f"of Tensors but the {where} has type {type(t)}.")
    return is_tuple, x


def _tuple_postprocess(res, to_unpack):
    """Unwrap the tuples the user did not pass (for jacobian/hessian: two levels)."""
    if isinstance(to_unpack, tuple):
        outer, inner = to_unpack
        if not inner:
            res = tuple(r[0] for r in res)
        return res if outer else res[0]
    return res if to_unpack else res[0]


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh leaves to differentiate with respect to; with create_graph an input that already
    requires grad is aliased instead, so the result stays connected to its graph."""
    if create_graph:
        return tuple(t.view_as(t) if t.requires_grad else t.detach().requires_grad_(need_graph)
                     for t in inputs)
    return tuple(t.detach().requires_grad_(need_graph) for t in inputs)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(t.detach() for t in inputs)
    return tuple(_grad_postprocess(t, create_graph) for t in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if not is_other_tuple:
            raise RuntimeError("The given v should contain a single Tensor.")
        raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                           f"{len(v)}.")
    for i, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.shape != el_other.shape:
            prepend = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.shape} but got "
                               f"{el_v.shape}.")


def _check_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if t.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(f"The hessian of the user-provided function with respect to input "
                               f"{i} is independent of the input. This is not allowed in strict "
                               "mode. You should ensure that your function is thrice "
                               "differentiable and that the hessian depends on the inputs.")
        if kind == "jacobian":
            raise RuntimeError(f"While computing the hessian, found that the jacobian of the "
                               f"user-provided function with respect to input {i} is independent "
                               "of the input. This is not allowed in strict mode. You should "
                               "ensure that your function is twice differentiable and that the "
                               "jacobian depends on the inputs (this would be violated by a "
                               "linear function for example).")
        if kind == "grad_inputs":
            raise RuntimeError(f"The gradient with respect to input {i} is independent of the "
                               "inputs of the user-provided function. This is not allowed in "
                               "strict mode.")
        raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. "
                           "The outputs must be computed in a differentiable manner from the "
                           "input when running in strict mode.")


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, is_grads_batched=False):
    """autograd.grad over the outputs that require grad; all None when none does."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return _grad([o for o, _ in pairs], inputs, [g for _, g in pairs], retain_graph=True,
                 create_graph=create_graph, allow_unused=True, is_grads_batched=is_grads_batched)


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
                         "in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward mode "
                         "AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Zeros for undefined gradients, or strict mode's errors."""
    result = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                message = _INDEPENDENT[stage].format(i=i)
                raise RuntimeError(message if stage == "double_back_trick" else
                                   message + " This is not allowed in strict mode.")
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input "
                               f"{i}. This is not allowed in strict mode when create_graph=True.")
        result.append(g)
    return tuple(result)


def _single_v(v, refs, is_refs_tuple, create_graph, what, fn_name):
    if v is None:
        if len(refs) != 1 or refs[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if the {what} a single Tensor "
                               "with a single element.")
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _grad_preprocess(v, create_graph, need_graph=False)
    _validate_v(v, refs, is_refs_tuple)
    return v


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product, one backward pass.

    >>> x = numgrad.tensor([1., 2.])
    >>> numgrad.autograd.functional.vjp(lambda x: x * x, x, numgrad.tensor([1., 1.]))[1]
    tensor([2., 4.])
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                              "function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        v = _single_v(v, outputs, is_outputs_tuple, create_graph,
                      "user-provided function returns", "vjp")
    with set_grad_enabled(bool(create_graph) or is_grad_enabled()):
        grads = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "back")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-vjp trick.

    >>> x = numgrad.tensor([1., 2.])
    >>> numgrad.autograd.functional.jvp(lambda x: x * x, x, numgrad.tensor([1., 0.]))[1]
    tensor([2., 0.])
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        v = _single_v(v, inputs, is_inputs_tuple, create_graph, "input to the user-provided "
                      "function is", "jvp")
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                              "function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        # the vjp is linear in these: their value never matters, only that they are finite
        dummies = tuple(zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with set_grad_enabled(bool(create_graph) or is_grad_enabled()):
        grads = _autograd_grad(grad_inputs, dummies, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, outputs, strict, create_graph, "back_trick")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_outputs_tuple))


_ROWS_PER_BATCH = 256


def _jacobian_rows(out, i, inputs, strict, create_graph):
    """d out / d each input, shaped out.shape + input.shape. Rows are computed in batches: each
    batch is one batched grad call (the graph planned once, run once per row)."""
    rows = [[] for _ in inputs]
    n = out.numel()
    for first in range(0, n, _ROWS_PER_BATCH):
        count = min(_ROWS_PER_BATCH, n - first)
        seeds = np.zeros((count, n), out.dtype)
        seeds[np.arange(count), first + np.arange(count)] = 1
        batch = Tensor._make(seeds.reshape((count,) + tuple(out.shape)), False)
        grads = _autograd_grad((out,), inputs, (batch,), create_graph=create_graph,
                               is_grads_batched=True)
        for k, g in enumerate(grads):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is independent "
                                       f"of input {k}. This is not allowed in strict mode.")
                g = Tensor._make(np.zeros((count,) + tuple(inputs[k].shape), inputs[k].dtype),
                                 False)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(f"The jacobian of the user-provided function is independent of "
                                   f"input {k}. This is not allowed in strict mode when "
                                   "create_graph=True.")
            rows[k].append(g)
    result = []
    for k, inp in enumerate(inputs):
        shape = tuple(out.shape) + tuple(inp.shape)
        if not rows[k]:
            result.append(Tensor._make(np.zeros(shape, inp.dtype), False))
        elif create_graph:
            result.append(cat(rows[k]).reshape(shape))
        else:
            result.append(Tensor._make(np.concatenate([g._data for g in rows[k]]).reshape(shape),
                                       False))
    return tuple(result)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of func at inputs: entry [i][k] has shape outputs[i].shape + inputs[k].shape
    (tuples unwrapped where func takes or returns a single Tensor).

    >>> x = numgrad.tensor([1., 2.])
    >>> numgrad.autograd.functional.jacobian(lambda x: x * x, x)
    tensor([[2., 0.],
            [0., 4.]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, "forward-mode" '
                             'tends to be more performant. Otherwise, prefer to use '
                             '"reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "numgrad.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError(
                "numgrad.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`strict=False` or `strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                      "Hessian isonly implemented for `vectorize=True`.")
        # numgrad has no forward mode: the same Jacobian, computed in reverse mode. torch does
        # not detach forward-mode results: they stay connected to inputs that require grad (and
        # a forward-over-reverse Hessian's always require grad: its inner Jacobian made them)
        tensors = inputs if isinstance(inputs, tuple) else (inputs,)
        create_graph = getattr(func, "_forward_graph", False) or any(
            isinstance(t, Tensor) and t.requires_grad for t in tensors)
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                              "function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict)
        if vectorize and strict and strategy == "reverse-mode":
            # (torch checks the outputs first)
            raise RuntimeError("numgrad.autograd.functional.jacobian: `strict=True` and "
                               "`vectorized=True` are not supported together. Please either set "
                               "`strict=False` or `vectorize=False`.")
        jac = tuple(_jacobian_rows(out, i, inputs, strict, create_graph)
                    for i, out in enumerate(outputs))
        jac = _grad_postprocess(jac, create_graph)
    if strategy == "forward-mode":
        jac = [list(row) for row in jac]        # torch's forward-mode Jacobian is made of lists
    return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def _scalar_output(func, strict, fn_name, squeeze=False):
    """func, checked to return one tensor of one element; squeezed to 0-d for hessian, whose
    gradient is a Jacobian (vhp and hvp return torch's output as func gave it)."""
    def scalar(*inputs):
        out = func(*inputs)
        is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", fn_name)
        _check_requires_grad(outs, "outputs", strict)
        if is_tuple:
            raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                               "contain a single element")
        return out.reshape(()) if squeeze else out
    return scalar


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar func: the Jacobian of its gradient.

    >>> x = numgrad.tensor([1., 2.])
    >>> numgrad.autograd.functional.hessian(lambda x: (x ** 3).sum(), x)
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    scalar = _scalar_output(func, strict, "hessian", squeeze=True)

    def gradient(*inp):
        jac = jacobian(scalar, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    gradient._forward_graph = True

    res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _first_derivative(func, inputs, v, create_graph, strict, fn_name):
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
    v = _single_v(v, inputs, is_inputs_tuple, create_graph,
                  "input to the user-provided function is", fn_name)
    output = _scalar_output(func, strict, fn_name)(*inputs)
    jac = _autograd_grad((output,), inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return is_inputs_tuple, inputs, v, output, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar func: the vjp of its gradient.

    >>> x = numgrad.tensor([1., 2.])
    >>> numgrad.autograd.functional.vhp(lambda x: (x ** 3).sum(), x, numgrad.tensor([1., 1.]))[1]
    tensor([ 6., 12.])
    """
    with enable_grad():
        is_inputs_tuple, inputs, v, output, jac = _first_derivative(func, inputs, v, create_graph,
                                                                    strict, "vhp")
    with set_grad_enabled(bool(create_graph) or is_grad_enabled()):
        grads = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back")
    return (_grad_postprocess((output,), create_graph)[0],
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v) for a scalar func: the jvp of its gradient, by the double-vjp trick
    (equal to vhp for twice continuously differentiable functions, and slower).

    >>> x = numgrad.tensor([1., 2.])
    >>> numgrad.autograd.functional.hvp(lambda x: (x ** 3).sum(), x, numgrad.tensor([1., 0.]))[1]
    tensor([6., 0.])
    """
    with enable_grad():
        is_inputs_tuple, inputs, v, output, jac = _first_derivative(func, inputs, v, create_graph,
                                                                    strict, "hvp")
        dummies = tuple(zeros_like(t, requires_grad=True) for t in inputs)
        double_back = _autograd_grad(jac, inputs, dummies, create_graph=True)
        _check_requires_grad(jac, "hessian", strict)
    with set_grad_enabled(bool(create_graph) or is_grad_enabled()):
        grads = _autograd_grad(double_back, dummies, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back_trick")
    return (_grad_postprocess((output,), create_graph)[0],
            _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple))
