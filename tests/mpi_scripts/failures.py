"""Run under `mpiexec -n 2` with one argument, the failure to stage:

  raise     rank 1 raises while rank 0 waits in a gradient all_reduce: init's abort hook ends the
            job (the timeout is long, so it is not what ends it).
  stall     rank 1 stops calling collectives without raising: rank 0's all_reduce times out
            after 3 s and raises, which ends the job. The ranks start and wrap their model
            under the long timeout: on a loaded machine one rank may reach DDP's first
            collective seconds after the other, which is not the failure staged here.
  early     rank 1 exits before init(), which MPICH's launcher does not notice: rank 0's init()
            gives up after 3 s (a "Timeout" traceback) and exits.
  mismatch  rank 1 builds another model: DistributedDataParallel raises on every rank; each rank
            prints its error and exits with status 3.
"""
import os
import sys
import time

import numgrad as ng
import numgrad.distributed as dist
from numgrad import nn
from numgrad.nn.parallel import DistributedDataParallel as DDP

mode = sys.argv[1]
if mode == "early" and os.environ.get("PMI_RANK") == "1":
    sys.exit("rank 1 exits before init")
dist.init(timeout=3 if mode == "early" else 600)
rank = dist.get_rank()
hidden = 17 if mode == "mismatch" and rank == 1 else 16
try:
    model = DDP(nn.Sequential(nn.Linear(5, hidden), nn.Tanh(), nn.Linear(hidden, 1)))
except RuntimeError as error:
    print(f"rank {rank}: RuntimeError: {error}", flush=True)
    sys.exit(3)
print(f"rank {rank}: wrapped", flush=True)
if rank == 1 and mode == "raise":
    raise ValueError("rank 1 fails on purpose")
if mode == "stall":
    dist.barrier()
    dist._world.timeout = 3      # from here on (no public setter: torch has none either)
    if rank == 1:
        time.sleep(120)
try:
    model(ng.randn(4, 5)).sum().backward()
except Exception as error:
    # said here, flushed, before the traceback: mpiexec may end the job while rank 0's traceback
    # is still being written, and the test reads this line
    print(f"rank {rank}: {type(error).__name__}: {error}", flush=True)
    raise
print(f"rank {rank}: backward finished, which it should not have", flush=True)
