"""Issue 45: clustered paired 0/1 comparisons that are valid and not wasteful.

Item 3: a handful of disagreements in two or three clusters never gives a +-99-point interval; the rule is
bounded by the design's worst case (:func:`~evalstats_core.pair_proportions.worst_case_interval`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from evalstats_core import compare
from evalstats_core.cluster_means import kish_n
from evalstats_core.pair_coverage import PairDesign, draw_pair_cells
from evalstats_core.pair_proportions import (
    T_SKEW_ROOM,
    binary_pair_interval,
    paired_proportion_ci,
    t_or_score_ends,
    t_skew_error,
    variance_clusters,
    variance_df,
    worst_case_interval,
)
from evalstats_core.vocabulary import INTERVAL_LABELS, normal_label

LABELS = np.repeat(np.arange(30), 20)  # 600 questions in 30 clusters of 20


def three_disagreements(where: list[tuple[int, str]]) -> tuple[np.ndarray, np.ndarray]:
    """Two models right on all 600 questions but 6 both miss, and 3 disagreements at ``where``."""
    a, b = np.ones(600), np.ones(600)
    a[100:106] = b[100:106] = 0.0
    for i, who in where:
        (b if who == "a" else a)[i] = 0.0
    return a, b


@pytest.mark.parametrize("where", [[(5, "a"), (6, "a"), (45, "b")], [(5, "a"), (25, "a"), (26, "b")],
                                   [(5, "a"), (6, "b"), (45, "b")], [(5, "a"), (25, "b"), (45, "b")]])
def test_three_disagreements_in_two_or_three_clusters_give_a_bounded_interval(where):
    """The rule gave [-99.5, +99.8] points (t on 1 df, the MOVER's logit limits); now at most the worst case."""
    a, b = three_disagreements(where)
    c = compare(a, b, LABELS)
    only_a, only_b = int(c.only_a), int(c.only_b)
    w_low, w_high, _ = worst_case_interval(only_a, only_b, [20] * 30)
    assert c.ci_low >= w_low - 1e-12 and c.ci_high <= w_high + 1e-12
    assert c.ci_high - c.ci_low < 0.25  # was 1.99 (from -99.5 to +99.8 points)
    assert c.ci_low <= c.diff <= c.ci_high
    assert (c.p_value < 0.05) == (c.ci_low > 0 or c.ci_high < 0)
    # the bound is the rule without clusters on the counts scaled to the sizes' effective n (30 here)
    k = kish_n([20] * 30)
    assert k == pytest.approx(30.0)
    want = paired_proportion_ci(only_a * k / 600, only_b * k / 600, k, correction=(only_a + only_b) * k / 600 / 10)
    assert (w_low, w_high) == pytest.approx(tuple(want), abs=1e-12)


def test_worst_case_is_the_unclustered_rule_when_every_cluster_is_one_question():
    """Clusters of one question: the effective n is n and the bound is the rule without clusters."""
    low, high, p = worst_case_interval(12, 3, [1] * 200)
    got = binary_pair_interval(12, 3, 200, 0.02, 0.02, 199.0, None)
    assert (low, high, p) == pytest.approx(got[:3], abs=1e-12)


def test_the_bound_leaves_an_interval_inside_it_untouched():
    """Many disagreements spread over many clusters: the rule's interval lies inside the bound, unchanged."""
    rng = np.random.default_rng(45)
    labels = np.repeat(np.arange(40), 25)
    a = (rng.random(1000) < 0.7).astype(float)
    b = np.where(rng.random(1000) < 0.8, a, 1.0 - a)
    c = compare(a, b, labels)
    w_low, w_high, _ = worst_case_interval(c.only_a, c.only_b, [25] * 40)
    assert w_low < c.ci_low and c.ci_high < w_high


# Items 1 and 2: a calibrated df cap, and CR2 t where its skewness error is within the gate's room.

def test_variance_df_is_about_the_clusters_for_normal_equal_clusters():
    """Kish's count of the CR2 contributions is about (G + 2) / 3 for G normal equal clusters; 3 K - 2 about G."""
    rng = np.random.default_rng(4501)
    sums = rng.normal(size=(4000, 30))
    sums -= sums.mean(axis=1, keepdims=True)  # residual sums of a mean
    k = variance_clusters(sums, [20] * 30)
    nu = variance_df(sums, [20] * 30)
    assert 9.0 < float(np.mean(k)) < 13.0  # (30 + 2) / 3 = 10.7: the old cap
    assert 26.0 < float(np.mean(nu)) < 34.0
    assert float(variance_df([5.0, 0.0, 0.0, -5.0], [4] * 4)) == pytest.approx(4.0)  # two clusters hold it
    assert float(variance_df([5.0, 0.0, 0.0], [4] * 3)) == 1.0


def files_of(cells: tuple[np.ndarray, ...], sizes: tuple[int, ...], rows: Any) -> list[tuple[np.ndarray, ...]]:
    """0/1 vectors (a, b) and labels of the files ``rows`` of per-cluster counts (only A, only B, both right)."""
    out = []
    for r in rows:
        a, b = [], []
        for g, size in enumerate(sizes):
            k1, k2, k3 = (int(c[r, g]) for c in cells)
            rest = size - k1 - k2 - k3
            a += [1] * k1 + [0] * k2 + [1] * k3 + [0] * rest
            b += [0] * k1 + [1] * k2 + [1] * k3 + [0] * rest
        out.append((np.array(a, float), np.array(b, float), np.repeat(np.arange(len(sizes)), sizes)))
    return out


MID = PairDesign(tuple([25] * 40), 0.3, 0.56, 0.6, 0.02)  # 40 clusters of 25, 30% disagreements, ICC 0.02
CEILING = PairDesign(tuple([25] * 40), 0.02, 0.8, 0.99, 0.3)  # 2% disagreements bunched (ICC 0.3)


def test_the_rule_reads_cr2_t_in_the_middle_and_an_end_at_the_score_rule_at_the_ceiling():
    """Many disagreements spread evenly: compare's interval is CR2 t and p its t-test; bunched and few: t with an end
    at least the score rule's (``t-score``, issue 45 follow-up: was the score rule at both ends); the batch rule
    (analyze) gives the same numbers and names the interval it read."""
    from evalstats_core.analysis import analyze
    from evalstats_core.data import load, question_scores

    for des, want in ((MID, "normal"), (CEILING, "t-score")):
        cells = draw_pair_cells(des, 3, np.random.default_rng(4502))
        for a, b, labels in files_of(cells, des.sizes, range(3)):
            c = compare(a, b, labels)
            assert c.interval == want
            t = compare(a, b, labels, interval="normal")
            if want == "normal":
                assert (c.ci_low, c.ci_high, c.p_value) == pytest.approx((t.ci_low, t.ci_high, t.p_value), abs=1e-12)
            assert (c.p_value < 0.05) == (c.ci_low > 0 or c.ci_high < 0)
            rows = ["question,cluster,A,B"] + [f"q{i},c{g},{x:g},{y:g}" for i, (g, x, y)
                                               in enumerate(zip(labels, a, b, strict=True))]
            (pair,) = analyze(question_scores(load(("\n".join(rows) + "\n").encode(), name="z.csv")),
                              baseline="B").comparisons
            assert (pair.ci_low, pair.ci_high, pair.p_value) == pytest.approx((c.ci_low, c.ci_high, c.p_value),
                                                                               abs=1e-12)
            assert pair.interval == (normal_label("cr2", True) if want == "normal" else INTERVAL_LABELS["t-score"])
            if want == "t-score":  # never inside CR2 t's interval
                assert c.ci_low <= t.ci_low + 1e-12 and c.ci_high >= t.ci_high - 1e-12


def test_the_batch_rule_equals_the_scalar_rule_where_it_reads_t():
    """Bit for bit, on pairs where the rule reads t and pairs where it does not."""
    from evalstats_core._clusters import cr2_se, cr2_weights
    from evalstats_core._estimate import pair_rules

    sizes = np.array([25.0] * 40)
    n = float(sizes.sum())
    a_w, df = cr2_weights(sizes, n)
    rules = []
    for des in (MID, CEILING):
        oa, ob, _ = draw_pair_cells(des, 6, np.random.default_rng(4503))
        for r in range(6):
            d = (oa[r].sum() - ob[r].sum()) / n
            resid = oa[r] - ob[r] - sizes * d
            ssd = oa[r].sum() + ob[r].sum() - n * d * d
            rules.append((float(oa[r].sum()), float(ob[r].sum()), n, float(cr2_se(resid, a_w, n)),
                          float(np.sqrt(ssd / (n * (n - 1)))), df, sizes, resid, oa[r] + ob[r]))
    for confidence in (0.95, 0.9):
        got = pair_rules(rules, confidence)
        kinds = {g[3] for g in got}
        assert kinds == {"normal", "t-score"}
        for rule, g in zip(rules, got, strict=True):
            want = binary_pair_interval(*rule[:7], confidence=confidence, resid_sums=rule[7], discordant=rule[8])
            assert g == want


@pytest.mark.parametrize(("des", "gap"), [(MID, 0.03), (CEILING, 0.012)])
def test_coverage_of_the_rule_on_two_designs(des, gap):
    """Seconds: 400 files of each design with a gap (2.5% one-sided misses have a Monte Carlo SE of 0.8 points)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from bench_zeroone import intervals  # the bench's vectorised files through the production batch rule

    shifted = PairDesign(des.sizes, des.disagree, 0.5 + gap / (2 * des.disagree), des.agree_right, des.icc_disagree)
    cells = draw_pair_cells(shifted, 400, np.random.default_rng(4504))
    iv = intervals(cells, shifted.sizes, 0.95)
    truth = shifted.truth
    assert np.mean((iv["low"] <= truth) & (truth <= iv["high"])) >= 0.93
    assert np.mean(iv["high"] < truth) <= 0.04 and np.mean(iv["low"] > truth) <= 0.04


# Item 4: the gate on a clustered 0/1 pair read on the score rule also needs the 98% end above -margin.

def test_gate_on_the_score_rule_needs_its_stricter_end_and_agrees_with_the_bench():
    """Files whose 95% score-rule end clears the margin but whose 98% end does not: ``gate`` is inconclusive and
    names the 98% end; a file clearing both passes. The bench's vectorised gate decides the same."""
    import sys
    from pathlib import Path

    from evalstats_core.data import load
    from evalstats_core.gating import CLUSTERED_SCORE_PASS_SHARE, gate

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from bench_zeroone import intervals, strict_ends

    assert CLUSTERED_SCORE_PASS_SHARE == 0.3
    des = PairDesign(tuple([25] * 40), 0.04, 0.5, 0.97, 0.3)  # equal models, 4% disagreements, bunched
    cells = draw_pair_cells(des, 300, np.random.default_rng(4505))
    iv = intervals(cells, des.sizes, 0.95)
    margin = float(np.quantile(-iv["low"][~iv["on_t"]], 0.5))  # half the files clear it at 95%
    strict = strict_ends(cells, des.sizes, iv, 0.95, margin)
    held = np.flatnonzero(~iv["on_t"] & (iv["low"] > -margin) & (strict["low"] <= -margin))
    passed = np.flatnonzero(~iv["on_t"] & (iv["low"] > -margin) & (strict["low"] > -margin))
    assert held.size and passed.size
    for r, want in ((held[0], "inconclusive"), (passed[0], "pass")):
        (a, b, labels), = files_of(cells, des.sizes, [r])
        rows = ["question,cluster,base,cand"] + [f"q{i},c{g},{y:g},{x:g}" for i, (g, x, y)
                                                 in enumerate(zip(labels, a, b, strict=True))]
        g = gate(load(("\n".join(rows) + "\n").encode(), name="g.csv"), baseline="base", candidate="cand",
                 margin=margin)
        assert g.verdict == want and g.interval == INTERVAL_LABELS["t-score"]
        assert g.ci_low == pytest.approx(iv["low"][r], abs=1e-12)
        assert g.pass_confidence == pytest.approx(0.985) and g.pass_low == pytest.approx(strict["low"][r], abs=1e-12)
        if want == "inconclusive":
            assert "98.5% interval's lower end" in g.markdown()


# The follow-up of item 1: end by end, t's end where t's skewness error at that end's difference fits the room.

@pytest.mark.parametrize("phi", [1.0, 1.5, 4.0, 20.0])
@pytest.mark.parametrize(("only_a", "only_b"), [(60, 20), (20, 60), (41, 39), (5, 1)])
def test_each_end_is_t_or_at_least_the_score_rule_and_p_is_the_test_it_inverts(only_a, only_b, phi):
    """An end whose error fits is t's exactly, the other the farther of t's and the score rule's; p < 5% exactly when
    the interval excludes 0, and p is the t-test's where the end facing 0 is t's."""
    from evalstats_core._clusters import t_crit, t_p_value

    n, se, df, m = 1000.0, 0.012, 29.0, float(only_a + only_b)
    d = (only_a - only_b) / n
    t_ends = (d - t_crit(0.95, df) * se, d + t_crit(0.95, df) * se)
    for score in ((d - 0.05, d + 0.05, 0.2), (d - 0.001, d + 0.001, 1e-4), (-0.5, 0.5, 0.9)):
        low, high, p, kind = t_or_score_ends(only_a, only_b, n, se, df, m, phi, 0.95, (-1.0, 1.0, 1.0), score)
        fits = [t_skew_error(m, phi, n, e, e) <= T_SKEW_ROOM * 0.025 for e in t_ends]
        assert low == (t_ends[0] if fits[0] else min(t_ends[0], score[0]))
        assert high == (t_ends[1] if fits[1] else max(t_ends[1], score[1]))
        assert kind == ("normal" if all(fits) else "t-score")
        assert (p < 0.05) == (low > 0 or high < 0)
        if fits[0 if d >= 0 else 1]:
            assert p == t_p_value(d / se, df)


def test_the_end_facing_zero_is_t_where_the_skewness_there_is_small():
    """Bunched disagreements with one model ahead: the end between the estimate and 0 tests a difference whose
    disagreements are won nearly alike, so it is t's (the power of CR2 t); the far end reads the score rule."""
    low, high, p, kind = t_or_score_ends(60, 20, 1000, 0.012, 29.0, 80, 1.5, 0.95, (-1, 1, 1), (0.0, 0.1, 0.03))
    assert (kind, high) == ("t-score", 0.1) and low == pytest.approx(0.04 - 2.045229642 * 0.012, abs=1e-8)
    assert p < 0.01  # the t-test's, not the score rule's 0.03
