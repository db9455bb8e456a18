"""stack_module_state: the parameters and buffers of same-class modules stacked along a new
first dim, ready for vmap over functional_call (model ensembling), as torch.func has it."""
from ..ops import stack


def _stacked_leaf(tensors, name):
    """The tensors stacked; a new leaf that requires grad when they all do (optimisable, not
    connected to the modules' own parameters)."""
    wanted = [t.requires_grad for t in tensors]
    if any(wanted) and not all(wanted):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    return result.detach().requires_grad_() if all(wanted) else result


def stack_module_state(models):
    """(params, buffers): for each dotted name, that tensor of every model stacked along dim 0.

    >>> models = [numgrad.nn.Linear(3, 2) for _ in range(4)]
    >>> params, buffers = numgrad.func.stack_module_state(models)
    >>> params["weight"].shape, buffers
    (numgrad.Size([4, 2, 3]), {})
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    stacked = []
    for named in ("named_parameters", "named_buffers"):
        tables = [dict(getattr(m, named)()) for m in models]
        stacked.append({k: _stacked_leaf(tuple(t[k] for t in tables), k) for k in tables[0]})
    return tuple(stacked)
