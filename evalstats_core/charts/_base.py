"""Palette, export and the forest plot (estimates with intervals), shared by every chapter."""

from __future__ import annotations

import textwrap
from typing import Any

import altair as alt
import pandas as pd

from ._render import render

__all__ = ["PALETTE", "compile_spec", "forest", "legend", "to_png", "to_svg", "with_export_config"]

#: Okabe-Ito: distinguishable with the common colour-vision deficiencies, readable on light and dark.
PALETTE: tuple[str, ...] = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#999999",  # grey
)


#: Legend columns: one entry per line in a narrow container (a phone, where a row of entries would run off the
#: chart's edge), one row elsewhere (0); files exported without a container keep one row.
NARROW_COLUMNS = alt.ExprRef(expr="containerSize()[0] > 0 && containerSize()[0] < 560 ? 1 : 0")


def legend(**kwargs: Any) -> alt.Legend:
    """``alt.Legend(**kwargs)``; a legend above or below the chart stacks its entries on a narrow screen, and
    no label is cut short with an ellipsis (Vega's default limit is 160 px: "true ability (unknown in …")."""
    kwargs.setdefault("labelLimit", 0)
    if kwargs.get("orient") in ("top", "bottom") and "columns" not in kwargs:
        kwargs["columns"] = NARROW_COLUMNS
    return alt.Legend(**kwargs)


def with_export_config(chart: alt.TopLevelMixin) -> alt.TopLevelMixin:
    """A copy of ``chart`` with a white background and readable fonts, for PNG/SVG files."""
    return chart.properties(background="white").configure_axis(
        labelFontSize=12, titleFontSize=13
    ).configure_title(fontSize=15, anchor="start")


def compile_spec(chart: Any) -> dict:
    """The Vega-Lite dict of ``chart``, data inline, without re-validating it against the schema.

    Validation costs tens of milliseconds per layered chart; the builders are validated in the tests
    (``chart.to_dict()``), so the app compiles once (inside a cached function) and keeps the dict.
    A dict passes through unchanged.
    """
    if isinstance(chart, dict):
        return chart
    return chart.to_dict(validate=False)  # Altair charts, and charts.resampling.SpecChart (ignores it)


def warm_up() -> None:
    """Compile one small layered chart with a frame: Altair's and pandas' own first-use set-up (about
    0.2 s), done ahead (the workbench runs it in the background once per server) so that the first chart
    a visitor asks for does not pay it."""
    base = alt.Chart(pd.DataFrame({"x": [0.0, 1.0], "y": ["a", "b"]})).encode(y=alt.Y("y:N"))
    compile_spec(alt.layer(base.mark_rule().encode(x=alt.X("x:Q")), base.mark_point().encode(x=alt.X("x:Q"))))


#: Characters per line of an exported title / subtitle (Vega does not wrap titles itself).
TITLE_WIDTH, SUBTITLE_WIDTH = 70, 95


def _spec(chart: Any, title: str | None = None, subtitle: str | None = None) -> dict:
    if isinstance(chart, dict):
        spec = dict(chart)
        spec.setdefault("background", "white")
    else:
        try:
            spec = with_export_config(chart).to_dict()
        except Exception:  # already configured (configure_* twice is an Altair error): export as is
            spec = chart.to_dict()
            spec.setdefault("background", "white")
    if title or subtitle:
        own = spec.get("title")
        own = own.get("text", "") if isinstance(own, dict) else own
        text = title or (" ".join(own) if isinstance(own, list) else own) or ""
        block: dict[str, Any] = {"text": textwrap.wrap(text, TITLE_WIDTH) or [""], "anchor": "start",
                                 "fontSize": 15, "color": "#222222", "subtitleColor": "#555555",
                                 "subtitleFontSize": 11, "offset": 10}
        if subtitle:
            block["subtitle"] = textwrap.wrap(subtitle, SUBTITLE_WIDTH)
        spec["title"] = block
    return spec


def to_svg(chart: Any, *, title: str | None = None, subtitle: str | None = None) -> str:
    """Render ``chart`` to an SVG string with vl-convert (no browser, no network).

    ``title`` replaces the chart's own title and ``subtitle`` (e.g. the settings it was drawn with) goes
    under it; both are wrapped to a few lines.
    """

    return render(_spec(chart, title, subtitle), "svg")


def to_png(chart: Any, *, scale: float = 2.0, title: str | None = None, subtitle: str | None = None) -> bytes:
    """Render ``chart`` to PNG bytes with vl-convert, at ``scale`` times its size (2 = slide quality);
    ``title`` and ``subtitle`` as in :func:`to_svg`."""

    return render(_spec(chart, title, subtitle), "png", scale=scale)


def forest(frame: pd.DataFrame, *, label: str = "label", estimate: str = "estimate",
           low: str = "ci_low", high: str = "ci_high", color: str | None = None,
           zero_line: bool = False, percent: bool = True, title: str = "",
           x_title: str = "Estimate with 95% CI", height_per_row: int = 34) -> alt.Chart:
    """A forest plot: one row per ``label``, a point at ``estimate`` and a bar from ``low`` to ``high``.

    Parameters
    ----------
    frame : tidy frame, one row per interval, with the columns named by the other arguments.
    color : optional column that colours rows (e.g. method or model).
    zero_line : draw a dashed rule at 0 (for differences).
    percent : format the axis as percentages (values are proportions).
    """
    fmt = ".1%" if percent else ".3g"
    tooltip = [alt.Tooltip(f"{label}:N"), alt.Tooltip(f"{estimate}:Q", format=fmt),
               alt.Tooltip(f"{low}:Q", format=fmt), alt.Tooltip(f"{high}:Q", format=fmt)]
    # every row keeps its label: Vega would drop the ones it finds crowded (in presenter mode's large type,
    # chapter 2b's four intervals showed only "Wald" and "Bayes")
    base = alt.Chart(frame).encode(
        y=alt.Y(f"{label}:N", sort=None, title=None, axis=alt.Axis(labelOverlap=False, labelLimit=0)),
    )
    enc_color = (alt.Color(f"{color}:N", scale=alt.Scale(range=list(PALETTE)), legend=alt.Legend(title=None))
                 if color else alt.ColorValue(PALETTE[0]))
    step = {"tickMinStep": 0.001} if percent else {}  # no two ticks printing the same "61.2%"
    bars = base.mark_rule(strokeWidth=3).encode(
        x=alt.X(f"{low}:Q", title=x_title, axis=alt.Axis(format=fmt, **step), scale=alt.Scale(zero=False)),
        x2=alt.X2(high), color=enc_color, tooltip=tooltip,
    )
    points = base.mark_point(filled=True, size=90).encode(
        x=alt.X(f"{estimate}:Q"), color=enc_color, tooltip=tooltip,
    )
    layers = [bars, points]
    if zero_line:
        layers.insert(0, alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(
            strokeDash=[4, 4], color="#888888").encode(x=alt.X("zero:Q")))
    n_rows = max(int(frame[label].nunique()), 1)
    chart = alt.layer(*layers).properties(height=max(80, height_per_row * n_rows))
    if title:
        chart = chart.properties(title=title)
    return chart
