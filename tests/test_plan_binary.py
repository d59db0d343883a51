"""Plans for clustered 0/1 pairs are for the test that will run (issue 20, the held-out audit's SWE-like miss).

The default ``compare`` of a clustered paired 0/1 difference is Tango's score interval on effective counts with
the discordant cells' MOVER union, on the df of :func:`~evalstats_core.pair_mover.disagreement_df`: the number of
clusters the realised variance rests on, about a third of the design's df or fewer. A plan that assumed CR2 t on
the design's df delivered 58% (with the true omega2, SWE-like mix) and 69% on average over pilots for an 80%
target. ``bench/bench_plan_pilots.py --binary`` runs more designs and pilots.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from evalstats_core.analysis import analyze
from evalstats_core.data import load, question_scores
from evalstats_core.errors import EvalStatsWarning
from evalstats_core.pair_mover import disagreement_df
from evalstats_core.plan_pilots import binary_scores, plan_binary_pilots, planned_sizes
from evalstats_core.plan_spread import binary_pair_df
from evalstats_core.planning import describe, plan_pair

SIZES = (150, 60, 35, 25, 15, 10, 5)  # 7 unequal clusters: Kish's effective number about 2.8


def test_plans_from_clustered_binary_pilots_deliver_their_power_with_the_default_test():
    """30 seeded 0/1 pilots of 7 unequal clusters: the default test's power at the planned size, averaged over
    pilots, is 80% within 5 points (the planner that assumed CR2 t on the design's df: 69.3% on these draws)."""
    r = plan_binary_pilots(SIZES, 0.72, 0.64, 0.2, 0.5, 0.75, pilots=30, reps=40, seed=5)
    assert abs(np.mean(r["power"]) - 0.8) <= 0.05


def test_the_test_df_the_plan_draws_is_the_df_the_rule_reads_from_01_answers():
    """The draws of binary_pair_df (normal cluster sums of the random-intercept variances) against the df
    disagreement_df reads from simulated 0/1 evals of the same planned size: medians within 20% (both far
    below the design's df)."""
    gen = np.random.default_rng(8)
    sizes = planned_sizes(SIZES, 2000).astype(np.int64)
    labels = np.repeat(np.arange(sizes.size), sizes)
    a, b = binary_scores(sizes, 0.72, 0.64, 0.2, 0.5, 0.75, gen, reps=300)
    d = a - b
    sums = np.stack([np.bincount(labels, weights=x, minlength=sizes.size) for x in d])
    resid = sums - sizes * d.mean(axis=1, keepdims=True)
    disc = np.stack([np.bincount(labels, weights=(x != 0), minlength=sizes.size) for x in d])
    means = sums / sizes
    msw = float(np.mean([(((x - m[labels]) ** 2).sum()) / (x.size - sizes.size) for x, m in zip(d, means, strict=True)]))
    var_c = float(np.mean(np.var(means, axis=1, ddof=1)) - msw * np.mean(1.0 / sizes))  # ANOVA-style, many reps
    from evalstats_core._clusters import cr2_weights

    _, df = cr2_weights(sizes.astype(np.float64), int(sizes.sum()))
    realised = disagreement_df(df, sizes, resid, disc)
    drawn = binary_pair_df(SIZES, float(sizes.sum()), msw, [var_c], df, float(np.mean(d != 0)))[0]
    assert np.median(realised) < 0.6 * df
    assert np.median(drawn) == pytest.approx(np.median(realised), rel=0.2)


def test_the_binary_plan_says_which_test_it_is_for_and_its_k_table_is_the_plan():
    gen = np.random.default_rng(9)
    a, b = binary_scores(SIZES, 0.72, 0.64, 0.2, 0.5, 0.75, gen)
    labels = np.repeat(np.arange(len(SIZES)), SIZES)
    data = load(pd.DataFrame({"question": np.arange(labels.size).astype(str), "cluster": labels, "A": a[0], "B": b[0]}))
    table = question_scores(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        plan = plan_pair(data, table, analyze(table), "A", "B", delta=0.08)
        t_plan = plan_pair(data, table, analyze(table, interval="normal"), "A", "B", delta=0.08)
    assert "the plan is for the test the analysis runs on clustered 0/1 scores" in plan.note
    assert "the plan is for the test" not in t_plan.note
    assert plan.n_needed > 1.1 * t_plan.n_needed  # fewer df: a longer plan than CR2 t's
    assert (plan.k_frame()["n_needed"] == plan.n_needed).all()
    assert "That is 80% power on average over files like this one" in describe(plan)["n"]
