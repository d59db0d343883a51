"""Charts of pass@k: each model's pass@k against k with its interval, and the naive "any of n" beside it.

Every chart draws the columns the core computed (:func:`evalstats_core.report_passk.chart_frame`: ``model, k,
estimate, ci_low, ci_high, any_of_n``); nothing is aggregated in the browser.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from ._base import PALETTE, legend

__all__ = ["pass_at_chart"]


def pass_at_chart(frame: pd.DataFrame, *, n_samples: int, confidence: float = 0.95, title: str = "",
                  subtitle: str = "") -> alt.LayerChart:
    """pass@k (``estimate``) of each ``model`` at each ``k``: a point and its interval (``ci_low`` to ``ci_high``)
    joined by a line; a dashed mark at each model's naive "any of the ``n_samples`` samples passed" (``any_of_n``,
    which is pass@n, not pass@k) at the right, so the distance between the two is in the picture."""
    models = list(dict.fromkeys(frame["model"]))
    color = alt.Color("model:N", sort=models, scale=alt.Scale(domain=models, range=PALETTE[:max(len(models), 1)]),
                      legend=legend(title=None, orient="top"))
    tooltip = [alt.Tooltip("model:N"), alt.Tooltip("k:Q"), alt.Tooltip("estimate:Q", format=".1%", title="pass@k"),
               alt.Tooltip("ci_low:Q", format=".1%"), alt.Tooltip("ci_high:Q", format=".1%")]
    ks = sorted(int(k) for k in frame["k"].unique())
    x = alt.X("k:Q", title="k (tries counted)", scale=alt.Scale(domain=[0.5, n_samples + 0.5], nice=False),
              axis=alt.Axis(values=sorted({*ks, n_samples}), format="d"))
    y = alt.Y("estimate:Q", title=f"pass@k with {confidence:.0%} interval", axis=alt.Axis(format=".0%"),
              scale=alt.Scale(domain=[0, 1]))
    base = alt.Chart(frame).encode(x=x, color=color, tooltip=tooltip)
    line = base.mark_line(opacity=0.6).encode(y=y)
    bars = base.mark_rule(strokeWidth=2).encode(y=alt.Y("ci_low:Q"), y2="ci_high:Q")
    points = base.mark_point(filled=True, size=60).encode(y=y)
    naive = frame.drop_duplicates("model")[["model", "any_of_n"]].assign(k=float(n_samples))
    dashes = alt.Chart(naive).mark_tick(thickness=2, size=22, strokeDash=[4, 2], orient="horizontal").encode(
        x=alt.X("k:Q"), y=alt.Y("any_of_n:Q"), color=color,
        tooltip=[alt.Tooltip("model:N"), alt.Tooltip("any_of_n:Q", format=".1%", title=f"any of {n_samples} (naive)")])
    chart = alt.layer(line, bars, points, dashes).properties(height=300)
    if title or subtitle:
        return chart.properties(title=alt.TitleParams(title or "", subtitle=subtitle or alt.Undefined))
    return chart
