"""MixtureSameFamily: a Categorical choice among the components of one batched distribution
(e.g. a Gaussian mixture), with torch's log_prob (logsumexp over the components), moments and
sampling."""
from ..ops import gather, logsumexp
from .categorical import Categorical
from .distribution import Distribution, as_parameter


class MixtureSameFamily(Distribution):
    """MixtureSameFamily(mixture_distribution, component_distribution): the last batch dim of
    component_distribution holds the components, weighted by the Categorical."""

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "numgrad.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "numgrad.distributions.Distribution")
        batch = tuple(component_distribution.batch_shape)
        components = batch[-1]
        if mixture_distribution.probs.shape[-1] != components:
            raise ValueError(f"`mixture_distribution component` ("
                             f"{mixture_distribution.probs.shape[-1]}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({components})")
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(batch[:-1], component_distribution.event_shape,
                         validate_args=validate_args)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    def _weights(self):
        """The mixture probabilities shaped to broadcast against the components' values."""
        probs = self._mixture_distribution.probs
        return probs.reshape(*probs.shape, *([1] * self._event_ndims))

    @property
    def mean(self):
        return (self._weights() * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        weights, dim = self._weights(), -1 - self._event_ndims
        means = self._component_distribution.mean
        mean_of_variances = (weights * self._component_distribution.variance).sum(dim)
        variance_of_means = (weights * (means - self.mean.unsqueeze(dim)) ** 2).sum(dim)
        return mean_of_variances + variance_of_means

    def log_prob(self, value):
        value = as_parameter(value).unsqueeze(-1 - self._event_ndims)
        component_log_prob = self._component_distribution.log_prob(value)
        mixture_log_prob = self._mixture_distribution.logits.log_softmax(-1)
        return logsumexp(component_log_prob + mixture_log_prob, -1)

    def cdf(self, value):
        value = as_parameter(value).unsqueeze(-1 - self._event_ndims)
        return (self._component_distribution.cdf(value)
                * self._mixture_distribution.probs).sum(-1)

    def sample(self, sample_shape=()):
        chosen = self._mixture_distribution.sample(sample_shape)
        draws = self._component_distribution.sample(sample_shape)
        # pick each draw's component: the index broadcast over the event dims
        index = chosen.reshape(*chosen.shape, 1, *([1] * self._event_ndims))
        index = index.expand(*chosen.shape, 1, *self._event_shape)
        return gather(draws, len(chosen.shape), index).squeeze(len(chosen.shape))
