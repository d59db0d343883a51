"""Tests for evalstats_core.intervals: oracles (statsmodels, scipy), the seeds' worked numbers, properties."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from evalstats_core import EvalStatsError, Interval
from evalstats_core.intervals import (
    PROPORTION_METHODS,
    is_binary,
    normal_ci,
    proportion_ci,
    proportion_ci_arrays,
    score_kind,
    se_bernoulli,
    se_clt,
)


def _grid(seed: int = 20250101) -> tuple[np.ndarray, np.ndarray]:
    """Seeded random (k, n) cells plus the edges k = 0, k = n and n = 1."""
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 500, size=200)
    k = rng.integers(0, n + 1)
    edge_n = np.array([1, 1, 2, 2, 3, 10, 10, 100, 100, 5000])
    edge_k = np.array([0, 1, 0, 2, 0, 0, 10, 0, 100, 5000])
    return np.concatenate([k, edge_k]), np.concatenate([n, edge_n])


GRID_K, GRID_N = _grid()
CONFIDENCES = (0.8, 0.95, 0.99)

# ------------------------------------------------------------------------------------------------
# oracles
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("confidence", CONFIDENCES)
@pytest.mark.parametrize(
    ("ours", "theirs", "clip"),
    [("wald", "normal", True), ("wilson", "wilson", False), ("clopper_pearson", "beta", False)],
)
def test_matches_statsmodels_proportion_confint(ours, theirs, clip, confidence):
    # oracle: statsmodels.stats.proportion.proportion_confint(k, n, alpha=1-confidence, method=theirs)
    # (statsmodels clips the normal interval to [0, 1], so we compare wald with clip=True)
    low, high = proportion_ci_arrays(GRID_K, GRID_N, interval=ours, confidence=confidence, clip=clip)
    ref_low, ref_high = proportion_confint(GRID_K, GRID_N, alpha=1 - confidence, method=theirs)
    np.testing.assert_allclose(low, ref_low, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(high, ref_high, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("confidence", CONFIDENCES)
@pytest.mark.parametrize(("ours", "theirs"), [("clopper_pearson", "exact"), ("wilson", "wilson")])
def test_matches_scipy_binomtest(ours, theirs, confidence):
    # oracle: scipy.stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method=theirs)
    for k, n in zip(GRID_K[::4], GRID_N[::4], strict=True):
        ref = stats.binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method=theirs)
        got = proportion_ci(int(k), int(n), interval=ours, confidence=confidence)
        assert got.low == pytest.approx(ref.low, rel=1e-7, abs=1e-12), (k, n)
        assert got.high == pytest.approx(ref.high, rel=1e-7, abs=1e-12), (k, n)


@pytest.mark.parametrize("prior", [(1.0, 1.0), (0.5, 0.5), (2.0, 5.0)])
@pytest.mark.parametrize("confidence", CONFIDENCES)
def test_bayes_matches_scipy_beta_ppf(prior, confidence):
    # oracle: scipy.stats.beta.ppf([(1-c)/2, (1+c)/2], a + k, b + n - k), with the boundary kept:
    # low = 0 at k = 0 and high = 1 at k = n (as Clopper-Pearson), so 0% and 100% are covered
    a, b = prior
    low, high = proportion_ci_arrays(GRID_K, GRID_N, interval="bayes", confidence=confidence, prior=prior)
    tail = (1 - confidence) / 2
    want_low = np.where(GRID_K == 0, 0.0, stats.beta.ppf(tail, a + GRID_K, b + GRID_N - GRID_K))
    want_high = np.where(GRID_K == GRID_N, 1.0, stats.beta.ppf(1 - tail, a + GRID_K, b + GRID_N - GRID_K))
    np.testing.assert_allclose(low, want_low, rtol=1e-9)
    np.testing.assert_allclose(high, want_high, rtol=1e-9)
    assert (GRID_K == 0).any() and (GRID_K == GRID_N).any()  # the grid holds both edges


def test_wald_unclipped_is_the_plain_normal_formula():
    # hand formula p +/- z sqrt(p(1-p)/n), z from scipy.stats.norm.ppf (Miller 2024, Eq. 2-3)
    p = GRID_K / GRID_N
    half = stats.norm.ppf(0.975) * np.sqrt(p * (1 - p) / GRID_N)
    low, high = proportion_ci_arrays(GRID_K, GRID_N, interval="wald")
    np.testing.assert_allclose(low, p - half, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(high, p + half, rtol=1e-12, atol=1e-15)


def test_wald_fails_the_way_the_app_teaches():
    assert proportion_ci(0, 10, interval="wald") == (0.0, 0.0)  # zero width at 0/N
    assert proportion_ci(10, 10, interval="wald") == (1.0, 1.0)
    low, high = proportion_ci(1, 10, interval="wald")
    assert low < 0.0 < high  # leaves [0, 1]
    assert proportion_ci(1, 10, interval="wald", clip=True).low == 0.0


def test_edges_are_exact():
    for method in ("wilson", "clopper_pearson"):
        assert proportion_ci(0, 7, interval=method).low == 0.0
        assert proportion_ci(7, 7, interval=method).high == 1.0
    # Clopper-Pearson at n = 1: (alpha/2)^(1/n) form, e.g. k = 1 -> low = 0.025
    assert proportion_ci(1, 1, interval="clopper_pearson") == pytest.approx((0.025, 1.0))
    # Bayes keeps the edge at 0/n and n/n (the equal-tailed interval would exclude it, and never cover
    # a true accuracy of exactly 0 or 1); the other end is the Beta(1, 11) quantile at k = 0, n = 10
    low, high = proportion_ci(0, 10, interval="bayes")
    assert low == 0.0 and high == pytest.approx(1 - 0.025 ** (1 / 11))
    low, high = proportion_ci(10, 10, interval="bayes")
    assert high == 1.0 and low == pytest.approx(0.025 ** (1 / 11))


# ------------------------------------------------------------------------------------------------
# the seeds' worked numbers
# ------------------------------------------------------------------------------------------------


def test_seed_math_65_5_percent_of_5000():
    # seed 000, ch. 2: SE = 0.67%, 95% CI (64.2%, 66.8%)
    se = se_bernoulli(0.655, 5000)
    assert round(se * 100, 2) == 0.67
    low, high = normal_ci(0.655, se)
    assert (round(low * 100, 1), round(high * 100, 1)) == (64.2, 66.8)
    # the same from the count: 3275 correct out of 5000
    assert proportion_ci(3275, 5000, interval="wald") == pytest.approx((low, high), abs=1e-12)


def test_seed_humaneval_83_6_percent_of_164():
    # seed 000, ch. 2: SE = 2.89%, 95% CI (77.9%, 89.3%)
    se = se_bernoulli(0.836, 164)
    assert round(se * 100, 2) == 2.89
    low, high = normal_ci(0.836, se)
    assert (round(low * 100, 1), round(high * 100, 1)) == (77.9, 89.3)


def test_seed_atlas_ten_tasks():
    # seed 004: Atlas averages 63.6%, variance 0.0376, SE 0.0613, 95% CI (51.6%, 75.6%)
    atlas = [0.83, 0.45, 0.72, 0.69, 0.91, 0.30, 0.67, 0.51, 0.80, 0.48]
    assert round(np.var(atlas, ddof=1), 4) == 0.0376
    se = se_clt(atlas)
    assert round(se, 4) == 0.0613
    low, high = normal_ci(np.mean(atlas), se)
    assert (round(low * 100, 1), round(high * 100, 1)) == (51.6, 75.6)
    assert score_kind(atlas) == "continuous"


def test_seed_bowyer_bayes_interval_is_scipy_beta_interval():
    # seed 001: scipy.stats.beta(1+S, 1+(N-S)).interval(confidence=0.95)
    y = np.array([1, 0, 1, 1, 0, 1, 1, 1, 0, 1])
    s, n = int(y.sum()), y.size
    ref = stats.beta(1 + s, 1 + (n - s)).interval(confidence=0.95)
    assert proportion_ci(s, n, interval="bayes") == pytest.approx(ref, rel=1e-10)


# ------------------------------------------------------------------------------------------------
# standard errors and score kinds
# ------------------------------------------------------------------------------------------------


def test_se_clt_matches_numpy_and_bernoulli_on_binary_scores():
    rng = np.random.default_rng(7)
    scores = (rng.random(301) < 0.4).astype(float)
    n, p = scores.size, scores.mean()
    # oracle: scipy.stats.sem(scores) (ddof=1)
    assert se_clt(scores) == pytest.approx(stats.sem(scores), rel=1e-12)
    assert se_bernoulli(scores) == pytest.approx(math.sqrt(p * (1 - p) / n), rel=1e-12)
    assert se_bernoulli(scores) == pytest.approx(se_clt(scores) * math.sqrt((n - 1) / n), rel=1e-12)
    assert se_bernoulli(scores) == se_bernoulli(p, n)


def test_bernoulli_se_on_continuous_scores_is_too_wide_and_refused():
    rng = np.random.default_rng(8)
    scores = rng.beta(4, 3, size=500)  # partial credit
    assert score_kind(scores) == "continuous" and not is_binary(scores)
    # the Llama 3 error: p(1-p) is the largest variance a [0, 1] score with mean p can have
    assert se_bernoulli(scores.mean(), scores.size) > 1.5 * se_clt(scores)
    with pytest.raises(EvalStatsError, match=r"scores\[\d+\] is .*use se_clt"):
        se_bernoulli(scores)


def test_score_kind_and_is_binary():
    assert score_kind([0, 1, 1, 0]) == "binary" and is_binary([True, False])
    assert score_kind([1.0, 1.0]) == "binary"
    assert score_kind([0, 1, 0.5]) == "continuous"
    assert score_kind([0, 2]) == "continuous"
    with pytest.raises(EvalStatsError):
        is_binary([0, float("nan")])


def test_se_clt_needs_two_scores_and_constant_scores_give_zero():
    assert se_clt([0.7, 0.7, 0.7]) == 0.0
    with pytest.raises(EvalStatsError, match="at least 2"):
        se_clt([1.0])


def test_normal_ci_symmetric_and_uses_confidence():
    low, high = normal_ci(0.5, 0.1, confidence=0.9)
    assert isinstance(normal_ci(0.5, 0.1), Interval)
    assert (low + high) / 2 == pytest.approx(0.5)
    assert high - 0.5 == pytest.approx(stats.norm.ppf(0.95) * 0.1)
    with pytest.raises(EvalStatsError, match=r"se \(-0\.1\)"):
        normal_ci(0.5, -0.1)


# ------------------------------------------------------------------------------------------------
# validation messages
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((12, 10), {}, r"successes \(12\) must not be greater than n \(10\)"),
        ((-1, 10), {}, r"successes \(-1\) must not be negative"),
        ((0, 0), {}, r"n \(0\) must be at least 1"),
        ((1.5, 3), {}, r"successes \(1\.5\) must be a whole number"),
        ((1, 3), {"interval": "Wilson"}, r"interval \('Wilson'\) must be one of .*use 'wilson'"),
        ((1, 3), {"interval": "exact"}, r"'clopper_pearson'"),
        ((1, 3), {"interval": "jeffreys"}, r"prior=\(0\.5, 0\.5\)"),
        ((1, 3), {"confidence": 95}, r"confidence \(95\)"),
        ((1, 3), {"interval": "bayes", "prior": (0, 1)}, r"prior \(\(0, 1\)\)"),
    ],
)
def test_errors_repeat_the_value(args, kwargs, message):
    with pytest.raises(EvalStatsError, match=message):
        proportion_ci(*args, **kwargs)


def test_array_errors_name_the_position_and_scalar_wrapper_refuses_arrays():
    with pytest.raises(EvalStatsError, match=r"successes\[2\] \(12\) must not be greater than n \(10\)"):
        proportion_ci_arrays([1, 2, 12], 10)
    with pytest.raises(EvalStatsError, match="proportion_ci_arrays"):
        proportion_ci([1, 2], 10)
    with pytest.raises(EvalStatsError, match="do not broadcast"):
        proportion_ci_arrays([1, 2, 3], [4, 5])


# ------------------------------------------------------------------------------------------------
# properties
# ------------------------------------------------------------------------------------------------


@st.composite
def cells(draw, max_n: int = 2000):
    n = draw(st.integers(1, max_n))
    return draw(st.integers(0, n)), n


confidences = st.floats(0.8, 0.995)


@settings(max_examples=80, deadline=None)
@given(cell=cells(), confidence=confidences, method=st.sampled_from(PROPORTION_METHODS))
def test_interval_ordered_inside_unit_and_contains_estimate(cell, confidence, method):
    k, n = cell
    low, high = proportion_ci(k, n, interval=method, confidence=confidence)
    assert low <= high
    if method != "wald":
        assert 0.0 <= low and high <= 1.0
    if method != "bayes" or 0 < k < n:  # the equal-tailed posterior interval excludes 0/n and n/n
        assert low <= k / n <= high
    if method == "bayes":
        assert low <= (1 + k) / (2 + n) <= high  # the posterior mean


@settings(max_examples=80, deadline=None)
@given(cell=cells(), confidence=confidences, method=st.sampled_from(PROPORTION_METHODS))
def test_symmetric_under_swapping_right_and_wrong(cell, confidence, method):
    k, n = cell
    low, high = proportion_ci(k, n, interval=method, confidence=confidence, prior=(2.0, 3.0))
    mirror = proportion_ci(n - k, n, interval=method, confidence=confidence, prior=(3.0, 2.0))
    assert low == pytest.approx(1 - mirror.high, abs=1e-12)
    assert high == pytest.approx(1 - mirror.low, abs=1e-12)


@settings(max_examples=80, deadline=None)
@given(cell=cells(max_n=1000), confidence=confidences, method=st.sampled_from(PROPORTION_METHODS))
def test_width_shrinks_with_n_at_the_same_accuracy(cell, confidence, method):
    k, n = cell
    if method == "wald" and k in (0, n):
        return  # zero width at both sizes: Wald's collapse, tested above
    low, high = proportion_ci(k, n, interval=method, confidence=confidence)
    low4, high4 = proportion_ci(4 * k, 4 * n, interval=method, confidence=confidence)
    assert high4 - low4 < high - low


@settings(max_examples=50, deadline=None)
@given(cell=cells(), method=st.sampled_from(PROPORTION_METHODS))
def test_higher_confidence_gives_a_wider_interval(cell, method):
    k, n = cell
    narrow = proportion_ci(k, n, interval=method, confidence=0.9)
    wide = proportion_ci(k, n, interval=method, confidence=0.99)
    assert wide.low <= narrow.low and narrow.high <= wide.high


@pytest.mark.parametrize("method", PROPORTION_METHODS)
def test_vectorised_matches_the_scalar_loop(method):
    # the slow readable version (one call per cell) against one broadcast call
    low, high = proportion_ci_arrays(GRID_K[:, None], GRID_N[:, None] * np.array([1, 3]), interval=method)
    assert low.shape == high.shape == (GRID_K.size, 2)
    for i, (k, n) in enumerate(zip(GRID_K, GRID_N, strict=True)):
        for j, mult in enumerate((1, 3)):
            assert (low[i, j], high[i, j]) == proportion_ci(int(k), int(n) * mult, interval=method)


def test_import_does_not_load_scipy_stats():
    code = "import sys, evalstats_core.intervals; print('scipy.stats' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
