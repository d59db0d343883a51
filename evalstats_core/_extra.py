"""Reading helpers of the data layer: a file's header without its body, and the columns an analysis
did not use (kept from the loader's one parse), for the guardrails and the list of disagreements."""

from __future__ import annotations

import csv
import io
from typing import Any

import numpy as np

from ._json_records import is_records, records_table
from ._sniff import delimiter, is_parquet
from .limits import Limits

__all__ = ["file_columns", "extra_columns", "TEXT_COLUMNS"]


def file_columns(data: bytes, name: str) -> tuple[str, ...]:
    """Column names of a CSV or Parquet file, or the keys of JSON records (empty when they cannot be read).

    Only the header is read (the Parquet schema, or the first CSV line), so this is cheap for any
    file size; JSON records are read whole (within the byte budget), as their keys are what the loader's
    table has (FastChat's and HELM's given their roles). The loader gives the precise error for an
    unreadable file.
    """
    try:
        if is_records(data):
            return tuple(records_table(data, name, Limits.from_env())[0].column_names)
        if is_parquet(data, name):
            import pyarrow.parquet as pq  # heavy: a Parquet file only

            return tuple(str(c).strip() for c in pq.read_schema(io.BytesIO(data)).names)
        head = data[: 1 << 16]
        if head.startswith(b"\xef\xbb\xbf"):
            head = head[3:]
        text = head.decode("utf-8", errors="strict" if len(data) <= len(head) else "ignore").lstrip("\r\n")
        first = text.split("\n", 1)[0]
        row = next(csv.reader(io.StringIO(first), delimiter=delimiter(first, name)), [])
        return tuple(h.strip() for h in row)
    except Exception:  # noqa: BLE001 - a header we cannot read: the loader reports why
        return ()


#: At most this many text columns (a prompt, a reference answer) are kept for the disagreement list.
TEXT_COLUMNS = 3


def extra_columns(dataset: Any, table: Any) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Columns the analysis did not use, in one read: cluster-like ones, and text ones (e.g. the prompt).

    The columns come from the loader's one parse of the file (``Dataset.unused``, one value per row of
    ``Dataset.frame``); nothing is read again. ``dataset`` is a ``Dataset`` and ``table`` its ``QuestionTable``
    (duck-typed: this module imports nothing of :mod:`evalstats_core.data`, so the two never import each other).
    Cluster-like: one integer label per question (below). Text: up to :data:`TEXT_COLUMNS` other columns,
    each question's first value (object array, shape ``(table.questions.size,)``), for the list of
    questions two models disagree on.


    A column qualifies when it has a value on every row, the same value on every row of a question,
    and between 2 and ``n_questions / 2`` distinct values (so that some questions share a group).

    Returns
    -------
    dict of column name -> numpy.ndarray of int64, shape (table.questions.size,)
    """
    used = {dataset.question_col, dataset.model_col, dataset.score_col, dataset.cluster_col, *dataset.model_cols}
    extra = getattr(dataset, "unused", None) or {}  # the loader kept them from its one parse: no second read
    cand = [c for c in extra if c and c not in used]
    if not cand:
        return {}, {}
    import pandas as pd  # lazy: the command line loads data.py (and this module) without pandas

    questions = dataset.frame["question"].astype(str).to_numpy(dtype=object)
    cols = {dataset.question_col: questions, **{c: extra[c] for c in cand}}
    n_q = table.questions.size
    q_index = pd.Index(table.questions.astype(str)).get_indexer(cols[dataset.question_col].astype(str))
    keep = q_index >= 0  # wide-form rows without any score were dropped by the loader
    q_index = q_index[keep]
    out: dict[str, np.ndarray] = {}
    texts: dict[str, np.ndarray] = {}
    first = np.full(n_q, -1, dtype=np.int64)
    first[q_index[::-1]] = np.arange(q_index.size)[::-1]  # each question's first row in the file
    for c in cand:
        values = cols[c][keep]
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        if len(texts) < TEXT_COLUMNS and len(uniques) > n_q // 2:  # varies like an id: a text column
            texts[c] = np.where(first >= 0, values[np.maximum(first, 0)], None).astype(object)
        if (codes < 0).any() or not 2 <= len(uniques) <= n_q // 2:
            continue
        per_q = np.full(n_q, -1, dtype=np.int64)
        per_q[q_index] = codes
        if (per_q < 0).any() or not np.array_equal(per_q[q_index], codes):
            continue  # a question without a value, or a question in two groups
        out[c] = per_q
    return out, texts
