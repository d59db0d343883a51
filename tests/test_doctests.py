"""The documented API stays true: every docstring example in evalstats_core runs and prints what it shows."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import warnings

import pytest

import evalstats_core
from evalstats_core.errors import EvalStatsWarning

MODULES = sorted(m.name for m in pkgutil.walk_packages(evalstats_core.__path__, "evalstats_core.")
                 if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)  # examples with few clusters warn by design
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"


def test_the_core_has_examples():
    """The modules that hold the statistics carry examples (a test that finds none cannot fail)."""
    counts = {}
    for name in ("evalstats_core.clustering", "evalstats_core.comparison", "evalstats_core.intervals",
                 "evalstats_core.analysis", "evalstats_core.power"):
        finder = doctest.DocTestFinder()
        counts[name] = sum(len(t.examples) for t in finder.find(importlib.import_module(name)))
    assert all(n > 0 for n in counts.values()), counts
