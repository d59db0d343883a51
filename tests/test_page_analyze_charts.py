"""The workbench's forests after each control moves (pages/analyze.py through AppTest, by widget key): the
charts the page sends are, dataset names aside, the Altair charts of the analysis it shows, compiled afresh
(the page fills a template compiled once per shape: evalstats_core/charts/_template.py). On screen a chart
carries no setting (its level and method line are in the caption under it), so a new confidence level,
adjustment or interval changes its data only; its downloads carry both inside the chart."""

from __future__ import annotations

import json

import pytest
from conftest import no_exceptions, run_page
from test_chart_template import canonical
from test_page_analyze import PAGE, inject

from evalstats_app.shell import whole_labels
from evalstats_app.workbench import LAST_KEY, esc, ranking_of
from evalstats_app.workbench_sections import _short_name
from evalstats_core import report
from evalstats_core.charts import analyze as charts
from evalstats_core.charts import compile_spec
from evalstats_core.display import models_frame


def _three_models() -> bytes:
    """300 questions in clusters of 10, three models, long form (the bench file's design, small)."""
    lines = ["question,model,score,cluster"]
    for q in range(300):
        for j, m in enumerate("ABC"):
            lines.append(f"q{q},{m},{int((q * 7 + j * 29) % 100 < 55 + 4 * j)},c{q // 10}")
    return ("\n".join(lines) + "\n").encode()


def _compiled(a, screen: bool = False) -> dict:
    """The two forests of analysis ``a`` as the page titles them, compiled from the Altair charts: as the
    downloads draw them (the level on the axis, the method line as subtitle), or as the screen shows them
    (``screen``: neither, and with whole labels: shell.whole_labels, issue 40's presenter-mode labels)."""
    percent = a.unit == "percent"
    level = None if screen else a.confidence
    models = charts.models_chart(models_frame(a, ranking_of(a)), percent=percent, confidence=level,
                                 title=f"{_short_name(a)}: mean score by model",
                                 subtitle="" if screen else report.method_line(a))
    diffs = charts.differences_chart(report.differences_frame(a), percent=percent, confidence=level,
                                     paired=a.paired, title=f"{_short_name(a)}: differences" + (" in points" if percent
                                                                                                 else ""),
                                     subtitle="" if screen else report.method_line(a, what="comparisons"))
    out = {"models": compile_spec(models), "differences": compile_spec(diffs)}
    return {name: whole_labels(spec) for name, spec in out.items()} if screen else out


@pytest.fixture(scope="module")
def page():
    at = run_page(PAGE)
    inject(at, "three.csv", _three_models())
    no_exceptions(at)
    return at


def _sent(at) -> dict:
    """The specs of the page's models and differences forests as sent to the browser: Streamlit sends the
    datasets beside the spec (Arrow) and adds its own ``autosize``."""
    import pyarrow as pa

    specs = []
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        spec.pop("autosize", None)
        spec["datasets"] = {**spec.get("datasets", {}), **{
            d.name: pa.ipc.open_stream(d.data.data).read_all().to_pylist() for d in chart.proto.datasets}}
        specs.append(spec)
    return {"models": next(s for s in specs if s["title"]["text"].endswith("mean score by model")),
            "differences": next(s for s in specs if ": differences" in s["title"]["text"])}


STEPS = [("select_slider", "analyze_confidence", 0.9, "90%"), ("selectbox", "analyze_adjust", "bh", "90%"),
         ("selectbox", "analyze_method", "wilson", "90%"), ("select_slider", "analyze_confidence", 0.99, "99%"),
         ("selectbox", "analyze_cluster_se", "cr1", "99%"), ("toggle", "analyze_paired", False, "99%")]


@pytest.mark.parametrize("kind,key,value,level", STEPS, ids=[f"{k}={v}" for _, k, v, _ in STEPS])
def test_each_control_draws_the_compiled_charts_of_the_shown_analysis(page, kind, key, value, level):
    """Each step moves one control (the steps run in order, each on the last one's page)."""
    widget = getattr(page, kind)(key=key)
    widget.set_value(value).run()
    no_exceptions(page)
    a = page.session_state[LAST_KEY]
    want, shown = _compiled(a), _compiled(a, screen=True)
    # the export's figures, built on click
    stored = {k: page.session_state[f"_slide_{k}"]() for k in ("models", "differences")}
    for name, spec in _sent(page).items():
        assert canonical(spec) == canonical(shown[name]), name
        assert "% interval" not in json.dumps(spec, ensure_ascii=False) and spec["title"]["subtitle"] == ""
        assert canonical(stored[name]) == canonical(want[name]), name
        assert f"{level} interval" in json.dumps(stored[name]["layer"], ensure_ascii=False)  # the axis names it
        assert stored[name]["title"]["subtitle"].startswith(f"{level} CI")
    # the level and the method line are read right under each chart, in its caption
    lines = {"models": report.method_line(a), "differences": report.method_line(a, what="comparisons")}
    captions = [c.value for c in page.caption]
    for name, line in lines.items():
        assert line.startswith(f"{level} CI")
        assert any(c.startswith(esc(line) + "  \n") for c in captions), (name, line)


def _spec_text(at) -> dict:
    """Each chart the page sends, by title: its spec as the browser receives it, without the data (Streamlit
    sends the datasets beside it, as Arrow)."""
    out = {}
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        out[spec["title"]["text"]] = chart.proto.spec
    return out


def _datasets(at) -> dict:
    return {json.loads(c.proto.spec)["title"]["text"]: [d.data.data for d in c.proto.datasets]
            for c in at.get("vega_lite_chart")}


@pytest.mark.parametrize("key,kind,value", [("analyze_confidence", "select_slider", 0.8),
                                            ("analyze_adjust", "selectbox", "none"),
                                            ("analyze_method", "selectbox", "clopper-pearson")])
def test_a_new_level_adjustment_or_interval_leaves_every_chart_spec_unchanged(key, kind, value):
    """Streamlit's frontend re-embeds a Vega chart (a quarter of a second for the page's three) only when its
    spec changes; when only the datasets change it feeds the new rows into the chart it has. So the charts of
    the results carry no setting: moving these controls changes their data, never their spec (each chart's
    spec text compared byte for byte, the forests and the cluster chart, with the new numbers drawn)."""
    at = run_page(PAGE)
    inject(at, "three.csv", _three_models())
    no_exceptions(at)
    before, data_before = _spec_text(at), _datasets(at)
    assert len(before) == 3 and any(t.startswith("Where ") for t in before)  # two forests and the clusters
    getattr(at, kind)(key=key).set_value(value).run()
    no_exceptions(at)
    assert _spec_text(at) == before
    if key != "analyze_adjust":  # Holm or none: three comparisons, one decision each, intervals unchanged
        changed = [t for t in before if _datasets(at)[t] != data_before[t]]
        assert any("mean score by model" in t for t in changed), changed  # the new intervals are drawn
