"""Eq. 9 and Eq. 10 with t quantiles on the degrees of freedom the test will have (re-exported by
:mod:`evalstats_core.power`).

References
----------
Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640, Sec. 5 (Eq. 9, Eq. 10).
"""

from __future__ import annotations

import math

from scipy.special import stdtrit

from ._power_inputs import _plan_variance, _positive, _z_sum
from ._validate import check_probability

__all__ = ["mde_t", "sample_size_t"]


def sample_size_t(
    delta: float,
    *,
    omega2: float,
    sigma2_a: float = 0.0,
    sigma2_b: float = 0.0,
    k_a: float = 1,
    k_b: float = 1,
    alpha: float = 0.05,
    power: float = 0.8,
    df_per_question: float = 1.0,
) -> float:
    """Questions needed when the test will use t on the degrees of freedom the planned eval will have.

    Eq. 9 with the normal quantiles replaced by t quantiles on ``df(n) = max(1, df_per_question * n - 1)``,
    solved for the ``n`` that reproduces itself: ``n = (t_{alpha/2, df(n)} + t_{beta, df(n)})^2 V / delta^2``.
    ``df_per_question`` is 1 for the paired t-test (``df = n - 1``) and ``(df_pilot + 1) / n_pilot`` for a
    clustered eval that grows by more clusters like the pilot's (about ``G - 1`` df for ``G`` clusters).
    With few clusters z under-plans: a plan ending at 8-10 clusters delivered 67.5-74.5% power instead of
    80%; this one stays within a few points of its target (``tests/test_edges.py``).

    Examples
    --------
    >>> from evalstats_core.power import sample_size
    >>> math.ceil(sample_size_t(0.03, omega2=1/9)), math.ceil(sample_size(0.03, omega2=1/9))
    (971, 969)
    >>> math.ceil(sample_size_t(0.03, omega2=1.0, df_per_question=0.01))  # clusters of 100: 90 of them
    8918
    """

    d = float(_positive(delta, "delta", "it is the difference to detect, e.g. 0.03"))
    var = _plan_variance(omega2, sigma2_a, sigma2_b, k_a, k_b)
    rate = float(_positive(df_per_question, "df_per_question", "1 for independent questions"))
    a, p = check_probability(alpha, "alpha"), check_probability(power, "power")

    def needed(n: float) -> float:
        df = max(1.0, rate * n - 1.0)
        t = float(stdtrit(df, 1.0 - a / 2.0)) + float(stdtrit(df, p))
        return t * t * var / (d * d)

    lo = _z_sum(a, p) ** 2 * var / (d * d)  # z needs fewer: n - needed(n) < 0 here
    hi = needed(lo)
    for _ in range(200):  # n - needed(n) increases in n: bisect to its root
        mid = 0.5 * (lo + hi)
        if mid - needed(mid) < 0.0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-10 * hi:
            break
    return hi


def mde_t(n: float, *, omega2: float, sigma2_a: float = 0.0, sigma2_b: float = 0.0, k_a: float = 1,
          k_b: float = 1, alpha: float = 0.05, power: float = 0.8, df: float | None = None) -> float:
    """Eq. 10 with t quantiles on ``df`` (default ``n - 1``): the difference ``n`` questions detect.

    Examples
    --------
    >>> from evalstats_core.power import mde
    >>> round(mde_t(969, omega2=1/9), 4), round(mde(969, omega2=1/9), 4)
    (0.03, 0.03)
    """

    size = float(_positive(n, "n", "the number of questions"))
    var = _plan_variance(omega2, sigma2_a, sigma2_b, k_a, k_b)
    a, p = check_probability(alpha, "alpha"), check_probability(power, "power")
    dof = max(1.0, size - 1.0) if df is None else float(df)
    t = float(stdtrit(dof, 1.0 - a / 2.0)) + float(stdtrit(dof, p))
    return t * math.sqrt(var / size)
