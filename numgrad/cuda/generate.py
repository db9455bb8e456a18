"""CUDA kernels of the elementwise ops, generated from their formulas (table.py's twin).

For each elementwise op, `<op>_fwd` evaluates its forward formula (formulas.py) per output element,
reading broadcast inputs through strides; `<op>_bwd` evaluates the registry's derivative formulas,
batched over the nodes of one dependency level like the hand-written kernels in kernels/cuda.py.
The source is written to a real file in the stamped cache directory, so numba-cuda can cache the
compiled kernels; it names a hash of numgrad/cuda's sources, so editing them renews the file.
"""
import hashlib
import inspect
import os
import types

from numba import cuda

from ..kernels import formula_cuda
from ..kernels.cache import generated_module
from ..ops import registry
from ..ops.registry import INPUT_NAMES
from .formulas import FORWARD

_module = None


def device_formula(formula):
    """A formula as a CUDA device function: its `F` (numgrad.ops.fmath, which calls Tensor ops)
    rebound to the scalar device functions of the same names."""
    scope = dict(formula.__globals__, F=formula_cuda)
    rebound = types.FunctionType(formula.__code__, scope, formula.__name__, formula.__defaults__,
                                 formula.__closure__)
    return cuda.jit(device=True, inline="always")(rebound)


def _params(fn):
    return list(inspect.signature(fn).parameters)


def _forward_source(name):
    """A kernel evaluating op `name`'s forward formula at every output element."""
    formula = FORWARD[name]
    n_in = registry.BY_NAME[name].n_in
    attrs = _params(formula)[n_in:]
    ins = ", ".join(f"x{k}, k{k}, s{k}" for k in range(n_in))
    head = ", ".join(["out", "n", "shape", ins] + [f"attr_{a}" for a in attrs])
    loads = [f"        v{k} = load(x{k}, k{k}, s{k}, shape, i)" for k in range(n_in)]
    call = ", ".join([f"v{k}" for k in range(n_in)] + [f"attr_{a}" for a in attrs])
    return "\n".join(["@cuda.jit(cache=True)",
                      f"def {name}_fwd({head}):",
                      "    for i in range(first_thread(), n, thread_step()):",
                      *loads,
                      f"        out[i] = _{name}_f({call})"])


def _backward_source(op):
    """A batched kernel evaluating op's derivative formulas (table._elementwise_source's twin)."""
    n_in = op.n_in
    needed = set(op.saves) - {"out"}           # inputs whose values the formulas read ...
    needed |= {INPUT_NAMES[k] for k in range(n_in) if op.grads[k] is not None}   # ... or feed
    src = ["@cuda.jit(cache=True)",
           f"def {op.name}_bwd(args, starts, first, count, w):",
           "    for j in range(cuda.blockIdx.y, count, cuda.gridDim.y):",
           "        a = node_args(args, starts, first, j)",
           "        m = meta(a)",
           f"        po = shape_pos(m, {n_in})",
           "        n = numel_at(m, po)",
           "        g = view(gout(a, 0), n, w.dtype)"]
    for k in range(n_in):
        src += [f"        p{k} = shape_pos(m, {k})",
                f"        n{k} = numel_at(m, p{k})",
                f"        same{k} = same_shape(m, p{k}, po)"]
    for s, name in enumerate(op.saves):
        size = "n" if name == "out" else f"n{INPUT_NAMES.index(name)}"
        src.append(f"        v_{name} = view(saved(a, {s}), {size}, w.dtype)")
    if op.attr_names:
        src.append(f"        fm = fmeta(a, {len(op.attr_names)})")
        src += [f"        attr_{name} = fm[{j}]" for j, name in enumerate(op.attr_names)]
    for k in range(n_in):
        if op.grads[k] is not None:
            src += [f"        d{k} = gin(a, {k})",
                    f"        h{k} = mode(a, {k})",
                    f"        b{k} = view(d{k}, n{k}, w.dtype)"]
    src.append("        for i in range(first_thread(), n, thread_step()):")
    for k in range(n_in):
        if INPUT_NAMES[k] in needed:
            src.append(f"            i{k} = i if same{k} else bcast_offset(m, p{k}, po, i)")
    for k in range(n_in):
        formula = op.grads[k]
        if formula is None:
            continue
        args = []
        for param in _params(formula):
            if param == "g":
                args.append("g[i]")
            elif param in op.attr_names:
                args.append(f"attr_{param}")
            elif param == "out":
                args.append("v_out[i]")
            else:
                args.append(f"v_{param}[i{INPUT_NAMES.index(param)}]")
        # a broadcast input gathers many outputs' contributions: atomically (Note [zeroed buffers])
        src += [f"            if d{k} != 0:",
                f"                v = _{op.name}_d{k}({', '.join(args)})",
                f"                if same{k}:",
                f"                    put(b{k}, i, v, h{k})",
                "                else:",
                f"                    cuda.atomic.add(b{k}, i{k}, v)"]
    return "\n".join(src)


def _sources_hash():
    digest = hashlib.sha256()
    here = os.path.dirname(__file__)
    for name in sorted(os.listdir(here)):
        if name.endswith(".py"):
            with open(os.path.join(here, name), "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()[:16]


def _module_source():
    head = ['"""Generated by numgrad.cuda.generate from the op registry: do not edit.',
            f'numgrad/cuda sources: {_sources_hash()}"""',
            "from numba import cuda",
            "from numgrad.cuda.elementwise import load",
            "from numgrad.cuda.formulas import FORWARD",
            "from numgrad.cuda.generate import device_formula",
            "from numgrad.kernels.cuda import (bcast_offset, first_thread, fmeta, gin, gout, meta,",
            "                                  mode, node_args, numel_at, put, same_shape, saved,",
            "                                  shape_pos, thread_step, view)",
            "from numgrad.ops.registry import BY_NAME",
            ""]
    body = []
    for name in FORWARD:
        if name not in registry.BY_NAME:
            continue
        head.append(f"_{name}_f = device_formula(FORWARD[{name!r}])")
        body.append(_forward_source(name))
    for op in registry.OPS:
        if op.elementwise:
            for k, formula in enumerate(op.grads):
                if formula is not None:
                    head.append(f"_{op.name}_d{k} = device_formula(BY_NAME[{op.name!r}].grads[{k}])")
            body.append(_backward_source(op))
    return "\n".join(head) + "\n\n\n" + "\n\n\n".join(body) + "\n"


def kernels():
    """The generated module (written and imported once per process)."""
    global _module
    if _module is None:
        _module = generated_module("numgrad_cuda_kernels", _module_source())
    return _module
