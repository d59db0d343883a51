"""The reader of results tables (private): a CSV or Parquet file's bytes, or a DataFrame, to :class:`Records`.

:func:`read_table` opens the file (:mod:`evalstats_core._read`), finds the column roles from the header
(:mod:`evalstats_core._records`), checks a wide file's budget before the body is read, parses the used columns
once (id columns as text) and melts a wide file; the columns no role uses come from the same parse, by name.
:func:`arrow_of` turns a pandas or polars DataFrame or a pyarrow Table into Parquet-free Arrow data that the
same reader takes, so a DataFrame follows the same column rules as a file.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._read import OpenedFile, open_arrow, open_file
from ._records import (
    Records,
    check_wide_budget,
    find_roles,
    label_codes,
    role_notes,
    score_values,
    wide_cells,
)
from .errors import EvalStatsError
from .limits import Limits

__all__ = ["read_table", "arrow_of", "EXTRA_COLUMNS"]

#: At most this many unused columns are kept (as text) from the parse, for the guardrails and the disagreements.
EXTRA_COLUMNS = 20


def read_table(data: bytes | None, label: str, ext: str, limits: Limits, *, opened: OpenedFile | None = None,
               format: str | None = None, given: dict[str, str | None], ignore_cols: tuple[str, ...] = (),
               resample_col: str | None = None) -> Records:
    """Records of a long or wide results table (see :func:`evalstats_core.data.load` for the rules)."""
    if opened is None:
        if not data or data.isspace():
            raise EvalStatsError(f"{label} is empty; it needs a header line and one line per answer")
        opened = open_file(data, label, ext, limits)
    header = opened.header
    ours = (opened.meta or {}).get("resample_col")
    if resample_col is None and isinstance(ours, str) and ours in header and ours not in ignore_cols:
        resample_col = ours  # an analysis bundle's data: its runs are runs, as when it was written
    if resample_col is not None:
        if resample_col not in header:
            raise EvalStatsError(f"resample column {resample_col!r} is not a column of {label}; its columns are: "
                                 f"{', '.join(repr(h) for h in header[:20])}")
        ignore_cols = (*tuple(ignore_cols), resample_col)
    roles = find_roles(header, format, given, label, tuple(ignore_cols))
    if roles["format"] == "wide":
        check_wide_budget(header, roles, opened.n_rows, label, limits)
    used = [roles[r] for r in ("question", "model", "score", "cluster") if roles.get(r) is not None]
    ri = header.index(resample_col) if resample_col is not None else None
    text_cols = [roles[r] for r in ("question", "model", "cluster") if roles.get(r) is not None]
    extra = [i for i in range(len(header)) if i not in used and i not in roles["models"] and i != ri][:EXTRA_COLUMNS]
    wanted = (text_cols + extra + ([ri] if ri is not None else []),
              used + list(roles["models"]) + extra + ([ri] if ri is not None else []), tuple(text_cols))
    if roles["format"] == "long" and opened.scan is not None:  # labels and scores encoded a piece at a time
        from ._encode import encode  # with pyarrow: the Arrow reader only

        table = opened.scan(lambda pieces: encode(pieces, opened.n_rows, text_cols, roles["score"]), *wanted)
    else:
        table = opened.parse(*wanted)
    if table.num_rows == 0:
        raise EvalStatsError(f"{label} has a header but no data rows; add one row per answer")
    where, notes = opened.where, []
    qi, ci = roles["question"], roles["cluster"]
    q_codes, q_labels = label_codes(table.column(qi), "question id", header[qi], where)
    c_codes, c_labels = label_codes(table.column(ci), "cluster", header[ci], where) if ci is not None else (None, None)
    if roles["format"] == "long":
        mi, si = roles["model"], roles["score"]
        m_codes, m_labels = label_codes(table.column(mi), "model name", header[mi], where, strict=True)
        if m_labels.size > limits.max_models:
            raise EvalStatsError(
                f"{label} has {m_labels.size:,} distinct values in its model column '{header[mi]}', more than the "
                f"limit of {limits.max_models:,}; is '{header[mi]}' really the model column (model_col=)? If it "
                f"is, analyze fewer models at a time, or {Limits.how_to_raise('max_models')}")
        score, worded = score_values(table.column(si), header[si], where, missing_ok=False)
        rows = None
        notes.append(f"long form: question column '{header[qi]}', model column '{header[mi]}', "
                     f"score column '{header[si]}'")
    else:
        rows, m_codes, m_labels, score, worded = wide_cells(table, roles, header, where, label, notes)
        q_codes = q_codes[rows]
        c_codes = None if c_codes is None else c_codes[rows]
        present = np.unique(q_codes)
        if present.size < q_labels.size:  # rows where no model has a score
            remap = np.full(q_labels.size, -1, dtype=np.int64)
            remap[present] = np.arange(present.size)
            q_codes, q_labels = remap[q_codes], q_labels[present]
    unused = _text_columns(table, extra, header, rows)
    resample = None
    if ri is not None:
        import pandas as pd  # heavy: the Arrow reader only
        import pyarrow as pa
        import pyarrow.compute as pc

        runs = pc.fill_null(pc.cast(table.column(ri), pa.string()), "").to_numpy(zero_copy_only=False)
        codes = pd.factorize(runs)[0].astype(np.int64)
        resample = codes if rows is None else codes[rows]
        notes.append(f"resample column '{resample_col}': rows it tells apart are runs of the same question")
    notes += role_notes(header, roles, worded)

    def row_where(i: int) -> str:
        return where(int(i) if rows is None else int(rows[i]))

    layout = {"format": roles["format"], "question_col": header[qi],
              "model_col": None if roles["model"] is None else header[roles["model"]],
              "score_col": None if roles["score"] is None else header[roles["score"]],
              "model_cols": tuple(header[k] for k in roles["models"]), "resample_col": resample_col}
    return Records(name=label, file_type=opened.file_type, q_codes=q_codes, q_labels=q_labels, m_codes=m_codes,
                   m_labels=m_labels, score=score, where=row_where, resample=resample, c_codes=c_codes,
                   c_labels=c_labels, cluster_name=None if ci is None else header[ci], unused=unused,
                   notes=tuple(notes), layout=layout, worded=worded)


def _text_columns(table: Any, extra: list[int], header: list[str], rows: np.ndarray | None) -> dict[str, np.ndarray]:
    """The unused columns as text, one value per answer row (a wide file's melted cells take their row's value)."""
    import pyarrow as pa  # heavy: the Arrow reader only
    import pyarrow.compute as pc

    out: dict[str, np.ndarray] = {}
    for i in extra:
        col = pc.utf8_trim_whitespace(pc.cast(table.column(i), pa.string())).to_numpy(zero_copy_only=False)
        out[header[i]] = col if rows is None else col[rows]
    return out


def arrow_of(source: Any) -> Any | None:
    """A pyarrow Table for a pandas or polars DataFrame or a pyarrow Table (or anything with
    ``__arrow_c_stream__``/``to_arrow``), else None; polars is never imported (duck typing)."""
    import pandas as pd  # heavy: a DataFrame or Arrow table given
    import pyarrow as pa

    if isinstance(source, pa.Table):
        return source
    if isinstance(source, pa.RecordBatch):
        return pa.Table.from_batches([source])
    if isinstance(source, pd.DataFrame):
        frame = source.reset_index(drop=True)
        frame.columns = [str(c) for c in frame.columns]
        try:
            return pa.Table.from_pandas(frame, preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as exc:
            raise EvalStatsError(f"the DataFrame cannot be read as a results table ({exc}); give text ids and "
                                 "numeric or true/false scores") from None
    if hasattr(source, "to_arrow") and callable(source.to_arrow):  # polars DataFrame
        table = source.to_arrow()
        return table if isinstance(table, pa.Table) else pa.table(table)
    if hasattr(source, "__arrow_c_stream__"):
        return pa.table(source)
    return None


def opened_arrow(table: Any, label: str, limits: Limits) -> OpenedFile:
    """An :class:`OpenedFile` over an in-memory Arrow table: the same column rules as a Parquet file, no copy
    through a file."""

    return open_arrow(table.schema, table.num_rows, lambda cols, coded: table.select(cols), label, limits,
                      "dataframe", pieces=lambda cols, coded: [table.select(cols)])
