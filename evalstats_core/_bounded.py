"""Bounded reading of compressed bytes and JSON (private): every decompression stops at a byte budget.

=========================  ==================================================================================
:func:`decompress`         gzip, bz2, xz or zstd bytes, decompressed in steps up to ``cap`` bytes (then stops)
:func:`zip_member`         one ZIP member (stored, deflate, bz2, lzma or zstd), read up to the budget left
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

import io
import json
import re
import struct
import zipfile
from dataclasses import dataclass
from typing import Any

from ._sniff import utf16
from .errors import EvalStatsError
from .limits import Limits

__all__ = ["Budget", "decompress", "zip_member", "parse_json", "json_limit", "MAX_JSON_DEPTH"]

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
        import zstandard
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
    import bz2
    import gzip
    import lzma

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
    depth = _depth(text)
    if depth > MAX_JSON_DEPTH:
        raise EvalStatsError(f"{label} nests {what} more than {MAX_JSON_DEPTH} levels deep; no harness writes "
                             "that: give the log the harness wrote")
    try:
        return json.loads(text, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise EvalStatsError(f"{label} is not valid {what}: {exc.msg} at line {exc.lineno}, column {exc.colno}; "
                             "give the file the harness wrote, unchanged") from None
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


def _depth(text: str) -> int:
    """Deepest nesting of ``[``/``{`` outside strings, found without recursion, in bounded blocks."""

    import numpy as np

    if "[" not in text and "{" not in text:
        return 0
    brackets = re.sub(r'"(?:[^"\\]|\\.)*"|[^\[\]{}"]+', "", text)  # strings may hold brackets: drop them
    deepest = level = 0
    for i in range(0, len(brackets), _STEP):
        b = np.frombuffer(brackets[i:i + _STEP].encode("ascii"), dtype=np.uint8)
        step = ((b == ord("[")) | (b == ord("{"))).astype(np.int64) - ((b == ord("]")) | (b == ord("}")))
        run = level + np.cumsum(step)
        deepest, level = max(deepest, int(run.max())), int(run[-1])
    return deepest


def json_lines_depth(data: bytes) -> int:
    """Deepest ``[``/``{`` nesting in UTF-8 JSON text, quoted brackets and escaped quotes skipped, by numpy in
    blocks of :data:`_STEP` bytes (the regex of :func:`_depth` takes 2 s for 20 MB of lm-eval samples).

    The level runs on across lines: for a file whose every line is one valid JSON value (each balanced,
    the caller checks that by parsing) it is the deepest line's nesting, as :func:`_depth` finds it.
    """
    import numpy as np

    deepest = level = quotes = 0
    carry = 0  # backslashes just before the block
    for i in range(0, len(data), _STEP):
        b = np.frombuffer(data, dtype=np.uint8, count=min(_STEP, len(data) - i), offset=i)
        pos = np.arange(len(b))
        last = np.maximum.accumulate(np.where(b != 92, pos, -1))  # last non-backslash at or before each byte
        prev = np.concatenate(([-1], last[:-1]))
        run = pos - 1 - prev + np.where(prev == -1, carry, 0)  # backslashes right before each byte
        real = (b == 34) & (run % 2 == 0)  # a quote that is not escaped
        inside = (quotes + np.cumsum(real)) % 2 == 1
        step = (((b == 91) | (b == 123)) & ~inside).astype(np.int64) - (((b == 93) | (b == 125)) & ~inside)
        levels = level + np.cumsum(step)
        deepest, level = max(deepest, int(levels.max())), int(levels[-1])
        quotes = (quotes + int(real.sum())) % 2
        carry = len(b) - 1 - int(last[-1]) if last[-1] >= 0 else carry + len(b)
    return deepest
