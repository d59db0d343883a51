"""Command-line arguments settled before anything heavy is imported (numpy, pandas, scipy).

``--example NAME`` becomes the bundled file's path (:func:`evalstats_core.examples.path`), so
``evalbars analyze --example multilingual`` works from any directory; a FILE that does not exist is
refused in milliseconds, with the message the reader would give, instead of after the statistics load.
"""

from __future__ import annotations

import glob
import os

from .errors import EvalStatsError

__all__ = ["expand_examples", "missing_file"]


def expand_examples(argv: list[str]) -> list[str]:
    """``argv`` with every ``--example NAME`` / ``--example=NAME`` replaced by the example's path.

    Raises
    ------
    EvalStatsError
        An unknown example name (the message lists them), or ``--example`` without a name.
    """

    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":  # everything after is a file name
            out += argv[i:]
            break
        if arg == "--example" or arg.startswith("--example="):
            name = arg.partition("=")[2] if "=" in arg else (argv[i + 1] if i + 1 < len(argv) else "")
            if not name or name.startswith("-"):
                raise EvalStatsError("--example needs a name, e.g. --example multilingual")
            from .examples import path  # only for --example: pathlib and dataclasses cost ~10 ms (issue 25)

            out.append(str(path(name)))
            i += 1 if "=" in arg else 2
            continue
        out.append(arg)
        i += 1
    return out


def missing_file(files: list[str]) -> str | None:
    """The message for the first of ``files`` that does not exist (None when all do).

    ``-`` (standard input) is not a file; ``NAME=PATH`` names the model of the file ``PATH``.
    """
    for arg in files:
        if arg == "-" or os.path.exists(arg) or (glob.has_magic(arg) and glob.glob(arg)):  # a glob: --engine duckdb
            continue
        name, sep, rest = arg.partition("=")
        target = rest if sep and name and rest else arg
        if target == "-" or os.path.exists(target):
            continue
        return f"file '{target}' does not exist; check the path and the spelling"  # the reader's words
    return None
