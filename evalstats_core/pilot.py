"""Planning inputs from pilot data: omega2, sigma2_a, sigma2_b measured on two models' pilot scores.

Before a full comparison, run both models on a few questions (whole clusters, if questions come in
clusters) and estimate the quantities the power formulas of :mod:`evalstats_core.power` need.

=====================  ===========================================================================
``pilot_estimates``    omega2, sigma2_a, sigma2_b (and correlation) from two models' pilot scores
``PilotEstimates``     the result; ``.sample_size``, ``.mde``, ``.power_at`` plan with it directly
=====================  ===========================================================================

References
----------
Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640, Appendix C (estimates from pilot
data, clustered omega2) and Sec. 4.2 (correlation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq

from ._clusters import cr2_sum, cr2_weights
from .decomposition import _between_variance, _codes, resampling_decomposition
from .errors import EvalStatsError
from .plan_spread import _anova_parts, _between_sum_cdf, omega2_spread, size_mix
from .power import mde, power_at, sample_size

__all__ = ["PilotEstimates", "pilot_estimates"]


@dataclass(frozen=True, slots=True)
class PilotEstimates:
    """Planning inputs estimated from two models' pilot scores on the same questions.

    Attributes
    ----------
    n : int
        Questions in the pilot.
    n_clusters : int or None
        Clusters in the pilot, or None when unclustered.
    k_a, k_b : float
        Answers per question in the pilot (1 when question-level scores were given).
    mean_a, mean_b, mean_difference : float
        Mean scores and ``mean_a - mean_b``.
    var_a, var_b : float
        Var(x) of each model: between-question variance minus the answer noise, clipped at 0
        (cluster-adjusted when clustered).
    sigma2_a, sigma2_b : float
        E[sigma^2] of each model; 0 when only one score per question was given (then the noise is
        inside ``omega2`` and the estimates hold for the pilot's own K only).
    omega2 : float
        Var(x_A - x_B), noise removed, clipped at 0 (Appendix C cluster sum when clustered).
    omega2_unclipped : float
        The same before clipping.
    omega2_plan : float
        The omega2 ``.sample_size``, ``.mde`` and ``.power_at`` use (they plan as if it were the truth):
        ``omega2`` without clusters; with clusters the median-unbiased random-intercept estimate
        (:func:`_random_intercept_variance`), noise removed, clipped at 0.
    correlation : float
        Pearson correlation of the two models' question-level scores (NaN if either is constant).
    omega2_nodes, omega2_weights : tuple of float
        A confidence distribution of omega2 given the pilot, noise removed
        (:func:`~evalstats_core.plan_spread.omega2_spread`): the planners ask for the questions whose power
        *averaged* over it is the target, which is the power averaged over pilots.
    note : str or None
        Plain-words remarks (clipping, unidentified sigma2, undefined correlation), or None.
    """

    n: int
    n_clusters: int | None
    k_a: float
    k_b: float
    mean_a: float
    mean_b: float
    mean_difference: float
    var_a: float
    var_b: float
    sigma2_a: float
    sigma2_b: float
    omega2: float
    omega2_unclipped: float
    correlation: float
    note: str | None
    omega2_plan: float = math.nan
    omega2_nodes: tuple[float, ...] = ()
    omega2_weights: tuple[float, ...] = ()

    def _kw(self, k_a: Any, k_b: Any) -> dict[str, Any]:
        return {
            "omega2": self.omega2 if math.isnan(self.omega2_plan) else self.omega2_plan,
            "sigma2_a": self.sigma2_a,
            "sigma2_b": self.sigma2_b,
            "k_a": self.k_a if k_a is None else k_a,
            "k_b": self.k_b if k_b is None else k_b,
        }

    def sample_size(
        self,
        delta: float,
        *,
        k_a: float | None = None,
        k_b: float | None = None,
        alpha: float = 0.05,
        power: float = 0.8,
    ) -> float:
        """:func:`sample_size` with these estimates (K defaults to the pilot's)."""
        return sample_size(delta, **self._kw(k_a, k_b), alpha=alpha, power=power)

    def mde(
        self,
        n: float,
        *,
        k_a: float | None = None,
        k_b: float | None = None,
        alpha: float = 0.05,
        power: float = 0.8,
    ) -> float:
        """:func:`mde` with these estimates (K defaults to the pilot's)."""
        return mde(n, **self._kw(k_a, k_b), alpha=alpha, power=power)

    def power_at(
        self, n: Any, delta: Any, *, k_a: float | None = None, k_b: float | None = None, alpha: float = 0.05
    ) -> float | np.ndarray:
        """:func:`power_at` with these estimates (K defaults to the pilot's)."""
        return power_at(n, delta, **self._kw(k_a, k_b), alpha=alpha)


def _cr2_variance(diffs: np.ndarray, cluster: np.ndarray | None) -> float:
    """``n`` times the CR2 variance of the mean of ``diffs``: the clustered omega2 (ddof=1 variance without).

    With cluster sums ``T_g`` of the deviations and shares ``f_g = n_g / n``, ``sum_g T_g^2 / (1 - f_g) / n``
    (Bell & McCaffrey 2002): exactly unbiased for independent questions whatever the cluster sizes,
    where the CR1 form ``G/(G-1) sum_g T_g^2 / n`` is biased low with unequal clusters (0.56x on average
    from a SWE-bench-like pilot). With correlated questions inside clusters a downward bias remains
    (smaller than CR1's), so a plan built on it still errs on the side of too few questions.
    """
    n = diffs.size
    dev = diffs - diffs.mean()
    if cluster is None:
        return float(dev @ dev / (n - 1))
    totals = np.bincount(cluster, weights=dev)  # (K,) deviation sums per cluster
    sizes = np.bincount(cluster, minlength=totals.size).astype(np.float64)
    a, _ = cr2_weights(sizes, n)
    return float(cr2_sum(totals[sizes > 0], a)) / n  # CR2, intercept only


def _random_intercept_variance(diffs: np.ndarray, cluster: np.ndarray) -> float:
    """``n`` times the variance of the mean of ``diffs`` under a random cluster intercept, median-unbiased.

    ``omega2 = sigma_e^2 + sigma_c^2 sum_g n_g^2 / n`` with the within-cluster mean square ``MSW`` for
    ``sigma_e^2`` (on ``n - G`` degrees of freedom) and for ``sigma_c^2`` the value whose between-cluster sum
    of squares ``SSB`` has its median at the observed one (:func:`_between_sum_cdf`, exact for normal
    differences with any cluster sizes; 0 when the observed ``SSB`` is below its median without cluster
    effect). The median of ``SSB`` rises with ``sigma_c^2``, so the estimate is median-unbiased for
    ``sigma_c^2`` (test inversion), and so, up to the noise of ``MSW``, for omega2: a plan's power rises
    with its omega2, so the plan reaches its target power in about half the pilots. Every cluster counts
    once in ``SSB``, where the CR2 sum (:func:`_cr2_variance`) weighs each by its size squared: from a
    pilot with one dominant cluster (SWE-bench's 231 of 500) the CR2 value rests on about one cluster and
    falls below the truth in most pilots. Median estimate over the truth (normal differences, sd 0.4
    within clusters; CR2 and ANOVA columns from 1,000 pilots, the last two from 2,000 pilots for the
    SWE-like designs and from ``bench/results/plan_pilots_600.txt`` for the others):

    ==============================  =====  =====================  ====================  ==========
    pilot                           CR2    ANOVA (mean-unbiased)  ANOVA x nu/median     this value
    ==============================  =====  =====================  ====================  ==========
    12 SWE-like clusters, ICC 0.1   0.45   0.83                   0.93                  1.00
    12 SWE-like, ICC 0.015          0.54   0.82                   1.14                  1.00
    8 unequal clusters, ICC 0.06    0.75   0.84                   0.98                  0.97
    5 equal clusters, ICC 0.1       0.80   0.80                   0.96                  0.99
    27 equal clusters, ICC 0.1      0.96   0.96                   0.99                  1.01
    ==============================  =====  =====================  ====================  ==========

    The previous value (the ANOVA estimate scaled by ``nu / median(chi2_nu)``, ``nu`` the Satterthwaite
    df of ``c MSB + (1 - c) MSW``) over-planned where the ICC is low and one cluster dominates: ``c`` is
    then about 4, the weight of ``MSW`` negative, the Satterthwaite df of that difference near 1 exactly
    when ``MSB`` is just above ``MSW``, and the scaling (up to 2.2x) lifted the small estimates (median
    1.14x the truth; median realised power 85.5% for an 80% target); the 75.9% of 8 unequal clusters
    in that bench (0.89x over its 400 pilots, 0.98x over 1,000) was mostly pilot noise. The direction
    of what remains: none in the median for normal differences (a pilot whose between sum of squares
    sits at its median gives back the true omega2, ``tests/test_plan_pilots.py``; median realised power
    78.0-83.2% for an 80% target over six designs, 79.5% over 2,000 pilots at ICC 0.015); down in the
    mean realised power, 74-79% for an 80% target (a short plan loses more power than a long one gains),
    which is why :func:`~evalstats_core.planning.plan_pair` averages the power over the confidence
    distribution this inversion gives (:func:`~evalstats_core.plan_spread.omega2_spread`), not at its median.
    Plugging in ``MSW`` for ``sigma_e^2`` adds noise of its ``n - G`` df, negligible in a pilot of
    hundreds of questions.
    It rests on the random-intercept model (cluster effects independent of the cluster sizes).

    References
    ----------
    Searle, Casella & McCulloch 1992, "Variance Components", Wiley, Sec. 3.5 (unbalanced one-way ANOVA).
    Imhof, J. P. (1961). Computing the distribution of quadratic forms in normal variables.
    Biometrika 48(3/4), 419-426.
    Eldridge, Ashby & Kerry 2006, "Sample size for cluster randomized trials: effect of coefficient of
    variation of cluster size", Int. J. Epidemiology 35(5), 1292-1300 (the design effect of unequal sizes).
    """
    parts = _anova_parts(diffs, cluster)
    if parts is None:  # singletons: no within-cluster variance to separate, the model is the plain one
        return _cr2_variance(diffs, cluster)
    msw, ssb, sizes, share = parts
    sizes = size_mix(sizes)  # grouped once for the search below
    n = diffs.size
    if ssb <= 0.0 or (msw > 0.0 and _between_sum_cdf(ssb, sizes, 0.0, msw) <= 0.5):
        return msw  # SSB at or below its median without a cluster effect: sigma_c^2 = 0


    def excess(var_cluster: float) -> float:  # P(SSB <= observed) - 1/2, falling in var_cluster
        return _between_sum_cdf(ssb, sizes, var_cluster, msw) - 0.5

    # E[SSB] = (G - 1) sigma_e^2 + (n - sum n_g^2 / n) sigma_c^2: here its mean is above the observed SSB
    hi = max(ssb / (n - share), 1e-300)
    while excess(hi) > 0.0:
        hi *= 2.0
    var_cluster = brentq(excess, 0.0, hi, xtol=1e-9 * hi, rtol=1e-5)  # at 0 without MSW: SSB = 0, excess 1/2
    return msw + var_cluster * share


def _one_model(scores: Any, name: str, clusters: Any) -> tuple[np.ndarray, float, float, float, float]:
    """Question means, E[sigma^2], K, raw Var(x) and the noise E[sigma^2/K] left in the means."""
    arr = np.asarray(scores, dtype=np.float64)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim == 2:
        dec = resampling_decomposition(arr, clusters=clusters)
        return (
            arr.mean(axis=1),
            dec.mean_sigma2,
            dec.k,
            dec.var_x_unclipped,
            dec.var_means - dec.var_x_unclipped,
        )
    if arr.ndim != 1:
        raise EvalStatsError(
            f"{name} has shape {arr.shape}: pass one score per question (n,) or resamples (n, K)"
        )
    if not np.isfinite(arr).all():
        raise EvalStatsError(f"{name} contains NaN or inf; every question needs a finite score")
    return arr, 0.0, 1.0, math.nan, 0.0  # Var(x) filled in by the caller (needs the cluster codes)


def pilot_estimates(a: Any, b: Any, /, *, clusters: Any = None) -> PilotEstimates:
    """Estimate omega2, sigma2_a, sigma2_b (and correlation) from a pilot run of two models.

    Parameters
    ----------
    a, b : array_like, shape (n,) or (n, K)
        Each model's scores on the same n questions, row i = question i: one question-level score per
        question, or K resampled answers per question (K may differ between the models).
    clusters : array_like, shape (n,), optional
        Cluster label of each question; gives the cluster-adjusted (Appendix C) estimates.

    Returns
    -------
    PilotEstimates
        Feed it to planning with ``.sample_size(delta)``, ``.mde(n)``, ``.power_at(n, delta)``.

    Notes
    -----
    Following Appendix C of Miller (2024): answers are averaged per question, ``xbar_i``; E[sigma^2]
    is the within-question variance (``ddof=1``) averaged over questions; omega2 is the variance of
    the differences ``xbar_A,i - xbar_B,i`` (``ddof=1``, or the Appendix C cluster sum times
    ``C/(C-1)``) minus the answer noise ``E[sigma_A^2]/K_A + E[sigma_B^2]/K_B`` it contains (the paper
    leaves that noise in; removing it avoids counting it twice in Eq. 9), clipped at 0. With one
    score per question the noise cannot be separated: sigma2 is reported as 0 and omega2 is the
    total variance of the differences, right for planning at the pilot's own K. Draw pilot subsets
    by whole clusters, as the paper advises.

    References
    ----------
    Miller, E. (2024). Adding Error Bars to Evals. arXiv:2411.00640, Appendix C; Sec. 4.2 (correlation).

    Examples
    --------
    >>> est = pilot_estimates([0.9, 0.4, 0.7, 0.2], [0.8, 0.5, 0.5, 0.1])
    >>> round(est.omega2, 4), round(est.correlation, 3)
    (0.0158, 0.914)
    """
    ma, s2a, ka, va, noise_a = _one_model(a, "a", clusters)
    mb, s2b, kb, vb, noise_b = _one_model(b, "b", clusters)
    n = ma.size
    if mb.size != n:
        raise EvalStatsError(
            f"a has {n} questions but b has {mb.size}: both models must answer the same questions"
        )
    if n < 2:
        raise EvalStatsError(f"only {n} question(s): omega2 needs at least 2 questions")
    cluster, n_clusters = None, None
    if clusters is not None:
        cluster, n_clusters = _codes(clusters, "clusters", n)
        if n_clusters < 2:
            raise EvalStatsError(
                f"clusters has {n_clusters} cluster: the clustered omega2 needs at least 2 clusters"
            )
    if math.isnan(va):
        va = _between_variance(ma, cluster)
    if math.isnan(vb):
        vb = _between_variance(mb, cluster)
    raw = _cr2_variance(ma - mb, cluster) - noise_a - noise_b  # Appendix C omega2 minus answer noise
    plan = raw if cluster is None else _random_intercept_variance(ma - mb, cluster) - noise_a - noise_b
    nodes, weights = omega2_spread(ma - mb, cluster, noise_a + noise_b)
    notes = []
    if raw < 0.0:
        notes.append(
            f"omega2 estimate was {raw:.3g} and is reported as 0: the differences vary no more than answer noise"
        )
    if ka == 1.0 and kb == 1.0:
        notes.append(
            "one score per question: sigma2 cannot be separated, so it is 0 and the noise is inside omega2"
        )
    da, db = ma - ma.mean(), mb - mb.mean()
    denom = math.sqrt(float(da @ da) * float(db @ db))
    corr = float(da @ db) / denom if denom > 0.0 else math.nan
    if denom == 0.0:
        notes.append("correlation is undefined: one model scores every question the same")
    return PilotEstimates(
        n=int(n),
        n_clusters=n_clusters,
        k_a=float(ka),
        k_b=float(kb),
        mean_a=float(ma.mean()),
        mean_b=float(mb.mean()),
        mean_difference=float(ma.mean() - mb.mean()),
        var_a=max(float(va), 0.0),
        var_b=max(float(vb), 0.0),
        sigma2_a=float(s2a),
        sigma2_b=float(s2b),
        omega2=max(raw, 0.0),
        omega2_unclipped=float(raw),
        correlation=corr,
        note="; ".join(notes) or None,
        omega2_plan=max(plan, 0.0),
        omega2_nodes=tuple(nodes.tolist()),
        omega2_weights=tuple(weights.tolist()),
    )
