"""compare (unpaired / paired / clustered-paired), McNemar, Holm and Benjamini-Hochberg.

Oracles: statsmodels (cluster-robust OLS on the differences, mcnemar, multipletests) and scipy.stats;
worked numbers from seeds 000 (ch. 4) and 004 (Atlas / Breeze); hypothesis properties.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

import evalstats_core.comparison as comparison
from evalstats_core.clustering import summarize
from evalstats_core.comparison import compare, mcnemar, mcnemar_from_counts
from evalstats_core.errors import EvalStatsError, EvalStatsWarning
from evalstats_core.multiple import benjamini_hochberg, holm

ATLAS = [0.83, 0.45, 0.72, 0.69, 0.91, 0.30, 0.67, 0.51, 0.80, 0.48]
BREEZE = [0.89, 0.58, 0.74, 0.56, 0.94, 0.35, 0.80, 0.59, 0.88, 0.53]


def statsmodels_cluster_se(y, groups):
    """Oracle: OLS of y on a constant, cov_type="cluster" (CR1)."""
    import statsmodels.api as sm

    # sm.OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": groups}).bse[0]
    fit = sm.OLS(np.asarray(y, float), np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": groups})
    return float(fit.bse[0])


def two_models(seed, n_clusters=40):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 10, n_clusters)
    codes = np.repeat(np.arange(n_clusters), sizes)
    difficulty = rng.random(n_clusters)[codes] + 0.3 * rng.random(codes.size)
    a = (difficulty + 0.4 * rng.random(codes.size) > 0.9).astype(float)
    b = (difficulty + 0.4 * rng.random(codes.size) > 1.0).astype(float)
    return a, b, codes


# ---------------------------------------------------------------- worked numbers


def test_atlas_breeze_unpaired():
    """Seed 004: unpaired SE 0.0864, CI [-21.9%, 11.9%]; each model's SE about 6.1%."""
    c = compare(ATLAS, BREEZE, paired=False, method="cr1")
    assert round(c.diff, 3) == -0.050
    assert round(c.se, 4) == 0.0864 and c.se == c.se_unpaired
    assert (round(c.ci_low, 3), round(c.ci_high, 3)) == (-0.219, 0.119)
    assert round(summarize(BREEZE).se, 3) == 0.061
    assert math.isnan(c.se_paired) and math.isnan(c.correlation) and math.isnan(c.variance_removed)
    assert c.p_value > 0.05 and not c.paired


def test_atlas_breeze_paired():
    """Seed 004: paired SE 0.0232, CI [-9.5%, -0.5%], correlation 0.93, 93% of the variance removed."""
    c = compare(ATLAS, BREEZE, method="cr1")
    assert round(c.se, 4) == 0.0232 and c.se == c.se_paired
    assert (round(c.ci_low, 3), round(c.ci_high, 3)) == (-0.095, -0.005)
    assert round(c.correlation, 2) == 0.93
    assert round(c.variance_removed, 2) == 0.93
    assert round(1 - c.se_paired / c.se_unpaired, 2) == 0.73  # "a 73% reduction in standard error"
    assert round(c.se_unpaired, 4) == 0.0864
    assert c.p_value < 0.05 and c.z < 0
    assert (round(c.mean_a, 3), round(c.mean_b, 3)) == (0.636, 0.686)


def test_paired_se_equals_the_correlation_formula():
    """Seed 000 ch. 4 / Miller Sec. 4.2: SE_paired^2 = SE_A^2 + SE_B^2 - 2 rho SE_A SE_B."""
    c = compare(ATLAS, BREEZE)
    sa, sb = summarize(ATLAS).se, summarize(BREEZE).se
    assert c.se_paired**2 == pytest.approx(sa**2 + sb**2 - 2 * c.correlation * sa * sb, rel=1e-12)


def test_galleon_dreadnought_gap():
    """Seed 000 ch. 4: SEs 0.67% each, rho = 0.5 -> paired SE 0.67%, CI on 2.5% gap (1.2%, 3.8%)."""
    se_paired = math.sqrt(0.0067**2 * 2 - 2 * 0.0067 * 0.0067 * 0.5)
    assert round(se_paired, 4) == 0.0067
    assert round(math.hypot(0.0067, 0.0067), 4) == 0.0095
    # the same through compare: data with those moments (n=5000, 65.5% vs 63.0%)
    rng = np.random.default_rng(0)
    shared = rng.random(5000)
    a = (shared < 0.655).astype(float)
    b = a.copy()
    flip = rng.permutation(5000)[:2250]  # break part of the agreement
    b[flip] = (rng.random(2250) < 0.63).astype(float)
    c = compare(a, b)
    assert c.se_paired == pytest.approx(
        math.sqrt(
            summarize(a).se ** 2
            + summarize(b).se ** 2
            - 2 * c.correlation * summarize(a).se * summarize(b).se
        )
    )


# ---------------------------------------------------------------- oracles


def test_paired_unclustered_matches_scipy_ttest_rel_se():
    from scipy import stats

    a, b, _ = two_models(1)
    c = compare(a, b)
    t = stats.ttest_rel(a, b)  # t = mean(d) / (sd(d)/sqrt(n))
    assert c.z == pytest.approx(t.statistic, rel=1e-10)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_clustered_paired_matches_statsmodels(seed):
    a, b, codes = two_models(seed)
    labels = np.array([f"doc{c}" for c in codes], dtype=object)
    c = compare(a, b, labels, method="cr1")
    assert c.se_paired == pytest.approx(statsmodels_cluster_se(a - b, codes), rel=1e-10)
    se_a, se_b = statsmodels_cluster_se(a, codes), statsmodels_cluster_se(b, codes)
    assert c.se_unpaired == pytest.approx(math.hypot(se_a, se_b), rel=1e-10)
    assert c.n_clusters == 40 and c.clustered
    from scipy import stats

    assert c.p_value == pytest.approx(2 * stats.norm.sf(abs(c.diff / c.se)), rel=1e-10)


def test_unpaired_lengths_may_differ():
    c = compare(ATLAS, BREEZE[:7], paired=False)
    assert c.n == 10 and c.n_b == 7
    assert c.se == pytest.approx(math.hypot(summarize(ATLAS).se, summarize(BREEZE[:7]).se))


def test_unpaired_clustered_uses_clustered_ses():
    a, b, codes = two_models(4)
    c = compare(a, b, codes, paired=False)
    assert c.se == pytest.approx(math.hypot(summarize(a, codes).se, summarize(b, codes).se), rel=1e-12)


# ---------------------------------------------------------------- properties


pairs = st.integers(3, 50).flatmap(
    lambda n: st.tuples(
        arrays(np.float64, n, elements=st.floats(0, 1, allow_subnormal=False)),
        arrays(np.float64, n, elements=st.floats(0, 1, allow_subnormal=False)),
    )
)


@settings(max_examples=60, deadline=None)
@given(pairs)
def test_paired_not_wider_when_correlation_positive(ab):
    a, b = ab
    c = compare(a, b)
    # Var(d) = Va + Vb - 2 cov: pairing narrows exactly when the correlation is positive
    if c.correlation > 1e-9:
        assert c.se_paired <= c.se_unpaired * (1 + 1e-12)
        assert c.variance_removed >= -1e-12
    elif c.correlation < -1e-9:
        assert c.se_paired >= c.se_unpaired * (1 - 1e-12)


@settings(max_examples=60, deadline=None)
@given(pairs, st.data())
def test_clustered_paired_equals_slow_loop_and_summarize_of_differences(ab, data):
    a, b = ab
    n = a.size
    codes = np.array(data.draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)))
    if np.unique(codes).size < 2:
        codes[0], codes[-1] = 0, 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        c = compare(a, b, codes, method="cr1")
        s = summarize(a - b, codes, method="cr1")
        c2, s2 = compare(a, b, codes), summarize(a - b, codes)  # CR2: the same identity holds
    assert c2.se_paired == pytest.approx(s2.se, rel=1e-9, abs=1e-12) and c2.df == pytest.approx(s2.df, rel=1e-12)
    d = a - b
    total = sum((d[codes == g] - d.mean()).sum() ** 2 for g in np.unique(codes))  # slow loop
    k = np.unique(codes).size
    assert c.se_paired == pytest.approx(math.sqrt(k / (k - 1) * total) / n, rel=1e-9, abs=1e-12)
    assert c.se_paired == pytest.approx(s.se, rel=1e-9, abs=1e-12)
    assert c.diff == pytest.approx(s.mean, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(pairs, st.data())
def test_compare_permutation_invariance_and_antisymmetry(ab, data):
    a, b = ab
    perm = np.array(data.draw(st.permutations(range(a.size))))
    c1, c2, c3 = compare(a, b), compare(a[perm], b[perm]), compare(b, a)
    assert c1.se == pytest.approx(c2.se, rel=1e-9, abs=1e-12)
    assert c1.diff == pytest.approx(-c3.diff, abs=1e-12)
    assert c1.se == pytest.approx(c3.se, rel=1e-12, abs=1e-15)
    if not math.isnan(c1.p_value):
        assert c1.p_value == pytest.approx(c3.p_value, rel=1e-9)


# ---------------------------------------------------------------- edges and errors


def test_identical_models_have_undefined_z_and_p_1():
    """No t statistic, and p = 1 (issue 46: it was nan): every relabelling of the exact test gives the same 0."""
    c = compare(ATLAS, ATLAS)
    assert c.diff == 0.0 and c.se == 0.0
    assert math.isnan(c.z) and c.p_value == 1.0
    assert c.correlation == pytest.approx(1.0)


def test_constant_difference_gives_the_exact_sign_flip_p_never_zero():
    b = np.array([0.0, 0.5, 0.25, 1.0, 0.75, 0.5])  # binary fractions: a - b is exactly 0.25
    for method in ("cr2", "cr1"):
        c = compare(b + 0.25, b, method=method)
        assert c.se == 0.0 and c.z == math.inf
        assert c.p_value == 2 / 2**6  # only the all-plus and all-minus sign vectors reach |0.25|
    # 5/5 vs 0/5 with the t interval: the exact McNemar p (scipy.stats.binomtest(5, 5).pvalue = 0.0625);
    # the default for 0/1 scores is Tango's score test instead, McNemar's z with the continuity correction of
    # half an answer that 5 discordant answers get (one from 10 on): (5 - 0.5) / sqrt(5)
    c = compare([1] * 5, [0] * 5, interval="normal")
    assert c.p_value == pytest.approx(stats.binomtest(5, 5).pvalue, rel=1e-12) == 0.0625
    c = compare([1] * 5, [0] * 5)
    assert c.interval == "tango" and c.p_value == pytest.approx(2 * stats.norm.sf(4.5 / 5**0.5), rel=1e-12)
    # clustered: sign flips of the 3 clusters, 2 / 2^3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        c = compare([1] * 6, [0] * 6, [0, 0, 1, 1, 2, 2], interval="normal")
    assert c.p_value == 0.25
    # unpaired, both constant: the split that reaches |diff| (and its mirror), 2 / binom(10, 5)
    c = compare([1] * 5, [0] * 5, paired=False)
    assert c.p_value == pytest.approx(2 / math.comb(10, 5)) and c.z == math.inf
    # nothing differs at all: p = 1 (issue 46: it was nan)
    assert compare([1] * 5, [1] * 5).p_value == 1.0


def test_default_is_the_paired_t_test_and_welch():
    # oracle: scipy.stats.ttest_rel / ttest_ind(equal_var=False) (the t-tests); seed 004's 10 tasks
    c = compare(ATLAS, BREEZE)
    t = stats.ttest_rel(ATLAS, BREEZE)
    assert c.df == 9.0 and c.method == "cr2"
    assert c.z == pytest.approx(t.statistic, rel=1e-12) and c.p_value == pytest.approx(t.pvalue, rel=1e-10)
    low, high = t.confidence_interval(0.95)
    assert (c.ci_low, c.ci_high) == pytest.approx((low, high), rel=1e-10)
    assert round(c.p_value, 3) == 0.059 and c.ci_low < 0 < c.ci_high  # the z test said p = 0.031
    assert round(compare(ATLAS, BREEZE, method="cr1").p_value, 3) == 0.031
    u = compare(ATLAS, BREEZE[:7], paired=False)
    w = stats.ttest_ind(ATLAS, BREEZE[:7], equal_var=False)
    assert u.z == pytest.approx(w.statistic, rel=1e-12) and u.p_value == pytest.approx(w.pvalue, rel=1e-10)
    assert (u.ci_low, u.ci_high) == pytest.approx(tuple(w.confidence_interval(0.95)), rel=1e-10)


def test_method_is_checked():
    with pytest.raises(EvalStatsError, match="'cr2'.*'cr1'"):
        compare(ATLAS, BREEZE, method="CR2")


def test_constant_model_has_nan_correlation():
    c = compare([0.5] * 10, BREEZE)
    assert math.isnan(c.correlation)
    assert c.variance_removed == pytest.approx(0.0, abs=1e-12)


def test_unequal_lengths_paired_names_the_fix():
    with pytest.raises(EvalStatsError, match=r"a has 10 scores but b has 7.*paired=False"):
        compare(ATLAS, BREEZE[:7])


def test_clusters_require_equal_lengths_even_unpaired():
    with pytest.raises(EvalStatsError, match="b has 7"):
        compare(ATLAS, BREEZE[:7], list(range(10)), paired=False)


@pytest.mark.parametrize(
    ("a", "b", "clusters", "pattern"),
    [
        ([0.5], [0.5], None, "at least 2 questions"),
        (ATLAS, BREEZE, ["x"] * 10, "1 distinct label"),
        (ATLAS, BREEZE, [0] * 9, r"shape \(9,\)"),
        (ATLAS, BREEZE[:9] + [float("nan")], None, r"b\[9\] is nan"),
    ],
)
def test_bad_input(a, b, clusters, pattern):
    with pytest.raises(EvalStatsError, match=pattern):
        compare(a, b, clusters)


def test_few_clusters_warn():
    with pytest.warns(EvalStatsWarning, match="only 5 clusters"):
        c = compare(ATLAS, BREEZE, np.arange(10) // 2)
    assert c.warnings and c.n_clusters == 5


def test_no_clusters_never_touches_the_cluster_path(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("cluster path used")

    monkeypatch.setattr(comparison, "codes_and_sizes", boom)
    assert compare(ATLAS, BREEZE).n_clusters == 10
    assert compare([1, 0, 1, 1], [0, 0, 1, 1]).n_clusters == 4  # the 0/1 path too


def test_cluster_codes_computed_once_per_compare(monkeypatch):
    calls = []
    real = comparison.codes_and_sizes

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(comparison, "codes_and_sizes", counting)
    a, b, codes = two_models(3)
    compare(a, b, codes)
    compare((a > 0.5).astype(float), (b > 0.5).astype(float), codes)  # the 0/1 path
    assert len(calls) == 2


def test_result_fields_are_plain_python():
    c = compare(ATLAS, BREEZE)
    for name in (
        "diff",
        "se",
        "ci_low",
        "ci_high",
        "z",
        "p_value",
        "se_unpaired",
        "se_paired",
        "correlation",
        "variance_removed",
        "mean_a",
        "mean_b",
    ):
        assert type(getattr(c, name)) is float, name
    assert c.ci == (c.ci_low, c.ci_high)
    with pytest.raises(AttributeError):
        c.diff = 0.0  # type: ignore[misc]


# ---------------------------------------------------------------- McNemar


def test_mcnemar_seed_counts():
    """Seed 000 ch. 4: 3000 / 275 / 150 / 1575 -> chi2 = 125^2 / 425 = 36.76, p < 0.001."""
    r = mcnemar_from_counts(3000, 275, 150, 1575)
    assert round(r.statistic, 2) == 36.76
    assert r.p_value < 0.001 and r.p_exact < 0.001
    assert r.n == 5000 and r.discordant == 425


def test_mcnemar_from_scores_builds_the_table():
    a = np.r_[np.ones(3000), np.ones(275), np.zeros(150), np.zeros(1575)]
    b = np.r_[np.ones(3000), np.zeros(275), np.ones(150), np.zeros(1575)]
    r = mcnemar(a, b)
    assert (r.both, r.only_a, r.only_b, r.neither) == (3000, 275, 150, 1575)
    assert r == mcnemar(a.astype(bool), b.astype(bool)) == mcnemar(a.astype(int).tolist(), b.astype(int))


@pytest.mark.parametrize("cells", [(3000, 275, 150, 1575), (10, 3, 9, 4), (5, 0, 4, 1), (7, 12, 12, 2)])
def test_mcnemar_matches_statsmodels(cells):
    from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

    both, only_a, only_b, neither = cells
    table = [[both, only_a], [only_b, neither]]
    r = mcnemar_from_counts(*cells)
    approx = sm_mcnemar(table, exact=False, correction=False)  # chi2 = (b-c)^2/(b+c), 1 df
    exact = sm_mcnemar(table, exact=True)  # two-sided binomial on the discordant cells
    assert r.statistic == pytest.approx(approx.statistic, rel=1e-12)
    assert r.p_value == pytest.approx(approx.pvalue, rel=1e-10)
    assert r.p_exact == pytest.approx(exact.pvalue, rel=1e-10)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60))
def test_mcnemar_exact_matches_scipy_binomtest(only_a, only_b):
    from scipy import stats

    r = mcnemar_from_counts(5, only_a, only_b, 5)
    if only_a + only_b == 0:
        assert r.p_exact == 1.0 and math.isnan(r.statistic) and math.isnan(r.p_value)
    else:
        # stats.binomtest(only_a, only_a + only_b, 0.5).pvalue (two-sided)
        assert r.p_exact == pytest.approx(stats.binomtest(only_a, only_a + only_b, 0.5).pvalue, rel=1e-9)
        assert r.p_value == pytest.approx(stats.chi2.sf(r.statistic, 1), rel=1e-9, abs=1e-300)


def test_mcnemar_rejects_partial_credit_and_names_compare():
    with pytest.raises(EvalStatsError, match=r"a\[0\] is 0.83.*compare\(a, b\)"):
        mcnemar(ATLAS, BREEZE)
    with pytest.raises(EvalStatsError, match=r"b\[1\] is nan"):
        mcnemar([1, 0, 1], [1, float("nan"), 0])
    with pytest.raises(EvalStatsError, match="same questions"):
        mcnemar([1, 0, 1], [1, 0])


@pytest.mark.parametrize("cells", [(-1, 2, 3, 4), (1, 2.5, 3, 4), (1, 2, "x", 4)])
def test_mcnemar_from_counts_rejects_bad_counts(cells):
    with pytest.raises(EvalStatsError):
        mcnemar_from_counts(*cells)


# ---------------------------------------------------------------- Holm and Benjamini-Hochberg

p_lists = st.lists(st.floats(0, 1, allow_subnormal=False), min_size=1, max_size=30)


@settings(max_examples=25, deadline=None)  # multipletests costs ~30 ms a call
@given(p_lists)
def test_holm_and_bh_match_statsmodels(ps):
    from statsmodels.stats.multitest import multipletests

    # multipletests(ps, method="holm")[1] and multipletests(ps, method="fdr_bh")[1]
    np.testing.assert_allclose(holm(ps), multipletests(ps, method="holm")[1], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        benjamini_hochberg(ps), multipletests(ps, method="fdr_bh")[1], rtol=1e-12, atol=1e-15
    )


@settings(max_examples=50, deadline=None)
@given(p_lists)
def test_adjusted_p_values_are_monotone_and_not_smaller(ps):
    p = np.array(ps)
    for adjusted in (holm(p), benjamini_hochberg(p)):
        assert np.all(adjusted >= p - 1e-15) and np.all(adjusted <= 1.0)
        order = np.argsort(p, kind="stable")
        assert np.all(np.diff(adjusted[order]) >= -1e-15)
    assert np.all(benjamini_hochberg(p) <= holm(p) + 1e-15)  # BH is never stricter than Holm


def test_holm_worked_example():
    """Holm by hand: sorted 0.01, 0.03, 0.04 -> 3x0.01, max(0.03, 2x0.03), max(0.06, 1x0.04)."""
    assert holm([0.04, 0.01, 0.03]).tolist() == pytest.approx([0.06, 0.03, 0.06])
    assert benjamini_hochberg([0.04, 0.01, 0.03]).tolist() == pytest.approx([0.04, 0.03, 0.04])


@pytest.mark.parametrize("bad", [[0.1, 1.2], [float("nan")], [-0.1], [[0.1, 0.2]]])
def test_p_value_adjustment_rejects_bad_input(bad):
    with pytest.raises(EvalStatsError, match="p_values"):
        holm(bad)
    with pytest.raises(EvalStatsError, match="p_values"):
        benjamini_hochberg(bad)


def test_empty_p_values_give_empty_arrays():
    assert holm([]).shape == (0,) and benjamini_hochberg([]).shape == (0,)
