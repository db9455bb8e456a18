"""torch.autograd.Variable, kept for old code: every Tensor is a Variable, and Variable(t) is a
leaf sharing t's data."""
import warnings

from ..tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """Variable(data, requires_grad=False): a leaf sharing data's storage, as torch's.

    >>> x = numgrad.ones(2)
    >>> v = numgrad.autograd.Variable(x, requires_grad=True)
    >>> v.requires_grad, x.requires_grad, isinstance(x, numgrad.autograd.Variable)
    (True, False, True)
    """

    def __new__(cls, data, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "numgrad.no_grad():` instead.", UserWarning, stacklevel=2)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        out.requires_grad_(requires_grad)
        return out
