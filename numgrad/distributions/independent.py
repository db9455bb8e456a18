"""Independent(base, n): the base distribution's last n batch dims read as one event, so
log_prob and entropy sum over them."""
from .distribution import Distribution


class Independent(Distribution):
    """Independent(base_distribution, reinterpreted_batch_ndims)."""

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        count = reinterpreted_batch_ndims
        if count > len(base_distribution.batch_shape):
            raise ValueError(f"Expected reinterpreted_batch_ndims <= len(base_distribution."
                             f"batch_shape), actual {count} vs "
                             f"{len(base_distribution.batch_shape)}")
        event_dims = count + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = count
        self.has_rsample = base_distribution.has_rsample
        super().__init__(shape[:len(shape) - event_dims], shape[len(shape) - event_dims:],
                         validate_args=validate_args)

    def _sum(self, values):
        dims = tuple(range(-self.reinterpreted_batch_ndims, 0))
        return values.sum(dims) if dims else values

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return self._sum(self.base_dist.log_prob(value))

    def entropy(self):
        return self._sum(self.base_dist.entropy())

    def __repr__(self):
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
