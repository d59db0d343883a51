"""Per-group sums over question rows, the kernels of :func:`~evalstats_core.sums.file_sums` (private).

=========================  ======================================================================================
``_Groups``                per-group sums, dots and counts: ``np.bincount`` over the cluster codes, or plain
                           sums and dots when the file is one group
``_Column``                one model's question scores with the per-group sums ``file_sums`` needs
:func:`binary_moments`     per-group mean and centred sum of squares of 0/1 scores from exact counts
:func:`binary_pair_moments`  a 0/1 pair's discordant counts, co-moment and sum of squares of the difference
:func:`pattern_gram`       per group, the Gram matrix of 0/1 columns and the group sizes, from one ``bincount``
                           of the answer patterns: every model's ones and every pair's questions both right, per
                           cluster, of a 0/1 table in one pass
:class:`Patterns`          the same for a whole table: the Gram matrix without groups (one BLAS pass)
:func:`runs_histograms`    the runs histogram of every model from the runs table's min and max when equal
=========================  ======================================================================================

One module for the per-group kernels of ``file_sums``, on the ground floor so the estimators read the centring
and the 0/1 moments from here (:mod:`evalstats_core._estimate`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["binary_moments", "binary_pair_moments", "centre", "Patterns", "pattern_gram", "runs_histograms"]


# ------------------------------------------------------------ per-group sums and the 0/1 moments
class _Groups:
    """Per-group sums over question rows: ``np.bincount`` over the cluster codes, or plain sums and dots
    when the file is one group."""

    def __init__(self, codes: np.ndarray | None, n_groups: int) -> None:
        self.codes, self.g = codes, n_groups

    def sum(self, w: np.ndarray) -> np.ndarray:
        if self.codes is None:
            return np.array([float(np.sum(w))])
        return np.bincount(self.codes, weights=w, minlength=self.g)

    def dot(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        if self.codes is None:
            return np.array([float(u @ v)])
        return np.bincount(self.codes, weights=u * v, minlength=self.g)

    def count(self, mask: np.ndarray) -> np.ndarray:
        if self.codes is None:
            return np.array([np.count_nonzero(mask)], dtype=np.int64)
        return np.bincount(self.codes[mask], minlength=self.g).astype(np.int64)

    def take(self, v: np.ndarray) -> np.ndarray | float:
        return float(v[0]) if self.codes is None else v[self.codes]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` with 0 where ``den`` is 0."""
    positive = den > 0
    if positive.all():  # no empty group (the usual file): a plain division, the same quotients
        return num / den
    return np.divide(num, den, out=np.zeros(num.shape), where=positive)


class _Column:
    """One model's question scores with the per-group sums file_sums needs (residuals made on demand)."""

    def __init__(self, groups: _Groups, x: np.ndarray, mask: np.ndarray, full: bool, sizes: np.ndarray,
                 maybe_fractional: bool) -> None:
        self.groups, self.x, self.mask, self.full = groups, x, mask, full
        self.count = sizes if full else groups.count(mask)
        first = 0 if full else int(np.argmax(mask))  # the first answered question
        if maybe_fractional:
            frac = (x != 0.0) & (x != 1.0)
            if not full:
                frac &= mask
            self.frac: np.ndarray | None = frac
            self.not01 = np.rint(groups.sum(frac)).astype(np.int64) if frac.any() else np.zeros(groups.g, np.int64)
        else:
            self.frac, self.not01 = None, np.zeros(groups.g, np.int64)
        self.binary = not self.not01.any()
        self._resid: np.ndarray | None = None
        if self.binary:  # 0/1: integer sums, exact
            self.ones = np.rint(groups.sum(x if full else np.where(mask, x, 0.0)))
            self.mean, self.m2 = binary_moments(self.ones, self.count)
        else:  # shifted by the first answer, then centred on the group means: two passes, no cancellation
            x0 = float(x[first])
            y = x - x0 if full else np.where(mask, x - x0, 0.0)
            ybar = _ratio(groups.sum(y), self.count)
            y -= groups.take(ybar)
            if not full:
                y[~mask] = 0.0
            self._resid = y
            self.mean = _nan_empty(x0 + ybar, self.count)
            self.m2 = groups.dot(y, y)

    def resid(self) -> np.ndarray:
        """Scores minus their group's mean (0 where not answered)."""
        if self._resid is None:
            r = self.x - self.groups.take(np.nan_to_num(self.mean))
            if not self.full:
                r = np.where(self.mask, r, 0.0)
            self._resid = r
        return self._resid


def _nan_empty(v: np.ndarray, count: np.ndarray) -> np.ndarray:
    """``v`` with nan where ``count`` is 0 (a new array; ``v`` itself when no group is empty)."""
    used = count > 0
    return v if used.all() else np.where(used, v, np.nan)


def binary_moments(ones: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-group mean (``nan`` where empty) and centred sum of squares ``ones (count - ones) / count`` of 0/1
    scores from the exact counts of ones and of questions."""
    return _nan_empty(_ratio(ones, count), count), _ratio(ones * (count - ones), count)


def binary_pair_moments(both: np.ndarray, ones_a: np.ndarray, ones_b: np.ndarray,
                        count: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per group ``(only a right, only b right, co-moment, centred sum of squares of a - b)`` of two 0/1
    columns from the exact counts: questions both got right, each one's ones, and the questions."""
    only_a, only_b = ones_a - both, ones_b - both
    disc, net = only_a + only_b, only_a - only_b
    return only_a, only_b, _ratio(both * count - ones_a * ones_b, count), _ratio(disc * count - net * net, count)


def binary_diff_m3(only_a: np.ndarray, only_b: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Per group the centred sum of cubes of ``d = a - b`` of two 0/1 columns, from the discordant counts:
    ``d`` is 1 ``only_a`` times, -1 ``only_b`` times, else 0, so with ``mu = (only_a - only_b) / n``
    ``sum (d - mu)^3 = (only_a - only_b) - 3 mu (only_a + only_b) + 2 n mu^3`` (0 in an empty group)."""
    net, disc = only_a - only_b, only_a + only_b
    mu = _ratio(net, count)
    return np.where(count > 0, net - 3.0 * mu * disc + 2.0 * count * (mu * mu * mu), 0.0)


# ------------------------------------------------------------------ centring (sums and the estimators)
def centre(count: np.ndarray, mean: np.ndarray) -> tuple[int, float, np.ndarray]:
    """``(n, overall mean, per-group deviations mean_g - overall)`` over the groups with ``count > 0``.

    The overall mean is taken as ``m_ref + sum n_g (m_g - m_ref) / n`` with ``m_ref`` the first group's
    mean, so equal group means give exactly that mean and deviations that are exactly 0. The deviations
    are 0 (not nan) in empty groups; ``n = 0`` gives a nan mean.
    """
    if count.shape == (1,) and count[0] > 0:  # one group (no clusters): the same doubles in Python floats
        n, ref = int(count[0]), float(mean[0])
        overall = ref + (n * (ref - ref)) / n
        return n, overall, np.array([ref - overall])
    used, n = count > 0, int(count.sum())
    # the counts as the doubles numpy casts integer counts to for ``count @ x`` (exact below 2^53), cast once
    weights = count if count.dtype == np.float64 else count.astype(np.float64)
    if n == 0:
        return 0, math.nan, np.zeros(count.shape)
    if used.all():  # no empty group (the usual file): the same doubles without the masks
        ref = float(mean[0])
        overall = ref + float(weights @ (mean - ref)) / n
        return n, overall, mean - overall
    m = np.where(used, mean, 0.0)
    ref = float(m[int(np.argmax(used))])
    overall = ref + float(weights @ (m - ref)) / n
    return n, overall, np.where(used, m - overall, 0.0)


def _kept(memo: dict | None, arrays: tuple[np.ndarray, ...], make: Any, tag: str = "") -> Any:
    """``make()``, kept in ``memo`` (a :attr:`FileSums.memo <evalstats_core.sums.FileSums.memo>`) under ``tag``
    and the identity of the sums it reads; the entry holds those arrays, so an identity is never reused while
    kept."""
    if memo is None:
        return make()
    key = (tag, *map(id, arrays))
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = (arrays, make())
    return hit[1]


# ------------------------------------------------------------ 0/1 answer patterns: the Gram matrices of a 0/1 table in one pass
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
