"""The cluster means' interval (issue 20: one model's mean when one cluster holds most of the questions).

Its quantile is checked against t, the two-cluster closed form and a Monte Carlo of its own statistic; the
default interval is checked for coverage on designs where the old default under-covered (seen to fail on
the old code: 970 + 10 + 10 + 10 0/1 answers covered 84-89%, 990 + 10 partial-credit scores 72-75%), and
the vectorised intervals behind the coverage tables are checked against ``summarize``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import t as student_t

from evalstats_core.cluster_means import (
    cluster_means_ci,
    cluster_means_q,
    few_clusters_worth,
    logit_cluster_means_ci,
    two_cluster_ci,  # two_clusters merged into cluster_means (issue 38)
)
from evalstats_core.clustering import summarize
from evalstats_core.edge_coverage import (
    clustered_binary_intervals,
    clustered_mean_intervals,
    draw_cluster_counts,
    draw_cluster_means,
)
from evalstats_core.errors import EvalStatsWarning
from evalstats_core.vocabulary import INTERVAL_LABELS


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        return fn(*args, **kwargs)


@pytest.mark.parametrize("g", [2, 3, 4, 7, 30])
def test_equal_shares_give_students_t_on_g_minus_1_df(g):
    for level in (0.9, 0.95, 0.99):
        assert cluster_means_q([5] * g, confidence=level) == pytest.approx(student_t.ppf(0.5 + level / 2, g - 1),
                                                                          rel=1e-9)


@pytest.mark.parametrize("f1", [0.6, 0.9, 0.99])
def test_two_clusters_give_the_two_cluster_closed_form(f1):
    sizes = [1000 * f1, 1000 * (1 - f1)]
    means = np.array([0.41, 0.47])
    mean = float(means @ np.array(sizes) / 1000)
    se = math.sqrt(f1 * (1 - f1)) * 0.06  # CR2's SE of two clusters
    assert tuple(cluster_means_ci(mean, means, sizes)) == pytest.approx(tuple(two_cluster_ci(mean, se, sizes)),
                                                                         abs=1e-12)


@pytest.mark.parametrize("shares", [(0.9, 0.05, 0.05), (0.7, 0.2, 0.1), (0.94, 0.02, 0.02, 0.02)])
def test_quantile_matches_a_monte_carlo_of_normal_equal_variance_means(shares):
    """P(|T| <= q) = 0.95 for cluster means normal with equal variance, whatever the shares."""
    f = np.asarray(shares)
    e = np.random.default_rng(2031).standard_normal((400_000, f.size))
    stat = np.abs(e @ f) / (np.std(e, axis=1, ddof=1) * math.sqrt(f @ f))
    assert np.mean(stat <= cluster_means_q(f)) == pytest.approx(0.95, abs=0.0015)


def test_few_clusters_worth_is_kish_below_two():
    assert few_clusters_worth([970, 10, 10, 10]) and few_clusters_worth([700, 200, 100])
    assert not few_clusters_worth([600, 300, 100]) and not few_clusters_worth([37] * 27)
    assert not few_clusters_worth([231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1])  # SWE-bench-like


def test_one_big_cluster_of_0_1_answers_keeps_its_level():
    """970 + 10 + 10 + 10 questions at 50% and 80%: the old default (CR2 t) covered 84-89% (seen to fail)."""
    gen = np.random.default_rng(2032)
    sz = np.array([970.0, 10, 10, 10])
    for mean, icc in ((0.5, 0.1), (0.8, 0.05)):
        iv = clustered_binary_intervals(draw_cluster_counts(sz, mean, icc, 1500, gen), sz, profile=True)
        assert np.mean((iv["t"][0] <= mean) & (mean <= iv["t"][1])) < 0.91  # the design is hard for t
        assert np.mean((iv["default"][0] <= mean) & (mean <= iv["default"][1])) >= 0.93, (mean, icc)


def test_990_plus_10_at_80_percent_and_icc_03_keeps_its_level():
    """The J-shaped big cluster: the raw-scale interval covered 89-90%; with the logit scale at least 93%."""
    gen = np.random.default_rng(2033)
    sz = np.array([990.0, 10])
    iv = clustered_binary_intervals(draw_cluster_counts(sz, 0.8, 0.3, 2000, gen), sz)
    low, high = iv["default"]
    assert np.mean((low <= 0.8) & (0.8 <= high)) >= 0.93


@pytest.mark.parametrize("kind", ["partial", "k4"])
def test_scores_in_0_1_in_two_unequal_clusters_keep_their_level(kind):
    """Partial credit / K = 4 answers in 990 + 10 and 900 + 100 at 50%: CR2's t covered 72-92% (seen to fail)."""
    gen = np.random.default_rng(2034)
    for sizes in ((990.0, 10.0), (900.0, 100.0)):
        sz = np.asarray(sizes)
        iv = clustered_mean_intervals(draw_cluster_means(sz, 0.5, 0.1, 1500, gen, kind=kind), sz)
        assert np.mean((iv["default"][0] <= 0.5) & (0.5 <= iv["default"][1])) >= 0.93, sizes


def test_vectorised_mean_intervals_equal_summarize_and_label_says_cluster_means():
    gen = np.random.default_rng(2035)
    for sizes in ((990, 10), (900, 50, 50), (300, 300, 300)):
        sz = np.asarray(sizes, dtype=np.float64)
        labels = np.repeat(np.arange(sz.size), sizes)
        for _ in range(5):
            scores = gen.beta(2.0, 2.0, size=int(sz.sum())) * 0.5 + 0.25 * (labels == 0)
            means = np.bincount(labels, weights=scores) / sz
            m2 = np.bincount(labels, weights=(scores - means[labels]) ** 2)
            for scale in (1.0, 4.0):  # in [0, 1]: the quasi-binomial rule (it reads m2); up to 3: unbounded
                got = clustered_mean_intervals(means[None, :] * scale, sz, m2=m2[None, :] if scale == 1.0 else None)
                s = quiet(summarize, scores * scale, labels)
                assert (s.ci_low, s.ci_high) == pytest.approx((got["default"][0][0], got["default"][1][0]), abs=1e-9)
                other = "quasi-binomial" if scale == 1.0 else "normal"  # 3 clusters far apart: few effective n
                assert s.interval == ("cluster-means" if few_clusters_worth(sz) else other)
    assert INTERVAL_LABELS["cluster-means"].startswith("cluster means")


def test_0_1_default_stays_inside_0_1_and_contains_clipped_t():
    gen = np.random.default_rng(2036)
    sz = np.array([900, 50, 50])
    labels = np.repeat(np.arange(3), sz)
    for mean in (0.5, 0.97):
        scores = (gen.random(1000) < mean).astype(float)
        auto, t = quiet(summarize, scores, labels), quiet(summarize, scores, labels, interval="normal")
        assert auto.interval == "cluster-means"
        assert 0.0 <= auto.ci_low <= max(t.ci_low, 0.0) and min(t.ci_high, 1.0) <= auto.ci_high <= 1.0


def test_logit_interval_is_inside_0_1_with_perfect_clusters():
    low, high = logit_cluster_means_ci([900, 50, 50], [900, 50, 50])
    assert 0.0 < low < 1.0 and 0.99 < high < 1.0
