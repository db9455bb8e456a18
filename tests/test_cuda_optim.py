"""numgrad/cuda/optim.py's update kernels agree with numgrad.optim's CPU ones, for every option."""
import itertools

import numpy as np
import pytest

import numgrad.cuda

pytestmark = pytest.mark.skipif(not numgrad.cuda.is_available(),
                                reason="needs numba-cuda and a GPU or its simulator")


def _both(cpu_fn, gpu_fn, n_arrays, *scalars):
    """Run both kernels twice (state carries over) on the same random flat arrays; the arrays
    after each run must agree."""
    from numgrad.cuda.array import to_device
    rng = np.random.default_rng(0)
    host = [rng.uniform(0.1, 1.0, 5) * rng.choice([-1.0, 1.0], 5) for _ in range(n_arrays)]
    # optimizer state: averages of squares above the squares of averages (centred RMSprop)
    host[2:] = [np.abs(a) + 1.0 if k == 0 else 0.3 * np.abs(a) for k, a in enumerate(host[2:])]
    dev = [to_device(a) for a in host]
    for _ in range(2):
        cpu_fn(*host, *scalars)
        gpu_fn(*dev, *scalars)
    for h, d in zip(host, dev):
        np.testing.assert_allclose(d.copy_to_host(), h, rtol=1e-12)


@pytest.mark.parametrize("momentum,nesterov,maximize,first",
                         [(0.0, False, False, True), (0.9, False, True, True),
                          (0.9, True, False, False)])
def test_sgd(momentum, nesterov, maximize, first):
    from numgrad.cuda import optim as gpu
    from numgrad.optim.sgd import sgd_update
    _both(sgd_update, gpu.sgd_update, 3, 0.1, momentum, 0.0, 0.01, nesterov, maximize, first)


@pytest.mark.parametrize("decoupled,amsgrad,maximize", list(itertools.product([False, True],
                                                                                repeat=3))[::3])
def test_adam(decoupled, amsgrad, maximize):
    from numgrad.cuda import optim as gpu
    from numgrad.optim.adam import adam_scalars, adam_update
    _both(adam_update, gpu.adam_update, 5, *adam_scalars(0.01, 0.9, 0.999, 0.1, 3.0), 0.9, 0.999,
          1e-8, 0.1, decoupled, amsgrad, maximize)


def test_adagrad():
    from numgrad.cuda import optim as gpu
    from numgrad.optim.adagrad import adagrad_update
    _both(adagrad_update, gpu.adagrad_update, 3, 0.05, 1e-10, 0.1, True)


@pytest.mark.parametrize("momentum,centered", [(0.0, False), (0.5, True)])
def test_rmsprop(momentum, centered):
    from numgrad.cuda import optim as gpu
    from numgrad.optim.rmsprop import rmsprop_update
    _both(rmsprop_update, gpu.rmsprop_update, 5, 0.01, 0.99, 1e-8, 0.1, momentum, centered, False)
