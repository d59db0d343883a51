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


def test_table_5_is_the_default():
    """Seed 002 (the paper), Table 5: rho 0.50 / 0.64 / 0.37 and paired SEs 0.7 / 2.1 / 1.7 (MGSM clustered)."""
    assert dict(verdict.PAPER_RHO) == {"MATH": 0.50, "HumanEval": 0.64, "MGSM": 0.37}
    assert dict(verdict.PAPER_SE) == {"MATH": 0.007, "HumanEval": 0.021, "MGSM": 0.017}
    t = verdict.verdict_steps()
    assert list(t.groupby("eval", sort=False)["rho"].first()) == [0.50, 0.64, 0.37]
    assert t.equals(verdict.verdict_steps(dict(verdict.PAPER_RHO)))
    # the recomputed SEs at Table 5's rho land within half a point of the printed ones (step 3)
    for ev, se in verdict.PAPER_SE.items():
        assert abs(row(t, ev, "clustered").se - se) < 0.005


def test_the_papers_conclusion_at_table_5():
    """At Table 5's correlations, after pairing, clustering and t: only MATH is resolved (the paper: 'the
    differences on HumanEval and MGSM are indistinguishable from statistical noise'), MGSM although chapter
    1's unpaired interval (-5.0, -0.4) said Dreadnought ahead; the unresolved ones quote their power."""
    t = verdict.verdict_steps()
    final = t[t["step"] == "small_sample"].set_index("eval")
    assert list(final["verdict"]) == ["Galleon ahead", "unresolved", "unresolved"]
    assert row(t, "MGSM", "unpaired").verdict == "Dreadnought ahead"
    text = " ".join(verdict.conclusion(t))
    assert "Only MATH is resolved; HumanEval and MGSM are unresolved: their intervals hold 0" in text
    assert "**MGSM** (2,500 questions, −2.7 points) goes from *Dreadnought ahead* to **unresolved**" in text
    assert "noise" not in text
    he = final.loc["HumanEval"]
    assert f"164 questions have {he.power:.0%} power to resolve a real 3-point gap" in text


def test_power_is_chapter_7s():
    """Power and MDE of each row are the core's power_at / mde with the variance per question the row's SE
    implies (SE^2 n), and agree with statsmodels' NormalIndPower on the same effect size."""
    from statsmodels.stats.power import NormalIndPower

    t = verdict.verdict_steps()
    for r in t.itertuples():
        effect = 0.03 / (r.se * math.sqrt(r.n))  # Cohen's d for a one-sample z-test
        # NormalIndPower().power(effect_size=d, nobs1=n, alpha=0.05, ratio=0): one-sample two-sided z
        assert r.power == pytest.approx(NormalIndPower().power(effect, r.n, 0.05, ratio=0), rel=1e-9)
        z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
        assert r.mde == pytest.approx(z * r.se, rel=1e-12)


def test_rho_range_against_a_brute_force_loop():
    """rho_range: the stretch of the 0.01 grid where the last verdict equals the one at rho, from a slow loop
    over verdict_steps."""
    for ev, rho in (("MGSM", 0.37), ("HumanEval", 0.64), ("MATH", 0.5), ("MGSM", 0.9), ("HumanEval", 0.0)):
        def v(r, ev=ev):
            t = verdict.verdict_steps({ev: r})
            return row(t, ev, "small_sample").verdict
        same = [g / 100 for g in range(100) if v(g / 100) == v(rho)]
        assert verdict.rho_range(ev, rho) == (min(same), max(same))


def test_one_slider_moves_one_benchmark():
    """A mapping changes only the benchmarks it names; the issue's case: HumanEval at 0.64 leaves MGSM at 0.37."""
    t = verdict.verdict_steps({"HumanEval": 0.9})
    base = verdict.verdict_steps()
    for ev in ("MATH", "MGSM"):
        assert t[t["eval"] == ev].equals(base[base["eval"] == ev])
    assert row(t, "HumanEval", "paired").se < row(base, "HumanEval", "paired").se
    with pytest.raises(EvalStatsError, match="unknown benchmarks"):
        verdict.verdict_steps({"GSM8K": 0.5})


def test_notices_follow_the_numbers():
    """Every notice sentence quotes its own numbers, at Table 5's and at swept correlations."""
    for rhos in (None, 0.0, 0.62, 0.64, 0.9, {"MGSM": 0.95}):
        t = verdict.verdict_steps(rhos)
        notes = verdict.notices(t)
        by = t.set_index(["eval", "step"])
        for ev in ("MATH", "HumanEval", "MGSM"):
            share = by.loc[(ev, "paired"), "se"] / by.loc[(ev, "unpaired"), "se"]
            assert f"{ev} to {share:.0%} (ρ = {by.loc[(ev, 'paired'), 'rho']:.2f})" in notes[0]
            lo, hi = verdict.rho_range(ev, by.loc[(ev, "small_sample"), "rho"])
            assert f"{ev} is *{by.loc[(ev, 'small_sample'), 'verdict']}* for every ρ from {lo:.2f} to {hi:.2f}" in notes[3]
        before, after = by.loc[("MGSM", "paired"), "verdict"], by.loc[("MGSM", "clustered"), "verdict"]
        assert (f"turns MGSM from *{before}* to *{after}*" in notes[1]) == (before != after)
        assert (f"leaves MGSM *{after}*" in notes[1]) == (before == after)


def test_unpaired_step_is_chapter_1():
    """Step 1 is chapter 1's reveal table, number for number."""
    t = verdict.verdict_steps(0.5)
    ch1 = problem.differences()
    for r in ch1.itertuples():
        v = row(t, r.eval, "unpaired")
        assert v.se == pytest.approx(r.se, rel=1e-12)
        assert v.verdict == r.verdict  # one word for an open interval in both chapters
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
        assert r.verdict == ("unresolved" if not excludes else ("Galleon" if r.diff > 0 else "Dreadnought") + " ahead")
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
    """Towards rho = 0.9 the paired intervals are narrow enough for all three to be resolved."""
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


def test_chart_x_domain_fits_the_intervals():
    """Issue 24: the x domain spans the intervals and 0 with at most 1.5 points to spare on each side (it was
    -12..+18 with the right 40% empty)."""
    from evalstats_core.charts import verdict as charts

    for rhos in (None, 0.0, 0.9):
        t = verdict.verdict_steps(rhos)
        for upto in range(1, 5):
            shown = t[t["step"].isin(STEP_KEYS[:upto])]
            lo, hi = charts.x_domain(100 * shown["ci_low"], 100 * shown["ci_high"])
            assert lo <= min(0, 100 * shown["ci_low"].min()) and hi >= max(0, 100 * shown["ci_high"].max())
            assert min(0, 100 * shown["ci_low"].min()) - lo <= 2 and hi - max(0, 100 * shown["ci_high"].max()) <= 2
