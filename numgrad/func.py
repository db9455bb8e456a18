"""Function transforms in the style of torch.func: grad and grad_and_value.

`grad(f)` is a new function returning the gradient of the scalar f with respect to the arguments
`argnums`. Results stay differentiable when they can be: if an argument already requires grad, or
f reads another tensor that does (a closure), the gradient is computed with create_graph=True, so
grad(grad(f)) and an outer backward work; otherwise the fast compiled backward runs.
"""
import functools

from . import tape
from .autograd.api import grad as _grad
from .autograd.graph import plan_backward
from .creation import zeros_like
from .grad_mode import enable_grad
from .tensor import Tensor


def _touches_outer_graph(output, fresh):
    """Does the graph behind `output` reach a tensor that requires grad other than our fresh
    leaves? Then an outer derivative may be taken through the gradient."""
    graph, _ = plan_backward(output)
    mine = {id(t) for t in fresh}
    for k, seg in enumerate(graph.segments):
        for node, leaf in seg.leaves.items():
            index = int(graph.starts[k]) + tape.local_of(node)
            if graph.needed[index] and id(leaf) not in mine:
                return True
    return False


def _detached(aux):
    if isinstance(aux, Tensor):
        return aux.detach()
    if isinstance(aux, (tuple, list)):
        return type(aux)(_detached(a) for a in aux)
    return aux


def grad_and_value(func, argnums=0, has_aux=False):
    """Like `grad`, but the new function returns (gradient, value), or (gradient, (value, aux))
    with has_aux.

    >>> g, value = numgrad.func.grad_and_value(lambda x: (x ** 2).sum())(numgrad.tensor([1., 3.]))
    >>> g, value
    (tensor([2., 6.]), tensor(10.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        args = list(args)
        fresh = []
        for n in nums:
            if not isinstance(args[n], Tensor):
                raise TypeError(f"grad: argument {n} must be a Tensor, got "
                                f"{type(args[n]).__name__}")
            if not args[n].requires_grad:
                args[n] = args[n].detach().requires_grad_()
                fresh.append(args[n])
        with enable_grad():
            result = func(*args, **kwargs)
        if has_aux:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError("grad_and_value(f)(*args): output of function f should be a "
                                   "tuple: (output, aux) if has_aux is True")
            output, aux = result
        else:
            output = result
        if not isinstance(output, Tensor) or output.numel() != 1 or output.ndim != 0:
            dims = output.ndim if isinstance(output, Tensor) else type(output).__name__
            raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {dims} dims. Maybe you wanted to use the "
                               "vjp or jacrev APIs instead?")
        wrt = [args[n] for n in nums]
        if output.requires_grad:
            nested = _touches_outer_graph(output, fresh)
            grads = _grad(output, wrt, create_graph=nested, allow_unused=True)
        else:
            nested, grads = False, (None,) * len(wrt)
        grads = [zeros_like(t) if g is None else g for t, g in zip(wrt, grads)]
        if not nested:      # nothing outside can differentiate through them: plain values
            output = output.detach()
            if has_aux:
                aux = _detached(aux)
        g = grads[0] if isinstance(argnums, int) else tuple(grads)
        return g, ((output, aux) if has_aux else output)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar-valued func with respect to its argument(s) `argnums`, as a new
    function; with has_aux, func returns (value, aux) and the new function (gradient, aux).

    >>> df = numgrad.func.grad(lambda x: (x ** 3).sum())
    >>> df(numgrad.tensor([1., 2.]))
    tensor([ 3., 12.])
    >>> numgrad.func.grad(numgrad.func.grad(lambda x: x ** 3))(numgrad.tensor(2.))
    tensor(12.)
    """
    transformed = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = transformed(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return wrapper
