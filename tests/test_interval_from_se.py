"""interval_from_se: an interval from a mean and its SE, t on df degrees of freedom (z without df)."""

from __future__ import annotations

import doctest
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import evalstats_core
from evalstats_app.content import load_content
from evalstats_core import EvalStatsError, Interval, interval_from_se, normal_ci
from evalstats_core.lessons.verdict import verdict_steps


@pytest.mark.parametrize(("mean", "se", "df", "confidence"),
                         [(0.636, 0.0613, 9, 0.95), (-0.027, 0.01785, 249, 0.95), (0.1, 0.02, 2.7, 0.9),
                          (0.5, 0.001, 30, 0.99), (3.0, 1.5, 1, 0.8)])
def test_matches_scipy_t_interval(mean, se, df, confidence):
    # oracle: scipy.stats.t.interval(confidence, df, loc=mean, scale=se)
    want = stats.t.interval(confidence, df, loc=mean, scale=se)
    got = interval_from_se(mean, se, df=df, confidence=confidence)
    assert isinstance(got, Interval)
    assert got.low == pytest.approx(want[0], abs=1e-12) and got.high == pytest.approx(want[1], abs=1e-12)


def test_without_df_or_with_infinite_df_it_is_the_normal_interval():
    assert interval_from_se(0.655, 0.0067) == normal_ci(0.655, 0.0067)
    low, high = interval_from_se(0.655, 0.0067, df=math.inf)
    assert (low, high) == pytest.approx(normal_ci(0.655, 0.0067))


def test_atlas_t_interval_is_chapter_twos():
    """Atlas on ten tasks (chapter 2): mean 0.636, SE 0.0613, t on 9 df gives [49.7%, 77.5%]."""
    low, high = interval_from_se(0.636, 0.06134, df=9)
    assert (round(100 * low, 1), round(100 * high, 1)) == (49.7, 77.5)


@given(mean=st.floats(-1, 1), se=st.floats(1e-4, 1), df=st.floats(0.5, 1e6))
def test_t_is_wider_than_z_and_centred(mean, se, df):
    t, z = interval_from_se(mean, se, df=df), normal_ci(mean, se)
    assert t.low <= z.low + 1e-12 and t.high >= z.high - 1e-12
    assert (t.low + t.high) / 2 == pytest.approx(mean, abs=1e-9)


@pytest.mark.parametrize(("kwargs", "word"), [({"df": 0}, "df (0) must be positive"), ({"df": -3}, "df (-3)"),
                                              ({"df": "many"}, "df ('many')"), ({"df": math.nan}, "df (nan)")])
def test_bad_df_is_refused_with_its_value(kwargs, word):
    with pytest.raises(EvalStatsError, match=word.replace("(", r"\(").replace(")", r"\)")):
        interval_from_se(0.5, 0.1, **kwargs)


def test_bad_se_and_confidence_are_refused():
    with pytest.raises(EvalStatsError, match="must not be negative"):
        interval_from_se(0.5, -0.1, df=9)
    with pytest.raises(EvalStatsError, match="confidence"):
        interval_from_se(0.5, 0.1, df=9, confidence=95)


def test_is_public():
    assert "interval_from_se" in evalstats_core.__all__


def test_chapter_eight_python_block_reproduces_every_benchmark_of_the_chapter():
    """The block's last step is the chapter's step 4 on MATH, HumanEval and MGSM: SE, interval, verdict."""
    examples = doctest.DocTestParser().get_examples(load_content("verdict").sections["python"])
    printed = "\n".join(ex.want for ex in examples)
    last = verdict_steps().query("step == 'small_sample'")
    assert len(last) == 3
    for row in last.itertuples():
        line = (f"{row.eval}: SE {100 * row.se:.2f} points, interval ({100 * row.ci_low:+.1f}, "
                f"{100 * row.ci_high:+.1f}), {row.verdict}")
        assert line in printed, line
