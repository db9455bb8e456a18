"""Distribution: the base of numgrad.distributions, as torch.distributions.Distribution. A
distribution has a batch_shape (independent ones side by side) and an event_shape (one draw);
sample() draws without gradient, rsample() reparameterised (with gradient) where the family
allows, log_prob scores values. Arguments are checked as torch checks them (validate_args)."""
from .. import creation, grad_mode
from ..ops import broadcast_tensors
from ..tensor import Size, Tensor
from . import constraints


class Distribution:
    has_rsample = False
    has_enumerate_support = False
    arg_constraints = {}
    # parameters computed from the one given (logits from probs): neither checked nor shown,
    # as torch's lazy properties are not
    _derived = ()
    _validate_args = True           # the default, a class attribute as torch's

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._validate_params()

    @staticmethod
    def set_default_validate_args(value):
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    def _extended_shape(self, sample_shape=Size()):
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape=Size()):
        with grad_mode.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        raise NotImplementedError

    def log_prob(self, value):
        raise NotImplementedError

    # What a family lacks raises NotImplementedError, as torch's base class does (never an
    # AttributeError): code that probes for cdf, icdf or mode catches that.
    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self):
        return self.variance.sqrt()

    def perplexity(self):
        return self.entropy().exp()

    def expand(self, batch_shape, _instance=None):
        """A view of this distribution with batch_shape broadcast to `batch_shape`, as torch's
        per-family expand: each tensor attribute shaped batch_shape + its own trailing dims is
        expanded, each inner distribution (a base, components) expanded to the new batch_shape
        followed by the dims it has beyond ours; anything else is shared."""
        batch_shape = Size(batch_shape)
        new = _instance if _instance is not None else object.__new__(type(self))
        ours = tuple(self._batch_shape)
        for name, value in self.__dict__.items():
            if isinstance(value, Tensor) and tuple(value.shape[:len(ours)]) == ours:
                value = value.expand(tuple(batch_shape) + tuple(value.shape[len(ours):]))
            elif isinstance(value, Distribution) and tuple(value.batch_shape[:len(ours)]) == ours:
                value = value.expand(tuple(batch_shape) + tuple(value.batch_shape[len(ours):]))
            new.__dict__[name] = value
        new._batch_shape = batch_shape
        return new

    def _given_params(self):
        """The names of arg_constraints the distribution holds (itself or as a property), in
        their order, less the derived ones."""
        return [name for name in self.arg_constraints if name not in self._derived
                and (name in self.__dict__
                     or isinstance(getattr(type(self), name, None), property))]

    def _validate_params(self):
        """torch's argument check: each parameter must satisfy its constraint."""
        for name in self._given_params():
            self._check(name, getattr(self, name), self.arg_constraints[name])

    def _check(self, name, value, constraint, holds=None):
        """A ValueError naming the parameter and the constraint, worded as torch's (f-strings:
        a 0-d tensor shows as its number)."""
        if holds is None:
            holds = constraint.check(value)
        if self._validate_args and not bool(holds.all()):
            raise ValueError(f"Expected parameter {name} (Tensor of shape {tuple(value.shape)}) "
                             f"of distribution {self!r} to satisfy the constraint {constraint}, "
                             f"but found invalid values:\n{value}")

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def _support_values(self, values, expand):
        """Every value of a discrete family (one per row of `values`) laid out as torch's
        enumerate_support: that dim first, then the batch dims (size 1 unless expanded)."""
        event = tuple(values.shape[1:])
        values = values.reshape((-1,) + (1,) * len(self._batch_shape) + event)
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape) + event)
        return values

    def _validate_sample(self, value):
        """torch's check of a value to score (log_prob): a tensor whose right-most dims are the
        event shape, broadcastable with batch_shape + event_shape, inside the support."""
        if not self._validate_args:
            return
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event = tuple(self._event_shape)
        if tuple(value.shape[value.ndim - len(event):]) != event or value.ndim < len(event):
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{value.shape} vs {self._event_shape}.")
        expected = Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(tuple(value.shape)), reversed(tuple(expected))):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{value.shape} vs {expected}.")
        support = getattr(self, "support", None)     # a transformed one may have none
        if support is not None and not bool(support.check(value).all()):
            raise ValueError(f"Expected value argument (Tensor of shape {tuple(value.shape)}) to "
                             f"be within the support ({support!r}) of the distribution "
                             f"{self!r}, but found invalid values:\n{value}")

    def __repr__(self):
        shown = [name for name in self._given_params() if name in self.__dict__]
        params = ", ".join(f"{name}: {value if value.numel() == 1 else value.shape}"
                           for name, value in ((n, self.__dict__[n]) for n in shown))
        return f"{type(self).__name__}({params})"


def as_parameter(value, like=None):
    """A distribution parameter as a tensor (numbers in the default float dtype)."""
    if isinstance(value, Tensor):
        return value
    return creation.tensor(value, dtype=like.dtype if like is not None else None)


class LocScale(Distribution):
    """A family with a real location and a positive scale (Normal, Laplace, Cauchy, Gumbel):
    the parameters broadcast together, and scale is checked when validating."""

    has_rsample = True
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        loc = as_parameter(loc)
        self.loc, self.scale = broadcast_tensors(loc, as_parameter(scale, loc))
        super().__init__(self.loc.shape, validate_args=validate_args)
