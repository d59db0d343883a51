"""Bounded reading of compressed bytes and JSON (private): every decompression stops at a byte budget.

=========================  ==================================================================================
:func:`decompress`         gzip, bz2, xz or zstd bytes, decompressed in steps up to ``cap`` bytes (then stops)
:func:`zip_member`         one ZIP member (stored, deflate, bz2, lzma or zstd), read up to the budget left
:func:`head`               the first bytes of a file's contents, decompressed when compressed (a sniff)
:class:`Budget`            the bytes still allowed out of one file (shared by all its members)
:func:`parse_json`         JSON text to Python values; depth, decoding and number errors as one message
=========================  ==================================================================================

A compressed file is judged by the bytes it *produces*, never by the size it *declares*: a ZIP member or
a zstd frame may claim any size (a 150 KB Inspect ``.eval`` can hold a frame of spaces that inflates to
6 GB). Every importer, the analysis bundle and the CSV path read through these functions, so the memory
an upload can take is bounded by :attr:`Limits.max_bytes <evalstats_core.limits.Limits.max_bytes>` by
construction, not by catching ``MemoryError``.
"""

from __future__ import annotations

import bz2
import io
import json
import lzma
import struct
import zipfile
import zlib
from dataclasses import dataclass
from typing import Any

from ._sniff import compression, utf16
from .errors import EvalStatsError
from .limits import Limits

__all__ = ["Budget", "decompress", "zip_member", "head", "parse_json", "json_limit", "MAX_JSON_DEPTH"]

_STEP = 1 << 20  # bytes decompressed per step
_ZSTD = 93  # the ZIP compression method number of zstd (APPNOTE 4.4.5)
#: Nesting deeper than this in a harness log or a bundle's settings is refused (real logs nest < 30 deep).
MAX_JSON_DEPTH = 200


@dataclass(slots=True)
class Budget:
    """Bytes still allowed out of one file; :meth:`take` raises once the file has produced more."""

    left: int
    label: str
    limit: int
    what: str = ""

    @classmethod
    def of(cls, limits: Limits, label: str) -> Budget:
        return cls(limits.max_bytes, label, limits.max_bytes)

    @classmethod
    def for_json(cls, limits: Limits, label: str, outer: Budget) -> Budget:
        """The budget of one JSON member: what the file has left, at most :func:`json_limit` (its objects take
        several times its text, so a JSON bomb stops at a quarter of the budget)."""
        cap = json_limit(limits)
        if outer.left <= cap:
            return outer
        return cls(cap, label, cap, " of JSON read into memory at once (a quarter of the byte budget)")

    def take(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise EvalStatsError(
                f"{self.label} decompresses to more than the limit of {self.limit / 2**20:,.0f} MB{self.what}; "
                f"analyze a smaller file, or {Limits.how_to_raise('max_bytes')}")


def _zstd():
    try:
        import zstandard  # optional dependency (a zstd file only)
    except ImportError:
        raise EvalStatsError("the file is zstd-compressed and the zstandard module is not installed; install it "
                             "(pip install zstandard) or decompress the file first (zstd -d)") from None
    return zstandard


def _read_stream(fh: Any, budget: Budget) -> bytes:
    """Read a decompressing stream in steps, charging each step to the budget (so a bomb stops at it)."""
    parts = []
    while True:
        chunk = fh.read(min(_STEP, budget.left + 1))
        if not chunk:
            return b"".join(parts)
        budget.take(len(chunk))
        parts.append(chunk)


def decompress(data: bytes, kind: str, budget: Budget) -> bytes:
    """``data`` (``kind``: gzip, bz2, xz or zstd) decompressed, at most ``budget.left`` bytes, else an error."""
    import gzip  # only for a gzip file: kept off the CSV start-up

    if kind == "zstd":
        with _zstd().ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True) as fh:
            return _read_stream(fh, budget)
    raw = io.BytesIO(data)
    opened = gzip.GzipFile(fileobj=raw) if kind == "gzip" else bz2.BZ2File(raw) if kind == "bz2" else lzma.LZMAFile(raw)
    with opened as fh:  # each reads in steps of at most what is asked for
        return _read_stream(fh, budget)


def zip_member(data: bytes, zf: zipfile.ZipFile, name: str, budget: Budget) -> bytes:
    """One member of the ZIP ``zf`` (opened on ``data``), read within ``budget`` whatever size it declares."""
    info = zf.getinfo(name)
    if info.compress_type != _ZSTD:
        with zf.open(info) as fh:  # ZipExtFile decompresses only as much as each read asks for
            return _read_stream(fh, budget)
    start = info.header_offset
    if start + 30 > len(data):
        raise EvalStatsError(f"{budget.label} is a damaged ZIP archive (member {name!r} lies outside it)")
    fn_len, extra_len = struct.unpack("<HH", data[start + 26:start + 30])  # the local file header
    begin = start + 30 + fn_len + extra_len
    raw = data[begin:begin + info.compress_size]
    with _zstd().ZstdDecompressor().stream_reader(io.BytesIO(raw)) as fh:
        return _read_stream(fh, budget)


def head(data: bytes, ext: str, n: int = 1 << 20) -> bytes:
    """The first ``n`` bytes of a file's contents, for a sniff: decompressed when ``data`` is gzip, bz2, xz, zstd or
    a one-file ``.zip`` (never more than ``n`` bytes produced), ``data[:n]`` otherwise; ``b""`` when a compressed
    file's start cannot be decompressed (its reader then says why)."""
    kind = compression(data)
    try:
        if kind == "gzip":
            return zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(data, n)  # the first member's first n bytes
        if kind == "bz2":
            return bz2.BZ2Decompressor().decompress(data, max_length=n)
        if kind == "xz":
            return lzma.LZMADecompressor().decompress(data, max_length=n)
        if kind == "zstd":
            with _zstd().ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True) as fh:
                return fh.read(n)
        if ext == ".zip" and data[:4] == b"PK\x03\x04":
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                members = [i for i in zf.infolist() if not i.is_dir()]
                if len(members) != 1 or members[0].compress_type == _ZSTD:
                    return b""
                with zf.open(members[0]) as fh:
                    return fh.read(n)
    except Exception:  # noqa: BLE001 - a damaged or unsupported start: nothing to sniff
        return b""
    return data[:n]


def json_limit(limits: Limits) -> int:
    """Bytes of JSON text read into Python objects at once: a quarter of the byte budget (the objects take
    several times the text, so this keeps a log's memory near the budget; 128 MB by default)."""
    return max(limits.max_bytes // 4, 1)


def parse_json(data: bytes | str, label: str, what: str = "JSON", limits: Limits | None = None) -> Any:
    """Parse JSON; every failure (bad bytes, bad syntax, nesting deeper than :data:`MAX_JSON_DEPTH`, a number
    too large for a float, more text than :func:`json_limit` of ``limits``) is one :class:`EvalStatsError`
    naming the file, the place and the fix."""
    if limits is not None and len(data) > json_limit(limits):
        raise EvalStatsError(
            f"{label} holds {len(data) / 2**20:,.0f} MB of {what}, more than the {json_limit(limits) / 2**20:,.0f} MB "
            f"read into memory at once (a quarter of the byte budget); give a smaller log, or "
            f"{Limits.how_to_raise('max_bytes')}")
    if isinstance(data, bytes | bytearray):
        text = _decode(bytes(data), label, what)
    else:
        text = data
    depth = _depth(data if isinstance(data, bytes | bytearray) else text.encode("utf-8", "surrogatepass"))
    if depth > MAX_JSON_DEPTH:
        raise EvalStatsError(f"{label} nests {what} more than {MAX_JSON_DEPTH} levels deep; no harness writes "
                             "that: give the log the harness wrote")
    try:
        return json.loads(text, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise EvalStatsError(f"{label} is not valid {what}: {exc.msg} at line {exc.lineno}, column {exc.colno}; "
                             "give the file the harness wrote, unchanged") from None
    except ValueError:  # an integer of more than 4,300 digits (Python's int_max_str_digits), issue 46
        raise EvalStatsError(f"{label} holds a number too long to read (over 4,300 digits); no harness writes that: "
                             "give the log the harness wrote") from None
    except RecursionError:  # a belt over the depth check above
        raise EvalStatsError(f"{label} nests {what} too deeply to read; give the log the harness wrote") from None


def _constant(word: str) -> float:
    return float(word)  # NaN, Infinity: kept as floats, refused later as scores if they are used


def _decode(data: bytes, label: str, what: str) -> str:
    if utf16(data[:4096]) is not None:
        raise EvalStatsError(f"{label} is UTF-16 text; {what} logs are UTF-8: re-save it as UTF-8 (or give the "
                             "file the harness wrote, unchanged)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise EvalStatsError(f"{label} is not UTF-8 text: line {line} has the byte 0x{data[exc.start]:02x}; give "
                             "the file the harness wrote, unchanged (or re-save it as UTF-8)") from None


# every byte but quotes and brackets: what the depth scan drops (escaped quotes dropped first)
_NOT_MARKS = bytes(range(256)).translate(None, b'"[]{}')


def _depth(data: bytes) -> int:
    """Deepest nesting of ``[``/``{`` outside strings in UTF-8 JSON text (escaped quotes and quoted brackets
    skipped); the level runs on across lines, so for JSON lines it is the deepest line's nesting.

    The text is cut down at C speed and numpy counts the levels on what remains, usually a few percent of the
    text: escaped backslashes, then escaped quotes are dropped (``bytes.replace``, left to right, so an escaped
    backslash before a closing quote keeps that quote; any other escape holds no quote or bracket),
    ``bytes.translate`` keeps only quotes and brackets, and a bracket counts where an even number of quotes came
    before it (issue 44.3: 12 ms against the 114 ms of the regex over the whole text it replaces, on 3.2 MB of
    Inspect summaries). The brackets outside strings are picked by the quotes' running parity and counted as
    +1/-1 from one bit of their byte (the counting 12 -> 1.5 ms of the 26 ms scan on those summaries).
    """
    import numpy as np  # not on the start-up path of a command that reads no JSON

    if b"\\" in data:
        data = bytes(data).replace(b"\\\\", b"").replace(b'\\"', b"")
    marks = data.translate(None, _NOT_MARKS)
    if not marks:
        return 0
    b = np.frombuffer(marks, dtype=np.uint8)
    quote = b == ord('"')
    outside = ~(np.logical_xor.accumulate(quote) | quote)  # a bracket after an even number of quotes
    steps = (b[outside] & 2).astype(np.int8) - 1  # '[' and '{' have the bit 2, ']' and '}' not: +1 and -1
    return max(0, int(np.cumsum(steps, dtype=np.int64).max())) if len(steps) else 0


def json_lines_depth(data: bytes) -> int:
    """Deepest ``[``/``{`` nesting in UTF-8 JSON text: :func:`_depth` (for a file whose every line is one valid JSON
    value, each balanced, the caller checks that by parsing, it is the deepest line's nesting)."""
    return _depth(data)
