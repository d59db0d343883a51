"""Plans from clustered pilots near a zero cluster variance do not over-deliver (issue 20, held-out audit).

The held-out audit's 10 unequal clusters (45 to 4) of 0/1 answers at a low ICC realised 85.5% for an 80%
target: the confidence distribution of omega2 is no pivot near ``sigma_c^2 = 0`` (``MSW`` known), so averaging
the power over it planned for cluster variances the truth rarely has.
:func:`~evalstats_core.plan_spread.calibrated_power` lowers the average power asked of it there.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from evalstats_core.analysis import analyze
from evalstats_core.data import load, question_scores
from evalstats_core.errors import EvalStatsWarning
from evalstats_core.plan_spread import calibrated_power, mean_power
from evalstats_core.planning import _test_df, plan_pair

SIZES = np.array([45, 38, 30, 24, 18, 14, 10, 7, 5, 4])  # the audit's design


def _plans(var_cluster: float, var_within: float, delta: float, pilots: int, seed: int) -> tuple[np.ndarray, float]:
    """Analytic power at the truth (t on the design's df) of plan_pair's plans from seeded normal pilots."""
    gen = np.random.default_rng(seed)
    labels = np.repeat(np.arange(SIZES.size), SIZES)
    n0 = int(SIZES.sum())
    truth = np.array([var_within + var_cluster * float(SIZES @ SIZES) / n0])
    _, rate = _test_df(labels, n0)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        for _ in range(pilots):
            d = delta + gen.normal(0, math.sqrt(var_cluster), SIZES.size)[labels] + gen.normal(0, math.sqrt(var_within), n0)
            table = question_scores(load(pd.DataFrame({"question": np.arange(n0).astype(str), "cluster": labels,
                                                       "A": 5.0 + d, "B": np.full(n0, 5.0)})))
            plan = plan_pair(None, table, analyze(table), "A", "B", delta=delta)
            out.append(mean_power(plan.n_needed, delta, truth, np.ones(1), df=max(1.0, rate * plan.n_needed - 1.0)))
    return np.asarray(out), rate


def test_plans_near_a_zero_cluster_variance_deliver_their_power_on_average():
    """24 seeded pilots at the audit's 0/1 variances (within 0.345, cluster 0.006: ICC 0.017): the mean power
    at the truth is 80% within 5 points (83.3% on these pilots; the planner before: 86.8%, and 85% over 200)."""
    power, _ = _plans(0.006, 0.345, 0.05, 24, 5)
    assert 0.75 <= power.mean() <= 0.85


def test_the_aim_is_lowered_only_near_the_floor():
    """At a zero cluster variance the aim is below the target; with a dominant cluster variance it is the target."""
    _, rate = _plans(0.0, 0.345, 0.05, 1, 0)
    low = calibrated_power(0.05, SIZES.astype(float), 0.345, 0.0, df_per_question=rate)
    high = calibrated_power(0.05, SIZES.astype(float), 0.345, 0.1, df_per_question=rate)
    assert 0.6 < low < 0.78
    assert high == pytest.approx(0.8)


def _one_plan(var_cluster: float, seed: int):
    gen = np.random.default_rng(seed)
    labels = np.repeat(np.arange(SIZES.size), SIZES)
    n0 = int(SIZES.sum())
    d = 0.05 + gen.normal(0, math.sqrt(var_cluster), SIZES.size)[labels] + gen.normal(0, math.sqrt(0.345), n0)
    table = question_scores(load(pd.DataFrame({"question": np.arange(n0).astype(str), "cluster": labels,
                                               "A": 5.0 + d, "B": np.full(n0, 5.0)})))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        return plan_pair(None, table, analyze(table), "A", "B", delta=0.05)


@pytest.mark.parametrize("var_cluster, seed", [(0.0, 3), (0.2, 4)])
def test_the_plan_sentence_says_the_aim_it_was_solved_for(var_cluster, seed):
    """The reader is told a plan is longer than one for the estimate alone only when its aim is the target; a
    lowered aim is printed as the plan's own number (a clustered pilot at a zero cluster variance)."""
    from evalstats_core.planning import describe

    plan = _one_plan(var_cluster, seed)
    text = describe(plan, percent=False)["n"]
    if plan.power_aimed < plan.power:
        assert f"aiming at {plan.power_aimed:.0%} averaged over" in text and "estimate alone" not in text
    else:
        assert "so it is longer than a plan for the estimate alone" in text and "aiming at" not in text
    assert (plan.power_aimed < plan.power) == (var_cluster == 0.0)  # both branches are exercised
