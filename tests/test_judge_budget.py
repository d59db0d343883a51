"""evalstats_core.judge_budget: the labels it recommends deliver the target half-width (median of the intervals
actually computed), with and without clusters; the humans-only count follows the humans-only interval's rule."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import expit, logit

from evalstats_core import EvalStatsError, labels_needed, ppi_mean, summarize
from evalstats_core.errors import EvalStatsWarning
from evalstats_core.judge_budget import expected_half_width
from evalstats_core.judge_rows import ppi_rows
from evalstats_core.judge_sim import judged_eval, judged_rows


def _subsets(n_total, n, reps, gen):
    lab = np.zeros((reps, n_total), dtype=bool)
    np.put_along_axis(lab, np.argsort(gen.random((reps, n_total)), axis=1)[:, :n], True, axis=1)
    return lab


def _human_only_median(truth, n, reps, gen, codes=None):
    """Median half-width of summarize's interval for ``n`` human labels on random subsets of ``truth``."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        for _ in range(reps):
            i = gen.choice(truth.size, n, replace=False)
            s = summarize(truth[i], None if codes is None else codes[i])
            out.append((s.ci_high - s.ci_low) / 2)
    return float(np.median(out))


def test_humans_only_count_follows_the_rule_of_the_humans_only_interval():
    """At a 97% pass rate few failures are expected, so summarize gives the humans alone Clopper-Pearson's interval,
    wider than t sd / sqrt(n): the count that reaches 3 points with it is the plan; the t count (the old plan) misses."""
    b = labels_needed(0.03, n_total=5000, sensitivity=0.95, specificity=0.9, pass_rate=0.97)
    gen = np.random.default_rng(7)
    truth = (gen.random(5000) < 0.97).astype(float)
    truth[:150] = 0.0  # exactly 97% in the population the labels are drawn from
    truth[150:] = 1.0
    n = b.without_judge
    assert _human_only_median(truth, n, 300, gen) <= 0.03 < _human_only_median(truth, int(0.9 * n), 300, gen)
    t_count = int(np.ceil(0.97 * 0.03 * (1.959963984540054 / 0.03) ** 2))  # the plain t / normal count
    assert t_count < 0.8 * n
    assert _human_only_median(truth, t_count, 300, gen) > 0.03


def test_planned_labels_deliver_the_median_target_without_clusters():
    """Independent questions, stated quality: the corrected intervals (ppi_mean's numbers, 600 seeded evals) at the
    planned count have median half-width at most the target, and one label in five fewer misses it."""
    b = labels_needed(0.04, n_total=3000, sensitivity=0.9, specificity=0.8, pass_rate=0.7)
    assert not b.clustered and "independent questions" in b.assumption
    medians = []
    for n in (b.with_judge, int(0.8 * b.with_judge)):
        truth, judge, lab, _ = judged_rows(3000, n, 600, sensitivity=0.9, specificity=0.8, rng=3)
        out = ppi_rows(judge, truth, lab)
        medians.append(float(np.median((out[5] - out[4]) / 2)))
    assert medians[0] == pytest.approx(0.04, rel=0.05) and medians[0] <= 0.0405
    assert medians[1] > 0.04


def _clustered_population(seed, n_total=4000, k=50, sd=0.5, sens=0.9, spec=0.8):
    gen = np.random.default_rng(seed)
    codes = np.arange(n_total) % k
    truth = (gen.random(n_total) < expit(logit(0.7) + sd * gen.standard_normal(k))[codes]).astype(float)
    u = gen.random(n_total)
    judge = np.where(truth == 1, u < sens, u < 1 - spec).astype(float)
    return truth, judge, codes


def test_planned_labels_deliver_the_median_target_with_clusters():
    """50 clusters whose pass rates differ (logit SD 0.5): a pilot of 1,200 labels plans 4-point intervals. Labelling
    the planned number of random questions, the corrected (CR2) and humans-only (summarize) intervals have median
    half-width within 7% of the target, and 20% fewer labels miss it. The plan that ignores the clusters asks for
    too few labels: its intervals come out more than 10% too wide."""
    truth, judge, codes = _clustered_population(1)
    gen = np.random.default_rng(11)
    pilot = np.where(_subsets(truth.size, 1200, 1, gen)[0], truth, np.nan)
    b = labels_needed(0.04, n_total=truth.size, judge=judge, human=pilot, clusters=codes)
    flat = labels_needed(0.04, n_total=truth.size, judge=judge, human=pilot)
    assert b.clustered and "50 clusters" in b.assumption and b.between_judge > 0 and b.between_human > 0

    def corrected(n):
        lab = _subsets(truth.size, n, 200, gen)
        out = ppi_rows(np.broadcast_to(judge, lab.shape), np.broadcast_to(truth, lab.shape), lab, codes)
        return float(np.median((out[5] - out[4]) / 2))

    assert corrected(b.with_judge) == pytest.approx(0.04, rel=0.07)
    assert corrected(int(0.8 * b.with_judge)) > 0.04
    assert corrected(flat.with_judge) > 1.1 * 0.04
    assert _human_only_median(truth, b.without_judge, 100, gen, codes) == pytest.approx(0.04, rel=0.07)
    assert _human_only_median(truth, int(0.8 * b.without_judge), 100, gen, codes) > 0.04
    assert _human_only_median(truth, flat.without_judge, 100, gen, codes) > 1.1 * 0.04


def test_a_target_below_the_clusters_floor_is_unreachable_and_retargeting_keeps_the_clusters():
    truth, judge, codes = _clustered_population(2, k=12, sd=0.8)
    human = np.where(_subsets(truth.size, 800, 1, np.random.default_rng(3))[0], truth, np.nan)
    b = labels_needed(0.01, n_total=truth.size, judge=judge, human=human, clusters=codes)
    assert b.with_judge is None and b.without_judge is None
    wide = b.for_target(0.2)
    assert wide == labels_needed(0.2, n_total=truth.size, judge=judge, human=human, clusters=codes)
    assert wide.clustered and wide.with_judge is not None and wide.without_judge is not None


def test_clusters_need_a_pilot_with_labels():
    with pytest.raises(EvalStatsError, match="clusters= needs a pilot"):
        labels_needed(0.03, n_total=1000, sensitivity=0.9, specificity=0.8, clusters=np.arange(1000) % 10)
    assert "stated quality" in labels_needed(0.03, n_total=1000, sensitivity=0.9, specificity=0.8).assumption


def test_labels_that_all_pass_still_need_the_exact_intervals_count():
    """Every pilot label a pass: the t plan saw no variance and asked for 2 labels; summarize gives n passes of n
    Clopper-Pearson's interval, whose half-width first reaches 3 points at 60 labels."""
    judge = np.ones(500)
    human = np.full(500, np.nan)
    human[:60] = 1.0
    b = labels_needed(0.03, n_total=500, judge=judge, human=human)
    s = summarize(np.ones(b.without_judge))
    assert b.without_judge == 60 and (s.ci_high - s.ci_low) / 2 <= 0.03
    s = summarize(np.ones(b.without_judge - 1))
    assert (s.ci_high - s.ci_low) / 2 > 0.03


def test_the_plan_applies_the_analysis_human_only_rule_draw_by_draw():
    """Issue 39: expected_half_width is the mean half-width of ppi_mean's interval over its draws, and ppi_mean takes
    the labels' own interval where it is narrower (HUMAN_ONLY); the plan did not (a near-chance judge with 30 of 400
    labelled, 40 draws: planned 0.1753 where ppi_mean gives 0.1656 on average). Each draw's counts are rebuilt as a
    file and run through ppi_mean."""
    cells, n_total, n, draws = (0.33, 0.27, 0.27, 0.13), 400, 30, 40
    gen = np.random.default_rng([0, n])
    table = gen.multinomial(n, np.asarray(cells) / sum(cells), size=draws)
    passes = gen.binomial(n_total - n, cells[0] + cells[1], size=draws)
    widths = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        for (n11, n10, n01, n00), c in zip(table, passes, strict=True):
            f = np.r_[np.ones(n11 + n10), np.zeros(n01 + n00), np.ones(c), np.zeros(n_total - n - c)]
            h = np.r_[np.ones(n11), np.zeros(n10), np.ones(n01), np.zeros(n00), np.full(n_total - n, np.nan)]
            e = ppi_mean(f, h)
            widths.append((e.ci_high - e.ci_low) / 2)
    planned = expected_half_width(n, cells, n_total=n_total, draws=draws)
    assert planned == pytest.approx(float(np.mean(widths)), rel=1e-9)
    assert planned < expected_half_width(n, cells, n_total=n_total, draws=draws, human_only=False)


@pytest.mark.parametrize(("sens", "spec", "clusters", "rate", "graded"), [
    (0.55, 0.5, 12, 0.6, False), (0.55, 0.5, 0, 0.6, False), (0.5, 0.5, 12, 0.95, True)])
def test_a_planned_half_width_is_never_wider_than_the_labels_alone(sens, spec, clusters, rate, graded):
    """Issue 39: the plan uses the analysis's rule, so with the judge it never plans a wider interval than the labels
    alone would give. Before, these pilots planned wider at some counts: 0.4452 against 0.4067 at 10 labels (12
    clusters), 0.1693 against 0.1654 at 30 (no clusters), 0.1693 against 0.1684 at 10 (graded, 12 clusters)."""
    ev = judged_eval(1000, 120, sensitivity=sens, specificity=spec, pass_rate=rate, n_clusters=clusters, rng=3)
    judge, human = ev.judge, ev.human
    if graded:
        judge = judge * 0.5 + 0.25
        human = np.where(np.isnan(human), np.nan, human * 0.6 + 0.4 * np.random.default_rng(1).random(1000))
    b = labels_needed(0.05, n_total=1000, judge=judge, human=human, clusters=ev.clusters)
    for k in (10, 30, 60, 120, 300):
        assert float(b.half_width_at(k)) <= b.human_half_width_at(k) + 1e-12, k
