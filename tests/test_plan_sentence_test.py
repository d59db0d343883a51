"""The plan's minimum-detectable-effect sentence names the test it assumes (a paired t-test, a CR2 t-test on the
clusters' df), and says so when the questions needed are planned for another rule (clustered 0/1 pairs under CR2 + auto:
CR2 t or the score rule end by end, issue 45): the sentence checked against the plan's numbers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evalstats_app.examples import example_bytes
from evalstats_core.analysis import analyze
from evalstats_core.data import load, question_scores
from evalstats_core.plan_spread import mean_power
from evalstats_core.planning import _binary_pair_test_df, describe, plan_pair

PAIRS = {"atlas_breeze": ("Breeze", "Atlas"), "multilingual": ("Dreadnought", "Galleon"),
         "coding": ("heron-13b", "pelican-7b")}


def _plan(slug: str, **kw):
    if slug == "coding":  # 12 repositories, not a bundled example of the workbench's menu
        name = "coding_12_repos.csv"
        data = (Path(__file__).resolve().parent.parent / "examples" / name).read_bytes()
    else:
        data, name = example_bytes(slug)
    ds = load(data, name=name)
    tb = question_scores(ds)
    a = analyze(tb, **kw)
    return plan_pair(ds, tb, a, *PAIRS[slug], delta=0.03), tb, a


def test_unclustered_the_mde_is_a_paired_t_tests_on_n_minus_1_df():
    plan, _, _ = _plan("atlas_breeze")
    words = describe(plan)["mde"]
    assert plan.test == "paired t" and plan.df == 9
    assert (f"detects a true difference of {100 * plan.mde:.1f} points with 80% power at α = 0.05 in a paired t-test "
            "on 9 degrees of freedom if ω² is what this file estimates") in words
    assert "Tango" not in words
    se = plan.mde / (stats.t.ppf(0.975, 9) + stats.t.ppf(0.8, 9))  # Eq. 10 with t on 9 df: the test the words name
    assert se * se * plan.n == pytest.approx(plan.omega2)


def test_clustered_normal_interval_the_mde_is_the_cr2_t_tests_and_so_is_the_plan():
    plan, _, a = _plan("multilingual", interval="normal")
    words = describe(plan)["mde"]
    assert plan.test == "cr2 t"
    assert f"in a CR2 t-test on the clusters' {plan.df:.1f} degrees of freedom (Satterthwaite)" in words
    assert "Tango" not in words and "planned for that test" not in words
    pair = [c for c in a.comparisons if (c.model, c.baseline) == PAIRS["multilingual"]][0]
    assert plan.df == pytest.approx(pair.df)


@pytest.mark.parametrize("slug", ["multilingual", "coding"])
def test_clustered_0_1_under_auto_the_sentence_says_the_plan_is_for_the_end_the_rule_reads(slug):
    """The MDE is the CR2 t-test's; the words say the questions needed are for the end the 0/1 rule reads (issue 45
    item 5: CR2 t's or the score rule's). At the MDE the plan's power is the rule's as the plan models it (its test_df
    at this effect): at most the target (the statistic's df at most the design's, the score rule's df at most that)."""
    plan, tb, a = _plan(slug)
    words = describe(plan)["mde"]
    assert plan.test == "t-score"
    assert f"in a CR2 t-test on the clusters' {plan.df:.1f} degrees of freedom (Satterthwaite)" in words
    assert ("The analysis reads these clustered 0/1 scores on CR2 t where the disagreements' skewness allows it") in words
    assert "planned for the end that rule will read at that effect, CR2 t's or the score rule's" in words
    i, j = (tb.models.index(m) for m in PAIRS[slug])
    x, y = tb.scores[:, i], tb.scores[:, j]
    rate = (plan.df + 1.0) / plan.n
    test_df = _binary_pair_test_df(x, y, tb.cluster_codes, np.array([plan.omega2]), rate, a)
    one = (np.array([plan.omega2]), np.ones(1))
    at_t = mean_power(plan.n, plan.mde, *one, df=plan.df)
    drawn, spread = test_df(plan.n, plan.mde, plan.alpha)
    at_rule = mean_power(plan.n, plan.mde, *one, df=plan.df, test_df=(drawn, spread))
    assert at_t == pytest.approx(plan.power) and at_rule <= plan.power + 1e-12, at_rule
