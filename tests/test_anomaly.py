"""detect_anomaly / set_detect_anomaly: the node that returned NaN (or Inf) is named, with the
forward stack that recorded it; errors leave .grad alone; the mode costs nothing when off."""
import gc
import math
import warnings
import weakref

import numpy as np
import pytest

import numgrad as ng
from numgrad import tape
from numgrad.autograd import anomaly, detect_anomaly, set_detect_anomaly
from numgrad.ops import apply


@pytest.fixture(autouse=True)
def mode_off():
    yield
    set_detect_anomaly(False)


def quiet_anomaly():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return detect_anomaly()


def test_where_sqrt_trap_names_sqrt_and_shows_the_forward_line():
    x = ng.tensor([-1., 4.], requires_grad=True)
    with quiet_anomaly():
        with np.errstate(invalid="ignore"):
            y = ng.where(x > 0, x.sqrt(), ng.zeros(2)).sum()     # sqrt(-1) = nan, masked out
        with pytest.warns(UserWarning, match=r"(?s)Error detected in SqrtBackward0.*"
                                             r"Traceback of forward call.*x\.sqrt\(\)"):
            with pytest.raises(RuntimeError, match=r"^Function 'SqrtBackward0' returned nan "
                                                   r"values in its 0th output\.$"):
                y.backward()
    assert x.grad is None                    # the error left .grad as it was


def test_div_names_the_output_index():
    x = ng.tensor([1., np.inf], requires_grad=True)
    y = ng.tensor([2., np.inf], requires_grad=True)
    with quiet_anomaly(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(invalid="ignore"):
            z = (x / y).sum()
        # d/dx = 1/y is finite; d/dy = -x/y^2 = -inf/inf is nan
        with pytest.raises(RuntimeError, match="Function 'DivBackward0' returned nan values in "
                                               "its 1th output"):
            z.backward()


def test_an_infinite_gradient_is_no_anomaly_as_in_torch():
    x = ng.tensor([1000., 1.], dtype=ng.float64, requires_grad=True)
    with set_detect_anomaly(True), warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(over="ignore"):
            y = x.exp().sum()                   # d exp(x) = exp(x): inf at 1000
        y.backward()
    assert x.grad.tolist() == [math.inf, math.e]


def test_nodes_recorded_outside_the_mode_have_no_stack():
    x = ng.tensor([-1.], requires_grad=True)
    with np.errstate(invalid="ignore"):
        y = x.sqrt().sum()
    set_detect_anomaly(True)
    with pytest.warns(UserWarning, match="No forward pass information available"):
        with pytest.raises(RuntimeError, match="SqrtBackward0"):
            y.backward()


def test_finite_backward_passes_and_check_nan_false_skips_the_check():
    x = ng.tensor([-1., 4.], requires_grad=True)
    with quiet_anomaly():
        (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-2., 8.])
    with np.errstate(invalid="ignore"):
        y = x.sqrt().sum()
    with set_detect_anomaly(True, check_nan=False):
        assert ng.autograd.is_anomaly_enabled()
        assert not ng.autograd.is_anomaly_check_nan_enabled()
        y.backward()
    assert np.isnan(x.grad.numpy()[0])


def test_mode_switches_and_restores_and_the_hook_is_off_when_off():
    assert not anomaly.is_anomaly_enabled() and apply.on_record is None
    set_detect_anomaly(True)
    assert anomaly.is_anomaly_enabled() and apply.on_record is anomaly.on_record
    with set_detect_anomaly(False):
        assert apply.on_record is None
    assert apply.on_record is anomaly.on_record
    set_detect_anomaly(False)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        mode = detect_anomaly()
    with mode:
        assert anomaly.is_anomaly_enabled()
    assert not anomaly.is_anomaly_enabled() and apply.on_record is None


def test_stacks_are_strings_in_the_segment_and_die_with_the_graph():
    tape.close_segment(tape.current_segment())
    x = ng.tensor(2., requires_grad=True)
    with quiet_anomaly():
        y = x * 3
    seg = y._seg
    assert "y = x * 3" in anomaly.forward_stack(seg, y._node)
    gone = weakref.ref(seg)
    del seg, y
    tape.close_segment(tape.current_segment())
    gc.disable()
    try:
        assert gone() is None                 # reference counting alone freed it: no cycle
    finally:
        gc.enable()


def test_division_by_zero_reports_nan_before_inf_like_torch():
    x = ng.tensor([0., 1.], dtype=ng.float64, requires_grad=True)
    with quiet_anomaly(), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        y = (x / x).sum()
        # output 0 is 1/x = inf, output 1 is -x/x^2 = nan: torch names the nan one
        with pytest.raises(RuntimeError, match="'DivBackward0' returned nan values in its 1th"):
            y.backward()
