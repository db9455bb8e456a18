"""vjp, jvp, linearize, jacrev, jacfwd and hessian, with torch.func's signatures and result layouts.

numgrad is reverse mode only: jvp uses the double-vjp trick (u -> J^T u is linear in u, so its
vjp in the direction v is J v), and jacfwd is jacrev. Jacobian rows come from batched backward
passes, as in autograd.functional.jacobian.
"""
import functools

from ..autograd.api import grad as _grad
from ..autograd.functional import _autograd_grad, _jacobian_rows
from ..creation import zeros_like
from ..grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from ..tensor import Tensor
from ._grad import _detached, _lift, _split_aux, _touches_outer_graph, _zeros_for_none
from ._pytree import tree_flatten, tree_unflatten, treespec_pprint


def _check_outputs(flat, api):
    if not flat or (len(flat) == 1 and flat[0] is None):
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got "
                           f"output = {flat})")
    for o in flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")


def _trace(func, args, argnums, has_aux, api):
    """Run func on lifted arguments: (flat outputs, their spec, flat differentiated tensors,
    their spec, nested, aux); aux is detached unless nested."""
    with enable_grad():
        args, wrt, wrt_spec, fresh = _lift(args, argnums)
        out, aux = _split_aux(func(*args), has_aux, api)
    flat, out_spec = tree_flatten(out)
    _check_outputs(flat, api)
    nested = _touches_outer_graph(flat, fresh)
    return flat, out_spec, wrt, wrt_spec, nested, (aux if nested else _detached(aux))


def _check_floating(flat):
    for o in flat:
        if not o.is_floating_point():
            raise RuntimeError(f"vjp(f, ...): All outputs of f must be floating-point or complex "
                               f"Tensors, got Tensor with dtype {o.dtype}")


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn) or, with has_aux, (output, vjp_fn, aux): vjp_fn(cotangents), with
    cotangents laid out like the output, returns a tuple of v^T J, one per primal (each laid out
    like it). vjp_fn may be called again; it runs with create_graph when its result can be
    differentiated further.

    >>> out, vjp_fn = numgrad.func.vjp(lambda x: x ** 2, numgrad.tensor([1., 2.]))
    >>> vjp_fn(numgrad.tensor([1., 1.]))
    (tensor([2., 4.]),)
    """
    flat_out, out_spec, wrt, wrt_spec, nested, aux = _trace(func, primals, None, has_aux,
                                                            "vjp(f, *primals)")
    _check_floating(flat_out)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_ct, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree "
                               "structure of outputs to the function. cotangents: "
                               f"{treespec_pprint(ct_spec)}, primal output: "
                               f"{treespec_pprint(out_spec)}")
        if create_graph is None:
            create_graph = nested or (is_grad_enabled() and any(
                isinstance(c, Tensor) and c.requires_grad for c in flat_ct))
        pairs = [(o, c) for o, c in zip(flat_out, flat_ct) if o.requires_grad]
        grads = (None,) * len(wrt)
        if pairs:
            with set_grad_enabled(bool(create_graph) or is_grad_enabled()):
                grads = _grad([o for o, _ in pairs], wrt, [c for _, c in pairs],
                              retain_graph=retain_graph, create_graph=create_graph,
                              allow_unused=True)
        grads = _zeros_for_none(grads, wrt)
        if not create_graph:
            grads = [g.detach() for g in grads]
        return tree_unflatten(grads, wrt_spec)

    out = tree_unflatten(flat_out if nested else [o.detach() for o in flat_out], out_spec)
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


_JVP = "jvp(f, primals, tangents)"


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), J tangents) or, with has_aux, (output, jvp_out, aux); tangents are laid
    out like primals, jvp_out like the output. Computed in reverse mode by the double-vjp trick.

    >>> numgrad.func.jvp(lambda x: x ** 2, (numgrad.tensor([1., 2.]),),
    ...                  (numgrad.tensor([1., 0.]),))
    (tensor([1., 4.]), tensor([2., 0.]))
    """
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    flat_p, p_spec = tree_flatten(primals)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents "
                           f"also must be. Got primals with structure {p_spec} and tangents with "
                           f"structure {t_spec}")
    for name, flat in (("primals", flat_p), ("tangents", flat_t)):
        if not flat:
            raise RuntimeError(f"{_JVP}: Expected {name} to contain at least one Tensor.")
        for t in flat:
            if not isinstance(t, Tensor):
                raise RuntimeError(f"{_JVP}: Expected {name} to only contain Tensors, got "
                                   f"{type(t)}")
    for p, t in zip(flat_p, flat_t):
        if p.shape != t.shape:
            raise RuntimeError("Trying to set a forward gradient that has a different size than "
                               "that of the original Tensor, this is not supported. Tensor is of "
                               f"size {list(p.shape)} while the given forward gradient is of "
                               f"size {list(t.shape)}.")
    flat_out, out_spec, wrt, _, nested, aux = _trace(func, primals, None, has_aux, _JVP)
    create_graph = nested or any(t.requires_grad for t in flat_t)
    with enable_grad():
        # J^T u is linear in u: the dummies' value never matters, only that it is finite
        dummies = [zeros_like(o, requires_grad=True) if o.requires_grad else None
                   for o in flat_out]
        back = _autograd_grad(flat_out, wrt, dummies, create_graph=True)
        live = [d for d in dummies if d is not None]
        forward = iter(_autograd_grad(back, live, flat_t, create_graph=create_graph)
                       if live else ())
    tangents_out = []
    for o, d in zip(flat_out, dummies):
        t = next(forward) if d is not None else None
        if t is None:
            if strict:
                raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is "
                                   "independent of the inputs. This is not allowed with "
                                   "strict=True.")
            t = zeros_like(o)
        tangents_out.append(t if create_graph else t.detach())
    out = tree_unflatten(flat_out if nested else [o.detach() for o in flat_out], out_spec)
    tangents_out = tree_unflatten(tangents_out, out_spec)
    return (out, tangents_out, aux) if has_aux else (out, tangents_out)


def linearize(func, *primals):
    """(func(*primals), jvp_fn), jvp_fn(*tangents) giving J tangents at primals, as
    torch.func.linearize; each call runs jvp (numgrad traces nothing to replay).

    >>> out, jvp_fn = numgrad.func.linearize(lambda x: x.sin(), numgrad.zeros(2))
    >>> jvp_fn(numgrad.ones(2))
    tensor([1., 1.])
    """
    output = func(*primals)
    flat_primals, primals_spec = tree_flatten(primals)

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {tangents_spec} to have the same argspec "
                               f"as the primals {primals_spec}")
        for i, (p, t) in enumerate(zip(flat_primals, flat_tangents)):
            for what, mine, theirs in (("shape", t.shape, p.shape), ("device", t.device, p.device),
                                       ("dtype", t.dtype, p.dtype)):
                if mine != theirs:
                    raise RuntimeError(f"tangent:{i} with {what} {mine} in flattened pytree "
                                       f"doesn't match the {what} {theirs} of the corresponding "
                                       "primal.")
        return jvp(func, primals, tangents)[1]
    return output, jvp_fn


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The Jacobian of func with respect to argument(s) `argnums`, as a new function: for each
    output tensor (in the output's layout) the Jacobian with respect to each differentiated
    tensor (in argnums' layout), shaped output.shape + input.shape. With has_aux, func returns
    (output, aux) and the new function (jacobian, aux). Rows are computed by batched backward
    passes of up to 256 rows, whatever chunk_size is.

    >>> numgrad.func.jacrev(lambda x: x ** 2)(numgrad.tensor([1., 2.]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        flat_out, out_spec, wrt, wrt_spec, nested, aux = _trace(func, args, argnums, has_aux,
                                                                "vjp(f, *primals)")
        _check_floating(flat_out)
        with set_grad_enabled(bool(nested) or is_grad_enabled()):
            jac = [tree_unflatten(_jacobian_rows(out, i, wrt, False, nested), wrt_spec)
                   for i, out in enumerate(flat_out)]
        jac = tree_unflatten(jac, out_spec)
        return (jac, aux) if has_aux else jac
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian as `jacrev` gives it: numgrad has no forward mode, so this is jacrev under
    torch.func's other name (same results and layout, reverse-mode cost). randomness is checked
    and otherwise has no effect, as nothing is vmapped.

    >>> numgrad.func.jacfwd(lambda x: x.sin())(numgrad.tensor([0.]))
    tensor([[1.]])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func, argnums=0):
    """The Hessian of a scalar func with respect to argument(s) `argnums`: jacfwd(jacrev(func)),
    nested per pair of differentiated tensors for tuple argnums.

    >>> numgrad.func.hessian(lambda x: (x ** 3).sum())(numgrad.tensor([1., 2.]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)
