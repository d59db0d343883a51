"""Is model A better than model B? Differences with honest error bars, and McNemar's test.

=============================  =======================================================================
:func:`compare`                difference of means: unpaired, paired, or paired and clustered (CR2 / t)
:func:`mcnemar`                McNemar's test for two models' right/wrong answers on the same questions
:func:`mcnemar_from_counts`    the same from the four cells of the 2x2 agreement table
=============================  =======================================================================

Use :func:`compare` whenever both models answered the same questions (``paired=True``, the default):
pairing removes the variance the models share and is free precision. Use :func:`mcnemar` when you also
want the classical test for 0/1 scores (it agrees with the paired test for large n; its exact
version is right for few discordant questions). When many pairs
are compared, adjust their p-values with :func:`~evalstats_core.multiple.holm` (any error is costly)
or :func:`~evalstats_core.multiple.benjamini_hochberg` (screening many candidates).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import bdtr, chdtrc

from ._clusters import (
    centred,
    check_method,
    check_n_clusters,
    codes_and_sizes,
    float_scores,
    ones_if_binary,
    plainly_scaled,
    rescale_exponent,
)
from ._estimate import binary_comparison, comparison_from_moments, scaled
from ._in_unit import InUnit
from ._results import Comparison
from ._validate import check_confidence, check_positive_int
from .clustering import check_interval_rule
from .errors import EvalStatsError

__all__ = [
    "Comparison",
    "compare",
    "McNemar",
    "mcnemar",
    "mcnemar_from_counts",
]


def compare(
    a: Any, b: Any, clusters: Any = None, *, paired: bool = True, confidence: float = 0.95, method: str = "cr2",
    interval: str = "auto",
) -> Comparison:
    """Difference of two models' mean scores, with a paired (and optionally clustered) standard error.

    Parameters
    ----------
    a, b : array_like, shape (n,)
        Per-question scores of models A and B. When ``paired=True`` (default) position ``i`` of both
        must be the same question. With ``paired=False`` the lengths may differ.
    clusters : array_like, shape (n,), optional
        A cluster label per question, shared by both models (any hashable values). Only for questions
        answered by both models, i.e. ``a`` and ``b`` of equal length; for two different clustered
        question sets, :func:`~evalstats_core.clustering.summarize` each and combine their SEs.
    paired : bool, default True
        Use the per-question differences (right when both models answered the same questions).
    confidence : float, default 0.95
        Confidence level of the interval.
    method : {"cr2", "cr1"}, default "cr2"
        ``"cr2"``: t reference (paired t-test on ``n - 1`` df; CR2 with Bell-McCaffrey df when
        clustered; Welch-Satterthwaite df unpaired). ``"cr1"``: the paper's normal reference with the
        CLT / CR1 standard errors (Miller 2024, Eqs. 5-8).
    interval : {"auto", "normal"}, default "auto"
        ``"auto"`` with ``method="cr2"`` and paired 0/1 scores, at any count of discordant questions
        (with clusters on effective counts, :func:`~evalstats_core.pair_proportions.binary_pair_interval`):
        Tango's score interval and test on the discordant counts (without clusters continuity-corrected
        by ``min(1, discordant / 10)`` answers; with clusters the CR2 t interval where the disagreements are
        many and spread enough for t, ``interval`` then ``"normal"``), which never has zero
        width and stays inside [-1, 1] (two models that agree on 30 questions: about +-11.4 points).
        ``"normal"``: always ``diff -/+ t(df) se``.

    Returns
    -------
    Comparison
        ``n, n_clusters, diff, se, ci_low, ci_high, z, p_value, se_unpaired, se_paired, correlation,
        variance_removed, df, method`` and more (see :class:`Comparison`).

    Raises
    ------
    EvalStatsError
        Fewer than 2 scores, non-finite scores, unequal lengths when paired, clusters of the wrong
        length or with one label, or a bad ``confidence`` or ``method``.

    Warns
    -----
    EvalStatsWarning
        Few clusters (below 30 with ``"cr1"``, below 10 with ``"cr2"``).

    Notes
    -----
    Unpaired: ``SE = sqrt(SE_A^2 + SE_B^2)`` (Miller 2024, Eq. 5). Paired: with ``d_i = a_i - b_i``,
    ``SE = sqrt( sum (d_i - d_bar)^2 / (n (n-1)) )`` (Eq. 7), which equals
    ``sqrt(SE_A^2 + SE_B^2 - 2 rho SE_A SE_B)``: positive correlation between the models' scores
    (they find the same questions hard) is removed from the variance. Paired and clustered: the
    cluster-robust SE of the differences (Eq. 8; CR2 by default, CR1 with the C/(C-1) factor for
    ``"cr1"``); the unpaired SE then uses each model's clustered SE.

    ``z = diff / SE``. With ``"cr1"`` the p-value is two-sided normal (Eq. 6). With ``"cr2"`` it is
    two-sided t: ``n - 1`` df paired without clusters (the paired t-test), Bell-McCaffrey df with
    clusters (see :func:`~evalstats_core.clustering.summarize`), and unpaired the Welch-Satterthwaite
    ``df = (SE_A^2 + SE_B^2)^2 / (SE_A^4/df_A + SE_B^4/df_B)`` (Welch 1947). Unpaired with clusters
    (two clustered samples, each model's clusters its own) the df is clubSandwich's for
    ``lm(y ~ model)`` with CR2: the same combination with the working model's variances ``1/n_A`` and
    ``1/n_B`` in place of the estimated ``SE^2`` (Pustejovsky & Tipton 2018, Eq. 11, for a block-diagonal
    design), where Welch's estimated form was up to 47% lower. At n = 10 the normal
    reference is optimistic: Atlas vs Breeze gives p = 0.031 with z, 0.059 with t(9).

    A zero SE with a non-zero difference (every shared question moved by the same amount) has no
    t statistic; the p-value is then the exact randomisation one: with ``G`` questions or clusters
    paired, ``2 / 2^G`` (for 5 of 5 vs 0 of 5 right: 0.0625, as exact McNemar); unpaired (both
    models constant), ``(1 + [n_a = n_b]) / binom(n_a + n_b, n_a)``.

    The cluster codes are computed once and each model's per-cluster residual sums once; the sums for
    the differences are their difference (sums are linear), so no third pass over the questions. 0/1
    scores are counted instead (ones per cluster, and one dot for the questions both got right): exact,
    and the same sums :func:`~evalstats_core.analysis.analyze` reads.

    References
    ----------
    Miller 2024, "Adding Error Bars to Evals", arXiv:2411.00640, Sec. 4.1-4.2, Eqs. 5-8.

    Examples
    --------
    >>> atlas = [0.83, 0.45, 0.72, 0.69, 0.91, 0.30, 0.67, 0.51, 0.80, 0.48]
    >>> breeze = [0.89, 0.58, 0.74, 0.56, 0.94, 0.35, 0.80, 0.59, 0.88, 0.53]
    >>> c = compare(atlas, breeze, method="cr1")       # the paper's z (seed 004)
    >>> round(c.diff, 3), round(c.se, 4), round(c.ci_low, 3), round(c.ci_high, 3), round(c.p_value, 3)
    (-0.05, 0.0232, -0.095, -0.005, 0.031)
    >>> round(c.se_unpaired, 4), round(c.correlation, 2)
    (0.0864, 0.93)
    >>> c = compare(atlas, breeze)                     # default: the paired t-test on 9 df
    >>> c.df, round(c.ci_low, 3), round(c.ci_high, 3), round(c.p_value, 3)
    (9.0, -0.102, 0.002, 0.059)
    """
    check_method(method)

    check_interval_rule(interval)
    level = check_confidence(confidence)
    xa, xb = float_scores(a, "a"), float_scores(b, "b")  # (n,), (n_b,) float64, views of float64 input
    n, n_b = xa.size, xb.size
    ones_a = ones_if_binary(xa)
    ones = (ones_a, None if ones_a is None else ones_if_binary(xb))
    binary = None not in ones  # 0/1 scores: everything from exact counts (as the sums of analyze)
    if not binary:
        ra, mean_a = centred(xa, "a")  # residuals (n,) and mean
        rb, mean_b = centred(xb, "b")  # residuals (n_b,) and mean
        ssa, ssb = float(ra @ ra), float(rb @ rb)
        plain = plainly_scaled([mean_a, mean_b], [(ssa, n), (ssb, n_b)])
        e = 0 if plain else rescale_exponent(ra, rb, [mean_a, mean_b])
        if e:  # huge or tiny scores: compute on x * 2^-e (exact) and scale back, never an SE of inf or 0
            return scaled(compare(np.ldexp(xa, -e), np.ldexp(xb, -e), clusters, paired=paired,
                                  confidence=confidence, method=method, interval=interval), e)
    for name, size in (("a", n), ("b", n_b)):
        if size < 2:
            raise EvalStatsError(
                f"{name} has {size} score(s): a standard error needs at least 2 questions; add questions"
            )
    if (paired or clusters is not None) and n != n_b:
        raise EvalStatsError(
            f"a has {n} scores but b has {n_b}: paired (or clustered) comparison needs the same questions "
            "in the same order; align them, or pass paired=False for two different question sets"
        )
    codes = sizes = None
    if clusters is not None:
        codes, n_clusters, sizes = codes_and_sizes(clusters, n)  # sizes (K,) n_g, empty bins 0
        check_n_clusters(n_clusters)
    if binary:
        return binary_comparison(xa, xb, ones, codes, sizes, paired=paired, confidence=level, method=method,
                                 interval=interval)
    cov = float(ra @ rb) if paired else math.nan
    sums_a = sums_b = np.zeros(1)
    m3 = None
    if clusters is not None:
        used = sizes > 0.0  # the df depend on the sizes only
        sizes = sizes[used]
        sums_a = np.bincount(codes, weights=ra, minlength=used.size)[used]  # (C,) per-cluster residual sums
        sums_b = np.bincount(codes, weights=rb, minlength=used.size)[used]
        ssd = math.nan  # not needed: the clustered SE of d comes from the cluster sums
    elif paired:
        rd = np.subtract(ra, rb, out=ra)  # ra is spent: d's residuals in its place, no new array
        ssd = float(rd @ rd)
        m3 = lambda: float(rd @ (rd * rd))  # noqa: E731  the pair rule's sample skewness of d, made only near a bound
    else:
        ssd = math.nan
    return comparison_from_moments((n, n_b), (mean_a, mean_b), (sums_a, sums_b), np.ones(1) if sizes is None else sizes,
                                   (ssa, ssb, ssd, cov), None, paired=paired, clustered=clusters is not None,
                                   confidence=level, method=method, interval=interval,
                                   m3_diff=m3,
                                   in_unit=InUnit(check=lambda: min(xa.min(), xb.min()) >= 0.0
                                                  and max(xa.max(), xb.max()) <= 1.0))  # asked only near a bound


@dataclass(frozen=True, slots=True)
class McNemar:
    """McNemar's test on the 2x2 agreement table of two models' right/wrong answers.

    Attributes
    ----------
    both : int
        Questions both models got right.
    only_a : int
        Questions only model A got right (the discordant cell ``b`` of the textbooks).
    only_b : int
        Questions only model B got right (cell ``c``).
    neither : int
        Questions both got wrong.
    statistic : float
        ``(only_a - only_b)^2 / (only_a + only_b)``, chi-square with 1 df, no continuity correction;
        ``nan`` when there are no discordant questions.
    p_value : float
        Upper tail of chi-square(1) at ``statistic`` (``nan`` with no discordant questions).
    p_exact : float
        Exact two-sided binomial p-value ``min(1, 2 P(X <= min(only_a, only_b)))``, ``X ~
        Bin(only_a + only_b, 1/2)``; 1.0 with no discordant questions. Prefer it when
        ``only_a + only_b`` is below about 25.
    """

    both: int
    only_a: int
    only_b: int
    neither: int
    statistic: float
    p_value: float
    p_exact: float

    @property
    def n(self) -> int:
        """Number of questions (the sum of the four cells)."""
        return self.both + self.only_a + self.only_b + self.neither

    @property
    def discordant(self) -> int:
        """Questions where exactly one model was right: the only ones that carry information."""
        return self.only_a + self.only_b


def mcnemar(a: Any, b: Any) -> McNemar:
    """McNemar's test that two models have the same accuracy, from their 0/1 scores on the same questions.

    Parameters
    ----------
    a, b : array_like of 0/1 (or bool), shape (n,)
        Per-question correctness of models A and B, same questions in the same order.

    Returns
    -------
    McNemar
        The four cells ``both, only_a, only_b, neither`` and ``statistic, p_value, p_exact``.

    Raises
    ------
    EvalStatsError
        Scores that are not all 0 or 1 (use :func:`compare`, the paired z-test, for partial credit),
        or unequal lengths.

    Notes
    -----
    Only the discordant questions carry information about which model is better:
    ``chi2 = (b - c)^2 / (b + c)`` with ``b = only_a``, ``c = only_b`` (McNemar 1947, Eq. 2, without
    the continuity correction, as in Miller 2024 ch. 4). It is the square of the paired z-test of
    :func:`compare` up to the variance estimate, so both usually agree. ``p_exact`` conditions on
    ``b + c`` and tests ``b ~ Bin(b + c, 1/2)`` (Agresti 2013, "Categorical Data Analysis", Sec. 11.1).

    Examples
    --------
    >>> r = mcnemar_from_counts(3000, 275, 150, 1575)
    >>> round(r.statistic, 2), r.p_value < 0.001
    (36.76, True)
    """
    xa = _binary(a, "a")
    xb = _binary(b, "b")
    if xa.size != xb.size:
        raise EvalStatsError(
            f"a has {xa.size} scores but b has {xb.size}: McNemar needs both models on the same questions"
        )
    n = xa.size
    both = int(np.count_nonzero(xa & xb))
    right_a, right_b = int(np.count_nonzero(xa)), int(np.count_nonzero(xb))
    return _mcnemar(both, right_a - both, right_b - both, n - right_a - right_b + both)


def mcnemar_from_counts(both: int, only_a: int, only_b: int, neither: int) -> McNemar:
    """McNemar's test from the four cells of the agreement table (see :func:`mcnemar`).

    Parameters
    ----------
    both, only_a, only_b, neither : int
        Counts of questions both right, only A right, only B right, both wrong (each >= 0).

    Examples
    --------
    >>> r = mcnemar_from_counts(both=3000, only_a=275, only_b=150, neither=1575)
    >>> r.discordant, round(r.statistic, 2)
    (425, 36.76)
    """
    cells = {"both": both, "only_a": only_a, "only_b": only_b, "neither": neither}
    for name, value in cells.items():
        check_positive_int(value, name, minimum=0)
    return _mcnemar(int(both), int(only_a), int(only_b), int(neither))


def _binary(values: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(values)
        if arr.dtype != np.bool_:
            arr = arr.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise EvalStatsError(f"{name} must be 0/1 scores (got {type(values).__name__}): {exc}") from None
    if arr.ndim != 1:
        raise EvalStatsError(
            f"{name} must be one-dimensional (got shape {arr.shape}); one score per question"
        )
    if arr.dtype == np.bool_:
        return arr
    is_one = arr == 1.0
    bad = ~(is_one | (arr == 0.0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise EvalStatsError(
            f"{name}[{i}] is {float(arr[i])!r}: McNemar's test needs 0/1 (right/wrong) scores; "
            "for partial credit or averaged resamples use compare(a, b), the paired test"
        )
    return is_one


def _mcnemar(both: int, only_a: int, only_b: int, neither: int, exact: bool = True) -> McNemar:
    """The McNemar cells and tests (``exact=False``: ``p_exact`` left nan, for a caller that does not report it)."""
    disc = only_a + only_b
    if disc == 0:
        statistic, p_value, p_exact = math.nan, math.nan, 1.0
    else:
        statistic = (only_a - only_b) ** 2 / disc  # McNemar 1947 / Miller ch. 4: (b-c)^2/(b+c)
        p_value = float(chdtrc(1.0, statistic))  # chi-square(1) upper tail
        p_exact = min(1.0, 2.0 * float(bdtr(min(only_a, only_b), disc, 0.5))) if exact else math.nan  # 2-sided
    return McNemar(both, only_a, only_b, neither, statistic, p_value, p_exact)
