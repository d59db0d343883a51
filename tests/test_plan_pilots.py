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


@pytest.mark.parametrize(("delta", "sd_cluster", "seed"), [(0.05, 0.13, 60), (0.03, 0.05, 64)], ids=["icc0.1", "icc0.015"])
def test_plans_from_swe_like_pilots_deliver_their_power_on_average(delta, sd_cluster, seed):
    """12 SWE-like clusters at ICC 0.1 and 0.015: the CR2 omega2 planned for a median 48-55% power (the
    issue's 54%); the median-unbiased omega2 alone for a median of about 80% but a mean of 74-77%; the plans
    that average the power over omega2's confidence distribution deliver 80% on average within 5 points
    (the audit's check), longer than the median plans, with the spread the note states (a third short,
    one in ten under 60%); the plan from the true omega2 within 3 points."""
    r = plan_from_pilots(SWE, delta, sd_cluster, 0.4, pilots=150, reps=200, seed=seed, median_too=True)
    assert abs(np.mean(r["power"]) - 0.8) <= 0.05
    assert np.mean(r["power"]) > np.mean(r["power_median"])
    assert 0.2 <= np.mean(r["power"] < 0.8) <= 0.5  # "about a third of them fall short"
    assert np.quantile(r["power"], 0.1) < 0.6  # "one in ten delivers under 60% power for an 80% target"
    assert 1.1 <= np.median(r["n_needed"] / r["n_median"]) <= 1.4
    assert abs(r["power_true"] - 0.8) <= 0.03


def _pilot_with(sizes, msw, ssb, seed):
    """Differences in clusters of ``sizes`` whose within mean square is ``msw`` and between sum of squares ``ssb``."""
    gen = np.random.default_rng(seed)
    labels = np.repeat(np.arange(sizes.size), sizes)
    e = gen.normal(size=labels.size)
    e -= (np.bincount(labels, e) / sizes)[labels]
    e *= np.sqrt(msw * (labels.size - sizes.size) / (e @ e))
    mu = gen.normal(size=sizes.size)
    mu -= mu @ sizes / sizes.sum()
    mu *= np.sqrt(ssb / (sizes @ mu**2))
    return mu[labels] + e, labels


def _simulated_ssb(sizes, sd_cluster, sd_question, reps, seed):
    """Between-cluster sums of squares of the random-intercept model, simulated from cluster means."""
    gen = np.random.default_rng(seed)
    w = np.asarray(sizes, dtype=np.float64)
    z = gen.normal(size=(reps, w.size)) * np.sqrt(sd_cluster**2 + sd_question**2 / w)
    return ((z - (z @ w / w.sum())[:, None]) ** 2) @ w


@pytest.mark.parametrize("sd_cluster", [0.02, 0.05, 0.13])
def test_plan_omega2_returns_the_truth_from_a_pilot_at_the_median(sd_cluster):
    """Median-unbiasedness by its definition: a SWE-like pilot whose within mean square is the true
    sigma_e^2 and whose between sum of squares is the median of its distribution under the truth
    (simulated: an oracle independent of the Imhof inversion) gives back the true omega2. The
    Satterthwaite-scaled ANOVA value before it gave 2.18x, 1.14x and 0.93x (ICC 0.0025, 0.015, 0.1)."""
    from evalstats_core.pilot import _random_intercept_variance

    sizes = np.asarray(SWE)
    ssb = float(np.median(_simulated_ssb(sizes, sd_cluster, 0.4, 200_000, seed=65)))
    diffs, labels = _pilot_with(sizes, 0.16, ssb, seed=66)
    truth = 0.16 + sd_cluster**2 * float(sizes @ sizes) / sizes.sum()
    assert _random_intercept_variance(diffs, labels) == pytest.approx(truth, rel=0.015)
    # no cluster effect visible (SSB below its median without one): the within mean square
    low = float(np.quantile(_simulated_ssb(sizes, 0.0, 0.4, 20_000, seed=67), 0.3))
    diffs, labels = _pilot_with(sizes, 0.16, low, seed=68)
    assert _random_intercept_variance(diffs, labels) == pytest.approx(0.16)


def test_between_sum_distribution_is_exact():
    """Imhof's inversion against scipy's chi-square where SSB is one (two clusters: lambda chi2_1; equal
    clusters: (sigma_e^2 + m sigma_c^2) chi2_{G-1}), and against simulation for SWE-like sizes; no
    variance at all gives SSB = 0; many clusters of few sizes stay exact."""
    from scipy.stats import chi2

    from evalstats_core.pilot import _between_sum_cdf

    w = np.array([40.0, 10.0])
    v = 0.02 + 0.16 / w
    lam = float((w * v).sum() - (w * w * v).sum() / w.sum())
    for x in (0.05, 1.0, 5.0):
        assert _between_sum_cdf(x, w, 0.02, 0.16) == pytest.approx(chi2.cdf(x / lam, 1), abs=1e-8)
    for x in (1.0, 3.0, 8.0):
        assert _between_sum_cdf(x, np.full(5, 40.0), 0.02, 0.16) == pytest.approx(chi2.cdf(x / 0.96, 4), abs=1e-8)
    sim = _simulated_ssb(SWE, 0.13, 0.4, 100_000, seed=69)
    for q in (0.1, 0.5, 0.9):
        assert _between_sum_cdf(float(np.quantile(sim, q)), np.asarray(SWE, float), 0.13**2, 0.16) == pytest.approx(q, abs=0.005)
    assert _between_sum_cdf(0.1, np.array([3.0, 3.0]), 0.0, 0.0) == 1.0
    many = np.repeat([2.0, 5.0], 2000)  # 4,000 clusters, two sizes: exact against the chi-square of equal ones
    assert _between_sum_cdf(4000 * 0.2, np.full(4000, 5.0), 0.008, 0.16) == pytest.approx(
        chi2.cdf(800 / (0.16 + 5 * 0.008), 3999), abs=1e-6)
    assert 0.0 < _between_sum_cdf(700.0, many, 0.008, 0.16) < 1.0


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
    assert "That is 80% power on average over files like this one" in words["n"]
    assert "from 5 to 12 clusters about a third of such plans fall short" in words["n"]
    assert "if ω² is what this file estimates" in words["mde"]
    assert "plans from pilots like this one deliver their power on average, but not each one" in plan.note
    assert "about a third of them fall short of it" in plan.note
    assert "one in ten delivers under 60% power for an 80% target" in plan.note


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


@pytest.mark.parametrize(("sizes", "delta", "sd_cluster", "seed"),
                         [((1,) * 12, 0.3, 0.0, 70), ((40,) * 5, 0.08, 0.13, 71)], ids=["12-questions", "5-clusters"])
def test_plans_deliver_their_power_on_average_over_pilots(sizes, delta, sd_cluster, seed):
    """The audit's check: pilot -> plan_pair -> an eval of the planned size -> the paired test, repeated; the
    share of significant results is the plan's power on average over pilots. A 12-question pilot (11 df)
    and 5 equal clusters of 40 (4 df): the plans from the point estimate averaged 77% and 74-75% (a short
    plan loses more power than a long one gains); the plans that average the power over omega2's
    confidence distribution are within 2 and 3 points of 80%, and longer than the point-estimate plans (without
    clusters every one; with clusters a pilot whose cluster variance may be near 0 asks less of the distribution,
    :func:`~evalstats_core.plan_spread.calibrated_power`, so most of them, and the median plan)."""
    r = plan_from_pilots(sizes, delta, sd_cluster, 0.4, pilots=400, reps=200, seed=seed, median_too=True)
    assert abs(np.mean(r["power"]) - 0.8) <= (0.02 if sd_cluster == 0.0 else 0.03)
    assert np.mean(r["power"]) > np.mean(r["power_median"]) + 0.02
    longer = r["n_needed"] > r["n_median"]
    if sd_cluster == 0.0:
        assert np.all(longer)
    else:
        assert np.mean(longer) >= 0.9 and np.median(r["n_needed"] / r["n_median"]) > 1.1  # 97.8%, 1.28x
