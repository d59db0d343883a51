"""Issue 39.6: the judge chart states the method and the labels in its subtitle, draws one axis label per model
(three intervals side by side in the row, never 30 overprinting labels), and its x axis starts where the data do."""

from __future__ import annotations

from pathlib import Path

from evalstats_core.analysis import analyze
from evalstats_core.charts import compile_spec
from evalstats_core.charts.judge import three_intervals
from evalstats_core.data import load
from evalstats_core.judge_io import chart_subtitle, intervals_frame, section_for

JUDGED = Path(__file__).resolve().parents[1] / "examples" / "judged_3_models.csv"


def test_subtitle_rows_and_axis():
    d = load(JUDGED)
    section = section_for(d, analyze(d))
    frame = intervals_frame(section)
    sub = chart_subtitle(section)
    assert sub == "95% intervals · corrected: PPI++ with 300 human labels per model (column 'human') · judge only · " \
                  "human labels only"
    spec = compile_spec(three_intervals(frame, title="Judge, humans, corrected", subtitle=sub))
    assert spec["title"] == {"text": "Judge, humans, corrected", "subtitle": sub}
    layer = spec["layer"][0]
    assert layer["encoding"]["y"]["field"] == "label" and layer["encoding"]["yOffset"]["field"] == "kind"
    low, high = layer["encoding"]["x"]["scale"]["domain"]
    assert low > 0.0 and low <= frame["ci_low"].min() and high >= frame["ci_high"].max()
    assert low >= frame["ci_low"].min() - 0.05 * (frame["ci_high"].max() - frame["ci_low"].min())
