"""The corrected interval's small-count limits for 0/1 scores (evalstats_core.judge_interval): the Jeffreys
limits against statsmodels' Jeffreys interval, the MOVER arms written out by hand, the cases that stay
symmetric, and the corner the limits are for (40 labels, a lenient judge)."""

from __future__ import annotations

import math
import types

import numpy as np
import pytest
from scipy.stats import beta as beta_dist
from scipy.stats import norm
from scipy.stats import t as student_t
from statsmodels.stats.proportion import proportion_confint

from evalstats_core import ppi_compare, ppi_mean, summarize
from evalstats_core.judge import ppi_fit
from evalstats_core.judge_interval import jeffreys_limits, pair_count_terms, ppi_interval
from evalstats_core.judge_sim import judge_coverage, judged_eval


def _jeffreys_oracle(k, m, crit):
    """statsmodels' equal-tailed Jeffreys interval at the normal level of sqrt(crit), with Brown, Cai & DasGupta's
    ends at k = 0 (lower 0) and k = m (upper 1)."""
    low, high = proportion_confint(k, m, alpha=2 * norm.sf(math.sqrt(crit)), method="jeffreys")
    return (0.0 if k == 0 else low), (1.0 if k == m else high)


@pytest.mark.parametrize(("k", "m"), [(0, 28), (1, 28), (14, 28), (27, 28), (28, 28), (0, 3), (2, 5), (7, 40)])
@pytest.mark.parametrize("crit", [1.959963984540054**2, 2.3**2])
def test_jeffreys_limits_equal_statsmodels(k, m, crit):
    low, high = jeffreys_limits(k, m, crit)
    assert (float(low), float(high)) == pytest.approx(_jeffreys_oracle(k, m, crit), abs=1e-12)
    many_low, many_high = jeffreys_limits(np.full(6, k), np.full(6, m), np.full(6, crit))
    assert many_low == pytest.approx(np.full(6, float(low)), abs=1e-15)
    assert many_high == pytest.approx(np.full(6, float(high)), abs=1e-15)


@pytest.mark.parametrize("clusters", [0, 12])
def test_zero_one_interval_is_the_mover_of_the_docstring(clusters):
    ev = judged_eval(2000, 40, sensitivity=0.99, specificity=0.8, n_clusters=clusters, rng=3)
    lab = ~np.isnan(ev.human)
    mean = ppi_mean(ev.judge, ev.human, clusters=ev.clusters)
    codes = np.arange(lab.size) if not clusters else np.unique(ev.clusters, return_inverse=True)[1]
    fit = ppi_fit(ev.judge, ev.human, lab, codes)  # PPI++ before HUMAN_ONLY's choice
    est = types.SimpleNamespace(estimate=fit[0], se=fit[1], df=fit[2])
    kernel = ppi_interval(ev.judge, ev.human, lab, *fit[:3], 0.95, clustered=bool(clusters))
    y, f = ev.human[lab], ev.judge[lab]
    t, z = float(student_t.ppf(0.975, est.df)), float(norm.ppf(0.975))
    lo2 = hi2 = (t * est.se) ** 2
    for verdict in (1.0, 0.0):  # the binomial parts at the nominal level (z), the rest of the arm at t(df)
        m = int((f == verdict).sum())
        k = int(y[f == verdict].sum())
        p, w = k / m, m / y.size
        low, high = _jeffreys_oracle(k, m, z * z)
        lo2 += w * w * ((p - low) ** 2 - z * z * p * (1 - p) / m)
        hi2 += w * w * ((high - p) ** 2 - z * z * p * (1 - p) / m)
    low, high = est.estimate - math.sqrt(lo2), est.estimate + math.sqrt(hi2)
    a, p = 0.025, est.estimate
    n_eff = p * (1 - p) / est.se**2 * (z / t) ** 2
    if clusters and abs(1 - 2 * p) / math.sqrt(n_eff * p * (1 - p)) > 0.2:  # issue 39: clustered and skewed:
        low = min(low, float(beta_dist.ppf(a, p * n_eff, n_eff - p * n_eff + 1)))  # at least Clopper-Pearson on
        high = max(high, float(beta_dist.ppf(1 - a, p * n_eff + 1, n_eff - p * n_eff)))  # the effective counts
    assert kernel == pytest.approx((low, high), rel=1e-9)
    human = summarize(y, None if not clusters else ev.clusters[lab])
    if mean.lam == 0.0:  # issue 39: the human labels' own interval is narrower, and reported (lam = 0)
        assert (mean.ci_low, mean.ci_high) == (human.ci_low, human.ci_high) and human.ci_high - human.ci_low < high - low
    else:
        assert (mean.ci_low, mean.ci_high) == pytest.approx((low, high), rel=1e-9)


def test_no_labelled_false_pass_reaches_further_down():
    for seed in range(200):  # a draw whose 40 labels hold no judge pass that a human failed
        ev = judged_eval(2000, 40, sensitivity=0.99, specificity=0.8, rng=seed)
        lab = ~np.isnan(ev.human)
        if not ((ev.judge[lab] == 1) & (ev.human[lab] == 0)).any():
            break
    est = ppi_mean(ev.judge, ev.human)
    t = float(student_t.ppf(0.975, est.df))
    assert est.estimate - est.ci_low > t * est.se + 0.01  # the lower arm allows for the unseen false passes


def test_graded_scores_and_differences_keep_the_t_interval():
    rng = np.random.default_rng(2)
    f = rng.random(300)
    h = np.where(rng.random(300) < 0.2, np.clip(f + 0.1 * rng.standard_normal(300), 0, 1), np.nan)
    est = ppi_mean(f, h)
    t = float(student_t.ppf(0.975, est.df))
    assert (est.ci_low, est.ci_high) == pytest.approx((est.estimate - t * est.se, est.estimate + t * est.se), rel=1e-12)
    a = judged_eval(500, 60, sensitivity=0.9, specificity=0.8, rng=1)
    b = judged_eval(500, 60, sensitivity=0.9, specificity=0.7, pass_rate=0.6, rng=2)
    hb = np.where(np.isnan(a.human), np.nan, b.truth)
    d = ppi_compare(a.judge, a.human, b.judge, hb)
    t = float(student_t.ppf(0.975, d.df))
    # issue 39: a 0/1 pair's arms are the t arms widened (never narrowed) by the two models' small-count terms
    lab = ~np.isnan(a.human)
    lo2, hi2 = pair_count_terms(*(x[None, :] for x in (a.human, a.judge, hb, b.judge, lab)), 0.95)
    assert d.ci_low == pytest.approx(d.estimate - np.sqrt((t * d.se) ** 2 + lo2[0]), rel=1e-12)
    assert d.ci_high == pytest.approx(d.estimate + np.sqrt((t * d.se) ** 2 + hi2[0]), rel=1e-12)
    assert d.ci_low <= d.estimate - t * d.se and d.ci_high >= d.estimate + t * d.se
    graded = ppi_compare(f, h, np.clip(f - 0.1, 0, 1), h)  # graded scores: the plain t interval
    t = float(student_t.ppf(0.975, graded.df))
    assert (graded.ci_low, graded.ci_high) == pytest.approx((graded.estimate - t * graded.se,
                                                             graded.estimate + t * graded.se), rel=1e-12)


@pytest.mark.parametrize("verdict", [0.0, 1.0])
def test_labels_that_all_agree_never_give_a_zero_width_interval(verdict):
    """Issue 39: a constant judge whose labelled answers all agree (se 0) keeps the Jeffreys limits of 0 errors
    in m, as the plain 0/1 rules do, for a model and for a pair; the interval holds the estimate."""
    n, m = 400, 20
    f = np.full(n, verdict)
    h = np.full(n, np.nan)
    h[:m] = verdict
    est = ppi_mean(f, h)
    assert est.se == 0.0 and est.ci_high - est.ci_low > 0.05
    assert est.ci_low <= est.estimate <= est.ci_high
    j_low, j_high = jeffreys_limits(0, m, float(student_t.ppf(0.975, np.inf)) ** 2)
    assert est.ci_high - est.ci_low == pytest.approx(float(j_high - j_low), rel=1e-9)  # 0 of m errors
    pair = ppi_compare(f, h, f, h)
    assert pair.se == 0.0 and pair.ci_low < 0.0 < pair.ci_high


def test_forty_labels_and_a_lenient_judge_cover():
    """The corner: sensitivity 0.99, specificity 0.80, 40 labels. In these 2,000 seeded evals the plain t interval
    covers 89.4% (bench: 0.89); the small-count limits must reach 93%."""
    kw = dict(n_total=2000, n_labeled=40, sensitivity=0.99, specificity=0.8, reps=2000, rng=36, judge_only=False)
    assert judge_coverage(**kw, small_counts=False).corrected < 0.91
    assert judge_coverage(**kw).corrected >= 0.93


def test_clustered_near_perfect_judge_is_not_conservative():
    """12 unequal clusters, 40 labels, a 0.99 / 0.99 judge: with the binomial limits at the t(df) level (about
    99% when df is near 5) these 2,000 seeded evals covered 98.2%; at the nominal level 96.9%, and with issue 39's
    effective-count floor for clusters (needed at a pass rate of 0.95) 97.1%. Issue 39's decision: the bound that
    matters is the lower one (93%); over-coverage is reported, not capped, so the check above 97% is now 98%."""
    c = judge_coverage(n_total=2000, n_labeled=40, sensitivity=0.99, specificity=0.99, n_clusters=12, reps=2000,
                       rng=11, judge_only=False)
    assert 0.93 <= c.corrected <= 0.98


@pytest.mark.parametrize("clusters", [0, 12])
def test_coverage_without_the_judge_only_interval_is_the_same(clusters):
    """judge_only=False (the fast path of the tests above and of the bench's --corrected-only) draws the same evals:
    the corrected numbers are equal, and the judge-only ones are NaN rather than a coverage of 0."""
    kw = dict(n_total=600, n_labeled=40, sensitivity=0.95, specificity=0.8, n_clusters=clusters, reps=300, rng=3)
    full, fast = judge_coverage(**kw), judge_coverage(**kw, judge_only=False)
    assert (fast.corrected, fast.mean_half_width, fast.mean_lam) == (full.corrected, full.mean_half_width,
                                                                     full.mean_lam)
    assert math.isnan(fast.judge_only) and math.isnan(fast.judge_half_width)
    assert not math.isnan(full.judge_only)


@pytest.mark.parametrize(("sens", "spec", "n_lab", "clusters"), [(0.99, 0.8, 40, 0), (0.99, 0.99, 40, 12),
                                                                  (0.7, 0.95, 120, 0)])
def test_swapping_pass_and_fail_reflects_the_interval(sens, spec, n_lab, clusters):
    """False passes and false fails are treated alike: relabelling pass as fail maps the interval to 1 - itself."""
    for seed in range(5):
        ev = judged_eval(2000, n_lab, sensitivity=sens, specificity=spec, n_clusters=clusters, rng=seed)
        e = ppi_mean(ev.judge, ev.human, clusters=ev.clusters)
        m = ppi_mean(1 - ev.judge, 1 - ev.human, clusters=ev.clusters)
        assert (m.estimate, m.ci_low, m.ci_high) == pytest.approx((1 - e.estimate, 1 - e.ci_high, 1 - e.ci_low),
                                                                  abs=1e-12)
