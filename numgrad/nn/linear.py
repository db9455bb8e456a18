"""Linear layers: Identity, Linear, Bilinear, with torch's default initialisation."""
import math

from .. import creation
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class Identity(Module):
    """Returns its input; ignores any constructor arguments.

    >>> import numgrad as ng
    >>> ng.nn.Identity()(ng.ones(2))
    tensor([1., 1.])
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x @ weight.T + bias. weight (out, in) and bias start as U(-1/sqrt(in), 1/sqrt(in)).

    >>> import numgrad as ng
    >>> ng.nn.Linear(3, 2)(ng.ones(5, 3)).shape
    numgrad.Size([5, 2])
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(creation.empty(out_features, in_features, dtype=dtype))
        # torch registers an absent bias as None
        self.register_parameter("bias", Parameter(creation.empty(out_features, dtype=dtype))
                                if bias else None)
        self.reset_parameters()
        if device is not None:   # made on the CPU, where nn.init fills them
            self.to(device)

    def reset_parameters(self):
        # kaiming_uniform_ with a = sqrt(5) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)), torch's default
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """y[k] = x1 @ weight[k] @ x2 + bias[k]; all start as U(-1/sqrt(in1), 1/sqrt(in1)).

    >>> import numgrad as ng
    >>> ng.nn.Bilinear(2, 3, 4)(ng.ones(5, 2), ng.ones(5, 3)).shape
    numgrad.Size([5, 4])
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(creation.empty(out_features, in1_features, in2_features,
                                               dtype=dtype))
        # torch registers an absent bias as None
        self.register_parameter("bias", Parameter(creation.empty(out_features, dtype=dtype))
                                if bias else None)
        self.reset_parameters()
        if device is not None:   # made on the CPU, where nn.init fills them
            self.to(device)

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.in1_features)
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
