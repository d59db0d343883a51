"""Workbench reading (evalstats_core.data.prepare), display tables (evalstats_core.report), examples
(evalstats_app.examples) and charts (evalstats_core.charts.analyze)."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from scipy import stats

from evalstats_app import examples
from evalstats_core import report
from evalstats_core.analysis import analyze
from evalstats_core.charts.analyze import NOT_SIGNIFICANT, SIGNIFICANT, differences_chart, models_chart
from evalstats_core.data import file_columns, prepare
from evalstats_core.errors import EvalStatsError
from evalstats_core.intervals import proportion_ci


def prepared(slug: str, **kw):
    data, name = examples.example_bytes(slug)
    p = prepare(data, name)
    return p, analyze(p.table, **kw)  # the table carries the file's roles


# ------------------------------------------------------------------------------------------- files
def test_examples_exist_and_load():
    for slug, ex in examples.EXAMPLES.items():
        data, name = examples.example_bytes(slug)
        assert name == ex.file and data
    with pytest.raises(EvalStatsError, match="does not exist"):
        examples.example_bytes("nope")


@pytest.mark.parametrize("data, name, expected", [
    (b"question,model,score\nq1,A,1\n", "a.csv", ("question", "model", "score")),
    (b"\xef\xbb\xbfid;system;correct\n1;A;1\n", "b.csv", ("id", "system", "correct")),
    (b"question\tA\tB\nq1\t1\t0\n", "c.tsv", ("question", "A", "B")),
    (b"", "d.csv", ()),
    (b"\xff\xfeq\x00", "e.csv", ()),
])
def test_file_columns_reads_only_the_header(data, name, expected):
    assert file_columns(data, name) == expected


def test_file_columns_parquet():
    buf = io.BytesIO()
    pq.write_table(pa.table({"question": ["q1", "q2"], "m1": [1, 0], "m2": [0, 1]}), buf)
    assert file_columns(buf.getvalue(), "r.parquet") == ("question", "m1", "m2")
    p = prepare(buf.getvalue(), "r.parquet")
    assert p.dataset.models == ("m1", "m2") and p.extra_clusters == {}


def test_unused_columns_rules():
    """Kept: constant within a question, 2..n/2 groups. Dropped: varies within a question, one group, ids."""
    q = [f"q{i}" for i in range(20)]
    frame = pd.DataFrame({"question": q * 2, "model": ["A"] * 20 + ["B"] * 20, "score": [i % 2 for i in range(40)],
                          "domain_tag": [f"t{i % 4}" for i in range(20)] * 2,  # 4 groups of 5: kept
                          "run_id": list(range(40)),  # differs within a question: dropped
                          "split": ["test"] * 40,  # one group: dropped
                          "uid": q * 2})  # one value per question: dropped
    data = frame.to_csv(index=False).encode()
    p = prepare(data, "f.csv")
    assert p.dataset.cluster_col is None and set(p.extra_clusters) == {"domain_tag"}
    codes = p.extra_clusters["domain_tag"]
    assert codes.shape == (20,) and len(np.unique(codes)) == 4
    number = np.array([int(x[1:]) for x in p.table.questions])  # question qi belongs to group i % 4
    for g in range(4):
        assert len(np.unique(codes[number % 4 == g])) == 1


# ------------------------------------------------------------------------------------------ tables
def test_models_display_in_paper_format_atlas():
    p, a = prepared("atlas_breeze")
    iv = report.model_intervals(a)
    shown = report.models_display(a, iv)
    assert list(shown.columns) == ["Model", "Mean (SE)", "95% CI", "Questions", "K", "Interval"]
    assert shown["Mean (SE)"].tolist() == ["63.6% (6.1%)", "68.6% (6.1%)"]
    assert (iv["interval"] == "t (n - 1 df)").all()  # continuous scores: no proportion interval
    p, a = prepared("atlas_breeze", method="cr1")
    assert (report.model_intervals(a)["interval"] == "CLT normal (z)").all()


def test_models_display_clustered_columns():
    p, a = prepared("multilingual")
    a = analyze(p.table, interval="wilson")
    shown = report.models_display(a, report.model_intervals(a))
    assert {"Clusters", "Naive SE", "Design effect", "Effective n"} <= set(shown.columns)
    m = a.models[0]
    assert shown["Design effect"][0] == f"{m.deff:.2f}" and shown["Effective n"][0] == f"{m.n_eff:,.0f}"
    assert "needs independent 0/1 answers (clusters)" in shown["Interval"][0]  # Wilson does not apply


def test_model_intervals_proportion_methods_on_independent_binary():
    rows = "question,A,B\n" + "".join(f"q{i},{int(i % 3 != 0)},{int(i < 30)}\n" for i in range(30))
    p = prepare(rows.encode(), "b.csv")
    for method in ("wilson", "clopper-pearson", "bayes"):
        a = analyze(p.table, interval=method)
        iv = report.model_intervals(a)
        expect = proportion_ci(20, 30, interval=method.replace("-", "_"))
        assert (iv.ci_low[0], iv.ci_high[0]) == pytest.approx(tuple(expect))
    a = analyze(p.table)
    auto = report.model_intervals(a)
    # auto follows the failures: 10 of 30 -> Wilson; 0 of 30 -> Clopper-Pearson's exact interval
    assert auto["interval"].tolist() == ["Wilson", "Clopper-Pearson (exact)"]
    assert (auto.ci_low[1], auto.ci_high[1]) == pytest.approx(tuple(proportion_ci(30, 30, interval="clopper_pearson")))
    normal = report.model_intervals(analyze(p.table, interval="normal"))
    assert normal.ci_low[0] == pytest.approx(20 / 30 - stats.t.ppf(0.975, 29) * a.models[0].se)
    with pytest.raises(EvalStatsError, match="interval"):
        analyze(p.table, interval="exact")


def test_comparisons_display_table5_and_saving():
    p, a = prepared("atlas_breeze", method="cr1")
    row = report.comparisons_display(a).iloc[0]
    c = a.comparisons[0]
    # differences in points (the unit in the header), and the one p-value to quote
    assert row["Model − Baseline (SE), points"] == "+5.0 (2.3)" and row["95% CI, points"] == "(+0.5, +9.5)"
    assert list(row.index) == ["Model", "Baseline", "Model − Baseline (SE), points", "95% CI, points", "p"]
    details = report.comparisons_details(a).iloc[0]
    assert details["Pairing saved"] == f"{1 - c.se / c.se_unpaired:.0%} of the SE" == "73% of the SE"
    p, a = prepared("synthetic", adjust="bh", paired=False)
    shown = report.comparisons_display(a)
    assert report.quote_label(a) == "p (Benjamini–Hochberg)" and "p (Benjamini–Hochberg)" in shown.columns
    assert "p" not in shown.columns  # the unadjusted p is under Details
    assert (report.comparisons_details(a)["Pairing saved"] == "n/a").all()


def test_differences_frame_and_mcnemar():
    p, a = prepared("synthetic")
    d = report.differences_frame(a)
    assert d["significant"].tolist() == [c.p_adjusted < 0.05 for c in a.comparisons]
    assert report.mcnemar_display(a).empty  # averaged resamples are not 0/1
    p, a = prepared("multilingual")
    mc = report.mcnemar_display(a)
    assert len(mc) == 3 and mc["Only model right (b)"][0] == a.comparisons[0].only_model


def test_formatter_adapts_decimals():
    p, a = prepared("multilingual")
    f = report.Formatter(a)
    assert f.decimals == 1 and f.num(0.75) == "75.0%" and f.num(float("nan")) == "n/a"
    assert f.interval(-0.01, 0.02, signed=True) == "(-1.0%, +2.0%)"


def test_settings_document_reproduces_the_command():
    p, a = prepared("multilingual", baseline="Galleon", confidence=0.9)
    doc = report.settings_document(a, interval_method="wilson", file_name="multilingual_clustered.csv")
    assert doc["interval_method"] == "wilson"
    assert doc["command"].startswith("evalbars analyze multilingual_clustered.csv --layout long")
    assert "--baseline Galleon" in doc["command"] and "--confidence 0.9" in doc["command"]
    json.dumps(doc)  # serialisable as the settings file
    assert report.json_document(a) == report.json_document(analyze(p.dataset, baseline="Galleon", confidence=0.9))


# ------------------------------------------------------------------------------------------ charts
def _walk(spec) -> str:
    return json.dumps(spec)


def test_models_chart_draws_given_intervals_best_first():
    frame = pd.DataFrame({"model": ["A", "B", "C"], "estimate": [0.6, 0.7, 0.65], "ci_low": [0.5, 0.6, 0.55],
                          "ci_high": [0.7, 0.8, 0.75], "group": ["b", "a", "ab"]})
    spec = models_chart(frame).to_dict()
    text = _walk(spec)
    assert "ci0" not in text and "ci1" not in text and '"extent"' not in text and "aggregate" not in text
    data = next(iter(spec["datasets"].values()))
    assert [r["model"] for r in data] == ["B", "C", "A"]  # best first
    layers = spec["layer"]
    # the bar is drawn over the interval clipped to [0, 1] (here the interval itself: nothing to clip)
    assert layers[0]["encoding"]["x"]["field"] == "shown_low" and layers[0]["encoding"]["x2"]["field"] == "shown_high"
    assert [(r["shown_low"], r["shown_high"]) for r in data] == [(r["ci_low"], r["ci_high"]) for r in data]
    assert layers[-1]["mark"]["type"] == "text" and layers[-1]["encoding"]["text"]["field"] == "group"
    assert spec["height"] == 90 + 44 * 3
    assert models_chart(frame.drop(columns="group"), percent=False).to_dict()["layer"][-1]["mark"]["type"] == "point"


def test_differences_chart_colours_by_adjusted_significance():
    frame = pd.DataFrame({"label": ["B − A", "C − A"], "estimate": [0.05, -0.01], "ci_low": [0.01, -0.05],
                          "ci_high": [0.09, 0.03], "significant": [True, False]})
    spec = differences_chart(frame).to_dict()
    assert "ci0" not in _walk(spec)
    colors = [layer["encoding"].get("color", {}) for layer in spec["layer"]]
    assert any(c.get("scale", {}).get("domain") == [SIGNIFICANT, NOT_SIGNIFICANT] for c in colors)
    rows = next(iter(v for v in spec["datasets"].values() if len(v) == 2))
    assert [r["verdict"] for r in rows] == [SIGNIFICANT, NOT_SIGNIFICANT]
    zero = [layer for layer in spec["layer"] if layer["encoding"].get("x", {}).get("field") == "zero"]
    assert len(zero) == 1 and "y" not in zero[0]["encoding"]  # one dashed line at 0 across all rows
    with pytest.raises(ValueError, match="significant"):
        differences_chart(frame.drop(columns="significant"))


def test_charts_render_to_png():
    from evalstats_core.charts import to_png

    p, a = prepared("multilingual")
    iv = report.model_intervals(a)
    assert to_png(models_chart(iv, confidence=0.95))[:8] == b"\x89PNG\r\n\x1a\n"
    assert to_png(differences_chart(report.differences_frame(a)))[:4] == b"\x89PNG"


def test_pairing_saved_in_words():
    """Uncorrelated models: pairing saves nothing, and the table says so instead of '-0%'."""
    rows = "question,A,B\n" + "".join(f"q{i},{i % 2},{(i // 2) % 2}\n" for i in range(40))
    p = prepare(rows.encode(), "u.csv")
    a = analyze(p.table)
    row = report.comparisons_details(a).iloc[0]
    c = a.comparisons[0]
    assert abs(c.correlation) < 1e-12 and row["Correlation"] == "0.00"
    expected = 1 - c.se / c.se_unpaired
    assert row["Pairing saved"] == ("nothing" if abs(expected) < 0.005 else f"nothing (SE {-expected:.0%} larger)")
