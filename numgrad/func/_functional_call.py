"""functional_call: a module's forward run with given tensors in place of its parameters and
buffers, as torch.func.functional_call does it."""
from ..tensor import Tensor

_MISSING = object()


def _owner(module, name):
    """(submodule, attribute) for a dotted name such as "encoder.0.weight"."""
    *path, attr = name.split(".")
    for item in path:
        try:
            sub = getattr(module, item)
        except AttributeError as e:
            raise AttributeError(f"{module._get_name()} has no attribute `{item}`") from e
        if not hasattr(sub, "_parameters"):
            raise TypeError(f"{sub!r} is not an instance of numgrad.nn.Module")
        module = sub
    return module, attr


def _swap(module, name, tensor):
    """Put `tensor` (or _MISSING: remove) under `name`, returning what was there. Parameters and
    buffers are replaced in their tables directly, so a plain tensor may stand in for a
    Parameter; a name the module lacks becomes a plain attribute for the call."""
    module, attr = _owner(module, name)
    if attr in module._parameters:
        table = module._parameters
    elif attr in module._buffers:
        table = module._buffers
    else:
        table = None
    if table is not None:
        orig = table[attr]
    else:
        orig = getattr(module, attr, _MISSING)
    if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
        raise TypeError(f"attribute `{attr}`: {orig} is not an instance of numgrad.Tensor")
    if table is not None:
        table[attr] = tensor
    elif tensor is _MISSING:
        delattr(module, attr)
    else:
        setattr(module, attr, tensor)
    return orig


def _swap_all(module, named):
    """Swap every entry of `named` in, returning the originals; on an error, put back the ones
    already swapped."""
    originals = {}
    try:
        for name, tensor in named.items():
            originals[name] = _swap(module, name, tensor)
    except Exception:
        for name, orig in originals.items():
            _swap(module, name, orig)
        raise
    return originals


def _named_tensors(module):
    """Every (dotted name, tensor) of module's parameters and buffers, shared ones under each of
    their names."""
    for prefix, sub in module.named_modules(remove_duplicate=False):
        for table in (sub._parameters, sub._buffers):
            for name, value in table.items():
                if value is not None:
                    yield (prefix + "." if prefix else "") + name, value


def _untie(module, given):
    """`given` with each tensor the module shares under several names (tied weights) given under
    all of them."""
    names_of = {}
    for name, tensor in _named_tensors(module):
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    untied = dict(given)
    for name in given:
        if name not in tied:
            continue
        if len({id(given[n]) for n in tied[name] if n in given}) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied[name])}, "
                             "which are tied. Consider using tie_weights=False")
        for other in tied[name]:
            untied[other] = given[name]
    return untied


def _merge(dicts):
    if isinstance(dicts, dict):
        return dicts
    if not isinstance(dicts, (tuple, list)):
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                         f"dicts, but got {type(dicts)}")
    if not all(isinstance(d, dict) for d in dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    counts = {}
    for d in dicts:
        for k in d:
            counts[k] = counts.get(k, 0) + 1
    repeated = [k for k, n in counts.items() if n > 1]
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional "
                         "call is ambiguous")
    return {k: v for d in dicts for k, v in d.items()}


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """module(*args, **kwargs) with the tensors of parameter_and_buffer_dicts (a dict by dotted
    name, or a list/tuple of dicts with distinct keys) in place of its parameters and buffers;
    the originals are back afterwards, also when forward raises, and gradients flow to the given
    tensors. args that is not a tuple is the single positional argument. With tie_weights, a
    value given for one name of a shared tensor is used for all its names; with strict, the keys
    must be exactly the module's parameter and buffer names. A buffer forward reassigns is
    written back to the given dict.

    >>> lin = numgrad.nn.Linear(2, 1)
    >>> params = {"weight": numgrad.ones(1, 2), "bias": numgrad.zeros(1)}
    >>> numgrad.func.functional_call(lin, params, (numgrad.tensor([[1., 2.]]),))
    tensor([[3.]])
    """
    given = _merge(parameter_and_buffer_dicts)
    named = _untie(module, given) if tie_weights else given
    if strict:
        valid = {name for name, _ in _named_tensors(module)}
        errors = []
        unexpected, missing = sorted(set(named) - valid), sorted(valid - set(named))
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t"
                               + "\n\t".join(errors))
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    originals = _swap_all(module, named)
    try:
        return module(*args, **(kwargs or {}))
    finally:
        current = _swap_all(module, originals)
        given.update({k: current[k] for k in given if k in current})
