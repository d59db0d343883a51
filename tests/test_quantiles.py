"""evalstats_core._quantiles (normal, t, binomial and chi-square tails without scipy) against scipy.special
and scipy.stats, to 1e-12 relative: a grid of degrees of freedom from 0.5 to 1e7 (fractional ones, as
Satterthwaite gives) and of levels, then hypothesis over the same ranges."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.special import chdtrc, ndtr, ndtri, stdtr, stdtrit

from evalstats_core import _quantiles as q

TOL = 1e-12
DFS = [0.5, 0.7, 1.0, 1.3, 2.0, 2.5, 3.0, 4.7, 7.25, 10.0, 29.3, 100.0, 999.0, 3333.3, 1e4, 1e5, 123456.7, 1e6,
       1e7]
LEVELS = [1e-12, 1e-8, 1e-5, 1e-3, 0.005, 0.025, 0.05, 0.1, 0.25, 0.4, 0.49, 0.51, 0.6, 0.8, 0.9, 0.95, 0.975,
          0.995, 0.9995, 1 - 1e-8]
TS = [-1e4, -300.0, -50.0, -10.0, -5.0, -3.0, -2.0, -1.96, -1.0, -0.5, -0.01, 0.0, 0.01, 0.3, 1.0, 2.0, 5.0, 40.0]


def _close(got: float, want: float, tol: float = TOL) -> bool:
    return abs(got - want) <= tol * abs(want)


@pytest.mark.parametrize("df", DFS)
def test_t_quantiles_match_scipy(df):
    bad = [(p, q.t_ppf(p, df), float(stdtrit(df, p))) for p in LEVELS if not _close(q.t_ppf(p, df), stdtrit(df, p))]
    assert bad == []


@pytest.mark.parametrize("df", DFS)
def test_t_cdf_matches_scipy(df):
    want = [(t, float(stdtr(df, t))) for t in TS]
    bad = [(t, q.t_cdf(t, df), w) for t, w in want if w > 1e-290 and not _close(q.t_cdf(t, df), w)]
    assert bad == []
    assert [q.t_sf(t, df) for t in TS] == [q.t_cdf(-t, df) for t in TS]


def test_t_edges():
    assert q.t_ppf(0.5, 3.0) == 0.0
    assert q.t_ppf(0.0, 3.0) == -math.inf and q.t_ppf(1.0, 3.0) == math.inf
    assert math.isnan(q.t_ppf(0.975, 0.0)) and math.isnan(q.t_ppf(1.2, 3.0)) and math.isnan(q.t_cdf(math.nan, 3.0))
    assert q.t_ppf(0.975, math.inf) == q.norm_ppf(0.975)
    assert q.t_cdf(-math.inf, 2.0) == 0.0 and q.t_cdf(math.inf, 2.0) == 1.0
    assert q.t_ppf(0.975, 1.0) == pytest.approx(math.tan(math.pi * 0.475), rel=1e-14)  # Cauchy, closed form


@settings(max_examples=300, deadline=None)
@given(log_df=st.floats(math.log(0.5), math.log(1e7)), p=st.floats(1e-10, 1 - 1e-10))
@example(log_df=11.0, p=0.041641484344248456)  # found by hypothesis: the swapped fraction's 3e-12 at |t| ~ sqrt(3)
def test_t_quantile_property(log_df, p):
    df = math.exp(log_df)
    assert _close(q.t_ppf(p, df), float(stdtrit(df, p)))
    tail = min(p, 1.0 - p)
    x = q.t_ppf(p, df)
    assert abs(min(q.t_cdf(x, df), q.t_sf(x, df)) - tail) <= 1e-12 * tail  # the round trip


@settings(max_examples=300, deadline=None)
@given(log_df=st.floats(math.log(0.5), math.log(1e7)), t=st.floats(-1e3, 1e3))
def test_t_cdf_property(log_df, t):
    df = math.exp(log_df)
    want = float(stdtr(df, t))
    if want > 1e-290 and abs(t) > 1e-4:  # below, stdtr itself is off (2e-10 at t = 2e-7, df = 1; see next test)
        assert _close(q.t_cdf(t, df), want)


@pytest.mark.parametrize("log_df", [10.0, 11.0, 11.5, 12.0, 13.0, 15.0])
@pytest.mark.parametrize("t", [-1.731976096855593, -1.7320508075688772, -1.7319, 1.7319])
def test_t_cdf_where_the_fraction_swaps(log_df, t):
    """With many df the incomplete beta's swap point sits at |t| ~ sqrt(3); the swapped fraction was off by
    up to 7e-12 there (scipy's stdtr agrees with a 40-digit mpmath value to 1e-15 at these points)."""
    df = math.exp(log_df)
    assert _close(q.t_cdf(t, df), float(stdtr(df, t)), 1e-13)


@pytest.mark.parametrize("t", [-3e-4, -2.1456230049125911e-07, -1e-12, 1e-9, 2.1456230049125911e-07, 5e-5])
def test_t_cdf_near_zero_against_cauchy(t):
    """Near t = 0 the oracle is the closed form of t(1), Cauchy: 1/2 + atan(t)/pi (scipy's stdtr gives
    0.5000000684072 at t = 2.1456e-7, the closed form 0.5000000682973)."""
    assert _close(q.t_cdf(t, 1.0), 0.5 + math.atan(t) / math.pi, 1e-14)


@pytest.mark.parametrize("p", [1e-300, 1e-20, 1e-5, 0.025, 0.3, 0.5, 0.7, 0.975, 1 - 1e-12])
def test_normal_quantile(p):
    assert _close(q.norm_ppf(p), float(ndtri(p)), 1e-14) or q.norm_ppf(p) == ndtri(p) == 0.0


@pytest.mark.parametrize("x", [-37.0, -30.0, -10.0, -3.0, -1.0, 0.0, 1.0, 3.0, 8.0])
def test_normal_cdf(x):
    assert _close(q.norm_cdf(x), float(ndtr(x)))


@pytest.mark.parametrize("n", [1, 2, 5, 10, 31, 100, 1000, 12345, 10**6, 10**7])
@pytest.mark.parametrize("p", [0.5, 0.1, 0.9])
def test_binomial_cdf(n, p):
    """Against scipy.stats.binom (Boost): scipy.special.bdtr is off by 0.3% at n = 1e7, k = n/2 - 1."""
    ks = {0, 1, n // 3, n // 2 - 1, n // 2, n // 2 + int(3 * math.sqrt(n)), n - 1, n}
    want = [(k, float(stats.binom.cdf(k, n, p))) for k in sorted(k for k in ks if k >= 0)]
    bad = [(k, q.binom_cdf(k, n, p), w) for k, w in want if w > 1e-290 and not _close(q.binom_cdf(k, n, p), w)]
    assert bad == []


def test_mcnemar_scale_binomial():
    """The exact McNemar p at the centre of a large table, where the terms are many."""
    n = 2_000_001
    assert _close(q.binom_cdf(n // 2, n, 0.5), float(stats.binom.cdf(n // 2, n, 0.5)))
    assert q.binom_cdf(-1, 10, 0.5) == 0.0 and q.binom_cdf(10, 10, 0.5) == 1.0


@pytest.mark.parametrize("x", [0.0, 0.01, 0.5, 1.0, 3.84, 10.0, 50.0, 500.0])
def test_chi2_1_sf(x):
    assert _close(q.chi2_1_sf(x), float(chdtrc(1, x)))


@settings(max_examples=200, deadline=None)
@given(a=st.floats(0.05, 1e6), b=st.floats(0.05, 1e6), x=st.floats(1e-300, 1.0))  # normal floats
def test_ibeta_property(a, b, x):
    from scipy.special import betainc, betaincc

    low, high = q.ibeta(a, b, x)
    lw, hw = float(betainc(a, b, x)), float(betaincc(a, b, x))
    # each side is accurate where it is the smaller one; x itself is rounded, so allow for I's slope in x
    slack = 1e-12 + 4e-16 * (a + b) * 4
    if min(lw, hw) > 1e-290:
        side, want = (low, lw) if lw <= hw else (high, hw)
        assert abs(side - want) <= slack * want
