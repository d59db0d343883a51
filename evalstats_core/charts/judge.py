"""Charts of a judged eval: three intervals per model, the coverage lab, and a verdict the judge flips.

Every chart draws columns the core computed (``estimate``, ``ci_low``, ``ci_high``, ``coverage``).
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from ._base import PALETTE, legend
from ._template import filled

__all__ = ["KIND_ORDER", "three_intervals", "coverage_lab", "coverage_lab_spec", "flip_chart"]

#: The three intervals, in the order they are drawn, and their colours.
KIND_ORDER = ("judge only", "human only", "corrected")
_COLORS = [PALETTE[3], PALETTE[7], PALETTE[0]]


def three_intervals(frame: pd.DataFrame, *, title: str = "", truth: float | None = None, zero_line: bool = False,
                    x_title: str = "Score with 95% interval", subtitle: str = "") -> alt.LayerChart:
    """One row per model (``label``), its three intervals (``kind``) side by side in the row: ``estimate, ci_low,
    ci_high``. One axis label per model (never one per interval, which overprinted at 10 models), the x axis from
    the lowest end to the highest (with the truth or zero line when drawn), ``subtitle`` under the title (the
    method and the labels)."""
    fmt = ".1%"
    color = alt.Color("kind:N", sort=list(KIND_ORDER), scale=alt.Scale(domain=list(KIND_ORDER), range=_COLORS),
                      legend=legend(title=None, orient="top"))
    tooltip = [alt.Tooltip("label:N", title="model"), alt.Tooltip("kind:N"),
               alt.Tooltip("estimate:Q", format=fmt), alt.Tooltip("ci_low:Q", format=fmt),
               alt.Tooltip("ci_high:Q", format=fmt)]
    ends = pd.concat([frame["ci_low"], frame["ci_high"], frame["estimate"]]).dropna()
    if truth is not None or zero_line:
        ends = pd.concat([ends, pd.Series([0.0 if truth is None else truth])])
    lo, hi = (float(ends.min()), float(ends.max())) if len(ends) else (0.0, 1.0)
    pad = 0.03 * (hi - lo) if hi > lo else 0.01
    x_scale = alt.Scale(zero=False, nice=False, domain=[lo - pad, hi + pad])
    n_rows = max(int(frame["label"].nunique()), 1)
    base = alt.Chart(frame).encode(
        y=alt.Y("label:N", sort=None, title=None, axis=alt.Axis(labelLimit=220)),
        yOffset=alt.YOffset("kind:N", sort=list(KIND_ORDER), scale=alt.Scale(domain=list(KIND_ORDER))),
        color=color, tooltip=tooltip)
    bars = base.mark_rule(strokeWidth=3).encode(
        x=alt.X("ci_low:Q", title=x_title, axis=alt.Axis(format=fmt), scale=x_scale), x2="ci_high:Q")
    points = base.mark_point(filled=True, size=60).encode(x="estimate:Q")
    layers = [bars, points]
    if truth is not None or zero_line:
        value = 0.0 if truth is None else truth
        layers.insert(0, alt.Chart(pd.DataFrame({"x": [value]})).mark_rule(strokeDash=[4, 4], color="#888888")
                      .encode(x=alt.X("x:Q", scale=x_scale)))
    chart = alt.layer(*layers).properties(height=120 + 42 * n_rows)  # three intervals a row, legend and title
    if title or subtitle:
        return chart.properties(title=alt.TitleParams(title or "", subtitle=subtitle or alt.Undefined))
    return chart


def coverage_lab(frame: pd.DataFrame, *, title: str = "") -> alt.HConcatChart:
    """Coverage (``coverage``) against questions (``n_total``), one line per interval (``kind``: judge only,
    corrected, and stratified when the labels were chosen by the judge), with the 95% rule; beside it the same
    intervals' mean half-width (``half_width``), so the price of covering is in the picture."""
    kinds = [k for k in ("judge only", "corrected", "stratified") if k in set(frame["kind"])]
    colors = {"judge only": _COLORS[0], "corrected": _COLORS[2], "stratified": PALETTE[2]}
    color = alt.Color("kind:N", scale=alt.Scale(domain=kinds, range=[colors[k] for k in kinds]),
                      legend=legend(title=None, orient="top"))
    x = alt.X("n_total:Q", title="Questions the judge graded",
              scale=alt.Scale(type="log", domain=[float(frame["n_total"].min()), float(frame["n_total"].max())]),
              axis=alt.Axis(values=sorted(frame["n_total"].unique().tolist()), format=","))
    tooltip = [alt.Tooltip("kind:N"), alt.Tooltip("n_total:Q", format=","), alt.Tooltip("coverage:Q", format=".1%"),
               alt.Tooltip("half_width:Q", format=".1%", title="half-width")]
    lines = alt.Chart(frame).mark_line(point=True).encode(
        x=x, y=alt.Y("coverage:Q", title="Intervals that cover the truth",
                     axis=alt.Axis(format=".0%", values=[0, 0.25, 0.5, 0.75, 0.95]), scale=alt.Scale(domain=[0, 1])),
        color=color, tooltip=tooltip)
    target = alt.Chart(pd.DataFrame({"y": [0.95]})).mark_rule(strokeDash=[4, 4], color="#888888").encode(y="y:Q")
    widths = alt.Chart(frame).mark_line(point=True).encode(
        x=x, y=alt.Y("half_width:Q", title="Mean half-width", axis=alt.Axis(format=".1%"),
                     scale=alt.Scale(zero=True)), color=color, tooltip=tooltip)
    chart = alt.hconcat(alt.layer(target, lines).properties(height=260), widths.properties(height=260))
    return chart.properties(title=title) if title else chart


def coverage_lab_spec(frame: pd.DataFrame, *, title: str = "") -> dict:
    """``compile_spec(coverage_lab(frame, title=title))`` from a template compiled once per shape (its kinds of
    interval and its numbers of questions; :mod:`._template`): a new judge costs filling in the rows."""
    kinds = tuple(k for k in ("judge only", "corrected", "stratified") if k in set(frame["kind"]))
    key = ("judge_coverage", tuple(frame.columns), kinds, tuple(sorted(frame["n_total"].unique().tolist())))
    return filled(key, lambda t: coverage_lab(frame, **t), {"title": title}, {"lab": frame})


def flip_chart(frame: pd.DataFrame, *, title: str = "") -> alt.LayerChart:
    """The difference A - B as the judge sees it and corrected: ``three_intervals`` with a zero line."""
    return three_intervals(frame, title=title, zero_line=True, x_title="Difference A - B with 95% interval")
