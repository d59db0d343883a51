"""Chart for chapter 8, "The verdict": each benchmark's difference under each analysis, with its interval.
The builder takes :func:`evalstats_core.lessons.verdict.verdict_steps`'s frame.
"""

from __future__ import annotations

import math

import altair as alt
import pandas as pd

from ._base import PALETTE, legend

__all__ = ["VERDICT_COLORS", "steps_chart", "x_domain"]

#: A resolved gap takes the colour of the model ahead (as in chapter 1); an unresolved one is grey.
VERDICT_COLORS: dict[str, str] = {
    "Galleon ahead": PALETTE[0],
    "Dreadnought ahead": PALETTE[1],
    "unresolved": PALETTE[7],
}


def x_domain(low_pts: pd.Series, high_pts: pd.Series) -> list[float]:
    """The x range in points: every interval and 0, with a point to spare, on whole points."""
    lo = min(float(low_pts.min()), 0.0)
    hi = max(float(high_pts.max()), 0.0)
    return [float(math.floor(lo - 1.0)), float(math.ceil(hi + 1.0))]


def steps_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """Galleon minus Dreadnought per benchmark, one interval per analysis step, coloured by its verdict.

    One row per (benchmark, analysis) with the analysis on the y axis, under a header row holding the
    benchmark's name; the x axis spans the intervals and 0 with a point to spare (:func:`x_domain`).

    Parameters
    ----------
    frame : ``verdict_steps``'s frame (``eval, label, diff, se, ci_low, ci_high, verdict``, ...).
    """
    data = frame.assign(diff_pts=100 * frame["diff"], low=100 * frame["ci_low"], high=100 * frame["ci_high"],
                        se_pts=100 * frame["se"], row=frame["eval"] + "|" + frame["label"])
    data = data[["eval", "label", "row", "verdict", "diff_pts", "low", "high", "se_pts", "multiplier"]]
    domain = x_domain(data["low"], data["high"])
    evals = list(dict.fromkeys(data["eval"]))
    rows = [r for e in evals for r in [f"{e}|", *data.loc[data["eval"] == e, "row"]]]
    y = alt.Y("row:N", scale=alt.Scale(domain=rows), title=None,
              axis=alt.Axis(labelExpr="split(datum.value, '|')[1]", labelFontSize=13, labelLimit=0, ticks=False, domain=False))
    x = alt.X("low:Q", title="Galleon − Dreadnought (points)",
              scale=alt.Scale(domain=domain, nice=False),
              axis=alt.Axis(tickMinStep=1, labelExpr="datum.value > 0 ? '+' + datum.label : datum.label"))
    base = alt.Chart(data).encode(
        y=y,
        color=alt.Color("verdict:N", title=None, scale=alt.Scale(domain=list(VERDICT_COLORS),
                                                                 range=list(VERDICT_COLORS.values())),
                        legend=legend(orient="top")),
        tooltip=[alt.Tooltip("eval:N", title="Eval"), alt.Tooltip("label:N", title="Analysis"),
                 alt.Tooltip("diff_pts:Q", title="Difference (points)", format="+.1f"),
                 alt.Tooltip("se_pts:Q", title="SE (points)", format=".2f"),
                 alt.Tooltip("multiplier:Q", title="Multiplier", format=".3f"),
                 alt.Tooltip("low:Q", title="Interval low", format="+.1f"),
                 alt.Tooltip("high:Q", title="Interval high", format="+.1f"),
                 alt.Tooltip("verdict:N", title="Verdict")],
    )
    heads = pd.DataFrame({"row": [f"{e}|" for e in evals], "eval": evals, "x": domain[0]})
    names = alt.Chart(heads).mark_text(align="left", dx=4, fontSize=13, fontWeight="bold").encode(
        x=alt.X("x:Q", scale=alt.Scale(domain=domain, nice=False)), y=y, text="eval:N")
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(strokeDash=[4, 4], color="#888888").encode(x="zero:Q")
    bars = base.mark_rule(strokeWidth=3).encode(x=x, x2="high:Q")
    dots = base.mark_point(filled=True, size=70, opacity=1).encode(x=alt.X("diff_pts:Q"))
    return alt.layer(zero, bars, dots, names).properties(height=alt.Step(22))
