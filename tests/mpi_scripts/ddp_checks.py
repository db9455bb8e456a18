"""Run under `mpiexec -n 2`: DistributedDataParallel's gradients against single-process ones.

Each check asserts; an assertion that fails on any rank ends the job (init's abort hook), so the
launcher's exit status is the result. Rank 0 prints "all checks passed" at the end.
"""
import numpy as np

import numgrad as ng
import numgrad.distributed as dist
from numgrad import nn
from numgrad.nn import functional as F
from numgrad.nn.parallel import DistributedDataParallel as DDP

ng.set_default_dtype(ng.float64)     # sums in another order still agree to ~1e-15
dist.init(timeout=60)
rank, world = dist.get_rank(), dist.get_world_size()
assert world == 2, world
LOCAL = 4                            # samples per rank; the global batch is LOCAL * world


def make_model(seed):
    ng.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 8), nn.Tanh(), nn.Linear(8, 1))


def global_batch(step):
    rng = np.random.default_rng(100 + step)
    n = LOCAL * world
    return ng.tensor(rng.normal(size=(n, 5))), ng.tensor(rng.normal(size=(n, 1)))


def local(batch):
    x, y = batch
    return x[rank * LOCAL:(rank + 1) * LOCAL], y[rank * LOCAL:(rank + 1) * LOCAL]


def close(a, b):
    return all(np.allclose(x, y, rtol=1e-12, atol=1e-14) for x, y in zip(a, b))


def grads(model):
    return [p.grad.numpy().copy() for p in model.parameters()]


def same_on_every_rank(arrays):
    gathered = [None] * world
    dist.all_gather_object(gathered, arrays)
    return all(np.array_equal(a, b) for other in gathered for a, b in zip(gathered[0], other))


def check(name, condition):
    assert condition, f"rank {rank}: {name} failed"
    print(f"rank {rank}: {name} ok", flush=True)


# 1. construction broadcasts rank 0's parameters; gradients equal those of the combined batch
model = make_model(seed=rank)        # different on each rank before wrapping
ddp = DDP(model)
check("parameters broadcast", same_on_every_rank([p.detach().numpy() for p in model.parameters()]))
reference = make_model(seed=0)        # rank 0's start: the single-process model
batch = global_batch(0)
F.mse_loss(ddp(local(batch)[0]), local(batch)[1]).backward()
F.mse_loss(reference(batch[0]), batch[1]).backward()
check("DDP gradients equal single-process gradients of the global batch",
      close(grads(model), grads(reference)))

# 2. buckets: one all_reduce per bucket; the same result as reducing parameter by parameter
calls = []
real_all_reduce = dist.all_reduce


def counting_all_reduce(tensor, *args, **kwargs):
    calls.append(tensor.numel())
    return real_all_reduce(tensor, *args, **kwargs)


dist.all_reduce = counting_all_reduce
n_params = len(list(make_model(0).parameters()))
results = {}
for cap_mb in (25, 0, 60 * 8 / 2**20):      # one bucket; one per parameter; a few
    m = make_model(0)
    d = DDP(m, bucket_cap_mb=cap_mb)
    optimizer = ng.optim.SGD(m.parameters(), lr=0.1)
    for step in range(3):                    # the buckets are rebuilt after the first step
        calls.clear()
        optimizer.zero_grad()
        x, y = local(global_batch(step))
        F.mse_loss(d(x), y).backward()
        check(f"cap {cap_mb:g} MiB step {step}: one all_reduce per bucket",
              len(calls) == len(d._reducer.buckets)
              and sum(calls) == sum(p.numel() for p in m.parameters()))
        if step < 2:
            optimizer.step()
    results[cap_mb] = (grads(m), [b.indices for b in d._reducer.buckets])
check("25 MiB: one bucket", len(results[25][1]) == 1)
check("0 MiB: one bucket per parameter", len(results[0][1]) == n_params)
check("small cap: several buckets", 1 < len(results[60 * 8 / 2**20][1]) < n_params)
dist.all_reduce = real_all_reduce

plain = make_model(0)
dist.broadcast_parameters(plain)
optimizer = ng.optim.SGD(plain.parameters(), lr=0.1)
for step in range(3):
    optimizer.zero_grad()
    x, y = local(global_batch(step))
    F.mse_loss(plain(x), y).backward()
    for p in plain.parameters():
        dist.all_reduce(p.grad, op="mean")
    if step < 2:
        optimizer.step()
for cap_mb, (g, _) in results.items():
    check(f"cap {cap_mb:g} MiB equals per-parameter all_reduce",
          all(np.array_equal(a, b) for a, b in zip(g, grads(plain))))
arrival = []
probe = make_model(0)
for i, p in enumerate(probe.parameters()):
    p.register_post_accumulate_grad_hook(lambda t, i=i: arrival.append(i))
F.mse_loss(probe(x), y).backward()
check("rebuilt buckets follow the order gradients arrived (the last layer first)",
      results[0][1] == [[i] for i in arrival] and min(arrival[:2]) == n_params - 2)

# 3. no_sync: local accumulation, then the next synchronized backward averages the totals
m = make_model(0)
d = DDP(m)
first, second = local(global_batch(10)), local(global_batch(11))
with d.no_sync():
    F.mse_loss(d(first[0]), first[1]).backward()
after_no_sync = grads(m)
F.mse_loss(d(second[0]), second[1]).backward()
solo = make_model(0)
F.mse_loss(solo(first[0]), first[1]).backward()
check("no_sync leaves the local gradient", close(after_no_sync, grads(solo)))
check("gradients under no_sync differ across ranks", not same_on_every_rank(after_no_sync))
F.mse_loss(solo(second[0]), second[1]).backward()
for p in solo.parameters():
    dist.all_reduce(p.grad, op="mean")
check("the synchronized backward averages the accumulated gradients",
      close(grads(m), grads(solo)))
check("gradients equal on every rank after sync", same_on_every_rank(grads(m)))

dist.barrier()
if rank == 0:
    print("all checks passed", flush=True)
