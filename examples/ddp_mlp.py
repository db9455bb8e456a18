"""Data-parallel training of an MLP with DistributedDataParallel: the same run on one process and
on several ends with the same weights, because each step sees the same global batch.

    mpiexec -n 2 python examples/ddp_mlp.py --out ddp2.npz     # 2 ranks, 32 samples each a step
    python examples/ddp_mlp.py --out ddp1.npz                  # 1 process, 64 samples a step
    python examples/ddp_mlp.py --compare ddp1.npz ddp2.npz     # same weights, to float tolerance

Every rank draws the epoch's order from the same seed (DistributedSampler) and takes every
world-size-th sample of it, so the ranks' batches of one step together are the single process's
batch of that step; DDP averages the ranks' gradients, which is the gradient of the mean loss
over that global batch. The samples must divide into global batches (no padding), and the model
has no dropout or batch statistics, whose randomness or per-rank statistics would differ.
Rank 0 prints the loss and the time per epoch, and saves the final weights with --out.
"""
import argparse
import json
import sys
import time

import numpy as np

import numgrad as ng
import numgrad.distributed as dist
from numgrad import nn
from numgrad.nn import functional as F
from numgrad.nn.parallel import DistributedDataParallel
from numgrad.utils.data import DistributedSampler, TensorDataset


def make_data(samples, features=16, classes=4, seed=0):
    """Gaussian inputs labelled by a random linear teacher: float32 (N, features), int64 (N,)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(samples, features)).astype(np.float32)
    teacher = rng.normal(size=(features, classes))
    return x, np.argmax(np.tanh(x @ teacher) + 0.1 * rng.normal(size=(samples, classes)), axis=1)


def make_model(features, hidden, classes):
    return nn.Sequential(nn.Linear(features, hidden), nn.Tanh(), nn.Linear(hidden, hidden),
                         nn.Tanh(), nn.Linear(hidden, classes))


def batches(dataset, sampler, batch_size):
    """This rank's batches of one epoch. (numgrad's DataLoader has no sampler argument yet.)"""
    order = np.fromiter(sampler, np.int64)
    for start in range(0, len(order), batch_size):
        yield dataset.rows(order[start:start + batch_size])


def train(samples, epochs, global_batch, hidden, lr, seed):
    """Train on this rank's share; returns the model and the seconds each epoch took."""
    rank, world = dist.get_rank(), dist.get_world_size()
    if global_batch % world or samples % global_batch:
        sys.exit(f"the world size ({world}) must divide the global batch ({global_batch}), "
                 f"which must divide the samples ({samples})")
    x, y = make_data(samples, seed=seed)
    dataset = TensorDataset(ng.tensor(x), ng.tensor(y))
    ng.manual_seed(seed + rank)      # each rank starts elsewhere: DDP copies rank 0's weights
    model = DistributedDataParallel(make_model(x.shape[1], hidden, int(y.max()) + 1))
    optimizer = ng.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    sampler = DistributedSampler(dataset, shuffle=True, seed=seed)
    seconds = []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        dist.barrier()               # time the epoch from a common start
        start = time.perf_counter()
        total = ng.zeros(())
        for xb, yb in batches(dataset, sampler, global_batch // world):
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.detach()
        dist.all_reduce(total, op="mean")
        seconds.append(time.perf_counter() - start)
        if rank == 0:
            print(f"epoch {epoch + 1}  loss {total.item() / (samples // global_batch):.4f}  "
                  f"time {seconds[-1]:.3f}s  ({world} process{'es' if world > 1 else ''})",
                  flush=True)
    return model.module, seconds


def compare(first, second, rtol=1e-4, atol=1e-5):
    """Exit status 0 when two saved runs hold the same weights to float tolerance."""
    a, b = np.load(first), np.load(second)
    if sorted(a.files) != sorted(b.files):
        sys.exit(f"different parameters: {sorted(a.files)} and {sorted(b.files)}")
    worst = max(float(np.max(np.abs(a[k] - b[k]))) for k in a.files)
    same = all(np.allclose(a[k], b[k], rtol=rtol, atol=atol) for k in a.files)
    print(f"largest difference {worst:.3g}: {'the same' if same else 'DIFFERENT'} weights")
    sys.exit(0 if same else 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=4096)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--global-batch", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="save the final weights here (.npz)")
    parser.add_argument("--timings", help="save the seconds per epoch here (.json)")
    parser.add_argument("--compare", nargs=2, metavar=("A.npz", "B.npz"))
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare)
    dist.init()
    model, seconds = train(args.samples, args.epochs, args.global_batch, args.hidden, args.lr,
                           args.seed)
    if dist.get_rank() == 0:
        if args.out:
            np.savez(args.out, **{k: v.numpy() for k, v in model.state_dict().items()})
        if args.timings:
            with open(args.timings, "w") as f:
                json.dump({"world_size": dist.get_world_size(), "epoch_seconds": seconds}, f)


if __name__ == "__main__":
    main()
