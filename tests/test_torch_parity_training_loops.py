"""Training loops as torch 2.13 runs them, checked on cases a differential probe (whole training
steps of random small models, losses, optimizers and schedulers against torch) found to differ.
The expected values and messages were printed by torch; torch is not imported."""
import numpy as np
import pytest

import numgrad as ng
from numgrad import nn, optim


def test_module_to_replaces_the_buffers_it_converts_and_keeps_the_parameters():
    # torch 2.13: after bn.double(), bn.running_mean is a new float64 tensor at version 0 (the
    # old one stays float32); num_batches_tracked (int64) and the parameters stay themselves
    bn = nn.BatchNorm1d(3)
    bn(ng.randn(4, 3)).sum().backward()
    mean, count, weight, grad = bn.running_mean, bn.num_batches_tracked, bn.weight, bn.weight.grad
    bn.double()
    assert bn.running_mean is not mean and mean.dtype == ng.float32
    assert bn.running_mean.dtype == ng.float64 and bn.running_mean._version == 0
    assert bn.num_batches_tracked is count
    assert bn.weight is weight and bn.weight.grad is grad and weight.dtype == ng.float64
    mean = bn.running_mean
    bn.to(ng.float64)
    bn.cpu()
    assert bn.running_mean is mean      # nothing to convert: torch's to() returns the tensor
