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

from .decomposition import _between_variance, _codes, resampling_decomposition
from .errors import EvalStatsError
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
        The omega2 the planners use: ``omega2`` without clusters; with clusters the median-unbiased
        random-intercept estimate (:func:`_random_intercept_variance`), noise removed, clipped at 0.
    correlation : float
        Pearson correlation of the two models' question-level scores (NaN if either is constant).
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
    used = sizes > 0
    return float((totals[used] ** 2) @ (1.0 / (1.0 - sizes[used] / n))) / n  # CR2, intercept only


def _random_intercept_variance(diffs: np.ndarray, cluster: np.ndarray) -> float:
    """``n`` times the variance of the mean of ``diffs`` under a random cluster intercept, by ANOVA.

    ``MSW + sigma_c^2 sum_g n_g^2 / n`` with the within-cluster mean square ``MSW`` and the unbiased
    (unbalanced one-way ANOVA) between-cluster variance ``sigma_c^2 = max(0, (MSB - MSW) / n_0)``,
    ``n_0 = (n - sum_g n_g^2 / n) / (G - 1)`` (Searle, Casella & McCulloch 1992, Sec. 3.5), scaled to be
    median-unbiased: a variance on ``nu`` Satterthwaite degrees of freedom (of ``c MSB + (1 - c) MSW``)
    is ``chi2_nu / nu`` times the truth, whose median is below 1, so the estimate is multiplied by
    ``nu / median(chi2_nu)``. A plan's power rises with its omega2, so a median-unbiased omega2 gives the
    target power in about half the pilots. Every cluster counts once in ``sigma_c^2``, where the CR2 sum
    (:func:`_cr2_variance`) weighs each by its size squared: from a pilot with one dominant cluster
    (SWE-bench's 231 of 500) the CR2 value rests on about one cluster and falls below the truth in most
    pilots. Median estimate over the truth (1,000 pilots of normal differences, sd 0.4 within clusters):

    ==============================  =====  ======================  ============
    pilot                           CR2    ANOVA (mean-unbiased)   this value
    ==============================  =====  ======================  ============
    12 SWE-like clusters, ICC 0.1   0.45   0.83                    0.91
    12 SWE-like, ICC 0.015          0.54   0.82                    1.12
    8 unequal clusters, ICC 0.06    0.75   0.84                    0.98
    5 equal clusters, ICC 0.1       0.80   0.80                    0.96
    27 equal clusters, ICC 0.1      0.96   0.96                    0.99
    ==============================  =====  ======================  ============

    The remaining bias is down where the ICC is high and the clusters few or unequal (0.89-0.97x: plans
    a little short, median realised power 76-78% for an 80% target) and up where it is low with one
    dominant cluster (1.13x: 85.5%, plans too long). Before, the CR2 value gave 51-66% on those designs
    (``bench/results/plan_pilots_400.txt``).
    It rests on the random-intercept model (cluster effects independent of the cluster sizes).

    References
    ----------
    Searle, Casella & McCulloch 1992, "Variance Components", Wiley, Sec. 3.5 (unbalanced one-way ANOVA).
    Eldridge, Ashby & Kerry 2006, "Sample size for cluster randomized trials: effect of coefficient of
    variation of cluster size", Int. J. Epidemiology 35(5), 1292-1300 (the design effect of unequal sizes).
    """
    n = diffs.size
    sizes = np.bincount(cluster).astype(np.float64)
    used = sizes > 0
    g = int(used.sum())
    if g >= n:  # singletons: no within-cluster variance to separate, the model is the plain one
        return _cr2_variance(diffs, cluster)
    means = np.bincount(cluster, weights=diffs)[used] / sizes[used]
    sizes = sizes[used]
    within = diffs - np.bincount(cluster, weights=diffs)[cluster] / np.bincount(cluster)[cluster]
    msw = float(within @ within) / (n - g)
    msb = float(sizes @ (means - diffs.mean()) ** 2) / (g - 1)
    square = float(sizes @ sizes) / n
    n0 = (n - square) / (g - 1)
    if msb <= msw:  # no between-cluster variance seen: MSW on n - G df
        return msw
    c1 = square / n0  # omega2 = c1 MSB + (1 - c1) MSW
    value = c1 * msb + (1.0 - c1) * msw
    df = value * value / (c1 * c1 * msb * msb / (g - 1) + (1.0 - c1) ** 2 * msw * msw / (n - g))
    from scipy.special import chdtri

    return value * df / float(chdtri(df, 0.5))  # median-unbiased: chi2_df / df has median chdtri(df, .5) / df


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
    )
