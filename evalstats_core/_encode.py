"""A long table's columns encoded a piece at a time (private; issue 25).

:func:`encode` takes the pieces a reader's ``scan`` yields (CSV record batches of a small block, a Parquet row
group) and keeps of each piece only what the analysis needs: the label columns as int32 codes (written into one
array for the file) and each piece's dictionary, the score column as float64, and the other columns' text.
Each piece is then dropped, so the parse of the whole body is never held beside the codes. The labels come out
as pyarrow's ``combine_chunks`` would unify the pieces' dictionaries (the first piece's dictionary, then each
new value of the next ones, in order), so codes and labels equal those of a whole-table read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["Coded", "Scores", "Columns", "encode"]


@dataclass(frozen=True, slots=True)
class Coded:
    """A text label column: int32 codes into ``dictionary`` (its distinct values, in order of first
    appearance), and the first row whose label is null (None when none is)."""

    codes: np.ndarray
    dictionary: pa.Array
    null_row: int | None


@dataclass(frozen=True, slots=True)
class Scores:
    """A numeric (or true/false) score column as float64 (null: NaN), and the file's type of it."""

    values: np.ndarray
    type: pa.DataType


class Columns:
    """The encoded columns of a table: ``column(i)`` is a :class:`Coded`, a :class:`Scores` or a
    ``pyarrow.ChunkedArray`` (any other column, as read); ``num_rows`` rows."""

    def __init__(self, num_rows: int, columns: dict[int, Any]) -> None:
        self.num_rows, self._columns = num_rows, columns

    def column(self, i: int) -> Any:
        return self._columns[i]


def _numeric(t: pa.DataType) -> bool:
    return (pa.types.is_boolean(t) or pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)
            or pa.types.is_null(t))


class _Codes:
    """One label column being encoded: codes per row (into the piece's own dictionary until :meth:`done`)."""

    def __init__(self, capacity: int) -> None:
        self.codes = np.empty(capacity, dtype=np.int32)
        self.dicts: list[pa.Array] = []
        self.spans: list[tuple[int, int]] = []  # rows of each dictionary
        self.null_row: int | None = None

    def add(self, chunk: pa.Array, start: int) -> None:
        if not pa.types.is_dictionary(chunk.type):
            chunk = pc.dictionary_encode(chunk)  # a plain text chunk: its distinct values, first seen first
        indices = chunk.indices
        if chunk.null_count:
            if self.null_row is None:
                self.null_row = start + int(np.flatnonzero(pc.is_null(chunk).to_numpy(zero_copy_only=False))[0])
            indices = indices.fill_null(0)
        end = start + len(chunk)
        self.codes[start:end] = indices.to_numpy(zero_copy_only=False)
        self.dicts.append(chunk.dictionary)
        self.spans.append((start, end))

    def done(self, n: int) -> Coded:
        """Unify the pieces' dictionaries: one dictionary encoding of their concatenation gives each entry its
        code in the file, in order of first appearance (as ``combine_chunks`` unifies them)."""
        if not self.dicts:
            return Coded(self.codes[:0], pa.array([], pa.string()), self.null_row)
        joined = pc.dictionary_encode(pa.concat_arrays(self.dicts), null_encoding="encode")
        of_entry = joined.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)
        offset = 0
        for d, (start, end) in zip(self.dicts, self.spans, strict=True):
            part = self.codes[start:end]
            part[...] = of_entry[offset:offset + len(d)][part]
            offset += len(d)
        self.dicts.clear()
        return Coded(self.codes[:n], joined.dictionary, self.null_row)


def _grow(a: np.ndarray, need: int) -> np.ndarray:
    if need <= a.size:
        return a
    out = np.empty(max(need, 2 * a.size), dtype=a.dtype)
    out[:a.size] = a
    return out


class _Encoder:
    """The columns being encoded, one piece at a time."""

    def __init__(self, capacity: int, labels: Iterable[int], score: int | None) -> None:
        self.coded = {i: _Codes(capacity) for i in labels}
        self.score, self.values = score, np.empty(capacity)
        self.kept: dict[int, list[pa.Array]] = {}
        self.n, self.types = 0, None

    def add(self, piece: Any) -> None:
        rows, self.types = piece.num_rows, [f.type for f in piece.schema]
        for i, t in enumerate(self.types):
            col = piece.column(i)
            chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
            at = self.n
            if i in self.coded:
                c = self.coded[i]
                c.codes = _grow(c.codes, self.n + rows)
                for chunk in chunks:
                    c.add(chunk, at)
                    at += len(chunk)
            elif i == self.score and _numeric(t):
                self.values = _grow(self.values, self.n + rows)
                for chunk in chunks:
                    self.values[at:at + len(chunk)] = pc.cast(chunk, pa.float64()).to_numpy(zero_copy_only=False)
                    at += len(chunk)
            else:
                self.kept.setdefault(i, []).extend(chunks)
        self.n += rows

    def columns(self) -> Columns:
        out: dict[int, Any] = {}
        for i, t in enumerate(self.types or ()):
            if i in self.coded:
                out[i] = self.coded[i].done(self.n)
            elif i == self.score and _numeric(t):
                out[i] = Scores(self.values[:self.n], t)
            else:
                out[i] = pa.chunked_array(self.kept.pop(i, []), type=t)
        return Columns(self.n, out)


def encode(pieces: Iterable[Any], capacity: int, labels: Iterable[int], score: int | None) -> Columns:
    """The columns of ``pieces`` (record batches or tables with the same columns): ``labels`` as
    :class:`Coded`, ``score`` as :class:`Scores` when it is numeric, the rest as read; ``capacity`` is the
    expected number of rows (more are taken). Each piece is dropped once it is encoded."""
    encoder = _Encoder(max(int(capacity), 0), labels, score)
    for piece in pieces:
        encoder.add(piece)
        del piece  # the next piece's parse reuses its memory
    return encoder.columns()

