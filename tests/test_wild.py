"""The wild cluster bootstrap (restricted, CR1-studentised): p-values, intervals, edge cases.

Three layers: ``wildboottest`` 0.3.2 as an oracle (exact under enumeration or given the same weight
vectors, within Monte-Carlo error with its own draws), a hand-computed three-question case and a slow
per-question loop held against the fast kernel, and hypothesis properties. A seeded simulation with
few, unequal clusters checks that the interval covers.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evalstats_core
from evalstats_core import wild  # _wild_draws and _wild_interval merged into wild (issue 38)
from evalstats_core._clusters import cr1_se
from evalstats_core.errors import EvalStatsError
from evalstats_core.wild import WildBootstrap, wild_cluster_bootstrap, wild_compare

TIE = 1e-9  # the module's tie margin: |t*| counts when it exceeds |t| by more than TIE * (1 + |t|)


def exceeds(t_boot, t):
    """Which bootstrap t statistics count towards the p-value (strictly beyond |t|, ties excluded)."""
    return np.abs(t_boot) > abs(t) * (1.0 + TIE) + TIE


def clustered(seed, sizes, *, binary=False, icc_sd=0.3):
    """Seeded scores with a cluster effect; clusters of the given sizes, labelled 0..G-1 in order."""
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(len(sizes)), sizes)
    level = icc_sd * rng.standard_normal(len(sizes))[labels]
    if binary:
        return (rng.random(labels.size) < np.clip(0.6 + level, 0.05, 0.95)).astype(float), labels
    return 0.6 + level + 0.5 * rng.standard_normal(labels.size), labels


def canonical_order(scores, labels):
    """The order the fast code puts clusters in (size, then residual sum), from a plain loop."""
    scores, labels = np.asarray(scores, float), np.asarray(labels)
    mean = scores.mean()
    groups = sorted(set(labels.tolist()))
    keys = [(int(np.sum(labels == g)), float(np.sum(scores[labels == g] - mean))) for g in groups]
    return [groups[i] for i in sorted(range(len(groups)), key=lambda i: keys[i])]


def weight_matrix(n_clusters, kind, n_boot, seed=None):
    """The (B, G) weights the fast code uses, in canonical cluster order (enumerated or seeded)."""
    table = wild._TABLES[kind]
    if table.size**n_clusters <= n_boot:
        return table[wild._enumerate(0, table.size**n_clusters, n_clusters, table.size)]
    assert n_boot <= max(wild._CHUNK_ROWS, wild._CHUNK_CELLS // n_clusters)  # one chunk of draws
    return table[wild._draw(np.random.default_rng(seed), n_boot, n_clusters, table.size)]


# ---------------------------------------------------------------- the oracle: wildboottest 0.3.2


def wildboottest_t(scores, labels, null, v=None, *, kind="rademacher", n_boot=9999, seed=0):
    """Observed t, bootstrap t's and raw p-value of ``wildboottest.WildboottestCL`` (WCR, CR1).

    Regressing ``scores - null`` on a constant and testing the constant = 0 is the test of
    ``mean == null``. ``v`` (shape (B, G), columns in ``np.unique(labels)`` order) replaces the
    package's own draws, so both sides use the same weight vectors.
    """
    from wildboottest.wildboottest import WildboottestCL

    y = np.asarray(scores, float) - null
    boot = WildboottestCL(
        X=np.ones((y.size, 1)), Y=y, cluster=np.asarray(labels), R=np.array([1.0]), B=n_boot, seed=seed,
        parallel=False,
    )
    boot.get_scores(bootstrap_type="11", impose_null=True)  # WCR, CRV1 studentisation
    if v is None:
        boot.get_weights(weights_type=kind)  # enumerates Rademacher itself when 2**G < B
    else:
        boot.v, boot.B = np.ascontiguousarray(v.T), v.shape[0]
    boot.get_numer()
    boot.get_denom()
    boot.get_tboot()
    boot.get_vcov()
    boot.get_tstat()
    boot.get_pvalue(pval_type="two-tailed")  # mean(|t| < |t*|)
    return float(np.squeeze(boot.t_stat)), np.asarray(boot.t_boot, float), float(boot.pvalue), boot


def in_unique_order(v, scores, labels):
    """Reorder weight columns from the fast code's cluster order to ``np.unique(labels)`` order."""
    order = canonical_order(scores, labels)
    out = np.empty_like(v)
    out[:, np.searchsorted(np.unique(labels), order)] = v
    return out


@pytest.mark.parametrize("n_clusters,seed", [(5, 1), (8, 2), (11, 3)])
@pytest.mark.parametrize("binary", [False, True])
def test_enumerated_rademacher_p_value_and_t_distribution_equal_wildboottest(n_clusters, seed, binary):
    """2**G <= B: both enumerate every sign vector; t's agree to 1e-9, p-values exactly."""
    sizes = np.random.default_rng(seed).integers(1, 9, n_clusters)
    scores, labels = clustered(seed, sizes, binary=binary)
    for null in (0.45, 0.6, 0.8):
        r = wild_cluster_bootstrap(scores, labels, null=null, weights="rademacher")
        assert r.enumerated and r.n_boot == 2**n_clusters
        t, t_boot, p_raw, boot = wildboottest_t(scores, labels, null)
        assert boot.B == 2**n_clusters  # the oracle enumerated too
        assert r.statistic == pytest.approx(t, rel=1e-12)
        assert r.p_value == np.count_nonzero(exceeds(t_boot, t)) / r.n_boot  # exactly
        # wildboottest counts |t*| > |t| with no margin: draws that tie with t (the identity and its
        # negation; with 0/1 scores also every draw that only flips clusters whose restricted residuals
        # sum to 0) count or not by rounding, so its raw p-value is ours plus some of the ties
        ties = np.count_nonzero(np.abs(np.abs(t_boot) - abs(t)) <= TIE * (1.0 + abs(t)))
        extra = (p_raw - r.p_value) * r.n_boot
        assert extra == pytest.approx(round(extra)) and 0 <= round(extra) <= ties
        assert ties >= 2
        # the bootstrap distribution itself, over the non-constant sign vectors
        draws = fast_draws(scores, labels, "rademacher", r.n_boot)
        constant = np.ptp(boot.v, axis=0) == 0
        np.testing.assert_allclose(
            np.sort(draws.t_star(r.estimate - null)), np.sort(t_boot[~constant]), rtol=1e-9, atol=1e-12
        )


def fast_draws(scores, labels, kind, n_boot, rng=None):
    resid = np.asarray(scores, float) - np.mean(scores)
    sums, sizes = wild._cluster_sums(resid, labels, resid.size)
    return wild._bootstrap(sums, sizes, resid.size, kind, n_boot, rng)


@pytest.mark.parametrize("n_clusters", [2, 3, 5])
def test_enumerated_webb_equals_wildboottest_given_the_same_vectors(n_clusters):
    """6**G <= B: wildboottest never enumerates Webb's weights, so it is handed our 6**G vectors."""
    scores, labels = clustered(10 + n_clusters, np.arange(2, 2 + 3 * n_clusters, 3))
    for null in (0.3, 0.6, 0.9):
        r = wild_cluster_bootstrap(scores, labels, null=null)
        assert (r.weights, r.enumerated, r.n_boot) == ("webb", True, 6**n_clusters)
        v = in_unique_order(weight_matrix(n_clusters, "webb", r.n_boot), scores, labels)
        t, t_boot, _, _ = wildboottest_t(scores, labels, null, v)
        assert r.p_value == np.count_nonzero(exceeds(t_boot, t)) / r.n_boot


def test_random_draws_equal_wildboottest_given_the_same_draws():
    """Seeded Rademacher draws (G = 20, B = 999), handed to wildboottest: the same p-value."""
    sizes = np.random.default_rng(7).integers(1, 15, 20)
    scores, labels = clustered(7, sizes, binary=True)
    for null in (0.5, 0.6, 0.7):
        r = wild_cluster_bootstrap(scores, labels, null=null, n_boot=999, rng=42)
        assert (r.weights, r.enumerated) == ("rademacher", False)
        v = in_unique_order(weight_matrix(20, "rademacher", 999, seed=42), scores, labels)
        t, t_boot, _, _ = wildboottest_t(scores, labels, null, v)
        assert r.p_value == np.count_nonzero(exceeds(t_boot, t)) / 999


def test_random_draws_agree_with_wildboottests_own_draws_within_monte_carlo_error():
    """Independent draws (ours: seed 1; wildboottest's: seed 2), B = 9999: p within 4 MC SEs."""
    sizes = np.random.default_rng(3).integers(2, 20, 16)
    scores, labels = clustered(3, sizes)
    for null in (0.45, 0.55, 0.65):
        r = wild_cluster_bootstrap(scores, labels, null=null, rng=1)
        _, _, p_raw, _ = wildboottest_t(scores, labels, null, seed=2)
        p = 0.5 * (r.p_value + p_raw)
        assert abs(r.p_value - p_raw) <= 4.0 * math.sqrt(2.0 * p * (1.0 - p) / 9999) + 2.0 / 9999


def test_no_clusters_agrees_with_wildboottests_heteroskedastic_bootstrap():
    """clusters=None is the plain wild bootstrap: wildboottest's HC version (its HC0 SE is a constant
    multiple of our CR1 with G = n, which cancels in t / t*), within Monte-Carlo error."""
    import statsmodels.api as sm
    from wildboottest.wildboottest import wildboottest

    y = np.random.default_rng(11).gamma(2.0, 0.3, 40)
    for null in (0.5, 0.6, 0.7):
        r = wild_cluster_bootstrap(y, null=null, n_boot=1999, rng=5)
        assert (r.n_clusters, r.weights) == (40, "rademacher")
        # wildboottest(sm.OLS(y - null, ones), B=1999, param="const", seed=6): WCR, Rademacher
        model = sm.OLS(pd.Series(y - null), pd.DataFrame({"const": np.ones(40)}))
        res = wildboottest(model, B=1999, param="const", seed=6, show=False)
        p_raw = float(res["p-value"].iloc[0])
        p = 0.5 * (r.p_value + p_raw)
        assert abs(r.p_value - p_raw) <= 4.0 * math.sqrt(2.0 * p * (1.0 - p) / 1999) + 2.0 / 1999


@pytest.mark.parametrize("kind,n_clusters", [("rademacher", 9), ("webb", 4)])
def test_interval_ends_are_where_the_oracles_p_value_crosses_the_level(kind, n_clusters):
    """Just inside each end wildboottest's p-value is above 1 - confidence; just outside, not."""
    sizes = np.random.default_rng(n_clusters).integers(2, 12, n_clusters)
    scores, labels = clustered(20 + n_clusters, sizes)
    r = wild_cluster_bootstrap(scores, labels, weights=kind, confidence=0.9)
    v = in_unique_order(weight_matrix(n_clusters, kind, r.n_boot), scores, labels)
    eps = 1e-6 * r.se
    for end, inward in ((r.ci_low, 1.0), (r.ci_high, -1.0)):
        t, t_boot, _, _ = wildboottest_t(scores, labels, end + inward * eps, v)
        assert np.count_nonzero(exceeds(t_boot, t)) / r.n_boot > 0.1
        t, t_boot, _, _ = wildboottest_t(scores, labels, end - inward * eps, v)
        assert np.count_nonzero(exceeds(t_boot, t)) / r.n_boot <= 0.1


# ---------------------------------------------------------------- hand-computed and slow reference


def test_three_questions_by_hand():
    """Scores (1, 2, 6), each its own cluster, Rademacher: all 8 sign vectors, worked by hand.

    Mean 3, residuals (-2, -1, 3), se = sqrt(3/2 * (4 + 1 + 9)) / 3 = sqrt(21) / 3.

    null 0, t = 3 / se = 9/sqrt(21) = 1.964. The bootstrap data are the signed scores: flipping the
    1st, 2nd or 3rd sign gives means 7/3, 5/3, -1, residual sums of squares 222/9, 294/9, 38, so
    |t*| = 7/sqrt(37), 5/7, 3/sqrt(57) (each twice, for v and -v). The identity and its negation
    tie (t* = +-t) and do not count: p = 0/8.

    null 2, t = 1 / se = 3/sqrt(21) = 0.655. Restricted residuals (-1, 0, 4): flipping the 2nd sign
    changes nothing (another tie); flipping the 1st or the 3rd gives data (1, 0, 4) or (-1, 0, -4)
    around 2: mean +-5/3, residual sums of squares 78/9, |t*| = 5/sqrt(13) = 1.387 > |t|: 4 of 8
    count, p = 1/2 (counting ties, |t*| >= |t|, would give 1).
    """
    r0 = wild_cluster_bootstrap([1, 2, 6], weights="rademacher")
    assert r0.se == pytest.approx(math.sqrt(21) / 3, rel=1e-14)
    assert r0.statistic == pytest.approx(9 / math.sqrt(21), rel=1e-14)
    # no draw exceeds |t|; the two constant sign vectors tie with it, so p is 2/8, never 0 (and with
    # 3 clusters no null is rejected at 95%: the interval is the whole line)
    assert (r0.n_boot, r0.enumerated, r0.p_value) == (8, True, 0.25)
    assert r0.ci == (-math.inf, math.inf)
    r2 = wild_cluster_bootstrap([1, 2, 6], null=2.0, weights="rademacher")
    assert r2.statistic == pytest.approx(3 / math.sqrt(21), rel=1e-14)
    assert r2.p_value == 0.5
    draws = fast_draws([1, 2, 6], None, "rademacher", 8)  # the 6 non-constant vectors
    by_hand = [7 / math.sqrt(37), 5 / 7, 3 / math.sqrt(57)] * 2
    np.testing.assert_allclose(np.sort(np.abs(draws.t_star(3.0))), np.sort(by_hand), rtol=1e-12)
    by_hand = [3 / math.sqrt(21)] * 2 + [5 / math.sqrt(13)] * 4
    np.testing.assert_allclose(np.sort(np.abs(draws.t_star(1.0))), np.sort(by_hand), rtol=1e-12)


def slow_wild(scores, labels, null, v):
    """Readable reference: rebuild every bootstrap data set question by question.

    ``v`` has one row per draw and one column per cluster, in ``canonical_order``. Returns the
    observed t, the bootstrap t's and the p-value (strict, with the same tie margin).
    """
    scores = [float(s) for s in scores]
    labels = list(range(len(scores))) if labels is None else list(np.asarray(labels).tolist())
    column = {g: j for j, g in enumerate(canonical_order(scores, labels))}
    n, n_clusters = len(scores), len(column)

    def mean_and_cr1(values):
        mean = sum(values) / n
        sums = dict.fromkeys(column, 0.0)
        for value, g in zip(values, labels, strict=True):
            sums[g] += value - mean
        return mean, math.sqrt(n_clusters / (n_clusters - 1) * sum(s * s for s in sums.values())) / n

    mean, se = mean_and_cr1(scores)
    t = (mean - null) / se
    t_boot = []
    for row in v:
        boot = [null + row[column[g]] * (s - null) for s, g in zip(scores, labels, strict=True)]
        boot_mean, boot_se = mean_and_cr1(boot)
        t_boot.append((boot_mean - null) / boot_se if boot_se > 0 else math.copysign(math.inf, boot_mean - null))
    t_boot = np.array(t_boot)
    return t, t_boot, np.count_nonzero(exceeds(t_boot, t)) / len(v)


@pytest.mark.parametrize(
    "kind,n_clusters,n_boot", [("webb", 3, 9999), ("rademacher", 7, 9999), ("rademacher", 12, 300)]
)
def test_fast_equals_slow_loop(kind, n_clusters, n_boot):
    """The fast per-draw coefficients reproduce a per-question rebuild of every bootstrap sample."""
    sizes = np.random.default_rng(n_clusters).integers(1, 7, n_clusters)
    scores, labels = clustered(30 + n_clusters, sizes, binary=kind == "rademacher")
    v = weight_matrix(n_clusters, kind, n_boot, seed=9)
    for null in (0.2, 0.55, 0.9):
        r = wild_cluster_bootstrap(scores, labels, null=null, weights=kind, n_boot=n_boot, rng=9)
        t, t_boot, p = slow_wild(scores, labels, null, v)
        assert r.statistic == pytest.approx(t, rel=1e-12)
        assert r.p_value == p
        draws = fast_draws(scores, labels, kind, n_boot, rng=9)
        constant = np.ptp(v, axis=1) == 0
        np.testing.assert_allclose(draws.t_star(r.estimate - null), t_boot[~constant], rtol=1e-9, atol=1e-12)


def test_interval_ends_match_the_slow_p_value_function():
    """The slow loop's p-value is above the level just inside each end and at most it just outside."""
    scores, labels = clustered(5, [3, 1, 4, 1, 5, 9])
    r = wild_cluster_bootstrap(scores, labels, weights="rademacher")
    v = weight_matrix(6, "rademacher", 64)
    eps = 1e-6 * r.se
    assert slow_wild(scores, labels, r.ci_low + eps, v)[2] > 0.05
    assert slow_wild(scores, labels, r.ci_low - eps, v)[2] <= 0.05
    assert slow_wild(scores, labels, r.ci_high - eps, v)[2] > 0.05
    assert slow_wild(scores, labels, r.ci_high + eps, v)[2] <= 0.05


# ---------------------------------------------------------------- properties


@st.composite
def designs(draw, max_clusters=9):
    """A seeded clustered data set: hypothesis chooses the shape, numpy the (continuous) values."""
    n_clusters = draw(st.integers(2, max_clusters))
    sizes = draw(st.lists(st.integers(1, 6), min_size=n_clusters, max_size=n_clusters))
    binary = draw(st.booleans())
    scores, labels = clustered(draw(st.integers(0, 2**32 - 1)), sizes, binary=binary)
    return scores, labels


@settings(max_examples=30, deadline=None)
@given(designs(), st.integers(0, 2**32 - 1), st.floats(-0.5, 0.5))
def test_permuting_questions_and_renaming_clusters_changes_nothing(design, seed, offset):
    """Same data in another order, with other labels, same seed: the same p-value and interval."""
    scores, labels = design
    null = float(np.mean(scores)) + offset
    perm = np.random.default_rng(seed).permutation(scores.size)
    names = np.array([f"passage-{x}" for x in np.random.default_rng(seed).permutation(labels.max() + 1)])
    r1 = wild_cluster_bootstrap(scores, labels, null=null, n_boot=499, rng=seed)
    r2 = wild_cluster_bootstrap(scores[perm], names[labels[perm]], null=null, n_boot=499, rng=seed)
    np.testing.assert_equal(r1.p_value, r2.p_value)  # nan (se = 0, null = estimate) equals nan
    assert r1.n_boot == r2.n_boot
    np.testing.assert_allclose(r1.ci, r2.ci, rtol=1e-9, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(designs(), st.floats(-100, 100), st.floats(-0.5, 0.5))
def test_shifting_scores_and_null_shifts_the_interval(design, shift, offset):
    """Adding c to every score and to the null leaves the p-value and moves the interval by c."""
    scores, labels = design
    null = float(np.mean(scores)) + offset
    r1 = wild_cluster_bootstrap(scores, labels, null=null, n_boot=499, rng=3)
    r2 = wild_cluster_bootstrap(scores + shift, labels, null=null + shift, n_boot=499, rng=3)
    np.testing.assert_equal(r1.p_value, r2.p_value)
    if r1.se == 0.0:  # every cluster has the same mean: no interval, before and after the shift
        assert math.isnan(r1.ci_low) and math.isnan(r2.ci_low) and math.isnan(r2.ci_high)
        return
    tol = 1e-12 * (1.0 + abs(shift)) + 1e-9 * r1.se
    assert r2.ci_low == pytest.approx(r1.ci_low + shift, abs=tol)
    assert r2.ci_high == pytest.approx(r1.ci_high + shift, abs=tol)


@settings(max_examples=40, deadline=None)
@given(designs(), st.sampled_from(["webb", "rademacher"]), st.floats(0.5, 0.99))
def test_interval_contains_the_estimate_and_its_ends_are_where_p_crosses_the_level(design, kind, level):
    """p at the estimate is the largest possible; the interval holds it; p crosses the level at its ends."""
    scores, labels = design
    r = wild_cluster_bootstrap(scores, labels, null=float(np.mean(scores)), weights=kind, n_boot=499,
                               confidence=level, rng=1)
    if r.se == 0.0:  # every cluster has the same mean, the null: no interval, p = 1 (issue 46: it was nan)
        assert r.p_value == 1.0 and math.isnan(r.ci_low) and math.isnan(r.ci_high)
        return
    draws = fast_draws(scores, labels, kind, 499, rng=1)
    nonconstant = draws.a.size / draws.total  # the tied constant vectors never exceed |t|
    floor = ((2 if kind == "rademacher" else 6) if r.enumerated else 1) / r.n_boot
    if r.enumerated:
        assert nonconstant == 1.0 - (2 if kind == "rademacher" else 6) / r.n_boot
    near = np.count_nonzero(np.abs(draws.t_star(0.0)) <= TIE) / draws.total  # t* = 0 = t: ties too
    assert r.p_value == pytest.approx(max(nonconstant - near, floor))  # never below the tied share
    if floor > 1.0 - level:  # the draws cannot show a p-value below the level: no null is rejected
        assert r.ci == (-math.inf, math.inf)
        return
    if nonconstant <= 1.0 - level:  # too few non-constant draws for any null to survive
        assert math.isnan(r.ci_low) and math.isnan(r.ci_high)
        return
    if r.p_value <= 1.0 - level:  # binary data: many draws tie at t* = 0 and the estimate is rejected
        return
    assert r.ci_low <= r.estimate <= r.ci_high
    eps = 1e-6 * r.se
    for end, inward in ((r.ci_low, 1.0), (r.ci_high, -1.0)):
        inside = wild_cluster_bootstrap(scores, labels, null=end + inward * eps, weights=kind, n_boot=499, rng=1)
        outside = wild_cluster_bootstrap(scores, labels, null=end - inward * eps, weights=kind, n_boot=499, rng=1)
        assert inside.p_value > 1.0 - level >= outside.p_value


@settings(max_examples=25, deadline=None)
@given(designs(), st.floats(-3.0, 3.0))
def test_nulls_outside_the_interval_are_rejected(design, t_away):
    """The interval is the hull of the accepted nulls: any null outside it has p <= 1 - confidence."""
    scores, labels = design
    r = wild_cluster_bootstrap(scores, labels, n_boot=499, rng=2)
    if not (r.se > 0.0 and math.isfinite(r.ci_low)):
        return
    for null in (r.ci_low - abs(t_away) * r.se - 1e-6 * r.se, r.ci_high + abs(t_away) * r.se + 1e-6 * r.se):
        assert wild_cluster_bootstrap(scores, labels, null=null, n_boot=499, rng=2).p_value <= 0.05


# ---------------------------------------------------------------- seeds, weights, result object


def test_seeded_draws_are_reproducible_and_enumeration_needs_no_seed():
    scores, labels = clustered(1, [4, 6, 2, 8, 5, 3, 7, 2, 6, 4, 5, 3, 6, 2, 9, 4])  # G = 16
    a = wild_cluster_bootstrap(scores, labels, null=0.5, rng=123)
    b = wild_cluster_bootstrap(scores, labels, null=0.5, rng=np.random.default_rng(123))
    c = wild_cluster_bootstrap(scores, labels, null=0.5, rng=124)
    assert a == b
    assert not a.enumerated and (a.p_value, a.ci) != (c.p_value, c.ci)
    few = clustered(1, [4, 6, 2])
    assert wild_cluster_bootstrap(*few, rng=1) == wild_cluster_bootstrap(*few, rng=2)


def test_auto_weights_switch_at_twelve_clusters_and_enumerate_when_they_fit():
    for g, kind, count in [(2, "webb", 36), (5, "webb", 7776), (6, "webb", 999), (12, "webb", 999),
                           (13, "rademacher", 999), (9, "rademacher", 512)]:
        scores, labels = clustered(g, [3] * g)
        weights = "rademacher" if g == 9 else "auto"
        r = wild_cluster_bootstrap(scores, labels, n_boot=9999 if count > 999 else 999, weights=weights, rng=0)
        assert (r.weights, r.n_boot, r.n_clusters) == (kind, count, g)
        assert r.enumerated == (count != 999)
    r = wild_cluster_bootstrap(*clustered(9, [3] * 9), weights="rademacher", n_boot=511, rng=0)
    assert (r.n_boot, r.enumerated) == (511, False)  # 2**9 = 512 does not fit in 511


def test_result_is_a_frozen_dataclass_of_plain_numbers():
    r = wild_cluster_bootstrap(*clustered(0, [3, 5, 2, 6]), null=0.5)
    assert isinstance(r, WildBootstrap) and r.ci == (r.ci_low, r.ci_high)
    for name in ("estimate", "null", "statistic", "se", "p_value", "ci_low", "ci_high", "confidence"):
        assert type(getattr(r, name)) is float, name
    for name in ("n", "n_clusters", "n_boot"):
        assert type(getattr(r, name)) is int, name
    with pytest.raises(AttributeError):
        r.p_value = 0.5
    assert r.se == pytest.approx(cr1_se(*_sums_n_g(*clustered(0, [3, 5, 2, 6]))))


def _sums_n_g(scores, labels):
    resid = scores - scores.mean()
    return np.bincount(labels, weights=resid), scores.size, int(labels.max()) + 1


def test_wild_compare_is_the_bootstrap_of_the_differences():
    a, labels = clustered(4, [5, 3, 8, 2, 6, 4, 7], binary=True)
    b, _ = clustered(5, [5, 3, 8, 2, 6, 4, 7], binary=True)
    r = wild_compare(a, b, labels, null=0.05, rng=8)
    assert r == wild_cluster_bootstrap(a - b, labels, null=0.05, rng=8)
    assert r.estimate == pytest.approx(a.mean() - b.mean())


def test_public_names():
    assert evalstats_core.wild_cluster_bootstrap is wild_cluster_bootstrap
    assert evalstats_core.WildBootstrap is WildBootstrap
    assert evalstats_core.wild_compare is wild_compare


# ---------------------------------------------------------------- edge cases


def test_constant_scores_have_zero_se_and_a_point_interval():
    r = wild_cluster_bootstrap([0.7] * 12, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5], null=0.7)
    assert r.se == 0.0 and math.isnan(r.statistic) and r.p_value == 1.0  # at the null (issue 46: it was nan)
    assert math.isnan(r.ci_low) and math.isnan(r.ci_high)  # no interval: every cluster has the same mean
    r = wild_cluster_bootstrap([0.7] * 12, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5], null=0.5)
    # never p = 0 from a zero SE: the exact sign-flip p 2/2^6, the same as compare's (whatever the weights)
    assert r.statistic == math.inf and r.p_value == 2.0**-5


def test_equal_cluster_means_give_zero_residual_sums():
    """Every cluster is (0, 1): S_g = 0 exactly, so se = 0: any other null is rejected outright."""
    r = wild_cluster_bootstrap([0, 1] * 6, np.repeat(np.arange(6), 2), null=0.4)
    assert r.se == 0.0 and r.statistic == math.inf and r.p_value == 2.0**-5 and math.isnan(r.ci_low)
    from evalstats_core import compare

    c = compare([0, 1] * 6, [0.4] * 12, np.repeat(np.arange(6), 2), interval="normal")
    assert r.p_value == c.p_value  # one answer: the sign-flip p of compare
    r = wild_cluster_bootstrap([0, 1] * 20, np.repeat(np.arange(20), 2), null=0.4)  # Rademacher: 2 / 2^20
    assert r.weights == "rademacher" and r.p_value == 2.0**-19


def test_nearly_equal_cluster_means_stay_finite():
    """Cluster means all 1/3 (residual sums zero up to rounding): the SE is 0, the answer exact."""
    r = wild_cluster_bootstrap([0, 0, 1] * 5, np.repeat(np.arange(5), 3), null=0.3)
    assert r.se == 0.0 and r.p_value == 2.0**-4
    assert math.isnan(r.ci_low) and math.isnan(r.ci_high)


def test_two_clusters():
    """G = 2: Webb's 36 vectors; 6 are constant and tie, so 6/36 <= p <= 30/36: no p-value can fall below
    5%, so no null is rejected and the 95% interval is the whole line (a finite one under-covered)."""
    scores, labels = clustered(2, [6, 9])
    r = wild_cluster_bootstrap(scores, labels, null=float(np.mean(scores)))
    assert (r.n_boot, r.weights, r.enumerated) == (36, "webb", True)
    assert r.p_value == pytest.approx(30 / 36)
    assert r.ci == (-math.inf, math.inf)
    far = wild_cluster_bootstrap(scores, labels, null=float(np.mean(scores)) + 10.0)
    assert far.p_value >= 6 / 36
    # Rademacher with G = 2: four vectors, two of them constant: p <= 1/2, so below 50% confidence
    # every null is rejected and there is no interval
    r = wild_cluster_bootstrap(scores, labels, null=float(np.mean(scores)), weights="rademacher", confidence=0.4)
    assert r.p_value == 0.5 and math.isnan(r.ci_low) and math.isnan(r.ci_high)


def test_many_clusters_agree_with_the_normal_test():
    """G = n = 3000 independent questions: the wild bootstrap p-value is close to 2 Phi(-|t|)."""
    from scipy.special import ndtr

    y = (np.random.default_rng(6).random(3000) < 0.62).astype(float)
    for null in (0.6, 0.62, 0.64):
        r = wild_cluster_bootstrap(y, null=null, n_boot=1999, rng=6)
        assert r.n_clusters == 3000
        p_normal = float(2.0 * ndtr(-abs(r.statistic)))
        assert abs(r.p_value - p_normal) <= 4.0 * math.sqrt(p_normal * (1 - p_normal) / 1999) + 0.01
    lo, hi = r.estimate - 1.96 * r.se, r.estimate + 1.96 * r.se
    assert r.ci_low == pytest.approx(lo, abs=0.15 * r.se) and r.ci_high == pytest.approx(hi, abs=0.15 * r.se)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"scores": [1.0]}, r"scores has 1 value"),
        ({"scores": [1.0, float("nan")]}, r"scores\[1\] is nan"),
        ({"clusters": [0, 0, 0, 0]}, r"1 distinct label"),
        ({"clusters": [0, 1, 0]}, r"shape \(3,\)"),
        ({"null": float("inf")}, r"null \(inf\) must be a finite number"),
        ({"confidence": 1.5}, r"confidence \(1.5\)"),
        ({"n_boot": 1}, r"n_boot \(1\)"),
        ({"n_boot": 99.5}, r"n_boot \(99.5\)"),
        ({"weights": "mammen"}, r"weights \('mammen'\) must be one of 'auto', 'rademacher', 'webb'"),
    ],
)
def test_bad_input_is_named(kwargs, match):
    args = {"scores": [0.1, 0.5, 0.9, 0.4], "clusters": [0, 0, 1, 1]} | kwargs
    scores = args.pop("scores")
    with pytest.raises(EvalStatsError, match=match):
        wild_cluster_bootstrap(scores, **args)


def test_wild_compare_rejects_unpaired_scores():
    with pytest.raises(EvalStatsError, match=r"a has 3 scores but b has 4"):
        wild_compare([1, 0, 1], [1, 1, 0, 0])
    with pytest.raises(EvalStatsError, match=r"b\[0\] is .*inf"):
        wild_compare([1, 0, 1], [float("inf"), 1, 0])


# ---------------------------------------------------------------- coverage with few, unequal clusters


def test_coverage_with_eight_unequal_clusters():
    """200 seeded evals of 8 passages (2 to 55 questions, accuracy ~ Beta(7, 3) per passage, mean 0.7).

    The 95% wild interval covers 0.7 in 193 of 200 (0.9375 over 2,000 such runs); the CR1 normal
    interval in 157 (0.81 over 2,000). A band of 0.90-0.99 for the wild interval (binomial SE 0.015
    at 0.95) and a clear gap over CR1.
    """
    sizes = np.array([2, 3, 5, 8, 13, 21, 34, 55])
    labels = np.repeat(np.arange(sizes.size), sizes)
    gen = np.random.default_rng(2024)
    wild_hits = cr1_hits = 0
    for _ in range(200):
        accuracy = gen.beta(7.0, 3.0, sizes.size)[labels]  # E = 0.7
        y = (gen.random(labels.size) < accuracy).astype(float)
        r = wild_cluster_bootstrap(y, labels, null=0.7, n_boot=999, rng=gen)
        wild_hits += r.ci_low <= 0.7 <= r.ci_high
        cr1_hits += abs(r.estimate - 0.7) <= 1.959964 * r.se  # the usual normal CR1 interval
    assert 0.90 <= wild_hits / 200 <= 0.99
    assert wild_hits - cr1_hits >= 10
