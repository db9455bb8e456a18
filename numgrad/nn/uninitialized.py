"""UninitializedParameter and UninitializedBuffer: the placeholders of the lazy layers, whose
shape is unknown until their first input. They hold an empty tensor of the dtype and device
they will have; materialize(shape) gives them memory of that shape (uninitialised, as
torch.empty) and turns them into a Parameter / a plain Tensor, the same object, so that an
optimizer made before it updates them.

>>> import numgrad as ng
>>> weight = ng.nn.UninitializedParameter()
>>> weight
<UninitializedParameter>
>>> weight.materialize((2, 3))
>>> type(weight).__name__, weight.shape
('Parameter', numgrad.Size([2, 3]))
"""
from .. import creation
from ..tensor import Tensor
from .parameter import Parameter


class UninitializedTensorMixin:
    __slots__ = ()
    cls_to_become = None

    def __init__(self, *args, **kwargs):
        pass     # everything happened in __new__

    def materialize(self, shape, device=None, dtype=None):
        """Memory of shape (uninitialised), on device and of dtype (by default the placeholder's
        own); then the object becomes cls_to_become."""
        data = creation.empty(shape, device=device or self.device, dtype=dtype or self.dtype)
        self._data = data._data
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
            "initialized one. Call `forward` to initialize the parameters before accessing their "
            "attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{type(self).__name__}>"

    def __reduce_ex__(self, protocol):
        return type(self), (self.requires_grad,)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


def is_lazy(param):
    """Whether param is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


def _placeholder(cls, requires_grad, device, dtype):
    data = creation.empty(0, device=device, dtype=dtype)
    return cls._make(data._data, False).requires_grad_(requires_grad)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet (see the module docstring)."""

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _placeholder(cls, requires_grad, device, dtype)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet; materialize makes it a plain Tensor. (torch's
    persistent= marks it for assignment to a Module attribute: register it with
    register_buffer(name, buffer, persistent) instead.)"""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        return _placeholder(cls, requires_grad, device, dtype)
