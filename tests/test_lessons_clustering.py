"""Chapter 3 lessons and charts: the paper's table, the simulated clustered eval, coverage.

Oracles: statsmodels' OLS-on-a-constant standard errors (naive and cluster-robust), a slow per-cluster
loop for the bars, the paper's printed numbers; hypothesis properties for the invariants.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalstats_core.charts import clustering as charts
from evalstats_core.clustering import design_effect
from evalstats_core.errors import EvalStatsError
from evalstats_core.lessons import clustering as lesson
from evalstats_core.simulate import clustered_binary_eval


def statsmodels_se(scores, groups=None):
    """Oracle SE of a mean: OLS on a constant, plain (ddof=1) or cluster-robust (CR1)."""
    import statsmodels.api as sm

    y = np.asarray(scores, float)
    x = np.ones(y.size)
    if groups is None:
        # sm.OLS(y, ones).fit() -> bse = sd(y, ddof=1) / sqrt(n)
        return float(sm.OLS(y, x).fit().bse[0])
    # sm.OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": g}) -> CR1 with G/(G-1)
    return float(sm.OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": np.asarray(groups)}).bse[0])


# ------------------------------------------------------------------------- the paper's numbers


def test_paper_table_reproduces_the_published_ratios():
    """DROP 3.05x (588 clusters, 9,622 Qs), RACE-H 1.10x (1,045, 3,498), MGSM 1.88x (250, 2,500)."""
    t = lesson.paper_table().set_index("eval")
    assert list(t.index) == ["DROP", "RACE-H", "MGSM"]
    assert list(t["label"]) == ["3.05x", "1.10x", "1.88x"]
    assert list(t["n_clusters"]) == [588, 1045, 250]
    assert list(t["n_questions"]) == [9622, 3498, 2500]
    assert list(t["se_clustered"]) == [1.34, 0.51, 1.62]
    assert list(t["se_naive"]) == [0.44, 0.46, 0.86]
    # the printed ratios agree with the rounded SEs to the rounding of those SEs
    recomputed = t["se_clustered"] / t["se_naive"]
    assert np.all(np.abs(recomputed - t["ratio"]) < 0.01)


def test_paper_table_implied_quantities():
    """Design effect = ratio^2, effective n = n / deff, and the implied ICC inverts 1 + (m-1) rho."""
    t = lesson.paper_table().set_index("eval")
    drop = t.loc["DROP"]
    assert drop["deff"] == pytest.approx(3.05**2)
    assert drop["n_eff"] == pytest.approx(9622 / 3.05**2)
    assert round(drop["n_eff"]) == 1034  # "the information of only ~1,000 independent observations"
    for _, row in t.iterrows():
        assert row["cluster_size"] == pytest.approx(row["n_questions"] / row["n_clusters"])
        assert design_effect(row["cluster_size"], row["implied_icc"]) == pytest.approx(row["deff"])
    assert t.loc["MGSM", "implied_icc"] == pytest.approx((1.88**2 - 1) / 9)


# ------------------------------------------------------------------------- the simulated eval


def test_simulate_eval_matches_statsmodels_and_the_generator():
    """Naive and clustered SEs equal statsmodels' on the very eval the seeded generator draws."""
    sim = lesson.simulate_eval(60, 8, 0.4, seed=11)
    raw = clustered_binary_eval(60, 8, 0.4, mean=0.7, rng=11)
    assert sim.naive.n == 480 and sim.clustered.n_clusters == 60
    assert sim.naive.mean == pytest.approx(raw.scores.mean())
    assert sim.naive.se == pytest.approx(statsmodels_se(raw.scores), rel=1e-10)
    assert sim.clustered.se == pytest.approx(statsmodels_se(raw.scores, raw.clusters), rel=1e-10)
    assert sim.ratio == pytest.approx(sim.clustered.se / sim.naive.se)
    assert sim.deff_theory == pytest.approx(1 + 7 * 0.4)
    assert sim.n_eff_theory == pytest.approx(480 / 3.8)
    methods = list(sim.intervals["method"])
    assert methods == ["naive (CLT)", "clustered (CR1)", "block bootstrap"]
    assert sim.intervals["se"].iloc[1] == pytest.approx(sim.clustered.se)
    np.testing.assert_allclose(sim.intervals["width"], sim.intervals["ci_high"] - sim.intervals["ci_low"])
    assert sim.bootstrap.n_boot == 1000


def test_cluster_bars_match_a_slow_loop():
    """Each cluster's right/wrong counts and its rank by accuracy, checked cluster by cluster."""
    sim = lesson.simulate_eval(25, 6, 0.5, seed=3)
    raw = clustered_binary_eval(25, 6, 0.5, mean=0.7, rng=3)
    bars = sim.bars
    assert len(bars) == 50
    right = bars[bars["outcome"] == "right"].set_index("cluster")
    wrong = bars[bars["outcome"] == "wrong"].set_index("cluster")
    for c in range(25):
        mine = raw.scores[raw.clusters == c]
        assert right.loc[c + 1, "count"] == int(mine.sum())
        assert wrong.loc[c + 1, "count"] == int(6 - mine.sum())
        assert right.loc[c + 1, "share_high"] == pytest.approx(mine.mean())
        assert wrong.loc[c + 1, "share_low"] == pytest.approx(mine.mean())
    ranked = right.sort_values("rank")["accuracy"].to_numpy()
    assert np.all(np.diff(ranked) >= 0)
    assert sorted(right["rank"]) == list(range(25))


def test_high_correlation_inflates_the_clustered_se():
    """With rho = 0.6 and 20 questions per cluster the measured design effect is far above 1 and the
    measured ICC is near the true one."""
    sim = lesson.simulate_eval(300, 20, 0.6, seed=5)
    assert sim.clustered.deff > 6
    assert abs(sim.icc_hat - 0.6) < 0.1
    assert sim.ratio > 2.5


def test_few_clusters_carry_the_warning_and_many_do_not():
    """Below 30 clusters the analysis says so (the page shows it live); at 30 it is silent."""
    assert any("30" in w for w in lesson.simulate_eval(12, 5, 0.2, seed=1).warnings)
    assert lesson.simulate_eval(30, 5, 0.2, seed=1).warnings == ()


def test_same_seed_same_eval_and_new_seed_new_eval():
    a = lesson.simulate_eval(40, 5, 0.3, seed=7)
    b = lesson.simulate_eval(40, 5, 0.3, seed=7)
    c = lesson.simulate_eval(40, 5, 0.3, seed=8)
    assert a.clustered.se == b.clustered.se and a.bootstrap.ci_low == b.bootstrap.ci_low
    assert not a.bars.equals(c.bars)


def test_one_question_per_cluster_has_no_icc_and_unit_design_effect():
    sim = lesson.simulate_eval(50, 1, 0.5, seed=2)
    assert math.isnan(sim.icc_hat)
    assert sim.deff_theory == 1.0
    assert sim.clustered.se == pytest.approx(sim.naive.se)


def test_bad_settings_raise_the_core_error():
    with pytest.raises(EvalStatsError):
        lesson.simulate_eval(1, 5, 0.3)
    with pytest.raises(EvalStatsError):
        lesson.simulate_eval(10, 5, 1.5)


@settings(max_examples=40, deadline=None)
@given(k=st.integers(2, 60), m=st.integers(1, 12), icc=st.floats(0.0, 0.95), seed=st.integers(0, 10_000))
def test_simulated_eval_invariants(k, m, icc, seed):
    """Counts add up, intervals are ordered around the estimate, theory matches the formula."""
    sim = lesson.simulate_eval(k, m, icc, seed=seed, n_boot=200)
    assert sim.naive.n == k * m
    assert int(sim.bars["count"].sum()) == k * m
    assert sim.deff_theory == pytest.approx(1 + (m - 1) * icc)
    iv = sim.intervals
    assert np.all(iv["ci_low"] <= iv["estimate"] + 1e-12) and np.all(iv["estimate"] <= iv["ci_high"] + 1e-12)
    assert sim.bootstrap.n_clusters == k


# ------------------------------------------------------------------------- coverage


def test_coverage_naive_fails_and_clustered_holds():
    """rho = 0.5, clusters of 20: the naive interval covers well under 95%, the clustered one near it."""
    cov = lesson.coverage(200, 20, 0.5, reps=1000, seed=1)
    assert cov.naive < 0.6
    assert abs(cov.clustered - 0.95) < 0.03
    assert cov.design_effect == pytest.approx(1 + 19 * 0.5)
    f = cov.frame.set_index("method")
    assert np.all(f["mc_low"] <= f["coverage"]) and np.all(f["coverage"] <= f["mc_high"])
    half = 1.959964 * math.sqrt(cov.naive * (1 - cov.naive) / 1000)
    assert f.loc["naive (CLT)", "mc_half"] == pytest.approx(half, rel=1e-6)
    assert f.loc["naive (CLT)", "label"] == f"{cov.naive:.1%} ± {half * 100:.1f}"
    assert f.loc["naive (CLT)", "mean_se"] < f.loc["clustered (CR1)", "mean_se"]


def test_coverage_reps_budget():
    """1,000 evals up to 100 clusters, then a fixed budget of cluster draws, never below 300 evals."""
    assert [lesson.coverage_reps(k) for k in (5, 100, 200, 300, 10_000)] == [1000, 1000, 500, 333, 300]
    assert lesson.coverage(200, 5, 0.2, seed=1).reps == 500


def test_coverage_without_correlation_both_hold():
    cov = lesson.coverage(100, 10, 0.0, reps=2000, seed=4)
    assert abs(cov.naive - 0.95) < 0.02 and abs(cov.clustered - 0.95) < 0.02


# ------------------------------------------------------------------------- charts


def _spec(chart) -> dict:
    spec = chart.to_dict()
    text = json.dumps(spec)
    for banned in ('"ci0"', '"ci1"', '"extent"', '"bootstrap"', '"aggregate"'):
        assert banned not in text
    return spec


def test_cluster_strip_draws_one_bar_pair_per_cluster_and_the_overall_rule():
    sim = lesson.simulate_eval(30, 4, 0.3, seed=1)
    spec = _spec(charts.cluster_strip(sim.bars, overall=sim.naive.mean))
    bars, rule = spec["layer"]
    assert bars["mark"]["type"] == "bar"
    assert bars["encoding"]["y"]["field"] == "share_low" and bars["encoding"]["y2"]["field"] == "share_high"
    assert rule["encoding"]["y"]["datum"] == pytest.approx(sim.naive.mean)
    assert len(spec["datasets"][spec["data"]["name"]]) == 60


def test_coverage_and_paper_charts():
    cov = lesson.coverage(50, 5, 0.3, reps=200, seed=1)
    spec = _spec(charts.coverage_chart(cov.frame))
    assert any(layer.get("encoding", {}).get("x", {}).get("datum") == 0.95 for layer in spec["layer"])
    spec = _spec(charts.paper_ratios(lesson.paper_table()))
    rows = spec["datasets"][spec["data"]["name"]]
    assert [r["label"] for r in rows] == ["3.05x", "1.10x", "1.88x"]


# ------------------------------------------------------------------------- few and unequal clusters


def test_few_clusters_lesson_matches_the_core_and_the_chart_compiles():
    from evalstats_core.charts import compile_spec
    from evalstats_core.cluster_coverage import DOMINANT_CLUSTER_SIZES, few_clusters_coverage

    fc = lesson.few_clusters("dominant", 3, 0.9, 0.1, seed=4, reps=300, n_boot=99)  # G and share ignored
    core = few_clusters_coverage(DOMINANT_CLUSTER_SIZES, 0.1, reps=300, n_boot=99, rng=4)
    assert fc.result == core
    assert list(fc.frame["key"]) == ["cr1_z", "cr1_t", "cr2", "wild"]
    assert list(fc.frame["coverage"]) == [core.coverage[m] for m in core.methods]
    assert fc.frame["label"][2] == f"{core.coverage['cr2']:.1%} ± {1.959963984540054 * core.mc_se['cr2'] * 100:.1f}"
    assert math.isnan(fc.frame["mean_width"][3])
    spec = compile_spec(charts.few_clusters_chart(fc.frame))
    assert json.dumps(spec, allow_nan=False)  # no NaN leaks into the Vega-Lite spec
    custom = lesson.few_clusters("custom", 10, 0.5, 0.1, seed=4, reps=50, n_boot=19)
    assert custom.result.sizes == (250,) + (28,) * 7 + (27,) * 2


def test_few_clusters_notice_follows_the_numbers():
    fc = lesson.few_clusters("dominant", 12, 0.46, 0.1, seed=1)
    r = fc.result
    assert r.coverage["cr1_z"] < 0.9
    assert f"**{r.coverage['cr1_z']:.1%}** of 1,000 simulated evals: it covers too rarely for a 95% interval" in fc.notice
    assert f"covered **{r.coverage['cr2']:.1%}**: it stays close to the promised 95%" in fc.notice
    equal = lesson.few_clusters("custom", 40, 0.0, 0.0, seed=1).notice
    assert "close to G − 1 = 39" in equal and "covers too rarely" not in equal
    with pytest.raises(EvalStatsError, match="preset"):
        lesson.few_clusters("held-out", 12, 0.4, 0.1)
