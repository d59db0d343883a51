"""The small-CSV reader (private): a plain CSV (long or wide form) of at most :data:`SMALL_CSV_BYTES` read with the
standard library into the same :class:`~evalstats_core._records.Records` the Arrow reader returns, without
importing pyarrow or pandas (issue 25: the command line on a 1,000-question file spent most of its time
importing them).

It takes only files it reads exactly as the Arrow reader (:mod:`evalstats_core._table`) does, and returns None
for anything else, which the Arrow reader then reads (with its own notes and error messages, so a bad file
gets the same one message whichever reader saw it first):

* at most :data:`SMALL_CSV_BYTES` bytes (after decompression), UTF-8 (a byte-order mark is skipped, as the
  Arrow reader skips it), comma-separated, no control or invisible character but the line ends (``\\n``, or
  ``\\r\\n`` throughout), no blank line before the header;
* double quotes only around a whole header name or cell that holds no quote, comma or line end (as pyarrow's
  ``write_csv``, R's ``write.csv`` and pandas' ``QUOTE_ALL`` write them: issue 44.1); such a cell reads as its
  text without the quotes, as the Arrow reader reads it. Any other quote (``""`` inside a cell, a comma or a
  line end inside quotes, a quote within a cell) sends the file to the Arrow reader;
* no resample column, every data row as wide as the header, at most the row and model budgets;
* labels (question, model, cluster) without surrounding spaces and none missing (empty, NA, null...);
* every score a plain decimal number (``-?digits[.digits][e±digits]``, not -0), or a true/false word of the
  loader (read as 1/0 and noted as the Arrow reader notes it); in wide form an empty cell is a question the
  model did not answer (any other missing-value word goes to the Arrow reader).

Every check of the file's meaning (duplicates, scales, clusters, ids that look like runs or scores...) is the
one validator's (:mod:`evalstats_core._records`), as for every other reader.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ._read import _line_of_record
from ._records import (
    _FALSE,
    _INVISIBLE,
    _MISSING,
    _TRUE,
    Records,
    check_wide_budget,
    distinct,
    find_roles,
    role_notes,
    wide_notes,
)
from ._table import EXTRA_COLUMNS
from .errors import EvalStatsError
from .limits import Limits

__all__ = ["SMALL_CSV_BYTES", "read_small"]

#: The largest file (bytes, after decompression) this reader takes: 4 MiB, about 200,000 answers of a
#: question,model,score file. Up to there the standard library's parse costs less than importing pyarrow and
#: pandas (~0.3 s of CPU); above it the Arrow reader is faster and leaner.
SMALL_CSV_BYTES = 4 << 20

# a character the Arrow reader treats differently (quotes, other separators and line ends, controls and the
# invisible characters the label checks refuse): any of them sends the file to the Arrow reader
_ODD = re.compile("[\"\x00-\x09\x0b-\x1f\x7f-\x9f" + "".join(chr(c) for c in _INVISIBLE) + "]")
# a whole header name or cell in double quotes, holding no quote, comma or line end: its text is the unquoted text
_QUOTED = re.compile(r'(?<![^,\n])"([^",\n]*)"(?![^,\n])')
_NUMBER = r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_NUMBERS = re.compile(f"(?:{_NUMBER}\n)*")
_ONE_NUMBER = re.compile(_NUMBER)


def read_small(data: bytes, label: str, ext: str, limits: Limits, *, format: str | None,
               given: dict[str, str | None], ignore_cols: tuple[str, ...] = (),
               resample_col: str | None = None) -> Records | None:
    """The Records of a small plain long-form CSV (see the module docstring), or None for the Arrow reader."""
    if len(data) > SMALL_CSV_BYTES or resample_col is not None or not data:
        return None
    if ext.lower().endswith((".parquet", ".pq", ".tsv")) or data.startswith(b"PAR1"):
        return None
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")  # the byte-order mark, skipped as the Arrow reader does
    except UnicodeDecodeError:
        return None
    try:
        return _read(text, label, limits, format, given, ignore_cols)
    except EvalStatsError:  # the Arrow reader says it, in its own words and order
        return None


def _read(text: str, label: str, limits: Limits, format: str | None, given: dict[str, str | None],
          ignore_cols: tuple[str, ...]) -> Records | None:
    original = text
    if "\r" in text:
        if text.count("\r") != text.count("\r\n"):
            return None
        text = text.replace("\r\n", "\n")
    if '"' in text:
        text = _QUOTED.sub(r"\1", text)  # "cell" -> cell; any quote left over is one the Arrow reader must read
    if _ODD.search(text) or text.startswith("\n") or not text.strip():
        return None
    lines = text.split("\n")
    n_lines = len(lines) - 1 - (lines[-1] == "")  # as the Arrow reader counts them: the header is not a row
    if n_lines > limits.max_rows:
        return None
    raw = lines[0].split(",")
    if len(raw) < 2:
        return None
    header = [h.strip() for h in raw]
    roles = find_roles(header, format, given, label, tuple(ignore_cols))
    width = len(raw)
    rows = [line.split(",") for line in lines[1:] if line]
    if not rows or any(len(r) != width for r in rows):
        return None
    columns = list(zip(*rows, strict=True))
    del rows
    qi, ci = roles["question"], roles["cluster"]
    q = _codes(columns[qi])
    c = _codes(columns[ci]) if ci is not None else None
    if q is None or (ci is not None and c is None):
        return None
    if roles["format"] == "long":
        mi, si = roles["model"], roles["score"]
        m, scored, kept = _codes(columns[mi]), _scores(columns[si]), None
        if m is None or scored is None or m[1].size > limits.max_models:
            return None
        notes = [f"long form: question column '{header[qi]}', model column '{header[mi]}', score column "
                 f"'{header[si]}'"]
    else:
        check_wide_budget(header, roles, n_lines, label, limits)
        melted = _melt(columns, roles, header)
        if melted is None:
            return None
        kept, m, scored, notes = melted
        q, c = _kept(q, kept), None if c is None else (c[0][kept], c[1])
    score, worded = scored

    used = {qi, roles["model"], roles["score"], ci, *roles["models"]}
    extra = [i for i in range(width) if i not in used][:EXTRA_COLUMNS]
    unused = {header[i]: np.array([v.strip() for v in columns[i]], dtype=object) for i in extra}
    unused = unused if kept is None else {k: v[kept] for k, v in unused.items()}
    notes += role_notes(header, roles, worded)

    def where(i: int) -> str:  # the file line of data row i, found as the Arrow reader finds it
        return f"row {_line_of_record(original, ',', int(i) if kept is None else int(kept[i]))} of {label}"

    layout = {"format": roles["format"], "question_col": header[qi],
              "model_col": None if roles["model"] is None else header[roles["model"]],
              "score_col": None if roles["score"] is None else header[roles["score"]],
              "model_cols": tuple(header[k] for k in roles["models"]), "resample_col": None}
    return Records(name=label, file_type="csv", q_codes=q[0], q_labels=q[1], m_codes=m[0], m_labels=m[1],
                   score=score, where=where, c_codes=None if c is None else c[0], c_labels=None if c is None else c[1],
                   cluster_name=None if ci is None else header[ci], unused=unused, notes=tuple(notes), layout=layout,
                   worded=worded)


def _melt(columns: list[tuple[str, ...]], roles: dict[str, Any], header: list[str]) -> tuple | None:
    """A wide file's filled cells, as the Arrow reader melts them (``_records.wide_cells``): the file row of each
    (row-major), the model codes and labels, the scores and whether words were read, and the wide-form notes."""
    mcols = roles["models"]
    grid = np.empty((len(columns[0]), len(mcols)))  # (rows, models); NaN = not answered
    worded = False
    for j, k in enumerate(mcols):
        scored = _scores(columns[k], missing_ok=True)
        if scored is None or np.isnan(scored[0]).all():  # a column with no scores: the Arrow reader's error
            return None
        grid[:, j], w = scored
        worded |= w
    has = ~np.isnan(grid)
    rows, m_idx = np.nonzero(has)
    labels = np.empty(len(mcols), dtype=object)
    labels[:] = [header[k] for k in mcols]
    return rows, (m_idx.astype(np.int64), labels), (grid[rows, m_idx], worded), wide_notes(
        header[roles["question"]], [header[k] for k in mcols], int(has.size - rows.size))


def _kept(q: tuple[np.ndarray, np.ndarray], rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The question codes of the melted cells, without the questions no model scored (as the Arrow reader)."""
    codes, labels = q[0][rows], q[1]
    present = distinct(codes)
    if present.size < labels.size:
        remap = np.full(labels.size, -1, dtype=np.int64)
        remap[present] = np.arange(present.size)
        codes, labels = remap[codes], labels[present]
    return codes, labels


def _codes(values: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray] | None:
    """int32 codes in order of first appearance and the labels (object array of str), as the Arrow reader's
    dictionary encoding gives them; None when a label has surrounding spaces or is missing (that reader trims
    and refuses those)."""
    index: dict[str, int] = {}
    codes = np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int32, count=len(values))
    if any(x != x.strip() or x.lower() in _MISSING for x in index):
        return None
    labels = np.empty(len(index), dtype=object)
    labels[:] = list(index)
    return codes, labels


def _scores(tokens: tuple[str, ...], missing_ok: bool = False) -> tuple[np.ndarray, bool] | None:
    """float64 scores and whether true/false words were read as 1/0; None for anything but plain numbers and
    those words (inf, -0, numbers pyarrow and Python might read differently), and empty cells where
    ``missing_ok`` (a wide file's unanswered cells: NaN), else None."""
    worded = False
    if _NUMBERS.fullmatch("\n".join(tokens) + "\n"):
        values = np.fromiter(map(float, tokens), dtype=np.float64, count=len(tokens))
    else:
        out = []
        for token in tokens:
            word = token.strip().lower()
            if word in _TRUE or word in _FALSE:
                out.append(1.0 if word in _TRUE else 0.0)
                worded = True
            elif _ONE_NUMBER.fullmatch(token.strip()):
                out.append(float(token))
            elif missing_ok and not word:
                out.append(np.nan)
            else:
                return None
        values = np.asarray(out, dtype=np.float64)
    if np.isinf(values).any() or np.signbit(values[values == 0.0]).any():
        return None
    return values, worded


def reads(data: bytes, label: str = "file.csv", ext: str = ".csv", **options: Any) -> bool:
    """Whether this reader takes ``data`` (tests and the benchmark ask; the loader just calls :func:`read_small`)."""
    given = {k: options.pop(f"{k}_col", None) for k in ("question", "model", "score", "cluster")}
    return read_small(data, label, ext, options.pop("limits", None) or Limits.from_env(), given=given,
                      format=options.pop("format", None), **options) is not None
