"""autograd.backward and autograd.grad: check the request, lower, run, deliver the results."""
import functools
import itertools
import warnings
from collections.abc import Mapping

import numpy as np

from .. import grad_mode, tape
from ..engine import execute, name_failed_node, output_shape, release, serve_python_node
from ..hooks import run_hooks, run_node_post_hooks, run_node_pre_hooks
from ..lower import LoweredGraph, segments_of
from ..ops.apply import broadcast_shape
from ..tensor import Tensor
from . import differentiable


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _tensors(x, fn_name=None):
    """Outputs or inputs of grad()/backward() as a tuple of tensors: a tensor, a sequence, a dict
    of them (inputs only: its values); autograd.graph.GradientEdges stand for tensors."""
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, (tuple, list)):
        for e in x:
            if not isinstance(e, Tensor):
                break
        else:
            return tuple(x)
    if fn_name is not None and isinstance(x, Mapping):
        if type(x) is not dict:
            raise TypeError(f"`inputs` argument to `{fn_name}()` must be a dict, not "
                            f"{type(x).__name__}. Other Mapping types are not supported.")
        x = x.values()
    from .graph import GradientEdge, edge_tensor
    if isinstance(x, GradientEdge):
        return (edge_tensor(x),)
    return tuple(edge_tensor(e) if isinstance(e, GradientEdge) else e for e in x)


def _root_node(t):
    """(segment, node id, output) of a root; a leaf root gets its AccumulateGrad node now."""
    if t._node >= 0:
        return t._seg, t._node, t._slot
    if t._node == tape.STALE_VIEW:
        t.grad_fn               # raises torch's error for the view
    current = tape.current_segment()
    node = current.acc_of.get(id(t)) or current.add_leaf(t)
    return current, node, 0


def _seed(i, root, grad, create_graph):
    """The gradient seeding root i, checked as torch's _make_grads (before the roots' and the
    inputs' checks: a root that needs no gradient gets none)."""
    if not isinstance(root, Tensor):
        raise AssertionError("Expected output to be a numgrad.Tensor")    # torch's words
    if grad is None:
        if not root._requires_grad:
            return None
        if root._data.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        return Tensor._make(np.ones_like(root._data), False)      # on the root's device
    if not isinstance(grad, Tensor):
        raise TypeError(f"gradients can be either Tensors or None, but got {type(grad).__name__}")
    if grad._data.shape != root._data.shape:
        raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                           f"{grad.shape!r} and output[{i}] has a shape of {root.shape!r}.")
    if grad.device != root.device:
        raise RuntimeError(f"invalid gradient at index {i} - expected device {root.device} but "
                           f"got {grad.device}")
    if grad._data.dtype != root._data.dtype:
        grad = grad.to(root._data.dtype) if create_graph else \
            Tensor._make(grad._data.astype(root._data.dtype), False)
    return grad


def _batch_size(roots, grad_roots):
    """The batch size of is_grads_batched's grad_outputs, checked as torch's _make_grads and
    vmap check them (their words; torch prints an element's shape without its first dimension)."""
    sizes = []
    for i, (r, g) in enumerate(zip(roots, grad_roots)):
        if not isinstance(r, Tensor):
            raise AssertionError("Expected output to be a numgrad.Tensor")
        if g is None:
            if r._data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if r.ndim == 0:
                raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some "
                                 "input, but that input is a Tensor of dimensionality 0 so "
                                 "expected in_dim to satisfy 0 <= in_dim < 0.")
            raise NotImplementedError("is_grads_batched=True needs a grad_output for each output")
        if not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        if g.ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        if tuple(g.shape[1:]) != tuple(r.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output "
                "as the batch dimension. The sizes of the remaining dimensions are expected to "
                "match the shape of corresponding output, but a mismatch was detected: "
                f"grad_output[{i}] has a shape of {type(r.shape)(g.shape[2:])!r} and output[{i}] "
                f"has a shape of {r.shape!r}. If you only want some tensors in `grad_output` to "
                "be considered batched, consider using vmap.")
        sizes.append(int(g.shape[0]))
    if len(set(sizes)) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


def _check_roots(roots):
    for t in roots:
        if not isinstance(t, Tensor):
            raise AssertionError("Expected output to be a numgrad.Tensor")    # torch's words
    for i, t in enumerate(roots):
        _collect_edge(t)
        if not t._requires_grad or t._node == tape.NO_GRAD_VIEW:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a "
                               "grad_fn")


def _collect_edge(t):
    """What torch's grad_fn() does to a view when a backward takes its edge: read anew (Note
    [views changed unrecorded] in ops/views.py), or torch's error for a stale one."""
    if t._extra is not None and t._node != tape.LEAF:
        t.grad_fn


def _check_inputs(inputs, accumulate=False):
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError("all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(t).__name__}")
        _collect_edge(t)
        if not t._requires_grad:
            # backward() fills an input's .grad through retain_grad, whose error comes first
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False"
                               if accumulate else
                               "One of the differentiated Tensors does not require grad")


def _targets(graph, tensors):
    """Positions in the graph whose buffers hold each tensor's gradient (a leaf may have an
    AccumulateGrad in several segments), as a list of (position, output) lists."""
    result = []
    for t in tensors:
        if t._node >= 0:
            if t._seg.serial in {s.serial for s in graph.segments}:
                result.append([(int(graph.index_of([t._node])[0]), t._slot)])
            else:
                result.append([])
        else:
            found = [seg.acc_of[id(t)] for seg in graph.segments if id(t) in seg.acc_of]
            result.append([(int(p), 0) for p in graph.index_of(found)] if found else [])
    return result


# Callables observer(graph) told about every lowered graph after it ran (the trace tools use it).
observers = []

def _unused_error(index):
    return RuntimeError(f"The differentiated Tensor at index {index} appears to not have been used "
                        "in the graph. Set allow_unused=True if this is the desired behavior.")


def plan_backward(roots, inputs=None):
    """The LoweredGraph a backward of `roots` (pruned to `inputs`) runs, planned and not run.

    Besides the plan it carries `root_slots` ((position, output) of each root) and `wanted` (per
    input, the places holding its gradient: a leaf may have an AccumulateGrad in several segments).
    """
    root_nodes = [_root_node(t) for t in roots]
    graph = LoweredGraph(segments_of({id(s): s for s, _, _ in root_nodes}.values()))
    graph.ready_order = grad_mode.state.ready_order
    root_index = graph.index_of([n for _, n, _ in root_nodes])
    graph.root_slots = [(int(i), out) for i, (_, _, out) in zip(root_index, root_nodes)]
    graph.wanted = _targets(graph, inputs) if inputs is not None else None
    places = [place for places in graph.wanted or () for place in places]
    # buffers are shared unless something reads them all afterwards (the CUDA engine's level
    # order, anomaly mode, backward traces): Note [buffer reuse] in kernels/plan.py
    keep = None if observers or graph.any_cuda else graph.read_after_run(places)
    graph.plan(root_index, [p for p, _ in places], keep)
    graph.captures = frozenset(int(graph.out_ptr[p]) + out for p, out in places)
    if inputs is not None and not places:
        graph.run_only_roots()
    return graph


def quiet_grads(root, grad, inputs, create_graph):
    """The gradients of `inputs` (tensors, or GradientEdge handles: graph.edge_tensor) in a
    backward of `root` seeded with `grad`, as autograd.grad(retain_graph=True, allow_unused=True)
    gives them, but run without the tensor hooks and retained gradients on the way: they belong
    to the backward that asks (Note [hooks of a named composite] in engine.py), which runs these
    nodes again."""
    graph = plan_backward([root], inputs)
    graph.flags &= ~np.asarray(tape.PRE_HOOKS, graph.flags.dtype)
    graph.leaves_done, graph.retained_done, graph.captured = set(), set(), {}
    seeds = [(index, out, grad) for index, out in graph.root_slots if graph.needed[index]]
    with grad_mode.set_grad_enabled(bool(create_graph)):
        read = _run(graph, seeds, create_graph, tape.recording_segment())
    found = [[g for g in (read(p, o) for p, o in places) if g is not None]
             for places in graph.wanted]
    return [_sum(grads) if grads else None for grads in found]


def run_backward(roots, grad_roots, retain_graph, create_graph, inputs, accumulate,
                 allow_unused=True, batched=False):
    """The shared core of backward() and grad(). Returns, for grad, the gradients of each input as
    a list of Tensors (one per place the graph holds it; empty when it received none); batched
    (grad_roots with a leading batch dimension), one such list per batch element: the graph is
    planned and checked once, then run once per element.

    Every check that can fail runs before the first node does (Note [errors change nothing]),
    in torch's order: the gradients, the roots, the inputs.
    """
    if grad_roots is None:
        grad_roots = (None,) * len(roots)
    # torch pairs them up (and ignores the rest), checks the pairs, then the counts
    if batched:
        size = _batch_size(roots, grad_roots)
        seed_sets = [[_seed(i, r, g[b], create_graph) for i, (r, g) in
                      enumerate(zip(roots, grad_roots))] for b in range(size)]
    else:
        seed_sets = [[_seed(i, r, g, create_graph) for i, (r, g) in enumerate(zip(roots, grad_roots))]]
    if len(grad_roots) < len(roots):
        raise RuntimeError(f"got {len(roots)} tensors and {len(grad_roots)} gradients")
    _check_roots(roots)
    if inputs is not None:
        _check_inputs(inputs, accumulate)
    if retain_graph is None:
        retain_graph = create_graph
    graph = plan_backward(roots, inputs)
    current = tape.recording_segment()       # after planning: a leaf root may have started one
    wanted = graph.wanted
    if not allow_unused:
        for i, places in enumerate(wanted):
            if not any(graph.needed[p] for p, _ in places):
                raise _unused_error(i)
    if accumulate and inputs is not None:
        _run_input_nodes(graph)
    _check_saved(graph)
    if accumulate and inputs is not None:
        for t in inputs:
            if t._node >= 0:
                t.retain_grad()      # torch fills a non-leaf input's .grad through retain_grad
    # As in torch, the backward (hooks, custom backwards, accumulation) runs with grad mode on
    # exactly when it is to be recorded.
    per_element = []
    state = grad_mode.state
    outer_task = (state.graph_task, state.checkpoint_valid, state.running_graph)
    state.checkpoint_valid = inputs is None
    state.running_graph = graph
    graph.accumulates = accumulate
    try:
        with grad_mode.set_grad_enabled(bool(create_graph)):
            for seeds in seed_sets:
                state.graph_task = next(_graph_tasks)
                per_element.append(_run_once(graph, seeds, create_graph, current, inputs, wanted,
                                             accumulate, allow_unused))
    finally:
        state.graph_task, state.checkpoint_valid, state.running_graph = outer_task
    if not retain_graph:
        release(graph)
    return per_element if batched else per_element[0]


# Note [non-leaf inputs of backward]: torch's backward(inputs=...) marks the node of each
# non-leaf input as needed, so it runs like any other: its hooks, a custom Function's backward (its
# results go nowhere), and its saved values are freed after, though none of its own inputs wants
# a gradient. autograd.grad only captures the gradient there; nothing runs the node.
def _run_input_nodes(graph):
    nodes = [p for places in graph.wanted for p, _ in places
             if graph.needed[p] and not graph.runnable[p] and graph.op[p] != tape.ACCUMULATE]
    graph.input_nodes = frozenset(nodes)
    for p in nodes:
        graph.runnable[p] = True
        graph.flags[p] |= tape.PRE_HOOKS        # served in Python: engine.run_without_inputs


def _check_saved(graph):
    """torch's errors for freed or changed saved values, before anything runs; in anomaly mode
    with torch's warning naming the node that would have met it."""
    index = None
    try:
        graph.check_saved()
        for index in graph.python_nodes():
            seg, node = graph.locate(int(index))
            seg.python[node].check_saved()       # custom Functions save outside the tape
    except RuntimeError:
        name_failed_node(graph, graph.failed_node if index is None else int(index))
        raise


# Note [graph tasks]: each run of a lowered graph gets a number of its own (grad_mode.state
# .graph_task while it runs), as torch's graph task id: a checkpoint recomputes once per run.
_graph_tasks = itertools.count()


def _run_once(graph, seeds, create_graph, current, inputs, wanted, accumulate, allow_unused):
    """One run of the planned graph from one set of seeds (see run_backward)."""
    # a root that leads to no input gets no seed (Note [roots that lead nowhere] in kernels/plan.py)
    seed_list = [(index, out, s) for (index, out), s in zip(graph.root_slots, seeds)
                 if graph.needed[index]]
    graph.leaves_done, graph.retained_done = set(), set()
    graph.captured = {}
    graph.leaf_step = functools.partial(_leaf_step, accumulate, create_graph)   # no cycle
    graph.retain_step = functools.partial(_retain_step, create_graph)
    read = _run(graph, seed_list, create_graph, current)
    for observer in list(observers):
        observer(graph, read)
    results = None
    if wanted is not None and not accumulate:
        results = [[g for g in (read(p, o) for p, o in places) if g is not None]
                   for places in wanted]
        if not allow_unused:
            # reachable, but every path to it carried an undefined gradient (torch too)
            for i, found in enumerate(results):
                if not found:
                    raise _unused_error(i)
        # an input's total, after a leaf's hooks (unless they ran when its node did)
        results = [[_leaf_hooks(t, _sum(found)) if t._node < 0 and id(t) not in graph.leaves_done
                    else _sum(found)] if found else [] for t, found in zip(inputs, results)]
    if accumulate:
        _accumulate(graph, read, inputs, wanted, create_graph)
    _retained(graph, read, create_graph)
    return results


def _run(graph, seed_list, create_graph, current):
    """Run the lowered graph; returns read(position, output) -> the gradient Tensor or None."""
    # Whatever the backward records (all of it under create_graph; a hook that enables grad)
    # goes into a fresh segment: the lowered segments keep the size they were lowered with, and
    # the forward's segment can be freed while .grad holds the new one.
    tape.close_segment(current)
    if create_graph:
        grads = differentiable.execute(graph, seed_list)
        grads.update(graph.captured)
        return lambda index, out: grads.get(int(graph.out_ptr[index]) + out)
    if graph.any_cuda and graph.on_cuda[graph.needed].any():
        # CUDA nodes: the GPU engine runs the same plan and reads its own buffers (numgrad/cuda)
        from ..cuda import engine as cuda_engine
        buffers = cuda_engine.execute(graph, [(i, o, s._data) for i, o, s in seed_list])
        return cuda_engine.reader(graph, buffers)
    buffers = execute(graph, [(i, o, s._data) for i, o, s in seed_list], serve_python_node)
    return _buffer_reader(graph, buffers)


def _buffer_reader(graph, buffers):
    def read(index, out):
        slot = int(graph.out_ptr[index]) + out
        if slot in graph.captured:
            return graph.captured[slot]
        if not buffers.written[slot]:
            return None
        view = buffers.view(slot, output_shape(graph, index, out))
        # intermediate buffers are reused scratch: copy; leaf results are fresh and can be shared
        return Tensor._make(view if graph.buf_kind[slot] >= 2 else view.copy(), False)
    return read


def _leaf_step(accumulate, create_graph, graph, index, grad):
    """What a leaf's AccumulateGrad does when the engine runs it (a leaf with hooks: see
    LoweredGraph._flag_hooked_leaves): backward() accumulates into .grad there, hooks and all;
    grad() runs the leaf's tensor hooks on the gradient it captures. Returns that gradient."""
    seg, node = graph.locate(index)
    leaf = seg.leaves[node]
    graph.leaves_done.add(id(leaf))
    if not accumulate or (graph.wanted is not None and index not in graph.targets):
        # grad(), or a lone leaf root that leads to none of backward's inputs: its hooks run,
        # its AccumulateGrad does not (Note [roots that lead nowhere] in kernels/plan.py)
        return _leaf_hooks(leaf, grad)
    if leaf._requires_grad:
        _accumulate_into(leaf, grad, create_graph)
    return grad


def _leaf_hooks(t, grad):
    """A leaf's tensor hooks see its total gradient first, in backward() and grad() alike."""
    hooks = t._extra.get("hooks") if t._extra else None
    return run_hooks(hooks, grad) if hooks else grad


def _accumulate_into(t, grad, create_graph):
    """AccumulateGrad: .grad = grad when absent, else .grad += grad: out of place under
    create_graph, so the old .grad's graph is kept; otherwise in place, as torch does even when
    .grad has a graph of its own (its version counter tells the saved-value checks)."""
    grad = _leaf_hooks(t, grad)
    extra = t._extra or {}
    if extra.get("accumulate_pre_hooks"):
        grad, = run_node_pre_hooks(extra["accumulate_pre_hooks"], (grad,))
        if grad is None:
            return
    if t._grad is None:
        if create_graph and grad._requires_grad:
            # torch's clone_obey_contract: an empty tensor copy_'d from the gradient, so that
            # .grad has its own node (CopyBackwards) on the gradient's graph
            from ..creation import empty
            with grad_mode.enable_grad():
                t._grad = empty(tuple(t.shape), dtype=t.dtype, device=t.device).copy_(grad)
        else:
            t._grad = _in_leaf_layout(t, grad)
    elif create_graph:
        t._grad = t._grad + grad
    else:
        _check_grad_to_add_into(t)
        if t._grad._data.shape != grad._data.shape:
            # a leaf whose .data changed shape since: torch's in-place add refuses the gradient
            shape = broadcast_shape(t._grad._data.shape, grad._data.shape)
            if shape != t._grad._data.shape:
                raise RuntimeError(f"output with shape {list(t._grad._data.shape)} doesn't match "
                                   f"the broadcast shape {list(shape)}")
        t._grad._data += grad._data
        t._grad._bump_version()
    for hook in list(extra.get("post_accumulate_hooks", {}).values()):
        result = hook(t)
        if result is not None:
            if not isinstance(result, Tensor):         # torch's two checks, in its order
                raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")
    if extra.get("accumulate_post_hooks"):
        run_node_post_hooks(extra["accumulate_post_hooks"], (), (grad,))


def _obeys_layout(g, data):
    """torch's gradient layout contract: a leaf's gradient has the leaf's strides, where a
    dimension has more than one element (host arrays; others are not checked)."""
    return (type(g) is not np.ndarray or type(data) is not np.ndarray or g.strides == data.strides
            or all((n == 1 and a != 0) or a == b
                   for n, a, b in zip(g.shape, g.strides, data.strides)))


def _in_leaf_layout(t, grad):
    """The gradient a leaf's .grad starts as: torch's AccumulateGrad keeps it when it obeys the
    layout contract, else stores a copy in the leaf's layout (clone_obey_contract): never a
    hook's transposed or expanded view."""
    if _obeys_layout(grad._data, t._data):
        return grad
    copy = np.empty_like(t._data)      # the leaf's own layout
    copy[...] = grad._data
    return Tensor._make(copy, False)


_OVERLAP_ERROR = ("unsupported operation: more than one element of the written-to tensor refers "
                  "to a single memory location. Please clone() the tensor before performing the "
                  "operation.")
_layout_warning = {"given": False}      # torch warns once a process (TORCH_WARN_ONCE)


def _check_grad_to_add_into(t):
    """Before AccumulateGrad adds into a .grad the user set: torch refuses one whose elements
    share memory (an expanded tensor), and warns once when its layout is not the leaf's."""
    g = t._grad._data
    if _obeys_layout(g, t._data):
        return
    from .anomaly import _user_stacklevel
    if any(n > 1 and s == 0 for n, s in zip(g.shape, g.strides)):
        raise RuntimeError(_OVERLAP_ERROR)
    if not _layout_warning["given"]:
        _layout_warning["given"] = True
        warnings.warn(
            "grad and param do not obey the gradient layout contract. This is not an error, but "
            f"may impair performance.\ngrad.sizes() = {list(g.shape)}, strides() = "
            f"{[s // g.itemsize for s in g.strides]}\nparam.sizes() = {list(t._data.shape)}, "
            f"strides() = {[s // t._data.itemsize for s in t._data.strides]}", UserWarning,
            stacklevel=_user_stacklevel())


def _sum(grads):
    total = grads[0]
    for g in grads[1:]:
        total = total + g
    return total


def _accumulate(graph, read, inputs, wanted, create_graph):
    """Accumulate the leaves that the run left to now: those without hooks, and those with an
    AccumulateGrad in several segments, whose parts are summed first (torch has one per leaf)."""
    done = graph.leaves_done
    if inputs is None:
        parts = {}
        for k, seg in enumerate(graph.segments):
            for node, leaf in seg.leaves.items():
                index = int(graph.starts[k]) + (node & 0xFFFFFFFF)
                # a leaf set to requires_grad=False after the graph was built gets nothing, as
                # torch's AccumulateGrad checks at run time
                if graph.needed[index] and leaf._requires_grad and id(leaf) not in done:
                    g = read(index, 0)
                    if g is not None:
                        parts.setdefault(id(leaf), (leaf, []))[1].append(g)
        for leaf, grads in parts.values():
            _accumulate_into(leaf, _sum(grads), create_graph)
        return
    for t, places in zip(inputs, wanted):
        if t._node >= 0 or id(t) in done:
            continue          # a non-leaf input retains its grad (see backward); a leaf given
        done.add(id(t))       # twice accumulates once, as torch
        grads = [g for g in (read(p, o) for p, o in places) if g is not None]
        if grads:
            _accumulate_into(t, _sum(grads), create_graph)


def _retain_step(create_graph, graph, index, grads):
    """torch's retains_grad hook, when a node runs: each retained output's gradient (after its
    tensor hooks) goes into its tensor's .grad, so hooks that run later see it."""
    seg, node = graph.locate(index)
    for out, g in enumerate(grads):
        ref = seg.retained.get((node, out))
        if ref is not None:
            graph.retained_done.add((index, out))
            _store_retained(ref(), node, g, create_graph)


def _retained(graph, read, create_graph):
    """The retained gradients of the nodes that ran without Python (the CUDA engine's)."""
    for k, seg in enumerate(graph.segments):
        for (node, out), ref in list(seg.retained.items()):
            index = int(graph.starts[k]) + (node & 0xFFFFFFFF)
            if graph.needed[index] and (index, out) not in graph.retained_done:
                _store_retained(ref(), node, read(index, out), create_graph)


def _store_retained(t, node, g, create_graph):
    # gone, changed in place since (another node now), or no gradient; a tensor detached in place
    # since keeps its retains_grad hook on the node, as in torch
    if t is None or (t._node >= 0 and t._node != node) or g is None:
        return
    if t._grad is None:
        # torch's retains_grad hook stores a clone (recorded under create_graph)
        t._grad = g.clone() if create_graph else Tensor._make(g._data.copy(), False)
    else:
        t._grad = t._grad + g


_CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter "
    "and its gradient which can cause a memory leak. We recommend using autograd.grad when "
    "creating the graph to avoid this. If you have to use this function, make sure to reset the "
    ".grad fields of your parameters to None after use to break the cycle and avoid the leak.")
cycle_warning = {"given": False}     # torch gives it once per process (TORCH_WARN_ONCE)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Accumulate the gradients of tensors w.r.t. the graph leaves (or `inputs`) into .grad.

    >>> x = numgrad.tensor(2., requires_grad=True)
    >>> numgrad.autograd.backward(x * x)
    >>> x.grad
    tensor(4.)
    """
    if grad_variables is not None:
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.", FutureWarning,
                      stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both "
                               "passed to `backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    tensors = _tensors(tensors)
    grad_tensors = _as_tuple(grad_tensors)
    if not tensors:
        return          # torch: nothing to do
    if inputs is not None:
        inputs = _tensors(inputs, "backward")
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if create_graph and not cycle_warning["given"]:
        cycle_warning["given"] = True
        warnings.warn(_CYCLE_WARNING, UserWarning, stacklevel=2)
    run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of outputs w.r.t. inputs, returned as a tuple; .grad is left untouched.

    is_grads_batched: each grad_output has a leading batch dimension and each result gets it too
    (a batch of vector-Jacobian products: the graph is planned once and run per element).

    >>> x = numgrad.tensor(3., requires_grad=True)
    >>> numgrad.autograd.grad(x * x, x)
    (tensor(6.),)
    """
    keys = tuple(inputs) if type(inputs) is dict else None     # a dict in, a dict out
    outputs = _tensors(outputs)
    inputs = _tensors(inputs, "grad")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    allow_unused = bool(allow_unused) or materialize_grads
    if len(inputs) == 0:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to "
                      "True). To accumulate gradient for other parts of the graph, please use "
                      "numgrad.autograd.backward.", FutureWarning, stacklevel=2)
    if not outputs:                 # torch: no output reaches any input
        _check_inputs(inputs)
        if not allow_unused:
            raise _unused_error(0)
        return tuple(_input_grad(t, [], materialize_grads, create_graph) for t in inputs)
    results = run_backward(outputs, _as_tuple(grad_outputs), retain_graph, create_graph, inputs,
                           accumulate=False, allow_unused=allow_unused, batched=is_grads_batched)
    if not is_grads_batched:
        result = tuple(_input_grad(t, grads, materialize_grads, create_graph)
                       for t, grads in zip(inputs, results))
        return dict(zip(keys, result)) if keys is not None else result
    out = []
    for k, t in enumerate(inputs):
        rows = [_input_grad(t, element[k], True) for element in results]
        if not any(element[k] for element in results):
            # torch materializes an unused input's gradient after the batch: its own shape
            out.append(_input_grad(t, [], True, create_graph) if materialize_grads else None)
        else:
            from ..ops.shape import stack
            out.append(stack(rows) if create_graph else
                       Tensor._make(np.stack([r._data for r in rows]), False))
    return dict(zip(keys, out)) if keys is not None else tuple(out)


def _input_grad(t, grads, materialize, create_graph=False):
    """One input's gradient (run_backward summed it and ran a leaf's hooks); a materialized one
    is zeros that require grad under create_graph, as torch's zeros_like."""
    if grads:
        return grads[0]
    if materialize:
        return Tensor._make(np.zeros_like(t._data), create_graph)
    return None
