"""The op registry: one entry per op holds its forward, what it saves and its derivative.

Everything else is derived from an entry or sits beside it (Note [one source per op]):
- the NumPy forward runs in `apply`, which also records the node on the tape;
- elementwise ops give their derivative as one formula per input, in plain arithmetic and the
  functions of `numgrad.ops.fmath`. The same formula is compiled by Numba into the CPU kernel and
  the CUDA kernel, and evaluated on Tensors as the differentiable VJP used by create_graph;
- other ops name a hand-written kernel (`kernels/cpu.py`, twins in `kernels/cuda.py`) and give a
  VJP written in numgrad ops beside it. A test checks that kernel and VJP agree for every op.
"""
import inspect

import numpy as np

from ..tape import FLOAT64

OPS = []          # indexed by op code; code 0 is AccumulateGrad
BY_NAME = {}

# Names a derivative formula may take: the upstream gradient, inputs by position, the output.
INPUT_NAMES = ("x", "y", "z")


class OpDef:
    """One op. `forward(*arrays, **attrs)` returns an array, or a tuple of arrays when n_out is
    not 1. n_in=None / n_out=None: as many inputs / outputs as each call has (stack, split)."""

    def __init__(self, name, forward, *, node_name=None, n_in=1, n_out=1, grads=None, kernel=None,
                 vjp=None, saves=(), meta=None, differentiable=True, python_backward=False,
                 view=False, readers=None, mixed_floats=False, listed=None, saved_names=None,
                 grad_outputs=None, unpack_order=None, list_input=False, attributes=None):
        self.name = name
        self.node_name = node_name or name.capitalize() + "Backward0"
        self.forward = forward
        self.n_in = n_in
        self.n_out = n_out
        self.grads = grads            # elementwise: one formula per input (None: not differentiable)
        self.kernel = kernel          # otherwise: the name of the hand-written kernel
        self.vjp = vjp                # otherwise: vjp(ctx, *grads) -> input grads, in numgrad ops
        self.differentiable = differentiable
        self.elementwise = grads is not None
        # the inputs torch counts as the node's (next_functions, a node hook's grad_inputs), by
        # position: as given, else those with a derivative formula, else all (None). The others
        # (a condition, index positions, class targets) are operands torch's derivatives do not
        # differentiate, which numgrad records as inputs that need no gradient.
        if listed is None and grads is not None and any(f is None for f in grads):
            listed = tuple(k for k, f in enumerate(grads) if f is not None)
        self.listed = listed
        # how many leading outputs torch's node has: the others (the indices of max(dim), sort,
        # topk) are no outputs of its node, so node hooks do not see them (None: every output)
        self.grad_outputs = grad_outputs
        self.python_backward = python_backward   # custom Functions: no kernel, Python runs them
        # torch's op takes its inputs as one tensor list (cat, stack): its node computes every
        # input's gradient once any is wanted, so its post-hooks see a constant's gradient too
        self.list_input = list_input
        # what every node of the op keeps besides tensors, by torch's name (add's alpha=1); a
        # call records its own with ops/apply.show_attributes
        self.attributes = attributes or {}
        self.view = view              # outputs share the input's memory (Note [views] in views.py)
        # inputs of another float type than the output are allowed only where the kernel knows
        # (a cast) or never reads them (a named composite's saved inputs): every other
        # hand-written kernel reads its inputs as the node's one float type (apply._record)
        self.mixed_floats = mixed_floats
        self.meta = meta              # meta(attrs) -> (ints, floats) appended after the shapes
        # the parameter names of each formula: what it reads (g, x/y/z, out, attributes)
        self.grad_params = tuple(None if f is None else tuple(inspect.signature(f).parameters)
                                 for f in (grads or ()))
        if grads is not None:
            saves, self.attr_names = _saves_of_formulas(grads, n_in)
        else:
            self.attr_names = ()
        self.saves = tuple(saves)
        # Where each saved value comes from: input i as i, output j as ~j.
        self.save_index = tuple(_value_index(name_, n_in) for name_ in self.saves)
        # torch's name of each saved value, shown as grad_fn._saved_<name> (None: not shown)
        self.saved_names = (tuple(saved_names) if saved_names is not None else
                            tuple(_torch_saved_name(name_, self.elementwise and n_in == 2)
                                  for name_ in self.saves))
        # The order in which torch's node unpacks its saved values, as positions: which of two
        # values changed in place the version error names. torch's generated nodes unpack the
        # saved inputs by name (other before self, mat2 before self), then the outputs; where
        # a saved input is not shown, in the order saved unless `unpack_order` says.
        inputs = [k for k, where in enumerate(self.save_index) if where >= 0]
        names = [self.saved_names[k] for k in inputs]
        if None not in names:
            inputs.sort(key=lambda k: self.saved_names[k])
        self.unpack_order = unpack_order or tuple(inputs) + tuple(
            k for k, where in enumerate(self.save_index) if where < 0)
        # the saved values torch keeps as bool tensors (where's condition, masked_fill's mask),
        # which the kernels read in the node's float type
        self.saved_masks = tuple(name_ in ("condition", "mask") for name_ in self.saved_names)
        # Per saved value, the inputs whose derivative reads it, as a bit mask: from the formulas'
        # parameters; for a hand-written kernel from `readers` (per saved value, those inputs'
        # positions), else ALL_INPUTS. As torch saves an input only for the gradients that will be
        # computed, an input that only the derivatives of inputs needing no gradient read is not
        # version-checked: changing it in place later is no error. An output torch saves always
        # (x ** c keeps its result, which only c's derivative reads).
        if grads is not None:
            readers = [_readers(name_, self.grad_params) for name_ in self.saves]
        elif readers is not None:
            readers = [sum(1 << k for k in inputs) for inputs in readers]
        else:
            readers = [ALL_INPUTS] * len(self.saves)
        self.save_readers = tuple(ALL_INPUTS if where < 0 else r
                                  for where, r in zip(self.save_index, readers))
        # the meta of an elementwise node whose output is 0-d: every shape is ()
        self.scalar_meta = [0] * ((n_in or 0) + (n_out or 0))
        # the constant part of this op's packed counts (Note [packed counts] in tape.py), and all
        # of them for an elementwise node with a 0-d output (its meta: n_in + n_out empty shapes)
        self.counts = (n_in or 0) | (n_out or 0) << 12 | len(self.saves) << 24
        self.scalar_counts = self.counts | len(self.scalar_meta) << 36
        # (where each saved value comes from, the inputs whose derivative reads it)
        self.save_plan = tuple(zip(self.save_index, self.save_readers))
        self.code = len(OPS)
        # bit k: input k's derivative is the upstream gradient itself, which the engine can pass
        # on in the same buffer (Note [buffer reuse] in kernels/plan.py); copy_bwd's ops (views,
        # reshapes, named composites) hand input 0 the same elements in the same order
        self.passes_through = (1 if kernel == "copy_bwd" else
                               sum(1 << k for k, f in enumerate(grads or ()) if _is_identity(f)))
        # the kind (float32, float64) of such a node: host, and nothing but the op's code varies;
        # set for the ops whose 0-d nodes apply.py records on its scalar path
        self.scalar_kinds = ((self.code, self.code | FLOAT64)
                             if self.elementwise and meta is None and n_out == 1 and not view
                             else None)
        OPS.append(self)
        BY_NAME[name] = self

    def kept(self, wanted):
        """Per saved value, whether a node whose inputs in the bit mask `wanted` need gradients
        keeps it: some derivative that will be computed reads it (Note [values not saved] in
        ops/apply.py)."""
        return tuple(readers & wanted != 0 for readers in self.save_readers)

    def __repr__(self):
        return f"<op {self.name} #{self.code}>"


ALL_INPUTS = -1


def _is_identity(formula):
    """Whether a derivative formula is g -> g (add's, sub's first input's, ...)."""
    if formula is None or inspect.signature(formula).parameters.keys() != {"g"}:
        return False
    marker = object()
    try:
        return formula(marker) is marker
    except TypeError:
        return False


def pass_through_table():
    """passes_through of every op, by op code (for the compiled plan)."""
    global _pass_through
    if len(_pass_through) != len(OPS):
        _pass_through = np.array([op.passes_through for op in OPS], np.int64)
    return _pass_through


_pass_through = np.zeros(0, np.int64)


def unpack_ranks(codes, positions):
    """Where saved value `positions` of nodes of op `codes` (arrays) come in their op's
    unpack_order, as an array: a position past an op's known saved values ranks as itself."""
    global _unpack_ranks
    if _unpack_ranks.shape[0] != len(OPS):
        width = max(len(op.unpack_order) for op in OPS)
        _unpack_ranks = np.tile(np.arange(width, dtype=np.int64), (len(OPS), 1))
        for code, op in enumerate(OPS):
            _unpack_ranks[code, list(op.unpack_order)] = np.arange(len(op.unpack_order))
    known = positions < _unpack_ranks.shape[1]
    ranks = _unpack_ranks[codes, np.where(known, positions, 0)]
    return np.where(known, ranks, positions)


_unpack_ranks = np.zeros((0, 0), np.int64)


def _readers(name, grad_params):
    return sum(1 << k for k, params in enumerate(grad_params) if params and name in params)


def _value_index(name, n_in):
    if name in INPUT_NAMES[:n_in]:
        return INPUT_NAMES.index(name)
    if name == "out":
        return ~0
    if name.startswith("out"):
        return ~int(name[3:])
    raise ValueError(f"unknown saved value {name!r}")


def _torch_saved_name(name, binary):
    """torch's usual name for a saved value: an op's first input is self, its output result, and
    the second input of an elementwise binary op other. Ops whose saved values torch names
    otherwise give their own saved_names."""
    return {"x": "self", "out": "result", "y": "other" if binary else None}.get(name)


def _saves_of_formulas(grads, n_in):
    """A formula's parameters say what it needs: g, inputs x/y/z, out, and named attributes."""
    values, attrs = [], []
    for formula in grads:
        if formula is None:
            continue
        for param in inspect.signature(formula).parameters:
            if param == "g":
                continue
            known = param in INPUT_NAMES[:n_in] or param == "out"
            target = values if known else attrs
            if param not in target:
                target.append(param)
    order = list(INPUT_NAMES[:n_in]) + ["out"]
    return sorted(values, key=order.index), tuple(attrs)


class _AccumulateGrad(OpDef):
    def __init__(self):
        super().__init__("accumulate_grad", None, node_name="AccumulateGrad", n_in=0)


ACCUMULATE_GRAD = _AccumulateGrad()
# One op code for every custom autograd.Function; its node name comes from the Function class.
PYTHON_FUNCTION = OpDef("python_function", None, node_name="PythonFunction", n_in=0,
                        python_backward=True)
