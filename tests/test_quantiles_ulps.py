"""``_quantiles.t_ppf`` against 40-digit quantiles from mpmath, in units in the last place: the closed forms
(df 1, 2), Fisher's expansion (df >= max(300, 200 z^2)) and Halley's steps from Hill's start, and that the
branches meet (monotone in df across the switch). scipy's ``stdtrit`` is no oracle at this resolution: it is
itself off by up to 60 ulps at two-sided levels and by hundreds near ``p = 1/2`` (bench/bench_quantiles.py)."""

from __future__ import annotations

import math

import mpmath as mp
import pytest

from evalstats_core import _quantiles as q

LEVELS = [0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 0.9999]
P_UPPER = [0.5 + c / 2.0 for c in LEVELS] + [1 - 1e-8, 1 - 1e-12]


def truth(p: float, df: float) -> float:
    mp.mp.dps = 40
    tail, n = 1 - mp.mpf(p), mp.mpf(df)
    x0 = mp.mpf(q.t_ppf(p, df))
    x = mp.findroot(lambda x: mp.betainc(n / 2, mp.mpf(1) / 2, 0, n / (n + x * x), regularized=True) / 2 - tail, x0)
    return float(x)


def ulps(got: float, want: float) -> float:
    return abs(got - want) / math.ulp(want)


@pytest.mark.parametrize("df", [1e4, 31622.8, 123456.7, 1e6, 1e9, 1e12])
def test_many_df_within_4_ulps(df):
    """Fisher's expansion (every level here has 200 z^2 <= df): the Newton iteration this replaced was off by
    up to 44 ulps here (the incomplete beta's own rounding, amplified)."""
    bad = [(p, u) for p in P_UPPER if (u := ulps(q.t_ppf(p, df), truth(p, df))) > 4.0]
    assert bad == []


@pytest.mark.parametrize("df", [1.0, 2.0])
def test_closed_forms_within_2_ulps(df):
    ps = P_UPPER + [0.5001, 0.51, 0.6, 0.7, 1 - 1e-5]
    bad = [(p, u) for p in ps if (u := ulps(q.t_ppf(p, df), truth(p, df))) > 2.0]
    assert bad == []
    assert q.t_ppf(0.75, 2.0) == -q.t_ppf(0.25, 2.0)


@pytest.mark.parametrize("df", [1.3, 2.5, 3.7, 4.0, 7.25, 11.2, 29.3, 64.0, 211.7, 511.3, 2999.0])
def test_halley_within_24_ulps(df):
    """Halley's steps stop on their own size; they land where the Newton iteration did, within the incomplete
    beta's rounding (up to 22 ulps here, e.g. df 1.3 at 1 - 1e-8; 16-17 at two-sided levels)."""
    bad = [(p, u) for p in P_UPPER if (u := ulps(q.t_ppf(p, df), truth(p, df))) > 24.0]
    assert bad == []


@pytest.mark.parametrize("p", [0.6, 0.75, 0.9, 0.975, 0.995, 0.9995, 0.99995, 1 - 1e-12])
def test_monotone_in_df_across_the_switch(p):
    """The quantile falls as df grows; at the switch to Fisher's expansion (df = max(300, 200 z^2)) the two
    branches must agree to far better than the change from one df to the next."""
    z = q.norm_ppf(p)
    switch = max(300.0, 200.0 * z * z)
    dfs = [switch * (1.0 + k * 1e-9) for k in range(-5, 6)]
    xs = [q.t_ppf(p, df) for df in dfs]
    assert all(a >= b for a, b in zip(xs, xs[1:], strict=False))
    below = q._halley(q._hill(2.0 * (1.0 - p), switch), 1.0 - p, switch)  # the other branch at the switch
    fisher = q._cornish_fisher(z, switch)
    assert ulps(fisher, truth(p, switch)) <= 4.0 and ulps(below, truth(p, switch)) <= 24.0


@pytest.mark.parametrize(("p", "df"), [(1e-100, 1.3), (1e-60, 0.6), (0.3, 0.5), (1e-12, 0.51), (0.999, 0.9)])
def test_far_tails_and_df_below_one_round_trip(p, df):
    """Where Halley's steps are not taken (df < 1) or stray, the safeguarded Newton still finds the point."""
    x = q.t_ppf(p, df)
    assert math.isfinite(x) and abs(q.t_cdf(x, df) - p) <= 1e-12 * p


@pytest.mark.parametrize("df", [1.5, 3.0, 4.0, 9.0, 47.5, 100.0])
def test_near_the_centre_within_30_ulps(df):
    """``p`` in (1/4, 3/4): Halley solves for the central mass ``1 - 2q``, not the tail ``q`` (whose rounding
    moved a quantile near 0 by 150-180 ulps before, e.g. df 3 at p = 0.499)."""
    ps = [0.26, 0.3, 0.4, 0.45, 0.49, 0.499, 0.4999, 0.501, 0.6, 0.74]
    bad = [(p, u) for p in ps if (u := ulps(q.t_ppf(p, df), -truth(1.0 - p, df) if p < 0.5 else truth(p, df))) > 30]
    assert bad == []


@pytest.mark.parametrize(("p", "df"), [(8.295682246360265e-209, 1.8103052576090857), (1e-100, 1.3), (1e-30, 3.7)])
def test_far_tail_where_the_density_is_subnormal(p, df):
    """Far out the t density underflows to a subnormal (1e-322 at the first case) with few digits: Halley's step
    takes ``q / pdf`` through logs, else its steps shrink only linearly and stop early (6.7e-9 off, seen)."""
    mp.mp.dps = 60
    n = mp.mpf(df)
    want = float(mp.e ** mp.findroot(lambda lx: mp.log(mp.betainc(n / 2, mp.mpf(1) / 2, 0, n / (n + mp.e ** (2 * lx)),
                                                                    regularized=True) / 2) - mp.log(mp.mpf(p)),
                                     mp.log(-q.t_ppf(p, df))))
    assert abs(-q.t_ppf(p, df) - want) <= 1e-12 * want
