"""numgrad.optim against torch 2.13: Adamax, NAdam, RAdam, Adadelta, Rprop, ASGD and LBFGS (the
parameters after a few steps of a tiny linear model, in float32 and float64), their state dicts
and errors, and every lr scheduler (the lr sequences over 20 steps, closed forms, state dicts
and errors). The expected numbers were pasted from torch runs in scratch scripts; torch is not
imported here."""
import io
import re
import warnings

import numpy as np
import pytest

import numgrad as ng
from numgrad import nn, optim
from numgrad.optim import lr_scheduler

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [-0.3, 0.8, 0.1], [1.0, 1.0, -1.0]])
Y = np.array([[1.0, -0.5], [0.2, 0.3], [-1.0, 0.7], [0.4, 0.0]])
W0 = np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]])
B0 = np.array([0.05, -0.1])


def make_model(dtype):
    """The parameters w (2x3) and b (2) of a linear model, and its mean squared error on X, Y."""
    w = nn.Parameter(ng.tensor(W0.astype(dtype)))
    b = nn.Parameter(ng.tensor(B0.astype(dtype)))
    x, y = ng.tensor(X.astype(dtype)), ng.tensor(Y.astype(dtype))
    return w, b, lambda: ((x @ w.T + b - y) ** 2).mean()


def through_a_file(state_dict):
    """state_dict after numgrad.save and numgrad.load."""
    buffer = io.BytesIO()
    ng.save(state_dict, buffer)
    buffer.seek(0)
    return ng.load(buffer)


def train(name, kwargs, group_b, dtype, steps, start=None):
    """`steps` steps of optim.<name> on the linear model (b in a group of its own with the
    options group_b, if given); an LBFGS step is one step(closure). start: (w, b, optimizer) to
    continue from. Returns the flat parameters and (w, b, optimizer)."""
    if start is None:
        w, b, loss_fn = make_model(dtype)
        params = [w, b] if group_b is None else [{"params": [w]}, dict(params=[b], **group_b)]
        opt = getattr(optim, name)(params, **kwargs)
    else:
        w, b, opt = start
        x, y = ng.tensor(X.astype(dtype)), ng.tensor(Y.astype(dtype))

        def loss_fn():
            return ((x @ w.T + b - y) ** 2).mean()

    def closure():
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    for _ in range(steps):
        if name == "LBFGS":
            opt.step(closure)
        else:
            closure()
            opt.step()
    flat = np.concatenate([w.detach().numpy().ravel(), b.detach().numpy().ravel()])
    return flat, (w, b, opt)


# (optimizer, options, options of b's group or None, torch's w and b after 5 steps (LBFGS: 2
# steps) in float32, the same in float64)
OPTIMIZER_CASES = [
    ('Adamax', {'lr': 0.1}, None,
     [0.42364037, -0.3606194, 0.14183758, 0.05363384, 0.15443917, -0.2107992, -0.051236637,
      -0.093138896],
     [0.4236403394304794, -0.3606193842469755, 0.14183759599947815, 0.05363384561458236,
      0.15443914035824904, -0.2107991511427994, -0.05123664516088181, -0.0931389142115445]),
    ('Adamax', {'lr': 0.05, 'betas': (0.8, 0.9), 'weight_decay': 0.1}, None,
     [0.32702574, -0.28138426, 0.13173309, 0.15423669, 0.25231802, -0.33445412, 0.011029772,
      -0.14934689],
     [0.3270257539691837, -0.28138424519752697, 0.1317330737851889, 0.15423670608030488,
      0.25231801319872993, -0.3344541250006299, 0.011029778956367434, -0.14934689809839524]),
    ('Adamax', {'lr': 0.1, 'maximize': True}, None,
     [-0.31112128, -0.527097, 0.68359447, 0.8242724, 0.92661023, -1.0416226, -0.3026064,
      0.27026603],
     [-0.31112129321617704, -0.5270969734306448, 0.6835944440011283, 0.8242723904220141,
      0.9266101899074202, -1.0416225941587205, -0.30260640527565086, 0.2702660223281892]),
    ('NAdam', {'lr': 0.1}, None,
     [0.4191765, -0.35415447, 0.14149453, 0.077888496, 0.20071548, -0.27022448, -0.03487485,
      -0.007743786],
     [0.41917647893663645, -0.354154479458137, 0.14149450938595168, 0.07788848920296731,
      0.20071547703198364, -0.2702245018372315, -0.03487483733407358, -0.007743791481450596]),
    ('NAdam', {'lr': 0.05, 'weight_decay': 0.1, 'momentum_decay': 0.01}, None,
     [0.27640638, -0.2945339, 0.15521143, 0.21909623, 0.3203017, -0.41377833, 0.03235674,
      -0.10805204],
     [0.2764063622394312, -0.29453393043561155, 0.15521141896963256, 0.21909622473948623,
      0.32030171182190564, -0.4137782746422625, 0.032356740721210586, -0.10805203385221131]),
    ('NAdam', {'lr': 0.05, 'weight_decay': 0.1, 'decoupled_weight_decay': True}, None,
     [0.2750269, -0.30405656, 0.1550786, 0.21342126, 0.31279105, -0.40236196, 0.03947768,
      -0.11968026],
     [0.27502685674540717, -0.3040565660093944, 0.15507859050435635, 0.213421229799444,
      0.31279106732361744, -0.40236197787439637, 0.039477693473729605, -0.11968024897728942]),
    ('NAdam', {'lr': 0.1, 'maximize': True}, {'lr': 0.01, 'betas': (0.5, 0.7)},
     [-0.36696973, -0.7267146, 0.8025776, 0.8522175, 0.95596254, -1.048364, -0.009817607,
      -0.041816726],
     [-0.36696969627741116, -0.7267146335964773, 0.8025776446446539, 0.852217586193589,
      0.9559624839007923, -1.0483640049329337, -0.009817609419962656, -0.041816712179344157]),
    ('RAdam', {'lr': 0.1}, None,
     [0.26286113, -0.21095987, 0.21429089, 0.17532119, 0.28749886, -0.17375356, 0.06479693,
      -0.13486569],
     [0.26286110251876615, -0.2109598662754422, 0.21429088511402958, 0.17532119531455967,
      0.2874988510476969, -0.1737535900966899, 0.0647969385863214, -0.1348656870292955]),
    ('RAdam', {'lr': 0.05, 'betas': (0.5, 0.6), 'weight_decay': 0.1}, None,
     [0.18162653, -0.19935493, 0.24805854, 0.27237806, 0.37387815, -0.3606886, 0.058413584,
      -0.11833817],
     [0.1816265133504409, -0.19935493564984408, 0.24805854199055677, 0.2723780415798451,
      0.3738781464900505, -0.3606885973916192, 0.058413584797929456, -0.11833815929263461]),
    ('RAdam', {'lr': 0.05, 'weight_decay': 0.1, 'decoupled_weight_decay': True},
     {'lr': 0.2, 'betas': (0.5, 0.6)},
     [0.18233709, -0.19857474, 0.2459776, 0.27039126, 0.3687388, -0.35094392, 0.07369756,
      -0.15199591],
     [0.1823371002092521, -0.1985747328059141, 0.2459775951883563, 0.2703912598348136,
      0.3687388019415198, -0.3509438911182384, 0.07369755782446287, -0.1519959158353771]),
    ('RAdam', {'lr': 0.1, 'maximize': True}, None,
     [-0.11002177, -0.21515822, 0.42902714, 0.7302748, 0.8563033, -1.2503818, 0.003555621,
      -0.0055403616],
     [-0.11002175213054607, -0.2151581994008967, 0.42902714271416703, 0.7302747403895108,
      0.8563032452243522, -1.2503818949332193, 0.003555624591701714, -0.005540362885618284]),
    ('Adadelta', {}, None,
     [0.116125375, -0.2118212, 0.2839487, 0.3838044, 0.483784, -0.5837113, 0.064688556,
      -0.115421504],
     [0.11612537616718702, -0.21182120236017457, 0.28394866809295793, 0.3838044384443927,
      0.4837839897729527, -0.5837113223446956, 0.06468854799993154, -0.11542150509160144]),
    ('Adadelta', {'lr': 0.5, 'rho': 0.5, 'eps': 0.001, 'weight_decay': 0.1}, None,
     [0.22484513, -0.2457855, 0.18925464, 0.2711562, 0.3709374, -0.46737084, 0.059511706,
      -0.13832478],
     [0.2248451139500794, -0.2457855135092777, 0.1892546305143306, 0.2711561627592888,
      0.3709374175952289, -0.46737080526712454, 0.059511707383864854, -0.13832479789608074]),
    ('Adadelta', {'lr': 0.5, 'maximize': True}, {'rho': 0.3},
     [0.09171364, -0.20824763, 0.30838463, 0.40826473, 0.508266, -0.60825294, 0.045746315,
      -0.09577984],
     [0.09171364349498834, -0.20824759799777354, 0.3083846456588751, 0.4082647245235332,
      0.5082659206334921, -0.6082528950575223, 0.045746316645417534, -0.09577984604481703]),
    ('Rprop', {'lr': 0.05}, None,
     [0.47208002, -0.24100001, 0.22, 0.027919978, 0.12791997, -0.22792, 0.009, -0.14400001],
     [0.47208, -0.24100000000000002, 0.22, 0.02792000000000007, 0.12792000000000003,
      -0.22791999999999996, 0.009000000000000015, -0.14400000000000002]),
    ('Rprop', {'lr': 0.05, 'etas': (0.3, 1.5), 'step_sizes': (0.001, 0.08)}, None,
     [0.46499997, -0.22125, 0.23124999, 0.03499998, 0.13500002, -0.23500006, 0.028749999,
      -0.16875002],
     [0.4650000000000001, -0.22125000000000003, 0.23124999999999998, 0.035, 0.13499999999999995,
      -0.23499999999999988, 0.028749999999999998, -0.16875000000000004]),
    ('Rprop', {'lr': 0.05, 'maximize': True}, {'lr': 0.2},
     [-0.27208003, -0.57208, 0.67208004, 0.77208006, 0.8720801, -0.9720801, -1.4383202, 1.3883201],
     [-0.27208, -0.5720799999999999, 0.67208, 0.77208, 0.8720800000000001, -0.9720799999999999,
      -1.4383199999999998, 1.3883199999999998]),
    ('ASGD', {'lr': 0.1}, None,
     [0.24833156, -0.21758242, 0.22654396, 0.20522788, 0.32809293, -0.2385366, 0.05586845,
      -0.11941242],
     [0.24833156566907913, -0.2175824069561987, 0.22654398640368828, 0.20522790598999407,
      0.3280929376573301, -0.2385365991768198, 0.05586844753786194, -0.11941242775983157]),
    ('ASGD', {'lr': 0.1, 'lambd': 0.01, 'alpha': 0.5, 't0': 2, 'weight_decay': 0.1}, None,
     [0.23984692, -0.2094281, 0.21691512, 0.19271854, 0.31224808, -0.22607592, 0.054010294,
      -0.11170516],
     [0.23984690124693106, -0.20942808351688463, 0.21691510807810238, 0.19271853335421418,
      0.3122480648778935, -0.22607592970098248, 0.054010290518488976, -0.11170515609835902]),
    ('ASGD', {'lr': 0.1, 't0': 0, 'maximize': True}, {'lr': 0.3, 'lambd': 0.1},
     [-0.15325312, -0.23817858, 0.45320463, 0.8274139, 0.95483804, -1.3780191, -0.20107587,
      0.40909973],
     [-0.15325314312683164, -0.23817856634580634, 0.45320466462313774, 0.8274139821392259,
      0.9548381809238654, -1.3780193364898845, -0.2010758494043611, 0.40909971890775865]),
    ('LBFGS', {'lr': 1, 'max_iter': 4}, None,
     [0.78155094, -0.26069653, 0.263213, -0.2647084, 0.29484838, -0.12789458, -0.34159058,
      0.184621],
     [0.7815509424429045, -0.2606961549644322, 0.26321375780616835, -0.26470877727354575,
      0.29484791675530564, -0.127894919397162, -0.3415913399202774, 0.18462120782351668]),
    ('LBFGS', {'lr': 0.5, 'max_iter': 5, 'history_size': 2}, None,
     [0.84282035, -0.29096165, 0.27429166, -0.2729668, 0.3184569, -0.11453288, -0.36999926,
      0.2607723],
     [0.8428200654404083, -0.29096200771789676, 0.2742914321224192, -0.27296655807918213,
      0.31845707873986695, -0.11453285808290482, -0.36999887776958446, 0.26077191849584686]),
    ('LBFGS', {'lr': 3.0, 'max_iter': 4, 'line_search_fn': 'strong_wolfe'}, None,
     [1.1390728, 0.25080457, 0.66004413, -0.50426286, -0.109167546, -0.3983495, -0.7341677,
      0.5374707],
     [1.1390745071392965, 0.25080250361870504, 0.6600487595428401, -0.504264458673087,
      -0.1091686217372788, -0.39834795341392065, -0.7341742518672673, 0.5374775040122322]),
    ('LBFGS', {'lr': 0.05, 'max_iter': 4, 'line_search_fn': 'strong_wolfe'}, None,
     [0.44309914, -0.3154197, 0.1729372, 0.035416543, 0.32246393, -0.04236617, -0.021657955,
      -0.032212228],
     [0.4430991447380742, -0.31541968432774775, 0.17293721972047907, 0.035416556675738564,
      0.32246391555887133, -0.04236617151871866, -0.021657949049952073, -0.03221225050302499]),
]

# torch's messages for bad hyperparameters
OPTIMIZER_ERRORS = [
    ('Adamax', {'lr': -0.1}, 'Invalid learning rate: -0.1'),
    ('Adamax', {'eps': -1.0}, 'Invalid epsilon value: -1.0'),
    ('Adamax', {'betas': (1.0, 0.9)}, 'Invalid beta parameter at index 0: 1.0'),
    ('Adamax', {'betas': (0.9, -0.1)}, 'Invalid beta parameter at index 1: -0.1'),
    ('Adamax', {'weight_decay': -0.5}, 'Invalid weight_decay value: -0.5'),
    ('NAdam', {'lr': -0.001}, 'Invalid learning rate: -0.001'),
    ('NAdam', {'betas': (0.9, 1.0)}, 'Invalid beta parameter at index 1: 1.0'),
    ('NAdam', {'momentum_decay': -0.1}, 'Invalid momentum_decay value: -0.1'),
    ('NAdam', {'eps': -1e-08}, 'Invalid epsilon value: -1e-08'),
    ('NAdam', {'weight_decay': -1}, 'Invalid weight_decay value: -1'),
    ('RAdam', {'lr': -2}, 'Invalid learning rate: -2'),
    ('RAdam', {'betas': (-0.1, 0.9)}, 'Invalid beta parameter at index 0: -0.1'),
    ('RAdam', {'eps': -1}, 'Invalid epsilon value: -1'),
    ('RAdam', {'weight_decay': -0.1}, 'Invalid weight_decay value: -0.1'),
    ('Adadelta', {'lr': -1}, 'Invalid learning rate: -1'),
    ('Adadelta', {'rho': 1.5}, 'Invalid rho value: 1.5'),
    ('Adadelta', {'eps': -1e-06}, 'Invalid epsilon value: -1e-06'),
    ('Adadelta', {'weight_decay': -0.01}, 'Invalid weight_decay value: -0.01'),
    ('Rprop', {'lr': -0.01}, 'Invalid learning rate: -0.01'),
    ('Rprop', {'etas': (1.2, 0.5)}, 'Invalid eta values: 1.2, 0.5'),
    ('Rprop', {'etas': (0.0, 1.2)}, 'Invalid eta values: 0.0, 1.2'),
    ('Rprop', {'etas': (0.5, 1.0)}, 'Invalid eta values: 0.5, 1.0'),
    ('ASGD', {'lr': -0.01}, 'Invalid learning rate: -0.01'),
    ('ASGD', {'weight_decay': -0.1}, 'Invalid weight_decay value: -0.1'),
    ('LBFGS', {'lr': -1}, 'Invalid learning rate: -1'),
]

# float32: torch fuses multiply-adds (FMA) in add(alpha=), lerp and addcmul, numgrad rounds twice,
# and the model's gradients are summed in another order: a few units in the last place per step
TOLERANCES = {"float32": dict(rtol=2e-5, atol=1e-6), "float64": dict(rtol=1e-11, atol=1e-13)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name, kwargs, group_b, want32, want64", OPTIMIZER_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(OPTIMIZER_CASES)])
def test_parameters_after_steps_match_torch(name, kwargs, group_b, want32, want64, dtype):
    got, (w, _, _) = train(name, kwargs, group_b, dtype, 2 if name == "LBFGS" else 5)
    assert w.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got, want32 if dtype == "float32" else want64,
                               **TOLERANCES[dtype])


# torch's LBFGS counters after the two steps of each LBFGS case above: (func_evals, n_iter)
LBFGS_COUNTERS = [(8, 8), (10, 10), (11, 5), (10, 4)]


@pytest.mark.parametrize("case, counters", list(zip(
    [c for c in OPTIMIZER_CASES if c[0] == "LBFGS"], LBFGS_COUNTERS)))
def test_lbfgs_counts_evaluations_as_torch(case, counters):
    _, (w, _, opt) = train(case[0], case[1], None, "float64", 2)
    state = opt.state[w]
    assert (state["func_evals"], state["n_iter"]) == counters


STATE_KEYS = {
    "Adamax": ["step", "exp_avg", "exp_inf"],
    "NAdam": ["step", "mu_product", "exp_avg", "exp_avg_sq"],
    "RAdam": ["step", "exp_avg", "exp_avg_sq"],
    "Adadelta": ["step", "square_avg", "acc_delta"],
    "Rprop": ["step", "prev", "step_size"],
    "ASGD": ["step", "eta", "mu", "ax"],
    "LBFGS": ["func_evals", "n_iter", "al", "d", "t", "old_dirs", "old_stps", "ro", "H_diag",
              "prev_flat_grad", "prev_loss"],
}
GROUP_KEYS = {
    "Adamax": ["betas", "capturable", "differentiable", "eps", "foreach", "lr", "maximize",
               "params", "weight_decay"],
    "NAdam": ["betas", "capturable", "decoupled_weight_decay", "differentiable", "eps", "foreach",
              "lr", "maximize", "momentum_decay", "params", "weight_decay"],
    "RAdam": ["betas", "capturable", "decoupled_weight_decay", "differentiable", "eps", "foreach",
              "lr", "maximize", "params", "weight_decay"],
    "Adadelta": ["capturable", "differentiable", "eps", "foreach", "lr", "maximize", "params",
                 "rho", "weight_decay"],
    "Rprop": ["capturable", "differentiable", "etas", "foreach", "lr", "maximize", "params",
              "step_sizes"],
    "ASGD": ["alpha", "capturable", "differentiable", "foreach", "lambd", "lr", "maximize",
             "params", "t0", "weight_decay"],
    "LBFGS": ["history_size", "line_search_fn", "lr", "max_eval", "max_iter", "params",
              "tolerance_change", "tolerance_grad"],
}
# one case per optimizer, with its options switched on
ROUND_TRIP_CASES = [OPTIMIZER_CASES[i] for i in (1, 5, 9, 12, 15, 18, 22)]


@pytest.mark.parametrize("name, kwargs, group_b", [c[:3] for c in ROUND_TRIP_CASES],
                         ids=[c[0] for c in ROUND_TRIP_CASES])
def test_state_dict_round_trip_continues_identically(name, kwargs, group_b):
    first, later = (1, 1) if name == "LBFGS" else (2, 3)
    straight, _ = train(name, kwargs, group_b, "float32", first + later)
    _, (w, b, opt) = train(name, kwargs, group_b, "float32", first)
    saved = through_a_file(opt.state_dict())
    assert list(saved["state"][0]) == STATE_KEYS[name]
    assert sorted(saved["param_groups"][0]) == GROUP_KEYS[name]
    if name != "LBFGS":
        step = saved["state"][0]["step"]
        assert step.dtype == ng.float32 and step.ndim == 0 and step.item() == first
    # a fresh optimizer of other parameters with the same values, given other options, loads it
    w2 = nn.Parameter(ng.tensor(w.detach().numpy().copy()))
    b2 = nn.Parameter(ng.tensor(b.detach().numpy().copy()))
    params = [w2, b2] if group_b is None else [{"params": [w2]}, {"params": [b2]}]
    other = getattr(optim, name)(params, lr=0.9)
    other.load_state_dict(saved)
    assert other.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
    resumed, _ = train(name, kwargs, group_b, "float32", later, start=(w2, b2, other))
    np.testing.assert_array_equal(resumed, straight)


@pytest.mark.parametrize("name", ["Adamax", "NAdam", "RAdam", "Adadelta", "Rprop", "ASGD"])
def test_foreach_is_accepted_and_changes_nothing(name):
    plain, _ = train(name, {"lr": 0.05}, None, "float32", 3)
    flagged, (_, _, opt) = train(name, {"lr": 0.05, "foreach": True}, None, "float32", 3)
    if name in ("ASGD", "NAdam", "RAdam"):
        # torch's multi-tensor ASGD, NAdam and RAdam round their updates otherwise: an ulp or so
        np.testing.assert_allclose(flagged, plain, rtol=1e-6)
    else:
        np.testing.assert_array_equal(flagged, plain)
    assert opt.param_groups[0]["foreach"] is True
    # capturable=True is accepted, but as torch's, its update refuses parameters on the host
    with pytest.raises(AssertionError, match="^If capturable=True, params"):
        train(name, {"lr": 0.05, "capturable": True}, None, "float32", 1)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        getattr(optim, name)([nn.Parameter(ng.ones(2))], differentiable=True)


@pytest.mark.parametrize("name, kwargs, message", OPTIMIZER_ERRORS,
                         ids=[f"{e[0]}-{i}" for i, e in enumerate(OPTIMIZER_ERRORS)])
def test_bad_hyperparameters_raise_torchs_errors(name, kwargs, message):
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        getattr(optim, name)([nn.Parameter(ng.ones(2))], **kwargs)


def test_parameters_without_gradient_are_left_alone():
    a, b = nn.Parameter(ng.ones(2)), nn.Parameter(ng.ones(2))
    opt = optim.NAdam([a, b], lr=0.1)
    (a * a).sum().backward()
    version = b._version
    opt.step()
    assert b.tolist() == [1.0, 1.0] and b._version == version and b not in opt.state
    # torch's NAdam writes a twice (two param.addcdiv_), so its version moves by two
    assert a._version == version + 2 and a.tolist() != [1.0, 1.0]
    opt.zero_grad()
    assert a.grad is None


def test_lbfgs_closure_groups_and_line_search_errors():
    w = nn.Parameter(ng.tensor([1.0, -2.0], dtype=ng.float64))
    opt = optim.LBFGS([w], line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((w - 3.0) ** 2).sum()
        loss.backward()
        return loss

    first = opt.step(closure)
    assert first.item() == 29.0                    # the loss of the first evaluation
    np.testing.assert_allclose(w.detach().numpy(), [3.0, 3.0], rtol=1e-12)
    assert opt.step(closure).item() < 1e-20        # at the minimum: one evaluation, no move
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        optim.LBFGS([{"params": [w]}, {"params": [nn.Parameter(ng.ones(1))]}])
    v = nn.Parameter(ng.tensor([0.0]))
    other = optim.LBFGS([v], line_search_fn="armijo")

    def other_closure():
        other.zero_grad()
        loss = ((v - 1.0) ** 2).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        other.step(other_closure)


@pytest.mark.skipif(not ng.cuda.is_available(), reason="needs numba-cuda and a GPU or its "
                                                      "simulator")
@pytest.mark.parametrize("name", ["Adamax", "NAdam", "RAdam", "Adadelta", "Rprop", "ASGD"])
def test_tensor_op_optimizers_run_on_the_gpu(name):
    results = []
    for device in ("cpu", "cuda"):
        p = nn.Parameter(ng.tensor(np.array([0.5, -1.0, 2.0]), device=device))
        opt = getattr(optim, name)([p], lr=0.1, weight_decay=0.1) if name != "Rprop" else \
            optim.Rprop([p], lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            ((p - 0.3) ** 2).sum().backward()
            opt.step()
        results.append(p.detach().cpu().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-14)


@pytest.mark.skipif(not ng.cuda.is_available(), reason="needs numba-cuda and a GPU or its "
                                                      "simulator")
def test_lbfgs_runs_on_the_gpu():
    results = []
    for device in ("cpu", "cuda"):
        w = nn.Parameter(ng.tensor(np.array([1.0, -2.0, 0.5]), device=device))
        scale = ng.tensor(np.array([1.0, 2.0, 3.0]), device=device)
        opt = optim.LBFGS([w], max_iter=5, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = ((w - 0.3) ** 2 * scale).sum()
            loss.backward()
            return loss

        opt.step(closure)
        results.append(w.detach().cpu().numpy())
    # the dot products' sums may run in another order on the device
    np.testing.assert_allclose(results[1], results[0], rtol=1e-12)


# ---- lr schedulers ---------------------------------------------------------------------------
def make_optimizer(kind):
    """Two groups, lr 0.1 and 0.05: SGD with momentum 0.9, or Adam."""
    groups = [{"params": [nn.Parameter(ng.ones(1))]},
              {"params": [nn.Parameter(ng.ones(1))], "lr": 0.05}]
    return optim.SGD(groups, lr=0.1, momentum=0.9) if kind == "sgd" else optim.Adam(groups,
                                                                                     lr=0.1)


SCHEDULERS = {
    "LambdaLR": ("sgd", lambda o: lr_scheduler.LambdaLR(
        o, [lambda e: 0.9 ** e, lambda e: 1 / (e + 1)])),
    "MultiplicativeLR": ("sgd", lambda o: lr_scheduler.MultiplicativeLR(o, lambda e: 0.95)),
    "StepLR": ("sgd", lambda o: lr_scheduler.StepLR(o, step_size=3, gamma=0.5)),
    "MultiStepLR": ("sgd", lambda o: lr_scheduler.MultiStepLR(o, milestones=[2, 5, 5, 9],
                                                              gamma=0.3)),
    "ConstantLR": ("sgd", lambda o: lr_scheduler.ConstantLR(o, factor=0.25, total_iters=4)),
    "LinearLR": ("sgd", lambda o: lr_scheduler.LinearLR(o, start_factor=0.2, end_factor=0.9,
                                                        total_iters=7)),
    "ExponentialLR": ("sgd", lambda o: lr_scheduler.ExponentialLR(o, gamma=0.9)),
    "PolynomialLR": ("sgd", lambda o: lr_scheduler.PolynomialLR(o, total_iters=12, power=2.0)),
    "CosineAnnealingLR": ("sgd", lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=7,
                                                                          eta_min=0.001)),
    "CosineAnnealingWarmRestarts": ("sgd", lambda o: lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=0.002)),
    "CyclicLR_triangular": ("sgd", lambda o: lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=4, step_size_down=3)),
    "CyclicLR_triangular2": ("sgd", lambda o: lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=3, mode="triangular2", base_momentum=0.7,
        max_momentum=0.95)),
    "CyclicLR_exp_range": ("adam", lambda o: lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=5, mode="exp_range", gamma=0.9)),
    "CyclicLR_nomomentum": ("adam", lambda o: lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=2, cycle_momentum=False)),
    "OneCycleLR": ("sgd", lambda o: lr_scheduler.OneCycleLR(o, max_lr=[1.0, 0.5],
                                                            total_steps=21)),
    "OneCycleLR_linear3": ("adam", lambda o: lr_scheduler.OneCycleLR(
        o, max_lr=1.0, epochs=3, steps_per_epoch=7, anneal_strategy="linear", three_phase=True)),
    "SequentialLR": ("sgd", lambda o: lr_scheduler.SequentialLR(
        o, [lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=4),
            lr_scheduler.ExponentialLR(o, gamma=0.8), lr_scheduler.StepLR(o, 2)],
        milestones=[5, 11])),
    "ChainedScheduler": ("sgd", lambda o: lr_scheduler.ChainedScheduler(
        [lr_scheduler.ConstantLR(o, factor=0.5, total_iters=3),
         lr_scheduler.ExponentialLR(o, gamma=0.9), lr_scheduler.MultiStepLR(o, [4, 8])])),
}


def momentum(opt):
    group = opt.param_groups[0]
    return group["betas"][0] if "betas" in group else group["momentum"]


def run_schedule(name, steps, start=None):
    """The lrs of both groups and group 0's momentum, before and after each of `steps` steps."""
    if start is None:
        kind, make = SCHEDULERS[name]
        opt = make_optimizer(kind)
        sched = make(opt)
    else:
        opt, sched = start
    lrs, momenta = [list(sched.get_last_lr())], [momentum(opt)]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(list(sched.get_last_lr()))
        momenta.append(momentum(opt))
        assert lrs[-1] == [group["lr"] for group in opt.param_groups]
    return np.array(lrs), np.array(momenta), opt, sched


# torch's lrs of both groups before and after each of 20 steps, and group 0's momentum or
# beta1 for the cyclic schedules
LR_SEQUENCES = {
    'LambdaLR': (
        [0.1, 0.09000000000000001, 0.08100000000000002, 0.0729, 0.06561, 0.05904900000000001,
         0.05314410000000001, 0.04782969000000001, 0.04304672100000001, 0.03874204890000001,
         0.03486784401000001, 0.031381059609000006, 0.028242953648100012, 0.02541865828329001,
         0.02287679245496101, 0.02058911320946491, 0.018530201888518418, 0.016677181699666577,
         0.015009463529699918, 0.013508517176729929, 0.012157665459056936],
        [0.05, 0.025, 0.016666666666666666, 0.0125, 0.010000000000000002, 0.008333333333333333,
         0.007142857142857143, 0.00625, 0.005555555555555556, 0.005000000000000001,
         0.004545454545454546, 0.004166666666666667, 0.0038461538461538464,
         0.0035714285714285713, 0.0033333333333333335, 0.003125, 0.0029411764705882353,
         0.002777777777777778, 0.002631578947368421, 0.0025000000000000005, 0.002380952380952381],
        None),
    'MultiplicativeLR': (
        [0.1, 0.095, 0.09025, 0.0857375, 0.08145062499999998, 0.07737809374999999,
         0.07350918906249998, 0.06983372960937498, 0.06634204312890622, 0.0630249409724609,
         0.05987369392383786, 0.05688000922764597, 0.05403600876626367, 0.05133420832795048,
         0.04876749791155295, 0.046329123015975304, 0.04401266686517654, 0.04181203352191771,
         0.039721431845821824, 0.037735360253530734, 0.035848592240854196],
        [0.05, 0.0475, 0.045125, 0.04286875, 0.04072531249999999, 0.038689046874999994,
         0.03675459453124999, 0.03491686480468749, 0.03317102156445311, 0.03151247048623045,
         0.02993684696191893, 0.028440004613822983, 0.027018004383131834, 0.02566710416397524,
         0.024383748955776476, 0.023164561507987652, 0.02200633343258827, 0.020906016760958854,
         0.019860715922910912, 0.018867680126765367, 0.017924296120427098],
        None),
    'StepLR': (
        [0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.0125, 0.0125, 0.0125, 0.00625,
         0.00625, 0.00625, 0.003125, 0.003125, 0.003125, 0.0015625, 0.0015625, 0.0015625],
        [0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.0125, 0.0125, 0.0125, 0.00625, 0.00625,
         0.00625, 0.003125, 0.003125, 0.003125, 0.0015625, 0.0015625, 0.0015625, 0.00078125,
         0.00078125, 0.00078125],
        None),
    'MultiStepLR': (
        [0.1, 0.1, 0.03, 0.03, 0.03, 0.0026999999999999997, 0.0026999999999999997,
         0.0026999999999999997, 0.0026999999999999997, 0.0008099999999999998,
         0.0008099999999999998, 0.0008099999999999998, 0.0008099999999999998,
         0.0008099999999999998, 0.0008099999999999998, 0.0008099999999999998,
         0.0008099999999999998, 0.0008099999999999998, 0.0008099999999999998,
         0.0008099999999999998, 0.0008099999999999998],
        [0.05, 0.05, 0.015, 0.015, 0.015, 0.0013499999999999999, 0.0013499999999999999,
         0.0013499999999999999, 0.0013499999999999999, 0.0004049999999999999,
         0.0004049999999999999, 0.0004049999999999999, 0.0004049999999999999,
         0.0004049999999999999, 0.0004049999999999999, 0.0004049999999999999,
         0.0004049999999999999, 0.0004049999999999999, 0.0004049999999999999,
         0.0004049999999999999, 0.0004049999999999999],
        None),
    'ConstantLR': (
        [0.025, 0.025, 0.025, 0.025, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
         0.1, 0.1, 0.1, 0.1, 0.1],
        [0.0125, 0.0125, 0.0125, 0.0125, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05,
         0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05],
        None),
    'LinearLR': (
        [0.020000000000000004, 0.030000000000000006, 0.04000000000000001, 0.05000000000000001,
         0.06000000000000001, 0.07000000000000002, 0.08000000000000002, 0.09000000000000002,
         0.09000000000000002, 0.09000000000000002, 0.09000000000000002, 0.09000000000000002,
         0.09000000000000002, 0.09000000000000002, 0.09000000000000002, 0.09000000000000002,
         0.09000000000000002, 0.09000000000000002, 0.09000000000000002, 0.09000000000000002,
         0.09000000000000002],
        [0.010000000000000002, 0.015000000000000003, 0.020000000000000004, 0.025000000000000005,
         0.030000000000000006, 0.03500000000000001, 0.04000000000000001, 0.04500000000000001,
         0.04500000000000001, 0.04500000000000001, 0.04500000000000001, 0.04500000000000001,
         0.04500000000000001, 0.04500000000000001, 0.04500000000000001, 0.04500000000000001,
         0.04500000000000001, 0.04500000000000001, 0.04500000000000001, 0.04500000000000001,
         0.04500000000000001],
        None),
    'ExponentialLR': (
        [0.1, 0.09000000000000001, 0.08100000000000002, 0.07290000000000002, 0.06561000000000002,
         0.05904900000000002, 0.05314410000000002, 0.04782969000000002, 0.043046721000000024,
         0.03874204890000002, 0.03486784401000002, 0.03138105960900001, 0.028242953648100012,
         0.025418658283290013, 0.022876792454961013, 0.020589113209464913, 0.01853020188851842,
         0.01667718169966658, 0.015009463529699923, 0.013508517176729932, 0.01215766545905694],
        [0.05, 0.045000000000000005, 0.04050000000000001, 0.03645000000000001,
         0.03280500000000001, 0.02952450000000001, 0.02657205000000001, 0.02391484500000001,
         0.021523360500000012, 0.01937102445000001, 0.01743392200500001, 0.015690529804500006,
         0.014121476824050006, 0.012709329141645007, 0.011438396227480507, 0.010294556604732457,
         0.00926510094425921, 0.00833859084983329, 0.007504731764849962, 0.006754258588364966,
         0.00607883272952847],
        None),
    'PolynomialLR': (
        [0.1, 0.08402777777777777, 0.06944444444444445, 0.05624999999999999, 0.04444444444444444,
         0.03402777777777776, 0.024999999999999994, 0.017361111111111105, 0.011111111111111112,
         0.006249999999999999, 0.002777777777777776, 0.000694444444444445, 0.0, 0.0, 0.0, 0.0,
         0.0, 0.0, 0.0, 0.0, 0.0],
        [0.05, 0.042013888888888885, 0.034722222222222224, 0.028124999999999994,
         0.02222222222222222, 0.01701388888888888, 0.012499999999999997, 0.008680555555555552,
         0.005555555555555556, 0.0031249999999999993, 0.001388888888888888,
         0.0003472222222222225, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        None),
    'CosineAnnealingLR': (
        [0.1, 0.09509795896116975, 0.08136274519200731, 0.061514786230837566,
         0.03948521376916245, 0.019637254807992697, 0.005902041038830259, 0.001,
         0.005902041038830253, 0.019637254807992683, 0.03948521376916243, 0.061514786230837525,
         0.08136274519200731, 0.09509795896116978, 0.10000000000000002, 0.09509795896116978,
         0.08136274519200734, 0.06151478623083755, 0.03948521376916246, 0.019637254807992707,
         0.005902041038830264],
        [0.05, 0.04757373726360927, 0.040775500145538976, 0.030951762881929707,
         0.020048237118070304, 0.010224499854461031, 0.0034262627363907338, 0.001,
         0.003426262736390731, 0.010224499854461024, 0.020048237118070293, 0.03095176288192968,
         0.04077550014553897, 0.04757373726360928, 0.05, 0.04757373726360928,
         0.04077550014553898, 0.030951762881929693, 0.020048237118070307, 0.010224499854461035,
         0.003426262736390736],
        None),
    'CosineAnnealingWarmRestarts': (
        [0.1, 0.07550000000000001, 0.02650000000000001, 0.1, 0.09343524478543751,
         0.07550000000000001, 0.051000000000000004, 0.02650000000000001, 0.008564755214562503,
         0.1, 0.09833036548816435, 0.09343524478543751, 0.08564823227814083, 0.07550000000000001,
         0.06368213321002351, 0.051000000000000004, 0.03831786678997649, 0.02650000000000001,
         0.016351767721859173, 0.008564755214562503, 0.0036696345118356582],
        [0.05, 0.038000000000000006, 0.014000000000000005, 0.05, 0.04678460969082653,
         0.038000000000000006, 0.026000000000000002, 0.014000000000000005, 0.005215390309173471,
         0.05, 0.04918221983093764, 0.04678460969082653, 0.04297056274847714,
         0.038000000000000006, 0.0322116570824605, 0.026000000000000002, 0.019788342917539503,
         0.014000000000000005, 0.009029437251522861, 0.005215390309173471, 0.0028177801690623633],
        None),
    'CyclicLR_triangular': (
        [0.01, 0.032499999999999994, 0.054999999999999986, 0.07750000000000001, 0.1,
         0.06999999999999998, 0.03999999999999999, 0.01, 0.032499999999999994,
         0.054999999999999986, 0.07750000000000004, 0.09999999999999996, 0.06999999999999998,
         0.03999999999999999, 0.01, 0.032499999999999994, 0.054999999999999986,
         0.07749999999999997, 0.09999999999999995, 0.06999999999999998, 0.03999999999999999],
        [0.01, 0.05749999999999998, 0.10499999999999995, 0.15250000000000002, 0.2,
         0.1366666666666666, 0.07333333333333329, 0.01, 0.05749999999999998, 0.10499999999999995,
         0.1525000000000001, 0.19999999999999993, 0.1366666666666666, 0.07333333333333329, 0.01,
         0.05749999999999998, 0.10499999999999995, 0.15249999999999994, 0.1999999999999999,
         0.1366666666666666, 0.07333333333333329],
        [0.9, 0.875, 0.8500000000000001, 0.8250000000000001, 0.8, 0.8333333333333334,
         0.8666666666666667, 0.9, 0.875, 0.8500000000000001, 0.825, 0.8, 0.8333333333333334,
         0.8666666666666667, 0.9, 0.875, 0.8500000000000001, 0.8250000000000001, 0.8,
         0.8333333333333334, 0.8666666666666667]),
    'CyclicLR_triangular2': (
        [0.01, 0.040000000000000015, 0.06999999999999999, 0.1, 0.07000000000000003,
         0.03999999999999998, 0.01, 0.02500000000000003, 0.03999999999999998,
         0.05500000000000001, 0.03999999999999998, 0.02500000000000003, 0.01,
         0.017499999999999995, 0.02500000000000001, 0.0325, 0.02500000000000001,
         0.017499999999999995, 0.01, 0.013749999999999988, 0.017500000000000016],
        [0.01, 0.040000000000000015, 0.06999999999999999, 0.1, 0.07000000000000003,
         0.03999999999999998, 0.01, 0.02500000000000003, 0.03999999999999998,
         0.05500000000000001, 0.03999999999999998, 0.02500000000000003, 0.01,
         0.017499999999999995, 0.02500000000000001, 0.0325, 0.02500000000000001,
         0.017499999999999995, 0.01, 0.013749999999999988, 0.017500000000000016],
        [0.95, 0.8666666666666666, 0.7833333333333333, 0.7, 0.7833333333333332,
         0.8666666666666667, 0.95, 0.9083333333333332, 0.8666666666666667, 0.825,
         0.8666666666666667, 0.9083333333333332, 0.95, 0.9291666666666667, 0.9083333333333332,
         0.8875, 0.9083333333333332, 0.9291666666666667, 0.95, 0.9395833333333333,
         0.9291666666666666]),
    'CyclicLR_exp_range': (
        [0.01, 0.026200000000000015, 0.03916, 0.049366000000000014, 0.0572392,
         0.06314410000000001, 0.048263752, 0.03582803260000001, 0.02549681956,
         0.01697356880200001, 0.01, 0.015648590729620007, 0.020167463313316016,
         0.023726075472976595, 0.02647129056757193, 0.028530201888518417, 0.02334174535973326,
         0.019005678117819946, 0.015403406870691977, 0.01243153309181139, 0.01],
        [0.01, 0.026200000000000015, 0.03916, 0.049366000000000014, 0.0572392,
         0.06314410000000001, 0.048263752, 0.03582803260000001, 0.02549681956,
         0.01697356880200001, 0.01, 0.015648590729620007, 0.020167463313316016,
         0.023726075472976595, 0.02647129056757193, 0.028530201888518417, 0.02334174535973326,
         0.019005678117819946, 0.015403406870691977, 0.01243153309181139, 0.01],
        [0.9, 0.882, 0.8676, 0.85626, 0.847512, 0.840951, 0.8574847200000001, 0.871302186,
         0.8827813116000001, 0.89225159022, 0.9, 0.8937237880782, 0.88870281854076,
         0.8847488050300261, 0.8816985660360313, 0.8794108867905351, 0.8851758384891852,
         0.8899936909802001, 0.8939962145881201, 0.897298296564654, 0.9]),
    'CyclicLR_nomomentum': (
        [0.01, 0.05500000000000001, 0.1, 0.05500000000000001, 0.01, 0.05500000000000001, 0.1,
         0.05500000000000001, 0.01, 0.05500000000000001, 0.1, 0.05500000000000001, 0.01,
         0.05500000000000001, 0.1, 0.05500000000000001, 0.01, 0.05500000000000001, 0.1,
         0.05500000000000001, 0.01],
        [0.01, 0.05500000000000001, 0.1, 0.05500000000000001, 0.01, 0.05500000000000001, 0.1,
         0.05500000000000001, 0.01, 0.05500000000000001, 0.1, 0.05500000000000001, 0.01,
         0.05500000000000001, 0.1, 0.05500000000000001, 0.01, 0.05500000000000001, 0.1,
         0.05500000000000001, 0.01],
        None),
    'OneCycleLR': (
        [0.040000000000000036, 0.12188527098390312, 0.3396027605851658, 0.6188697369957272,
         0.864403483381279, 0.9924306774148465, 0.9944154354509117, 0.9673623556045153,
         0.9190443762697105, 0.8516599658482698, 0.7682751154913771, 0.672683836480545,
         0.5692355326874485, 0.46263710266697505, 0.35773877573965707, 0.2593134265232537,
         0.17183940910385515, 0.09929679189326548, 0.044986264488089074, 0.01137895626972092,
         4e-06],
        [0.020000000000000018, 0.06094263549195156, 0.1698013802925829, 0.3094348684978636,
         0.4322017416906395, 0.49621533870742324, 0.49720771772545586, 0.48368117780225767,
         0.45952218813485524, 0.4258299829241349, 0.38413755774568853, 0.3363419182402725,
         0.28461776634372427, 0.23131855133348753, 0.17886938786982853, 0.12965671326162684,
         0.08591970455192757, 0.04964839594663274, 0.022493132244044537, 0.00568947813486046,
         2e-06],
        [0.95, 0.94147028427251, 0.9187913791057118, 0.8897010690629451, 0.8641246371477834,
         0.8507884711026201, 0.8505584586887436, 0.8532637774946584, 0.858095594755408,
         0.864834062751424, 0.8731725811411868, 0.8827317472789346, 0.8930766190377313,
         0.9037365046793212, 0.9142263793315516, 0.9240689536234891, 0.9328163903551758,
         0.9400706810933978, 0.9455017555582133, 0.9488624998230272, 0.95]),
    'OneCycleLR_linear3': (
        [0.04, 0.22113207547169814, 0.40226415094339624, 0.5833962264150944, 0.7645283018867925,
         0.9456603773584906, 0.8732075471698113, 0.6920754716981132, 0.5109433962264152,
         0.329811320754717, 0.1486792452830189, 0.03829804255319149, 0.03404314893617021,
         0.029788255319148936, 0.02553336170212766, 0.021278468085106382, 0.0170235744680851,
         0.012768680851063828, 0.008513787234042551, 0.004258893617021274, 3.9999999999970615e-06],
        [0.04, 0.22113207547169814, 0.40226415094339624, 0.5833962264150944, 0.7645283018867925,
         0.9456603773584906, 0.8732075471698113, 0.6920754716981132, 0.5109433962264152,
         0.329811320754717, 0.1486792452830189, 0.03829804255319149, 0.03404314893617021,
         0.029788255319148936, 0.02553336170212766, 0.021278468085106382, 0.0170235744680851,
         0.012768680851063828, 0.008513787234042551, 0.004258893617021274, 3.9999999999970615e-06],
        [0.95, 0.9311320754716981, 0.9122641509433962, 0.8933962264150943, 0.8745283018867924,
         0.8556603773584905, 0.8632075471698113, 0.8820754716981132, 0.9009433962264151,
         0.9198113207547169, 0.9386792452830188, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95,
         0.95, 0.95]),
    'SequentialLR': (
        [0.010000000000000002, 0.03250000000000001, 0.055000000000000014, 0.07750000000000003,
         0.10000000000000003, 0.1, 0.08000000000000002, 0.06400000000000002,
         0.051200000000000016, 0.04096000000000002, 0.03276800000000001, 0.1, 0.1,
         0.010000000000000002, 0.010000000000000002, 0.0010000000000000002,
         0.0010000000000000002, 0.00010000000000000003, 0.00010000000000000003,
         1.0000000000000004e-05, 1.0000000000000004e-05],
        [0.005000000000000001, 0.016250000000000004, 0.027500000000000007, 0.038750000000000014,
         0.05000000000000002, 0.05, 0.04000000000000001, 0.03200000000000001,
         0.025600000000000008, 0.02048000000000001, 0.016384000000000006, 0.05, 0.05,
         0.005000000000000001, 0.005000000000000001, 0.0005000000000000001,
         0.0005000000000000001, 5.0000000000000016e-05, 5.0000000000000016e-05,
         5.000000000000002e-06, 5.000000000000002e-06],
        None),
    'ChainedScheduler': (
        [0.05, 0.045000000000000005, 0.04050000000000001, 0.07290000000000002,
         0.006561000000000002, 0.005904900000000002, 0.005314410000000002, 0.004782969000000002,
         0.0004304672100000002, 0.0003874204890000002, 0.00034867844010000017,
         0.00031381059609000015, 0.00028242953648100014, 0.00025418658283290016,
         0.00022876792454961016, 0.00020589113209464914, 0.00018530201888518422,
         0.00016677181699666582, 0.00015009463529699923, 0.00013508517176729932,
         0.00012157665459056939],
        [0.025, 0.022500000000000003, 0.020250000000000004, 0.03645000000000001,
         0.003280500000000001, 0.002952450000000001, 0.002657205000000001, 0.002391484500000001,
         0.0002152336050000001, 0.0001937102445000001, 0.00017433922005000008,
         0.00015690529804500007, 0.00014121476824050007, 0.00012709329141645008,
         0.00011438396227480508, 0.00010294556604732457, 9.265100944259211e-05,
         8.338590849833291e-05, 7.504731764849961e-05, 6.754258588364966e-05,
         6.0788327295284694e-05],
        None),
}
# torch's lrs after each metric (both groups)
PLATEAU_SEQUENCES = {
    'min_rel': ([0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.05, 0.025, 0.025,
                 0.025, 0.025, 0.0125, 0.0125, 0.0125, 0.0125],
        [0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.025, 0.025, 0.0125,
         0.0125, 0.0125, 0.0125, 0.00625, 0.00625, 0.00625, 0.00625]),
    'min_abs_cooldown': ([0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05, 0.05, 0.025,
                          0.025, 0.025, 0.025, 0.0125, 0.0125, 0.0125, 0.0125, 0.01],
        [0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.025, 0.025, 0.0125, 0.0125,
         0.0125, 0.0125, 0.00625, 0.00625, 0.00625, 0.00625, 0.004]),
    'max_rel': ([0.1, 0.1, 0.03, 0.009, 0.009, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005,
                 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005],
        [0.05, 0.05, 0.015, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005,
         0.005, 0.005, 0.005, 0.005, 0.005, 0.005, 0.005]),
    'max_abs_eps': ([0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1,
                     0.09000000000000001, 0.09000000000000001, 0.09000000000000001,
                     0.09000000000000001, 0.08100000000000002],
        [0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05,
         0.05, 0.05, 0.05, 0.05, 0.05, 0.05]),
}
# torch's lr of group 0 after step(epoch) for each epoch
CLOSED_FORM_EPOCHS = [3, 7, 1, 12, 0, 5]
CLOSED_FORMS = {
    'StepLR': [0.05, 0.025, 0.1, 0.00625, 0.1, 0.05],
    'MultiStepLR': [0.03, 0.0026999999999999997, 0.1, 0.00081, 0.1, 0.0026999999999999997],
    'ConstantLR': [0.025, 0.1, 0.025, 0.1, 0.025, 0.1],
    'LinearLR': [0.049999999999999996, 0.09, 0.03, 0.09, 0.020000000000000004,
                 0.06999999999999999],
    'ExponentialLR': [0.0729, 0.04782969000000001, 0.09000000000000001, 0.028242953648100012,
                      0.1, 0.05904900000000001],
    'PolynomialLR': [0.048999999999999995, 0.009000000000000003, 0.08100000000000002, 0.0, 0.1,
                     0.025],
    'CosineAnnealingLR': [0.061514786230837566, 0.001, 0.09509795896116975, 0.08136274519200731,
                          0.1, 0.019637254807992693],
    'CosineAnnealingWarmRestarts': [0.008564755214562503, 0.09989508723869157,
                                    0.09343524478543751, 0.0036696345118356582,
                                    0.09343524478543751],
}

# (optimizer kind, construction, torch's error and message)
SCHEDULER_ERRORS = [
    ('sgd', lambda m, o: m.ConstantLR(o, factor=1.5), ValueError,
     'Constant multiplicative factor expected to be between 0 and 1.'),
    ('sgd', lambda m, o: m.LinearLR(o, start_factor=0), ValueError,
     'Starting multiplicative factor expected to be greater than 0 and less or equal to 1.'),
    ('sgd', lambda m, o: m.LinearLR(o, end_factor=1.5), ValueError,
     'Ending multiplicative factor expected to be between 0 and 1.'),
    ('sgd', lambda m, o: m.LambdaLR(o, [lambda e: 1.0, lambda e: 2.0]), ValueError,
     'Expected 1 lr_lambdas, but got 2'),
    ('sgd', lambda m, o: m.MultiplicativeLR(o, 0.9), TypeError,
     'lr_lambda should be a function, but got float'),
    ('sgd', lambda m, o: m.StepLR(o, 2, last_epoch=4), KeyError,
     '"param \'initial_lr\' is not specified in param_groups[0] when resuming scheduler with '
     "last_epoch >= 0.\\nThis typically happens when:\\n1. You're trying to resume training from "
     "a checkpoint but haven't properly loaded the optimizer state\\n2. You're using last_epoch "
     '>= 0 for a fresh training run (not recommended)"'),
    ('sgd', lambda m, o: m.StepLR('sgd', 2), TypeError, 'str is not an Optimizer'),
    ('sgd', lambda m, o: m.SequentialLR(o, [], []), ValueError,
     'SequentialLR expects at least one scheduler, but got no scheduler.'),
    ('sgd', lambda m, o: m.SequentialLR(o, [m.StepLR(o, 2), m.StepLR(o, 3)], [1, 2]), ValueError,
     'Sequential Schedulers expects number of schedulers provided to be one more than the number '
     'of milestone points, but got number of schedulers 2 and the number of milestones to be '
     'equal to 2'),
    ('sgd', lambda m, o: m.SequentialLR(o, [m.StepLR(o, 2), m.ReduceLROnPlateau(o)], [1]),
     ValueError,
     'SequentialLR does not support `ReduceLROnPlateau` scheduler as it requires additional '
     'kwargs to be specified when calling `step`, but got one at index 1 in the given schedulers '
     'sequence.'),
    ('sgd', lambda m, o: m.ChainedScheduler([]), ValueError,
     'ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.'),
    ('sgd', lambda m, o: m.ReduceLROnPlateau(o, factor=1.0), ValueError,
     'Factor should be < 1.0.'),
    ('sgd', lambda m, o: m.ReduceLROnPlateau(o, mode='middle'), ValueError,
     'mode middle is unknown!'),
    ('sgd', lambda m, o: m.ReduceLROnPlateau(o, threshold_mode='log'), ValueError,
     'threshold mode log is unknown!'),
    ('sgd', lambda m, o: m.ReduceLROnPlateau(o, min_lr=[0.1, 0.2]), ValueError,
     'expected 1 min_lrs, got 2'),
    ('sgd', lambda m, o: m.CyclicLR(o, 0.01, 0.1, mode='square'), ValueError,
     'mode is invalid and scale_fn is None'),
    ('sgd', lambda m, o: m.CyclicLR(o, [0.01, 0.02], 0.1), ValueError,
     'base_lr must have the same length as optimizer.param_groups. base_lr has 2 values, '
     'param_groups has 1.'),
    ('adagrad', lambda m, o: m.CyclicLR(o, 0.01, 0.1), ValueError,
     'optimizer must support momentum or beta1 with `cycle_momentum` option enabled'),
    ('adagrad', lambda m, o: m.OneCycleLR(o, 1.0, total_steps=10), ValueError,
     'optimizer must support momentum or beta1 with `cycle_momentum` option enabled'),
    ('sgd', lambda m, o: m.OneCycleLR(o, 1.0, total_steps=0), ValueError,
     'Expected positive integer total_steps, but got 0'),
    ('sgd', lambda m, o: m.OneCycleLR(o, 1.0), ValueError,
     'You must define either total_steps OR (epochs AND steps_per_epoch)'),
    ('sgd', lambda m, o: m.OneCycleLR(o, 1.0, epochs=-1, steps_per_epoch=3), ValueError,
     'Expected positive integer epochs, but got -1'),
    ('sgd', lambda m, o: m.OneCycleLR(o, 1.0, epochs=2, steps_per_epoch=0), ValueError,
     'Expected positive integer steps_per_epoch, but got 0'),
    ('sgd', lambda m, o: m.OneCycleLR(o, 1.0, total_steps=10, pct_start=1), ValueError,
     'Expected float between 0 and 1 pct_start, but got 1'),
    ('sgd', lambda m, o: m.OneCycleLR(o, 1.0, total_steps=10, anneal_strategy='exp'), ValueError,
     "anneal_strategy must be one of 'cos' or 'linear', instead got exp"),
    ('sgd', lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=0), ValueError,
     'Expected positive integer T_0, but got 0'),
    ('sgd', lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=1.5), ValueError,
     'Expected integer T_mult >= 1, but got 1.5'),
    ('sgd', lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, eta_min='0'), ValueError,
     "Expected float or int eta_min, but got 0 of type <class 'str'>"),
    ('sgd', lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2).step(-1), ValueError,
     'Expected non-negative epoch, but got -1'),
]


# the lr sequences are torch's to the last bit; 1e-15 leaves room for another libm's cos
EXACT = dict(rtol=1e-15, atol=0)


@pytest.mark.parametrize("name", list(LR_SEQUENCES))
def test_lr_sequence_matches_torch(name):
    lrs, momenta, _, sched = run_schedule(name, 20)
    want0, want1, want_momenta = LR_SEQUENCES[name]
    np.testing.assert_allclose(lrs[:, 0], want0, **EXACT)
    np.testing.assert_allclose(lrs[:, 1], want1, **EXACT)
    if want_momenta is not None:
        np.testing.assert_allclose(momenta, want_momenta, **EXACT)
    if name != "ChainedScheduler":
        assert sched.last_epoch == 20


@pytest.mark.parametrize("name", list(LR_SEQUENCES))
def test_scheduler_state_round_trip_continues_the_sequence(name):
    _, _, opt, sched = run_schedule(name, 7)
    assert "optimizer" not in sched.state_dict()
    saved_opt, saved = through_a_file(opt.state_dict()), through_a_file(sched.state_dict())
    kind, make = SCHEDULERS[name]
    other_opt = make_optimizer(kind)
    other = make(other_opt)
    other_opt.load_state_dict(saved_opt)
    other.load_state_dict(saved)
    lrs, momenta, _, _ = run_schedule(name, 13, start=(other_opt, other))
    want0, want1, want_momenta = LR_SEQUENCES[name]
    np.testing.assert_allclose(lrs[:, 0], want0[7:], **EXACT)
    np.testing.assert_allclose(lrs[:, 1], want1[7:], **EXACT)
    if want_momenta is not None:
        np.testing.assert_allclose(momenta, want_momenta[7:], **EXACT)
    if hasattr(other, "_get_closed_form_lr"):       # which reads the loaded state too
        with pytest.warns(UserWarning, match="epoch parameter"):
            other.step(3)


# the keys of torch's scheduler state dicts: every LRScheduler's, and each one's own
COMMON_STATE_KEYS = ["_get_lr_called_within_step", "_is_initial", "_last_lr", "_step_count",
                     "base_lrs", "last_epoch"]
CYCLIC_KEYS = ["_scale_fn_custom", "cycle_momentum", "gamma", "max_lrs", "mode", "scale_mode",
               "step_ratio", "total_size"]
OWN_STATE_KEYS = {
    "LambdaLR": ["lr_lambdas"], "MultiplicativeLR": ["lr_lambdas"],
    "StepLR": ["gamma", "step_size"], "MultiStepLR": ["gamma", "milestones"],
    "ConstantLR": ["factor", "total_iters"],
    "LinearLR": ["end_factor", "start_factor", "total_iters"], "ExponentialLR": ["gamma"],
    "PolynomialLR": ["power", "total_iters"], "CosineAnnealingLR": ["T_max", "eta_min"],
    "CosineAnnealingWarmRestarts": ["T_0", "T_cur", "T_i", "T_mult", "eta_min"],
    "CyclicLR_triangular": CYCLIC_KEYS + ["base_momentums", "max_momentums", "use_beta1"],
    "CyclicLR_triangular2": CYCLIC_KEYS + ["base_momentums", "max_momentums", "use_beta1"],
    "CyclicLR_exp_range": CYCLIC_KEYS + ["base_momentums", "max_momentums", "use_beta1"],
    "CyclicLR_nomomentum": CYCLIC_KEYS,
    "OneCycleLR": ["_anneal_func_type", "_schedule_phases", "cycle_momentum", "total_steps",
                   "use_beta1"],
    "OneCycleLR_linear3": ["_anneal_func_type", "_schedule_phases", "cycle_momentum",
                           "total_steps", "use_beta1"],
}
# the composites keep only these
COMPOSITE_STATE_KEYS = {"SequentialLR": ["_last_lr", "_milestones", "_schedulers", "last_epoch"],
                        "ChainedScheduler": ["_last_lr", "_schedulers"]}


@pytest.mark.parametrize("name", list(LR_SEQUENCES))
def test_scheduler_state_has_torchs_keys(name):
    _, _, _, sched = run_schedule(name, 1)
    want = COMPOSITE_STATE_KEYS.get(name) or COMMON_STATE_KEYS + OWN_STATE_KEYS[name]
    assert sorted(sched.state_dict()) == sorted(want)


PLATEAU_OPTIONS = {
    "min_rel": dict(mode="min", factor=0.5, patience=2, threshold=0.05),
    "min_abs_cooldown": dict(mode="min", factor=0.5, patience=1, threshold=0.1,
                             threshold_mode="abs", cooldown=2, min_lr=[0.01, 0.004]),
    "max_rel": dict(mode="max", factor=0.3, patience=0, threshold=0.01, min_lr=0.005),
    "max_abs_eps": dict(mode="max", factor=0.9, patience=1, threshold_mode="abs", threshold=0.0,
                        eps=0.007),
}
METRICS = [1.0, 0.9, 0.89, 0.95, 0.7, 0.69, 0.69, 0.68, 0.8, 0.5, 0.5, 0.49, 0.6, 0.3, 0.31,
           0.32, 0.33, 0.2, 0.2, 0.2]


@pytest.mark.parametrize("name", list(PLATEAU_OPTIONS))
def test_reduce_lr_on_plateau_matches_torch(name):
    opt = make_optimizer("sgd")
    sched = lr_scheduler.ReduceLROnPlateau(opt, **PLATEAU_OPTIONS[name])
    lrs = []
    for value in METRICS:
        opt.step()
        # "max" modes see the metric mirrored, so that both improve at the same epochs
        sched.step(value if name.startswith("min") else 2 - value)
        lrs.append(sched.get_last_lr())
    want0, want1 = PLATEAU_SEQUENCES[name]
    np.testing.assert_allclose(np.array(lrs), np.array([want0, want1]).T, **EXACT)
    assert sched.last_epoch == len(METRICS)
    state = sched.state_dict()
    other = lr_scheduler.ReduceLROnPlateau(make_optimizer("sgd"))
    other.load_state_dict(state)
    assert other.best == sched.best and other.num_bad_epochs == sched.num_bad_epochs
    other.step(ng.tensor(0.5))                     # a tensor metric is read with float()
    assert other.last_epoch == len(METRICS) + 1


CLOSED_FORM_SCHEDULERS = {
    "StepLR": lambda o: lr_scheduler.StepLR(o, step_size=3, gamma=0.5),
    "MultiStepLR": lambda o: lr_scheduler.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3),
    "ConstantLR": lambda o: lr_scheduler.ConstantLR(o, factor=0.25, total_iters=4),
    "LinearLR": lambda o: lr_scheduler.LinearLR(o, start_factor=0.2, end_factor=0.9,
                                                total_iters=7),
    "ExponentialLR": lambda o: lr_scheduler.ExponentialLR(o, gamma=0.9),
    "PolynomialLR": lambda o: lr_scheduler.PolynomialLR(o, total_iters=10, power=2.0),
    "CosineAnnealingLR": lambda o: lr_scheduler.CosineAnnealingLR(o, T_max=7, eta_min=0.001),
    "CosineAnnealingWarmRestarts": lambda o: lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=0.002),
}


@pytest.mark.parametrize("name", list(CLOSED_FORMS))
def test_step_with_an_epoch_uses_torchs_closed_form(name):
    opt = make_optimizer("sgd")
    sched = CLOSED_FORM_SCHEDULERS[name](opt)
    epochs = [2.5, 9.25, 0.5, 20, 4] if name == "CosineAnnealingWarmRestarts" else \
        CLOSED_FORM_EPOCHS
    lrs = []
    for epoch in epochs:
        opt.step()
        if name == "CosineAnnealingWarmRestarts":   # its epochs are not deprecated
            sched.step(epoch)
        else:
            with pytest.warns(UserWarning, match="epoch parameter in `scheduler.step\\(\\)`"):
                sched.step(epoch)
        lrs.append(sched.get_last_lr()[0])
    np.testing.assert_allclose(lrs, CLOSED_FORMS[name], **EXACT)


def test_get_lr_outside_step_warns_as_torch():
    sched = lr_scheduler.StepLR(make_optimizer("sgd"), 2)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    sched.optimizer.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()


def _optimizer_for(kind):
    p = nn.Parameter(ng.ones(1))
    return optim.SGD([p], lr=0.1, momentum=0.9) if kind == "sgd" else optim.Adagrad([p], lr=0.1)


@pytest.mark.parametrize("kind, make, error, message", SCHEDULER_ERRORS,
                         ids=[str(i) for i in range(len(SCHEDULER_ERRORS))])
def test_scheduler_errors_are_torchs(kind, make, error, message):
    with pytest.raises(error) as info:
        make(lr_scheduler, _optimizer_for(kind))
    assert str(info.value) == message
