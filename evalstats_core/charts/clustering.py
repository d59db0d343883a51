"""Charts of chapter 3, "Clustering": a clustered eval drawn cluster by cluster, interval coverage, and
the paper's naive-vs-clustered ratios.

==========================  ========================================================================
``cluster_strip(frame)``    one thin bar per cluster, split into right and wrong answers
``coverage_chart(frame)``   how often each interval covered the truth, against the nominal 95%
``paper_ratios(frame)``     clustered SE / naive SE for DROP, RACE-H and MGSM
``few_clusters_chart(f)``   coverage of four intervals with few or unequal clusters, against 95%
==========================  ========================================================================

Every builder draws the columns it is given (computed by ``evalstats_core.lessons.clustering``); none
asks Vega to aggregate or bootstrap anything.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd

from ._base import PALETTE, legend
from ._template import filled

#: One empty inline datum: a constant rule (``alt.datum``) drawn once, without a DataFrame to convert.
ONE = alt.Data(values=[{}])

__all__ = ["intervals_chart", "cluster_strip", "coverage_chart", "deff_drag_chart", "few_clusters_chart", "paper_ratios",
           "cluster_strip_spec", "coverage_spec", "deff_drag_spec", "intervals_spec"]

RIGHT, WRONG = PALETTE[2], PALETTE[1]  # bluish green / orange


def cluster_strip(frame: pd.DataFrame, *, overall: float, height: int = 270) -> alt.LayerChart:
    """Questions by cluster: one bar per cluster (sorted by its accuracy), green for right answers.

    Parameters
    ----------
    frame : DataFrame
        One row per (cluster, outcome): ``rank`` (0 = lowest accuracy), ``cluster``, ``outcome``
        ("right" / "wrong"), ``share_low``, ``share_high`` (the bar's extent in [0, 1]), ``count``
        and ``accuracy`` (the cluster's accuracy, for the tooltip).
    overall : float
        The eval's overall accuracy, drawn as a dashed rule.
    """
    n_clusters = int(frame["rank"].nunique()) if len(frame) else 1
    return _strip_layout(frame, n_clusters < 80, height, title=f"{n_clusters} clusters, sorted by their accuracy",
                         overall=overall)


def _strip_layout(frame: pd.DataFrame, padded: bool, height: int, *, title: str, overall: Any) -> alt.LayerChart:
    """:func:`cluster_strip` with its x title and whether its bars are padded (fewer than 80 clusters) given;
    reads nothing of ``frame``."""
    x = alt.X("rank:O", title=title, axis=alt.Axis(labels=False, ticks=False),
              scale=alt.Scale(paddingInner=0.08 if padded else 0))
    bars = alt.Chart().mark_bar().encode(
        x=x,
        y=alt.Y("share_low:Q", title="Share of the cluster's questions", axis=alt.Axis(format="%"),
                scale=alt.Scale(domain=[0, 1])),
        y2=alt.Y2("share_high:Q"),
        color=alt.Color("outcome:N", title=None, sort=["right", "wrong"],
                        scale=alt.Scale(domain=["right", "wrong"], range=[RIGHT, WRONG]),
                        legend=legend(orient="top")),
        tooltip=[alt.Tooltip("cluster:Q", title="cluster"), alt.Tooltip("outcome:N"),
                 alt.Tooltip("count:Q", title="questions"), alt.Tooltip("accuracy:Q", format=".0%")],
    )
    rule = alt.Chart(ONE).mark_rule(strokeDash=[6, 4], color="#777777", strokeWidth=2).encode(y=alt.datum(overall))
    return alt.layer(bars, rule, data=frame).properties(height=height)


# the x scale ends at 120% on a wide chart and further out on a narrow one, so the labels right of the bars
# (about 100 px: "93.5% ± 1.5") always fit; the axis's ticks stop at 100%
LABEL_ROOM = [0, alt.ExprRef(expr="max(1.2, 0.97 * width / max(width - 100, 1))")]


def intervals_chart(intervals: pd.DataFrame, *, truth: float) -> alt.LayerChart:
    """The simulated eval's naive, clustered and bootstrap 95% intervals on a fixed 0-100% axis, with the
    true accuracy dashed: moving the sliders widens or narrows them in place.

    ``intervals`` is ``ClusterSimulation.intervals`` (``method, estimate, shown_low, shown_high, ...``).
    """
    return _intervals_layout(intervals, pd.DataFrame({"truth": [truth]}))


def _intervals_layout(intervals: pd.DataFrame, truth: pd.DataFrame) -> alt.LayerChart:
    """:func:`intervals_chart` with the truth's one-row frame; reads nothing of its frames."""
    x = alt.X("shown_low:Q", title="Accuracy with 95% interval", scale=alt.Scale(domain=[0, 1], nice=False),
              axis=alt.Axis(format=".0%", tickMinStep=0.01))
    y = alt.Y("method:N", sort=None, title=None)
    tooltip = [alt.Tooltip("method:N", title="Method"), alt.Tooltip("estimate:Q", format=".1%", title="Accuracy"),
               alt.Tooltip("ci_low:Q", format=".1%", title="Low"), alt.Tooltip("ci_high:Q", format=".1%", title="High")]
    color = alt.Color("method:N", sort=None, legend=None, scale=alt.Scale(range=[PALETTE[7], PALETTE[0], PALETTE[2]]))
    bars = alt.Chart(intervals).mark_rule(strokeWidth=4).encode(x=x, x2="shown_high:Q", y=y, color=color,
                                                                tooltip=tooltip)
    dots = alt.Chart(intervals).mark_point(filled=True, size=90, opacity=1).encode(
        x=alt.X("estimate:Q"), y=y, color=color, tooltip=tooltip)
    true = alt.Chart(truth).mark_rule(strokeDash=[4, 4], color="#888888").encode(
        x=alt.X("truth:Q"), tooltip=[alt.Tooltip("truth:Q", format=".0%", title="True accuracy")])
    return alt.layer(true, bars, dots).properties(height=alt.Step(34))


def coverage_chart(frame: pd.DataFrame, *, nominal: float = 0.95) -> alt.LayerChart:
    """Share of simulated evals whose interval covered the true accuracy, per method, against the nominal.

    Parameters
    ----------
    frame : DataFrame
        One row per method: ``method``, ``coverage``, ``label`` (the coverage with its Monte Carlo
        error, e.g. "68.0% ± 2.9") and ``mean_se``.
    nominal : float
        The promised coverage, drawn as a dashed rule.

    Three layers only: every Altair layer costs several milliseconds per rerun to serialise.
    """
    return _coverage_layout(frame, tuple(frame["method"]), nominal)


def _coverage_layout(frame: pd.DataFrame, methods: tuple, nominal: float) -> alt.LayerChart:
    """:func:`coverage_chart` with its methods given; reads nothing of ``frame``."""
    colors = alt.Color("method:N", sort=None, legend=None,
                       scale=alt.Scale(domain=list(methods), range=[PALETTE[3], PALETTE[0]]))
    base = alt.Chart().encode(y=alt.Y("method:N", sort=None, title=None, axis=alt.Axis(labelLimit=260),
                                      scale=alt.Scale(paddingInner=0.3)))
    tooltip = [alt.Tooltip("method:N"), alt.Tooltip("label:N", title="coverage (± Monte Carlo error)"),
               alt.Tooltip("mean_se:Q", format=".2%", title="average SE")]
    bars = base.mark_bar().encode(
        x=alt.X("coverage:Q", title="Share of intervals that contain the truth",
                axis=alt.Axis(format="%", values=[i / 10 for i in range(11)]),
                scale=alt.Scale(domain=LABEL_ROOM, nice=False)),
        color=colors, tooltip=tooltip)
    labels = base.mark_text(align="left", dx=8, fontSize=13, fontWeight="bold").transform_calculate(
        label_x=f"max(datum.coverage, {nominal})"  # right of the bar, or of the nominal rule if further right
    ).encode(x=alt.X("label_x:Q"), text=alt.Text("label:N"))
    rule = alt.Chart(ONE).mark_rule(strokeDash=[6, 4], color="#777777", strokeWidth=2).encode(x=alt.datum(nominal))
    return alt.layer(bars, rule, labels, data=frame).properties(height=170)


def paper_ratios(frame: pd.DataFrame) -> alt.LayerChart:
    """Clustered SE over naive SE for the paper's three evals, as bars with their ratio written on.

    Parameters
    ----------
    frame : DataFrame
        One row per eval: ``eval``, ``ratio`` (as published), ``label`` (e.g. "3.05x"), ``n_clusters``,
        ``n_questions``, ``deff`` and ``n_eff``.
    """
    base = alt.Chart().encode(y=alt.Y("eval:N", sort=None, title=None, scale=alt.Scale(paddingInner=0.3)))
    tooltip = [alt.Tooltip("eval:N"), alt.Tooltip("ratio:Q", format=".2f", title="clustered / naive SE"),
               alt.Tooltip("n_questions:Q", format=",", title="questions"),
               alt.Tooltip("n_clusters:Q", format=",", title="clusters"),
               alt.Tooltip("deff:Q", format=".2f", title="design effect"),
               alt.Tooltip("n_eff:Q", format=",.0f", title="effective n")]
    bars = base.mark_bar(color=PALETTE[0]).encode(
        x=alt.X("ratio:Q", title="Clustered SE / naive SE", scale=alt.Scale(domain=[0, 3.5])),
        tooltip=tooltip)
    labels = base.mark_text(align="left", dx=6, fontSize=13, fontWeight="bold").encode(
        x=alt.X("ratio:Q"), text=alt.Text("label:N"))
    one = alt.Chart(ONE).mark_rule(strokeDash=[6, 4], color="#777777").encode(x=alt.datum(1.0))
    return alt.layer(bars, one, labels, data=frame).properties(height=210)


def few_clusters_chart(frame: pd.DataFrame, *, nominal: float = 0.95) -> alt.LayerChart:
    """Coverage of CR1 + z, CR1 + t(G-1), CR2 + Satterthwaite t and the wild bootstrap, against the nominal.

    Parameters
    ----------
    frame : DataFrame
        One row per method (from ``lessons.clustering.few_clusters``): ``method``, ``coverage``,
        ``mc_half`` (the 95% Monte Carlo half-width), ``label`` and ``mean_width`` (nan for the bootstrap).
    nominal : float
        The promised coverage, drawn as a dashed rule.
    """
    frame = frame.assign(mc_low=(frame["coverage"] - frame["mc_half"]).clip(0, 1),
                         mc_high=(frame["coverage"] + frame["mc_half"]).clip(0, 1),
                         width=frame["mean_width"].map(lambda w: "not computed" if w != w else f"{w:.1%}"))
    colors = alt.Color("method:N", sort=None, legend=None,
                       scale=alt.Scale(domain=list(frame["method"]), range=list(PALETTE[: len(frame)])))
    base = alt.Chart().encode(y=alt.Y("method:N", sort=None, title=None, axis=alt.Axis(labelLimit=260),
                                      scale=alt.Scale(paddingInner=0.3)))
    tooltip = [alt.Tooltip("method:N"), alt.Tooltip("label:N", title="coverage (± Monte Carlo error)"),
               alt.Tooltip("width:N", title="average width")]
    bars = base.mark_bar().encode(
        x=alt.X("coverage:Q", title="Share of 95% intervals covering the truth",
                axis=alt.Axis(format="%", values=[i / 10 for i in range(11)]),
                scale=alt.Scale(domain=LABEL_ROOM, nice=False)),
        color=colors, tooltip=tooltip)
    err = base.mark_rule(color="#777777", strokeWidth=2).encode(x="mc_low:Q", x2="mc_high:Q")
    labels = base.mark_text(align="left", dx=8, fontSize=13, fontWeight="bold").transform_calculate(
        label_x=f"max(datum.mc_high, {nominal})"
    ).encode(x=alt.X("label_x:Q"), text=alt.Text("label:N"))
    rule = alt.Chart(ONE).mark_rule(strokeDash=[6, 4], color="#777777", strokeWidth=2).encode(x=alt.datum(nominal))
    return alt.layer(bars, err, rule, labels, data=frame).properties(height=230)


def deff_drag_chart(grid: pd.DataFrame, *, m: int, icc: float) -> alt.LayerChart:
    """The design effect against the correlation for one cluster size, with the reader's own "Drag m" and
    "Drag ρ" inputs: the chart filters the core's grid (``lessons.clustering.deff_grid``) in the browser.

    Faint lines for m = 5, 10, 20 and 40 stay put for comparison; the bold line is the dragged m, the dot
    and its label the dragged (m, ρ) with the effective share of the questions, ``1 / DEFF``.
    (:func:`deff_drag_spec` is the same chart compiled, from a template.)
    """
    shape, values = _deff_drag_data(grid, m, icc)
    return _deff_drag_layout(grid, shape, **values)


def _deff_drag_data(grid: pd.DataFrame, m: int, icc: float) -> tuple[tuple, dict]:
    """The grid's (cluster sizes, correlations, step in ρ, largest design effect) and the drags' starts."""
    ms = tuple(sorted(set(int(v) for v in grid["m"])))
    rhos = tuple(sorted(set(float(v) for v in grid["rho"])))
    step = round(rhos[1] - rhos[0], 6)
    return ((ms, rhos, step, float(grid["deff"].max())),
            {"m": int(min(max(m, ms[0]), ms[-1])), "rho": round(min(max(icc, rhos[0]), rhos[-1]) / step) * step})


def _deff_drag_layout(grid: pd.DataFrame, shape: tuple, *, m: Any, rho: Any) -> alt.LayerChart:
    """:func:`deff_drag_chart` drawn from :func:`_deff_drag_data`; reads nothing of ``grid``."""
    ms, rhos, step, top = shape
    drag_m = alt.param(name="drag_m", value=m, bind=alt.binding_range(min=ms[0], max=ms[-1], step=1, name="Drag m: "))
    drag_rho = alt.param(name="drag_rho", value=rho,
                         bind=alt.binding_range(min=rhos[0], max=rhos[-1], step=step, name="Drag ρ: "))
    x = alt.X("rho:Q", title="Intra-cluster correlation ρ", scale=alt.Scale(domain=[rhos[0], rhos[-1]]))
    y = alt.Y("deff:Q", title="Design effect 1 + (m − 1)ρ", scale=alt.Scale(domain=[1, top]))
    base = alt.Chart(grid)
    refs = base.transform_filter(alt.FieldOneOfPredicate(field="m", oneOf=[5, 10, 20, 40])).mark_line(
        color="#888888", strokeWidth=1, strokeDash=[3, 3]).encode(x=x, y=y, detail="m:N")
    ref_labels = base.transform_filter(alt.FieldOneOfPredicate(field="m", oneOf=[5, 10, 20, 40])).transform_filter(
        alt.datum.rho == rhos[-1]).transform_calculate(text="'m = ' + datum.m").mark_text(
        align="left", dx=4, fontSize=11, color="#888888").encode(x=x, y=y, text="text:N")
    line = base.transform_filter(alt.datum.m == drag_m).mark_line(color=PALETTE[0], strokeWidth=3).encode(
        x=x, y=y, tooltip=[alt.Tooltip("m:Q"), alt.Tooltip("rho:Q", format=".2f", title="ρ"),
                           alt.Tooltip("deff:Q", format=".2f", title="DEFF")])
    here = base.transform_filter((alt.datum.m == drag_m) & (alt.expr.abs(alt.datum.rho - drag_rho) < step / 2))
    dot = here.mark_point(filled=True, size=110, opacity=1, color=PALETTE[3]).encode(x=x, y=y)
    text = here.transform_calculate(
        text="'m = ' + datum.m + ', ρ = ' + format(datum.rho, '.2f') + '\\nDEFF ' + format(datum.deff, '.2f')"
             " + ': worth\\n' + format(datum.share, '.0%') + ' of the questions'")
    # in the top-left corner, which the lines (all rising from DEFF 1 at ρ = 0) reach last: fits any width
    label = text.mark_text(align="left", baseline="top", dx=4, dy=2, lineBreak="\n", fontSize=12,
                           fontWeight="bold", color=PALETTE[3]).encode(
        x=alt.datum(rhos[0]), y=alt.datum(top), text="text:N")
    return alt.layer(refs, ref_labels, line, dot, label).add_params(drag_m, drag_rho).properties(height=300)


def deff_drag_spec(grid: pd.DataFrame, *, m: int, icc: float) -> dict:
    """``compile_spec(deff_drag_chart(grid, m=m, icc=icc))`` from a template compiled once per grid
    (:mod:`._template`): a new m or ρ costs filling in the grid's rows and the two drags' starts."""
    shape, values = _deff_drag_data(grid, m, icc)
    key = ("deff_drag", shape, tuple(grid.columns))  # every m and ρ: one template
    return filled(key, lambda v: _deff_drag_layout(grid, shape, **v), {}, {"grid": grid}, values=values)


def cluster_strip_spec(frame: pd.DataFrame, *, overall: float, height: int = 270) -> dict:
    """``compile_spec(cluster_strip(...))`` from a template compiled once per shape (see :func:`deff_drag_spec`)."""
    n_clusters = int(frame["rank"].nunique()) if len(frame) else 1
    padded = n_clusters < 80
    key = ("cluster_strip", tuple(frame.columns), len(frame) > 0, padded, height)
    return filled(key, lambda t: _strip_layout(frame, padded, height, **t),
                  {"title": f"{n_clusters} clusters, sorted by their accuracy"}, {"bars": frame},
                  values={"overall": overall})


def intervals_spec(intervals: pd.DataFrame, *, truth: float) -> dict:
    """``compile_spec(intervals_chart(...))`` from a template compiled once per shape (see :func:`deff_drag_spec`)."""
    truth_frame = pd.DataFrame({"truth": [truth]})
    key = ("intervals", tuple(intervals.columns), len(intervals) > 0)
    return filled(key, lambda _: _intervals_layout(intervals, truth_frame), {},
                  {"intervals": intervals, "truth": truth_frame})


def coverage_spec(frame: pd.DataFrame, *, nominal: float = 0.95) -> dict:
    """``compile_spec(coverage_chart(...))`` from a template compiled once per shape (see :func:`deff_drag_spec`)."""
    methods = tuple(frame["method"])
    key = ("coverage", tuple(frame.columns), methods, nominal)
    return filled(key, lambda _: _coverage_layout(frame, methods, nominal), {}, {"coverage": frame})
