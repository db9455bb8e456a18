"""vmap, by looping: func runs once per sample (the batched arguments sliced with select along
their in_dims, the others passed whole) and the results are stacked along out_dims. That is
slower than torch's batching rules but needs none, works for every op, and the slicing and
stacking are ordinary differentiable ops, so gradients flow through vmap.
"""
import functools

import numpy as np

from .. import creation
from ..ops import stack
from ..tensor import Tensor
from ._pytree import broadcast_prefix, tree_flatten, tree_unflatten


def _name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _check_out_dims(out_dims, func):
    leaves = [out_dims] if out_dims is None else tree_flatten(out_dims)[0]
    if not all(d is None or isinstance(d, int) for d in leaves):
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an "
                         "int, None or a python collection of ints representing where in the "
                         "outputs the vmapped dimension should appear.")


def _batched_inputs(in_dims, args, func):
    """(batch size, in_dim per flat argument (None: unbatched), flat arguments, their spec)."""
    head = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"{head}: expected `in_dims` to be int or a (potentially nested) tuple "
                         f"matching the structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. The "
                         "latter is unsupported.")
    flat, spec = tree_flatten(args)
    dims = broadcast_prefix(in_dims, spec)
    if dims is None:
        raise ValueError(f"{head}: in_dims is not compatible with the structure of `inputs`. "
                         f"in_dims has structure {tree_flatten(in_dims)[1]} but inputs has "
                         f"structure {spec}.")
    for i, (arg, d) in enumerate(zip(flat, dims)):
        if d is None:
            continue
        if not isinstance(d, int):
            raise ValueError(f"{head}: Got in_dim={d} for an input but in_dim must be either an "
                             "integer dimension or None.")
        if not isinstance(arg, Tensor):
            raise ValueError(f"{head}: Got in_dim={d} for an input but the input is of type "
                             f"{type(arg)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        if not -arg.ndim <= d < arg.ndim:
            raise ValueError(f"{head}: Got in_dim={d} for some input, but that input is a Tensor "
                             f"of dimensionality {arg.ndim} so expected in_dim to satisfy "
                             f"-{arg.ndim} <= in_dim < {arg.ndim}.")
        dims[i] = d % arg.ndim
    sizes = [arg.shape[d] for arg, d in zip(flat, dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0], dims, flat, spec


def _sample(flat, dims, spec, index):
    """The arguments of sample `index`; with index None, zeros of a sample's shape (a batch of
    size 0 runs func once on them, to learn the outputs' shapes)."""
    picked = []
    for arg, d in zip(flat, dims):
        if d is None:
            picked.append(arg)
        elif index is None:
            picked.append(arg.new_zeros(arg.shape[:d] + arg.shape[d + 1:]))
        else:
            picked.append(arg.select(d, index))
    return tree_unflatten(picked, spec)


def _run(func, samples, randomness, kwargs):
    """func on each sample. Random draws are what randomness says: 'different' draws afresh per
    sample, 'same' replays the generator's state for each, 'error' raises if func draws."""
    generator = creation.generator().bit_generator
    start = generator.state
    results = []
    for args in samples:
        if randomness == "same":
            generator.state = start
        results.append(func(*args, **kwargs))
        if randomness == "error" and generator.state != start:
            raise RuntimeError("vmap: called random operation while in randomness error mode. "
                               "Please either use the 'same' or 'different' randomness flags on "
                               "vmap or perform the randomness operation out of vmap")
    return results


def _unbatched(name, values):
    """The output of every sample for an out_dim of None: they must agree (torch: func returns
    an unbatched value there)."""
    first = values[0]
    for v in values[1:]:
        same = v is first or (isinstance(v, Tensor) and isinstance(first, Tensor)
                              and v.shape == first.shape
                              and np.array_equal(v._data, first._data))
        if not same:
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when "
                             "out_dim is None")
    return first


def _stacked(name, values, out_dim, empty):
    if not all(isinstance(v, Tensor) for v in values):
        bad = next(v for v in values if not isinstance(v, Tensor))
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                         f"{type(bad)}. Did you mean to set out_dims= to None for output?")
    if empty:
        shape = list(values[0].shape)
        shape.insert(out_dim % (len(shape) + 1), 0)
        return values[0].new_zeros(shape)
    return stack(values, dim=out_dim)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func mapped over a batch dimension of its arguments, as torch.func.vmap: in_dims gives per
    argument the dimension to map over (None: pass it whole to every sample; a tuple per
    argument, nesting into tuple/list/dict arguments); out_dims says where the batch dimension
    goes in each output (None: an output every sample returns alike, returned once; a loop cannot
    see batching, so "alike" is checked by value).

    Implemented by looping over the batch and stacking the results (see the module docstring):
    gradients flow through it, a batch of size 0 runs func once on zeros to learn the outputs'
    shapes, and chunk_size, which only bounds torch's memory, is checked and otherwise has no
    effect. randomness: 'error' raises if func draws random numbers,
    'different' draws independently per sample, 'same' gives every sample the same draws.

    >>> numgrad.func.vmap(lambda x, y: x @ y, in_dims=(0, None))(numgrad.ones(3, 2),
    ...                                                         numgrad.tensor([1., 2.]))
    tensor([3., 3., 3.])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        name = _name(func)
        _check_out_dims(out_dims, func)
        size, dims, flat, spec = _batched_inputs(in_dims, args, func)
        indices = range(size) if size else [None]
        results = _run(func, (_sample(flat, dims, spec, i) for i in indices), randomness,
                       kwargs)
        flat_results, out_spec = [], None
        for result in results:
            leaves, s = tree_flatten(result)
            if out_spec is not None and s != out_spec:
                raise ValueError(f"vmap({name}, ...): `{name}` returned outputs of different "
                                 f"structures for different samples: {out_spec} and {s}")
            out_spec = s
            flat_results.append(leaves)
        if isinstance(results[0], Tensor) and isinstance(out_dims, tuple) and len(out_dims) == 1:
            out_dims_flat = list(out_dims)      # torch accepts (d,) for a single tensor output
        else:
            out_dims_flat = broadcast_prefix(out_dims, out_spec)
        if out_dims_flat is None:
            raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                             "compatible with the structure of `outputs`. out_dims has structure "
                             f"{tree_flatten(out_dims)[1]} but outputs has structure {out_spec}.")
        outputs = []
        for k, d in enumerate(out_dims_flat):
            values = [leaves[k] for leaves in flat_results]
            outputs.append(_unbatched(name, values) if d is None
                           else _stacked(name, values, d, not size))
        return tree_unflatten(outputs, out_spec)
    return wrapped
