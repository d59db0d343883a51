"""CSV text read block by block, from memory or from the disk (private; issue 25).

:func:`open_csv_text` is the CSV reader behind :func:`evalstats_core._read.open_file`: the column types are
guessed from the first 16 MB block, as ``read_csv`` guesses them, and the body is then parsed in 1 MB blocks
with those types, so that one block's parse stays small beside the columns kept. :func:`open_path` opens a
large CSV file named by its path without holding its bytes: one pass over the disk checks what
:func:`evalstats_core._read.read_source` and ``open_file`` check on the bytes (the row budget, UTF-8, the line
count), then pyarrow parses the file from the disk, and an error message that needs the text (a ragged row, a
row's line number) reads it again. Anything that is not a plain UTF-8 CSV (a compressed, zip, Parquet, UTF-16
or binary file, a harness log, a file with blank leading lines or a header that spans lines, bytes that are not
UTF-8) gets ``None``, and :func:`source_of` reads its bytes as before: every message stays the one the bytes
path gives.
"""

from __future__ import annotations

import codecs
import csv
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._read import (
    _BLOCK_SIZE,
    OpenedFile,
    _check_regular,
    _check_rows,
    _line_of_record,
    _lines_of,
    _ragged,
    read_source,
)
from .errors import EvalStatsError
from .limits import Limits

if TYPE_CHECKING:  # pyarrow is imported where a file is parsed: a small CSV is read without it
    import pyarrow as pa

__all__ = ["open_path", "source_of", "open_csv_text", "line_count", "STREAM_BYTES"]

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
        import pyarrow as pa

        fh = open(path, "rb")  # noqa: SIM115 - read-only (the user's file is never modified); closed when dropped
        fh.seek(bom)  # the bytes path parses the text without its byte-order mark: the same blocks
        if limit is not None:
            with fh:
                return pa.BufferReader(fh.read(limit))
        # a Python file, not pa.OSFile: pyarrow reads ahead up to 32 blocks from an OSFile into its own memory
        return pa.PythonFile(fh, mode="r")

    def decoded() -> str:
        with open(path, "rb") as fh:
            return fh.read()[bom:].decode("utf-8")

    return open_csv_text(head, stream, decoded, n_lines, label, ext, limits, size - bom), label, ext


def _scan(path: str, size: int, label: str, limits: Limits) -> tuple[str, int, int] | None:
    """One pass over the file: (the first block's text, the length of the byte-order mark, the data lines), or
    None when the file is not a plain UTF-8 CSV. The row budget is checked block by block as
    :func:`evalstats_core._read.read_source` checks it (the same blocks, the same count, the same message)."""
    from ._sniff import compression, utf16

    decoder = codecs.getincrementaldecoder("utf-8")()
    lf = cr = crlf = 0
    count_early = limits.max_rows < size  # read_source's pre-count of a file that may hold more lines
    with open(path, "rb") as fh:
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
    from ._sniff import delimiter

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
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from ._sniff import delimiter as sniff_delimiter

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
