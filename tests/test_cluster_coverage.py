"""Tests for evalstats_core.cluster_coverage: the vectorised experiment against a slow loop that calls
summarize(..., method=...) and runs the wild bootstrap draw by draw, reproducibility, the qualitative
truth (CR1 + z under-covers with one dominant cluster, CR2 does not) and validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from evalstats_core import EvalStatsError, summarize
from evalstats_core._clusters import cluster_sizes, cr2_se_df
from evalstats_core.cluster_coverage import (
    _WEBB,
    DOMINANT_CLUSTER_SIZES,
    FewClustersCoverage,
    few_clusters_coverage,
    unequal_sizes,
)
from evalstats_core.simulate import _cluster_rates


def _slow(sizes, icc, mean, reps, n_boot, seed):
    """Readable version: one eval at a time, summarize() for the SEs, one bootstrap draw at a time."""
    n_g = np.asarray(sizes)
    g = n_g.size
    clusters = np.repeat(np.arange(g), n_g)
    gen = np.random.default_rng(seed)
    counts = gen.binomial(n_g, _cluster_rates(gen, (reps, g), mean, icc))  # reps <= one chunk
    w_gen = np.random.default_rng([int(gen.integers(1 << 62)), 1])
    v = _WEBB[w_gen.integers(6, size=(n_boot, g))]  # g <= 12: Webb weights
    t_g1 = stats.t.ppf(0.975, g - 1)
    hits = dict.fromkeys(("cr1_z", "cr1_t", "cr2", "wild"), 0)
    for c in counts:
        # a cluster's c_g correct answers come first; the order inside a cluster does not matter
        scores = np.concatenate([np.r_[np.ones(k), np.zeros(m - k)] for k, m in zip(c, n_g, strict=True)])
        s1 = summarize(scores, clusters, method="cr1")
        s2 = summarize(scores, clusters, method="cr2", interval="normal")  # the CR2 t interval itself
        hits["cr1_z"] += s1.ci_low <= mean <= s1.ci_high
        hits["cr1_t"] += abs(s1.mean - mean) <= t_g1 * s1.se
        hits["cr2"] += s2.ci_low <= mean <= s2.ci_high
        t = abs(s1.mean - mean) / s1.se if s1.se > 0 else math.inf
        exceed = 0
        for w in v:
            star = mean + w[clusters] * (scores - mean)  # restricted wild bootstrap sample
            b = summarize(star, clusters, method="cr1")
            if b.se > 0 and abs(b.mean - mean) / b.se > (1 + 1e-9) * t + 1e-9:
                exceed += 1
        hits["wild"] += exceed / n_boot > 0.05
    return {k: h / reps for k, h in hits.items()}


@pytest.mark.filterwarnings("ignore::evalstats_core.EvalStatsWarning")
@pytest.mark.parametrize(("sizes", "icc", "mean"), [((20, 9, 5, 3, 2, 1), 0.2, 0.6), ((6, 6, 6, 6), 0.05, 0.8)])
def test_matches_slow_loop(sizes, icc, mean):
    fast = few_clusters_coverage(sizes, icc, mean=mean, reps=40, n_boot=29, rng=7)
    assert fast.coverage == pytest.approx(_slow(sizes, icc, mean, 40, 29, 7), abs=1e-12)


def test_cr2_df_matches_core_kernel():
    res = few_clusters_coverage(DOMINANT_CLUSTER_SIZES, 0.1, reps=10, wild=False, rng=0)
    codes = np.repeat(np.arange(12), DOMINANT_CLUSTER_SIZES)
    _, df = cr2_se_df(np.zeros(12), cluster_sizes(codes), 500)
    assert res.cr2_df == pytest.approx(df, rel=1e-12)
    assert res.n == 500 and res.n_clusters == 12 and res.largest_share == pytest.approx(0.462)


def test_widths_match_slow_formula():
    res = few_clusters_coverage((30, 10, 10), 0.1, reps=50, wild=False, rng=3)
    assert res.mean_width["cr1_t"] / res.mean_width["cr1_z"] == pytest.approx(
        stats.t.ppf(0.975, 2) / stats.norm.ppf(0.975), rel=1e-12
    )
    assert res.methods == ("cr1_z", "cr1_t", "cr2") and res.wild_reps == 0


def test_seeded_and_prefix_stable():
    a = few_clusters_coverage(DOMINANT_CLUSTER_SIZES, 0.1, reps=300, rng=5)
    b = few_clusters_coverage(DOMINANT_CLUSTER_SIZES, 0.1, reps=300, rng=5)
    assert a == b
    # turning the wild bootstrap off leaves the analytic columns unchanged
    c = few_clusters_coverage(DOMINANT_CLUSTER_SIZES, 0.1, reps=300, wild=False, rng=5)
    assert {k: c.coverage[k] for k in c.methods} == {k: a.coverage[k] for k in c.methods}
    # the first 256 replications (one chunk) do not depend on how many follow: one more adds 0 or 1 hit
    d = few_clusters_coverage((5, 5, 5), 0.3, reps=256, wild=False, rng=5)
    e = few_clusters_coverage((5, 5, 5), 0.3, reps=257, wild=False, rng=5)
    for m in d.methods:
        assert round(e.coverage[m] * 257) - round(d.coverage[m] * 256) in (0, 1)


def test_dominant_cluster_truth():
    res = few_clusters_coverage(DOMINANT_CLUSTER_SIZES, 0.1, reps=2000, n_boot=199, rng=2024)
    assert isinstance(res, FewClustersCoverage)
    assert res.coverage["cr1_z"] < 0.90
    assert res.coverage["cr1_t"] < 0.90
    assert res.coverage["cr2"] >= 0.92
    assert res.coverage["wild"] >= 0.92
    assert res.mean_width["cr2"] > res.mean_width["cr1_z"]


def test_many_equal_clusters_all_near_nominal():
    res = few_clusters_coverage(unequal_sizes(1000, 50, 0.02), 0.05, reps=2000, n_boot=99, rng=11)
    for m in res.methods:
        assert abs(res.coverage[m] - 0.95) < 4 * res.mc_se[m] + 0.01


def test_unequal_sizes():
    assert unequal_sizes(500, 12, 0.462) == (231, 25, 25, 25, 25, 25, 24, 24, 24, 24, 24, 24)
    assert unequal_sizes(100, 4, 0.0) == (25, 25, 25, 25)
    assert unequal_sizes(10, 4, 1.0) == (7, 1, 1, 1)
    with pytest.raises(EvalStatsError, match="exceeds n"):
        unequal_sizes(3, 4, 0.5)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"sizes": (5,)}, "at least 2"),
        ({"sizes": (5, 0)}, "at least 1"),
        ({"sizes": (5, 2.5)}, "whole numbers"),
        ({"sizes": "ab"}, "sequence"),
        ({"icc": 1.5}, "icc"),
        ({"mean": 1.0}, "mean"),
        ({"wild_reps": 20}, "exceeds reps"),
    ],
)
def test_validation(kwargs, match):
    args = {"sizes": (5, 5), "icc": 0.1, "reps": 10} | kwargs
    with pytest.raises(EvalStatsError, match=match):
        few_clusters_coverage(args.pop("sizes"), args.pop("icc"), **args)
