"""analysis.analyze: one pass over a loaded file. Oracles: statsmodels (cluster-robust OLS, multipletests,
mcnemar); worked numbers from seed 004 (Atlas / Breeze); a slow readable pandas version; properties."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalstats_core.analysis import Analysis, ModelResult, PairResult, analyze
from evalstats_core.clustering import summarize
from evalstats_core.comparison import compare
from evalstats_core.data import load, question_scores
from evalstats_core.errors import EvalStatsError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(scope="module")
def atlas():
    return analyze(load(EXAMPLES / "atlas_breeze.csv"))


@pytest.fixture(scope="module")
def mgsm_ds():
    return load(EXAMPLES / "multilingual_clustered.csv")


def ols_se(y, groups=None):
    """Oracle: OLS of y on a constant; CR1 when groups are given."""
    import statsmodels.api as sm

    # sm.OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": groups}).bse[0]   (or plain .fit())
    model = sm.OLS(np.asarray(y, float), np.ones(len(y)))
    fit = model.fit() if groups is None else model.fit(cov_type="cluster", cov_kwds={"groups": groups})
    return float(fit.bse[0])


# ---------------------------------------------------------------------------------- worked numbers


def test_atlas_breeze_worked_numbers(atlas):
    """Seed 004: Atlas 63.6% (SE 6.1%, CI 51.6% to 75.6%); Breeze - Atlas +5.0, paired SE 0.0232, CI 0.5 to 9.5."""
    # the default (t on 9 df) against scipy's one-sample and paired t-tests
    from scipy import stats

    ab = np.loadtxt(EXAMPLES / "atlas_breeze.csv", delimiter=",", skiprows=1, usecols=(1, 2))
    d = atlas.model("Atlas")
    t1 = stats.ttest_1samp(ab[:, 0], 0.0).confidence_interval(0.95)
    assert (d.ci_low, d.ci_high) == pytest.approx((t1.low, t1.high), rel=1e-12) and d.df == 9.0
    assert d.interval == "t (n - 1 df)" and d.method == "cr2"
    (c,) = atlas.comparisons
    tr = stats.ttest_rel(ab[:, 1], ab[:, 0])
    assert c.p_value == pytest.approx(tr.pvalue, rel=1e-10) and round(c.p_value, 3) == 0.059
    assert c.ci_low < 0 < c.ci_high and c.df == 9.0
    atlas = analyze(load(EXAMPLES / "atlas_breeze.csv"), method="cr1")  # the paper's z: seed 004's numbers
    a = atlas.model("Atlas")
    assert (round(a.mean, 3), round(a.se, 4), round(a.ci_low, 3), round(a.ci_high, 3)) == (0.636, 0.0613, 0.516, 0.756)
    (c,) = atlas.comparisons
    assert (c.model, c.baseline) == ("Breeze", "Atlas")  # later model minus earlier model
    assert (round(c.diff, 3), round(c.se, 4), round(c.ci_low, 3), round(c.ci_high, 3)) == (0.05, 0.0232, 0.005, 0.095)
    assert round(c.se_unpaired, 4) == 0.0864 and round(c.correlation, 2) == 0.93
    assert c.p_value < 0.05 and c.p_adjusted == c.p_value  # one comparison: Holm changes nothing
    assert c.mcnemar_statistic is None and c.only_model is None  # continuous: no McNemar
    assert atlas.unit == "percent" and not atlas.clustered and atlas.format == "wide"


def test_unpaired_atlas_breeze():
    """Seed 004's naive comparison: SE 0.0864, CI -11.9% to +21.9% for Breeze - Atlas."""
    res = analyze(load(EXAMPLES / "atlas_breeze.csv"), paired=False, method="cr1")
    (c,) = res.comparisons
    assert round(c.se, 4) == 0.0864 and (round(c.ci_low, 3), round(c.ci_high, 3)) == (-0.119, 0.219)
    assert any("unpaired" in w for w in res.warnings)


# ------------------------------------------------------------------------------------- oracles


def test_clustered_numbers_match_statsmodels(mgsm_ds):
    """Each model's CR1 SE and each pair's clustered paired SE equal statsmodels' cluster-robust OLS."""
    res = analyze(mgsm_ds)
    qt = question_scores(mgsm_ds)
    assert res.clustered and res.n_clusters == 250
    for j, m in enumerate(res.models):
        assert m.se == pytest.approx(ols_se(qt.scores[:, j], qt.cluster_codes), rel=1e-9)
        assert m.se_naive == pytest.approx(ols_se(qt.scores[:, j]), rel=1e-9)
        assert m.deff == pytest.approx((m.se / m.se_naive) ** 2, rel=1e-12) and m.n_clusters == 250
    for c in res.comparisons:
        i, b = qt.models.index(c.model), qt.models.index(c.baseline)
        d = qt.scores[:, i] - qt.scores[:, b]
        assert c.diff == pytest.approx(d.mean(), abs=1e-15)
        assert c.se == pytest.approx(ols_se(d, qt.cluster_codes), rel=1e-9)
        assert c.n_clusters == 250


def test_holm_bh_and_mcnemar_match_statsmodels(mgsm_ds):
    """p_adjusted is Holm (or BH) across the comparisons; McNemar is the uncorrected chi-square test."""
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.multitest import multipletests

    qt = question_scores(mgsm_ds)
    for adjust, method in (("holm", "holm"), ("bh", "fdr_bh")):
        res = analyze(mgsm_ds, use_clusters=False, adjust=adjust)
        p = [c.p_value for c in res.comparisons]
        # multipletests(p, method="holm")[1]
        np.testing.assert_allclose([c.p_adjusted for c in res.comparisons], multipletests(p, method=method)[1],
                                   rtol=1e-12)
    for c in res.comparisons:
        a, b = qt.scores[:, qt.models.index(c.model)], qt.scores[:, qt.models.index(c.baseline)]
        table = [[np.sum((a == 1) & (b == 1)), np.sum((a == 1) & (b == 0))],
                 [np.sum((a == 0) & (b == 1)), np.sum((a == 0) & (b == 0))]]
        # mcnemar(table, exact=False, correction=False)
        ref = mcnemar(table, exact=False, correction=False)
        assert c.mcnemar_statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert c.mcnemar_chi2_p == pytest.approx(ref.pvalue, rel=1e-9)
        assert (c.only_model, c.only_baseline) == (table[0][1], table[1][0])
        # mcnemar(table, exact=True): the exact p is the one every table prints, under one name
        assert c.mcnemar_p == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-9)
    frame = res.comparisons_frame()
    assert "mcnemar_p" in frame and "mcnemar_chi2_p" in frame and "mcnemar_p_value" not in frame
    none = analyze(mgsm_ds, adjust="none")
    assert all(c.p_adjusted == c.p_value for c in none.comparisons)


def slow_analysis(frame: pd.DataFrame, baseline: str, confidence: float):
    """Readable version: pivot with pandas, then the core functions model by model and pair by pair."""
    wide = frame.astype({"question": str, "model": str}).groupby(["question", "model"], sort=False)["score"] \
        .mean().unstack("model")
    out = {}
    for m in wide.columns:
        if m == baseline:
            continue
        both = wide[[m, baseline]].dropna()
        out[m] = compare(both[m].to_numpy(), both[baseline].to_numpy(), confidence=confidence, interval="normal")
    return out, {m: summarize(wide[m].dropna().to_numpy(), confidence=confidence, interval="normal")
                 for m in wide.columns}


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_fast_equals_slow_with_missing_answers_and_resamples(data):
    """Property: analyze equals the slow pandas version on random files with resamples and gaps."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n_q = data.draw(st.integers(4, 30))
    rows = []
    for m in ("A", "B", "C"):
        keep = rng.random(n_q) < 0.85
        keep[:3] = True
        for q in np.flatnonzero(keep):
            rows += [(f"q{q}", m, float(rng.integers(0, 2))) for _ in range(int(rng.integers(1, 4)))]
    rows = [rows[i] for i in rng.permutation(len(rows))]
    frame = pd.DataFrame(rows, columns=["question", "model", "score"])
    confidence = data.draw(st.sampled_from([0.8, 0.9, 0.95, 0.99]))
    ds = load(frame.to_csv(index=False).encode())
    res = analyze(ds, baseline="B", confidence=confidence, interval="normal")
    pairs, sums = slow_analysis(ds.frame, "B", confidence)
    for m in res.models:
        s = sums[m.model]
        assert (m.n, m.mean, m.se, m.ci_low) == (s.n, pytest.approx(s.mean, abs=1e-12),
                                                pytest.approx(s.se, abs=1e-12), pytest.approx(s.ci_low, abs=1e-12))
    for c in res.comparisons:
        ref = pairs[c.model]
        assert c.baseline == "B" and c.n == ref.n
        assert c.diff == pytest.approx(ref.diff, abs=1e-12) and c.se == pytest.approx(ref.se, abs=1e-12)
        if math.isnan(ref.correlation):
            assert math.isnan(c.correlation)
        else:
            assert c.correlation == pytest.approx(ref.correlation, abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_row_order_does_not_matter_and_swapping_flips_the_sign(seed):
    """Property: shuffling the file's rows changes nothing; the reverse pair has the opposite difference."""
    rng = np.random.default_rng(seed)
    n = 20
    frame = pd.DataFrame({"question": np.tile([f"q{i}" for i in range(n)], 2), "model": np.repeat(["A", "B"], n),
                          "score": rng.random(2 * n).round(2), "cluster": np.tile([f"c{i % 5}" for i in range(n)], 2)})
    one = analyze(load(frame.to_csv(index=False).encode()), baseline="A")
    shuffled = frame.iloc[rng.permutation(2 * n)]
    two = analyze(load(shuffled.to_csv(index=False).encode()), baseline="A")
    rev = analyze(load(frame.to_csv(index=False).encode()), baseline="B")
    (c1,), (c2,), (c3,) = one.comparisons, two.comparisons, rev.comparisons
    assert c1.diff == pytest.approx(c2.diff, abs=1e-12) and c1.se == pytest.approx(c2.se, rel=1e-12)
    assert c3.diff == pytest.approx(-c1.diff, abs=1e-12) and c3.se == pytest.approx(c1.se, rel=1e-12)
    assert c1.n_clusters == 5


# ------------------------------------------------------------------------------- pairs / baseline


def test_pairs_and_baseline(mgsm_ds):
    """No baseline: every pair, later minus earlier; baseline: every other model minus the baseline."""
    every = analyze(mgsm_ds)
    assert [(c.model, c.baseline) for c in every.comparisons] == [
        ("Dreadnought", "Galleon"), ("Frigate", "Galleon"), ("Frigate", "Dreadnought")]
    base = analyze(mgsm_ds, baseline="Frigate")
    assert [(c.model, c.baseline) for c in base.comparisons] == [("Galleon", "Frigate"), ("Dreadnought", "Frigate")]
    assert all(c.diff == pytest.approx(c.mean_model - c.mean_baseline, abs=1e-15) for c in base.comparisons)


def test_shared_questions_only():
    """A comparison uses the questions both models answered and says how many were left out."""
    data = b"question,model,score\n" + b"".join(f"q{i},A,{i % 2}\n".encode() for i in range(10)) + \
        b"".join(f"q{i},B,{(i // 2) % 2}\n".encode() for i in range(3, 10))
    res = analyze(load(data))
    (c,) = res.comparisons
    assert (c.n, c.n_left_out) == (7, 3) and res.model("A").n == 10 and res.model("B").n == 7
    assert any("B answered 7 of 10" in w for w in res.warnings)


def test_no_clusters_gives_naive_ses(mgsm_ds):
    res = analyze(mgsm_ds, use_clusters=False)
    assert not res.clustered and res.n_clusters is None and res.cluster_col is None
    assert all(m.se == m.se_naive and m.deff == 1.0 and m.n_clusters is None for m in res.models)


def test_question_table_input_gives_the_same_numbers(mgsm_ds):
    a, b = analyze(mgsm_ds), analyze(question_scores(mgsm_ds))
    assert a.models == b.models and a.comparisons == b.comparisons
    assert a == b and b.format == mgsm_ds.format == "long"  # the table carries the file's roles (issue 10)


# ------------------------------------------------------------------------------------- warnings


def test_warnings_few_clusters_small_n_and_perfect_scores():
    rows = "".join(f"q{i},A,1,c{i % 4}\nq{i},B,{i % 2},c{i % 4}\n" for i in range(12))  # 4 clusters: chosen (46)
    res = analyze(load(("question,model,score,cluster\n" + rows).encode(), cluster_col="cluster"), method="cr1")
    text = " | ".join(res.warnings)
    assert "only 4 clusters" in text and "Cameron & Miller" in text and "cr2" in text
    assert "fewer than 300 clusters (smallest: 4)" in text and "Bowyer" in text
    assert "A scored 100.0% on every question" in text
    # the default counts clusters and degrees of freedom, and says the t reference handles them
    res = analyze(load(("question,model,score,cluster\n" + rows).encode(), cluster_col="cluster"))
    text = " | ".join(res.warnings)
    df = min(m.df for m in res.models)
    assert f"only 4 clusters (column 'cluster'), as little as {df:.1f} degrees of freedom" in text
    assert f"only 4 independent clusters at the fewest ({df:.1f} degrees of freedom)" in text
    assert "Cameron & Miller" not in text
    # without clusters, 12 questions: Wilson is named for 0/1 scores
    res = analyze(load(("question,model,score,cluster\n" + rows).encode(), cluster_col="cluster"), use_clusters=False)
    text = " | ".join(res.warnings)
    assert "only 12 independent questions at the fewest (11.0 degrees of freedom)" in text
    assert "Wilson" in text


def test_a_single_cluster_is_not_clustered():
    """One cluster value (for the file, or for one model's questions) falls back to the plain SE, with a warning."""
    one = analyze(load(b"question,model,score,group\nq1,A,1,g\nq2,A,0,g\nq3,A,1,g\nq1,B,0,g\nq2,B,0,g\nq3,B,1,g\n",
                       cluster_col="group"))  # chosen: found by its name, 1-4 values are not read (issue 46)
    assert not one.clustered and any("single value" in w for w in one.warnings)
    rows = "".join(f"q{i},A,{i % 2},c{i % 3}\n" for i in range(9)) + "q0,B,1,c0\nq3,B,0,c0\nq6,B,1,c0\n"
    res = analyze(load(("question,model,score,cluster\n" + rows).encode(), cluster_col="cluster"))
    assert res.clustered and res.model("A").n_clusters == 3 and res.model("B").n_clusters is None
    assert res.model("B").se == res.model("B").se_naive
    assert any("B: every question it answered lies in one cluster" in w for w in res.warnings)
    assert res.comparisons[0].n_clusters is None


def test_resample_warning_and_k(mgsm_ds):
    res = analyze(load(EXAMPLES / "synthetic_resampled.csv"))
    assert all((m.k, m.k_min, m.k_max) == (5, 5, 5) for m in res.models)
    assert any("resamples averaged" in w and "K = 5" in w for w in res.warnings)
    assert not any("resamples" in w for w in analyze(mgsm_ds).warnings)


def test_identical_models_have_p_1():
    """A difference of 0 on every question: no t statistic (z nan), and p = 1 (issue 46: it was nan), as the exact
    McNemar p and compare() give."""
    data = b"question,model,score\nq1,A,1\nq2,A,0\nq3,A,1\nq1,B,1\nq2,B,0\nq3,B,1\n"
    (c,) = analyze(load(data)).comparisons
    assert c.se == 0.0 and math.isnan(c.z) and c.p_value == 1.0 and c.p_adjusted == 1.0 and c.mcnemar_p == 1.0
    assert c.mcnemar_statistic is None and (c.only_model, c.only_baseline) == (0, 0)
    # no test, but an interval: Tango's score interval on 0 discordant answers of 3, +-z^2/(3 + z^2)
    z2 = 1.959963984540054 ** 2
    assert c.interval.startswith("Tango score") and (c.ci_low, c.ci_high) == pytest.approx((-z2 / (3 + z2), z2 / (3 + z2)))


# ----------------------------------------------------------------------------------- frames / errors


def test_frames_have_one_column_per_field(atlas):
    mf, cf = atlas.models_frame(), atlas.comparisons_frame()
    assert list(mf.columns) == list(ModelResult.__dataclass_fields__) and len(mf) == 2
    assert list(cf.columns) == list(PairResult.__dataclass_fields__) and len(cf) == 1
    assert cf.loc[0, "diff"] == atlas.comparisons[0].diff and isinstance(atlas, Analysis)


def test_bad_arguments(atlas):
    ds = load(EXAMPLES / "atlas_breeze.csv")
    with pytest.raises(EvalStatsError, match=r"baseline 'atlas' is not a model in atlas_breeze.csv"):
        analyze(ds, baseline="atlas")
    with pytest.raises(EvalStatsError, match="adjust"):
        analyze(ds, adjust="bonferroni")
    with pytest.raises(EvalStatsError, match="confidence"):
        analyze(ds, confidence=95)
    with pytest.raises(EvalStatsError, match="needs a Dataset"):
        analyze([1, 2, 3])  # type: ignore[arg-type]
    with pytest.raises(EvalStatsError, match="no model named"):
        atlas.model("Nope")


def test_should_stop_ends_the_work_at_once():
    """When the browser session has gone away the app's check returns True: analyze stops before the next
    model or pair instead of running every comparison for nobody; nothing is returned or cached."""
    from evalstats_core.analysis import AnalysisStopped

    rows = "question," + ",".join(f"m{j}" for j in range(30)) + "\n" + "".join(
        f"q{i}," + ",".join(str((i + j) % 2) for j in range(30)) + "\n" for i in range(50))
    data = load(rows.encode())
    asked = []

    def stop():
        asked.append(1)
        return len(asked) > 35  # the 30 models and 5 of the 435 pairs, then the tab closed

    with pytest.raises(AnalysisStopped, match="stopped after 5 comparisons"):
        analyze(data, should_stop=stop)
    assert len(asked) == 36
    assert len(analyze(data, should_stop=lambda: False).comparisons) == 435


def test_dir_of_the_package_is_its_public_surface():
    """dir(evalstats_core) lists the public names (and the version), not the module's own imports."""
    import evalstats_core

    evalstats_core.summarize  # noqa: B018  (a lazily imported name, which imports its submodule)
    names = dir(evalstats_core)
    assert {"summarize", "analyze", "EvalStatsError", "__version__"} <= set(names)
    assert not {"Any", "annotations", "importlib", "errors", "comparison"} & set(names)
