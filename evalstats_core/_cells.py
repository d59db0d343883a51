"""Per-(question, model) cells of a long table, a chunk of rows at a time (private; issue 25).

The flat cell index ``question * n_models + model`` of every row is an int64 per row (24 MB at 3e6 rows), and
``np.bincount`` or fancy indexing with int32 codes makes another int64 copy of its index. Here both are built a
chunk of rows at a time, so the temporaries stay a few MB whatever the file's size. The sums are added in row
order, as ``np.bincount`` adds them, so they are the same to the last bit.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

__all__ = ["chunks", "cell_counts", "cell_sums", "scatter", "per_model_max", "per_model_any"]

_CHUNK = 1 << 18  # rows per chunk: 2 MB of int64 cell indices


def chunks(n: int) -> Iterator[slice]:
    """Slices of ``range(n)``, a chunk of rows each."""
    for start in range(0, n, _CHUNK):
        yield slice(start, min(start + _CHUNK, n))


def _cells(q: np.ndarray, m: np.ndarray, n_m: int, rows: slice) -> np.ndarray:
    cell = np.multiply(q[rows], n_m, dtype=np.int64)
    cell += m[rows]
    return cell


def cell_counts(q: np.ndarray, m: np.ndarray, n_q: int, n_m: int) -> np.ndarray:
    """(n_q, n_m) int64: the rows of each (question, model) cell."""
    k = np.zeros(n_q * n_m, dtype=np.int64)
    for rows in chunks(q.size):
        np.add.at(k, _cells(q, m, n_m, rows), 1)
    return k.reshape(n_q, n_m)


def cell_sums(q: np.ndarray, m: np.ndarray, values: np.ndarray, n_q: int, n_m: int) -> tuple[np.ndarray, np.ndarray]:
    """(n_q, n_m) counts (int64) and sums (float64) of ``values`` per (question, model) cell."""
    k = np.zeros(n_q * n_m, dtype=np.int64)
    total = np.zeros(n_q * n_m)
    for rows in chunks(q.size):
        cell = _cells(q, m, n_m, rows)
        np.add.at(k, cell, 1)
        np.add.at(total, cell, values[rows])
    return k.reshape(n_q, n_m), total.reshape(n_q, n_m)


def scatter(out: np.ndarray, index: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``out[index] = values`` (the last row wins), without an int64 copy of a narrower ``index``."""
    for rows in chunks(index.size):
        out[index[rows].astype(np.intp, copy=False)] = values[rows]
    return out


def per_model_max(m: np.ndarray, values: np.ndarray, n_m: int) -> np.ndarray:
    """(n_m,) the largest ``|values|`` of each model's rows (0 for a model without rows)."""
    top = np.zeros(n_m)
    for rows in chunks(m.size):
        np.maximum.at(top, m[rows], np.abs(values[rows]))
    return top


def per_model_any(m: np.ndarray, mask: np.ndarray, n_m: int) -> np.ndarray:
    """(n_m,) bool: whether ``mask`` holds on any row of each model."""
    hit = np.zeros(n_m, dtype=bool)
    for rows in chunks(m.size):
        hit |= np.bincount(m[rows][mask[rows]], minlength=n_m) > 0
    return hit
