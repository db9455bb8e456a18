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


# Note [placeholders refuse Tensor functions]
# torch's placeholders refuse every Tensor function but a few that read no data (its
# __torch_function__ and _allowed_methods), with a ValueError naming the function: its C methods
# as "<method 'add' of 'torch._C.TensorBase' objects>", those it writes in Python as functions.
# Properties (dtype, requires_grad, grad, data, ...) pass.
_ALLOWED = frozenset({"size", "copy_", "is_complex", "is_floating_point", "half", "float",
                      "double", "char", "short", "int", "long", "cuda", "cpu", "to",
                      "get_device", "materialize", "share_memory_"})
_PYTHON_METHODS = frozenset({"backward", "register_hook", "register_post_accumulate_grad_hook",
                             "split", "unflatten", "unique", "unique_consecutive", "norm", "lu",
                             "stft", "istft", "storage", "storage_type", "is_shared",
                             "dim_order", "resize", "resize_as", "to_sparse_coo", "__len__",
                             "__rsub__", "__iter__", "__reversed__", "__array__",
                             "__contains__", "__rpow__", "__rmatmul__", "__rdiv__",
                             "__rtruediv__", "__floordiv__", "__rfloordiv__"})
_C_NAMES = {"nelement": "numel"}


def _refuse(cls, name):
    if name in _PYTHON_METHODS:
        function = f"<function Tensor.{name} at {hex(id(getattr(Tensor, name, _refuse)))}>"
    elif name == "__getitem__":
        function = "<slot wrapper '__getitem__' of 'torch._C.TensorBase' objects>"
    else:
        function = f"<method '{_C_NAMES.get(name, name)}' of 'torch._C.TensorBase' objects>"
    raise ValueError(f"Attempted to use an uninitialized parameter in {function}. This error "
                     "happens when you are using a `LazyModule` or explicitly manipulating "
                     f"`torch.nn.parameter.{cls.__name__}` objects. When using LazyModules Call "
                     "`forward` with a dummy batch to initialize the parameters before calling "
                     "torch functions")


def _refused_operator(name):
    def refused(self, *args, **kwargs):
        _refuse(type(self), name)
    return refused


class UninitializedTensorMixin:
    __slots__ = ()
    cls_to_become = None

    def __getattribute__(self, name):
        """Tensor methods refuse to run (Note [placeholders refuse Tensor functions])."""
        value = object.__getattribute__(self, name)
        if name.startswith("_") or name in _ALLOWED or not callable(value) \
                or not hasattr(Tensor, name):
            return value
        return _refused_operator(name).__get__(self)

    # the operators torch maps to its C methods (1 + p is add too), and those it writes in Python
    __add__ = __radd__ = _refused_operator("add")
    __sub__ = _refused_operator("sub")
    __mul__ = __rmul__ = _refused_operator("mul")
    __truediv__ = _refused_operator("div")
    __matmul__ = _refused_operator("matmul")
    __neg__ = _refused_operator("neg")
    __abs__ = _refused_operator("abs")
    __getitem__ = _refused_operator("__getitem__")
    __rsub__ = _refused_operator("__rsub__")
    __len__ = _refused_operator("__len__")

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
    # (Tensor's own requires_grad_: the placeholder's refuses)
    return Tensor.requires_grad_(cls._make(data._data, False), requires_grad)


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
