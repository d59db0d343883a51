"""Plans that deliver their power on average over pilots: the pilot's uncertainty about omega2 planned for.

A plan from a pilot's estimate of omega2 is short when the estimate is low and long when it is high; a short
plan loses more power than a long one gains, so plans from a median-unbiased estimate reach their target in
about half of the pilots but fall short of it on average (74-79% for an 80% target from 5-12 clusters). Here
the plan averages the power over a confidence distribution of omega2 given the pilot and asks for the
questions whose *average* power is the target (the expected-power, or assurance, plan of Julious & Owen 2006;
Browne 1995 and Kieser & Wassmer 1996 reach the same end with an upper confidence limit of the variance,
whose level they tune to the pilot's df).

=============================  ==========================================================================
:func:`omega2_spread`          nodes and weights of the confidence distribution of omega2 from a pilot
:func:`mean_power`             power of a plan of ``n`` questions averaged over those nodes
:func:`sample_size_mean_power` the questions whose average power is the target
:func:`answers_mean_power`     the answers per question (both models) whose average power at ``n`` is it
:func:`_between_sum_cdf`       ``P(SSB <= x)`` of a random-intercept model (Imhof 1961), on a :class:`SizeMix`
=============================  ==========================================================================

Why the average over a confidence distribution is the average over pilots: without clusters the pilot's
variance ``s2`` has ``s2 / omega2 ~ chi2_nu / nu`` whatever omega2, and the confidence distribution
``omega2 = s2 nu / chi2_nu`` averages the power over the same ratio the pilots draw, so the two averages are
one integral: the plan delivers its target power on average over pilots, exactly for normal differences (up
to the t approximation of the power). With clusters the between-cluster sum of squares ``SSB`` is inverted
(:func:`_between_sum_cdf`, exact for normal differences): ``P(sigma_c^2 <= s) =
1 - P(SSB <= observed | s)``, its median the plan's median-unbiased omega2; its ratio to the truth depends
on the ICC, so the identity is approximate. By simulation (``bench/bench_plan_pilots.py``, 300 pilots a
design) the mean realised power for an 80% target is 80-82% on the six designs of the bench (from the
median omega2 alone 74-80%), with plans 1.02x (100 independent questions), 1.04x (27 clusters) and
1.2-1.3x (5-12 clusters) as long. What remains is up, by at most 2 points, about half of it the rounding
up to whole clusters (the plan from the true omega2 delivers 79-82%).

Clustered 0/1 pairs are tested by default with Tango's score interval on effective counts and the discordant
cells' MOVER, on fewer df than the design's (:func:`binary_pair_df`): planned for CR2 t on the design's df, a
plan from the true omega2 delivered 58-62% with that test for an 80% target in a SWE-bench-like mix and 60%
in 7 unequal clusters, and plans from pilots 65-69% (SWE-like) and 71-77% (6 unequal clusters) on average;
planned for the test's df they deliver 75.5% and 77.8% from the true omega2 (``tests/test_plan_binary.py``)
and, from pilots, 77.4-83.9% on average over 80 pilots (Monte Carlo SE 1.8-2.8 points) on four designs of 5-15
unequal clusters (``bench/bench_plan_pilots.py --binary``; ``bench/results/plan_pilots_binary.txt``), with one
to three plans in ten under 60%.
With clusters the average over the confidence distribution is no pivot near a zero cluster variance (``MSW`` is
known, so the distribution spreads upward from a truth at its floor): the held-out audit's 10 unequal clusters
(45-4) of 0/1 answers at a low ICC delivered 85.5% for 80%. :func:`calibrated_power` lowers the average power
asked of the distribution there (80.5% on that design, same command with ``--only plan --match``); the direction
of what remains after it: up at a cluster variance of exactly 0 (86.8% for normal differences in that mix), down
by up to 2 points with a large ICC.
What remains for the 0/1 test is down: the test's df and its variance move together (a small df comes with a large
variance) and the MOVER union widens the interval by about a point of power, neither of which the plan models.
Since issue 45 the comparisons read CR2 t where t's skewness fits and the score rule only at an end where it does not
(:func:`~evalstats_core.pair_proportions.binary_pair_interval`): the planner
(:func:`~evalstats_core.planning.plan_from_pilot`) asks that rule which end facing 0 it will read at the planned effect
and uses the design's df where it is t's, these draws only where it is the score rule's (item 5).

References
----------
Browne, R. H. (1995). On the use of a pilot sample for sample size determination. Statistics in Medicine
14(17), 1933-1940.
Kieser, M. & Wassmer, G. (1996). On the use of the upper confidence limit for the variance from a pilot
sample for sample size determination. Biometrical Journal 38(8), 941-949.
Julious, S. A. & Owen, R. J. (2006). Sample size calculations for clinical studies allowing for
uncertainty about the variance. Pharmaceutical Statistics 5(1), 29-37.
Schweder, T. & Hjort, N. L. (2016). Confidence, Likelihood, Probability. Cambridge University Press
(confidence distributions by test inversion).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.special import chdtr, chdtri, stdtr, stdtrit

from ._clusters import hat_complement
from .errors import EvalStatsError
from .pair_proportions import disagreement_df
from .power_t import sample_size_t

__all__ = ["answers_mean_power", "binary_pair_df", "calibrated_from", "calibrated_power", "calibration_pilots",
           "mean_power", "omega2_spread", "planned_sizes", "sample_size_mean_power"]

#: Nodes of the confidence distribution: midpoints of equal shares without clusters, and with clusters
#: this many levels of the cluster variance above the point mass at 0 (each an Imhof inversion).
NODES = 12

#: Draws of the df the default test of a clustered 0/1 pair will use (:func:`binary_pair_df`; fewer when the
#: planned eval has many clusters, so that a call stays near 200,000 numbers).
TEST_DF_DRAWS = 64

#: Clusters from which :func:`_ssb_moments` sums per distinct cluster size (a plan evaluates it some 1,600 times:
#: 2.8 s per plan at 166,667 clusters per cluster, milliseconds per size)
GROUPED_FROM = 2000

#: Quantiles of the between sum of squares :func:`calibrated_power` plans from (pilots like this one).
CALIBRATION_PILOTS = 8

#: Clusters :func:`binary_pair_df` draws at most (a larger plan: drawn on this many of the same mix, the df
#: scaled up by the ratio, as the design's df grow with the clusters).
MAX_CLUSTERS = 2000


def omega2_spread(diffs: np.ndarray, cluster: np.ndarray | None, noise: float = 0.0,
                  *, nodes: int = NODES) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights (summing to 1) of a confidence distribution of omega2 from pilot differences.

    Parameters
    ----------
    diffs : ndarray, shape (n,)
        Question-level differences of the two models' mean scores.
    cluster : ndarray of int or None
        Cluster codes; None (or singletons) for independent questions.
    noise : float
        The answer noise ``sigma2_a/k_a + sigma2_b/k_b`` inside ``diffs``' variance, removed from each node
        (clipped at 0), as from the pilot's omega2.

    Notes
    -----
    Without clusters ``omega2 = s2 nu / chi2_{nu}`` (``nu = n - 1``) at the midpoints of ``2 nodes``
    equal shares. With clusters ``omega2 = MSW + sigma_c^2 sum n_g^2 / n``, ``MSW`` taken as known (its
    ``n - G`` df are many) and ``sigma_c^2`` distributed as the inverted ``SSB``: a point mass at 0 of
    ``1 - P(SSB <= observed | 0)``, then ``nodes`` points placed by a two-moment approximation of ``SSB``
    at the midpoints of ``nodes`` equal shares of the rest, each weighted by the exact (Imhof) confidence
    levels nearest to it (halfway to its neighbours' exact levels).
    """

    n = diffs.size
    parts = None if cluster is None else _anova_parts(diffs, cluster)
    if parts is None:

        dev = diffs - diffs.mean()
        nu = n - 1.0
        q = (np.arange(2 * nodes) + 0.5) / (2 * nodes)
        omega = float(dev @ dev) / nu * nu / chdtri(nu, q)  # chdtri: the upper-q chi-square quantile
        return np.maximum(omega - noise, 0.0), np.full(q.size, 1.0 / q.size)
    msw, ssb, sizes, share = parts
    levels, weights = _cluster_levels(ssb, size_mix(sizes), msw, nodes)
    return np.maximum(msw + levels * share - noise, 0.0), weights


def _cluster_levels(ssb: float, sizes: Any, msw: float, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes of ``sigma_c^2`` (the first 0) and their weights under the inverted between sum of squares;
    ``sizes`` the cluster sizes or their :class:`SizeMix`."""


    sizes = size_mix(sizes)
    n = sizes.n

    def approx(s: float) -> float:  # P(SSB <= ssb | s), SSB ~ g chi2_h matching its mean and variance
        t1, t2 = _ssb_moments(sizes, msw, s)
        return float(chdtr(t1 * t1 / t2, ssb * t1 / t2)) if t2 > 0.0 else float(ssb >= 0.0)

    at_zero = 1.0 if ssb <= 0.0 else 1.0 - _between_sum_cdf(ssb, sizes, 0.0, msw)  # P(sigma_c^2 = 0)
    if at_zero >= 1.0 - 0.5 / nodes:
        return np.zeros(1), np.ones(1)
    share = sizes.sq / n
    levels = []
    for q in at_zero + (1.0 - at_zero) * (np.arange(nodes) + 0.5) / nodes:  # midpoints of equal shares
        hi = max(ssb / (n - share), 1e-300)
        while approx(hi) > 1.0 - q:
            hi *= 2.0
        levels.append(brentq(lambda s, q=q: approx(s) - (1.0 - q), 0.0, hi, xtol=1e-12 * hi, rtol=1e-8))
    s = np.r_[0.0, levels]
    conf = np.maximum.accumulate([1.0 - _between_sum_cdf(ssb, sizes, x, msw) for x in levels])  # exact levels
    edges = np.r_[at_zero, (conf[1:] + conf[:-1]) / 2.0, 1.0]  # each node holds the levels nearest to it
    return s, np.r_[at_zero, np.diff(edges)]


def _ssb_moments(sizes: Any, msw: float, var_cluster: float) -> tuple[float, float]:
    """``E[SSB]`` and half its variance (``tr M``, ``tr M^2``) under the random-intercept model (``M`` of
    :func:`_between_sum_cdf`); ``sizes`` a :class:`SizeMix`.

    Summed per distinct size (weighted by its count) from :data:`GROUPED_FROM` clusters on when there are at most a
    quarter as many distinct sizes, else per cluster as before: the two sums differ in the last bits only (the order
    of the additions), so plans from fewer clusters keep every bit."""
    n = sizes.n
    if sizes.sizes.size >= GROUPED_FROM and 4 * sizes.size.size <= sizes.sizes.size:
        size, count = sizes.size, sizes.count
        v = var_cluster + msw / size
        d, b2 = size * v, size * size * v / n
        b = float(count @ b2)
        return float(count @ d - b), float(count @ (d * d) - 2.0 * count @ (d * b2) + b * b)
    sizes = sizes.sizes
    v = var_cluster + msw / sizes
    d, b2 = sizes * v, sizes * sizes * v / n
    b = float(b2.sum())
    return float(d.sum() - b), float(d @ d - 2.0 * d @ b2 + b * b)


def planned_sizes(pilot_sizes: Any, n_needed: float) -> np.ndarray:
    """``ceil(n_needed / mean size)`` clusters (at least 2) whose sizes spread over the pilot's, largest first."""
    pool = np.sort(np.asarray(pilot_sizes, dtype=np.float64))[::-1]
    count = max(2, math.ceil(n_needed / pool.mean()))
    return pool[((np.arange(count) + 0.5) * pool.size / count).astype(np.int64)]


def binary_pair_df(pilot_sizes: Any, n: float, var_within: float, var_cluster: Any, df: float,
                   discordant_share: float, *, draws: int = TEST_DF_DRAWS,
                   seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Draws of the df the default test of a clustered 0/1 pair will use on an eval of ``n`` questions, and the
    df of its statistic.

    Parameters
    ----------
    pilot_sizes : array_like
        The pilot's cluster sizes; the eval has more clusters of that mix (:func:`planned_sizes`).
    n : float
        Questions in the planned eval.
    var_within, var_cluster : float, array_like of shape (nodes,)
        The random-intercept variances of the question-level differences (``MSW`` and the cluster
        variance at each node of :func:`omega2_spread`).
    df : float
        The design's df at ``n`` (the CR2 Satterthwaite df the plans scale, ``rate n - 1``).
    discordant_share : float
        The pilot's share of questions the two models disagree on.

    Returns
    -------
    drawn : ndarray, shape (nodes, draws)
        Draws of the df the test's critical value is on.
    spread : ndarray, shape (nodes,)
        The df of the t statistic itself: Satterthwaite's ``(sum lambda_g)^2 / sum lambda_g^2`` of the CR2
        contributions' expectations ``lambda_g = v_g / (1 - f_g)`` (at most ``df``). With the cluster variance
        in the largest clusters it is below the design's df (which weighs clusters by their sizes alone), and
        the statistic's tails are that much heavier: on the design's df the plan over-promised the CR2
        t-test's power by about 3 points in a SWE-like mix. (Drawing the CR2 variance with each draw of the
        df instead, a small df coming with a large variance, over-promised more in one SWE-like check: 4-10 points.)

    Notes
    -----
    The default test of a clustered paired 0/1 difference (:func:`~evalstats_core.pair_proportions.binary_pair_interval`,
    Tango's score interval on effective counts with the discordant cells' MOVER) puts its critical value at
    ``t`` on :func:`~evalstats_core.pair_proportions.disagreement_df`: at most the design's df, and at most the
    number of clusters the *realised* CR2 variance rests on, Kish's ``(sum w_g)^2 / sum w_g^2`` of
    ``w_g = S_g^2 / (1 - f_g)``. With ``S_g ~ N(0, v_g)``, ``v_g = n_g var_within + n_g^2 var_cluster``, that is
    about a third of the design's df with many clusters (``E[chi2_1^2] = 3``) and less when a few large
    clusters hold the variance: 5 (median) where the design has 22 df in 71 clusters of a SWE-bench-like mix.
    Here ``S_g`` is drawn (seeded normals, the same for every ``n``) and the rule applied to each draw, with the
    discordant counts at their expectation ``n_g discordant_share``. A plan that assumed ``t`` on the design's
    df delivered 58-62% instead of 80% with the true omega2 in SWE-like mixes (the held-out audit's design and
    ``tests/test_plan_binary.py``), 75.5% now (the rest: see the module's notes).
    """

    count = n / float(np.mean(pilot_sizes))
    grow = max(1.0, count / MAX_CLUSTERS)  # the df grow with the clusters: drawn on fewer of the same mix, scaled up
    sizes = planned_sizes(pilot_sizes, n / grow)
    df = (df + 1.0) / grow - 1.0
    var_c = np.atleast_1d(np.asarray(var_cluster, dtype=np.float64))
    rows = max(8, min(draws, 200_000 // (sizes.size * max(1, np.size(var_cluster)))))
    z = np.random.default_rng(seed).standard_normal((rows, sizes.size))
    var = sizes * var_within + sizes * sizes * var_c[:, None]  # (nodes, G): the clusters' sums' variances
    resid = np.sqrt(var)[:, None, :] * z  # (nodes, draws, G): the clusters' residual sums
    drawn = np.asarray(disagreement_df(max(1.0, df), sizes, resid, sizes * discordant_share), dtype=np.float64)
    lam = var / hat_complement(sizes, sizes.sum())  # the CR2 contributions' expectations
    square = (lam * lam).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):  # no variance at all (a node at 0): the design's df
        spread = np.clip(np.where(square > 0.0, lam.sum(axis=1) ** 2 / square, df), 1.0, max(1.0, df))
    return drawn * grow, spread * grow


def mean_power(n: float, delta: float, omegas: np.ndarray, weights: np.ndarray, *, noise: float = 0.0,
               alpha: float = 0.05, df: float, test_df: tuple[np.ndarray, np.ndarray] | None = None,
               bound: float | None = None) -> float:
    """``sum_i w_i Power(n, omega_i + noise)``, each the t approximation the plans invert (``sample_size_t``).

    ``Power(n, V) = F_df(delta sqrt(n / V) - t_{alpha/2, df})``; a node with ``V = 0`` has power 1. With
    ``test_df`` (:func:`binary_pair_df`: draws ``(nodes, draws)`` of the test's df and the statistic's df
    ``(nodes,)``) each node's power is the mean over its draws of ``F_spread(delta sqrt(n / V) - t_{alpha/2, nu})``.
    With ``bound`` (the smallest mean difference the test rejects at, in score units: a test whose boundary does not
    scale with the file's SE, e.g. the unclustered 0/1 rule, :func:`~evalstats_core.planning.pair_rule_bound`)
    ``Power(n, V) = F_df((delta - bound) sqrt(n / V))``.
    """

    v = np.asarray(omegas, dtype=np.float64) + noise
    with np.errstate(divide="ignore"):
        shift = delta * np.sqrt(n / v)
    if bound is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            shifted = np.where(v > 0.0, (delta - bound) * np.sqrt(n / v), np.where(delta > bound, np.inf, -np.inf))
        return float(np.asarray(weights) @ stdtr(df, shifted))
    if test_df is None:
        return float(np.asarray(weights) @ stdtr(df, shift - stdtrit(df, 1.0 - alpha / 2.0)))
    drawn, spread = test_df
    crit = stdtrit(np.asarray(drawn, dtype=np.float64), 1.0 - alpha / 2.0)
    return float(np.asarray(weights) @ stdtr(np.asarray(spread)[:, None], shift[:, None] - crit).mean(axis=1))


def sample_size_mean_power(delta: float, omegas: np.ndarray, weights: np.ndarray, *, noise: float = 0.0,
                           alpha: float = 0.05, power: float = 0.8, df_per_question: float = 1.0,
                           test_df: Callable[[float], tuple[np.ndarray, np.ndarray]] | None = None,
                           bound: Callable[[float], float] | None = None) -> float:
    """Questions whose power averaged over ``omegas`` is ``power``, the test on ``max(1, rate n - 1)`` df.

    With one node it is :func:`~evalstats_core.power_t.sample_size_t` at that omega2. The average power
    rises with ``n``; the root lies between the plans for the smallest and the largest node. ``test_df(n)``,
    when given, returns the df the test will use at ``n`` questions (:func:`binary_pair_df`): fewer than the
    design's, so the plan is longer. ``bound(n)``, when given, returns the smallest mean difference the test rejects at
    with ``n`` questions (:func:`mean_power`'s ``bound``).
    """


    om = np.asarray(omegas, dtype=np.float64)
    kw = {"alpha": alpha, "power": power, "df_per_question": df_per_question}
    if om.size == 1 and test_df is None and bound is None:
        return sample_size_t(delta, omega2=float(om[0]) + noise, **kw)
    hi = sample_size_t(delta, omega2=float(om.max()) + noise, **kw)

    def short(n: float) -> float:
        return mean_power(n, delta, om, weights, noise=noise, alpha=alpha, df=max(1.0, df_per_question * n - 1.0),
                          test_df=None if test_df is None else test_df(n),
                          bound=None if bound is None else bound(n)) - power

    least = float(om.min()) + noise
    lo = sample_size_t(delta, omega2=least, **kw) if least > 0.0 else 1e-9 * hi
    if short(lo) >= 0.0:
        return lo
    for _ in range(60):  # fewer df than the design's: the root can lie beyond the largest node's plan
        if not short(hi) < 0.0:
            break
        lo, hi = hi, 2.0 * hi
    if not short(hi) >= 0.0:  # not reached by 2^60 times the largest node's plan
        return hi
    return brentq(short, lo, hi, xtol=1e-12 * hi, rtol=1e-12)


def answers_mean_power(n: float, delta: float, omegas: np.ndarray, weights: np.ndarray, *, noise_sum: float,
                       alpha: float = 0.05, power: float = 0.8, df: float) -> float | None:
    """Answers per question K (both models) whose average power at ``n`` questions is ``power``, or None.

    ``noise_sum = sigma2_a + sigma2_b``; None when even infinitely many answers fall short (omega2 alone),
    1 when one answer is enough.
    """

    if not (delta > 0 and n > 0):
        raise EvalStatsError(f"delta ({delta!r}) and n ({n!r}) must be positive")

    def short(x: float) -> float:  # x = 1 / K
        return mean_power(n, delta, omegas, weights, noise=noise_sum * x, alpha=alpha, df=df) - power

    if short(0.0) <= 0.0:
        return None
    if noise_sum <= 0.0 or short(1.0) >= 0.0:
        return 1.0
    return 1.0 / brentq(short, 0.0, 1.0, xtol=1e-14, rtol=1e-12)


def calibrated_power(delta: float, sizes: np.ndarray, var_within: float, var_cluster: float, *, alpha: float = 0.05,
                     power: float = 0.8, df_per_question: float, nodes: int = NODES,
                     pilots: int = CALIBRATION_PILOTS) -> float:
    """The average power to ask of the confidence distribution so that plans deliver ``power`` over pilots.

    With clusters the confidence distribution of omega2 is not a pivot: ``omega2 = MSW + sigma_c^2 sum n_g^2 / n``
    with ``MSW`` known, so the average over it equals the average over pilots only when the cluster variance
    dominates. Near ``sigma_c^2 = 0`` (a low ICC, as in 10 unequal clusters of 0/1 answers) the distribution
    spreads upward from a truth at its floor: every pilot's plan is at least the plan for ``MSW`` and the
    plans from pilots delivered 85.5% (held-out audit) and, for normal differences, 91% at ICC 0 and 85% at
    ICC 0.017 for an 80% target. Here the target is calibrated (a parametric bootstrap of the rule, as in
    Beran 1987's prepivoting): pilots like this one are the ``pilots`` quantiles of the between sum of squares
    ``SSB`` under the random-intercept model at ``var_cluster`` (its two-moment approximation), each planned
    with :func:`omega2_spread`'s distribution for an average power ``tau``; ``tau`` is the value whose plans'
    power at that truth (t on the design's df), averaged over the pilots, is ``power``.

    Parameters
    ----------
    sizes : ndarray
        The pilot's cluster sizes (all positive).
    var_within, var_cluster : float
        ``MSW`` and the cluster variance the pilots are drawn at: :func:`plan_pair` passes the mean of the
        confidence distribution of ``sigma_c^2`` (its median, the median-unbiased estimate, is 0 in about half
        the pilots when the ICC is low, and calibrating there cut the plans of pilots whose truth is not 0:
        76.5% at ICC 0.017 instead of 80.6% with the mean).

    Returns
    -------
    float
        ``tau`` in [0.5 power, power]: below ``power`` near the floor, ``power`` when the cluster variance
        dominates (the pivot holds). It is never raised above ``power``: where the calibration asked for more
        (a SWE-like mix, one cluster of 231 in 500, where the two-moment approximation of ``SSB`` is coarse) it
        lifted the audit's plans from 81% to about 85%.

    Notes
    -----
    Normal differences in 10 unequal clusters (45 to 4), 60 pilots per ICC, analytic power at the truth:
    91.9 / 85.1 / 78.4 / 77.7% before and 86.8 / 80.6 / 77.6 / 77.9% after at ICC 0 / 0.017 / 0.08 / 0.225.
    What remains is up at the floor (a truth of exactly 0 is the one the calibration cannot reach from above)
    and down by about 2 points with a large ICC.

    References
    ----------
    Beran, R. (1987). Prepivoting to reduce level error of confidence sets. Biometrika 74(3), 457-468.
    """
    pilots_now = calibration_pilots(sizes, var_within, var_cluster, nodes=nodes, pilots=pilots)
    return calibrated_from(pilots_now, delta, alpha=alpha, power=power, df_per_question=df_per_question)


def calibration_pilots(sizes: np.ndarray, var_within: float, var_cluster: float, *, nodes: int = NODES,
                       pilots: int = CALIBRATION_PILOTS) -> tuple | None:
    """The part of :func:`calibrated_power` that reads neither the effect, the test's size nor the power: the
    truth's omega2 and each pilot's confidence distribution (the Imhof inversions, most of its time), or None when
    the two-moment approximation of ``SSB`` is degenerate (the plan then asks for ``power`` itself)."""


    sizes = size_mix(sizes)  # grouped once: 8 pilots of 13 levels each evaluate SSB's distribution
    n = sizes.n
    share = sizes.sq / n
    truth = np.array([var_within + var_cluster * share])
    t1, t2 = _ssb_moments(sizes, var_within, var_cluster)  # SSB ~ g chi2_h (two moments), as in _cluster_levels
    if not (t1 > 0.0 and t2 > 0.0 and truth[0] > 0.0):
        return None
    u = (np.arange(pilots) + 0.5) / pilots
    spreads = []
    for ssb in t2 / t1 * chdtri(t1 * t1 / t2, 1.0 - u):
        levels, weights = _cluster_levels(float(ssb), sizes, var_within, nodes)
        spreads.append((var_within + levels * share, weights))
    return truth, tuple(spreads)


def calibrated_from(pilots_now: tuple | None, delta: float, *, alpha: float, power: float,
                    df_per_question: float) -> float:
    """:func:`calibrated_power` from its :func:`calibration_pilots`: ``tau`` for this effect, size and power."""

    if pilots_now is None:
        return power
    truth, spreads = pilots_now
    kw = {"alpha": alpha, "df_per_question": df_per_question}

    def excess(tau: float) -> float:
        got = [sample_size_mean_power(delta, om, w, power=tau, **kw) for om, w in spreads]
        return float(np.mean([mean_power(m, delta, truth, np.ones(1), alpha=alpha,
                                         df=max(1.0, df_per_question * m - 1.0)) for m in got])) - power

    lo = 0.5 * power
    if excess(power) <= 0.0:  # the rule does not over-deliver here: the distribution's own average
        return power
    if excess(lo) >= 0.0:
        return lo
    return float(brentq(excess, lo, power, xtol=1e-4))


class SizeMix(NamedTuple):
    """A pilot's cluster sizes grouped once for the planners, which evaluate the distribution of ``SSB`` hundreds
    of times per plan: the distinct sizes (ascending), how many clusters have each, the sizes as given, their sum
    ``n`` and ``sum n_g^2``. Each evaluation then costs per distinct size, not per cluster (a file of 1e7 rows in
    clusters of 20 has 166,667 clusters of two sizes). Made by :func:`size_mix`."""

    size: np.ndarray
    count: np.ndarray
    sizes: np.ndarray
    n: float
    sq: float



def size_mix(sizes: Any) -> SizeMix:
    """``sizes`` (positive cluster sizes, shape (G,)) grouped as a :class:`SizeMix` (returned as is when it is one)."""
    if isinstance(sizes, SizeMix):
        return sizes
    sizes = np.asarray(sizes, dtype=np.float64)
    size, count = np.unique(sizes, return_counts=True)  # clusters of one size share their factors
    return SizeMix(size, count, sizes, float(sizes.sum()), float(sizes @ sizes))



def _anova_parts(diffs: np.ndarray, cluster: np.ndarray) -> tuple[float, float, np.ndarray, float] | None:
    """``MSW``, ``SSB``, the cluster sizes and ``sum n_g^2 / n`` of the one-way layout; None for singletons."""
    n = diffs.size
    counts = np.bincount(cluster)
    used = counts > 0
    g = int(used.sum())
    if g >= n:
        return None
    sums = np.bincount(cluster, weights=diffs)
    within = diffs - sums[cluster] / counts[cluster]
    sizes = counts[used].astype(np.float64)
    ssb = float(sizes @ (sums[used] / sizes - diffs.mean()) ** 2)
    return float(within @ within) / (n - g), ssb, sizes, float(sizes @ sizes) / n



def _between_sum_cdf(x: float, sizes: np.ndarray | SizeMix, var_cluster: float, var_within: float) -> float:
    """``P(SSB <= x)`` for the between-cluster sum of squares of a normal random-intercept model.

    ``SSB = sum_g n_g (ybar_g - ybar)^2`` with cluster means ``ybar_g ~ N(mu, v_g)``,
    ``v_g = var_cluster + var_within / n_g``, and the size-weighted grand mean ``ybar``, is the quadratic
    form ``sum_j lambda_j chi2_1`` with ``lambda_j`` the eigenvalues of ``M = D - b b^T``,
    ``D = diag(n_g v_g)``, ``b_g = n_g sqrt(v_g / n)``. Imhof's (1961) inversion,
    ``P(SSB > x) = 1/2 + (1/pi) int_0^inf sin(theta(u)) / (u rho(u)) du`` with
    ``theta(u) = sum_j arctan(lambda_j u) / 2 - x u / 2`` and ``rho(u) = prod_j (1 + lambda_j^2 u^2)^(1/4)``,
    needs only ``det(I - i u M) = prod_g (1 - i u D_g) (1 + i u sum_g b_g^2 / (1 - i u D_g))`` (the matrix
    determinant lemma: O(G) a point, no eigenvalues; the second factor's argument stays in [0, pi/2) by
    interlacing, so principal logarithms add up). The integral is taken directly up to where every
    ``arctan(lambda_j u)`` is near its limit, the tail with QUADPACK's Fourier-weighted rule (QAWF). Checked against simulation and, for two
    clusters, the scaled chi-square (``tests/test_plan_pilots.py``).

    References
    ----------
    Imhof, J. P. (1961). Computing the distribution of quadratic forms in normal variables.
    Biometrika 48(3/4), 419-426.
    """

    mix = size_mix(sizes)  # clusters of one size share their factors
    n, size, count = mix.n, mix.size, mix.count
    v = var_cluster + var_within / size
    d = size * v
    b2 = count * size * size * v / n
    if not d.min() > 0.0:  # no variance at all: SSB is 0
        return float(x >= 0.0)

    # the nonzero lambda_j lie in [min D, max D] (interlacing): min D chi2_{G-1} <= SSB <= max D chi2_{G-1}
    g = int(count.sum()) - 1
    if size.size == 1:  # equal clusters: SSB = (var_within + m var_cluster) chi2_{G-1} exactly
        return float(chdtr(g, x / float(d[0])))
    if chdtr(g, x / float(d.max())) > 1.0 - 1e-12:
        return 1.0
    if chdtr(g, x / float(d.min())) < 1e-12:
        return 0.0

    seen: dict[float, tuple[float, float]] = {}  # the two tail integrals share about a quarter of their points

    def rho_theta(u: float) -> tuple[float, float]:
        got = seen.get(u)
        if got is None:
            z = 1.0 - 1j * u * d
            log_det = count @ np.log(z) + np.log(1.0 + 1j * u * (b2 / z).sum())  # log det(I - i u M)
            got = seen[u] = (math.exp(-0.5 * log_det.real), -0.5 * log_det.imag)  # 1 / rho(u), sum arctan(lambda u) / 2
        return got

    def whole(u: float) -> float:
        r, a = rho_theta(u)
        return math.sin(a - 0.5 * x * u) * r / u

    def part(u: float, f: Any) -> float:  # sin(a - xu/2) = sin(a) cos(xu/2) - cos(a) sin(xu/2)
        r, a = rho_theta(u)
        return f(a) * r / u

    # beyond ``cut`` every arctan(lambda_j u) is near its limit (lambda_j >= min D for the nonzero ones, by
    # interlacing), so theta(u) + x u / 2 varies slowly and the tail is a Fourier integral
    cut = max(8.0 * math.pi / x, 10.0 / float(d.min()))
    head = quad(whole, 0.0, cut, limit=500, epsabs=1e-8)[0]
    tail_cos = quad(part, cut, math.inf, args=(math.sin,), weight="cos", wvar=0.5 * x, limlst=100, epsabs=1e-8)[0]
    tail_sin = quad(part, cut, math.inf, args=(math.cos,), weight="sin", wvar=0.5 * x, limlst=100, epsabs=1e-8)[0]
    return 0.5 - (head + tail_cos - tail_sin) / math.pi
