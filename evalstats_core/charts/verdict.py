"""Chart for chapter 8, "The verdict": each benchmark's difference under each analysis, with its interval.
The builder takes :func:`evalstats_core.lessons.verdict.verdict_steps`'s frame.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from .problem import VERDICT_COLORS

__all__ = ["steps_chart"]


def steps_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """Galleon minus Dreadnought per benchmark, one interval per analysis step, coloured by its verdict.

    Parameters
    ----------
    frame : ``verdict_steps``'s frame (``eval, label, diff, se, ci_low, ci_high, verdict``, ...).
    """
    data = frame.assign(diff_pts=100 * frame["diff"], low=100 * frame["ci_low"], high=100 * frame["ci_high"],
                        se_pts=100 * frame["se"])
    data = data[["eval", "label", "verdict", "diff_pts", "low", "high", "se_pts", "multiplier"]]
    labels = list(dict.fromkeys(data["label"]))
    verdicts = list(VERDICT_COLORS)
    span = float(max(abs(data["low"].min()), abs(data["high"].max()))) + 0.5
    x = alt.X("low:Q", title="Galleon − Dreadnought (points), with its interval",
              scale=alt.Scale(domain=[-span, span * 1.5]), axis=alt.Axis(tickMinStep=1))
    base = alt.Chart(data).encode(
        y=alt.Y("eval:N", sort=None, title=None, axis=alt.Axis(labelFontSize=13, labelFontWeight="bold")),
        yOffset=alt.YOffset("label:N", sort=labels),
        color=alt.Color("verdict:N", title=None, scale=alt.Scale(domain=verdicts, range=list(VERDICT_COLORS.values())),
                        legend=alt.Legend(orient="top", columns=2)),
        tooltip=[alt.Tooltip("eval:N", title="Eval"), alt.Tooltip("label:N", title="Analysis"),
                 alt.Tooltip("diff_pts:Q", title="Difference (points)", format="+.1f"),
                 alt.Tooltip("se_pts:Q", title="SE (points)", format=".2f"),
                 alt.Tooltip("multiplier:Q", title="Multiplier", format=".3f"),
                 alt.Tooltip("low:Q", title="Interval low", format="+.1f"),
                 alt.Tooltip("high:Q", title="Interval high", format="+.1f"),
                 alt.Tooltip("verdict:N", title="Verdict")],
    )
    bars = base.mark_rule(strokeWidth=3).encode(x=x, x2="high:Q")
    dots = base.mark_point(filled=True, size=70, opacity=1).encode(x=alt.X("diff_pts:Q"))
    steps = base.mark_text(align="left", dx=6, fontSize=10, color="#888888").encode(
        x=alt.X("high:Q"), text=alt.Text("label:N"))
    zero = alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(strokeDash=[4, 4], color="#888888").encode(x="zero:Q")
    return alt.layer(zero, bars, dots, steps).properties(height=alt.Step(22))
