"""Window functions for signal processing, as torch makes them: hann, hamming, blackman,
bartlett and kaiser windows. A periodic window of length L is the symmetric one of length L + 1
without its last value (what a DFT of length L wants)."""
import numpy as np

from . import creation, dtypes


def _window(name, window_length, periodic, dtype, device, requires_grad, values_of):
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window length, got window_length="
                           f"{window_length}")
    dtype = dtypes.get_default_dtype() if dtype is None else np.dtype(dtype)
    if not dtypes.is_floating(dtype):
        raise RuntimeError(f"{name} expects floating point dtypes, got: "
                           f"{dtypes.name(dtype)}")
    if window_length <= 1:
        values = np.ones(window_length)
    else:
        count = window_length + 1 if periodic else window_length
        values = values_of(np.arange(count, dtype=np.float64), count - 1)[:window_length]
    return creation.tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                requires_grad=False):
    """0.5 - 0.5 cos(2 pi n / N).

    >>> import numgrad as ng
    >>> ng.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, last: 0.5 - 0.5 * np.cos(2 * np.pi * n / last))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, requires_grad=False):
    """alpha - beta cos(2 pi n / N)."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, last: alpha - beta * np.cos(2 * np.pi * n / last))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)."""
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, last: (0.42 - 0.5 * np.cos(2 * np.pi * n / last)
                                    + 0.08 * np.cos(4 * np.pi * n / last)))


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """The triangle 1 - |2n / N - 1|."""
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, last: 1 - np.abs(2 * n / last - 1))


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, requires_grad=False):
    """I0(beta sqrt(1 - (2n / N - 1)^2)) / I0(beta), I0 the modified Bessel function."""
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad,
                   lambda n, last: np.i0(beta * np.sqrt(np.clip(1 - (2 * n / last - 1) ** 2, 0,
                                                                None))) / np.i0(beta))
