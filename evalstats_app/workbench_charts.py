"""The workbench's charts (:mod:`evalstats_app.workbench_sections` draws them): compiled once per analysis,
shown without any setting inside them, downloaded with every setting inside them.

A chart on screen carries neither the confidence level nor the method line (interval, standard errors,
adjustment): both are printed in the caption under it. A new level, adjustment or interval then changes the
chart's data only, not its spec, and Streamlit's frontend feeds the new rows into the chart it has drawn
(``view.data``) instead of embedding a new one, which it does only when a spec changes (a quarter of a second
for the page's three charts). The downloads (PNG, SVG, the 16:9 figures) draw the chart with the level on its
axis and the method line as its subtitle, built when clicked.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import streamlit as st

from evalstats_app import shell
from evalstats_app.workbench import Results, by_scope, esc
from evalstats_core.charts import analyze as charts
from evalstats_core.charts import compile_spec


def is_percent(analysis) -> bool:
    """Whether the analysis's scores are 0-1 levels (printed in percent, differences in points)."""
    return analysis.unit == "percent"


@by_scope(st.cache_data, max_entries=32, show_spinner=False)
def _chart_spec(key: str, analysis: tuple, kind: str, _frame: Any, percent: bool, confidence: float | None,
                title: str = "", subtitle: str = "", paired: bool = True, order: tuple = ()) -> dict:
    """A compiled chart of the workbench (compiling Altair costs a tenth of a second): ``kind`` is
    ``models``, ``differences`` (``leader``: every model against the leader), ``matrix`` or ``clusters``.
    On screen (:func:`chart`) ``confidence`` is None and ``subtitle`` empty: the level and the method line
    are printed under the chart; the downloads carry both inside the chart.

    Cached on the analysis it draws (the files' ``key`` and ``analysis``, the rest of :attr:`Results.key`, or
    for a cluster chart the reading, the clustering and the pair), never on a hash of the chart's frame; ``_frame`` may be a callable
    that builds it, called on a cache miss only."""
    return _build_spec(kind, _frame, percent, confidence, title, subtitle, paired, order)


def _build_spec(kind: str, frame: Any, percent: bool, confidence: float | None, title: str, subtitle: str,
                paired: bool, order: tuple) -> dict:
    """:func:`_chart_spec` without its cache (a download builds its chart outside the script's thread, where
    a session's cache cannot be read)."""
    frame = frame() if callable(frame) else frame  # a callable: the frame is built when needed only
    # the forests and the cluster bars from a template compiled once per shape (charts._template): a new
    # confidence level or adjustment fills in numbers and titles instead of compiling Altair again
    if kind == "models":
        return charts.models_spec(frame, percent=percent, confidence=confidence, title=title, subtitle=subtitle)
    if kind in ("differences", "leader"):
        return charts.differences_spec(frame, percent=percent, confidence=confidence, paired=paired, title=title,
                                       subtitle=subtitle)
    if kind == "matrix":
        return compile_spec(charts.difference_matrix(frame, order=list(order), percent=percent, title=title,
                                                     subtitle=subtitle))
    return charts.cluster_spec(frame, title=title, subtitle=subtitle)


def chart(res: Results, kind: str, frame: Any, title: str, line: str, summary: str, *, name: str,
          order: tuple = (), cache: tuple = ()):
    """Draw a chart of the results with no setting inside it: the confidence level, interval, standard errors
    and adjustment are in ``line`` (:func:`~evalstats_core.report.method_line`), printed under the chart
    above its ``summary``. A new level, adjustment or interval then changes the chart's data only, not its
    spec, so the browser feeds the new rows into the chart it has instead of embedding a new one (Streamlit's
    frontend re-embeds a Vega chart only when its spec changes). Returns the chart as the downloads draw it,
    built on click: the level on its axis and ``line`` as its subtitle (the export's 16:9 figures use it).
    ``cache``: what the chart's rows follow from, when less than every setting (:attr:`Results.key`)."""
    a = res.analysis
    args = (res.key[0], cache or res.key[1:], kind, frame, is_percent(a))

    def full() -> dict:
        return _build_spec(kind, frame, is_percent(a), a.confidence, title, line, a.paired, order)

    shell.chart(_arrow(_chart_spec(*args, None, title, "", a.paired, order)), f"{esc(line)}  \n{summary}",
                name=name, subtitle=line, export=full)
    return full


def _arrow(spec: dict) -> dict:
    """``spec`` with its datasets as Arrow tables: Streamlit sends a chart's datasets as Arrow, and converts a
    list of rows through a pandas frame first (a millisecond or two each, on every rerun); the rows the
    browser reads are the same."""

    datasets = {}
    for name, rows in spec.get("datasets", {}).items():
        try:
            datasets[name] = pa.Table.from_pylist(rows) if rows else rows
        except (pa.ArrowException, TypeError, ValueError):  # mixed kinds in a column: Streamlit's own way
            datasets[name] = rows
    return {**spec, "datasets": datasets}
