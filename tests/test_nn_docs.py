"""The examples in the docstrings of nn, optim, utils.data and save/load run and print what they
show (doctest, with numgrad imported as ng and numgrad.nn.functional as F)."""
import doctest
import importlib
import pkgutil

import pytest

import numgrad
import numgrad.nn.functional as F

PACKAGES = ["numgrad.nn", "numgrad.optim", "numgrad.utils"]
MODULES = sorted({info.name for package in PACKAGES
                  for info in pkgutil.walk_packages(importlib.import_module(package).__path__,
                                                    package + ".")}
                 | set(PACKAGES) | {"numgrad.serialization", "numgrad.ops.nn_ops"})


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    globs = {"ng": numgrad, "numgrad": numgrad, "F": F, "nn": numgrad.nn}
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name, globs=dict(globs, **vars(module))):
        test.globs.update(globs)
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} docstring example(s) failed in {name}"
