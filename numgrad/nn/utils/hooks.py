"""Module backward hooks: identity Functions around a module's inputs and outputs catch the
gradients flowing through them, as torch's BackwardHook (torch/utils/hooks.py) does.

The Function around the outputs runs first in the backward: it keeps grad_output (after the
backward pre-hooks) in the BackwardHook. The one around the inputs runs once everything inside the
module has sent its gradients: its incoming gradients are grad_input, which the full backward
hooks see and may replace. A module called twice makes two BackwardHooks, so each call's hooks
fire once per backward.
"""
import warnings

from ...autograd.function import Function
from ... import grad_mode
from ...creation import zeros
from ...tensor import Tensor

_IN_PLACE_ERROR = ("Output {} of BackwardHookFunction is a view and is being modified inplace. "
                   "This view was created inside a custom Function (or because an input was "
                   "returned as-is) and the autograd logic to handle view+inplace would override "
                   "the custom backward associated with the custom Function, leading to incorrect "
                   "gradients. This behavior is forbidden. You can fix this by cloning the output "
                   "of the custom Function.")


class BackwardHookFunction(Function):
    """Identity on its tensors; their incoming gradients go to `on_backward`, whose results are
    sent on. Gradients that never arrived stay None (no zeros are made for them)."""

    @staticmethod
    def forward(ctx, on_backward, *tensors):
        ctx.on_backward = on_backward
        ctx.set_materialize_grads(False)
        # the inputs as they are, as torch's: the outputs are then views of them that in-place
        # ops refuse ("Output 0 of BackwardHookFunction is a view and is being modified inplace")
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.on_backward(grads))


class BackwardHook:
    """The backward hooks of one call of a module: set up on its arguments before forward and on
    its result after."""

    def __init__(self, module, hooks, pre_hooks):
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.n_inputs = -1
        self.input_index = None
        self.wrapped_inputs = ()
        self.wrapped_outputs = ()
        self.input_specs = ()       # (shape, dtype, device) per tensor argument
        self.input_aliases = ()     # (alias, version) per wrapped argument, to see in-place writes

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        index = [k for k, a in enumerate(args) if isinstance(a, Tensor)]
        self.input_specs = [(args[k].shape, args[k].dtype, args[k].device) for k in index]
        wrapped, self.wrapped_inputs = self._wrap(args, index, self._on_input_grads)
        if self.wrapped_inputs is not None:
            self.input_index = index
            self.input_aliases = [(wrapped[k], wrapped[k]._version) for k in self.wrapped_inputs]
        return wrapped

    def check_inputs_unmodified(self):
        """torch refuses, at the op, an in-place write to an argument inside forward (the
        identity's output is a view of it); numgrad sees the write once forward has returned."""
        for k, (alias, version) in enumerate(self.input_aliases):
            if alias._version != version:
                raise RuntimeError(_IN_PLACE_ERROR.format(k))

    def setup_output_hook(self, result):
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        self.n_outputs = len(outputs)
        index = [k for k, a in enumerate(outputs) if isinstance(a, Tensor)]
        wrapped, self.wrapped_outputs = self._wrap(outputs, index, self._on_output_grads)
        return wrapped[0] if single else wrapped

    def _wrap(self, values, index, on_backward):
        """values with its tensors that require grad replaced by the outputs of one identity
        Function, and their positions; (values, None) when none needs a gradient."""
        wrapped = [k for k in index if values[k]._requires_grad]
        if not (wrapped and grad_mode.is_grad_enabled()):
            return values, None
        aliases = BackwardHookFunction.apply(on_backward, *[values[k] for k in wrapped])
        new = list(values)
        for k, alias in zip(wrapped, aliases):
            new[k] = alias
        new = tuple(new) if type(values) is tuple else type(values)(*new)
        return new, wrapped

    def _on_output_grads(self, grads):
        received = dict(zip(self.wrapped_outputs, grads))
        self.grad_outputs = tuple(received.get(k) for k in range(self.n_outputs))
        for hook in self.pre_hooks:
            result = hook(self.module, self.grad_outputs)
            if result is None:
                continue
            if len(result) != self.n_outputs:
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(result)}, but expected {self.n_outputs}")
            self.grad_outputs = _checked(self.grad_outputs, tuple(result))
        grad_outputs = self.grad_outputs
        if self.wrapped_inputs is None:
            self._fire_without_input_grads()
        return [grad_outputs[k] for k in self.wrapped_outputs]

    def _fire_without_input_grads(self):
        """No argument needed a gradient: the hooks fire from the outputs' side, with grad_input
        all None, and may not replace it."""
        warnings.warn("Full backward hook is firing when gradients are computed with respect to "
                      "module outputs since no inputs require gradients. See "
                      "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                      "#torch.nn.Module.register_full_backward_hook for more details.",
                      stacklevel=2)
        grad_inputs = (None,) * self.n_inputs
        for hook in self.hooks:
            result = hook(self.module, grad_inputs, self.grad_outputs)
            if result is not None and not (isinstance(result, tuple)
                                           and all(r is None for r in result)):
                raise RuntimeError("Backward hook for Modules where no input requires gradient "
                                   "should always return None or None for all gradients.")
        self.grad_outputs = None

    def _on_input_grads(self, grads):
        if self.grad_outputs is None:
            # the gradient reached the inputs without passing through the outputs (a double
            # backward, say): torch calls no hook then
            return grads
        received = dict(zip(self.wrapped_inputs, grads))
        grad_inputs = [None] * self.n_inputs
        # as torch's identity Function, tensors with no gradient report zeros
        for k, (shape, dtype, device) in zip(self.input_index, self.input_specs):
            g = received.get(k)
            grad_inputs[k] = g if g is not None else zeros(shape, dtype=dtype, device=device)
        grad_inputs = tuple(grad_inputs)
        for hook in self.hooks:
            result = hook(self.module, grad_inputs, self.grad_outputs)
            if result is None:
                continue
            if len(result) != len(grad_inputs):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, got "
                                   f"{len(result)}, but expected {len(grad_inputs)}")
            grad_inputs = _checked(grad_inputs, tuple(result))
        self.grad_outputs = None
        return [grad_inputs[k] for k in self.wrapped_inputs]


def _checked(old, new):
    """A hook's replacement gradients, with torch's checks on each one that replaces a tensor
    (torch ignores what a hook returns in the place of a non-tensor)."""
    for before, after in zip(old, new):
        if after is None or before is None:
            continue
        if not isinstance(after, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(after).__name__}'")
        # torch's order: the type, then the size
        if after._data.dtype != before._data.dtype:
            raise RuntimeError(f"hook 'hook' has changed the type of value (was {before.type()} "
                               f"got {after.type()})")
        if after._data.shape != before._data.shape:
            raise RuntimeError("hook 'hook' has changed the size of value")
    return new
