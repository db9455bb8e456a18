"""The kernel table: one C function address per (op, dtype, variant: Note [kernel variants]),
compiled the first time a graph needs it and cached on disk.

The CPU kernels of elementwise ops are generated from their registry formulas into a real Python
file inside the stamped cache directory (Numba caches only functions that live in real files), next
to thin per-dtype wrappers of the hand-written kernels in cpu.py.

Note [float32 kernels]
Numba types a Python float literal, and a module-level float constant, as float64, and float32
mixed with float64 is float64: a formula such as g * (1.0 - out * out) compiled as written
computes a float32 kernel in float64, with half the vector width and conversions both ways
(tanh's backward on 10^6 values: 0.22 ms, against 0.15 in float32). torch computes float32
derivatives in float32, and so do numgrad's float32 kernels: their copy of each formula has every
number (literal or constant) cast to float32, and float attributes are read as float32.
"""
import ast
import inspect
import itertools
import textwrap
import threading

import numpy as np
from numba import cfunc, njit, types

from ..ops import registry
from ..ops.registry import INPUT_NAMES
from .cache import generated_module

DTYPE_NAMES = ("f32", "f64")
_SIGNATURE = types.void(types.int64)

_lock = threading.Lock()
_modules = {}                     # op code -> the generated module of its kernels
_compiled = {}                    # (op code, column) -> cfunc, kept alive for its address
fn_table = np.zeros((0, 6), np.int64)   # columns: dtype code * 3 + variant


def _float32_formula(formula, name):
    """The source of `formula` as function `name`, computing in float32 (Note [float32 kernels])."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(formula)))
    tree.body[0].name = name
    tree.body[0].decorator_list = []
    constants = formula.__globals__

    def float32(value):
        return ast.Call(ast.Name("_f32", ast.Load()), [ast.Constant(value)], [])

    class CastNumbers(ast.NodeTransformer):
        def visit_Constant(self, node):
            number = isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
            return float32(node.value) if number else node

        def visit_Name(self, node):
            value = constants.get(node.id)
            if (isinstance(node.ctx, ast.Load) and isinstance(value, (int, float))
                    and not isinstance(value, bool)):
                return float32(float(value))
            return node

    return ast.unparse(ast.fix_missing_locations(CastNumbers().visit(tree)))


def _formula_call(op, k, read, dt_name, g="g[i]", out="v_out[i]"):
    """The call of input k's formula for output element i; `read(name)` is how input `name` is
    read (v_x[i], v_x[i * s0], a row's element, or a value read before the loop), `g` and `out`
    how the output's gradient and value are."""
    args = []
    for param in op.grad_params[k]:
        if param == "g":
            args.append(g)
        elif param in op.attr_names:
            args.append(f"attr_{param}")
        elif param == "out":
            args.append(out)
        else:
            args.append(read(param))
    return f"_{op.name}_d{k}_{dt_name}({', '.join(args)})"


def _store_loops(call, indent, target="gk[i]", passes_through=False):
    pad = " " * indent
    loops = ["if mode(a, k) == ADD:",
             "    for i in range(n):",
             f"        {target} += {call}",
             "else:",
             "    for i in range(n):",
             f"        {target} = {call}"]
    if passes_through:
        # g -> g, and the engine gave this input's slot the output's own buffer: nothing to do
        loops = ["if gin(a, k) == gout(a, 0):", "    pass", "el" + loops[0]] + loops[1:]
    return [pad + line for line in loops]


# Note [kernel variants]
# An elementwise kernel has three shapes of work: every input of the output's size (the common
# case, and every scalar graph), inputs of that size or single elements (tensor op scalar), and
# general broadcasting. Lowering tells them apart from the shapes in meta (`variant` of a node,
# kernels/plan.py), and each is its own compiled function, so a process compiles only the ones its
# graphs use: a binary op's first variant compiles in a third of the time all three take together.
VARIANTS = ("same", "affine", "general")


def _elementwise_source(op, dt_name, variant):
    """One backward kernel per (elementwise op, dtype, variant: Note [kernel variants])."""
    dt = "np.float32" if dt_name == "f32" else "np.float64"
    n_in = op.n_in
    grads = [k for k in range(n_in) if op.grads[k] is not None]
    src = [f"def {op.name}_bwd_{dt_name}_{variant}(addr):",
           "    a = args_block(addr)",
           "    m = meta(a)",
           f"    po = shape_pos(m, {n_in})",
           "    n = numel_at(m, po)",
           f"    g = view(gout(a, 0), n, {dt})"]
    for k in range(n_in):
        src += [f"    p{k} = shape_pos(m, {k})", f"    n{k} = numel_at(m, p{k})"]
        if variant == "affine":
            src.append(f"    s{k} = 1 if n{k} == n else 0")
    for s, name in enumerate(op.saves):
        size = "n" if name == "out" else f"n{INPUT_NAMES.index(name)}"
        src.append(f"    v_{name} = view(saved(a, {s}), {size}, {dt})")
    if op.attr_names:
        src.append(f"    fm = fmeta(a, {len(op.attr_names)})")
        src += [f"    attr_{name} = {dt}(fm[{j}])" for j, name in enumerate(op.attr_names)]
    body = {"same": _same_loops, "affine": _affine_loops, "general": _general_loops}[variant]
    return "\n".join(src + body(op, grads, dt, dt_name))


def _same_loops(op, grads, dt, dt_name):
    """Every input has the output's size, and so its layout (broadcasting only repeats)."""
    src = []
    for k in grads:
        src += [f"    k = {k}",
                "    if gin(a, k) != 0:",
                f"        gk = view(gin(a, k), n, {dt})"]
        src += _store_loops(_formula_call(op, k, lambda name: f"v_{name}[i]", dt_name), 8,
                            passes_through=op.passes_through >> k & 1)
    return src


def _affine_loops(op, grads, dt, dt_name):
    """Every input has the output's size or is a single element (read with stride 0; a single
    element's gradient is a sum)."""
    n_in = op.n_in
    src = []
    for k in grads:
        def strided(name):
            return f"v_{name}[i * s{INPUT_NAMES.index(name)}]"

        def full_k(name):      # input k has the output's size here
            return "v_{0}[i]".format(name) if INPUT_NAMES.index(name) == k else strided(name)
        src += [f"    k = {k}",
                "    if gin(a, k) != 0:",
                f"        gk = view(gin(a, k), n{k}, {dt})",
                f"        if n{k} == n:"]
        # the other inputs this formula reads, when all are single elements (tensor op scalar),
        # are read once before the loop: a stride-0 read inside keeps it from vectorising. (With
        # two inputs, the other one is a single element whenever this variant runs.)
        others = [name for name in op.grad_params[k] if name in INPUT_NAMES[:n_in]
                  and INPUT_NAMES.index(name) != k]
        hoisted = _store_loops(_formula_call(op, k, lambda name: f"c_{name}" if name in others
                                             else f"v_{name}[i]", dt_name), 16 if n_in > 2 else 12)
        reads = [f"c_{name} = v_{name}[0]" for name in others]
        if others and n_in == 2:
            src += ["            " + line for line in reads] + hoisted
        elif others:
            src += ["            if " + " and ".join(
                f"n{INPUT_NAMES.index(name)} == 1" for name in others) + ":"]
            src += ["                " + line for line in reads] + hoisted
            src += ["            else:"]
            src += _store_loops(_formula_call(op, k, full_k, dt_name), 16)
        else:
            src += _store_loops(_formula_call(op, k, full_k, dt_name), 12,
                                passes_through=op.passes_through >> k & 1)
        call = _formula_call(op, k, strided, dt_name)
        src += ["        else:",
                "            total = 0.0",
                "            for i in range(n):",
                f"                total += {call}",
                "            gk[0] = gk[0] + total if mode(a, k) == ADD else total"]
    return src


def _general_loops(op, grads, dt, dt_name):
    """General broadcasting, walked in rows (Note [broadcast rows] in abi.py). Along a row an
    input advances by 1, or by 0 where it is broadcast: then its value is read once, and its
    gradient is the row's sum. Each combination of the two, for the inputs a formula reads, is a
    loop of its own over slices of the row, so that each vectorises. (One walk per gradient,
    adding into a zeroed gradient when this edge writes.)"""
    n_in = op.n_in
    positions = ", ".join(f"p{q}" for q in range(n_in))
    src = [f"    dims, strides, inner, rows = broadcast_rows(m, np.array(({positions},)), po)"]
    src += [f"    s{q} = strides[{q}, len(dims) - 1]" for q in range(n_in)]
    for k in grads:
        read_inputs = sorted({INPUT_NAMES.index(p) for p in op.grad_params[k]
                              if p in INPUT_NAMES[:n_in]})
        others = [q for q in read_inputs if q != k]
        if op.passes_through >> k & 1:
            # g -> g into the output's own buffer (Note [buffer reuse]): it is in place already
            src += [f"    if gin(a, {k}) == gout(a, 0):", "        pass",
                    f"    elif gin(a, {k}) != 0:"]
        else:
            src += [f"    if gin(a, {k}) != 0:"]
        src += [f"        gk = view(gin(a, {k}), n{k}, {dt})"]
        if not op.passes_through >> k & 1:       # (_sum_in_parts sums g itself directly)
            src += [f"        part = np.empty({PART}, {dt})"]
        src += [f"        if mode(a, {k}) != ADD:",
                "            gk[:] = 0",
                "        counter = np.zeros(len(dims), np.int64)",
                f"        base = np.zeros({n_in}, np.int64)",
                "        for row in range(rows):",
                "            o = row * inner",
                "            g_row = g[o:o + inner]"]
        if "out" in op.grad_params[k]:
            src.append("            out_row = v_out[o:o + inner]")
        src += [f"            b{q} = base[{q}]" for q in sorted({k, *read_inputs})]
        # (every input broadcast along the row cannot be: the row is an output dim of size > 1)
        combos = [(own, rest) for own in (True, False)
                  for rest in itertools.product((True, False), repeat=len(others))
                  if own or any(rest) or len(others) + 1 < n_in]
        for c, (own, rest) in enumerate(combos):
            along = dict(zip(others, rest))
            along[k] = own
            if len(combos) == 1:
                pad = " " * 12         # one case (a unary op's gradient): no test
            else:
                pad = " " * 16
                tests = " and ".join(f"s{q} == {int(along[q])}" for q in (k, *others))
                src.append("            " + ("else:" if c == len(combos) - 1 else
                                             f"{'if' if c == 0 else 'elif'} {tests}:"))
            for q in read_inputs:
                name = INPUT_NAMES[q]
                src.append(pad + (f"r{q} = v_{name}[b{q}:b{q} + inner]" if along[q] else
                                  f"c{q} = v_{name}[b{q}]"))

            def read(name):
                q = INPUT_NAMES.index(name)
                return f"r{q}[j]" if along[q] else f"c{q}"
            if own:
                call = _formula_call(op, k, read, dt_name, g="g_row[j]", out="out_row[j]")
                body = [f"gk_row = gk[b{k}:b{k} + inner]",
                        "for j in range(inner):",
                        f"    gk_row[j] += {call}"]
            else:
                body = _sum_in_parts(op, k, along, read_inputs, dt_name)
                body.append(f"gk[b{k}] += total")
            src += [pad + line for line in body]
        src.append("            next_row(dims, strides, counter, base)")
    return src


# Note [sums in parts]
# Along a row where input k is broadcast, its gradient is the sum of the formula's values. They
# are computed a part at a time into a small array, exactly as the formula rounds them, and
# cpu.row_sum adds each part up in float64 in an order of its own, vectorised: one running total
# waited on its previous addition at every element. (Reordering the whole kernel instead would
# reorder the formulas' own arithmetic, which follows torch's rounding.) A part's reads are
# slices indexed from 0, whose bounds LLVM can see.
PART = 1024


def _sum_in_parts(op, k, along, read_inputs, dt_name):
    """Lines setting `total` to the sum along the row of input k's formula (Note [sums in parts]);
    `part` is made once per kernel. A formula that is g itself (a bias's) sums the row directly,
    which also compiles faster."""
    if op.passes_through >> k & 1:
        return ["total = cpu.row_sum(g_row)"]

    def read(name):
        q = INPUT_NAMES.index(name)
        return f"r{q}_part[j]" if along[q] else f"c{q}"
    call = _formula_call(op, k, read, dt_name, g="g_part[j]", out="out_part[j]")
    slices = ["g_part = g_row[start:stop]"]
    if "out" in op.grad_params[k]:
        slices.append("out_part = out_row[start:stop]")
    slices += [f"r{q}_part = r{q}[start:stop]" for q in read_inputs if along[q]]
    return (["total = 0.0",
             f"for start in range(0, inner, {PART}):",
             f"    stop = min(inner, start + {PART})"]
            + ["    " + line for line in slices]
            + ["    for j in range(stop - start):",
               f"        part[j] = {call}",
               "    total += cpu.row_sum(part[:stop - start])"])


def _module_source(op):
    """The source of one op's backward kernels, one per dtype (a module per op: a process imports
    only the kernels its graphs use)."""
    head = ['"""Generated from the op registry by numgrad.kernels.table: do not edit."""',
            "import numpy as np",
            "from numba import njit",
            "from numgrad.kernels import formula  # noqa: F401  (fmath inside kernels)",
            "from numgrad.kernels import cpu",
            "from numgrad.kernels.abi import (ADD, args_block, broadcast_rows, fmeta, gin, gout,",
            "                                 meta, mode, next_row, numel_at, saved, shape_pos, view)",
            ""]
    body = []
    if op.elementwise:
        module = op.grads[[f is not None for f in op.grads].index(True)].__module__
        head += ["from numgrad.ops import fmath as F  # noqa: F401", "_f32 = np.float32", ""]
        for k, formula in enumerate(op.grads):
            if formula is not None:
                head.append(f"from {module} import {formula.__name__} as _{op.name}_f{k}")
                head.append(f"_{op.name}_d{k}_f64 = njit(inline='always')(_{op.name}_f{k})")
                head.append(_float32_formula(formula, f"_{op.name}_f{k}_f32"))
                head.append(f"_{op.name}_d{k}_f32 = njit(inline='always')(_{op.name}_f{k}_f32)")
        body = [_elementwise_source(op, dt_name, variant) for dt_name in DTYPE_NAMES
                for variant in VARIANTS]
    else:
        for dt_name in DTYPE_NAMES:
            dt = "np.float32" if dt_name == "f32" else "np.float64"
            body.append(f"def {op.name}_bwd_{dt_name}(addr):\n    cpu.{op.kernel}(addr, {dt})")
    return "\n".join(head) + "\n\n\n" + "\n\n\n".join(body) + "\n"


def _generated(op):
    module = _modules.get(op.code)
    if module is None:
        module = _modules[op.code] = generated_module(f"numgrad_kernels_{op.name}",
                                                       _module_source(op))
    return module


def kernels_for(kind, runnable, variant):
    """The table of kernel addresses, one column per (dtype, variant: Note [kernel variants]),
    holding every kernel the runnable nodes call (node kinds as in tape.py). Looking for a missing
    one is compiled: most backward calls find none."""
    missing = _missing_kernels(kind, runnable, variant, fn_table, registry.PYTHON_FUNCTION.code)
    if missing.size == 0 and fn_table.shape[0] == len(registry.OPS):
        return fn_table
    columns = len(VARIANTS) * len(DTYPE_NAMES)
    return ensure([(int(k) // columns, int(k) % columns) for k in np.unique(missing)])


@njit(cache=True)
def _missing_kernels(kind, runnable, variant, table, python_op):
    """op * 6 + column of each runnable node whose kernel is not in the table yet."""
    missing = np.empty(kind.size, np.int64)
    n_missing = 0
    for i in range(kind.size):
        if runnable[i]:
            op = kind[i] & 0xFFFFFF
            column = (3 if kind[i] & (1 << 24) else 0) + variant[i]
            if op != python_op and (op >= table.shape[0] or table[op, column] == 0):
                missing[n_missing] = op * 6 + column
                n_missing += 1
    return missing[:n_missing]


def ensure(pairs):
    """Compile (or load from the cache) the kernels of the given (op code, column) pairs, column
    being dtype code * 3 + variant, and return the table of their addresses. A hand-written kernel
    serves all three variants of its dtype."""
    global fn_table
    missing = [(op, column) for op, column in pairs if (op, column) not in _compiled]
    if missing or fn_table.shape[0] < len(registry.OPS):
        with _lock:
            if fn_table.shape[0] < len(registry.OPS):
                table = np.zeros((len(registry.OPS), len(DTYPE_NAMES) * len(VARIANTS)), np.int64)
                table[:fn_table.shape[0]] = fn_table
                fn_table = table
            for op, column in missing:
                if (op, column) in _compiled:
                    continue
                definition = registry.OPS[op]
                if op == registry.ACCUMULATE_GRAD.code or definition.python_backward:
                    continue
                dt, variant = divmod(column, len(VARIANTS))
                name = f"{definition.name}_bwd_{DTYPE_NAMES[dt]}"
                if definition.elementwise:
                    columns = [column]
                    name += f"_{VARIANTS[variant]}"
                else:
                    columns = [dt * len(VARIANTS) + v for v in range(len(VARIANTS))]
                py_func = getattr(_generated(definition), name)
                # NumPy's error model: 1/0 gives inf (then NaN checks can see it), not an
                # exception that a C callback could only swallow
                compiled = cfunc(_SIGNATURE, cache=True, error_model="numpy")(py_func)
                for c in columns:
                    _compiled[(op, c)] = compiled
                    fn_table[op, c] = compiled.address
    return fn_table
