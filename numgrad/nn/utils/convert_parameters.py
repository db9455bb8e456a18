"""Parameters as one flat vector and back, as optimisers outside nn (SciPy's, CMA-ES) want them."""
from ...ops import cat
from ...tensor import Tensor


def parameters_to_vector(parameters):
    """One 1-D tensor holding every parameter's values in order (a copy, in the graph).

    >>> import numgrad as ng
    >>> ng.nn.utils.parameters_to_vector([ng.ones(2, 2), ng.zeros(1)])
    tensor([1., 1., 1., 1., 0.])
    """
    device = None
    flat = []
    for param in parameters:
        device = _check_same_device(param, device)
        flat.append(param.reshape(-1))
    return cat(flat)


def vector_to_parameters(vec, parameters):
    """Make each parameter's data the next slice of vec, in order: afterwards the parameters
    share vec's memory, as in torch.

    >>> import numgrad as ng
    >>> w = ng.nn.Parameter(ng.zeros(2))
    >>> ng.nn.utils.vector_to_parameters(ng.tensor([3., 4.]), [w])
    >>> w
    Parameter containing:
    tensor([3., 4.], requires_grad=True)
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected numgrad.Tensor, but got: {_typename(vec)}")
    device = None
    start = 0
    for param in parameters:
        device = _check_same_device(param, device)
        n = param.numel()
        param.data = vec[start:start + n].reshape(param.shape).data
        start += n


def _check_same_device(param, device):
    if device is not None and param.device != device:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return param.device


def _typename(value):
    """torch.typename: the qualified class name, without 'builtins.'."""
    cls = type(value)
    if cls.__module__ == "builtins":
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"
