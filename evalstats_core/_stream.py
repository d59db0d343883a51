"""A large plain CSV file read from the disk block by block (private; issue 25).

:func:`open_path` opens a CSV file named by its path without holding its bytes: one pass over the disk checks
what :func:`evalstats_core._read.read_source` and :func:`evalstats_core._read.open_file` check on the bytes
(the row budget, UTF-8, the line count), then pyarrow parses the file from the disk, and an error message that
needs the text (a ragged row, a row's line number) reads it again. Anything that is not a plain UTF-8 CSV (a
compressed, zip, Parquet, UTF-16 or binary file, a harness log, a file with blank leading lines or a header
that spans lines, bytes that are not UTF-8) gets ``None``, and the caller reads its bytes as before: every
message stays the one the bytes path gives.
"""

from __future__ import annotations

import codecs
import csv
import os
from typing import Any

from ._read import _BLOCK_SIZE, OpenedFile, _check_regular, _check_rows, _lines_of, line_count, open_csv_text
from .limits import Limits

__all__ = ["open_path", "STREAM_BYTES"]

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
