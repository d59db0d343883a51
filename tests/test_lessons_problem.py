"""Chapter 1 computations (evalstats_core.lessons.problem) and its chart builders."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalstats_core.charts import problem as charts
from evalstats_core.errors import EvalStatsError
from evalstats_core.lessons import problem as lesson

# ---- the seed's worked numbers (Miller 2024, Sec. 1-2; seed 000, chapters 0 and 2) -------------------

def test_reported_table_is_the_bare_table():
    """The three benchmarks with question counts, both accuracies and Galleon - Dreadnought."""
    t = lesson.reported_table()
    assert t["eval"].tolist() == ["MATH", "HumanEval", "MGSM"]
    assert t["n"].tolist() == [5000, 164, 2500]
    assert np.allclose(t["difference"], [0.025, -0.031, -0.027])


def test_score_intervals_reproduce_math_and_humaneval():
    """MATH: SE 0.67%, CI (64.2%, 66.8%); HumanEval: SE 2.89%, CI (77.9%, 89.3%)."""
    f = lesson.score_intervals().set_index(["eval", "model"])
    math_g, he_g = f.loc[("MATH", "Galleon")], f.loc[("HumanEval", "Galleon")]
    assert round(math_g.se * 100, 2) == 0.67
    assert (round(math_g.ci_low * 100, 1), round(math_g.ci_high * 100, 1)) == (64.2, 66.8)
    assert round(he_g.se * 100, 2) == 2.89
    assert (round(he_g.ci_low * 100, 1), round(he_g.ci_high * 100, 1)) == (77.9, 89.3)


def test_score_intervals_against_statsmodels():
    """Each interval is statsmodels' normal interval at the reported accuracy."""
    from statsmodels.stats.weightstats import _zconfint_generic

    for row in lesson.score_intervals().itertuples():
        # _zconfint_generic(mean, std_mean, alpha=0.05, alternative="two-sided")
        low, high = _zconfint_generic(row.estimate, math.sqrt(row.estimate * (1 - row.estimate) / row.n),
                                      0.05, "two-sided")
        assert row.ci_low == pytest.approx(low, abs=1e-12)
        assert row.ci_high == pytest.approx(high, abs=1e-12)


def test_differences_verdicts():
    """MATH survives (Galleon ahead), HumanEval is unresolved, MGSM survives (Dreadnought ahead). Chapter 1 and
    chapter 8 use one word for an interval that holds 0 (chapter 1 said "could be noise", chapter 8 "unresolved")."""
    from evalstats_core.lessons import verdict
    d = lesson.differences().set_index("eval")
    assert d.loc["MATH", "verdict"] == "Galleon ahead"
    assert d.loc["HumanEval", "verdict"] == "unresolved" == verdict.UNRESOLVED
    assert d.loc["MGSM", "verdict"] == "Dreadnought ahead"
    assert round(d.loc["MATH", "se"] * 100, 2) == 0.96
    assert round(d.loc["HumanEval", "se"] * 100, 2) == 3.92


def test_differences_against_statsmodels_unpooled_z_test():
    """The unpaired z and p-value match statsmodels' two-proportion test with unpooled variance."""
    from statsmodels.stats.proportion import test_proportions_2indep

    d = lesson.differences()
    for row, rep in zip(d.itertuples(), lesson.REPORTED, strict=True):
        # test_proportions_2indep(k_a, n, k_b, n, method="wald") with k = p * n (may be fractional)
        res = test_proportions_2indep(rep.galleon * rep.n, rep.n, rep.dreadnought * rep.n, rep.n,
                                      method="wald")
        assert row.z == pytest.approx(res.statistic, rel=1e-9)
        assert row.p_value == pytest.approx(res.pvalue, rel=1e-9)
        assert row.survives == (row.ci_low > 0 or row.ci_high < 0)
        assert row.paired_se_low <= row.paired_se_high


# ---- the super-population simulation ---------------------------------------------------------------

def test_superpopulation_components_add_to_bernoulli_variance():
    """Var(x) + E[sigma^2] = p(1-p) and the formula SE equals the Bernoulli SE."""
    r = lesson.superpopulation_demo(0.655, 0.3, 164, reps=200, rng=1)
    assert r.var_x + r.mean_sigma2 == pytest.approx(0.655 * 0.345)
    assert r.se_total == pytest.approx(math.sqrt(0.655 * 0.345 / 164))
    assert r.se_answers == pytest.approx(math.sqrt(0.7 * 0.655 * 0.345 / 164))


def test_superpopulation_simulated_spreads_match_formulas():
    """With many reps the fresh-question spread matches the formula SE and the same-question one is smaller."""
    r = lesson.superpopulation_demo(0.655, 0.6, 400, reps=4000, rng=7)
    assert r.sd_fresh == pytest.approx(r.se_total, rel=0.06)
    assert r.sd_same < r.sd_fresh
    # E over question sets of the same-question variance is E[sigma^2]/n (on average; one set here)
    assert r.sd_same == pytest.approx(r.se_answers, rel=0.15)


def test_superpopulation_deterministic_model_never_moves_on_reruns():
    """Share 1 (each question always right or always wrong): reruns on the same questions do not move."""
    r = lesson.superpopulation_demo(0.5, 1.0, 100, reps=300, rng=3)
    assert r.sd_same == pytest.approx(0.0, abs=1e-12)
    assert r.sd_fresh > 0.02


def test_superpopulation_is_seeded():
    """The same seed gives the same histogram; another seed a different one."""
    a = lesson.superpopulation_demo(0.655, 0.5, 100, reps=300, rng=11)
    b = lesson.superpopulation_demo(0.655, 0.5, 100, reps=300, rng=11)
    c = lesson.superpopulation_demo(0.655, 0.5, 100, reps=300, rng=12)
    assert a.histogram.equals(b.histogram)
    assert not a.histogram.equals(c.histogram)


@pytest.mark.parametrize("kwargs, word", [({"share": 1.5}, "share"), ({"share": "x"}, "share"),
                                          ({"n": 0}, "n"), ({"accuracy": 1.0}, "accuracy"),
                                          ({"reps": 1}, "reps")])
def test_superpopulation_rejects_bad_input(kwargs, word):
    """Bad inputs raise EvalStatsError naming the argument."""
    with pytest.raises(EvalStatsError, match=word):
        lesson.superpopulation_demo(**{"accuracy": 0.655, "share": 0.5, "n": 50, "reps": 10, **kwargs})


@settings(max_examples=40, deadline=None)
@given(p=st.floats(0.05, 0.95), share=st.floats(0.0, 1.0), n=st.integers(1, 60), seed=st.integers(0, 10**6))
def test_superpopulation_histogram_counts_every_run(p, share, n, seed):
    """Each kind's histogram counts all reps, and its densities integrate to 1."""
    r = lesson.superpopulation_demo(p, share, n, reps=50, rng=seed)
    for _, g in r.histogram.groupby("kind"):
        assert int(g["count"].sum()) == 50
        assert float((g["density"] * (g["bin_high"] - g["bin_low"])).sum()) == pytest.approx(1.0)
    assert r.se_answers <= r.se_total + 1e-15


# ---- charts ----------------------------------------------------------------------------------------

def _layers(spec):
    return spec.get("layer", [spec])


def test_scores_chart_draws_bars_only_with_error_bars():
    """Without error bars: one point layer; with them, a rule from ci_low to ci_high is added."""
    frame = lesson.score_intervals()
    bare = charts.scores_chart(frame, error_bars=False).to_dict()
    full = charts.scores_chart(frame, error_bars=True).to_dict()
    assert [layer["mark"]["type"] for layer in _layers(bare)] == ["point"]
    marks = [layer["mark"]["type"] for layer in _layers(full)]
    assert marks == ["rule", "point"]
    rule = _layers(full)[0]["encoding"]
    assert rule["x"]["field"] == "ci_low" and rule["x2"]["field"] == "ci_high"
    assert "ci0" not in str(full) and "extent" not in str(full)


def test_differences_chart_has_zero_line_and_verdict_colours():
    """The forest of differences draws a zero rule and colours rows by verdict."""
    spec = charts.differences_chart(lesson.differences()).to_dict()
    text = str(spec)
    assert "'field': 'verdict'" in text and "'field': 'zero'" in text


def test_superpopulation_chart_marks_formula_interval():
    """The histogram chart carries rules at accuracy and accuracy +/- 1.96 SE."""
    r = lesson.superpopulation_demo(0.655, 0.5, 164, reps=200, rng=1)
    spec = charts.superpopulation_chart(r.histogram, accuracy=r.accuracy, se_total=r.se_total).to_dict()
    datasets = spec["datasets"]
    rule_values = [row["x"] for rows in datasets.values() for row in rows if "x" in row]
    assert rule_values == pytest.approx([0.655 - 1.959964 * r.se_total, 0.655, 0.655 + 1.959964 * r.se_total])


def test_scores_axis_stays_put_when_error_bars_toggle():
    """Issue 24: chapter 1's axis jumped from 60-92% to 56-94% when the error bars were switched on (the bar
    layer brought its own data domain). Both drawings now carry one fixed domain that holds every interval."""
    import re

    import vl_convert as vlc

    from evalstats_core.charts import problem as charts

    frame = lesson.score_intervals()

    def ticks(svg):
        group = re.findall(r'class="[^"]*role-axis-label"[^>]*>(.*?)</g>', svg, re.S)[0]
        return re.findall(r'>([^<>]+%)</text>', group)

    specs = [charts.scores_chart(frame, error_bars=on).to_dict() for on in (False, True)]
    domains = [[layer["encoding"]["x"]["scale"]["domain"] for layer in s["layer"] if "x" in layer["encoding"]] for s in specs]
    assert domains[0][0] == domains[1][0] == domains[1][1]
    lo, hi = domains[0][0]
    assert lo <= frame["ci_low"].min() and hi >= frame["ci_high"].max()
    assert ticks(vlc.vegalite_to_svg(specs[0])) == ticks(vlc.vegalite_to_svg(specs[1]))
