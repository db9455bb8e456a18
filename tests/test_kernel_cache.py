"""The kernel cache's stamp (Note [cache stamp] in kernels/cache.py): compiled kernels inline the
op formulas, so every file holding one must be part of the hash that names the cache directory."""
import inspect

import numgrad  # noqa: F401  (registers every op)
from numgrad.kernels import cache
from numgrad.ops import fmath, registry


def test_the_stamp_covers_the_file_of_every_formula_the_kernels_inline():
    formula_files = {inspect.getsourcefile(fmath)}
    for op in registry.OPS:
        formula_files.update(inspect.getsourcefile(f) for f in op.grads or () if f is not None)
    assert formula_files <= set(cache._stamped_files())


def test_the_stamp_taken_at_import_is_the_stamp_of_the_whole_package():
    # taken when the first kernel module is decorated, it must not miss the ops registered later
    assert cache.CACHE_DIR.endswith(cache._source_hash())
