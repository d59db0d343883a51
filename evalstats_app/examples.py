"""The bundled example results files the workbench opens (and the chapters' "Try it on data" links).

The list and the files' folder are the core's (:mod:`evalstats_core.examples`, which the command line's
``--example NAME`` and notebooks use too); this module adds what the workbench reads: the bytes.
"""

from __future__ import annotations

from evalstats_core.errors import EvalStatsError
from evalstats_core.examples import EXAMPLES, EXAMPLES_DIR, Example

__all__ = ["EXAMPLES", "EXAMPLES_DIR", "Example", "example_bytes"]


def example_bytes(slug: str) -> tuple[bytes, str]:
    """The bytes and file name of the bundled example ``slug`` (a key of :data:`EXAMPLES`)."""
    if slug not in EXAMPLES:
        raise EvalStatsError(f"example {slug!r} does not exist; choose one of {', '.join(EXAMPLES)}")
    path = EXAMPLES_DIR / EXAMPLES[slug].file
    return path.read_bytes(), path.name
