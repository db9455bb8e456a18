"""Parameter: a Tensor that a Module registers as one of its parameters."""
from .. import creation
from ..tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor that requires grad by default and is found by Module.parameters().

    It shares memory (and the version counter) with the tensor it is made from.

    >>> import numgrad as ng
    >>> ng.nn.Parameter(ng.ones(2))
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    """

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = creation.empty(0)
        param = cls._make(data._data, False, vc=data._shared_vc())
        if requires_grad and not param.is_floating_point():
            # torch's words here (Tensor.requires_grad_ says it differently)
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        return param.requires_grad_(requires_grad)

    def __init__(self, data=None, requires_grad=True):
        pass   # everything happened in __new__ (Tensor.__init__ would start over)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        # copy.deepcopy and pickle: a fresh Parameter with a copy of the data
        return (_rebuild, (self._data.copy(), self._requires_grad))


def _rebuild(data, requires_grad):
    return Parameter(Tensor._make(data, False), requires_grad)


# torch.nn.parameter holds the lazy placeholders too (they import Parameter from here)
from .uninitialized import (UninitializedBuffer, UninitializedParameter,  # noqa: E402
                            UninitializedTensorMixin, is_lazy)
