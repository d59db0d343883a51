"""Chapter 4 lessons and charts: Atlas vs Breeze, covariance rectangles, the sweep, McNemar.

Oracles: scipy's paired and Welch t statistics (their standard errors), scipy's Pearson correlation,
statsmodels' McNemar; the seeds' worked numbers; hypothesis properties (the two routes to the paired SE
agree, McNemar ignores the concordant cells).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from evalstats_core.charts import paired as charts
from evalstats_core.comparison import compare
from evalstats_core.errors import EvalStatsError
from evalstats_core.lessons import paired as lesson

A, B = np.array(lesson.ATLAS), np.array(lesson.BREEZE)


# ------------------------------------------------------------------------- Atlas vs Breeze


def test_atlas_breeze_worked_numbers():
    """Seed 004: unpaired SE 0.0864, CI [-21.9%, 11.9%]; paired SE 0.0232, CI [-9.5%, -0.5%]."""
    ab = lesson.atlas_breeze()
    assert round(ab.summary_a.mean, 3) == 0.636 and round(ab.summary_b.mean, 3) == 0.686
    assert round(ab.summary_a.se, 4) == 0.0613
    assert round(ab.unpaired.se, 4) == 0.0864
    assert (round(ab.unpaired.ci_low * 100, 1), round(ab.unpaired.ci_high * 100, 1)) == (-21.9, 11.9)
    assert round(ab.paired.se, 4) == 0.0232
    assert (round(ab.paired.ci_low * 100, 1), round(ab.paired.ci_high * 100, 1)) == (-9.5, -0.5)
    assert round(ab.paired.diff, 3) == -0.05
    assert round(ab.covariance, 4) == 0.0346
    assert round(ab.paired.correlation, 2) == 0.93
    assert round(ab.paired.variance_removed, 2) == 0.93  # "93% of the total variance - gone"
    assert round(ab.se_reduction, 2) == 0.73  # "a 73% reduction in standard error"
    verdicts = dict(zip(ab.comparisons["method"], ab.comparisons["verdict"], strict=True))
    assert verdicts == {"unpaired": "not significant", "paired": "significant"}
    assert list(ab.comparisons["label"]) == ["unpaired: not significant", "paired: significant"]
    assert ab.b_wins == 9  # Breeze ahead on every task but Q4
    assert ab.positive_rectangles == 9


def test_atlas_breeze_against_scipy():
    """The paired SE is mean(d)/t of scipy's paired t; the unpaired SE is Welch's; rho is Pearson's."""
    from scipy import stats

    ab = lesson.atlas_breeze()
    d = A - B
    # stats.ttest_rel(A, B).statistic = mean(d) / (sd(d) / sqrt(n))
    assert ab.paired.se == pytest.approx(d.mean() / stats.ttest_rel(A, B).statistic, rel=1e-12)
    # stats.ttest_ind(A, B, equal_var=False).statistic = (mean A - mean B) / sqrt(sA^2/n + sB^2/n)
    welch = stats.ttest_ind(A, B, equal_var=False).statistic
    assert ab.unpaired.se == pytest.approx((A.mean() - B.mean()) / welch, rel=1e-12)
    assert ab.paired.correlation == pytest.approx(stats.pearsonr(A, B).statistic, rel=1e-12)
    assert ab.sd_diff == pytest.approx(np.std(d, ddof=1))


def test_two_routes_to_the_paired_se_agree_for_atlas_breeze():
    ab = lesson.atlas_breeze()
    assert ab.se_paired_formula == pytest.approx(ab.paired.se, rel=1e-12)


@settings(max_examples=80, deadline=None)
@given(data=arrays(np.float64, st.integers(3, 40), elements=st.floats(0, 1)), seed=st.integers(0, 1000))
def test_paired_se_formula_equals_the_direct_paired_se(data, seed):
    """sqrt(SE_A^2 + SE_B^2 - 2 rho SE_A SE_B) is an identity in the sample quantities."""
    a = data
    b = np.clip(a + np.random.default_rng(seed).normal(0, 0.2, a.size), 0, 1)
    if np.ptp(a) < 1e-6 or np.ptp(b) < 1e-6:
        return  # correlation undefined
    c = compare(a, b)
    se_a, se_b = np.std(a, ddof=1) / math.sqrt(a.size), np.std(b, ddof=1) / math.sqrt(b.size)
    assert lesson.paired_se_formula(se_a, se_b, c.correlation) == pytest.approx(c.se_paired, rel=1e-7, abs=1e-12)


def test_paired_se_formula_edges_and_errors():
    assert lesson.paired_se_formula(0.02, 0.02, 0.8) == pytest.approx(math.sqrt(0.0008 - 0.00064))
    assert lesson.paired_se_formula(0.03, 0.03, 0.5) == pytest.approx(0.03)  # the quiz's answer
    assert lesson.paired_se_formula(0.01, 0.01, 1.0) == 0.0
    np.testing.assert_allclose(lesson.paired_se_formula(1.0, 1.0, np.array([0.0, 0.5])), [math.sqrt(2), 1.0])
    with pytest.raises(EvalStatsError, match="between -1 and 1"):
        lesson.paired_se_formula(0.1, 0.1, 1.2)
    with pytest.raises(EvalStatsError):
        lesson.paired_se_formula(-0.1, 0.1, 0.2)


def test_covariance_rectangles_sum_to_the_covariance():
    r = lesson.covariance_rectangles(A, B)
    assert r["product"].sum() / (len(r) - 1) == pytest.approx(np.cov(A, B, ddof=1)[0, 1])
    assert (r["x0"] == A.mean()).all() and (r["y1"] == B).all()
    assert list(r["sign"]).count("opposite sides") == 1  # only Q4 disagrees (Atlas above, Breeze below)
    assert r.loc[r["sign"] == "opposite sides", "task"].item() == "Q4"
    with pytest.raises(EvalStatsError):
        lesson.covariance_rectangles([1, 2, 3], [1, 2])


# ------------------------------------------------------------------------- correlation sweep


def test_sweep_formula_and_simulation():
    sw = lesson.correlation_sweep(0.6, 2000, seed=3)
    pa, pb = lesson.SWEEP_ACCURACIES
    se_a, se_b = math.sqrt(pa * (1 - pa) / 2000), math.sqrt(pb * (1 - pb) / 2000)
    assert sw.formula_unpaired == pytest.approx(math.hypot(se_a, se_b))
    assert sw.formula_paired == pytest.approx(math.sqrt(se_a**2 + se_b**2 - 1.2 * se_a * se_b))
    assert abs(sw.current.correlation - 0.6) < 0.06
    assert sw.current.se_paired == pytest.approx(sw.formula_paired, rel=0.1)
    sim = sw.simulated
    paired = sim[sim["method"] == "paired (simulated)"].set_index("correlation")["se"]
    assert list(paired.index) == list(lesson.SWEEP_GRID)
    assert paired.loc[0.8] < paired.loc[0.0] < paired.loc[-0.5]  # the advantage grows with rho
    curve = sw.curve[sw.curve["method"] == "paired (formula)"]
    assert np.all(np.diff(curve["se"]) < 0)


def test_sweep_dots_do_not_move_with_the_chosen_correlation():
    """Same seed: the grid's evals are the same whatever correlation is picked."""
    one, two = lesson.correlation_sweep(0.1, 300, seed=9), lesson.correlation_sweep(0.7, 300, seed=9)
    assert one.simulated.equals(two.simulated)
    assert one.current.correlation != two.current.correlation
    assert not lesson.correlation_sweep(0.1, 300, seed=10).simulated.equals(one.simulated)


def test_sweep_rejects_unreachable_correlations():
    with pytest.raises(EvalStatsError, match="between"):
        lesson.correlation_sweep(0.95, 100)


# ------------------------------------------------------------------------- McNemar


def test_mcnemar_worked_example_and_statsmodels():
    """3000/275/150/1575: chi^2 = 125^2 / 425 = 36.76; statsmodels agrees, exact and asymptotic."""
    from statsmodels.stats.contingency_tables import mcnemar

    mc = lesson.mcnemar_lesson(3000, 275, 150, 1575)
    assert round(mc.result.statistic, 2) == 36.76
    assert mc.n == 5000 and mc.discordant == 425
    assert mc.numerator == 125**2 and mc.share_discordant == pytest.approx(0.085)
    table = [[3000, 275], [150, 1575]]
    # mcnemar(table, exact=False, correction=False) -> chi2 = (b-c)^2/(b+c), p from chi2(1)
    ref = mcnemar(table, exact=False, correction=False)
    assert mc.result.statistic == pytest.approx(ref.statistic)
    assert mc.result.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    # mcnemar(table, exact=True) -> two-sided binomial test on min(b, c) of b + c
    assert mc.result.p_exact == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-9)
    # the paired z-test on the same 0/1 answers, squared, lands next to chi^2
    assert mc.paired_z_squared == pytest.approx(mc.result.statistic, rel=0.01)
    assert mc.paired.diff == pytest.approx((275 - 150) / 5000)


def test_mcnemar_table_frame():
    mc = lesson.mcnemar_lesson(3000, 275, 150, 1575)
    t = mc.table
    assert list(t["count"]) == [3000, 275, 150, 1575]
    assert list(t["kind"]) == ["agree: no information", "only A right", "only B right", "agree: no information"]
    assert t["label"].iloc[0] == "a = 3,000"


@settings(max_examples=60, deadline=None)
@given(a=st.integers(0, 5000), b=st.integers(0, 500), c=st.integers(0, 500), d=st.integers(0, 5000),
       shift=st.integers(0, 1000))
def test_mcnemar_ignores_the_concordant_cells(a, b, c, d, shift):
    """Moving questions between 'both right' and 'both wrong', or adding ties, leaves chi^2 unchanged."""
    if b + c == 0:
        return
    one = lesson.mcnemar_lesson(a, b, c, d).result.statistic
    two = lesson.mcnemar_lesson(a + shift, b, c, d + 2 * shift).result.statistic
    assert one == two == pytest.approx((b - c) ** 2 / (b + c))


def test_mcnemar_edge_cases():
    none = lesson.mcnemar_lesson(10, 0, 0, 5)
    assert math.isnan(none.result.statistic) and math.isnan(none.paired_z_squared)
    empty = lesson.mcnemar_lesson(0, 0, 0, 0)
    assert empty.paired is None and empty.n == 0 and math.isnan(empty.share_discordant)
    with pytest.raises(EvalStatsError):
        lesson.mcnemar_lesson(-1, 2, 3, 4)


# ------------------------------------------------------------------------- charts


def _spec(chart) -> dict:
    spec = chart.to_dict()
    text = json.dumps(spec)
    for banned in ('"ci0"', '"ci1"', '"extent"', '"aggregate"', '"bootstrap"'):
        assert banned not in text
    return spec


def test_agents_and_comparison_charts_draw_the_computed_intervals():
    ab = lesson.atlas_breeze()
    spec = _spec(charts.agents_chart(ab.scores, ab.means))
    dots, bars, centre = spec["layer"]
    assert bars["encoding"]["x"]["field"] == "ci_low" and bars["encoding"]["x2"]["field"] == "ci_high"
    means = spec["datasets"][bars["data"]["name"]]
    assert [round(r["ci_low"], 3) for r in means] == [round(ab.summary_a.ci_low, 3), round(ab.summary_b.ci_low, 3)]
    spec = _spec(charts.comparison_chart(ab.comparisons))
    zero, bars, points = spec["layer"]
    assert zero["encoding"]["x"]["datum"] == 0.0
    rows = spec["datasets"][spec["data"]["name"]]
    assert [r["method"] for r in rows] == ["unpaired", "paired"]
    assert rows[1]["ci_high"] == pytest.approx(ab.paired.ci_high)


def test_scatter_chart_rectangles_toggle():
    ab = lesson.atlas_breeze()
    with_rects = _spec(charts.scatter_chart(ab.rects, rects=True, mean_a=0.636, mean_b=0.686))
    without = _spec(charts.scatter_chart(ab.rects, rects=False, mean_a=0.636, mean_b=0.686))
    marks = [layer["mark"]["type"] for layer in with_rects["layer"]]
    assert "rect" in marks and "rect" not in [layer["mark"]["type"] for layer in without["layer"]]
    rect = with_rects["layer"][marks.index("rect")]
    assert rect["encoding"]["x"]["field"] == "x0" and rect["encoding"]["x2"]["field"] == "x1"
    assert rect["encoding"]["color"]["scale"]["domain"] == ["same side", "opposite sides"]
    diag = with_rects["layer"][0]
    assert diag["encoding"]["x"]["datum"] == diag["encoding"]["y"]["datum"]  # the line y = x
    assert diag["encoding"]["x2"]["datum"] == diag["encoding"]["y2"]["datum"]


def test_differences_correlation_and_mcnemar_charts():
    ab = lesson.atlas_breeze()
    spec = _spec(charts.differences_chart(ab.table, mean=ab.paired.diff))
    assert spec["layer"][2]["encoding"]["y"]["datum"] == pytest.approx(-0.05)
    sw = lesson.correlation_sweep(0.5, 200, seed=1)
    spec = _spec(charts.correlation_chart(sw.curve, sw.simulated, current=0.5))
    assert spec["layer"][2]["encoding"]["x"]["datum"] == 0.5
    mc = lesson.mcnemar_lesson(3000, 275, 150, 1575)
    spec = _spec(charts.mcnemar_table_chart(mc.table))
    assert spec["layer"][1]["encoding"]["text"]["field"] == "label"


def test_atlas_breeze_both_ways_and_tasks_needed():
    """The paired t-test (default) vs the seed's z on the same SE; Eq. 9's tasks for 80% power."""
    from scipy import stats

    ab = lesson.atlas_breeze()
    d = np.array(lesson.ATLAS) - np.array(lesson.BREEZE)
    ref = stats.ttest_rel(lesson.ATLAS, lesson.BREEZE)
    assert ab.paired_t.p_value == pytest.approx(ref.pvalue, rel=1e-12)
    assert ab.paired_t.se == ab.paired.se and ab.paired_t.df == 9
    assert ab.paired.p_value == pytest.approx(2 * stats.norm.sf(abs(ref.statistic)), rel=1e-12)
    need = (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) ** 2 * d.var(ddof=1) / 0.05**2
    assert ab.tasks_needed == math.ceil(need) == 17


def test_tasks_for_the_t_test_against_statsmodels():
    """Issue 24: the '17 tasks' was the z answer inside the t paragraph. The t-test's own answer, 19, from
    the noncentral t, is the first n where statsmodels' TTestPower reaches 80% (n - 1 below it does not)."""
    from statsmodels.stats.power import TTestPower

    ab = lesson.atlas_breeze()
    d = np.array(lesson.ATLAS) - np.array(lesson.BREEZE)
    effect = abs(d.mean()) / d.std(ddof=1)
    n = ab.tasks_needed_t
    # TTestPower().power(effect_size=d/sd, nobs=n, alpha=0.05, alternative="two-sided"): one-sample t on n - 1 df
    assert TTestPower().power(effect, n, 0.05) >= 0.8 > TTestPower().power(effect, n - 1, 0.05)
    assert n == 19 and n >= ab.tasks_needed
    for delta, sd in ((0.01, 0.2), (0.3, 0.2), (0.05, 0.5)):
        m = lesson.tasks_for_t_power(delta, sd)
        assert TTestPower().power(delta / sd, m, 0.05) >= 0.8 > (TTestPower().power(delta / sd, m - 1, 0.05) if m > 2 else 0)
    with pytest.raises(EvalStatsError):
        lesson.tasks_for_t_power(0.0, 0.1)


def test_formula_column_arithmetic_checks():
    """Issue 24: '0.93 ... = 0.0232^2' did not check (0.0229 with the printed rho); rho is printed to three
    decimals and the printed SEs and rho give the printed result."""
    import re

    ab = lesson.atlas_breeze()
    se_line = lesson.covariance_formulas(ab, "Breeze")[2]
    se_a, se_b, r_, se_a2, se_b2, result = (float(x) for x in re.findall(
        r"([01]\.\d+)\^2 \+ ([01]\.\d+)\^2.*?\(([01]\.\d+)\)\(([01]\.\d+)\)\(([01]\.\d+)\).*?= ([01]\.\d+)\^2", se_line, re.S)[0])
    assert round(math.sqrt(se_a**2 + se_b**2 - 2 * r_ * se_a2 * se_b2), 4) == result
