"""numgrad.distributions against torch 2.13's numbers: log_prob and its gradients, entropy,
kl_divergence, argument checks, and sampling frequencies."""
import numpy as np
import pytest

import numgrad as ng
from numgrad.autograd import gradcheck
from numgrad.distributions import Bernoulli, Categorical, Cauchy, Normal, Uniform, kl_divergence


def f64(values, grad=False):
    return ng.tensor(values, dtype=ng.float64, requires_grad=grad)


def close(actual, expected, atol=1e-6):
    np.testing.assert_allclose(np.asarray(actual.detach()), expected, atol=atol)


def test_normal():
    loc, scale = f64([0.0, 1.0, -0.5], True), f64([1.0, 2.0, 0.3], True)
    log_prob = Normal(loc, scale).log_prob(f64([0.5, -1.0, 0.2]))
    log_prob.sum().backward()
    close(log_prob, [-1.043939, -2.112086, -2.437188])
    close(loc.grad, [0.5, -0.5, 7.777778])
    close(scale.grad, [-0.75, 0.0, 14.814815])
    other = Normal(f64([0.5, -1.0, 0.2]), f64([0.3, 2.0, 1.0]))
    close(kl_divergence(Normal(loc, scale), other), [5.240472, 0.5, 0.993973])
    assert gradcheck(lambda m, s: Normal(m, s).entropy() + Normal(m, s).cdf(f64(0.1)),
                     (loc, scale))
    with pytest.raises(ValueError, match=r"Expected parameter scale \(Tensor of shape \(1,\)\) of "
                                         r"distribution Normal\(loc: tensor\(\[0.\]\), scale: "
                                         r"tensor\(\[-1.\]\)\) to satisfy the constraint "
                                         r"GreaterThan\(lower_bound=0.0\)"):
        Normal(ng.tensor([0.0]), ng.tensor([-1.0]))


def test_normal_samples():
    distribution = Normal(ng.tensor([2.0]), ng.tensor([0.5]))
    assert distribution.sample((3,)).shape == (3, 1) and not distribution.sample().requires_grad
    draws = np.asarray(Normal(ng.tensor(2.0), ng.tensor(0.5)).sample((20000,)))
    assert abs(draws.mean() - 2.0) < 0.02 and abs(draws.std() - 0.5) < 0.02
    loc = ng.tensor([1.0, 2.0], requires_grad=True)
    Normal(loc, ng.tensor([0.5, 1.5])).rsample((5,)).sum().backward()
    assert loc.grad.tolist() == [5.0, 5.0]


def test_categorical_and_bernoulli():
    logits = f64([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]])
    categorical = Categorical(logits=logits)
    close(categorical.log_prob(ng.tensor([2, 1])), [-0.407606, -2.104131])
    close(categorical.entropy(), [0.832396, 0.952808])
    close(kl_divergence(categorical, Categorical(logits=logits.flip(0))), [0.183843, 0.239748])
    assert categorical.sample((4,)).shape == (4, 2)
    draws = np.asarray(Categorical(probs=ng.tensor([0.2, 0.3, 0.5])).sample((20000,)))
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / 20000, [0.2, 0.3, 0.5],
                               atol=0.02)
    bernoulli = Bernoulli(probs=f64([0.3, 0.9]))
    close(bernoulli.log_prob(f64([1.0, 0.0])), [-1.203973, -2.302585])
    close(kl_divergence(bernoulli, Bernoulli(probs=f64([0.5, 0.1]))), [0.082283, 1.75778])
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not "
                                         "both."):
        Bernoulli(probs=ng.tensor(0.5), logits=ng.tensor(0.0))


def test_uniform():
    uniform = Uniform(ng.tensor([0.0]), ng.tensor([2.0]))
    close(uniform.log_prob(ng.tensor([1.0])), [-np.log(2.0)])
    close(uniform.entropy(), [np.log(2.0)])
    with pytest.raises(ValueError, match="to be within the support"):
        uniform.log_prob(ng.tensor([3.0]))
    assert 0.0 <= float(uniform.sample((100,)).min()) and float(uniform.sample((100,)).max()) < 2
    with pytest.raises(NotImplementedError, match="No KL"):      # torch has no such pair
        kl_divergence(uniform, Cauchy(0.0, 1.0))


def test_more_families_match_torch():
    rate, value = f64([0.5, 2.0, 3.0]), f64([0.2, 1.5, 3.0])
    from numgrad.distributions import Beta, Exponential, Gamma, Laplace, Poisson
    close(Gamma(rate + 0.5, rate.flip(0)).log_prob(value), [0.498612, -0.943617, -2.380458])
    close(Beta(rate, rate.flip(0)).log_prob(value / 4), [1.330741, 0.340927, 0.053245])
    close(Poisson(rate).log_prob(f64([0.0, 2.0, 5.0])), [-0.5, -1.306853, -2.29443])
    close(Laplace(value - 1, rate).log_prob(value), [-2.0, -1.886294, -2.125093])
    close(Exponential(rate).log_prob(value), [-0.793147, -2.306853, -7.901388])
    draws = np.asarray(Gamma(ng.tensor(3.0), ng.tensor(2.0)).sample((20000,)))
    assert abs(draws.mean() - 1.5) < 0.03


def test_multivariate_normal_and_independent():
    from numgrad.distributions import Independent, MultivariateNormal
    factor = f64([[1.0, 0.0, 0.0], [0.5, 1.2, 0.0], [-0.3, 0.4, 0.8]])
    loc = f64([0.1, -0.2, 0.3], True)
    distribution = MultivariateNormal(loc, factor @ factor.t())
    log_prob = distribution.log_prob(f64([[0.5, 0.1, -0.4], [1.0, 2.0, 0.0]]))
    log_prob.sum().backward()
    close(log_prob, [-3.093355, -4.478251])
    close(loc.grad, [-0.236806, 1.923611, -1.916667])
    close(distribution.entropy(), 4.215994)
    assert distribution.rsample((5,)).shape == (5, 3)
    independent = Independent(Normal(ng.zeros(3, 2), ng.ones(3, 2)), 1)
    assert independent.batch_shape == (3,) and independent.event_shape == (2,)
    close(independent.log_prob(ng.zeros(3, 2)), np.full(3, -np.log(2 * np.pi)))


def test_more_kl_divergences():
    from numgrad.distributions import Gamma, MultivariateNormal
    a, b = f64([0.5, 2.0, 3.0]), f64([1.5, 0.7, 2.0])
    close(kl_divergence(Gamma(a, b), Gamma(b, a)), [2.584948, 3.789897, 0.918707])
    first = MultivariateNormal(a, scale_tril=f64([[1.0, 0.0, 0.0], [0.5, 1.2, 0.0],
                                                  [-0.3, 0.4, 0.8]]))
    second = MultivariateNormal(b, scale_tril=f64([[0.7, 0.0, 0.0], [-0.2, 0.9, 0.0],
                                                   [0.1, 0.3, 1.5]]))
    close(kl_divergence(first, second), 2.8266)


def test_heavy_tailed_and_discrete_families():
    from numgrad.distributions import (Binomial, Cauchy, Dirichlet, Geometric, HalfNormal,
                                       LogNormal, StudentT)
    a, b, value = f64([0.5, 2.0, 3.0]), f64([1.5, 0.7, 2.0]), f64([0.2, 1.5, 3.0])
    close(Cauchy(a, b).log_prob(value), [-1.589416, -1.2003, -1.837877])
    close(LogNormal(a, b).log_prob(value), [-0.703794, -3.562159, -3.162607])
    close(HalfNormal(b).log_prob(value), [-0.640145, -2.165035, -2.043939])
    close(StudentT(a + 1, b, a).log_prob(value), [-2.515952, -1.797956, -2.147939])
    close(Dirichlet(a).log_prob(value / value.sum()), 2.230804)
    close(Geometric(probs=a / 4).log_prob(value.round()), [-2.079442, -2.079442, -4.446565])
    probs = f64([0.125, 0.5, 0.75], True)
    log_prob = Binomial(5, probs=probs).log_prob(f64([0.0, 2.0, 5.0]))
    log_prob.sum().backward()
    close(log_prob, [-0.667657, -1.163151, -1.43841])
    close(probs.grad, [-5.714286, -2.0, 6.666667])        # torch's, also at logit 0
    draws = np.asarray(Dirichlet(ng.tensor([1.0, 2.0, 3.0])).sample((4000,)))
    np.testing.assert_allclose(draws.mean(0), [1 / 6, 2 / 6, 3 / 6], atol=0.02)


def test_one_hot_categorical_and_multinomial():
    from numgrad.distributions import Multinomial, OneHotCategorical
    logits = f64([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]])
    one_hot = OneHotCategorical(logits=logits)
    close(one_hot.log_prob(f64([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]])), [-0.407606, -2.104131])
    assert one_hot.event_shape == (3,) and one_hot.sample((4,)).shape == (4, 2, 3)
    counts = np.asarray(Multinomial(10, probs=ng.tensor([0.2, 0.3, 0.5])).sample((4000,)))
    assert (counts.sum(-1) == 10).all()
    np.testing.assert_allclose(counts.mean(0), [2.0, 3.0, 5.0], atol=0.1)
    # log(5! / (0! 2! 3!)) + 2 log p1 + 3 log p2 with probs 0, 0.4, 0.6
    expected = np.log(10.0) + 2 * np.log(0.4) + 3 * np.log(0.6)
    close(Multinomial(5, probs=f64([0.0, 0.4, 0.6])).log_prob(f64([0.0, 2.0, 3.0])), expected)


def test_transformed_distributions():
    from numgrad.distributions import (AffineTransform, ExpTransform, LogNormal,
                                       SigmoidTransform, TransformedDistribution)
    loc, scale = f64([0.1, -0.3, 0.2], True), f64([1.0, 0.5, 2.0])
    value = f64([0.2, 0.5, 0.9])
    through_exp = TransformedDistribution(Normal(loc, scale), [ExpTransform()])
    close(through_exp.log_prob(value), np.asarray(LogNormal(loc, scale).log_prob(value).detach()))
    # torch's TransformedDistribution(Normal, [SigmoidTransform(), AffineTransform(1, 2)])
    squashed = TransformedDistribution(Normal(loc, scale),
                                       [SigmoidTransform(), AffineTransform(1.0, 2.0)])
    close(squashed.log_prob(value + 1.0), [-1.84276, -0.520525, -0.928955])
    assert gradcheck(lambda m: squashed.__class__(Normal(m, scale), squashed.transforms)
                     .log_prob(value + 1.0), (loc,))
    assert ExpTransform().inv.inv.__class__ is ExpTransform


def test_constraints_and_supports():
    from numgrad.distributions import Beta, Dirichlet, constraints
    assert repr(constraints.positive) == "GreaterThan(lower_bound=0.0)"
    assert repr(constraints.real_vector) == "IndependentConstraint(Real(), 1)"
    assert constraints.positive.check(ng.tensor([1.0, -1.0])).tolist() == [True, False]
    assert constraints.simplex.check(ng.tensor([[0.5, 0.5], [0.2, 0.2]])).tolist() == [True,
                                                                                      False]
    assert Normal.arg_constraints["scale"] is constraints.positive
    assert Beta.support is constraints.unit_interval and Dirichlet.support is constraints.simplex
    support = Categorical(probs=ng.tensor([0.2, 0.3, 0.5])).support
    assert repr(support) == "IntegerInterval(lower_bound=0, upper_bound=2)"
    assert support.is_discrete and support.check(ng.tensor([0, 2, 3])).tolist() == [True, True,
                                                                                    False]


def test_mixtures_and_more_families():
    from numgrad.distributions import Chi2, Gumbel, HalfCauchy, MixtureSameFamily
    logits = f64([[0.2, -0.5, 1.0], [1.0, 0.0, 0.3]], True)
    locs = f64([[-1.0, 0.0, 2.0], [0.5, 1.0, -2.0]])
    scales = f64([[0.5, 1.0, 0.7], [1.2, 0.3, 0.9]])
    mixture = MixtureSameFamily(Categorical(logits=logits), Normal(locs, scales))
    log_prob = mixture.log_prob(f64([0.3, -0.4]))
    # the mixture density by hand: sum_k w_k N(x; mu_k, s_k)
    weights = np.exp(np.asarray(logits.detach()))
    weights /= weights.sum(1, keepdims=True)
    x = np.array([[0.3], [-0.4]])
    densities = np.exp(-0.5 * ((x - np.asarray(locs)) / np.asarray(scales)) ** 2) \
        / (np.asarray(scales) * np.sqrt(2 * np.pi))
    close(log_prob, np.log((weights * densities).sum(1)))
    assert gradcheck(lambda lg: MixtureSameFamily(Categorical(logits=lg), Normal(locs, scales))
                     .log_prob(f64([0.3, -0.4])), (logits,))
    close(mixture.mean, (weights * np.asarray(locs)).sum(1))
    draws = np.asarray(MixtureSameFamily(Categorical(probs=ng.tensor([0.3, 0.7])),
                                         Normal(ng.tensor([-2.0, 3.0]), ng.tensor([0.1, 0.1])))
                       .sample((4000,)))
    assert abs((draws < 0).mean() - 0.3) < 0.03
    # torch's values at these points
    close(Chi2(f64([3.0])).log_prob(f64([1.5])), [-1.466206])
    close(Gumbel(f64([0.5]), f64([1.5])).log_prob(f64([0.2])), [-1.426868])
    close(HalfCauchy(f64([1.5])).log_prob(f64([0.2])), [-0.874669])


def test_transformed_families():
    from numgrad.distributions import NegativeBinomial, Pareto, Weibull
    # torch's values at these points
    close(Weibull(f64([1.5]), f64([2.0])).log_prob(f64([1.2])), [-0.575461])
    close(Pareto(f64([0.5]), f64([3.0])).log_prob(f64([1.2])), [-1.710115])
    close(NegativeBinomial(f64([4.0]), probs=f64([0.3])).log_prob(f64([2.0])), [-1.53206])
    scale = f64([1.5], True)
    assert gradcheck(lambda s: Weibull(s, f64([2.0])).log_prob(f64([1.2])), (scale,))
    draws = np.asarray(NegativeBinomial(ng.tensor(4.0), probs=ng.tensor(0.3)).sample((8000,)))
    assert abs(draws.mean() - 4 * 0.3 / 0.7) < 0.1
