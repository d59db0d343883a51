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


# ----------------------------------------------------------------------------------------------------
# The draws of the wild cluster bootstrap: the weight vectors, drawn
# or enumerated, each reduced to the five coefficients that give its bootstrap t at any null, and the count of
# draws whose ``|t*|`` exceeds the observed ``|t|``.
#
# The algebra is in the Notes of :func:`wild_cluster_bootstrap`: for a draw,
# ``d* = a + b d`` and ``sum_g S*_g^2 = p2 + 2 pq d + q2 d^2`` with ``d = estimate - null``.
# (_wild_draws.py until issue 38 merged it back: one concern, the wild cluster bootstrap)
# ----------------------------------------------------------------------------------------------------

_TABLES = {
    "rademacher": np.array([-1.0, 1.0]),  # +-1, probability 1/2 each
    "webb": np.array([-math.sqrt(1.5), -1.0, -math.sqrt(0.5), math.sqrt(0.5), 1.0, math.sqrt(1.5)]),  # 1/6 each
}
_CHUNK_CELLS = 1 << 16  # weights are drawn ~64k (draw, cluster) cells at a time (cache-sized),
_CHUNK_ROWS = 16  # and at least 16 draws
_TIE = 1e-9  # |t*| must exceed |t| by more than _TIE * (1 + |t|) to count: exact ties never count
_GRID_BLOCK = 8  # grid points evaluated together, each block on the draws that can still count


@dataclass(frozen=True, slots=True)
class _Draws:
    """Per-draw coefficients of the non-constant weight vectors (each shape (m,)); see the Notes of
    :func:`wild_cluster_bootstrap`.

    For a draw, ``d* = a + b d`` and ``sum_g S*_g^2 = p2 + 2 pq d + q2 d^2``; ``k = G/(G-1)/n^2``
    turns that sum into ``se*^2``. Constant weight vectors (exact ties) are left out but counted in
    ``total``.
    """

    a: np.ndarray
    b: np.ndarray
    p2: np.ndarray
    pq: np.ndarray
    q2: np.ndarray
    k: float
    total: int
    enumerated: bool

    def t_star(self, d: float) -> np.ndarray:
        """Bootstrap t statistics of the non-constant draws at ``d = estimate - null`` (for tests)."""
        var = np.maximum(self.k * (self.p2 + d * (2.0 * self.pq + d * self.q2)), 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):  # se* = 0: +-inf (nan if d* = 0 too)
            return (self.a + self.b * d) / np.sqrt(var)


def _bootstrap(
    sums: np.ndarray, sizes: np.ndarray, n: int, kind: str, n_boot: int, rng: Any
) -> _Draws:
    """Draw (or enumerate) the weights in chunks and reduce each draw to its five coefficients."""
    g = sums.size
    table = _TABLES[kind]  # (base,) the weight values
    base = table.size
    enumerated = g <= 64 and base**g <= n_boot
    total = base**g if enumerated else n_boot
    gen = None if enumerated else np.random.default_rng(rng)
    ns = sizes * sums  # (G,) n_g S_g
    n2 = sizes * sizes  # (G,) n_g^2
    cols_u = np.stack([sums, ns, n2, sums * sums], axis=1)  # (G, 4): multiplied by u
    cols_u2 = np.stack([sums * sums, ns, n2], axis=1)  # (G, 3): multiplied by u^2
    consts = (float(sums.sum()), float(sums @ sums), float(sizes @ sums), float(n2.sum()))
    rows = max(_CHUNK_ROWS, _CHUNK_CELLS // g)
    parts = []
    for start in range(0, total, rows):  # loop over chunks of draws, never over clusters
        r = min(rows, total - start)
        codes = _enumerate(start, r, g, base) if enumerated else _draw(gen, r, g, base)  # (r, G)
        codes = codes[codes.min(axis=1) != codes.max(axis=1)]  # constant vectors: t* = +-t, a tie
        parts.append(_coefficients(table.take(codes), sizes, n, cols_u, cols_u2, consts))
    a, b, p2, pq, q2 = (np.concatenate(c) for c in zip(*parts, strict=True))
    return _Draws(a, b, p2, pq, q2, g / (g - 1) / (n * n), total, enumerated)


def _enumerate(start: int, r: int, g: int, base: int) -> np.ndarray:
    """Rows ``start .. start + r - 1`` of every weight vector: the base-``base`` digits of the row index."""
    idx = np.arange(start, start + r, dtype=np.int64)[:, None]  # (r, 1)
    powers = base ** np.arange(g, dtype=np.int64)  # (G,)
    return (idx // powers % base).astype(np.uint8)  # (r, G) digit of each cluster


def _draw(gen: np.random.Generator, r: int, g: int, base: int) -> np.ndarray:
    """``r`` random weight vectors as codes ``0 .. base-1``, shape (r, G)."""
    if base == 2:  # one random bit per Rademacher weight
        packed = gen.integers(0, 256, size=(r, (g + 7) // 8), dtype=np.uint8)
        return np.unpackbits(packed, axis=1, count=g)
    return gen.integers(0, base, size=(r, g), dtype=np.uint8)


def _coefficients(
    v: np.ndarray, sizes: np.ndarray, n: int, cols_u: np.ndarray, cols_u2: np.ndarray, consts: tuple
) -> tuple[np.ndarray, ...]:
    """``a, b, p2, pq, q2`` of each weight vector (rows of ``v``, shape (r, G)).

    With ``u_g = v_g - b`` (the weights minus their size-weighted mean ``b``): ``a = sum_g v_g S_g /
    n``, ``S*_g(d) = P_g + d Q_g`` with ``P_g = b S_g + u_g S_g - n_g a`` and ``Q_g = n_g u_g``, so
    ``p2 = |P|^2``, ``pq = P.Q``, ``q2 = |Q|^2``. Expanding in ``u`` rather than ``v`` keeps the
    products free of cancellation for weight vectors that are nearly constant (the near-ties).
    """
    sum_s, ss, sn, nn = consts
    b = (v @ sizes) / n  # (r,) size-weighted mean weight: d* = a + b d
    u = v - b[:, None]  # (r, G)
    m_u = u @ cols_u  # (r, 4): sum u S, sum u n S, sum u n^2, sum u S^2
    m_u2 = (u * u) @ cols_u2  # (r, 3): sum u^2 S^2, sum u^2 n S, sum u^2 n^2
    a = (m_u[:, 0] + b * sum_s) / n  # sum_g v_g S_g / n  (sum_g S_g is 0 up to rounding)
    w2 = m_u2[:, 0] - 2.0 * a * m_u[:, 1] + a * a * nn  # |u S - a n|^2
    p2 = w2 + 2.0 * b * (m_u[:, 3] - a * sn) + b * b * ss  # |b S + (u S - a n)|^2
    pq = m_u2[:, 1] + b * m_u[:, 1] - a * m_u[:, 2]
    return a, b, p2, pq, m_u2[:, 2]


def _exceed(draws: _Draws, se: float, d: np.ndarray, reach: np.ndarray | None = None) -> np.ndarray:
    """How many draws have ``|t*| > |t|`` (beyond the tie margin) at each ``d`` (shape (m,) -> (m,)).

    With ``reach`` (each draw's bound from :func:`_reach`, the draws sorted by
    it, largest first) only the draws that can still count at the smallest ``|d|`` of a block are evaluated.
    """
    out = np.empty(d.size, dtype=np.int64)
    for start in range(0, d.size, _GRID_BLOCK):
        x = d[start : start + _GRID_BLOCK, None]  # (m', 1)
        live = draws.a.size if reach is None else int(np.searchsorted(-reach, -np.abs(x).min()))
        a, b, p2, pq, q2 = (c[:live] for c in (draws.a, draws.b, draws.p2, draws.pq, draws.q2))
        num = a + b * x  # (m', M) d*
        var = draws.k * (p2 + x * (2.0 * pq + x * q2))  # (m', M) se*^2
        np.maximum(var, 0.0, out=var)  # rounding near se* = 0 (then t* is infinite)
        bound = (1.0 + _TIE) * np.abs(x) / se + _TIE  # |t| plus the tie margin, (m', 1)
        out[start : start + _GRID_BLOCK] = np.count_nonzero(num * num > var * (bound * bound), axis=1)
    return out

def _take(draws: _Draws, idx: np.ndarray) -> _Draws:
    """The draws at indices (or boolean mask) ``idx``, same ``k`` and ``total``."""
    a, b, p2, pq, q2 = (x[idx] for x in (draws.a, draws.b, draws.p2, draws.pq, draws.q2))
    return _Draws(a, b, p2, pq, q2, draws.k, draws.total, draws.enumerated)


# ----------------------------------------------------------------------------------------------------
# The interval of the wild cluster bootstrap: the hull of the nulls
# the test does not reject, found by test inversion on one set of draws.
#
# Each draw stops counting beyond a known ``|d|`` (:func:`_reach`); past the point where too few draws can
# still count every null is rejected, so a grid of ``|t|`` from the estimate to there and a bisection
# between its outermost accepted point and the next locate each end (the Notes of
# :func:`wild_cluster_bootstrap` give the derivation).
# (_wild_interval.py until issue 38 merged it back)
# ----------------------------------------------------------------------------------------------------

_GRID_LINEAR = 8.0  # interval search: |t| grid steps of _GRID_STEP up to 8 standard errors,
_GRID_STEP = 0.05  # then geometric steps of _GRID_RATIO out to where no draw can still count
_GRID_RATIO = 1.05
_BISECT_TOL = 1e-12  # interval ends are located to 1e-12 standard errors (relative beyond 1 SE)


def _interval(draws: _Draws, se: float, alpha: float) -> tuple[float, float]:
    """Distances from the estimate to the lower and upper ends of the accepted nulls (hull)."""
    need = math.floor(alpha * draws.total) + 1  # fewest exceedances with count / total > alpha
    while need > 1 and (need - 1) / draws.total > alpha:
        need -= 1
    while need / draws.total <= alpha:
        need += 1
    if need > draws.a.size:  # even the most favourable null is rejected
        return math.nan, math.nan
    reach = _reach(draws, se)  # (m,) beyond |d| = reach a draw never counts
    order = np.argsort(-reach, kind="stable")
    draws, reach = _take(draws, order), reach[order]  # largest reach first
    t_max = float(reach[need - 1]) / se  # beyond it fewer than `need` draws can count: rejected
    grid = _grid(t_max)  # (K,) |t| from 0 to t_max
    counts = _exceed(draws, se, np.concatenate([grid, -grid]) * se, reach).reshape(2, -1)
    ends = []
    for side, sign in zip(counts, (1.0, -1.0), strict=True):
        accepted = np.flatnonzero(side >= need)
        if accepted.size == 0:
            return math.nan, math.nan
        j = accepted[-1]
        if j + 1 == grid.size:  # only if t_max were infinite: no bound, no end
            ends.append(math.inf)
            continue
        ends.append(se * _bisect(draws, reach, se, sign, grid[j], grid[j + 1], need))
    return ends[0], ends[1]  # d = estimate - null > 0 lies below the estimate


def _reach(draws: _Draws, se: float) -> np.ndarray:
    """For each draw, a ``|d|`` beyond which it cannot have ``|t*| > |t|``; the smaller of two bounds.

    (1) ``t*^2 <= u' D^-1 u / k`` (Cauchy-Schwarz), so ``|d| >= se * sqrt(u' D^-1 u / k)`` is out;
    used only where ``D`` is well conditioned. (2) ``|t*| > |t|`` means the quartic
    ``se^2 (a + b d)^2 - k d^2 (p2 + 2 pq d + q2 d^2)`` is positive; its leading coefficient is
    negative, so beyond Fujiwara's bound on its roots it is not. A 1e-6 margin covers rounding.
    """
    a, b, p2, pq, q2, k = draws.a, draws.b, draws.p2, draws.pq, draws.q2, draws.k
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        det = p2 * q2 - pq * pq
        quad = (a * a * q2 - 2.0 * a * b * pq + b * b * p2) / det  # u' D^-1 u
        rayleigh = np.where(det > 1e-8 * p2 * q2, se * np.sqrt(np.abs(quad) / k), np.inf)
        c4 = k * q2  # |leading coefficient|; the others follow Fujiwara 1916
        fujiwara = 2.0 * np.maximum.reduce([
            np.abs(2.0 * k * pq / c4),
            np.sqrt(np.abs(se * se * b * b - k * p2) / c4),
            np.cbrt(np.abs(2.0 * se * se * a * b) / c4),
            np.sqrt(np.sqrt(se * se * a * a / (2.0 * c4))),
        ])
    return (1.0 + 1e-6) * np.fmin(rayleigh, np.where(c4 > 0.0, fujiwara, np.inf))

def _grid(t_max: float) -> np.ndarray:
    """``|t|`` values to scan: 0 to 8 in steps of at most 0.05, then 5% steps to ``t_max`` (included)."""
    top = min(t_max, _GRID_LINEAR)
    linear = np.linspace(0.0, top, max(2, math.ceil(top / _GRID_STEP) + 1))
    if t_max <= _GRID_LINEAR or not math.isfinite(t_max):
        return linear
    steps = math.ceil(math.log(t_max / _GRID_LINEAR) / math.log(_GRID_RATIO))
    return np.concatenate([linear, np.geomspace(_GRID_LINEAR, t_max, steps + 1)[1:]])


def _bisect(
    draws: _Draws, reach: np.ndarray, se: float, sign: float, lo: float, hi: float, need: int
) -> float:
    """The boundary between accepted ``lo`` and rejected ``hi`` (in ``|t|`` units) to 1e-12 SE."""
    while hi - lo > _BISECT_TOL * max(1.0, lo):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _exceed(draws, se, np.array([sign * se * mid]), reach)[0] >= need:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)
