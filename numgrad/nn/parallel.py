"""DistributedDataParallel: one replica of the model per rank; after each backward every gradient
holds its mean over the ranks, reduced in buckets of contiguous memory.

Note [bucket launch]
A hook after each parameter's gradient accumulation (register_post_accumulate_grad_hook) counts
it into its bucket; a bucket whose parameters have all arrived is copied into its buffer and sent
as one non-blocking all_reduce; when every bucket is sent, the last hook waits for them all and
writes the means back into .grad. Buckets are sent strictly in bucket order, whatever order the
gradients arrive in, so every rank starts the same collectives in the same order, as MPI requires.

What overlaps: a parameter's post-accumulate hook runs inside the backward, when its gradient is
complete (the compiled scheduler hands its AccumulateGrad back to Python: Note [ready order] in
kernels/ready_queue.py), so a bucket's all_reduce overlaps the rest of the backward, as in torch
(each hook also tests the buckets in flight, which is what lets MPI progress them). The last
layer's gradients arrive first, each layer's bias before its weight, as in torch. The first buckets follow reverse parameter order, as torch's do; after the first
synchronized backward they are rebuilt in the order the gradients arrived on rank 0 (torch
rebuilds its buckets the same way), and from then on each bucket is sent as soon as it fills.
"""
import contextlib
import weakref

import numpy as np

from .. import distributed as dist
from .. import grad_mode
from ..tensor import Tensor
from .module import Module


def assign_buckets(params, order, cap_bytes):
    """Lists of parameter indices, one per bucket: filled in `order`, one open bucket per dtype,
    a bucket closed once it holds cap_bytes (so cap 0 gives one parameter per bucket); the buckets
    are ordered by their first parameter's place in `order`.

    >>> import numgrad as ng
    >>> ps = [ng.zeros(100), ng.zeros(100), ng.zeros(100)]
    >>> assign_buckets(ps, [2, 1, 0], cap_bytes=800)
    [[2, 1], [0]]
    """
    closed, open_buckets = [], {}
    for i in order:
        p = params[i]
        bucket = open_buckets.setdefault(p.dtype, ([], [0]))
        bucket[0].append(i)
        bucket[1][0] += p.numel() * p.element_size()
        if bucket[1][0] >= cap_bytes:
            closed.append(open_buckets.pop(p.dtype)[0])
    buckets = closed + [indices for indices, _ in open_buckets.values()]
    place = {index: k for k, index in enumerate(order)}
    return sorted(buckets, key=lambda indices: place[indices[0]])


class _Bucket:
    """Parameters whose gradients travel in one buffer, with one all_reduce."""

    def __init__(self, indices, params):
        self.indices = indices
        self.params = [params[i] for i in indices]
        self.ends = np.cumsum([p.numel() for p in self.params])
        self.buffer = np.empty(int(self.ends[-1]), self.params[0].dtype)
        self.missing = len(indices)      # parameters yet to arrive in this backward
        self.work = None

    def send(self):
        for p, end in zip(self.params, self.ends):
            grad = p._grad._data
            self.buffer[end - grad.size:end] = grad.reshape(-1)
        self.work = dist.all_reduce(Tensor._make(self.buffer, False), op="mean", async_op=True)

    def receive(self):
        self.work.wait()
        for p, end in zip(self.params, self.ends):
            grad = p._grad
            grad._data[...] = self.buffer[end - grad._data.size:end].reshape(grad._data.shape)
            grad._bump_version()
        self.work = None


class _Reducer:
    """Buckets and the state of one synchronized backward (Note [bucket launch])."""

    def __init__(self, names, params, cap_bytes):
        self.names = names
        self.params = params
        self.cap_bytes = cap_bytes
        self.armed = False             # the last forward asked for a synchronized backward
        self.rebuild_order = None      # arrival order of the first complete synchronized backward
        self.rebuilt = False
        self._build(range(len(params) - 1, -1, -1))
        reducer = weakref.ref(self)   # the parameters must not keep a dropped wrapper reducing

        def arrived(_, i):
            live = reducer()
            if live is not None:
                live._arrived(i)      # (a post-accumulate hook returns None, as torch requires)
        for i, p in enumerate(params):
            p.register_post_accumulate_grad_hook(lambda t, i=i: arrived(t, i))

    def _build(self, order):
        self.buckets = [_Bucket(indices, self.params)
                        for indices in assign_buckets(self.params, list(order), self.cap_bytes)]
        self.bucket_of = {i: k for k, b in enumerate(self.buckets) for i in b.indices}
        self._reset()

    def _reset(self):
        self.arrival = []              # parameter indices in the order their gradients arrived
        self.seen = [False] * len(self.params)    # a list: indexing it is cheaper than an array's
        self.n_seen = 0
        self.next_bucket = 0
        for bucket in self.buckets:
            bucket.missing = len(bucket.indices)

    def prepare(self, sync):
        """Called by each forward: check the last backward finished, rebuild buckets once."""
        if self.armed and self.n_seen:
            missing = [name for name, seen in zip(self.names, self.seen) if not seen]
            self._reset()
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new "
                "one: these parameters received no gradient in the last backward: "
                f"{', '.join(missing)}. Every parameter that requires grad must take part in the "
                "loss on every rank (numgrad's DistributedDataParallel has no "
                "find_unused_parameters); freeze the others with requires_grad_(False) before "
                "wrapping the module.")
        if self.rebuild_order is not None:
            self._rebuild()
        self.armed = sync

    def _rebuild(self):
        """Buckets in rank 0's arrival order, so that every rank has the same buckets."""
        shared = Tensor._make(np.array(self.rebuild_order, np.int64), False)
        dist.broadcast(shared, src=0)
        self._build(shared._data.tolist())
        self.rebuild_order, self.rebuilt = None, True

    def _arrived(self, i):
        if not self.armed:
            return
        k = self.bucket_of[i]
        if self.seen[i]:
            # a second AccumulateGrad of this parameter in the same backward (it was used in two
            # tape segments): fine while its bucket is unsent, since sending reads .grad then
            if k < self.next_bucket:
                raise RuntimeError(f"parameter {self.names[i]} received a second gradient in one "
                                   "backward after its bucket was sent")
            return
        self.seen[i] = True
        self.n_seen += 1
        self.arrival.append(i)
        self.buckets[k].missing -= 1
        for bucket in self.buckets[:self.next_bucket]:
            bucket.work.is_completed()
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].missing == 0:
            self.buckets[self.next_bucket].send()
            self.next_bucket += 1
        if self.next_bucket == len(self.buckets):
            for bucket in self.buckets:
                bucket.receive()
            if not self.rebuilt:
                self.rebuild_order = self.arrival
            self._reset()


class DistributedDataParallel(Module):
    """Wrap a module for data-parallel training: each rank runs it on its share of the batch, and
    after backward every parameter's .grad is the mean of the ranks' gradients, so each rank's
    optimizer takes the same step. Rank 0's parameters and buffers are copied to every rank at
    construction (after checking every rank built the same shapes) and its buffers before each
    forward; gradients travel in buckets of up to bucket_cap_mb MiB (Note [bucket launch]).
    Call numgrad.distributed.init() first; run under `mpiexec -n N`.

    >>> import numgrad as ng
    >>> import numgrad.distributed as dist
    >>> dist.init()
    >>> model = ng.nn.parallel.DistributedDataParallel(ng.nn.Linear(3, 1))
    >>> model(ng.ones(4, 3)).sum().backward()
    >>> model.module.weight.grad
    tensor([[4., 4., 4.]])
    """

    def __init__(self, module, bucket_cap_mb=25, broadcast_buffers=True):
        super().__init__()
        if bucket_cap_mb < 0:
            raise ValueError(f"bucket_cap_mb must be >= 0, got {bucket_cap_mb}")
        self.module = module
        # the buffers are found once, as torch does: walking the modules at each forward costs
        self._buffers_to_sync = list(module.buffers()) if broadcast_buffers else []
        self.require_backward_grad_sync = True
        named = [(name, p) for name, p in module.named_parameters() if p.requires_grad]
        if any(type(p._data) is not np.ndarray for _, p in named):
            raise RuntimeError("DistributedDataParallel supports CPU parameters only")
        dist.broadcast_parameters(module, root=0)
        self._reducer = _Reducer([name for name, _ in named], [p for _, p in named],
                                 int(bucket_cap_mb * 2**20)) if named else None

    def forward(self, *args, **kwargs):
        if self._reducer is not None:
            self._reducer.prepare(grad_mode.is_grad_enabled() and self.require_backward_grad_sync)
        if self._buffers_to_sync and dist.get_world_size() > 1:
            works = [dist.broadcast(b, src=0, async_op=True) for b in self._buffers_to_sync]
            for work in works:
                work.wait()
        return self.module(*args, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes of forwards run inside only accumulate local gradients; the first
        synchronized backward after it averages the accumulated totals.

        >>> import numgrad as ng
        >>> model = ng.nn.parallel.DistributedDataParallel(ng.nn.Linear(3, 1))
        >>> with model.no_sync():
        ...     model(ng.ones(1, 3)).sum().backward()
        >>> model(ng.ones(1, 3)).sum().backward()
        >>> model.module.weight.grad
        tensor([[2., 2., 2.]])
        """
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
