"""grad_fn objects: light views of tape nodes, made on demand, one per node while referenced."""
import re
import weakref

from .hooks import flag_in_running_backward, register_node_hook
from .ops import registry
from .tape import ACCUMULATE, PRE_HOOKS, PYTHON, segment_holding


class Node:
    """A backward node, as torch shows it: name(), next_functions, and for AccumulateGrad .variable."""

    __slots__ = ("_seg", "_id", "__weakref__")

    def __init__(self, seg, node_id):
        self._seg = seg
        self._id = node_id

    @property
    def _local(self):
        return self._id & 0xFFFFFFFF

    def name(self):
        name = type(self).__name__
        return "torch::autograd::" + name if name in _CPP_NODES else name

    @property
    def next_functions(self):
        """One (node, input_nr) per input torch counts (OpDef.listed); a named composite's node
        shows the inputs of torch's op (ops/named.py)."""
        seg = self._seg
        return tuple((None, 0) if producer < 0 else _shown_edge(seg, producer, slot)
                     for producer, slot in shown_edges(seg, self._id))

    @property
    def variable(self):
        if self._seg.op_of(self._local) != ACCUMULATE:
            raise AttributeError(f"'{self.name()}' object has no attribute 'variable'")
        return self._seg.leaves[self._id]

    def _sequence_nr(self):
        """The order nodes were recorded in, as torch's counter gives it (a later node has a
        larger number); AccumulateGrad's is the largest, 2**64 - 1, as in torch."""
        if self._seg.op_of(self._local) == ACCUMULATE:
            return 2 ** 64 - 1
        return self._id

    @property
    def metadata(self):
        return self._seg.python.setdefault(("metadata", self._id), {})

    def register_hook(self, hook):
        """hook(grad_inputs, grad_outputs) runs after this node computed its input gradients
        (None for an input that gets none) and may return a tuple replacing grad_inputs. An
        AccumulateGrad node calls it after .grad was updated, with grad_inputs = ()."""
        return self._register("post_hooks", hook, PYTHON)

    def register_prehook(self, hook):
        """hook(grad_outputs) runs before this node, after the tensor hooks of its outputs, and
        may return a tuple replacing grad_outputs."""
        return self._register("pre_hooks", hook, PRE_HOOKS)

    def _register(self, kind, hook, flag):
        """A leaf's AccumulateGrad keeps its hooks on the leaf, as torch keeps one AccumulateGrad
        per leaf: a later graph's AccumulateGrad of the same leaf runs them too."""
        if self._seg.op_of(self._local) == ACCUMULATE:
            return register_node_hook(self.variable._extras(), "accumulate_" + kind, hook)
        handle = register_node_hook(self._seg.node_hooks, (kind, self._id), hook)
        flag_in_running_backward(self._seg, self._id, flag)
        return handle

    def __call__(self, *grads):
        """This node's backward on the given output gradients: its input gradients
        (autograd/node_call.py)."""
        from .autograd.node_call import call_node
        return call_node(self._seg, self._id, grads)

    def __getattr__(self, name):
        """A custom Function's node is its ctx in torch: needs_input_grad, saved_tensors and what
        forward stored on ctx read through grad_fn. Other nodes show their saved values as
        _saved_<name> (node_saved.py). (Only reached when the usual lookup fails.)"""
        try:
            seg = object.__getattribute__(self, "_seg")
            node_id = object.__getattribute__(self, "_id")
        except AttributeError:
            raise AttributeError(name) from None
        code = seg.op_of(node_id & 0xFFFFFFFF)
        if not name.startswith("__") and registry.OPS[code].python_backward:
            ctx = seg.python[node_id]
            if hasattr(ctx, name):
                return getattr(ctx, name)
        elif name.startswith(("_saved_", "_raw_saved_")):
            from .node_saved import saved_attribute
            return saved_attribute(seg, node_id, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        """dir() lists what __getattr__ answers, as torch's nodes list their attributes: the
        saved values (`[a for a in dir(y.grad_fn) if a.startswith("_saved")]`), or a custom
        Function's ctx attributes."""
        names = set(object.__dir__(self))
        if registry.OPS[self._seg.op_of(self._local)].python_backward:
            names.update(dir(self._seg.python[self._id]))
        else:
            from .node_saved import attribute_names, saved_names
            for name in saved_names(self._seg, self._id):
                names.update(("_saved_" + name, "_raw_saved_" + name))
            names.update("_saved_" + name for name in attribute_names(self._seg, self._id))
        return sorted(names)

    def __repr__(self):
        # torch's custom Function nodes are Python classes of torch.autograd.function
        code = self._seg.op_of(self._local)
        where = "numgrad.autograd.function." if registry.OPS[code].python_backward else ""
        return f"<{where}{type(self).__name__} object at {hex(id(self))}>"


def shown_edges(seg, node_id):
    """The (producer node id, slot) of each input torch's node lists, -1 for none: OpDef.listed,
    or what a composite set in Segment.shown."""
    shown = seg.shown.get(node_id)
    if shown is not None:
        return list(shown)
    start, end = seg.inputs_of(node_id & 0xFFFFFFFF)
    listed = registry.OPS[seg.op_of(node_id & 0xFFFFFFFF)].listed
    positions = range(start, end) if listed is None else \
        (None if k is None else start + k for k in listed)
    return [(-1, 0) if e is None else (seg.e_node[e], seg.e_slot[e]) for e in positions]


def _shown_edge(seg, producer, slot):
    """(node, input_nr) of an edge as torch has it (through_promotes)."""
    pseg, producer, slot = through_promotes(seg, producer, slot)
    return (None, 0) if producer < 0 else (node_view(pseg, producer), slot)


def through_promotes(seg, node_id, slot):
    """(segment, node, slot) of a node as torch has it. The casts of an op of mixed float types
    (numgrad's PROMOTE nodes: of an operand, or of an in-place op's result back to the tensor's
    type) are torch's own doing inside the op, so an edge or a grad_fn shows the op; node -1
    where a cast operand has no node."""
    promote = registry.BY_NAME["promote"].code
    seg = segment_holding(seg, node_id)
    while seg.op_of(node_id & 0xFFFFFFFF) == promote:
        start, _ = seg.inputs_of(node_id & 0xFFFFFFFF)
        node_id, slot = seg.e_node[start], seg.e_slot[start]
        if node_id < 0:
            return seg, -1, 0
        seg = segment_holding(seg, node_id)
    return seg, node_id, slot


# Nodes torch implements in C++ by hand: name() gives their namespace (the class name does not).
_CPP_NODES = frozenset(("AccumulateGrad", "CopySlices", "CopyBackwards", "NotImplemented"))
_classes = {}


def _node_class(name):
    cls = _classes.get(name)
    if cls is None:
        cls = _classes[name] = type(name, (Node,), {"__slots__": ()})
    return cls


def node_name(seg, node_id):
    local = node_id & 0xFFFFFFFF
    code = seg.op_of(local)
    if registry.OPS[code].python_backward:
        return seg.python[node_id].node_name
    # a composite's node is named after the torch op it stands for (Note [named composites])
    return seg.names.get(node_id) or registry.OPS[code].node_name


def forward_name(node_name):
    """The op a node stands for, as torch names it in its saved-value messages: MulBackward0 ->
    Mul, CubeBackward -> Cube, SqueezeBackward1 -> Squeeze1 (only a first overload's 0 goes)."""
    return re.sub(r"Backward(\d*)$", lambda m: "" if m.group(1) in ("", "0") else m.group(1),
                  node_name)


def node_view(seg, node_id):
    if seg.views is None:
        seg.views = weakref.WeakValueDictionary()
    view = seg.views.get(node_id)
    if view is None:
        if seg.op_of(node_id & 0xFFFFFFFF) == ACCUMULATE:
            view = _accumulator_of(seg, node_id)
        else:
            view = _node_class(node_name(seg, node_id))(seg, node_id)
        seg.views[node_id] = view
    return view


def _accumulator_of(seg, node_id):
    """A leaf's AccumulateGrad: torch keeps one per leaf while something holds it, so the graphs
    recorded on the leaf after a backward (a new segment) show the same node object."""
    extra = seg.leaves[node_id]._extras()
    ref = extra.get("accumulate_node")
    node = ref() if ref is not None else None
    if node is None:
        node = _node_class("AccumulateGrad")(seg, node_id)
        extra["accumulate_node"] = weakref.ref(node)
    return node
