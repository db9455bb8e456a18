"""rrelu: leaky ReLU whose negative slope is drawn at random in training."""
from .. import creation
from ..ops import elementwise as _E
from .bool_argument import check_bool
from .functional_activation import _maybe_inplace, float_kernel, leaky_relu


@float_kernel("leaky_relu_cpu")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """x where x > 0, else a * x, with a drawn uniformly from [lower, upper] for each element in
    training and (lower + upper) / 2 otherwise (Xu et al., 2015).

    >>> import numgrad as ng
    >>> import numgrad.nn.functional as F
    >>> F.rrelu(ng.tensor([-3.0, 2.0]), 0.25, 0.75)
    tensor([-1.5000,  2.0000])
    """
    check_bool(training, "rrelu_" if inplace else "rrelu", "training", 4)
    attributes = {"lower": lower, "upper": upper, "training": training}
    if not training:
        return _maybe_inplace(lambda x: leaky_relu(x, (lower + upper) / 2), input, inplace,
                              "RreluWithNoiseBackward0", "RreluWithNoiseBackward1", attributes)

    def randomized(x):
        # the slopes are constants of the graph: torch saves them as "noise"
        slopes = creation.generator().uniform(lower, upper, tuple(x.shape)).astype(x.dtype)
        slopes = creation.as_tensor(slopes, device=x.device)
        return _E.where(x > 0.0, x, x * slopes)
    return _maybe_inplace(randomized, input, inplace, "RreluWithNoiseBackward0",
                          "RreluWithNoiseBackward1", attributes)
