"""The one validator (private): a reader's :class:`~evalstats_core._records.Records` to a ``Dataset``'s fields.

Every reading — a CSV or Parquet file, a DataFrame, a harness log, several files joined — passes the same
rules here: question ids that look like runs (``1.1`` of ``1``) or like scores, one identity per question
id (logs of different tasks are never paired), at least two questions and two answered per model, rows
repeated for one (question, model) — or (question, model, epoch) in a harness log — named or refused,
one scale for every model, one cluster per question, and the unused columns kept by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._cells import cell_counts
from ._checks import (
    question_col_looks_like_scores,
    repeated,
    resamples_note,
    runs_in_ids,
    runs_warning,
    scales,
)
from ._columns import CLUSTERED_ON, code_dtype, question_clusters, unread_clusters
from ._records import Records
from .errors import EvalStatsError
from .flags import reading_flags

if TYPE_CHECKING:  # the labels may be a numpy array (the small-CSV reader): pandas is imported where needed
    import pandas as pd

__all__ = ["validate", "same_questions"]


def _table_options(o: dict) -> list[tuple[str, Any]]:
    """The reading choices that differ from the defaults, in the order the command line writes them."""
    out: list[tuple[str, Any]] = []
    if o.get("duplicates", "resamples") != "resamples":
        out.append(("duplicates", o["duplicates"]))
    if o.get("mixed_scales", "error") != "error":
        out.append(("mixed_scales", o["mixed_scales"]))
    ignored = tuple(c for c in o.get("ignore_cols") or () if c != o.get("resample_col"))
    out += [("ignore_cols", ignored)] if ignored else []
    out += [("resample_col", o["resample_col"])] if o.get("resample_col") is not None else []
    out += [("runs_in_ids", True)] if o.get("runs_in_ids") else []
    return out


def _harness_options(o: dict) -> list[tuple[str, Any]]:
    keys = ("metric", "cluster_col", "harness_filter", "model_name")
    return [(k, o[k]) for k in keys if o.get(k)]


def validate(records: Records, options: dict[str, Any]) -> dict[str, Any]:
    """Records to the fields of a ``Dataset``: runs in ids, repeats, one scale, clusters, identities."""
    o, label, notes, warnings = options, records.name, list(records.notes), []
    q_codes, q_labels, m_codes, m_labels = records.q_codes, records.q_labels, records.m_codes, records.m_labels
    runs = runs_in_ids(q_labels)
    question_col_looks_like_scores(q_labels, records.layout.get("question_col") or "question", label, runs is not None)
    if runs is not None and o.get("runs_in_ids"):
        import pandas as pd  # heavy: run ids in question ids only

        stripped, n_runs = runs
        new_codes, q_labels = pd.factorize(np.asarray(stripped, dtype=object)[q_codes])
        q_codes, q_labels = new_codes.astype(np.int64), pd.Index(q_labels)
        notes.append(f"question ids such as '{n_runs[0]}' were read as runs of their question ('{n_runs[1]}'): "
                     f"{n_runs[2]:,} ids became runs of {q_labels.size:,} questions")
    elif runs is not None:
        warnings.append(runs_warning(runs[1]))
    if records.identity is not None:
        same_questions(q_codes, q_labels, records)
    n_q, n_m = q_labels.size, m_labels.size
    if n_q < 2:
        raise EvalStatsError(f"{label} has only {n_q} question ('{q_labels[0]}'); the statistics need at least two "
                             "questions (and a few hundred for trustworthy intervals)")
    counts = cell_counts(q_codes, m_codes, n_q, n_m)  # (n_q, n_m), a chunk of rows at a time (issue 25)
    for j in np.flatnonzero((counts > 0).sum(axis=0) < 2):
        raise EvalStatsError(f"model '{m_labels[j]}' has a score for only one question in {label}; every model "
                             "needs scores on at least two questions (remove the model or add its answers)")
    partial = int(((counts > 0).sum(axis=1) < n_m).sum())
    if partial:
        notes.append(f"{partial} of {n_q} questions were answered by only some models; each comparison uses "
                     "the questions both models answered")
    cells = counts[counts > 0]
    score, binary = _repeats_and_scales(records, q_codes, q_labels, cells, o, notes, warnings)
    # the tidy columns as codes and labels: Dataset.frame makes them a DataFrame when it is first asked for
    m_small = np.asarray(m_codes).astype(code_dtype(m_labels.size), copy=False)  # int8 for < 127 models (issue 25)
    tidy: dict[str, Any] = {"question": (q_codes, q_labels), "model": (m_small, m_labels), "score": score}
    if records.resample is not None:
        tidy["resample"] = records.resample
    clusters = _clusters(records, q_codes, q_labels, tidy, o, notes)
    notes.append("scores are binary (0/1)" if binary else "scores are continuous")
    return _dataset(records, tidy, notes, warnings, binary, cells, clusters, o)


def _repeats_and_scales(records: Records, q_codes: np.ndarray, q_labels: pd.Index, cells: np.ndarray, o: dict,
                        notes: list[str], warnings: list[str]) -> tuple[np.ndarray, bool]:
    table = records.file_type in ("csv", "parquet", "dataframe", "jsonl")
    if records.resample is not None and not table:  # harness epochs: a run given twice is the duplicate
        repeated(q_codes, records.m_codes, records.score, q_labels, records.m_labels, records.where,
                 o.get("duplicates", "resamples"), records.name, warnings, notes, resample=records.resample)
    elif cells.max() > 1 and not o.get("runs_in_ids") and records.resample is None:
        repeated(q_codes, records.m_codes, records.score, q_labels, records.m_labels, records.where,
                 o.get("duplicates", "resamples"), records.name, warnings, notes)
        notes.append(resamples_note(cells.min(), cells.max()))
    return scales(records.score, records.m_codes, records.m_labels, records.name, o.get("mixed_scales", "error"),
                  notes, warnings, wide=records.layout.get("format") == "wide")


def _clusters(records: Records, q_codes: np.ndarray, q_labels: pd.Index, tidy: dict, o: dict,
              notes: list[str]) -> tuple | None:
    """The cluster sizes (and ``tidy["cluster"]``), or None: no cluster column, or one nobody chose with too few
    clusters (:func:`~evalstats_core._columns.unread_clusters`; its note replaces the reader's)."""
    if records.c_codes is None:
        return None
    column, sizes = question_clusters(q_codes, q_labels, records.c_codes, records.c_labels, records.where)
    unread = unread_clusters(records.cluster_name or "cluster", int(sizes.size), o.get("cluster_col") is not None)
    if unread is not None:
        notes[:] = [n for n in notes if not n.endswith(CLUSTERED_ON)] + [unread]
        return None
    tidy["cluster"] = column
    return int(sizes.size), int(sizes.min()), int(sizes.max()), float(q_labels.size / sizes.size)


def same_questions(q_codes: np.ndarray, q_labels: pd.Index, records: Records) -> None:
    """One question id, one question: a join of logs that say different things about an id is refused."""
    import pandas as pd  # heavy: joined logs only

    ident = pd.Series(records.identity).fillna("").to_numpy(dtype=object)
    codes, uniques = pd.factorize(ident)
    pairs = pd.DataFrame({"q": q_codes, "i": codes}).drop_duplicates()
    clash = pairs["q"].duplicated(keep=False)
    if not clash.any():
        return
    q = int(pairs.loc[clash, "q"].iloc[0])
    rows = [int(np.flatnonzero((q_codes == q) & (codes == i))[0]) for i in pairs.loc[pairs["q"] == q, "i"][:2]]
    a, b = (records.where(r) for r in rows)
    raise EvalStatsError(
        f"question '{q_labels[q]}' is not the same question in {a} ({uniques[codes[rows[0]]] or 'unnamed'}) and in "
        f"{b} ({uniques[codes[rows[1]]] or 'unnamed'}): these files are not answers to the same questions, so they "
        "cannot be paired; compare logs of one task (and one dataset) with each other")


def _dataset(r: Records, tidy: dict[str, Any], notes: list[str], warnings: list[str], binary: bool,
             cells: np.ndarray, clusters: tuple | None, o: dict) -> dict[str, Any]:
    table = r.file_type in ("csv", "parquet", "dataframe", "jsonl")
    roles = [(k, o[k]) for k in ("format", "question_col", "model_col", "score_col") if o.get(k) is not None]
    joined = roles if r.file_type == "joined" else []  # a single table's roles are written from its layout
    options = joined + _table_options(o) + ([] if table else _harness_options(o))
    unused = {k: v for k, v in r.unused.items() if k}
    n_clusters, size_min, size_max, size_mean = clusters or (None, None, None, None)
    lay = r.layout
    return dict(
        tidy=tidy, name=r.name, format=lay["format"] if table else r.file_type, file_type=r.file_type,
        question_col=lay["question_col"], model_col=lay["model_col"], score_col=lay["score_col"],
        cluster_col=r.cluster_name if clusters else None, model_cols=tuple(lay["model_cols"]),
        models=tuple(str(m) for m in r.m_labels), score_kind="binary" if binary else "continuous",
        n_rows=int(r.score.size), n_questions=int(len(tidy["question"][1])), k_min=int(cells.min()),
        k_max=int(cells.max()), k_typical=int(np.bincount(cells).argmax()), n_clusters=n_clusters,
        cluster_size_min=size_min, cluster_size_max=size_max, cluster_size_mean=size_mean, notes=tuple(notes),
        warnings=tuple(warnings), reading=reading_flags(options), options=tuple(options),
        # the question of each row only beside columns that need it (a judge's human labels): a per-row
        # object array is ~70 B a row of the loaded file's memory (issue 25)
        extra={"__question__": _question_of_rows(tidy["question"]), **unused} if unused else {},
        unused=unused, sources=r.sources or (r.name,))


def _question_of_rows(question: tuple[np.ndarray, Any]) -> np.ndarray:
    """The question id of every row as an object array of str (what ``frame["question"].astype(str)`` gives)."""
    codes, labels = question  # labels are text already (an Index of str, or the small reader's str objects)
    return np.asarray(labels, dtype=object)[codes]
