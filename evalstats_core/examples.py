"""The bundled example results files, by name, from anywhere.

    >>> from evalstats_core import examples
    >>> examples.path("multilingual").name
    'multilingual_clustered.csv'
    >>> sorted(examples.EXAMPLES)
    ['atlas_breeze', 'code_samples', 'judged', 'multilingual', 'synthetic']

The same files open in the workbench (its "Example" picker) and on the command line
(``evalbars analyze --example multilingual``). They live in ``examples/`` at the repository root in a
checkout and in ``evalstats_app/site/examples`` in an installed wheel; :func:`path` finds them in
either, whatever the working directory. This module imports nothing heavy (the command line resolves
``--example`` before numpy or pandas load).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import EvalStatsError

__all__ = ["EXAMPLES", "EXAMPLES_DIR", "Example", "name_of", "path"]

_TOP = Path(__file__).resolve().parent.parent
#: The folder holding the bundled files (the wheel's data package, else the checkout's examples/).
EXAMPLES_DIR = (_TOP / "evalstats_app" / "site" / "examples" if (_TOP / "evalstats_app" / "site" / "examples").is_dir()
                else _TOP / "examples")


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
    "code_samples": Example("Code eval, 10 samples a problem (164 problems, 8 topics, 3 models): pass@k",
                            "code_samples.csv",
                            "each problem solved 10 times, 0/1 passed (long form; resample column 'attempt', "
                            "clusters 'topic')"),
    "judged": Example("LLM-judged, 15% human-labelled (2,000 questions, 3 models)", "judged_3_models.csv",
                      "a judge's verdicts on every answer and a human's on a random 300 questions (long form)"),
}


def path(name: str) -> Path:
    """The path of the bundled example ``name``: a key of :data:`EXAMPLES` or a file name in ``examples/``.

    Raises
    ------
    EvalStatsError
        No such example; the message lists them.
    """
    file = EXAMPLES[name].file if name in EXAMPLES else str(name)
    found = EXAMPLES_DIR / file
    if "/" in file or "\\" in file or file.startswith(".") or not found.is_file():
        raise EvalStatsError(f"example {name!r} does not exist; choose one of {', '.join(EXAMPLES)} "
                             f"(or a file in {EXAMPLES_DIR})")
    return found


def name_of(file: str | Path) -> str | None:
    """The name of the bundled example at ``file`` (the path :func:`path` gives, however spelled), else None.

    A command that read a bundled example is written with ``--example NAME``, not the file's path: the
    path is where the package happens to be installed (a home folder, site-packages), which a shared report
    should not carry and which does not exist on the reader's machine.

    >>> name_of(path("multilingual")), name_of("results.csv")
    ('multilingual', None)
    """
    try:
        found = Path(file).resolve()
    except (OSError, ValueError):
        return None
    for name, example in EXAMPLES.items():
        if found == (EXAMPLES_DIR / example.file).resolve():
            return name
    return None
