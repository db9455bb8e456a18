"""torch's refusal of a number where an op's second operand must be a Tensor (atan2, maximum,
hypot, logical_and, ...: ops with no Scalar overload).

torch's Python binding raises a TypeError naming the argument and its position: 2 in
torch.atan2(x, 2), 1 in x.atan2(2), whose self is not counted. So an op decorated here is the
public function, checking position 2, and carries its Tensor method as `.method`, checking
position 1 (ops/__init__.py's install_methods installs that one); its in-place method (atan2_,
addcmul_) checks through `.tensor_arguments`, under its own name.
"""
import functools

from ..tensor import Tensor


def tensor_operand(*arguments):
    """Decorator: the op refuses non-Tensor operands after its first, named `arguments` in their
    order ("other" when none are given), as torch."""
    arguments = arguments or ("other",)

    def decorate(op):
        name = op.__name__

        @functools.wraps(op)
        def function(*args, **kwargs):
            check_operands(name, arguments, args, kwargs, first_position=2)
            return op(*args, **kwargs)

        @functools.wraps(op)
        def method(*args, **kwargs):
            check_operands(name, arguments, args, kwargs, first_position=1)
            return op(*args, **kwargs)

        function.method = method
        function.tensor_arguments = arguments
        return function
    return decorate


def check_operands(name, arguments, args, kwargs, first_position):
    """torch's TypeError where one of `arguments` (after the first of args) is no Tensor."""
    for k, argument in enumerate(arguments):
        if len(args) > k + 1:
            value = args[k + 1]
        elif argument in kwargs:
            value = kwargs[argument]
        else:
            continue        # left to the op, whose own TypeError names the missing argument
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{argument}' (position {first_position + k}) "
                            f"must be Tensor, not {type(value).__name__}")
