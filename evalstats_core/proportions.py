"""Intervals for 0/1 scores that hold near 0% and 100%, with or without clusters, one model or a pair.

================================  ====================================================================
:func:`paired_proportion_ci`      Tango's score interval for the difference of two paired accuracies,
                                  from the discordant counts (never zero width, always inside [-1, 1])
:func:`paired_proportion_p`       its score test at 0 (McNemar's z without continuity correction)
:func:`effective_proportion_ci`   Korn & Graubard's effective-sample-size Clopper-Pearson interval:
                                  one accuracy from clustered 0/1 scores
:func:`use_proportion_interval`   the rule: a proportion interval when the expected number of failures
                                  (effective, with clusters) is below :data:`FAILURES_FOR_T`
:func:`kish_n`                    Kish's effective n of equal-weight clusters at ICC 1: ``n^2 / sum n_g^2``
:func:`variance_clusters`         how many clusters a CR2 variance rests on (Kish's n of its contributions)
:func:`pair_effective_scale`      the factor that makes clustered paired counts effective ones
================================  ====================================================================

Why. A t interval ``mean -/+ t se`` for 0/1 scores is fine when both outcomes are common, but near
0% or 100% the skewness of the mean and the correlation of the SE with the mean make it under-cover
(99% accuracy on 300 questions: 79.9% exact coverage), and a sample with no failures (or two models
that never disagree) has SE 0 and a zero-width interval. What matters is not ``n`` but the expected
number of failures ``n min(p, 1 - p)`` (Brown, Cai & DasGupta 2001, Sec. 4): below 100 the score
intervals here hold their level where t does not (exact and simulated coverage in
``tests/test_proportions.py`` and ``bench/bench_edges.py``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._clusters import t_crit
from ._quantiles import norm_cdf, t_ppf
from ._results import Interval
from ._validate import check_confidence, z_for
from .errors import EvalStatsError
from .two_clusters import two_cluster_ci

__all__ = [
    "FAILURES_FOR_T",
    "FAILURES_FOR_WILSON",
    "effective_proportion_ci",
    "kish_n",
    "logit_ci",
    "paired_proportion_ci",
    "paired_proportion_p",
    "use_proportion_interval",
    "variance_clusters",
]

#: Below this many expected failures (``n_eff * min(p, 1 - p)``; discordant answers for a pair) the
#: 0/1 intervals use a score / exact interval instead of t: the t interval's exact coverage at 99%
#: accuracy is 80% at 3 expected failures, 92% at 20, and reaches Wilson's (94.3%) only at about 100.
FAILURES_FOR_T = 100.0

#: Below this many observed failures (independent 0/1 answers) the one-model interval is Clopper-Pearson's
#: exact one rather than Wilson's, whose coverage dips to 84% when about 0.2 failures are expected; over
#: every accuracy and n from 10 to 5,000 the worst exact coverage of the rule is then 92.9% (93.6-93.8%
#: from 200 questions on), against 84% for Wilson alone.
FAILURES_FOR_WILSON = 10

_BISECT_STEPS = 64  # halvings of [d, +-1]: 2^-64 is below double precision


def kish_n(sizes: Any) -> float:
    """Effective number of questions when every cluster answers as one: ``(sum n_g)^2 / sum n_g^2``.

    The information in clustered 0/1 scores at the worst case (ICC = 1): it is the number of clusters
    when they are of equal size and less when one dominates (Kish 1965, "Survey Sampling", Sec. 11.7).

    Examples
    --------
    >>> kish_n([10, 10, 10]), round(kish_n([90, 5, 5]), 2)
    (3.0, 1.23)
    """
    s = np.asarray(sizes, dtype=np.float64)
    s = s[s > 0]
    return float(s.sum() ** 2 / (s @ s))


def use_proportion_interval(mean: float, n_eff: float, *, paired_discordant: float | None = None) -> bool:
    """True when a 0/1 estimate needs a score / exact interval rather than ``t``.

    Parameters
    ----------
    mean : float
        The accuracy (one model); ignored when ``paired_discordant`` is given.
    n_eff : float
        Questions, or the effective number with clusters (``n / deff``); ``nan`` counts as 0.
    paired_discordant : float, optional
        For a pair: the (effective) number of discordant questions.

    Examples
    --------
    >>> use_proportion_interval(0.99, 1000), use_proportion_interval(0.5, 1000)
    (True, False)
    """
    if paired_discordant is not None:
        expected = paired_discordant
    else:
        expected = n_eff * min(mean, 1.0 - mean)
    return not (math.isfinite(expected) and expected >= FAILURES_FOR_T)


def effective_proportion_ci(mean: float, se: float, n: int, df: float, *, floor_n: float,
                            confidence: float = 0.95) -> Interval:
    """Korn & Graubard's interval for an accuracy from clustered 0/1 scores.

    Parameters
    ----------
    mean : float
        The accuracy ``p`` in [0, 1].
    se : float
        Its cluster-robust standard error (CR2).
    n : int
        Questions.
    df : float
        Degrees of freedom of the SE (Satterthwaite); ``inf`` for none.
    floor_n : float
        The effective n to use when ``se`` is 0 (every cluster has the same mean, e.g. 100% in every
        cluster): pass :func:`kish_n` of the cluster sizes, the worst case, since a zero SE with
        clusters says nothing about the design effect.
    confidence : float, default 0.95

    Returns
    -------
    Interval
        Inside [0, 1]; 0 is the lower end when ``p = 0`` and 1 the upper end when ``p = 1``.

    Notes
    -----
    The effective sample size ``n* = min(n, p (1 - p) / se^2)`` is shrunk for the degrees of freedom,
    ``n*_df = n* (z / t_df)^2``, and the Clopper-Pearson interval is computed for ``x = p n*_df``
    successes out of ``n*_df`` (Korn & Graubard 1998, Eq. 2-3; Beta quantiles with real parameters).
    By simulation (``bench/bench_edges.py``), with 12 SWE-bench-like clusters at 95% accuracy and
    ICC 0.1 it covers 95.1% where CR2 t covers 85.6%.

    References
    ----------
    Korn & Graubard 1998, "Confidence intervals for proportions with small expected number of positive
    counts estimated from survey data", Survey Methodology 24(2), 193-201.
    Clopper & Pearson 1934, Biometrika 26(4), 404-413.

    Examples
    --------
    >>> low, high = effective_proportion_ci(0.95, 0.02, 500, 11.0, floor_n=12.0)
    >>> round(low, 3), round(high, 3)
    (0.885, 0.984)
    """
    level = check_confidence(confidence)
    p = min(1.0, max(0.0, float(mean)))
    if se > 0.0 and 0.0 < p < 1.0:
        n_star = min(float(n), p * (1.0 - p) / (se * se))
    else:
        n_star = min(float(n), float(floor_n))
    if math.isfinite(df):
        n_star *= (z_for(level) / t_ppf(0.5 + level / 2.0, df)) ** 2  # Korn & Graubard Eq. 3
    from scipy.special import betaincinv  # lazy: the beta quantile only where this interval is chosen

    x, tail = p * n_star, (1.0 - level) / 2.0
    low = 0.0 if x <= 0.0 else float(betaincinv(x, n_star - x + 1.0, tail))
    high = 1.0 if x >= n_star else float(betaincinv(x + 1.0, n_star - x, 1.0 - tail))
    return Interval(low, high)


def logit_ci(mean: float, se: float, df: float, *, confidence: float = 0.95) -> tuple[float, float]:
    """The logit-scale interval ``expit(logit p -/+ t_df se / (p (1 - p)))`` (delta method).

    The CR2 standard error carried to the log-odds, where the sampling distribution of an accuracy
    near 0 or 1 is less skewed, and back; always inside (0, 1). Needs ``0 < p < 1`` and ``se > 0``.

    References
    ----------
    Korn & Graubard 1999, "Analysis of Health Surveys", Wiley, Sec. 3.2.3 (the logit interval for a
    survey proportion).

    Examples
    --------
    >>> low, high = logit_ci(0.95, 0.02, 11.0)
    >>> round(low, 3), round(high, 3)
    (0.883, 0.98)
    """
    level = check_confidence(confidence)
    crit = t_crit(level, df)
    half = crit * se / (mean * (1.0 - mean))
    centre = math.log(mean / (1.0 - mean))  # logit p
    return 1.0 / (1.0 + math.exp(half - centre)), 1.0 / (1.0 + math.exp(-centre - half))  # expit


def _tango_z(b: np.ndarray, c: np.ndarray, n: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """Tango's score statistic ``(b - c - n delta) / sqrt(n (2 q + delta (1 - delta)))``.

    ``q`` is the maximum-likelihood ``P(only B right)`` under ``P(only A) - P(only B) = delta``: the
    root of ``2n q^2 + W q - c delta (1 - delta) = 0``, ``W = -b - c + (2n - b + c) delta``
    (Tango 1998, Eq. 4, with A's and B's cells named b and c).
    """
    w = -b - c + (2.0 * n - b + c) * delta
    q = (np.sqrt(np.maximum(w * w + 8.0 * n * c * delta * (1.0 - delta), 0.0)) - w) / (4.0 * n)
    var = n * (2.0 * q + delta * (1.0 - delta))
    num = b - c - n * delta
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(var > 0.0, num / np.sqrt(np.maximum(var, 0.0)), np.sign(num) * np.inf)


def paired_proportion_ci(only_a: Any, only_b: Any, n: Any, *, confidence: float = 0.95) -> Interval:
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

    Returns
    -------
    Interval
        ``(low, high)`` inside [-1, 1] (floats; arrays when arrays were passed). It never has zero
        width: two models that agree on all 30 questions get about (-0.114, +0.114),
        ``+-z^2 / (n + z^2)``.

    Notes
    -----
    The interval is ``{delta : |Z(delta)| <= z}`` with Tango's statistic (see :func:`_tango_z`),
    found by bisection on each side of ``(b - c)/n`` (``Z`` decreases in ``delta``). At ``delta = 0``
    ``Z = (b - c)/sqrt(b + c)``: McNemar's test, so the interval excludes 0 exactly when McNemar's
    (uncorrected) p is below ``1 - confidence``.

    References
    ----------
    Tango 1998, "Equivalence test and confidence interval for the difference in proportions for the
    paired-sample design", Statistics in Medicine 17(8), 891-908; correction 1999, 18(24), 3511.
    Newcombe 1998, Statistics in Medicine 17(22), 2635-2650 (comparison of paired intervals).

    Examples
    --------
    >>> low, high = paired_proportion_ci(0, 0, 30)
    >>> round(low, 4), round(high, 4)
    (-0.1135, 0.1135)
    """
    level = check_confidence(confidence)
    b, c, size = (np.asarray(v, dtype=np.float64) for v in (only_a, only_b, n))
    b, c, size = np.broadcast_arrays(b, c, size)
    if not (np.all(np.isfinite(b) & np.isfinite(c) & np.isfinite(size)) and np.all(size > 0)
            and np.all(b >= 0) and np.all(c >= 0) and np.all(b + c <= size * (1 + 1e-12))):
        raise EvalStatsError("paired_proportion_ci needs counts 0 <= only_a, only_b with only_a + only_b <= n, n > 0")
    z = z_for(level)
    d = (b - c) / size
    out = []
    for target, edge in ((z, -1.0), (-z, 1.0)):  # low end: Z(delta) = z left of d; high end: -z right of d
        lo, hi = np.minimum(d, edge), np.maximum(d, edge)  # the root lies between d and the edge
        lo, hi = lo.copy(), hi.copy()
        for _ in range(_BISECT_STEPS):
            mid = 0.5 * (lo + hi)
            above = _tango_z(b, c, size, mid) > target  # Z decreasing: above target -> root is right of mid
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        end = 0.5 * (lo + hi)
        at_edge = _tango_z(b, c, size, np.full_like(d, edge)) * np.sign(-edge) <= z  # edge not rejected
        out.append(np.where(at_edge, edge, end))
    low, high = out
    if low.ndim == 0:
        return Interval(float(low), float(high))
    return Interval(low, high)


def paired_proportion_p(only_a: float, only_b: float) -> float:
    """Two-sided p of Tango's score test at 0, i.e. McNemar's z ``(b - c)/sqrt(b + c)``.

    1 when ``b = c > 0``; ``nan`` with no discordant answer (the statistic is 0/0: no test, although the
    interval of :func:`paired_proportion_ci` is defined).

    Examples
    --------
    >>> round(paired_proportion_p(12, 3), 4), paired_proportion_p(2, 2), paired_proportion_p(0, 0)
    (0.0201, 1.0, nan)
    """
    b, c = float(only_a), float(only_b)
    if b + c <= 0.0:
        return math.nan
    if b == c:
        return 1.0
    return 2.0 * norm_cdf(-abs(b - c) / math.sqrt(b + c))


def binary_mean_interval(mean: float, se: float, n: int, df: float, sizes: np.ndarray | None, *,
                         confidence: float = 0.95, successes: np.ndarray | None = None
                         ) -> tuple[float, float, str] | None:
    """The rule for one model's 0/1 accuracy: ``(low, high, kind)``, or None when t is right.

    Without clusters (``sizes`` None): when ``n min(p, 1 - p)`` is below :data:`FAILURES_FOR_T`,
    Wilson's score interval (``kind = "wilson"``), or Clopper-Pearson's exact interval with fewer than
    :data:`FAILURES_FOR_WILSON` failures (``kind = "clopper-pearson"``). With clusters: Korn & Graubard's interval
    (:func:`effective_proportion_ci`, ``kind = "korn-graubard"``) when the same count on the effective
    number of questions ``n / deff`` is below it, or when the SE is 0 (then the effective n is
    :func:`kish_n` of the sizes), widened to contain the logit-scale CR2 interval (:func:`logit_ci`)
    and, given the per-cluster ``successes``, the beta-binomial profile-likelihood interval
    (:func:`~evalstats_core.betabinomial.betabinomial_profile_ci`). With fewer than two clusters' worth
    of information (:func:`~evalstats_core.cluster_means.few_clusters_worth`: two clusters, or one holding
    most questions; ``kind = "cluster-means"``) at least the cluster means' interval on the raw and, given
    ``successes``, the empirical-logit scale (:func:`~evalstats_core.cluster_means.cluster_means_ci`,
    :func:`~evalstats_core.cluster_means.logit_cluster_means_ci`; the two cluster means' closed form
    :func:`~evalstats_core.two_clusters.two_cluster_ci` without them), and CR2's t clipped to [0, 1].

    Notes
    -----
    Why the union. Near the ceiling every interval built from the observed spread misses on the same
    side: a file that happens to hold no weak cluster has an estimate too high and an SE too small.
    Korn-Graubard and the logit interval miss in different designs; by simulation over 160 designs
    (G = 3-60 clusters, equal / unequal / SWE-like sizes, ICC 0.05-0.3, accuracy 0.5-0.99;
    ``bench/bench_edge_designs.py``) Korn-Graubard covers below 93% in 30 of them (worst 82.5%), the
    logit interval in 25 (worst 84.0%), their union in 17 (worst 85.9%): 5-10 clusters at 90-95%
    with ICC >= 0.2, and 99% with ICC >= 0.1 on 27-60 clusters, where the cluster accuracies are
    J-shaped (most near 100%, a few weak) and most files contain no weak cluster. The beta-binomial
    likelihood sees what those files cannot rule out, a lower mean with a larger ICC whose clusters
    are mostly perfect, and the union with its profile interval covers at least 93.6% on every one
    of those 160 designs (10,000 draws each), and on MMLU's 57 subjects and BBH-like 27 tasks at least
    93.7%. Why the cluster means, and what they cost: :mod:`~evalstats_core.cluster_means`. Franco,
    Little, Louis & Slud 2019 find every effective-n interval under-covers with an estimated design effect.

    References
    ----------
    Korn & Graubard 1998 (see :func:`effective_proportion_ci`).
    Franco, Little, Louis & Slud 2019, "Comparative study of confidence intervals for proportions in
    complex sample surveys", J. Survey Statistics and Methodology 7(3), 334-364.
    Williams 1975 (the beta-binomial model; see :func:`~evalstats_core.betabinomial.betabinomial_profile_ci`).
    Kish 1965 and Cox 1970 (see :mod:`evalstats_core.cluster_means`).
    """
    if sizes is None:
        if not use_proportion_interval(mean, float(n)):
            return None
        from .intervals import proportion_ci

        k = int(round(mean * n))
        kind = "wilson" if min(k, n - k) >= FAILURES_FOR_WILSON else "clopper-pearson"
        low, high = proportion_ci(k, n, method=kind.replace("-", "_"), confidence=confidence)
        return low, high, kind
    from .cluster_means import few_clusters_worth

    naive = mean * (1.0 - mean) / n
    n_eff = n * naive / (se * se) if se > 0.0 else kish_n(sizes)
    few = few_clusters_worth(sizes) and (successes is not None or len(sizes) == 2)  # cluster means (Notes)
    half = t_crit(check_confidence(confidence), df) * se
    t_low, t_high = max(0.0, mean - half), min(1.0, mean + half)  # CR2's t, clipped: the floor with few
    if se > 0.0 and not use_proportion_interval(mean, min(n_eff, float(n))):
        if not few:
            return None
        low, high = t_low, t_high
    else:
        low, high = effective_proportion_ci(mean, se, n, df, floor_n=kish_n(sizes), confidence=confidence)
        if se > 0.0 and 0.0 < mean < 1.0:  # the union with the logit-scale CR2 interval (module Notes)
            lg_low, lg_high = logit_ci(mean, se, df, confidence=confidence)
            low, high = min(low, lg_low), max(high, lg_high)
        if successes is not None:  # the union with the beta-binomial profile interval (Notes)
            from .betabinomial import betabinomial_profile_ci

            bb_low, bb_high = betabinomial_profile_ci(successes, sizes, confidence=confidence)
            low, high = min(low, bb_low), max(high, bb_high)
    if not few:
        return low, high, "korn-graubard"
    if successes is not None:
        from .cluster_means import cluster_means_ci, logit_cluster_means_ci

        sz = np.asarray(sizes, dtype=np.float64)
        raw = cluster_means_ci(mean, np.asarray(successes) / sz, sz, confidence=confidence, bounds=(0.0, 1.0))
        lgt = logit_cluster_means_ci(successes, sz, confidence=confidence)
        return min(low, t_low, raw[0], lgt[0]), max(high, t_high, raw[1], lgt[1]), "cluster-means"
    two_low, two_high = two_cluster_ci(mean, se, sizes, confidence=confidence)  # two clusters, no counts
    return min(low, t_low, two_low), max(high, t_high, two_high), "cluster-means"


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
    w = s * s / (1.0 - sz / sz.sum())
    total, square = w.sum(axis=-1), (w * w).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(square > 0.0, total * total / square, 1.0)


def pair_effective_scale(se: Any, se_naive: Any, df: float, sizes: Any, resid_sums: Any = None,
                         discordant: Any = None, *, confidence: float = 0.95) -> Any:
    """The factor ``n*/n`` that turns clustered paired counts into effective ones (see :func:`binary_pair_interval`).

    ``1 / deff`` (at most 1; :func:`kish_n` over ``n`` when an SE is 0) times ``(z / t_nu)^2`` with ``nu``
    the design's df, or fewer (:func:`~evalstats_core.pair_mover.disagreement_df`): :func:`variance_clusters`
    of ``resid_sums``, and Kish's effective number of clusters of the per-cluster ``discordant`` counts (how
    many clusters the disagreements are spread over) and the number of clusters with a disagreement less
    one, each when given. Arrays of ``se``, ``se_naive`` (and ``resid_sums``, ``discordant`` of shape
    ``(reps, G)``) give an array.
    """
    from .pair_mover import disagreement_df

    se, se_naive = np.asarray(se, dtype=np.float64), np.asarray(se_naive, dtype=np.float64)
    sz = np.asarray(sizes, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where((se > 0.0) & (se_naive > 0.0), np.minimum(1.0, (se_naive / se) ** 2),  # 1 / deff
                         kish_n(sz) / float(sz.sum()))
    nu = np.broadcast_to(disagreement_df(df, sz, resid_sums, discordant), scale.shape)
    finite = np.isfinite(nu)
    if finite.any():
        level = check_confidence(confidence)
        scale = np.where(finite, scale * (z_for(level) / pair_t(nu, level)) ** 2, scale)
    return scale if scale.ndim else float(scale)


def pair_t(nu: Any, level: float) -> Any:
    """The two-sided ``t`` quantile on ``nu`` df (``z`` where ``nu`` is infinite): one value through
    :func:`~evalstats_core._clusters.t_crit` (the CLI's and the page's path: no scipy import), arrays (the
    coverage simulations') through scipy."""
    nu = np.asarray(nu, dtype=np.float64)
    if nu.ndim == 0:
        return np.float64(t_crit(level, float(nu)))
    from scipy.special import stdtrit

    finite = np.isfinite(nu)
    return np.where(finite, stdtrit(np.where(finite, nu, 1.0), 0.5 + level / 2.0), z_for(level))


def binary_pair_interval(only_a: float, only_b: float, n: int, se: float, se_naive: float, df: float,
                         sizes: np.ndarray | None, *, confidence: float = 0.95, resid_sums: np.ndarray | None = None,
                         discordant: np.ndarray | None = None) -> tuple[float, float, float, str] | None:
    """The rule for a paired difference of 0/1 scores: ``(low, high, p, kind)``, or None when t is right.

    Tango's score interval on the discordant counts when fewer than :data:`FAILURES_FOR_T` of them are
    (effectively) there. With clusters the counts and ``n`` are scaled by ``1 / deff``,
    ``deff = se^2 / se_naive^2`` (CR2 over the paired t SE; at least 1), and by ``(z / t_nu)^2`` for
    the degrees of freedom (as Korn & Graubard 1998 do for one proportion), where ``nu`` is the
    design's df or, when fewer, the number of clusters the variance rests on (:func:`variance_clusters`
    of ``resid_sums``, the clusters' residual sums of ``a - b``) or the disagreements are spread over
    (Kish's effective number of clusters of ``discordant``, the per-cluster counts of questions the two
    models disagree on; and at most the number of clusters with a disagreement less one); a zero
    clustered SE (every cluster has the same mean difference) gives no design effect, so the worst case
    is used: the effective n of :func:`kish_n`. With clusters (given ``resid_sums`` and ``discordant``)
    the interval is widened to contain the MOVER interval of the two discordant cells (Notes). ``p`` is
    the larger of the score test's at 0 on the same counts and the MOVER's
    (:func:`~evalstats_core.pair_mover.cell_mover_p`), so ``p < 1 - confidence`` exactly when the
    interval excludes 0.

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

    References
    ----------
    Tango 1998 (see :func:`paired_proportion_ci`); Korn & Graubard 1998 (the ``(z / t)^2`` shrinkage).
    Newcombe 1998, Statistics in Medicine 17(22), 2635-2650; Zou & Donner 2008, Statistics in
    Medicine 27(10), 1693-1702 (the MOVER; see :func:`~evalstats_core.pair_mover.cell_mover_interval`).
    """
    b, c, size = float(only_a), float(only_b), float(n)
    if sizes is not None:
        scale = pair_effective_scale(se, se_naive, df, sizes, resid_sums, discordant, confidence=confidence)
        b, c, size = b * scale, c * scale, size * scale
    if not use_proportion_interval(0.0, size, paired_discordant=b + c):
        return None
    low, high = paired_proportion_ci(b, c, size, confidence=confidence)
    p = paired_proportion_p(b, c)
    if sizes is not None and resid_sums is not None and discordant is not None:  # the union with the MOVER (Notes)
        from .pair_mover import cell_mover_interval, cell_mover_p, disagreement_df

        cells = discordant_cells(float(only_a), float(only_b), sizes, resid_sums, discordant)
        nu = float(disagreement_df(df, sizes, resid_sums, discordant))
        m_low, m_high, defined = cell_mover_interval(*cells, sizes, pair_t(nu, check_confidence(confidence)))
        if defined:
            low, high = min(low, float(m_low)), max(high, float(m_high))
            p = max(p, cell_mover_p(*cells, sizes, nu)) if math.isfinite(p) else p
    kind = "tango" if sizes is None else "tango-effective"
    return float(low), float(high), p, kind


def discordant_cells(only_a: Any, only_b: Any, sizes: Any, resid_sums: Any, discordant: Any) -> tuple[Any, Any]:
    """Per cluster, the questions only A and only B got right, from the clusters' residual sums of ``a - b``
    (``D_g - n_g d``) and their disagreement counts ``m_g``: ``((m_g + D_g) / 2, (m_g - D_g) / 2)``. The
    totals ``only_a``, ``only_b`` (arrays ``(reps,)`` with ``(reps, G)`` sums) give ``d``."""
    sz = np.asarray(sizes, dtype=np.float64)
    d = (np.asarray(only_a, dtype=np.float64) - np.asarray(only_b, dtype=np.float64)) / float(sz.sum())
    net = np.asarray(resid_sums, dtype=np.float64) + sz * np.asarray(d)[..., None]
    from .pair_mover import whole_counts

    m = np.asarray(discordant, dtype=np.float64)
    return whole_counts(0.5 * (m + net)), whole_counts(0.5 * (m - net))
