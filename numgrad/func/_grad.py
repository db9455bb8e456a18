"""grad and grad_and_value, and what every derivative transform shares: taking the arguments to
differentiate (argnums, each a tensor or a tuple/list/dict of them) and deciding whether results
must stay differentiable.

Results stay differentiable when they can be: if an argument already requires grad (an outer
transform's input, or the user's), or f reads another tensor that does (a closure), derivatives
are computed with create_graph=True, so grad(grad(f)), jacrev(jacrev(f)) and an outer backward
work; otherwise the fast compiled backward runs and results are plain tensors.
"""
import functools

from .. import tape
from ..autograd.api import grad as _grad
from ..autograd.graph import plan_backward
from ..creation import zeros_like
from ..grad_mode import enable_grad
from ..tensor import Tensor
from ._pytree import tree_flatten, tree_unflatten


def _touches_outer_graph(outputs, fresh):
    """Does the graph behind `outputs` reach a tensor that requires grad other than our fresh
    leaves? Then an outer derivative may be taken through the result."""
    roots = tuple(o for o in outputs if isinstance(o, Tensor) and o.requires_grad)
    if not roots:
        return False
    graph, _ = plan_backward(roots)
    mine = {id(t) for t in fresh}
    for k, seg in enumerate(graph.segments):
        for node, leaf in seg.leaves.items():
            index = int(graph.starts[k]) + tape.local_of(node)
            if graph.needed[index] and id(leaf) not in mine:
                return True
    return False


def _wrap_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if -num_args <= argnum < num_args:
        return argnum % num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _lift(args, argnums):
    """(args with the differentiated ones replaced, their flat tensors, the spec to rebuild one
    result per tensor in argnums' layout, the fresh leaves among them). argnums=None takes every
    argument, as vjp does. Call with grad enabled: a tensor that already requires grad is aliased
    by a view, not detached, so the result stays connected to its graph."""
    if argnums is None:
        nums, picked = tuple(range(len(args))), tuple(args)
    elif isinstance(argnums, int):
        nums = (_wrap_argnum(argnums, len(args)),)
        picked = args[nums[0]]
    elif isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        nums = tuple(_wrap_argnum(n, len(args)) for n in argnums)
        if len(set(nums)) != len(nums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        picked = tuple(args[n] for n in nums)
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    args, wrt, fresh = list(args), [], []
    for n in nums:
        leaves, spec = tree_flatten(args[n])
        lifted = []
        for leaf in leaves:
            if not isinstance(leaf, Tensor):
                raise ValueError(f"Thing passed to transform API must be Tensor, got "
                                 f"{type(leaf)}")
            if leaf.requires_grad:
                lifted.append(leaf.view_as(leaf))
            else:
                lifted.append(leaf.detach().requires_grad_())
                fresh.append(lifted[-1])
        wrt += lifted
        args[n] = tree_unflatten(lifted, spec)
    return tuple(args), wrt, tree_flatten(picked)[1], fresh


def _split_aux(result, has_aux, api):
    if not has_aux:
        return result, None
    if not (isinstance(result, tuple) and len(result) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    for leaf in tree_flatten(result[1])[0]:
        if not isinstance(leaf, Tensor):        # torch unwraps every aux leaf as a tensor
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return result


def _detached(tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([t.detach() if isinstance(t, Tensor) else t for t in leaves], spec)


def _zeros_for_none(grads, refs):
    return [zeros_like(r) if g is None else g for g, r in zip(grads, refs)]


def grad_and_value(func, argnums=0, has_aux=False):
    """Like `grad`, but the new function returns (gradient, value), or (gradient, (value, aux))
    with has_aux.

    >>> g, value = numgrad.func.grad_and_value(lambda x: (x ** 2).sum())(numgrad.tensor([1., 3.]))
    >>> g, value
    (tensor([2., 6.]), tensor(10.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with enable_grad():
            args, wrt, spec, fresh = _lift(args, argnums)
            result = func(*args, **kwargs)
        output, aux = _split_aux(result, has_aux, "grad_and_value(f)(*args)")
        if not isinstance(output, Tensor):
            raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                               f"got {type(output)}")
        if output.ndim != 0:
            raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {output.ndim} dims. Maybe you wanted to "
                               "use the vjp or jacrev APIs instead?")
        nested = _touches_outer_graph((output,), fresh)
        if output.requires_grad:
            grads = _grad(output, wrt, create_graph=nested, allow_unused=True)
        else:
            grads = (None,) * len(wrt)
        grads = tree_unflatten(_zeros_for_none(grads, wrt), spec)
        if not nested:      # nothing outside can differentiate through them: plain values
            output, aux = output.detach(), _detached(aux)
        return grads, ((output, aux) if has_aux else output)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar-valued func with respect to its argument(s) `argnums` (each a
    tensor or a tuple/list/dict of them, the gradient laid out alike), as a new function; with
    has_aux, func returns (value, aux) and the new function (gradient, aux).

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
