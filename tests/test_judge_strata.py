"""Issue 39.4: labels chosen by the judge's verdict are flagged, and the stratified estimate (the labels' mean
within each verdict, weighted by the verdict's share) replaces PPI, which such labels bias."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from evalstats_core.analysis import analyze
from evalstats_core.data import load
from evalstats_core.errors import EvalStatsWarning
from evalstats_core.judge import ppi_mean
from evalstats_core.judge_apply import corrected_analysis
from evalstats_core.judge_io import section_for
from evalstats_core.judge_strata import ppi_compare_stratified, ppi_stratified, selection_check
from evalstats_core.report import to_json


def _draw(rng, n=1000, rate=0.3, fail_share=0.4, pass_share=0.03):
    """A lenient judge (false passes 60%); humans label 40% of the judge's fails and 3% of its passes."""
    y = rng.random(n) < rate
    f = np.where(y, rng.random(n) < 0.95, rng.random(n) < 0.6).astype(float)
    lab = rng.random(n) < np.where(f == 0, fail_share, pass_share)
    return y.astype(float), f, np.where(lab, y.astype(float), np.nan)


def test_selected_labels_bias_ppi_and_the_stratified_estimate_covers():
    """300 seeded evals: PPI covers the truth in under half of them, the stratified interval in at least 93%."""
    rng = np.random.default_rng(39)
    hits_ppi = hits_strat = flagged = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        for _ in range(300):
            _, f, h = _draw(rng)
            e, s = ppi_mean(f, h), ppi_stratified(f, h)
            hits_ppi += e.ci_low <= 0.3 <= e.ci_high
            hits_strat += s.ci_low <= 0.3 <= s.ci_high
            flagged += selection_check(f, h).flagged
    assert flagged == 300 and hits_ppi < 150 and hits_strat >= 0.93 * 300


def test_random_labels_are_rarely_flagged_and_stratifying_them_is_unbiased():
    rng = np.random.default_rng(40)
    flagged, errors = 0, []
    for _ in range(300):
        y, f, h = _draw(rng, fail_share=0.1, pass_share=0.1)
        flagged += selection_check(f, h).flagged
        errors.append(ppi_stratified(f, h).estimate - 0.3)
    assert flagged <= 12  # SELECTION_ALPHA 1%: about 3 of 300 by chance
    assert abs(np.mean(errors)) < 0.01


def test_all_agreeing_strata_never_give_zero_width():
    f = np.array([1.0] * 50 + [0.0] * 50)
    h = np.where(np.arange(100) % 5 == 0, f, np.nan)  # every labelled answer agrees with the judge
    s = ppi_stratified(f, h)
    assert s.ci_low < s.estimate < s.ci_high  # no labelled error in either verdict: still a width
    one = ppi_stratified(np.ones(100), np.where(np.arange(100) % 5 == 0, 1.0, np.nan))  # one verdict, all agree
    assert one.se == 0.0 and one.ci_low < one.estimate == 1.0
    d = ppi_compare_stratified(f, h, f, h)
    assert d.ci_low < 0.0 < d.ci_high
    assert ppi_stratified(f, np.where(f == 1, h, np.nan)) is None  # no labelled fail: nothing to stratify on


def test_a_file_with_labels_chosen_by_the_verdict_is_flagged_and_stratified(tmp_path):
    rng = np.random.default_rng(7)
    rows, truth = ["question,model,score,human"], {}
    for model, rate in (("alpha", 0.3), ("beta", 0.5)):
        y, f, h = _draw(rng, rate=rate)
        truth[model] = float(y.mean())
        rows += [f"q{i},{model},{int(f[i])},{'' if np.isnan(h[i]) else int(h[i])}" for i in range(f.size)]
    path = tmp_path / "audit.csv"
    path.write_text("\n".join(rows) + "\n")
    d = load(path)
    a = analyze(d)
    doc = json.loads(to_json(corrected_analysis(a, section_for(d, a))))
    for row in doc["models"]:
        assert row["judge"]["stratified"] is True and row["interval"].startswith("stratified by the judge's verdict")
        assert row["ci"][0] <= truth[row["model"]] <= row["ci"][1]
    assert any("the labels look chosen by the judge's verdict" in w for w in doc["warnings"])
    pair = doc["comparisons"][0]
    assert pair["judge"]["stratified"] is True or any(  # each model's own labels: few questions labelled for both
        w.startswith(f"{pair['model']} - {pair['baseline']}: labels chosen by the judge's verdict, but")
        for w in doc["warnings"])


@pytest.mark.parametrize("k", [12])
def test_labels_that_differ_by_cluster_are_said(k):
    rng = np.random.default_rng(3)
    codes = np.repeat(np.arange(k), 50)
    f = (rng.random(codes.size) < 0.6).astype(float)
    h = np.where(rng.random(codes.size) < np.where(codes < 3, 0.6, 0.02), f, np.nan)
    sel = selection_check(f, h, clusters=codes)
    assert sel.by_cluster and "differs between clusters" in sel.sentence("alpha")


def test_with_clusters_the_stratified_estimate_is_refused_and_the_page_says_the_estimate_is_not_stratified():
    """Issue 39: the stratified estimate treats questions as independent. Asked for with clusters it is refused in one
    clear line (what to do instead); a clustered file whose labels look chosen by the verdict keeps the PPI++
    estimate, not stratified, and its warning says so and that it may be biased (it said "so the estimate is
    stratified by the verdict" before, with no stratification done)."""
    from evalstats_core.errors import EvalStatsError

    rng = np.random.default_rng(7)
    _, f, h = _draw(rng)
    codes = np.repeat(np.arange(20), 50)
    with pytest.raises(EvalStatsError, match=r"does not allow for clusters .* ppi_mean\(\.\.\., clusters=\)"):
        ppi_stratified(f, h, clusters=codes)
    with pytest.raises(EvalStatsError, match="does not allow for clusters"):
        ppi_compare_stratified(f, h, f, h, clusters=codes)
    assert ppi_stratified(f, h) is not None  # unclustered: stratified as before
    rows = ["question,cluster,model,score,human"]
    for model, rate in (("alpha", 0.3), ("beta", 0.5)):
        _, f, h = _draw(rng, rate=rate)
        rows += [f"q{i},c{i // 50},{model},{int(f[i])},{'' if np.isnan(h[i]) else int(h[i])}" for i in range(f.size)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvalStatsWarning)
        d = load(("\n".join(rows) + "\n").encode(), name="audit.csv")
        a = analyze(d)
        section = section_for(d, a)
    assert a.clustered and a.n_clusters == 20
    assert all(not e.stratified for _, e, _ in section.models)
    said = [s for s in section.selection if "look chosen by the judge's verdict" in s]
    assert len(said) == 2 and all("stays the PPI++ one and may be biased" in s for s in said)
    assert not any("so the estimate is stratified" in s for s in section.selection)
