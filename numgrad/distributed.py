"""numgrad.distributed: the process group (the MPI world, through mpi4py) and its collectives.

Start one process per rank with an MPI launcher, `mpiexec -n 2 python train.py`, and call init()
in each. Started without a launcher, the world is this process alone (world size 1), with or
without mpi4py installed, and every collective returns at once.

>>> import numgrad as ng
>>> import numgrad.distributed as dist
>>> dist.init()
>>> t = ng.tensor([1.0, 2.0])
>>> dist.all_reduce(t, op="mean")      # the mean over the ranks, in place
>>> t
tensor([1., 2.])

Note [no hang]: a rank that fails must not leave the others blocked in a collective forever.
- init() installs a sys.excepthook (world size > 1) that prints the traceback and then calls
  MPI_Abort, which makes the launcher end every rank of the job.
- A rank that exits before it starts MPI is not noticed by the launcher: init() gives up (ending
  its process with a "Timeout" traceback) when the world has not started within its timeout.
- Every collective is started non-blocking and polled against a deadline (init's timeout): a
  rank whose peer stopped calling collectives without raising (stuck, or exited early) raises a
  RuntimeError that says so, and that error reaches the hook above.
"""
import datetime
import os
import pickle
import sys
import time

import numpy as np

__all__ = ["init", "is_initialized", "get_rank", "get_world_size", "all_reduce", "broadcast",
           "all_gather_object", "barrier", "broadcast_parameters", "Work"]

# Variables that MPICH's, Open MPI's and PMIx launchers set in the processes they start.
_LAUNCHER_VARIABLES = ("PMI_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK")
_REDUCE_OPS = ("sum", "mean")
_SPIN_SECONDS = 2e-3     # see _poll


class _World:
    """The initialised process group. comm is None when this process is alone."""

    def __init__(self, mpi, comm, rank, size, timeout):
        self.mpi = mpi
        self.comm = comm
        self.rank = rank
        self.size = size
        self.timeout = timeout


_world = None


def init(timeout=datetime.timedelta(minutes=30)):
    """Join the MPI world started by the launcher (or a world of one without it). Later calls
    change nothing. `timeout` (seconds or a timedelta; torch's default of 30 minutes) bounds each
    collective: past it the rank raises instead of waiting for a peer that is gone.

    >>> import numgrad as ng
    >>> import numgrad.distributed as dist
    >>> dist.init()
    >>> dist.get_world_size()
    1
    """
    global _world
    if _world is not None:
        return
    seconds = timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else float(timeout)
    if seconds <= 0:
        raise ValueError(f"timeout must be positive, got {timeout!r}")
    launched = any(name in os.environ for name in _LAUNCHER_VARIABLES)
    try:
        MPI, comm = _start_mpi(seconds if launched else None)
    except ImportError:
        if launched:
            raise ImportError("this process was started by an MPI launcher but mpi4py is not "
                              "installed: pip install 'numgrad-jit[mpi]'") from None
        _world = _World(None, None, 0, 1, seconds)
        return
    _world = _World(MPI, comm, comm.Get_rank(), comm.Get_size(), seconds)
    if _world.size > 1:
        _abort_on_uncaught_exception(MPI, _world.rank, _world.size)
    else:
        _world.comm = None      # alone: collectives return at once


def _start_mpi(seconds):
    """Start MPI (importing mpi4py does) and make our own communicator, so the user's messages on
    COMM_WORLD never match ours. Both wait for every rank. A rank that exits before starting MPI
    goes unnoticed by MPICH's launcher, and MPI_Init holds the GIL, so a watchdog thread in C
    (faulthandler) ends this process, printing "Timeout" and a traceback that ends here, if MPI
    has not started within `seconds` (Note [no hang])."""
    import faulthandler
    if seconds is not None:
        faulthandler.dump_traceback_later(seconds, exit=True)
    try:
        from mpi4py import MPI
        return MPI, MPI.COMM_WORLD.Dup()
    finally:
        if seconds is not None:
            faulthandler.cancel_dump_traceback_later()


def _abort_on_uncaught_exception(MPI, rank, size):
    """Note [no hang]: an exception nobody catches ends the whole job, not just this rank."""
    previous = sys.excepthook

    def abort(kind, value, traceback):
        previous(kind, value, traceback)
        sys.stderr.write(f"numgrad.distributed: rank {rank} of {size} stopped on an uncaught "
                         f"{kind.__name__}; aborting every rank\n")
        sys.stderr.flush()
        # Abort ends the launcher's forwarding at once: give it a moment to pass on what this
        # rank wrote, or a loaded machine shows the traceback cut after its first line
        time.sleep(0.2)
        MPI.COMM_WORLD.Abort(1)

    sys.excepthook = abort


def is_initialized():
    """Whether init() has run in this process."""
    return _world is not None


def _require():
    if _world is None:
        raise RuntimeError("numgrad.distributed is not initialized: call "
                           "numgrad.distributed.init() first")
    return _world


def get_rank():
    """This process's rank, 0 .. world size - 1."""
    return _require().rank


def get_world_size():
    """The number of processes in the world."""
    return _require().size


class Work:
    """A collective in flight (what async_op=True returns). wait() blocks until it is done, at most
    the process group's timeout, and then the tensor holds the result.

    >>> import numgrad as ng
    >>> import numgrad.distributed as dist
    >>> work = dist.all_reduce(ng.ones(3), async_op=True)
    >>> work.wait()
    True
    """

    def __init__(self, request, what, finish=None):
        self._request = request
        self._what = what
        self._finish = finish

    def is_completed(self):
        """Whether the collective is done (this also drives MPI's progress on it)."""
        if self._request is not None:
            if not self._request.Test():
                return False
            self._request = None
        self._complete()
        return True

    def wait(self):
        if self._request is not None:
            _poll(self._request, self._what)
            self._request = None
        self._complete()
        return True

    def _complete(self):
        finish, self._finish = self._finish, None
        if finish is not None:
            finish()


def _poll(request, what):
    """Test the request until it completes; raise past the deadline (Note [no hang]).

    MPI moves a non-blocking collective on only while its ranks call into MPI, so a rank that
    sleeps between tests delays its peers too: napping from the first test made a 20 KB
    all_reduce between 2 ranks take 2.5 ms instead of 0.08 ms. So it spins for _SPIN_SECONDS,
    as a blocking MPI call would, and only then sleeps between tests (up to 1 ms), leaving the
    CPU to a slower peer.
    """
    world = _world
    start = time.perf_counter()
    deadline = start + world.timeout
    nap = 0.0
    while not request.Test():
        now = time.perf_counter()
        if now - start < _SPIN_SECONDS:
            continue
        if now > deadline:
            raise RuntimeError(
                f"numgrad.distributed: {what} on rank {world.rank} did not complete within "
                f"{world.timeout:g} s: another rank has failed, exited or stopped calling "
                "collectives (each rank must call the same collectives in the same order)")
        nap = min(1e-3, nap * 2 or 5e-5)
        time.sleep(nap)


def _host_array(tensor, what):
    from .tensor import Tensor
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{what} expects a numgrad Tensor, got {type(tensor).__name__}")
    if type(tensor._data) is not np.ndarray:
        raise RuntimeError(f"{what} supports CPU tensors only, got one on {tensor.device}")
    return tensor._data


def _start(tensor, what, start, finish=None):
    """Run start(buffer) on a contiguous buffer of the tensor's data (its own when contiguous);
    the data receives the result when the returned Work completes. The version bumps now, as for
    an in-place op."""
    world = _require()
    data = _host_array(tensor, what)
    tensor._bump_version()
    if world.comm is None:
        if finish is not None:
            finish(data)
        return Work(None, what)
    buffer = data if data.flags.c_contiguous else np.ascontiguousarray(data)

    def complete():
        if finish is not None:
            finish(buffer)
        if buffer is not data:
            data[...] = buffer
    return Work(start(world, buffer), what, complete)


def _finish(work, async_op):
    if async_op:
        return work
    work.wait()
    return None


def all_reduce(tensor, op="sum", async_op=False):
    """Replace the tensor's data, on every rank, by its sum (op="sum") or mean (op="mean") over
    the ranks. Returns a Work to wait() on when async_op, else None when done.

    >>> import numgrad as ng
    >>> import numgrad.distributed as dist
    >>> t = ng.tensor([1.0, 2.0])
    >>> dist.all_reduce(t)
    >>> t.tolist()
    [1.0, 2.0]
    """
    if op not in _REDUCE_OPS:
        raise ValueError(f"all_reduce op must be one of {_REDUCE_OPS}, got {op!r}")
    dtype = _host_array(tensor, "all_reduce").dtype
    if dtype.kind not in "fiu" or (op == "mean" and dtype.kind != "f"):
        raise TypeError(f"all_reduce with op={op!r} does not support {dtype} tensors")
    size = _require().size

    def divide(buffer):
        if op == "mean" and size > 1:
            buffer /= size

    def start(world, buffer):
        return world.comm.Iallreduce(world.mpi.IN_PLACE, buffer, world.mpi.SUM)
    return _finish(_start(tensor, "all_reduce", start, divide), async_op)


def broadcast(tensor, src=0, async_op=False):
    """Copy the tensor's data on rank src into the same tensor on every other rank."""
    size = _require().size
    if not 0 <= src < size:
        raise ValueError(f"broadcast src must be a rank in [0, {size - 1}], got {src}")

    def start(world, buffer):
        return world.comm.Ibcast(buffer, root=src)
    return _finish(_start(tensor, "broadcast", start), async_op)


def all_gather_object(object_list, obj):
    """Fill object_list (of world size length) with every rank's obj, by rank (pickled).

    >>> import numgrad as ng
    >>> import numgrad.distributed as dist
    >>> found = [None]
    >>> dist.all_gather_object(found, {"rank": 0})
    >>> found
    [{'rank': 0}]
    """
    world = _require()
    if len(object_list) != world.size:
        raise ValueError(f"object_list must have world size ({world.size}) entries, got "
                         f"{len(object_list)}")
    if world.comm is None:
        object_list[0] = obj
        return
    payload = np.frombuffer(pickle.dumps(obj), np.uint8)
    sizes = np.empty(world.size, np.int64)
    _poll(world.comm.Iallgather(np.array([payload.size], np.int64), sizes), "all_gather_object")
    gathered = np.empty(int(sizes.sum()), np.uint8)
    _poll(world.comm.Iallgatherv(payload, (gathered, sizes)), "all_gather_object")
    ends = np.cumsum(sizes)
    for rank in range(world.size):
        object_list[rank] = pickle.loads(gathered[ends[rank] - sizes[rank]:ends[rank]].tobytes())


def barrier():
    """Return once every rank has called barrier()."""
    world = _require()
    if world.comm is not None:
        _poll(world.comm.Ibarrier(), "barrier")


def broadcast_parameters(module, root=0):
    """Give every rank rank root's parameters and buffers (in place, keeping the tensors). First
    checks that every rank holds the same names, shapes and dtypes, and raises a RuntimeError on
    every rank, naming the differences, when they do not.

    >>> import numgrad as ng
    >>> import numgrad.distributed as dist
    >>> net = ng.nn.Linear(3, 2)
    >>> dist.broadcast_parameters(net)
    """
    world = _require()
    state = list(module.named_parameters()) + list(module.named_buffers())
    signature = [(name, tuple(t.shape), str(t.dtype)) for name, t in state]
    signatures = [None] * world.size
    all_gather_object(signatures, signature)
    differences = _differences(signatures)
    if differences:
        raise RuntimeError("the module differs across ranks (every rank must build the same "
                           "model):\n  " + "\n  ".join(differences))
    works = [broadcast(t, src=root, async_op=True) for _, t in state]
    for work in works:
        work.wait()


def _differences(signatures):
    """Lines naming each parameter or buffer whose shape or dtype, or presence, differs from rank
    0's."""
    reference = {name: (shape, dtype) for name, shape, dtype in signatures[0]}
    lines = []
    for rank, signature in enumerate(signatures[1:], start=1):
        mine = {name: (shape, dtype) for name, shape, dtype in signature}
        for name, (shape, dtype) in reference.items():
            if name not in mine:
                lines.append(f"rank {rank} has no {name!r} (rank 0: shape {shape}, {dtype})")
            elif mine[name] != (shape, dtype):
                lines.append(f"{name!r}: shape {shape}, {dtype} on rank 0 but shape "
                             f"{mine[name][0]}, {mine[name][1]} on rank {rank}")
        lines.extend(f"rank {rank} has {name!r} (shape {mine[name][0]}), which rank 0 has not"
                     for name in mine if name not in reference)
        if not lines and [s[0] for s in signature] != [s[0] for s in signatures[0]]:
            lines.append(f"rank {rank} registers the same tensors in another order than rank 0")
    return lines
