"""The paired 0/1 difference from the two discordant cells' logit-scale CR2 intervals (MOVER), with clusters.

=============================  ========================================================================
:func:`cell_mover_interval`    Newcombe's / Zou & Donner's MOVER interval for ``P(only A) - P(only B)``
                               from the logit-scale CR2 intervals of the two discordant cells and the
                               cluster-level correlation of their estimates; vectorised over files
:func:`cell_mover_p`           the p-value at 0 that matches it: ``p < 1 - confidence`` exactly when
                               the interval excludes 0
:func:`disagreement_df`        the df of a clustered paired 0/1 comparison (the smallest of the
                               design's, the variance's and the disagreements' cluster counts)
:func:`variance_clusters`      how many clusters a CR2 variance rests on (Kish's n of its contributions)
:func:`variance_df`            the df that count calibrates to: ``3 K - 2`` (``G`` for ``G`` normal,
                               equal clusters; 1 when one cluster holds the variance)
=============================  ========================================================================

Why. When two models' disagreements come in bursts (a few clusters where one model wins many) the
cluster differences are J-shaped: a file that misses the heavy clusters shows a small difference, few
disagreements and a small design effect, all at once, so an interval built from the file's own spread
and centred on its estimate (the CR2 t, or Tango's score interval on design-effect-scaled counts) lies
wholly on the short side of the truth far more often than ``(1 - confidence) / 2``: on the clustered
designs of ``bench/bench_pair_edges.py`` the gate's false-pass rate at its margin reached 5-7% where
2.5% is promised. The estimate of each discordant cell, ``P(only A right)`` and ``P(only B right)``, is
a small clustered proportion, skewed the same way, and its interval on the logit scale (Korn & Graubard
1999, Sec. 3.2.3) is long on the side a missed burst would be; the MOVER ("method of variance estimates
recovery") combines the two cells' distances to their limits, with the correlation of the two cells'
cluster residuals, into limits for the difference (Newcombe 1998, method 10; Zou & Donner 2008).
:func:`~evalstats_core.pair_proportions.binary_pair_interval` takes the union of this interval and Tango's.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import stdtr

from ._clusters import cr2_factors, hat_complement
from ._ksection import ksection

__all__ = ["cell_mover_interval", "cell_mover_p", "disagreement_df", "variance_df", "whole_counts"]


def whole_counts(x: Any) -> np.ndarray:
    """Counts that are whole up to rounding (sums of squares of 0/1 differences, halves of sums) made
    whole, so that a cluster without a disagreement counts as one (and not 1e-14 of one)."""
    x = np.asarray(x, dtype=np.float64)
    whole = np.round(x)
    with np.errstate(invalid="ignore"):  # inf - inf: nan, which fails the test below as it fails the one after
        off = np.subtract(x, whole)
    np.abs(off, out=off)
    if off.size and float(off.max()) < 1e-9:  # every count within 1e-9 of whole (the usual sums, rounding and
        return whole  # all): the element-wise test below passes everywhere, since its bound is at least 1e-9
    return np.where(off < 1e-9 * np.maximum(1.0, np.abs(x)), whole, x)


def disagreement_df(df: float, sizes: Any, resid_sums: Any = None, discordant: Any = None, *,
                    count_clusters: bool = True, whole: bool = False, calibrated: bool = True) -> Any:
    """Degrees of freedom of a clustered paired 0/1 comparison: the smallest of ``df`` (the design's
    Satterthwaite df), :func:`variance_df` of ``resid_sums`` (the df of the number of clusters the variance
    rests on, calibrated; issue 45: :func:`variance_clusters` itself, about ``(G + 2) / 3`` for ``G`` normal
    equal clusters, capped 30 equal clusters at 11 and MMLU's 57 subjects at a median of 6), Kish's effective number of clusters of the per-cluster
    ``discordant`` counts, and the number of clusters with a disagreement less one (a mean over ``k``
    clusters has ``k - 1`` df; left out with ``count_clusters=False``, the rule before issue 20's gate
    pass); at least 1, at most ``df``. Arrays ``(reps, G)`` give ``(reps,)``. ``whole``: the ``discordant`` counts
    are whole numbers already (exact counts), so :func:`whole_counts` is not asked. ``calibrated=False``: the
    uncalibrated :func:`variance_clusters` (the rule before issue 45, for the coverage tables' old rules).

    Examples
    --------
    >>> float(disagreement_df(20.0, [10] * 5, discordant=[3, 0, 2, 0, 0]))
    1.0
    """
    sz = np.asarray(sizes, dtype=np.float64)
    shape = () if resid_sums is None and discordant is None else np.shape(
        resid_sums if resid_sums is not None else discordant)[:-1]
    nu = np.full(shape, float(df))
    if resid_sums is not None:
        nu = np.minimum(nu, variance_df(resid_sums, sz) if calibrated else variance_clusters(resid_sums, sz))
    if discordant is not None:
        m = np.asarray(discordant, dtype=np.float64) if whole else whole_counts(discordant)
        total, square = m.sum(axis=-1), (m * m).sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            nu = np.minimum(nu, np.where(square > 0.0, total * total / square, 1.0))
        if count_clusters:
            nu = np.minimum(nu, np.maximum((m > 0.0).sum(axis=-1) - 1.0, 1.0))
    return np.clip(nu, 1.0, df)


def _cells(only_a_g: Any, only_b_g: Any, sizes: Any, weights: tuple[float, np.ndarray] | None = None, *,
           dot: Any = np.matmul) -> tuple[np.ndarray, ...]:
    """Per file: the two cells' proportions, their logit-scale standard errors, the correlation of their
    CR2 residuals (weights ``1 / (1 - n_g / n)``), and where the MOVER is defined (both cells non-empty
    with a spread). ``weights``: :func:`_cell_weights` of ``sizes`` when made already (many pairs on them).
    ``dot(u, w)``: the weighted sums of the rows of ``u`` (``np.matmul``; :func:`row_dots` for the rows of one
    analysis's pairs, each then the same doubles as that pair's cells alone)."""
    sz = np.asarray(sizes, dtype=np.float64)
    n, w = _cell_weights(sz) if weights is None else weights
    out = []
    for cell in (only_a_g, only_b_g):
        x = np.asarray(cell, dtype=np.float64)
        p = x.sum(axis=-1) / n
        r = x - sz * p[..., None]
        out.append((p, r))
    (pa, ra), (pb, rb) = out
    va, vb, cov = dot(ra * ra, w), dot(rb * rb, w), dot(ra * rb, w)
    ok = (pa > 0.0) & (pa < 1.0) & (pb > 0.0) & (pb < 1.0) & (va > 0.0) & (vb > 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        la = np.where(ok, np.sqrt(va) / n / (pa * (1.0 - pa)), 0.0)  # CR2 SE on the logit scale (delta method)
        lb = np.where(ok, np.sqrt(vb) / n / (pb * (1.0 - pb)), 0.0)
        corr = np.where(ok, cov / np.sqrt(va * vb), 0.0)
    return pa, pb, la, lb, corr, ok


def row_dots(u: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``u @ w`` of a stack of rows ``u`` (shape ``(P, G)``), one dot per row: the doubles of each row's own dot
    (a matrix-vector product may add in another order)."""
    return np.array([row @ w for row in u])


def _cell_weights(sizes: np.ndarray) -> tuple[float, np.ndarray]:
    """``(n, 1 / (1 - n_g / n))`` of the float64 cluster ``sizes``: the CR2 weights of :func:`_cells`."""
    n = float(sizes.sum())
    return n, cr2_factors(sizes, n)


def _ends(pa: np.ndarray, pb: np.ndarray, la: np.ndarray, lb: np.ndarray, corr: np.ndarray,
          crit: Any) -> tuple[np.ndarray, np.ndarray]:
    def limits(p: np.ndarray, half: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            centre = np.log(p / (1.0 - p))
            return 1.0 / (1.0 + np.exp(half - centre)), 1.0 / (1.0 + np.exp(-centre - half))

    (a_low, a_high), (b_low, b_high) = limits(pa, crit * la), limits(pb, crit * lb)
    d = pa - pb
    down_a, up_b = pa - a_low, b_high - pb  # Zou & Donner 2008, Eq. 3 for theta_1 - theta_2
    up_a, down_b = a_high - pa, pb - b_low
    low = d - np.sqrt(np.maximum(down_a**2 + up_b**2 - 2.0 * corr * down_a * up_b, 0.0))
    high = d + np.sqrt(np.maximum(up_a**2 + down_b**2 - 2.0 * corr * up_a * down_b, 0.0))
    return low, high


def cell_mover_interval(only_a_g: Any, only_b_g: Any, sizes: Any, crit: Any) -> tuple[Any, Any, Any]:
    """MOVER limits for ``P(only A) - P(only B)`` from clustered per-cluster counts of the two cells.

    Parameters
    ----------
    only_a_g, only_b_g : array_like
        Per cluster (last axis; ``(reps, G)`` for many files), the questions only A / only B got right.
    sizes : array_like
        Questions per cluster.
    crit : float or array_like
        The critical value, ``t`` on :func:`disagreement_df` degrees of freedom (one per file).

    Returns
    -------
    low, high, defined
        The limits, and where they are defined (both cells non-empty and spread over clusters);
        elsewhere ``(inf, -inf)`` (an empty interval) is returned so that a union ignores them.

    Notes
    -----
    Each cell ``p`` gets the logit-scale interval ``expit(logit p -/+ crit se / (p (1 - p)))`` with
    ``se`` its CR2 standard error; with ``d = p_A - p_B`` and ``r`` the correlation of the two cells'
    CR2 residual sums, ``low = d - sqrt((p_A - l_A)^2 + (u_B - p_B)^2 - 2 r (p_A - l_A)(u_B - p_B))``
    and ``high = d + sqrt((u_A - p_A)^2 + (p_B - l_B)^2 - 2 r (u_A - p_A)(p_B - l_B))``.

    References
    ----------
    Newcombe 1998, "Improved confidence intervals for the difference between binomial proportions
    based on paired data", Statistics in Medicine 17(22), 2635-2650 (method 10).
    Zou & Donner 2008, "Construction of confidence limits about effect measures: a general approach",
    Statistics in Medicine 27(10), 1693-1702.
    Korn & Graubard 1999, "Analysis of Health Surveys", Wiley, Sec. 3.2.3 (the logit interval).
    """
    pa, pb, la, lb, corr, ok = _cells(only_a_g, only_b_g, sizes)
    low, high = _ends(pa, pb, la, lb, corr, np.asarray(crit, dtype=np.float64))
    return np.where(ok, low, np.inf), np.where(ok, high, -np.inf), ok


def cell_mover_p(only_a_g: Any, only_b_g: Any, sizes: Any, df: float) -> float:
    """Two-sided p at 0 of :func:`cell_mover_interval` (one file): ``2 P(T_df > t*)`` where ``t*`` is the
    critical value at which an end reaches 0 (bisection), so ``p < 1 - confidence`` exactly when the
    interval at that confidence excludes 0; 1 when it holds 0 at every level, ``nan`` where undefined."""
    pa, pb, la, lb, corr, ok = (float(v) for v in _cells(only_a_g, only_b_g, sizes))
    if not ok:
        return math.nan
    side = 0 if pa > pb else 1  # the end that moves towards 0 as crit grows
    if pa == pb:
        return 1.0

    def left_of_root(c: np.ndarray) -> np.ndarray:  # the end has not reached 0 at this critical value
        return (_ends(*(np.float64(v) for v in (pa, pb, la, lb, corr)), c)[side] > 0.0) == (side == 0)

    doublings = 2.0 ** np.arange(21)  # the first power of two (up to 2^20) at which the end has reached 0
    reached = ~left_of_root(doublings)
    hi = float(doublings[np.argmax(reached)] if reached.any() else doublings[-1])
    lo, hi = ksection(left_of_root, np.array([0.0]), np.array([hi]))
    return min(1.0, 2.0 * float(stdtr(float(df), -0.5 * float(lo[0] + hi[0]))))


def variance_clusters(resid_sums: Any, sizes: Any) -> Any:
    """How many clusters a CR2 variance rests on: Kish's effective number of its cluster contributions.

    With contributions ``w_g = S_g^2 / (1 - n_g/n)`` (``S_g`` the cluster's residual sum; the CR2 variance
    is ``sum_g w_g / n^2``) this is ``(sum_g w_g)^2 / sum_g w_g^2``: Satterthwaite's degrees of freedom of
    a sum of one-df terms, from the realised terms. It is ``G`` when every cluster contributes alike and
    near 1 when one cluster holds the variance (the disagreements of two models concentrated in one
    subject). ``resid_sums`` may be ``(reps, G)``; 1 where the variance is 0.

    References
    ----------
    Satterthwaite 1946, "An approximate distribution of estimates of variance components", Biometrics
    Bulletin 2(6), 110-114. Kish 1965, "Survey Sampling", Sec. 11.7.

    Examples
    --------
    >>> float(variance_clusters([1.0, -1.0, 1.0, -1.0], [5, 5, 5, 5])), float(variance_clusters([4.0, 0, 0, -4.0], [5] * 4))
    (4.0, 2.0)
    """
    s = np.asarray(resid_sums, dtype=np.float64)
    sz = np.asarray(sizes, dtype=np.float64)
    w = s * s
    in_place = isinstance(w, np.ndarray) and w.shape == np.broadcast_shapes(w.shape, sz.shape)
    w = np.asarray(np.divide(w, hat_complement(sz, sz.sum()), out=w if in_place else None))  # CR2 contributions
    total = w.sum(axis=-1)
    square = np.multiply(w, w, out=w).sum(axis=-1)  # w is read no more: its squares in its place
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(square > 0.0, total * total / square, 1.0)


def variance_df(resid_sums: Any, sizes: Any) -> Any:
    """The degrees of freedom :func:`variance_clusters` ``K`` stands for: ``max(1, 3 K - 2)``.

    ``K = (sum_g w_g)^2 / sum_g w_g^2`` counts the clusters a CR2 variance rests on from the realised
    contributions ``w_g``, and so counts too few: for ``G`` clusters whose sums are normal with one variance
    ``s^2``, ``w_g = s^2 chi^2_1``, ``E sum w_g^2 = 3 G s^4`` and ``E (sum w_g)^2 = (G^2 + 2 G) s^4``, so ``K`` is about
    ``(G + 2) / 3`` (11 for 30 equal clusters; a median of 6 on MMLU's 57 subjects, whose CR2 df is 29). Solving
    for ``G`` gives ``3 K - 2``: ``G`` again where the clusters contribute alike, still 1 where one cluster holds
    the whole variance (``K = 1``), and between where a few hold most of it. It is a cap: the design's df
    stays the ceiling (:func:`disagreement_df`). Checked on both tails by ``bench/bench_zeroone.py``.

    Examples
    --------
    >>> float(variance_df([1.0, -1.0, 1.0, -1.0], [5, 5, 5, 5])), float(variance_df([4.0, 0, 0, -4.0], [5] * 4))
    (10.0, 4.0)
    >>> float(variance_df([4.0, 0.0, 0.0], [5] * 3))
    1.0
    """
    return np.maximum(3.0 * np.asarray(variance_clusters(resid_sums, sizes)) - 2.0, 1.0)
