"""Human labels in: the one reader and validator of the labels that correct a judge (a column or a labels file).

================================  ===================================================================================
:data:`HUMAN_NAMES`               column names read as the human label (case-insensitive), in order of preference
:data:`MAX_LABEL_BYTES`           the largest labels file read (64 MiB); a larger one is refused, never cut
:func:`detect_human_col`          the file's human-label column by name, or None
:func:`parse_labels`              label texts to float (blank -> NaN, true/false -> 1/0), refusing anything else
:func:`check_scale`               labels on the judge's scale (0/1 beside a 0/1 judge ...), else one clear refusal
:func:`human_matrix`              a file's label column as a (questions x models) array, NaN where unlabelled
:func:`labels_file_matrix`        the same from a separate labels CSV joined on question (and model) id
================================  ===================================================================================

Labels are validated as scores are (:mod:`evalstats_core._records`): every value a number or a true/false word,
finite, and on the scale of the judge's scores; a label belongs to one model's answer, so labels without a model
(a labels file with no model column, or one label per question in a wide file) are refused unless the caller says
that every model's answer gets its question's label (``labels_all_models=True``; the command line's
``--labels-all-models``) -- read silently, the same label on both sides made every comparison 0.0 (CI 0.0 to 0.0).
"""

from __future__ import annotations

import csv
import io
import lzma
import math
import zlib
from typing import Any

import numpy as np

from ._bounded import Budget, decompress
from ._read import open_regular
from ._records import HUNDRED_NOTE, unique_names
from ._sniff import compression
from .errors import EvalStatsError

__all__ = ["HUMAN_NAMES", "MAX_LABEL_BYTES", "NotLabels", "detect_human_col", "parse_labels", "check_scale", "human_matrix",
           "labels_file_matrix"]

#: Column names read as the human label (case-insensitive), in order of preference.
HUMAN_NAMES = ("human", "human_label", "human_score", "gold", "gold_label", "label", "labels", "reference_label")
#: The largest labels file read, in bytes (64 MiB); a larger one is refused with this figure, never truncated.
MAX_LABEL_BYTES = 64 << 20
_TRUE = {"1", "1.0", "true", "yes", "pass", "correct", "t", "y"}
_FALSE = {"0", "0.0", "false", "no", "fail", "incorrect", "f", "n"}
_ALL_MODELS = ("or say that each question's label grades every model's answer with labels_all_models=True (it "
               "then corrects each model, and every comparison reads the same label on both sides)")


class NotLabels(EvalStatsError):
    """The column holds no labels at all (a value that is no number or true/false word, or every cell blank):
    a column found only by its name (e.g. a ``label`` column of categories) is then left alone, with a note."""


def detect_human_col(dataset: Any) -> str | None:
    """The first column of the file (kept in ``Dataset.extra``) whose name is in :data:`HUMAN_NAMES`."""
    extra = getattr(dataset, "extra", None) or {}
    return human_name([c for c in extra if c != "__question__"])


def human_name(columns: Any) -> str | None:
    """The first of ``columns`` whose name (trimmed, any case) is in :data:`HUMAN_NAMES`, or None."""
    by_lower = {str(c).strip().lower(): c for c in columns}
    return next((by_lower[n] for n in HUMAN_NAMES if n in by_lower), None)


def parse_labels(values: np.ndarray, where: str) -> np.ndarray:
    """Text labels to float: blank -> NaN, numbers as numbers, true/false/pass/fail as 1/0; anything else, and
    inf or NaN written as a number, is refused naming the row."""
    out = np.full(values.size, np.nan)
    for i, v in enumerate(values):
        s = "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v).strip()
        if not s or s.lower() in {"nan", "na", "n/a", "null", "none"}:
            continue
        low = s.lower()
        if low in _TRUE:
            out[i] = 1.0
        elif low in _FALSE:
            out[i] = 0.0
        else:
            try:
                out[i] = float(s)
            except ValueError:
                raise NotLabels(
                    f"{where}, row {i + 2}: {s[:40]!r} is not a label; use a number, true/false, or leave it blank "
                    "where no human graded the answer"
                ) from None
            if not math.isfinite(out[i]):
                raise EvalStatsError(f"{where}, row {i + 2}: {s[:40]!r} is not a finite label")
    return out


def _shown(values: np.ndarray, most: int = 6) -> str:
    """Up to ``most`` distinct values, smallest first, as a reader writes them (0, 1, 0.5, 100)."""
    distinct = np.unique(values)
    text = ", ".join(f"{float(v):g}" for v in distinct[:most])
    return text + (f" and {distinct.size - most:,} more" if distinct.size > most else "")


def check_scale(labels: np.ndarray, judge: np.ndarray, where: str, *, cell: Any = None) -> None:
    """Refuse labels that are not on the scale of the judge's scores, naming the values found and the scale.

    ``labels``: the parsed labels (NaN where unlabelled), any shape; ``judge``: the judge's scores the labels sit
    beside (NaN where none). The rule of the score reader's scale check (``_records.scales``): a 0/1 judge needs
    0/1 labels (true/false); a judge between 0 and 1 needs labels between 0 and 1; a judge on another scale needs
    labels of the same magnitude (up to 10, up to 100, above) and no negative label beside a judge that has none.
    0/100, -1/+1 or 1-10 labels beside a 0/1 judge would otherwise be read as numbers on its scale (a corrected
    mean of 7838%). ``cell``: names the first label off the scale from its flat index in ``labels`` (a harness
    log's sample and model), when given.
    """
    full = np.asarray(labels, dtype=float).ravel()
    where_labelled = np.flatnonzero(~np.isnan(full))
    lab = full[where_labelled]
    jud = np.asarray(judge, dtype=float)
    jud = jud[~np.isnan(jud)]
    if lab.size == 0 or jud.size == 0:
        return
    lo, hi = float(jud.min()), float(jud.max())
    if np.isin(jud, (0.0, 1.0)).all():
        bad, scale, fix = ~np.isin(lab, (0.0, 1.0)), "0/1 (as the judge's scores)", "0 or 1 (or false/true)"
    elif lo >= 0.0 and hi <= 1.0:
        bad, scale, fix = (lab < 0.0) | (lab > 1.0), "0 to 1 (as the judge's scores)", "numbers from 0 to 1"
    else:
        def magnitude(top: float) -> float:
            return next((b for b in (1.0, 10.0, 100.0) if top <= b), math.inf)

        judge_mag = magnitude(max(abs(lo), abs(hi)))
        label_mag = magnitude(float(np.abs(lab).max()))
        negative = lo >= 0.0 and bool((lab < 0.0).any())
        if label_mag == judge_mag and not negative:
            return
        bad = (lab < 0.0) if negative else np.ones(lab.size, dtype=bool)
        scale = f"the judge's, whose scores run from {lo:g} to {hi:g}"
        fix = f"numbers on that scale (from {min(lo, 0.0):g} to {hi:g})"
    if not bad.any():
        return
    hint = " (e.g. divide 0-100 labels by 100)" if lab.max() > 1.0 and hi <= 1.0 else ""
    first = int(np.flatnonzero(bad)[0])
    at = f" (the first: {cell(int(where_labelled[first]))}, {float(lab[first]):g})" if cell is not None else ""
    raise EvalStatsError(f"{where}: the labels are not on the judge's scale: values found {_shown(lab)}{at}, scale "
                         f"expected {scale}; give labels as {fix}{hint}, so that a label and a score mean the same")


def _fill(table: Any, questions: np.ndarray, models: np.ndarray | None, labels: np.ndarray, where: str) -> np.ndarray:
    """Average the labels of each (question, model) cell into a (n_questions, n_models) array, after checking
    that they are on the judge's scale (every label as given, before cells are averaged)."""
    import pandas as pd  # heavy: imported when labels are read

    given = labels[~np.isnan(labels)]
    if HUNDRED_NOTE in (getattr(table, "notes", None) or ()) and np.isin(given, (0.0, 100.0)).all():
        labels = labels / 100.0  # the judge's 0/100 scores were read as 0/1: its 0/100 labels are read alike
    check_scale(labels, np.where(table.answered, table.scores, np.nan), where)

    qi = pd.Index(table.questions.astype(str)).get_indexer(questions.astype(str))
    n_q, n_m = table.scores.shape
    total, count = np.zeros((n_q, n_m)), np.zeros((n_q, n_m))
    ok = (qi >= 0) & ~np.isnan(labels)
    if models is None:
        for m in range(n_m):
            np.add.at(total[:, m], qi[ok], labels[ok])
            np.add.at(count[:, m], qi[ok], 1.0)
    else:
        mi = pd.Index([str(m) for m in table.models]).get_indexer(models.astype(str))
        ok &= mi >= 0
        np.add.at(total, (qi[ok], mi[ok]), labels[ok])
        np.add.at(count, (qi[ok], mi[ok]), 1.0)
    with np.errstate(invalid="ignore"):
        out = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    if not np.isfinite(out).any():
        raise NotLabels(f"{where}: no question has a human label; fill the column for a random subset")
    return np.where(table.answered, out, np.nan)


def _no_model(where: str, table: Any, all_models: bool, what: str) -> None:
    """Refuse labels without a model for a file of two or more models, unless ``all_models``."""
    if all_models or len(table.models) < 2:
        return
    raise EvalStatsError(f"{where}: {what}, so it is not said which model's answer each label grades (read as every "
                         f"model's, a comparison would set one label against itself: 0.0, CI 0.0 to 0.0); add a "
                         f"model column (model, system or agent) with one label per question and model, {_ALL_MODELS}")


def human_matrix(dataset: Any, table: Any, human_col: str, *, labels_all_models: bool = False) -> np.ndarray:
    """The human labels of a long (or wide, one label per question) file's column ``human_col``.

    A wide file's column holds one label per question: refused for two or more models unless
    ``labels_all_models`` says that the label grades every model's answer.
    """
    extra = dataset.extra or {}
    if human_col not in extra:
        kept = ", ".join(repr(c) for c in extra if c != "__question__") or "none"
        raise EvalStatsError(f"{human_col!r} is not a column of {dataset.name} (human_col=; other columns: {kept})")
    where = f"{dataset.name}, column {human_col!r}"
    labels = parse_labels(np.asarray(extra[human_col], dtype=object), where)
    questions = np.asarray(extra["__question__"], dtype=object)
    models = None
    frame = dataset.frame
    same = (len(frame) == len(questions) and "model" in frame
            and np.array_equal(frame["question"].astype(str).to_numpy(), questions.astype(str)))
    # a long file, or harness logs (an Inspect sample's metadata key: one value per sample and model, never
    # averaged across models)
    if dataset.format == "long" or (dataset.format != "wide" and same):
        if not same:
            raise EvalStatsError(
                f"{where}: the rows of the file could not be matched to its answers (rows were dropped or reordered "
                "when it was read); put the labels in a separate file and pass it with labels="
            )
        models = frame["model"].astype(str).to_numpy()
    else:
        _no_model(where, table, labels_all_models, "a wide file holds one label per question for all its models")
    return _fill(table, questions, models, labels, where)


def read_labels_bytes(source: Any, name: str) -> bytes:
    """The bytes of a labels file (a path, or the bytes themselves): a regular file only (a FIFO or a device is
    refused before it is opened), and at most :data:`MAX_LABEL_BYTES` (a larger one is refused, never cut)."""
    limit = f"{MAX_LABEL_BYTES >> 20} MB"
    if isinstance(source, bytes):
        raw = source
    else:
        try:
            fh = open_regular(source)  # the results reader's check: a FIFO would block, /dev/zero never ends
        except EvalStatsError as exc:
            raise EvalStatsError(f"labels: {str(exc).split('; ')[0]}; give the labels as a CSV file") from None
        try:
            with fh:  # opened without blocking, checked on the open file: a FIFO swapped in is refused too
                raw = fh.read(MAX_LABEL_BYTES + 1)
        except OSError as exc:
            raise EvalStatsError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_LABEL_BYTES:
        raise EvalStatsError(f"{name}: the labels file is larger than the limit of {limit} ({MAX_LABEL_BYTES:,} "
                             "bytes); keep only the labelled rows (question, model, label), or split the labels")
    kind = compression(raw)
    if kind is None:
        return raw
    try:  # compressed as the results may be (issue 46: a .csv.gz was "cannot be read as a CSV ('utf-8' codec...)")
        return decompress(raw, kind, Budget(MAX_LABEL_BYTES, name, MAX_LABEL_BYTES))
    except EvalStatsError:  # past the limit, however much it declares
        raise EvalStatsError(f"{name}: the labels file decompresses to more than the limit of {limit}; keep only "
                             "the labelled rows (question, model, label), or split the labels") from None
    except (OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
        raise EvalStatsError(f"{name}: looks {kind}-compressed but could not be decompressed ({exc}); decompress "
                             "it yourself and give the CSV inside") from None


def labels_file_matrix(source: Any, table: Any, name: str = "labels file", *,
                       labels_all_models: bool = False) -> np.ndarray:
    """Human labels from a CSV with a question id column, a model column and a label column.

    Refuses, with the counts, ids that repeat (one label per question and model) and ids that match no question
    of the results; a file with no model column unless ``labels_all_models`` (or the results have one model);
    a file over :data:`MAX_LABEL_BYTES`; two columns named alike; labels off the judge's scale
    (:func:`check_scale`).
    """
    import pandas as pd  # heavy: imported when labels are read

    raw = read_labels_bytes(source, name)
    try:
        header = next(csv.reader(io.StringIO(raw[:1 << 20].decode("utf-8-sig", errors="replace"))), [])
    except csv.Error:
        header = []
    unique_names([h.strip() for h in header], name)  # pandas would read a repeat as 'human.1' and take the first
    try:
        frame = pd.read_csv(io.BytesIO(raw), dtype=str, keep_default_na=False)
    except (OSError, ValueError) as exc:
        raise EvalStatsError(f"{name}: cannot be read as a CSV ({exc})") from None
    cols = {c.strip().lower(): c for c in frame.columns}
    qcol = next((cols[c] for c in ("question", "question_id", "id", "item", "task", "sample_id") if c in cols), None)
    lcol = next((cols[c] for c in (*HUMAN_NAMES, "score") if c in cols), None)
    mcol = next((cols[c] for c in ("model", "system", "agent") if c in cols), None)
    if qcol is None or lcol is None:
        raise EvalStatsError(
            f"{name}: needs a question id column (question, id...) and a label column (human, gold, label); "
            f"it has: {', '.join(map(str, frame.columns))}"
        )
    if mcol is None:
        _no_model(name, table, labels_all_models, "it has no model column")
    keys = frame[[qcol] if mcol is None else [qcol, mcol]].astype(str)
    dup = keys.duplicated(keep=False)
    if dup.any():
        first = " / ".join(keys[dup].iloc[0])
        raise EvalStatsError(
            f"{name}: {int(keys[dup].drop_duplicates().shape[0])} id(s) repeat on {int(dup.sum())} rows (first: "
            f"{first}); give one label per question{'' if mcol is None else ' and model'}"
        )
    known = set(table.questions.astype(str))
    unmatched = ~frame[qcol].astype(str).isin(known)
    if mcol is not None:
        unmatched |= ~frame[mcol].astype(str).isin({str(m) for m in table.models})
    if unmatched.any():
        raise EvalStatsError(
            f"{name}: {int(unmatched.sum())} of {len(frame)} label row(s) match no question"
            f"{'' if mcol is None else ' and model'} of {table.name} (first: {frame[qcol].iloc[int(np.argmax(unmatched))]!r}); "
            "check the ids"
        )
    labels = parse_labels(frame[lcol].to_numpy(dtype=object), f"{name}, column {lcol!r}")
    models = None if mcol is None else frame[mcol].to_numpy(dtype=object)
    filled = _fill(table, frame[qcol].to_numpy(dtype=object), models, labels, f"{name}, column {lcol!r}")
    if lcol.strip().lower() == "score":
        _not_the_scores(filled, table, name)
    return filled


def _not_the_scores(labels: np.ndarray, table: Any, name: str) -> None:
    """Refuse a labels file whose 'score' column is the judge's scores on every answer: the results file given as
    its own labels (issue 46: it was read as a human agreeing with the judge everywhere, a correction of nothing)."""
    answered = np.asarray(table.answered, dtype=bool)
    if not np.array_equal(~np.isnan(labels), answered) or not np.array_equal(labels[answered], table.scores[answered]):
        return
    raise EvalStatsError(f"{name}: its column 'score' equals the judge's score on every one of the {int(answered.sum())}"
                         " answers, so it reads as the results file itself, not human labels; give the human labels "
                         "in a file of their own (question, model, human), or leave labels= out")
