"""One model's mean over two clusters: the interval that rests on the two cluster means alone.

With two clusters CR2's standard error has one degree of freedom, which is right, but its variance is
unbiased only when questions are independent; when the clusters differ (an ICC) the two means vary alike
and with unequal shares CR2 is far too small (0.22x the variance at 90% / 10%). :func:`two_cluster_ci`
is exact for two normal cluster means of equal variance and contains CR2's t interval;
:func:`evalstats_core.proportions.binary_mean_interval` uses it for 0/1 scores in two clusters.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._results import Interval
from ._validate import check_confidence
from .errors import EvalStatsError

__all__ = ["two_cluster_ci"]


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
