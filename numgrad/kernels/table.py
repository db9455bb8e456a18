"""The kernel table: one C function address per (op, dtype), compiled the first time a graph
needs it and cached on disk.

The CPU kernels of elementwise ops are generated from their registry formulas into a real Python
file inside the stamped cache directory (Numba caches only functions that live in real files), next
to thin per-dtype wrappers of the hand-written kernels in cpu.py.
"""
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
_compiled = {}                    # (op code, dtype code) -> cfunc, kept alive for its address
fn_table = np.zeros((0, 2), np.int64)


def _formula_call(op, k, index):
    """The call of input k's formula for output element i; `index(name)` says how input `name`
    is read (i, i * stride, or through an index map)."""
    args = []
    for param in op.grad_params[k]:
        if param == "g":
            args.append("g[i]")
        elif param in op.attr_names:
            args.append(f"attr_{param}")
        elif param == "out":
            args.append("v_out[i]")
        else:
            args.append(f"v_{param}[{index(param)}]")
    return f"_{op.name}_d{k}({', '.join(args)})"


def _store_loops(call, indent, target="gk[i]"):
    pad = " " * indent
    return [f"{pad}if mode(a, k) == ADD:",
            f"{pad}    for i in range(n):",
            f"{pad}        {target} += {call}",
            f"{pad}else:",
            f"{pad}    for i in range(n):",
            f"{pad}        {target} = {call}"]


def _elementwise_source(op, dt_name):
    """One backward kernel per (elementwise op, dtype), with three loops: inputs of the output's
    shape; inputs of that shape or single elements (tensor op scalar: read with stride 0, the
    single element's gradient is a sum); and general broadcasting through index maps."""
    dt = "np.float32" if dt_name == "f32" else "np.float64"
    n_in = op.n_in
    grads = [k for k in range(n_in) if op.grads[k] is not None]
    src = [f"def {op.name}_bwd_{dt_name}(addr):",
           "    a = args_block(addr)",
           "    m = meta(a)",
           f"    po = shape_pos(m, {n_in})",
           "    n = numel_at(m, po)",
           f"    g = view(gout(a, 0), n, {dt})"]
    for k in range(n_in):
        src += [f"    p{k} = shape_pos(m, {k})", f"    n{k} = numel_at(m, p{k})",
                f"    s{k} = 1 if n{k} == n else 0"]
    for s, name in enumerate(op.saves):
        size = "n" if name == "out" else f"n{INPUT_NAMES.index(name)}"
        src.append(f"    v_{name} = view(saved(a, {s}), {size}, {dt})")
    if op.attr_names:
        src.append(f"    fm = fmeta(a, {len(op.attr_names)})")
        src += [f"    attr_{name} = fm[{j}]" for j, name in enumerate(op.attr_names)]
    # An input with as many elements as the output has its layout (broadcasting only repeats).
    same = " and ".join(f"n{k} == n" for k in range(n_in))
    affine = " and ".join(f"(n{k} == n or n{k} == 1)" for k in range(n_in))
    src.append(f"    if {same}:")
    for k in grads:
        src += [f"        k = {k}",
                "        if gin(a, k) != 0:",
                f"            gk = view(gin(a, k), n, {dt})"]
        src += _store_loops(_formula_call(op, k, lambda name: "i"), 12)
    src += ["        return", f"    if {affine}:"]
    for k in grads:
        call = _formula_call(op, k, lambda name: f"i * s{INPUT_NAMES.index(name)}")
        src += [f"        k = {k}",
                "        if gin(a, k) != 0:",
                f"            gk = view(gin(a, k), n{k}, {dt})",
                f"            if n{k} == n:"]
        src += _store_loops(call, 16)
        src += ["            else:",
                "                total = 0.0",
                "                for i in range(n):",
                f"                    total += {call}",
                "                gk[0] = gk[0] + total if mode(a, k) == ADD else total"]
    src.append("        return")
    # General broadcasting: saved inputs read through index maps. An input of the output's size
    # (one row) or a bias row (the output's last dims) sums over the rows in order; any other
    # input adds each contribution where its index map says.
    for name in op.saves:
        if name != "out":
            src.append(f"    i_{name} = broadcast_index(m, p{INPUT_NAMES.index(name)}, po)")
    # (One loop each, adding into a zeroed gradient when this edge writes: compile time counts.)
    for k in grads:
        call = _formula_call(op, k, lambda name: f"i_{name}[i]")
        src += [f"    if gin(a, {k}) != 0:",
                f"        gk = view(gin(a, {k}), n{k}, {dt})",
                f"        if mode(a, {k}) != ADD:",
                "            gk[:] = 0",
                f"        if n{k} == n or is_trailing(m, p{k}, po):",
                f"            for row in range(n // n{k}):",
                f"                for j in range(n{k}):",
                f"                    i = row * n{k} + j",
                f"                    gk[j] += {call}",
                "        else:",
                f"            t = broadcast_index(m, p{k}, po)",
                "            for i in range(n):",
                f"                gk[t[i]] += {call}"]
    return "\n".join(src)


def _module_source(op):
    """The source of one op's backward kernels, one per dtype (a module per op: a process imports
    only the kernels its graphs use)."""
    head = ['"""Generated from the op registry by numgrad.kernels.table: do not edit."""',
            "import numpy as np",
            "from numba import njit",
            "from numgrad.kernels import formula  # noqa: F401  (fmath inside kernels)",
            "from numgrad.kernels import cpu",
            "from numgrad.kernels.abi import (ADD, args_block, broadcast_index, fmeta, gin, gout,",
            "                                 is_trailing, meta, mode, numel_at, saved, same_shape,",
            "                                 shape_pos, view)",
            ""]
    body = []
    if op.elementwise:
        module = op.grads[[f is not None for f in op.grads].index(True)].__module__
        for k, formula in enumerate(op.grads):
            if formula is not None:
                head.append(f"from {module} import {formula.__name__} as _{op.name}_f{k}")
                head.append(f"_{op.name}_d{k} = njit(inline='always')(_{op.name}_f{k})")
        body = [_elementwise_source(op, dt_name) for dt_name in DTYPE_NAMES]
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


def kernels_for(kind, runnable):
    """The table of kernel addresses, holding every kernel the runnable nodes call (node kinds as
    in tape.py). Looking for a missing one is compiled: most backward calls find none."""
    missing = _missing_kernels(kind, runnable, fn_table, registry.PYTHON_FUNCTION.code)
    if missing.size == 0 and fn_table.shape[0] == len(registry.OPS):
        return fn_table
    return ensure([(int(k) >> 1, int(k) & 1) for k in np.unique(missing)])


@njit(cache=True)
def _missing_kernels(kind, runnable, table, python_op):
    """op * 2 + dtype of each runnable node whose kernel is not in the table yet."""
    missing = np.empty(kind.size, np.int64)
    n_missing = 0
    for i in range(kind.size):
        if runnable[i]:
            op = kind[i] & 0xFFFFFF
            dt = 1 if kind[i] & (1 << 24) else 0
            if op != python_op and (op >= table.shape[0] or table[op, dt] == 0):
                missing[n_missing] = op * 2 + dt
                n_missing += 1
    return missing[:n_missing]


def ensure(pairs):
    """Compile (or load from the cache) the kernels of the given (op code, dtype code) pairs and
    return the table of their addresses."""
    global fn_table
    missing = [(op, dt) for op, dt in pairs if (op, dt) not in _compiled]
    if missing or fn_table.shape[0] < len(registry.OPS):
        with _lock:
            if fn_table.shape[0] < len(registry.OPS):
                table = np.zeros((len(registry.OPS), 2), np.int64)
                table[:fn_table.shape[0]] = fn_table
                fn_table = table
            for op, dt in missing:
                if (op, dt) in _compiled:
                    continue
                definition = registry.OPS[op]
                if op == registry.ACCUMULATE_GRAD.code or definition.python_backward:
                    continue
                py_func = getattr(_generated(definition), f"{definition.name}_bwd_{DTYPE_NAMES[dt]}")
                # NumPy's error model: 1/0 gives inf (then NaN checks can see it), not an
                # exception that a C callback could only swallow
                compiled = cfunc(_SIGNATURE, cache=True, error_model="numpy")(py_func)
                _compiled[(op, dt)] = compiled
                fn_table[op, dt] = compiled.address
    return fn_table
