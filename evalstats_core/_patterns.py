"""Every model's ones and every pair's questions both right, per cluster, of a 0/1 table in one pass (private).

=========================  ======================================================================================
:func:`pattern_gram`       per group, the Gram matrix of 0/1 columns and the group sizes, from one ``bincount``
                           of the answer patterns (:func:`~evalstats_core.sums.file_sums`)
:class:`Patterns`          the same for a whole table: the Gram matrix without groups (one BLAS pass)
:func:`runs_histograms`    the runs histogram of every model from the runs table's min and max when equal
=========================  ======================================================================================
"""

from __future__ import annotations

import numpy as np

__all__ = ["Patterns", "pattern_gram", "runs_histograms"]

_PATTERN_MODELS, _PATTERN_BINS = 10, 1 << 22  # 0/1 tables counted by answer pattern: most models, most bins
_CHUNK = 1 << 18  # rows keyed and counted at a time (2 MB buffers; the counts of every chunk are added, exact)


def runs_histograms(k: np.ndarray) -> list[np.ndarray]:
    """``np.bincount`` of every column of the runs table ``k`` (shape ``(n_q, n_m)``): from its smallest and
    largest value when they are equal (every question answered alike, the usual file: two fast passes over the
    contiguous table instead of a copy and a count per column), else column by column."""
    n_q, n_m = k.shape
    if n_q and k.dtype.kind in "iu":
        lo = int(k.min())
        if lo >= 0 and lo == int(k.max()):
            hist = np.zeros(lo + 1, dtype=np.intp)
            hist[lo] = n_q
            return [hist.copy() for _ in range(n_m)]
    return [np.bincount(k[:, j]) for j in range(n_m)]


class Patterns:
    """Per group, every model's count of ones and every pair's count of questions both got right, for a table
    of 0/1 answers that every model answered: the Gram matrix ``x' x`` without groups (one BLAS pass), else
    the per-group counts of each answer pattern (one ``bincount`` of ``code * 2^m + sum_j x_j 2^j``); exact
    integer sums either way (the pattern counts times each pair's 0/1 weights: one small matrix product). :meth:`of`
    gives None when there would be too many pattern bins."""

    def __init__(self, gram: np.ndarray, sizes: np.ndarray | None) -> None:
        self.gram, self._sizes = gram, sizes  # gram: (m, m, G) per group, or (m, m, 1) without groups

    @classmethod
    def of(cls, scores: np.ndarray, codes: np.ndarray | None, n_groups: int) -> Patterns | None:
        if codes is None:
            return cls(_gram(scores)[:, :, None], None)
        counted = pattern_gram(scores, codes, n_groups)
        return None if counted is None else cls(*counted)

    def sizes(self) -> np.ndarray:
        """Questions per group (int64): the pattern counts summed (exact), no pass over the codes."""
        return self._sizes.astype(np.int64)


def _gram(scores: np.ndarray) -> np.ndarray:
    """``scores' scores`` of a table of 0/1 scores: for two columns ``a, b`` (C-contiguous) from two complex dots of
    the rows read as ``z = a + ib`` (``z.z = sum a^2 - b^2 + 2i ab``, ``z.conj(z) = sum a^2 + b^2``; exact integer
    sums either way), which this BLAS does about 6x faster than the real product of a tall two-column matrix."""
    if scores.shape[1] != 2 or not scores.flags.c_contiguous or scores.dtype != np.float64:
        return scores.T @ scores
    z = scores.view(np.complex128).ravel()
    u, v = complex(z @ z), float(np.vdot(z, z).real)
    aa, bb, ab = (u.real + v) / 2.0, (v - u.real) / 2.0, u.imag / 2.0
    return np.array([[aa, ab], [ab, bb]])


def pattern_gram(scores: np.ndarray | tuple[np.ndarray, ...], codes: np.ndarray,
                 n_groups: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Per group, the Gram matrix of 0/1 score columns and the group sizes, from one ``bincount`` of answer
    patterns; None when there would be too many bins.

    Parameters
    ----------
    scores : ndarray of shape (n, m), or a tuple of at most two arrays of shape (n,)
        0/1 scores (float64), every question answered.
    codes : ndarray of int, shape (n,)
        Group codes in ``[0, n_groups)``.
    n_groups : int
        Number of groups.

    Returns
    -------
    (gram, sizes) : ndarray of shape (m, m, G) and (G,), float64
        ``gram[j, j]`` counts model ``j``'s ones per group, ``gram[j, i]`` the questions both got right; exact
        integers (the counts of each pattern ``sum_j x_j 2^j`` per group, times each pair's 0/1 weights: one
        ``bincount`` of ``code * 2^m + pattern`` and one small matrix product).
    """
    n_m = len(scores) if isinstance(scores, tuple) else scores.shape[1]
    width = 1 << n_m
    if n_m > _PATTERN_MODELS or n_groups * width > _PATTERN_BINS:
        return None
    columns = scores if isinstance(scores, tuple) else tuple(scores[:, j] for j in range(n_m))
    n = codes.shape[0]
    step = max(1, min(_CHUNK, n))
    key, as_int = np.empty(step), np.empty(step, dtype=np.int64)
    counts = np.zeros(n_groups * width, dtype=np.int64)
    powers = (1 << np.arange(n_m)).astype(np.float64)
    for start in range(0, n, step):  # in chunks of rows that stay in cache: no n-sized temporaries
        end = min(start + step, n)
        k, k_int = key[: end - start], as_int[: end - start]
        np.multiply(codes[start:end], float(width), out=k)  # code * 2^m + the answer pattern (exact integers)
        if n_m > 2:
            k += scores[start:end] @ powers
        else:  # a matrix-vector product with 2 columns is slower than adding them (x_1 twice: no temporary)
            for j, column in enumerate(columns):
                for _ in range(1 << j):
                    k += column[start:end]
        k_int[...] = k
        counts += np.bincount(k_int, minlength=n_groups * width)
    counts = counts.reshape(n_groups, width).astype(np.float64)
    bits = (np.arange(width)[:, None] >> np.arange(n_m)) & 1  # (2^m, m): model j right in the pattern
    both = (bits[:, :, None] & bits[:, None, :]).reshape(width, n_m * n_m)
    weights = np.hstack([both, np.ones((width, 1), np.int64)]).astype(np.float64)
    per_group = weights.T @ counts.T  # (m*m + 1, G), rows contiguous
    return per_group[:-1].reshape(n_m, n_m, n_groups), per_group[-1]
