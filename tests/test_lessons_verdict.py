"""Chapter 8's numbers (lessons/verdict.py): seed 000's paired MATH example, MGSM clustered with the
paper's ratio, the t correction, and every verdict sentence against the interval beside it."""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from evalstats_core.errors import EvalStatsError
from evalstats_core.lessons import problem, verdict

STEP_KEYS = [s.key for s in verdict.STEPS]


def row(t, ev, step):
    return t[(t["eval"] == ev) & (t["step"] == step)].iloc[0]


def test_seed_000_paired_math_example():
    """Seed 000: unpaired SE 0.95% (from SEs rounded to 0.67%), paired at rho = 0.5 0.67%, CI (1.2%, 3.8%).
    From the exact SEs (0.672% and 0.683%): 0.96% and 0.68%, and the same interval to one decimal."""
    t = verdict.verdict_steps(0.5)
    up, pa = row(t, "MATH", "unpaired"), row(t, "MATH", "paired")
    assert round(100 * up.se_g, 2) == 0.67 and round(100 * up.se_d, 2) == 0.68
    # the seed's own arithmetic on its rounded SEs
    assert round(math.sqrt(0.67**2 + 0.67**2), 2) == 0.95
    assert round(math.sqrt(0.67**2 + 0.67**2 - 2 * 0.67 * 0.67 * 0.5), 2) == 0.67
    assert round(100 * up.se, 2) == 0.96 and round(100 * pa.se, 2) == 0.68
    assert (round(100 * pa.ci_low, 1), round(100 * pa.ci_high, 1)) == (1.2, 3.8)


def test_against_an_independent_computation():
    """Every SE and interval from first principles: Var(G - D) = Var G + Var D - 2 rho SD_G SD_D, MGSM x 1.88,
    the t quantile on n - 1 (or clusters - 1) degrees of freedom from scipy."""
    for rho in (0.0, 0.3, 0.5, 0.8):
        t = verdict.verdict_steps(rho)
        for rep in problem.REPORTED:
            vg = rep.galleon * (1 - rep.galleon) / rep.n
            vd = rep.dreadnought * (1 - rep.dreadnought) / rep.n
            paired = math.sqrt(vg + vd - 2 * rho * math.sqrt(vg * vd))
            ratio, df = (1.88, 249) if rep.eval == "MGSM" else (1.0, rep.n - 1)
            expect = {"unpaired": (math.sqrt(vg + vd), 1.959963984540054),
                      "paired": (paired, 1.959963984540054),
                      "clustered": (paired * ratio, 1.959963984540054),
                      "small_sample": (paired * ratio, stats.t.ppf(0.975, df))}
            for step, (se, q) in expect.items():
                r = row(t, rep.eval, step)
                d = rep.galleon - rep.dreadnought
                assert r.se == pytest.approx(se, rel=1e-12)
                assert (r.ci_low, r.ci_high) == pytest.approx((d - q * se, d + q * se), rel=1e-10)


def test_the_papers_conclusion_at_rho_one_half():
    """At rho = 0.5, after pairing, clustering and t: only MATH is real. MGSM (-5.8, +0.4) is noise, though
    chapter 1's unpaired interval (-5.0, -0.4) said Dreadnought ahead; HumanEval's paired SE is 2.78 points."""
    t = verdict.verdict_steps(0.5)
    final = t[t["step"] == "small_sample"].set_index("eval")
    assert list(final["verdict"]) == ["Galleon ahead", "could be noise", "could be noise"]
    mgsm = final.loc["MGSM"]
    assert (round(100 * mgsm.ci_low, 1), round(100 * mgsm.ci_high, 1)) == (-5.8, 0.4)
    assert row(t, "MGSM", "unpaired").verdict == "Dreadnought ahead"
    assert round(100 * row(t, "HumanEval", "paired").se, 2) == 2.78
    text = " ".join(verdict.conclusion(t))
    assert "Only MATH is a real difference; HumanEval and MGSM are noise." in text
    assert "**MGSM** (2,500 questions, −2.7 points) goes from *Dreadnought ahead* to **could be noise**" in text


def test_unpaired_step_is_chapter_1():
    """Step 1 is chapter 1's reveal table, number for number."""
    t = verdict.verdict_steps(0.5)
    ch1 = problem.differences()
    for r in ch1.itertuples():
        v = row(t, r.eval, "unpaired")
        assert v.se == pytest.approx(r.se, rel=1e-12) and v.verdict == r.verdict
        assert (v.ci_low, v.ci_high) == pytest.approx((r.ci_low, r.ci_high), rel=1e-10)


@settings(max_examples=60, deadline=None)
@given(rho=st.floats(0.0, 0.95), confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_every_verdict_and_sentence_matches_its_interval(rho, confidence):
    """'X ahead' exactly when the interval excludes 0 and X leads; the conclusion names exactly the evals whose
    last interval excludes 0, and each sentence quotes that interval."""
    t = verdict.verdict_steps(rho, confidence=confidence)
    assert list(t["step"]) == STEP_KEYS * 3
    for r in t.itertuples():
        excludes = r.ci_low > 0 or r.ci_high < 0
        assert r.survives == excludes
        assert r.verdict == ("could be noise" if not excludes else ("Galleon" if r.diff > 0 else "Dreadnought") + " ahead")
        assert r.ci_low < r.diff < r.ci_high
    # pairing with rho >= 0 never widens; clustering never narrows; t never narrows
    for ev in ("MATH", "HumanEval", "MGSM"):
        se = [row(t, ev, k).se for k in STEP_KEYS]
        assert se[1] <= se[0] + 1e-15 and se[2] >= se[1] and row(t, ev, "small_sample").multiplier > row(t, ev, "clustered").multiplier
    sentences = verdict.conclusion(t)
    final = t[t["step"] == "small_sample"]
    real = set(final.loc[final["survives"], "eval"])
    last = sentences[-1]
    if not real:
        assert last.startswith("None of the three")
    elif len(real) == 3:
        assert last.startswith("All three")
    else:
        assert set(re.findall(r"MATH|HumanEval|MGSM", last.split(";")[0])) == real
    for s, r in zip(sentences[:-1], final.itertuples(), strict=True):
        lo, hi = (f"{100 * v:+.1f}".replace("-", "−") for v in (r.ci_low, r.ci_high))
        assert f"({lo}, {hi}) points" in s and f"**{r.verdict}**" in s


def test_high_correlation_flips_humaneval_and_mgsm_back():
    """The notice's claim: towards rho = 0.9 the paired intervals are narrow enough for all three to be real."""
    final = verdict.verdict_steps(0.9)
    assert final[final["step"] == "small_sample"]["survives"].all()
    assert not verdict.verdict_steps(0.5).query("step == 'small_sample'")["survives"].iloc[1:].any()


def test_ten_clusters_widen_by_about_15_percent():
    """The notice: with ten clusters the t correction widens an interval by about 15%."""
    assert round(stats.t.ppf(0.975, 9) / stats.norm.ppf(0.975) - 1, 2) == 0.15


@pytest.mark.parametrize("bad", [-0.1, 1.0, float("nan"), 2])
def test_bad_rho_is_refused(bad):
    with pytest.raises(EvalStatsError, match="rho"):
        verdict.verdict_steps(bad)


def test_chart_draws_the_cores_numbers():
    from evalstats_core.charts import verdict as charts

    t = verdict.verdict_steps(0.5)
    spec = charts.steps_chart(t).to_dict()
    values = max(spec["datasets"].values(), key=len)
    assert len(values) == 12
    assert np.allclose(sorted(v["low"] for v in values), sorted(100 * t["ci_low"]))
    assert "aggregate" not in str(spec) and "ci0" not in str(spec)
