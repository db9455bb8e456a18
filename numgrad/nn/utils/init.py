"""skip_init: a module whose parameters and buffers are left uninitialised, as torch's
torch.nn.utils.skip_init."""
import inspect

from ..module import Module


def skip_init(module_cls, *args, **kwargs):
    """module_cls(*args, **kwargs) with uninitialised parameters and buffers, on kwargs'
    device (the CPU by default); module_cls must take a device argument. torch builds the module
    on its meta device, so its initialisation costs nothing; numgrad has no meta device, so the
    module is built (and initialised) where it goes, then its memory replaced (to_empty): the same
    module, without torch's saving of time.

    >>> import numgrad as ng
    >>> ng.nn.utils.skip_init(ng.nn.Linear, 2, 3).weight.shape
    numgrad.Size([3, 2])
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    return module_cls(*args, **kwargs, device=final_device).to_empty(device=final_device)
