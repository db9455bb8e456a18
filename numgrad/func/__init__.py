"""Function transforms in the style of torch.func: grad, grad_and_value, vjp, jvp, jacrev,
jacfwd, hessian, vmap and functional_call.

Transforms compose (grad(grad(f)), jacrev(jacrev(f)), vmap(grad(f)), ...) and take the same
nested arguments as torch's: tuples, lists and dicts of tensors. numgrad is reverse mode only, so
jvp and jacfwd are computed in reverse mode, and vmap loops over the batch.
"""
from ._functional_call import functional_call
from ._grad import grad, grad_and_value
from ._jacobian import hessian, jacfwd, jacrev, jvp, linearize, vjp
from ._stack_module_state import stack_module_state
from ._vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "linearize", "stack_module_state", "vjp", "vmap"]
