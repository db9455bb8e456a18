"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""
import itertools
import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from .. import dtypes
from ..ops.tensor_info import typename
from ..tensor import Tensor
from .module import Module, _addindent
from .parameter import Parameter


class Sequential(Module):
    """Modules applied one after the other.

    >>> import numgrad as ng
    >>> net = ng.nn.Sequential(ng.nn.Linear(2, 3), ng.nn.ReLU())
    >>> net
    Sequential(
      (0): Linear(in_features=2, out_features=3, bias=True)
      (1): ReLU()
    )
    >>> net(ng.ones(4, 2)).shape
    numgrad.Size([4, 3])
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def _key(self, index):
        size = len(self._modules)
        index = operator.index(index)      # torch's TypeError for a str or float index
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of range")
        return list(self._modules)[index % size]

    def __getitem__(self, index):
        if isinstance(index, slice):
            return Sequential(OrderedDict(list(self._modules.items())[index]))
        return self._modules[self._key(index)]

    def __setitem__(self, index, module):
        setattr(self, self._key(index), module)    # so a non-module gets __setattr__'s TypeError

    def __delitem__(self, index):
        keys = list(self._modules)[index] if isinstance(index, slice) else [self._key(index)]
        for key in keys:
            del self._modules[key]
        # keep the names 0..n-1, as torch does
        items = list(self._modules.values())
        self._modules.clear()
        for i, module in enumerate(items):
            self._modules[str(i)] = module

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        """Put module at index, shifting the later ones along (names stay 0..n, as torch's)."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        size = len(self._modules)
        if not -size <= index <= size:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += size
        for i in range(size, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        return Sequential(*self, *other)

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        return self.extend(list(other))

    def __mul__(self, times):
        """The modules repeated `times` times: the same objects, so their parameters are shared."""
        self._check_factor(times)
        return Sequential(*(list(self) * times))

    __rmul__ = __mul__

    def __imul__(self, times):
        self._check_factor(times)
        return self.extend(list(self) * (times - 1))

    def _check_factor(self, times):
        if not isinstance(times, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(times)}")
        if times <= 0:
            raise ValueError(f"Non-positive multiplication factor {times} for {type(self)}")


class ModuleList(Module):
    """A list of modules whose parameters the owner sees.

    >>> import numgrad as ng
    >>> layers = ng.nn.ModuleList([ng.nn.Linear(2, 2) for _ in range(3)])
    >>> len(list(layers.parameters()))
    6
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _key(self, index):
        size = len(self._modules)
        index = operator.index(index)
        if not -size <= index < size:
            raise IndexError(f"index {index} is out of range")
        return str(index % size)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ModuleList(list(self._modules.values())[index])
        return self._modules[self._key(index)]

    def __setitem__(self, index, module):
        setattr(self, self._key(index), module)    # so a non-module gets __setattr__'s TypeError

    def __delitem__(self, index):
        items = list(self._modules.values())
        del items[index]
        self._modules.clear()
        for i, module in enumerate(items):
            self._modules[str(i)] = module

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def __add__(self, other):
        """A new ModuleList of self's modules then other's (the same objects)."""
        return ModuleList(itertools.chain(self, other))

    def __iadd__(self, modules):
        return self.extend(modules)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        for module in modules:
            self.append(module)
        return self

    def insert(self, index, module):
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def __repr__(self):
        # runs of identical modules print once, as torch does: "(0-2): 3 x Linear(...)"
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        blocks = []
        for i, text in enumerate(reprs):
            if blocks and blocks[-1][2] == text:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, text])
        lines = []
        for start, end, text in blocks:
            head = f"({start}): " if start == end else f"({start}-{end}): {end - start + 1} x "
            lines.append(_addindent(head + text, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of modules whose parameters the owner sees.

    >>> import numgrad as ng
    >>> heads = ng.nn.ModuleDict({"a": ng.nn.Linear(2, 1)})
    >>> list(heads.keys())
    ['a']
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key):
        return self._modules.pop(key)

    def clear(self):
        self._modules.clear()

    def update(self, modules):
        """Add modules: a mapping's in its order, or (key, module) pairs in theirs."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value "
                            f"pairs, but got {type(modules).__name__}")
        if isinstance(modules, Mapping):
            items = modules.items()
        else:
            items = _checked_pairs(modules, "ModuleDict")
        for key, module in items:
            self[key] = module


def _checked_pairs(pairs, container):
    """The (key, value) pairs given to a dict container's update, checked as torch checks them."""
    items = list(pairs)
    for j, pair in enumerate(items):
        if not isinstance(pair, Iterable):
            raise TypeError(f"{container} update sequence element #{j} should be Iterable; "
                            f"is{type(pair).__name__}")
        if len(pair) != 2:
            raise ValueError(f"{container} update sequence element #{j} has length {len(pair)}; "
                             "2 is required")
    return items


def _as_parameter(value):
    """torch's rule: a plain tensor put into a parameter container becomes a Parameter."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _describe(value, type_of):
    """One entry of a parameter container's repr; type_of names a tensor's type: ParameterList
    prints the dtype (numgrad.float32), ParameterDict the tensor type (numgrad.FloatTensor), as
    torch's two containers do."""
    if isinstance(value, Tensor):
        size = "x".join(str(n) for n in value.shape)
        device = f" ({value.device})" if value.device.type == "cuda" else ""
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        return f"{kind} containing: [{type_of(value)} of size {size}{device}]"
    return f"Object of type: {type(value).__name__}"


class ParameterList(Module):
    """A list of parameters whose owner sees them (named "0", "1", ...); plain tensors put in
    become Parameters.

    >>> import numgrad as ng
    >>> params = ng.nn.ParameterList([ng.nn.Parameter(ng.ones(2, 3)), ng.zeros(4)])
    >>> params
    ParameterList(
        (0): Parameter containing: [numgrad.float32 of size 2x3]
        (1): Parameter containing: [numgrad.float32 of size 4]
    )
    >>> [name for name, _ in params.named_parameters()]
    ['0', '1']
    """

    def __init__(self, values=None):
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self.extend(values)

    def _index(self, index):
        index = operator.index(index)      # torch's TypeError for a str or slice index
        if not -self._size <= index < self._size:
            raise IndexError(f"index {index} is out of range")
        return str(index % self._size)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ParameterList([self[i] for i in range(self._size)[index]])
        return getattr(self, self._index(index))

    def __setitem__(self, index, value):
        setattr(self, self._index(index), _as_parameter(value))

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[i] for i in range(self._size))

    def __iadd__(self, values):
        return self.extend(values)

    def append(self, value):
        object.__setattr__(self, "_size", self._size + 1)
        self[self._size - 1] = value
        return self

    def extend(self, values):
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(f"  ({i}): {_describe(value, lambda t: dtypes.name(t.dtype))}"
                         for i, value in enumerate(self))


class ParameterDict(Module):
    """An ordered dict of parameters whose owner sees them under their keys; plain tensors put in
    become Parameters.

    >>> import numgrad as ng
    >>> params = ng.nn.ParameterDict({"scale": ng.ones(2)})
    >>> params
    ParameterDict(  (scale): Parameter containing: [numgrad.FloatTensor of size 2])
    >>> list(params.state_dict())
    ['scale']
    """

    def __init__(self, parameters=None):
        super().__init__()
        object.__setattr__(self, "_keys", {})
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def __or__(self, other):
        merged = self.copy()
        merged.update(other)
        return merged

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((key, self[key]) for key in self._keys)

    def values(self):
        return (self[key] for key in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        """Remove and return the last inserted (key, parameter) pair."""
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def fromkeys(self, keys, default=None):
        """A new ParameterDict with keys, each set to default (torch's signature: an instance
        method)."""
        return ParameterDict((key, default) for key in keys)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for key in list(self._keys):
            del self[key]

    def copy(self):
        """A new ParameterDict holding the same parameters."""
        return ParameterDict(OrderedDict(self.items()))

    def update(self, parameters):
        """Add parameters: a ParameterDict's or OrderedDict's in their order, a plain mapping's
        sorted by key (torch's rule), or (key, parameter) pairs in theirs."""
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value "
                            f"pairs, but got {type(parameters).__name__}")
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            items = parameters.items()
        elif isinstance(parameters, Mapping):
            items = sorted(parameters.items())
        else:
            items = _checked_pairs(parameters, "ParameterDict")
        for key, value in items:
            self[key] = value

    def extra_repr(self):
        return "\n".join(f"  ({key}): {_describe(value, typename)}" for key, value in self.items())
