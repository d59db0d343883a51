"""The package's public surface: every listed name resolves to the object its module defines."""

import importlib
import pkgutil
import types

import evalstats_core


def test_every_public_name_resolves_to_a_function_or_class_even_after_all_imports():
    """Importing every submodule first must not shadow a public name with a module of that name."""
    for info in pkgutil.walk_packages(evalstats_core.__path__, "evalstats_core."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    for name in evalstats_core.__all__:
        value = getattr(evalstats_core, name)
        assert not isinstance(value, types.ModuleType), name


def test_issue_names_are_public():
    """The names the engine issue fixes are importable from the package."""
    for name in ("summarize", "compare", "proportion_ci", "mcnemar", "sample_size", "mde", "ppi_mean", "ppi_compare",
                 "judge_agreement", "labels_needed"):
        assert callable(getattr(evalstats_core, name))
