"""numgrad.distributed, DistributedDataParallel and DistributedSampler.

The first tests run in this process, a world of one. The last ones launch `mpiexec -n 2` on the
scripts in tests/mpi_scripts/ and on examples/ddp_mlp.py (each with a timeout, so a hang fails
rather than blocks); they are skipped when mpi4py or mpiexec is missing
(pip install -e ".[mpi]" provides both).
"""
import importlib.util
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import weakref

import numpy as np
import pytest

import numgrad as ng
import numgrad.distributed as dist
from numgrad import nn
from numgrad.nn import functional as F
from numgrad.nn.parallel import DistributedDataParallel as DDP
from numgrad.nn.parallel import assign_buckets
from numgrad.utils.data import DistributedSampler, TensorDataset

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "tests" / "mpi_scripts"


@pytest.fixture(autouse=True)
def _world():
    dist.init()


def mlp(seed=0):
    ng.manual_seed(seed)
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))


def grads(model):
    return [p.grad.numpy().copy() for p in model.parameters()]


# ---- the process group, alone ----------------------------------------------------------------
def test_calls_before_init_say_so(monkeypatch):
    monkeypatch.setattr(dist, "_world", None)
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match=r"call numgrad.distributed.init\(\) first"):
        dist.get_rank()
    with pytest.raises(RuntimeError, match="not initialized"):
        DistributedSampler(range(4))


def test_init_is_idempotent_and_alone_is_a_world_of_one():
    dist.init()
    assert dist.is_initialized()
    assert (dist.get_rank(), dist.get_world_size()) == (0, 1)


def test_init_rejects_a_timeout_that_is_not_positive(monkeypatch):
    monkeypatch.setattr(dist, "_world", None)
    with pytest.raises(ValueError, match="timeout must be positive"):
        dist.init(timeout=0)


def test_all_reduce_alone_keeps_the_data_and_bumps_the_version():
    t = ng.tensor([1.0, 2.0])
    before = t._version
    assert dist.all_reduce(t) is None
    dist.all_reduce(t, op="mean")
    assert t.tolist() == [1.0, 2.0]
    assert t._version == before + 2
    work = dist.all_reduce(t, async_op=True)
    assert work.is_completed() and work.wait()


def test_all_reduce_checks_op_dtype_and_type():
    with pytest.raises(ValueError, match="op must be one of"):
        dist.all_reduce(ng.ones(2), op="max")
    with pytest.raises(TypeError, match="does not support int64"):
        dist.all_reduce(ng.tensor([1, 2]), op="mean")
    with pytest.raises(TypeError, match="expects a numgrad Tensor"):
        dist.all_reduce(np.ones(2))
    dist.all_reduce(ng.tensor([1, 2]))       # integers can be summed


def test_broadcast_and_barrier_alone():
    t = ng.ones(2, 3).t()                    # not contiguous
    dist.broadcast(t, src=0)
    assert t.tolist() == [[1.0, 1.0]] * 3
    with pytest.raises(ValueError, match=r"src must be a rank in \[0, 0\]"):
        dist.broadcast(t, src=1)
    dist.barrier()


def test_all_gather_object_alone():
    found = [None]
    dist.all_gather_object(found, {"a": 1})
    assert found == [{"a": 1}]
    with pytest.raises(ValueError, match="world size"):
        dist.all_gather_object([None, None], 1)


def test_broadcast_parameters_alone_keeps_the_tensors():
    model = mlp()
    before = [(p, p.detach().numpy().copy()) for p in model.parameters()]
    dist.broadcast_parameters(model)
    assert all(p is q and np.array_equal(p.detach().numpy(), v)
               for (p, v), q in zip(before, model.parameters()))


def test_differences_name_every_parameter_that_differs():
    zero = [("w", (2, 3), "float32"), ("b", (2,), "float32")]
    assert dist._differences([zero, list(zero)]) == []
    lines = dist._differences([zero, [("w", (2, 4), "float32"), ("c", (1,), "float32")]])
    assert lines == ["'w': shape (2, 3), float32 on rank 0 but shape (2, 4), float32 on rank 1",
                     "rank 1 has no 'b' (rank 0: shape (2,), float32)",
                     "rank 1 has 'c' (shape (1,)), which rank 0 has not"]
    assert dist._differences([zero, zero[::-1]]) == [
        "rank 1 registers the same tensors in another order than rank 0"]


# ---- DistributedDataParallel, alone ----------------------------------------------------------
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = mlp()

    def forward(self, x, scale=1.0):
        return self.inner(x) * scale


def test_ddp_alone_gives_the_plain_gradients_and_passes_forward_through():
    plain, model = Scaled(), Scaled()
    ddp = DDP(model)
    assert ddp.module is model
    assert list(ddp.state_dict()) == ["module." + k for k in model.state_dict()]
    x, y = ng.randn(5, 3), ng.randn(5, 2)
    F.mse_loss(ddp(x, scale=2.0), y).backward()
    F.mse_loss(plain(x, scale=2.0), y).backward()
    assert all(np.array_equal(a, b) for a, b in zip(grads(model), grads(plain)))


def test_buckets_start_in_reverse_parameter_order_and_respect_the_cap():
    ps = [ng.zeros(10), ng.zeros(10), ng.zeros(10, dtype=ng.float64), ng.zeros(10)]
    assert assign_buckets(ps, [3, 2, 1, 0], cap_bytes=80) == [[3, 1], [2], [0]]
    assert assign_buckets(ps, [3, 2, 1, 0], cap_bytes=0) == [[3], [2], [1], [0]]
    assert assign_buckets(ps, [0, 1, 2, 3], cap_bytes=10**6) == [[0, 1, 3], [2]]
    ddp = DDP(mlp(), bucket_cap_mb=0)
    assert [b.indices for b in ddp._reducer.buckets] == [[3], [2], [1], [0]]
    with pytest.raises(ValueError, match="bucket_cap_mb"):
        DDP(mlp(), bucket_cap_mb=-1)


def test_buckets_are_rebuilt_in_arrival_order_and_sent_as_they_fill(monkeypatch):
    ddp = DDP(mlp(), bucket_cap_mb=0)
    reducer = ddp._reducer
    arrival = []
    for i, p in enumerate(ddp.module.parameters()):
        p.register_post_accumulate_grad_hook(lambda t, i=i: arrival.append(i))
    x = ng.randn(2, 3)
    ddp(x).sum().backward()
    # each gradient arrives as soon as it is complete: the last layer's first, bias before
    # weight (torch's order)
    assert arrival == [3, 2, 1, 0]
    reducer.buckets.reverse()                # (as if the first buckets had been otherwise)
    ddp(x)                                   # the next forward rebuilds
    assert [b.indices for b in reducer.buckets] == [[3], [2], [1], [0]]
    arrived_when_sent = []
    send = type(reducer.buckets[0]).send
    monkeypatch.setattr(type(reducer.buckets[0]), "send",
                        lambda bucket: (arrived_when_sent.append(reducer.n_seen), send(bucket)))
    ddp(x).sum().backward()
    assert arrived_when_sent == [1, 2, 3, 4]


def test_no_sync_accumulates_and_the_next_backward_reduces():
    plain, model = mlp(), mlp()
    ddp = DDP(model)
    x1, x2 = ng.randn(2, 3), ng.randn(2, 3)
    with ddp.no_sync():
        ddp(x1).sum().backward()
    assert not ddp._reducer.armed
    ddp(x2).sum().backward()
    plain(x1).sum().backward()
    plain(x2).sum().backward()
    assert all(np.allclose(a, b) for a, b in zip(grads(model), grads(plain)))
    assert ddp.require_backward_grad_sync


class WithUnused(nn.Module):
    def __init__(self):
        super().__init__()
        self.used = nn.Linear(3, 2)
        self.unused = nn.Parameter(ng.ones(2))

    def forward(self, x):
        return self.used(x)


def test_a_parameter_without_gradient_is_named_at_the_next_forward():
    ddp = DDP(WithUnused())
    x = ng.randn(2, 3)
    ddp(x).sum().backward()
    with pytest.raises(RuntimeError, match=r"received no gradient in the last backward: unused\."):
        ddp(x)
    ddp(x).sum().backward()                  # the failed iteration was dropped: a fresh start
    with pytest.raises(RuntimeError, match="unused"):
        ddp(x)


def test_frozen_parameters_are_left_out():
    model = mlp()
    model[0].requires_grad_(False)
    ddp = DDP(model)
    assert ddp._reducer.names == ["2.weight", "2.bias"]
    ddp(ng.randn(2, 3)).sum().backward()
    assert model[0].weight.grad is None and model[2].weight.grad is not None


def test_a_dropped_wrapper_stops_reducing():
    model = mlp()
    ddp = DDP(model)
    reducer = weakref.ref(ddp._reducer)
    ddp(ng.randn(2, 3))
    del ddp
    assert reducer() is None                 # the parameters' hooks do not keep it
    model(ng.randn(2, 3)).sum().backward()
    assert model[0].weight.grad is not None


# ---- DistributedSampler ----------------------------------------------------------------------
def test_sampler_pads_and_cuts_as_torch():
    # torch 2.13's DistributedSampler(range(5), num_replicas=2, shuffle=False) and drop_last
    shares = [list(DistributedSampler(range(5), 2, r, shuffle=False)) for r in range(2)]
    assert shares == [[0, 2, 4], [1, 3, 0]]
    cut = [list(DistributedSampler(range(5), 2, r, shuffle=False, drop_last=True))
           for r in range(2)]
    assert cut == [[0, 2], [1, 3]]
    assert list(DistributedSampler(range(2), 5, 4, shuffle=False)) == [0]
    assert len(DistributedSampler(range(7), 3, 0, drop_last=True)) == 2


def test_sampler_shuffles_the_same_order_on_every_rank_each_epoch():
    data = TensorDataset(ng.arange(10.0))
    samplers = [DistributedSampler(data, 3, r, seed=1) for r in range(3)]
    first = [list(s) for s in samplers]
    assert set(sum(first, [])) == set(range(10)) and len(sum(first, [])) == 12
    for s in samplers:
        s.set_epoch(1)
    second = [list(s) for s in samplers]
    assert second != first and set(sum(second, [])) == set(range(10))
    assert list(DistributedSampler(data, 3, 0, seed=1)) == first[0]


def test_sampler_defaults_to_the_world_and_checks_the_rank():
    sampler = DistributedSampler(range(4), shuffle=False)
    assert (sampler.num_replicas, sampler.rank, list(sampler)) == (1, 0, [0, 1, 2, 3])
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1"):
        DistributedSampler(range(4), num_replicas=2, rank=2)


# ---- two processes under mpiexec --------------------------------------------------------------
def _mpiexec():
    """The mpiexec beside this Python first (the mpich wheel's), else one on PATH."""
    here = os.path.dirname(sys.executable)
    return shutil.which("mpiexec", path=here) or shutil.which("mpiexec")


MPIEXEC = _mpiexec()
needs_mpi = pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None or MPIEXEC is None,
                               reason="needs mpi4py and mpiexec: pip install -e '.[mpi]'")


def run(args, ranks=2, timeout=180):
    """(exit status, stdout and stderr) of `mpiexec -n ranks python args`; a run past the timeout
    is killed with its whole process group and fails the test as a hang."""
    command = ([MPIEXEC, "-n", str(ranks)] if ranks else []) + [sys.executable, *map(str, args)]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail(f"{' '.join(command)} hung: killed after {timeout} s\n{out}")
    return proc.returncode, out


@needs_mpi
def test_two_ranks_match_one_process_on_the_global_batch():
    """Gradients equal single-process ones; buckets equal per-parameter reduction; no_sync."""
    status, out = run([SCRIPTS / "ddp_checks.py"])
    assert status == 0 and "all checks passed" in out, out


@needs_mpi
def test_a_rank_that_raises_ends_the_job():
    status, out = run([SCRIPTS / "failures.py", "raise"], timeout=120)
    assert status != 0, out
    assert "ValueError: rank 1 fails on purpose" in out
    assert "rank 1 of 2 stopped on an uncaught ValueError; aborting every rank" in out
    assert "backward finished" not in out


@needs_mpi
def test_a_rank_that_stops_calling_collectives_makes_the_others_time_out():
    status, out = run([SCRIPTS / "failures.py", "stall"], timeout=120)
    assert status != 0, out
    assert "all_reduce on rank 0 did not complete within 3 s" in out


@needs_mpi
def test_a_rank_that_exits_before_init_ends_the_job_after_the_timeout():
    status, out = run([SCRIPTS / "failures.py", "early"], timeout=120)
    assert status != 0, out
    assert "Timeout" in out and "_start_mpi" in out


@needs_mpi
def test_different_models_are_reported_on_every_rank():
    status, out = run([SCRIPTS / "failures.py", "mismatch"], timeout=120)
    assert status == 3, out
    for rank in (0, 1):
        assert (f"rank {rank}: RuntimeError: the module differs across ranks" in out and
                "'0.weight': shape (16, 5), float32 on rank 0 but shape (17, 5), float32 on "
                "rank 1" in out), out


@needs_mpi
def test_example_ends_with_the_same_weights_on_two_ranks_and_one(tmp_path):
    example = ROOT / "examples" / "ddp_mlp.py"
    small = ["--samples", "512", "--epochs", "2"]
    for ranks, out in ((2, "two.npz"), (0, "one.npz")):
        status, printed = run([example, *small, "--out", tmp_path / out], ranks=ranks)
        assert status == 0, printed
    status, printed = run([example, "--compare", tmp_path / "one.npz", tmp_path / "two.npz"],
                          ranks=0)
    assert status == 0 and "the same weights" in printed, printed
