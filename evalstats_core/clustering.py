"""One model's score with honest error bars, for independent or clustered questions.

=========================  ==========================================================================
:func:`summarize`          mean, standard error (CLT, or cluster-robust CR2 / CR1), interval, design effect
:func:`icc`                intra-cluster correlation (one-way ANOVA estimator, unequal sizes handled)
:func:`design_effect`      the planning formula ``1 + (m - 1) * rho``
:func:`effective_n`        ``n / deff``: how many independent questions the eval is worth
:func:`cluster_bootstrap_ci`  percentile interval from resampling whole clusters
=========================  ==========================================================================

Use :func:`summarize` for every reported score: with ``clusters=None`` it gives the CLT standard error
(right for independent questions, binary or not); with cluster labels (passage, language, conversation)
it gives the clustered one. The default ``method="cr2"`` pairs the bias-reduced CR2 standard error with a
t reference on Bell-McCaffrey (Satterthwaite) degrees of freedom, which keeps its level with few or
unequal clusters and few questions; ``method="cr1"`` gives the paper's numbers (CR1 or CLT SE, normal
interval). Use :func:`~evalstats_core.wild.wild_cluster_bootstrap` for a second opinion when there are
few clusters, and :func:`icc` / :func:`design_effect` to plan a clustered eval.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._clusters import (
    centred,
    check_method,
    check_n_clusters,
    cluster_codes,
    codes_and_sizes,
    float_scores,
    ones_if_binary,
    plainly_scaled,
    rescale_exponent,
    scores_1d,
)
from ._estimate import binary_model, scaled, summary_from_moments
from ._in_unit import NOT_IN_UNIT, InUnit
from ._results import Summary
from ._validate import check_confidence
from .cluster_bootstrap import BootstrapCI, _cluster_totals, cluster_bootstrap_ci  # re-exported (moved)
from .errors import EvalStatsError

__all__ = [
    "Summary",
    "summarize",
    "icc",
    "design_effect",
    "effective_n",
    "BootstrapCI",
    "cluster_bootstrap_ci",
]


#: ``interval`` choices of :func:`summarize` and :func:`~evalstats_core.comparison.compare`: ``"auto"``
#: (the rule of :mod:`~evalstats_core.proportions` for 0/1 scores, t otherwise) or ``"normal"`` (the raw
#: ``estimate -/+ t(df) se``, or z with ``method="cr1"``).
INTERVAL_RULES = ("auto", "normal")


def check_interval_rule(interval: str) -> str:
    """``interval`` if it is ``"auto"`` or ``"normal"``, else an EvalStatsError naming both."""
    if interval not in INTERVAL_RULES:
        raise EvalStatsError(f"interval ({interval!r}) must be 'auto' (score / exact intervals for 0/1 scores "
                             "where t under-covers) or 'normal' (the raw t, or z, interval)")
    return interval


def summarize(scores: Any, clusters: Any = None, *, confidence: float = 0.95, method: str = "cr2",
              interval: str = "auto") -> Summary:
    """Mean score with a (cluster-robust) standard error and a t (or normal) confidence interval.

    Parameters
    ----------
    scores : array_like, shape (n,)
        One score per question (0/1, partial credit, or a mean over K resamples). Finite, ``n >= 2``.
    clusters : array_like, shape (n,), optional
        A cluster label per question (any hashable values: ints, strings). Questions that share a
        label were sampled together (same passage, same source question in another language, same
        conversation). ``None`` (default) treats questions as independent.
    confidence : float, default 0.95
        Confidence level of the interval.
    method : {"cr2", "cr1"}, default "cr2"
        ``"cr2"``: CR2 standard error (the CLT one without clusters) and a t interval on Bell-McCaffrey
        degrees of freedom (``n - 1`` without clusters: the one-sample t interval). ``"cr1"``: the
        paper's CR1 (or CLT) standard error with a normal interval (Miller 2024, Eqs. 1-4).
    interval : {"auto", "normal"}, default "auto"
        ``"auto"`` with ``method="cr2"`` and 0/1 scores: Wilson's interval (independent questions) or
        Korn & Graubard's effective-n Clopper-Pearson interval (clusters) when the expected number of
        failures is below 100 (see :func:`~evalstats_core.proportions.binary_mean_interval`), so the
        interval stays inside [0, 1] and holds its level near 0% and 100%; t otherwise. With clusters holding
        under two clusters' worth of information (two clusters, or one holding most questions; Kish's
        effective number of clusters below 2) any scores get at least the cluster means' interval
        (``interval="cluster-means"``, :mod:`~evalstats_core.cluster_means`).
        ``"normal"``: always ``mean -/+ t(df) se`` (the raw interval; it can leave [0, 1]). With
        ``method="cr1"`` (the paper's numbers) the interval is always the normal one.

    Returns
    -------
    Summary
        ``n, n_clusters, mean, se, ci_low, ci_high, se_naive, deff, n_eff, df, method`` (see
        :class:`Summary`).

    Raises
    ------
    EvalStatsError
        Fewer than 2 scores, non-finite scores, labels of the wrong length or missing, only one
        cluster, a bad ``confidence`` or ``method``.

    Warns
    -----
    EvalStatsWarning
        Few clusters: below 30 with ``"cr1"`` (its SE is then biased downward); below 10 with
        ``"cr2"`` (the interval holds its level but is wide).

    Notes
    -----
    Without clusters, ``se = sqrt( sum_i (s_i - s_bar)^2 / (n (n - 1)) )`` (Miller 2024, Eq. 1); for
    0/1 scores this is the Bernoulli SE times ``sqrt(n / (n - 1))``.

    With ``C`` clusters and ``method="cr1"``, ``se = sqrt( C/(C-1) * sum_c S_c^2 ) / n`` with ``S_c``
    the cluster's sum of residuals: the CR1 sandwich estimator, equal to the cluster-robust SE of an
    OLS fit on a constant (Stata's and statsmodels' ``cov_type="cluster"``). Miller's Eq. 4 is the
    same sandwich with the ``n/(n-1)`` correction applied to the within-question terms only; we use
    the standard ``C/(C-1)`` factor, which also makes singleton clusters reproduce the CLT SE exactly.

    With ``method="cr2"`` (default), ``se^2 = sum_c S_c^2 / (1 - n_c/n) / n^2`` (Bell & McCaffrey
    2002) and the interval uses t with Satterthwaite degrees of freedom
    ``df = 1 / (sum_c a_c^2 f_c^2 (1 - 2 f_c) + (sum_c a_c f_c^2)^2)``, ``f_c = n_c/n``,
    ``a_c = 1/(1 - f_c)`` (Pustejovsky & Tipton 2018, Eq. 11, for a constant). CR1 with a normal
    reference over-rejects with few or unequal clusters (a 95% interval covered 77% with 12
    clusters of very unequal size); CR2 + Satterthwaite keeps close to 95% (Imbens & Kolesar 2016).
    The values equal R's ``clubSandwich::coef_test(lm(y ~ 1), vcov = "CR2", cluster = g)``.

    Use clusters whenever questions were sampled in groups (Abadie et al. 2023): the naive SE can be
    several times too small (DROP: 3x). The design effect ``deff`` says by how much the variance grew.

    References
    ----------
    Miller 2024, "Adding Error Bars to Evals", arXiv:2411.00640, Eqs. 1, 3, 4 and Appendix A.
    Cameron & Miller 2015, "A Practitioner's Guide to Cluster-Robust Inference", J. Human Resources
    50(2), Sec. IIC (CR1) and Sec. VI (few clusters).
    Bell & McCaffrey 2002, Survey Methodology 28(2), 169-181 (CR2, Satterthwaite df).
    Imbens & Kolesar 2016, Rev. Econ. Stat. 98(4), 701-712.
    Pustejovsky & Tipton 2018, J. Business & Economic Statistics 36(4), 672-683.

    Examples
    --------
    >>> atlas = [0.83, 0.45, 0.72, 0.69, 0.91, 0.30, 0.67, 0.51, 0.80, 0.48]
    >>> s = summarize(atlas, method="cr1")           # the paper's normal interval (seed 004)
    >>> round(s.mean, 3), round(s.se, 4), round(s.ci_low, 3), round(s.ci_high, 3)
    (0.636, 0.0613, 0.516, 0.756)
    >>> s = summarize(atlas)                         # default: t interval on n - 1 = 9 df
    >>> s.df, round(s.ci_low, 3), round(s.ci_high, 3)
    (9.0, 0.497, 0.775)
    >>> s = summarize([1, 1, 0, 0, 1, 0], ["p1", "p1", "p2", "p2", "p3", "p3"], method="cr1")
    >>> s.n_clusters, round(s.deff, 2)
    (3, 1.67)
    """
    check_method(method)
    check_interval_rule(interval)
    level = check_confidence(confidence)
    arr = float_scores(scores, "scores")  # (n,) float64, a view of float64 input
    ones = ones_if_binary(arr)
    if ones is None:  # else 0/1 scores: exact counts per cluster (as the sums of analyze), no residuals
        resid, mean = centred(arr, "scores")  # (n,) residuals s_i - mean
        ss = float(resid @ resid)
        e = 0 if plainly_scaled([mean], [(ss, resid.size)]) else rescale_exponent(resid, [mean])
        if e:  # huge or tiny scores: compute on x * 2^-e (exact) and scale back, never an SE of inf or 0
            return scaled(summarize(np.ldexp(arr, -e), clusters, confidence=confidence, method=method,
                                    interval=interval), e)
    n = arr.size
    if n < 2:
        raise EvalStatsError(
            f"scores has {n} value(s): a standard error needs at least 2 questions; add more questions"
        )
    codes = sizes = None
    if clusters is not None:
        codes, n_clusters, sizes = codes_and_sizes(clusters, n)  # sizes (K,) n_g, empty bins 0
        check_n_clusters(n_clusters)
    if ones is not None:
        n, mean, sums, sizes, ss = binary_model(arr, ones, codes, sizes)
    elif codes is None:
        sums, sizes = np.zeros(1), np.ones(1)
    else:
        sums = np.bincount(codes, weights=resid, minlength=sizes.size)  # (K,) per-cluster residual sums S_g
        used = sizes > 0.0
        sizes, sums = sizes[used], sums[used]
    in_unit = NOT_IN_UNIT  # 0/1 scores take their own rules
    if ones is None and codes is not None:
        in_unit = InUnit(0.0 <= float(arr.min()) and float(arr.max()) <= 1.0)
    elif ones is None:  # checked only near a bound (bounded_mean_t_interval)
        in_unit = InUnit(check=lambda: 0.0 <= float(arr.min()) and float(arr.max()) <= 1.0)
    return summary_from_moments(n, mean, sums, sizes, ss, binary=ones is not None, clustered=clusters is not None,
                                confidence=level, method=method, interval=interval, in_unit=in_unit)


def icc(scores: Any, clusters: Any) -> float:
    """Intra-cluster correlation of the scores: the one-way ANOVA estimator.

    Parameters
    ----------
    scores : array_like, shape (n,)
        One score per question, finite.
    clusters : array_like, shape (n,)
        A cluster label per question (any hashable values); at least 2 clusters.

    Returns
    -------
    float
        ``rho_hat`` in ``[-1/(n0 - 1), 1]``; ``nan`` when every cluster has one question (no
        within-cluster spread to compare) or all scores are equal.

    Notes
    -----
    With ``C`` clusters of sizes ``n_g``, means ``ybar_g`` and overall mean ``ybar``::

        MSB = sum_g n_g (ybar_g - ybar)^2 / (C - 1)
        MSW = sum_g sum_i (y_ig - ybar_g)^2 / (n - C)
        n0  = (n - sum_g n_g^2 / n) / (C - 1)          # "average" size for unequal clusters
        rho = (MSB - MSW) / (MSB + (n0 - 1) MSW)

    It is not clipped: a negative value (clusters more alike than chance) is reported as it is; clip
    at 0 yourself if you plan with it. Use it to plan a clustered eval through
    :func:`design_effect`; to report one, use ``summarize(...).deff``, which needs no model.

    References
    ----------
    Snedecor & Cochran 1989, "Statistical Methods", 8th ed., Sec. 13.7 (n0 for unequal sizes);
    Donner & Koval 1980, Biometrics 36(1), Eq. 2.
    """
    resid, _ = scores_1d(scores, "scores")  # (n,)
    n = resid.size
    codes, n_clusters = cluster_codes(clusters, n)
    check_n_clusters(n_clusters)
    sizes, sums = _cluster_totals(codes, resid)  # (C,) each
    ss_between = float(sums @ (sums / sizes))  # sum_g n_g (ybar_g - ybar)^2
    ss_within = max(0.0, float(resid @ resid) - ss_between)
    if n == n_clusters:
        return math.nan
    msb = ss_between / (n_clusters - 1)
    msw = ss_within / (n - n_clusters)
    n0 = (n - float(sizes @ sizes) / n) / (n_clusters - 1)  # Snedecor & Cochran n0
    denom = msb + (n0 - 1.0) * msw
    return (msb - msw) / denom if denom > 0.0 else math.nan  # one-way ANOVA ICC


def design_effect(cluster_size: float, icc: float) -> float:
    """Planning design effect ``1 + (m - 1) * rho`` of clusters of ``m`` questions with ICC ``rho``.

    Parameters
    ----------
    cluster_size : float
        Questions per cluster ``m >= 1`` (the mean size, or ``n0`` of :func:`icc`, when sizes vary).
    icc : float
        Intra-cluster correlation ``rho``, between ``-1/(m-1)`` and 1.

    Returns
    -------
    float
        How many times the variance of the mean exceeds the independent-question variance.

    Notes
    -----
    Kish 1965, "Survey Sampling", Sec. 5.4 (Eq. 5.4.2); Miller 2024 ch. 3 uses it to explain why DROP's
    clustered SE is 3x the naive one. For a measured design effect use ``summarize(...).deff``.

    Examples
    --------
    >>> round(design_effect(50, 0.04), 2)
    2.96
    """
    m, rho = float(cluster_size), float(icc)
    if not (math.isfinite(m) and m >= 1.0):
        raise EvalStatsError(f"cluster_size ({cluster_size!r}) must be a number >= 1 (questions per cluster)")
    if not (math.isfinite(rho) and -1.0 <= rho <= 1.0):
        raise EvalStatsError(f"icc ({icc!r}) must be a correlation between -1 and 1")
    deff = 1.0 + (m - 1.0) * rho  # Kish Eq. 5.4.2
    if deff <= 0.0:
        raise EvalStatsError(
            f"icc ({icc!r}) is too negative: below -1/(m-1) = {-1 / (m - 1):.4g} for clusters of {m:g}, "
            "which is impossible; use a larger icc"
        )
    return deff


def effective_n(n: float, deff: float) -> float:
    """Effective number of independent questions ``n / deff`` (Kish 1965, Sec. 8.2).

    >>> effective_n(9622, 9.3)
    1034.6236559139784
    """
    n, deff = float(n), float(deff)
    if not (math.isfinite(n) and n > 0):
        raise EvalStatsError(f"n ({n!r}) must be a positive number of questions")
    if not (math.isfinite(deff) and deff > 0):
        raise EvalStatsError(f"deff ({deff!r}) must be a positive finite design effect")
    return n / deff
