"""Planning the next run from a results file: estimates, MDE, questions and answers needed, power link."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.special import ndtri

from evalstats_app.examples import example_bytes
from evalstats_app.page_keys import LINK_DELTA_RANGE, power_link
from evalstats_core.analysis import analyze
from evalstats_core.data import load, question_scores
from evalstats_core.errors import EvalStatsError
from evalstats_core.pilot import pilot_estimates
from evalstats_core.planning import answers_needed, describe, plan_pair
from evalstats_core.power import PRESETS, mde, sample_size

ROOT = Path(__file__).resolve().parent.parent


def loaded(slug: str):
    data, name = example_bytes(slug)
    ds = load(data, name=name)
    tb = question_scores(ds)
    return ds, tb, analyze(tb)


def test_resampled_plan_uses_answer_level_estimates():
    """With K = 5 answers, sigma2 comes from the answers (Appendix C), the same as pilot_estimates on (n, K)."""
    ds, tb, a = loaded("synthetic")
    plan = plan_pair(ds, tb, a, "chat-7b", "base-7b", delta=0.03)
    f = ds.frame
    arrays = []
    for model in ("chat-7b", "base-7b"):
        sub = f[f["model"] == model].sort_values("question", kind="stable")
        codes = sub["question"].cat.codes.to_numpy()
        order = np.argsort(codes, kind="stable")
        arrays.append(sub["score"].to_numpy()[order].reshape(-1, 5))
    est = pilot_estimates(*arrays)
    assert plan.resampled and plan.k_model == 5
    assert plan.omega2 == pytest.approx(est.omega2) and plan.sigma2_model == pytest.approx(est.sigma2_a)
    kw = {"omega2": est.omega2, "sigma2_a": est.sigma2_a, "sigma2_b": est.sigma2_b, "k_a": 5, "k_b": 5}
    # Eq. 10 and 9 with t on the paired test's df (399 now; n - 1 at the planned n)
    tq = stats.t.ppf(0.975, 399) + stats.t.ppf(0.8, 399)
    assert plan.df == 399 and plan.mde == pytest.approx(tq * mde(400, **kw) / (ndtri(0.975) + ndtri(0.8)))
    n = plan.n_needed
    noise = (est.sigma2_a + est.sigma2_b) / 5
    assert _mean_power_oracle(n, 0.03, plan.omega2 + noise, 399, noise) == pytest.approx(0.8, abs=1e-9)
    tq = stats.t.ppf(0.975, n - 1) + stats.t.ppf(0.8, n - 1)
    point = tq**2 * sample_size(0.03, **kw) / (ndtri(0.975) + ndtri(0.8)) ** 2  # t plan for the estimate alone
    assert point < n < 1.02 * point  # 399 df: the pilot's uncertainty adds little
    frame = plan.k_frame()
    assert list(frame["k"]) == [1, 2, 4, 8, 16]
    assert frame["mde"].is_monotonic_decreasing and frame["n_needed"].is_monotonic_decreasing
    assert plan.k_needed is not None
    # the K that was found reaches delta at this n on average (t on the test's 399 df), a bit more than the
    # K of Eq. 9 for the estimate alone
    k_noise = (est.sigma2_a + est.sigma2_b) / plan.k_needed
    assert _mean_power_oracle(400, 0.03, plan.omega2 + noise, 399, noise, df=399, k_noise=k_noise) == (
        pytest.approx(0.8, abs=1e-9))
    t_over_z = (stats.t.ppf(0.975, 399) + stats.t.ppf(0.8, 399)) / (ndtri(0.975) + ndtri(0.8))
    assert t_over_z**2 * sample_size(0.03, **{**kw, "k_a": plan.k_needed, "k_b": plan.k_needed}) < 400


def _mean_power_oracle(n, delta, var_diffs, nu, noise=0.0, *, df=None, k_noise=None):
    """The power of a plan of ``n`` questions averaged over omega2 = var_diffs nu / chi2_nu - noise at the
    midpoints of 24 equal shares (scipy's chi-square and t), the test on ``n - 1`` df (or ``df``)."""
    q = (np.arange(24) + 0.5) / 24
    omega = np.maximum(var_diffs * nu / stats.chi2.ppf(1 - q, nu) - noise, 0.0)
    dof = n - 1 if df is None else df
    v = omega + (noise if k_noise is None else k_noise)
    return float(np.mean(stats.t.cdf(delta * np.sqrt(n / v) - stats.t.ppf(0.975, dof), dof)))


def test_clustered_plan_uses_cluster_estimates():
    ds, tb, a = loaded("multilingual")
    plan = plan_pair(ds, tb, a, "Dreadnought", "Galleon", delta=0.03)
    est = pilot_estimates(tb.scores[:, 1], tb.scores[:, 0], clusters=tb.cluster_codes)
    assert plan.n_clusters == 250 and not plan.resampled and plan.k_needed is None
    assert plan.omega2 == pytest.approx(est.omega2)
    # Appendix C's clustered omega2 is n times the CR1 variance of the mean difference, so the MDE is
    # (z_a/2 + z_b) times the clustered paired SE the analysis reports

    pair = [c for c in a.comparisons if (c.model, c.baseline) == ("Dreadnought", "Galleon")][0]
    assert pair.n_clusters == 250
    # CR2 omega2 (n times the CR2 variance of the mean difference) and t on the CR2 df: the MDE is
    # (t_a/2 + t_b) times the clustered paired SE the analysis reports, on the analysis' df
    assert plan.df == pytest.approx(pair.df)
    assert plan.mde == pytest.approx((stats.t.ppf(0.975, pair.df) + stats.t.ppf(0.8, pair.df)) * pair.se)
    text = describe(plan)
    assert "clusters of this size" in text["n"] and "one answer per question" in text["k"]


def test_unresampled_mde_is_the_paired_se_times_t_sum():
    """With K = 1 and no clusters omega2 is Var(d) (ddof=1), so the MDE is (z_a/2 + z_b) times the paired SE."""

    ds, tb, a = loaded("atlas_breeze")
    plan = plan_pair(ds, tb, a, "Breeze", "Atlas", delta=0.03)
    se = a.comparisons[0].se
    assert plan.mde == pytest.approx((stats.t.ppf(0.975, 9) + stats.t.ppf(0.8, 9)) * se)  # t on 9 df
    assert round(plan.mde, 3) == 0.073
    n = plan.n_needed  # the paired t-test at n questions has n - 1 df; omega2 from 10 questions (9 df)
    assert _mean_power_oracle(n, 0.03, se**2 * 10, 9) == pytest.approx(0.8, abs=1e-9)
    point = (stats.t.ppf(0.975, n - 1) + stats.t.ppf(0.8, n - 1)) ** 2 * se**2 * 10 / 0.03**2
    assert math.ceil(point) == 49 and math.ceil(n) == 59  # the estimate alone: 49; with its uncertainty: 59


@settings(max_examples=60, deadline=None)
@given(st.floats(0.001, 0.3), st.floats(0.0, 0.25), st.floats(0.0, 0.25), st.floats(0.01, 0.2),
       st.integers(50, 5000))
def test_answers_needed_inverts_sample_size(omega2, s2a, s2b, delta, n):
    k = answers_needed(n, delta, omega2=omega2, sigma2_a=s2a, sigma2_b=s2b, df=math.inf)  # z: Eq. 9
    floor = sample_size(delta, omega2=omega2)  # questions needed with infinitely many answers
    if k is None:
        assert floor >= n * (1 - 1e-9)
    elif k > 1.0:
        assert sample_size(delta, omega2=omega2, sigma2_a=s2a, sigma2_b=s2b, k_a=k, k_b=k) == pytest.approx(n)
    else:
        assert sample_size(delta, omega2=omega2, sigma2_a=s2a, sigma2_b=s2b) <= n * (1 + 1e-9)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.001, 0.3), st.floats(0.01, 0.25), st.floats(0.01, 0.25), st.floats(0.02, 0.2),
       st.floats(1.5, 16.0))
def test_answers_needed_with_t_inverts_sample_size_t(omega2, s2a, s2b, delta, k):
    """By default the K solves Eq. 9 with t on the paired test's n - 1 df: at the n sample_size_t plans
    for K answers, answers_needed gives K back (with z it would give fewer)."""
    from evalstats_core.power import sample_size_t

    n = sample_size_t(delta, omega2=omega2, sigma2_a=s2a, sigma2_b=s2b, k_a=k, k_b=k)
    assume(n > 3)
    assert answers_needed(n, delta, omega2=omega2, sigma2_a=s2a, sigma2_b=s2b) == pytest.approx(k, rel=1e-6)
    z_k = answers_needed(n, delta, omega2=omega2, sigma2_a=s2a, sigma2_b=s2b, df=math.inf)
    assert z_k is None or z_k < k


def test_answers_needed_paper_setting():
    """Paper Sec. 5 setting (omega2 = 1/9, sigma2 = 1/6 each, n = 198): MDE at K = 10 is 7.6 points, so
    a 7.6-point effect needs about K = 10 answers."""
    target = mde(198, **PRESETS["binary"], k_a=10, k_b=10)
    k = answers_needed(198, target, omega2=1 / 9, sigma2_a=1 / 6, sigma2_b=1 / 6, df=math.inf)
    assert k == pytest.approx(10.0)
    assert answers_needed(198, 0.03, omega2=1 / 9, sigma2_a=1 / 6, sigma2_b=1 / 6) is None


def test_power_link_uses_the_power_page_keys():
    """Every parameter of the link is a widget key the power page defines, with values it accepts."""
    ds, tb, a = loaded("synthetic")
    link = power_link(plan_pair(ds, tb, a, "chat-13b", "base-7b", delta=0.03, alpha=0.01, power=0.9))
    source = (ROOT / "pages" / "power.py").read_text(encoding="utf-8")
    keys = set(re.findall(r'"(power_[a-z0-9_]+)":', source))
    assert set(link) <= keys, set(link) - keys
    assert link["power_omega_mode"] == "direct" and link["power_k_a"] == "5" and link["power_n"] == "400"
    assert float(link["power_alpha"]) == 0.01 and float(link["power_power"]) == 0.9
    assert 0 <= float(link["power_sigma2_a"]) <= 0.25



@pytest.mark.parametrize("slug, pair, delta", [
    ("atlas_breeze", ("Breeze", "Atlas"), 0.03),
    ("multilingual", ("Dreadnought", "Galleon"), 0.02),
    ("synthetic", ("chat-13b", "base-7b"), 0.05),
])
def test_power_page_restores_every_value_of_the_link(slug, pair, delta):
    """Opening pages/power.py with the link's query puts each value into its widget unchanged."""
    from conftest import no_exceptions, run_page

    ds, tb, a = loaded(slug)
    link = power_link(plan_pair(ds, tb, a, *pair, delta=delta, alpha=0.01, power=0.9))
    at = run_page("pages/power.py", query=link)
    no_exceptions(at)
    widgets = {w.key: w.value for kind in ("number_input", "slider", "radio") for w in at.get(kind) if w.key}
    assert widgets.pop("power_omega_mode") == link["power_omega_mode"] == "direct"
    for key, value in link.items():
        if key != "power_omega_mode":
            assert widgets[key] == float(value), (key, widgets[key], value)


def test_link_delta_range_is_the_power_pages_bounds():
    """LINK_DELTA_RANGE is what pages/power.py accepts for power_delta."""
    source = (ROOT / "pages" / "power.py").read_text(encoding="utf-8")
    bound = re.search(r'"power_delta": \(([0-9.]+), ([0-9.]+)\)', source)
    assert (float(bound[1]), float(bound[2])) == LINK_DELTA_RANGE

def test_bad_pairs():
    ds, tb, a = loaded("atlas_breeze")
    with pytest.raises(EvalStatsError, match="two different models"):
        plan_pair(ds, tb, a, "Atlas", "Atlas", delta=0.03)
    with pytest.raises(EvalStatsError, match="two different models"):
        plan_pair(ds, tb, a, "Atlas", "Nobody", delta=0.03)
    with pytest.raises(EvalStatsError, match="alpha"):
        plan_pair(ds, tb, a, "Breeze", "Atlas", delta=0.03, alpha=1.5)
    with pytest.raises(EvalStatsError, match="positive"):
        answers_needed(100, -0.1, omega2=0.1, sigma2_a=0.1, sigma2_b=0.1)


def test_plan_never_uses_an_impossible_variance_and_says_what_few_clusters_cannot_know():
    """Differences of [0, 1] scores have variance at most (1 - d)(1 + d); a clustered plan on few
    clusters states the 95% range of its variance from the design's degrees of freedom."""
    from scipy import stats

    from evalstats_core.analysis import analyze
    from evalstats_core.data import load, question_scores
    from evalstats_core.planning import plan_pair

    rows = "question,A,B\n" + "".join(f"q{i},{i % 2},{(i + 1) % 2}\n" for i in range(6))  # d = +-1, mean 0
    ds = load(rows.encode())
    tb = question_scores(ds)
    plan = plan_pair(ds, tb, analyze(tb), "B", "A", delta=0.1)
    assert plan.omega2 == 1.0 and "more than differences of scores in [0, 1] can have" in plan.note  # 6/5 > 1
    rows = "question,model,score,cluster\n" + "".join(
        f"q{i},{m},{int((i * 7 + (m == 'B') * 3) % 5 < 3)},c{i % 5}\n" for i in range(100) for m in "AB")
    ds = load(rows.encode())
    tb = question_scores(ds)
    plan = plan_pair(ds, tb, analyze(tb), "B", "A", delta=0.1)
    df = 4.0  # five equal clusters: Satterthwaite df = G - 1
    lo, hi = df / stats.chi2.ppf(0.975, df), df / stats.chi2.ppf(0.025, df)
    assert "with only 5 clusters" in plan.note and f"{lo:.2f}x to {hi:.2f}x" in plan.note
