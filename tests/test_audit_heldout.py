"""Issue 20's held-out checks, small and seeded: the held-out files and the exact-enumeration checks.

``bench/audit_heldout.py`` runs the whole audit (simulated coverage, the gate's false-pass rate on
clustered designs, plans' realised power); this file runs its exact parts and checks that the audit's
own generators and enumerations are right (their truths, probabilities and the counts they rely on).
"""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import evalstats_core as es

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("audit_heldout", ROOT / "bench" / "audit_heldout.py")
audit = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(audit)

pytestmark = pytest.mark.filterwarnings("ignore::evalstats_core.EvalStatsWarning")


# ------------------------------------------------------------------ the audit's own machinery is right
@pytest.mark.parametrize("kind", ["binary", "runs3", "partial"])
def test_latent_scores_have_the_closed_form_expectation(kind):
    rng = np.random.default_rng(1)
    a, b = audit.latent(rng, 400, (10,) * 20, 0.9, 0.6, 0.3, 0.5, 0.6, 0.7, kind)
    for x, p in ((a, 0.9), (b, 0.6)):
        means = x.mean(axis=1)  # one mean per replication (clustered: the spread is between replications)
        assert abs(means.mean() - p) < 4 * means.std(ddof=1) / math.sqrt(means.size)
    assert np.corrcoef(a.ravel(), b.ravel())[0, 1] > 0.1  # correlated answers


def test_beta_clusters_have_their_mean_and_icc():
    rng = np.random.default_rng(2)
    x = audit.beta(rng, 3000, (50,) * 4, 0.8, 0.2)
    cl = x.reshape(3000, 4, 50).mean(axis=2)  # cluster accuracies
    assert abs(x.mean() - 0.8) < 0.01
    # between-cluster variance of the accuracies = rho p (1 - p) + (1 - rho) p (1 - p) / m
    want = 0.2 * 0.16 + 0.8 * 0.16 / 50
    assert cl.var() == pytest.approx(want, rel=0.06)


def test_discordant_grid_is_the_multinomial():
    p11, p10, p01, p00 = audit.cells(0.9, 0.93, 0.6)
    assert p11 + p10 + p01 + p00 == pytest.approx(1.0)
    assert min(p10, p01, p00) > 0
    grid = audit.discordant_grid(40, p10, p01)
    assert sum(p for *_, p in grid) == pytest.approx(1.0, abs=1e-8)
    b, c = 2, 3  # one cell against scipy's multinomial
    want = stats.multinomial(40, [p10, p01, p11 + p00]).pmf([b, c, 35])
    assert dict(((x, y), p) for x, y, p in grid)[(b, c)] == pytest.approx(want, rel=1e-10)


def test_paired_interval_reads_only_the_discordant_counts():
    """The exact paired coverage sums over (b, c): the default interval must not move with n11 vs n00."""
    for n, b, c in ((40, 1, 4), (164, 3, 9), (300, 0, 6)):
        lows = {round(es.compare(*audit.pair_arrays(n, b, c, s)).ci_low, 12) for s in (0.0, 0.5, 0.97, 1.0)}
        highs = {round(es.compare(*audit.pair_arrays(n, b, c, s)).ci_high, 12) for s in (0.0, 0.5, 0.97, 1.0)}
        assert len(lows) == 1 and len(highs) == 1, (n, b, c, lows, highs)


def test_exact_one_matches_a_direct_sum():
    n, p = 25, 0.9
    direct = 0.0
    for k in range(n + 1):
        s = es.summarize(np.r_[np.ones(k), np.zeros(n - k)])
        direct += stats.binom.pmf(k, n, p) * (s.ci_low <= p <= s.ci_high)
    assert audit.exact_one(n, p)[0] == pytest.approx(direct, abs=1e-11)


# ------------------------------------------------------------------ issue 20's held-out files
def _identical(kind: str):
    rng = np.random.default_rng(30)
    x = {"mixed": (rng.random(30) < 0.8).astype(float), "all right": np.ones(30),
         "partial": rng.integers(0, 9, 30) / 8.0}[kind]
    return x


@pytest.mark.parametrize("kind", ["mixed", "all right", "partial"])
@pytest.mark.parametrize("clustered", [False, True])
def test_two_identical_models_on_30_questions_do_not_pass_the_gate(kind, clustered):
    x = _identical(kind)
    df = audit.frame(x, x.copy(), np.repeat(np.arange(5), 6) if clustered else None)
    g = es.gate(es.load(df), baseline="B", candidate="A", margin=0.02)
    assert g.exit_code != 0 and g.verdict != "pass"


def test_two_identical_models_on_30_questions_cli_gate_does_not_exit_0(tmp_path):
    x = _identical("mixed")
    path = tmp_path / "same.csv"
    audit.frame(x, x.copy(), None).to_csv(path, index=False)
    r = subprocess.run([sys.executable, "-m", "evalstats_core", "gate", str(path), "--baseline", "B", "--candidate",
                        "A", "--margin", "0.02"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode not in (0, 2), r.stderr


def _not_zero_width(r) -> bool:
    width = r.ci_high - r.ci_low
    return not (math.isfinite(width) and width <= 0.0)  # a width > 0, or an explicit "no interval" (NaN)


def test_equal_cluster_means_never_give_a_zero_width_interval():
    cl4 = np.repeat(np.arange(4), 25)
    half = np.tile(np.r_[np.ones(13), np.zeros(12)], 4)  # 13 of 25 right in every cluster
    pc = np.tile(np.linspace(0.0, 1.0, 25), 4)  # partial credit, every cluster mean 0.5
    a60 = np.tile(np.r_[np.ones(5), np.zeros(5), np.ones(5)], 4)  # disagree on 40 of 60, difference 0 in each
    b60 = np.tile(np.r_[np.zeros(5), np.ones(5), np.ones(5)], 4)
    cl60 = np.repeat(np.arange(4), 15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = [es.summarize(half, cl4), es.summarize(pc, cl4), es.compare(a60, b60, cl60),
                   es.compare(pc, np.tile(np.linspace(0.8, 0.0, 25), 4), cl4)]
    for r in results:
        assert _not_zero_width(r), r
    s = results[0]
    assert 0.0 <= s.ci_low < 13 / 25 < s.ci_high <= 1.0
    g = es.gate(es.load(audit.frame(a60, b60, cl60)), baseline="B", candidate="A", margin=0.02)
    assert g.exit_code == 3  # 40 discordant answers of 60 cannot bound the difference within 2 points


@pytest.mark.parametrize("n, p", [(300, 0.99), (1000, 0.99)])
def test_ceiling_exact_coverage_at_least_93_percent(n, p):
    cover, inside = audit.exact_one(n, p)
    assert cover >= 0.93, cover
    assert inside


def test_summarize_on_01_scores_stays_inside_0_1():
    for n in range(2, 41):
        for k in range(n + 1):
            s = es.summarize(np.r_[np.ones(k), np.zeros(n - k)])
            assert 0.0 <= s.ci_low <= s.mean <= s.ci_high <= 1.0, (n, k, s)
            assert s.ci_high > s.ci_low


def test_paired_exact_coverage_near_the_ceiling():
    cover = audit.exact_pair(40, audit.cells(0.95, 0.9, 0.7))
    assert cover >= 0.93, cover


def test_gate_false_pass_at_the_margin_exact_small_n():
    """Candidate truly 3 points worse than a 95% baseline, n = 20, margin 3 points: pass rate <= 2.5%."""
    rate = audit.exact_pair(20, audit.cells(0.92, 0.95, 0.9), what="gate", margin=0.03)
    assert rate <= 0.025, rate
