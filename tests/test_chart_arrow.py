"""shell.chart's shared Arrow memo (issue 44.4): the chart message a browser receives is the one Streamlit
builds from the plain spec, byte for byte, whether the rows were converted before or not."""

import altair as alt
import pandas as pd
from streamlit.elements.vega_charts import _marshall_chart_data
from streamlit.proto.VegaLiteChart_pb2 import VegaLiteChart

from evalstats_app import shell
from evalstats_core.charts import compile_spec


def _message(spec: dict) -> VegaLiteChart:
    """The proto Streamlit sends for ``spec`` (what ``st.vega_lite_chart`` does with its data)."""
    proto = VegaLiteChart()
    _marshall_chart_data(proto, dict(spec))
    return proto


def _spec(values: list[float]) -> dict:
    frame = pd.DataFrame({"x": values, "label": [f"row {i}" for i in range(len(values))], "ok": [True] * len(values)})
    points = alt.Chart(frame).mark_point().encode(x="x:Q", y="label:N")
    return compile_spec(alt.layer(points, alt.Chart(frame.head(1)).mark_rule().encode(x="x:Q")))


def test_arrow_datasets_give_the_message_of_the_plain_spec():
    """Every dataset's bytes and name equal Streamlit's own conversion, on a first call and on a memo hit,
    and the spec keeps its rows for the exports (the copy alone carries bytes)."""
    spec = _spec([0.25, float("nan"), -1.5, 3.0])
    plain = _message(spec)
    for _ in range(2):  # the second call is served by the memo
        ready = shell._with_arrow_datasets(spec)
        assert all(isinstance(v, bytes) for v in ready["datasets"].values())
        assert _message(ready) == plain
    assert all(isinstance(v, list) for v in spec["datasets"].values())


def test_other_rows_are_not_served_from_the_memo():
    """Rows that differ in one value (or one type: 1 against True) convert afresh."""
    a, b = _spec([0.1, 0.2]), _spec([0.1, 0.3])
    assert _message(shell._with_arrow_datasets(a)) == _message(a)
    assert _message(shell._with_arrow_datasets(b)) == _message(b) != _message(a)
    assert shell._arrow([{"v": 1}]) != shell._arrow([{"v": True}])


def test_memo_is_bounded(monkeypatch):
    """Past its entry bound the oldest conversions are dropped, and the byte count follows."""
    monkeypatch.setattr(shell, "_ARROW_MAX_ENTRIES", 3)
    for i in range(6):
        shell._arrow([{"i": i, "n": "bounded"}])
    assert len(shell._ARROW) <= 3
    assert shell._arrow_bytes[0] == sum(len(v) for v in shell._ARROW.values())
