"""optim.swa_utils: AveragedModel's averages, SWALR's schedule (torch 2.13's numbers) and
update_bn's statistics; optim.Adafactor against torch's steps."""
import numpy as np
import pytest

import numgrad as ng
from numgrad.optim import swa_utils


def _model():
    ng.manual_seed(0)
    return ng.nn.Sequential(ng.nn.Linear(3, 4), ng.nn.BatchNorm1d(4), ng.nn.Linear(4, 2)).double()


def _snapshots(model, steps=3):
    """The model's parameters after each of a few SGD steps."""
    optimizer = ng.optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        optimizer.zero_grad()
        model(ng.tensor(rng.standard_normal((5, 3)))).pow(2).sum().backward()
        optimizer.step()
        yield [p.detach().clone() for p in model.parameters()]


def test_swa_is_the_running_mean():
    model = _model()
    averaged = swa_utils.AveragedModel(model)
    seen = []
    for params in _snapshots(model):
        averaged.update_parameters(model)
        seen.append(params)
    assert int(averaged.n_averaged) == 3
    for k, p in enumerate(averaged.parameters()):
        expected = np.mean([np.asarray(s[k]) for s in seen], axis=0)
        np.testing.assert_allclose(np.asarray(p.detach()), expected, atol=1e-12)
    # buffers follow the source model unless use_buffers
    np.testing.assert_array_equal(np.asarray(averaged.module[1].running_mean),
                                  np.asarray(model[1].running_mean))


@pytest.mark.parametrize("multi", [True, False])
def test_ema(multi):
    model = _model()
    kwargs = ({"multi_avg_fn": swa_utils.get_ema_multi_avg_fn(0.9)} if multi
              else {"avg_fn": swa_utils.get_ema_avg_fn(0.9)})
    averaged = swa_utils.AveragedModel(model, **kwargs)
    ema = None
    for params in _snapshots(model):
        averaged.update_parameters(model)
        values = [np.asarray(p) for p in params]
        ema = values if ema is None else [0.9 * e + 0.1 * v for e, v in zip(ema, values)]
    for e, p in zip(ema, averaged.parameters()):
        np.testing.assert_allclose(np.asarray(p.detach()), e, atol=1e-12)


def test_update_bn_recomputes_the_statistics():
    model = _model()
    averaged = swa_utils.AveragedModel(model, use_buffers=True)
    for _ in _snapshots(model):
        averaged.update_parameters(model)
    batches = [ng.tensor(np.random.default_rng(k).standard_normal((4, 3))) for k in range(3)]
    swa_utils.update_bn(batches, averaged)
    with ng.no_grad():
        features = ng.cat([averaged.module[0](b) for b in batches])
    np.testing.assert_allclose(np.asarray(averaged.module[1].running_mean),
                               np.asarray(features.mean(0)), atol=1e-12)
    assert int(averaged.module[1].num_batches_tracked) == 3 and averaged.module[1].momentum == 0.1


@pytest.mark.parametrize("strategy, anneal_epochs, expected", [
    ("cos", 3, [0.3875, 0.1625, 0.05, 0.05]),      # torch 2.13's get_last_lr() after each step
    ("linear", 3, [0.35, 0.2, 0.05, 0.05]),
    ("cos", 0, [0.05, 0.05, 0.05, 0.05])])
def test_swalr_schedule(strategy, anneal_epochs, expected):
    optimizer = ng.optim.SGD([ng.nn.Parameter(ng.ones(1))], lr=0.5)
    scheduler = swa_utils.SWALR(optimizer, 0.05, anneal_epochs, strategy)
    rates = []
    for _ in expected:
        optimizer.step()
        scheduler.step()
        rates.append(scheduler.get_last_lr()[0])
    np.testing.assert_allclose(rates, expected, atol=1e-12)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear'"):
        swa_utils.SWALR(optimizer, 0.05, anneal_strategy="step")


EXPECTED_W = [[0.40552131916431755, -0.7523534581645436], [1.3764900790804049, 0.26501186761051815]]
EXPECTED_B = [0.07643560575472436, -0.17615705166439505]


def test_adafactor_matches_torch():
    # torch 2.13's parameters after three Adafactor steps on sum((x @ w + b)^2)
    w = ng.nn.Parameter(ng.tensor([[0.5, -1.0], [1.5, 0.25]], dtype=ng.float64))
    b = ng.nn.Parameter(ng.tensor([0.1, -0.2], dtype=ng.float64))
    x = ng.tensor([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]], dtype=ng.float64)
    optimizer = ng.optim.Adafactor([w, b], lr=0.05, weight_decay=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        ((x @ w + b) ** 2).sum().backward()
        optimizer.step()
    np.testing.assert_allclose(np.asarray(w.detach()), EXPECTED_W, atol=1e-9)
    np.testing.assert_allclose(np.asarray(b.detach()), EXPECTED_B, atol=1e-9)
    assert sorted(optimizer.state[w]) == ["col_var", "row_var", "step"]
    with pytest.raises(ValueError, match="Clipping threshold d should be >= 1 but is: 0.5"):
        ng.optim.Adafactor([w], d=0.5)
