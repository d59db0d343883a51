"""Charts of the results workbench: each model's mean with its interval, and every difference.

============================  ======================================================================
``models_chart(frame)``       forest plot of each model's mean and interval, best first, with the
                              ranking's group letters beside each row
``differences_chart(frame)``  forest plot of every difference against zero, coloured by whether the
                              adjusted test is significant
``difference_matrix(frame)``  every pair as a heat map (many models): row minus column, models in
                              rank order, significant cells marked
``cluster_chart(frame)``      each cluster's share of a paired difference
============================  ======================================================================

Every chart takes a ``title`` and a ``subtitle`` (the method line of
:func:`~evalstats_core.report.method_line`), so an exported PNG says what it shows on its own.

Both draw the ``estimate``, ``ci_low`` and ``ci_high`` columns the core computed
(:mod:`evalstats_core.analysis`); Vega never aggregates.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from ._base import PALETTE, forest, legend
from ._template import filled

__all__ = ["models_chart", "differences_chart", "difference_matrix", "cluster_chart", "models_spec",
           "differences_spec", "cluster_spec", "SIGNIFICANT",
           "NOT_SIGNIFICANT", "TIED", "BELOW"]

SIGNIFICANT = "significant (adjusted)"
NOT_SIGNIFICANT = "not significant"
TIED = "cannot be told apart from the leader"
BELOW = "below the leader"


def _titled_height(height: int, title: str | None, subtitle: str | None) -> int:
    """The height :func:`_titled` gives a chart of ``height``: a title line, and a subtitle line when there is
    one (the workbench prints it under the chart instead)."""
    return height + (45 if subtitle else 25) if title else height


def _titled(chart, title: str | None, subtitle: str | None, height: int | None = None):
    """``chart`` with a title and a subtitle line (the method), when given; the height (``height``, else the
    chart's own) grows by the room they take, since Streamlit fits titles, axes and legends inside it. One
    ``properties`` call: each one copies the chart."""
    if not title:
        return chart if height is None else chart.properties(height=height)
    height = chart.height if height is None else height  # the chart's own: no compiling of its data
    grow = {"height": _titled_height(height, title, subtitle)} if isinstance(height, int | float) else {}
    return chart.properties(title=alt.TitleParams(title, subtitle=subtitle or "", anchor="start",
                                                  subtitleColor="#777777"), **grow)  # one copy of the chart


def _axis(chart: alt.LayerChart, fmt: str, title: str, *, signed: bool = False) -> alt.LayerChart:
    """The x axis of the interval bars with labels that never collide at the ends ("45.0%50.0%"); ``signed``:
    "+2" right of zero, "0" at zero."""
    extra = {"labelExpr": f"(datum.value > 0 ? '+' : '') + format(datum.value, '{fmt}')"} if signed else {}
    axis = alt.Axis(format=fmt, labelOverlap=True, labelBound=True, labelFlush=True, tickCount=6, **extra)
    layers = []
    for layer in chart.layer:
        enc = _encoding(layer)
        if "x2" in enc:
            x = enc["x"]
            layer = layer.encode(x=alt.X(x["field"], type="quantitative", title=title, axis=axis,
                                         scale=alt.Scale(zero=False)))
        layers.append(layer)
    chart.layer = layers
    return chart


def _height(n_rows: int) -> int:
    """Total height in pixels: Streamlit fits the axis and legend inside it, so leave room for them."""
    return 90 + 44 * max(n_rows, 1)


def _wide_labels(chart: alt.LayerChart, field: str) -> alt.LayerChart:
    """Let long model names show in full on the y axis (the default cuts them at 180 px)."""
    y = alt.Y(f"{field}:N", sort=None, title=None, axis=alt.Axis(labelLimit=320, labelFontSize=12))
    chart.layer = [layer.encode(y=y) if _has_y(layer) else layer for layer in chart.layer]
    return chart


def _has_y(layer: alt.Chart) -> bool:
    """True for the forest's rows (bars, points); False for the dashed zero line, which spans all rows."""
    return "y" in _encoding(layer)


def _encoding(layer: alt.Chart) -> dict:
    """A layer's compiled encoding, without compiling its data (sanitising a frame costs more than the rest)."""
    bare = layer.copy(deep=False)
    bare.data = alt.Undefined
    return bare.to_dict(validate=False).get("encoding", {})


def _check(frame: pd.DataFrame, needed: tuple[str, ...]) -> None:
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise ValueError(f"the frame needs the columns {', '.join(needed)}; missing: {', '.join(missing)}")


def models_chart(frame: pd.DataFrame, *, percent: bool = True, confidence: float | None = 0.95,
                 title: str | None = None, subtitle: str | None = None) -> alt.LayerChart:
    """Forest plot of the models: a point at the mean, a bar over the interval, best model on top.

    Parameters
    ----------
    frame : DataFrame
        One row per model: ``model, estimate, ci_low, ci_high``; optionally ``tied`` (bool: cannot be
        told apart from the leader), which colours the rows, and ``group`` (the letters of the compact
        letter display), drawn as text to the right of each interval.
    percent : bool
        Whether scores are proportions (axis in %); False for other scales (e.g. a 1-10 rating).
    confidence : float or None
        For the axis title; None leaves the level out of the chart (the page shows it beside the chart, so a
        new level changes the chart's data only, never its spec).
    """
    data, ends = _models_data(frame, percent)
    return _models_layout(data, ends, percent=percent, x_title=_models_axis(confidence), title=title,
                          subtitle=subtitle)


def _models_axis(confidence: float | None) -> str:
    return "Mean score with its interval" if confidence is None else f"Mean score with {confidence:.0%} interval"


def _models_data(frame: pd.DataFrame, percent: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows :func:`models_chart` draws (best first, intervals clipped to [0, 1] for proportions) and the
    clipped ends it marks with a triangle (no rows: nothing clipped)."""
    _check(frame, ("model", "estimate", "ci_low", "ci_high"))
    data = frame.sort_values("estimate", ascending=False, kind="stable").reset_index(drop=True)
    if "tied" in data.columns:
        data = data.assign(standing=[TIED if t else BELOW for t in data["tied"]])
    # a mean score in [0, 1] cannot leave it: an interval past 0% or 100% is drawn clipped at the bound,
    # with a triangle there (the table keeps the computed ends; report.clipped_note says why)
    data = data.assign(shown_low=data["ci_low"].clip(lower=0.0) if percent else data["ci_low"],
                       shown_high=data["ci_high"].clip(upper=1.0) if percent else data["ci_high"])
    cut = data[(data["ci_low"] < data["shown_low"]) | (data["ci_high"] > data["shown_high"])]
    ends = pd.DataFrame([{"model": r.model, "at": (0.0 if r.ci_low < 0 else 1.0),
                          "shape": "triangle-left" if r.ci_low < 0 else "triangle-right"}
                         for r in cut.itertuples()]
                        + [{"model": r.model, "at": 1.0, "shape": "triangle-right"}
                           for r in cut.itertuples() if r.ci_low < 0 and r.ci_high > 1],
                        columns=["model", "at", "shape"])
    return data, ends


def _models_layout(data: pd.DataFrame, ends: pd.DataFrame, *, percent: bool, x_title: str, title: str | None,
                   subtitle: str | None) -> alt.LayerChart:
    """:func:`models_chart` drawn from :func:`_models_data`; reads of the frames only their columns and whether
    any end is clipped (:func:`models_spec`'s template key), and the number of rows for the chart's height
    alone (:func:`_models_height`, filled in by :func:`models_spec`)."""
    chart = forest(data, label="model", percent=percent, low="shown_low", high="shown_high",
                   x_title=x_title, height_per_row=36)
    chart = _wide_labels(chart, "model")  # forest's chart is this function's own: changed in place
    chart = _axis(chart, ".0%" if percent else ".3g", x_title)
    if len(ends):
        marks = alt.Chart(ends).mark_point(filled=True, size=110, color=PALETTE[3], opacity=1).encode(
            x=alt.X("at:Q"), y=alt.Y("model:N", sort=None, title=None), shape=alt.Shape("shape:N", scale=None),
            tooltip=[alt.Tooltip("model:N"), alt.Tooltip("at:Q", title="interval clipped at", format=".0%")])
        chart = chart.copy()
        chart.layer = [*chart.layer, marks]
    if "tied" in data.columns:
        color = alt.Color("standing:N", scale=alt.Scale(domain=[TIED, BELOW], range=[PALETTE[0], PALETTE[7]]),
                          legend=legend(title=None, orient="bottom", labelLimit=400))
        layers = list(chart.layer)
        layers[-2], layers[-1] = layers[-2].encode(color=color), layers[-1].encode(color=color)
        chart.layer = layers
    if "group" in data.columns:
        # mid grey: readable on the light and the dark theme
        text = alt.Chart(data).mark_text(align="left", dx=8, fontSize=13, fontWeight="bold",
                                         color="#888888").encode(
            x=alt.X("ci_high:Q"), y=alt.Y("model:N", sort=None, title=None), text=alt.Text("group:N"))
        chart = chart.copy()
        chart.layer = [*chart.layer, text]  # keep the forest's own (possibly hoisted) data
    return _titled(chart, title, subtitle, height=_models_height(data))


def _models_height(data: pd.DataFrame) -> int:
    """The models forest's height before its titles: a row a model, and room for the legend of ties."""
    return _height(len(data)) + (30 if "tied" in data.columns else 0)


def differences_chart(frame: pd.DataFrame, *, percent: bool = True, confidence: float | None = 0.95,
                      paired: bool = True, title: str | None = None,
                      subtitle: str | None = None) -> alt.LayerChart:
    """Forest plot of the differences ``model - baseline`` with a dashed line at zero.

    Parameters
    ----------
    frame : DataFrame
        One row per comparison: ``label`` (e.g. "B − A"), ``estimate`` (the difference), ``ci_low``,
        ``ci_high`` and ``significant`` (bool, from the adjusted p-value).
    percent : bool
        Whether differences are of proportions (axis in %).
    confidence : float or None
        For the axis title; None leaves the level out of the chart (see :func:`models_chart`).
    """
    data = _differences_data(frame, percent)
    return _differences_layout(data, percent=percent, x_title=_differences_axis(percent, confidence, paired),
                               title=title, subtitle=subtitle)


def _differences_axis(percent: bool, confidence: float | None, paired: bool) -> str:
    unit = ", points" if percent else ""
    level = "its" if confidence is None else f"{confidence:.0%}"
    return f"Difference{unit}, with {level} interval ({'paired' if paired else 'unpaired'})"


def _differences_data(frame: pd.DataFrame, percent: bool) -> pd.DataFrame:
    """The rows :func:`differences_chart` draws: a verdict per row, differences of proportions in points."""
    _check(frame, ("label", "estimate", "ci_low", "ci_high", "significant"))
    data = frame.assign(verdict=[SIGNIFICANT if s else NOT_SIGNIFICANT for s in frame["significant"]])
    if percent:  # differences of 0-1 scores are drawn in percentage points, as every table prints them
        data = data.assign(**{c: 100.0 * data[c] for c in ("estimate", "ci_low", "ci_high")})
    return data


def _differences_layout(data: pd.DataFrame, *, percent: bool, x_title: str, title: str | None,
                        subtitle: str | None) -> alt.LayerChart:
    """:func:`differences_chart` drawn from :func:`_differences_data`; reads of the frame only its columns
    (:func:`differences_spec`'s template key), and its number of rows for the chart's height alone
    (:func:`_differences_height`, filled in by :func:`differences_spec`)."""
    chart = forest(data, label="label", percent=False, zero_line=True, x_title=x_title, height_per_row=36)
    chart = _axis(chart, ".1~f" if percent else ".3~g", x_title, signed=True)
    color = alt.Color("verdict:N", scale=alt.Scale(domain=[SIGNIFICANT, NOT_SIGNIFICANT],
                                                   range=[PALETTE[0], PALETTE[7]]),
                      legend=legend(title=None, orient="bottom"))
    chart = _wide_labels(chart, "label")
    layers = list(chart.layer)
    layers[-2] = layers[-2].encode(color=color)  # the interval bars
    layers[-1] = layers[-1].encode(color=color)  # the points
    chart.layer = layers
    return _titled(chart, title, subtitle, height=_differences_height(data))  # + the legend below


def _differences_height(data: pd.DataFrame) -> int:
    """The differences forest's height before its titles: a row a comparison, and the legend below."""
    return _height(len(data)) + 30


def difference_matrix(frame: pd.DataFrame, *, order: list[str], percent: bool = True,
                      title: str | None = None, subtitle: str | None = None) -> alt.LayerChart:
    """Every pairwise difference as a heat map: cell (row, column) is ``row - column``.

    Parameters
    ----------
    frame : DataFrame
        One row per ordered pair: ``row, column, estimate`` (``row - column``), ``significant`` (bool,
        from the adjusted test); both orientations of a pair, no diagonal needed.
    order : list of str
        Models in rank order (best first): rows top to bottom, columns left to right.
    percent : bool
        Differences of proportions (labels in points).

    Notes
    -----
    With many models a forest plot of every pair is hundreds of rows; the matrix shows each pair once
    in each orientation, in a square the size of the model list. Significant cells carry the number in
    bold with a star; the colour scale is diverging and centred at 0.
    """
    _check(frame, ("row", "column", "estimate", "significant"))
    scale = 100.0 if percent else 1.0
    def label(e: float, sig: bool) -> str:
        v = round(scale * e, 1) if percent else float(f"{e:.3g}")
        text = "0.0" if v == 0 else (f"{v:+.1f}" if percent else f"{v:+.3g}")  # never "-0.0"
        return text + ("*" if sig else "")

    data = frame.assign(text=[label(e, s) for e, s in zip(frame["estimate"], frame["significant"], strict=True)])
    data = data.assign(estimate=scale * data["estimate"])  # the colour legend and tooltip in points too
    limit = float(data["estimate"].abs().max() or 1.0)
    size = max(24, min(46, 720 // max(len(order), 1)))
    x = alt.X("column:N", sort=order, title="minus (column)",
              axis=alt.Axis(labelAngle=-40, labelLimit=160, labelOverlap=False))
    y = alt.Y("row:N", sort=order, title="model (row)", axis=alt.Axis(labelLimit=220, labelOverlap=False))
    fmt = ".1f" if percent else ".3g"
    rect = alt.Chart(data).mark_rect().encode(
        x=x, y=y,
        color=alt.Color("estimate:Q", scale=alt.Scale(scheme="blueorange", domain=[-limit, limit], reverse=True),
                        legend=legend(title="row − column" + (", points" if percent else ""), format=fmt,
                                      orient="bottom")),
        tooltip=[alt.Tooltip("row:N"), alt.Tooltip("column:N"), alt.Tooltip("estimate:Q", format=fmt),
                 alt.Tooltip("significant:N")])
    bold = alt.Chart(data[data["significant"]]).mark_text(fontSize=max(8, size // 4), fontWeight="bold").encode(
        x=x, y=y, text=alt.Text("text:N"), color=alt.ColorValue("#222222"))
    plain = alt.Chart(data[~data["significant"]]).mark_text(fontSize=max(8, size // 4)).encode(
        x=x, y=y, text=alt.Text("text:N"), color=alt.ColorValue("#444444"))
    chart = alt.layer(rect, bold, plain).properties(width=size * len(order), height=size * len(order))
    return _titled(chart, title, subtitle)


def cluster_chart(frame: pd.DataFrame, *, title: str | None = None, subtitle: str | None = None) -> alt.Chart:
    """Each cluster's share of the paired difference (bars; shares add up to 1), largest cluster first.

    ``frame`` is :func:`~evalstats_core.breakdown.cluster_breakdown`'s: ``cluster, n, share``.
    """
    return _cluster_layout(_cluster_data(frame), title=title, subtitle=subtitle)


def _cluster_data(frame: pd.DataFrame) -> pd.DataFrame:
    _check(frame, ("cluster", "n", "share"))
    return frame.assign(direction=["with the result" if s >= 0 else "against it" for s in frame["share"].fillna(0)])


def _cluster_layout(data: pd.DataFrame, *, title: str | None, subtitle: str | None) -> alt.Chart:
    """:func:`cluster_chart` drawn from :func:`_cluster_data`; reads of the frame its columns and the clusters
    in order (:func:`cluster_spec`'s template key)."""
    chart = alt.Chart(data).mark_bar().encode(
        y=alt.Y("cluster:N", sort=list(data["cluster"]), title=None, axis=alt.Axis(labelLimit=220)),
        x=alt.X("share:Q", title="share of the overall paired difference", axis=alt.Axis(format=".0%")),
        color=alt.Color("direction:N", scale=alt.Scale(domain=["with the result", "against it"],
                                                       range=[PALETTE[0], PALETTE[1]]),
                        legend=legend(title=None, orient="bottom")),
        tooltip=[alt.Tooltip("cluster:N"), alt.Tooltip("n:Q"), alt.Tooltip("share:Q", format=".1%")],
    ).properties(height=_height(len(data)) + 30)
    return _titled(chart, title, subtitle)


# ------------------------------------------------------------------------- compiled, for the workbench
def models_spec(frame: pd.DataFrame, *, percent: bool = True, confidence: float | None = 0.95, title: str | None = None,
                subtitle: str | None = None) -> dict:
    """``compile_spec(models_chart(...))`` from a template compiled once per shape (:mod:`._template`): a new
    confidence level or adjustment costs filling in numbers and titles, not compiling Altair again."""
    data, ends = _models_data(frame, percent)
    key = ("models", percent, tuple(data.columns), len(ends) > 0)  # any number of models: one template
    return filled(key, lambda s: _models_layout(data, ends, percent=percent, **s),
                  {"x_title": _models_axis(confidence), "title": title, "subtitle": subtitle},
                  {"models": data, "ends": ends}, height=_titled_height(_models_height(data), title, subtitle))


def differences_spec(frame: pd.DataFrame, *, percent: bool = True, confidence: float | None = 0.95, paired: bool = True,
                     title: str | None = None, subtitle: str | None = None) -> dict:
    """``compile_spec(differences_chart(...))`` from a template compiled once per shape (see :func:`models_spec`)."""
    data = _differences_data(frame, percent)
    key = ("differences", percent, tuple(data.columns))  # any number of comparisons: one template
    return filled(key, lambda s: _differences_layout(data, percent=percent, **s),
                  {"x_title": _differences_axis(percent, confidence, paired), "title": title, "subtitle": subtitle},
                  {"differences": data}, height=_titled_height(_differences_height(data), title, subtitle))


def cluster_spec(frame: pd.DataFrame, *, title: str | None = None, subtitle: str | None = None) -> dict:
    """``compile_spec(cluster_chart(...))`` from a template compiled once per shape (see :func:`models_spec`)."""
    data = _cluster_data(frame)
    key = ("clusters", tuple(data.columns), tuple(data["cluster"]))
    return filled(key, lambda s: _cluster_layout(data, **s), {"title": title, "subtitle": subtitle},
                  {"clusters": data})
