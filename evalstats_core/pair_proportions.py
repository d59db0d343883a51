"""The paired difference of 0/1 scores, one concern: Tango's score interval from the discordant counts, the
MOVER of the two discordant cells with clusters, and the rule that joins them, for one pair and for every pair of
an analysis at once (the MOVER's half, ``pair_mover``, and the many-pairs half, ``_pair_batch``, were merged here
in issue 38: each only ever served this rule, and the batch is the same rule to the last bit).
:mod:`evalstats_core.proportions` re-exports the one-pair names.

One pair
--------
================================  ====================================================================
:func:`paired_proportion_ci`      Tango's score interval for the difference of two paired accuracies,
                                  from the discordant counts (never zero width, always inside [-1, 1])
:func:`paired_proportion_p`       its score test at 0 (McNemar's z, with an optional continuity correction)
:func:`continuity_correction`     the correction of the rule without clusters: ``min(1, discordant / 10)``
:func:`binary_pair_interval`      the rule for a paired difference of 0/1 scores, with or without clusters
:func:`pair_effective_scale`      the factor that makes clustered paired counts effective ones
:func:`discordant_cells`          per cluster, the questions only A and only B got right
:func:`t_skew_error`              the first Edgeworth term of the CR2 t interval's one-sided error, from the
                                  disagreements' count and spread: where the clustered rule reads t
:func:`t_or_score_ends`           where t is not read as a whole, end by end: t's end where t's skewness error at
                                  that end's difference fits, else the farther of it and the score rule's
:func:`worst_case_interval`       the bound of the clustered rule: the rule without clusters on the counts
                                  scaled to the cluster sizes' effective n (every cluster answering as one)
================================  ====================================================================

The MOVER of the discordant cells, with clusters
------------------------------------------------
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
:func:`binary_pair_interval` takes the union of this interval and Tango's.

Many pairs at once
------------------
=============================  ==========================================================================
:func:`tango_intervals`        :func:`paired_proportion_ci` of ``(P,)`` counts in one k-section
:func:`binary_pair_intervals`  :func:`binary_pair_interval` of ``P`` pairs on the same cluster sizes (or none)
:func:`cell_mover_ps`          :func:`cell_mover_p` of ``P`` pairs in one k-section
=============================  ==========================================================================

A call of numpy on a few hundred values costs about what it costs on a few, so the ends of every pair of an
analysis (the pairs that share the cluster sizes) are solved together here, each bracket with the same 64
trial points per step as alone (the steps of :func:`~evalstats_core._ksection.ksection` with 64 points however
many brackets): every result is the one-pair function's, to the last bit (``tests/test_pair_batch.py`` checks it
on random counts). The one-pair functions stay the reference; the statistics are theirs.

It stands on :func:`~evalstats_core.cluster_means.kish_n` and the CR2 kernel of :mod:`evalstats_core._clusters`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri, stdtr, stdtrit

from ._clusters import cr2_factors, hat_complement, t_crit, t_p_value
from ._ksection import _POINTS, ksection
from ._results import Interval
from ._validate import check_confidence, z_for
from .cluster_means import kish_n
from .errors import EvalStatsError

__all__ = [
    "CONTINUITY_RAMP",
    "T_SKEW_ROOM",
    "binary_pair_interval",
    "binary_pair_intervals",
    "cell_mover_interval",
    "cell_mover_p",
    "cell_mover_ps",
    "continuity_correction",
    "disagreement_df",
    "discordance_spread",
    "discordant_cells",
    "pair_effective_scale",
    "pair_t",
    "paired_proportion_ci",
    "paired_proportion_p",
    "t_or_score_ends",
    "t_skew_error",
    "tango_intervals",
    "variance_clusters",
    "variance_df",
    "whole_counts",
    "worst_case_interval",
]


# The MOVER of the discordant cells (was pair_mover.py)

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


# One pair: Tango's interval and the rule

_BISECT_STEPS = 64  # halvings of [d, +-1]: 2^-64 is below double precision
#: Without clusters the rule's continuity correction is ``min(1, discordant / CONTINUITY_RAMP)`` answers
#: (:func:`continuity_correction`).
CONTINUITY_RAMP = 10.0
#: With clusters the rule reads the CR2 t interval where :func:`t_skew_error` is at most this share of the one-sided
#: level ``(1 - confidence) / 2``: the room between the 2% one-sided level of the end a clustered gate pass reads on
#: t (``gating.CLUSTERED_PASS_SHARE`` = 0.8 of 2.5%) and the 2.5% the gate promises.
T_SKEW_ROOM = 0.2


def _tango_z(b: np.ndarray, c: np.ndarray, n: np.ndarray, delta: np.ndarray, correction: Any = 0.0) -> np.ndarray:
    """Tango's score statistic ``(b - c - n delta) / sqrt(n (2 q + delta (1 - delta)))``.

    ``q`` is the maximum-likelihood ``P(only B right)`` under ``P(only A) - P(only B) = delta``: the
    root of ``2n q^2 + W q - c delta (1 - delta) = 0``, ``W = -b - c + (2n - b + c) delta``
    (Tango 1998, Eq. 4, with A's and B's cells named b and c). A ``correction`` moves the numerator
    that much towards 0 (and not past it): the continuity correction.
    """
    w = -b - c + (2.0 * n - b + c) * delta
    q = (np.sqrt(np.maximum(w * w + 8.0 * n * c * delta * (1.0 - delta), 0.0)) - w) / (4.0 * n)
    var = n * (2.0 * q + delta * (1.0 - delta))
    num = b - c - n * delta
    if np.any(correction):
        num = np.sign(num) * np.maximum(np.abs(num) - correction, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(var > 0.0, num / np.sqrt(np.maximum(var, 0.0)), np.sign(num) * np.inf)


def paired_proportion_ci(only_a: Any, only_b: Any, n: Any, *, confidence: float = 0.95,
                         correction: float = 0.0) -> Interval:
    """Tango's score interval for ``accuracy(A) - accuracy(B)`` on the same ``n`` questions.

    Parameters
    ----------
    only_a, only_b : float or array_like
        Questions only A got right (``b``) and only B got right (``c``). Real (effective) counts are
        allowed: with clusters pass ``b n*/n`` and ``c n*/n`` and ``n*`` (the design-effect-adjusted
        effective number of questions).
    n : float or array_like
        Questions (or the effective number), ``n >= b + c``, ``n > 0``.
    confidence : float, default 0.95
    correction : float or array_like, default 0
        Continuity correction: the numerator ``b - c - n delta`` is moved this much towards 0 (not past
        it). :func:`continuity_correction` is the rule's value without clusters (:func:`binary_pair_interval`);
        0 is Tango's interval itself.

    Returns
    -------
    Interval
        ``(low, high)`` inside [-1, 1] (floats; arrays when arrays were passed). It never has zero
        width: two models that agree on all 30 questions get about (-0.114, +0.114),
        ``+-z^2 / (n + z^2)``.

    Notes
    -----
    The interval is ``{delta : |Z(delta)| <= z}`` with Tango's statistic (see :func:`_tango_z`),
    found by bisection (k-section: :func:`~evalstats_core._ksection.ksection`) on each side of ``(b - c)/n`` (``Z`` decreases in ``delta``). At ``delta = 0``
    ``Z = (b - c)/sqrt(b + c)``: McNemar's test, so the interval excludes 0 exactly when McNemar's
    (uncorrected) p is below ``1 - confidence``; with ``correction=1``, ``Z = (|b - c| - 1)/sqrt(b + c)``:
    McNemar's test with Edwards's continuity correction (:func:`paired_proportion_p` with the same
    ``correction``).

    References
    ----------
    Tango 1998, "Equivalence test and confidence interval for the difference in proportions for the
    paired-sample design", Statistics in Medicine 17(8), 891-908; correction 1999, 18(24), 3511.
    Newcombe 1998, Statistics in Medicine 17(22), 2635-2650 (comparison of paired intervals).
    Edwards 1948, "Note on the 'correction for continuity' in testing the significance of the difference
    between correlated proportions", Psychometrika 13(3), 185-187.

    Examples
    --------
    >>> low, high = paired_proportion_ci(0, 0, 30)
    >>> round(low, 4), round(high, 4)
    (-0.1135, 0.1135)
    >>> [round(v, 4) for v in paired_proportion_ci(0, 0, 30, correction=1.0)]
    [-0.1667, 0.1667]
    """
    level = check_confidence(confidence)
    b, c, size = (np.asarray(v, dtype=np.float64) for v in (only_a, only_b, n))
    b, c, size = np.broadcast_arrays(b, c, size)
    if not (np.all(np.isfinite(b) & np.isfinite(c) & np.isfinite(size)) and np.all(size > 0)
            and np.all(b >= 0) and np.all(c >= 0) and np.all(b + c <= size * (1 + 1e-12))):
        raise EvalStatsError("paired_proportion_ci needs counts 0 <= only_a, only_b with only_a + only_b <= n, n > 0")
    z = z_for(level)
    d = (b - c) / size
    # both ends in one bisection (a leading axis of 2): the low end solves Z(delta) = z left of d, the high
    # end Z(delta) = -z right of d; each root lies between d and its edge (-1, +1)
    shape = (2,) + (1,) * d.ndim
    target, edge = np.reshape([z, -z], shape), np.reshape([-1.0, 1.0], shape)
    cc = np.asarray(correction, dtype=np.float64)
    if not np.all(np.isfinite(cc) & (cc >= 0.0)):
        raise EvalStatsError(f"paired_proportion_ci needs a continuity correction >= 0, not {correction!r}")
    lo, hi = ksection(lambda x: _tango_z(b, c, size, x, cc) > target,  # Z decreasing: above target left of the root
                      *np.broadcast_arrays(np.minimum(d, edge), np.maximum(d, edge)), bits=_BISECT_STEPS)
    at_edge = _tango_z(b, c, size, np.broadcast_to(edge, lo.shape), cc) * -edge <= z  # edge not rejected
    low, high = np.where(at_edge, edge, 0.5 * (lo + hi))
    if low.ndim == 0:
        return Interval(float(low), float(high))
    return Interval(low, high)


def continuity_correction(only_a: Any, only_b: Any) -> Any:
    """The continuity correction of the rule without clusters: ``min(1, (b + c) / CONTINUITY_RAMP)`` answers.

    One answer (Edwards's correction of McNemar's test) from :data:`CONTINUITY_RAMP` (10) discordant answers
    on, less below, none at none: with no discordant answer Tango's interval itself (``+-z^2/(n + z^2)``, close
    to Clopper-Pearson's bound on the discordant share), where one whole answer would widen it by 40% for
    nothing (see :func:`binary_pair_interval`, Notes). Arrays give an array.

    Examples
    --------
    >>> continuity_correction(0, 0), continuity_correction(3, 1), continuity_correction(30, 12)
    (0.0, 0.4, 1.0)
    """
    cc = np.minimum(1.0, (np.asarray(only_a, dtype=np.float64) + np.asarray(only_b, dtype=np.float64)) / CONTINUITY_RAMP)
    return cc if cc.ndim else float(cc)


def paired_proportion_p(only_a: float, only_b: float, *, correction: float = 0.0) -> float:
    """Two-sided p of Tango's score test at 0, i.e. McNemar's z ``(b - c)/sqrt(b + c)``; with a
    ``correction`` (see :func:`paired_proportion_ci`) ``max(|b - c| - correction, 0)/sqrt(b + c)``
    (``correction=1``: Edwards's continuity-corrected McNemar test).

    1 when ``b = c`` (or ``|b - c|`` is within the correction), also with no discordant answer: the two models
    answer every question alike, a difference of 0 that is no evidence of one (McNemar's exact test gives 1 there
    too; issue 46: it was nan, "no test"), and the interval of :func:`paired_proportion_ci` is defined.

    Examples
    --------
    >>> round(paired_proportion_p(12, 3), 4), paired_proportion_p(2, 2), paired_proportion_p(0, 0)
    (0.0201, 1.0, 1.0)
    >>> round(paired_proportion_p(12, 3, correction=1.0), 4)
    0.0389
    """
    b, c = float(only_a), float(only_b)
    gap = abs(b - c) - float(correction)
    if gap <= 0.0:
        return 1.0
    return 2.0 * float(ndtr(-gap / math.sqrt(b + c)))


def pair_effective_scale(se: Any, se_naive: Any, df: float, sizes: Any, resid_sums: Any = None,
                         discordant: Any = None, *, confidence: float = 0.95, calibrated: bool = True) -> Any:
    """The factor ``n*/n`` that turns clustered paired counts into effective ones (see :func:`binary_pair_interval`).

    ``1 / deff`` (at most 1; :func:`kish_n` over ``n`` when an SE is 0) times ``(z / t_nu)^2`` with ``nu``
    the design's df, or fewer (:func:`disagreement_df`): :func:`variance_clusters`
    of ``resid_sums``, and Kish's effective number of clusters of the per-cluster ``discordant`` counts (how
    many clusters the disagreements are spread over) and the number of clusters with a disagreement less
    one, each when given. Arrays of ``se``, ``se_naive`` (and ``resid_sums``, ``discordant`` of shape
    ``(reps, G)``) give an array. ``calibrated``: as :func:`disagreement_df`'s.
    """

    se, se_naive = np.asarray(se, dtype=np.float64), np.asarray(se_naive, dtype=np.float64)
    sz = np.asarray(sizes, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where((se > 0.0) & (se_naive > 0.0), np.minimum(1.0, (se_naive / se) ** 2),  # 1 / deff
                         kish_n(sz) / float(sz.sum()))
    nu = np.broadcast_to(disagreement_df(df, sz, resid_sums, discordant, calibrated=calibrated), scale.shape)
    finite = np.isfinite(nu)
    if finite.any():
        level = check_confidence(confidence)
        scale = np.where(finite, scale * (z_for(level) / pair_t(nu, level)) ** 2, scale)
    return scale if scale.ndim else float(scale)


def pair_t(nu: Any, level: float) -> Any:
    """The two-sided ``t`` quantile on ``nu`` df (``z`` where ``nu`` is infinite): one value through
    :func:`~evalstats_core._clusters.t_crit`, arrays (the coverage simulations') through ``stdtrit`` itself."""
    nu = np.asarray(nu, dtype=np.float64)
    if nu.ndim == 0:
        return np.float64(t_crit(level, float(nu)))
    finite = np.isfinite(nu)
    return np.where(finite, stdtrit(np.where(finite, nu, 1.0), 0.5 + level / 2.0), z_for(level))


def binary_pair_interval(only_a: float, only_b: float, n: int, se: float, se_naive: float, df: float,
                         sizes: np.ndarray | None, *, confidence: float = 0.95, resid_sums: np.ndarray | None = None,
                         discordant: np.ndarray | None = None) -> tuple[float, float, float, str]:
    """The rule for a paired difference of 0/1 scores: ``(low, high, p, kind)``.

    The rule with clusters, in one paragraph (issue 45). It reads the CR2 t interval (``d -/+ t_df se`` on the
    design's Satterthwaite df; ``p`` its t-test; ``kind`` ``"normal"``) where t's skewness cannot cost a gate its
    promise, and elsewhere asks the same question end by end: t is read when the first Edgeworth term of its
    one-sided error (Hall 1992), at the end a clustered gate pass reads on t (one-sided 2% at 95%) and for the
    farthest difference the score interval below leaves plausible, is at most :data:`T_SKEW_ROOM` (0.2) of the
    one-sided level, i.e. 0.5 points of a percent at 95%: the room between that end's 2% and the gate's 2.5%
    (:func:`t_skew_error`, from the discordant answers ``m``, the design effect of their rate and that
    difference; nothing in it is fitted to a design). Where it is not, each end of t is kept where the same error
    at the difference that end tests fits the room, and is otherwise the farther of t's end and the score
    interval's (:func:`t_or_score_ends`, ``kind`` ``"t-score"``): at a difference of 0 the disagreements are won
    alike and t's error vanishes, so the end that decides whether 0 is excluded is usually t's (CR2 t's power)
    while the end on the skewed side, where a file that missed the heavy clusters falls short, is the score
    rule's. Every interval is cut to :func:`worst_case_interval`, the rule without clusters on the cluster sizes'
    effective n, and ``p`` is the test the reported interval inverts (t's, or the larger of t's and the score
    rule's where the end facing 0 is the score rule's). The price, on ``bench/bench_zeroone.py --quick``'s 44
    held-out designs at 55-75% accuracy (``bench/results/zeroone_tscore_400.txt``, 400 files each; questions
    from the power at CR2 t's 80% effect, normal approximation): a median of 1.00x the questions CR2 t needs for
    the same power with weakly clustered disagreements (ICC 0.02; at most 1.05x) and 1.20x with strongly bunched
    ones (ICC 0.3; at most 2.97x, where CR2 t itself covered 88-90%); before this end-by-end reading 1.05x (1.34x)
    and 1.39x (3.49x), by the same reckoning on the same files (``zeroone_after_400.txt``).

    Tango's score interval on the discordant counts, at every count without clusters (Notes: why
    no switch to t there; the paired t interval is still there with ``interval="normal"``); without clusters
    with the continuity correction of :func:`continuity_correction` (Notes), in the interval and in ``p``. With clusters the
    counts and ``n`` are scaled by ``1 / deff``, ``deff = se^2 / se_naive^2`` (CR2 over the paired t SE;
    at least 1), and by ``(z / t_nu)^2`` for the degrees of freedom (as Korn & Graubard 1998 do for one proportion), where ``nu`` is the
    design's df or, when fewer, the number of clusters the variance rests on (calibrated:
    :func:`variance_df`, ``3 K - 2`` of :func:`variance_clusters` ``K`` of ``resid_sums``,
    the clusters' residual sums of ``a - b``; issue 45) or the disagreements are spread over
    (Kish's effective number of clusters of ``discordant``, the per-cluster counts of questions the two
    models disagree on; and at most the number of clusters with a disagreement less one); a zero
    clustered SE (every cluster has the same mean difference) gives no design effect, so the worst case
    is used: the effective n of :func:`kish_n`. With clusters (given ``resid_sums`` and ``discordant``)
    the interval is widened to contain the MOVER interval of the two discordant cells (Notes). ``p`` is
    the larger of the score test's at 0 on the same counts and the MOVER's
    (:func:`cell_mover_p`), so ``p < 1 - confidence`` exactly when the
    interval excludes 0. With clusters the interval is never wider than :func:`worst_case_interval` (the rule
    without clusters on the counts scaled to the cluster sizes' effective n: the largest design effect the sizes
    allow); ``p`` is then the smaller of the two tests', so it still says whether this interval excludes 0.

    Notes
    -----
    Why ``nu``. Near the ceiling two models disagree on few questions, often bunched in a few clusters;
    the cluster differences are then J-shaped and a file that misses the rare heavy cluster shows a
    small difference with a small SE. On 432 clustered designs (G = 5-60 equal, unequal and SWE-like;
    accuracies 0.80-0.99, gaps 0-5 points, models right on 20-60% of each other's errors, ICC of the
    disagreement rate 0.05-0.3; 2,000 files each, ``bench/bench_pair_edges.py``) scaling by the
    design's df alone covered 79.0-99% (86 designs below 93%, nearly all misses on that one side);
    with ``nu`` (then without the count of clusters with a disagreement) the worst was 92.8%, but the
    interval still lay wholly below a positive truth in up to 7.2% of files (above 2.5% in 77 designs),
    so a gate at its margin passed a candidate truly at the margin up to 7.2% of the time.

    Why the union with the MOVER. The estimate, its SE and the design effect are small together in
    such files, so no interval centred on the file's own spread is long enough on that side. Each
    discordant cell (only A right, only B right) is a small clustered proportion skewed the same way,
    and its logit-scale CR2 interval is long on the side a missed burst would be: the union with
    :func:`cell_mover_interval` (Newcombe's method 10 with those intervals,
    the cells' cluster correlation, and ``t`` on ``nu``), and ``nu`` at most the number of clusters
    with a disagreement less one, bring the worst one-sided miss to 5.1% (above 2.5% on the high side
    in 13 of 432 designs, all with 27-60 clusters and 12 of them at 85-95% accuracy with the width of
    the previous rule: where at least 100 effective discordant answers make the rule the CR2 t
    interval, which this union does not touch; on the low side in 2; G <= 12: worst 2.4%), the
    gate's false pass at a 2- or 5-point margin above 2.5% in 2, 3, 5 and 3 of each 72 designs
    (ICC 0.05 / 0.3; before: 3, 15, 10, 49), and the worst two-sided coverage 93.4%. The price is
    width: median 1.32x the previous rule's, 90th percentile 3.4x, and up to 20x where the two
    models' disagreement rates vary together between clusters with no gap (the cells' logit limits
    are far apart although their difference is not), where every interval covered 100%.

    Why no switch to t with clusters. Those 13 designs (at 85-95% accuracy on 27-60 clusters, where the
    models disagree on 8-15% of the questions) had at least :data:`~evalstats_core.proportions.FAILURES_FOR_T`
    effective discordant answers in most files, so the rule was the CR2 t interval. But the effective
    count is ``n / deff`` with the file's own design effect, which is smallest exactly in the files that
    missed the heavy clusters: the switch to t picked the short symmetric interval in the files whose
    SE was too small (the t interval's high-side miss there: 2.5-5.1%). The score interval's variance
    follows the difference (Tango 1998), and even without clusters the paired t's high-side miss at
    100-750 discordant answers is 2.5-3.0% where Tango's is 2.4-2.5% (exact enumeration at 1,000 and 3,000
    questions: ``bench/bench_pair_edges.py --unclustered``). With clusters the rule is therefore the score
    interval with the MOVER union at every count: on the 432 designs (2,000 files each, seed 20) the gate's false pass at the margin is above
    2.5% in 1 of 288 designs (2.7%, a design the change does not touch, within 1 Monte Carlo SE of 2.5%;
    before: 13, worst 5.1%), the worst coverage 96.1% (93.4% before); on a held-out grid of 480 designs
    the rule was not chosen on (4-45 clusters, 80-97% accuracy, gaps 0-4 points; ``--held-out``, seed 21)
    above 2.5% in 2 of 240 (2.55%, also untouched; before: 14, worst 4.9%), worst coverage 96.5%
    (``bench/results/pair_edges_gate4_2000.txt``, ``pair_edges_gate4_heldout_2000.txt``). The price, on the
    57 designs of each grid where the interval changed: median width 1.02x / 1.04x the previous rule's,
    90th percentile 1.24x / 1.21x, at most 1.36x / 1.26x.

    Why no switch to t without clusters either. Enumerating every pair of discordant counts
    (``bench/bench_pair_edges.py --unclustered``, ``bench/results/pair_edges_gate5_unclustered.txt``): at a
    gate's margin (the better model 1-5 points ahead, 300-10,000 questions, 2-35% of them discordant) the
    paired t interval lies wholly below the truth in up to 2.90% of files at 100 or more discordant
    answers (36 of 47 such designs above 2.5%), Tango's in at most 2.53% (8 above 2.5%, all by at most
    0.03 points). On a wider grid (200-10,000 questions, discordant rates 3-70%, A winning 50-95% of
    them; 80 designs with at least 100 expected discordant answers) the worst one-sided miss is 3.35%
    for t and 2.70% for Tango (where the models disagree on 70% of the questions and one wins 95% of
    those), the worst coverage 94.70% and 94.96%; Tango's expected width is 1.000x t's at the median
    and at most 1.013x there (1.25x at 6 discordant answers, where the rule was Tango already).

    Why a continuity correction without clusters. With few discordant answers Tango's interval lies wholly
    on one side of the truth far more often than 2.5%: on an exactly enumerated grid of 3,510 designs
    (10-3,000 questions, the better model at 50-99.9%, the other 0-20 points below, the worse model right
    on 0-100% of the better one's errors as a share of independence; ``bench/bench_pair_edges.py --wide``)
    it lay wholly above the truth in up to 5.2% of files (200 questions, A alone right on 2.3%, B alone on
    0.3%: about 5 discordant answers; above 2.5% in 1,633 designs, and still 2.7-3.4% between 20 and 1,000
    expected discordant answers) and wholly below a positive truth (a gate's false pass at a margin equal to the gap) in
    up to 3.04% (20 questions; above 2.5% in 200 of 2,150 designs with a gap). The numerator ``b - c - n
    delta`` moved ``min(1, (b + c) / 10)`` answers towards 0 (:func:`continuity_correction`; one answer is
    Edwards's correction of McNemar's test, and ``p`` is that test) brings both to at most 2.43% / 2.36%
    (none above 2.5%), and on a held-out grid of 1,470 designs (15-2,000 questions, 60-99.7%, gaps 0-15
    points, 5-130% of independence) from 4.35% / 3.09% (752 / 96 designs above) to 2.34% / 2.35% (none). A
    whole answer at every count held too but widened the interval 1.4x with no discordant answer (+-16.7
    points on 30 identical answers instead of Tango's +-11.4, which Clopper-Pearson's 11.6 on the
    discordant share shows is enough); half an answer left the wholly-above side at 3.4%. The price:
    expected width 1.075x Tango's at the median of the grid, at most 1.21x (1.09-1.15x at 2-50 expected
    discordant answers, 1.02-1.07x from 50 on).

    References
    ----------
    Tango 1998 (see :func:`paired_proportion_ci`); Korn & Graubard 1998 (the ``(z / t)^2`` shrinkage);
    Edwards 1948 (the continuity correction; see :func:`paired_proportion_ci`).
    Newcombe 1998, Statistics in Medicine 17(22), 2635-2650; Zou & Donner 2008, Statistics in
    Medicine 27(10), 1693-1702 (the MOVER; see :func:`cell_mover_interval`).
    """
    b, c, size = float(only_a), float(only_b), float(n)
    cc = continuity_correction(b, c) if sizes is None else 0.0
    if sizes is not None:
        scale = pair_effective_scale(se, se_naive, df, sizes, resid_sums, discordant, confidence=confidence)
        b, c, size = b * scale, c * scale, size * scale
    low, high = paired_proportion_ci(b, c, size, confidence=confidence, correction=cc)
    p = paired_proportion_p(b, c, correction=cc)
    cells = None
    if sizes is not None and resid_sums is not None and discordant is not None:  # the union with the MOVER (Notes)
        cells = discordant_cells(float(only_a), float(only_b), sizes, resid_sums, discordant)
        nu = float(disagreement_df(df, sizes, resid_sums, discordant))
        m_low, m_high, defined = cell_mover_interval(*cells, sizes, pair_t(nu, check_confidence(confidence)))
        if defined:
            low, high = min(low, float(m_low)), max(high, float(m_high))
            p = max(p, cell_mover_p(*cells, sizes, nu)) if math.isfinite(p) else p
    kind = "tango" if sizes is None else "tango-effective"
    if sizes is not None:  # never wider than the design's worst case (Notes)
        w_low, w_high, w_p = worst_case_interval(float(only_a), float(only_b), sizes, confidence=confidence)
        low, high = max(low, w_low), min(high, w_high)
        p = min(p, w_p) if math.isfinite(p) and math.isfinite(w_p) else p
        if resid_sums is not None and discordant is not None and se > 0.0 and math.isfinite(df):
            m, phi = discordance_spread(*cells, sizes)
            if t_skew_error(m, phi, float(n), low, high, confidence) <= T_SKEW_ROOM * (1.0 - confidence) / 2.0:
                low, high, p = t_within_worst_case(float(only_a), float(only_b), float(n), se, df, confidence,
                                                   (w_low, w_high, w_p))
                kind = "normal"  # the CR2 t interval (Notes: where the rule reads t)
            else:  # end by end: t's where its skewness error at that end fits, else at least the score rule's
                low, high, p, kind = t_or_score_ends(float(only_a), float(only_b), float(n), se, df, m, phi,
                                                     confidence, (w_low, w_high, w_p), (low, high, p))
    return float(low), float(high), p, kind


def t_within_worst_case(only_a: float, only_b: float, n: float, se: float, df: float, confidence: float,
                        worst: tuple[float, float, float]) -> tuple[float, float, float]:
    """The CR2 t interval ``d -/+ t_df se`` (``d = (b - c) / n``) and its t-test ``p``, within ``worst`` (the
    :func:`worst_case_interval` ``(low, high, p)`` of the same counts, ``p`` the smaller of the two)."""
    d = (only_a - only_b) / n
    crit = t_crit(confidence, df)
    p = t_p_value(d / se, df)
    low, high = max(d - crit * se, worst[0]), min(d + crit * se, worst[1])
    return low, high, (min(p, worst[2]) if math.isfinite(worst[2]) else p)


def t_or_score_ends(only_a: float, only_b: float, n: float, se: float, df: float, m: float, phi: float,
                    confidence: float, worst: tuple[float, float, float],
                    score: tuple[float, float, float]) -> tuple[float, float, float, str]:
    """``(low, high, p, kind)``: each end of the CR2 t interval, or, where t's skewness error at the difference that
    end tests is above the room, the farther of it and the score rule's end; within ``worst``.

    :func:`binary_pair_interval` reads CR2 t where :func:`t_skew_error` at the farthest difference the score interval
    leaves plausible fits :data:`T_SKEW_ROOM` of the one-sided level. Where it does not, the question is asked end by
    end, at the difference ``e`` each end of t tests (``r = n |e| / m``, as a score test reads the variance at its
    null; Tango 1998): an end whose error fits keeps t's; the other is the farther of t's and the score rule's
    (``score``: its ``(low, high, p)``, within ``worst``). At ``e = 0`` the error is 0 (each disagreement won by
    either model alike), so the end that decides whether 0 is excluded is t's unless t's end lies far from 0 on the
    skewed side. ``p`` is the t-test's, or the larger of it and the score rule's where the end facing 0 (the lower
    one where ``d >= 0``) reads the score rule's: ``p < 1 - confidence`` exactly when the interval excludes 0; within
    ``worst`` the smaller of that and ``worst``'s (as :func:`t_within_worst_case`). ``kind``: ``"normal"`` where both
    ends are t's, else ``"t-score"``.

    Examples
    --------
    >>> low, high, p, kind = t_or_score_ends(60, 20, 1000, 0.012, 29.0, 80, 1.5, 0.95, (-1, 1, 1), (0.0, 0.1, 0.03))
    >>> round(100 * low, 2), round(100 * high, 2), round(p, 4), kind  # t: 1.55 .. 6.45; the high end is skewed
    (1.55, 10.0, 0.0024, 't-score')
    """
    d = (only_a - only_b) / n
    crit = t_crit(confidence, df)
    p = t_p_value(d / se, df)
    ends = (d - crit * se, d + crit * se)
    room = T_SKEW_ROOM * (1.0 - confidence) / 2.0
    scored = [t_skew_error(m, phi, n, e, e, confidence) > room for e in ends]  # the error at each end's difference
    low = min(ends[0], score[0]) if scored[0] else ends[0]
    high = max(ends[1], score[1]) if scored[1] else ends[1]
    if scored[0 if d >= 0.0 else 1]:  # the end facing 0 reads the score rule's too
        p = max(p, score[2]) if math.isfinite(score[2]) else p
    low, high = max(low, worst[0]), min(high, worst[1])
    p = min(p, worst[2]) if math.isfinite(worst[2]) else p
    return low, high, p, "t-score" if any(scored) else "normal"


def discordance_spread(only_a_g: Any, only_b_g: Any, sizes: Any) -> tuple[float, float]:
    """``(m, phi)``: the discordant answers ``m = sum_g m_g`` (``m_g`` the questions only A or only B got right in
    cluster ``g``) and the design effect of their rate, ``phi = max(1, sum_g a_g (m_g - n_g m / n)^2 / (m (1 - m/n)))``
    with the CR2 factors ``a_g = 1 / (1 - n_g / n)``: how much more the disagreements vary between clusters than
    independent questions would make them vary (1 without clusters). One file (arrays ``(G,)``)."""
    sz = np.asarray(sizes, dtype=np.float64)
    m_g = np.asarray(only_a_g, dtype=np.float64) + np.asarray(only_b_g, dtype=np.float64)
    n = float(sz.sum())
    m = float(m_g.sum())
    share = m / n
    if m <= 0.0 or share >= 1.0:
        return m, 1.0
    spread = float(((m_g - sz * share) ** 2) @ cr2_factors(sz, n))
    return m, max(1.0, spread / (m * (1.0 - share)))


def t_skew_error(m: float, phi: float, n: float, low: float, high: float, confidence: float = 0.95) -> float:
    """The first Edgeworth term of the CR2 t interval's one-sided error at the end a clustered gate pass reads, for
    the farthest difference the score interval ``[low, high]`` leaves plausible (see :func:`binary_pair_interval`).

    With ``m`` discordant answers whose rate has design effect ``phi`` (:func:`discordance_spread`) and a net
    share ``r`` of them won by one model, the sum of the question differences has (a negative binomial count of
    disagreements, each won with probability ``(1 + r) / 2``; law of total cumulance) ``k2 = m (1 - r^2) + r^2 m phi``
    and ``k3 = r m [(1 - r^2)(3 phi - 2) + r^2 (2 phi^2 - phi)]``, skewness ``g = k3 / k2^1.5``; the studentised mean of
    a skewed sum misses on one side by about ``g (2 z^2 + 1) pdf(z) / 6`` more than its level (Hall 1992, "The
    Bootstrap and Edgeworth Expansion", Sec. 2.6, the term ``q_1`` of the Studentized mean). ``r`` is read at the
    score interval's farther end, ``min(1, n max(|low|, |high|) / m)``, not at the file's own estimate, which is
    smallest in the files that missed the heavy clusters; ``z`` is the normal quantile of the one-sided level
    ``0.8 (1 - confidence) / 2`` (the end a clustered gate pass reads). ``inf`` without a discordant answer.

    Examples
    --------
    >>> round(t_skew_error(3000.0, 2.0, 14042.0, -0.01, 0.01), 5)  # many disagreements, little spread: t
    0.00026
    >>> round(t_skew_error(300.0, 20.0, 14042.0, 0.005, 0.04), 3)  # a ceiling: the score rule
    0.038
    """
    if not m > 0.0:
        return math.inf
    r = min(1.0, n * max(abs(low), abs(high)) / m)
    r2 = r * r
    k2 = m * (1.0 - r2) + r2 * m * phi
    k3 = r * m * ((1.0 - r2) * (3.0 * phi - 2.0) + r2 * (2.0 * phi * phi - phi))
    if not k2 > 0.0:
        return math.inf
    z = float(ndtri(1.0 - (1.0 - T_SKEW_ROOM) * (1.0 - confidence) / 2.0))
    return abs(k3) / k2**1.5 * (2.0 * z * z + 1.0) * math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi) / 6.0


def worst_case_interval(only_a: Any, only_b: Any, sizes: Any, *, confidence: float = 0.95) -> tuple[Any, Any, Any]:
    """``(low, high, p)``: the rule without clusters (Tango's interval with :func:`continuity_correction`, and its
    test at 0) on the counts scaled to the cluster sizes' effective n, :func:`~evalstats_core.cluster_means.kish_n`
    (``b k / n``, ``c k / n`` of ``k = (sum n_g)^2 / sum n_g^2``): the design effect at its largest, every cluster
    answering as one (ICC 1), so the variance of the mean difference is at most ``Var(d) / k``.

    The clustered rule (:func:`binary_pair_interval`) is never wider than this: its ``t`` on few df (one when all
    the disagreements lie in two clusters) and the MOVER's logit limits can reach +-99 points where the
    questions say a point or less (3 disagreements among 600 questions in 30 clusters of 20: the rule alone
    [-99.5, +99.8] points, this bound [-11.4, +11.9], the CR2 t interval [-0.6, +0.9]). ``p`` is its own test
    at 0, so the rule's ``p`` stays the test its interval inverts. Arrays of counts give arrays (``p`` then
    through :func:`paired_proportion_p` one by one).

    Examples
    --------
    >>> [round(100 * v, 1) for v in worst_case_interval(2, 1, [20] * 30)[:2]]
    [-11.4, 11.9]
    """
    sz = np.asarray(sizes, dtype=np.float64)
    k = kish_n(sz)
    scale = k / float(sz[sz > 0].sum())
    b, c = np.asarray(only_a, dtype=np.float64) * scale, np.asarray(only_b, dtype=np.float64) * scale
    cc = continuity_correction(b, c)
    low, high = paired_proportion_ci(b, c, np.full(np.shape(b), k) if np.ndim(b) else k, confidence=confidence,
                                     correction=cc)
    if np.ndim(b) == 0:
        return low, high, paired_proportion_p(float(b), float(c), correction=float(cc))
    ps = np.array([paired_proportion_p(float(x), float(y), correction=float(z))
                   for x, y, z in zip(b.ravel(), c.ravel(), np.broadcast_to(cc, b.shape).ravel(), strict=True)])
    return low, high, ps.reshape(b.shape)


def discordant_cells(only_a: Any, only_b: Any, sizes: Any, resid_sums: Any, discordant: Any) -> tuple[Any, Any]:
    """Per cluster, the questions only A and only B got right, from the clusters' residual sums of ``a - b``
    (``D_g - n_g d``) and their disagreement counts ``m_g``: ``((m_g + D_g) / 2, (m_g - D_g) / 2)``. The
    totals ``only_a``, ``only_b`` (arrays ``(reps,)`` with ``(reps, G)`` sums) give ``d``."""
    sz = np.asarray(sizes, dtype=np.float64)
    d = (np.asarray(only_a, dtype=np.float64) - np.asarray(only_b, dtype=np.float64)) / float(sz.sum())
    net = np.asarray(resid_sums, dtype=np.float64) + sz * np.asarray(d)[..., None]

    m = np.asarray(discordant, dtype=np.float64)
    return whole_counts(0.5 * (m + net)), whole_counts(0.5 * (m - net))


# Many pairs at once, the same rule to the last bit (was _pair_batch.py)

def tango_intervals(only_a: Any, only_b: Any, n: Any, *, confidence: float = 0.95,
                    correction: Any = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """:func:`paired_proportion_ci` of arrays ``(P,)`` of counts (and continuity
    ``correction``, one per pair or one for all), bit for bit: both ends of every pair in one k-section of 64
    trial points per bracket and step, as one pair alone."""
    b, c, size, cc = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (only_a, only_b, n, correction)))
    if not ((np.isfinite(b) & np.isfinite(c) & np.isfinite(size) & (size > 0) & (b >= 0) & (c >= 0)).all()
            and (b + c <= size * (1 + 1e-12)).all()):
        raise EvalStatsError("paired_proportion_ci needs counts 0 <= only_a, only_b with only_a + only_b <= n, n > 0")
    if not (np.isfinite(cc) & (cc >= 0.0)).all():
        raise EvalStatsError(f"paired_proportion_ci needs a continuity correction >= 0, not {correction!r}")
    cc = cc if cc.any() else None  # as the scalar function: no correction, no step for it
    z = z_for(check_confidence(confidence))
    d = (b - c) / size
    shape = (2,) + (1,) * d.ndim
    target, edge = np.reshape([z, -z], shape), np.reshape([-1.0, 1.0], shape)
    lo, hi = _tango_ksection(b, c, size, target, *np.broadcast_arrays(np.minimum(d, edge), np.maximum(d, edge)), cc)
    at_edge = _tango_z(b, c, size, np.broadcast_to(edge, lo.shape), 0.0 if cc is None else cc) * -edge <= z
    low, high = np.where(at_edge, edge, 0.5 * (lo + hi))
    return low, high


def _tango_ksection(b: np.ndarray, c: np.ndarray, n: np.ndarray, target: np.ndarray, lo: np.ndarray,
                    hi: np.ndarray, cc: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``ksection(lambda x: _tango_z(b, c, n, x) > target, lo, hi)`` with 64 trial points per step, bit for bit, faster:
    the same trial points and the same operations of :func:`_tango_z` in the
    same order, with what does not depend on the trial point computed once and every operand spread to the
    trial points' shape first (numpy's broadcasting costs more than the arithmetic on a few hundred values).
    ``cc``: the continuity correction of every pair (None: none), applied to the numerator as ``_tango_z`` does."""
    return _tango_steps(b, c, n, target, lo, hi, cc, _STEPS)


def spread_to(v: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``v`` broadcast to ``shape`` as a new contiguous array, filled by assignment (a quarter of
    ``ascontiguousarray(broadcast_to(...))``'s cost, the same doubles)."""
    out = np.empty(shape)
    out[...] = v
    return out


def _tango_steps(b: np.ndarray, c: np.ndarray, n: np.ndarray, target: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                 cc: np.ndarray | None, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` steps of :func:`_tango_ksection`'s k-section in numpy, from the brackets ``[lo, hi]``."""
    points = _POINTS
    full = (points - 1,) + lo.shape
    steps = np.arange(1, points, dtype=np.float64).reshape((-1,) + (1,) * lo.ndim) / points

    spread = functools.partial(spread_to, shape=full)

    b_c, n_f = spread(b - c), spread(n)  # (b - c) - n x: num
    minus_bc, slope = spread(-b - c), spread(2.0 * n - b + c)  # w = (-b - c) + (2n - b + c) x
    eight, four = spread(8.0 * n * c), spread(4.0 * n)  # ((8 n c) x)(1 - x); / (4 n)
    goal = spread(target)
    corr = None if cc is None else spread(cc)
    w, t, u = (np.empty(full) for _ in range(3))
    with np.errstate(divide="ignore", invalid="ignore"):
        for _ in range(count):
            width = hi - lo
            x = lo + width * steps
            np.multiply(slope, x, out=w)
            np.add(minus_bc, w, out=w)  # w
            one_minus = 1.0 - x
            np.multiply(eight, x, out=t)
            np.multiply(t, one_minus, out=t)
            np.multiply(w, w, out=u)
            np.add(u, t, out=u)
            np.maximum(u, 0.0, out=u)
            np.sqrt(u, out=u)
            np.subtract(u, w, out=u)
            np.divide(u, four, out=u)  # q
            np.multiply(2.0, u, out=u)
            np.multiply(x, one_minus, out=t)
            np.add(u, t, out=u)
            np.multiply(n_f, u, out=u)  # var
            np.multiply(n_f, x, out=t)
            np.subtract(b_c, t, out=t)  # num
            if corr is not None:  # moved towards 0 by the correction, not past it (as _tango_z)
                t = np.sign(t) * np.maximum(np.abs(t) - corr, 0.0)
            np.maximum(u, 0.0, out=u)
            np.sqrt(u, out=u)
            # Z > target; where var <= 0, Z = sign(num) inf, and num / 0 compares with a finite target alike
            np.divide(t, u, out=t)
            below = np.add.reduce(np.greater(t, goal), axis=0, dtype=np.intp)
            lo, hi = lo + width * (below / points), lo + width * ((below + 1) / points)
    return lo, hi


_STEPS = math.ceil(_BISECT_STEPS / math.log2(_POINTS))  # k-section steps of 64 points for 64 bits: 11


def binary_pair_intervals(only_a: Any, only_b: Any, n: Any, se: Any, se_naive: Any, df: Any,
                          sizes: np.ndarray | None, *, confidence: float = 0.95, resid_sums: Any = None,
                          discordant: Any = None, cells: Any = None,
                          memo: dict | None = None) -> list[tuple[float, float, float, str]]:
    """:func:`binary_pair_interval` of ``P`` pairs on the same cluster
    ``sizes`` (or none), bit for bit: ``only_a``, ``only_b``, ``n``, ``se``, ``se_naive``, ``df`` of shape
    ``(P,)``; ``resid_sums`` and ``discordant`` sequences of ``P`` arrays ``(G,)`` (with clusters). Each
    pair's df and t quantile are found once (the scalar rule finds them twice), Tango's ends of every pair
    in one k-section, and the MOVER's p of every pair in another. ``cells``: instead of ``discordant``, a sequence
    of ``P`` pairs of arrays ``(G,)``, the questions only A and only B got right per cluster, exact (the rule then
    reads them rather than rebuilding them from ``resid_sums`` and ``discordant``). ``memo`` (a
    :attr:`FileSums.memo <evalstats_core.sums.FileSums.memo>`, whose arrays keep their identity): where what
    the clusters give before the confidence level (:func:`_clustered_part`) is kept for the next call."""
    level = check_confidence(confidence)
    only_a, only_b = np.asarray(only_a, dtype=np.float64), np.asarray(only_b, dtype=np.float64)
    b, c, size = only_a, only_b, np.asarray(n, dtype=np.float64)
    n_pairs = b.size
    n_given = size
    mover = mover_ps = spreads = None
    if sizes is not None:
        args = (only_a, only_b, se, se_naive, df, sizes, resid_sums, discordant, cells)
        scale, nus, mover, mover_ps, spreads = _clustered_kept(memo, args)
        crit = [pair_t(nu, level) for nu in nus]
        # pair by pair, as the scalar rule (numpy's scalar power and an array's square may differ in the last bit)
        scale = np.array([s * (z_for(level) / t) ** 2 if math.isfinite(nu) else s
                          for s, t, nu in zip(scale, crit, nus, strict=True)])
        b, c, size = b * scale, c * scale, size * scale
    cc = continuity_correction(b, c) if sizes is None else np.zeros(b.shape)  # without clusters (the scalar rule)
    low, high = tango_intervals(b, c, size, confidence=level, correction=cc)
    out = []
    ps = [paired_proportion_p(float(x), float(y), correction=float(k)) for x, y, k in zip(b, c, cc, strict=True)]
    if mover is not None:  # every pair's MOVER ends in one call (element by element: each pair's own doubles)
        m_low, m_high = _ends(*(np.array([float(cells[i]) for cells in mover]) for i in range(5)),
                              np.array(crit, dtype=np.float64))
        for p, cells in enumerate(mover):
            if cells[5]:  # ok
                low[p], high[p] = min(low[p], float(m_low[p])), max(high[p], float(m_high[p]))
                ps[p] = max(ps[p], float(mover_ps[p])) if math.isfinite(ps[p]) else ps[p]
    if sizes is not None:  # never wider than the design's worst case (as the scalar rule)
        w_low, w_high, w_ps = _worst_cases(only_a, only_b, sizes, level)
        low, high = np.maximum(low, w_low), np.minimum(high, w_high)
        ps = [min(x, float(y)) if math.isfinite(x) and math.isfinite(y) else x for x, y in zip(ps, w_ps, strict=True)]
    kind = "tango" if sizes is None else "tango-effective"
    kinds = [kind] * n_pairs
    if spreads is not None:  # where the rule reads the CR2 t interval (as the scalar rule, pair by pair)
        ses, dfs = np.broadcast_to(np.asarray(se, dtype=np.float64), (n_pairs,)), np.broadcast_to(
            np.asarray(df, dtype=np.float64), (n_pairs,))
        room = T_SKEW_ROOM * (1.0 - level) / 2.0
        for p in range(n_pairs):
            se_p, df_p = float(ses[p]), float(dfs[p])
            if se_p > 0.0 and math.isfinite(df_p) and t_skew_error(*spreads[p], float(n_given[p]), float(low[p]),
                                                                   float(high[p]), level) <= room:
                low[p], high[p], ps[p] = t_within_worst_case(float(only_a[p]), float(only_b[p]), float(n_given[p]),
                                                             se_p, df_p, level,
                                                             (float(w_low[p]), float(w_high[p]), w_ps[p]))
                kinds[p] = "normal"
            elif se_p > 0.0 and math.isfinite(df_p):  # end by end (as the scalar rule)
                low[p], high[p], ps[p], kinds[p] = t_or_score_ends(
                    float(only_a[p]), float(only_b[p]), float(n_given[p]), se_p, df_p, *spreads[p], level,
                    (float(w_low[p]), float(w_high[p]), w_ps[p]), (float(low[p]), float(high[p]), ps[p]))
    for p in range(n_pairs):
        out.append((float(low[p]), float(high[p]), ps[p], kinds[p]))
    return out


def _worst_cases(only_a: np.ndarray, only_b: np.ndarray, sizes: Any, level: float) -> tuple[np.ndarray, ...]:
    """:func:`worst_case_interval` of every pair, bit for bit: the same scaled
    counts, Tango's ends of every pair in one k-section (:func:`tango_intervals`), the test of each."""
    sz = np.asarray(sizes, dtype=np.float64)
    k = kish_n(sz)
    scale = k / float(sz[sz > 0].sum())
    b, c = only_a * scale, only_b * scale  # elementwise: the scalar function's doubles
    cc = continuity_correction(b, c)
    low, high = tango_intervals(b, c, np.full(b.shape, k), confidence=level, correction=cc)
    ps = [paired_proportion_p(float(x), float(y), correction=float(z)) for x, y, z in zip(b, c, cc, strict=True)]
    return low, high, ps


_KEPT_BATCHES = 16  # batches of pairs whose clusters' part is kept per FileSums (one per baseline, or all pairs)


def _clustered_kept(memo: dict | None, args: tuple) -> tuple[np.ndarray, list[float], list | None, Any, Any]:
    """:func:`_clustered_part` of ``args``, kept in ``memo`` under the identity of the arrays ``args`` holds (kept
    in the entry, so an identity is never reused while kept) and the bytes of its counts, SEs and df; at most
    :data:`_KEPT_BATCHES` entries (then the oldest goes). Nothing in it depends on the confidence level."""
    if memo is None:
        return _clustered_part(*args)
    only_a, only_b, se, se_naive, df, sizes, resid_sums, discordant, cells = args
    arrays = (sizes, *(resid_sums or ()), *(discordant or ()), *(x for pair in cells or () for x in pair))
    numbers = np.array([only_a, only_b, se, se_naive, df], dtype=np.float64).tobytes()
    key = (resid_sums is None, discordant is None, cells is None, numbers, *map(id, arrays))
    kept = memo.setdefault("pair-clusters", {})
    hit = kept.get(key)
    if hit is None:
        while len(kept) >= _KEPT_BATCHES:  # the oldest goes (another session may be doing the same)
            try:
                kept.pop(next(iter(kept)), None)
            except (StopIteration, RuntimeError):
                break
        hit = kept[key] = (arrays, _clustered_part(*args))
    return hit[1]


def _clustered_part(only_a: Any, only_b: Any, se: Any, se_naive: Any, df: Any, sizes: np.ndarray, resid_sums: Any,
                    discordant: Any, cells: Any = None) -> tuple[np.ndarray, list[float], list | None, Any, Any]:
    """What :func:`binary_pair_intervals` derives from the clusters before the confidence level: every pair's
    ``1 / deff`` (before the ``(z / t)^2`` shrinkage), its df (:func:`disagreement_df`),
    the MOVER's two cells (:func:`_cells`; None without the clusters' sums) and its
    p-value at 0 (:func:`cell_mover_ps`), and each pair's disagreements and their spread
    (:func:`discordance_spread`; None without the clusters' sums). ``cells``: each pair's exact counts per
    cluster of questions only A and only B got right, read instead of
    :func:`discordant_cells` of ``resid_sums`` and ``discordant`` (which gives
    them to rounding, then made whole by :func:`whole_counts`: the same numbers)."""

    only_a, only_b = np.asarray(only_a, dtype=np.float64), np.asarray(only_b, dtype=np.float64)
    n_pairs = only_a.size
    sz = np.asarray(sizes, dtype=np.float64)
    se, se_naive = np.asarray(se, dtype=np.float64), np.asarray(se_naive, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        good = (se > 0.0) & (se_naive > 0.0)
        scale = np.minimum(1.0, (se_naive / se) ** 2)  # 1 / deff; Kish's n (a pass over the sizes) where no SE
        if not good.all():
            scale = np.where(good, scale, kish_n(sz) / float(sz.sum()))
    resid = None if resid_sums is None else np.stack([np.asarray(r, dtype=np.float64) for r in resid_sums])
    disc = None if discordant is None else np.stack([np.asarray(m, dtype=np.float64) for m in discordant])
    if cells is not None:  # exact: the disagreements are their sum
        only_a_g, only_b_g = (np.stack([np.asarray(pair[i], dtype=np.float64) for pair in cells]) for i in (0, 1))
        disc = only_a_g + only_b_g
    # disagreement_df(df, ...) of each pair: the clusters' counts of every pair at once (row sums as one
    # row's), then each pair's own df, clip(min(df, nu), 1, df), as disagreement_df takes them
    fewest = disagreement_df(math.inf, sz, resid, disc, whole=cells is not None)  # exact cells: whole already
    design = np.asarray(df, dtype=np.float64)  # every pair's at once: the same elementwise min and clip
    nus = np.broadcast_to(np.clip(np.minimum(design, fewest), 1.0, design), (n_pairs,)).tolist()
    mover = mover_ps = spreads = None
    if resid is not None and disc is not None:
        if cells is None:
            only_a_g, only_b_g = discordant_cells(only_a, only_b, sz, resid, disc)  # (P, G) each
        spreads = [discordance_spread(only_a_g[p], only_b_g[p], sz) for p in range(n_pairs)]  # one file's each
        weights = _cell_weights(sz)  # one cluster-size vector for every pair of the batch
        stacked = _cells(only_a_g, only_b_g, sz, weights, dot=row_dots)  # every pair's cells at once, row by row
        mover = [tuple(v[p] for v in stacked) for p in range(n_pairs)]
        mover_ps = cell_mover_ps(mover, np.array(nus))
        mover_ps.setflags(write=False)
    scale.setflags(write=False)  # shared by later calls (and sessions): read, never written
    return scale, nus, mover, mover_ps, spreads


def _mover_ksection(pa: np.ndarray, pb: np.ndarray, la: np.ndarray, lb: np.ndarray, corr: np.ndarray,
                    low_side: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``ksection(left_of_root, lo, hi)`` of :func:`cell_mover_ps` with 64 trial points per step, bit for bit, faster: the
    operations of :func:`_ends` for the end that moves (the low one where
    ``low_side``), in the same order, with what does not depend on the critical value computed once and
    spread to the trial points' shape (as :func:`_tango_ksection`)."""
    points = _POINTS
    full = (points - 1,) + lo.shape
    steps = np.arange(1, points, dtype=np.float64).reshape((-1,) + (1,) * lo.ndim) / points
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        centre_a, centre_b = np.log(pa / (1.0 - pa)), np.log(pb / (1.0 - pb))

        spread = functools.partial(spread_to, shape=full)

        sides = [s for s in (True, False) if (low_side == s).any()]
        kept = {name: spread(v) for name, v in (("pa", pa), ("pb", pb), ("la", la), ("lb", lb), ("ca", centre_a),
                                                 ("cb", centre_b), ("-ca", -centre_a), ("-cb", -centre_b),
                                                 ("2r", 2.0 * corr), ("d", pa - pb))}
        x, y, t, u = (np.empty(full) for _ in range(4))
        for _ in range(_STEPS):
            width = hi - lo
            crit = lo + width * steps
            left = None
            for low in sides:
                # low end: (pa - 1/(1 + e^(crit la - ca))), (1/(1 + e^(-cb - crit lb)) - pb), d - sqrt(...) > 0;
                # high end: (1/(1 + e^(-ca - crit la)) - pa), (pb - 1/(1 + e^(crit lb - cb))), d + sqrt(...) <= 0
                np.multiply(crit, kept["la"], out=x)
                np.subtract(x, kept["ca"], out=x) if low else np.subtract(kept["-ca"], x, out=x)
                np.exp(x, out=x)
                np.add(1.0, x, out=x)
                np.divide(1.0, x, out=x)
                np.subtract(kept["pa"], x, out=x) if low else np.subtract(x, kept["pa"], out=x)
                np.multiply(crit, kept["lb"], out=y)
                np.subtract(kept["-cb"], y, out=y) if low else np.subtract(y, kept["cb"], out=y)
                np.exp(y, out=y)
                np.add(1.0, y, out=y)
                np.divide(1.0, y, out=y)
                np.subtract(y, kept["pb"], out=y) if low else np.subtract(kept["pb"], y, out=y)
                np.multiply(x, x, out=t)
                np.multiply(y, y, out=u)
                np.add(t, u, out=t)
                np.multiply(kept["2r"], x, out=u)
                np.multiply(u, y, out=u)
                np.subtract(t, u, out=t)
                np.maximum(t, 0.0, out=t)
                np.sqrt(t, out=t)
                if low:
                    this = np.subtract(kept["d"], t, out=t) > 0.0
                else:
                    this = ~(np.add(kept["d"], t, out=t) > 0.0)
                left = this if left is None else np.where(low_side, left, this)
            below = np.add.reduce(left, axis=0, dtype=np.intp)
            lo, hi = lo + width * (below / points), lo + width * ((below + 1) / points)
    return lo, hi


def cell_mover_ps(cells: list[tuple[np.ndarray, ...]], dfs: np.ndarray) -> np.ndarray:
    """:func:`cell_mover_p` of ``P`` pairs, bit for bit, from each pair's
    :func:`_cells` (``pa, pb, la, lb, corr, ok``) and df: the doubling search and
    the k-section of every pair at once."""
    pa, pb, la, lb, corr, ok = (np.array([float(c[i]) for c in cells]) for i in range(6))
    ok = ok.astype(bool)
    out = np.full(pa.shape, math.nan)
    out[ok & (pa == pb)] = 1.0
    solve = ok & (pa != pb)
    if not solve.any():
        return out
    pa, pb, la, lb, corr, df = pa[solve], pb[solve], la[solve], lb[solve], corr[solve], dfs[solve]
    low_side = pa > pb  # the end that moves towards 0 as crit grows: the low one when A is ahead

    def left_of_root(c: np.ndarray) -> np.ndarray:  # the end has not reached 0 at this critical value
        low, high = _ends(pa, pb, la, lb, corr, c)
        return np.where(low_side, low > 0.0, ~(high > 0.0))

    doublings = 2.0 ** np.arange(21)  # the first power of two (up to 2^20) at which the end has reached 0
    reached = ~left_of_root(doublings[:, None])
    hi = np.where(reached.any(axis=0), doublings[np.argmax(reached, axis=0)], doublings[-1])
    lo, hi = _mover_ksection(pa, pb, la, lb, corr, low_side, np.zeros(pa.shape), hi)
    mid = 0.5 * (lo + hi)
    out[solve] = [min(1.0, 2.0 * float(stdtr(float(v), -float(t)))) for t, v in zip(mid, df, strict=True)]
    return out
