"""The validated results file (:class:`Dataset`): what :func:`evalstats_core.data.load` returns, in tidy form
with what was inferred about it. Public as :class:`evalstats_core.data.Dataset`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ._columns import tidy_frame
from .errors import EvalStatsError

if TYPE_CHECKING:  # pandas is imported when Dataset.frame is first asked for: a small CSV is analyzed without it
    import pandas as pd


@dataclass(frozen=True, slots=True)
class Dataset:
    """A validated results file in tidy form.

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per answer: ``question`` and ``model`` (categorical, labels as text), ``score`` (float64,
        finite), ``resample`` (int64: the run or epoch, when the reading has them) and ``cluster``
        (categorical) when a cluster column is used. Built from ``tidy`` when first asked for (and kept), so
        that an analysis that never needs it never imports pandas.
    tidy : dict
        The same columns as codes and labels: ``question``, ``model`` (and ``cluster``) as ``(codes of each
        row, labels)``, ``score`` (and ``resample``) as arrays; :func:`question_scores` reads these.
    name : str
        The file name used in messages and reports.
    format : str
        ``"long"`` or ``"wide"``: the layout that was read.
    file_type : str
        ``"csv"`` or ``"parquet"``.
    question_col, model_col, score_col, cluster_col : str or None
        The columns of the file that played each role (``model_col``/``score_col`` are None in wide form).
    model_cols : tuple of str
        Wide form: the columns read as models (empty in long form).
    models : tuple of str
        Model names in order of first appearance.
    score_kind : str
        ``"binary"`` when every score is 0 or 1, else ``"continuous"``.
    n_rows, n_questions : int
        Answers read; distinct questions.
    k_min, k_max, k_typical : int
        Answers per (model, question) that was answered: smallest, largest and most common. K > 1 means
        resamples, which :func:`question_scores` averages.
    n_clusters : int or None
        Distinct clusters (None without a cluster column).
    cluster_size_min, cluster_size_max : int or None
        Questions per cluster, smallest and largest.
    cluster_size_mean : float or None
        Mean questions per cluster.
    reading : tuple of str
        Command-line options that repeat the reading choices (written by :mod:`evalstats_core.flags`).
    extra : dict or None
        The file's other columns from the same parse (at most 20): ``{"__question__": question id of each
        row of ``frame``, column: its text on each row}`` (kept for older callers; see ``unused``).
    options : tuple of (str, object)
        The reading choices that differ from the defaults, as :func:`load` keywords and their values.
    unused : dict of str -> numpy.ndarray
        The columns no role used, by name (at most 20; an Inspect log's ``metadata.<key>``), one text value
        per row of ``frame``; :meth:`column` gets one by name.
    sources : tuple of str
        The names of the files read (several for :func:`load_many`).
    notes : tuple of str
        What was inferred (layout, columns, coding of true/false, partial coverage), in plain words.
    warnings : tuple of str
        What the reader should check (repeated rows with different scores, mixed scales allowed).
    """

    tidy: dict
    name: str
    format: str
    file_type: str
    question_col: str
    model_col: str | None
    score_col: str | None
    cluster_col: str | None
    model_cols: tuple[str, ...]
    models: tuple[str, ...]
    score_kind: str
    n_rows: int
    n_questions: int
    k_min: int
    k_max: int
    k_typical: int
    n_clusters: int | None
    cluster_size_min: int | None
    cluster_size_max: int | None
    cluster_size_mean: float | None
    notes: tuple[str, ...]
    warnings: tuple[str, ...] = ()
    reading: tuple[str, ...] = ()
    extra: dict | None = None
    options: tuple[tuple[str, Any], ...] = ()
    unused: dict | None = None
    sources: tuple[str, ...] = ()
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)  # the frame, once built

    @property
    def frame(self) -> pd.DataFrame:
        """The tidy frame (see the class docstring), built on first use from :attr:`tidy` and kept."""
        if "frame" not in self._cache:

            self._cache["frame"] = tidy_frame(self.tidy)
        return self._cache["frame"]

    def column(self, name: str) -> np.ndarray:
        """An unused column of the file by name, one text value per row of :attr:`frame` (e.g. a ``human``
        label column for a judge), or an :class:`EvalStatsError` naming the columns there are.

        Examples
        --------
        >>> from evalstats_core.data import load
        >>> ds = load(b"question,model,score,human\\nq1,A,1,1\\nq2,A,0,1\\n", name="j.csv")
        >>> ds.column("human").tolist()
        ['1', '1']
        """
        unused = self.unused or {}
        if name not in unused:
            raise EvalStatsError(f"{self.name} has no unused column {name!r}; its unused columns are: "
                                 f"{', '.join(map(repr, unused)) or 'none'}")
        return unused[name]
