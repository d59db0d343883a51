"""The reader protocol (private): what every reader returns, and how several readings are joined.

Every reader — the CSV/Parquet reader (:mod:`evalstats_core._table`), a DataFrame, each harness importer
(:mod:`evalstats_core.importers`) and the analysis bundle — returns one frozen :class:`Records`: one row per
answer (question, model, score, the resample it belongs to, its cluster), the columns the reading did not
use by name, and notes. :func:`evalstats_core.data.validate` turns Records into a ``Dataset``;
:func:`concat` joins the Records of several files (no second parse, no round trip through a file).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import EvalStatsError

if TYPE_CHECKING:  # the labels are a pandas Index, or a numpy array of str from the small-CSV reader
    import pandas as pd

__all__ = ["Records", "from_columns", "concat"]


@dataclass(frozen=True, slots=True)
class Records:
    """One reading of one file (or several joined): one row per answer.

    Attributes
    ----------
    name, file_type : the file's name for messages, and what was read (``csv``, ``parquet``, ``lm_eval`` ...).
    q_codes, q_labels : question of each row, as codes into the labels (text: a pandas Index, or a numpy
        object array of str from the small-CSV reader, :mod:`evalstats_core._small_csv`).
    m_codes, m_labels : model of each row, likewise.
    score : float64 per row (finite; NaN never).
    resample : the run/epoch of each row (int64), or None when the reading has no run numbers.
    c_codes, c_labels, cluster_name : cluster of each row and the name it goes by (a column, a metadata key).
    identity : per row, what the question *is* beyond its id (task and dataset of an Inspect log, a
        promptfoo test's description and vars), or None; one id with two identities is refused in a join.
    unused : columns the reading did not use, by name, one text value per row.
    notes : what was chosen or inferred, in plain words.
    where : names the place of row ``i`` (``"row 7 of f.csv"``) for messages.
    layout : ``format``, ``question_col``, ``model_col``, ``score_col``, ``model_cols``, ``resample_col``.
    worded : scores were written as words (true/false) and read as 1/0.
    source_of : per row, the index of the file it came from (joins), or None.
    sources : the file names of a join.
    """

    name: str
    file_type: str
    q_codes: np.ndarray
    q_labels: pd.Index
    m_codes: np.ndarray
    m_labels: pd.Index
    score: np.ndarray
    where: Callable[[int], str]
    resample: np.ndarray | None = None
    c_codes: np.ndarray | None = None
    c_labels: pd.Index | None = None
    cluster_name: str | None = None
    identity: np.ndarray | None = None
    unused: dict[str, np.ndarray] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    layout: dict[str, Any] = field(default_factory=dict)
    worded: bool = False
    source_of: np.ndarray | None = None
    sources: tuple[str, ...] = ()


def _codes(values: Any) -> tuple[np.ndarray, pd.Index]:
    import pandas as pd  # heavy: the harness importers' path, never the small-CSV reader's

    codes, labels = pd.factorize(np.asarray(values, dtype=object))
    return codes.astype(np.int64), pd.Index(labels, dtype="str")


def from_columns(name: str, file_type: str, question: Sequence, model: Sequence, score: Sequence, *,
                 resample: Sequence | None = None, cluster: Sequence | None = None, cluster_name: str | None = None,
                 identity: Sequence | None = None, unused: dict[str, Sequence] | None = None,
                 notes: Sequence[str] = (), what: str = "sample") -> Records:
    """Records from per-row lists (an importer's output): ``what`` names a row in messages (``sample 3 of f``)."""
    q_codes, q_labels = _codes([str(q) for q in question])
    m_codes, m_labels = _codes([str(m) for m in model])
    c = None if cluster is None else _codes([str(x) for x in cluster])
    return Records(
        name=name, file_type=file_type, q_codes=q_codes, q_labels=q_labels, m_codes=m_codes, m_labels=m_labels,
        score=np.asarray(score, dtype=np.float64), where=lambda i: f"{what} {int(i) + 1} of {name}",
        resample=None if resample is None else np.asarray(resample, dtype=np.int64),
        c_codes=None if c is None else c[0], c_labels=None if c is None else c[1], cluster_name=cluster_name,
        identity=None if identity is None else np.asarray(identity, dtype=object),
        unused={k: np.asarray(v, dtype=object) for k, v in (unused or {}).items()}, notes=tuple(notes),
        layout={"format": file_type, "question_col": "question", "model_col": "model", "score_col": "score",
                "model_cols": ()})


def _labels(parts: list[Records], attr: str) -> tuple[np.ndarray, pd.Index]:
    """Codes and labels of ``attr`` (``q``, ``m`` or ``c``) over all parts, in order of first appearance."""
    values = np.concatenate([np.asarray(getattr(p, f"{attr}_labels"), dtype=object)[getattr(p, f"{attr}_codes")]
                             for p in parts])
    return _codes(values)


def _check_clashes(parts: list[Records]) -> None:
    """A (model, question) answered in two files is a file given twice or a clash: name both files."""
    import pandas as pd  # heavy: only when two files are joined

    cells = pd.concat([pd.DataFrame({"q": np.asarray(p.q_labels, dtype=object)[p.q_codes],
                                     "m": np.asarray(p.m_labels, dtype=object)[p.m_codes], "f": k}).drop_duplicates()
                       for k, p in enumerate(parts)], ignore_index=True)
    twice = cells.duplicated(["q", "m"], keep=False)
    if twice.any():  # vectorised: a join of large files is checked without a loop over its cells
        rows = cells[twice].sort_values("f", kind="stable")
        first = rows.iloc[0]
        other = rows[(rows["q"] == first["q"]) & (rows["m"] == first["m"])].iloc[1]
        raise EvalStatsError(f"model {first['m']!r} answers question {first['q']!r} in both {parts[first['f']].name} "
                             f"and {parts[other['f']].name}; give each (model, question) in one file only (e.g. one "
                             "file per model, or per task)")


def concat(parts: list[Records], label: str) -> Records:
    """Join the Records of several files on the question (no file is parsed again)."""
    _check_clashes(parts)
    notes = [n for p in parts for n in p.notes]
    q_codes, q_labels = _labels(parts, "q")
    m_codes, m_labels = _labels(parts, "m")
    clustered = [p.c_codes is not None for p in parts]
    c_codes = c_labels = cluster_name = None
    if all(clustered):
        c_codes, c_labels = _labels(parts, "c")
        named = {p.cluster_name for p in parts}
        cluster_name = next(iter(named)) if len(named) == 1 else "cluster"
    elif any(clustered):
        notes.append("only some files name a cluster for each question, so the analysis is not clustered")
    n = [p.score.size for p in parts]
    resample = (np.concatenate([p.resample if p.resample is not None else np.zeros(k, np.int64)
                                for p, k in zip(parts, n, strict=True)])
                if any(p.resample is not None for p in parts) else None)
    identity = (np.concatenate([p.identity if p.identity is not None else np.full(k, None, dtype=object)
                                for p, k in zip(parts, n, strict=True)])
                if any(p.identity is not None for p in parts) else None)
    names = [k for p in parts for k in p.unused]
    unused = {k: np.concatenate([p.unused.get(k, np.full(s, None, dtype=object)) for p, s in
                                 zip(parts, n, strict=True)]) for k in dict.fromkeys(names)}
    starts = np.cumsum([0, *n])
    source_of = np.repeat(np.arange(len(parts)), n)

    def where(i: int) -> str:
        k = int(source_of[i])
        return parts[k].where(int(i) - int(starts[k]))

    kinds = {p.file_type for p in parts}
    first = parts[0]
    layout = dict(first.layout) if len(kinds) == 1 else {**first.layout, "format": "joined"}
    return replace(first, name=label, file_type=kinds.pop() if len(kinds) == 1 else "joined", q_codes=q_codes,
                   q_labels=q_labels, m_codes=m_codes, m_labels=m_labels, score=np.concatenate([p.score for p in parts]),
                   where=where, resample=resample, c_codes=c_codes, c_labels=c_labels, cluster_name=cluster_name,
                   identity=identity, unused=unused, notes=tuple(notes), layout=layout,
                   worded=any(p.worded for p in parts), source_of=source_of, sources=tuple(p.name for p in parts))
