"""numgrad.optim: a few steps of every optimizer on a fixed problem against the published update
rules computed here in NumPy, parameter groups, state dicts, schedules and gradient clipping."""
import math

import numpy as np
import pytest

import numgrad as ng
from numgrad import nn, optim

W0 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
A = np.array([[1.0, 0.5], [-0.5, 2.0], [0.25, -1.0]])
STEPS = 4


def loss_and_grad(w):
    """f(w) = sum(tanh(w @ A)) + 0.5 * |w|^2, and its gradient (by hand)."""
    z = w @ A
    return np.tanh(z).sum() + 0.5 * (w * w).sum(), (1 - np.tanh(z) ** 2) @ A.T + w


def run(make, steps=STEPS):
    w = nn.Parameter(ng.tensor(W0.copy()))
    opt = make([w])
    for _ in range(steps):
        opt.zero_grad()
        loss = (w @ ng.tensor(A)).tanh().sum() + 0.5 * (w * w).sum()
        loss.backward()
        opt.step()
    return w.detach().numpy(), opt


def reference(update, steps=STEPS):
    """Apply update(w, g, state, t) for t = 1..steps with the hand gradient."""
    w, state = W0.copy(), {}
    for t in range(1, steps + 1):
        w = update(w, loss_and_grad(w)[1], state, t)
    return w


def sgd(lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False):
    def update(w, g, state, t):
        g = -g if maximize else g
        g = g + weight_decay * w
        if momentum:
            b = g if t == 1 else momentum * state["b"] + (1 - dampening) * g
            state["b"] = b
            g = g + momentum * b if nesterov else b
        return w - lr * g
    return update


def adam(lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, decoupled=False,
         maximize=False):
    b1, b2 = betas

    def update(w, g, state, t):
        g = -g if maximize else g
        if decoupled:
            w = w * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * w
        m = b1 * state.get("m", 0) + (1 - b1) * g
        v = b2 * state.get("v", 0) + (1 - b2) * g * g
        state["m"], state["v"] = m, v
        if amsgrad:
            v = state["vmax"] = np.maximum(state.get("vmax", 0), v)
        m_hat, v_hat = m / (1 - b1 ** t), v / (1 - b2 ** t)
        return w - lr * m_hat / (np.sqrt(v_hat) + eps)
    return update


def rmsprop(lr, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False):
    def update(w, g, state, t):
        g = g + weight_decay * w
        sq = state["sq"] = alpha * state.get("sq", 0) + (1 - alpha) * g * g
        if centered:
            mean = state["mean"] = alpha * state.get("mean", 0) + (1 - alpha) * g
            sq = sq - mean * mean
        avg = np.sqrt(sq) + eps
        if momentum:
            b = state["b"] = momentum * state.get("b", 0) + g / avg
            return w - lr * b
        return w - lr * g / avg
    return update


def adagrad(lr, lr_decay=0.0, weight_decay=0.0, initial=0.0, eps=1e-10):
    def update(w, g, state, t):
        g = g + weight_decay * w
        s = state["s"] = state.get("s", initial) + g * g
        return w - lr / (1 + (t - 1) * lr_decay) * g / (np.sqrt(s) + eps)
    return update


CASES = [
    ("sgd", lambda p: optim.SGD(p, lr=0.1), sgd(0.1)),
    ("sgd momentum", lambda p: optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.2),
     sgd(0.1, 0.9, 0.2)),
    ("sgd nesterov wd", lambda p: optim.SGD(p, lr=0.1, momentum=0.8, nesterov=True,
                                            weight_decay=0.05), sgd(0.1, 0.8, 0, 0.05, True)),
    ("sgd maximize", lambda p: optim.SGD(p, lr=0.1, momentum=0.5, maximize=True),
     sgd(0.1, 0.5, maximize=True)),
    ("adam", lambda p: optim.Adam(p, lr=0.05), adam(0.05)),
    ("adam l2 amsgrad", lambda p: optim.Adam(p, lr=0.05, betas=(0.8, 0.9), weight_decay=0.1,
                                             amsgrad=True),
     adam(0.05, (0.8, 0.9), weight_decay=0.1, amsgrad=True)),
    ("adam maximize", lambda p: optim.Adam(p, lr=0.05, maximize=True), adam(0.05, maximize=True)),
    ("adamw", lambda p: optim.AdamW(p, lr=0.05), adam(0.05, weight_decay=0.01, decoupled=True)),
    ("adamw amsgrad", lambda p: optim.AdamW(p, lr=0.05, weight_decay=0.3, amsgrad=True),
     adam(0.05, weight_decay=0.3, amsgrad=True, decoupled=True)),
    ("rmsprop", lambda p: optim.RMSprop(p, lr=0.01), rmsprop(0.01)),
    ("rmsprop centered momentum", lambda p: optim.RMSprop(p, lr=0.01, momentum=0.9, centered=True,
                                                          weight_decay=0.1),
     rmsprop(0.01, momentum=0.9, centered=True, weight_decay=0.1)),
    ("adagrad", lambda p: optim.Adagrad(p, lr=0.1), adagrad(0.1)),
    ("adagrad decay", lambda p: optim.Adagrad(p, lr=0.1, lr_decay=0.5, weight_decay=0.1,
                                              initial_accumulator_value=0.2),
     adagrad(0.1, 0.5, 0.1, 0.2)),
]


@pytest.mark.parametrize("name, make, update", CASES, ids=[c[0] for c in CASES])
def test_steps_follow_the_published_rule(name, make, update):
    got, _ = run(make)
    np.testing.assert_allclose(got, reference(update), rtol=1e-10, atol=1e-12)


def test_float32_parameters_update_in_their_dtype():
    w = nn.Parameter(ng.tensor(W0.astype(np.float32)))
    opt = optim.Adam([w], lr=0.05)
    (w * w).sum().backward()
    opt.step()
    assert w.dtype == ng.float32 and opt.state[w]["exp_avg"].dtype == ng.float32
    np.testing.assert_allclose(w.detach().numpy(), W0 - 0.05 * np.sign(W0), rtol=1e-5)


def test_step_is_in_place_under_no_grad_and_bumps_the_version():
    w = nn.Parameter(ng.ones(3))
    data = w.detach().numpy()
    opt = optim.SGD([w], lr=0.5)
    (w * w).sum().backward()
    version = w._version
    opt.step()
    assert w._version == version + 1 and w.is_leaf and w.grad_fn is None
    assert np.shares_memory(data, w.detach().numpy()) and data.tolist() == [0, 0, 0]
    loss = opt.step(closure=lambda: (w * 2).sum())
    assert loss.requires_grad            # the closure runs with grad enabled


def test_parameter_groups_and_zero_grad():
    a, b = nn.Parameter(ng.ones(2)), nn.Parameter(ng.ones(2))
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 1.0}], lr=0.1, momentum=0.5)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 1.0]
    assert opt.param_groups[1]["momentum"] == 0.5
    (a.sum() + b.sum()).backward()
    opt.step()
    np.testing.assert_allclose(a.detach().numpy(), [0.9, 0.9])
    assert b.tolist() == [0.0, 0.0]
    opt.zero_grad(set_to_none=False)
    assert a.grad.tolist() == [0, 0]
    opt.zero_grad()
    assert a.grad is None and b.grad is None
    params_without_grad = optim.SGD([nn.Parameter(ng.ones(1))], lr=1.0)
    params_without_grad.step()                     # no gradient: nothing happens
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([])
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([a * 2], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        optim.Adam([a], lr=-1)
    with pytest.raises(ValueError, match="Nesterov"):
        optim.SGD([a], lr=0.1, nesterov=True)


def test_state_dict_round_trip():
    _, first = run(lambda p: optim.Adam(p, lr=0.05, amsgrad=True), steps=2)
    state = first.state_dict()
    assert state["param_groups"][0]["params"] == [0]
    assert sorted(state["state"][0]) == ["exp_avg", "exp_avg_sq", "max_exp_avg_sq", "step"]
    assert state["state"][0]["step"].item() == 2
    # a fresh optimizer that loads it continues exactly like the first one
    w = nn.Parameter(ng.tensor(W0.copy()))
    second = optim.Adam([w], lr=0.9)
    second.load_state_dict(state)
    assert second.param_groups[0]["lr"] == 0.05 and second.param_groups[0]["betas"] == (0.9, 0.999)
    # torch takes the tensors over (later steps update them), casting only what differs
    assert second.state[w]["exp_avg"] is state["state"][0]["exp_avg"]
    second.zero_grad()
    (w * w).sum().backward()
    second.step()
    assert state["state"][0]["step"].item() == 3
    as64 = optim.Adam([nn.Parameter(ng.tensor(W0.copy(), dtype=ng.float64))])
    as64.load_state_dict(first.state_dict())
    cast = next(iter(as64.state.values()))
    assert cast["exp_avg"].dtype == ng.float64
    assert cast["step"] is first.state_dict()["state"][0]["step"]
    with pytest.raises(ValueError, match="number of parameter groups"):
        second.load_state_dict({"state": {}, "param_groups": []})


def _lrs(make_scheduler, steps, optimizer="sgd", **kwargs):
    p = nn.Parameter(ng.ones(1))
    opt = optim.SGD([p], lr=0.1, **kwargs) if optimizer == "sgd" else optim.Adam([p], lr=0.1)
    scheduler = make_scheduler(opt)
    lrs, momenta = [opt.param_groups[0]["lr"]], []
    for _ in range(steps):
        opt.step()
        scheduler.step()
        group = opt.param_groups[0]
        lrs.append(group["lr"])
        momenta.append(group["betas"][0] if "betas" in group else group["momentum"])
    assert scheduler.get_last_lr() == [lrs[-1]]
    return np.array(lrs), np.array(momenta)


def test_step_exponential_and_cosine_schedules():
    lrs, _ = _lrs(lambda o: optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5), 7)
    np.testing.assert_allclose(lrs, 0.1 * 0.5 ** (np.arange(8) // 3))
    lrs, _ = _lrs(lambda o: optim.lr_scheduler.ExponentialLR(o, gamma=0.9), 5)
    np.testing.assert_allclose(lrs, 0.1 * 0.9 ** np.arange(6))
    lrs, _ = _lrs(lambda o: optim.lr_scheduler.CosineAnnealingLR(o, T_max=10, eta_min=0.01), 10)
    t = np.arange(11)
    np.testing.assert_allclose(lrs, 0.01 + 0.09 * (1 + np.cos(np.pi * t / 10)) / 2, atol=1e-12)


def test_one_cycle_schedule():
    total = 20
    lrs, momenta = _lrs(lambda o: optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=total),
                        total - 1, momentum=0.9)

    def anneal(start, end, pct):
        return end + (start - end) / 2 * (math.cos(math.pi * pct) + 1)
    up = 0.3 * total - 1
    want = [anneal(1 / 25, 1.0, s / up) if s <= up else
            anneal(1.0, 1 / 25 / 1e4, (s - up) / (total - 1 - up)) for s in range(total)]
    np.testing.assert_allclose(lrs, want, atol=1e-12)
    assert momenta[0] < 0.95 and abs(momenta[-1] - 0.95) < 1e-9 and min(momenta) >= 0.85 - 1e-12
    _, betas = _lrs(lambda o: optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=total),
                    5, optimizer="adam")
    assert betas[0] < 0.95                       # Adam's beta1 cycles
    with pytest.raises(ValueError, match="Tried to step"):
        _lrs(lambda o: optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=3), 4)


def test_scheduler_state_round_trip():
    p = nn.Parameter(ng.ones(1))
    opt = optim.SGD([p], lr=1.0)
    sched = optim.lr_scheduler.StepLR(opt, 2)
    for _ in range(3):
        opt.step()
        sched.step()
    state = sched.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == 3
    other = optim.lr_scheduler.StepLR(optim.SGD([p], lr=1.0), 5)
    other.load_state_dict(state)
    assert other.step_size == 2 and other.last_epoch == 3


def test_clip_grad_norm_and_value():
    a, b = nn.Parameter(ng.tensor([3.0, 0.0])), nn.Parameter(ng.tensor([4.0]))
    (a * a).sum().backward()
    (b * b).sum().backward()
    norm = nn.utils.clip_grad_norm_([a, b], max_norm=5.0)
    np.testing.assert_allclose(norm.item(), 10.0)
    np.testing.assert_allclose(np.concatenate([a.grad.numpy(), b.grad.numpy()]),
                               np.array([6.0, 0.0, 8.0]) * 5 / (10 + 1e-6), rtol=1e-6)
    assert nn.utils.clip_grad_norm_([a, b], max_norm=100.0).item() == pytest.approx(5.0, rel=1e-5)
    inf_norm = nn.utils.clip_grad_norm_([a, b], max_norm=1.0, norm_type="inf")
    assert inf_norm.item() == pytest.approx(4.0, rel=1e-5)
    nn.utils.clip_grad_value_([a, b], 0.1)
    assert np.abs(np.concatenate([a.grad.numpy(), b.grad.numpy()])).max() <= 0.1
    a.grad = ng.tensor([math.inf, 0.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([a], 1.0, error_if_nonfinite=True)


@pytest.mark.parametrize("make", [lambda ps: optim.SGD(ps, lr=1.0, momentum=0.5),
                                  lambda ps: optim.Adam(ps, lr=1.0)], ids=["sgd", "adam"])
def test_a_transposed_parameter_is_updated_in_its_own_memory(make):
    """Its aliases (p.detach(), p.data, a view) see every step, as in torch."""
    w = nn.Parameter(ng.zeros(3, 2, dtype=ng.float64).t())
    alias, column = w.detach(), w[:, 1]
    opt = make([w])
    for _ in range(2):
        opt.zero_grad()
        (w * ng.arange(6.0, dtype=ng.float64).reshape(2, 3)).sum().backward()
        opt.step()
    assert not w.is_contiguous()
    np.testing.assert_array_equal(alias.numpy(), w.detach().numpy())
    np.testing.assert_array_equal(column.detach().numpy(), w.detach().numpy()[:, 1])
    assert w.detach().numpy()[0, 1] < 0
