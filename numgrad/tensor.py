"""Tensor: a NumPy array plus its place in the autograd graph. Knows nothing of Numba.

A tensor made by a recorded op refers to its tape segment and node id (`_seg`, `_node`) and to
which of the node's outputs it is (`_slot`, the input_nr of edges that reach it). A leaf has
`_node == -1`; its AccumulateGrad node is created in the tape when an op first uses it.
"""

import collections
import copy
import numbers
import operator
import warnings
import weakref

import numpy as np

from . import dtypes, grad_mode
from .device import CPU, device as _device
from .tape import LEAF, NO_GRAD_VIEW, STALE_VIEW


def new_version_counter():
    """A version counter shared by a tensor, its views and its detached aliases, made when the
    tensor is saved for backward or shared.

    [version, shared]: a list is the cheapest mutable box (recording makes one per saved output),
    and holding only ints (later also notes on the tensor changed last: _changed_note) it can
    never be part of a reference cycle. `shared` is false only for a counter that an in-place
    change made on a tensor nothing saved or aliased (Note [version checks] in tape.py).
    """
    return [0, True]


ChangedNote = collections.namedtuple(
    "ChangedNote", "data_id shape dtype owns_data requires_grad seg node slot is_view")


def _changed_note(t, is_view):
    """What a version error needs of a tensor just changed in place (lower.owner_now): which
    data it holds (the id of its array: the saved value compared against is alive, so the id
    is not reused; after an in-place view op, the array it held before: ops/inplace_more
    ._restride), its shape and dtype now (that of a saved copy an op promoted may differ),
    whether it requires grad, and its node now, weakly; a view's own node torch regenerates."""
    seg = weakref.ref(t._seg) if t._seg is not None else None
    held = t._extra.get("restrided_from") if t._extra else None
    data = t._data if held is None else held
    return ChangedNote(id(data), t._data.shape, t._data.dtype,
                       getattr(data, "base", None) is None, t._requires_grad, seg, t._node,
                       t._slot, is_view)


_DEVICE_NUMPY_ERROR = ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy "
                       "the tensor to host memory first.")


# torch warns once a process (TORCH_WARN_ONCE) when float() reads a tensor that requires grad
# while grad mode is on (LBFGS's float(closure()) under no_grad is silent)
_scalar_warning = {"given": False}


def _warn_scalar_of_graph():
    if not _scalar_warning["given"]:
        _scalar_warning["given"] = True
        warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                      "unexpected behavior.\nConsider using tensor.detach() first.", UserWarning,
                      stacklevel=3)


def _copied_data(data, memo):
    """The data of a deep copy as torch's: each memory block is copied once per deepcopy (memo),
    so views copied together stay views of one copy, with their strides and offset."""
    if type(data) is not np.ndarray:
        return data.copy()
    owner = data if data.base is None else data.base
    if type(owner) is not np.ndarray or not (owner.flags.c_contiguous or
                                             owner.flags.f_contiguous):
        return data.copy(order="K")
    key = ("storage", id(owner))
    new_owner = memo.get(key)
    if new_owner is None:
        new_owner = memo[key] = owner.copy(order="K")
        copy._keep_alive(owner, memo)       # (its id is the key)
    if data is owner:
        return new_owner
    offset = data.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
    return np.ndarray(data.shape, data.dtype, buffer=new_owner, offset=offset,
                      strides=data.strides)


def _device_index(t):
    return -1 if t.device.type == "cpu" else (t.device.index or 0)


class Tensor:
    __slots__ = ("_data", "_requires_grad", "_seg", "_node", "_slot", "_grad", "_vc", "_inference",
                 "_extra", "__weakref__")
    __array_priority__ = 1000   # ndarray (op) Tensor defers to the Tensor's reflected operator

    def __init__(self, *args, dtype=None, requires_grad=False, size=None):
        """torch's legacy constructor: Tensor(2, 3) and Tensor(size=(2, 3)) are uninitialized of
        that size, Tensor([1, 2]) holds the data in the default float type (dtype= says another:
        numgrad's addition), Tensor(other) shares other's data."""
        from .creation import legacy_data
        data = legacy_data(args, size, dtype)
        if isinstance(data, Tensor):
            self._set(data._data, False, vc=data._shared_vc())
        else:
            self._set(data, False)
        if requires_grad:
            self.requires_grad_(True)

    def _set(self, data, requires_grad, seg=None, node=-1, slot=0, inference=False, vc=None):
        self._data = data
        self._requires_grad = requires_grad
        self._seg = seg
        self._node = node
        self._slot = slot
        self._grad = None
        self._vc = vc
        self._inference = inference
        self._extra = None

    @classmethod
    def _make(cls, data, requires_grad, seg=None, node=-1, slot=0, inference=False, vc=None):
        t = object.__new__(cls)
        t._data = data
        t._requires_grad = requires_grad
        t._seg = seg
        t._node = node
        t._slot = slot
        t._grad = None
        t._vc = vc
        t._inference = inference
        t._extra = None
        return t

    # ---- metadata ---------------------------------------------------------------------------
    @property
    def shape(self):
        return tuple.__new__(Size, self._data.shape)      # NumPy's dims are ints already

    def size(self, dim=None):
        if dim is None:
            return tuple.__new__(Size, self._data.shape)
        return self._data.shape[shape_dim("size", dim, self._data.ndim)]

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def device(self):
        if type(self._data) is np.ndarray:
            return CPU
        from .cuda import device_of
        return device_of(self._data)

    @property
    def is_cuda(self):
        return type(self._data) is not np.ndarray

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    def element_size(self):
        return self._data.itemsize

    def is_floating_point(self):
        return dtypes.is_floating(self._data.dtype)

    def is_contiguous(self):
        return self._data.flags.c_contiguous

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    # ---- autograd state ---------------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if type(value) is not bool:
            raise RuntimeError("requires_grad must be a bool")
        if self._node >= 0 and value:
            # the attribute refuses what requires_grad_() lets pass (torch's python_variable.cpp)
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        self.requires_grad_(value, _refusal="only Tensors of floating point and complex dtype "
                                            "can require gradients")

    def requires_grad_(self, requires_grad=True, _refusal="only Tensors of floating point dtype "
                                                          "can require gradients"):
        """(_refusal: the words for an integer tensor, which differ with the way in, as torch's
        do: this method, the attribute, a factory's requires_grad=True.)"""
        if not isinstance(requires_grad, bool):
            kind = type(requires_grad)
            name = kind.__qualname__ if kind.__module__ == "builtins" else \
                f"{kind.__module__}.{kind.__qualname__}"
            raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be bool, "
                            f"not {name}")
        if self._node >= 0:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use "
                    "a computed variable in a subgraph that doesn't require differentiation use "
                    "var_no_grad = var.detach().")
            return self
        if requires_grad and not dtypes.is_floating(self._data.dtype):
            raise RuntimeError(_refusal)
        if requires_grad and self._inference and not grad_mode.state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode "
                               "is not allowed.")
        if self._node == NO_GRAD_VIEW or self._node == STALE_VIEW:
            # it requires grad through its base whatever its own flag, as in torch; asking for it
            # makes a view made in no_grad mode a leaf of its own, whose gradients accumulate in
            # its .grad
            if not requires_grad:
                return self
            if self._node == NO_GRAD_VIEW:
                self._node = LEAF
        changed = self._requires_grad != requires_grad
        self._requires_grad = bool(requires_grad)
        if self._extra:
            from .ops import views
            if not requires_grad:
                views.base_stopped_requiring_grad(self)
            elif changed:
                views.base_started_requiring_grad(self)
            if changed:
                views.reread_unseen(self)
        return self

    def __deepcopy__(self, memo):
        """A copy of a leaf with its data, requires_grad and .grad (a subclass that says how it is
        rebuilt, as Parameter does, is rebuilt so); torch refuses to copy a graph's output."""
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
                "because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001")
        if type(self).__reduce_ex__ is not Tensor.__reduce_ex__:
            rebuild, args = self.__reduce_ex__(4)[:2]
            result = rebuild(*copy.deepcopy(args, memo))
        else:
            result = Tensor._make(_copied_data(self._data, memo), self._requires_grad,
                                  inference=self._inference)
            result._grad = copy.deepcopy(self._grad, memo)
            if not self._inference:
                result._bump_version()     # torch sets the copy's storage: version 1
        memo[id(self)] = result
        return result

    def is_inference(self):
        """Whether this tensor was made in inference_mode (it cannot be saved for backward)."""
        return self._inference

    @property
    def is_leaf(self):
        if self._extra is not None or self._node == NO_GRAD_VIEW or self._node == STALE_VIEW:
            self.grad_fn            # torch's error for a view whose base has changed
        return self._node < 0

    @property
    def grad_fn(self):
        if self._node == NO_GRAD_VIEW:
            from .ops.views import refresh
            refresh(self)       # one made in grad mode, when its base changed (views.outdated)
        if self._node < 0:
            if self._node == STALE_VIEW or self._node == NO_GRAD_VIEW:
                from .ops.views import changed_since_made, stale_view_error
                if self._node == STALE_VIEW or changed_since_made(self):
                    raise stale_view_error(self)       # (which makes a NO_GRAD_VIEW stale)
            return None
        if self._extra is not None:
            from .ops.views import refresh
            refresh(self)       # Note [views changed unrecorded] in ops/views.py
        from .node import node_view, through_promotes
        seg, node, _ = through_promotes(self._seg, self._node, self._slot)
        return node_view(seg, node) if node >= 0 else None

    @property
    def grad(self):
        if self._node >= 0 and not self.retains_grad and self._grad is None:
            import warnings
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed want "
                "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
                "non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you "
                "access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for "
                "more information.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value.device != self.device:
                raise RuntimeError(
                    f"attempting to assign a gradient located on device with index "
                    f"'{_device_index(value)}' to a tensor located on device with index "
                    f"'{_device_index(self)}'. Please ensure that the gradient and the tensor are "
                    "on the same device")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{dtypes.c_type_name(value._data.dtype)}' "
                    f"to a tensor with grad_dtype '{dtypes.scalar_type_name(self._data.dtype)}'. The "
                    "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). "
                    "You can set the tensor's grad_dtype attribute with a specific dtype, or None "
                    "to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a "
                    "tensor and its gradient may break downstream systems that assume they match.")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                    f"tensor of size '{list(self._data.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    def _extras(self):
        if self._extra is None:
            self._extra = {}
        return self._extra

    @property
    def retains_grad(self):
        # set only on a non-leaf; it stays when detach_() makes that a leaf, as in torch
        return bool(self._extra and self._extra.get("retains_grad"))

    def retain_grad(self):
        """Keep this non-leaf tensor's gradient in .grad after backward (leaves always keep it)."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.retains_grad or self._node == LEAF or self._node == NO_GRAD_VIEW or (
                self._node == STALE_VIEW and not self._extra["view"].own_node):
            return              # torch asks for no grad_fn then; its leaf test reads none
        if self._extra is not None:
            self.grad_fn        # a view read anew, or torch's error for a stale one
        if self._node < 0:
            return
        self._extras()["retains_grad"] = True
        self._seg.retained[(self._node, self._slot)] = weakref.ref(self)

    def register_hook(self, hook):
        """Call hook(grad) when this tensor's gradient is computed; a returned tensor replaces it."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        from .hooks import register_tensor_hook
        return register_tensor_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call hook(tensor) after a backward has accumulated into this leaf's .grad."""
        if not self.is_leaf:    # (torch's error for a stale view first)
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        from .hooks import register_post_accumulate_hook
        return register_post_accumulate_hook(self, hook)

    @property
    def _version(self):
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return 0 if self._vc is None else self._vc[0]

    def _bump_version(self):
        """Record an in-place change (also under no_grad): saved copies of this data are stale.

        Saving a value (or making a view) gives the tensor its counter, so a tensor without one
        is referenced by no saved value: its change needs no version check (Note [version
        checks] in tape.py), and the in-place epoch stays, as it does for .grad accumulation."""
        from .tape import bump_epoch
        if self._extra and type(self._data) is not np.ndarray:
            from .ops.views import sync_device
            sync_device(self)       # a device view is a copy: Note [device views] in ops/views.py
        vc = self._vc
        if vc is None:
            self._vc = [1, False]
            return
        if vc[1]:
            bump_epoch()
            # the version error names the saved tensor's node as it is now, which the tensor
            # changed last and its base tell (lower.owner_now)
            view = self._extra.get("view") if self._extra else None
            changed = (_changed_note(self, view is not None),) if view is None else \
                (_changed_note(self, True), _changed_note(view.base, False))
            if len(vc) == 2:
                vc.append(changed)
            else:
                vc[2] = changed
        vc[0] += 1

    def _shared_vc(self):
        """This tensor's version counter, marked shared: a view, alias or saved value holds it."""
        if self._vc is None:
            self._vc = new_version_counter()
        else:
            self._vc[1] = True
        return self._vc

    def detach(self):
        """A new leaf sharing this tensor's data and version counter, outside the graph."""
        return Tensor._make(self._data, False, inference=self._inference, vc=self._shared_vc())

    def detach_(self):
        """Cut this tensor out of the graph in place: it becomes a leaf that requires no grad."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as "
                "True, gradients are views of DDP buckets, and hence detach_() cannot be called on "
                "these gradients. To fix this error, please refer to the Optimizer.zero_grad() "
                "function in torch/optim/optimizer.py as the solution.")
        if self._node >= 0 and self._vc is not None:
            # a saved value holds the counter: Note [saved inputs detached in place] in tape.py
            self._seg.detached.add((self._node, self._slot))
        self._seg, self._node, self._slot = None, -1, 0
        self._requires_grad = False
        if self._extra:
            from .ops.views import base_stopped_requiring_grad, reread_unseen
            base_stopped_requiring_grad(self)
            reread_unseen(self)
        return self

    @property
    def _base(self):
        """The tensor this one is a view of (Note [views] in ops/views.py), else None."""
        info = self._extra.get("view") if self._extra else None
        return info.base if info is not None else None

    def _is_view(self):
        return self._base is not None

    @property
    def data(self):
        """This tensor's data as a leaf outside the graph. Unlike detach() it has a version counter
        of its own, as torch's .data does, so updates through it (p.data -= lr * g) are invisible
        to the version checks of saved values."""
        return Tensor._make(self._data, False, inference=self._inference)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self._requires_grad and value._data.dtype.kind != "f":
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        self._data = value._data
        self._inference = value._inference      # torch's tensor takes the other's whole storage
        if self._extra:
            self._extra.pop("restrided_from", None)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor w.r.t. the graph leaves and accumulate it in .grad."""
        from .autograd.api import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # ---- conversion -------------------------------------------------------------------------
    def numpy(self, *, force=False):
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if type(self._data) is not np.ndarray:
            if force:
                return self._data.copy_to_host()
            raise TypeError(_DEVICE_NUMPY_ERROR)
        return self._data

    def __array__(self, dtype=None, copy=None):
        # torch's __array__ is numpy(): np.asarray of a tensor that requires grad raises
        data = self.numpy()
        if dtype is not None:
            return data.astype(dtype)
        return data

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        return self._data.tolist()

    def __float__(self):
        if self._requires_grad and grad_mode.is_grad_enabled():   # torch is silent under no_grad
            _warn_scalar_of_graph()
        return float(self._python_scalar())

    def __format__(self, spec):
        if self._data.ndim == 0 and type(self) is Tensor:
            return self.item().__format__(spec)     # torch: a 0-d tensor formats as its number
        return object.__format__(self, spec)

    def __int__(self):
        return int(self._python_scalar())

    def _python_scalar(self):
        if self._data.size != 1:       # torch's error for float()/int(), not item()'s
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous"
                               if self._data.size == 0 else
                               "Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()).item())

    def __repr__(self):
        from ._format import tensor_repr
        return tensor_repr(self)

    __hash__ = object.__hash__

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __reversed__(self):
        return self if self._data.ndim == 0 else self.flip(0)

    def __contains__(self, element):
        # torch compares elementwise (element == self).any(): a row of a matrix is "in" it when
        # it matches any row, and a scalar is "in" a 0-d tensor equal to it
        if isinstance(element, (Tensor, numbers.Number)):
            return bool((element == self).any().item())
        raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in "
                           f"a {type(element)}.")

    def to(self, *args, **kwargs):
        """to(dtype), to(device), to(device, dtype), to(other), each then (non_blocking, copy): a
        new tensor only when something changes or copy=True."""
        dtype, dev, flags = kwargs.get("dtype"), kwargs.get("device"), []
        for arg in args:
            if isinstance(arg, Tensor):
                dtype, dev = arg.dtype, arg.device
            elif isinstance(arg, bool):
                flags.append(arg)       # non_blocking, then copy, positionally as in torch
            elif isinstance(arg, (str, _device)):
                dev = arg
            elif arg is not None:
                dtype = arg
        copy = kwargs.get("copy", flags[1] if len(flags) > 1 else False)
        if dev is not None and _device(dev) != self.device:
            from .cuda import to_device
            return to_device(self, _device(dev), dtype)
        if dtype is not None and np.dtype(dtype) != self._data.dtype:
            return _ops.cast(self, np.dtype(dtype))
        # torch's copy=True is a ToCopyBackward0 node; a clone is the same copy with the same
        # gradient (CloneBackward0 by name)
        return _ops.clone(self) if copy else self

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        if isinstance(device, int):
            device = f"cuda:{device}"
        return self.to("cuda" if device is None else device)

    def float(self):
        return self.to(dtypes.float32)

    def double(self):
        return self.to(dtypes.float64)

    def long(self):
        return self.to(dtypes.int64)

    def int(self):
        return self.to(dtypes.int32)

    def bool(self):
        return self.to(dtypes.bool_)

    def type_as(self, other):
        return self.to(other.dtype)

    @property
    def T(self):
        if self._data.ndim > 2:
            warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                          "shape is deprecated and it will throw an error in a future release. "
                          "Consider `x.mT` to transpose batches of matrices or "
                          "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
                          "dimensions of a tensor.", UserWarning, stacklevel=2)
        return _ops.permute(self, tuple(range(self._data.ndim))[::-1])

    @property
    def mT(self):
        if self._data.ndim == 0:
            warnings.warn("Tensor.mT is deprecated on 0-D tensors. This function is the identity "
                          "in these cases.", UserWarning, stacklevel=2)
            return self
        if self._data.ndim < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self._data.ndim}-D tensor.")
        return _ops.transpose(self, -2, -1)

    # ---- operators: the arithmetic ones are the ops themselves, installed by ops.install_methods
    def __matmul__(self, other):
        return _ops.matmul(self, other)

    def __rmatmul__(self, other):
        return _ops.matmul(_ops.as_tensor(other), self)

    def __pos__(self):
        if self._data.dtype == np.bool_:
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
        return self

    def __abs__(self):
        return _ops.abs(self)

    # A comparison with what is not a tensor, number or array (None, a string, a list) is not
    # elementwise: Python's own answer (== is identity, < raises TypeError), as in torch.
    def __eq__(self, other):
        return _ops.eq(self, other) if isinstance(other, _OPERANDS) else NotImplemented

    def __ne__(self, other):
        return _ops.ne(self, other) if isinstance(other, _OPERANDS) else NotImplemented

    def __lt__(self, other):
        return _ops.lt(self, other) if isinstance(other, _OPERANDS) else NotImplemented

    def __le__(self, other):
        return _ops.le(self, other) if isinstance(other, _OPERANDS) else NotImplemented

    def __gt__(self, other):
        return _ops.gt(self, other) if isinstance(other, _OPERANDS) else NotImplemented

    def __ge__(self, other):
        return _ops.ge(self, other) if isinstance(other, _OPERANDS) else NotImplemented

    def __and__(self, other):
        return _ops.bitwise_and(self, other)

    def __or__(self, other):
        return _ops.bitwise_or(self, other)

    def __xor__(self, other):
        return _ops.bitwise_xor(self, other)

    __rand__, __ror__, __rxor__ = __and__, __or__, __xor__

    def __invert__(self):
        return _ops.invert(self)

    def __getitem__(self, index):
        return _ops.getitem(self, index)

    def __setitem__(self, index, value):
        _ops.setitem(self, index, value)

    def __iadd__(self, other):
        return self.add_(other)

    def __isub__(self, other):
        return self.sub_(other)

    def __imul__(self, other):
        return self.mul_(other)

    def __itruediv__(self, other):
        return self.div_(other)


class Size(tuple):
    """torch.Size: a tuple of ints that prints as torch.Size([2, 3]); a slice of it, a sum with
    a tuple and a repetition are Sizes too."""

    def __new__(cls, sizes=()):
        dims = tuple(sizes)
        if any(type(d) is not int for d in dims):
            dims = tuple(_size_item(d, i) for i, d in enumerate(dims))
        return tuple.__new__(cls, dims)

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return tuple.__new__(Size, item) if isinstance(index, slice) else item

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to "
                            "numgrad.Size")
        return tuple.__new__(Size, tuple.__add__(self, other))

    def __radd__(self, other):
        return tuple.__new__(Size, tuple.__add__(other, self))

    def __mul__(self, times):
        return tuple.__new__(Size, tuple.__mul__(self, times))

    __rmul__ = __mul__

    def __repr__(self):
        return f"numgrad.Size({list(self)})"

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n


def _size_item(value, position):
    """One dim of a Size as an int: anything with __index__ (a bool, a NumPy integer, an integer
    tensor of one element), in torch's words otherwise."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"numgrad.Size() takes an iterable of 'int' (item {position} is "
                        f"'{type(value).__name__}')") from None


def shape_dim(method, dim, ndim):
    """The dim of size(dim) and stride(dim) wrapped, checked in torch's words: an int, and a 0-d
    tensor has none to give (where other methods treat it as having dims -1 and 0)."""
    if not isinstance(dim, bool):
        try:
            dim = operator.index(dim)       # an integer tensor of one element too
        except TypeError:
            pass
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"{method}(): argument 'dim' (position 1) must be int, not "
                        f"{type(dim).__name__}")
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _wrap_dim(dim, ndim)


def _wrap_dim(dim, ndim):
    size = max(ndim, 1)
    if not -size <= dim < size:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-size}, {size - 1}], "
                         f"but got {dim})")
    return dim % size


_OPERANDS = (Tensor, numbers.Number, np.ndarray, np.generic)
from . import ops as _ops  # noqa: E402  (the ops need the Tensor class first)
_ops.install_methods(Tensor)
