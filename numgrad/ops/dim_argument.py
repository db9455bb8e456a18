"""torch's refusal of a dim that is no int where an op works along one dim (cumsum, median,
argmax, kthvalue, ...): its Python binding raises a TypeError naming the argument, with its
position when it was given positionally, counted as tensor_operands.py counts them (2 in
torch.cumsum(x, (0,)), 1 in x.cumsum((0,)), whose self is not counted)."""
import functools
import inspect
import operator


def int_dim(optional=False):
    """Decorator: the op's `dim` must be an int; None too where `optional` (argmax's every
    element). A dim left out is the op's default, not checked."""
    def decorate(op):
        name = op.__name__
        index = list(inspect.signature(op).parameters).index("dim")

        def check(args, kwargs, first_position):
            if len(args) > index:
                value, where = args[index], f" (position {index + first_position})"
            elif "dim" in kwargs:
                value, where = kwargs["dim"], ""
            else:
                return
            if value is None and optional or _is_int(value):
                return
            raise TypeError(f"{name}(): argument 'dim'{where} must be int, not "
                            f"{type(value).__name__}")

        @functools.wraps(op)
        def function(*args, **kwargs):
            check(args, kwargs, 1)
            return op(*args, **kwargs)

        @functools.wraps(op)
        def method(*args, **kwargs):
            check(args, kwargs, 0)
            return op(*args, **kwargs)

        function.method = method
        return function
    return decorate


def _is_int(value):
    if isinstance(value, bool):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True
