"""Intervals for 0/1 scores that hold near 0% and 100%, with or without clusters, one model or a pair.

================================  ====================================================================
:func:`effective_proportion_ci`   Korn & Graubard's effective-sample-size Clopper-Pearson interval:
                                  one accuracy from clustered 0/1 scores
:func:`use_proportion_interval`   the rule: a proportion interval when the expected number of failures
                                  (effective, with clusters) is below :data:`FAILURES_FOR_T`
:func:`kish_n`                    Kish's effective n of equal-weight clusters at ICC 1: ``n^2 / sum n_g^2``
================================  ====================================================================

The paired part (Tango's interval from the discordant counts, its p, the clustered pair's rule
``binary_pair_interval``) is in :mod:`evalstats_core.pair_proportions`; its public names are
re-exported here.

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
from collections.abc import Callable

import numpy as np
from scipy.special import betaincinv

from ._clusters import t_crit
from ._results import Interval
from ._validate import check_confidence, z_for
from .betabinomial import betabinomial_profile_ci
from .cluster_means import (
    cluster_means_ci,
    few_clusters_worth,
    kish_n,
    logit_cluster_means_ci,
    two_cluster_ci,
)
from .intervals import proportion_ci
from .pair_proportions import (  # noqa: F401  (re-exported: the paired part lives there)
    binary_pair_interval,
    discordant_cells,
    pair_effective_scale,
    pair_t,
    paired_proportion_ci,
    paired_proportion_p,
    variance_clusters,
)

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
        n_star *= (z_for(level) / t_crit(level, df)) ** 2  # Korn & Graubard Eq. 3
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


def binary_mean_interval(mean: float, se: float, n: int, df: float, sizes: np.ndarray | None, *,
                         confidence: float = 0.95, successes: np.ndarray | Callable[[], np.ndarray] | None = None,
                         few_worth: bool | Callable[[], bool] | None = None) -> tuple[float, float, str] | None:
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
    most questions; ``few_worth``: its answer when known already, or a function giving it, asked only where the answer
    is read; ``successes`` may be such a function too; ``kind = "cluster-means"``) at least the
    cluster means' interval on the raw and, given
    ``successes``, the empirical-logit scale (:func:`~evalstats_core.cluster_means.cluster_means_ci`,
    :func:`~evalstats_core.cluster_means.logit_cluster_means_ci`; the two cluster means' closed form
    :func:`~evalstats_core.cluster_means.two_cluster_ci` without them), and CR2's t clipped to [0, 1].

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

        k = int(round(mean * n))
        kind = "wilson" if min(k, n - k) >= FAILURES_FOR_WILSON else "clopper-pearson"
        low, high = proportion_ci(k, n, interval=kind.replace("-", "_"), confidence=confidence)
        return low, high, kind
    naive = mean * (1.0 - mean) / n
    n_eff = n * naive / (se * se) if se > 0.0 else kish_n(sizes)
    half = t_crit(check_confidence(confidence), df) * se
    t_low, t_high = max(0.0, mean - half), min(1.0, mean + half)  # CR2's t, clipped: the floor with few

    def is_few() -> bool:  # the cluster means (Notes); asked only where the answer is read (a pass over the sizes)
        worth = few_clusters_worth(sizes) if few_worth is None else few_worth() if callable(few_worth) else few_worth
        return worth and (successes is not None or len(sizes) == 2)

    if se > 0.0 and not use_proportion_interval(mean, min(n_eff, float(n))):
        few = is_few()
        if not few:
            return None
        low, high = t_low, t_high
    else:
        low, high = effective_proportion_ci(mean, se, n, df, floor_n=kish_n(sizes), confidence=confidence)
        if se > 0.0 and 0.0 < mean < 1.0:  # the union with the logit-scale CR2 interval (module Notes)
            lg_low, lg_high = logit_ci(mean, se, df, confidence=confidence)
            low, high = min(low, lg_low), max(high, lg_high)
        if successes is not None:  # the union with the beta-binomial profile interval (Notes)

            successes = successes() if callable(successes) else successes

            bb_low, bb_high = betabinomial_profile_ci(successes, sizes, confidence=confidence)
            low, high = min(low, bb_low), max(high, bb_high)
        few = is_few()
    if not few:
        return low, high, "korn-graubard"
    if successes is not None:
        successes = successes() if callable(successes) else successes

        sz = np.asarray(sizes, dtype=np.float64)
        raw = cluster_means_ci(mean, np.asarray(successes) / sz, sz, confidence=confidence, bounds=(0.0, 1.0))
        lgt = logit_cluster_means_ci(successes, sz, confidence=confidence)
        return min(low, t_low, raw[0], lgt[0]), max(high, t_high, raw[1], lgt[1]), "cluster-means"
    two_low, two_high = two_cluster_ci(mean, se, sizes, confidence=confidence)  # two clusters, no counts
    return min(low, t_low, two_low), max(high, t_high, two_high), "cluster-means"

