"""numgrad.func and numgrad.distributions against torch 2.13: the messages that quote pytree
structures, and the moments, modes, cdf/icdf and expand that families lacked (values hard-coded
from torch 2.13)."""
import math

import numpy as np
import pytest

import numgrad as ng
from numgrad import distributions as D
from numgrad.func import functional_call, jvp, linearize, stack_module_state, vjp, vmap


def t(*values):
    return ng.tensor(values[0] if len(values) == 1 else list(values), dtype=ng.float64)


def close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual.detach().numpy(), dtype=np.float64),
                               np.asarray(expected, dtype=np.float64), rtol=1e-12, atol=1e-12)


# ---- func: structures in messages -------------------------------------------------------------

def test_jvp_and_vmap_quote_torch_treespec_repr():
    with pytest.raises(RuntimeError) as info:
        jvp(lambda a: a.exp(), (ng.ones(2),), ng.ones(2))
    # torch 2.13 gives ...
    assert str(info.value).endswith("Got primals with structure TreeSpec(tuple, None, [*]) and "
                                    "tangents with structure *")
    with pytest.raises(ValueError) as info:
        vmap(lambda a, b: a, in_dims=((0, 1),))(ng.ones(2, 2), ng.ones(2, 2))
    assert str(info.value) == (
        "vmap(<lambda>, in_dims=((0, 1),), ...)(<inputs>): in_dims is not compatible with the "
        "structure of `inputs`. in_dims has structure TreeSpec(tuple, None, [TreeSpec(tuple, "
        "None, [*,\n    *])]) but inputs has structure TreeSpec(tuple, None, [*,\n  *]).")
    with pytest.raises(ValueError) as info:
        vmap(lambda a: (a, [a]), out_dims=(0, (0,)))(ng.ones(2, 2))
    assert str(info.value).endswith(
        "out_dims has structure TreeSpec(tuple, None, [*,\n  TreeSpec(tuple, None, [*])]) but "
        "outputs has structure TreeSpec(tuple, None, [*,\n  TreeSpec(list, None, [*])]).")


def test_vjp_quotes_the_pretty_printed_structures():
    _, vjp_fn = vjp(lambda a, b: {"a": a, "b": [b]}, ng.ones(2), ng.ones(2))
    with pytest.raises(RuntimeError) as info:
        vjp_fn((ng.ones(2),))
    # torch 2.13 gives ...
    assert str(info.value) == ("Expected pytree structure of cotangents to be the same as pytree "
                               "structure of outputs to the function. cotangents: (*,), primal "
                               "output: {'a': *, 'b': [*]}")


def test_vmap_dict_in_dims_follow_torchs_pairing():
    # torch 2.13 lists a dict prefix's in_dims in the prefix's key order: here 0 goes to "a"
    out = vmap(lambda d: d["b"] * d["a"], in_dims=({"b": 0, "a": None},))(
        {"a": ng.arange(3.0), "b": ng.ones(5, 3)})
    assert out.shape == (3, 5, 3)
    close(out[:, 0, 0], [0.0, 1.0, 2.0])


def test_aux_leaves_must_be_tensors():
    from numgrad.func import grad, jacrev
    for call in (lambda: grad(lambda a: (a.sum(), "hi"), has_aux=True)(ng.ones(2)),
                 lambda: jvp(lambda a: (a.exp(), 3), (ng.ones(2),), (ng.ones(2),), has_aux=True),
                 lambda: vjp(lambda a: (a * 2, None), ng.ones(2), has_aux=True),
                 lambda: jacrev(lambda a: (a * 2, [a, 1]), has_aux=True)(ng.ones(2))):
        with pytest.raises(RuntimeError, match="Expected tensors, got unsupported type <class"):
            call()


def test_stack_module_state_ensembles_with_vmap():
    models = [ng.nn.Linear(3, 2).double() for _ in range(3)]
    for k, model in enumerate(models):
        model.weight.data = ng.full((2, 3), float(k), dtype=ng.float64)
        model.bias.data = ng.full((2,), 0.5 * k, dtype=ng.float64)
    params, buffers = stack_module_state(models)
    assert sorted(params) == ["bias", "weight"] and buffers == {}
    assert params["weight"].shape == (3, 2, 3) and params["weight"].is_leaf
    assert params["weight"].requires_grad
    x = ng.ones(4, 3, dtype=ng.float64)
    out = vmap(lambda p, b, x: functional_call(models[0], (p, b), (x,)),
               in_dims=(0, 0, None))(params, buffers, x)
    close(out[:, 0, 0], [0.0, 3.5, 7.0])
    assert out.grad_fn is not None and models[0].weight.grad is None
    # torch 2.13 gives ...
    for bad, message in ((lambda: stack_module_state([]),
                          "stack_module_state: Expected at least one model, got 0."),
                         (lambda: stack_module_state([ng.nn.Linear(2, 2),
                                                      ng.nn.Linear(2, 2).eval()]),
                          "stack_module_state: Expected all models to have the same "
                          "training/eval mode."),
                         (lambda: stack_module_state([ng.nn.Linear(2, 2), ng.nn.Tanh()]),
                          "stack_module_state: Expected all models to be of the same class.")):
        with pytest.raises(RuntimeError) as info:
            bad()
        assert str(info.value) == message
    frozen = ng.nn.Linear(2, 2)
    frozen.bias.requires_grad_(False)
    with pytest.raises(RuntimeError, match="Expected bias from each model to have the same "
                                           r"\.requires_grad"):
        stack_module_state([ng.nn.Linear(2, 2), frozen])


def test_linearize():
    x = t(0.5, -1.0)
    out, jvp_fn = linearize(lambda a, b: {"s": (a * b).sum(), "l": [a.exp()]}, x, t(2.0, 3.0))
    close(out["s"], -2.0)
    result = jvp_fn(t(1.0, 0.0), t(0.0, 1.0))
    close(result["s"], 2.0 - 1.0)
    close(result["l"][0], [math.exp(0.5), 0.0])
    # torch 2.13 gives ...
    with pytest.raises(RuntimeError) as info:
        jvp_fn(t(1.0, 0.0))
    assert str(info.value) == ("Expected the tangents TreeSpec(tuple, None, [*]) to have the same "
                               "argspec as the primals TreeSpec(tuple, None, [*,\n  *])")
    with pytest.raises(RuntimeError, match="tangent:1 with shape .* in flattened pytree doesn't "
                                           "match the shape"):
        jvp_fn(t(1.0, 0.0), t(1.0))


# ---- distributions: what a family lacks -------------------------------------------------------

def test_missing_methods_raise_not_implemented_as_torch():
    d = D.Bernoulli(t(0.3))
    for call in (lambda: d.cdf(t(1.0)), lambda: d.icdf(t(0.5))):
        with pytest.raises(NotImplementedError):
            call()
    with pytest.raises(NotImplementedError, match="does not implement mode"):
        D.Multinomial(4, t(0.2, 0.8)).mode


def test_cdf_and_icdf():
    # torch 2.13 gives ...
    close(D.Laplace(t(0.5), t(2.0)).icdf(t(0.3)), 0.5 + 2 * math.log1p(-0.4))
    close(D.Cauchy(t(0.5), t(2.0)).icdf(t(0.3)), 0.5 + 2 * math.tan(math.pi * -0.2))
    close(D.Uniform(t(-1.0), t(3.0)).icdf(t(0.3)), 0.2)
    gumbel = D.Gumbel(t(0.5), t(2.0))
    close(gumbel.cdf(t(1.2)), 0.4942627158384466)
    close(gumbel.icdf(t(0.3)), 0.12874648227526853)
    weibull = D.Weibull(t(1.5), t(2.0))
    close(weibull.cdf(t(1.0)), 0.3588196115700454)
    close(weibull.icdf(t(0.3)), 0.8958340381243324)
    pareto = D.Pareto(t(1.5), t(2.0))
    close(pareto.cdf(t(2.0)), 0.4374999999999999)
    close(pareto.icdf(t(0.3)), 1.7928429140015902)
    lognormal = D.LogNormal(t(0.2), t(0.5))
    close(lognormal.cdf(t(1.5)), 0.659438147374727)
    close(lognormal.icdf(t(0.3)), 0.9396946881155932)
    close(D.HalfCauchy(t(2.0)).cdf(t(1.5)), 0.40966552939826695)
    close(D.HalfNormal(t(2.0)).icdf(t(0.3)), 0.7706409328151353)
    close(D.Gamma(t(2.0, 0.5), t(1.5, 3.0)).cdf(t(1.0, 0.2)),
          [0.4421745996289252, 0.7266783217077019])
    close(D.Chi2(t(3.0)).cdf(t(2.0)), 0.42759329552912023)


def test_modes():
    # torch 2.13 gives ...
    close(D.Gamma(t(2.0, 0.5), t(1.5, 3.0)).mode, [2 / 3, 0.0])
    close(D.Poisson(t(2.5)).mode, 2.0)
    close(D.Beta(t(0.5, 2.0, 3.0), t(0.3, 0.5, 2.0)).mode, [1.0, 1.0, 2 / 3])
    close(D.Dirichlet(t([[0.5, 0.3], [0.5, 2.0], [2.0, 3.0]])).mode,
          [[1.0, 0.0], [0.0, 1.0], [1 / 3, 2 / 3]])
    close(D.Bernoulli(t(0.2, 0.5, 0.7)).mode, [0.0, np.nan, 1.0])
    close(D.Binomial(5, t(0.3, 0.9)).mode, [1.0, 5.0])
    close(D.NegativeBinomial(t(3.0), t(0.6)).mode, 2.0)
    close(D.Weibull(t(1.5), t(2.0)).mode, 1.0606601717798214)
    close(D.LogNormal(t(0.2), t(0.5)).mode, 0.951229424500714)
    close(D.OneHotCategorical(t(0.2, 0.5, 0.3)).mode, [0.0, 1.0, 0.0])
    close(D.Uniform(t(0.0), t(1.0)).mode, np.nan)
    for d, expected in ((D.Exponential(t(2.0)), 0.0), (D.HalfNormal(t(2.0)), 0.0),
                        (D.Geometric(t(0.3)), 0.0), (D.Pareto(t(1.5), t(2.0)), 1.5),
                        (D.Cauchy(t(0.5), t(1.0)), 0.5), (D.StudentT(t(3.0), t(0.5)), 0.5)):
        close(d.mode, expected)


def test_moments_torch_gives_for_heavy_tails_and_labels():
    # torch 2.13 gives ...
    student = D.StudentT(t(0.5, 1.5, 3.0), t(1.0, 1.0, 1.0), t(2.0, 2.0, 2.0))
    close(student.mean, [np.nan, 1.0, 1.0])
    close(student.variance, [np.nan, np.inf, 12.0])
    close(D.Cauchy(t(0.5), t(2.0)).mean, np.nan)
    close(D.Cauchy(t(0.5), t(2.0)).stddev, np.inf)
    close(D.HalfCauchy(t(2.0)).mean, np.inf)
    close(D.Categorical(t([[0.2, 0.8], [0.5, 0.5]])).variance, [np.nan, np.nan])
    close(D.Dirichlet(t(1.5, 2.0, 3.0)).variance,
          [0.023668639053254437, 0.028402366863905324, 0.033136094674556214])


def test_support_and_arg_constraints_of_one_hot_families():
    # torch 2.13 gives ...
    assert repr(D.OneHotCategorical(t(0.2, 0.8)).support) == "OneHot()"
    assert repr(D.Multinomial(4, t(0.2, 0.8)).support) == "Multinomial()"
    assert sorted(D.Multinomial(4, t(0.2, 0.8)).arg_constraints) == ["logits", "probs"]


def test_expand():
    # torch 2.13 gives ...
    normal = D.Normal(t(0.0, 1.0, 2.0), t(1.0, 2.0, 3.0)).expand((2, 3))
    assert tuple(normal.batch_shape) == (2, 3)
    close(normal.log_prob(t(0.5)), [[-1.0439385332046727, -1.643335713764618,
                                     -2.1425508218727822]] * 2)
    mvn = D.MultivariateNormal(t(0.0, 1.0), ng.eye(2, dtype=ng.float64) * 2).expand((3,))
    assert (tuple(mvn.batch_shape), tuple(mvn.event_shape)) == ((3,), (2,))
    close(mvn.log_prob(t(0.5, 0.0)), [-2.8435242469692907] * 3)
    categorical = D.Categorical(t(0.2, 0.8)).expand((2,))
    close(categorical.log_prob(ng.tensor([0, 1])), [math.log(0.2), math.log(0.8)])
    with pytest.raises(RuntimeError) as info:
        D.Normal(t(0.0, 1.0, 2.0), t(1.0, 2.0, 3.0)).expand((2, 4))
    assert str(info.value) == ("The expanded size of the tensor (4) must match the existing "
                               "size (3) at non-singleton dimension 1.  Target sizes: [2, 4].  "
                               "Tensor sizes: [3]")


# ---- distributions: argument and value checks, worded as torch's ------------------------------

def error_of(call):
    with pytest.raises(ValueError) as info:
        call()
    return str(info.value)


def test_parameter_checks_show_numbers_and_the_given_parameter_only():
    # torch 2.13 gives ...
    assert error_of(lambda: D.Bernoulli(t(1.5))) == (
        "Expected parameter probs (Tensor of shape ()) of distribution Bernoulli(probs: 1.5) to "
        "satisfy the constraint Interval(lower_bound=0.0, upper_bound=1.0), but found invalid "
        "values:\n1.5")
    assert error_of(lambda: D.Normal(t(0.0, float("nan")), t(1.0, 1.0))) == (
        "Expected parameter loc (Tensor of shape (2,)) of distribution Normal(loc: "
        "numgrad.Size([2]), scale: numgrad.Size([2])) to satisfy the constraint Real(), but "
        "found invalid values:\ntensor([0., nan], dtype=numgrad.float64)")
    assert error_of(lambda: D.Binomial(3, t(1.5))).startswith(
        "Expected parameter probs (Tensor of shape ()) of distribution Binomial(total_count: "
        "3.0, probs: 1.5) to satisfy the constraint Interval(")
    assert error_of(lambda: D.Binomial(-1, t(0.5))).startswith(
        "Expected parameter total_count (Tensor of shape ()) of distribution Binomial("
        "total_count: -1.0, probs: 0.5) to satisfy the constraint IntegerGreaterThan(")
    assert error_of(lambda: D.Pareto(t(-1.0), t(1.0))).startswith(
        "Expected parameter scale (Tensor of shape ()) of distribution Pareto(alpha: 1.0, "
        "scale: -1.0)")
    assert error_of(lambda: D.Weibull(t(1.0), t(-1.0))).startswith(
        "Expected parameter concentration (Tensor of shape ()) of distribution Weibull(scale: "
        "1.0, concentration: -1.0)")
    assert error_of(lambda: D.NegativeBinomial(t(1.0), t(1.0))).startswith(
        "Expected parameter probs (Tensor of shape ()) of distribution NegativeBinomial("
        "total_count: 1.0, probs: 1.0) to satisfy the constraint HalfOpenInterval(")
    assert error_of(lambda: D.Chi2(t(-1.0))).startswith(
        "Expected parameter df (Tensor of shape ()) of distribution Chi2() to satisfy")
    assert error_of(lambda: D.HalfNormal(t(-1.0))).startswith(
        "Expected parameter scale (Tensor of shape ()) of distribution HalfNormal() to satisfy")
    assert error_of(lambda: D.Geometric(t(0.0))) == (
        "Expected parameter probs (Tensor of shape ()) of distribution Geometric(probs: 0.0) to "
        "be positive but found invalid values:\ntensor([0.], dtype=numgrad.float64)")
    assert error_of(lambda: D.MultivariateNormal(t(0.0, 0.0), t([[1.0, 2.0], [2.0, 1.0]]))
                    ).startswith("Expected parameter covariance_matrix (Tensor of shape (2, 2)) "
                                 "of distribution MultivariateNormal(loc: numgrad.Size([2]), "
                                 "covariance_matrix: numgrad.Size([2, 2])) to satisfy the "
                                 "constraint PositiveDefinite()")
    assert error_of(lambda: D.MultivariateNormal(t(0.0, 0.0), covariance_matrix=t(1.0, 1.0))
                    ) == ("covariance_matrix must be at least two-dimensional, with optional "
                          "leading batch dimensions")


def test_values_outside_the_support():
    # torch 2.13 gives ...
    assert error_of(lambda: D.Uniform(t(0.0), t(1.0)).log_prob(t(1.5))) == (
        "Expected value argument (Tensor of shape ()) to be within the support (Interval("
        "lower_bound=0.0, upper_bound=1.0)) of the distribution Uniform(low: 0.0, high: 1.0), "
        "but found invalid values:\n1.5")
    # the closed interval: high itself scores -inf
    assert D.Uniform(t(0.0), t(1.0)).log_prob(t(1.0)).item() == -math.inf
    assert error_of(lambda: D.Dirichlet(t(2.0, 1.0)).log_prob(t(0.5, 0.6))).startswith(
        "Expected value argument (Tensor of shape (2,)) to be within the support (Simplex()) of "
        "the distribution Dirichlet(concentration: numgrad.Size([2]))")
    assert error_of(lambda: D.Binomial(3, t(0.3)).log_prob(t(4.0))).startswith(
        "Expected value argument (Tensor of shape ()) to be within the support (IntegerInterval("
        "lower_bound=0, upper_bound=3.0)) of the distribution Binomial(total_count: 3.0, "
        "probs: 0.3)")
    assert "distribution LogNormal()" in error_of(
        lambda: D.LogNormal(t(0.0), t(1.0)).log_prob(t(0.0)))
    assert error_of(lambda: D.Weibull(t(1.0), t(1.0)).log_prob(t(0.0))).startswith(
        "Expected value argument (Tensor of shape ()) to be within the support (GreaterThan("
        "lower_bound=0.0)) of the distribution Weibull(scale: 1.0, concentration: 1.0)")
    for bad in (lambda: D.Normal(t(0.0), t(1.0)).log_prob(t(float("nan"))),
                lambda: D.Geometric(t(0.3)).log_prob(t(1.5)),
                lambda: D.NegativeBinomial(t(2.0), t(0.3)).log_prob(t(-1.0)),
                lambda: D.OneHotCategorical(t(0.3, 0.7)).log_prob(t(1.0, 1.0)),
                lambda: D.Multinomial(3, t(0.3, 0.7)).log_prob(t(4.0, 0.0))):
        error_of(bad)
    assert error_of(lambda: D.Normal(t(0.0, 1.0), t(1.0, 1.0)).log_prob(t(0.0, 1.0, 2.0))) == (
        "Value is not broadcastable with batch_shape+event_shape: numgrad.Size([3]) vs "
        "numgrad.Size([2]).")


def test_kl_divergence_of_same_family_pairs():
    kl = D.kl_divergence
    # torch 2.13 gives ...
    close(kl(D.Beta(t(0.3, 1.8), t(1.5, 0.7)), D.Beta(t(1.2, 0.5), t(0.4, 2.0))),
          [2.9132083479958015, 2.3391010523967406])
    close(kl(D.Dirichlet(t([[0.3, 1.8], [1.5, 0.7]])), D.Dirichlet(t([[1.3, 0.8], [0.5, 2.7]]))),
          [2.806686402482268, 3.0994736454347036])
    close(kl(D.Geometric(t(0.3, 0.8)), D.Geometric(t(0.6, 0.1))),
          [0.612622991289374, 1.703422192485767])
    close(kl(D.Binomial(t(5.0, 4.0), t(0.3, 0.8)), D.Binomial(t(4.0, 4.0), t(0.6, 0.1))),
          [np.inf, 5.450951015954455])
    close(kl(D.Poisson(t(0.3, 1.8)), D.Poisson(t(1.2, 0.5))),
          [0.4841116916640327, 1.005680921831716])
    close(kl(D.Gumbel(t(0.3, -1.0), t(1.5, 0.7)), D.Gumbel(t(1.0, 0.0), t(0.5, 2.0))),
          [21.987018842203, 0.6438922801932385])
    close(kl(D.Pareto(t(1.5, 0.7), t(2.3, 1.1)), D.Pareto(t(1.2, 0.9), t(2.0, 1.3))),
          [0.45561426239488245, np.inf])
    close(kl(D.Cauchy(t(0.3, -1.0), t(1.5, 0.7)), D.Cauchy(t(1.0, 0.0), t(0.5, 2.0))),
          [0.4032404130860532, 0.39228337140610026])
    close(kl(D.HalfNormal(t(1.5, 0.7)), D.HalfNormal(t(0.5, 2.0))),
          [2.90138771133189, 0.6110721244986779])
    close(kl(D.HalfCauchy(t(1.5, 0.7)), D.HalfCauchy(t(0.5, 2.0))),
          [0.2876820724517808, 0.26373694827946337])
    close(kl(D.LogNormal(t(0.3, -1.0), t(1.5, 0.7)), D.LogNormal(t(1.0, 0.0), t(0.5, 2.0))),
          [3.8813877113318895, 0.7360721244986779])
    close(kl(D.OneHotCategorical(t(0.3, 0.7)), D.OneHotCategorical(t(0.6, 0.4))),
          0.18378689738681214)
    close(kl(D.Independent(D.Normal(t(0.3, -1.0), t(1.5, 0.7)), 1),
             D.Independent(D.Normal(t(1.0, 0.0), t(0.5, 2.0)), 1)), 4.617459835830568)
    with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
        kl(D.Binomial(t(3.0), t(0.5)), D.Binomial(t(4.0), t(0.5)))


def test_enumerate_support_and_count_entropies():
    # torch 2.13 gives ...
    close(D.Binomial(2, t(0.3, 0.9)).enumerate_support(), [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    assert tuple(D.Binomial(2, t(0.3, 0.9)).enumerate_support(False).shape) == (3, 1)
    assert D.Categorical(t([[0.3, 0.7], [0.5, 0.5]])).enumerate_support().tolist() == [[0, 0],
                                                                                      [1, 1]]
    assert tuple(D.OneHotCategorical(t([[0.3, 0.7], [0.5, 0.5]])).enumerate_support(False)
                 .shape) == (2, 1, 2)
    close(D.Bernoulli(t(0.3)).enumerate_support(), [0.0, 1.0])
    close(D.Binomial(4, t(0.3, 0.9)).entropy(), [1.2939550399242197, 0.8040182879587177])
    # torch rounds lgamma(total_count + 1) to float32 (an integer tensor's lgamma)
    close(D.Multinomial(5, t([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])).entropy(),
          [2.5918085406526656, 1.8136484785872264])
    with pytest.raises(NotImplementedError) as info:
        D.Binomial(t(2.0, 3.0), t(0.3, 0.9)).entropy()
    assert str(info.value) == "Inhomogeneous total count not supported by `entropy`."


def test_value_checks_of_cdf_and_non_tensor_values():
    # torch 2.13 gives ...
    assert error_of(lambda: D.Normal(t(0.0), t(1.0)).log_prob(0.5)) == (
        "The value argument to log_prob must be a Tensor")
    close(D.Normal(t(0.0), t(1.0), validate_args=False).log_prob(0.5), -1.0439385332046727)
    assert error_of(lambda: D.Exponential(t(1.0)).cdf(t(-1.5))).startswith(
        "Expected value argument (Tensor of shape ()) to be within the support (GreaterThanEq(")
    assert error_of(lambda: D.Uniform(t(0.0), t(1.0)).cdf(t(1.5))).startswith(
        "Expected value argument (Tensor of shape ()) to be within the support (Interval(")
    with pytest.raises(NotImplementedError) as info:
        D.Poisson(t(2.0)).rsample()
    assert str(info.value) == ""


def test_mvn_matrices_mixture_cdf_transforms_and_perplexity():
    # torch 2.13 gives ...
    mvn = D.MultivariateNormal(t(0.0, 0.0), scale_tril=t([[2.0, 0.0], [0.5, 1.0]]))
    close(mvn.covariance_matrix, [[4.0, 1.0], [1.0, 1.25]])
    close(mvn.precision_matrix, [[0.3125, -0.25], [-0.25, 1.0]])
    mixture = D.MixtureSameFamily(D.Categorical(t(0.3, 0.7)),
                                  D.Normal(t(0.0, 1.0), t(1.0, 2.0)))
    close(mixture.cdf(t(0.5)), 0.48834431040415727)
    with pytest.raises(ValueError, match="The Mixture distribution needs to be an  instance"):
        D.MixtureSameFamily(D.Normal(t(0.3), t(1.0)), D.Normal(t(0.0, 1.0), t(1.0, 2.0)))
    assert repr(D.ExpTransform().inv) == "_InverseTransform(ExpTransform())"
    assert repr(D.AffineTransform(1.0, 2.0)) == "AffineTransform()"
    assert D.ExpTransform() == D.ExpTransform() and D.ExpTransform() != D.SigmoidTransform()
    assert D.AffineTransform(t(1.0), 2.0) == D.AffineTransform(1.0, t(2.0))
    assert D.AffineTransform(1.0, 2.0) != D.AffineTransform(1.0, 3.0)
    close(D.Normal(t(0.0), t(1.0)).perplexity(), math.exp(0.5 + 0.5 * math.log(2 * math.pi)))
    # cdf and icdf through a decreasing transform turn around
    flipped = D.TransformedDistribution(D.Normal(t(0.0), t(1.0)), [D.AffineTransform(1.0, -2.0)])
    close(flipped.cdf(t(0.3)), 1 - 0.5 * (1 + math.erf(0.35 / math.sqrt(2))))
    close(flipped.cdf(t(0.3)), 0.363169348824381)
    close(flipped.icdf(flipped.cdf(t(0.3))), 0.3000000000000004)


def test_kl_divergence_across_families():
    kl = D.kl_divergence
    # torch 2.13 gives ...
    close(kl(D.Normal(t(0.3, -1.0), t(1.5, 0.7)), D.Laplace(t(1.0, 0.0), t(0.5, 2.0))),
          [0.8252631991714195, 0.8481255502683235])
    close(kl(D.Gamma(t(0.3, 1.8), t(1.5, 0.7)), D.Normal(t(1.0, 0.0), t(0.5, 2.0))),
          [3.233892088141576, 1.0402020750896328])
    close(kl(D.Uniform(t(0.2, -1.0), t(0.9, 0.7)), D.Beta(t(1.3, 0.5), t(0.5, 2.0))),
          [0.6315959482779234, np.inf])
    close(kl(D.Pareto(t(1.5, 0.7), t(2.3, 0.9)), D.Exponential(t(1.3, 0.5))),
          [2.1802971416637966, np.inf])
    close(kl(D.Normal(t(0.3, -1.0), t(1.5, 0.7)), D.Exponential(t(1.3, 0.5))), [np.inf] * 2)
    close(kl(D.Exponential(t(1.3, 0.5)), D.Gumbel(t(1.0, 0.0), t(0.5, 2.0))),
          [1.0185189037660072, 0.5])
    close(kl(D.Chi2(t(1.3, 3.5)), D.Exponential(t(1.3, 0.5))),
          [0.23855867835968425, 0.27000546118063085])


def test_gamma_chi2_and_student_t_are_reparameterised():
    from numgrad.distributions.gamma_sampler import _standard_gamma_grad
    # torch 2.13's _standard_gamma_grad (an approximation, within 1e-4 of the exact slope)
    alpha, x = np.array([0.5, 2.0, 7.0, 0.3]), np.array([0.2, 1.5, 9.0, 1e-3])
    np.testing.assert_allclose(_standard_gamma_grad(alpha, x),
                               [0.7940505669818793, 0.9366198345654156, 1.1581464230912488,
                                0.022481140914591295], rtol=1e-4)
    assert D.Gamma(t(1.0), t(1.0)).has_rsample and D.Chi2(t(3.0)).has_rsample
    assert D.StudentT(t(3.0)).has_rsample
    ng.manual_seed(0)
    concentration = t(0.5, 2.0, 7.0).requires_grad_()
    rate = t(1.5, 0.7, 2.0).requires_grad_()
    draws = D.Gamma(concentration, rate).rsample((4,))
    d_concentration, d_rate = ng.autograd.grad(draws.sum(), [concentration, rate])
    close(d_rate, (-draws / rate).sum(0).detach())                     # x = g / rate
    standard = (draws * rate).detach().numpy()
    close(d_concentration, (_standard_gamma_grad(np.broadcast_to(
        concentration.detach().numpy(), standard.shape), standard) / rate.detach().numpy()).sum(0))
    df = t(3.0, 5.0).requires_grad_()
    student = D.StudentT(df, t(0.0), t(2.0)).rsample((3,))
    assert student.shape == (3, 2) and student.requires_grad
    # torch 2.13 checks df through its Chi2 ...
    assert error_of(lambda: D.StudentT(t(-1.0))).startswith(
        "Expected parameter df (Tensor of shape ()) of distribution Chi2() to satisfy")


def test_dirichlet_and_beta_are_reparameterised():
    from numgrad.distributions.gamma_sampler import _dirichlet_grad
    # torch 2.13's _dirichlet_grad (an approximation: within 1e-3 of the exact slope)
    np.testing.assert_allclose(
        _dirichlet_grad(np.array([0.1, 0.5, 0.9, 0.3, 0.02, 0.97]),
                        np.array([0.5, 2.0, 7.0, 1.5, 8.0, 9.0]),
                        np.array([3.0, 3.5, 9.5, 2.0, 20.0, 18.0])),
        [0.36750151, 0.31828231, 0.12349115, 0.38572413, 0.00807014, 0.07910082], rtol=1e-3)
    assert D.Dirichlet(t(1.0, 2.0)).has_rsample and D.Beta(t(1.0), t(2.0)).has_rsample
    ng.manual_seed(0)
    concentration = t([[0.5, 2.0, 7.0], [1.5, 0.3, 2.0]]).requires_grad_()
    draws = D.Dirichlet(concentration).rsample((4,))
    close(draws.sum(-1), np.ones((4, 2)))
    weights = ng.tensor(np.arange(24.0).reshape(4, 2, 3) % 5, dtype=ng.float64)
    grad = ng.autograd.grad((draws * weights).sum(), concentration)[0]
    # torch's backward: _dirichlet_grad * (g - sum(x g)) per draw
    x, w = draws.detach().numpy(), weights.numpy()
    slope = _dirichlet_grad(x, np.broadcast_to(concentration.detach().numpy(), x.shape),
                            np.broadcast_to(concentration.detach().numpy().sum(-1, keepdims=True),
                                            x.shape))
    close(grad, (slope * (w - (x * w).sum(-1, keepdims=True))).sum(0))
    a, b = t(0.5, 2.0).requires_grad_(), t(1.5, 3.0).requires_grad_()
    beta_draws = D.Beta(a, b).rsample((3,))
    assert beta_draws.shape == (3, 2)
    assert all(g.shape == (2,) for g in ng.autograd.grad(beta_draws.sum(), [a, b]))


def test_kl_of_transformed_distributions_goes_to_the_bases():
    kl = D.kl_divergence
    # torch 2.13 gives ...
    close(kl(D.Weibull(t(1.5, 0.7), t(2.3, 1.1)), D.Weibull(t(1.5, 0.7), t(2.3, 1.1))), [0.0, 0.0])
    with pytest.raises(NotImplementedError):
        kl(D.Weibull(t(1.5, 0.7), t(2.3, 1.1)), D.Weibull(t(1.2, 0.7), t(2.3, 1.1)))
    transforms = [D.AffineTransform(1.0, 2.0), D.ExpTransform()]
    close(kl(D.TransformedDistribution(D.Normal(t(0.0, 1.0), t(1.0, 2.0)), transforms),
             D.TransformedDistribution(D.Normal(t(1.0, 1.0), t(1.0, 3.0)), transforms)),
          [0.5, 0.5 * (4 / 9 - 1 - math.log(4 / 9))])


def test_folded_and_chi2_keep_constants_out_of_the_graph():
    # torch 2.13: several backwards through one distribution work; Chi2's rate needs no grad
    scale = t(1.5, 0.7).requires_grad_()
    half = D.HalfNormal(scale)
    first = ng.autograd.grad(half.log_prob(t(0.5, 1.0)).sum(), scale)[0]
    second = ng.autograd.grad(half.log_prob(t(0.5, 1.0)).sum(), scale)[0]
    close(first, [(0.25 / 1.5 ** 3) - 1 / 1.5, (1.0 / 0.7 ** 3) - 1 / 0.7])
    close(second, first)
    assert not D.Chi2(t(3.0).requires_grad_()).rate.requires_grad


def test_default_validation_is_a_class_attribute():
    # torch 2.13: Distribution._validate_args is the default; only True/False are accepted
    assert D.Distribution._validate_args is True
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args(2)
    D.Distribution.set_default_validate_args(False)
    try:
        assert not D.Normal(t(0.0), t(-1.0))._validate_args         # no check: no error
        assert D.Normal(t(0.0), t(1.0), validate_args=True)._validate_args
    finally:
        D.Distribution.set_default_validate_args(True)


def test_kl_without_a_rule_raises_torchs_errors():
    kl = D.kl_divergence
    # torch 2.13 gives ...
    with pytest.raises(NotImplementedError) as info:
        kl(D.Normal(t(0.0), t(1.0)), D.Bernoulli(t(0.3)))
    assert str(info.value) == ("The cross KL-divergence between different exponential families "
                               "cannot                             be computed using Bregman "
                               "divergences")
    with pytest.raises(NotImplementedError) as info:
        kl(D.HalfNormal(t(1.0)), D.HalfCauchy(t(1.0)))
    assert str(info.value) == "No KL(p || q) is implemented for p type Normal and q type Cauchy"
    with pytest.raises(NotImplementedError) as info:
        kl(D.Gumbel(t(0.0), t(1.0)), D.LogNormal(t(0.0), t(1.0)))
    assert str(info.value) == ""
    with pytest.raises(NotImplementedError) as info:
        kl(D.Uniform(t(0.0), t(1.0)), D.Cauchy(t(0.0), t(1.0)))
    assert str(info.value) == "No KL(p || q) is implemented for p type Uniform and q type Cauchy"


def test_beta_is_the_dirichlet_of_its_pair():
    # torch 2.13 gives ...
    assert error_of(lambda: D.Beta(t(1.0), t(0.0))) == (
        "Expected parameter concentration (Tensor of shape (2,)) of distribution Dirichlet("
        "concentration: numgrad.Size([2])) to satisfy the constraint IndependentConstraint("
        "GreaterThan(lower_bound=0.0), 1), but found invalid values:\n"
        "tensor([1., 0.], dtype=numgrad.float64)")
    assert "of the distribution Beta(), but" in error_of(
        lambda: D.Beta(t(2.0), t(1.0)).log_prob(t(1.5)))
    beta = D.Beta(t(2.0, 0.5), t(1.0, 3.0)).expand((3, 2))
    assert tuple(beta.batch_shape) == (3, 2) and beta.concentration0.shape == (3, 2)
