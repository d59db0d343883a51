"""Chapter 2 computations (evalstats_core.lessons.one_model) and its chart builders."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalstats_core.charts import one_model as charts
from evalstats_core.errors import EvalStatsError
from evalstats_core.lessons import one_model as lesson

ATLAS_SCORES = [0.83, 0.45, 0.72, 0.69, 0.91, 0.30, 0.67, 0.51, 0.80, 0.48]


# ---- Atlas step by step (seed 004, Part 1) ---------------------------------------------------------

def test_atlas_worked_numbers():
    """0.636, 0.0376, 0.194, 0.0613 and [51.6%, 75.6%]."""
    s = lesson.atlas_steps()
    assert [score for _, score in lesson.ATLAS] == ATLAS_SCORES
    assert round(s.mean, 3) == 0.636
    assert round(s.variance, 4) == 0.0376
    assert round(s.sd, 3) == 0.194
    assert round(s.se, 4) == 0.0613
    assert (round(s.ci_low * 100, 1), round(s.ci_high * 100, 1)) == (51.6, 75.6)


def test_atlas_steps_against_scipy():
    """Variance, SE and the normal interval agree with scipy.stats on the same scores."""
    from scipy import stats

    s = lesson.atlas_steps()
    # stats.tvar(x) is the ddof=1 variance; stats.sem(x) is sd/sqrt(n)
    assert s.variance == pytest.approx(stats.tvar(ATLAS_SCORES), rel=1e-12)
    assert s.se == pytest.approx(stats.sem(ATLAS_SCORES), rel=1e-12)
    low, high = stats.norm.interval(0.95, loc=np.mean(ATLAS_SCORES), scale=stats.sem(ATLAS_SCORES))
    assert (s.ci_low, s.ci_high) == pytest.approx((low, high), rel=1e-9)
    assert s.table["squared"].sum() == pytest.approx(s.sum_sq)
    assert s.table["task"].iloc[5] == "Find restaurants near the Colosseum open Sunday"


# ---- reruns ----------------------------------------------------------------------------------------

def test_rerun_one_is_the_published_run():
    """Run 1 reproduces the table; later runs depend only on (seed, run)."""
    assert lesson.rerun_atlas(5, 1).scores == tuple(ATLAS_SCORES)
    assert lesson.rerun_atlas(5, 3) == lesson.rerun_atlas(5, 3)
    assert lesson.rerun_atlas(5, 3).scores != lesson.rerun_atlas(6, 3).scores
    assert lesson.rerun_atlas(5, 3).scores != lesson.rerun_atlas(5, 4).scores


def test_rerun_wobble_matches_noise_model():
    """Across many reruns, the mean's SD is about noise_sd / sqrt(10) (slightly less: clipping to [0, 1])."""
    means = np.array([lesson.rerun_atlas(1, k).mean for k in range(2, 802)])
    assert means.std(ddof=1) == pytest.approx(lesson.RERUN_NOISE_SD / math.sqrt(10), rel=0.12)
    assert means.mean() == pytest.approx(0.636, abs=0.005)
    assert all(0.0 <= v <= 1.0 for k in (2, 9) for v in lesson.rerun_atlas(1, k).scores)


def test_rerun_history_frame_marks_runs_inside_the_first_ci():
    """inside is True exactly when a run's mean lies in run 1's interval."""
    f = lesson.rerun_history_frame([0.636, 0.50, 0.70, 0.80])
    assert f["run"].tolist() == [1, 2, 3, 4]
    assert f["inside"].tolist() == [True, False, True, False]
    with pytest.raises(EvalStatsError, match="empty"):
        lesson.rerun_history_frame([])


# ---- the CI calculator -----------------------------------------------------------------------------

def test_ci_calculator_against_statsmodels():
    """Each method's interval matches statsmodels.proportion_confint (Bayes: scipy's Beta posterior)."""
    from scipy import stats
    from statsmodels.stats.proportion import proportion_confint

    calc = lesson.ci_calculator(0.9, 50).set_index("method")
    assert int(calc["k"].iloc[0]) == 45
    # proportion_confint(45, 50, alpha=0.05, method=...) for normal / wilson / beta (Clopper-Pearson)
    for ours, theirs in (("wald", "normal"), ("wilson", "wilson"), ("clopper_pearson", "beta")):
        low, high = proportion_confint(45, 50, alpha=0.05, method=theirs)
        assert (calc.loc[ours, "ci_low"], calc.loc[ours, "ci_high"]) == pytest.approx((low, high), abs=1e-9)
    # scipy.stats.beta(1 + 45, 1 + 5).interval(0.95): Bowyer et al.'s uniform-prior credible interval
    assert (calc.loc["bayes", "ci_low"], calc.loc["bayes", "ci_high"]) == pytest.approx(
        stats.beta(46, 6).interval(0.95), abs=1e-9)


def test_ci_calculator_flags_wald_outside_unit_interval():
    """29/30 correct: Wald reaches past 100%, the others do not."""
    calc = lesson.ci_calculator(29 / 30, 30).set_index("method")
    assert calc.loc["wald", "ci_high"] > 1.0 and bool(calc.loc["wald", "outside"])
    assert not calc.loc[["wilson", "clopper_pearson", "bayes"], "outside"].any()


def test_halfwidth_follows_one_over_root_n():
    """At 50% the Wald half-width at n = 100 is twice that at n = 400 (1/sqrt(n))."""
    curve = lesson.halfwidth_curve(0.5, [100, 400, 1000]).set_index(["method", "n"])["half_width"]
    assert curve[("wald", 100)] == pytest.approx(2 * curve[("wald", 400)])
    assert curve[("wald", 1000)] == pytest.approx(1.959964 * math.sqrt(0.25 / 1000), rel=1e-6)
    with pytest.raises(EvalStatsError, match="accuracy"):
        lesson.halfwidth_curve(1.5)


@settings(max_examples=60, deadline=None)
@given(acc=st.floats(0.0, 1.0), n=st.integers(1, 3000))
def test_ci_calculator_properties(acc, n):
    """Every non-Wald interval lies in [0, 1]; the frequentist ones contain k/n; half-width is half the width.

    (The equal-tailed Bayes interval need not contain k/n: at k = 0 its lower end is above 0.)"""
    calc = lesson.ci_calculator(acc, n)
    assert (calc["half_width"] * 2).to_numpy() == pytest.approx(calc["width"].to_numpy())
    others = calc[calc["method"] != "wald"]
    assert ((others["ci_low"] >= 0) & (others["ci_high"] <= 1)).all()
    freq = calc[calc["method"] != "bayes"]
    assert ((freq["ci_low"] <= freq["estimate"] + 1e-12) & (freq["estimate"] <= freq["ci_high"] + 1e-12)).all()
    assert (calc["ci_low"] <= calc["ci_high"]).all()


# ---- binary vs continuous --------------------------------------------------------------------------

def test_binary_vs_continuous_numbers():
    """CLT SE 0.0613 against the Bernoulli SE 0.152 at the same mean (about 2.5 times as wide)."""
    b = lesson.binary_vs_continuous()
    assert round(b.se_clt, 4) == 0.0613
    assert b.se_bernoulli == pytest.approx(math.sqrt(0.636 * 0.364 / 10))
    assert b.ratio == pytest.approx(math.sqrt(b.bernoulli_variance / b.variance))
    assert b.variance < b.bernoulli_variance
    assert (round(b.frame.ci_low[1] * 100, 1), round(b.frame.ci_high[1] * 100, 1)) == (33.8, 93.4)


# ---- the small-N lab -------------------------------------------------------------------------------

def test_small_n_lab_wald_failures_are_exact_at_fixed_theta():
    """With a fixed theta the zero-width share converges to P(k=0) + P(k=n) (binomial pmf)."""
    from scipy import stats

    lab = lesson.small_n_lab(10, 0.9, reps=200_000, rng=3).frame.set_index("method")
    # stats.binom.pmf([0, 10], 10, 0.9)
    exact = float(stats.binom.pmf([0, 10], 10, 0.9).sum())
    assert lab.loc["wald", "zero_width"] == pytest.approx(exact, abs=0.004)
    assert lab.loc[["wilson", "clopper_pearson", "bayes"], "zero_width"].eq(0).all()
    assert lab.loc[["wilson", "clopper_pearson", "bayes"], "outside"].eq(0).all()


def test_small_n_lab_uniform_theta_coverage():
    """Bowyer et al.'s setup at N = 10: Wald under-covers badly, Bayes is near 95%, Clopper-Pearson above."""
    lab = lesson.small_n_lab(10, None, reps=20_000, rng=1).frame.set_index("method")
    assert lab.loc["wald", "coverage"] < 0.85
    assert lab.loc["bayes", "coverage"] == pytest.approx(0.95, abs=0.01)
    assert lab.loc["clopper_pearson", "coverage"] > 0.96
    # under a uniform theta, k is uniform on 0..n, so zero width has probability 2/(n+1)
    assert lab.loc["wald", "zero_width"] == pytest.approx(2 / 11, abs=0.01)


def test_coverage_by_n_and_possible_intervals():
    """Wald's coverage rises with N; possible_intervals has n+1 rows per method with Wald zero width at the ends."""
    by_n = lesson.coverage_by_n((3, 30, 300), None, reps=5000, rng=2)
    wald = by_n[by_n["method"] == "wald"]["coverage"].tolist()
    assert wald[0] < wald[1] < wald[2]
    p = lesson.possible_intervals(5)
    assert len(p) == 4 * 6
    w = p[p["method"] == "wald"].set_index("k")
    assert w.loc[0, "zero_width"] and w.loc[5, "zero_width"] and w.loc[1, "outside"]
    with pytest.raises(EvalStatsError, match="theta"):
        lesson.small_n_lab(10, 1.2)


# ---- charts ----------------------------------------------------------------------------------------

def _all_specs():
    s = lesson.atlas_steps()
    lab = lesson.small_n_lab(10, rng=1)
    return {
        "atlas": charts.atlas_chart(s.table, mean=s.mean, sd=s.sd, ci_low=s.ci_low, ci_high=s.ci_high),
        "rerun": charts.rerun_chart(lesson.rerun_history_frame([0.636, 0.6])),
        "calculator": charts.calculator_chart(lesson.ci_calculator(0.9, 50)),
        "halfwidth": charts.halfwidth_chart(lesson.halfwidth_curve(0.9), n=50),
        "coverage": charts.coverage_chart(lab.frame),
        "curve": charts.coverage_curve_chart(lesson.coverage_by_n((3, 10), rng=1, reps=1000), n=10),
        "possible": charts.possible_intervals_chart(lesson.possible_intervals(10)),
    }


def test_charts_build_and_never_aggregate_intervals_in_vega():
    """Every builder returns a valid spec with no ci0/ci1/extent aggregation."""
    for name, chart in _all_specs().items():
        text = str(chart.to_dict())
        assert "ci0" not in text and "ci1" not in text and "'extent'" not in text, name


def test_method_colours_are_shared():
    """The calculator's forest uses the chapter's method colours, the same as the coverage chart."""
    specs = _all_specs()
    for name in ("calculator", "coverage"):
        text = str(specs[name].to_dict())
        for colour in charts.METHOD_COLORS.values():
            assert colour in text, name


def test_coverage_chart_draws_nominal_line():
    """The coverage chart carries a rule at the nominal level."""
    spec = charts.coverage_chart(lesson.small_n_lab(3, rng=1).frame, confidence=0.95).to_dict()
    values = [row for rows in spec["datasets"].values() for row in rows if "nominal" in row]
    assert values == [{"nominal": 0.95}]


def test_coverage_near_the_edges_as_the_page_says():
    """The chapter's sentences about fixed accuracies near 0 and 1, against the core's exact numbers."""
    by = lesson.coverage_by_n(theta=0.02, rng=1)
    cov = {(m, n): c for m, n, c in zip(by["method"], by["n"], by["coverage"], strict=True)}
    assert round(cov["bayes", 10], 2) == 0.82 and round(cov["bayes", 30], 2) == 0.88
    assert min(c for (m, _), c in cov.items() if m == "clopper_pearson") >= 0.95
    one = lesson.coverage_by_n(theta=0.01, rng=1)
    assert round(float(one[(one["method"] == "wilson") & (one["n"] == 10)]["coverage"].iloc[0]), 2) == 0.90
    for edge in (0.0, 1.0):
        assert (lesson.coverage_by_n(theta=edge, rng=1)["coverage"] == 1.0).all()
    sentence = lesson.coverage_range_sentence(by)
    assert sentence == f"Wilson and Bayes dip below 95% at this true accuracy: lowest Wilson {cov['wilson', 3]:.1%} " \
                       f"at N = 3, Bayes {cov['bayes', 10]:.1%} at N = 10."
    uniform = lesson.coverage_by_n(theta=None, rng=1, reps=20_000)
    assert lesson.coverage_range_sentence(uniform) == "Wilson and Bayes stay near 95% throughout."


def test_chart_captions_quote_the_numbers_they_caption():
    """The captions come from the numbers: Atlas's score range from its table, Wald and Wilson from the
    calculator's rows, the half-width from the curve's ends."""
    steps = lesson.atlas_steps()
    lo, hi = steps.table["score"].min(), steps.table["score"].max()
    assert f"from {lo:.0%} to {hi:.0%}" in lesson.atlas_sentence(steps)
    calc = lesson.ci_calculator(0.9, 50)
    text = lesson.calculator_sentence(calc, 45, 50)
    assert text.startswith("45/50: Wald gives [") and f"{calc['ci_low'].iloc[1]:.1%}" in text
    curve = lesson.halfwidth_curve(0.9)
    wald = curve[curve["method"] == "wald"]
    assert f"±{wald['half_width'].iloc[-1] * 100:.1f} at n = {int(wald['n'].iloc[-1]):,}" in lesson.halfwidth_sentence(curve, 0.9)


def test_atlas_both_ways_and_the_workbench_agree():
    """Issue 24 item 9: chapter 2 teaches the paper's z interval [51.6%, 75.6%] and shows beside it the t
    interval [49.7%, 77.5%] that the workbench ('Try it on data', the bundled atlas_breeze file) reports."""
    from scipy import stats as sps

    from evalstats_app.examples import EXAMPLES, EXAMPLES_DIR
    from evalstats_core.analysis import analyze
    from evalstats_core.data import load

    steps = lesson.atlas_steps()
    assert (round(100 * steps.ci_low, 1), round(100 * steps.ci_high, 1)) == (51.6, 75.6)
    assert (round(100 * steps.t_low, 1), round(100 * steps.t_high, 1)) == (49.7, 77.5)
    assert steps.df == 9 and steps.t == pytest.approx(sps.t.ppf(0.975, 9), rel=1e-12)
    assert steps.t_low == pytest.approx(steps.mean - steps.t * steps.se, rel=1e-12)
    atlas = analyze(load(EXAMPLES_DIR / EXAMPLES["atlas_breeze"].file)).models_frame().set_index("model").loc["Atlas"]
    assert (atlas.ci_low, atlas.ci_high) == pytest.approx((steps.t_low, steps.t_high), rel=1e-12)
    sentence = lesson.both_ways_sentence(steps)
    assert "[51.6%, 75.6%]" in sentence and "[49.7%, 77.5%]" in sentence and "uses t by default" in sentence
    notes = lesson.atlas_notes(steps)
    assert "from about 52% to 76% with the paper's z, and from 50% to 77%" in notes[1]


def test_chapter_two_lessons_are_split_and_every_name_still_imports():
    """Chapter 2b's lesson functions live in lessons/small_n.py (one_model.py was 722 lines); every name
    stays importable from lessons.one_model, as the same object, and each module is under 500 lines."""
    import inspect

    from evalstats_core.lessons import one_model, small_n

    for name in small_n.__all__:
        assert getattr(one_model, name) is getattr(small_n, name), name
    for module in (one_model, small_n):
        assert len(inspect.getsource(module).splitlines()) < 500, module.__name__
