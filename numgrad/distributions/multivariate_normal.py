"""MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril): the Gaussian in k
dims, reparameterised (loc + L eps, L the Cholesky factor of the covariance)."""
import math

from .. import creation, linalg
from ..ops import broadcast_shapes
from . import constraints
from .distribution import Distribution, as_parameter


class MultivariateNormal(Distribution):
    """MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
    exactly one of the three gives the shape of the spread."""

    has_rsample = True
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.real}
    support = constraints.real_vector

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        loc = as_parameter(loc)
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril "
                             "may be specified.")
        name, matrix = next((n, m) for n, m in (("covariance_matrix", covariance_matrix),
                                                ("precision_matrix", precision_matrix),
                                                ("scale_tril", scale_tril)) if m is not None)
        if matrix.ndim < 2:
            kind = "scale_tril matrix" if name == "scale_tril" else name    # torch's wording
            raise ValueError(f"{kind} must be at least two-dimensional, with optional leading "
                             "batch dimensions")
        setattr(self, name, matrix)
        if scale_tril is None:
            self._derived = ("scale_tril",)
        batch = broadcast_shapes(tuple(loc.shape[:-1]), tuple(matrix.shape[:-2]))
        self.loc = loc.expand(*batch, loc.shape[-1])
        # validated (torch's PositiveDefinite message) before a Cholesky factor can fail
        super().__init__(batch, (loc.shape[-1],), validate_args=validate_args)
        if covariance_matrix is not None:
            self.scale_tril = linalg.cholesky(covariance_matrix)
        elif precision_matrix is not None:
            self.scale_tril = linalg.cholesky(linalg.inv(precision_matrix))

    @property
    def mean(self):
        return self.loc

    def __getattr__(self, name):
        # torch's lazy properties: the matrices not given, from the Cholesky factor
        if name == "covariance_matrix":
            return self.scale_tril @ self.scale_tril.mT
        if name == "precision_matrix":
            return linalg.inv(self.scale_tril @ self.scale_tril.mT)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return (self.scale_tril ** 2).sum(-1).expand(self.loc.shape)

    def rsample(self, sample_shape=()):
        noise = creation.randn(*self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + (self.scale_tril @ noise.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):
        return self.scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        self._validate_sample(value)
        value = as_parameter(value, self.loc)
        difference = value - self.loc
        batch = tuple(difference.shape[:-1])
        factor = self.scale_tril.expand(*batch, *self.scale_tril.shape[-2:])
        whitened = linalg.solve_triangular(factor, difference.unsqueeze(-1), upper=False)
        mahalanobis = (whitened.squeeze(-1) ** 2).sum(-1)
        k = self._event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + mahalanobis) - self._half_log_det()

    def entropy(self):
        k = self._event_shape[0]
        entropy = 0.5 * k * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return entropy.expand(self._batch_shape) if len(self._batch_shape) else entropy
