"""The temperature trap: closed forms at T = 1 and T -> 0, the quadrature curve, the exact histogram.

Oracles: scipy.stats distributions for the closed-form moments, scipy.integrate.quad for the curve,
a seeded Monte Carlo sample for the histogram. Worked numbers: Miller 2024, Sec. 3.3.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import integrate, stats
from scipy.special import expit, logit

from evalstats_core.errors import EvalStatsError
from evalstats_core.temperature import (
    BetaDifficulty,
    UniformDifficulty,
    temperature_curve,
    temperature_histogram,
    temperature_limits,
    temperature_scale,
)

DISTRIBUTIONS = [
    UniformDifficulty(),
    UniformDifficulty(1 / 3, 1),
    UniformDifficulty(0.55, 0.9),
    BetaDifficulty(0.3, 0.7),
    BetaDifficulty(5, 2),
    BetaDifficulty(0.1, 0.1),
]


def scipy_dist(d):
    if isinstance(d, UniformDifficulty):
        return stats.uniform(d.low, d.high - d.low)
    return stats.beta(d.alpha, d.beta)


def quad_moments(d, t):
    """Oracle: adaptive quadrature over the quantile u = F(x) (no singular density), break at F(1/2)."""
    dist = scipy_dist(d)
    kw = {"points": [float(dist.cdf(0.5))], "limit": 500, "epsabs": 1e-13, "epsrel": 1e-12}
    x_t = lambda u: expit(logit(dist.ppf(u)) / t)  # noqa: E731
    # integrate.quad(lambda u: g(x_T(F^-1(u))), 0, 1, points=[F(1/2)])
    e1 = integrate.quad(lambda u: x_t(u), 0, 1, **kw)[0]
    e2 = integrate.quad(lambda u: x_t(u) ** 2, 0, 1, **kw)[0]
    es = integrate.quad(lambda u: x_t(u) * (1 - x_t(u)), 0, 1, **kw)[0]
    return e1, e2 - e1 * e1, es


# ---------------------------------------------------------------- worked numbers (Sec. 3.3)
def test_uniform_0_1_var_triples_mean_stays():
    lim = temperature_limits(UniformDifficulty())
    assert (lim.mean_t1, lim.mean_t0) == (pytest.approx(0.5), pytest.approx(0.5))
    assert lim.var_x_t1 == pytest.approx(1 / 12, rel=1e-15)
    assert lim.var_x_t0 == pytest.approx(1 / 4, rel=1e-15)
    assert lim.mean_sigma2_t1 == pytest.approx(1 / 6, rel=1e-15)
    assert lim.mean_sigma2_t0 == 0.0
    assert lim.total_variance_t1 == pytest.approx(1 / 4) and lim.total_variance_t0 == pytest.approx(1 / 4)
    assert lim.var_x_ratio == pytest.approx(3.0)
    assert lim.bias == pytest.approx(0.0, abs=1e-15)


def test_uniform_third_to_one_biases_the_mean_and_grows_var_five_fold():
    lim = temperature_limits(UniformDifficulty(1 / 3, 1))
    assert lim.mean_t1 == pytest.approx(2 / 3, rel=1e-15)
    assert lim.mean_t0 == pytest.approx(3 / 4, rel=1e-15)
    assert lim.var_x_t1 == pytest.approx(1 / 27, rel=1e-14)
    assert lim.var_x_t0 == pytest.approx(3 / 16, rel=1e-15)
    assert lim.bias == pytest.approx(1 / 12)  # "shifts by 8 percentage points"
    assert lim.var_x_ratio == pytest.approx(81 / 16)  # "approximately five-fold"


@pytest.mark.parametrize("d", DISTRIBUTIONS, ids=repr)
def test_closed_forms_match_scipy_stats(d):
    dist = scipy_dist(d)
    # dist.mean(), dist.var(), dist.expect(lambda x: x * (1 - x))
    assert d.mean == pytest.approx(dist.mean(), rel=1e-12)
    assert d.var_x == pytest.approx(dist.var(), rel=1e-12)
    assert d.mean_sigma2 == pytest.approx(dist.expect(lambda x: x * (1 - x)), rel=1e-8)
    np.testing.assert_allclose(d.cdf([0.1, 0.5, 0.8]), dist.cdf([0.1, 0.5, 0.8]), rtol=1e-12)


def test_beta_1_1_is_uniform():
    b, u = BetaDifficulty(1, 1), UniformDifficulty()
    assert (b.mean, b.var_x, b.mean_sigma2) == pytest.approx((u.mean, u.var_x, u.mean_sigma2))
    np.testing.assert_allclose(
        temperature_curve(b, [0.3, 0.7]).var_x, temperature_curve(u, [0.3, 0.7]).var_x, rtol=1e-10
    )


# ---------------------------------------------------------------- the curve
@pytest.mark.parametrize("d", DISTRIBUTIONS, ids=repr)
def test_curve_matches_adaptive_quadrature(d):
    temps = [1.0, 0.5, 0.1, 0.01]
    curve = temperature_curve(d, temps)
    for i, t in enumerate(temps):
        e1, var, es = quad_moments(d, t)
        assert curve.mean[i] == pytest.approx(e1, abs=1e-9)
        assert curve.var_x[i] == pytest.approx(var, abs=1e-9)
        assert curve.mean_sigma2[i] == pytest.approx(es, abs=1e-9)


@pytest.mark.parametrize("d", DISTRIBUTIONS, ids=repr)
def test_curve_reaches_the_closed_forms_at_both_ends(d):
    lim = temperature_limits(d)
    c = temperature_curve(d, [1.0, 1e-7, 0.0])
    assert c.mean[0] == pytest.approx(lim.mean_t1, abs=1e-12)
    assert c.var_x[0] == pytest.approx(lim.var_x_t1, abs=1e-12)
    assert c.mean_sigma2[0] == pytest.approx(lim.mean_sigma2_t1, abs=1e-12)
    # T -> 0: the mean converges as O(T^2), the variances as O(T)
    assert c.mean[1] == pytest.approx(lim.mean_t0, abs=1e-10)
    assert c.var_x[1] == pytest.approx(lim.var_x_t0, abs=1e-6)
    assert c.mean_sigma2[1] == pytest.approx(0.0, abs=1e-6)
    assert (c.mean[2], c.var_x[2], c.mean_sigma2[2]) == (
        pytest.approx(lim.mean_t0, abs=1e-15),
        pytest.approx(lim.var_x_t0, abs=1e-15),
        0.0,
    )


def test_default_grid_and_frame():
    c = temperature_curve(UniformDifficulty())
    assert len(c.temperature) == 50 and c.temperature[0] == pytest.approx(0.02) and c.temperature[-1] == 1.0
    frame = c.to_frame()
    assert list(frame.columns) == ["temperature", "mean", "var_x", "mean_sigma2", "total_variance"]
    assert len(frame) == 50


@settings(max_examples=40, deadline=None)
@given(
    a=st.floats(0.05, 20),
    b=st.floats(0.05, 20),
    temps=st.lists(st.floats(1e-3, 1.5), min_size=2, max_size=10),
)
def test_variance_components_add_up_and_noise_shrinks_with_t(a, b, temps):
    temps = np.sort(np.asarray(temps))
    c = temperature_curve(BetaDifficulty(a, b), temps)
    # Var(x_T) + E[x_T(1-x_T)] = E[x_T](1 - E[x_T]), computed from separate quadratures
    np.testing.assert_allclose(np.add(c.var_x, c.mean_sigma2), c.total_variance, atol=1e-9)
    assert np.all(np.diff(c.mean_sigma2) >= -1e-10)  # sharper answers: less noise within a question


@settings(max_examples=30, deadline=None)
@given(a=st.floats(0.05, 20), half=st.floats(0.01, 0.5), t=st.floats(1e-3, 1.0))
def test_symmetric_difficulty_keeps_the_mean_at_one_half(a, half, t):
    assert temperature_curve(BetaDifficulty(a, a), [t]).mean[0] == pytest.approx(0.5, abs=1e-10)
    u = UniformDifficulty(0.5 - half, 0.5 + half)
    assert temperature_curve(u, [t]).mean[0] == pytest.approx(0.5, abs=1e-10)


# ---------------------------------------------------------------- the transform and the histogram
def test_temperature_scale_end_points():
    x = np.array([0.0, 0.2, 0.5, 0.7, 1.0])
    np.testing.assert_allclose(temperature_scale(x, 1.0), x, atol=1e-15)
    assert temperature_scale(x, 0.0).tolist() == [0.0, 0.0, 0.5, 1.0, 1.0]
    assert temperature_scale(0.8, 0.5) == pytest.approx(0.8**2 / (0.8**2 + 0.2**2))  # odds squared


@settings(max_examples=50, deadline=None)
@given(x=st.lists(st.floats(0, 1), min_size=2, max_size=20), t=st.floats(0, 3))
@example(x=[0.0, 1e-17], t=3.0)  # 1 - 1e-17 rounds to 1: the mirror of x must be exact for the identity to hold
def test_temperature_scale_is_monotone_and_symmetric(x, t):
    x = 1.0 - (1.0 - np.sort(np.asarray(x)))  # points whose mirror 1 - x is exact in floating point
    y = temperature_scale(x, t)
    assert np.all(np.diff(y) >= 0)
    np.testing.assert_allclose(temperature_scale(1 - x, t), 1 - y, atol=1e-12)


@pytest.mark.parametrize("d", [UniformDifficulty(1 / 3, 1), BetaDifficulty(0.5, 2)], ids=repr)
def test_histogram_matches_a_seeded_sample(d):
    temps = [1.0, 0.4, 0.05, 0.0]
    h = temperature_histogram(d, temps, bins=10)
    share = np.asarray(h.share)
    np.testing.assert_allclose(share.sum(axis=1), 1.0, atol=1e-12)
    x = d.sample(200_000, rng=7)
    for i, t in enumerate(temps):
        counts, _ = np.histogram(temperature_scale(x, t), bins=np.asarray(h.edges))
        # binomial sd of a share <= 0.5/sqrt(200000) ~ 0.0011; allow 5 sd
        np.testing.assert_allclose(share[i], counts / x.size, atol=0.006)


def test_histogram_at_t0_has_only_the_end_bins_and_frame_is_tidy():
    h = temperature_histogram(UniformDifficulty(1 / 3, 1), [0.0, 1.0], bins=4)
    assert h.share[0] == pytest.approx((0.25, 0.0, 0.0, 0.75))
    frame = h.to_frame()
    assert list(frame.columns) == ["temperature", "bin_low", "bin_high", "share", "density"]
    assert len(frame) == 8
    np.testing.assert_allclose(frame["density"], frame["share"] * 4)


def test_samples_are_seeded():
    d = BetaDifficulty(2, 3)
    np.testing.assert_array_equal(d.sample(5, rng=1), d.sample(5, rng=1))


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: UniformDifficulty(0.6, 0.4), "low < high"),
        (lambda: UniformDifficulty(-0.1, 0.5), "low < high"),
        (lambda: BetaDifficulty(0, 1), r"alpha \(0.0\)"),
        (lambda: BetaDifficulty(1, float("nan")), "finite"),
        (lambda: temperature_curve(UniformDifficulty(), [-0.5]), r"-0\.5"),
        (lambda: temperature_curve(UniformDifficulty(), [np.nan]), ">= 0"),
        (lambda: temperature_curve(UniformDifficulty(), []), "empty"),
        (lambda: temperature_curve((0, 1), [1.0]), "UniformDifficulty"),
        (lambda: temperature_limits("uniform"), "BetaDifficulty"),
        (lambda: temperature_histogram(UniformDifficulty(), [1.0], bins=0), "bins"),
        (lambda: temperature_scale(1.5, 1.0), r"\[0, 1\]"),
    ],
)
def test_errors_name_the_value_and_fix(call, match):
    with pytest.raises(EvalStatsError, match=match):
        call()
