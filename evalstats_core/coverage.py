"""Coverage experiments: how often an interval built the usual way contains the truth.

Each experiment draws many synthetic evals from a generator of :mod:`evalstats_core.simulate`, builds
the intervals a practitioner would, and counts how often they contain the true value (frozen result
objects with plain floats):

==============================  =======================================================================
``coverage_experiment``         how often wald / wilson / clopper_pearson / bayes cover the true accuracy
``pooling_coverage``            pooled SE over n*K answers vs the question-level SE
``clustering_coverage``         naive SE vs the cluster-robust (CR1) SE
==============================  =======================================================================

Randomness comes only from ``rng`` (anything :func:`numpy.random.default_rng` accepts: a seed, a
``Generator``, or None for fresh entropy). Draws are vectorised over replications and processed in
chunks of fixed size, so a seed gives the same numbers however large ``reps`` is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._validate import check_confidence, check_open_unit, check_positive_int, check_unit, z_for
from .errors import EvalStatsError
from .intervals import PROPORTION_METHODS, _check_method, proportion_ci_arrays
from .simulate import _check_difficulty, _cluster_rates

__all__ = [
    "ClusteringCoverage",
    "CoverageResult",
    "PoolingCoverage",
    "clustering_coverage",
    "coverage_experiment",
    "pooling_coverage",
]

_CHUNK = 1 << 20  # draws per chunk: bounds memory (~8 MB per float array) without changing results


# ---------------------------------------------------------------------------------------------------
# coverage of the proportion intervals (Bowyer et al. 2025)
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CoverageResult:
    """How often each interval method contains the true accuracy, and how wide it is.

    Attributes
    ----------
    n : int
        Questions per simulated eval.
    confidence : float
        Nominal level of every interval.
    reps : int
        Simulated evals.
    theta : float or None
        The fixed true accuracy, or None when each eval drew its own from Uniform(0, 1).
    methods : tuple of str
        The methods, in the order asked for.
    coverage : dict of str to float
        Fraction of evals whose interval contains the true accuracy, per method.
    mean_width : dict of str to float
        Mean of ``high - low`` per method (Wald unclipped, so it can exceed the part inside [0, 1]).
    mc_se : dict of str to float
        Monte Carlo standard error of each coverage, ``sqrt(c (1 - c) / reps)``.
    k_shares : tuple of float, length n + 1
        Share of the simulated evals that ended with k = 0, 1, ..., n correct answers; any other
        per-k property of an interval (zero width, leaving [0, 1]) averages as ``k_shares @ prop``.
    """

    n: int
    confidence: float
    reps: int
    theta: float | None
    methods: tuple[str, ...]
    coverage: dict[str, float]
    mean_width: dict[str, float]
    mc_se: dict[str, float]
    k_shares: tuple[float, ...] = ()

    def rows(self) -> list[dict[str, Any]]:
        """One dict per method: method, n, confidence, theta, coverage, mean_width, mc_se."""
        return [
            {"method": m, "n": self.n, "confidence": self.confidence, "theta": self.theta,
             "coverage": self.coverage[m], "mean_width": self.mean_width[m], "mc_se": self.mc_se[m]}
            for m in self.methods
        ]

    def to_frame(self) -> Any:
        """The :meth:`rows` as a pandas DataFrame (theta is NaN when drawn per replication)."""
        import pandas as pd  # heavy: only when a frame is asked for

        frame = pd.DataFrame(self.rows())
        frame["theta"] = frame["theta"].astype("float64")
        return frame


def coverage_experiment(
    n: int,
    *,
    methods: tuple[str, ...] = PROPORTION_METHODS,
    theta: float | None = None,
    confidence: float = 0.95,
    reps: int = 1_000_000,
    rng: Any = None,
) -> CoverageResult:
    """Simulate ``reps`` evals of ``n`` 0/1 questions and measure each interval's coverage and width.

    Parameters
    ----------
    n : int
        Questions per eval (the slides use 3, 10, 30, 100).
    methods : tuple of str
        Any of ``"wald"``, ``"wilson"``, ``"clopper_pearson"``, ``"bayes"`` (uniform prior).
    theta : float in [0, 1], optional
        A fixed true accuracy; None draws ``theta ~ Uniform(0, 1)`` afresh for every eval.
    confidence : float, default 0.95
    reps : int, default 1_000_000
    rng : seed or numpy.random.Generator, optional

    Returns
    -------
    CoverageResult

    Notes
    -----
    Each eval draws ``k ~ Binomial(n, theta)`` correct answers and forms the interval from ``k``.
    An interval depends on the data only through ``k``, so each method's n + 1 possible intervals
    are computed once and looked up: the cost per replication is one binomial draw and a few
    comparisons (millions per second). With uniform ``theta`` the uniform-prior Bayes interval covers
    ``confidence + (1 - confidence) / (n + 1)`` on average (the equal-tailed interval would cover
    exactly ``confidence``; keeping 0 and 1 inside at 0/n and n/n adds the second term), Wilson comes close, Clopper-Pearson over-covers, and Wald
    falls far short at small n (at n = 3 half the evals score 0/3 or 3/3 and get a zero-width
    interval).

    References
    ----------
    Bowyer, Aitchison & Ivanova 2025, arXiv:2503.01747, Sec. 4 (the IID-questions experiment).

    Examples
    --------
    >>> res = coverage_experiment(3, reps=100_000, rng=0)
    >>> res.coverage["wald"] < 0.6 < 0.95 < res.coverage["bayes"] < 0.97
    True
    """
    size = check_positive_int(n, "n")
    total = check_positive_int(reps, "reps")
    conf = check_confidence(confidence)
    chosen = _check_methods(methods)
    fixed = None if theta is None else check_unit(theta, "theta")
    gen = np.random.default_rng(rng)
    outcomes = np.arange(size + 1)
    tables = [proportion_ci_arrays(outcomes, size, interval=m, confidence=conf) for m in chosen]
    hits = np.zeros(len(chosen))
    k_counts = np.zeros(size + 1)
    for start in range(0, total, _CHUNK):
        r = min(_CHUNK, total - start)
        if fixed is None:
            th = gen.random(r)  # theta ~ U(0, 1), one per eval
            k = gen.binomial(size, th)
            for j, (low, high) in enumerate(tables):
                hits[j] += np.count_nonzero((low[k] <= th) & (th <= high[k]))
        else:
            k = gen.binomial(size, fixed, size=r)
        k_counts += np.bincount(k, minlength=size + 1)
    if fixed is not None:  # the same theta everywhere: coverage is a count-weighted lookup
        hits = np.array([k_counts @ ((low <= fixed) & (fixed <= high)) for low, high in tables])
    coverage = {m: float(h / total) for m, h in zip(chosen, hits, strict=True)}
    return CoverageResult(
        n=size,
        confidence=conf,
        reps=total,
        theta=fixed,
        methods=chosen,
        coverage=coverage,
        mean_width={
            m: float(k_counts @ (high - low) / total) for m, (low, high) in zip(chosen, tables, strict=True)
        },
        mc_se={m: math.sqrt(c * (1.0 - c) / total) for m, c in coverage.items()},
        k_shares=tuple(float(v) for v in k_counts / total),
    )


# ---------------------------------------------------------------------------------------------------
# naive vs correct standard errors: resamples (pooling) and clusters
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PoolingCoverage:
    """Coverage of the pooled-answers SE vs the question-level SE (see :func:`pooling_coverage`).

    Attributes
    ----------
    n, k, reps : int
        Questions, answers per question, simulated evals.
    confidence : float
        Nominal level of both intervals.
    true_mean : float
        The accuracy the intervals try to cover, ``E[x]``.
    true_se : float
        The actual SD of the estimate, ``sqrt((Var(x) + E[x(1-x)]/k) / n)``.
    pooled_coverage, question_coverage : float
        Fraction of evals whose interval contains ``true_mean``.
    pooled_mean_se, question_mean_se : float
        Average standard error each method reported.
    """

    n: int
    k: int
    reps: int
    confidence: float
    true_mean: float
    true_se: float
    pooled_coverage: float
    question_coverage: float
    pooled_mean_se: float
    question_mean_se: float


def pooling_coverage(
    n: int,
    k: int,
    *,
    reps: int = 2000,
    confidence: float = 0.95,
    difficulty: str | tuple[float, float] = "uniform",
    rng: Any = None,
) -> PoolingCoverage:
    """Coverage of ``mean +/- z SE`` when the SE pools all n*k answers vs when it uses question means.

    Parameters
    ----------
    n : int
        Questions per eval (>= 2).
    k : int
        Answers per question.
    reps : int, default 2000
    confidence : float, default 0.95
    difficulty : "uniform" or (a, b)
        Beta distribution of question difficulty, as in :func:`~evalstats_core.simulate.resampled_answers`.
    rng : seed or numpy.random.Generator, optional

    Returns
    -------
    PoolingCoverage

    Notes
    -----
    Pooled: the sample SD of all n*k answers over sqrt(n*k), i.e. ``sqrt(p(1-p)/(nk - 1))`` -- it
    treats answers to the same question as independent. Question-level: the SD of the n question
    means over sqrt(n) (Miller 2024, Sec. 3.1, "do not pool"). With k > 1 and varying difficulty the
    pooled SE is too small and its interval covers well under ``confidence``.
    """
    size = check_positive_int(n, "n", minimum=2)
    per_q = check_positive_int(k, "k")
    total = check_positive_int(reps, "reps")
    z = z_for(confidence)
    a, b = _check_difficulty(difficulty)
    gen = np.random.default_rng(rng)
    true_mean = a / (a + b)
    var_x = a * b / ((a + b) ** 2 * (a + b + 1))  # Beta variance: Var(x)
    cond = a * b / ((a + b) * (a + b + 1))  # E[x(1 - x)] = E[sigma_i^2] for one answer
    sums = np.zeros(4)  # pooled hits, question hits, pooled SE sum, question SE sum
    step = max(1, _CHUNK // size)
    for start in range(0, total, step):
        r = min(step, total - start)
        x = gen.beta(a, b, size=(r, size))  # (r, n) question difficulties
        s = gen.binomial(per_q, x) / per_q  # (r, n) question-level mean scores
        mean = s.mean(axis=1)
        se_q = s.std(axis=1, ddof=1) / math.sqrt(size)  # Miller 2024, Eq. 1 on question means
        se_pool = np.sqrt(mean * (1.0 - mean) / (size * per_q - 1))  # sd of n*k answers / sqrt(nk)
        err = np.abs(mean - true_mean)
        sums += (np.count_nonzero(err <= z * se_pool), np.count_nonzero(err <= z * se_q),
                 se_pool.sum(), se_q.sum())
    return PoolingCoverage(
        n=size, k=per_q, reps=total, confidence=float(confidence), true_mean=true_mean,
        true_se=math.sqrt((var_x + cond / per_q) / size),  # Miller 2024, Sec. 3.1
        pooled_coverage=float(sums[0] / total), question_coverage=float(sums[1] / total),
        pooled_mean_se=float(sums[2] / total), question_mean_se=float(sums[3] / total),
    )


@dataclass(frozen=True, slots=True)
class ClusteringCoverage:
    """Coverage of the naive SE vs the clustered (CR1) SE (see :func:`clustering_coverage`).

    Attributes
    ----------
    n_clusters, cluster_size, reps : int
    icc, mean, confidence : float
        The simulation's settings (true intra-cluster correlation and accuracy).
    design_effect : float
        ``1 + (cluster_size - 1) icc``: true variance over the independent-questions variance.
    true_se : float
        The actual SD of the estimate, ``sqrt(mean (1-mean) design_effect / N)``.
    naive_coverage, clustered_coverage : float
        Fraction of evals whose interval contains ``mean``.
    naive_mean_se, clustered_mean_se : float
        Average standard error each method reported.
    """

    n_clusters: int
    cluster_size: int
    reps: int
    icc: float
    mean: float
    confidence: float
    design_effect: float
    true_se: float
    naive_coverage: float
    clustered_coverage: float
    naive_mean_se: float
    clustered_mean_se: float


def clustering_coverage(
    n_clusters: int,
    cluster_size: int,
    icc: float,
    *,
    mean: float = 0.7,
    reps: int = 2000,
    confidence: float = 0.95,
    rng: Any = None,
) -> ClusteringCoverage:
    """Coverage of ``mean +/- z SE`` with the naive SE vs the cluster-robust SE, on clustered 0/1 evals.

    Parameters
    ----------
    n_clusters : int
        Clusters per eval (>= 2).
    cluster_size : int
        Questions per cluster.
    icc : float in [0, 1]
        True intra-cluster correlation (the model of
        :func:`~evalstats_core.simulate.clustered_binary_eval`).
    mean : float in (0, 1), default 0.7
    reps : int, default 2000
    confidence : float, default 0.95
    rng : seed or numpy.random.Generator, optional

    Returns
    -------
    ClusteringCoverage

    Notes
    -----
    Naive: the CLT SE of N = n_clusters * cluster_size 0/1 scores, ``sqrt(p(1-p)/(N-1))``.
    Clustered: CR1, ``G/(G-1) * sum_c (sum_i (s_ic - p))^2 / N^2`` (Miller 2024, Eq. 4 and App. A;
    Cameron & Miller 2015, Sec. IIC). The naive interval covers less and less as ``icc`` and the
    cluster size grow; CR1 stays near nominal given enough clusters (below ~30 it under-covers a bit).
    """
    g = check_positive_int(n_clusters, "n_clusters", minimum=2)
    m = check_positive_int(cluster_size, "cluster_size")
    rho = check_unit(icc, "icc")
    mu = check_open_unit(mean, "mean")
    total = check_positive_int(reps, "reps")
    z = z_for(confidence)
    gen = np.random.default_rng(rng)
    big_n = g * m
    sums = np.zeros(4)  # naive hits, clustered hits, naive SE sum, clustered SE sum
    step = max(1, _CHUNK // g)
    for start in range(0, total, step):
        r = min(step, total - start)
        counts = gen.binomial(m, _cluster_rates(gen, (r, g), mu, rho))  # (r, g) correct per cluster
        p = counts.sum(axis=1) / big_n
        se_naive = np.sqrt(p * (1.0 - p) / (big_n - 1))  # sd of N 0/1 scores / sqrt(N)
        se_cr1 = np.sqrt(_cr1_variance(counts, m))
        err = np.abs(p - mu)
        sums += (np.count_nonzero(err <= z * se_naive), np.count_nonzero(err <= z * se_cr1),
                 se_naive.sum(), se_cr1.sum())
    deff = 1.0 + (m - 1) * rho
    return ClusteringCoverage(
        n_clusters=g, cluster_size=m, reps=total, icc=rho, mean=mu, confidence=float(confidence),
        design_effect=deff, true_se=math.sqrt(mu * (1.0 - mu) * deff / big_n),
        naive_coverage=float(sums[0] / total), clustered_coverage=float(sums[1] / total),
        naive_mean_se=float(sums[2] / total), clustered_mean_se=float(sums[3] / total),
    )


def _cr1_variance(counts: np.ndarray, cluster_size: int) -> np.ndarray:
    """CR1 variance of the mean for equal-sized clusters of 0/1 scores, from per-cluster counts.

    ``counts`` has shape (..., G): correct answers per cluster. Because every cluster has the same
    size, a cluster's residual total is ``count_c - m p`` and the whole estimator is one reduction
    over the last axis; the general CR1 on arbitrary cluster codes lives in ``clustering.py``.
    """
    g = counts.shape[-1]
    big_n = g * cluster_size
    p = counts.sum(axis=-1, keepdims=True) / big_n
    resid = counts - cluster_size * p  # sum_i (s_ic - p) for each cluster
    return g / (g - 1) * np.sum(resid**2, axis=-1) / big_n**2  # CR1: Miller 2024, Eq. 4 with G/(G-1)


def _check_methods(methods: Any) -> tuple[str, ...]:
    chosen = (methods,) if isinstance(methods, str) else tuple(methods)
    if not chosen:
        raise EvalStatsError(f"methods ({methods!r}) is empty; pass e.g. {PROPORTION_METHODS!r}")
    for m in chosen:
        _check_method(m)
    if len(set(chosen)) != len(chosen):
        raise EvalStatsError(f"methods ({methods!r}) lists a method twice; list each once")
    return chosen

