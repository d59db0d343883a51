"""The bundled example results files the workbench opens (and the chapters' "Try it on data" links).

They live in ``examples/`` at the repository root in a checkout, and in ``evalstats_app/site/examples`` in an
installed wheel.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evalstats_core.errors import EvalStatsError

__all__ = ["EXAMPLES", "EXAMPLES_DIR", "Example", "example_bytes"]

_PKG = Path(__file__).resolve().parent
EXAMPLES_DIR = _PKG / "site" / "examples" if (_PKG / "site" / "examples").is_dir() else _PKG.parent / "examples"


@dataclass(frozen=True, slots=True)
class Example:
    """A bundled results file: ``label`` for the picker, ``file`` in ``examples/``, one-line ``blurb``."""

    label: str
    file: str
    blurb: str


EXAMPLES: dict[str, Example] = {
    "atlas_breeze": Example("Atlas vs Breeze (10 tasks, continuous)", "atlas_breeze.csv",
                            "two travel agents on the same 10 tasks, scores between 0 and 1 (wide form)"),
    "multilingual": Example("Multilingual, clustered (250 clusters of 10, binary, 3 models)",
                            "multilingual_clustered.csv",
                            "250 source questions asked in 10 languages; right/wrong scores (long form)"),
    "synthetic": Example("Synthetic benchmark, resampled (5 answers per question)", "synthetic_resampled.csv",
                         "400 questions, 3 models, each question answered 5 times (long form)"),
    "judged": Example("LLM-judged, 15% human-labelled (2,000 questions, 3 models)", "judged_3_models.csv",
                      "a judge's verdicts on every answer and a human's on a random 300 questions (long form)"),
}


def example_bytes(slug: str) -> tuple[bytes, str]:
    """The bytes and file name of the bundled example ``slug`` (a key of :data:`EXAMPLES`)."""
    if slug not in EXAMPLES:
        raise EvalStatsError(f"example {slug!r} does not exist; choose one of {', '.join(EXAMPLES)}")
    path = EXAMPLES_DIR / EXAMPLES[slug].file
    return path.read_bytes(), path.name
