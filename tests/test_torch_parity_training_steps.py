"""Training steps as torch 2.13 takes them, checked on cases a differential probe against torch
found to differ: optimizer state of another dtype than its parameter, loss functions' arguments
that take no gradient, and the graph nodes losses end in. The expected numbers and messages were
printed by torch; torch is not imported."""
import numpy as np
import pytest

import numgrad as ng
from numgrad import nn, optim


def _stepped(make_optimizer, dtype=ng.float32):
    w = nn.Parameter(ng.tensor([1.0, -2.0, 0.5], dtype=dtype))
    opt = make_optimizer([w])
    w.grad = ng.tensor([0.5, 0.25, -1.0], dtype=dtype)
    opt.step()
    return w, opt


@pytest.mark.parametrize("make_optimizer, key", [
    (lambda p: optim.Adam(p, lr=0.1, amsgrad=True), "exp_avg"),
    (lambda p: optim.AdamW(p, lr=0.1), "exp_avg"),
    (lambda p: optim.RMSprop(p, lr=0.1, centered=True), "grad_avg"),
])
def test_an_average_torch_lerps_refuses_a_state_of_another_dtype(make_optimizer, key):
    # torch 2.13: opt.state[w]["exp_avg"] = opt.state[w]["exp_avg"].double(); opt.step() raises
    # from exp_avg.lerp_(grad, 1 - beta1), the step counted
    w, opt = _stepped(make_optimizer)
    opt.state[w][key] = opt.state[w][key].double()
    with pytest.raises(RuntimeError, match="^expected dtype double for `end` but got dtype float$"):
        opt.step()
    assert float(opt.state[w]["step"]) == 2.0
    w, opt = _stepped(make_optimizer, ng.float64)
    opt.state[w][key] = opt.state[w][key].float()
    with pytest.raises(RuntimeError, match="^expected dtype float for `end` but got dtype double$"):
        opt.step()


def test_adam_refusing_its_average_leaves_the_rest_of_its_state_as_torch_does():
    # torch 2.13, after the refused step: step 2, the parameter and both squares as after one step
    w, opt = _stepped(lambda p: optim.Adam(p, lr=0.1, amsgrad=True))
    opt.state[w]["exp_avg"] = opt.state[w]["exp_avg"].double()
    with pytest.raises(RuntimeError):
        opt.step()
    assert w.detach().tolist() == [0.9000000357627869, -2.0999999046325684, 0.5999999642372131]
    assert opt.state[w]["exp_avg_sq"].tolist() == [0.0002500000118743628, 6.25000029685907e-05,
                                                   0.0010000000474974513]
    assert opt.state[w]["exp_avg"].tolist() == [0.05000000074505806, 0.02500000037252903,
                                                -0.10000000149011612]


def test_load_state_dict_casts_a_float64_average_to_the_parameters_dtype():
    # torch 2.13: load_state_dict casts the state to float32, so the step runs (step keeps its
    # float64) and gives the same numbers as without the round trip
    w, opt = _stepped(lambda p: optim.Adam(p, lr=0.1))
    saved = opt.state_dict()
    saved["state"][0]["exp_avg"] = saved["state"][0]["exp_avg"].double()
    saved["state"][0]["step"] = saved["state"][0]["step"].double()
    opt.load_state_dict(saved)
    assert opt.state[w]["exp_avg"].dtype == ng.float32 and opt.state[w]["step"].dtype == ng.float64
    w.grad = ng.tensor([0.5, 0.25, -1.0])
    opt.step()
    assert w.detach().tolist() == [0.800000011920929, -2.1999998092651367, 0.699999988079071]
