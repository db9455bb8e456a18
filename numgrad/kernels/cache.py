"""Disk cache for compiled code, in a directory stamped with a hash of the sources.

Note [cache stamp]
Numba decides whether a cached function is stale from its own file only: a cached kernel that
inlined a formula from another file would keep returning the old formula after an edit. So every
function numgrad compiles is cached under `<cache root>/<hash of all numgrad sources that kernels
are built from>/`; any edit to them starts a fresh directory.
"""
import hashlib
import importlib.util
import os
import sys

from numba.core import caching

from .. import _config

def _stamped_files():
    """The sources compiled code is built from: the kernels (CPU and CUDA: a CUDA kernel in one
    file of cuda/ may inline device functions of another) and the ops, whose files hold the
    formulas the kernels inline (an edit elsewhere keeps the cache). All of ops/, not the files
    of the registered formulas: the stamp is taken when the first kernel module is decorated,
    before the ops of nn_ops.py and elementwise_more.py, say, are registered, so those went
    unstamped and an edit of their formulas kept stale kernels."""
    files = []
    for folder in ("kernels", "cuda", "ops"):
        path = os.path.join(_config.PACKAGE_DIR, folder)
        files += [os.path.join(path, name) for name in os.listdir(path) if name.endswith(".py")]
    return sorted(files)


def _source_hash():
    digest = hashlib.sha256()
    for path in _stamped_files():
        with open(path, "rb") as f:
            digest.update(os.path.basename(path).encode() + b"\0" + f.read())
    return digest.hexdigest()[:16]


CACHE_DIR = os.path.join(_config.cache_root(), _source_hash())


def _ours(path):
    path = os.path.abspath(path)
    return path.startswith(_config.PACKAGE_DIR + os.sep) or path.startswith(CACHE_DIR + os.sep)


class StampedLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Puts numgrad's compiled functions (and only those) under CACHE_DIR."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(CACHE_DIR, os.path.splitext(os.path.basename(py_file))[0])

    def get_cache_path(self):
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file):
        if not _ours(py_file):
            return None
        return super().from_function(py_func, py_file)


if StampedLocator not in caching.CacheImpl._locator_classes:
    caching.CacheImpl._locator_classes.insert(0, StampedLocator)


def _read(path):
    """A file's text, or None when there is none."""
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return None


def generated_module(name, source):
    """Import generated kernel source as module `name` from a real file in CACHE_DIR (Numba
    caches only functions that live in real files). The file is rewritten only when the source
    changed, atomically, so concurrent processes never read half a file."""
    path = os.path.join(CACHE_DIR, name + ".py")
    if _read(path) != source:
        os.makedirs(CACHE_DIR, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
