"""Transforms of random variables and TransformedDistribution, as torch.distributions has them:
y = T(x) for x drawn from a base distribution, with log_prob(y) = base.log_prob(x) -
log|dT/dx| at x = T^-1(y). ExpTransform, AffineTransform, SigmoidTransform, TanhTransform,
PowerTransform and ComposeTransform are elementwise (event_dim 0)."""
import math

from ..nn import functional as F
from ..ops import atanh, logit, sigmoid, tanh
from ..tensor import Tensor
from .distribution import Distribution, as_parameter


class Transform:
    """y = T(x), its inverse and log|dT/dx|; `inv` is the inverse transform."""

    def __call__(self, x):
        return self._call(x)

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    @property
    def inv(self):
        return _InverseTransform(self)

    def __repr__(self):
        return f"{type(self).__name__}()"

    def __eq__(self, other):
        """The same kind with the same parameters, as torch compares transforms."""
        if type(other) is not type(self):
            return False
        mine, theirs = vars(self), vars(other)
        return all(_same(mine[k], theirs[k]) for k in mine)

    __hash__ = object.__hash__


def _same(a, b):
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return bool((as_parameter(a) == as_parameter(b)).all())
    return a == b

    @property
    def sign(self):
        """+1 where T increases, -1 where it decreases (a tensor for parameterised ones)."""
        raise NotImplementedError


class _InverseTransform(Transform):
    def __init__(self, transform):
        self._transform = transform

    def _call(self, x):
        return self._transform._inverse(x)

    def _inverse(self, y):
        return self._transform(y)

    def log_abs_det_jacobian(self, x, y):
        return -self._transform.log_abs_det_jacobian(y, x)

    @property
    def sign(self):
        return self._transform.sign

    @property
    def inv(self):
        return self._transform

    def __repr__(self):
        return f"{type(self).__name__}({self._transform!r})"


class ExpTransform(Transform):
    sign = 1

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class AffineTransform(Transform):
    """y = loc + scale * x."""

    def __init__(self, loc, scale):
        self.loc, self.scale = loc, scale

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    @property
    def sign(self):
        if isinstance(self.scale, Tensor):
            return self.scale.sign()
        return 1 if self.scale > 0 else -1 if self.scale < 0 else 0

    def log_abs_det_jacobian(self, x, y):
        return as_parameter(self.scale, x).abs().log().expand(x.shape)


class SigmoidTransform(Transform):
    sign = 1

    def _call(self, x):
        return sigmoid(x)

    def _inverse(self, y):
        eps = 1.1920928955078125e-07 if y.dtype.itemsize == 4 else 2.220446049250313e-16
        return logit(y.clamp(eps, 1 - eps))

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class TanhTransform(Transform):
    sign = 1

    def _call(self, x):
        return tanh(x)

    def _inverse(self, y):
        return atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2), written stably as torch does
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class PowerTransform(Transform):
    """y = x ** exponent (x > 0)."""

    def __init__(self, exponent):
        self.exponent = exponent

    def _call(self, x):
        return x ** self.exponent

    def _inverse(self, y):
        return y ** (1 / as_parameter(self.exponent, y))

    @property
    def sign(self):
        return as_parameter(self.exponent).sign()

    def log_abs_det_jacobian(self, x, y):
        exponent = as_parameter(self.exponent, x)
        return (exponent * y / x).abs().log()


class ComposeTransform(Transform):
    """The transforms applied in order."""

    def __init__(self, parts):
        self.parts = list(parts)

    def _call(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def _inverse(self, y):
        for part in reversed(self.parts):
            y = part._inverse(y)
        return y

    @property
    def sign(self):
        sign = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    def log_abs_det_jacobian(self, x, y):
        total = 0.0
        for part in self.parts:
            following = part(x)
            total = total + part.log_abs_det_jacobian(x, following)
            x = following
        return total


class TransformedDistribution(Distribution):
    """The distribution of T(x) for x from base_distribution, T the transforms in order."""

    def __init__(self, base_distribution, transforms, validate_args=None):
        self.base_dist = base_distribution
        self.transforms = [transforms] if isinstance(transforms, Transform) else list(transforms)
        self.has_rsample = base_distribution.has_rsample
        super().__init__(base_distribution.batch_shape, base_distribution.event_shape,
                         validate_args=validate_args)

    def sample(self, sample_shape=()):
        x = self.base_dist.sample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def rsample(self, sample_shape=()):
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value):
        self._validate_sample(value)
        y = value = as_parameter(value)
        correction = 0.0
        for transform in reversed(self.transforms):
            x = transform._inverse(y)
            log_det = transform.log_abs_det_jacobian(x, y)
            # elementwise transforms: the event dims of a multivariate base sum their terms
            for _ in range(len(self._event_shape)):
                log_det = log_det.sum(-1)
            correction = correction + log_det
            y = x
        return self.base_dist.log_prob(y) - correction

    def _monotonize_cdf(self, value):
        """The base's cdf turned around (1 - cdf) where the transforms decrease."""
        sign = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        value = as_parameter(value)
        for transform in reversed(self.transforms):
            value = transform._inverse(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        value = self.base_dist.icdf(self._monotonize_cdf(as_parameter(value)))
        for transform in self.transforms:
            value = transform(value)
        return value
