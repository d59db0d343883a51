"""How the command line spells the reading choices (the one place that does, with ``cli.py``).

The data layer records *what* was chosen (:attr:`Dataset.options <evalstats_core.data.Dataset.options>`,
keyword -> value, as :func:`~evalstats_core.data.load` takes them); :func:`reading_flags` writes the options
that repeat those choices in ``settings.command`` and the workbench's reproducible command.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from typing import Any

__all__ = ["FLAGS", "flag", "reading_flags"]

#: keyword of :func:`~evalstats_core.data.load` -> its command-line option
FLAGS = {"duplicates": "--duplicates", "mixed_scales": "--mixed-scales", "ignore_cols": "--ignore-col",
         "resample_col": "--resample-col", "runs_in_ids": "--runs-in-ids", "metric": "--metric",
         "cluster_col": "--cluster-col", "harness_filter": "--filter", "model_name": "--model-name",
         "question_col": "--question-col", "model_col": "--model-col", "score_col": "--score-col",
         "format": "--layout", "max_bytes": "--max-mb", "max_rows": "--max-rows", "max_models": "--max-models",
         "max_pairs": "--max-pairs", "baseline": "--baseline"}


def flag(keyword: str) -> str:
    """The command-line option of a :func:`~evalstats_core.data.load` keyword (or a budget), for messages.

    Examples
    --------
    >>> flag("ignore_cols"), flag("max_bytes")
    ('--ignore-col', '--max-mb')
    """
    return FLAGS[keyword]


def reading_flags(options: Iterable[tuple[str, Any]]) -> tuple[str, ...]:
    """The command-line options for ``options`` (pairs ``(keyword, value)`` in the order the CLI writes them).

    Examples
    --------
    >>> reading_flags([("duplicates", "error"), ("ignore_cols", ("n tokens",)), ("runs_in_ids", True)])
    ('--duplicates error', "--ignore-col 'n tokens'", '--runs-in-ids')
    """
    out = []
    for key, value in options:
        flag = FLAGS[key]
        if value is True:
            out.append(flag)
        else:
            out += [_option(flag, v) for v in (value if isinstance(value, tuple | list) else (value,))]
    return tuple(out)


def _option(flag: str, value: Any) -> str:
    """``--flag value`` quoted for a POSIX shell; ``--flag=value`` when the value starts with '-' (which argparse
    would otherwise read as an option)."""
    text = str(value)
    return f"{flag}={shlex.quote(text)}" if text.startswith("-") else f"{flag} {shlex.quote(text)}"
