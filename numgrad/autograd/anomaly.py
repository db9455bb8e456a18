"""Anomaly detection: remember where each node was recorded, and name the node whose backward
produced NaN, showing that forward stack.

While the mode is on, `ops/apply.py` calls `on_record` for each recorded node (through its hook,
None otherwise, so recording pays one test). The formatted stack is kept as a string in the node's
segment's `python` dict under ('stack', node id): it dies with the graph and makes no cycle.

After each backward the check reads the gradients the engine summed; only when one holds a NaN
does it replay the run (trace.replay) to find the first node, in run order, whose results hold
one although it ran on the engine's real inputs. As in torch, an infinite gradient is no anomaly.
"""
import os
import sys
import traceback
import warnings

import numpy as np

enabled = False
_check_nan = True

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def on_record(seg, node):
    """Keep the forward stack of a node being recorded, without numgrad's own innermost frames."""
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(_PACKAGE):
        frames.pop()
    seg.python[("stack", node)] = "".join(traceback.format_list(frames))


def forward_stack(seg, node):
    """The stack recorded for a node, or None when anomaly mode was off while it was recorded."""
    return seg.python.get(("stack", node))


def is_anomaly_enabled():
    return enabled


def is_anomaly_check_nan_enabled():
    return _check_nan


def _set(mode, nan):
    global enabled, _check_nan
    from ..ops import apply
    from . import api
    enabled, _check_nan = bool(mode), bool(nan)
    apply.on_record = on_record if enabled else None      # the recording hot path tests only this
    if enabled and _check not in api.observers:
        api.observers.append(_check)
    elif not enabled and _check in api.observers:
        api.observers.remove(_check)


class set_detect_anomaly:
    """Turn anomaly detection on or off: at once when called, and back as it was when used as a
    context manager.

    >>> with numgrad.autograd.set_detect_anomaly(True):
    ...     numgrad.autograd.is_anomaly_enabled()
    True
    """

    def __init__(self, mode, check_nan=True):
        self._previous = (enabled, _check_nan)
        _set(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _set(*self._previous)
        return False


class detect_anomaly:
    """Inside the block, nodes remember the forward stack that recorded them, and a backward whose
    node returns NaN raises RuntimeError naming it (the forward stack comes as a warning).

    >>> x = numgrad.tensor(0., requires_grad=True)
    >>> with numgrad.autograd.detect_anomaly():               # doctest: +SKIP
    ...     (x / x).backward()
    RuntimeError: Function 'DivBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and "
                      "should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        self._previous = (enabled, _check_nan)
        _set(True, self.check_nan)

    def __exit__(self, *exc):
        _set(*self._previous)
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


def _bad(array):
    """Whether an array holds a NaN."""
    return array is not None and bool(np.isnan(array).any())


def _check(graph, read):
    """The observer run after each backward while anomaly mode is on."""
    if not _check_nan:
        return
    from .trace import replay, summed_grads
    order = graph.order[:graph.n_order].tolist()
    grads = summed_grads(graph, read, order)
    if not any(_bad(g) for g in grads.values()):
        return
    for i, in_grads in replay(graph, order, grads):
        bad = [_bad(g) for g in in_grads]
        if any(bad):
            _report(graph, i, bad.index(True))


def _user_stacklevel():
    """The stacklevel of the first caller outside numgrad: the warning points at the backward."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level


def _report(graph, index, k):
    name = warn_error_in(graph, index)
    raise RuntimeError(f"Function '{name}' returned nan values in its {k}th output.")


def warn_error_in(graph, index):
    """torch's warning naming the node (a position in graph) where a backward failed, with the
    forward stack that recorded it. Returns the node's name."""
    from ..node import node_view
    seg, node = graph.locate(index)
    name = node_view(seg, node).name()      # torch's name(): torch::autograd::AccumulateGrad
    stack = forward_stack(seg, node)
    if stack is None:
        message = (f"Error detected in {name}. No forward pass information available. Enable "
                   "detect anomaly during forward pass for more information.")
    else:
        message = (f"Error detected in {name}. Traceback of forward call that caused the "
                   f"error:\n{stack}")
    warnings.warn(message, UserWarning, stacklevel=_user_stacklevel())
    return name
