"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode; thread-local like torch.

Each mode is a context manager and a decorator (of functions and of generators, whose body then
runs in the mode across yields); no_grad, enable_grad and inference_mode also decorate without
parentheses, as in torch.
"""
import functools
import inspect
import sys
import threading
import warnings


class _ModeState(threading.local):
    """Per thread: a new thread starts with grad mode on and inference mode off, as in torch."""

    def __init__(self):
        self.grad_mode = True        # is_grad_enabled()
        self.inference = False       # is_inference_mode_enabled()
        # Whether ops record the graph: grad mode on and inference mode off. Inference mode wins
        # even over enable_grad inside it, as in torch. The ops read this one flag.
        self.grad_enabled = True
        # (pack, unpack) of the innermost saved_tensors_hooks block, and the message of an
        # enclosing disable_saved_tensors_hooks (autograd/saved_hooks.py)
        self.saved_hooks = None
        self.saved_hooks_disabled = None
        # whether the masks where and masked_fill save are packed (composite_masks)
        self.pack_masks = True
        # The backward running in this thread (a fresh number per run; None outside one), and
        # whether it may reach a reentrant checkpoint: not one of autograd.grad or
        # backward(inputs=...) (autograd/api.py, utils/checkpoint.py)
        self.graph_task = None
        self.checkpoint_valid = True
        self.running_graph = None    # its LoweredGraph (autograd.graph.register_multi_grad_hook)
        # the order ready nodes run in: 0 torch's, 1 first in first out (autograd.trace's
        # order="fifo"; Note [ready order] in kernels/ready_queue.py)
        self.ready_order = 0


state = _ModeState()


class composite_masks:
    """Context manager: the where/masked_fill masks recorded inside are a composite's own
    constants (tril's triangle, the bounds of hardsigmoid), which torch's single op does not
    save: saved_tensors_hooks do not see them."""

    def __enter__(self):
        self._outer = state.pack_masks
        state.pack_masks = False

    def __exit__(self, *exc):
        state.pack_masks = self._outer


def _set(grad_mode, inference):
    state.grad_mode = grad_mode
    state.inference = inference
    state.grad_enabled = grad_mode and not inference


def is_grad_enabled():
    return state.grad_mode


def is_inference_mode_enabled():
    return state.inference


class _Mode:
    """A context manager that is also a decorator (a fresh instance per call, so nesting and
    recursion are safe). Subclasses say which (grad mode, inference mode) they enter."""

    def _target(self):
        raise NotImplementedError

    def clone(self):
        return self.__class__()

    def __enter__(self):
        self._saved = (state.grad_mode, state.inference)
        _set(*self._target())

    def __exit__(self, *exc):
        _set(*self._saved)
        return False

    def __call__(self, fn):
        if inspect.isclass(fn):
            warnings.warn("Decorating classes is deprecated and will be disabled in future "
                          "versions. You should only decorate functions or methods. To preserve "
                          "the current behavior of class decoration, you can directly decorate "
                          "the `__init__` method and nothing else.", FutureWarning, stacklevel=2)
            cls = fn
            fn = lambda *args, **kwargs: cls(*args, **kwargs)     # as torch: a function now
        if inspect.isgeneratorfunction(fn):
            return self._wrap_generator(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def _wrap_generator(self, fn):
        """Run each step of the generator in the mode, and the caller's code between steps not."""
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            gen = fn(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException:
                        with self.clone():
                            response = gen.throw(*sys.exc_info())
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as stop:
                return stop.value
        return wrapper


class _NoParamMode(_Mode):
    """A mode that also decorates without parentheses: `@no_grad` as well as `@no_grad()`."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamMode):
    """Record no graph inside the block: results have requires_grad=False.

    >>> x = numgrad.ones(2, requires_grad=True)
    >>> with numgrad.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def _target(self):
        return False, state.inference


class enable_grad(_NoParamMode):
    """Record the graph again inside a no_grad block (not inside inference_mode, as in torch).

    >>> with numgrad.no_grad():
    ...     with numgrad.enable_grad():
    ...         y = numgrad.ones(2, requires_grad=True) * 2
    >>> y.requires_grad
    True
    """

    def _target(self):
        return True, state.inference


class set_grad_enabled(_Mode):
    """Turn recording on or off: as a function call (takes effect at once), a context manager
    (restores the previous mode on exit) or a decorator.

    >>> _ = numgrad.set_grad_enabled(False)
    >>> numgrad.is_grad_enabled()
    False
    >>> _ = numgrad.set_grad_enabled(True)
    """

    def __init__(self, mode):
        if type(mode) is not bool:
            kind = type(mode)
            name = kind.__name__ if kind.__module__ == "builtins" else \
                f"{kind.__module__.split('.')[0]}.{kind.__name__}"
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {name}")
        self.mode = mode
        self._before_call = (state.grad_mode, state.inference)
        _set(self.mode, state.inference)

    def __enter__(self):
        # the call already switched the mode: restore what was there before it on exit
        self._saved = self._before_call

    def _target(self):
        return self.mode, state.inference

    def clone(self):
        return _GradModeBlock(self.mode)

    def __call__(self, fn):
        # used as a decorator: the switch the call made must not outlive the decoration
        _set(*self._before_call)
        return super().__call__(fn)


class _GradModeBlock(_Mode):
    """set_grad_enabled(mode) entered afresh for each call of a decorated function."""

    def __init__(self, mode):
        self.mode = mode

    def _target(self):
        return self.mode, state.inference


class inference_mode(_Mode):
    """Like no_grad, and tensors made inside are inference tensors: they cannot be saved for
    backward, nor changed in place outside the mode. inference_mode(False) inside the mode turns
    it off (and grad mode on) for a block.

    >>> with numgrad.inference_mode():
    ...     y = numgrad.ones(2) * 2
    >>> y.is_inference()
    True
    """

    def __new__(cls, mode=True):
        if callable(mode):
            return cls()(mode)        # @inference_mode without parentheses
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def _target(self):
        return not self.mode, self.mode

    def clone(self):
        return inference_mode(self.mode)


class set_multithreading_enabled:
    """torch's switch for running a backward on several threads (a function call, a context
    manager or a decorator). numgrad's backward runs on the calling thread either way: it changes
    nothing.
    """

    def __init__(self, mode):
        self.mode = bool(mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        return False

    def clone(self):
        return set_multithreading_enabled(self.mode)

    def __call__(self, fn):
        return fn
