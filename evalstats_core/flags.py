"""How the command line spells the API's options (the one place that does, with ``cli.py``).

The data layer records *what* was chosen (:attr:`Dataset.options <evalstats_core.data.Dataset.options>`,
keyword -> value, as :func:`~evalstats_core.data.load` takes them); :func:`reading_flags` writes the options
that repeat those choices in ``settings.command`` and the workbench's reproducible command, and
:func:`analysis_flags` those that repeat the analysis's settings (:data:`ANALYSIS_DEFAULTS`).

Messages have one vocabulary: the core names an option by its keyword, as the API takes it (``question_col=``,
``duplicates='error'``, ``runs_in_ids=True``, ``limits=Limits(max_rows=...)``), and each surface respells it
(:func:`respell`): the command line with :func:`for_cli` (``--question-col``, ``--duplicates error``), the
workbench with the names of its controls (:mod:`evalstats_app.option_words`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["FLAGS", "OPTIONS", "ANALYSIS_DEFAULTS", "flag", "reading_flags", "analysis_flags", "respell", "for_cli",
           "literal"]

#: keyword of :func:`~evalstats_core.data.load` -> its command-line option
FLAGS = {"duplicates": "--duplicates", "mixed_scales": "--mixed-scales", "ignore_cols": "--ignore-col",
         "resample_col": "--resample-col", "runs_in_ids": "--runs-in-ids", "metric": "--metric",
         "cluster_col": "--cluster-col", "harness_filter": "--filter", "model_name": "--model-name",
         "question_col": "--question-col", "model_col": "--model-col", "score_col": "--score-col",
         "format": "--layout", "max_bytes": "--max-mb", "max_rows": "--max-rows", "max_models": "--max-models",
         "max_pairs": "--max-pairs", "baseline": "--baseline"}


#: every keyword a message may name -> its command-line option (``use_clusters=False`` is ``--no-clusters``)
OPTIONS = {**FLAGS, "interval": "--interval", "method": "--cluster-se", "confidence": "--confidence",
           "adjust": "--adjust", "use_clusters": "--no-clusters", "engine": "--engine", "margin": "--margin",
           "human_col": "--human-col", "labels": "--labels", "labels_all_models": "--labels-all-models",
           "wild_bootstrap": "--wild-bootstrap",
           "paired": "--unpaired", "n_boot": "--n-boot", "seed": "--seed", "pass_at": "--pass-at",
           "anchor": "--anchor", "strong_weight": "--strong-weight"}  # the last two: evalbars pairwise

#: the options whose command-line switch turns the keyword off (``use_clusters=False``, ``paired=False``)
_NEGATED = frozenset({"use_clusters", "paired"})

#: the settings of :func:`~evalstats_core.analysis.analyze` that the reproducible command repeats (after how the
#: file was read), in its order: keyword -> its default, which the command leaves out (:func:`analysis_flags`)
ANALYSIS_DEFAULTS = {"baseline": None, "confidence": 0.95, "adjust": "holm", "paired": True, "use_clusters": True,
                     "method": "cr2", "interval": "auto", "wild_bootstrap": False, "n_boot": 9999, "seed": 0}
#: the settings that count only with the wild bootstrap (the command writes them only with ``--wild-bootstrap``)
_BOOTSTRAP = frozenset({"n_boot", "seed"})
#: ``keyword=`` with an optional literal value (``True``, ``'text'``, ``('text',)``, a number or word), or a budget
#: ``limits=Limits(max_rows=...)``; only keywords of :data:`OPTIONS` are respelled.
_NAMED = re.compile(r"(?<![\w.=])(?:limits=Limits\((?P<budget>max_\w+)=\.\.\.\)"
                    r"|(?P<key>[a-z][a-z_]*)=(?P<value>True|False|'[^'\n]*'|\('[^'\n]*',\)|[\w.+-]+)?)")


def respell(message: str, spell: Callable[[str, str | None], str | None]) -> str:
    """``message`` with every option it names respelled by ``spell(keyword, value)``.

    ``value`` is the literal after ``keyword=`` as written (``"True"``, ``"'error'"``, ``"('a b',)"``, ``"0.5"``), None when
    nothing follows; a budget ``limits=Limits(max_rows=...)`` is the keyword ``max_rows`` with no value. Where
    ``spell`` returns None, or the keyword is not an option, the text stays as written.

    Examples
    --------
    >>> respell("pass question_col= or duplicates='error'", lambda k, v: k.upper() + (f"<{v}>" if v else ""))
    "pass QUESTION_COL or DUPLICATES<'error'>"
    """
    def one(m: re.Match) -> str:
        key = m.group("budget") or m.group("key")
        if key not in OPTIONS:
            return m.group(0)
        out = spell(key, m.group("value"))
        return m.group(0) if out is None else out
    return _NAMED.sub(one, message)


def for_cli(message: str) -> str:
    """``message`` in the command line's words: each option it names as the command line spells it.

    Examples
    --------
    >>> for_cli("pass question_col= (or duplicates='error'), runs_in_ids=True, use_clusters=False")
    'pass --question-col (or --duplicates error), --runs-in-ids, --no-clusters'
    >>> for_cli("raise it with limits=Limits(max_rows=...) or EVALSTATS_MAX_ROWS; margin=0.5")
    'raise it with --max-rows or EVALSTATS_MAX_ROWS; --margin 0.5'
    >>> for_cli("leave it out with ignore_cols=('n tokens',)")
    "leave it out with --ignore-col 'n tokens'"
    """
    def spell(key: str, value: str | None) -> str | None:
        name = OPTIONS[key]
        if value in ("True", "False"):  # a switch: on, or off for the one option that turns one off
            return name if (value == "False") == (key in _NEGATED) else None
        if value is None:
            return name
        return _option(name, literal(value))
    return respell(message, spell)


def literal(value: str) -> str:
    """The text of a value as :func:`respell` passes it: ``'error'`` -> ``error``, ``('a b',)`` -> ``a b``."""
    if value.startswith("("):
        return value[2:-3]
    return value[1:-1] if value.startswith("'") else value


def flag(keyword: str) -> str:
    """The command-line option of a :func:`~evalstats_core.data.load` keyword (or a budget); messages name the
    keyword instead and the command line respells it (:func:`for_cli`).

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
        flag = OPTIONS[key]  # FLAGS and the judge's human_col (a scorer or a column the command must name)
        if value is True:
            out.append(flag)
        else:
            out += [_option(flag, v) for v in (value if isinstance(value, tuple | list) else (value,))]
    return tuple(out)


def analysis_flags(values: Mapping[str, Any]) -> tuple[str, ...]:
    """The command-line options that repeat the analysis settings ``values`` (keyword of
    :data:`ANALYSIS_DEFAULTS` -> value): each that is not its default, in that order; a switch bare.

    Examples
    --------
    >>> analysis_flags({**ANALYSIS_DEFAULTS, "baseline": "gpt 4", "paired": False, "confidence": 0.9, "seed": 3})
    ("--baseline 'gpt 4'", '--confidence 0.9', '--unpaired')
    >>> analysis_flags({**ANALYSIS_DEFAULTS, "wild_bootstrap": True, "seed": 3})
    ('--wild-bootstrap', '--seed 3')
    """
    out = []
    for key, default in ANALYSIS_DEFAULTS.items():
        value = values[key]
        if value == default or (key in _BOOTSTRAP and not values["wild_bootstrap"]):
            continue
        out.append(OPTIONS[key] if isinstance(default, bool) else _option(OPTIONS[key], value))
    return tuple(out)


def _option(flag: str, value: Any) -> str:
    """``--flag value`` quoted for a POSIX shell; ``--flag=value`` when the value starts with '-' (which argparse
    would otherwise read as an option)."""
    text = str(value)
    return f"{flag}={shlex.quote(text)}" if text.startswith("-") else f"{flag} {shlex.quote(text)}"
