"""Merging per-group sums exactly (private): the centring and the (co-)moment and third-moment updates that
:meth:`FileSums.merged <evalstats_core.sums.FileSums.merged>` applies, and that the estimators share.

==========================  =======================================================================
:func:`centre`              ``(n, overall mean, per-group deviations)`` over the non-empty groups
:func:`centre_kept`         :func:`centre`, once per pair of arrays in a ``FileSums.memo``
                            (:mod:`~evalstats_core._estimate_memo` reads it too)
``_within_plus``            one group's centred (co-)moment from the within-group sums and the deviations
``_merged_m3``              one group's centred sum of cubes of a pair's difference
==========================  =======================================================================

The classes and :func:`~evalstats_core.sums.file_sums` live in :mod:`evalstats_core.sums`, which re-exports
:func:`centre` and :func:`centre_kept`.

References
----------
Chan, T. F., Golub, G. H. & LeVeque, R. J. (1983). Algorithms for computing the sample variance: analysis and
recommendations. *The American Statistician* 37(3), 242-247.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .sums import PairSums

__all__ = ["centre", "centre_kept"]


def _merged_m3(p: PairSums, dd: np.ndarray) -> np.ndarray | None:
    """The merged centred sum of cubes of ``d`` (Chan, Golub & LeVeque's update for the third moment):
    ``sum_g m3_g + 3 sum_g dd_g m2_g + sum_g n_g dd_g^3``, ``dd_g`` the group's mean of ``d`` less the overall."""
    if p.m3_diff is None:
        return None
    return np.array([float(p.m3_diff.sum()) + 3.0 * float(p.m2_diff @ dd) + float(p.count @ dd ** 3)])


def centre(count: np.ndarray, mean: np.ndarray,
           facts: tuple[int, bool, np.ndarray, np.ndarray] | None = None) -> tuple[int, float, np.ndarray]:
    """``(n, overall mean, per-group deviations mean_g - overall)`` over the groups with ``count > 0``.

    The overall mean is taken as ``m_ref + sum n_g (m_g - m_ref) / n`` with ``m_ref`` the first group's
    mean, so equal group means give exactly that mean and deviations that are exactly 0. The deviations
    are 0 (not nan) in empty groups; ``n = 0`` gives a nan mean. ``facts``: :func:`count_facts` of ``count``,
    when kept (every model of a full table shares its count vector).
    """
    if count.shape == (1,) and count[0] > 0:  # one group (no clusters): the same doubles in Python floats
        n, ref = int(count[0]), float(mean[0])
        overall = ref + (n * (ref - ref)) / n
        return n, overall, np.array([ref - overall])
    n, every, used, weights = count_facts(count) if facts is None else facts
    if n == 0:
        return 0, math.nan, np.zeros(count.shape)
    if every:  # no empty group (the usual file): the same doubles without the masks
        ref = float(mean[0])
        overall = ref + float(weights @ (mean - ref)) / n
        return n, overall, mean - overall
    m = np.where(used, mean, 0.0)
    ref = float(m[int(np.argmax(used))])
    overall = ref + float(weights @ (m - ref)) / n
    return n, overall, np.where(used, m - overall, 0.0)


def count_facts(count: np.ndarray) -> tuple[int, bool, np.ndarray, np.ndarray]:
    """``(n, whether every group is used, the mask count > 0, the counts as float64)`` of a count vector: what
    :func:`centre` reads of it. The float counts are the doubles numpy casts integer counts to for ``count @ x``
    (exact below 2^53; the same BLAS dot then), cast once."""
    used = count > 0
    return (int(count.sum()), bool(used.all()), used,
            count if count.dtype == np.float64 else count.astype(np.float64))


def centre_kept(memo: dict | None, count: np.ndarray, mean: np.ndarray) -> tuple[int, float, np.ndarray]:
    """:func:`centre`, once per ``(count, mean)`` pair of arrays in ``memo`` (a :attr:`FileSums.memo
    <evalstats_core.sums.FileSums.memo>`; the entry holds the arrays, so an identity is never reused while kept),
    with :func:`count_facts` once per count vector."""
    if memo is None:
        return centre(count, mean)
    return _kept(memo, (count, mean),
                 lambda: centre(count, mean, _kept(memo, (count,), lambda: count_facts(count), "count-facts")), "centre")


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


def _within_plus(within: np.ndarray, count: np.ndarray, dev_a: np.ndarray, dev_b: np.ndarray) -> np.ndarray:
    """One group's centred (co-)moment: the within-group sums plus ``sum_g n_g dev_a,g dev_b,g``."""
    return np.array([float(within.sum()) + float(count @ (dev_a * dev_b))])
