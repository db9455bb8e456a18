"""numgrad.save / numgrad.load: module and optimizer state through .npz files, without pickle."""
import io
from collections import OrderedDict

import numpy as np
import pytest

import numgrad as ng
from numgrad import nn, optim


def _model():
    return nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.BatchNorm1d(2 * 4 * 4), nn.Linear(32, 3))


def test_module_round_trip_gives_identical_outputs(tmp_path):
    ng.manual_seed(0)
    model = _model()
    x = ng.randn(4, 1, 4, 4)
    model(x)                                   # training step: running statistics move
    model.eval()
    path = tmp_path / "model.ckpt"             # any name: nothing is appended
    ng.save(model.state_dict(), path)
    assert path.exists()
    ng.manual_seed(1)
    fresh = _model().eval()
    assert not np.array_equal(fresh(x).detach().numpy(), model(x).detach().numpy())
    state = ng.load(path)
    assert isinstance(state, OrderedDict) and list(state) == list(model.state_dict())
    assert state["3.num_batches_tracked"].dtype == ng.int64
    fresh.load_state_dict(state)
    np.testing.assert_array_equal(fresh(x).detach().numpy(), model(x).detach().numpy())


def test_optimizer_state_round_trip_continues_identically():
    def train(model, opt, steps):
        for _ in range(steps):
            opt.zero_grad()
            model(ng.ones(2, 3)).pow(2).sum().backward()
            opt.step()

    ng.manual_seed(0)
    model = nn.Linear(3, 2)
    opt = optim.AdamW([{"params": [model.weight]}, {"params": [model.bias], "lr": 0.1}],
                      lr=0.01, amsgrad=True)
    train(model, opt, 2)
    buffer = io.BytesIO()
    ng.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 2}, buffer)
    buffer.seek(0)
    checkpoint = ng.load(buffer)
    assert checkpoint["epoch"] == 2
    assert checkpoint["optim"]["param_groups"][0]["betas"] == (0.9, 0.999)
    assert set(checkpoint["optim"]["state"]) == {0, 1}          # int keys stay ints

    twin = nn.Linear(3, 2)
    twin_opt = optim.AdamW([{"params": [twin.weight]}, {"params": [twin.bias]}], lr=0.5)
    twin.load_state_dict(checkpoint["model"])
    twin_opt.load_state_dict(checkpoint["optim"])
    train(model, opt, 3)
    train(twin, twin_opt, 3)
    np.testing.assert_array_equal(twin.weight.detach().numpy(), model.weight.detach().numpy())


def test_nested_values_and_no_pickle(tmp_path):
    tree = {"params": nn.Parameter(ng.ones(2)), "t": ng.tensor([1.0], requires_grad=True),
            "array": np.arange(3), "nested": [(1, 2.5), {"name": "x", "none": None}],
            "inf": float("inf")}
    path = tmp_path / "tree.npz"
    ng.save(tree, path)
    back = ng.load(path)
    assert isinstance(back["params"], nn.Parameter) and back["t"].requires_grad
    assert back["array"].tolist() == [0, 1, 2] and back["inf"] == float("inf")
    assert back["nested"] == [(1, 2.5), {"name": "x", "none": None}]
    with np.load(path, allow_pickle=False) as archive:      # plain arrays, readable without us
        assert "params" in archive.files
    with pytest.raises(TypeError, match="cannot store"):
        ng.save({"f": lambda: 0}, tmp_path / "bad.npz")
