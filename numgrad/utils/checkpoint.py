"""Activation checkpointing (torch.utils.checkpoint): keep a region's inputs, not its activations,
and run the region again in backward to get back what its derivatives need.

Two variants, as in torch:
- non-reentrant (use_reentrant=False): the region runs under saved_tensors_hooks whose pack hook
  keeps a small _Holder in place of each saved tensor (Note [packed saved values]); the first
  unpack in a backward reruns the region under hooks that fill the holders, in save order. The
  unpacked values take the saved tensors' places in the original graph, so autograd.grad,
  backward(inputs=...) and create_graph work through it.
- reentrant (use_reentrant=True, torch's default when not passed): a custom Function that runs
  the region under no_grad and, in its backward, reruns it with grad mode on and calls backward
  on the result (a backward inside a backward). autograd.grad and backward(inputs=...) cannot
  reach through it.

The random state is restored before a rerun (preserve_rng_state), so dropout draws the same masks.
"""
import contextlib
import uuid
import warnings
import weakref
from collections import defaultdict

from .. import grad_mode
from ..dtypes import qualified_name
from ..autograd import Function, backward as _backward
from ..autograd.saved_hooks import saved_tensors_hooks
from ..lower import version_message
from ..node import forward_name
from ..random_state import get_rng_state, set_rng_state
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "noop_context_fn",
           "set_checkpoint_early_stop", "set_checkpoint_debug_enabled"]


class CheckpointError(RuntimeError):
    pass


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs):
    """Each tensor of a tuple detached, keeping its requires_grad; other values as they are."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)


# settings that blocks override over each call's own argument (None: no override)
_overrides = {"debug": None, "early_stop": None}


@contextlib.contextmanager
def _overriding(setting, value):
    previous, _overrides[setting] = _overrides[setting], value
    try:
        yield
    finally:
        _overrides[setting] = previous


def _setting(setting, argument):
    override = _overrides[setting]
    return argument if override is None else override


def set_checkpoint_debug_enabled(enabled):
    """Override checkpoint's `debug` flag inside the block (None: each call's own)."""
    return _overriding("debug", enabled)


def set_checkpoint_early_stop(enable):
    """Override checkpoint's `early_stop` for the checkpoints whose forward runs in the block."""
    return _overriding("early_stop", enable)


@contextlib.contextmanager
def _rng_restored(state):
    """Run the block from the random state `state` (None: as it is), then put back the state
    that was there before."""
    if state is None:
        yield
        return
    outer = get_rng_state()
    set_rng_state(state)
    try:
        yield
    finally:
        set_rng_state(outer)


# ---- reentrant ---------------------------------------------------------------------------------

_REENTRANT_GRAD = ("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                   "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                   "can either set use_reentrant=False, or call .backward() without passing the "
                   "`inputs` argument.")


class CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.fwd_rng_state = get_rng_state() if preserve_rng_state else None
        # non-tensor arguments kept as they are; tensors saved (version-checked)
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with grad_mode.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *args):
        if not grad_mode.state.checkpoint_valid:
            raise RuntimeError(_REENTRANT_GRAD)
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        with _rng_restored(ctx.fwd_rng_state):
            detached = detach_variable(tuple(inputs))
            with grad_mode.enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(out, g) for out, g in zip(outputs, args)
                 if isinstance(out, Tensor) and out.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(t.grad if isinstance(t, Tensor) else None for t in detached)


# ---- non-reentrant -----------------------------------------------------------------------------

class _Handle:
    pass


class _Holder:
    """What the graph keeps in place of one saved tensor: per backward (graph task), a handle to
    its recomputed value."""

    def __init__(self):
        self.handles = {}


class _StopRecomputation(Exception):
    pass


class _Shown(str):
    """A string that prints as itself: a dtype in a mismatch message, as torch prints one."""

    def __repr__(self):
        return str(self)


def _metadata(x):
    return {"shape": x.shape, "dtype": _Shown(qualified_name(x.dtype)), "device": x.device}


_DETERMINISM_CHECKS = {"default": _metadata, "none": lambda _: None}

_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint‑debug mode globally.
"""


class _Frame:
    """One checkpointed call: its inputs, its holders in save order, and per graph task the
    values its recomputation saved."""

    def __init__(self, recompute_fn, early_stop, metadata_fn, args):
        self.recompute_fn = recompute_fn
        self.early_stop = early_stop
        self.metadata_fn = metadata_fn
        # inputs kept with their versions: an in-place change before backward is an error
        self.args = args
        self.versions = [a._version if isinstance(a, Tensor) else None for a in args]
        self.weak_holders = []
        self.x_metadatas = []
        self.recomputed = defaultdict(weakref.WeakKeyDictionary)
        self.recomp_counter = defaultdict(int)
        self.is_recomputed = defaultdict(bool)
        self.forward_completed = False
        self.ignore_saved_mismatch = False

    def inputs(self):
        for k, (a, version) in enumerate(zip(self.args, self.versions)):
            if version is not None and a._version != version:
                # as torch's saved inputs, named after the node the tensor has now
                node = a.grad_fn
                owner = ("" if node is None else
                         f", which is output {a._slot} of {forward_name(node.name())},")
                raise version_message(a.dtype, tuple(a.shape), owner, a._version, version)
        return self.args

    def check_recomputed(self, gid):
        if self.ignore_saved_mismatch:
            return
        if len(self.weak_holders) != self.recomp_counter[gid]:
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.weak_holders)}\n"
                f"Number of tensors saved during recomputation: {self.recomp_counter[gid]}.\n"
                f"{_DEBUG_TIP}")
        different = []
        for idx, weak_holder in enumerate(self.weak_holders):
            holder = weak_holder()
            if holder is None:
                continue
            recomputed = self.recomputed[gid][holder.handles[gid]]
            if self.x_metadatas[idx] != self.metadata_fn(recomputed):
                different.append((idx, self.x_metadatas[idx], self.metadata_fn(recomputed)))
        if different:
            lines = "".join(f"tensor at position {idx}:\nsaved metadata: {saved}\n"
                            f"recomputed metadata: {now}\n" for idx, saved, now in different)
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{lines}.\n{_DEBUG_TIP}")


class _recomputation_hooks(saved_tensors_hooks):
    """During a rerun: each saved tensor goes to the holder at its position."""

    def __init__(self, frame_ref, gid):
        def pack(x):
            x = x.detach() if x.requires_grad else x
            frame = frame_ref()
            index = frame.recomp_counter[gid]
            frame.recomp_counter[gid] += 1
            if index >= len(frame.weak_holders):
                if not frame.forward_completed:
                    # a backward inside the checkpointed function, without early stop
                    frame.ignore_saved_mismatch = True
                    return x
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors "
                                      "during recomputation than during the original forward "
                                      f"pass.\n{_DEBUG_TIP}")
            holder = frame.weak_holders[index]()
            if holder is not None:
                holder.handles[gid] = _Handle()
                frame.recomputed[gid][holder.handles[gid]] = x
            if frame.early_stop and frame.recomp_counter[gid] == len(frame.weak_holders):
                raise _StopRecomputation
            return x

        super().__init__(pack, lambda x: x)


class _checkpoint_hooks(saved_tensors_hooks):
    """During the checkpointed forward: a holder in place of each saved tensor; the first unpack
    in a backward reruns the function."""

    def __init__(self, frame):
        def pack(x):
            holder = _Holder()
            frame.weak_holders.append(weakref.ref(holder))
            if frame.metadata_fn is not None:
                frame.x_metadatas.append(frame.metadata_fn(x))
            return holder

        def unpack(holder):
            gid = grad_mode.state.graph_task
            if gid is None:
                gid = uuid.uuid4().int          # outside a backward: a rerun of its own
            if not frame.is_recomputed[gid]:
                args = frame.inputs()
                try:
                    with _recomputation_hooks(weakref.ref(frame), gid), grad_mode.enable_grad():
                        frame.recompute_fn(*args)
                except _StopRecomputation:
                    pass
                frame.is_recomputed[gid] = True
                frame.check_recomputed(gid)
            if holder.handles.get(gid) is None:
                raise CheckpointError(
                    "torch.utils.checkpoint: Unpack is being triggered for a tensor that was "
                    "already unpacked once. If you are calling ctx.saved_tensors in backward, "
                    "make sure to do so only once. Otherwise please open an issue with details "
                    "on your use case.")
            value = frame.recomputed[gid][holder.handles[gid]]
            holder.handles[gid] = None
            return value

        super().__init__(pack, unpack)


def _checkpoint_without_reentrant(function, preserve_rng_state, context_fn, determinism_check,
                                  debug, early_stop, args, kwargs):
    if _setting("debug", debug):
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
    if determinism_check not in _DETERMINISM_CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_DETERMINISM_CHECKS)}, but "
                         f"got {determinism_check}")
    forward_context, recompute_context = context_fn()
    if not grad_mode.is_grad_enabled():
        return function(*args, **kwargs)
    rng_state = get_rng_state() if preserve_rng_state else None

    def recompute_fn(*inputs):
        with _rng_restored(rng_state), recompute_context:
            function(*inputs, **kwargs)

    frame = _Frame(recompute_fn, _setting("early_stop", early_stop),
                   _DETERMINISM_CHECKS[determinism_check], args)
    suppressed = True
    with _checkpoint_hooks(frame), forward_context:
        result = function(*args, **kwargs)
        suppressed = False
    if suppressed:
        raise RuntimeError("torch.utils.checkpoint: the forward context provided by context_fn "
                           "suppressed an exception raised during the checkpointed forward. This "
                           "is not supported because checkpoint cannot return a value for a "
                           "failed forward.")
    frame.forward_completed = True
    return result


# ---- public API --------------------------------------------------------------------------------

def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """Run `function(*args, **kwargs)` keeping only its inputs for backward: the activations it
    would save are recomputed by running it again when a backward needs them.

    >>> lin = numgrad.nn.Linear(3, 3)
    >>> x = numgrad.randn(2, 3, requires_grad=True)
    >>> y = checkpoint(lambda t: lin(t).relu(), x, use_reentrant=False)
    >>> y.sum().backward()
    """
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, debug,
                                         early_stop, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run `functions` (an nn.Sequential or a list of modules/functions) in order, in `segments`
    chunks of which all but the last are checkpointed.

    >>> net = numgrad.nn.Sequential(numgrad.nn.Linear(4, 4), numgrad.nn.ReLU(),
    ...                             numgrad.nn.Linear(4, 1))
    >>> y = checkpoint_sequential(net, 2, numgrad.randn(3, 4), use_reentrant=False)
    """
    from ..nn import Sequential
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
            "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not "
            "passed. use_reentrant=False is recommended, but if you need to preserve the current "
            "default behavior, you can pass use_reentrant=True. Refer to docs for more details "
            "on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
