"""Charts for chapter 2, "One model's error bars". Each builder takes a frame from
:mod:`evalstats_core.lessons.one_model` and draws the numbers in it (no Vega aggregation).
"""

from __future__ import annotations

from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from ._base import PALETTE, forest
from ._base import legend as _legend
from ._template import filled

__all__ = [
    "METHOD_COLORS",
    "arrivals_chart", "arrivals_spec",
    "atlas_chart",
    "binary_chart",
    "calculator_chart", "calculator_spec",
    "coverage_chart", "coverage_spec",
    "coverage_curve_chart",
    "halfwidth_chart",
    "halfwidth_drag_chart", "halfwidth_drag_spec",
    "method_color",
    "one_task_chart",
    "possible_intervals_chart", "possible_intervals_spec",
    "rerun_chart", "rerun_tasks_chart",
    "sampling_drag_chart", "sampling_drag_spec",
]

#: One colour per interval method, the same in every chart of the chapter (Okabe-Ito).
METHOD_COLORS: dict[str, str] = {
    "Wald (CLT)": PALETTE[3],
    "Wilson": PALETTE[0],
    "Clopper-Pearson": PALETTE[2],
    "Bayes": PALETTE[1],
}


def method_color(title: str | None = None, *, field: str = "label", legend: bool = True) -> alt.Color:
    """The shared method colour encoding on ``field`` (method labels); ``legend=False`` hides it."""
    return alt.Color(f"{field}:N", scale=alt.Scale(domain=list(METHOD_COLORS), range=list(METHOD_COLORS.values())),
                     legend=_legend(title=title, orient="top", labelLimit=400) if legend else None)


def atlas_chart(table: pd.DataFrame, *, mean: float, sd: float, ci_low: float, ci_high: float) -> alt.LayerChart:
    """Atlas's task scores as dots, the mean as a line, a +/-1 SD band and the 95% CI band.

    ``table`` has ``q, task, score`` (``AtlasSteps.table``).
    """
    bands = pd.DataFrame({
        "low": [mean - sd, ci_low], "high": [mean + sd, ci_high],
        "band": ["mean ± 1 SD", "95% CI of the mean (± 1.96 SE)"],
    })
    band_scale = alt.Scale(domain=list(bands["band"]), range=["#d9d9d9", PALETTE[5]])
    band = alt.Chart(bands).mark_rect(opacity=0.45).encode(
        x=alt.X("low:Q", title="Score", scale=alt.Scale(domain=[0, 1]), axis=alt.Axis(format=".0%", tickMinStep=0.01)),
        x2="high:Q",
        fill=alt.Fill("band:N", scale=band_scale, legend=_legend(title=None, orient="top", labelLimit=400)),
        tooltip=[alt.Tooltip("band:N", title=None), alt.Tooltip("low:Q", format=".1%"),
                 alt.Tooltip("high:Q", format=".1%")],
    )
    rule = alt.Chart(pd.DataFrame({"mean": [mean]})).mark_rule(color="#777777", strokeWidth=2).encode(
        x="mean:Q", tooltip=[alt.Tooltip("mean:Q", format=".1%", title="Mean")])
    dots = alt.Chart(table).mark_point(filled=True, size=110, color=PALETTE[0]).encode(
        x="score:Q",
        y=alt.Y("q:N", sort=None, title=None),
        tooltip=[alt.Tooltip("q:N", title="Task"), alt.Tooltip("task:N", title=" "),
                 alt.Tooltip("score:Q", format=".2f", title="Score")],
    )
    return alt.layer(band, rule, dots).properties(height=alt.Step(24))


def calculator_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """The four intervals of the CI calculator as a forest plot (``charts.forest``), coloured by method.

    ``frame`` has ``label, estimate, ci_low, ci_high`` (``lessons.one_model.ci_calculator``).
    """
    # Streamlit sizes charts to fit (axes inside the height), so the rows need more room than the default
    chart = forest(frame, label="label", color="label", x_title="Accuracy with 95% interval", height_per_row=48)
    for layer in chart.layer:  # the shared method colours instead of the palette's order
        if getattr(layer.encoding, "color", alt.Undefined) is not alt.Undefined:
            layer.encoding.color = method_color(legend=False)
    return chart


def calculator_spec(frame: pd.DataFrame) -> dict:
    """``compile_spec(calculator_chart(frame))`` from a template compiled once per number of intervals
    (:mod:`._template`): a new accuracy or n costs filling in the four rows."""
    key = ("calculator", tuple(frame.columns), int(frame["label"].nunique()))
    return filled(key, lambda _: calculator_chart(frame), {}, {"intervals": frame})


def binary_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """Atlas's mean with the CLT and with the Bernoulli interval, as a two-row forest plot.

    ``frame`` has ``label, estimate, ci_low, ci_high`` (``BinaryVsContinuous.frame``).
    """
    return forest(frame, label="label", x_title="Atlas's mean with 95% CI", height_per_row=85)


def rerun_chart(history: pd.DataFrame) -> alt.LayerChart:
    """Each run's mean against the interval computed from run 1 (shaded) and run 1's mean (line).

    ``history`` has ``run, mean, ci_low, ci_high, inside`` (``lessons.one_model.rerun_history_frame``).
    """
    first = history.iloc[[0]]
    x = alt.X("run:Q", title="Run", axis=alt.Axis(tickMinStep=1, format="d"),
              scale=alt.Scale(domain=[0.5, max(int(history["run"].max()), 10) + 0.5]))
    band = alt.Chart(first).mark_rect(opacity=0.25, color=PALETTE[5]).encode(
        y=alt.Y("ci_low:Q", title="Mean score of the run", scale=alt.Scale(domain=[0.4, 0.85]),
                axis=alt.Axis(format=".0%", tickMinStep=0.01)),
        y2="ci_high:Q",
        tooltip=[alt.Tooltip("ci_low:Q", format=".1%", title="Run 1 CI low"),
                 alt.Tooltip("ci_high:Q", format=".1%", title="Run 1 CI high")],
    )
    rule = alt.Chart(first).mark_rule(color="#777777", strokeDash=[4, 3]).encode(y="mean:Q")
    frame = history.assign(where=history["inside"].map({True: "inside run 1's CI", False: "outside"}))
    dots = alt.Chart(frame).mark_point(filled=True, size=90).encode(
        x=x, y="mean:Q",
        color=alt.Color("where:N", scale=alt.Scale(domain=["inside run 1's CI", "outside"],
                                                   range=[PALETTE[0], PALETTE[3]]),
                        legend=_legend(title=None, orient="top")),
        tooltip=[alt.Tooltip("run:Q", title="Run"), alt.Tooltip("mean:Q", format=".1%", title="Mean")],
    )
    return alt.layer(band, rule, dots).properties(height=240)


def rerun_tasks_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """Each task's score in this run (solid) and in the run before (faint), with a line to where it went.

    ``frame`` is ``lessons.one_model.rerun_tasks_frame`` (``task, score, previous, moved``).
    """
    x = alt.X("score:Q", title="Task score in this run", scale=alt.Scale(domain=[0, 1]),
              axis=alt.Axis(format=".0%", tickMinStep=0.01))
    y = alt.Y("task:N", sort=None, title=None, axis=alt.Axis(minExtent=40))  # room for "Q10" in any font
    moves = alt.Chart(frame).mark_rule(color="#888888", strokeDash=[2, 2]).encode(x=x, x2="previous:Q", y=y)
    before = alt.Chart(frame).mark_point(filled=True, size=60, color="#888888", opacity=0.35).encode(
        x=alt.X("previous:Q"), y=y, tooltip=[alt.Tooltip("task:N"), alt.Tooltip("previous:Q", format=".2f", title="Before")])
    now = alt.Chart(frame).mark_point(filled=True, size=90, color=PALETTE[0], opacity=1).encode(
        x=x, y=y, tooltip=[alt.Tooltip("task:N"), alt.Tooltip("score:Q", format=".2f", title="Score"),
                           alt.Tooltip("moved:Q", format="+.2f", title="Moved")])
    # 24 px a task: "Q1" ... "Q10" each keep their row in presenter mode's large type (at 18 px Vega dropped
    # every other one, issue 40)
    return alt.layer(moves, before, now).properties(height=alt.Step(24))


def halfwidth_chart(curve: pd.DataFrame, *, n: int) -> alt.LayerChart:
    """Each method's interval half-width against n (log scale), with a rule at the chosen ``n``.

    ``curve`` has ``n, label, half_width`` (``lessons.one_model.halfwidth_curve``).
    """
    lines = alt.Chart(curve).mark_line(strokeWidth=2).encode(
        x=alt.X("n:Q", title="Questions (log scale)", scale=alt.Scale(type="log")),
        y=alt.Y("half_width:Q", title="Half-width of the 95% interval", axis=alt.Axis(format=".0%", tickMinStep=0.01)),
        color=method_color(),
        tooltip=[alt.Tooltip("label:N", title="Method"), alt.Tooltip("n:Q", title="n"),
                 alt.Tooltip("half_width:Q", format=".2%", title="± half-width")],
    )
    here = alt.Chart(pd.DataFrame({"n": [n]})).mark_rule(color="#777777", strokeDash=[4, 3]).encode(x="n:Q")
    return alt.layer(here, lines).properties(height=260)


def coverage_chart(frame: pd.DataFrame, *, confidence: float = 0.95) -> alt.LayerChart:
    """Actual coverage of each method as a dot, a +/-2 Monte Carlo SE whisker, and the nominal level.

    ``frame`` has ``label, coverage, mc_se`` (``SmallNLab.frame``). (:func:`coverage_spec` is the same chart
    compiled, from a template.)
    """
    data, start = _coverage_data(frame, confidence)
    return _coverage_layout(data, confidence, start=start)


def _coverage_data(frame: pd.DataFrame, confidence: float) -> tuple[pd.DataFrame, float]:
    """The methods with their whiskers' ends, and where the x axis starts."""
    data = frame.assign(low=frame["coverage"] - 2 * frame["mc_se"], high=frame["coverage"] + 2 * frame["mc_se"])
    lowest = min(float(data["low"].min()) - 0.05, confidence - 0.1)
    return data, max(0.0, lowest)


def _coverage_layout(data: pd.DataFrame, confidence: float, *, start: Any) -> alt.LayerChart:
    """:func:`coverage_chart` drawn from :func:`_coverage_data`; reads nothing of ``data``."""
    y = alt.Y("label:N", sort=list(METHOD_COLORS), title=None)
    x_scale = alt.Scale(domain=[start, 1.0])
    bars = alt.Chart(data).mark_point(filled=True, size=160, opacity=1).encode(
        x=alt.X("coverage:Q", title="Actual coverage (share containing the truth)",
                scale=x_scale, axis=alt.Axis(format=".0%", tickMinStep=0.01)),
        y=y, color=method_color(legend=False),
        tooltip=[alt.Tooltip("label:N", title="Method"), alt.Tooltip("coverage:Q", format=".1%"),
                 alt.Tooltip("mc_se:Q", format=".2%", title="Monte Carlo SE")],
    )
    whiskers = alt.Chart(data).mark_rule(color="#777777", strokeWidth=2).encode(
        x=alt.X("low:Q", scale=x_scale), x2="high:Q", y=y)
    nominal = alt.Chart(pd.DataFrame({"nominal": [confidence]})).mark_rule(
        color="#777777", strokeDash=[5, 4], strokeWidth=2).encode(
        x=alt.X("nominal:Q", scale=x_scale), tooltip=[alt.Tooltip("nominal:Q", format=".0%", title="Nominal")])
    return alt.layer(nominal, whiskers, bars).properties(height=alt.Step(34))


def coverage_spec(frame: pd.DataFrame, *, confidence: float = 0.95) -> dict:
    """``compile_spec(coverage_chart(frame, confidence=confidence))`` from a template compiled once per level
    (:mod:`._template`): a new N, truth or seed costs filling in the rows and the axis's start."""
    data, start = _coverage_data(frame, confidence)
    key = ("small_n_coverage", tuple(data.columns), confidence)
    return filled(key, lambda v: _coverage_layout(data, confidence, **v), {}, {"coverage": data},
                  values={"start": start})


def coverage_curve_chart(by_n: pd.DataFrame, *, confidence: float = 0.95, n: int | None = None) -> alt.LayerChart:
    """Coverage of each method against n (log scale) with the nominal level dashed.

    ``by_n`` has ``n, label, coverage`` (``lessons.one_model.coverage_by_n``).
    """
    x_scale = alt.Scale(type="log", domain=[float(by_n["n"].min()) * 0.8, float(by_n["n"].max()) * 1.25],
                        nice=False)
    y_scale = alt.Scale(domain=[max(0.0, min(0.4, float(by_n["coverage"].min()) - 0.02)), 1.0])
    lines = alt.Chart(by_n).mark_line(point=True, strokeWidth=2).encode(
        x=alt.X("n:Q", title="Questions per eval (log scale)", scale=x_scale),
        y=alt.Y("coverage:Q", title="Actual coverage", axis=alt.Axis(format=".0%", tickMinStep=0.01), scale=y_scale),
        color=method_color(),
        tooltip=[alt.Tooltip("label:N", title="Method"), alt.Tooltip("n:Q"),
                 alt.Tooltip("coverage:Q", format=".1%"), alt.Tooltip("mean_width:Q", format=".3f",
                                                                      title="Mean width")],
    )
    layers = [alt.Chart(pd.DataFrame({"nominal": [confidence]})).mark_rule(
        color="#777777", strokeDash=[5, 4]).encode(y=alt.Y("nominal:Q", scale=y_scale)), lines]
    if n is not None:
        layers.insert(0, alt.Chart(pd.DataFrame({"n": [n]})).mark_rule(color="#888888").encode(
            x=alt.X("n:Q", scale=x_scale)))
    return alt.layer(*layers).properties(height=260)


def possible_intervals_chart(frame: pd.DataFrame) -> alt.FacetChart:
    """Every interval each method can give, one panel per method, one row per number correct ``k``.

    ``frame`` has ``k, accuracy, label, ci_low, ci_high`` (``lessons.one_model.possible_intervals``).
    Intervals reaching outside [0, 1] show past the grey edges; zero-width ones are a lone dot.
    (:func:`possible_intervals_spec` is the same chart compiled, from a template.)
    """
    return _possible_layout(frame, int(frame["k"].nunique()), **_possible_ends(frame))


def _possible_ends(frame: pd.DataFrame) -> dict:
    return {"lo": min(float(frame["ci_low"].min()), 0.0) - 0.02, "hi": max(float(frame["ci_high"].max()), 1.0) + 0.02}


def _possible_layout(frame: pd.DataFrame, rows: int, *, lo: Any, hi: Any) -> alt.FacetChart:
    """:func:`possible_intervals_chart` with its number of k and its x axis's ends given; reads nothing of
    ``frame``."""
    x = alt.X("ci_low:Q", title="95% interval", scale=alt.Scale(domain=[lo, hi], nice=False),
              axis=alt.Axis(format=".0%", values=[0, 0.5, 1]))
    # k is a count: at many k Vega may leave out every other number (the app keeps category labels otherwise)
    y = alt.Y("k:O", title="Questions correct (k)", sort="descending", axis=alt.Axis(labelOverlap=True))
    bars = alt.Chart().mark_rule(strokeWidth=3).encode(
        x=x, x2="ci_high:Q", y=y, color=method_color(legend=False),
        tooltip=[alt.Tooltip("label:N", title="Method"), alt.Tooltip("k:O"),
                 alt.Tooltip("ci_low:Q", format=".1%"), alt.Tooltip("ci_high:Q", format=".1%")],
    )
    dots = alt.Chart().mark_point(filled=True, size=30, color="#777777").encode(x="accuracy:Q", y=y)
    edges = alt.Chart().mark_rule(color="#888888", strokeDash=[3, 3]).encode(x="edge:Q").transform_calculate(
        edge="0").transform_filter("datum.k == 0")
    edge1 = alt.Chart().mark_rule(color="#888888", strokeDash=[3, 3]).encode(x="edge:Q").transform_calculate(
        edge="1").transform_filter("datum.k == 0")
    # two panels a row: a 2 x 2 grid, not a banner of four (slides are 16:9)
    return alt.layer(edges, edge1, bars, dots, data=frame).properties(
        width=260, height=max(90, min(12 * rows, 300))).facet(
        facet=alt.Facet("label:N", title=None, sort=list(METHOD_COLORS)), columns=2)


def possible_intervals_spec(frame: pd.DataFrame) -> dict:
    """``compile_spec(possible_intervals_chart(frame))`` from a template compiled once per number of k
    (:mod:`._template`)."""
    rows = int(frame["k"].nunique())
    key = ("possible_intervals", tuple(frame.columns), rows)
    return filled(key, lambda v: _possible_layout(frame, rows, **v), {}, {"possible": frame},
                  values=_possible_ends(frame))


def halfwidth_drag_chart(grid: pd.DataFrame, *, n: int) -> alt.LayerChart:
    """Each method's half-width against n (log scale) with a marker the reader drags along n in the browser.

    ``grid`` is ``lessons.one_model.halfwidth_grid``: ``n, method, label, half_width`` at every n the
    chart's own "Drag n" input reaches. The chart filters the grid at the dragged n (no rerun); the
    numbers are the core's. ``n`` (the page's slider) is where the marker starts, rounded to the grid.
    (:func:`halfwidth_drag_spec` is the same chart compiled, from a template.)
    """
    lines, here, steps, values = _halfwidth_drag_data(grid, n)
    return _halfwidth_drag_layout(lines, here, steps, **values)


def _halfwidth_drag_data(grid: pd.DataFrame, n: int) -> tuple[pd.DataFrame, pd.DataFrame, tuple, dict]:
    """The lines' thinned grid, the markers' full grid, the grid's (first n, step, last n) and the numbers the
    setting changes (the marker's start, the top of the y axis)."""
    ns = np.unique(grid["n"].to_numpy().astype(int))  # sorted
    steps = [int(v) for v in ns]
    lo = steps[0]
    start = min(steps, key=lambda v: abs(v - n))
    # Cheap to drag: both scales are fixed (a step never recomputes a domain, so the lines are not redrawn)
    # and the lines come from about 120 log-spaced n of the grid; only the marker layers filter the full
    # grid (the core's numbers at every n the input reaches).
    keep = np.unique(np.geomspace(lo, steps[-1], 120).round().astype(int))
    # each kept n's nearest n of the grid, the smaller of two as near (a kept n on the grid is its own nearest)
    right = np.clip(np.searchsorted(ns, keep), 1, len(ns) - 1)
    nearest = np.where(keep - ns[right - 1] <= ns[right] - keep, ns[right - 1], ns[right])
    thin = grid[grid["n"].isin(set(nearest.tolist()))]
    return (thin, grid[["n", "method", "label", "half_width"]], (lo, steps[1] - steps[0], steps[-1]),
            {"start": start, "top": float(grid["half_width"].max())})


def _halfwidth_drag_layout(thin: pd.DataFrame, grid: pd.DataFrame, steps: tuple, *, start: Any,
                           top: Any) -> alt.LayerChart:
    """:func:`halfwidth_drag_chart` drawn from :func:`_halfwidth_drag_data`; reads nothing of its frames."""
    lo, step, last = steps
    drag = alt.param(name="drag_n", value=start,
                     bind=alt.binding_range(min=lo, max=last, step=step, name="Drag n: "))
    x = alt.X("n:Q", title="Questions (log scale)", scale=alt.Scale(type="log", domain=[lo, last], nice=False))
    y = alt.Y("half_width:Q", title="Half-width of the 95% interval", scale=alt.Scale(domain=[0, top], nice=False),
              axis=alt.Axis(format=".0%", tickMinStep=0.01))
    lines = alt.Chart(thin).mark_line(strokeWidth=2).encode(
        x=x, y=y, color=method_color(),
        tooltip=[alt.Tooltip("label:N", title="Method"), alt.Tooltip("n:Q", title="n"),
                 alt.Tooltip("half_width:Q", format=".2%", title="± half-width")])
    here = alt.Chart(grid).transform_filter(alt.datum.n == drag)
    rule = here.transform_filter(alt.datum.method == "wald").mark_rule(color="#888888", strokeDash=[4, 3]).encode(x=x)
    dots = here.mark_point(filled=True, size=90, opacity=1).encode(
        x=x, y=y, color=method_color(legend=False),
        tooltip=[alt.Tooltip("label:N", title="Method"), alt.Tooltip("n:Q", title="n"),
                 alt.Tooltip("half_width:Q", format=".2%", title="± half-width")])
    text = "'n = ' + datum.n + ': Wald ±' + format(datum.half_width * 100, '.1f') + ' points'"
    wald = here.transform_filter(alt.datum.method == "wald").transform_calculate(text=text)
    # the label sits right of the marker on the left half of the axis and left of it on the right half
    labels = [wald.transform_filter(alt.datum.n < 300 if left else alt.datum.n >= 300).mark_text(
        align="left" if left else "right", dx=8 if left else -8, dy=-12, fontSize=12, fontWeight="bold",
        color=PALETTE[3]).encode(x=x, y=y, text="text:N") for left in (True, False)]
    return alt.layer(lines, rule, dots, *labels).add_params(drag).properties(height=280)


def halfwidth_drag_spec(grid: pd.DataFrame, *, n: int) -> dict:
    """``compile_spec(halfwidth_drag_chart(grid, n=n))`` from a template compiled once per grid of n
    (:mod:`._template`): a new accuracy or n costs filling in the rows and two numbers, not compiling Altair."""
    lines, here, steps, values = _halfwidth_drag_data(grid, n)
    key = ("halfwidth_drag", steps, tuple(lines.columns), tuple(here.columns))  # any accuracy: one template
    return filled(key, lambda v: _halfwidth_drag_layout(lines, here, steps, **v), {}, {"lines": lines, "grid": here},
                  values=values)


def arrivals_chart(intervals: pd.DataFrame, *, shown: int = 20) -> alt.FacetChart:
    """The lab's first simulated evals, one interval per row and method, arriving as the reader drags
    "Intervals shown"; intervals that miss the truth in vermillion, with the count of misses so far.

    ``intervals`` is ``lessons.one_model.lab_intervals`` (``eval, label, truth, ci_low, ci_high, hit,
    misses``). Nothing is counted in the browser: ``misses`` is the core's running count.
    (:func:`arrivals_spec` is the same chart compiled, from a template.)
    """
    count = int(intervals["eval"].max())
    return _arrivals_layout(_arrivals_data(intervals), count, min(shown, count))


def _arrivals_data(intervals: pd.DataFrame) -> pd.DataFrame:
    return intervals.assign(outcome=intervals["hit"].map({True: "contains the truth", False: "misses"}))


def _arrivals_layout(data: pd.DataFrame, count: int, shown: int) -> alt.FacetChart:
    """:func:`arrivals_chart` drawn from :func:`_arrivals_data`, its number of evals and the start given; reads
    nothing of ``data``."""
    show = alt.param(name="shown", value=shown,
                     bind=alt.binding_range(min=1, max=count, step=1, name="Intervals shown: "))
    x = alt.X("ci_low:Q", title="Accuracy", scale=alt.Scale(domain=[-0.1, 1.1], clamp=True), axis=alt.Axis(format=".0%", tickMinStep=0.01))
    # a fixed domain: intervals arrive in their own row, top to bottom, and the chart never resizes
    y = alt.Y("eval:O", title=None, axis=None, scale=alt.Scale(domain=list(range(1, count + 1))))
    base = alt.Chart().transform_filter(alt.datum.eval <= show)
    rules = base.mark_rule(strokeWidth=2).encode(
        x=x, x2="ci_high:Q", y=y,
        color=alt.Color("outcome:N", title=None, scale=alt.Scale(domain=["contains the truth", "misses"],
                                                                 range=[PALETTE[0], PALETTE[3]]),
                        legend=_legend(orient="top")),
        tooltip=[alt.Tooltip("eval:O", title="Eval"), alt.Tooltip("truth:Q", format=".1%", title="True accuracy"),
                 alt.Tooltip("accuracy:Q", format=".1%", title="Observed"),
                 alt.Tooltip("ci_low:Q", format=".1%", title="Low"), alt.Tooltip("ci_high:Q", format=".1%", title="High")])
    truth = base.mark_tick(thickness=2, color="#888888", size=8).encode(x=alt.X("truth:Q"), y=y)
    # a zero-width interval (all or none right) is a point, or it would not show at all
    points = base.transform_filter(alt.datum.zero_width).mark_point(filled=True, size=30, opacity=1).encode(
        x=alt.X("ci_low:Q"), y=y, color=alt.Color("outcome:N", legend=None))
    tally = alt.Chart().transform_filter(alt.datum.eval == show).transform_calculate(
        text="datum.misses + ' of ' + datum.eval + ' miss'", x="0.5").mark_text(
        fontSize=13, fontWeight="bold", color=PALETTE[3], dy=-8).encode(
        x=alt.X("x:Q"), y=alt.value(0), text="text:N")
    return alt.layer(rules, points, truth, tally, data=data).properties(width=380, height=360).facet(
        column=alt.Column("label:N", title=None, sort=["Wald (CLT)", "Wilson"],
                          header=alt.Header(labelFontSize=13, labelFontWeight="bold"))
    ).add_params(show)


def arrivals_spec(intervals: pd.DataFrame, *, shown: int = 20) -> dict:
    """``compile_spec(arrivals_chart(intervals, shown=shown))`` from a template compiled once per number of evals
    (:mod:`._template`): a new N, truth or seed costs filling in the rows."""
    count = int(intervals["eval"].max())
    data = _arrivals_data(intervals)
    key = ("arrivals", tuple(data.columns), count, min(shown, count))
    return filled(key, lambda _: _arrivals_layout(data, count, min(shown, count)), {}, {"arrivals": data})


def one_task_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """One task's runs as dots, one row per run: this batch solid, the previous batch faint with a line to
    where each run moved; the true ability dashed (unknown in practice) and this batch's mean.

    ``frame`` is ``lessons.one_model.one_task_runs`` (``run, score, batch, ability, mean``).
    """
    x = alt.X("score:Q", title="Score of one run", scale=alt.Scale(domain=[0.4, 1.0]),
              axis=alt.Axis(format=".1f", values=[0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]))
    y = alt.Y("run:O", title="Run", axis=alt.Axis(labelFontSize=12))
    now = frame[frame["batch"] == "this batch"]
    before = frame[frame["batch"] == "previous batch"]
    layers = []
    if len(before):
        moves = now[["run", "score"]].merge(before[["run", "score"]], on="run", suffixes=("", "_before"))
        layers.append(alt.Chart(moves).mark_rule(color="#888888", strokeWidth=1, strokeDash=[2, 2]).encode(
            x=x, x2="score_before:Q", y=y))
        layers.append(alt.Chart(before).mark_point(filled=True, size=60, color="#888888", opacity=0.35).encode(
            x=x, y=y, tooltip=[alt.Tooltip("run:O", title="Run"), alt.Tooltip("score:Q", format=".2f", title="Before")]))
    layers.append(alt.Chart(now).mark_point(filled=True, size=90, color=PALETTE[0], opacity=1).encode(
        x=x, y=y, tooltip=[alt.Tooltip("run:O", title="Run"), alt.Tooltip("score:Q", format=".2f", title="Score")]))
    marks = pd.DataFrame({"score": [float(now["ability"].iloc[0]), float(now["mean"].iloc[0])],
                          "what": ["true ability (unknown in practice)", "mean of these runs"]})
    layers.append(alt.Chart(marks).mark_rule(strokeWidth=2).encode(
        x=x, strokeDash=alt.StrokeDash("what:N", title=None, legend=_legend(orient="top"),
                                       scale=alt.Scale(domain=list(marks["what"]), range=[[6, 4], [1, 0]])),
        color=alt.Color("what:N", scale=alt.Scale(domain=list(marks["what"]), range=["#888888", PALETTE[3]]),
                        legend=_legend(orient="top", title=None))))
    return alt.layer(*layers).properties(height=alt.Step(16))


def sampling_drag_chart(bars: pd.DataFrame, rules: pd.DataFrame, *, accuracy: float, n: int) -> alt.LayerChart:
    """The sampling distribution of the observed accuracy at one n, which the reader drags along n in the
    browser ("Drag n"), with the Wald interval around the true accuracy; the x axis stays put, so the
    distribution visibly narrows like 1/√n.

    ``bars, rules`` are ``lessons.one_model.sampling_grid``; nothing is computed in the browser.
    (:func:`sampling_drag_spec` is the same chart compiled, from a template.)
    """
    truth, step, values = _sampling_drag_data(rules, accuracy, n)
    return _sampling_drag_layout(bars, rules, truth, step, **values)


def _sampling_drag_data(rules: pd.DataFrame, accuracy: float, n: int) -> tuple[pd.DataFrame, tuple, dict]:
    """The truth's one-row frame, the grid's step in n and the numbers the setting changes (the drag's first,
    last and starting n, the x axis's ends)."""
    ns = sorted(set(int(v) for v in rules["n"]))
    start = min(ns, key=lambda v: abs(v - n))
    return (pd.DataFrame({"p": [accuracy]}), ns[1] - ns[0],
            {"start": start, "first": ns[0], "last": ns[-1], "lo": max(0.0, accuracy - 0.35),
             "hi": min(1.0, accuracy + 0.35)})


def _sampling_drag_layout(bars: pd.DataFrame, rules: pd.DataFrame, truth: pd.DataFrame, step: int, *, start: Any,
                          first: Any, last: Any, lo: Any, hi: Any) -> alt.LayerChart:
    """:func:`sampling_drag_chart` drawn from :func:`_sampling_drag_data`; reads nothing of its frames."""
    drag = alt.param(name="drag_n_dist", value=start,
                     bind=alt.binding_range(min=first, max=last, step=step, name="Drag n: "))
    x = alt.X("acc:Q", title="Observed accuracy k/n", scale=alt.Scale(domain=[lo, hi], clamp=True),
              axis=alt.Axis(format=".0%", tickMinStep=0.01))
    # a step area through each k's probability density: exact at every n, and visible however thin a bar
    dist = alt.Chart(bars).transform_filter(alt.datum.n == drag).transform_calculate(
        acc="(datum.acc_lo + datum.acc_hi) / 2").mark_area(
        color=PALETTE[0], opacity=0.6, interpolate="step", line={"color": PALETTE[0]}).encode(
        x=x, y=alt.Y("density:Q", title="Density", axis=alt.Axis(labels=False, ticks=False)),  # fits the plot's height
        tooltip=[alt.Tooltip("k:Q", title="k"), alt.Tooltip("n:Q"), alt.Tooltip("prob:Q", format=".2%", title="P(k)")])
    wald = alt.Chart(rules).transform_filter(alt.datum.n == drag)
    band = wald.mark_rule(color=PALETTE[3], strokeWidth=3).encode(
        x=alt.X("low:Q", scale=alt.Scale(domain=[lo, hi], clamp=True)), x2="high:Q", y=alt.value(6))
    label = wald.transform_calculate(
        text="'n = ' + datum.n + ': 95% of runs within ±' + format(1.96 * datum.se * 100, '.1f') + ' points'"
    ).mark_text(align="left", baseline="top", dy=0, fontSize=12, fontWeight="bold", color=PALETTE[3]).encode(
        x=alt.value(4), y=alt.value(2), text="text:N")
    truth_rule = alt.Chart(truth).mark_rule(color="#888888", strokeDash=[4, 3]).encode(x="p:Q")
    return alt.layer(dist, truth_rule, band, label).add_params(drag).properties(height=220)


def sampling_drag_spec(bars: pd.DataFrame, rules: pd.DataFrame, *, accuracy: float, n: int) -> dict:
    """``compile_spec(sampling_drag_chart(...))`` from a template compiled once per grid of n (see
    :func:`halfwidth_drag_spec`)."""
    truth, step, values = _sampling_drag_data(rules, accuracy, n)
    key = ("sampling_drag", step, tuple(bars.columns), tuple(rules.columns))  # any accuracy and n: one template
    return filled(key, lambda v: _sampling_drag_layout(bars, rules, truth, step, **v), {},
                  {"bars": bars, "rules": rules, "truth": truth}, values=values)
