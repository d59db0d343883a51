"""Intervals for a paired difference of 0/1 scores: Tango's score interval from the discordant counts,
and the rule for the clustered pair (moved here from :mod:`evalstats_core.proportions`, which re-exports
these names).

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

It stands on :mod:`evalstats_core.pair_mover` (the MOVER of the discordant cells, :func:`variance_clusters`) and
:func:`~evalstats_core.cluster_means.kish_n`; :mod:`evalstats_core.proportions` re-exports its names.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri, stdtrit

from ._clusters import cr2_factors, t_crit, t_p_value
from ._ksection import ksection
from ._results import Interval
from ._validate import check_confidence, z_for
from .cluster_means import kish_n
from .errors import EvalStatsError
from .pair_mover import cell_mover_interval, cell_mover_p, disagreement_df, variance_clusters, whole_counts

__all__ = [
    "CONTINUITY_RAMP",
    "binary_pair_interval",
    "continuity_correction",
    "discordant_cells",
    "pair_effective_scale",
    "pair_t",
    "paired_proportion_ci",
    "paired_proportion_p",
    "variance_clusters",
    "T_SKEW_ROOM",
    "discordance_spread",
    "t_or_score_ends",
    "t_skew_error",
    "worst_case_interval",
]

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

    1 when ``b = c > 0`` (or ``|b - c|`` is within the correction); ``nan`` with no discordant answer
    (the statistic is 0/0: no test, although the interval of :func:`paired_proportion_ci` is defined).

    Examples
    --------
    >>> round(paired_proportion_p(12, 3), 4), paired_proportion_p(2, 2), paired_proportion_p(0, 0)
    (0.0201, 1.0, nan)
    >>> round(paired_proportion_p(12, 3, correction=1.0), 4)
    0.0389
    """
    b, c = float(only_a), float(only_b)
    if b + c <= 0.0:
        return math.nan
    gap = abs(b - c) - float(correction)
    if gap <= 0.0:
        return 1.0
    return 2.0 * float(ndtr(-gap / math.sqrt(b + c)))


def pair_effective_scale(se: Any, se_naive: Any, df: float, sizes: Any, resid_sums: Any = None,
                         discordant: Any = None, *, confidence: float = 0.95, calibrated: bool = True) -> Any:
    """The factor ``n*/n`` that turns clustered paired counts into effective ones (see :func:`binary_pair_interval`).

    ``1 / deff`` (at most 1; :func:`kish_n` over ``n`` when an SE is 0) times ``(z / t_nu)^2`` with ``nu``
    the design's df, or fewer (:func:`~evalstats_core.pair_mover.disagreement_df`): :func:`variance_clusters`
    of ``resid_sums``, and Kish's effective number of clusters of the per-cluster ``discordant`` counts (how
    many clusters the disagreements are spread over) and the number of clusters with a disagreement less
    one, each when given. Arrays of ``se``, ``se_naive`` (and ``resid_sums``, ``discordant`` of shape
    ``(reps, G)``) give an array. ``calibrated``: as :func:`~evalstats_core.pair_mover.disagreement_df`'s.
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
    :func:`~evalstats_core.pair_mover.variance_df`, ``3 K - 2`` of :func:`variance_clusters` ``K`` of ``resid_sums``,
    the clusters' residual sums of ``a - b``; issue 45) or the disagreements are spread over
    (Kish's effective number of clusters of ``discordant``, the per-cluster counts of questions the two
    models disagree on; and at most the number of clusters with a disagreement less one); a zero
    clustered SE (every cluster has the same mean difference) gives no design effect, so the worst case
    is used: the effective n of :func:`kish_n`. With clusters (given ``resid_sums`` and ``discordant``)
    the interval is widened to contain the MOVER interval of the two discordant cells (Notes). ``p`` is
    the larger of the score test's at 0 on the same counts and the MOVER's
    (:func:`~evalstats_core.pair_mover.cell_mover_p`), so ``p < 1 - confidence`` exactly when the
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
    :func:`~evalstats_core.pair_mover.cell_mover_interval` (Newcombe's method 10 with those intervals,
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
    Medicine 27(10), 1693-1702 (the MOVER; see :func:`~evalstats_core.pair_mover.cell_mover_interval`).
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
