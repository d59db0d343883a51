"""How a file is read, as one typed value: the command line builds it from its flags, the workbench from its
widgets, and both read the files through it, so one set of files read with one set of choices gives one
answer on every surface (issue 19).

=====================  ============================================================================
``ReadingOptions``     every reading choice (layout, column roles, harness metric and filter, model
                       names per file, duplicates, scales, columns left out, runs, resample column)
``ReadingOptions.load``      the files read with those choices: :func:`~evalstats_core.data.load` for one,
                       :func:`~evalstats_core.data.load_many` for several
``ReadingOptions.prepare``   the same, reduced to question level (:func:`~evalstats_core.data.prepare`)
=====================  ============================================================================

The data layer takes these choices as keyword arguments; this module only gathers them. The command line
spelling of each choice lives with the command line (:func:`evalstats_core.cli.reading_flags`), which is
tested to parse back to the same options.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from .data import Prepared, extra_columns, load, load_many, question_scores
from .errors import EvalStatsError

__all__ = ["ReadingOptions"]


@dataclass(frozen=True, slots=True)
class ReadingOptions:
    """Every choice about how results files or harness logs are read (all default to "detect").

    Attributes
    ----------
    layout : {"long", "wide"} or None
        The table's layout; None detects it.
    question_col, model_col, score_col : str or None
        Columns that play these roles in a results table (None: found by name).
    cluster_col : str or None
        A results table's cluster column, or an Inspect log's metadata key; None lets the reader choose
        (a column named cluster/group/passage..., an Inspect key named subject..., lm-eval's subtask).
    duplicates : {"resamples", "error"}
        Several rows for one (question, model): averaged as resamples, or an error naming them.
    mixed_scales : {"error", "allow"}
        Models on different scales: an error naming them, or kept with a warning.
    ignore_cols : tuple of str
        Columns that play no role.
    runs_in_ids : bool
        Question ids like ``1.1``, ``1.2`` are runs of question ``1``.
    resample_col : str or None
        A column numbering the runs of a question.
    metric, harness_filter : str or None
        Harness logs: the lm-eval metric or Inspect scorer, and the lm-eval filter (None: the log's first).
    model_names : tuple of (str or None)
        One per file, in the order of the files: the model's name for a file (None: from the file).

    Examples
    --------
    >>> opts = ReadingOptions(duplicates="error")
    >>> ds = opts.load([b"question,model,score\\nq1,A,1\\nq2,A,0\\n"])
    >>> ds.models, ds.n_questions
    (('A',), 2)
    """

    layout: str | None = None
    question_col: str | None = None
    model_col: str | None = None
    score_col: str | None = None
    cluster_col: str | None = None
    duplicates: str = "resamples"
    mixed_scales: str = "error"
    ignore_cols: tuple[str, ...] = ()
    runs_in_ids: bool = False
    resample_col: str | None = None
    metric: str | None = None
    harness_filter: str | None = None
    model_names: tuple[str | None, ...] = ()

    def __post_init__(self) -> None:
        if self.layout not in (None, "long", "wide"):
            raise EvalStatsError(f"layout ({self.layout!r}) must be 'long', 'wide' or None (detect)")
        if self.duplicates not in ("resamples", "error"):
            raise EvalStatsError(f"duplicates ({self.duplicates!r}) must be 'resamples' or 'error'")
        if self.mixed_scales not in ("error", "allow"):
            raise EvalStatsError(f"mixed_scales ({self.mixed_scales!r}) must be 'error' or 'allow'")
        for field in ("ignore_cols", "model_names"):  # a list given by a caller is kept hashable
            if not isinstance(getattr(self, field), tuple):
                object.__setattr__(self, field, tuple(getattr(self, field)))

    def keywords(self) -> dict[str, Any]:
        """The keyword arguments of :func:`~evalstats_core.data.load_many` (and of ``load`` but for the
        model names, which ``load`` takes one at a time as ``model_name``)."""
        out: dict[str, Any] = {"format": self.layout, "question_col": self.question_col,
                               "model_col": self.model_col, "score_col": self.score_col,
                               "cluster_col": self.cluster_col, "duplicates": self.duplicates,
                               "mixed_scales": self.mixed_scales, "ignore_cols": self.ignore_cols,
                               "runs_in_ids": self.runs_in_ids, "resample_col": self.resample_col,
                               "metric": self.metric, "harness_filter": self.harness_filter}
        return {k: v for k, v in out.items() if v not in (None, (), False)
                or k in ("duplicates", "mixed_scales")}

    def _many(self, sources: list[Any]) -> dict[str, Any]:
        """``load``'s keywords for one source (its model name as ``model_name``), ``load_many``'s for several
        (the model names as ``model_names``: the file's name as given -> the model)."""
        names = self.model_names
        if len(names) > len(sources):
            raise EvalStatsError(f"{len(names)} model names for {len(sources)} files; give at most one per file")
        kw = self.keywords()
        if len(sources) == 1:
            if names and names[0]:
                kw["model_name"] = names[0]
            return kw
        given = {_source_name(s): n for s, n in zip(sources, names, strict=False) if n}
        if given:
            kw["model_names"] = given
        return kw

    def load(self, sources: list[Any], *, limits: Any = None) -> Any:
        """Read ``sources`` (each a path, bytes or ``(name, bytes)``) with these choices into a
        :class:`~evalstats_core.data.Dataset`: one file as :func:`~evalstats_core.data.load` reads it,
        several joined on the question as :func:`~evalstats_core.data.load_many` joins them."""

        sources = list(sources)
        kw = self._many(sources)
        if len(sources) == 1:
            one = sources[0]
            name, one = (str(one[0]), one[1]) if isinstance(one, tuple) else (None, one)
            return load(one, name=name, limits=limits, **kw)
        return load_many(sources, limits=limits, **kw)

    def prepare(self, sources: list[Any], *, limits: Any = None) -> Any:
        """:meth:`load`, reduced to question level with the unused columns
        (a :class:`~evalstats_core.data.Prepared`, as :func:`~evalstats_core.data.prepare` gives)."""

        dataset = self.load(sources, limits=limits)
        table = question_scores(dataset)
        clusters, texts = extra_columns(dataset, table)
        return Prepared(dataset, table, clusters, texts)


def _source_name(source: Any) -> str:
    """The name a file is known by: an upload's name, or a path as given."""

    if isinstance(source, tuple):
        return str(source[0])
    return os.fspath(source) if isinstance(source, str | os.PathLike) else repr(source)[:40]
