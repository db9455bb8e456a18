"""Random fills (uniform_, normal_, bernoulli_, exponential_, random_) and samplers (normal,
bernoulli, multinomial): reproducible under manual_seed, right on average over 10^5 draws, in-place
rules as for other in-place ops, torch's errors."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.cuda

needs_cuda = pytest.mark.skipif(not numgrad.cuda.is_available(),
                                reason="needs numba-cuda and a GPU or its simulator")
N = 100_000


def draws(fill, dtype=ng.float64):
    x = ng.empty(N, dtype=dtype)
    assert fill(x) is x
    return x.numpy()


def test_fills_are_seeded():
    ng.manual_seed(7)
    first = [draws(lambda x: x.uniform_()), draws(lambda x: x.normal_()),
             ng.multinomial(ng.ones(10), 4).numpy()]
    ng.manual_seed(7)
    again = [draws(lambda x: x.uniform_()), draws(lambda x: x.normal_()),
             ng.multinomial(ng.ones(10), 4).numpy()]
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[0], draws(lambda x: x.uniform_()))


def test_uniform_and_normal_moments():
    u = draws(lambda x: x.uniform_(2.0, 4.0))
    assert u.min() >= 2.0 and u.max() < 4.0 and abs(u.mean() - 3.0) < 0.01
    assert abs(u.var() - 4 / 12) < 0.01
    n = draws(lambda x: x.normal_(1.0, 2.0))
    assert abs(n.mean() - 1.0) < 0.03 and abs(n.std() - 2.0) < 0.03
    assert draws(lambda x: x.uniform_(), ng.float32).dtype == np.float32


def test_bernoulli_and_exponential_moments():
    b = draws(lambda x: x.bernoulli_(0.3))
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.01
    p = ng.tensor([0.0, 1.0])
    assert np.array_equal(ng.empty(2).bernoulli_(p).numpy(), [0, 1])
    e = draws(lambda x: x.exponential_(4.0))
    assert e.min() >= 0 and abs(e.mean() - 0.25) < 0.005


def test_random_ranges():
    r = draws(lambda x: x.random_(-3, 3), ng.int64)
    assert r.min() == -3 and r.max() == 2 and abs(r.mean() + 0.5) < 0.05
    r = draws(lambda x: x.random_(5), ng.int64)
    assert set(np.unique(r)) == {0, 1, 2, 3, 4}
    f = draws(lambda x: x.random_())
    assert f.min() >= 0 and f.max() <= 2 ** 53 and np.array_equal(f, np.floor(f))
    f32 = draws(lambda x: x.random_(), ng.float32)
    assert f32.max() <= 2 ** 24 and f32.max() > 2 ** 23
    assert draws(lambda x: x.random_(), ng.int32).min() >= 0


def test_fills_are_in_place_writes():
    x = ng.zeros(3)
    x.uniform_()
    x.normal_()
    assert x._version == 2
    leaf = ng.zeros(3, requires_grad=True)
    for fill in (leaf.uniform_, leaf.normal_, leaf.bernoulli_, leaf.exponential_, leaf.random_):
        with pytest.raises(RuntimeError, match="leaf Variable"):
            fill()
    with ng.no_grad():
        leaf.uniform_(5.0, 6.0)
    assert leaf.requires_grad and leaf.detach().numpy().min() >= 5.0


def test_fill_of_graph_tensor_cuts_the_gradient():
    a = ng.ones(4, requires_grad=True)
    b = a * 2
    b.normal_()
    (b * 3).sum().backward()
    assert np.array_equal(a.grad.numpy(), np.zeros(4))
    base = ng.zeros(4)
    base[1:3].uniform_(1.0, 2.0)
    assert np.array_equal(base.numpy()[[0, 3]], [0, 0]) and base.numpy()[1:3].min() >= 1.0


def test_fill_errors():
    with pytest.raises(RuntimeError, match="from=3"):
        ng.empty(2).uniform_(3.0, 1.0)
    with pytest.raises(RuntimeError, match="std >= 0"):
        ng.empty(2).normal_(0.0, -1.0)
    with pytest.raises(RuntimeError, match=r"\[0, 1\]"):
        ng.empty(2).bernoulli_(1.5)
    with pytest.raises(RuntimeError, match="lambda > 0"):
        ng.empty(2).exponential_(0.0)
    with pytest.raises(RuntimeError, match="less than 'to'"):
        ng.empty(2, dtype=ng.int64).random_(4, 2)
    with pytest.raises(RuntimeError, match="less than 'to'"):
        ng.empty(2, dtype=ng.int64).random_(0)
    with pytest.raises(RuntimeError, match="floating point"):
        ng.empty(2, dtype=ng.int64).uniform_()


def test_normal_function():
    mean = ng.tensor(np.linspace(-1, 1, N))
    out = ng.normal(mean, 0.5)
    assert out.shape == (N,) and out.dtype == ng.float64 and not out.requires_grad
    residual = out.numpy() - mean.numpy()
    assert abs(residual.mean()) < 0.01 and abs(residual.std() - 0.5) < 0.01
    both = ng.normal(ng.zeros(2, 1), ng.tensor([0.0, 0.0, 0.0]))
    assert np.array_equal(both.numpy(), np.zeros((2, 3)))
    sized = ng.normal(3.0, 0.0, size=(2, 2))
    assert np.array_equal(sized.numpy(), np.full((2, 2), 3.0)) and sized.dtype == ng.float32
    with pytest.raises(TypeError, match="size"):
        ng.normal(0.0, 1.0)
    with pytest.raises(RuntimeError, match="std >= 0"):
        ng.normal(ng.zeros(2), ng.tensor([1.0, -1.0]))


def test_bernoulli_function():
    p = ng.full((N,), 0.25, dtype=ng.float64)
    out = ng.bernoulli(p)
    assert out.dtype == ng.float64 and abs(out.numpy().mean() - 0.25) < 0.01
    assert np.array_equal(ng.tensor([0.0, 1.0, 1.0]).bernoulli().numpy(), [0, 1, 1])
    assert np.array_equal(ng.bernoulli(ng.zeros(3), p=1.0).numpy(), [1, 1, 1])


def test_multinomial():
    weights = ng.tensor([1.0, 3.0, 0.0])
    samples = ng.multinomial(weights, N, replacement=True).numpy()
    assert samples.dtype == np.int64 and samples.shape == (N,)
    assert abs((samples == 1).mean() - 0.75) < 0.01 and not (samples == 2).any()
    rows = ng.multinomial(ng.tensor([[1.0, 1.0, 1.0, 0.0], [0.0, 2.0, 1.0, 1.0]]), 3)
    assert rows.shape == (2, 3)
    for row, zero in zip(rows.numpy(), (3, 0)):
        assert len(set(row)) == 3 and zero not in row        # without replacement: distinct
    with pytest.raises(RuntimeError, match="without replacement"):
        ng.multinomial(weights, 4)
    with pytest.raises(RuntimeError, match="not enough"):
        ng.multinomial(weights, 3)
    with pytest.raises(RuntimeError, match="element < 0"):
        ng.multinomial(ng.tensor([1.0, -1.0]), 1)
    with pytest.raises(RuntimeError, match="sum of probabilities"):
        ng.multinomial(ng.zeros(2), 1)


@needs_cuda
def test_sampling_on_cuda_matches_cpu():
    ng.manual_seed(3)
    host = ng.empty(5).uniform_(1.0, 2.0)
    ng.manual_seed(3)
    device = ng.empty(5, device="cuda").uniform_(1.0, 2.0)
    assert device.is_cuda and device._version == 1
    assert np.array_equal(device.cpu().numpy(), host.numpy())
    assert ng.bernoulli(ng.ones(3, device="cuda")).is_cuda
    drawn = ng.multinomial(ng.tensor([0.0, 1.0], device="cuda"), 2, replacement=True)
    assert drawn.is_cuda and np.array_equal(drawn.cpu().numpy(), [1, 1])
