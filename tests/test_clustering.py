"""summarize (CLT and CR1 standard errors), ICC, design effect and the cluster bootstrap.

Three layers: statsmodels as an oracle, the seeds' worked numbers, and hypothesis properties (with a
slow per-cluster loop held against the fast bincount kernel).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import evalstats_core.cluster_bootstrap as cluster_bootstrap
import evalstats_core.clustering as clustering
from evalstats_core.clustering import summarize
from evalstats_core.errors import EvalStatsError, EvalStatsWarning

ATLAS = [0.83, 0.45, 0.72, 0.69, 0.91, 0.30, 0.67, 0.51, 0.80, 0.48]


def statsmodels_cluster_se(scores, codes):
    """Oracle: OLS of the scores on a constant with a cluster-robust (CR1) covariance."""
    import statsmodels.api as sm

    # sm.OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": codes}) -> CR1 with G/(G-1)
    fit = sm.OLS(np.asarray(scores, float), np.ones(len(scores))).fit(
        cov_type="cluster", cov_kwds={"groups": np.asarray(codes)}
    )
    return float(fit.bse[0])


def slow_cr1(scores, labels):
    """Readable reference: loop over clusters with a boolean mask."""
    scores = np.asarray(scores, float)
    labels = np.asarray(labels)
    mean = scores.mean()
    groups = list(dict.fromkeys(labels.tolist()))
    total = 0.0
    for g in groups:
        mask = labels == g
        total += (scores[mask] - mean).sum() ** 2
    c, n = len(groups), len(scores)
    return math.sqrt(c / (c - 1) * total) / n


def clustered_data(seed, n_clusters=40, unequal=True):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, n_clusters) if unequal else np.full(n_clusters, 6)
    codes = np.repeat(np.arange(n_clusters), sizes)
    scores = (rng.random(n_clusters)[codes] + 0.5 * rng.random(codes.size) > 0.8).astype(float)
    return scores, codes


# ---------------------------------------------------------------- worked numbers (seeds 000, 004)


def test_atlas_worked_numbers():
    """Seed 004: mean 0.636, variance 0.0376, SD 0.194, SE 0.0613, 95% CI [51.6%, 75.6%]."""
    s = summarize(ATLAS, method="cr1")
    assert s.n == 10 and s.n_clusters == 10
    assert round(s.mean, 3) == 0.636
    assert round(s.se**2 * s.n, 4) == 0.0376  # sample variance (ddof=1)
    assert round(s.se * math.sqrt(s.n), 3) == 0.194  # SD
    assert round(s.se, 4) == 0.0613
    assert (round(s.ci_low, 3), round(s.ci_high, 3)) == (0.516, 0.756)
    assert s.se_naive == s.se and s.deff == 1.0 and s.n_eff == 10.0
    assert s.ci == (s.ci_low, s.ci_high)


def test_math_and_humaneval_binary_se():
    """Seed 000 ch. 2: MATH 65.5% of 5,000 -> SE 0.67%, CI (64.2%, 66.8%); HumanEval 83.6% of 164 -> 2.89%.

    The CLT SE of 0/1 scores is the Bernoulli SE times sqrt(n/(n-1)).
    """
    math_scores = np.r_[np.ones(3275), np.zeros(1725)]
    s = summarize(math_scores, method="cr1")
    assert round(s.mean, 3) == 0.655
    assert round(s.se, 4) == 0.0067
    assert (round(s.ci_low, 3), round(s.ci_high, 3)) == (0.642, 0.668)
    he = np.r_[np.ones(137), np.zeros(27)]  # 137/164 = 83.5%, the seed's 83.6% rounded
    s = summarize(he, method="cr1")
    bernoulli = s.se * math.sqrt((s.n - 1) / s.n)
    # the seed's 2.89% is sqrt(0.836 * 0.164 / 164) with the rounded 83.6%; 137/164 gives 2.896%
    assert bernoulli == pytest.approx(0.0289, abs=1e-4)
    assert round(s.ci_low, 3) == 0.778 and round(s.ci_high, 3) == 0.892  # seed: (77.9%, 89.3%)


def test_design_effect_seed_formula():
    """Seed 003: m = 50, rho = 0.04 -> DEFF 2.96, n_eff of 10,000 items about 3,300."""
    deff = clustering.design_effect(50, 0.04)
    assert deff == pytest.approx(2.96)
    assert clustering.effective_n(10_000, deff) == pytest.approx(3378.4, abs=0.1)


# ---------------------------------------------------------------- oracle: statsmodels


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cr1_matches_statsmodels_integer_codes(seed):
    scores, codes = clustered_data(seed)
    s = summarize(scores, codes, method="cr1")
    assert s.se == pytest.approx(statsmodels_cluster_se(scores, codes), rel=1e-12)
    assert s.n_clusters == 40
    assert s.deff == pytest.approx((s.se / s.se_naive) ** 2)
    assert s.n_eff == pytest.approx(s.n / s.deff)


def test_cr1_matches_statsmodels_string_labels_unequal_sizes():
    scores, codes = clustered_data(7, n_clusters=35)
    rng = np.random.default_rng(3)
    order = rng.permutation(scores.size)  # labels interleaved, not sorted
    scores, codes = scores[order], codes[order]
    labels = np.array([f"passage-{c:03d}" for c in codes])
    expected = statsmodels_cluster_se(scores, codes)
    for form in (labels, labels.tolist(), pd.Series(labels), pd.Series(labels, dtype="category")):
        assert summarize(scores, form, method="cr1").se == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "relabel",
    [
        lambda c: c * 10**12 + 7,  # large sparse integers -> factorize path
        lambda c: -c - 1,  # negative integers
        lambda c: c.astype(np.uint64),
        lambda c: c.astype(np.int32),
        lambda c: c + 0.5,  # float labels
        lambda c: pd.Series(c),
    ],
)
def test_label_forms_give_the_same_se(relabel):
    scores, codes = clustered_data(11)
    expected = statsmodels_cluster_se(scores, codes)
    s = summarize(scores, relabel(codes), method="cr1")
    assert s.se == pytest.approx(expected, rel=1e-12)
    assert s.n_clusters == 40


@pytest.mark.filterwarnings("ignore::evalstats_core.errors.EvalStatsWarning")
def test_unused_small_integer_labels_are_not_counted():
    """Gaps in small integer labels (codes 0, 5, 9 only) leave empty bins that must not count."""
    scores = np.array([1.0, 0, 1, 1, 0, 0, 1, 0, 1])
    codes = np.array([0, 0, 0, 5, 5, 5, 9, 9, 9])
    s = summarize(scores, codes)
    assert s.n_clusters == 3
    assert s.se == pytest.approx(statsmodels_cluster_se(scores, codes), rel=1e-12)


def test_small_integer_labels_skip_factorize_and_others_use_it(monkeypatch):
    """Small non-negative integer codes index np.bincount directly; other labels are factorised once."""
    import evalstats_core._clusters as clusters_mod

    calls = []
    real = clusters_mod._factorize

    def spy(labels, n, name):
        calls.append(name)
        return real(labels, n, name)

    monkeypatch.setattr(clusters_mod, "_factorize", spy)
    scores, codes = clustered_data(5)
    expected = statsmodels_cluster_se(scores, codes)
    for form in (codes, codes.astype(np.int32), codes.astype(np.uint8), pd.Series(codes)):
        assert summarize(scores, form, method="cr1").se == pytest.approx(expected, rel=1e-12)
    assert calls == []  # the fast path: no factorising
    assert summarize(scores, codes * 10**12 + 7, method="cr1").se == pytest.approx(expected, rel=1e-12)
    assert summarize(scores, [f"c{c}" for c in codes], method="cr1").se == pytest.approx(expected, rel=1e-12)
    assert len(calls) == 2


@pytest.mark.filterwarnings("ignore::evalstats_core.errors.EvalStatsWarning")
def test_python_labels_keep_their_identity():
    """Tuples are labels; the integer 1 and the string "1" are different clusters."""
    scores = [0.1, 0.5, 0.3, 0.9, 0.2, 0.4]
    by_tuple = summarize(scores, [(1, 2), (1, 2), (3, 4), (3, 4), (1, 2), (3, 4)])
    assert by_tuple.n_clusters == 2
    assert by_tuple.se == pytest.approx(statsmodels_cluster_se(scores, [0, 0, 1, 1, 0, 1]), rel=1e-12)
    assert summarize(scores, ["1", 1, "1", 1, "1", 1]).n_clusters == 2
    assert summarize(scores, np.array([True, True, False, False, True, False])).n_clusters == 2


# ---------------------------------------------------------------- properties


finite_scores = arrays(
    np.float64, st.integers(2, 60), elements=st.floats(-5, 5, allow_nan=False, allow_subnormal=False)
)


@settings(max_examples=60, deadline=None)
@given(finite_scores, st.data())
def test_fast_cr1_equals_slow_loop(scores, data):
    n = scores.size
    labels = np.array(data.draw(st.lists(st.sampled_from("abcdefg"), min_size=n, max_size=n)))
    if len(set(labels.tolist())) < 2:
        labels[0], labels[-1] = "x", "y"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        s = summarize(scores, labels, method="cr1")
    assert s.se == pytest.approx(slow_cr1(scores, labels), rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(finite_scores)
def test_singleton_clusters_give_the_clt_se(scores):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        s = summarize(scores, np.arange(scores.size)[::-1])
    plain = summarize(scores)
    assert s.se == pytest.approx(plain.se, rel=1e-9, abs=1e-12)
    assert plain.se == pytest.approx(np.std(scores, ddof=1) / math.sqrt(scores.size), rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, st.integers(2, 30), elements=st.floats(0, 1, allow_subnormal=False)),
    st.integers(1, 8),
)
def test_perfect_within_cluster_correlation_is_se_over_cluster_means(cluster_means, m):
    """Identical scores inside equal-size clusters: CR1 = CLT SE of the C cluster means.

    (C/(C-1) in CR1 plays the part of ddof=1 in the SE over cluster means, so they agree exactly.)
    """
    c = cluster_means.size
    scores = np.repeat(cluster_means, m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        s = summarize(scores, np.repeat(np.arange(c), m))
    expected = np.std(cluster_means, ddof=1) / math.sqrt(c)
    assert s.se == pytest.approx(expected, rel=1e-9, abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(finite_scores, st.data())
def test_permutation_invariance(scores, data):
    n = scores.size
    codes = np.array(data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)))
    if np.unique(codes).size < 2:
        codes[0], codes[-1] = 0, 1
    perm = np.array(data.draw(st.permutations(range(n))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        s1, s2 = summarize(scores, codes), summarize(scores[perm], codes[perm])
    assert s1.mean == pytest.approx(s2.mean, rel=1e-12, abs=1e-12)
    assert s1.se == pytest.approx(s2.se, rel=1e-9, abs=1e-12)
    assert s1.n_clusters == s2.n_clusters


# ---------------------------------------------------------------- edges, errors, warnings


@pytest.mark.filterwarnings("ignore::evalstats_core.errors.EvalStatsWarning")
def test_constant_scores_have_zero_se_and_undefined_deff():
    s = summarize([0.7] * 6, [0, 0, 1, 1, 2, 2])
    assert s.se == 0.0 and s.se_naive == 0.0
    assert math.isnan(s.deff) and math.isnan(s.n_eff)
    plain = summarize([0.7] * 6)
    assert plain.se == 0.0 and plain.deff == 1.0  # no clusters: no design to correct for


@pytest.mark.filterwarnings("ignore::evalstats_core.errors.EvalStatsWarning")
def test_zero_clustered_se_with_spread_gives_nan_n_eff():
    s = summarize([0.0, 1.0, 1.0, 0.0, 0.0, 1.0], [0, 0, 1, 1, 2, 2])
    assert s.se == pytest.approx(0.0, abs=1e-15) and s.deff == pytest.approx(0.0, abs=1e-12)
    assert math.isnan(s.n_eff)


def test_one_question_is_an_error():
    with pytest.raises(EvalStatsError, match="at least 2 questions"):
        summarize([0.5])


def test_one_cluster_is_an_error_naming_the_fix():
    with pytest.raises(EvalStatsError, match=r"1 distinct label.*clusters=None"):
        summarize([0.1, 0.2, 0.3], ["p", "p", "p"])


@pytest.mark.parametrize(
    ("scores", "clusters", "pattern"),
    [
        ([0.1, float("nan"), 0.3], None, r"scores\[1\] is nan"),
        ([0.1, float("inf"), 0.3], None, r"scores\[1\] is inf"),
        ([[0.1, 0.2], [0.3, 0.4]], None, "one-dimensional"),
        (["a", "b"], None, "must be numbers"),
        ([0.1, 0.2, 0.3], [0, 1], r"shape \(2,\) but there are 3 scores"),
        ([0.1, 0.2, 0.3], ["a", None, "b"], r"clusters\[1\] is missing"),
        ([0.1, 0.2, 0.3], [0.0, float("nan"), 1.0], r"clusters\[1\] is missing"),
        ([1e308, -1e308], None, "overflow"),
    ],
)
def test_bad_input_errors_repeat_the_value(scores, clusters, pattern):
    with pytest.raises(EvalStatsError, match=pattern):
        summarize(scores, clusters)


def test_bad_confidence():
    with pytest.raises(EvalStatsError, match="confidence"):
        summarize(ATLAS, confidence=95)


def test_few_clusters_warn_and_are_recorded():
    # CR1 with a normal reference: a caution below 30 clusters that points to CR2
    scores, codes = clustered_data(5, n_clusters=12)
    with pytest.warns(EvalStatsWarning, match="only 12 clusters"):
        s = summarize(scores, codes, method="cr1")
    assert len(s.warnings) == 1 and "12 clusters" in s.warnings[0] and "cr2" in s.warnings[0]
    scores, codes = clustered_data(5, n_clusters=30)
    with warnings.catch_warnings():
        warnings.simplefilter("error", EvalStatsWarning)
        assert summarize(scores, codes, method="cr1").warnings == ()
    # CR2 (default) holds its level with 12 clusters: no warning; below 10 it names the df
    scores, codes = clustered_data(5, n_clusters=12)
    with warnings.catch_warnings():
        warnings.simplefilter("error", EvalStatsWarning)
        assert summarize(scores, codes).warnings == ()
    scores, codes = clustered_data(5, n_clusters=5)
    with pytest.warns(EvalStatsWarning, match="only 5 clusters"):
        s = summarize(scores, codes)
    assert f"{s.df:.1f} degrees of freedom" in s.warnings[0]


def test_no_clusters_never_touches_the_cluster_path(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("cluster path used")

    monkeypatch.setattr(clustering, "codes_and_sizes", boom)
    assert summarize(ATLAS).n_clusters == 10
    assert summarize([1, 0, 1, 1]).n_clusters == 4  # the 0/1 path too


def test_confidence_changes_the_interval_width():
    s90, s99 = summarize(ATLAS, confidence=0.90, method="cr1"), summarize(ATLAS, confidence=0.99, method="cr1")
    assert s90.ci_high - s90.ci_low == pytest.approx(2 * 1.6448536269514722 * s90.se)
    assert s99.ci_high - s99.ci_low == pytest.approx(2 * 2.5758293035489004 * s99.se)
    assert s99.confidence == 0.99
    # default: t quantiles on n - 1 = 9 df, scipy.stats.t.ppf([0.95, 0.995], 9)
    t90, t99 = summarize(ATLAS, confidence=0.90), summarize(ATLAS, confidence=0.99)
    assert t90.ci_high - t90.ci_low == pytest.approx(2 * 1.8331129326536333 * t90.se)
    assert t99.ci_high - t99.ci_low == pytest.approx(2 * 3.2498355415921263 * t99.se)


def test_result_is_frozen_plain_python():
    s = summarize(ATLAS)
    with pytest.raises(AttributeError):
        s.mean = 1.0  # type: ignore[misc]
    for name in ("mean", "se", "ci_low", "ci_high", "se_naive", "deff", "n_eff"):
        assert type(getattr(s, name)) is float, name
    assert type(s.n) is int and type(s.n_clusters) is int


# ---------------------------------------------------------------- ICC, design effect, bootstrap

from evalstats_core.clustering import cluster_bootstrap_ci, design_effect, effective_n, icc  # noqa: E402


def exact_icc(hundredths, labels):
    """Readable one-way ANOVA ICC with the n0 adjustment (Snedecor & Cochran), in exact rational arithmetic
    on scores ``h / 100``: constant scores give 0 / 0 (nan) exactly, where floats leave rounding noise
    (0.09 four times: MSB and MSW near 1e-34, a ratio of 0.4)."""
    from fractions import Fraction

    scores = [Fraction(h, 100) for h in hundredths]
    groups = {}
    for x, g in zip(scores, labels, strict=True):
        groups.setdefault(g, []).append(x)
    n, c = len(scores), len(groups)
    grand = sum(scores) / n
    msb = sum(len(g) * (sum(g) / len(g) - grand) ** 2 for g in groups.values()) / (c - 1)
    msw = sum(sum((x - sum(g) / len(g)) ** 2 for x in g) for g in groups.values()) / (n - c)
    n0 = (n - Fraction(sum(len(g) ** 2 for g in groups.values()), n)) / (c - 1)
    den = msb + (n0 - 1) * msw
    return float((msb - msw) / den) if den else math.nan


def test_icc_matches_statsmodels_anova_table():
    """Oracle: MSB and MSW from statsmodels' one-way ANOVA of score ~ C(cluster)."""
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    scores, codes = clustered_data(21, n_clusters=30)
    frame = pd.DataFrame({"score": scores, "cluster": codes.astype(str)})
    # sm.stats.anova_lm(smf.ols("score ~ C(cluster)", frame).fit()) -> mean_sq of C(cluster), Residual
    table = sm.stats.anova_lm(smf.ols("score ~ C(cluster)", frame).fit())
    msb, msw = table["mean_sq"].iloc[0], table["mean_sq"].iloc[1]
    sizes = np.bincount(codes)
    n, c = sizes.sum(), sizes.size
    n0 = (n - (sizes**2).sum() / n) / (c - 1)
    expected = (msb - msw) / (msb + (n0 - 1) * msw)
    assert icc(scores, codes) == pytest.approx(expected, rel=1e-10)
    assert icc(scores, frame["cluster"]) == pytest.approx(expected, rel=1e-10)


def test_icc_recovers_a_known_correlation():
    """Normal random-intercept data with between variance 0.3 and within 0.7 -> rho = 0.3."""
    rng = np.random.default_rng(5)
    sizes = rng.integers(2, 15, 3000)
    codes = np.repeat(np.arange(sizes.size), sizes)
    y = rng.normal(0, math.sqrt(0.3), sizes.size)[codes] + rng.normal(0, math.sqrt(0.7), codes.size)
    assert icc(y, codes) == pytest.approx(0.3, abs=0.02)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 100), min_size=4, max_size=40), st.data())
def test_icc_equals_slow_version(hundredths, data):
    scores = np.array(hundredths) / 100.0
    n = scores.size
    codes = np.array(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    codes[:2] = [0, 1]
    codes[2] = 0  # at least one cluster with two questions, so MSW is defined
    got = icc(scores, codes)
    expected = exact_icc(hundredths, codes.tolist())
    if math.isnan(got):
        assert np.ptp(scores) == 0 and math.isnan(expected)  # constant scores: 0/0
    else:
        assert got == pytest.approx(expected, rel=1e-7, abs=1e-9)


def test_icc_of_constant_scores_that_floats_do_not_cancel():
    """Hypothesis's counterexample to the float oracle: 0.09 four times, clusters 0, 1, 0, 0."""
    assert math.isnan(icc([0.09] * 4, [0, 1, 0, 0])) and math.isnan(exact_icc([9] * 4, [0, 1, 0, 0]))


def test_icc_edges():
    assert icc([1.0, 1.0, 2.0, 2.0], [0, 0, 1, 1]) == pytest.approx(1.0)
    assert math.isnan(icc([0.3, 0.4, 0.5], [0, 1, 2]))  # singletons: no within-cluster spread
    assert math.isnan(icc([0.5] * 4, [0, 0, 1, 1]))  # constant scores
    assert icc([0.0, 1.0, 0.0, 1.0], [0, 0, 1, 1]) < 0  # clusters more alike than chance: not clipped
    with pytest.raises(EvalStatsError, match="1 distinct label"):
        icc([0.1, 0.2], ["a", "a"])


def test_design_effect_and_effective_n_errors():
    assert design_effect(1, 0.9) == 1.0
    assert design_effect(16, 0.55) == pytest.approx(9.25)  # seed 000: DROP's "9 or more"
    with pytest.raises(EvalStatsError, match="cluster_size"):
        design_effect(0.5, 0.1)
    with pytest.raises(EvalStatsError, match="icc"):
        design_effect(10, 1.5)
    with pytest.raises(EvalStatsError, match="impossible"):
        design_effect(11, -0.2)
    with pytest.raises(EvalStatsError, match="deff"):
        effective_n(100, 0)


def test_design_effect_predicts_summarize_deff_on_balanced_data():
    """Balanced clusters: measured deff is close to 1 + (m - 1) * icc (ANOVA identity, large C)."""
    rng = np.random.default_rng(8)
    m, c = 8, 4000
    codes = np.repeat(np.arange(c), m)
    y = rng.normal(0, 0.5, c)[codes] + rng.normal(0, 1.0, c * m)
    s = summarize(y, codes, method="cr1")
    assert s.deff == pytest.approx(design_effect(m, icc(y, codes)), rel=0.01)


def test_cluster_bootstrap_agrees_with_cr1_and_is_reproducible():
    rng = np.random.default_rng(13)
    sizes = rng.integers(1, 20, 300)
    codes = np.repeat(np.arange(sizes.size), sizes)
    scores = (rng.random(sizes.size)[codes] + 0.5 * rng.random(codes.size) > 0.9).astype(float)
    s = summarize(scores, codes, method="cr1")
    r = cluster_bootstrap_ci(scores, codes, n_boot=4000, rng=1)
    assert r.mean == pytest.approx(s.mean)
    assert r.se == pytest.approx(s.se, rel=0.06)  # bootstrap SE ~ CR0 = CR1 * sqrt((C-1)/C)
    assert r.ci_low == pytest.approx(s.ci_low, abs=0.3 * s.se)
    assert r.ci_high == pytest.approx(s.ci_high, abs=0.3 * s.se)
    assert r == cluster_bootstrap_ci(scores, codes, n_boot=4000, rng=1)  # same seed, same answer
    assert r != cluster_bootstrap_ci(scores, codes, n_boot=4000, rng=2)
    labels = np.array([f"c{c}" for c in codes], dtype=object)
    assert cluster_bootstrap_ci(scores, labels, n_boot=4000, rng=1) == r  # labels do not matter


def test_cluster_bootstrap_chunks_equal_one_block(monkeypatch):
    """Chunking is only about memory: the resampled means do not depend on the chunk size when one
    chunk holds whole rows in the same order."""
    scores, codes = clustered_data(2, n_clusters=50)
    whole = cluster_bootstrap_ci(scores, codes, n_boot=300, rng=3)
    monkeypatch.setattr(cluster_bootstrap, "_BOOT_CHUNK_CELLS", 50 * 7)  # 7 resamples per chunk
    chunked = cluster_bootstrap_ci(scores, codes, n_boot=300, rng=3)
    assert chunked.n_boot == whole.n_boot == 300
    # the same stream of draws, consumed in the same row-major order, gives identical resamples
    assert chunked == whole


def test_cluster_bootstrap_slow_reference():
    """A loop over resamples drawing clusters with rng.integers in the same order reproduces it."""
    scores, codes = clustered_data(4, n_clusters=25)
    r = cluster_bootstrap_ci(scores, codes, n_boot=200, rng=9)
    gen = np.random.default_rng(9)
    groups = [scores[codes == g] for g in range(25)]
    means = []
    for _ in range(200):
        picked = gen.integers(0, 25, size=25)
        means.append(np.concatenate([groups[g] for g in picked]).mean())
    lo, hi = np.quantile(means, [0.025, 0.975])
    assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), rel=1e-12)
    assert r.se == pytest.approx(np.std(means, ddof=1), rel=1e-9)


def test_cluster_bootstrap_errors():
    with pytest.raises(EvalStatsError, match="n_boot"):
        cluster_bootstrap_ci([0.1, 0.2], [0, 1], n_boot=1)
    with pytest.raises(EvalStatsError, match="1 distinct label"):
        cluster_bootstrap_ci([0.1, 0.2], [0, 0])
    with pytest.raises(EvalStatsError, match="confidence"):
        cluster_bootstrap_ci([0.1, 0.2], [0, 1], confidence=1.0)
