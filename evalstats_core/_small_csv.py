"""The small-CSV reader (private): a plain long-form CSV of at most :data:`SMALL_CSV_BYTES` read with the
standard library into the same :class:`~evalstats_core._records.Records` the Arrow reader returns, without
importing pyarrow or pandas (issue 25: the command line on a 1,000-question file spent most of its time
importing them).

It takes only files it reads exactly as the Arrow reader (:mod:`evalstats_core._table`) does, and returns None
for anything else, which the Arrow reader then reads (with its own notes and error messages, so a bad file
gets the same one message whichever reader saw it first):

* at most :data:`SMALL_CSV_BYTES` bytes (after decompression), UTF-8 without a byte-order mark, comma-separated,
  no double quote anywhere (no quoted values), no control or invisible character but the line ends (``\\n``, or
  ``\\r\\n`` throughout), no blank line before the header;
* long form with no resample column, every data row as wide as the header, at most the row and model budgets;
* labels (question, model, cluster) without surrounding spaces and none missing (empty, NA, null...);
* every score a plain decimal number (``-?digits[.digits][e±digits]``, not -0), or a true/false word of the
  loader (read as 1/0 and noted as the Arrow reader notes it).

Every check of the file's meaning (duplicates, scales, clusters, ids that look like runs or scores...) is the
one validator's (:mod:`evalstats_core._validator`), as for every other reader.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ._columns import _FALSE, _INVISIBLE, _MISSING, _TRUE, find_roles, role_notes
from ._records import Records
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
_NUMBER = r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_NUMBERS = re.compile(f"(?:{_NUMBER}\n)*")
_ONE_NUMBER = re.compile(_NUMBER)


def read_small(data: bytes, label: str, ext: str, limits: Limits, *, format: str | None,
               given: dict[str, str | None], ignore_cols: tuple[str, ...] = (),
               resample_col: str | None = None) -> Records | None:
    """The Records of a small plain long-form CSV (see the module docstring), or None for the Arrow reader."""
    if len(data) > SMALL_CSV_BYTES or resample_col is not None or format == "wide" or not data:
        return None
    if ext.lower().endswith((".parquet", ".pq", ".tsv")) or data.startswith((b"PAR1", b"\xef\xbb\xbf")):
        return None
    try:
        text = data.decode("utf-8")
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
    if roles["format"] != "long":
        return None
    width = len(raw)
    rows = [line.split(",") for line in lines[1:] if line]
    if not rows or any(len(r) != width for r in rows):
        return None
    columns = list(zip(*rows, strict=True))
    del rows
    qi, mi, si, ci = roles["question"], roles["model"], roles["score"], roles["cluster"]
    q = _codes(columns[qi])
    m = _codes(columns[mi])
    c = _codes(columns[ci]) if ci is not None else None
    if q is None or m is None or (ci is not None and c is None) or m[1].size > limits.max_models:
        return None
    scored = _scores(columns[si])
    if scored is None:
        return None
    score, worded = scored
    from ._table import EXTRA_COLUMNS

    used = {qi, mi, si} | ({ci} if ci is not None else set())
    extra = [i for i in range(width) if i not in used][:EXTRA_COLUMNS]
    unused = {header[i]: np.array([v.strip() for v in columns[i]], dtype=object) for i in extra}
    notes = [f"long form: question column '{header[qi]}', model column '{header[mi]}', score column '{header[si]}'",
             *role_notes(header, roles, worded)]

    def where(i: int) -> str:  # the file line of data row i, found as the Arrow reader finds it
        from ._read import _line_of_record

        return f"row {_line_of_record(original, ',', int(i))} of {label}"

    layout = {"format": "long", "question_col": header[qi], "model_col": header[mi], "score_col": header[si],
              "model_cols": (), "resample_col": None}
    return Records(name=label, file_type="csv", q_codes=q[0], q_labels=q[1], m_codes=m[0], m_labels=m[1],
                   score=score, where=where, c_codes=None if c is None else c[0], c_labels=None if c is None else c[1],
                   cluster_name=None if ci is None else header[ci], unused=unused, notes=tuple(notes), layout=layout,
                   worded=worded)


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


def _scores(tokens: tuple[str, ...]) -> tuple[np.ndarray, bool] | None:
    """float64 scores and whether true/false words were read as 1/0; None for anything but plain numbers and
    those words (missing scores, inf, -0, numbers pyarrow and Python might read differently)."""
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
            else:
                return None
        values = np.asarray(out, dtype=np.float64)
    if not np.isfinite(values).all() or np.signbit(values[values == 0.0]).any():
        return None
    return values, worded


def reads(data: bytes, label: str = "file.csv", ext: str = ".csv", **options: Any) -> bool:
    """Whether this reader takes ``data`` (tests and the benchmark ask; the loader just calls :func:`read_small`)."""
    given = {k: options.pop(f"{k}_col", None) for k in ("question", "model", "score", "cluster")}
    return read_small(data, label, ext, options.pop("limits", None) or Limits.from_env(), given=given,
                      format=options.pop("format", None), **options) is not None
