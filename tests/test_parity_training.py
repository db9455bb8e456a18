"""Training code written for torch 2.13 runs unchanged on numgrad and gives torch's numbers:
optimizer options and state dicts, modules and losses in training steps. The expected values
were printed by torch in scratch scripts and pasted here; torch is not imported."""
import warnings

import numpy as np
import pytest

import numgrad as ng
from numgrad import nn, optim


def test_torch_performance_flags_are_accepted_and_kept_in_the_groups():
    w = nn.Parameter(ng.ones(2))
    # torch's param_groups, keys in its order (parameters printed from torch)
    expected = {
        optim.SGD: ["params", "lr", "momentum", "dampening", "weight_decay", "nesterov",
                    "maximize", "foreach", "differentiable", "fused"],
        optim.Adam: ["params", "lr", "betas", "eps", "weight_decay", "amsgrad", "maximize",
                     "foreach", "capturable", "differentiable", "fused", "decoupled_weight_decay"],
        optim.RMSprop: ["params", "lr", "momentum", "alpha", "eps", "centered", "weight_decay",
                        "capturable", "foreach", "maximize", "differentiable"],
        optim.Adagrad: ["params", "lr", "lr_decay", "eps", "weight_decay",
                        "initial_accumulator_value", "foreach", "maximize", "differentiable",
                        "fused"],
    }
    for cls, keys in expected.items():
        assert list(cls([w], foreach=False).param_groups[0]) == keys
    assert optim.AdamW([w], fused=True).param_groups[0]["decoupled_weight_decay"] is True
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together."):
        optim.Adam([w], foreach=True, fused=True)
    with pytest.raises(RuntimeError, match="`fused` does not support `differentiable`"):
        optim.SGD([w], differentiable=True, fused=True)


def test_adam_with_decoupled_weight_decay_is_adamw():
    w = nn.Parameter(ng.tensor([1.0, -2.0], dtype=ng.float64))
    opt = optim.Adam([w], lr=0.1, weight_decay=0.5, decoupled_weight_decay=True)
    for _ in range(2):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    # torch.optim.Adam(..., decoupled_weight_decay=True) and torch's AdamW both give these
    np.testing.assert_allclose(w.detach().numpy(), [0.7082484433597452, -1.6104122281697426],
                               rtol=1e-12)


def test_state_keys_come_in_torch_order_and_step_follows_the_default_dtype():
    w = nn.Parameter(ng.ones(2))
    for cls, keys in [(optim.Adam, ["step", "exp_avg", "exp_avg_sq"]),
                      (lambda p: optim.RMSprop(p, centered=True, momentum=0.9),
                       ["step", "square_avg", "momentum_buffer", "grad_avg"])]:
        opt = cls([w])
        w.grad = ng.ones(2)
        opt.step()
        assert list(opt.state_dict()["state"][0]) == keys
    previous = ng.get_default_dtype()
    ng.set_default_dtype(ng.float64)
    try:
        for cls in (optim.Adam, optim.RMSprop, optim.Adagrad):
            opt = cls([w])
            opt.step()
            assert opt.state[w]["step"].dtype == ng.float64
    finally:
        ng.set_default_dtype(previous)


def test_named_parameters_give_param_names():
    model = nn.Linear(3, 2)
    opt = optim.SGD(model.named_parameters(), lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    packed = opt.state_dict()["param_groups"][0]
    assert list(packed)[0] == "param_names" and packed["params"] == [0, 1]
    with pytest.raises(ValueError, match="Some param names are missing"):
        optim.SGD([("weight", model.weight), model.bias], lr=0.1)
    with pytest.raises(ValueError, match="cannot add param group without names to the optimizer"):
        opt.add_param_group({"params": [nn.Parameter(ng.ones(1))]})


def test_optimizer_construction_errors_and_warnings_are_torchs():
    model = nn.Linear(3, 2)
    with pytest.raises(TypeError, match="iterable of Tensors or dicts, but got torch.FloatTensor"):
        optim.SGD(model.weight, lr=0.1)
    for cls in (optim.SGD, optim.Adam, optim.RMSprop, optim.Adagrad):
        with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
            cls(model.parameters(), lr=ng.tensor([0.1, 0.2]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        optim.SGD([model.weight, model.weight], lr=0.1)
    assert "duplicate parameters" in str(caught[0].message)


def test_optimizer_repr_separates_groups_with_a_blank_line():
    model = nn.Linear(3, 2)
    opt = optim.SGD([model.weight], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": model.bias, "lr": 0.01})
    group = ("    dampening: 0\n    differentiable: False\n    foreach: None\n    fused: None\n"
             "    lr: {}\n    maximize: False\n    momentum: 0.9\n    nesterov: False\n"
             "    weight_decay: 0\n")
    assert repr(opt) == ("SGD (\nParameter Group 0\n" + group.format(0.1) + "\nParameter Group 1\n"
                         + group.format(0.01) + ")")
