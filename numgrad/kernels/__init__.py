"""Compiled code: the scheduler, the lowering plan and the backward kernels (Numba).

`cache` is imported first so every function compiled here is cached under the stamped directory
(Note [cache stamp] in cache.py).
"""
from . import cache  # noqa: F401
