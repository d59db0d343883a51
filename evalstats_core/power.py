"""Power analysis for comparing two models: how many questions, and what effect they can detect.

Every function plans a *paired* comparison (both models answer the same questions) whose noise per
question is ``V = omega2 + sigma2_a/k_a + sigma2_b/k_b``: ``omega2`` the variance of the question-level
difference of conditional means, ``sigma2_*`` each model's mean conditional variance, ``k_*`` the answers
averaged per question.

===========================  ===================================================================
``sample_size``              questions needed to detect ``delta`` (Eq. 9), unrounded
``mde``                      the minimum detectable effect at ``n`` questions (Eq. 10)
``power_at``                 power of the two-sided test at ``n`` and ``delta`` (vectorised)
``power_curve``              power over a grid of ``n``, with the required ``n`` marked
``sample_size_t``, ``mde_t`` Eq. 9 and 10 with t quantiles on the test's df (:mod:`.power_t`)
``clustered_sample_size``    Eq. 9 with omega2 inflated by a design effect (Appendix C)
``clustered_mde``            Eq. 10 with the same design effect
``omega2_from``              ``Var(x_A) + Var(x_B) - 2 rho sqrt(Var(x_A) Var(x_B))``
``PRESETS``                  the paper's worked scenarios, as keyword arguments
===========================  ===================================================================

To estimate omega2, sigma2_a and sigma2_b from two models' pilot scores, see :mod:`evalstats_core.pilot`.

References
----------
Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640, Sec. 5 (Eq. 9, Eq. 10),
Appendix B (derivation) and Appendix C (clustered questions).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from ._power_inputs import _plan_variance, _positive, _z_sum
from ._results import scalar_or_array as _out
from ._validate import check_finite as _finite
from ._validate import check_probability
from .clustering import design_effect
from .errors import EvalStatsError
from .power_t import mde_t, sample_size_t

__all__ = [
    "PRESETS",
    "PowerCurve",
    "clustered_mde",
    "clustered_sample_size",
    "mde",
    "omega2_from",
    "sample_size_t",
    "mde_t",
    "power_at",
    "power_curve",
    "sample_size",
]

#: The paper's worked scenarios (Miller 2024, Sec. 5). ``omega2 = 1/9`` is what U[0, 1] scores for both
#: models give at correlation 1/3: ``omega2_from(1/12, 1/12, 1/3) == 1/9``. (The text says "correlation
#: 0.5", which would give 1/12; its own "from 1/6 to 1/9, a 1/3 reduction" in Sec. 4.2 needs 1/3.)
PRESETS: MappingProxyType[str, MappingProxyType[str, float]] = MappingProxyType(
    {
        # n = 969 questions to detect delta = 0.03 (next-token probabilities: no conditional variance)
        "continuous": MappingProxyType({"omega2": 1 / 9, "sigma2_a": 0.0, "sigma2_b": 0.0}),
        # binary answers, U[0, 1] difficulty: E[sigma^2] = E[x(1-x)] = 1/6; MDE 13.3% at n = 198, K = 1
        "binary": MappingProxyType({"omega2": 1 / 9, "sigma2_a": 1 / 6, "sigma2_b": 1 / 6}),
    }
)


def sample_size(
    delta: float,
    *,
    omega2: float,
    sigma2_a: float = 0.0,
    sigma2_b: float = 0.0,
    k_a: float = 1,
    k_b: float = 1,
    alpha: float = 0.05,
    power: float = 0.8,
) -> float:
    """Number of questions needed to detect a difference ``delta`` between two models (Eq. 9).

    Parameters
    ----------
    delta : float (or array of float)
        The smallest true difference in mean score worth detecting (e.g. 0.03 for 3 points); > 0.
    omega2 : float
        ``Var(x_A - x_B) = Var(x_A) + Var(x_B) - 2 Cov(x_A, x_B)``: how much the two models' conditional
        means differ question to question (see :func:`omega2_from`,
        :func:`evalstats_core.pilot.pilot_estimates`).
    sigma2_a, sigma2_b : float, default 0
        Mean conditional variances E[sigma^2] of each model (0 for next-token probabilities; E[x(1-x)]
        for binary answers).
    k_a, k_b : float, default 1
        Answers per question averaged for each model (>= 1).
    alpha : float, default 0.05
        Size of the two-sided test (false-positive rate).
    power : float, default 0.8
        Probability of a significant result when the true difference is ``delta``.

    Returns
    -------
    float
        The unrounded number of questions; round up (``math.ceil``) to plan.

    Notes
    -----
    *Power* is the chance that an experiment detects an effect that is really there: here, that the
    paired z-test on the question-level differences rejects "no difference" at level ``alpha`` when the
    models truly differ by ``delta``. Eq. 9 of Miller (2024)::

        n = (z_{alpha/2} + z_beta)^2 (omega2 + sigma2_a/k_a + sigma2_b/k_b) / delta^2

    with ``z_q`` the upper-q normal quantile. It counts the near rejection tail only (Appendix B), so
    the power it delivers is a hair above ``power``. Worked example: ``delta = 0.03``, ``omega2 = 1/9``,
    no conditional variance, gives 968.997, i.e. **969** questions, the paper's number. (The
    rounded quantiles 1.96 + 0.84 = 2.80 give 967.9.) Checked against ``scipy.stats.norm`` quantiles
    and statsmodels' ``NormalIndPower`` (one sample, ``ratio=0``) in the tests.

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640, Sec. 5, Eq. 9; Appendix B.

    Examples
    --------
    >>> math.ceil(sample_size(0.03, omega2=1/9))
    969
    """
    d = _positive(delta, "delta", "it is the difference to detect, e.g. 0.03")
    var = _plan_variance(omega2, sigma2_a, sigma2_b, k_a, k_b)
    z = _z_sum(alpha, power)
    return _out(z * z * var / (d * d))  # Eq. 9


def mde(
    n: float,
    *,
    omega2: float,
    sigma2_a: float = 0.0,
    sigma2_b: float = 0.0,
    k_a: float = 1,
    k_b: float = 1,
    alpha: float = 0.05,
    power: float = 0.8,
) -> float:
    """Minimum detectable effect: the difference ``n`` questions detect with the given power (Eq. 10).

    Parameters are those of :func:`sample_size`, with ``n`` (> 0, may be an array) in place of
    ``delta``. Returns the MDE in score units (0.133 = 13.3 points).

    Notes
    -----
    Eq. 10 inverts Eq. 9: ``delta = (z_{alpha/2} + z_beta) sqrt((omega2 + sigma2_a/k_a + sigma2_b/k_b)/n)``.
    If the MDE is larger than any difference you care about, the eval is too small to be informative.
    Worked example: binary answers with U[0, 1] difficulty (``sigma2 = 1/6`` each), ``omega2 = 1/9``,
    ``n = 198``: MDE 0.1327 at K = 1 and 0.0757 at K = 10, i.e. 13.3% and 7.6% (the paper prints
    13.2% and 7.5%, truncating). The part left at large K is ``omega2``, which only more questions
    shrink.

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640, Sec. 5, Eq. 10.

    Examples
    --------
    >>> round(mde(198, **PRESETS["binary"], k_a=10, k_b=10), 3)
    0.076
    """
    nn = _positive(n, "n", "it is the number of questions")
    var = _plan_variance(omega2, sigma2_a, sigma2_b, k_a, k_b)
    return _out(_z_sum(alpha, power) * np.sqrt(var / nn))  # Eq. 10


def power_at(
    n: Any,
    delta: Any,
    *,
    omega2: float,
    sigma2_a: float = 0.0,
    sigma2_b: float = 0.0,
    k_a: float = 1,
    k_b: float = 1,
    alpha: float = 0.05,
) -> float | np.ndarray:
    """Power of the two-sided paired z-test with ``n`` questions when the true difference is ``delta``.

    ``n`` and ``delta`` broadcast (e.g. an array of n for a power curve); returns their common shape.

    Notes
    -----
    With ``se = sqrt(V / n)`` and ``V = omega2 + sigma2_a/k_a + sigma2_b/k_b``::

        power = Phi(delta/se - z_{alpha/2}) + Phi(-delta/se - z_{alpha/2})

    The second term (rejecting in the wrong direction) is below 1e-6 once power exceeds 0.5 at
    alpha = 0.05; Eq. 9 drops it, so ``power_at(sample_size(d), d)`` is the target plus that sliver.
    Matches statsmodels' ``NormalIndPower().power(..., ratio=0)``.

    Examples
    --------
    >>> round(power_at(969, 0.03, omega2=1/9), 4)
    0.8
    """

    nn = _positive(n, "n", "it is the number of questions")
    d = _positive(delta, "delta", "it is the true difference, e.g. 0.03")
    var = _plan_variance(omega2, sigma2_a, sigma2_b, k_a, k_b)
    z = float(ndtri(1.0 - check_probability(alpha, "alpha") / 2.0))
    shift = d / np.sqrt(var / nn)  # delta / se
    return _out(ndtr(shift - z) + ndtr(-shift - z))  # both rejection tails


@dataclass(frozen=True, slots=True)
class PowerCurve:
    """Power against the number of questions, with the required ``n`` for the target power.

    Attributes
    ----------
    n : tuple of float
        Numbers of questions.
    power : tuple of float
        Power at each ``n`` (:func:`power_at`).
    delta, target_power, alpha, variance : float
        The effect, the target power, the test size and ``V = omega2 + sigma2_a/k_a + sigma2_b/k_b``.
    n_required : float
        :func:`sample_size` for ``delta`` at ``target_power`` (unrounded).
    """

    n: tuple[float, ...]
    power: tuple[float, ...]
    delta: float
    target_power: float
    alpha: float
    variance: float
    n_required: float

    def to_frame(self) -> Any:
        """Tidy ``pandas.DataFrame`` with columns ``n, power``."""
        import pandas as pd  # heavy: only when a frame is asked for (evalbars gate loads power)

        return pd.DataFrame({"n": self.n, "power": self.power})


def power_curve(
    delta: float,
    n: Any = None,
    *,
    omega2: float,
    sigma2_a: float = 0.0,
    sigma2_b: float = 0.0,
    k_a: float = 1,
    k_b: float = 1,
    alpha: float = 0.05,
    power: float = 0.8,
) -> PowerCurve:
    """Power over a grid of ``n`` (default: 100 points up to twice the required n), for charts."""
    kw = dict(omega2=omega2, sigma2_a=sigma2_a, sigma2_b=sigma2_b, k_a=k_a, k_b=k_b, alpha=alpha)
    need = float(sample_size(delta, **kw, power=power))
    grid = (
        np.linspace(max(need, 1.0) / 50.0, 2.0 * max(need, 1.0), 100)
        if n is None
        else np.atleast_1d(n).ravel()
    )
    pw = np.atleast_1d(power_at(grid, delta, **kw))
    return PowerCurve(
        n=tuple(np.asarray(grid, dtype=np.float64).tolist()),
        power=tuple(pw.tolist()),
        delta=float(delta),
        target_power=float(power),
        alpha=float(alpha),
        variance=_plan_variance(omega2, sigma2_a, sigma2_b, k_a, k_b),
        n_required=need,
    )


# ---------------------------------------------------------------------------------------------------
# clustered questions (Appendix C)
# ---------------------------------------------------------------------------------------------------
def _clustered_omega2(omega2: Any, deff: Any, cluster_size: Any, icc: Any) -> float:
    """``deff * omega2`` after checking the inputs: the Appendix C omega2 for clustered questions."""
    d = _design_effect(deff, cluster_size, icc)
    return d * _finite(omega2, "omega2")  # Appendix C: clustered omega2 = deff * omega2


def _design_effect(deff: Any, cluster_size: Any, icc: Any) -> float:
    if deff is not None:
        if cluster_size is not None or icc is not None:
            raise EvalStatsError("give either deff or cluster_size and icc, not both")
        d = _finite(deff, "deff")
        if d <= 0.0:
            raise EvalStatsError(f"deff ({d!r}) must be > 0 (1 means no clustering)")
        return d
    if cluster_size is None or icc is None:
        raise EvalStatsError("give deff, or both cluster_size (questions per cluster) and icc")
    return design_effect(_finite(cluster_size, "cluster_size"), _finite(icc, "icc"))


def clustered_sample_size(
    delta: float,
    *,
    omega2: float,
    sigma2_a: float = 0.0,
    sigma2_b: float = 0.0,
    k_a: float = 1,
    k_b: float = 1,
    deff: float | None = None,
    cluster_size: float | None = None,
    icc: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
) -> float:
    """Questions needed when they come in clusters: Eq. 9 with a cluster-adjusted ``omega2``.

    Give either ``deff`` or ``cluster_size`` (average questions per cluster, m) with ``icc`` (rho, the
    intra-cluster correlation of the question-level differences ``x_A - x_B``). Other parameters as in
    :func:`sample_size`. Returns the number of questions (unrounded); clusters needed = n / m.

    Notes
    -----
    Appendix C of Miller (2024) plugs cluster-adjusted omega2, sigma2_a, sigma2_b into Eq. 9 and 10
    unchanged. The adjusted omega2 is the Eq. 4 cluster sum of cross products of the differences, which
    for clusters of m questions with correlation rho has expectation ``omega2 (1 + (m - 1) rho)``; the
    adjusted sigma2 terms equal the plain ones, because answers to different questions are
    independent and their cross products vanish. Hence::

        n = (z_{alpha/2} + z_beta)^2 (deff * omega2 + sigma2_a/k_a + sigma2_b/k_b) / delta^2

    The design effect inflates only the part resampling cannot touch. From pilot data, prefer
    :func:`evalstats_core.pilot.pilot_estimates` with ``clusters=...``, which computes the Appendix C
    omega2 directly and, for planning (``omega2_plan``), a median-unbiased random-cluster-effect one;
    :func:`evalstats_core.planning.plan_pair` also allows for the pilot's uncertainty about it.

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640, Appendix C and Eq. 4.
    Kish, L. (1965). Survey Sampling, Wiley, Sec. 5.4 (design effect 1 + (m - 1) rho).

    Examples
    --------
    >>> round(clustered_sample_size(0.03, omega2=1/9, cluster_size=10, icc=0.1), 1)
    1841.1
    """
    om = _clustered_omega2(omega2, deff, cluster_size, icc)
    return sample_size(
        delta, omega2=om, sigma2_a=sigma2_a, sigma2_b=sigma2_b, k_a=k_a, k_b=k_b, alpha=alpha, power=power
    )  # Eq. 9


def clustered_mde(
    n: float,
    *,
    omega2: float,
    sigma2_a: float = 0.0,
    sigma2_b: float = 0.0,
    k_a: float = 1,
    k_b: float = 1,
    deff: float | None = None,
    cluster_size: float | None = None,
    icc: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
) -> float:
    """Minimum detectable effect with clustered questions: Eq. 10 with ``deff * omega2`` (Appendix C).

    Parameters as in :func:`clustered_sample_size`, with ``n`` questions in place of ``delta``.

    Examples
    --------
    >>> round(clustered_mde(969, omega2=1/9, deff=1.0), 4)
    0.03
    """
    om = _clustered_omega2(omega2, deff, cluster_size, icc)
    return mde(
        n, omega2=om, sigma2_a=sigma2_a, sigma2_b=sigma2_b, k_a=k_a, k_b=k_b, alpha=alpha, power=power
    )  # Eq. 10


# ---------------------------------------------------------------------------------------------------
# where omega2 comes from (estimates from pilot data: evalstats_core.pilot)
# ---------------------------------------------------------------------------------------------------
def omega2_from(var_a: float, var_b: float, correlation: float) -> float:
    """``omega2 = Var(x_A) + Var(x_B) - 2 rho sqrt(Var(x_A) Var(x_B))`` (Miller 2024, Sec. 4.2, 5).

    The variance of the question-level difference between two models: small when the models agree
    on which questions are hard (rho near 1), which is why paired comparisons need fewer questions.

    Examples
    --------
    >>> omega2_from(1/12, 1/12, 1/3) == 1/9
    True
    """
    va, vb = _finite(var_a, "var_a"), _finite(var_b, "var_b")
    for name, v in (("var_a", va), ("var_b", vb)):
        if v < 0.0:
            raise EvalStatsError(f"{name} ({v!r}) must be >= 0: it is a variance")
    r = _finite(correlation, "correlation")
    if not (-1.0 <= r <= 1.0):
        raise EvalStatsError(f"correlation ({r!r}) must be between -1 and 1")
    return max(va + vb - 2.0 * r * math.sqrt(va * vb), 0.0)  # Var(xA) + Var(xB) - 2 Cov(xA, xB)
