"""Only reported numbers: intervals and unpaired comparisons from accuracy with n or SE."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from evalstats_core.comparison import compare
from evalstats_core.errors import EvalStatsError
from evalstats_core.reported import analyze_reported, paired_se_bounds


def _table(**cols):
    return pd.DataFrame(cols)


def test_seed_numbers_math_and_humaneval():
    """Seed 000, ch. 2: 65.5% on 5,000 -> SE 0.67%; 83.6% on 164 -> SE 2.89%, CLT CI (77.9%, 89.3%)."""
    r = analyze_reported(_table(model=["MATH", "HumanEval"], accuracy=[65.5, 83.6], n=[5000, 164], se=[None, None]),
                         interval="wald")
    assert round(r.models.se[0] * 100, 2) == 0.67
    assert round(r.models.se[1] * 100, 2) == 2.89
    assert (round(r.models.ci_low[1] * 100, 1), round(r.models.ci_high[1] * 100, 1)) == (77.9, 89.3)
    assert (round(r.models.ci_low[0] * 100, 1), round(r.models.ci_high[0] * 100, 1)) == (64.2, 66.8)


def test_wilson_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    r = analyze_reported(_table(model=["A"], accuracy=[30.0], n=[10], se=[None]), interval="wilson")
    low, high = proportion_confint(3, 10, alpha=0.05, method="wilson")  # statsmodels 0.15, Wilson score interval
    assert r.models.ci_low[0] == pytest.approx(low, abs=1e-12)
    assert r.models.ci_high[0] == pytest.approx(high, abs=1e-12)
    assert r.models.method[0] == "wilson" and r.models.se_source[0] == "Bernoulli from n"


def test_reported_se_gives_normal_interval_and_unpaired_test():
    r = analyze_reported(_table(model=["A", "B"], accuracy=[75.3, 78.0], n=[None, None], se=[1.6, 1.5]),
                         confidence=0.9)
    z = stats.norm.ppf(0.95)  # scipy oracle for the 90% two-sided critical value
    assert r.models.ci_low[0] == pytest.approx(0.753 - z * 0.016)
    c = r.comparisons.iloc[0]
    se = math.hypot(0.016, 0.015)  # Miller 2024, Eq. 5
    assert c.se == pytest.approx(se)
    assert c["diff"] == pytest.approx(-0.027)
    assert c.p_value == pytest.approx(2 * stats.norm.sf(0.027 / se))
    assert math.isnan(c.paired_se_low)  # no n: no bound on the paired SE
    assert "these numbers alone do not separate them" in " ".join(r.can_say)


def test_significant_pair_and_percent_false():
    r = analyze_reported({"model": ["A", "B"], "accuracy": [0.655, 0.630], "n": [5000, 5000], "se": [None, None]},
                         percent=False)
    assert r.comparisons.ci_low[0] > 0
    assert any("A is ahead of B by 2.5 points" in s for s in r.can_say)
    assert len(r.cannot_say) >= 4 and any("McNemar" in s for s in r.cannot_say)


@settings(max_examples=80, deadline=None)
@given(st.integers(10, 300), st.data())
def test_paired_se_bounds_contain_every_possible_table(n, data):
    """Any 2x2 table with the reported accuracies gives a paired SE inside the bounds; the extremes reach them."""
    ka = data.draw(st.integers(0, n))
    kb = data.draw(st.integers(0, n))
    both = data.draw(st.integers(max(0, ka + kb - n), min(ka, kb)))
    a = np.zeros(n)
    b = np.zeros(n)
    a[:ka] = 1
    b[:both] = 1  # b's right answers: `both` shared with a, the rest where a is wrong
    b[ka:ka + kb - both] = 1
    assert a.sum() == ka and b.sum() == kb
    low, high = paired_se_bounds(ka / n, kb / n, n)
    se = compare(a, b).se_paired  # Miller Eq. 7 on the actual question-level differences
    assert low - 1e-12 <= se <= high + 1e-12
    # the bounds are attained: most overlap, least overlap
    for shared, bound in ((min(ka, kb), low), (max(0, ka + kb - n), high)):
        b2 = np.zeros(n)
        b2[:shared] = 1
        b2[ka:ka + kb - shared] = 1
        assert compare(a, b2).se_paired == pytest.approx(bound, abs=1e-12)


def test_empty_rows_are_skipped():
    r = analyze_reported(_table(model=["A", None, ""], accuracy=[50.0, None, None], n=[100, None, None],
                                se=[None, None, None]))
    assert list(r.models.model) == ["A"] and r.comparisons.empty


@pytest.mark.parametrize("rows, message", [
    ({"model": ["A"], "accuracy": [120.0], "n": [10], "se": [None]}, "between 0 and 100"),
    ({"model": ["A"], "accuracy": [50.0], "n": [None], "se": [None]}, "needs n"),
    ({"model": ["A", "A"], "accuracy": [50.0, 40.0], "n": [10, 10], "se": [None, None]}, "twice"),
    ({"model": ["A"], "accuracy": [50.0], "n": [10.5], "se": [None]}, "whole number"),
    ({"model": ["A"], "accuracy": [50.0], "n": [None], "se": [-1.0]}, "SE of 'A' \\(-1\\) must be between"),
    # issue 21: overflowing and absurd values end in one message, never an OverflowError or a point interval
    ({"model": ["A"], "accuracy": [50.0], "n": [1e308], "se": [None]}, "n of 'A' \\(1e\\+308\\) must be a whole"),
    ({"model": ["A"], "accuracy": [50.0], "n": [float("inf")], "se": [None]}, "from 2 to 1,000,000,000"),
    ({"model": ["A"], "accuracy": [50.0], "n": [2.0**70], "se": [None]}, "from 2 to 1,000,000,000"),
    ({"model": ["A"], "accuracy": [50.0], "n": [None], "se": [1e308]}, "at most half its scale"),
    ({"model": ["A"], "accuracy": [50.0], "n": [None], "se": [1e-320]}, "between 1e-09 and 50%"),
    ({"model": ["A"], "accuracy": [1e308], "n": [10], "se": [None]}, "between 0 and 100"),
    ({"model": [None], "accuracy": [50.0], "n": [10], "se": [None]}, "no model name"),
    ({"model": [], "accuracy": [], "n": [], "se": []}, "empty"),
    ({"model": ["A"], "accuracy": ["lots"], "n": [10], "se": [None]}, "not a number"),
    ({"name": ["A"]}, "missing"),
])
def test_bad_tables_name_the_problem(rows, message):
    with pytest.raises(EvalStatsError, match=message):
        analyze_reported(pd.DataFrame(rows))


def test_bad_interval_and_confidence():
    ok = {"model": ["A"], "accuracy": [50.0], "n": [10], "se": [None]}
    with pytest.raises(EvalStatsError, match=r"interval \(.exact.\) must be one of"):
        analyze_reported(ok, interval="exact")
    with pytest.raises(EvalStatsError, match="confidence"):
        analyze_reported(ok, confidence=95)
