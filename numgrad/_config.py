"""Settings read from the environment, and where compiled kernels are cached.

NUMGRAD_CACHE_DIR   root of the kernel cache (default: $NUMBA_CACHE_DIR/numgrad, else
                    $XDG_CACHE_HOME/numgrad or ~/.cache/numgrad). Each version of the kernel
                    sources gets its own subdirectory, named after their hash (Note [cache stamp]).
NUMGRAD_PARALLEL    1 to compile the big elementwise kernels with parallel=True (off by default:
                    on small, busy machines threads cost more than they give).
"""
import os

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def cache_root():
    explicit = os.environ.get("NUMGRAD_CACHE_DIR")
    if explicit:
        return explicit
    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    if numba_dir:
        return os.path.join(numba_dir, "numgrad")
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "numgrad")


PARALLEL = os.environ.get("NUMGRAD_PARALLEL", "0") == "1"
