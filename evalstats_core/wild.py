"""The wild cluster bootstrap: a p-value and an interval that stay honest when clusters are few.

===============================  ===================================================================
:func:`wild_cluster_bootstrap`   restricted wild cluster bootstrap-t test of ``mean == null``, and the
                                 interval of null values it does not reject
:func:`wild_compare`             the same for the paired difference ``mean(a) - mean(b)``
===============================  ===================================================================

Use it as a cross-check on :func:`~evalstats_core.clustering.summarize` and
:func:`~evalstats_core.comparison.compare` when there are few clusters (fewer than about 30) or
clusters of very different sizes: the cluster-robust t test then rejects too often, and the wild
cluster bootstrap, which studentises every bootstrap sample the way the data were studentised, keeps
its size much closer to the nominal level (Cameron, Gelbach & Miller 2008; MacKinnon, Nielsen & Webb
2023). With many clusters it agrees with the usual test, at the cost of ``n_boot`` resamples.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._clusters import check_n_clusters, cluster_codes, cr1_se, scores_1d, sign_flip_p
from ._results import Interval
from ._validate import as_scores, check_confidence, check_finite, check_positive_int
from ._wild_draws import _bootstrap, _exceed
from ._wild_interval import _interval
from .errors import EvalStatsError, EvalStatsWarning

__all__ = ["WEIGHTS", "WildBootstrap", "wild_cluster_bootstrap", "wild_compare"]

#: The weight distributions: ``"auto"`` is Webb's with at most :data:`WEBB_MAX_CLUSTERS` clusters
#: (with so few, the 2**G Rademacher vectors give too few distinct bootstrap t's; Webb 2023),
#: Rademacher's otherwise.
WEIGHTS = ("auto", "rademacher", "webb")
WEBB_MAX_CLUSTERS = 12
#: With this many clusters or fewer, Rademacher weights (2^G sign vectors) cannot show a p-value below
#: 2/2^G = 0.0625 at G = 5; asking for them warns (Webb 2023).
RADEMACHER_MIN_CLUSTERS = 5
#: Below this many clusters the wild cluster bootstrap is not recommended as a cross-check: with 2 clusters
#: it covered 80-90% for one model's mean (CR2: 92-95%), and with 3-5 no better than CR2 (simulations of
#: ``cluster_coverage.few_clusters_coverage``, 600 replications, accuracy 70%, ICC 0.1).
WILD_MIN_CLUSTERS = 6



@dataclass(frozen=True, slots=True)
class WildBootstrap:
    """A wild cluster bootstrap test of ``mean == null`` and the interval it implies (plain numbers).

    Attributes
    ----------
    estimate : float
        The mean score (of the differences, for a paired comparison).
    null : float
        The value tested.
    statistic : float
        The observed t statistic ``(estimate - null) / se``; ``+-inf`` when ``se`` is 0 and the
        estimate is not the null, ``nan`` when both are.
    se : float
        Cluster-robust (CR1) standard error of the estimate: the studentisation of every t.
    p_value : float
        Two-sided symmetric bootstrap p-value: the share of the ``n_boot`` bootstrap t statistics
        whose absolute value exceeds ``|statistic|``, but never below the share of the draws that tie
        with it exactly (the constant weight vectors: ``2/2^G`` or ``6/6^G`` when enumerated; ``1 /
        n_boot`` when drawn), so a handful of draws never shows p = 0. When ``se`` is 0 (every cluster
        has the same mean) the exact sign-flip p-value ``2/2^G``, as
        :func:`~evalstats_core.comparison.compare`; 1 when the estimate is the null too (every sign vector gives
        the same 0).
    ci_low, ci_high : float
        The null values the test does not reject at level ``1 - confidence`` (their hull): the
        bootstrap interval by test inversion. ``nan`` when it rejects every value (e.g. 2 clusters
        with Rademacher weights and confidence below 0.5) and when ``se`` is 0 (no interval: every
        cluster has the same mean); ``-inf, inf`` when the smallest p-value the draws can show is
        above ``1 - confidence`` (2 clusters with Webb's weights at 95%: 6/36).
    n : int
        Number of questions.
    n_clusters : int
        Number of clusters ``G`` (``n`` when no clusters were given).
    n_boot : int
        Number of bootstrap draws used: ``2**G`` or ``6**G`` when every weight vector was enumerated.
    enumerated : bool
        True when the draws are every possible weight vector, once each (the result is then exact and
        needs no seed).
    weights : str
        ``"rademacher"`` or ``"webb"`` (what ``"auto"`` resolved to).
    confidence : float
        Confidence level of the interval.
    """

    estimate: float
    null: float
    statistic: float
    se: float
    p_value: float
    ci_low: float
    ci_high: float
    n: int
    n_clusters: int
    n_boot: int
    enumerated: bool
    weights: str
    confidence: float = 0.95

    @property
    def ci(self) -> Interval:
        """The interval as ``Interval(low, high)``."""
        return Interval(self.ci_low, self.ci_high)


def wild_cluster_bootstrap(
    scores: Any,
    clusters: Any = None,
    *,
    null: float = 0.0,
    confidence: float = 0.95,
    n_boot: int = 9999,
    weights: str = "auto",
    rng: Any = None,
) -> WildBootstrap:
    """Wild cluster bootstrap-t test that the mean score equals ``null``, and its interval.

    For a paired difference between two models pass ``d = a - b`` (or use :func:`wild_compare`):
    the mean of the per-question differences is the difference of the means.

    Parameters
    ----------
    scores : array_like, shape (n,)
        One score per question, finite, ``n >= 2``.
    clusters : array_like, shape (n,), optional
        A cluster label per question (any hashable values), at least 2 clusters. ``None`` (default)
        makes every question its own cluster: the plain wild bootstrap.
    null : float, default 0.0
        The mean under the null hypothesis.
    confidence : float, default 0.95
        Confidence level of the interval; the test behind it has level ``1 - confidence``.
    n_boot : int, default 9999
        Bootstrap draws (at least 2). When the ``2**G`` (Rademacher) or ``6**G`` (Webb) possible weight
        vectors are no more than ``n_boot``, each is used once instead (full enumeration).
    weights : {"auto", "rademacher", "webb"}, default "auto"
        Weight distribution: ``"auto"`` is Webb's six-point distribution when ``G <= 12``, Rademacher
        otherwise.
    rng : None, int, or numpy.random.Generator
        Seed or generator (``np.random.default_rng(rng)``) for the random draws; unused when the
        weights are enumerated. The same seed and data give the same result, whatever the order of
        the questions or the names of the clusters.

    Returns
    -------
    WildBootstrap
        ``estimate, null, statistic, se, p_value, ci_low, ci_high, n, n_clusters, n_boot, enumerated,
        weights, confidence``.

    Raises
    ------
    EvalStatsError
        Fewer than 2 scores or clusters, non-finite scores, labels of the wrong length or missing, a
        non-finite ``null``, a bad ``confidence``, ``n_boot`` or ``weights``.

    Notes
    -----
    The model is a regression of the scores on a constant, ``s_i = mu + u_i``, with the errors
    correlated within clusters. Write ``S_g`` for the sum of the residuals ``s_i - s_bar`` in cluster
    ``g``, ``n_g`` for its size and ``d = s_bar - null``. The observed statistic is ``t = d / se``
    with the CR1 standard error ``se = sqrt(G/(G-1) * sum_g S_g^2) / n``.

    The restricted bootstrap (WCR: the null is imposed) rebuilds the data from the null and the
    restricted residuals ``s_i - null``, multiplying each cluster's residuals by one weight ``v_g``:
    ``s*_i = null + v_g (s_i - null)``. Each draw ``v`` gives ``d* = sum_g v_g (S_g + n_g d) / n``,
    bootstrap residual sums ``S*_g = v_g (S_g + n_g d) - n_g d*`` and ``t* = d* / se*`` with ``se*``
    the CR1 formula applied to ``S*``: WCR with CR1 studentisation, the default of boottest (Roodman
    et al. 2019) and wildboottest. Only the ``G`` sums and sizes enter: ``O(n + n_boot * G)``.

    The p-value is ``#{b : |t*_b| > |t|} / n_boot``, the symmetric bootstrap p-value, counted strictly
    as boottest, fwildclusterboot and wildboottest do. Ties are common: a constant weight vector gives
    ``t* = +-t`` exactly (the identity draw and its negation; six such vectors for Webb's weights),
    and with 0/1 scores a cluster whose restricted residuals sum to 0 leaves ``t*`` unchanged whatever
    its weight. So a bootstrap t counts only when it exceeds ``|t|`` by more than
    ``1e-9 * (1 + |t|)``, which decides every tie the same way whatever the rounding. Counting ties
    (``|t*| >= |t|``) would add at least ``2/2**G`` under enumeration; Webb 2023 shows such p-values
    are not point identified with few clusters.

    The interval is the hull of the null values the test does not reject (``p_value >
    1 - confidence``), with the same draws for every null. The observed ``se`` does not depend on the
    null; each draw's ``t*`` does, through ``d``: ``d* = a + b d`` and ``se*^2 = G/(G-1)/n^2 *
    (A + 2 B d + C d^2)``, five numbers per draw computed once, after which the p-value of any null
    costs ``O(n_boot)``. By Cauchy-Schwarz ``t*^2 <= u' D^-1 u / (G/(G-1)/n^2)`` with ``u = (a, b)``
    and ``D = [[A, B], [B, C]]``, and ``|t*| > |t|`` is a quartic inequality in ``d`` with a negative
    leading term, so each draw stops counting beyond a known ``|d|``; past the point where fewer than
    ``(1 - confidence) * n_boot`` draws can still count, every null is rejected. From the estimate to
    there we scan a grid of ``|t|`` (steps of 0.05 up to 8, then 5% steps) and bisect between the
    outermost accepted grid point and the next one to 1e-12 standard errors. The tie margin moves each
    jump of the p-value function by about 1e-9 of its distance in standard errors, so the ends are
    exact to that. An island of accepted nulls narrower than one grid step beyond the outermost
    accepted grid point would be missed (none turned up in our property tests).

    References
    ----------
    Cameron, Gelbach & Miller 2008, "Bootstrap-based improvements for inference with clustered
    errors", Rev. Econ. Stat. 90(3), Sec. III (wild cluster bootstrap-t, null imposed).
    Webb 2023, "Reworking wild bootstrap-based inference for clustered errors", Canadian J. Econ.
    56(3) (the six-point distribution; p-values that are not point identified with few clusters).
    MacKinnon, Nielsen & Webb 2023, "Cluster-robust inference: A guide to empirical practice",
    J. Econometrics 232(2) (WCR, symmetric p-values, enumeration, confidence sets by inversion).
    Roodman, MacKinnon, Nielsen & Webb 2019, "Fast and wild: Bootstrap inference in Stata using
    boottest", Stata Journal 19(1) (the algebra of the restricted bootstrap; test inversion).

    Examples
    --------
    Five passages of unequal length; Webb's weights are enumerated (``6**5 = 7776`` draws). The
    t statistic of 4.17 would give p = 0.00003 against a normal, and the CR1 normal interval is
    [0.618, 0.827]; with five clusters the bootstrap is far less sure:

    >>> scores = [1, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1]
    >>> passage = [0, 0, 0, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4]
    >>> r = wild_cluster_bootstrap(scores, passage, null=0.5)
    >>> r.weights, r.n_boot, r.enumerated
    ('webb', 7776, True)
    >>> round(r.estimate, 3), round(r.statistic, 2), round(r.p_value, 4)
    (0.722, 4.17, 0.0208)
    >>> [round(x, 3) for x in r.ci]
    [0.599, 0.992]
    """
    level = check_confidence(confidence)
    null = check_finite(null, "null")
    n_boot = check_positive_int(n_boot, "n_boot", minimum=2)
    kind = _check_weights(weights)
    resid, estimate = scores_1d(scores, "scores")  # (n,) residuals s_i - s_bar
    n = resid.size
    if n < 2:
        raise EvalStatsError(
            f"scores has {n} value(s): a bootstrap test needs at least 2 questions; add more questions"
        )
    sums, sizes = _cluster_sums(resid, clusters, n)  # (G,) each, in a canonical order
    g = sums.size
    check_n_clusters(g)
    if kind == "auto":
        kind = "webb" if g <= WEBB_MAX_CLUSTERS else "rademacher"
    elif kind == "rademacher" and g <= RADEMACHER_MIN_CLUSTERS:
        warnings.warn(f"weights='rademacher' with {g} clusters: only {2**g} sign vectors, so no p-value can fall "
                      f"below {2 ** (1 - g):.3g}; use weights='webb' (the default 'auto' does)", EvalStatsWarning,
                      stacklevel=2)
    se = cr1_se(sums, n, g)
    scale = max(abs(estimate), abs(null), math.sqrt(float(resid @ resid) / n))
    if se <= 1e-12 * scale:
        se = 0.0  # rounding-level: every cluster has the same mean
    draws = _bootstrap(sums, sizes, n, kind, n_boot, rng)
    d = estimate - null
    if se == 0.0 and abs(d) <= 1e-12 * scale:
        d = 0.0  # the null is the estimate, up to rounding
    # the weight vectors constant across clusters give t* = +-t exactly: counted, they set the smallest
    # p-value the draws can show (2/2^G, 6/6^G enumerated); a handful of draws never shows p = 0
    floor = (2 if kind == "rademacher" else 6) if draws.enumerated else 1
    if se > 0.0:
        statistic = d / se
        p_value = max(float(_exceed(draws, se, np.array([d]))[0]), floor) / draws.total
        if floor / draws.total > 1.0 - level:  # no null can be rejected: the draws cannot bound the mean
            ci_low, ci_high = -math.inf, math.inf
        else:
            low, high = _interval(draws, se, 1.0 - level)  # distances below / above the estimate
            ci_low, ci_high = estimate - float(low), estimate + float(high)
    else:  # every cluster has the same mean: t is +-inf unless the null is the estimate
        statistic = math.copysign(math.inf, d) if d != 0.0 else math.nan
        # the exact sign-flip randomisation p-value, as compare's: of the 2^G sign vectors only the two
        # constant ones reach |t| = inf (whatever the weights), so p = 2/2^G, never 0
        p_value = sign_flip_p(g) if d != 0.0 else 1.0  # at the null: every sign vector gives 0 (compare's p = 1)
        ci_low = ci_high = math.nan  # no interval: every cluster has the same mean
    return WildBootstrap(
        estimate=estimate,
        null=null,
        statistic=statistic,
        se=se,
        p_value=p_value,
        ci_low=ci_low,
        ci_high=ci_high,
        n=n,
        n_clusters=g,
        n_boot=draws.total,
        enumerated=draws.enumerated,
        weights=kind,
        confidence=level,
    )


def wild_compare(
    a: Any,
    b: Any,
    clusters: Any = None,
    *,
    null: float = 0.0,
    confidence: float = 0.95,
    n_boot: int = 9999,
    weights: str = "auto",
    rng: Any = None,
) -> WildBootstrap:
    """Wild cluster bootstrap test that two models' paired mean scores differ by ``null``.

    The same as ``wild_cluster_bootstrap(a - b, clusters, ...)``: ``estimate`` is
    ``mean(a) - mean(b)``. Use it beside :func:`~evalstats_core.comparison.compare` (paired) as a
    cross-check when there are few clusters; the scores must be paired (same questions, same order).

    Parameters
    ----------
    a, b : array_like, shape (n,)
        The two models' scores on the same questions, finite.
    clusters, null, confidence, n_boot, weights, rng
        As in :func:`wild_cluster_bootstrap`.

    Returns
    -------
    WildBootstrap
        The test of ``mean(a - b) == null`` and its interval.

    Examples
    --------
    >>> a = [0.9, 0.8, 0.7, 0.95, 0.6, 0.85, 0.75, 0.7, 0.9, 0.8]
    >>> b = [0.7, 0.8, 0.6, 0.9, 0.5, 0.9, 0.6, 0.75, 0.8, 0.6]
    >>> r = wild_compare(a, b, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4])
    >>> round(r.estimate, 3), round(r.p_value, 4), r.n_boot
    (0.08, 0.0244, 7776)
    >>> [round(x, 3) for x in r.ci]
    [0.024, 0.148]
    """
    xa = as_scores(a, "a", min_n=2)  # (n,)
    xb = as_scores(b, "b", min_n=2)  # (n,)
    if xa.size != xb.size:
        raise EvalStatsError(
            f"a has {xa.size} scores but b has {xb.size}: the paired wild bootstrap needs both models' "
            "scores on the same questions, in the same order"
        )
    return wild_cluster_bootstrap(
        xa - xb, clusters, null=null, confidence=confidence, n_boot=n_boot, weights=weights, rng=rng
    )


def _check_weights(weights: Any) -> str:
    if not isinstance(weights, str) or weights not in WEIGHTS:
        raise EvalStatsError(f"weights ({weights!r}) must be one of {', '.join(map(repr, WEIGHTS))}")
    return weights


def _cluster_sums(resid: np.ndarray, clusters: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Residual sums ``S_g`` and sizes ``n_g`` (float64, shape (G,)) of the non-empty clusters.

    Sorted by (size, sum): the draws then fall on the same clusters whatever the order of the
    questions or the names of the labels, so a seed reproduces the same result on the same data.
    """
    if clusters is None:
        sums, sizes = resid, np.ones(n)
    else:
        codes, _ = cluster_codes(clusters, n)
        counts = np.bincount(codes)  # (K,) small integer labels may leave empty bins
        sums = np.bincount(codes, weights=resid, minlength=counts.size)
        used = counts > 0
        sums, sizes = sums[used], counts[used].astype(np.float64)
    order = np.lexsort((sums, sizes))
    return sums[order], sizes[order]
