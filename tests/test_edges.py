"""Statistics at the edges (issue 20): no zero-width interval from a zero SE, 0/1 intervals that hold near
0% and 100%, a gate that cannot pass on no information, huge and tiny scores.

Each interval is checked three ways: against an independent implementation (oracle), by coverage on
realistic designs (exact, or simulated with modest replication counts; ``bench/bench_edges.py`` runs
the fuller versions), and through the sentence the user reads.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import optimize, stats

from evalstats_core import compare, summarize
from evalstats_core.analysis import analyze
from evalstats_core.data import load
from evalstats_core.edge_coverage import (
    BBH_SIZES,
    MMLU_SIZES,
    clustered_binary_coverage,
    clustered_binary_intervals,
    draw_cluster_counts,
    exact_binary_coverage,
    gate_pass_rate,
    paired_binary_coverage,
)
from evalstats_core.errors import EvalStatsWarning
from evalstats_core.gating import gate
from evalstats_core.proportions import (
    effective_proportion_ci,
    kish_n,
    paired_proportion_ci,
    paired_proportion_p,
)

Z = stats.norm.ppf(0.975)
SWE = (231, 75, 44, 34, 32, 22, 22, 19, 10, 8, 2, 1)  # SWE-bench Verified's 12 repositories


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        return fn(*args, **kwargs)


# ------------------------------------------------------------------------------------------ oracles


def tango_oracle(b: int, c: int, n: int) -> tuple[float, float]:
    """Tango's interval by brute force: the constrained MLE by numerical maximisation of the multinomial
    likelihood, and the ends by root finding on the score statistic (no closed form used)."""

    def z_stat(delta: float) -> float:
        lo, hi = max(0.0, -delta) + 1e-12, (1.0 - delta) / 2.0 - 1e-12  # p01 range keeping cells valid

        def negll(q: float) -> float:
            cells = np.array([q + delta, q, 1.0 - 2.0 * q - delta])
            counts = np.array([b, c, n - b - c])
            return -float(np.sum(np.where(counts > 0, counts * np.log(np.maximum(cells, 1e-300)), 0.0)))

        q = optimize.minimize_scalar(negll, bounds=(lo, hi), method="bounded",
                                     options={"xatol": 1e-13}).x if hi > lo else lo
        var = n * (2.0 * q + delta * (1.0 - delta))
        return (b - c - n * delta) / math.sqrt(var)

    d = (b - c) / n
    low = -1.0 if z_stat(-1.0 + 1e-9) <= Z else optimize.brentq(lambda x: z_stat(x) - Z, -1.0 + 1e-9, d, xtol=1e-13)
    high = 1.0 if z_stat(1.0 - 1e-9) >= -Z else optimize.brentq(lambda x: z_stat(x) + Z, d, 1.0 - 1e-9, xtol=1e-13)
    return low, high


@pytest.mark.parametrize("b,c,n", [(0, 0, 30), (5, 1, 100), (12, 3, 40), (0, 4, 20), (30, 25, 400), (3, 0, 12),
                                   (1, 0, 1000)])
def test_tango_interval_equals_a_brute_force_maximum_likelihood(b, c, n):
    got = paired_proportion_ci(b, c, n)
    assert got == pytest.approx(tango_oracle(b, c, n), abs=2e-6)


def test_tango_without_discordant_answers_is_z2_over_n_plus_z2():
    """0 discordant answers of 30: the interval is +-z^2/(n + z^2) = +-11.35 points, never [0, 0]."""
    low, high = paired_proportion_ci(0, 0, 30)
    assert (low, high) == pytest.approx((-Z**2 / (30 + Z**2), Z**2 / (30 + Z**2)), rel=1e-12)
    assert high == pytest.approx(0.1135, abs=1e-4)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40), st.integers(0, 40), st.integers(0, 60))
def test_tango_excludes_zero_exactly_when_its_test_rejects(b, c, rest):
    """The interval and the p-value are one answer: 0 lies outside exactly when p < 0.05; inside [-1, 1]."""
    n = b + c + rest
    if n == 0:
        return
    low, high = paired_proportion_ci(b, c, n)
    assert -1.0 <= low <= (b - c) / n <= high <= 1.0 and high > low
    p = paired_proportion_p(b, c)
    if b + c:
        assert p == pytest.approx(stats.chi2.sf((b - c) ** 2 / (b + c), 1), rel=1e-9)  # McNemar, uncorrected
        if abs(p - 0.05) > 1e-9:
            assert (p < 0.05) == (low > 0.0 or high < 0.0)


def test_korn_graubard_equals_clopper_pearson_on_the_effective_counts():
    """Korn & Graubard's interval: Beta quantiles at the effective n shrunk by (z / t_df)^2; with the
    binomial SE and no df it is Clopper-Pearson itself (statsmodels' 'beta')."""
    from statsmodels.stats.proportion import proportion_confint

    p, n = 0.95, 200
    se = math.sqrt(p * (1 - p) / n)
    got = effective_proportion_ci(p, se, n, math.inf, floor_n=10)
    assert got == pytest.approx(proportion_confint(190, 200, alpha=0.05, method="beta"), rel=1e-10)
    se, df = 0.02, 11.0
    n_star = p * (1 - p) / se**2 * (Z / stats.t.ppf(0.975, df)) ** 2
    x = p * n_star
    want = (stats.beta.ppf(0.025, x, n_star - x + 1), stats.beta.ppf(0.975, x + 1, n_star - x))
    assert effective_proportion_ci(p, se, 500, df, floor_n=12) == pytest.approx(want, rel=1e-9)


def test_kish_n_is_the_information_of_clusters_that_answer_as_one():
    assert kish_n([10] * 7) == pytest.approx(7.0)
    assert kish_n(SWE) == pytest.approx(500**2 / sum(s * s for s in SWE))
    assert kish_n([900, 50, 50]) < 1.3  # one cluster with 90% of the questions: about one cluster's worth


# ------------------------------------------------------------------------------------------ coverage


@pytest.mark.parametrize("p,n", [(0.99, 300), (0.99, 1000), (0.995, 1000), (0.95, 10), (0.95, 100), (0.005, 400)])
def test_one_model_exact_coverage_near_the_ceiling(p, n):
    """The default holds >= 93% exactly where t did not (99% at n = 300: t covers 79.9%)."""
    assert exact_binary_coverage(p, n) >= 0.93
    if (p, n) in ((0.99, 300), (0.995, 1000), (0.95, 10)):
        assert exact_binary_coverage(p, n, interval="normal") < 0.90  # the old default, for the record


def test_one_model_worst_exact_coverage_over_accuracies():
    """Over accuracies from 50% to 99.9% at n = 200 the rule never falls below 93% (Wilson alone: 84%)."""
    worst = min(exact_binary_coverage(1 - q, 200) for q in np.geomspace(0.0005, 0.5, 30))
    assert worst >= 0.93


def test_clustered_model_at_95_percent_with_12_swe_like_clusters():
    """Issue 20's held-out design: 95% accuracy, 12 SWE-like clusters, ICC 0.1 (CR2 t: 85.8%)."""
    cov = clustered_binary_coverage(SWE, 0.95, 0.1, reps=600, rng=20)
    assert cov >= 0.92
    assert clustered_binary_coverage(SWE, 0.95, 0.1, reps=600, rng=20, interval="normal") < 0.90


def test_vectorised_clustered_intervals_equal_summarize():
    """The coverage tables' vectorised intervals are summarize's default (and t) intervals, draw by draw."""
    gen = np.random.default_rng(37)
    for sizes, mean, icc in ((SWE, 0.95, 0.2), ((37,) * 27, 0.99, 0.1), ((200,) * 5, 0.8, 0.3), ((40,) * 3, 0.998, 0.3),
                             ((90, 10), 0.5, 0.1), ((60, 40), 0.97, 0.2), ((900, 50, 50), 0.8, 0.1),
                             ((970, 10, 10, 10), 0.95, 0.2), ((990, 10), 0.8, 0.3)):
        sz = np.asarray(sizes, dtype=np.float64)
        x = draw_cluster_counts(sz, mean, icc, 25, gen)
        got = clustered_binary_intervals(x, sz)
        labels = np.repeat(np.arange(sz.size), sizes)
        for r in range(25):
            scores = np.concatenate([np.r_[np.ones(int(c)), np.zeros(s - int(c))] for c, s in zip(x[r], sizes, strict=True)])
            for kind, interval in (("default", "auto"), ("t", "normal")):
                s = quiet(summarize, scores, labels, interval=interval)
                if math.isnan(s.ci_low):  # zero SE: summarize gives no t interval
                    assert kind == "t" and got[kind][0][r] == got[kind][1][r]
                    continue
                assert (s.ci_low, s.ci_high) == pytest.approx((got[kind][0][r], got[kind][1][r]), abs=1e-9)


def test_two_unequal_clusters_keep_their_level():
    """Two clusters holding 90% and 10% of the questions at 50% accuracy: the old default (Korn-Graubard,
    logit CR2 and beta-binomial, or t) covered 90-92%, because CR2's variance (and the effective n from it)
    is 0.22x the truth when the two means vary alike; the two cluster means' interval restores 93%+."""
    gen = np.random.default_rng(2090)
    sz = np.array([900.0, 100.0])
    for icc in (0.05, 0.1):
        low, high = clustered_binary_intervals(draw_cluster_counts(sz, 0.5, icc, 4000, gen), sz)["default"]
        assert np.mean((low <= 0.5) & (0.5 <= high)) >= 0.935, icc


def test_two_cluster_interval_is_exact_for_two_normal_means():
    """two_cluster_ci covers 95% when the two cluster means are normal with equal variance (whatever the
    shares), and is CR2's t interval on 1 df with equal shares."""
    from evalstats_core.cluster_means import (
        two_cluster_ci,  # two_clusters merged into cluster_means (issue 38)
    )

    gen = np.random.default_rng(2091)
    for f1 in (0.5, 0.9, 0.99):
        m = 0.5 + 0.01 * gen.standard_normal((200_000, 2))
        mean = f1 * m[:, 0] + (1 - f1) * m[:, 1]
        se = math.sqrt(f1 * (1 - f1)) * np.abs(m[:, 0] - m[:, 1])  # CR2's SE of two clusters
        low, high = two_cluster_ci(mean, se, [f1, 1 - f1])
        assert np.mean((low <= 0.5) & (0.5 <= high)) == pytest.approx(0.95, abs=0.002), f1
    low, high = two_cluster_ci(0.5, 0.01, [3, 3])
    assert (low, high) == pytest.approx((0.5 - 12.7062047 * 0.01, 0.5 + 12.7062047 * 0.01))


def test_two_cluster_file_gets_the_cluster_means_interval():
    """summarize on 0/1 scores in two clusters (90/10) labels the interval and contains CR2's t."""
    scores = np.r_[np.ones(500), np.zeros(400), np.ones(60), np.zeros(40)]  # cluster means 0.56 and 0.60
    labels = np.r_[np.zeros(900), np.ones(100)]
    auto = quiet(summarize, scores, labels)
    t = quiet(summarize, scores, labels, interval="normal")
    assert auto.interval == "cluster-means"
    assert auto.ci_low < t.ci_low and auto.ci_high > t.ci_high and 0.0 <= auto.ci_low


def test_clustered_model_mid_range_keeps_its_level():
    assert clustered_binary_coverage([37] * 27, 0.7, 0.2, reps=400, rng=21) >= 0.92


@pytest.mark.parametrize("n,only_a,only_b", [(30, 0.01, 0.06), (100, 0.01, 0.06), (10, 0.2, 0.1)])
def test_paired_coverage_near_the_ceiling(n, only_a, only_b):
    assert paired_binary_coverage(n, only_a, only_b, reps=300, rng=22) >= 0.93


def test_paired_clustered_coverage_near_the_ceiling():
    assert paired_binary_coverage(500, 0.01, 0.04, sizes=SWE, icc=0.1, reps=300, rng=23) >= 0.92


@pytest.mark.parametrize("n,margin", [(30, 0.02), (20, 0.03)])
def test_gate_false_pass_rate_at_the_margin(n, margin):
    """A candidate truly 5 points worse: the old gate passed 21% / 36% of runs, a correct one <= 2.5%."""
    assert gate_pass_rate(n, 0.05, margin, reps=300, rng=24) <= 0.025
    assert gate_pass_rate(n, 0.05, margin, reps=300, rng=24, interval="normal") > 0.10


def test_gate_false_pass_rate_clustered():
    assert gate_pass_rate(500, 0.05, 0.02, sizes=SWE, icc=0.1, reps=200, rng=25) <= 0.025


# ------------------------------------------------------------------------------------------ zero SE


def identical_file(n: int = 30) -> bytes:
    rows = ["question,base,cand"] + [f"q{i},{i % 2},{i % 2}" for i in range(n)]
    return ("\n".join(rows) + "\n").encode()


def test_identical_models_on_30_questions_do_not_pass_the_gate():
    g = gate(load(identical_file(), name="r.csv"), baseline="base", candidate="cand", margin=0.02)
    assert g.verdict == "inconclusive" and g.exit_code == 3
    assert g.ci_low == pytest.approx(-Z**2 / (30 + Z**2)) and g.ci_high > 0.11
    text = g.headline()
    assert "sits exactly on the boundary" not in text
    assert "every shared question has the same score difference" in text and f"{100 * g.ci_low:+.1f}" in text
    (footer,) = [r for r in g.markdown().splitlines() if r.startswith("Paired on")]  # names the interval read
    assert "(Tango score (discordant answers) interval)" in footer and "n - 1 df" not in footer, footer
    # 0/1 answers get Tango's interval at any count (200 discordant of 400 here; t before gate5), other scores t
    rows = ["question,base,cand"] + [f"q{i},{i % 2},{(i // 2) % 2}" for i in range(400)]
    assert "(Tango score (discordant answers, continuity-corrected) interval)" in gate(
        load(("\n".join(rows) + "\n").encode(), name="t.csv"), baseline="base", candidate="cand", margin=0.02).markdown()
    rows = ["question,base,cand"] + [f"q{i},{(i % 7) / 7},{(i // 7) % 5 / 5}" for i in range(400)]
    assert "(t (n - 1 df), 399.0 df)" in gate(load(("\n".join(rows) + "\n").encode(), name="t.csv"), baseline="base",
                                    candidate="cand", margin=0.02).markdown()


def test_continuous_identical_models_have_no_interval_and_the_gate_says_why():
    rows = ["question,base,cand"] + [f"q{i},{(i % 7) / 7},{(i % 7) / 7}" for i in range(30)]
    g = gate(load(("\n".join(rows) + "\n").encode(), name="r.csv"), baseline="base", candidate="cand",
             margin=0.02)
    assert g.verdict == "inconclusive" and math.isnan(g.ci_low)
    assert "No interval: every shared question has the same score difference" in g.headline()


def clustered_equal_means() -> bytes:
    """C and D each score 50% in both clusters (50 of 100 right) but disagree on 30 of each cluster's 50
    questions: every cluster's mean difference is 0, so the clustered SE is 0, though the scores vary."""
    rows = ["question,model,score,cluster"]
    for q in range(100):
        cl, i = divmod(q, 50)
        c = int(i < 25)
        d = int(15 <= i < 40)  # 25 of 50 right, like C, but on different questions
        rows += [f"q{q},C,{c},k{cl}", f"q{q},D,{d},k{cl}"]
    return ("\n".join(rows) + "\n").encode()


def test_equal_cluster_means_give_no_zero_width_interval_and_true_sentences():
    res = quiet(analyze, load(clustered_equal_means(), name="r.csv", cluster_col="cluster"))  # 2: chosen (issue 46)
    c_model = res.model("C")
    assert c_model.se == 0.0 and c_model.ci_high - c_model.ci_low > 0.5  # two clusters: little information
    assert 0.0 <= c_model.ci_low and c_model.ci_high <= 1.0
    (pair,) = res.comparisons
    assert pair.se == 0.0 and pair.ci_high - pair.ci_low > 0.5 and -1 <= pair.ci_low and pair.ci_high <= 1
    text = " ".join(res.warnings)
    assert "C: every cluster has the same mean score" in text
    assert "scored 50.0% on every question" not in text and "same score difference on every shared question" \
        not in text
    assert "have the same mean score difference in every cluster" in text


def test_summarize_on_binary_scores_stays_inside_0_1():
    for scores in ([1] * 12 + [0], [1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0], [0] * 40 + [1]):
        s = summarize(scores)
        assert 0.0 <= s.ci_low < s.ci_high <= 1.0
    raw = summarize([1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0], interval="normal")
    assert raw.ci_high > 1.0  # only when the raw t interval is asked for


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 1), min_size=4, max_size=60), st.integers(2, 5))
def test_binary_intervals_never_leave_their_range(values, n_clusters):
    x = np.array(values, float)
    labels = np.arange(x.size) % n_clusters
    for s in (summarize(x), quiet(summarize, x, labels)):
        assert 0.0 <= s.ci_low <= s.mean <= s.ci_high <= 1.0 and s.ci_high > s.ci_low
    c = quiet(compare, x, x[::-1], labels)
    assert -1.0 <= c.ci_low <= c.diff <= c.ci_high <= 1.0 and c.ci_high > c.ci_low


def test_huge_and_denormal_scores_never_give_a_zero_se():
    base = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    ref = summarize(base)
    for scale in (1e154, 1e-310, 1e300):
        s = summarize(base * scale)
        assert s.se == pytest.approx(ref.se * scale, rel=1e-9) and s.df == ref.df
        c = compare(base * 1.5 * scale, base * scale)
        assert c.se > 0.0 and c.p_value == pytest.approx(compare(base * 1.5, base).p_value, rel=1e-9)


# ------------------------------------------------------------------------------------------ wild bootstrap


def test_wild_rademacher_with_few_clusters_warns_and_never_shows_p_0():
    from evalstats_core.wild import wild_cluster_bootstrap

    scores = [1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1]
    labels = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]
    with pytest.warns(EvalStatsWarning, match="only 8 sign vectors"):
        r = wild_cluster_bootstrap(scores, labels, null=0.2, weights="rademacher")
    assert r.p_value >= 2 / 8 and r.ci == (-math.inf, math.inf)  # 3 clusters cannot reject at 5%
    auto = wild_cluster_bootstrap(scores, labels, null=0.2)
    assert auto.weights == "webb" and auto.p_value >= 6 / 6**3


def test_wild_zero_se_p_is_the_sign_flip_p_of_compare():
    from evalstats_core.wild import wild_compare

    a = [1, 0, 1, 0, 1, 0]
    b = [0, 0, 0, 0, 0, 0]
    labels = [0, 0, 1, 1, 2, 2]
    r = wild_compare(a, b, labels)
    c = quiet(compare, a, b, labels, interval="normal")
    assert r.se == 0.0 and r.p_value == c.p_value == 0.25 and math.isnan(r.ci_low)


# ------------------------------------------------------------------------------------------ plans


def realised_power(n_clusters: int, size: int, delta: float, sd_cluster: float, sd_question: float,
                   reps: int, seed: int) -> float:
    """Share of simulated evals whose default paired test (compare, CR2 t) is significant at 5%."""
    gen = np.random.default_rng(seed)
    labels = np.repeat(np.arange(n_clusters), size) if size > 1 else None
    hits = 0
    for _ in range(reps):
        d = delta + np.repeat(gen.normal(0, sd_cluster, n_clusters), size) + gen.normal(0, sd_question,
                                                                                         n_clusters * size)
        c = quiet(compare, d, np.zeros_like(d), labels)
        hits += c.p_value < 0.05
    return hits / reps


def test_plan_with_t_delivers_its_power_where_z_falls_short():
    """Clusters of 20, true clustered omega2 = sd_q^2 + 20 sd_c^2: the t plan (df = G - 1) delivers 80%
    within 5 points; the z plan, ending at fewer clusters, delivers less."""
    from evalstats_core.power import sample_size, sample_size_t

    size, sd_c, sd_q, delta = 20, 0.15, 0.3, 0.16
    omega2 = sd_q**2 + size * sd_c**2
    n_t = sample_size_t(delta, omega2=omega2, df_per_question=1 / size)
    n_z = sample_size(delta, omega2=omega2)
    g_t, g_z = math.ceil(n_t / size), math.ceil(n_z / size)
    assert g_z < g_t <= 14
    got = realised_power(g_t, size, delta, sd_c, sd_q, reps=500, seed=30)
    assert abs(got - 0.8) <= 0.05
    assert realised_power(g_z, size, delta, sd_c, sd_q, reps=500, seed=31) < got


def test_answers_needed_with_t_delivers_its_power_at_few_questions():
    """10 questions, answers averaged over K per question: the K of answers_needed (t on 9 df) delivers
    80% within 5 points; the K the paper's z formula asks for (fewer answers) delivers less."""
    from evalstats_core.planning import answers_needed
    from evalstats_core.power import mde_t

    n, omega2, s2 = 10, 0.02, 0.25
    delta = mde_t(n, omega2=omega2, sigma2_a=s2, sigma2_b=s2, k_a=6, k_b=6)  # exactly K = 6 on t(9)
    k_t = answers_needed(n, delta, omega2=omega2, sigma2_a=s2, sigma2_b=s2)
    k_z = answers_needed(n, delta, omega2=omega2, sigma2_a=s2, sigma2_b=s2, df=math.inf)
    assert k_t == pytest.approx(6.0) and math.ceil(k_z) == 5

    def power(k: int, seed: int, reps: int = 1500) -> float:
        gen = np.random.default_rng(seed)
        hits = 0
        for _ in range(reps):
            d = gen.normal(delta, math.sqrt(omega2), n)  # question-level true differences
            a = d + gen.normal(0, math.sqrt(s2 / k), n)  # means of k noisy answers per model
            b = gen.normal(0, math.sqrt(s2 / k), n)
            hits += stats.ttest_rel(a, b).pvalue < 0.05  # the default paired test (= compare's p)
        return hits / reps

    got = power(6, seed=33)
    assert abs(got - 0.8) <= 0.05
    assert power(5, seed=34) < got - 0.02


def test_plan_pair_uses_t_on_the_tests_df():
    from evalstats_core.data import question_scores
    from evalstats_core.planning import plan_pair
    from evalstats_core.power import sample_size

    rows = ["question,A,B"] + [f"q{i},{(i * 7 % 10) / 10},{(i * 3 % 10) / 10}" for i in range(12)]
    tb = question_scores(load(("\n".join(rows) + "\n").encode(), name="p.csv"))
    plan = plan_pair(None, tb, analyze(tb), "A", "B", delta=0.2)
    assert plan.df == 11 and plan.n_needed > sample_size(0.2, omega2=plan.omega2)
    n = plan.n_needed  # averaged over omega2 = s2 11 / chi2_11 (24 equal shares), t on n - 1 df
    q = (np.arange(24) + 0.5) / 24
    omega = plan.omega2 * 11 / stats.chi2.ppf(1 - q, 11)
    assert np.mean(stats.t.cdf(0.2 * np.sqrt(n / omega) - stats.t.ppf(0.975, n - 1), n - 1)) == pytest.approx(0.8)
    assert n > (stats.t.ppf(0.975, n - 1) + stats.t.ppf(0.8, n - 1)) ** 2 * plan.omega2 / 0.04


def test_cr2_omega2_is_unbiased_for_independent_questions_where_cr1_is_low():
    """Unequal (SWE-like) clusters, independent differences of variance 1: the CR2 form averages 1, the
    CR1 form well below; the direction of what remains with correlated questions is stated (down)."""
    from evalstats_core.pilot import _cr2_variance

    gen = np.random.default_rng(32)
    labels = np.repeat(np.arange(len(SWE)), SWE)
    cr2, cr1 = [], []
    for _ in range(1500):
        d = gen.normal(0, 1, labels.size)
        cr2.append(_cr2_variance(d, labels))
        t = np.bincount(labels, weights=d - d.mean())
        cr1.append(len(SWE) / (len(SWE) - 1) * float(t @ t) / labels.size)
    assert abs(np.mean(cr2) - 1.0) < 0.06 and np.mean(cr1) < 0.8


def test_plan_note_states_how_often_a_few_cluster_pilot_under_plans():
    """The note says what the plan delivers (its power on average, a third of the plans short, checked by
    simulation in tests/test_plan_pilots.py); the CR2 omega2 it no longer plans from falls below the truth
    in at least P(chi2_df < df) of pilots for independent questions and more with correlated ones (ICC 0.1)."""
    from scipy.special import chdtr

    from evalstats_core._clusters import cr2_se_df
    from evalstats_core.data import question_scores
    from evalstats_core.pilot import _cr2_variance
    from evalstats_core.planning import plan_pair

    sizes = np.asarray(SWE, dtype=np.float64)
    _, df = cr2_se_df(np.zeros_like(sizes), sizes, 500)
    stated = float(chdtr(df, df))
    gen = np.random.default_rng(35)
    labels = np.repeat(np.arange(len(SWE)), SWE)
    rows = ["question,cluster,A,B"] + [f"q{i},c{g},{gen.normal():.6f},{gen.normal():.6f}" for i, g in enumerate(labels)]
    tb = question_scores(load(("\n".join(rows) + "\n").encode(), name="plan.csv"))
    plan = quiet(plan_pair, None, tb, quiet(analyze, tb), "A", "B", delta=0.2)
    assert "plans from pilots like this one deliver their power on average, but not each one" in plan.note
    for icc in (0.0, 0.1):
        truth = (1 - icc) + icc * float(sizes @ sizes) / 500  # n Var(mean difference)
        low = [_cr2_variance(gen.normal(0, math.sqrt(1 - icc), 500)
                             + np.repeat(gen.normal(0, math.sqrt(icc), len(SWE)), SWE), labels) < truth
               for _ in range(1500)]
        assert np.mean(low) >= stated - 0.03


# ------------------------------------------------------------------------------------------ unpaired df

UNPAIRED_A = [1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1]
UNPAIRED_B = [0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0]
UNPAIRED_G = [1] * 10 + [2] * 8 + [3] * 4
# clubSandwich 0.5.x: coef_test(lm(y ~ grp), vcov = "CR2", cluster = paste(grp, g), test = "Satterthwaite")
# on y = c(a, b), grp = A/B (each model's clusters its own); SE, df_Satt, p_Satt of grpB
CLUBSANDWICH_UNPAIRED = (0.056401793164, 3.467889908257, 0.007377765557)


def test_unpaired_clustered_df_equals_clubsandwich():
    c = quiet(compare, UNPAIRED_B, UNPAIRED_A, UNPAIRED_G, paired=False)
    assert (c.se, c.df, c.p_value) == pytest.approx(CLUBSANDWICH_UNPAIRED, rel=1e-9)
    welch = (c.se_unpaired**2) ** 2 / sum(s**4 / d for s, d in (
        (quiet(summarize, UNPAIRED_A, UNPAIRED_G).se, quiet(summarize, UNPAIRED_A, UNPAIRED_G).df),
        (quiet(summarize, UNPAIRED_B, UNPAIRED_G).se, quiet(summarize, UNPAIRED_B, UNPAIRED_G).df)))
    assert welch != pytest.approx(c.df)  # the old (Welch on estimated variances) df differs


def test_live_r_unpaired_clustered_df_equals_clubsandwich(tmp_path):
    import shutil
    import subprocess

    if shutil.which("Rscript") is None:
        pytest.skip("Rscript is not installed")
    script = tmp_path / "u.R"
    script.write_text(
        "suppressPackageStartupMessages(library(clubSandwich))\n"
        f"a <- c({', '.join(map(str, UNPAIRED_A))}); b <- c({', '.join(map(str, UNPAIRED_B))})\n"
        f"g <- c({', '.join(map(str, UNPAIRED_G))})\n"
        "y <- c(a, b); grp <- rep(c('A', 'B'), each = length(a)); cl <- paste(grp, c(g, g))\n"
        "r <- coef_test(lm(y ~ grp), vcov = 'CR2', cluster = cl, test = 'Satterthwaite')\n"
        "cat(sprintf('%.12f %.12f %.12f', r$SE[2], r$df_Satt[2], r$p_Satt[2]))\n")
    out = subprocess.run(["Rscript", str(script)], capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip(f"clubSandwich not available: {out.stderr.strip()[:200]}")
    assert tuple(float(x) for x in out.stdout.split()) == pytest.approx(CLUBSANDWICH_UNPAIRED, rel=1e-9)


def test_unpaired_warning_names_the_df():
    rows = ["question,cluster,A,B"] + [f"q{i},{g},{a},{b}" for i, (g, a, b) in
                                       enumerate(zip(UNPAIRED_G, UNPAIRED_A, UNPAIRED_B, strict=True))]
    res = quiet(analyze, load(("\n".join(rows) + "\n").encode(), name="u.csv", cluster_col="cluster"), paired=False)
    assert any("clubSandwich's Satterthwaite degrees of freedom" in w for w in res.warnings)
    res = analyze(load(("\n".join(r.split(",", 2)[0] + "," + r.split(",", 2)[2] for r in rows) + "\n").encode()),
                  paired=False)
    assert any("Welch's degrees of freedom" in w for w in res.warnings)


def test_two_half_widths_that_differ_never_print_the_same():
    from evalstats_core.guardrails import _halves

    class Unit:
        unit = "percent"

    wide, narrow = _halves(0.01502, 0.01498, Unit())
    assert wide != narrow and wide == "±1.502 points" and narrow == "±1.498 points"
    assert _halves(0.02, 0.01, Unit()) == ("±2.0 points", "±1.0 points")


def test_verdicts_say_every_cluster_not_every_question():
    from evalstats_core.report import verdicts

    rows = ["question,model,score,cluster"]
    for q in range(100):
        rows += [f"q{q},C,{(q % 50) / 50},c{q // 50}", f"q{q},E,{((q * 7) % 50) / 50},c{q // 50}"]
    res = quiet(analyze, load(("\n".join(rows) + "\n").encode(), name="x.csv", cluster_col="cluster"))  # 2 clusters
    (text,) = verdicts(res)
    assert "have the same mean score difference in every cluster" in text and "every shared question" not in text
    assert math.isnan(res.comparisons[0].ci_low)
    # with Tango's interval a zero SE still has an interval, and the verdict reads it
    (text,) = verdicts(analyze(load(identical_file(), name="r.csv")))
    assert "cannot be told apart" in text and "95% CI -11.4 to 11.4" in text


def test_different_scores_warning_quotes_two_scores_that_differ():
    """A (question, model) pair on three rows whose first two agree: the example quotes rows that differ."""
    import re

    from evalstats_core._records import _distinct

    ds = load(b"question,model,score\nq1,A,0.5\nq1,A,0.5\nq1,A,0.7\nq2,A,1\nq3,A,0\n", name="d.csv")
    (warning,) = [w for w in ds.warnings if "different scores" in w]
    quoted = re.findall(r"\(([-0-9.e]+)\)", warning)
    assert len(quoted) == 2 and quoted[0] != quoted[1], warning
    assert _distinct(0.1234567, 0.1234568) == ("0.1234567", "0.1234568")


def test_zero_se_verdict_prints_the_exact_difference_in_points():
    """B = A - 0.1 on every question, beside a pair whose SE (1e-10) sets six decimals: the verdict says
    '-10 points', not '(-10.000000%)'."""
    from evalstats_core.report import verdicts

    gen = np.random.default_rng(36)
    a = 0.2 + 0.7 * gen.random(40).round(3)
    rows = ["question,A,B,C"] + [f"q{i},{x!r},{x - 0.1!r},{x + 1e-9 * gen.normal()!r}" for i, x in enumerate(a.tolist())]
    res = quiet(analyze, load(("\n".join(rows) + "\n").encode(), name="x.csv"))
    assert res.unit == "percent"
    (text,) = [v for v in verdicts(res) if v.startswith("B and A")]
    assert "differ by the same amount on every shared question (-10 points)" in text, text


# ------------------------------------------------------------------------------------------ guardrail claims

U57 = tuple(int(v) for v in np.random.default_rng(0).integers(5, 60, 57))  # sizes 5-59, as the designs bench
ONE_BIG = ((900, 100), (990, 10), (900, 50, 50), (970, 10, 10, 10))  # one cluster holds 90-99% of the questions
CLAIM_DESIGNS = {  # the designs behind each range the guardrails quote (edge_coverage.COVERAGE_CLAIMS)
    "t_many_mid": ("t", (SWE, (37,) * 27, U57), (0.05, 0.1, 0.2), (0.3, 0.5, 0.7)),
    "t_swe_95": ("t", (SWE,), (0.1,), (0.95,)),
    "default_many_95": ("default", (SWE, (37,) * 27, U57), (0.05, 0.1, 0.2), (0.95,)),
    "default_many_99": ("default", (SWE, (37,) * 27, U57, MMLU_SIZES, BBH_SIZES), (0.05, 0.1, 0.2, 0.3), (0.99,)),
    "t_few_mid": ("t", ((300,) * 3, (200,) * 5, (400, 100, 50, 50, 30, 20, 10, 5)), (0.05, 0.1, 0.2),
                  (0.3, 0.5, 0.7)),
    "t_one_big_mid": ("t", ONE_BIG, (0.05, 0.1, 0.2), (0.3, 0.5, 0.7)),
    "default_few_95": ("default", ((300,) * 3, (200,) * 5, (400, 100, 50, 50, 30, 20, 10, 5)), (0.05, 0.1, 0.2),
                       (0.95,)),
    "default_one_big_mid": ("default", ONE_BIG, (0.05, 0.1, 0.2), (0.3, 0.5, 0.7)),
}


@pytest.mark.parametrize("key", sorted(CLAIM_DESIGNS))
def test_guardrail_coverage_claims_hold_by_simulation(key):
    """Every range the few-clusters / extremes guardrails quote is what simulation finds: each design's
    coverage inside it (3 Monte Carlo SEs of slack) and its ends reached (the range is not padded)."""
    from evalstats_core.edge_coverage import COVERAGE_CLAIMS

    kind, designs, iccs, means = CLAIM_DESIGNS[key]
    lo, hi = COVERAGE_CLAIMS[key]
    gen = np.random.default_rng(38)
    got = []
    for sizes in designs:
        sz = np.asarray(sizes, dtype=np.float64)
        for icc in iccs:
            for mean in means:
                x = draw_cluster_counts(sz, mean, icc, 6000, gen)
                low, high = clustered_binary_intervals(x, sz, profile=kind != "t")[kind]  # t needs no likelihood
                got.append(float(np.mean((low <= mean) & (mean <= high))))
    assert lo - 0.01 <= min(got) and max(got) <= hi + 0.01, (key, min(got), max(got))
    assert min(got) <= lo + 0.02 and max(got) >= hi - 0.02, (key, min(got), max(got))


def test_guardrails_quote_the_simulated_claims():
    """The few-clusters guardrail prints the ranges of COVERAGE_CLAIMS (ok with 12 clusters, warn with 5),
    and the extremes guardrail the t interval's exact 80% at 99% accuracy on 300 questions."""
    from evalstats_core.guardrails import guardrails

    gen = np.random.default_rng(39)

    def checks(sizes, mean):
        rows = ["question,cluster,A,B"]
        for g, size in enumerate(sizes):
            for i in range(size):
                rows.append(f"q{g}_{i},c{g},{int(gen.random() < mean)},{int(gen.random() < 0.5)}")
        from evalstats_core.data import question_scores

        ds = load(("\n".join(rows) + "\n").encode(), name="g.csv", cluster_col="cluster")  # chosen (issue 46)
        tb = question_scores(ds)
        return {g.check: g for g in quiet(guardrails, ds, tb, quiet(analyze, tb))}

    few = checks(SWE, 0.95)["few_clusters"]
    assert few.status == "ok" and "covered 92-96% for accuracies between 30% and 70%" in few.detail
    assert "(84-86% at 95% accuracy" in few.detail and "covered 95-98% at 95% accuracy and 94-100% at 99%" in few.detail
    assert "can fall below" not in few.detail  # the old caveat, no longer true
    few = checks((200,) * 5, 0.7)["few_clusters"]
    assert few.status == "warn" and "covered 92-96%" in few.detail and "covered 95-99%" in few.detail
    assert "cluster means' interval" not in few.detail  # 5 equal clusters: 5 clusters' worth
    two = checks((900, 100), 0.6)  # two clusters holding 90% and 10%: Kish's 1.2 clusters
    assert two["few_clusters"].status == "warn" and "about one cluster's worth of information" in two["few_clusters"].detail
    assert "The largest cluster holds 90% of the questions" in two["few_clusters"].detail
    assert "its t interval covered 73-93%" in two["few_clusters"].detail
    assert "at least the cluster means' interval" in two["few_clusters"].detail
    assert "which covered 95-99% there" in two["few_clusters"].detail
    assert round(exact_binary_coverage(0.99, 300, interval="normal"), 2) == 0.80


def test_few_df_caveat_says_what_is_true():
    """The caveat that replaced 'fragile': the SE range it quotes holds by simulation (10 normal questions:
    the estimated SE within 0.55x-1.45x of the true one 95% of the time), and with one cluster holding 90% of
    the questions the verdict says 'about one cluster's worth of information'."""
    from evalstats_core.report import verdicts
    from evalstats_core.report_words import se_range

    lo, hi = se_range(9.0)
    sd = np.random.default_rng(40).normal(size=(20000, 10)).std(axis=1, ddof=1)
    assert np.mean((lo <= sd) & (sd <= hi)) == pytest.approx(0.95, abs=0.005)
    gen = np.random.default_rng(41)
    rows = ["question,cluster,A,B"] + [f"q{i},c{0 if i < 900 else 1 + (i >= 950)},{gen.random():.4f},{gen.random():.4f}"
                                        for i in range(1000)]
    (text,) = verdicts(quiet(analyze, load(("\n".join(rows) + "\n").encode(), name="one.csv", cluster_col="cluster")))
    assert "with 3 clusters the standard error rests on 1.1 degrees of freedom, about one cluster's worth of " \
           "information" in text and "fragile" not in text


def test_skewness_caution_is_true_by_simulation_and_shown():
    """Beta scores with mean 95%: the t interval's coverage is about 93% where |skewness|/sqrt(n) is 0.3 and
    the quoted 86% (n = 30, skewness -3.6) / 92% (n = 100); a file like that gets the caution, a symmetric
    one does not."""
    from evalstats_core.data import question_scores
    from evalstats_core.guardrails import (
        SKEW_FLAG,  # guardrail_edges merged into guardrails (issue 38)
        guardrails,
    )

    gen = np.random.default_rng(42)

    def coverage(a, b, n, reps=20000):
        x = gen.beta(a, b, size=(reps, n))
        half = stats.t.ppf(0.975, n - 1) * x.std(axis=1, ddof=1) / math.sqrt(n)
        return float(np.mean(np.abs(x.mean(axis=1) - a / (a + b)) <= half))

    skew = lambda a, b: 2 * (b - a) * math.sqrt(a + b + 1) / ((a + b + 2) * math.sqrt(a * b))  # noqa: E731
    assert skew(1.9, 0.1) == pytest.approx(-3.58, abs=0.01)
    assert coverage(1.9, 0.1, 30) == pytest.approx(0.86, abs=0.01)
    assert coverage(1.9, 0.1, 100) == pytest.approx(0.92, abs=0.01)
    n = round((abs(skew(9.5, 0.5)) / SKEW_FLAG) ** 2)  # the flag's ratio at skewness -2.3
    assert coverage(9.5, 0.5, n) == pytest.approx(0.93, abs=0.01)

    def extremes(a, b):
        rows = ["question,A"] + [f"q{i},{v:.5f}" for i, v in enumerate(gen.beta(a, b, 30))]
        ds = load(("\n".join(rows) + "\n").encode(), name="s.csv")
        tb = question_scores(ds)
        return {g.check: g for g in quiet(guardrails, ds, tb, quiet(analyze, tb))}["extremes"]

    got = extremes(1.9, 0.1)
    assert got.status == "warn" and "skewed" in got.detail and "86% with 30 questions" in got.detail
    assert extremes(5, 5).status == "ok"
