"""Plans from a noisy pilot deliver their power (issue 20): pilots drawn from a design, planned by
``plan_pair`` (what the CLI and the workbench run), each plan's power simulated. The planner's sentences
state the direction of what remains. ``bench/bench_plan_pilots.py`` runs more designs and pilots."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from evalstats_core import compare
from evalstats_core.analysis import analyze
from evalstats_core.data import load, question_scores
from evalstats_core.errors import EvalStatsWarning
from evalstats_core.plan_pilots import pilot_file, plan_from_pilots, planned_sizes, realised_power
from evalstats_core.planning import describe, plan_pair

SWE = (231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1)


def test_plans_from_swe_like_pilots_deliver_their_power_in_the_median():
    """12 SWE-like clusters at ICC 0.1: the CR2 omega2 planned for a median 48-54% power (the issue's
    54%); the median-unbiased random-effect omega2 brings the median plan within 5 points of 80%, with
    about half of the pilots short of it, and the plan from the true omega2 within 3 points."""
    r = plan_from_pilots(SWE, 0.05, 0.13, 0.4, pilots=300, reps=200, seed=60)
    assert abs(np.median(r["power"]) - 0.8) <= 0.05
    assert 0.35 <= np.mean(r["power"] < 0.8) <= 0.7
    assert np.quantile(r["power"], 0.1) < 0.5  # "one in ten delivers under 50% power"
    assert abs(r["power_true"] - 0.8) <= 0.03


def test_simulated_power_is_the_power_of_compare():
    """The vectorised CR2 t-test of realised_power rejects exactly when compare's p is below 5%."""
    gen = np.random.default_rng(61)
    sizes = planned_sizes(SWE, 1500)
    assert sizes.sum() >= 1500 and set(sizes) <= set(SWE)
    labels = np.repeat(np.arange(sizes.size), sizes.astype(int))
    hits = []
    for seed in range(30):
        g = np.random.default_rng(seed)
        d = 0.05 + g.normal(0, 0.13, sizes.size)[labels] + g.normal(0, 0.4, labels.size)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EvalStatsWarning)
            hits.append(compare(d, np.zeros_like(d), labels).p_value < 0.05)
    # the same draws through the vectorised path
    got = []
    for seed in range(30):
        g = np.random.default_rng(seed)
        u, e = g.normal(0, 0.13, sizes.size), g.normal(0, 0.4, labels.size)
        totals = sizes * (0.05 + u) + np.bincount(labels, weights=e)
        got.append(_reject(totals, sizes))
    assert hits == got
    assert 0.0 <= realised_power(sizes, 0.05, 0.13, 0.4, reps=50, gen=gen) <= 1.0


def _reject(totals, sizes):
    from scipy.special import stdtrit

    from evalstats_core._clusters import cr2_weights

    n = sizes.sum()
    a, df = cr2_weights(sizes, n)
    mean = totals.sum() / n
    resid = totals - sizes * mean
    return bool(abs(mean) / (np.sqrt((resid * resid) @ a) / n) > stdtrit(df, 0.975))


def test_plan_sentences_state_the_direction_of_the_remaining_bias():
    table = question_scores(load(pilot_file(SWE, 0.05, 0.13, 0.4, np.random.default_rng(62)), name="p.csv"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        plan = plan_pair(None, table, analyze(table), "A", "B", delta=0.05)
    words = describe(plan)
    assert "about half of the plans from files like this one fall short of the target power" in words["n"]
    assert "more than half when the clusters are few, unequal and alike inside" in words["n"]
    assert "about half of the plans from pilots like this one fall short of their power" in plan.note
    assert "one in ten delivers under 50% power for an 80% target" in plan.note


@pytest.mark.parametrize("sizes", [(1,) * 60, (30,) * 20])
def test_plan_omega2_without_or_with_equal_clusters_is_close_to_the_appendix_c_value(sizes):
    """Where the CR2 omega2 was already fine (no clusters: identical; 20 equal clusters: close)."""
    table = question_scores(load(pilot_file(sizes, 0.05, 0.1, 0.4, np.random.default_rng(63)), name="p.csv"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        plan = plan_pair(None, table, analyze(table), "A", "B", delta=0.05)
    from evalstats_core.pilot import pilot_estimates

    a, b = table.scores[:, 0], table.scores[:, 1]
    clusters = table.cluster_codes if plan.n_clusters else None
    est = pilot_estimates(a, b, clusters=clusters)
    assert plan.omega2 == est.omega2 and plan.omega2_ahead == est.omega2_plan
    if plan.n_clusters is None:
        assert est.omega2 == est.omega2_plan
    else:
        assert est.omega2_plan == pytest.approx(est.omega2, rel=0.2)
    assert plan.k_frame((1,))["n_needed"][0] == pytest.approx(plan.n_needed)
