"""Chapter 5 lessons and charts: the K curve, the pooling simulation, the budget and the MDE.

Oracles: scipy.stats (Beta moments by numerical integration, normal quantiles) and statsmodels'
Wilson interval; the paper's worked numbers (Miller 2024, Sec. 3.1 and 5); hypothesis properties.
"""

import json
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from evalstats_core.charts import resampling as charts
from evalstats_core.clustering import design_effect
from evalstats_core.lessons import resampling as lesson

PAPER = {"2": (1 / 3, "1/3"), "4": (1 / 2, "1/2"), "6": (5 / 9, "5/9"), "∞": (2 / 3, "2/3")}


# --- the K curve -----------------------------------------------------------------------------------
def test_paper_reductions_are_one_third_half_five_ninths_two_thirds():
    """Uniform difficulty: 1/3 at K = 2, 1/2 at K = 4, 5/9 at K = 6, 2/3 at K = infinity (Sec. 3.1)."""
    table = lesson.k_curve(4).table
    for _, row in table.iterrows():
        value, frac = PAPER[row["k"]]
        assert row["paper_reduction"] == pytest.approx(value, abs=1e-12)
        assert row["paper_fraction"] == frac
        assert row["reduction"] == pytest.approx(value, abs=1e-12)  # alpha = beta = 1 is the same case


def test_k_curve_uniform_floor_and_chosen_k():
    """U[0, 1]: Var(x) = 1/12, E[sigma^2] = 1/6, floor 1/3; K = 4 leaves half of the variance."""
    c = lesson.k_curve(4)
    assert (c.var_x, c.mean_sigma2) == pytest.approx((1 / 12, 1 / 6), abs=1e-15)
    assert c.floor == pytest.approx(1 / 3) and c.icc == pytest.approx(1 / 3)
    assert c.relative_variance == pytest.approx(0.5) and c.reduction == pytest.approx(0.5)
    assert c.frame["k"].tolist() == list(range(1, 21))


@pytest.mark.parametrize("a, b", [(0.5, 0.5), (2.0, 5.0), (3.0, 3.0)])
def test_k_curve_beta_matches_numerical_integration(a, b):
    """Var(x) and E[x(1-x)] of Beta(a, b) agree with scipy's numerical integration; so does V(K)/V(1)."""
    dist = stats.beta(a, b)
    var_x = dist.var()
    sigma2 = dist.expect(lambda x: x * (1 - x))  # scipy.stats.beta(a, b).expect(x(1-x))
    c = lesson.k_curve(3, alpha=a, beta=b)
    assert c.var_x == pytest.approx(var_x, rel=1e-9)
    assert c.mean_sigma2 == pytest.approx(sigma2, rel=1e-7)
    assert c.relative_variance == pytest.approx((var_x + sigma2 / 3) / (var_x + sigma2), rel=1e-7)
    assert c.floor == pytest.approx(var_x / (var_x + sigma2), rel=1e-7)


@settings(max_examples=60, deadline=None)
@given(a=st.floats(0.2, 5.0), b=st.floats(0.2, 5.0), k=st.integers(1, 20))
def test_k_curve_falls_towards_its_floor(a, b, k):
    """The relative variance starts at 1, falls with K, and never reaches below the Var(x) floor."""
    c = lesson.k_curve(k, alpha=a, beta=b)
    rel = c.frame["relative_variance"].to_numpy()
    assert rel[0] == pytest.approx(1.0)
    assert np.all(np.diff(rel) < 0)
    assert np.all(rel > c.floor)
    assert c.table["reduction"].iloc[-1] == pytest.approx(1 - c.floor)


def test_fraction_label():
    """Simple fractions are named; other numbers are not."""
    assert [lesson.fraction_label(v) for v in (1 / 3, 0.5, 5 / 9, 2 / 3, 3 / 16, 1.0, 0.1234, math.inf)] == [
        "1/3", "1/2", "5/9", "2/3", "3/16", "1", "", ""]


# --- pooling -------------------------------------------------------------------------------------
def test_pooled_coverage_formula_at_k1_and_k5():
    """At K = 1 the pooled interval is the right one (95%); at K = 5 with uniform difficulty about 80%."""
    kw = dict(var_x=1 / 12, mean_sigma2=1 / 6)
    assert lesson.pooled_coverage(1, **kw) == pytest.approx(0.95, abs=1e-12)
    deff = design_effect(5, 1 / 3)  # Kish: 1 + (K - 1) rho, rho = Var(x)/(Var(x) + E[sigma^2])
    expect = 2 * stats.norm.cdf(stats.norm.ppf(0.975) / math.sqrt(deff)) - 1
    assert lesson.pooled_coverage(5, **kw) == pytest.approx(expect, abs=1e-12)
    assert lesson.pooled_coverage(5, **kw) == pytest.approx(0.801, abs=5e-4)


@settings(max_examples=50, deadline=None)
@given(vx=st.floats(1e-3, 0.2), s2=st.floats(1e-3, 0.25), c=st.floats(0.5, 0.99))
def test_pooled_coverage_falls_with_k(vx, s2, c):
    """Coverage is the nominal level at K = 1 and strictly falls as K grows."""
    cov = lesson.pooled_coverage(np.arange(1, 21), var_x=vx, mean_sigma2=s2, confidence=c)
    assert cov[0] == pytest.approx(c, abs=1e-12)
    assert np.all(np.diff(cov) < 0)


def test_pooling_simulation_agrees_with_prediction_and_is_seeded():
    """Simulated coverage sits within Monte Carlo error of the prediction; the seed reproduces it."""
    p = lesson.pooling_lesson(200, 5, seed=3, reps=2000)
    se = math.sqrt(p.predicted_pooled * (1 - p.predicted_pooled) / p.reps)
    assert abs(p.pooled_coverage - p.predicted_pooled) < 4 * se + 0.01  # 0.01: finite-n slack
    assert abs(p.question_coverage - 0.95) < 4 * math.sqrt(0.95 * 0.05 / p.reps) + 0.01
    assert p.pooled_coverage < 0.88 < p.question_coverage
    again = lesson.pooling_lesson(200, 5, seed=3, reps=2000)
    assert (again.pooled_coverage, again.question_coverage) == (p.pooled_coverage, p.question_coverage)
    assert again.evals_frame.equals(p.evals_frame)
    other = lesson.pooling_lesson(200, 5, seed=4, reps=2000)
    assert not other.evals_frame.equals(p.evals_frame)


def test_pooling_at_k1_both_intervals_are_the_same():
    """With one answer per question the pooled SE is the question-level SE, so coverage is identical."""
    p = lesson.pooling_lesson(50, 1, seed=11)
    assert p.pooled_coverage == p.question_coverage
    assert p.pooled_misses == p.question_misses
    assert p.deff == 1.0


def test_pooling_monte_carlo_intervals_match_statsmodels_wilson():
    """The Monte Carlo bars are Wilson intervals for (hits, reps)."""
    from statsmodels.stats.proportion import proportion_confint

    p = lesson.pooling_lesson(60, 4, seed=1)
    for share, mc in ((p.pooled_coverage, p.pooled_mc), (p.question_coverage, p.question_mc)):
        hits = round(share * p.reps)
        low, high = proportion_confint(hits, p.reps, alpha=0.05, method="wilson")  # statsmodels oracle
        assert mc == pytest.approx((low, high), abs=1e-9)


def test_pooling_frames_are_consistent():
    """Example evals: 20 per method, 'covers' matches the interval, misses are counted per method."""
    p = lesson.pooling_lesson(40, 8, seed=5)
    ev = p.evals_frame
    assert len(ev) == 2 * lesson.EXAMPLE_EVALS and set(ev["method"]) == {lesson.POOLED, lesson.QUESTION}
    covers = (ev["ci_low"] <= p.true_mean) & (p.true_mean <= ev["ci_high"])
    assert (covers == ev["covers"]).all()
    assert p.pooled_misses == int((~ev.loc[ev["method"] == lesson.POOLED, "covers"]).sum())
    pooled, question = (ev.loc[ev["method"] == m] for m in (lesson.POOLED, lesson.QUESTION))
    assert ((pooled["ci_high"] - pooled["ci_low"]).to_numpy() < (question["ci_high"] - question["ci_low"]).to_numpy()).mean() > 0.8
    sim = p.sim_frame
    assert (sim["ci_low"] <= sim["estimate"]).all() and (sim["estimate"] <= sim["ci_high"]).all()
    assert p.reps == lesson.pooling_reps(40) == 1500


def test_pooling_reps_bounds():
    """Small evals get 2,000 replications, large ones at least 500."""
    assert lesson.pooling_reps(20) == 2000 and lesson.pooling_reps(60) == 1000 and lesson.pooling_reps(200) == 500


# --- budget and MDE --------------------------------------------------------------------------------
def test_budget_capped_eval_spends_the_rest_on_answers():
    """2,000 calls on an eval of 500 questions: K = 4 uses them all, with SE sqrt((1/12 + 1/24)/500)."""
    b = lesson.budget_lesson(2000, max_questions=500)
    assert b.result.k_best == 4 and b.result.n_best == pytest.approx(500)
    assert b.result.se_best == pytest.approx(math.sqrt((1 / 12 + 1 / 6 / 4) / 500))
    assert b.se_k1 == pytest.approx(math.sqrt(0.25 / 500))
    assert (b.frame["calls_used"] <= 2000 + 1e-9).all()


def test_budget_free_questions_favour_k1_and_costly_questions_k2():
    """No cost per question: K = 1. A cost of 2 calls per question: K* = sqrt(2 * 2) = 2 (Cochran 10.6)."""
    assert lesson.budget_lesson(2000).result.k_best == 1
    b = lesson.budget_lesson(2000, cost_question=2.0)
    assert b.result.k_best == 2 and b.result.k_star == pytest.approx(2.0)
    se = np.sqrt((1 / 12 + 1 / 6 / b.frame["k"]) / (2000 / (2.0 + b.frame["k"])))
    assert np.allclose(b.frame["se"], se)


def test_mde_13_3_to_7_6_percent_at_198_questions():
    """Eq. 10: 13.3% at K = 1 and 7.6% at K = 10 (omega^2 = 1/9, sigma^2 = 1/6, n = 198)."""
    m = lesson.mde_lesson(198, 4)
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)  # scipy oracle for z_{alpha/2} + z_beta
    assert m.mde_k1 == pytest.approx(z * math.sqrt((1 / 9 + 2 / 6) / 198), rel=1e-12)
    assert m.mde_k10 == pytest.approx(z * math.sqrt((1 / 9 + 2 / 60) / 198), rel=1e-12)
    assert f"{m.mde_k1:.1%}" == "13.3%" and f"{m.mde_k10:.1%}" == "7.6%"
    assert m.mde_floor == pytest.approx(z * math.sqrt((1 / 9) / 198), rel=1e-12)
    assert m.mde_k == pytest.approx(m.frame.loc[m.frame["k"] == 4, "mde"].iloc[0])
    assert np.all(np.diff(m.frame["mde"]) < 0) and (m.frame["mde"] > m.mde_floor).all()


# --- charts --------------------------------------------------------------------------------------
def _datasets(chart) -> dict:
    return chart.to_dict()["datasets"]


def test_k_curve_chart_draws_given_numbers():
    """The chart's datasets are the lesson's numbers; no Vega-side aggregation anywhere."""
    c = lesson.k_curve(6)
    chart = charts.k_curve_chart(c.frame, k=6, floor=c.floor)
    data = _datasets(chart)
    # the marker starts at K = 6 and the chart's own "Drag K" input moves it along the curve's rows
    spec = chart.to_dict()
    assert [p["value"] for p in spec["params"] if p["name"] == "drag_k"] == [6]
    assert next(p for p in spec["params"] if p["name"] == "drag_k")["bind"]["input"] == "range"
    at_6 = next(r for r in data["curve"] if r["k"] == 6)
    assert at_6["relative_variance"] == pytest.approx(4 / 9) and at_6["reduction"] == pytest.approx(5 / 9)
    assert data["floor"][0]["y"] == pytest.approx(1 / 3) and "33.3%" in data["floor"][0]["text"]
    assert len(data["curve"]) == 20
    text = json.dumps(chart.to_dict())
    for banned in ("ci0", "ci1", '"extent"', "aggregate"):
        assert banned not in text


def test_every_builder_returns_a_renderable_spec():
    """All five builders give Vega-Lite specs with their named datasets filled in."""
    p = lesson.pooling_lesson(30, 3, seed=2)
    b = lesson.budget_lesson(1000, max_questions=200)
    m = lesson.mde_lesson(198, 10)
    built = {
        "coverage": charts.coverage_chart(p.coverage_frame, p.sim_frame),
        "evals": charts.evals_chart(p.evals_frame, truth=p.true_mean),
        "budget": charts.budget_chart(b.frame, k_best=b.result.k_best),
        "mde": charts.mde_chart(m.frame, k=10, floor=m.mde_floor),
    }
    names = {"coverage": {"curve", "sim", "nominal"}, "evals": {"evals", "truth"}, "budget": {"curve", "best"},
             "mde": {"curve", "marked", "you", "floor"}}
    for key, chart in built.items():
        spec = chart.to_dict()
        assert set(spec["datasets"]) == names[key]
        used = {layer["data"]["name"] for layer in spec["layer"]}
        assert used <= set(spec["datasets"])
    assert [r["text"] for r in _datasets(built["mde"])["marked"]] == ["K = 1: 13.3%", "K = 10: 7.6%"]
    se5 = math.sqrt((1 / 12 + 1 / 6 / 5) / 200)  # 1,000 calls on 200 questions: K = 5
    assert _datasets(built["budget"])["best"][0]["text"] == f"best: K = 5, 200 questions, SE {se5:.2%}"
    assert {r["outcome"] for r in _datasets(built["evals"])["evals"]} <= {"misses", "covers the truth"}


def test_templates_compile_once():
    """A second call reuses the compiled template (the point of SpecChart: no Altair on reruns)."""
    c = lesson.k_curve(2)
    charts.k_curve_chart(c.frame, k=2, floor=c.floor)
    hits = charts._k_curve_template.cache_info().hits
    charts.k_curve_chart(c.frame, k=3, floor=c.floor)
    assert charts._k_curve_template.cache_info().hits == hits + 1


def test_spec_chart_behaves_like_an_altair_chart_for_the_app():
    """to_dict copies, properties/configure_* apply, pickling works, NaN becomes null, vl-convert renders."""
    from evalstats_core.charts import to_svg

    c = lesson.k_curve(4)
    chart = charts.k_curve_chart(c.frame, k=4, floor=c.floor)
    spec = chart.to_dict()
    spec["datasets"].clear()
    assert chart.to_dict()["datasets"]
    exported = chart.properties(background="white").configure_axis(labelFontSize=12).configure_title(fontSize=15)
    out = exported.to_dict()
    assert out["background"] == "white" and out["config"]["axis"]["labelFontSize"] == 12
    assert out["config"]["title"]["fontSize"] == 15
    assert pickle.loads(pickle.dumps(chart)).to_dict() == chart.to_dict()
    with pytest.raises(AttributeError):
        chart.mark_line  # noqa: B018
    assert charts.fill({"layer": []}, {"d": [{"x": math.nan}]}).to_dict()["datasets"]["d"] == [{"x": None}]
    with pytest.raises(KeyError):
        charts.fill({"layer": [], "params": [{"name": "a", "value": 1}]}, {}, params={"b": 2})
    assert to_svg(chart).startswith("<svg")
