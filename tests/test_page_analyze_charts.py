"""The workbench's forests after each control moves (pages/analyze.py through AppTest, by widget key): the
charts the page sends are, dataset names aside, the Altair charts of the analysis it shows, compiled afresh
(the page fills a template compiled once per shape: evalstats_core/charts/_template.py)."""

from __future__ import annotations

import json

import pytest
from conftest import no_exceptions, run_page
from test_chart_template import canonical
from test_page_analyze import PAGE, inject

from evalstats_app.workbench import LAST_KEY, ranking_of
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


def _compiled(a) -> dict:
    """The two forests of analysis ``a`` as the page titles them, compiled from the Altair charts."""
    percent = a.unit == "percent"
    models = charts.models_chart(models_frame(a, ranking_of(a)), percent=percent, confidence=a.confidence,
                                 title=f"{_short_name(a)}: mean score by model", subtitle=report.method_line(a))
    diffs = charts.differences_chart(report.differences_frame(a), percent=percent, confidence=a.confidence,
                                     paired=a.paired, title=f"{_short_name(a)}: differences" + (" in points" if percent
                                                                                                 else ""),
                                     subtitle=report.method_line(a, what="comparisons"))
    return {"models": compile_spec(models), "differences": compile_spec(diffs)}


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
    want = _compiled(a)
    stored = {k: page.session_state[f"_slide_{k}"] for k in ("models", "differences")}  # the export's figures
    for name, spec in _sent(page).items():
        assert canonical(spec) == canonical(want[name]), name
        assert canonical(stored[name]) == canonical(want[name]), name
        assert f"{level} interval" in json.dumps(spec["layer"], ensure_ascii=False)  # the axis names the level
        assert spec["title"]["subtitle"].startswith(f"{level} CI")
