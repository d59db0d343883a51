"""The reader of results tables (private): a CSV or Parquet file's bytes, or a DataFrame, to
:class:`~evalstats_core._records.Records`.

One concern in three parts, each kept only for the others: the bytes read and opened (a header and a parser
out), the table reader that finds the column roles (:mod:`evalstats_core._records`) and parses the used columns
once, and the small-CSV reader that returns the same Records for the files it reads exactly as the table reader
would (else None, and the table reader reads them, with its own notes and messages).

==========================  ==================================================================================
:func:`read_source`         a path, bytes or an open file to its bytes and a display name
:func:`open_file`           the header, and an :class:`OpenedFile` whose ``parse`` reads the body
:func:`open_path`           a large CSV named by its path, opened without holding its bytes
:func:`read_table`          the file's Records: roles from the header, a wide file's budget checked before the
                            body is read, the used columns parsed once (id columns as text), a wide file melted,
                            the columns no role uses from the same parse, by name
:func:`arrow_of`            a pandas or polars DataFrame or a pyarrow Table as Arrow data the same reader takes,
                            so a DataFrame follows the same column rules as a file
:func:`read_small`          the Records of a small plain CSV read with the standard library, or None
==========================  ==================================================================================

**Bytes and opening.**
:func:`read_source` takes a path, bytes or an open file and returns its bytes and a display name;
:func:`open_file` reads the header and returns an :class:`OpenedFile` whose ``parse`` reads the body
(id columns kept as text) and whose ``where`` names the file line of a data row. Every failure is an
:class:`~evalstats_core.errors.EvalStatsError` that says where it happened and how to fix the file:
binary or UTF-16 files, bytes that are not UTF-8 (with the line), rows with the wrong number of fields
(with the line), and values after pyarrow's first block that do not fit the column type it guessed
(the file is then re-read as text so that :mod:`evalstats_core._records` can report the value and its
row). The user's file is only ever opened for reading.

CSV text is read block by block, from memory or from the disk (issue 25): :func:`open_csv_text` guesses the
column types from the first 16 MB block, as ``read_csv`` guesses them, and parses the body in 1 MB blocks with
those types, so that one block's parse stays small beside the columns kept. :func:`open_path` opens a large CSV
file named by its path without holding its bytes: one pass over the disk checks what :func:`read_source` and
:func:`open_file` check on the bytes (the row budget, UTF-8, the line count), then pyarrow parses the file from
the disk, and an error message that needs the text (a ragged row, a row's line number) reads it again. Anything
that is not a plain UTF-8 CSV (a compressed, zip, Parquet, UTF-16 or binary file, a harness log, a file with
blank leading lines or a header that spans lines, bytes that are not UTF-8) gets ``None``, and
:func:`source_of` reads its bytes as before: every message stays the one the bytes path gives.

**The small-CSV reader.** A plain CSV (long or wide form) of at most :data:`SMALL_CSV_BYTES` is read with the
standard library into the same Records the Arrow reader returns, without importing pyarrow or pandas (issue 25:
the command line on a 1,000-question file spent most of its time importing them). It takes only files it reads
exactly as the Arrow reader does, and returns None for anything else:

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

Imports neither pyarrow nor pandas at module level: they are imported where a file is parsed by Arrow.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import json
import os
import re
import stat
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from ._bounded import Budget, decompress, zip_member
from ._records import (
    _FALSE,
    _INVISIBLE,
    _MISSING,
    _TRUE,
    Records,
    check_wide_budget,
    distinct,
    find_roles,
    label_codes,
    role_notes,
    score_values,
    wide_cells,
    wide_notes,
)
from ._sniff import compression, delimiter, is_bundle, is_parquet, utf16, zip_archive
from ._sniff import delimiter as sniff_delimiter
from ._sniff import utf16 as sniff_utf16
from .errors import EvalStatsError
from .limits import Limits, estimate

if TYPE_CHECKING:  # pyarrow is imported where a file is parsed: the small-CSV reader never needs it
    import pyarrow as pa

__all__ = ["OpenedFile", "open_file", "open_regular", "read_source", "open_path", "source_of", "open_csv_text",
           "line_count", "STREAM_BYTES", "read_table", "arrow_of", "EXTRA_COLUMNS", "SMALL_CSV_BYTES", "read_small"]


# ------------------------------------------------------------ bytes read and opened: a header and a parser out
_BLOCK_SIZE = 1 << 24  # bytes per pyarrow CSV block; column types are guessed from the first block


def read_source(source: Any, name: str | None, limits: Limits | None = None) -> tuple[bytes, str, str]:
    """Return (bytes, display name, extension) for a path, bytes or a binary/text file-like object.

    Only regular files are opened (a FIFO, a device or a folder is refused at once, before any read),
    at most ``limits.max_bytes`` are read, and gzip/bz2/xz/zstd/zip content is decompressed (also
    within that budget).
    """
    limits = limits or Limits.from_env()
    if isinstance(source, (bytes, bytearray, memoryview)):
        label = name or "uploaded file"
        data = bytes(source)
    elif isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        label = name or os.path.basename(path)
        size = _check_regular(path)
        try:
            with open_regular(path) as fh:  # read-only: the user's file is never modified
                if limits.max_rows < size <= limits.max_bytes:  # may hold more lines than the row budget
                    _count_lines(fh, label, limits)
                data = fh.read(limits.max_bytes + 1)
        except FileNotFoundError:
            raise EvalStatsError(f"file '{path}' does not exist; check the path and the spelling") from None
        except IsADirectoryError:
            raise EvalStatsError(f"'{path}' is a folder, not a file; give the path of a CSV or Parquet file") from None
        except PermissionError:
            raise EvalStatsError(f"file '{path}' cannot be read (permission denied); check its permissions") from None
        ext_source = path
    elif hasattr(source, "read"):
        data = source.read(limits.max_bytes + 1)
        label = name or os.path.basename(str(getattr(source, "name", "") or "")) or "uploaded file"
        if isinstance(data, str):
            data = data.encode("utf-8")
        data = bytes(data)
    else:
        raise EvalStatsError(
            f"cannot read results from a {type(source).__name__}; pass a file path, the file's bytes or an open file"
        )
    if len(data) > limits.max_bytes:
        raise EvalStatsError(
            f"{label} is larger than the limit of {limits.max_bytes / 2**20:,.0f} MB; analyze a smaller file "
            f"(e.g. one score per question and model, resamples averaged), or {Limits.how_to_raise('max_bytes')}")
    ext = os.path.splitext(ext_source if isinstance(source, (str, os.PathLike)) else label)[1].lower()
    data, ext = _decompress(data, label, ext, limits)
    return data, label, ext


def _count_lines(fh: Any, label: str, limits: Limits) -> None:
    """Refuse a plain-text file with more lines after its header than the row budget as soon as the lines
    counted so far say so (issue 25: not after reading and decoding all of it); rewind ``fh`` otherwise.

    Compressed, Parquet and zip files are left to their readers (their rows are counted after unpacking).
    """

    first = fh.read(_BLOCK_SIZE)
    if compression(first) is not None or first.startswith((b"PAR1", b"PK\x03\x04")) or b"\x00" in first[:4096]:
        fh.seek(0)
        return
    lines, block = -1, first  # -1: the header line is not a data row
    while block:
        lines += block.count(b"\n")
        _check_rows(lines, label, limits, exact=False)
        block = fh.read(_BLOCK_SIZE)
    fh.seek(0)


_RESULTS_FIX = "save the results to a CSV or Parquet file and give its path (or pipe them in with '-')"


def _check_regular(path: str, fix: str = _RESULTS_FIX) -> int:
    """Refuse anything but a regular file before opening it (a FIFO would block, /dev/zero never ends); return
    its size in bytes. ``fix`` ends the message (what to give instead)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise EvalStatsError(f"file '{path}' does not exist; check the path and the spelling") from None
    except PermissionError:
        raise EvalStatsError(f"file '{path}' cannot be read (permission denied); check its permissions") from None
    except OSError as exc:
        raise EvalStatsError(f"'{path}' cannot be read ({exc.strerror or exc}); give the path of a CSV or "
                             "Parquet file") from None
    _refuse_unless_regular(path, st.st_mode, fix)
    return st.st_size


def _refuse_unless_regular(path: str, mode: int, fix: str) -> None:
    if stat.S_ISDIR(mode):
        raise EvalStatsError(f"'{path}' is a folder, not a file; give the path of a CSV or Parquet file")
    if not stat.S_ISREG(mode):
        kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a device" if
                stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "not a regular file")
        raise EvalStatsError(f"'{path}' is {kind}, not a regular file; {fix}")


def open_regular(path: str, fix: str = _RESULTS_FIX) -> BinaryIO:
    """``path`` opened for reading (binary), only when it is a regular file: the open never blocks (``O_NONBLOCK``:
    a FIFO swapped in after :func:`_check_regular` does not hang it) and the check is made on the open file
    (``fstat``), so what is read is what was checked. The user's file is only ever opened for reading."""
    _check_regular(path, fix)  # the messages for a missing file, a permission, a folder
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise EvalStatsError(f"file '{path}' does not exist; check the path and the spelling") from None
    except PermissionError:
        raise EvalStatsError(f"file '{path}' cannot be read (permission denied); check its permissions") from None
    try:
        _refuse_unless_regular(path, os.fstat(fd).st_mode, fix)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


_COMPRESSED_EXT = (".gz", ".gzip", ".bz2", ".xz", ".zst", ".zip")


def _decompress(data: bytes, label: str, ext: str, limits: Limits) -> tuple[bytes, str]:
    """Decompress gzip, bz2, xz, zstd or a one-file zip (within the byte budget); return (data, inner ext)."""

    kind = compression(data)
    if kind is None and not data.startswith(b"PK\x03\x04"):
        return data, ext  # plain bytes: nothing to unpack (and no zipfile import on a small CSV's start-up)

    inner = os.path.splitext(label[: -len(ext)])[1].lower() if ext in _COMPRESSED_EXT else ext
    budget = Budget.of(limits, label)
    if is_bundle(data):
        return data, ".bundle"  # an analysis bundle: read by its own reader (evalstats_core.bundle)
    if kind is None and data.startswith(b"PK\x03\x04") and ext == ".zip":
        try:
            with zip_archive(data, release=True) or zipfile.ZipFile(io.BytesIO(data)) as zf:
                members = [i for i in zf.infolist() if not i.is_dir()]
                if len(members) != 1:
                    raise EvalStatsError(f"{label} is a zip archive with {len(members)} files; put exactly one CSV "
                                         "or Parquet file in it (or unzip it and load the file)")
                out = zip_member(data, zf, members[0].filename, budget)
                inner = os.path.splitext(members[0].filename)[1].lower()
        except EvalStatsError:
            raise
        except Exception as exc:  # noqa: BLE001 - a damaged archive: name it
            raise EvalStatsError(f"{label} is a damaged zip archive ({exc}); unzip it and load the CSV inside") from None
    elif kind is None:
        return data, ext
    else:
        try:
            out = decompress(data, kind, budget)
        except EvalStatsError:
            raise
        except Exception as exc:  # noqa: BLE001 - a damaged archive: name it
            raise EvalStatsError(f"{label} looks {kind}-compressed but could not be decompressed ({exc}); "
                                 "decompress it yourself and load the CSV or Parquet file inside") from None
    return out, inner or ".csv"


def _check_text(data: bytes, label: str) -> tuple[bytes, str]:
    """Reject binary and non-UTF-8 files (UTF-16 is decoded); return (UTF-8 data without BOM, decoded text)."""
    head = data[:4096]
    if head.startswith(b"PK\x03\x04"):
        raise EvalStatsError(f"{label} looks like an Excel workbook or a zip archive, not a CSV file; "
                             "export it as 'CSV UTF-8' (or Parquet) and load that (a .zip holding one CSV is "
                             "read when its name ends in .zip)")

    utf16 = sniff_utf16(head)
    if utf16:
        try:
            text = data.decode(utf16)
        except UnicodeDecodeError:
            raise EvalStatsError(f"{label} looks like UTF-16 text but does not decode as {utf16}; re-save it as "
                                 "UTF-8 (in Excel: 'CSV UTF-8')") from None
        text = text.lstrip("\ufeff")
        return text.encode("utf-8"), text
    if b"\x00" in head:
        raise EvalStatsError(f"{label} contains binary data and is not a CSV file (it has NUL bytes); save the results "
                             "as CSV (UTF-8) or Parquet (gzip, bz2, xz, zstd and one-file zip archives are read)")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise EvalStatsError(
            f"{label} is not UTF-8 text: line {line} has the byte 0x{data[exc.start]:02x}, which is not valid "
            "UTF-8 (the file was probably saved as Latin-1/Windows-1252); re-save it as UTF-8 "
            "(in Excel: 'CSV UTF-8') and load it again") from None
    return data, text


def _lines_of(text: str) -> Any:
    """The lines of ``text`` one at a time, as ``io.StringIO(text)`` gives them, without its copy of the
    whole text at 4 bytes a character (the header is all that is read from it; issue 25)."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start)
        end = size if end < 0 else end + 1
        yield text[start:end]
        start = end


@contextlib.contextmanager
def _any_field_size() -> Iterator[None]:
    """Python's csv module refuses a field over 128 kB (``csv.Error``), which Arrow reads; on the error paths that
    re-scan a file with it (a row's line number, a ragged row) the limit is lifted for the scan (issue 46: a 3 MB
    score ended in "unexpected Error: field larger than field limit")."""
    old = csv.field_size_limit()
    csv.field_size_limit(2**31 - 1)
    try:
        yield
    finally:
        csv.field_size_limit(old)


def _line_of_record(text: str, delimiter: str, index: int) -> int:
    """1-based file line where data record ``index`` (0-based, blank lines skipped) starts."""
    with _any_field_size():
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)  # error path only: a plain scan
        next(reader, None)
        count, previous = -1, reader.line_num
        for record in reader:
            if record:
                count += 1
                if count == index:
                    return previous + 1
            previous = reader.line_num
        return previous + 1


def _ragged(text: str, delimiter: str, width: int, label: str) -> EvalStatsError | None:
    """The first line whose number of fields differs from the header's, as an error (or None)."""
    with _any_field_size():
        return _first_ragged(text, delimiter, width, label)


def _first_ragged(text: str, delimiter: str, width: int, label: str) -> EvalStatsError | None:
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    next(reader, None)
    previous = reader.line_num
    while True:
        try:
            record = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            if "new-line" in str(exc):
                return EvalStatsError(
                    f"row {reader.line_num} of {label} has a bare carriage return (\\r) inside an unquoted "
                    "value, which splits the row in two; remove it, put the value in double quotes, or re-save "
                    "the file with ordinary line endings")
            return EvalStatsError(f"row {reader.line_num + 1} of {label} cannot be read as CSV ({exc}); fix "
                                  "that row")
        if record and len(record) != width:
            shown = delimiter.join(record)[:80]
            fields = f"{len(record)} field" + ("" if len(record) == 1 else "s")
            if reader.line_num - previous > 1 and any("\n" in field for field in record):
                fix = "a '\"' on that row opens a quoted value that runs over the next lines; close or remove it"
            else:
                fix = f"quote values that contain '{delimiter}', or fill in the missing values"
            return EvalStatsError(
                f"row {previous + 1} of {label} has {fields} but the header has {width} ({shown!r}); {fix}")
        previous = reader.line_num
    return None


@dataclass(frozen=True, slots=True)
class OpenedFile:
    """A file whose header is known; ``parse(text_cols, used, labels)`` reads the body (only the ``used``
    columns when given; the others come back as nulls) with ``text_cols`` kept as text (the ``labels`` among
    them may come back dictionary-encoded). ``n_rows`` is the number of
    data rows from the metadata (Parquet) or an upper bound from the line count (CSV). ``scan(consume,
    text_cols, used, labels)`` reads the same columns a piece at a time: ``consume`` gets an iterator of
    pieces (record batches or tables, columns in file order, as ``parse`` returns them) and its result is
    returned, so the whole body is never held at once (issue 25)."""

    header: list[str]
    parse: Callable[..., pa.Table]
    where: Callable[[int], str]
    file_type: str
    delimiter: str
    n_rows: int = 0
    meta: dict | None = None
    scan: Callable[..., Any] | None = None


def _check_rows(n_rows: int, label: str, limits: Limits, exact: bool) -> None:
    if n_rows > limits.max_rows:
        what = f"{n_rows:,} rows" if exact else f"about {n_rows:,} lines"
        raise EvalStatsError(
            f"{label} has {what}, more than the limit of {limits.max_rows:,} scores ({estimate(n_rows)} of memory "
            f"to analyze); average resamples into one score per question and model first, analyze a sample, or "
            f"{Limits.how_to_raise('max_rows')}")


def _parquet_type_problem(name: str, t: pa.DataType, label: str) -> EvalStatsError | None:
    import pyarrow as pa  # heavy: a Parquet file only

    if pa.types.is_nested(t):
        return EvalStatsError(f"column '{name}' of {label} holds nested values ({t}), not one value per row; "
                              "flatten it (one row per question and model, or one column per model) and re-export")
    if pa.types.is_null(t):
        return EvalStatsError(f"column '{name}' of {label} has no values (every row is null); fill it in, or "
                              "choose another column for this role")
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return EvalStatsError(f"column '{name}' of {label} holds raw bytes ({t}), not text or numbers; store it "
                              "as a string column and re-export")
    return None


def _our_metadata(schema: pa.Schema) -> dict | None:
    """How a Parquet file written by evalstats (an analysis bundle's data) says it is read, or None."""

    raw = (schema.metadata or {}).get(b"evalstats")
    try:
        doc = json.loads(raw) if raw is not None and len(raw) < 4096 else None
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def _check_unpacked(meta: Any, label: str, limits: Limits) -> None:
    """A Parquet file whose columns unpack to more than the byte budget (as its footer declares them) is
    refused before any column is read, like a compressed CSV."""
    total = 0
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        total += sum(max(group.column(c).total_uncompressed_size, 0) for c in range(group.num_columns))
    if total > limits.max_bytes:
        raise EvalStatsError(
            f"{label} decompresses to more than the limit of {limits.max_bytes / 2**20:,.0f} MB (its columns unpack "
            f"to {total / 2**20:,.0f} MB); analyze a smaller file, or {Limits.how_to_raise('max_bytes')}")


def open_arrow(schema: pa.Schema, n_rows: int, read: Callable[..., pa.Table], label: str,
               limits: Limits, file_type: str = "parquet", pieces: Callable[..., Any] | None = None) -> OpenedFile:
    """An :class:`OpenedFile` over columnar data (a Parquet file, or an in-memory Arrow table or DataFrame):
    ``read(column names, label column names)`` returns those columns (the label ones may come back
    dictionary-encoded), ``pieces`` (same arguments) yields them a row group at a time; the rows are counted
    and the types checked first."""
    import pyarrow as pa  # lazy, as in open_file: a small CSV is read without pyarrow (read_small)
    import pyarrow.compute as pc

    _check_rows(n_rows, label, limits, exact=True)
    raw_names = list(schema.names)
    names = [str(c).strip() for c in raw_names]

    def wanted_of(text_cols: list[int], used: list[int] | None) -> list[int]:
        wanted = list(range(len(raw_names))) if used is None else sorted(set(used) | set(text_cols))
        for i in wanted:
            problem = _parquet_type_problem(names[i], schema.field(i).type, label)
            if problem is not None:
                raise problem
        return wanted

    def reading(call: Callable[[], Any]) -> Any:
        try:
            return call()
        except MemoryError:
            raise EvalStatsError(f"{label} does not fit in memory; analyze a smaller file, or lower "
                                 f"{Limits.how_to_raise('max_rows')[9:]}") from None
        except Exception as exc:  # noqa: BLE001 - a damaged body
            raise EvalStatsError(f"could not read the data of {label} as Parquet ({exc}); re-export the "
                                 "file") from None

    def convert(table: pa.Table, wanted: list[int], text_cols: list[int], labels: tuple[int, ...]) -> pa.Table:
        got = dict(zip(wanted, range(table.num_columns), strict=True))
        cols = []
        for i in range(len(raw_names)):
            if i not in got:
                cols.append(pa.nulls(table.num_rows))
                continue
            col = table.column(got[i])
            if i in labels and pa.types.is_dictionary(col.type) and pa.types.is_string(col.type.value_type):
                cols.append(col)  # a label column stays dictionary-encoded: codes and the distinct labels
                continue
            if pa.types.is_dictionary(col.type):
                col = pc.cast(col, col.type.value_type)
            cols.append(pc.cast(col, pa.string()) if i in text_cols else col)
        return pa.table(cols, names=[f"c{i}" for i in range(len(cols))])

    def coded_of(wanted: list[int], labels: tuple[int, ...]) -> list[str]:
        return [raw_names[i] for i in labels if i in wanted and pa.types.is_string(schema.field(i).type)]

    def parse_columns(text_cols: list[int], used: list[int] | None = None, labels: tuple[int, ...] = ()) -> pa.Table:
        wanted = wanted_of(text_cols, used)
        table = reading(lambda: read([raw_names[i] for i in wanted], coded_of(wanted, labels)))
        return convert(table, wanted, text_cols, labels)

    def scan(consume: Callable[[Any], Any], text_cols: list[int], used: list[int] | None = None,
             labels: tuple[int, ...] = ()) -> Any:
        wanted = wanted_of(text_cols, used)
        parts = reading(lambda: iter(pieces([raw_names[i] for i in wanted], coded_of(wanted, labels))))

        def converted() -> Any:
            while (part := reading(lambda: next(parts, None))) is not None:
                yield convert(part, wanted, text_cols, labels)

        return consume(converted())

    return OpenedFile(names, parse_columns, lambda i: f"data row {i + 1} of {label}", file_type, "", n_rows,
                      _our_metadata(schema), scan if pieces is not None else None)


def open_file(data: bytes, label: str, ext: str, limits: Limits | None = None) -> OpenedFile:
    import pyarrow as pa  # lazy: read_source and the text checks serve the small-CSV reader without it

    limits = limits or Limits.from_env()

    if is_parquet(data, ext):
        import pyarrow.parquet as pq  # heavy: a Parquet file only

        try:
            pf = pq.ParquetFile(io.BytesIO(data))  # the footer only: schema and row counts, no data yet
            schema = pf.schema_arrow
        except Exception as exc:  # noqa: BLE001 - any reader failure is a bad file
            raise EvalStatsError(f"could not read {label} as Parquet ({exc}); re-export the file") from None
        _check_unpacked(pf.metadata, label, limits)

        def read_parquet(cols: list[str], coded: list[str]) -> pa.Table:
            # text label columns read as dictionaries (Parquet stores them so): no string per row (issue 25)
            source = pq.ParquetFile(io.BytesIO(data), read_dictionary=coded) if coded else pf
            return source.read(columns=cols, use_threads=False)

        def row_groups(cols: list[str], coded: list[str]) -> Any:
            source = pq.ParquetFile(io.BytesIO(data), read_dictionary=coded) if coded else pf
            for g in range(source.num_row_groups):  # one row group's columns at a time (issue 25)
                yield source.read_row_group(g, columns=cols, use_threads=False)

        return open_arrow(schema, int(pf.metadata.num_rows), read_parquet, label, limits, pieces=row_groups)

    data, text = _check_text(data, label)
    if not text or text.isspace():
        raise EvalStatsError(f"{label} is empty; it needs a header line and one line per answer")
    body = text.lstrip("\r\n")
    n_lines = line_count(body.count("\n"), body.count("\r"), body.count("\r\n"), body.endswith(("\n", "\r")))
    del text  # the decoded text is only needed again for an error message (a ragged row, a row's line number),
    # and decoding again then is cheap (issue 25)

    def stream(limit: int | None = None) -> Any:
        return pa.BufferReader(data if limit is None else pa.py_buffer(data).slice(0, min(limit, len(data))))

    return open_csv_text(body, stream, lambda: data.decode("utf-8"), n_lines, label, ext, limits, len(data))


#: Files at least this large are read from the disk block by block; smaller ones as bytes.
STREAM_BYTES = _BLOCK_SIZE

_NOT_CSV = (".parquet", ".pq", ".gz", ".gzip", ".bz2", ".xz", ".zst", ".zip", ".eval", ".json", ".jsonl")


def open_path(source: Any, name: str | None, limits: Limits) -> tuple[OpenedFile, str, str] | None:
    """``(opened file, display name, extension)`` for a large plain CSV file at ``source``, else None."""
    if not isinstance(source, str | os.PathLike):
        return None
    path = os.fspath(source)
    ext = os.path.splitext(path)[1].lower()
    if ext in _NOT_CSV:
        return None
    try:
        size = _check_regular(path)
    except Exception:  # noqa: BLE001 - read_source gives the message
        return None
    if not STREAM_BYTES <= size <= limits.max_bytes:
        return None
    label = name or os.path.basename(path)
    try:
        scanned = _scan(path, size, label, limits)
    except OSError:
        return None
    if scanned is None:
        return None
    head, bom, n_lines = scanned

    def stream(limit: int | None = None) -> Any:
        import pyarrow as pa  # heavy: the Arrow reader only

        fh = open_regular(path)  # read-only (the user's file is never modified); closed when dropped
        fh.seek(bom)  # the bytes path parses the text without its byte-order mark: the same blocks
        if limit is not None:
            with fh:
                return pa.BufferReader(fh.read(limit))
        # a Python file, not pa.OSFile: pyarrow reads ahead up to 32 blocks from an OSFile into its own memory
        return pa.PythonFile(fh, mode="r")

    def decoded() -> str:
        with open_regular(path) as fh:
            return fh.read()[bom:].decode("utf-8")

    return open_csv_text(head, stream, decoded, n_lines, label, ext, limits, size - bom), label, ext


def _scan(path: str, size: int, label: str, limits: Limits) -> tuple[str, int, int] | None:
    """One pass over the file: (the first block's text, the length of the byte-order mark, the data lines), or
    None when the file is not a plain UTF-8 CSV. The row budget is checked block by block as
    :func:`read_source` checks it (the same blocks, the same count, the same message)."""

    decoder = codecs.getincrementaldecoder("utf-8")()
    lf = cr = crlf = 0
    count_early = limits.max_rows < size  # read_source's pre-count of a file that may hold more lines
    with open_regular(path) as fh:
        block = fh.read(_BLOCK_SIZE)
        bom = 3 if block.startswith(b"\xef\xbb\xbf") else 0
        start = block[bom:bom + 4096]
        if (compression(block) is not None or block.startswith((b"PAR1", b"PK\x03\x04")) or b"\x00" in block[:4096]
                or utf16(block[:4096]) is not None or start[:1] in (b"\r", b"\n")
                or start.lstrip(b" \t\r\n\f\v").startswith(b"{") or not block[bom:].strip()):
            return None
        try:
            head = decoder.decode(block[bom:])
        except UnicodeDecodeError:
            return None
        if not _one_line_header(head, os.path.splitext(path)[1].lower()):
            return None
        lines, last = -1, b""
        while block:
            newlines = block.count(b"\n")
            lines += newlines
            if count_early:
                _check_rows(lines, label, limits, exact=False)
            lf += newlines
            cr += block.count(b"\r")
            crlf += block.count(b"\r\n") + (last == b"\r" and block[:1] == b"\n")
            last = block[-1:]
            block = fh.read(_BLOCK_SIZE)
            try:
                decoder.decode(block, final=not block)
            except UnicodeDecodeError:
                return None
    return head, bom, line_count(lf, cr, crlf, last in (b"\n", b"\r"))


def _one_line_header(head: str, ext: str) -> bool:
    """The header record ends on the first line (so the first block holds all of it)."""

    if "\n" not in head:
        return False
    reader = csv.reader(_lines_of(head), delimiter=delimiter(head.partition("\n")[0], ext))
    try:
        next(reader)
    except (csv.Error, StopIteration):
        return False
    return reader.line_num == 1


def source_of(source: Any, name: str | None, limits: Limits) -> tuple[bytes | None, str, str, Any]:
    """``(bytes, name, extension, None)`` of a source, or ``(None, name, extension, opened file)`` for a large
    plain CSV file, which is read from the disk block by block and never held whole (issue 25)."""
    streamed = open_path(source, name, limits)
    if streamed is not None:
        return None, streamed[1], streamed[2], streamed[0]
    return (*read_source(source, name, limits), None)


def line_count(lf: int, cr: int, crlf: int, ends_in_newline: bool) -> int:
    """Data lines of a CSV text (blank ones too) from its counts of ``\\n``, ``\\r`` and ``\\r\\n``, header
    excluded: an upper bound on its rows."""
    return lf + cr - crlf - 1 + (not ends_in_newline)


_SMALL_BLOCK = 1 << 20  # bytes per block after the first: the types are known, and a block's parse is transient


def open_csv_text(head: str, stream: Callable[[], Any], decoded: Callable[[], str], n_lines: int, label: str,
                  ext: str, limits: Limits, size: int) -> OpenedFile:
    """An :class:`OpenedFile` over CSV text: ``head`` starts with the header line, ``stream(limit=None)`` opens
    the body's ``size`` bytes (or its first ``limit``) for pyarrow (from memory, or from the disk block by
    block), ``decoded()`` gives the whole text for an error message, and ``n_lines`` counts the lines after the
    header."""
    import pyarrow as pa  # heavy: the Arrow CSV reader only (a large CSV)
    import pyarrow.csv as pacsv


    delimiter = sniff_delimiter(head.partition("\n")[0], ext)
    raw = next(csv.reader(_lines_of(head), delimiter=delimiter))
    parse_options = pacsv.ParseOptions(delimiter=delimiter)

    def reader(types: dict[str, pa.DataType], block: int, source: Any, only: list[str] | None = None) -> Any:
        return pacsv.open_csv(source, read_options=pacsv.ReadOptions(block_size=block), parse_options=parse_options,
                              convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                                                   include_columns=only))

    def batches(consume: Callable[[Any], Any], types: dict[str, pa.DataType]) -> Any:
        """``consume`` of the body's record batches. The column types are guessed from the first block of
        _BLOCK_SIZE bytes (as read_csv guesses them); the body is then read in small blocks with those types,
        so that one block's parse (~4x the block) stays small beside the columns kept (issue 25). A line
        longer than a small block (a long prompt, a very wide header) is read again in blocks of the first
        block's size, as before."""
        if size <= _BLOCK_SIZE or len(set(raw)) < len(raw):  # one block (or names a type cannot be given by)
            return consume(reader(types, _BLOCK_SIZE, stream()))
        try:
            known = types
            if len(types) < len(raw):  # the guessed columns of the first block (and a little more: where it ends)
                guessed = reader({}, _BLOCK_SIZE, stream(_BLOCK_SIZE + (1 << 16)), [c for c in raw if c not in types])
                known = {**types, **{f.name: f.type for f in guessed.schema}}
                del guessed
            return consume(reader(known, _SMALL_BLOCK, stream()))
        except pa.ArrowInvalid as exc:
            if "conversion error" in str(exc):
                raise
        return consume(reader(types, _BLOCK_SIZE, stream()))

    def typed(text_cols: list[int], labels: tuple[int, ...], as_text: bool) -> dict[str, pa.DataType]:
        # label columns come dictionary-encoded out of the parser: integer indices and the distinct labels,
        # never a string per row (issue 25: ~100 B a row less at the peak of a long CSV)
        coded = pa.dictionary(pa.int32(), pa.string())
        cols = range(len(raw)) if as_text else text_cols
        return {raw[i]: coded if i in labels else pa.string() for i in cols}

    def scan(consume: Callable[[Any], Any], text_cols: list[int], used: list[int] | None = None,
             labels: tuple[int, ...] = ()) -> Any:
        try:
            try:
                return batches(consume, typed(text_cols, labels, False))
            except pa.ArrowInvalid as exc:
                if "conversion error" not in str(exc):
                    raise
                # a column's type was guessed from the first block and a later value does not fit:
                # read everything as text so that the value can be reported with its row
                return batches(consume, typed(text_cols, labels, True))
        except pa.ArrowInvalid as exc:
            raise _ragged(decoded(), delimiter, len(raw), label) or EvalStatsError(
                f"could not read {label} as CSV ({exc}); check that it is comma-separated text with one "
                "header line") from None

    def parse_csv(text_cols: list[int], used: list[int] | None = None, labels: tuple[int, ...] = ()) -> pa.Table:
        table = scan(lambda r: pa.Table.from_batches(list(r), schema=r.schema), text_cols, used, labels)
        return table.rename_columns([f"c{i}" for i in range(table.num_columns)])

    def where(i: int) -> str:
        return f"row {_line_of_record(decoded(), delimiter, i)} of {label}"

    _check_rows(n_lines, label, limits, exact=False)
    return OpenedFile([h.strip() for h in raw], parse_csv, where, "csv", delimiter, n_lines, None, scan)


# ------------------------------------------------------------ the table reader: roles, one parse, Records
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
        m_codes, m_labels = label_codes(table.column(mi), "model name", header[mi], where, strict=True, merged=notes)
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


# ------------------------------------------------------------ the small-CSV reader: the standard library, the same Records
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
        return _read_small_text(text, label, limits, format, given, ignore_cols)
    except EvalStatsError:  # the Arrow reader says it, in its own words and order
        return None


def _read_small_text(text: str, label: str, limits: Limits, format: str | None, given: dict[str, str | None],
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
