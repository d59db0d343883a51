"""The vectorised PPI++ of the coverage simulations (judge_rows.ppi_rows) and the label budget's count form
(judge_budget.ppi_counts) against ppi_mean / ppi_compare, one eval at a time."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from evalstats_core import compare, ppi_compare, ppi_mean
from evalstats_core.errors import EvalStatsWarning
from evalstats_core.judge_budget import ppi_counts
from evalstats_core.judge_rows import ppi_pair_rows, ppi_rows
from evalstats_core.judge_sim import judged_eval, judged_rows


@pytest.mark.parametrize(("n_lab", "sens", "spec", "clusters"),
                         [(40, 0.99, 0.8, 0), (40, 0.99, 0.99, 12), (200, 0.6, 0.5, 12), (1000, 0.8, 0.8, 0)])
def test_rows_equal_ppi_mean_eval_by_eval(n_lab, sens, spec, clusters):
    y, f, lab, codes = judged_rows(2000, n_lab, 12, sensitivity=sens, specificity=spec, n_clusters=clusters, rng=5)
    est, se, df, lam, low, high = ppi_rows(f, y, lab, codes)
    for r in range(12):
        e = ppi_mean(f[r], np.where(lab[r], y[r], np.nan), clusters=codes)
        assert (est[r], se[r], lam[r]) == pytest.approx((e.estimate, e.se, e.lam), abs=1e-12)
        assert df[r] == pytest.approx(e.df, rel=1e-9)
        assert (low[r], high[r]) == pytest.approx((e.ci_low, e.ci_high), abs=1e-12)


def test_rows_whose_labels_alone_are_narrower_equal_ppi_mean():
    """A judge near chance without clusters: many rows take the human labels' own interval (HUMAN_ONLY), which
    ppi_rows computes once per (ones, labels) count; every row still equals ppi_mean on that eval alone."""
    y, f, lab, codes = judged_rows(400, 60, 60, sensitivity=0.55, specificity=0.5, rng=11)
    est, se, df, lam, low, high = ppi_rows(f, y, lab, codes)
    human = 0
    for r in range(60):
        e = ppi_mean(f[r], np.where(lab[r], y[r], np.nan), clusters=codes)
        assert (est[r], se[r], lam[r]) == pytest.approx((e.estimate, e.se, e.lam), abs=1e-12)
        assert (low[r], high[r]) == pytest.approx((e.ci_low, e.ci_high), abs=1e-12)
        human += e.lam == 0.0
    counts = {(int(y[r][lab[r]].sum()), int(lab[r].sum())) for r in range(60) if lam[r] == 0.0}
    assert human >= 10 and len(counts) < human  # the case is exercised, and some rows share a count


@pytest.mark.parametrize("clusters", [0, 12])
def test_rows_of_differences_equal_ppi_compare(clusters):
    ya, fa, lab, codes = judged_rows(1500, 120, 8, sensitivity=0.9, specificity=0.8, n_clusters=clusters, rng=1)
    yb, fb, _, _ = judged_rows(1500, 120, 8, sensitivity=0.9, specificity=0.7, pass_rate=0.6, n_clusters=clusters,
                               rng=2)
    est, se, df, _, low, high = ppi_pair_rows(fa, ya, fb, yb, lab, codes)
    for r in range(8):
        e = ppi_compare(fa[r], np.where(lab[r], ya[r], np.nan), fb[r], np.where(lab[r], yb[r], np.nan),
                        clusters=codes)
        assert (est[r], se[r], low[r], high[r]) == pytest.approx((e.estimate, e.se, e.ci_low, e.ci_high), abs=1e-12)
        assert df[r] == pytest.approx(e.df, rel=1e-9)


@pytest.mark.parametrize(("n_lab", "sens", "spec"), [(40, 0.99, 0.8), (40, 0.99, 0.99), (300, 0.6, 0.99),
                                                     (1000, 0.8, 0.5), (30, 0.7, 0.6)])
def test_counts_give_ppi_means_interval(n_lab, sens, spec):
    for seed in range(4):
        ev = judged_eval(2000, n_lab, sensitivity=sens, specificity=spec, rng=seed)
        lab = ~np.isnan(ev.human)
        f, y = ev.judge[lab], ev.human[lab]
        table = [np.sum((f == 1) & (y == 1)), np.sum((f == 1) & (y == 0)), np.sum((f == 0) & (y == 1)),
                 np.sum((f == 0) & (y == 0))]
        low, high = ppi_counts(*table, ev.judge[~lab].sum(), n_total=2000)
        e = ppi_mean(ev.judge, ev.human)
        assert (float(low), float(high)) == pytest.approx((e.ci_low, e.ci_high), abs=1e-12)


def test_a_pairs_interval_is_never_wider_than_the_labelled_rows_own_paired_interval():
    """Issue 39's HUMAN_ONLY rule for pairs: with a chance judge and 12 unequal clusters the corrected difference
    (its CR2 t arms, the 0/1 pair count terms) was wider than the labelled rows' own paired interval (``compare`` of
    the two models' labels, the clustered 0/1 pair rule) in 14 of these 60 evals; now the labels' own numbers are
    taken there (lam = 0), in ppi_compare and in ppi_pair_rows alike, and ``human_only`` is that interval.
    (Unclustered 0/1 pairs, and graded ones, were never wider in the same designs: Tango's continuity-corrected
    interval and the paired t are wider than PPI++'s.)"""
    clusters = 12
    ya, fa, lab, codes = judged_rows(400, 30, 60, sensitivity=0.55, specificity=0.5, n_clusters=clusters, rng=11)
    yb, fb, _, _ = judged_rows(400, 30, 60, sensitivity=0.55, specificity=0.5, pass_rate=0.6, n_clusters=clusters,
                               rng=12)
    est, se, df, lam, low, high = ppi_pair_rows(fa, ya, fb, yb, lab, codes)
    taken = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        for r in range(60):
            e = ppi_compare(fa[r], np.where(lab[r], ya[r], np.nan), fb[r], np.where(lab[r], yb[r], np.nan),
                            clusters=codes)
            assert e.ci_high - e.ci_low <= e.human_only.high - e.human_only.low + 1e-12
            assert (est[r], se[r], lam[r], low[r], high[r]) == pytest.approx(
                (e.estimate, e.se, e.lam, e.ci_low, e.ci_high), abs=1e-12)
            if e.lam == 0.0 and (e.ci_low, e.ci_high) == (e.human_only.low, e.human_only.high):
                taken += 1
                assert e.estimate == pytest.approx(e.human_mean, abs=1e-12)
            own = compare(ya[r][lab[r]], yb[r][lab[r]], codes[lab[r]])
            assert (e.human_only.low, e.human_only.high) == (own.ci_low, own.ci_high)
    assert taken >= 10  # the case is exercised
