"""The regression gate: exit codes on a regression, an improvement, an underpowered pair and a bad file;
the sentence it prints agrees with the interval beside it."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from evalstats_core.data import load
from evalstats_core.errors import EvalStatsError
from evalstats_core.gating import gate

ROOT = Path(__file__).resolve().parent.parent


def wide(n: int, base: np.ndarray, cand: np.ndarray) -> bytes:
    rows = ["question,base,cand"] + [f"q{i},{int(a)},{int(b)}" for i, (a, b) in enumerate(zip(base, cand, strict=True))]
    return ("\n".join(rows) + "\n").encode()


def pair(n: int, p_base: float, p_cand: float, seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    difficulty = rng.random(n)
    return wide(n, difficulty < p_base, difficulty < p_cand)  # shared difficulty: strongly paired


def plan_of(g, level: float = 0.95, power: float = 0.8) -> float:
    """The gate's plan by hand (issue 46): Eq. 9 per side at the observed difference, the fewer of the two; a t
    interval planned on t with its df growing per unit (df(n) = (df + 1) n / units - 1, scipy's brentq), any other
    on z; each side's spread the one its interval end shows, max(se, width / q), q the interval's quantile."""
    from scipy.optimize import brentq

    units = g.n_clusters or g.n
    on_t = g.interval.startswith(("t (", "CR2 t"))
    pass_level, pass_low = (g.pass_confidence, g.pass_low) if g.pass_confidence else (level, g.ci_low)

    def q(lv: float, k: float) -> float:
        return stats.t.ppf(0.5 + lv / 2, k) if on_t else stats.norm.ppf(0.5 + lv / 2)

    def one(target: float, lv: float, width: float) -> float:
        se = max(g.se, width / q(lv, g.df))
        if not on_t:
            return (q(lv, 0) + stats.norm.ppf(power)) ** 2 * units * se**2 / target**2

        def gap(n: float) -> float:
            k = max(1.0, (g.df + 1.0) * n / units - 1.0)
            return n - (q(lv, k) + stats.t.ppf(power, k)) ** 2 * units * se**2 / target**2

        return brentq(gap, 1e-6, 1e9, xtol=1e-12, rtol=1e-14)

    sides = [(g.diff + g.margin, pass_level, g.diff - pass_low), (-g.diff, level, g.ci_high - g.diff)]
    return min(one(t, lv, w) for t, lv, w in sides if t > 0)


def run_cli(tmp_path: Path, data: bytes, *args: str) -> subprocess.CompletedProcess:
    f = tmp_path / "results.csv"
    f.write_bytes(data)
    return subprocess.run([sys.executable, "-m", "evalstats_core", "gate", str(f), "--baseline", "base",
                           "--candidate", "cand", *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_regression_exits_1(tmp_path):
    proc = run_cli(tmp_path, pair(600, 0.70, 0.62, seed=1))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "**REGRESSION: cand is significantly worse than base" in proc.stdout and proc.stderr == ""


def test_improvement_exits_0(tmp_path):
    proc = run_cli(tmp_path, pair(600, 0.62, 0.70, seed=2))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "**PASS: cand is not worse than base by more than 0.0 points" in proc.stdout


def test_underpowered_pair_exits_3_and_says_how_many_questions(tmp_path):
    data = pair(40, 0.60, 0.58, seed=3)
    proc = run_cli(tmp_path, data)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    g = gate(load(data, name="r.csv"), baseline="base", candidate="cand")
    assert g.verdict == "inconclusive" and g.ci_low < 0 < g.ci_high
    # Eq. 9 by hand (plan_of): omega2 = n spread^2, the easier decision; Tango's interval reaches further than z SE
    want = plan_of(g)
    assert g.n_needed == pytest.approx(want, rel=1e-8) and math.ceil(want) > g.n
    assert f"About {math.ceil(want):,} questions like these would tell" in proc.stdout


def test_bad_file_exits_2_with_one_line(tmp_path):
    proc = run_cli(tmp_path, b"question,base\nq1,1\nq2,0\n")  # no candidate column
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "candidate 'cand' is not a model" in lines[0]
    proc = run_cli(tmp_path, pair(50, 0.6, 0.6, seed=4), "--margin", "-1")
    assert proc.returncode == 2 and "margin '-1' must be a drop >= 0" in proc.stderr


def test_margin_turns_a_small_significant_drop_into_a_pass_and_says_so():
    data = pair(4000, 0.700, 0.690, seed=5)  # a 1-point drop, measured precisely
    strict = gate(load(data, name="r.csv"), baseline="base", candidate="cand")
    assert strict.verdict == "regression" and strict.ci_high < 0
    loose = gate(load(data, name="r.csv"), baseline="base", candidate="cand", margin=0.03)
    assert loose.verdict == "pass" and loose.ci_low > -0.03 and loose.exit_code == 0
    assert "significantly lower, but by less than the 3.0 points margin" in loose.headline()


def test_gate_equals_the_workbench_comparison():
    """Same numbers as analyze(): paired, CR2, on the shared questions."""
    from evalstats_core.analysis import analyze

    data = pair(300, 0.5, 0.55, seed=6)
    g = gate(load(data, name="r.csv"), baseline="base", candidate="cand")
    (c,) = analyze(load(data, name="r.csv"), baseline="base").comparisons
    assert (g.diff, g.se, g.df, g.ci_low, g.ci_high, g.p_value) == (c.diff, c.se, c.df, c.ci_low, c.ci_high,
                                                                      c.p_value)
    # the sentence quotes the interval beside it
    assert f"{100 * g.ci_low:+.1f} to {100 * g.ci_high:+.1f} points" in g.headline()


def test_gate_errors_name_the_fix():
    data = pair(50, 0.6, 0.6, seed=7)
    with pytest.raises(EvalStatsError, match="two different models"):
        gate(load(data, name="r.csv"), baseline="base", candidate="base")
    with pytest.raises(EvalStatsError, match="margin"):
        gate(load(data, name="r.csv"), baseline="base", candidate="cand", margin=-0.1)


def test_the_questions_that_would_tell_do_tell_80_percent_of_the_time():
    """Seeded simulation of the gate's promise: with the n it prints for an inconclusive pilot, and the true
    difference equal to the pilot's, the interval excludes 0 in about 80% of evals (600 replications,
    Monte-Carlo SE 1.6 points)."""
    from evalstats_core.comparison import compare

    rng = np.random.default_rng(11)

    def draw(n: int):
        d = rng.random(n)  # shared difficulty: paired, as real evals are
        base, cand = (d < 0.60).astype(float), (d < 0.55).astype(float)
        flip = rng.random(n) < 0.15
        cand[flip] = 1 - cand[flip]
        return base, cand

    from evalstats_core.power import sample_size

    base, cand = draw(200_000)
    truth = compare(cand, base)  # so many questions that its difference and variance are the truth
    # what the gate prints (Eq. 9 with omega2 = n SE^2) when the observed difference is the true one
    n = math.ceil(sample_size(abs(truth.diff), omega2=truth.n * truth.se**2))
    told = sum(gate_told(*draw(n)) for _ in range(600)) / 600
    assert 0.74 <= told <= 0.86, told


def gate_told(base: np.ndarray, cand: np.ndarray) -> bool:
    from evalstats_core.comparison import compare

    c = compare(cand, base)
    return bool(c.ci_high < 0 or c.ci_low > 0)


# ------------------------------------------------------------------------------- margins, plan, wording
@pytest.mark.parametrize("margin", ["5", "1e308", "inf", "nan", "-1", "1", "100pt", "abc"])
def test_a_margin_the_scale_cannot_hold_is_refused_in_one_line(tmp_path, margin):
    """A 60-point drop never passes: a margin of 5 (500 points), 1e308, inf, nan or a negative one is refused."""
    base = np.ones(200)
    cand = np.r_[np.zeros(120), np.ones(80)]  # 100% -> 40%: a 60-point drop
    proc = run_cli(tmp_path, wide(200, base, cand), "--margin", margin)
    assert proc.returncode == 2 and proc.stdout == "", (margin, proc.stdout)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evalbars: error:") and "margin" in lines[0]


@pytest.mark.parametrize("margin", ["0.999999", "99.99pt", 0.999999, "0.6", "59.7pt"])
def test_a_margin_as_large_as_the_drop_the_scores_allow_is_refused(margin):
    """Issue 46: --margin 0.999999 got past the scale check (1.0) and passed 0% against 59.7% "by not more than
    100.0 points". The check is on the margin in score units: within 0.1% of the scale, or as large as the
    baseline's whole mean above the floor (59.7 points here), it is refused; just below that it cannot pass."""
    rng = np.random.default_rng(46)
    base = rng.permutation(np.r_[np.ones(597), np.zeros(403)])  # 59.7%
    data = load(wide(1000, base, np.zeros(1000)), name="r.csv")  # the candidate gets nothing right
    with pytest.raises(EvalStatsError, match="margin"):
        gate(data, baseline="base", candidate="cand", margin=margin)
    just_under = gate(data, baseline="base", candidate="cand", margin=0.59)
    assert just_under.verdict != "pass" and just_under.ci_low < -0.59


def test_a_margin_is_checked_against_the_baseline_s_room_on_any_scale():
    """Scores from 2 to 9 (no bound known): the floor is the smallest score seen; a margin as large as the
    baseline's mean above it is refused, a smaller one is kept; a baseline at the floor leaves nothing to pass."""
    rows = "question,base,cand\n" + "".join(f"q{i},{4 + i % 2},{2 + (i % 8 == 0) * 7}\n" for i in range(80))
    g = load(rows.encode())
    with pytest.raises(EvalStatsError, match="whole mean above the scale's floor"):
        gate(g, baseline="base", candidate="cand", margin=2.5)  # base's mean 4.5, floor 2
    assert gate(g, baseline="base", candidate="cand", margin=2.0).margin == 2.0
    at_floor = "question,base,cand\n" + "".join(f"q{i},0,{i % 2}\n" for i in range(40))
    assert gate(load(at_floor.encode()), baseline="base", candidate="cand", margin="5pt").verdict == "pass"


@pytest.mark.parametrize(("written", "points"), [("2pt", 2.0), ("2%", 2.0), ("0.02", 2.0), ("2 points", 2.0)])
def test_margin_units_are_read_and_echoed(tmp_path, written, points):
    data = pair(4000, 0.700, 0.690, seed=5)
    g = gate(load(data, name="r.csv"), baseline="base", candidate="cand", margin=written)
    assert g.margin == pytest.approx(points / 100) and g.margin_given == written
    assert f"{points:.1f} points (margin='{written}')" in g.headline()  # the API's words
    assert f"margin {points:.1f} points (margin='{written}')" in g.markdown()
    assert re.search(r"--[a-z]", g.markdown()) is None  # no command-line flag in the API's report
    proc = run_cli(tmp_path, data, "--margin", written)
    echoed = written if " " not in written else f"'{written}'"  # as a shell would take it again
    assert f"margin {points:.1f} points (--margin {echoed})" in proc.stdout.replace("\\", "")


def test_points_on_a_scale_that_is_not_0_1_are_refused():
    rows = "question,base,cand\n" + "".join(f"q{i},{i % 7},{(i * 3) % 7}\n" for i in range(60))
    with pytest.raises(EvalStatsError, match="not between 0 and 1"):
        gate(load(rows.encode()), baseline="base", candidate="cand", margin="2pt")
    with pytest.raises(EvalStatsError, match="larger than the scale"):
        gate(load(rows.encode()), baseline="base", candidate="cand", margin=6.5)


def test_a_zero_difference_never_asks_for_more_than_1e9_questions_and_prints_no_minus_zero():
    """Identical models but one question each way: the difference is 0; no 10^31-question plan, no '-0.0'."""
    base = np.r_[np.ones(50), np.zeros(50)]
    cand = base.copy()
    cand[0], cand[99] = 0, 1
    g = gate(load(wide(100, base, cand), name="r.csv"), baseline="base", candidate="cand")
    assert g.diff == 0 and g.verdict == "inconclusive"
    assert g.n_needed is None or g.n_needed <= 1e9
    text = g.markdown()
    assert "-0.0" not in text and "No number of questions up to 1,000,000,000 would tell" in text


def test_with_clusters_the_plan_counts_clusters():
    rng = np.random.default_rng(7)
    rows = ["question,cluster,base,cand"]
    for c in range(8):
        shift = rng.normal(0, 0.2)
        for q in range(30):
            p = 0.6 + shift
            rows.append(f"q{c}_{q},c{c},{int(rng.random() < p)},{int(rng.random() < p - 0.01)}")
    g = gate(load(("\n".join(rows) + "\n").encode(), name="r.csv"), baseline="base", candidate="cand")
    assert g.n_clusters == 8 and g.needed_unit == "clusters" and g.verdict == "inconclusive"
    # Eq. 9 on clusters (plan_of): omega2 = C * spread^2 per cluster, the easier decision at the observed difference
    want = plan_of(g)
    assert g.n_needed == pytest.approx(want, rel=1e-8) and math.ceil(want) > 8
    assert f"About {math.ceil(want):,} clusters like these (of about 30.0 questions each) would tell" in g.markdown()
    assert "against 8 here" in g.markdown() and "questions like these" not in g.markdown()


def test_gate_section_says_in_one_line_what_was_decided_and_why():
    data = pair(4000, 0.700, 0.690, seed=5)
    g = gate(load(data, name="r.csv"), baseline="base", candidate="cand", margin="3pt")
    md = g.markdown()
    section = md.split("### Gate\n\n", 1)[1].split("\n", 1)[0]
    assert section.startswith("PASS (exit 0): the 95% interval's lower end")
    assert f"{100 * g.ci_low:+.1f} points" in section and "-3.0 points" in section


def test_gate_wild_bootstrap_cross_check(tmp_path):
    proc = run_cli(tmp_path, pair(300, 0.62, 0.70, seed=2), "--wild-bootstrap", "--n-boot", "199")
    assert proc.returncode == 0 and "wild bootstrap p = " in proc.stdout
