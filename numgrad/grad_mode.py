"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode; thread-local like torch."""
import functools
import threading


class _ModeState(threading.local):
    def __init__(self):
        self.grad_enabled = True
        self.inference = False


state = _ModeState()


def is_grad_enabled():
    return state.grad_enabled


def is_inference_mode_enabled():
    return state.inference


class _Mode:
    """A context manager that is also a decorator (a fresh instance per call, so nesting is safe)."""

    def _enter(self):
        raise NotImplementedError

    def __enter__(self):
        self._saved = (state.grad_enabled, state.inference)
        self._enter()
        return self

    def __exit__(self, *exc):
        state.grad_enabled, state.inference = self._saved
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_Mode):
    """Record no graph inside the block: results have requires_grad=False.

    >>> x = numgrad.ones(2, requires_grad=True)
    >>> with numgrad.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def _enter(self):
        state.grad_enabled = False


class enable_grad(_Mode):
    """Record the graph again inside a no_grad block."""

    def _enter(self):
        state.grad_enabled = True


class set_grad_enabled(_Mode):
    """Turn recording on or off: as a function call, a context manager or a decorator."""

    def __init__(self, mode):
        self.mode = bool(mode)
        self._prev = state.grad_enabled
        state.grad_enabled = self.mode

    def __enter__(self):
        self._saved = (self._prev, state.inference)
        state.grad_enabled = self.mode
        return self

    def _enter(self):
        state.grad_enabled = self.mode

    def clone(self):
        current = state.grad_enabled
        clone = set_grad_enabled(self.mode)
        state.grad_enabled = current
        return clone


class inference_mode(_Mode):
    """Like no_grad, and tensors made inside are inference tensors that cannot be saved for backward."""

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def _enter(self):
        if self.mode:
            state.grad_enabled = False
            state.inference = True
        else:
            state.inference = False

    def clone(self):
        return inference_mode(self.mode)
