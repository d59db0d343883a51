"""The exact coverage machinery behind ``bench/bench_judge_exact.py`` (issue 23's over-coverage scan), checked
against independent computations: seeded draws of the same design, the direct (uninterpolated) interval,
and a general-purpose constrained optimiser for the profile likelihood; and ``bench/bench_judge_floor.py``'s
account of why the near-perfect judge over-covers."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import xlogy

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import bench_judge_exact_lib as je  # noqa: E402
from bench_judge_floor import _variant  # noqa: E402

from evalstats_core.judge_budget import ppi_counts  # noqa: E402


def test_exact_coverage_matches_seeded_draws():
    """The enumerated coverage of ppi_mean's interval (from counts) equals the share of 40,000 drawn evals
    that cover, within 4 binomial SEs (the lenient judge, whose coverage depends most on the small counts)."""
    sens, spec, rate = 0.99, 0.80, 0.7
    exact = je.exact_coverage(je.shipped, sens, spec, rate, 40, 2000)
    q, a, b = je.design(sens, spec, rate)
    gen = np.random.default_rng(11)
    cells = [q * a, q * (1 - a), (1 - q) * b, (1 - q) * (1 - b)]
    table = gen.multinomial(40, cells, size=40_000)
    passes = gen.binomial(1960, q, size=40_000)
    low, high = ppi_counts(*table.T, passes, n_total=2000)
    drawn = np.mean((low <= rate) & (rate <= high))
    assert abs(drawn - exact) < 4 * np.sqrt(exact * (1 - exact) / 40_000)


def test_interpolated_interval_equals_direct():
    """``shipped`` interpolates the interval in P from 9 nodes; summing the direct interval at every P gives
    the same coverage."""
    fast = je.exact_coverage(je.shipped, 0.99, 0.99, 0.7, 40, 2000)
    slow = je.exact_coverage(je.shipped_direct, 0.99, 0.99, 0.7, 40, 2000)
    assert fast == pytest.approx(slow, abs=2e-5)
    assert fast > 0.97  # the over-coverage the bench reports (0.989)


def test_profile_limits_solve_the_constrained_likelihood():
    """At each profile limit, maximising the likelihood with theta held there (SLSQP from scratch) loses
    exactly chi-square(1) / 2 of log-likelihood against the unconstrained maximum."""
    k1, m1, k0, m0, big_p, n_total = 27.0, 28.0, 1.0, 12.0, 1370.0, 2000
    big_m = m1 + big_p
    crit = 1.959963984540054**2
    lo, hi = je.profile_limits(*(np.array([x]) for x in (k1, m1, k0, m0, big_m)), n_total, crit)

    def loglik(x):
        pi, a, b = x
        return (xlogy(big_m, pi) + xlogy(n_total - big_m, 1 - pi) + xlogy(k1, a) + xlogy(m1 - k1, 1 - a)
                + xlogy(k0, b) + xlogy(m0 - k0, 1 - b))

    top = loglik([big_m / n_total, k1 / m1, k0 / m0])
    for theta in (lo[0], hi[0]):
        res = minimize(lambda x: -loglik(x), [big_m / n_total, k1 / m1, k0 / m0], method="SLSQP",
                       bounds=[(1e-9, 1 - 1e-9)] * 3, options=dict(ftol=1e-13, maxiter=500),
                       constraints=[dict(type="eq", fun=lambda x, t=theta: x[0] * x[1] + (1 - x[0]) * x[2] - t)])
        assert 2 * (top + res.fun) == pytest.approx(crit, abs=2e-4)
    assert lo[0] < big_m / n_total * k1 / m1 + (1 - big_m / n_total) * k0 / m0 < hi[0]


def test_arms_without_an_error_are_at_the_floor():
    """bench_judge_floor's account of the corner: its variant with nothing changed is the shipped interval, and
    halving the squared small-count terms on labels without an error (arms about 30% shorter there) drops the
    lenient judge (0.99 / 0.80) below 93% while the near-perfect one (0.99 / 0.99) stays above 98%."""
    assert je.exact_coverage(_variant, 0.99, 0.8, 0.7, 40, 2000) == pytest.approx(
        je.exact_coverage(je.shipped, 0.99, 0.8, 0.7, 40, 2000), abs=1e-12)

    def half(*args):
        return _variant(*args, agree=0.5)

    assert je.exact_coverage(half, 0.99, 0.8, 0.7, 40, 2000) < 0.92
    assert je.exact_coverage(half, 0.99, 0.99, 0.7, 40, 2000) > 0.98
