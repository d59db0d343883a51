"""Charts of chapter 4, "Paired vs unpaired": Atlas and Breeze task by task, the two comparisons,
the scatter with covariance rectangles, the correlation sweep and McNemar's 2x2 table.

==============================  ====================================================================
``agents_chart(scores, means)`` each agent's task scores as dots, its mean and 95% interval
``differences_chart(frame)``    the per-task differences as bars, their mean as a rule
``comparison_chart(frame)``     the difference with its unpaired and its paired interval
``scatter_chart(points)``       task scores of A against B, the diagonal, covariance rectangles
``correlation_chart(...)``      paired SE against the correlation: closed form and simulated evals
``mcnemar_table_chart(frame)``  the 2x2 agreement table, discordant cells highlighted
==============================  ====================================================================

Builders draw columns computed by ``evalstats_core.lessons.paired``; none aggregates in Vega.
"""

from __future__ import annotations

import math

import altair as alt
import pandas as pd

from ._base import PALETTE, legend

#: One empty inline datum: a constant rule (``alt.datum``) drawn once, without a DataFrame to convert.
ONE = alt.Data(values=[{}])

__all__ = ["agents_chart", "comparison_chart", "correlation_chart", "differences_chart",
           "mcnemar_table_chart", "scatter_chart"]

AGENT_COLORS = [PALETTE[0], PALETTE[1]]  # Atlas blue, Breeze orange
POSITIVE, NEGATIVE = PALETTE[0], PALETTE[1]


def agents_chart(scores: pd.DataFrame, means: pd.DataFrame) -> alt.LayerChart:
    """Each agent's ten task scores (dots), its mean (diamond) and its 95% interval (thick bar).

    Parameters
    ----------
    scores : DataFrame
        One row per (agent, task): ``agent``, ``task``, ``score``.
    means : DataFrame
        One row per agent: ``agent``, ``estimate``, ``se``, ``ci_low``, ``ci_high``.
    """
    agents = list(means["agent"])
    color = alt.Color("agent:N", sort=agents, scale=alt.Scale(domain=agents, range=AGENT_COLORS), legend=None)

    def y(position: float) -> alt.Y:  # dots in the upper part of each agent's band, the interval below
        return alt.Y("agent:N", sort=agents, title=None, bandPosition=position, axis=alt.Axis(labelFontSize=13))

    dots = alt.Chart(scores).mark_circle(size=70, opacity=0.55).encode(
        x=alt.X("score:Q", title="Task score (dots), mean with 95% interval", axis=alt.Axis(format="%"),
                scale=alt.Scale(domain=[0, 1])),
        y=y(0.3), color=color,
        tooltip=[alt.Tooltip("agent:N"), alt.Tooltip("task:N"), alt.Tooltip("score:Q", format=".2f")])
    tooltip = [alt.Tooltip("agent:N"), alt.Tooltip("estimate:Q", format=".1%", title="mean"),
               alt.Tooltip("se:Q", format=".4f", title="SE"), alt.Tooltip("ci_low:Q", format=".1%"),
               alt.Tooltip("ci_high:Q", format=".1%")]
    bars = alt.Chart(means).mark_rule(strokeWidth=6).encode(
        x=alt.X("ci_low:Q"), x2=alt.X2("ci_high:Q"), y=y(0.6), color=color, tooltip=tooltip)
    centre = alt.Chart(means).mark_point(shape="diamond", filled=True, size=160, color="#777777").encode(
        x=alt.X("estimate:Q"), y=y(0.6), tooltip=tooltip)
    return alt.layer(dots, bars, centre).properties(height=230)


def differences_chart(frame: pd.DataFrame, *, mean: float) -> alt.LayerChart:
    """Per-task differences ``A - B`` as bars (blue where A won, orange where B won), mean dashed.

    Parameters
    ----------
    frame : DataFrame
        One row per task: ``task`` (label, drawn in the given order), ``diff``, ``winner``.
    mean : float
        The mean difference, drawn as a dashed rule.
    """
    bars = alt.Chart(frame).mark_bar().encode(
        x=alt.X("task:N", sort=None, title=None, axis=alt.Axis(labelAngle=0)),
        y=alt.Y("diff:Q", title="Atlas − Breeze", axis=alt.Axis(format="+.0%", tickMinStep=0.01)),
        color=alt.Color("winner:N", title="Task won by",
                        scale=alt.Scale(domain=["Atlas", "Breeze"], range=AGENT_COLORS),
                        legend=legend(orient="top")),
        tooltip=[alt.Tooltip("task:N"), alt.Tooltip("diff:Q", format="+.2f")])
    rule = alt.Chart(ONE).mark_rule(strokeDash=[6, 4], color="#777777", strokeWidth=2).encode(y=alt.datum(mean))
    zero = alt.Chart(ONE).mark_rule(color="#888888").encode(y=alt.datum(0.0))
    return alt.layer(zero, bars, rule).properties(height=260)


def comparison_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """The difference ``A - B`` with one 95% interval per method (unpaired, paired) and a zero line.

    Parameters
    ----------
    frame : DataFrame
        One row per method: ``method``, ``label`` (the row's name, e.g. "paired: significant"),
        ``estimate``, ``se``, ``ci_low``, ``ci_high``, ``verdict``.
    """
    labels = list(frame["label"])
    color = alt.Color("label:N", sort=labels, legend=None,
                      scale=alt.Scale(domain=labels, range=[PALETTE[7], PALETTE[2]][: len(labels)]))
    y = alt.Y("label:N", sort=labels, title=None, axis=alt.Axis(labelLimit=260, labelFontSize=13))
    tooltip = [alt.Tooltip("method:N"), alt.Tooltip("estimate:Q", format="+.1%", title="difference"),
               alt.Tooltip("se:Q", format=".4f", title="SE"), alt.Tooltip("ci_low:Q", format="+.1%"),
               alt.Tooltip("ci_high:Q", format="+.1%"), alt.Tooltip("verdict:N")]
    zero = alt.Chart(ONE).mark_rule(strokeDash=[4, 4], color="#777777", strokeWidth=2).encode(x=alt.datum(0.0))
    bars = alt.Chart().mark_rule(strokeWidth=7).encode(
        x=alt.X("ci_low:Q", title="Atlas − Breeze with 95% interval", axis=alt.Axis(format="+.0%", tickMinStep=0.01)),
        x2=alt.X2("ci_high:Q"), y=y, color=color, tooltip=tooltip)
    points = alt.Chart().mark_point(filled=True, size=120, color="#777777").encode(
        x=alt.X("estimate:Q"), y=y, tooltip=tooltip)
    return alt.layer(zero, bars, points, data=frame).properties(height=60 * max(len(frame), 1) + 80)


#: Side of the scatter's square plot area, in pixels (fits a 390-px phone with its axes).
SCATTER_SIDE = 300


def scatter_chart(points: pd.DataFrame, *, rects: bool, mean_a: float, mean_b: float,
                  labels: tuple[str, str] = ("Atlas", "Breeze")) -> alt.LayerChart:
    """Scores of A (x) against B (y) per task, the diagonal y = x, and optional covariance rectangles.

    Parameters
    ----------
    points : DataFrame
        One row per task: ``task``, ``a``, ``b`` and, for the rectangles, ``x0, x1, y0, y1`` (from
        the means to the point), ``product`` (signed area) and ``sign`` ("same side" /
        "opposite sides"), as made by :func:`evalstats_core.lessons.paired.covariance_rectangles`.
    rects : bool
        Draw the covariance rectangles.
    mean_a, mean_b : float
        The two means, drawn as thin rules.
    """
    a_name, b_name = labels
    lowest = float(min(points["a"].min(), points["b"].min()))
    lo, hi = max(0.0, math.floor((lowest - 0.05) * 10) / 10), 1.0  # a shared, square domain
    scale = alt.Scale(domain=[lo, hi], zero=False, nice=False)
    x = alt.X("a:Q", title=f"{a_name} score", scale=scale, axis=alt.Axis(format="%"))
    y = alt.Y("b:Q", title=f"{b_name} score", scale=scale, axis=alt.Axis(format="%"))
    diag = alt.Chart(ONE).mark_rule(color="#888888", strokeDash=[6, 4]).encode(
        x=alt.datum(lo), y=alt.datum(lo), x2=alt.datum(hi), y2=alt.datum(hi))
    vrule = alt.Chart(ONE).mark_rule(color="#777777", strokeWidth=1).encode(x=alt.datum(mean_a))
    hrule = alt.Chart(ONE).mark_rule(color="#777777", strokeWidth=1).encode(y=alt.datum(mean_b))
    dots = alt.Chart().mark_circle(size=110, color="#777777", opacity=0.9).encode(
        x=x, y=y, tooltip=[alt.Tooltip("task:N"), alt.Tooltip("a:Q", title=a_name, format=".2f"),
                           alt.Tooltip("b:Q", title=b_name, format=".2f")])
    # each task's label goes to the free corner: the offset whose label centre lies farthest from every
    # point and from the labels already placed (greedy, in the chart's own units: the domain is square)
    offsets = {"ne": (7, -8, "left"), "nw": (-7, -8, "right"), "se": (7, 10, "left"), "sw": (-7, 10, "right")}
    span = (hi - lo) / SCATTER_SIDE  # data units per pixel on both axes
    placed, corner = [], []
    pts = list(zip(points["a"], points["b"], strict=True))
    for a_i, b_i in pts:
        best, best_d = "ne", -1.0
        for name, (dx, dy, align) in offsets.items():
            cx = a_i + (dx + (12 if align == "left" else -12)) * span
            cy = b_i - dy * span
            d = min([math.hypot(cx - pa, cy - pb) for pa, pb in pts if (pa, pb) != (a_i, b_i)] +
                    [math.hypot(cx - qa, cy - qb) for qa, qb in placed] + [1.0])
            if d > best_d + 1e-12:
                best, best_d = name, d
        dx, dy, align = offsets[best]
        placed.append((a_i + (dx + (12 if align == "left" else -12)) * span, b_i - dy * span))
        corner.append(best)
    labelled = points.assign(corner=corner)
    text = [alt.Chart(labelled).transform_filter(alt.datum.corner == name).mark_text(
        align=align, dx=dx, dy=dy, fontSize=13, color="#777777").encode(x=x, y=y, text=alt.Text("task:N"))
        for name, (dx, dy, align) in offsets.items()]
    layers = [diag, vrule, hrule]
    if rects:
        layers.append(alt.Chart().mark_rect(opacity=0.3, stroke="#777777", strokeWidth=0.5).encode(
            x=alt.X("x0:Q", scale=scale), x2=alt.X2("x1:Q"), y=alt.Y("y0:Q", scale=scale), y2=alt.Y2("y1:Q"),
            color=alt.Color("sign:N", title="Deviations from the means",
                            scale=alt.Scale(domain=["same side", "opposite sides"], range=[POSITIVE, NEGATIVE]),
                            legend=legend(orient="top")),
            tooltip=[alt.Tooltip("task:N"), alt.Tooltip("product:Q", format="+.4f", title="product")]))
    layers += [dots, *text]
    # a fixed square plot (not stretched to the container): equal pixels per point on both axes, so the
    # squares of Atlas against itself are drawn square (seed 004's squares -> rectangles)
    # autosize "pad": width and height are the plot area's, the axes and legend are added around it
    return alt.layer(*layers, data=points).properties(width=SCATTER_SIDE, height=SCATTER_SIDE,
                                                      autosize=alt.AutoSizeParams(type="pad"))


def correlation_chart(curve: pd.DataFrame, simulated: pd.DataFrame, *, current: float) -> alt.LayerChart:
    """Standard error of the difference against the models' correlation: formula lines, simulated dots.

    Parameters
    ----------
    curve : DataFrame
        Long form: ``correlation``, ``se``, ``method`` ("paired (formula)", "unpaired (formula)").
    simulated : DataFrame
        Long form: ``correlation``, ``se``, ``method`` ("paired (simulated)", "unpaired (simulated)").
    current : float
        The slider's correlation, drawn as a vertical rule.
    """
    domain = ["unpaired (formula)", "paired (formula)", "unpaired (simulated)", "paired (simulated)"]
    colors = [PALETTE[7], PALETTE[2], PALETTE[7], PALETTE[2]]
    color = alt.Color("method:N", title=None, scale=alt.Scale(domain=domain, range=colors),
                      legend=legend(orient="top"))  # one column on a phone, where two cut the last label
    x = alt.X("correlation:Q", title="Correlation between the two models' answers",
              scale=alt.Scale(domain=[float(curve["correlation"].min()), float(curve["correlation"].max())]))
    y = alt.Y("se:Q", title="Standard error of the difference", axis=alt.Axis(format=".1%", tickMinStep=0.001),
              scale=alt.Scale(zero=True))
    tooltip = [alt.Tooltip("method:N"), alt.Tooltip("correlation:Q", format=".2f"),
               alt.Tooltip("se:Q", format=".3%", title="SE")]
    lines = alt.Chart(curve).mark_line(strokeWidth=3).encode(x=x, y=y, color=color, tooltip=tooltip)
    dots = alt.Chart(simulated).mark_point(size=60, filled=False, strokeWidth=2).encode(
        x=alt.X("correlation:Q"), y=alt.Y("se:Q"), color=color, tooltip=tooltip)
    now = alt.Chart(ONE).mark_rule(strokeDash=[6, 4], color="#777777").encode(x=alt.datum(current))
    # the reader's own "Drag ρ" input: a marker and a label read off the core's formula curve in the browser
    paired = curve[curve["method"] == "paired (formula)"]
    unpaired = float(curve.loc[curve["method"] == "unpaired (formula)", "se"].iloc[0])
    grid = sorted(float(v) for v in paired["correlation"])
    step = round(grid[1] - grid[0], 6)
    drag = alt.param(name="drag_rho", value=round(round(current / step) * step, 6),
                     bind=alt.binding_range(min=grid[0], max=grid[-1], step=step, name="Drag ρ: "))
    marks = paired.assign(ratio=paired["se"] / unpaired)
    here = alt.Chart(marks).transform_filter(alt.expr.abs(alt.datum.correlation - drag) < step / 2)
    dot = here.mark_point(filled=True, size=120, opacity=1, color=PALETTE[3]).encode(
        x=alt.X("correlation:Q"), y=alt.Y("se:Q"))
    text = here.transform_calculate(
        text="'ρ = ' + format(datum.correlation, '.2f') + ': paired SE ' + format(datum.se, '.2%') + ', '"
             " + format(datum.ratio, '.0%') + ' of unpaired'")
    # in the bottom-left corner, which the falling curve never reaches: readable at any width and any ρ
    label = text.mark_text(align="left", baseline="bottom", dx=4, dy=-4, fontSize=12, fontWeight="bold",
                           color=PALETTE[3]).encode(x=alt.datum(grid[0]), y=alt.datum(0.0), text="text:N")
    return alt.layer(lines, dots, now, dot, label).add_params(drag).properties(height=380)


def mcnemar_table_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """The 2x2 agreement table as coloured tiles: concordant cells grey, discordant ones coloured.

    Parameters
    ----------
    frame : DataFrame
        Four rows: ``a_outcome`` ("A right" / "A wrong"), ``b_outcome`` ("B right" / "B wrong"),
        ``cell`` (a, b, c, d), ``count``, ``kind`` ("agree: no information", "only A right",
        "only B right") and ``label`` (the text written in the tile).
    """
    kinds = ["agree: no information", "only A right", "only B right"]
    base = alt.Chart(frame).encode(
        x=alt.X("b_outcome:N", sort=["B right", "B wrong"], title=None,
                axis=alt.Axis(orient="top", labelFontSize=13, labelAngle=0)),
        y=alt.Y("a_outcome:N", sort=["A right", "A wrong"], title=None, axis=alt.Axis(labelFontSize=13)))
    tiles = base.mark_rect(stroke="white", strokeWidth=3).encode(
        color=alt.Color("kind:N", title=None, sort=kinds,
                        scale=alt.Scale(domain=kinds, range=["#DDDDDD", PALETTE[0], PALETTE[1]]),
                        legend=legend(orient="bottom")),
        tooltip=[alt.Tooltip("cell:N"), alt.Tooltip("count:Q", format=","), alt.Tooltip("kind:N")])
    # near-black on the fixed light tiles, which look the same in both themes
    text = base.mark_text(fontSize=16, fontWeight="bold", color="#111111").encode(text=alt.Text("label:N"))
    return alt.layer(tiles, text).properties(height=250)
