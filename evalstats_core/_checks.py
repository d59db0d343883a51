"""The rules a reading must pass (private): question ids that look like runs or scores, a wide file's
budget, rows repeated for one (question, model[, resample]), and one scale for every model."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from ._cells import per_model_any, per_model_max
from ._columns import check_name, distinct
from .errors import RUNS_IN_IDS, EvalStatsError, Note
from .limits import Limits, estimate

if TYPE_CHECKING:  # pandas and pyarrow are imported where they are used: the small-CSV path needs neither
    import pandas as pd

__all__ = ["question_col_looks_like_scores", "scores_in_question_col", "runs_in_ids", "runs_warning", "check_wide_budget", "repeated", "scales", "factorize",
           "resamples_note"]


def resamples_note(fewest: int, most: int) -> str:
    """The note for several answers per (question, model): ``fewest``-``most`` of them, averaged."""
    return (f"{int(fewest)}-{int(most)} answers per question and model (resamples); they are averaged into one "
            "score per question, never pooled")

#: Up to this many values are coded by numpy's sort (no pandas import); larger arrays by pandas' hash table.
_SMALL = 1 << 20


def factorize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``pandas.factorize`` of a numeric array without NaN: int64 codes in order of first appearance and the
    distinct values; by numpy's sort for a small array (the small-CSV path imports no pandas), else by pandas.

    >>> factorize(np.array([7, 3, 7, 5]))
    (array([0, 1, 0, 2]), array([7, 3, 5]))
    """
    values = np.asarray(values)
    if values.size > _SMALL:
        import pandas as pd  # heavy: a large column only

        codes, uniques = pd.factorize(values)
        return codes.astype(np.int64), np.asarray(uniques)
    uniques, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # distinct values in order of first appearance
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank[inverse.reshape(-1)], uniques[order]


def _arrow_text(labels: Any) -> Any:
    """The labels as an Arrow string array (zero-copy from an Arrow-backed ``str`` Index), or None (also for the
    small-CSV reader's numpy labels, checked in Python without importing pyarrow)."""
    if isinstance(labels, np.ndarray):
        return None
    import pyarrow as pa  # heavy: an Arrow column only

    try:
        arr = pa.array(labels)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return None
    return arr if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type) else None


def _as_numbers(q_labels: Any) -> np.ndarray:
    """Every label read as a number as ``pd.to_numeric(errors="coerce")`` reads it (NaN when it is not one);
    by Arrow's cast when every label parses there, by pandas otherwise."""
    import pandas as pd  # heavy: the Arrow/pandas path only, never the small-CSV reader's
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = _arrow_text(q_labels)
    if arr is not None:
        try:
            return pc.cast(arr, pa.float64()).to_numpy(zero_copy_only=False)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
    return pd.to_numeric(pd.Series([str(x) for x in q_labels]), errors="coerce").to_numpy(dtype=np.float64)


def question_col_looks_like_scores(q_labels: Any, col: str, label: str, has_runs: bool) -> None:
    """Question ids that read as scores (fractions between 0 and 1) are questioned, not used.

    One id that is not a number settles it, so the first 64 are read first: ids such as ``q17`` never
    cost a pass over all of them (issue 25: this check was a quarter of a 1e7-row upload).
    """
    if has_runs:
        return
    if isinstance(q_labels, np.ndarray) and not _fractions(q_labels):
        return  # the small-CSV reader's labels: decided in Python; pandas only confirms (and words) a refusal
    import pandas as pd  # heavy: pandas only confirms

    head = pd.to_numeric(pd.Series([str(x) for x in q_labels[:64]]), errors="coerce")
    if head.isna().any():
        return
    values = _as_numbers(q_labels)
    if np.isnan(values).any():
        return
    fractions = bool(((values >= 0) & (values <= 1)).all() and (values != np.round(values)).any())
    if fractions:
        raise EvalStatsError(scores_in_question_col(list(q_labels[:4]), values.size, col, label))


def scores_in_question_col(first: list, n: int, col: str, label: str) -> str:
    """The refusal of a question column whose ``n`` distinct ids (the ``first`` four shown) look like scores;
    the in-memory check's words and the SQL engine's (one vocabulary)."""
    shown = ", ".join(str(x) for x in first)
    return (f"the question column '{col}' of {label} holds numbers that look like scores ({shown}"
            f"{', ...' if n > 4 else ''}: {n} distinct); choose the column that names the "
            "questions (question_col=), and leave other columns out (ignore_cols=)")


def runs_warning(example: tuple[str, str, int]) -> str:
    """The warning for question ids that look like runs: ``(id, base, count)`` as :func:`runs_in_ids` gives it."""
    return Note(f"{example[2]:,} question ids look like runs of another question (e.g. '{example[0]}' of "
                f"'{example[1]}'); they are counted as separate questions, which makes the standard errors "
                "too small if they are repeated runs: read them as runs with runs_in_ids=True", RUNS_IN_IDS)


def _fractions(labels: np.ndarray) -> bool:
    """Whether every label reads as a number (as Python reads it; a label with a character no number holds
    settles it) and they look like scores: all between 0 and 1, some not whole."""
    values = []
    for x in labels:
        text = str(x)
        if _NOT_NUMERIC.search(text):
            return False
        try:
            values.append(float(text))
        except ValueError:
            return False
    return all(0.0 <= v <= 1.0 for v in values) and any(v != round(v) for v in values)


_NOT_NUMERIC = re.compile(r"[^0-9eE.+\-\s]")  # a character that no number pandas reads holds (nor 'inf', 'nan')
#: ``<base>.<ASCII digits>``, the base any text (line breaks too): exactly what the SQL engine's pattern matches
#: (:func:`evalstats_core.engine_sql.runs_sql`; Python's ``\d`` would also take other scripts' digits)
_RUN_ID = re.compile(r"^(.+)\.([0-9]+)$", re.DOTALL)


def runs_in_ids(q_labels: Any) -> tuple[list[str], tuple[str, str, int]] | None:
    """Question ids that look like runs of another question (``1.1``, ``1.2`` of ``1``), or None.

    An id ``<base>.<digits>`` counts when ``<base>`` is itself an id, or at least two ids share that base;
    the pattern must cover at least a fifth of the ids, with at most 20 runs per question on average (so
    ``gsm8k.0`` .. ``gsm8k.999`` stay questions). Returns every id with its run suffix stripped (the
    others unchanged) and an example ``(id, base, count)`` for the message.
    """
    if len(q_labels) < 4:
        return None
    # every run id holds a '.': with fewer such ids than the pattern must cover, there are no runs (exact,
    # and one vectorised pass instead of a regex per id)
    arr = _arrow_text(q_labels)
    if arr is not None:
        import pyarrow.compute as pc  # heavy: an Arrow column only

        dotted = int(pc.sum(pc.match_substring(arr, ".")).as_py() or 0)
    else:
        dotted = sum("." in str(x) for x in q_labels)
    if dotted < max(2, len(q_labels) // 5):
        return None
    labels = [str(x) for x in q_labels]
    found = [_RUN_ID.match(x) for x in labels]
    bases = [m.group(1) if m else None for m in found]
    known = set(labels)
    per_base: dict[str, int] = {}
    for b in bases:
        if b is not None:
            per_base[b] = per_base.get(b, 0) + 1
    is_run = [b is not None and (b in known or per_base[b] >= 2) for b in bases]
    n = sum(is_run)
    n_bases = len({b for b, r in zip(bases, is_run, strict=True) if r})
    if n < max(2, len(labels) // 5) or n > 20 * n_bases:  # 'task.0'..'task.999' are ids, not runs of 'task'
        return None
    first = is_run.index(True)
    stripped = [b if r else x for x, b, r in zip(labels, bases, is_run, strict=True)]
    return stripped, (labels[first], bases[first], n)


def check_wide_budget(header: list[str], roles: dict, n_rows: int, label: str, limits: Limits) -> None:
    """A wide file's model count and score count, from the header and the row count, before the body is read."""
    n_models = len(roles["models"])
    if n_models > limits.max_models:
        raise EvalStatsError(
            f"{label} has {n_models:,} columns that would be models in wide form, more than the limit of "
            f"{limits.max_models:,}; is the file transposed (one row per model and one column per question)? "
            "Then transpose it (one row per question, one column per model) or write it in long form (question, "
            f"model, score); if it really holds that many models, {Limits.how_to_raise('max_models')}")
    if n_rows * n_models > limits.max_rows:
        cells = n_rows * n_models
        raise EvalStatsError(
            f"{label} has {n_rows:,} rows x {n_models:,} model columns = up to {cells:,} scores, more than the "
            f"limit of {limits.max_rows:,} ({estimate(cells)} of memory to analyze); analyze fewer models or "
            f"questions at a time, or {Limits.how_to_raise('max_rows')}")
    for i in roles["models"]:
        check_name(header[i], "model name", f"the header (column {i + 1}) of {label}")


def _distinct(a: float, b: float) -> tuple[str, str]:
    """Two scores with as many significant digits (6 to 17) as it takes to show that they differ.

    >>> _distinct(0.5, 0.5000001), _distinct(1.0, 1.0)
    (('0.5', '0.5000001'), ('1', '1'))
    """
    for digits in range(6, 18):
        x, y = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if x != y or a == b:
            return x, y
    return repr(a), repr(b)


def repeated(q_codes: np.ndarray, m_codes: np.ndarray, score: np.ndarray, q_labels: pd.Index, m_labels: pd.Index,
             row_where, duplicates: str, label: str, warnings: list[str], notes: list[str],
             resample: np.ndarray | None = None, resample_name: str = "epoch") -> None:
    """Name (question, model) pairs given on several rows (with ``resample``: several rows of one (question,
    model, resample), i.e. a run given twice): a warning when their scores differ, or an error."""
    n_m = m_labels.size
    cell = np.multiply(q_codes, n_m, dtype=np.int64) + m_codes  # flat (question, model) index (codes may be int32)
    what = "(question, model) pairs"
    if resample is not None:
        r_codes, r_labels = factorize(resample)
        cell = cell * max(len(r_labels), 1) + r_codes
        what = f"(question, model, {resample_name}) triples"
    cell = factorize(cell)[0]  # dense: a huge flat index would make bincount allocate for nothing
    k = np.bincount(cell)
    multi = k > 1
    if not multi.any():
        return
    s1 = np.bincount(cell, weights=score, minlength=k.size)
    s2 = np.bincount(cell, weights=score * score, minlength=k.size)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        spread = np.where(multi, s2 / np.maximum(k, 1) - (s1 / np.maximum(k, 1)) ** 2, 0.0)  # variance per cell
    scale = max(1.0, float(np.max(np.abs(score)))) ** 2
    differ = spread > 1e-9 * scale
    n_differ, n_multi = int(differ.sum()), int(multi.sum())
    first = int(np.flatnonzero(differ)[0]) if n_differ else int(np.flatnonzero(multi)[0])
    rows = np.flatnonzero(cell == first)
    other = np.flatnonzero(score[rows] != score[rows[0]])  # show two rows that differ, when some do
    rows = rows[[0, int(other[0]) if n_differ and other.size else 1]]
    shown = _distinct(float(score[rows[0]]), float(score[rows[1]]))
    example = (f"question '{q_labels[q_codes[rows[0]]]}' and model '{m_labels[m_codes[rows[0]]]}' on "
               f"{row_where(rows[0])} ({shown[0]}) and {row_where(rows[1])} ({shown[1]})")
    if duplicates == "error":
        said = "with different scores" if n_differ else "with the same score"
        raise EvalStatsError(
            f"{n_multi:,} {what} appear on more than one row of {label} ({n_differ:,} {said}), e.g. "
            f"{example}; remove the duplicated rows, or read them as resamples (duplicates='resamples')")
    if resample is not None:
        notes.append(f"{n_multi:,} {what} appear on more than one row of {label} (a run given twice?): read as "
                     "resamples and averaged; choose duplicates='error' to stop on them")
    if n_differ:
        warnings.append(
            f"{n_differ:,} {what} appear on several rows with different scores, e.g. {example}: "
            "they are read as resamples and averaged; if they are duplicated rows rather than repeated answers, "
            "the file is wrong: fix it, or choose duplicates='error' to stop on them")


_SCALES = ((1.0, "0 to 1"), (10.0, "up to 10"), (100.0, "up to 100"))
#: The note of a file whose every score is 0 or 100, read as 0/1 (its labels may be 0/100 too: human_labels).
HUNDRED_NOTE = "every score is 0 or 100: read as binary 0/1 (100 = right), shown in percent"


def scales(score: np.ndarray, m_codes: np.ndarray, m_labels: pd.Index, label: str, mixed: str, notes: list[str],
            warnings: list[str], *, wide: bool) -> tuple[np.ndarray, bool]:
    """Each model's scale; mixed scales are an error naming the models; binary 0/100 is read as 0/1.

    Returns the scores (0/100 divided by 100 when every model is binary on 0/100) and whether they are binary.
    """

    n_m = m_labels.size
    zero = score == 0.0  # per-model flags and maxima from bool masks, a chunk of rows at a time: no float
    off01 = per_model_any(m_codes, ~zero & (score != 1.0), n_m)  # weights or group-by copies (issue 25)
    off0100 = per_model_any(m_codes, ~zero & (score != 100.0), n_m)
    del zero
    top = per_model_max(m_codes, score, n_m)  # each model's largest |score| (0 for a model with no rows)
    magnitude = np.full(n_m, np.inf)  # smallest of 1, 10, 100 that bounds the model's |scores|; inf: larger
    for bound, _ in reversed(_SCALES):
        magnitude[top <= bound] = bound
    magnitude[~off0100 & off01] = 100.0  # binary 0/100
    magnitude[top == 0.0] = np.nan  # every score 0: fits any scale
    kinds = distinct(magnitude[~np.isnan(magnitude)])
    if kinds.size > 1:
        def said(bound: float) -> str:
            names = [f"'{m_labels[j]}'" for j in np.flatnonzero(magnitude == bound)]
            shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            words = dict(_SCALES).get(bound, "above 100")
            return f"{shown} ({words})"
        groups = "; ".join(said(b) for b in kinds)
        fix = (" If a column is not a model (a token count, a latency), leave it out with ignore_cols=."
               if wide else "")
        message = (f"the models of {label} score on different scales: {groups}; a difference between them would "
                   "mix units (put every model on one scale, e.g. divide 0-100 scores by 100).{fix} If the scales "
                   "really are the same, choose mixed_scales='allow'").replace("{fix}", fix)
        if mixed == "error":
            raise EvalStatsError(message)
        warnings.append(message.split("; a difference")[0] + ": read as one scale because mixed scales were allowed")
    if not off01.any():
        return score, True
    if not off0100.any():
        notes.append(HUNDRED_NOTE)
        return score / 100.0, True
    return score, False
