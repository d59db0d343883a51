"""What a new interval, confidence level or adjustment costs the workbench, counted rather than timed (issue 25: a
control set to a new value at 1e7 rows drawn in 0.5 s; the times are ``bench/bench_workbench_browser.py``'s).

- The plan is recomputed only when what it reads of the analysis changes: a one-model interval other than the
  normal one leaves the comparisons on the pair rule (Tango/MOVER for clustered 0/1 pairs), so the plan, which
  is for the test that runs, is the same (a new plan at 1e7 rows is a second of CPU).
- The guardrails count the questions per cluster from the kept sums, not from the rows again.
- Rows of download buttons and of controls are one horizontal container each, not a column per widget: every
  element is one message to the browser on every rerun, and the browser redraws each one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import no_exceptions, run_page

from evalstats_core.analysis import analyze
from evalstats_core.data import load, question_scores
from evalstats_core.planning import plan_pair

PAGE = "pages/analyze.py"


def _clustered_binary(seed: int = 1, clusters: int = 30, size: int = 20):
    rng = np.random.default_rng(seed)
    n = clusters * size
    frame = pd.DataFrame({"question": [f"q{i}" for i in range(n)], "cluster": np.repeat(np.arange(clusters), size),
                          "A": (rng.random(n) < 0.7).astype(int), "B": (rng.random(n) < 0.6).astype(int)})
    data = load(frame, cluster_col="cluster")
    return data, question_scores(data)


@pytest.mark.parametrize("interval", ["wilson", "clopper-pearson", "bayes"])
def test_the_plan_is_for_the_test_that_runs_whatever_the_one_model_interval(interval):
    """With Wilson (or any one-model interval but the normal one) the clustered 0/1 comparison is still Tango/MOVER,
    exactly as with ``auto``; its plan is then auto's plan (it was the CR2 t plan, for a test that does not run).

    12 clusters of 50: since issue 45 the pair rule reads CR2 t where t's skewness error is small (30 clusters of
    20 at 70%/60%, this test's file before), and there the rule's interval is the normal one's."""
    data, table = _clustered_binary(clusters=12, size=50)
    auto, other, normal = (analyze(table, interval=i) for i in ("auto", interval, "normal"))
    assert other.comparisons[0] == auto.comparisons[0]  # the same test runs
    assert "Tango score" in auto.comparisons[0].interval, auto.comparisons[0].interval  # t with an end at it, since
    # issue 45's end-by-end reading (the score rule before)
    assert normal.comparisons[0].interval != auto.comparisons[0].interval
    plans = {name: plan_pair(data, table, a, "A", "B", delta=0.05)
             for name, a in (("auto", auto), ("other", other), ("normal", normal))}
    assert plans["other"] == plans["auto"]
    # issue 45 item 5: auto's plan is for the end facing 0 the rule will read at 5 points, here CR2 t's, so its questions
    # are CR2 t's on the statistic's df (the design's with equal clusters); the plans still name different tests
    assert (plans["normal"].test, plans["auto"].test) == ("cr2 t", "t-score")
    assert plans["auto"].n_needed >= plans["normal"].n_needed


def test_the_plan_cache_key_is_what_the_plan_reads():
    from evalstats_app.workbench_sections import plan_design

    _, table = _clustered_binary()
    keys = {i: plan_design(analyze(table, interval=i)) for i in ("auto", "wilson", "clopper-pearson", "normal")}
    assert keys["auto"] == keys["wilson"] == keys["clopper-pearson"] != keys["normal"]
    assert plan_design(analyze(table, method="cr1")) != keys["auto"]
    assert plan_design(analyze(table, use_clusters=False)) != keys["auto"]


@pytest.mark.parametrize("sizes", [(30, 20), (3, 40)])
def test_the_guardrails_count_cluster_sizes_from_the_kept_sums(monkeypatch, sizes):
    """Same guardrails with the kept sums as from the rows (many clusters, and 3: the few-clusters warning), and
    with the sums the rows' cluster codes are not counted again."""
    from evalstats_core import _clusters
    from evalstats_core.guardrails import guardrails
    from evalstats_core.sums import file_sums

    data, table = _clustered_binary(seed=4, clusters=sizes[0], size=sizes[1])
    analysis = analyze(table)
    sums = file_sums(table)
    plain = guardrails(data, table, analysis)
    few = next(g for g in plain if g.check == "few_clusters")
    assert "Kish" in few.detail

    def counted(codes):
        raise AssertionError("cluster sizes counted from the rows again")

    monkeypatch.setattr(_clusters, "cluster_sizes", counted)
    assert guardrails(data, table, analysis, sums=sums) == plain


@pytest.mark.parametrize("runs", [1, 3])
def test_the_guardrails_read_the_runs_per_question_from_the_kept_sums(runs):
    """The pooled-resamples check knows a question's answers from the sums' histograms of runs (one answer: nothing
    to pool; three: the pooled SE is compared), with the same words as from the runs table."""
    from evalstats_core.guardrails import guardrails
    from evalstats_core.sums import file_sums

    rng = np.random.default_rng(8)
    q = np.repeat(np.arange(40), runs)
    frame = pd.DataFrame({"question": np.tile(q, 2).astype(str), "model": np.repeat(["A", "B"], q.size),
                          "score": (rng.random(2 * q.size) < np.repeat([0.7, 0.5], q.size)).astype(int)})
    data = load(frame)
    table = question_scores(data)
    analysis = analyze(table)
    with_sums = guardrails(data, table, analysis, sums=file_sums(table))
    assert with_sums == guardrails(data, table, analysis)
    pooled = next(g for g in with_sums if g.check == "pooled_resamples")
    assert ("nothing to pool" in pooled.detail) == (runs == 1), pooled.detail


def _workbench_on(frame: pd.DataFrame):
    from evalstats_app.workbench import INJECT_KEY

    at = run_page(PAGE)
    at.session_state[INJECT_KEY] = {"name": "clustered.csv", "data": frame.to_csv(index=False).encode()}
    at.run()
    no_exceptions(at)
    return at


@pytest.fixture(scope="module")
def clustered_page():
    rng = np.random.default_rng(3)
    n = 400
    labels = np.repeat(np.arange(20), 20)
    return _workbench_on(pd.DataFrame({"question": [f"q{i}" for i in range(n)], "cluster": [f"c{c}" for c in labels],
                                       "A": (rng.random(n) < 0.7).astype(int),
                                       "B": (rng.random(n) < 0.6).astype(int)}))


def test_a_new_one_model_interval_keeps_the_plan(clustered_page, monkeypatch):
    """Wilson for one model: the plan's numbers stay and no plan is computed (the cached one is shown)."""
    from evalstats_core import planning

    at = clustered_page
    before = [(m.label, m.value) for m in at.metric]
    assert before, "no plan on the page"
    calls = []
    real = planning.plan_pair
    monkeypatch.setattr(planning, "plan_pair", lambda *a, **k: calls.append(1) or real(*a, **k))
    at.selectbox(key="analyze_method").set_value("wilson").run()
    no_exceptions(at)
    assert [(m.label, m.value) for m in at.metric] == before
    assert not calls


def _parents(node, parent=None, out=None):
    """(type, key, parent's type) of every element of the page."""
    out = [] if out is None else out
    out.append((getattr(node, "type", ""), getattr(node, "key", None), getattr(parent, "type", None)))
    for child in getattr(node, "children", {}).values():
        _parents(child, node, out)
    return out


def test_rows_of_the_results_are_one_horizontal_container_each(clustered_page):
    """Every download button of the results, and the analysis and plan controls, sit in horizontal containers (one
    message a row on every rerun), none in a column of its own (a message a column, plus one for the row)."""
    nodes = _parents(clustered_page._tree)
    downloads = {key: parent for kind, key, parent in nodes if kind == "download_button"}
    assert len(downloads) >= 20, downloads
    assert {"analyze_dl_md", "analyze_dl_zip", "analyze_dl_html", "analyze_models_png"} <= set(downloads)
    controls = {key: parent for _, key, parent in nodes if key in (
        "analyze_confidence", "analyze_method", "analyze_baseline", "analyze_adjust", "analyze_cluster_se",
        "analyze_plan_pair", "analyze_delta", "analyze_alpha", "analyze_power")}
    assert len(controls) == 9, controls
    in_columns = sorted(k for k, p in {**downloads, **controls}.items() if p == "column")
    assert not in_columns, in_columns
