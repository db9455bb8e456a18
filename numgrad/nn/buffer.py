"""Buffer: a Tensor that registers itself as a buffer when assigned to a Module attribute."""
from .. import creation
from ..tensor import Tensor


class Buffer(Tensor):
    """State that is not a parameter (torch 2.5+'s nn.Buffer): `self.b = nn.Buffer(t)` in a
    Module is `self.register_buffer("b", t, persistent)`. Shares t's memory, detached from its
    graph, and keeps its requires_grad.

    >>> import numgrad as ng
    >>> class Counter(ng.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.steps = ng.nn.Buffer(ng.zeros(1))
    ...         self.scratch = ng.nn.Buffer(ng.zeros(2), persistent=False)
    >>> list(Counter().state_dict())
    ['steps']
    """

    __slots__ = ("persistent",)

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = creation.empty(0)
        buffer = cls._make(data._data, False, vc=data._shared_vc())
        buffer.persistent = persistent
        return buffer.requires_grad_(data.requires_grad)

    def __init__(self, data=None, *, persistent=True):
        pass   # everything happened in __new__ (Tensor.__init__ would start over)
