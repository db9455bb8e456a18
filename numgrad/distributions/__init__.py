"""numgrad.distributions: torch.distributions' most used families, with log_prob, sample,
rsample (where reparameterisable), entropy, moments and kl_divergence.

>>> import numgrad as ng
>>> from numgrad.distributions import Normal, kl_divergence
>>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0))
tensor(0.5000)
"""
from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential_family import Beta, Chi2, Exponential, Gamma, Laplace, Poisson
from .independent import Independent
from .kl import kl_divergence, register_kl
from .mixture import MixtureSameFamily
from .more_families import (Binomial, Cauchy, Geometric, Gumbel, HalfCauchy, HalfNormal, LogNormal,
                            StudentT)
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot import Multinomial, OneHotCategorical
from .transformed_families import NegativeBinomial, Pareto, Weibull
from .transforms import (AffineTransform, ComposeTransform, ExpTransform, PowerTransform,
                         SigmoidTransform, TanhTransform, Transform, TransformedDistribution)
from .uniform import Uniform

__all__ = ["Distribution", "Normal", "Uniform", "Bernoulli", "Categorical", "Exponential",
           "Laplace", "Poisson", "Gamma", "Beta", "MultivariateNormal", "Independent",
           "Cauchy", "LogNormal", "HalfNormal", "StudentT", "Dirichlet", "Geometric", "Binomial",
           "OneHotCategorical", "Multinomial", "TransformedDistribution", "Transform",
           "ExpTransform", "AffineTransform", "SigmoidTransform", "TanhTransform",
           "PowerTransform", "ComposeTransform", "constraints", "Chi2", "Gumbel", "HalfCauchy",
           "MixtureSameFamily", "Weibull", "Pareto", "NegativeBinomial", "kl_divergence",
           "register_kl"]
