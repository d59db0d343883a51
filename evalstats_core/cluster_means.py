"""One model's mean when the file holds fewer than two clusters' worth of information: the cluster means' interval.

=================================  ===================================================================
:func:`few_clusters_worth`         True when Kish's effective number of clusters ``(sum n_g)^2 / sum n_g^2``
                                   is below :data:`CLUSTERS_WORTH` (or there are two clusters)
:func:`cluster_means_q`            the exact quantile of the cluster means' statistic for these shares
:func:`cluster_means_ci`           ``mean -/+ q sqrt(sum f_g^2) sd(m_g)``, vectorised over files
:func:`logit_cluster_means_ci`     the same interval on the empirical-logit scale (0/1 scores)
:func:`two_cluster_ci`             the same with two clusters in closed form, from the mean and CR2's SE alone
=================================  ===================================================================

Why. CR2's variance is unbiased when questions are independent; when clusters differ (an ICC) and one
cluster holds most of the questions, the cluster means vary alike and CR2 is far too small: with
970 + 10 + 10 + 10 questions its t interval covered 84-91% (0/1 scores; 79-86% for partial credit), with
990 + 10 partial-credit scores 62-75%. The cluster means' interval is exact at the other end (cluster
means normal with equal variance, whatever the shares), and the default takes at least both. For 0/1
scores near the ceiling the cluster accuracies are J-shaped and only the logit scale sees how far the mean
may be (990 + 10 at 80% and ICC 0.3: 89.4% on the raw scale, 99.0% with the logit one).

Measured (``bench/bench_cluster_means.py``, ``bench/results/edge_cluster_means_*.txt``, the same draws
for old and new): for 0/1 scores on 2, 900 + 100, 990 + 10, 900 + 50 + 50 (10,000 draws) and
970 + 10 x 3, 700 + 200 + 100, 900 + 10 x 10 (3,000), ICC 0.05-0.3, accuracy 50-99%, the default covers
at least 95.1% (the old one down to 85.7%); its median width over the designs is 1.00x (10,000 draws)
and 1.07x (3,000) the old one's, up to 2.4x where the old one already covered 99%. For partial credit at
50% it covers 93.0-100% on the unequal designs (CR2 t 70-96%; two equal clusters: t on 1 df, 92.8-95.3%),
at 1.7x (900 + 100) to 5x (990 + 10) t's width; at 80% with ICC >= 0.2 and at 95% neither covers 93%
(the skewed cluster means of a bounded score: not fixed here).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np
from scipy.special import expit, roots_jacobi, stdtr

from ._results import Interval
from ._validate import check_confidence
from .errors import EvalStatsError

__all__ = ["CLUSTERS_WORTH", "cluster_means_ci", "cluster_means_q", "few_clusters_worth", "logit_cluster_means_ci",
           "two_cluster_ci"]

#: Below this many effective clusters (Kish's ``(sum n_g)^2 / sum n_g^2``), "fewer than two clusters'
#: worth of information", the default interval is at least the cluster means' one.
CLUSTERS_WORTH = 2.0

_JACOBI_NODES = 48  # Gauss-Jacobi nodes for the direction cosine: exact to 1e-13 against t and Cauchy


def few_clusters_worth(sizes: Any) -> bool:
    """True when the clusters hold fewer than two clusters' worth of information, or there are two.

    Kish's effective number of clusters ``(sum n_g)^2 / sum n_g^2`` (Kish 1965, Sec. 11.7) is below
    :data:`CLUSTERS_WORTH`: one cluster holds so many questions that what varies between clusters rests
    on about one of them. Two equal clusters (exactly 2) are included: their interval is then CR2's t on 1 df.

    Examples
    --------
    >>> few_clusters_worth([900, 100]), few_clusters_worth([500, 500]), few_clusters_worth([900, 50, 50])
    (True, True, True)
    >>> few_clusters_worth([300, 300, 300]), few_clusters_worth([400, 100, 50, 50, 30, 20, 10, 5])
    (False, False)
    """
    s = np.asarray(sizes, dtype=np.float64)
    s = s[s > 0]
    return s.size == 2 or (s.size > 2 and kish_n(s) < CLUSTERS_WORTH)


@lru_cache(maxsize=256)
def _q(shares: tuple[float, ...], level: float) -> float:
    from scipy.optimize import brentq  # heavy: scipy.optimize, only for two clusters of unequal size

    f = np.asarray(shares)
    g = f.size
    c = math.sqrt(float(np.sum((f - 1.0 / g) ** 2)))  # the shares' part orthogonal to equal weights
    if g == 2:
        x, wx = np.array([-1.0, 1.0]), np.array([0.5, 0.5])
    else:
        b = (g - 4) / 2.0  # the direction cosine of a uniform direction in g - 1 dimensions
        x, wx = roots_jacobi(_JACOBI_NODES, b, b)
        wx = wx / wx.sum()
    r = math.sqrt((g - 1) * g)

    def cover(k: float) -> float:
        return float((stdtr(g - 1, (k - c * x) * r) - stdtr(g - 1, -(k + c * x) * r)) @ wx) - level

    k = brentq(cover, 1e-9, 1e9, xtol=1e-14, rtol=1e-14)
    return k * math.sqrt(g - 1) / math.sqrt(float(f @ f))


def cluster_means_q(sizes: Any, *, confidence: float = 0.95) -> float:
    """The two-sided quantile ``q`` of ``T = (m - mu) / (sqrt(sum f_g^2) sd(m_g))`` for these cluster sizes.

    ``m = sum f_g m_g`` (``f_g = n_g / n``) and ``sd`` the unweighted standard deviation of the ``G``
    cluster means (ddof 1). For cluster means ``m_g = mu + e_g`` with ``e_g`` independent normal of
    equal variance ``T`` is pivotal and ``P(|T| <= q) = confidence`` exactly: ``t_{G-1}``'s quantile with
    equal shares, the two cluster means' closed form (:func:`two_cluster_ci`)
    with two.

    Notes
    -----
    With ``e = u_0 1/sqrt(G) + e_perp`` and ``D = |e_perp|``, ``x`` the cosine between ``e_perp`` and
    ``f - 1/G``: ``f . e = u_0 / sqrt(G) + c D x`` (``c = |f - 1/G|``) and ``(G - 1) sd^2 = D^2``, so
    ``P(|f . e| <= k D | x) = F(sqrt(G (G-1)) (k - c x)) - F(-sqrt(G (G-1)) (k + c x))`` with ``F``
    Student's t on ``G - 1`` df (``u_0 sqrt(G - 1) / D``), averaged over ``x``, whose density is
    ``(1 - x^2)^((G-4)/2)`` (Gauss-Jacobi), and ``q = k sqrt(G - 1) / |f|``.

    Examples
    --------
    >>> round(cluster_means_q([10, 10, 10]), 4), round(cluster_means_q([900, 50, 50]), 4)
    (4.3027, 3.0219)
    """
    level = check_confidence(confidence)
    s = np.asarray(sizes, dtype=np.float64)
    s = s[s > 0]
    if s.size < 2:
        raise EvalStatsError("the cluster means' interval needs at least two non-empty clusters")
    return _q(tuple((s / s.sum()).tolist()), level)


def cluster_means_ci(mean: Any, cluster_means: Any, sizes: Any, *, confidence: float = 0.95,
                     bounds: tuple[float, float] | None = None) -> Interval:
    """``mean -/+ q sqrt(sum f_g^2) sd(m_g)``: the interval resting on the cluster means alone.

    Parameters
    ----------
    mean : float or array_like, shape (reps,)
        The question-weighted mean ``sum f_g m_g``.
    cluster_means : array_like, shape (G,) or (reps, G)
        The cluster means ``m_g``.
    sizes : array_like, shape (G,)
        Questions in each cluster (all non-empty).
    confidence : float, default 0.95
    bounds : (low, high), optional
        Clip the interval to the scale (``(0, 1)`` for 0/1 scores).

    Notes
    -----
    Exact when the cluster means are normal with equal variance (an ICC that dominates the within-cluster
    noise), whatever the shares (:func:`cluster_means_q`); wider than needed when small clusters are
    noisier. With two clusters it is :func:`two_cluster_ci`.

    References
    ----------
    Kish 1965, "Survey Sampling", Sec. 11.7 (the effective number of clusters).
    Bell & McCaffrey 2002, Survey Methodology 28(2), 169-181 (CR2, exact only for independent questions).
    Johnson, Kotz & Balakrishnan 1995, "Continuous Univariate Distributions" vol. 2, ch. 28 (Student's t
    as a normal over an independent chi).

    Examples
    --------
    >>> [round(v, 4) for v in cluster_means_ci(0.5, [0.498, 0.518], [900, 100])]  # two_cluster_ci's
    [0.3724, 0.6276]
    >>> [round(v, 3) for v in cluster_means_ci(0.948, [0.95, 0.92, 0.94], [900, 50, 50], bounds=(0, 1))]
    [0.906, 0.99]
    """
    sz = np.asarray(sizes, dtype=np.float64)
    if np.any(sz <= 0):
        raise EvalStatsError("cluster_means_ci needs the sizes of non-empty clusters")
    f = sz / sz.sum()
    q = cluster_means_q(sz, confidence=confidence)
    half = q * math.sqrt(float(f @ f)) * np.std(np.asarray(cluster_means, dtype=np.float64), axis=-1, ddof=1)
    m = np.asarray(mean, dtype=np.float64)
    low, high = m - half, m + half
    if bounds is not None:
        low, high = np.maximum(low, bounds[0]), np.minimum(high, bounds[1])
    if low.ndim == 0:
        return Interval(float(low), float(high))
    return Interval(low, high)


def logit_cluster_means_ci(successes: Any, sizes: Any, *, confidence: float = 0.95) -> Interval:
    """The cluster means' interval on the empirical-logit scale, for 0/1 scores: inside (0, 1).

    ``expit(L -/+ q sqrt(sum f_g^2) sd(l_g))`` with ``l_g = log((x_g + 1/2) / (n_g - x_g + 1/2))`` (the
    empirical logit of cluster ``g``'s ``x_g`` right answers out of ``n_g``, Cox 1970) and ``L`` the same
    of the whole file. Near 0% or 100% cluster accuracies are skewed (most clusters near the bound, a
    few far from it) and their spread on the raw scale understates how far the mean may be; on the logit
    scale they are closer to normal. ``successes`` may be ``(reps, G)``.

    References
    ----------
    Cox 1970, "The Analysis of Binary Data", Methuen, Sec. 3.2 (the empirical logistic transform).

    Examples
    --------
    >>> [round(v, 3) for v in logit_cluster_means_ci([855, 46, 47], [900, 50, 50])]
    [0.889, 0.976]
    """
    x = np.asarray(successes, dtype=np.float64)
    sz = np.asarray(sizes, dtype=np.float64)
    f = sz / sz.sum()
    q = cluster_means_q(sz, confidence=confidence)
    lg = np.log((x + 0.5) / (sz - x + 0.5))
    total = x.sum(axis=-1)
    centre = np.log((total + 0.5) / (sz.sum() - total + 0.5))
    half = q * math.sqrt(float(f @ f)) * np.std(lg, axis=-1, ddof=1)
    low, high = expit(centre - half), expit(centre + half)
    if np.ndim(low) == 0:
        return Interval(float(low), float(high))
    return Interval(low, high)


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


# One model's mean over two clusters: the interval that rests on the two cluster means alone.
#
# With two clusters CR2's standard error has one degree of freedom, which is right, but its variance is
# unbiased only when questions are independent; when the clusters differ (an ICC) the two means vary alike
# and with unequal shares CR2 is far too small (0.22x the variance at 90% / 10%). two_cluster_ci
# is exact for two normal cluster means of equal variance and contains CR2's t interval;
# :func:`evalstats_core.proportions.binary_mean_interval` uses it for 0/1 scores in two clusters.
# (two_clusters.py until issue 38 merged it here: the cluster means' interval with two clusters, in closed form.)


def two_cluster_ci(mean: Any, se: Any, sizes: Any, *, confidence: float = 0.95) -> Interval:
    """The interval for a mean over two clusters that rests on the two cluster means alone.

    ``mean -/+ q |m_1 - m_2|``, clipped to [0, 1], with ``|m_1 - m_2| = se / sqrt(f_1 f_2)`` (the CR2
    standard error of two clusters with shares ``f_g = n_g / n`` is ``sqrt(f_1 f_2) |m_1 - m_2|``) and
    ``q = (1/T + sqrt(1/T^2 + 4 b^2 + 1)) / 2``, ``T = tan(pi (1 - confidence))``, ``b = (f_1 - f_2) / 2``:
    the exact quantile of ``|f_1 e_1 + f_2 e_2| / |e_1 - e_2|`` for independent normal errors of equal
    variance (``b sign(U) + C / 2`` with ``C`` standard Cauchy), i.e. two cluster means that vary
    alike. With equal shares it is CR2's own ``t_1`` interval; with 90% / 10% it is 1.67x as wide.

    Parameters
    ----------
    mean, se : float or array_like
        The question-weighted mean and its CR2 standard error (arrays for many files).
    sizes : array_like, shape (2,)
        Questions in each of the two clusters.
    confidence : float, default 0.95

    Notes
    -----
    Why. CR2's variance is unbiased when questions are independent (cluster means with variances
    ``~ 1 / n_g``) and its one degree of freedom is right, but when the clusters differ (an ICC) two
    large clusters' means vary alike and its expectation is ``2 f_1 f_2 / (f_1^2 + f_2^2)`` of the true
    variance: 0.22 at 90% / 10%, where CR2 t covered 88.5-91.3% and Korn & Graubard's effective n
    (``p (1 - p) / se^2``, too large by the same factor) 91-95%. Over variances between those two cases
    (``v_2 / v_1`` from 1 to ``n_1 / n_2``) the equal-variance ``q`` is the widest one needed.

    References
    ----------
    Bell & McCaffrey 2002, "Bias reduction in standard errors for linear regression with multi-stage
    samples", Survey Methodology 28(2), 169-181 (CR2 and its working model).
    Johnson, Kotz & Balakrishnan 1994, "Continuous Univariate Distributions" vol. 1, ch. 16 (the ratio
    of two normals: Cauchy).

    Examples
    --------
    >>> [round(v, 4) for v in two_cluster_ci(0.5, 0.01, [900, 100])]  # |m_1 - m_2| = 1/30
    [0.2874, 0.7126]
    >>> [round(v, 4) for v in two_cluster_ci(0.5, 0.01, [500, 500])]  # 0.5 -/+ t_1 0.01
    [0.3729, 0.6271]
    """
    level = check_confidence(confidence)
    sz = np.asarray(sizes, dtype=np.float64)
    if sz.shape != (2,) or np.any(sz <= 0):
        raise EvalStatsError("two_cluster_ci needs the sizes of exactly two non-empty clusters")
    f1 = float(sz[0] / sz.sum())
    inv_t = 1.0 / math.tan(math.pi * (1.0 - level))
    q = 0.5 * (inv_t + math.sqrt(inv_t * inv_t + (2.0 * f1 - 1.0) ** 2 + 1.0))  # 4 b^2 = (f_1 - f_2)^2
    half = q * np.asarray(se, dtype=np.float64) / math.sqrt(f1 * (1.0 - f1))
    m = np.asarray(mean, dtype=np.float64)
    low, high = np.maximum(m - half, 0.0), np.minimum(m + half, 1.0)
    if low.ndim == 0:
        return Interval(float(low), float(high))
    return Interval(low, high)
