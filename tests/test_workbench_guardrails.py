"""Guardrails: each check fires on a file that has the problem, with the file's own numbers, and passes
on one that does not."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from evalstats_app.examples import example_bytes
from evalstats_core.analysis import analyze
from evalstats_core.clustering import summarize
from evalstats_core.data import extra_columns, load, question_scores
from evalstats_core.guardrails import CHECKS, guardrails
from evalstats_core.intervals import proportion_ci


def run(data: bytes, name: str = "t.csv", *, extra: bool = True, **kw):
    ds = load(data, name=name)
    tb = question_scores(ds)
    a = analyze(tb, **kw)
    cols = extra_columns(ds, tb)[0] if extra else None
    return {g.check: g for g in guardrails(ds, tb, a, extra_clusters=cols)}, ds, tb, a


def csv_of(frame: pd.DataFrame) -> bytes:
    return frame.to_csv(index=False).encode()


def binary_long(n_q: int, models: dict[str, float], *, seed: int = 0, k: int = 1, groups: int | None = None,
                group_shift: float = 0.0) -> pd.DataFrame:
    """Long-form 0/1 answers; questions optionally in `groups` groups with a shared difficulty shift."""
    rng = np.random.default_rng(seed)
    q = np.arange(n_q)
    g = q % groups if groups else q
    shift = rng.normal(0, group_shift, size=(groups or n_q))[g] if group_shift else 0.0
    rows = []
    for name, p in models.items():
        prob = np.clip(p + shift, 0.01, 0.99)
        for _ in range(k):
            rows.append(pd.DataFrame({"question": [f"q{i}" for i in q], "model": name,
                                      "score": (rng.random(n_q) < prob).astype(int), "doc_group": [f"g{x}" for x in g]}))
    return pd.concat(rows, ignore_index=True)


def test_all_checks_reported_in_order():
    checks, *_ = run(example_bytes("multilingual")[0], "m.csv")
    assert list(checks) == list(CHECKS)
    assert all(g.status in ("ok", "warn") for g in checks.values())


def test_small_n_binary_shows_wald_and_wilson():
    data = b"question,A,B\n" + b"".join(f"q{i},{int(i % 4 != 0)},{int(i % 5 != 0)}\n".encode() for i in range(20))
    checks, ds, tb, a = run(data)
    g = checks["small_n"]
    assert g.status == "warn"
    wil = proportion_ci(15, 20, interval="wilson")
    wald = proportion_ci(15, 20, interval="wald")
    assert f"{100 * wil.low:.1f}% to {100 * wil.high:.1f}%" in g.detail
    assert f"{100 * wald.low:.1f}% to {100 * wald.high:.1f}%" in g.detail


def test_small_n_continuous_gives_student_t_factor():
    """Atlas/Breeze: n = 10, t(9) = 2.262 against z = 1.960, 15% wider."""
    from scipy import stats

    checks, *_ = run(example_bytes("atlas_breeze")[0], "ab.csv", method="cr1")
    g = checks["small_n"]
    assert g.status == "warn"
    t = stats.t.ppf(0.975, 9)  # scipy oracle
    assert f"gives {t:.2f}" in g.detail and f"{100 * (t / 1.959964 - 1):.0f}% wider" in g.detail
    assert "±13.9 points instead of ±12.0 points" in g.detail  # t(9) * 6.13 and 1.96 * 6.13
    # the default already uses t(9): the check says so and is not a warning
    checks, _, _, a = run(example_bytes("atlas_breeze")[0], "ab.csv")
    g = checks["small_n"]
    assert g.status == "ok" and f"Student's t = {t:.2f}" in g.detail and "9.0 degrees of freedom" in g.detail
    half = a.model("Atlas").ci_high - a.model("Atlas").mean
    assert f"±{100 * half:.1f} points" in g.detail  # the half-width of the interval in the table


def test_unused_cluster_column_is_found_and_quantified():
    """A grouping column the loader does not know ('doc_group') changes the SE: the check says by how much."""
    frame = binary_long(400, {"A": 0.6, "B": 0.65}, groups=40, group_shift=0.3, seed=3)
    data = csv_of(frame)
    checks, ds, tb, a = run(data)
    g = checks["unused_cluster"]
    assert ds.cluster_col is None and g.status == "warn" and "'doc_group'" in g.detail
    groups = tb.questions.astype(str)
    codes = np.array([int(x[1:]) % 40 for x in groups])
    ratios = [summarize(tb.scores[:, j], codes).se / summarize(tb.scores[:, j], codes).se_naive for j in range(2)]
    assert f"{max(ratios):.2f}× larger" in g.detail
    assert "40 groups, about 10.0 questions each" in g.detail


def test_cluster_column_turned_off_is_flagged_and_on_passes():
    data = example_bytes("multilingual")[0]
    off, *_ = run(data, use_clusters=False)
    on, *_ = run(data)
    assert off["unused_cluster"].status == "warn" and "'cluster'" in off["unused_cluster"].detail
    assert on["unused_cluster"].status == "ok" and "250 clusters" in on["unused_cluster"].detail
    assert on["few_clusters"].status == "ok"


def test_pooled_resamples_ratio_matches_numpy():
    checks, ds, tb, a = run(example_bytes("synthetic")[0], "s.csv")
    g = checks["pooled_resamples"]
    assert g.status == "warn"
    model = re.match(r"(\S+) gave", g.detail).group(1)
    scores = ds.frame.loc[ds.frame["model"] == model, "score"].to_numpy()
    pooled = scores.std(ddof=1) / np.sqrt(scores.size)  # the naive SE over every answer
    assert f"gives SE {100 * pooled:.2f} points" in g.detail
    assert f"{100 * a.model(model).se:.2f} points" in g.detail


def test_pooling_harmless_when_answers_vary_like_questions():
    frame = binary_long(300, {"A": 0.5, "B": 0.5}, k=3, seed=1)  # no question effect at all
    checks, *_ = run(csv_of(frame))
    assert checks["pooled_resamples"].status == "ok"
    assert "nearly the same SE" in checks["pooled_resamples"].detail


def test_overlap_trap_on_atlas_breeze():
    checks, *_ = run(example_bytes("atlas_breeze")[0], method="cr1")  # the paper's z: a real difference
    g = checks["overlap"]
    assert g.status == "warn"
    assert "(95% CI +0.5 to +9.5 points)" in g.detail and "Breeze (56.7% to 80.5%)" in g.detail


def test_multiplicity_without_and_with_correction():
    data = example_bytes("synthetic")[0]
    holm, *_ = run(data)
    none, *_ = run(data, adjust="none")
    assert holm["multiplicity"].status == "warn"
    assert "2 have an unadjusted p < 0.05, but only 1 remains after Holm's" in holm["multiplicity"].detail
    assert none["multiplicity"].status == "warn" and "about 0.1 of them" not in none["multiplicity"].detail
    assert "about 0.2 of them would have p < 0.05 by chance" in none["multiplicity"].detail
    one, *_ = run(example_bytes("atlas_breeze")[0])
    assert one["multiplicity"].status == "ok"



def test_multiplicity_sentence_agrees_in_number():
    """One raw hit and none left after Holm reads "1 has ... none remains", not "1 have ... only 0 remain"."""
    data = b"question,A,B,C\n" + b"".join(
        f"q{i},{int(i % 3 != 0)},{int(i % 4 != 0)},{int(i % 2 == 0)}\n".encode() for i in range(60))
    holm, _, _, a = run(data)
    assert sum(c.p_value < 0.05 for c in a.comparisons) == 1 and all(c.p_adjusted >= 0.05 for c in a.comparisons)
    assert "3 comparisons: 1 has an unadjusted p < 0.05, but none remains after Holm's" in holm["multiplicity"].detail
    none, *_ = run(data, adjust="none")
    assert "by chance. 1 does. Choose Holm" in none["multiplicity"].detail

def test_extremes_give_the_wilson_interval():
    data = b"question,A,B\n" + b"".join(f"q{i},1,{i % 2}\n".encode() for i in range(50))
    checks, *_ = run(data)
    g = checks["extremes"]
    wil = proportion_ci(50, 50, interval="wilson")
    assert g.status == "warn" and "A scored 100.0% on all 50 questions" in g.detail
    assert f"{100 * wil.low:.1f}% to 100.0%" in g.detail


def test_few_clusters():
    frame = binary_long(200, {"A": 0.6, "B": 0.7}, groups=10, seed=2).rename(columns={"doc_group": "cluster"})
    checks, *_ = run(csv_of(frame), method="cr1")
    assert checks["few_clusters"].status == "warn" and "only 10 clusters" in checks["few_clusters"].detail
    assert "CR2" in checks["few_clusters"].detail
    checks, _, _, a = run(csv_of(frame))  # CR2: 10 clusters hold their level
    assert checks["few_clusters"].status == "ok" and "10 clusters" in checks["few_clusters"].detail
    frame = binary_long(200, {"A": 0.6, "B": 0.7}, groups=6, seed=2).rename(columns={"doc_group": "cluster"})
    checks, _, _, a = run(csv_of(frame))
    df = min(m.df for m in a.models)
    g = checks["few_clusters"]
    assert g.status == "warn" and f"only 6 clusters, {df:.1f} degrees of freedom" in g.detail


def test_missing_questions():
    rows = "question,A,B\n" + "".join(f"q{i},{i % 2},{'' if i < 5 else (i + 1) % 2}\n" for i in range(40))
    checks, *_ = run(rows.encode())
    g = checks["missing"]
    assert g.status == "warn" and "B answered 35 of 40" in g.detail and "leaves out 5 questions" in g.detail
    full, *_ = run(example_bytes("atlas_breeze")[0])
    assert full["missing"].status == "ok"


def test_no_dataset_still_runs():
    data = example_bytes("synthetic")[0]
    ds = load(data, name="s.csv")
    tb = question_scores(ds)
    out = guardrails(None, tb, analyze(tb))
    assert {g.check: g for g in out}["pooled_resamples"].status == "warn"


@pytest.mark.parametrize("slug", ["atlas_breeze", "multilingual", "synthetic"])
def test_no_unused_columns_in_examples(slug):
    data, name = example_bytes(slug)
    ds = load(data, name=name)
    assert extra_columns(ds, question_scores(ds))[0] == {}


def test_overlap_uses_the_intervals_the_reader_sees():
    """Given the displayed (e.g. Wilson) intervals, the overlap check quotes and compares those."""
    data, name = example_bytes("atlas_breeze")
    ds = load(data, name=name)
    tb = question_scores(ds)
    a = analyze(tb, method="cr1")
    shown = {"Atlas": (0.50, 0.60), "Breeze": (0.55, 0.80)}
    g = {x.check: x for x in guardrails(ds, tb, a, intervals=shown)}["overlap"]
    assert g.status == "warn" and "Atlas (50.0% to 60.0%)" in g.detail
    apart = {"Atlas": (0.50, 0.60), "Breeze": (0.61, 0.80)}
    assert {x.check: x for x in guardrails(ds, tb, a, intervals=apart)}["overlap"].status == "ok"


def test_guardrails_speak_in_the_file_s_units():
    """On a 1-10 scale, differences and SEs are in scale units (no percent, no 100x): the small-n check's
    half-widths, the overlap check's interval and the pooled-resamples SEs all match the table beside them."""
    rng = np.random.default_rng(5)
    rows = ["question,model,score"]
    for i in range(30):
        base = rng.integers(3, 8)
        for m, shift in (("A", 0), ("B", 1)):
            for _ in range(3):
                rows.append(f"q{i},{m},{int(np.clip(base + shift + rng.integers(-1, 2), 1, 10))}")
    checks, _, _, a = run(("\n".join(rows) + "\n").encode(), method="cr1")
    assert a.unit == "score"
    for g in checks.values():
        assert " points" not in g.detail, g.detail  # percentage points only for 0-1 scores
    m = min(a.models, key=lambda r: r.n)
    z = 1.959963984540054
    assert checks["small_n"].status == "warn" and f"instead of ±{z * m.se:.3g})" in checks["small_n"].detail
    assert checks["pooled_resamples"].detail.count(f"{m.se:+.3g}".lstrip("+")) >= 1 or \
        any(f"{x.se:+.3g}".lstrip("+") in checks["pooled_resamples"].detail for x in a.models)


# ------------------------------------------------- issue 22.3/22.4: guardrails that are true (fire / not fire)
def test_unused_cluster_does_not_fire_on_the_grouping_the_analysis_is_clustered_on():
    """A second column with the same grouping as the cluster column is not 'left unused'; turned off, it is."""
    frame = binary_long(400, {"A": 0.6, "B": 0.65}, groups=40, group_shift=0.3, seed=3)
    frame["cluster"] = frame["doc_group"].str.replace("g", "c")  # the same 40 groups under another name
    on, ds, tb, a = run(csv_of(frame))
    assert a.clustered and ds.cluster_col == "cluster"
    assert on["unused_cluster"].status == "ok", on["unused_cluster"].detail
    off, *_ = run(csv_of(frame), use_clusters=False)
    assert off["unused_cluster"].status == "warn" and "too narrow" in off["unused_cluster"].detail


def test_pooled_resamples_compares_with_the_question_level_se_when_clustered():
    frame = binary_long(300, {"A": 0.6, "B": 0.65}, groups=30, group_shift=0.3, seed=4, k=3)
    frame["cluster"] = frame["doc_group"]
    checks, ds, tb, a = run(csv_of(frame))
    g = checks["pooled_resamples"]
    model = re.match(r"(\S+) gave", g.detail).group(1) if g.status == "warn" else "A"
    m = a.model(model)
    assert a.clustered and m.se > m.se_naive * 1.2  # the clustered SE is visibly larger than the naive one
    assert f"{100 * m.se_naive:.2f} points" in g.detail and f"{100 * m.se:.2f} points" not in g.detail
    scores = ds.frame.loc[ds.frame["model"] == model, "score"].to_numpy()
    pooled = scores.std(ddof=1) / np.sqrt(scores.size)
    if g.status == "warn":
        assert f"{m.se_naive / pooled:.2f}× larger" in g.detail


def _negatively_clustered(n_clusters: int = 8, per: int = 20, seed: int = 0) -> bytes:
    """Differences that cancel within each cluster: the clustered SE of B - A falls below the plain one."""
    rng = np.random.default_rng(seed)
    rows = ["question,cluster,A,B"]
    for c in range(n_clusters):
        for q in range(per):
            if q == per - 1:  # one question per cluster tips its sum to +1 or -1
                a, b = (0, 1) if c % 2 else (1, 0)
            elif q % 2:
                a, b = 0, 1
            else:
                a, b = 1, 0
            if rng.random() < 0.2:  # some questions both get right
                a = b = 1
                rows.append(f"q{c}_{q}x,c{c},1,1")
            rows.append(f"q{c}_{q},c{c},{a},{b}")
    return ("\n".join(rows) + "\n").encode()


def test_clustered_se_of_a_difference_below_the_plain_one_is_flagged_with_its_meaning():
    from evalstats_core.analysis import plain_paired_se  # moved from guardrails (issue 38)

    checks, ds, tb, a = run(_negatively_clustered(), extra=False)
    c = a.comparisons[0]
    plain = plain_paired_se(tb, c.model, c.baseline)
    d = tb.scores[:, 1] - tb.scores[:, 0]
    assert plain == pytest.approx(d.std(ddof=1) / np.sqrt(d.size))
    g = checks["clustered_below_plain"]
    assert c.se < plain and g.status == "warn"
    assert f"{100 * c.se:.2f} points" in g.detail and f"{100 * plain:.2f} points" in g.detail
    assert "too narrow" in g.detail and "8 clusters" in g.detail
    # the same sentence is a warning of the analysis: in the Markdown report, the JSON and on stderr
    from evalstats_core.report import render

    said = [w for w in a.warnings if "below the plain paired SE" in w]
    assert len(said) == 1 and said[0] in g.detail
    assert "below the plain paired SE" in render(a, "markdown") and said[0] in render(a, "json")


def test_clustered_se_above_the_plain_one_is_not_flagged():
    frame = binary_long(400, {"A": 0.6, "B": 0.65}, groups=40, group_shift=0.3, seed=3)
    frame["cluster"] = frame["doc_group"]
    checks, *_ = run(csv_of(frame))
    assert checks["clustered_below_plain"].status == "ok"
    plain, *_ = run(csv_of(frame), use_clusters=False)
    assert plain["clustered_below_plain"].status == "ok" and plain["clustered_below_plain"].detail == "not clustered."


def test_the_gate_says_when_its_clustered_se_is_below_the_plain_one():
    from evalstats_core.gating import gate

    g = gate(load(_negatively_clustered(), name="neg.csv"), baseline="A", candidate="B")
    assert g.se_plain is not None and g.se < g.se_plain
    assert "Note: B − A: the clustered SE" in g.markdown()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_guardrails_from_the_kept_sums_are_the_rows_ones(seed):
    """The workbench passes its kept FileSums: every guardrail says what the rows say, and each plain paired
    SE equals sd(d) / sqrt(n) on the shared questions (the former rows computation) to 1e-12."""
    from evalstats_core.analysis import below_plain, plain_paired_se  # moved from guardrails (issue 38)
    from evalstats_core.sums import file_sums

    rng = np.random.default_rng(seed)
    n = 400
    level = rng.random(40)[rng.integers(0, 40, n)]
    frame = pd.DataFrame({"question": [f"q{i}" for i in range(n)], "cluster": rng.integers(0, 40, n)})
    for j, m in enumerate(["A", "B", "C"]):
        frame[m] = np.where(rng.random(n) < 0.1, np.nan, level + rng.normal(0, 0.3 + 0.1 * j, n))
    frame.loc[::7, "A"] = frame.loc[::7, "B"] * 1e-3  # some pairs strongly related
    ds = load(csv_of(frame), name="t.csv")
    tb = question_scores(ds)
    a = analyze(tb)
    sums = file_sums(tb)
    assert a.clustered and len(a.comparisons) == 3
    for c in a.comparisons:
        j, b = tb.models.index(c.model), tb.models.index(c.baseline)
        both = tb.answered[:, j] & tb.answered[:, b]
        d = tb.scores[both, j] - tb.scores[both, b]
        rows = float(np.std(d, ddof=1) / np.sqrt(d.size))
        for got in (plain_paired_se(sums, c.model, c.baseline), plain_paired_se(tb, c.model, c.baseline)):
            assert got == pytest.approx(rows, rel=1e-12, abs=0)
    from types import SimpleNamespace

    tiny = [SimpleNamespace(model=c.model, baseline=c.baseline, se=1e-9) for c in a.comparisons]
    forced = SimpleNamespace(clustered=True, paired=True, comparisons=tiny)  # every pair flagged
    assert [p for _, p in below_plain(sums, forced)] == pytest.approx([p for _, p in below_plain(tb, forced)],
                                                                     rel=1e-12, abs=0)
    assert len(below_plain(sums, forced)) == 3
    cols = extra_columns(ds, tb)[0]
    assert (guardrails(ds, tb, a, extra_clusters=cols, sums=sums)
            == guardrails(ds, tb, a, extra_clusters=cols))
