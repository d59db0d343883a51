"""Tests for evalstats_core.coverage: exact oracles for the coverage experiment, statsmodels for the CR1
shortcut, reproducibility and validation of the pooling and clustering experiments."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats

from evalstats_core import EvalStatsError, summarize
from evalstats_core import coverage as cov
from evalstats_core.coverage import (
    ClusteringCoverage,
    CoverageResult,
    PoolingCoverage,
    clustering_coverage,
    coverage_experiment,
    pooling_coverage,
)
from evalstats_core.intervals import PROPORTION_METHODS, proportion_ci_arrays
from evalstats_core.simulate import clustered_binary_eval


def _exact_coverage_uniform(n: int, method: str, confidence: float = 0.95) -> tuple[float, float]:
    """Exact coverage and mean width when theta ~ U(0, 1).

    Then k is uniform on 0..n and theta | k ~ Beta(k + 1, n - k + 1), so
    coverage = mean_k [F_k(high_k) - F_k(low_k)] with F_k = scipy.stats.beta(k + 1, n - k + 1).cdf.
    """
    k = np.arange(n + 1)
    low, high = proportion_ci_arrays(k, n, interval=method, confidence=confidence)
    post = stats.beta(k + 1, n - k + 1)
    return float(np.mean(post.cdf(high) - post.cdf(low))), float(np.mean(high - low))


def _exact_coverage_fixed(n: int, theta: float, method: str) -> float:
    """sum_k binom.pmf(k; n, theta) * [low_k <= theta <= high_k] (scipy.stats.binom.pmf)."""
    k = np.arange(n + 1)
    low, high = proportion_ci_arrays(k, n, interval=method)
    return float(stats.binom.pmf(k, n, theta) @ ((low <= theta) & (theta <= high)))


# ------------------------------------------------------------------------------------------------
# coverage experiment (Bowyer et al. 2025)
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 10, 30, 100])
def test_coverage_and_width_match_the_exact_values(n):
    res = coverage_experiment(n, reps=300_000, rng=n)
    for m in PROPORTION_METHODS:
        exact_cov, exact_width = _exact_coverage_uniform(n, m)
        assert abs(res.coverage[m] - exact_cov) < 4.5 * res.mc_se[m] + 1e-9, (m, res.coverage[m], exact_cov)
        assert res.mean_width[m] == pytest.approx(exact_width, rel=0.01), m


def test_coverage_shows_what_the_slides_show():
    small = coverage_experiment(3, reps=200_000, rng=1)
    large = coverage_experiment(100, reps=200_000, rng=2)
    assert small.coverage["wald"] < 0.55  # at n = 3 half the evals are 0/3 or 3/3: zero width
    assert large.coverage["wald"] < 0.935  # still short of 95% at n = 100
    for n, res in ((3, small), (100, large)):
        # the equal-tailed interval is exactly nominal in expectation; keeping the edge at 0/n and n/n
        # adds P(k = n, theta > q) = tail / (n + 1) at each end: 0.95 + 0.05 / (n + 1) in all
        assert abs(res.coverage["bayes"] - (0.95 + 0.05 / (n + 1))) < 0.004
        assert res.coverage["clopper_pearson"] > 0.96  # conservative
        assert res.mean_width["clopper_pearson"] > res.mean_width["wilson"]
    assert abs(large.coverage["wilson"] - 0.95) < 0.005
    assert abs(small.coverage["wilson"] - 0.95) < 0.015


@pytest.mark.parametrize("theta", [0.02, 0.3, 0.5, 0.97])
def test_fixed_theta_matches_the_binomial_sum(theta):
    res = coverage_experiment(20, theta=theta, reps=200_000, rng=3)
    assert res.theta == theta
    for m in PROPORTION_METHODS:
        exact = _exact_coverage_fixed(20, theta, m)
        assert abs(res.coverage[m] - exact) < 4.5 * math.sqrt(exact * (1 - exact) / res.reps) + 1e-9, m
    assert _exact_coverage_fixed(20, theta, "clopper_pearson") >= 0.95  # never under-covers
    # the outcome shares follow Binomial(20, theta): scipy.stats.binom.pmf(k, 20, theta)
    shares = np.array(res.k_shares)
    assert shares.shape == (21,) and shares.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(shares, stats.binom.pmf(np.arange(21), 20, theta), atol=0.004)


def test_coverage_reproducible_and_chunked(monkeypatch):
    a = coverage_experiment(10, reps=50_000, rng=11)
    b = coverage_experiment(10, reps=50_000, rng=np.random.default_rng(11))
    c = coverage_experiment(10, reps=50_000, rng=12)
    assert a == b and a != c
    monkeypatch.setattr(cov, "_CHUNK", 7_000)  # 50_000 is not a multiple: the last chunk is partial
    d = coverage_experiment(10, reps=50_000, rng=11)
    assert d.reps == 50_000
    assert sum(d.k_shares) == pytest.approx(1.0)
    np.testing.assert_allclose(d.k_shares, 1 / 11, atol=0.006)  # theta ~ U(0, 1): k uniform on 0..n
    exact, _ = _exact_coverage_uniform(10, "wilson")
    assert abs(d.coverage["wilson"] - exact) < 4.5 * d.mc_se["wilson"]


def test_coverage_result_fields_rows_and_frame():
    res = coverage_experiment(30, methods=("wilson", "wald"), confidence=0.9, reps=20_000, rng=4)
    assert isinstance(res, CoverageResult) and res.methods == ("wilson", "wald")
    assert (res.n, res.confidence, res.reps, res.theta) == (30, 0.9, 20_000, None)
    assert all(type(v) is float for d in (res.coverage, res.mean_width, res.mc_se) for v in d.values())
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.n = 3
    rows = res.rows()
    assert [r["method"] for r in rows] == ["wilson", "wald"] and rows[1]["coverage"] == res.coverage["wald"]
    frame = res.to_frame()
    assert list(frame.columns) == ["method", "n", "confidence", "theta", "coverage", "mean_width", "mc_se"]
    assert frame["theta"].isna().all() and len(frame) == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"methods": ("wilson", "Bayes")}, r"interval \('Bayes'\).*use 'bayes'"),
        ({"methods": ("wald", "wald")}, "twice"),
        ({"methods": ()}, "empty"),
        ({"theta": 1.5}, r"theta \(1\.5\)"),
        ({"reps": 0}, r"reps \(0\)"),
        ({"confidence": 0}, r"confidence \(0\)"),
    ],
)
def test_coverage_validation(kwargs, message):
    with pytest.raises(EvalStatsError, match=message):
        coverage_experiment(10, **kwargs)


# ------------------------------------------------------------------------------------------------
# pooling and clustering coverage
# ------------------------------------------------------------------------------------------------


def test_pooling_the_answers_undercovers():
    res = pooling_coverage(200, 5, reps=4000, rng=5)
    assert isinstance(res, PoolingCoverage)
    # uniform difficulty, k = 5: true var (1/12 + 1/30)/n; pooled SE assumes (1/4)/(5n)
    assert res.true_se == pytest.approx(math.sqrt((1 / 12 + 1 / 30) / 200))
    assert res.pooled_coverage < 0.86
    assert abs(res.question_coverage - 0.95) < 0.015
    assert res.question_mean_se == pytest.approx(res.true_se, rel=0.03)
    assert res.pooled_mean_se == pytest.approx(math.sqrt(0.25 / 1000), rel=0.03)


def test_pooling_with_one_answer_per_question_is_the_same_interval():
    res = pooling_coverage(50, 1, reps=2000, difficulty=(2.0, 5.0), rng=6)
    assert res.true_mean == pytest.approx(2 / 7)
    assert res.pooled_mean_se == pytest.approx(res.question_mean_se, rel=1e-12)
    assert res.pooled_coverage == pytest.approx(res.question_coverage, abs=1 / res.reps)


def test_clustering_naive_undercovers_and_cr1_holds():
    res = clustering_coverage(100, 10, 0.3, reps=4000, rng=7)
    assert isinstance(res, ClusteringCoverage)
    assert res.design_effect == pytest.approx(1 + 9 * 0.3)
    assert res.naive_coverage < 0.8
    assert abs(res.clustered_coverage - 0.95) < 0.015
    assert res.clustered_mean_se == pytest.approx(res.true_se, rel=0.03)
    assert res.naive_mean_se == pytest.approx(res.true_se / math.sqrt(res.design_effect), rel=0.03)
    flat = clustering_coverage(100, 10, 0.0, reps=4000, rng=8)
    assert abs(flat.naive_coverage - 0.95) < 0.015 and abs(flat.clustered_coverage - 0.95) < 0.015


def test_cr1_shortcut_matches_statsmodels_and_summarize():
    data = clustered_binary_eval(40, 6, 0.2, rng=9)
    counts = data.scores.reshape(40, 6).sum(axis=1)
    fast = math.sqrt(float(cov._cr1_variance(counts, 6)))
    # oracle: sm.OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": codes}).bse[0]
    # (its CR1 factor G/(G-1) * (N-1)/(N-K) is G/(G-1) with K = 1)
    ols = sm.OLS(data.scores, np.ones(data.scores.size)).fit(
        cov_type="cluster", cov_kwds={"groups": data.clusters}
    )
    assert fast == pytest.approx(float(ols.bse[0]), rel=1e-10)
    assert fast == pytest.approx(summarize(data.scores, data.clusters).se, rel=1e-10)


def test_pooling_and_clustering_reproducible_and_validated():
    assert pooling_coverage(20, 3, reps=500, rng=1) == pooling_coverage(20, 3, reps=500, rng=1)
    assert clustering_coverage(5, 4, 0.5, reps=500, rng=1) == clustering_coverage(5, 4, 0.5, reps=500, rng=1)
    with pytest.raises(EvalStatsError, match=r"n_clusters \(1\)"):
        clustering_coverage(1, 10, 0.1)
    with pytest.raises(EvalStatsError, match=r"icc \(1\.2\)"):
        clustering_coverage(10, 10, 1.2)
    with pytest.raises(EvalStatsError, match=r"n \(1\)"):
        pooling_coverage(1, 3)
    with pytest.raises(EvalStatsError, match="difficulty"):
        pooling_coverage(10, 3, difficulty=(0.0, 1.0))
