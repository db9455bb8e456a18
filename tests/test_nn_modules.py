"""numgrad.nn.Module and the layers: registration, iteration, modes, state dicts, hooks,
conversion, printing, and torch's default initialisation."""
import math
from collections import OrderedDict

import numpy as np
import pytest

import numgrad as ng
from numgrad import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.scale = nn.Parameter(ng.ones(2))
        self.register_buffer("count", ng.zeros(1))
        self.register_buffer("scratch", ng.zeros(1), persistent=False)
        self.plain = 5

    def forward(self, x):
        return self.fc(x) * self.scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(2, 1))
        self.shared = self.block.fc          # the same module twice: counted once

    def forward(self, x):
        return self.head(self.block(x))


def test_registration_and_iteration():
    net = Net()
    names = [name for name, _ in net.named_parameters()]
    assert names == ["block.scale", "block.fc.weight", "block.fc.bias", "head.1.weight",
                     "head.1.bias"]
    assert len(list(net.parameters())) == 5
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in net.parameters())
    assert [n for n, _ in net.named_buffers()] == ["block.count", "block.scratch"]
    assert [n for n, _ in net.named_children()] == ["block", "head", "shared"]
    assert [n for n, _ in net.named_modules()] == ["", "block", "block.fc", "head", "head.0",
                                                   "head.1"]
    assert net.block.plain == 5 and "plain" not in net.block._parameters
    assert net.get_submodule("head.1") is net.head[1]
    assert [n for n, _ in net.block.named_parameters(recurse=False)] == ["scale"]


def test_assignment_rules():
    block = Block()
    block.scale = None                       # a registered parameter may become None
    assert block.scale is None and "scale" in block._parameters
    with pytest.raises(TypeError):
        block.fc = 3
    with pytest.raises(TypeError):
        block.count = 3
    del block.fc
    assert not hasattr(block, "fc")
    with pytest.raises(AttributeError, match="has no attribute 'missing'"):
        block.missing
    with pytest.raises(KeyError):
        block.register_buffer("plain", ng.zeros(1))

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(ng.ones(1))
    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def test_forward_backward_zero_grad():
    net = Net()
    net(ng.randn(4, 3)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_train_eval_apply_requires_grad():
    net = Net()
    assert net.eval() is net and not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    # children first, as torch: the shared Linear is a child twice, so it is visited twice
    assert seen == ["Linear", "Block", "ReLU", "Linear", "Sequential", "Linear", "Net"]
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_state_dict_round_trip_and_strictness():
    a, b = Net(), Net()
    state = a.state_dict()
    # as torch: a module reachable by two names is saved under both
    assert list(state) == ["block.scale", "block.count", "block.fc.weight", "block.fc.bias",
                           "head.1.weight", "head.1.bias", "shared.weight", "shared.bias"]
    assert not state["block.scale"].requires_grad
    assert np.shares_memory(state["block.fc.weight"].numpy(), a.block.fc.weight.detach().numpy())
    version = b.block.fc.weight._version
    result = b.load_state_dict(state)
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert b.block.fc.weight._version > version         # copied in place
    x = ng.randn(4, 3)
    np.testing.assert_array_equal(a(x).detach().numpy(), b(x).detach().numpy())

    broken = OrderedDict(state)
    del broken["head.1.bias"]
    broken["extra"] = ng.zeros(1)
    with pytest.raises(RuntimeError) as error:
        b.load_state_dict(broken)
    assert str(error.value) == ('Error(s) in loading state_dict for Net:\n\tMissing key(s) in '
                                'state_dict: "head.1.bias". \n\tUnexpected key(s) in state_dict: '
                                '"extra". ')
    result = b.load_state_dict(broken, strict=False)
    assert result.missing_keys == ["head.1.bias"] and result.unexpected_keys == ["extra"]
    broken = dict(state, **{"head.1.bias": ng.zeros(3)})
    with pytest.raises(RuntimeError, match=r"size mismatch for head.1.bias: copying a param with "
                                           r"shape numgrad.Size\(\[3\]\)"):
        b.load_state_dict(broken, strict=False)


def test_forward_hooks():
    lin = nn.Linear(2, 2)
    calls = []
    pre = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    post = lin.register_forward_hook(lambda m, args, out: calls.append(out.shape) or out + 1)
    out = lin(ng.ones(1, 2))
    np.testing.assert_allclose(out.detach().numpy(), lin.bias.detach().numpy()[None] + 1,
                               rtol=1e-6)
    assert calls == [(1, 2)]
    pre.remove()
    post.remove()
    np.testing.assert_allclose(lin(ng.zeros(1, 2)).detach().numpy(),
                               lin.bias.detach().numpy()[None])


def test_to_dtype_keeps_parameter_identity():
    net = Net()
    weight = net.block.fc.weight
    net(ng.randn(2, 3)).sum().backward()
    assert net.double() is net
    assert net.block.fc.weight is weight and weight.dtype == ng.float64
    assert weight.grad.dtype == ng.float64 and net.block.count.dtype == ng.float64
    assert net(ng.randn(2, 3, dtype=ng.float64)).dtype == ng.float64
    with pytest.raises(TypeError):
        net.to(ng.int64)


def test_repr():
    net = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(8, 3, bias=False), nn.Dropout(0.1), nn.LayerNorm(3),
                        nn.BatchNorm1d(3), nn.Embedding(10, 3, padding_idx=0),
                        nn.ModuleList([nn.Tanh(), nn.Tanh(), nn.GELU()]))
    assert repr(net) == """Sequential(
  (0): Conv2d(1, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
  (1): ReLU()
  (2): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
  (3): Flatten(start_dim=1, end_dim=-1)
  (4): Linear(in_features=8, out_features=3, bias=False)
  (5): Dropout(p=0.1, inplace=False)
  (6): LayerNorm((3,), eps=1e-05, elementwise_affine=True, bias=True)
  (7): BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
  (8): Embedding(10, 3, padding_idx=0)
  (9): ModuleList(
    (0-1): 2 x Tanh()
    (2): GELU(approximate='none')
  )
)"""
    assert repr(nn.Parameter(ng.tensor([1.0, 2.0]))) == \
        "Parameter containing:\ntensor([1., 2.], requires_grad=True)"


def test_parameter_shares_memory_and_is_a_leaf():
    data = ng.zeros(3)
    p = nn.Parameter(data)
    assert p.is_leaf and p.requires_grad and isinstance(p, ng.Tensor)
    data[0] = 5.0
    assert p[0].item() == 5.0
    assert not nn.Parameter(ng.zeros(1), requires_grad=False).requires_grad
    assert type(p * 2) is ng.Tensor


def test_containers():
    seq = nn.Sequential(OrderedDict([("a", nn.Linear(2, 3)), ("b", nn.ReLU())]))
    assert seq.a is seq[0] and len(seq) == 2 and isinstance(seq[:1], nn.Sequential)
    seq.append(nn.Linear(3, 1))
    assert seq(ng.ones(4, 2)).shape == (4, 1)
    del seq[0]
    assert [n for n, _ in seq.named_children()] == ["0", "1"]
    layers = nn.ModuleList([nn.Linear(2, 2)])
    layers += [nn.Linear(2, 2)]
    layers.insert(0, nn.Identity())
    assert len(layers) == 3 and isinstance(layers[0], nn.Identity)
    assert len(list(layers.parameters())) == 4
    heads = nn.ModuleDict({"x": nn.Linear(2, 1)})
    heads["y"] = nn.Linear(2, 1)
    assert list(heads) == ["x", "y"] and "y" in heads and len(list(heads.parameters())) == 4


def test_default_initialisation_bounds():
    ng.manual_seed(0)
    lin = nn.Linear(50, 40)
    bound = 1 / math.sqrt(50)
    for p in (lin.weight, lin.bias):
        values = p.detach().numpy()
        assert np.abs(values).max() <= bound and np.abs(values).max() > 0.9 * bound
    conv = nn.Conv2d(4, 6, 3)
    assert np.abs(conv.weight.detach().numpy()).max() <= 1 / math.sqrt(36)
    emb = nn.Embedding(1000, 8, padding_idx=1)
    values = emb.weight.detach().numpy()
    assert abs(values.std() - 1) < 0.05 and not values[1].any()
    bil = nn.Bilinear(4, 3, 2)
    assert np.abs(bil.weight.detach().numpy()).max() <= 0.5
    ln = nn.LayerNorm(3)
    assert ln.weight.tolist() == [1, 1, 1] and ln.bias.tolist() == [0, 0, 0]


def test_init_functions_follow_the_gain_and_fan_rules():
    w = ng.empty(200, 300)
    assert nn.init.calculate_gain("tanh") == 5 / 3
    assert nn.init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    nn.init.xavier_uniform_(w, gain=2.0)
    assert np.abs(w.numpy()).max() <= 2 * math.sqrt(6 / 500)
    nn.init.xavier_normal_(w)
    assert abs(w.numpy().std() - math.sqrt(2 / 500)) < 0.003
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert abs(w.numpy().std() - math.sqrt(2 / 200)) < 0.003
    nn.init.kaiming_uniform_(w, nonlinearity="relu")
    assert np.abs(w.numpy()).max() <= math.sqrt(6 / 300)
    version = w._version
    assert nn.init.constant_(w, 0.5) is w and w._version == version + 1
    assert (nn.init.zeros_(w).numpy() == 0).all() and (nn.init.ones_(w).numpy() == 1).all()
    ng.manual_seed(5)
    a = nn.init.normal_(ng.empty(4)).tolist()
    ng.manual_seed(5)
    assert nn.init.normal_(ng.empty(4)).tolist() == a
    with pytest.raises(ValueError):
        nn.init.xavier_uniform_(ng.empty(3))


def test_batch_norm_module_modes():
    bn = nn.BatchNorm1d(2, momentum=None)
    x = ng.randn(8, 2) * 3 + 1
    bn(x)
    bn(x * 2)
    assert bn.num_batches_tracked.item() == 2
    data = x.numpy()
    # momentum None: the running mean is the plain average of the batch means
    np.testing.assert_allclose(bn.running_mean.numpy(), (data.mean(0) + 2 * data.mean(0)) / 2,
                               rtol=1e-5)
    bn.eval()
    out = bn(x)
    want = (data - bn.running_mean.numpy()) / np.sqrt(bn.running_var.numpy() + 1e-5)
    np.testing.assert_allclose(out.detach().numpy(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        bn(ng.randn(2, 2, 2, 2))


def test_layers_run_forward_and_backward():
    ng.manual_seed(1)
    layers = [(nn.Conv1d(2, 3, 3, padding=1, padding_mode="circular"), (2, 2, 6)),
              (nn.Conv2d(2, 4, 3, stride=2, padding=1, padding_mode="reflect"), (2, 2, 6, 6)),
              (nn.AvgPool2d(2), (1, 2, 4, 4)), (nn.Bilinear(2, 2, 3), None),
              (nn.Softmax(dim=1), (2, 3)), (nn.LogSoftmax(dim=1), (2, 3)),
              (nn.LeakyReLU(0.1), (3,)), (nn.ELU(), (3,)), (nn.SiLU(), (3,)),
              (nn.Softplus(), (3,)), (nn.Sigmoid(), (3,)), (nn.Unflatten(1, (2, 2)), (3, 4))]
    for layer, shape in layers:
        if shape is None:
            out = layer(ng.randn(4, 2, requires_grad=True), ng.randn(4, 2))
        else:
            out = layer(ng.randn(*shape, requires_grad=True))
        out.sum().backward()


def test_losses_as_modules():
    x, y = ng.randn(4, 3, requires_grad=True), ng.tensor([0, 2, 1, 2])
    weight = ng.tensor([1.0, 2.0, 3.0])
    loss = nn.CrossEntropyLoss(weight=weight, label_smoothing=0.1)
    assert [n for n, _ in loss.named_buffers()] == ["weight"]
    np.testing.assert_allclose(loss(x, y).item(), nn.functional.cross_entropy(
        x, y, weight, label_smoothing=0.1).item())
    logp = nn.functional.log_softmax(x, 1)
    np.testing.assert_allclose(nn.NLLLoss(reduction="sum")(logp, y).item(),
                               nn.functional.nll_loss(logp, y, reduction="sum").item())
    t = ng.rand(4, 3)
    for module, fn in ((nn.MSELoss(), nn.functional.mse_loss), (nn.L1Loss(), nn.functional.l1_loss),
                       (nn.HuberLoss(delta=0.5), lambda a, b: nn.functional.huber_loss(a, b, delta=0.5)),
                       (nn.SmoothL1Loss(beta=0.5), lambda a, b: nn.functional.smooth_l1_loss(a, b, beta=0.5)),
                       (nn.BCEWithLogitsLoss(pos_weight=weight),
                        lambda a, b: nn.functional.binary_cross_entropy_with_logits(a, b, pos_weight=weight)),
                       (nn.BCELoss(), lambda a, b: nn.functional.binary_cross_entropy(a.sigmoid(), b))):
        a = x.sigmoid() if isinstance(module, nn.BCELoss) else x
        np.testing.assert_allclose(module(a, t).item(), fn(x, t).item(), rtol=1e-6)
