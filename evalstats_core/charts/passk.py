"""Charts of pass@k: each model's pass@k at each k with its interval, and the naive "any of n" count beside it.

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
    """pass@k (``estimate``) of each ``model`` at each ``k``: a point and its interval (``ci_low`` to ``ci_high``),
    the models side by side at each k and joined across k by a line; in the last column, hollow, each model's naive
    share of questions with any of its ``n_samples`` samples passing (``any_of_n``: pass@n, not pass@k), so the
    distance between the two is in the picture."""
    models = list(dict.fromkeys(frame["model"]))
    naive_label = f"any of {n_samples} (naive)"
    order = [str(k) for k in sorted(int(k) for k in frame["k"].unique())] + [naive_label]
    color = alt.Color("model:N", sort=models, scale=alt.Scale(domain=models, range=PALETTE[:max(len(models), 1)]),
                      legend=legend(title=None, orient="top"))
    x = alt.X("x:N", sort=order, scale=alt.Scale(domain=order), title="k (tries counted)",
              axis=alt.Axis(labelAngle=0))
    offset = alt.XOffset("model:N", sort=models, scale=alt.Scale(domain=models))
    y = alt.Y("estimate:Q", title=f"pass@k with {confidence:.0%} interval", axis=alt.Axis(format=".0%"),
              scale=alt.Scale(domain=[0, 1]))
    tooltip = [alt.Tooltip("model:N"), alt.Tooltip("k:Q"), alt.Tooltip("estimate:Q", format=".1%", title="pass@k"),
               alt.Tooltip("ci_low:Q", format=".1%"), alt.Tooltip("ci_high:Q", format=".1%")]
    data = frame.assign(x=frame["k"].astype(int).astype(str))
    base = alt.Chart(data).encode(x=x, xOffset=offset, color=color, tooltip=tooltip)
    bars = base.mark_rule(strokeWidth=2).encode(y=alt.Y("ci_low:Q", scale=alt.Scale(domain=[0, 1])), y2="ci_high:Q")
    points = base.mark_point(filled=True, size=60).encode(y=y)
    naive = (frame.drop_duplicates("model")[["model", "any_of_n"]]
             .rename(columns={"any_of_n": "estimate"}).assign(x=naive_label))
    dots = alt.Chart(naive).mark_point(filled=False, size=80, strokeWidth=2).encode(
        x=x, xOffset=offset, y=y, color=color,
        tooltip=[alt.Tooltip("model:N"), alt.Tooltip("estimate:Q", format=".1%", title=naive_label)])
    chart = alt.layer(bars, points, dots).properties(height=300)
    if title or subtitle:
        return chart.properties(title=alt.TitleParams(title or "", subtitle=subtitle or alt.Undefined))
    return chart
